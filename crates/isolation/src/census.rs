//! What this process holds that isolation could leak: resident memory, open file descriptors,
//! shared-memory region files in `/dev/shm`, and child processes (live helpers or unreaped
//! zombies). Read from `/proc` for the sweep benchmark and the leak test, which take a census
//! before and after many isolated runs and compare.

use std::io;
use std::path::PathBuf;

/// One child process of this process, from `/proc/<pid>/stat`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChildProcess {
    /// Its process id.
    pub pid: u32,
    /// Its command name (`comm`, at most 15 bytes: `fmu_host_linux6`).
    pub name: String,
    /// Its state letter (`R`, `S`, `Z` for a zombie not yet reaped, …; proc(5)).
    pub state: char,
}

/// A snapshot of what this process holds (Linux `/proc`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Census {
    /// Resident memory, KiB (`VmRSS` of `/proc/self/status`).
    pub rss_kib: u64,
    /// Open file descriptors (entries of `/proc/self/fd`, the one used to list them excluded).
    pub open_fds: usize,
    /// Region files of this process still in `/dev/shm` (`mastersim-<pid>-<n>`; a region's
    /// file is removed once its helper has mapped it).
    pub region_files: Vec<PathBuf>,
    /// Child processes of this process (any thread's), zombies included.
    pub children: Vec<ChildProcess>,
}

impl Census {
    /// Children that have exited but were not reaped.
    pub fn zombies(&self) -> impl Iterator<Item = &ChildProcess> {
        self.children.iter().filter(|c| c.state == 'Z')
    }
}

/// Takes a census of this process, once the helpers told to quit are reaped (their exit is
/// reaped in the background).
///
/// # Errors
/// When `/proc/self/status`, `/proc/self/fd` or `/proc` cannot be read (no Linux `/proc`).
pub fn census() -> io::Result<Census> {
    crate::launcher::wait_for_reaping();
    let status = std::fs::read_to_string("/proc/self/status")?;
    let rss_kib = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| io::Error::other("no VmRSS line in /proc/self/status"))?;
    // The directory handle that lists /proc/self/fd is one of the entries.
    let open_fds = std::fs::read_dir("/proc/self/fd")?
        .count()
        .saturating_sub(1);
    let prefix = format!("mastersim-{}-", std::process::id());
    let region_files = match std::fs::read_dir("/dev/shm") {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
            .map(|e| e.path())
            .collect(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e),
    };
    Ok(Census {
        rss_kib,
        open_fds,
        region_files,
        children: children()?,
    })
}

/// The processes whose parent is this process (`ppid` of `/proc/<pid>/stat`).
fn children() -> io::Result<Vec<ChildProcess>> {
    let me = std::process::id();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc")?.filter_map(Result::ok) {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        // A process may end between listing and reading: skip it.
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so split at the last ')'.
        let Some((head, tail)) = stat.rsplit_once(')') else {
            continue;
        };
        let name = head.split_once('(').map_or("", |(_, n)| n).to_string();
        let mut fields = tail.split_whitespace();
        let state = fields.next().and_then(|s| s.chars().next()).unwrap_or('?');
        let ppid = fields.next().and_then(|s| s.parse::<u32>().ok());
        if ppid == Some(me) {
            found.push(ChildProcess { pid, name, state });
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_census_sees_memory_descriptors_and_a_child() {
        let before = census().expect("census");
        assert!(before.rss_kib > 0, "{before:?}");
        assert!(before.open_fds >= 3, "stdin, stdout, stderr: {before:?}");
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .expect("sleep starts");
        let during = census().expect("census");
        child.kill().expect("kill");
        child.wait().expect("reap");
        let pid = child.id();
        assert!(
            during.children.iter().any(|c| c.pid == pid),
            "child {pid} not seen: {during:?}"
        );
        let after = census().expect("census");
        assert!(after.children.iter().all(|c| c.pid != pid), "{after:?}");
    }
}
