//! Running the `mastersim` binary and measuring it: wall time, peak memory, `summary.txt`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Number of cores available to this process.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// One finished run.
#[derive(Debug)]
pub struct Measured {
    /// Wall time from spawn to exit.
    pub wall: Duration,
    /// Peak resident set size of the process, KiB.
    pub max_rss_kib: i64,
    /// The `key=value` lines of `log/summary.txt`.
    pub summary: BTreeMap<String, String>,
}

impl Measured {
    /// A number of `summary.txt`.
    ///
    /// # Panics
    /// When the key is missing or not a number.
    pub fn summary_number(&self, key: &str) -> f64 {
        self.summary
            .get(key)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no number '{key}' in summary.txt: {:?}", self.summary))
    }
}

/// Runs `mastersim <args> --working-dir <wd> <project>`, waits with `wait4` for the peak
/// memory, and reads `summary.txt`.
///
/// The previous run's `results/` and `log/` in `wd` are removed before the clock starts: a
/// run then pays for writing its files, not for deleting the last run's (which costs the
/// kernel about 0.4 ms per MB here; the extracted FMUs in `wd/fmus` are kept, as in a rerun).
///
/// # Panics
/// When the old files cannot be removed, the process cannot start or does not exit with 0.
pub fn run(mastersim: &Path, project: &Path, wd: &Path, args: &[&str]) -> Measured {
    for old in ["results", "log"] {
        match std::fs::remove_dir_all(wd.join(old)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                panic!("cannot remove '{}': {e}", wd.join(old).display())
            }
            _ => {}
        }
    }
    let started = Instant::now();
    #[expect(
        clippy::zombie_processes,
        reason = "reaped by wait4 below, which also reports the peak memory"
    )]
    let child = Command::new(mastersim)
        .args(args)
        .arg("--verbosity-level")
        .arg("0")
        .arg("--working-dir")
        .arg(wd)
        .arg(project)
        .stdout(Stdio::null())
        .spawn()
        .expect("mastersim starts");
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: a zeroed `rusage` is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our unwaited child; `status` and `usage` are valid out-pointers that
    // outlive the call. `child` is not waited for again (dropping it does not wait).
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = started.elapsed();
    assert_eq!(
        waited,
        pid,
        "wait4 failed: {}",
        std::io::Error::last_os_error()
    );
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "mastersim failed on '{}' (status {status})",
        project.display()
    );
    let text = std::fs::read_to_string(wd.join("log/summary.txt")).unwrap_or_default();
    let summary = text
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Measured {
        wall,
        max_rss_kib: usage.ru_maxrss,
        summary,
    }
}

/// The median of `values` (the upper one of the middle two for an even count).
///
/// # Panics
/// When `values` is empty.
pub fn median(mut values: Vec<f64>) -> f64 {
    assert!(!values.is_empty(), "median of nothing");
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}
