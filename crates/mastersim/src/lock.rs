//! The working-directory lock: one run at a time in a working directory.
//!
//! A run writes its result files, logs and checkpoints into its working directory. Two runs in
//! the same directory would overwrite each other's files without a word, so every run holds an
//! exclusive lock on `<working dir>/.mastersim.lock` for its whole life: an advisory file lock
//! of the operating system (`flock` on Linux, through [`std::fs::File::try_lock`]), which the
//! kernel releases when the process ends in any way, SIGKILL included, so a lock is never
//! left behind. The file itself stays; it holds a line naming the holder (process id, host,
//! start time and command line), which a second run reads to say who holds the directory.
//!
//! The lock is taken once per process and directory: [`WorkingDirLock::acquire`] in a process
//! that already holds the directory returns another handle to the same lock (the binary takes
//! it before it opens its log file; the [`crate::Session`] it then opens shares it). The lock
//! is released when the last handle is dropped.
//!
//! On a file system without locks (some network file systems), the run goes on unlocked with
//! one warning.
//!
//! Spec: `docs/robustness.md` (two runs in one working directory).

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read as _, Seek as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use crate::{Error, Result};

/// The name of the lock file in a working directory.
pub const LOCK_FILE: &str = ".mastersim.lock";

/// Longest holder line read from a lock file, bytes (a real one has a few hundred).
const HOLDER_LIMIT: u64 = 4096;

/// The directories this process holds, with their locks.
static HELD: Mutex<Vec<(PathBuf, Weak<Held>)>> = Mutex::new(Vec::new());

/// A held lock; dropping the last handle releases it.
#[derive(Debug)]
struct Held {
    /// The canonical working directory (the key in [`HELD`]).
    dir: PathBuf,
    /// The open lock file; closing it releases the lock. `None` when the file system cannot
    /// lock (the run goes on unlocked).
    _file: Option<File>,
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Ok(mut held) = HELD.lock() {
            held.retain(|(dir, lock)| dir != &self.dir && lock.strong_count() > 0);
        }
    }
}

/// An exclusive lock on a working directory, held until the last handle is dropped (see the
/// module documentation).
#[derive(Debug, Clone)]
pub struct WorkingDirLock {
    held: Arc<Held>,
}

impl WorkingDirLock {
    /// Locks the working directory `dir` for this process, creating the directory when it
    /// does not exist. Returns at once: it never waits for another run.
    ///
    /// # Errors
    /// [`Error::WorkingDirectoryLocked`] naming the directory and the process that holds it;
    /// [`Error::Io`] when the directory or its lock file cannot be created or opened.
    pub fn acquire(dir: &Path) -> Result<WorkingDirLock> {
        let io = |action: &'static str, path: &Path| {
            let path = path.to_path_buf();
            move |source| Error::Io {
                action,
                path,
                source,
            }
        };
        std::fs::create_dir_all(dir).map_err(io("create the working directory", dir))?;
        let key = dir
            .canonicalize()
            .map_err(io("find the working directory", dir))?;
        let mut held = HELD.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(lock) = held
            .iter()
            .find(|(d, _)| *d == key)
            .and_then(|(_, lock)| lock.upgrade())
        {
            return Ok(WorkingDirLock { held: lock });
        }
        let path = key.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io("open the lock file", &path))?;
        let file = match try_lock_patiently(&file) {
            Ok(()) => {
                // Best effort: the holder line only helps the message of a second run.
                let _ = write_holder(&mut file);
                Some(file)
            }
            Err(TryLockError::WouldBlock) => {
                return Err(Error::WorkingDirectoryLocked {
                    dir: dir.to_path_buf(),
                    holder: read_holder(&mut file),
                });
            }
            Err(TryLockError::Error(e)) => {
                log::warn!(
                    "cannot lock the working directory '{}' ({e}): the file system does not \
                     support locks; another run in this directory at the same time would \
                     overwrite this run's files",
                    dir.display()
                );
                None
            }
        };
        let lock = Arc::new(Held {
            dir: key.clone(),
            _file: file,
        });
        held.retain(|(_, lock)| lock.strong_count() > 0);
        held.push((key, Arc::downgrade(&lock)));
        Ok(WorkingDirLock { held: lock })
    }

    /// The working directory (canonical path).
    pub fn dir(&self) -> &Path {
        &self.held.dir
    }

    /// Whether `dir` is locked by a run right now (another process, or this one). A
    /// directory without a lock file, or one that does not exist, is not locked.
    ///
    /// # Errors
    /// [`Error::Io`] when the lock file exists but cannot be opened.
    pub fn holder_of(dir: &Path) -> Result<Option<String>> {
        let path = dir.join(LOCK_FILE);
        let Ok(key) = dir.canonicalize() else {
            return Ok(None);
        };
        if let Ok(held) = HELD.lock()
            && held
                .iter()
                .any(|(d, lock)| *d == key && lock.strong_count() > 0)
        {
            return Ok(Some(format!("this process (pid {})", std::process::id())));
        }
        let mut file = match OpenOptions::new().read(true).write(true).open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(Error::Io {
                    action: "open the lock file",
                    path,
                    source,
                });
            }
        };
        // A shared lock only asks: a run that starts at this instant and finds it taken
        // tries again (see `try_lock_patiently`).
        match file.try_lock_shared() {
            Ok(()) => Ok(None),
            Err(TryLockError::WouldBlock) => Ok(Some(read_holder(&mut file))),
            Err(TryLockError::Error(_)) => Ok(None),
        }
    }
}

