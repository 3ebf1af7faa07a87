//! Starting helper processes: in their own process group, killed when the master process
//! ends, from one launcher thread, which also reaps the helpers that were told to quit.
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

use crate::platform::Platform;
use crate::{binaries, protocol};

/// What the launcher thread does, in the order asked.
enum Job {
    /// Start the command and send the started child back.
    Spawn(Command, Sender<io::Result<Child>>),
    /// Reap the helper with this process id: it answered QUIT and is exiting.
    Reap(libc::pid_t),
    /// Answer once every job asked before is done.
    Barrier(Sender<()>),
}

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
        .send(Job::Spawn(command, reply))
        .map_err(|_| io::Error::other("the helper launcher thread has ended"))?;
    // A new or woken thread may wait behind this one on its processor (a virtual machine's
    // idle processor does not take it over at once): let it start the helper now.
    std::thread::yield_now();
    Ok(child)
}

/// Reaps the helper `pid`, which answered QUIT and exits, on the launcher thread when it runs,
/// so that the master does not wait for the exit (the helper unloaded its FMU before it
/// answered); else here, at once.
pub(crate) fn reap_later(pid: u32) {
    let pid = pid as libc::pid_t;
    let queued = matches!(QUEUE.get(), Some(Some(queue)) if queue
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .send(Job::Reap(pid))
        .is_ok());
    if !queued {
        reap(pid);
    }
}

/// Waits until the helpers handed to [`reap_later`] so far are reaped (at once when no helper
/// was ever started).
pub(crate) fn wait_for_reaping() {
    let Some(Some(queue)) = QUEUE.get() else {
        return;
    };
    let (done, finished) = mpsc::channel();
    let queued = {
        queue
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .send(Job::Barrier(done))
            .is_ok()
    };
    if queued {
        let _ = finished.recv();
    }
}

fn reap(pid: libc::pid_t) {
    let mut status = 0;
    // SAFETY: `pid` is our unreaped child (its `Child` is dropped without waiting); `status`
    // is a valid out-pointer.
    unsafe {
        libc::waitpid(pid, &mut status, 0);
    }
}

/// The launcher thread's queue, once started (`None` inside: it could not be started).
static QUEUE: OnceLock<Option<Mutex<Sender<Job>>>> = OnceLock::new();

/// The launcher thread's queue, the thread started on first use.
fn launcher() -> io::Result<&'static Mutex<Sender<Job>>> {
    let queue = QUEUE.get_or_init(|| {
        let (queue, jobs) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("mastersim-helper-launcher".into())
            .spawn(move || {
                for job in jobs {
                    match job {
                        Job::Spawn(mut command, reply) => {
                            let _ = reply.send(command.spawn());
                        }
                        Job::Reap(pid) => reap(pid),
                        Job::Barrier(done) => {
                            let _ = done.send(());
                        }
                    }
                }
            })
            .ok()?;
        Some(Mutex::new(queue))
    });
    queue
        .as_ref()
        .ok_or_else(|| io::Error::other("cannot start the helper launcher thread"))
}
