//! Starting helper processes: in their own process group, killed when the master process
//! ends, from one launcher thread.
//!
//! `PR_SET_PDEATHSIG` fires when the *thread* that forked the child ends, not the process. A
//! helper launched from a short-lived thread (a Python thread, a worker that instantiates and
//! returns) would be killed with it while its instance is still in use. So every helper is
//! forked by one thread that lives as long as the process: helpers end exactly when the
//! master process does, even on SIGKILL.

use std::io;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Mutex, OnceLock};

use crate::{binaries, protocol};
use crate::platform::Platform;

/// A command to start and where to send the started child.
type Job = (Command, Sender<io::Result<Child>>);

/// Starts `program` (Windows ones under `wine`) with the region path as its argument, and
/// waits until it is forked.
pub(crate) fn spawn(platform: Platform, program: &Path, region: &Path) -> io::Result<Child> {
    start(platform, program, region)?
        .recv()
        .map_err(|_| io::Error::other("the helper launcher thread has ended"))?
}

/// As [`spawn`] without waiting: the launcher thread forks the helper while the caller goes
/// on, and the started child (or why it did not start) arrives on the returned channel.
pub(crate) fn start(
    platform: Platform,
    program: &Path,
    region: &Path,
) -> io::Result<Receiver<io::Result<Child>>> {
    // SAFETY: getpid has no preconditions.
    let master = unsafe { libc::getpid() };
    let mut command = if platform.is_windows() {
        let wine: PathBuf = binaries::wine_program().unwrap_or_else(|| PathBuf::from("wine"));
        let mut command = Command::new(wine);
        command.arg(program).env("WINEDEBUG", "-all");
        // SAFETY: the closure calls only async-signal-safe functions (prctl, getppid, _exit)
        // between fork and exec.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(io::Error::last_os_error());
                }
                // The master may have died before prctl took effect.
                if libc::getppid() != master {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
        command
    } else {
        // A Linux helper sets its death signal itself and ends when its parent is no longer
        // `MASTERSIM_MASTER_PID`: without a closure to run between fork and exec, the
        // standard library starts it with posix_spawn (a vfork, not a copy of the master's
        // page tables).
        let mut command = Command::new(program);
        command.env(protocol::MASTER_PID_VARIABLE, master.to_string());
        command
    };
    command
        .arg(platform.path_for_helper(region))
        .stdin(Stdio::null())
        .process_group(0);
    let (reply, child) = mpsc::channel();
    launcher()?
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .send((command, reply))
        .map_err(|_| io::Error::other("the helper launcher thread has ended"))?;
    Ok(child)
}

/// The launcher thread's queue, the thread started on first use.
fn launcher() -> io::Result<&'static Mutex<Sender<Job>>> {
    static QUEUE: OnceLock<Option<Mutex<Sender<Job>>>> = OnceLock::new();
    let queue = QUEUE.get_or_init(|| {
        let (queue, jobs) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("mastersim-helper-launcher".into())
            .spawn(move || {
                for (mut command, reply) in jobs {
                    let _ = reply.send(command.spawn());
                }
            })
            .ok()?;
        Some(Mutex::new(queue))
    });
    queue
        .as_ref()
        .ok_or_else(|| io::Error::other("cannot start the helper launcher thread"))
}