/// How long [`try_lock_patiently`] tries: far longer than [`WorkingDirLock::holder_of`] holds
/// its shared lock, far shorter than a person notices.
const PATIENCE: std::time::Duration = std::time::Duration::from_millis(200);

/// Takes the exclusive lock of `file`, trying again for up to [`PATIENCE`] while it is held:
/// another process asking whether the directory is held ([`WorkingDirLock::holder_of`]) holds
/// a shared lock for an instant, and must not make a run fail. A run that holds the directory
/// holds it for its life, so this waits [`PATIENCE`] at most before the refusal.
fn try_lock_patiently(file: &File) -> Result<(), TryLockError> {
    let started = std::time::Instant::now();
    loop {
        match file.try_lock() {
            Err(TryLockError::WouldBlock) if started.elapsed() < PATIENCE => {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            other => return other,
        }
    }
}

/// Replaces the lock file's content with this process's holder line.
fn write_holder(file: &mut File) -> std::io::Result<()> {
    let command: Vec<String> = std::env::args().collect();
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let since = chrono::Local::now().format("%Y-%m-%d %H:%M:%S");
    let line = format!(
        "pid {} on host {} since {since}: {}\n",
        std::process::id(),
        host.trim(),
        command.join(" ")
    );
    // Written over the old line, then cut to its length: cutting the file to zero first
    // would make ext4 write the old line out and wait for the disk (see
    // `output::create_fresh`).
    file.rewind()?;
    file.write_all(line.as_bytes())?;
    file.set_len(line.len() as u64)?;
    file.flush()
}

/// The holder line of a lock file held by another process (at most [`HOLDER_LIMIT`] bytes).
fn read_holder(file: &mut File) -> String {
    let mut text = String::new();
    let read = file
        .rewind()
        .and_then(|()| file.take(HOLDER_LIMIT).read_to_string(&mut text));
    match read {
        Ok(_) if !text.trim().is_empty() => text.lines().next().unwrap_or("").trim().to_owned(),
        // The holder has not written its line yet, or it is not text.
        _ => "a process that has not said which".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_process_shares_its_lock_and_releases_it_with_the_last_handle() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path().join("wd");
        let first = WorkingDirLock::acquire(&dir).expect("first lock");
        let second = WorkingDirLock::acquire(&dir).expect("the same process shares it");
        assert_eq!(first.dir(), second.dir());
        let holder = WorkingDirLock::holder_of(&dir).expect("readable");
        assert!(holder.is_some_and(|h| h.contains("this process")));
        let text = std::fs::read_to_string(dir.join(LOCK_FILE)).expect("lock file");
        assert!(
            text.starts_with(&format!("pid {} on host ", std::process::id())),
            "{text}"
        );
        drop(first);
        assert!(WorkingDirLock::holder_of(&dir).expect("readable").is_some());
        drop(second);
        assert_eq!(WorkingDirLock::holder_of(&dir).expect("readable"), None);
        // Released: a new lock is a new one.
        let again = WorkingDirLock::acquire(&dir).expect("lock again");
        assert_eq!(again.dir(), dir.canonicalize().expect("exists"));
    }

    /// The holder line is written over a longer old one and the file cut to it: one line.
    #[test]
    fn the_holder_line_replaces_a_longer_old_one() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let old = format!("pid 1 on host h since then: {}\n", "x".repeat(4000));
        std::fs::write(tmp.path().join(LOCK_FILE), old).expect("old holder line");
        let lock = WorkingDirLock::acquire(tmp.path()).expect("free");
        let text = std::fs::read_to_string(tmp.path().join(LOCK_FILE)).expect("lock file");
        assert!(
            text.starts_with(&format!("pid {} ", std::process::id())),
            "{text}"
        );
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.ends_with('\n') && !text.contains("xxxx"), "{text}");
        drop(lock);
    }

    #[test]
    fn another_open_file_is_refused_with_the_holder_line() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path();
        // Stands in for another process: a lock through another open file description.
        let other = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(dir.join(LOCK_FILE))
            .expect("lock file");
        other.try_lock().expect("free");
        std::fs::write(
            dir.join(LOCK_FILE),
            "pid 4242 on host h since now: mastersim x\n",
        )
        .expect("holder line");
        let error = WorkingDirLock::acquire(dir).expect_err("held elsewhere");
        let text = error.to_string();
        assert!(text.contains(&dir.display().to_string()), "{text}");
        assert!(text.contains("pid 4242 on host h"), "{text}");
        drop(other);
        WorkingDirLock::acquire(dir).expect("released with the other file");
    }
}
