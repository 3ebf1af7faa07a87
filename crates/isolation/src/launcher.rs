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
use std::sync::mpsc::{self, Sender};
use std::sync::{Mutex, OnceLock};

use crate::binaries;
use crate::platform::Platform;

/// A command to start and where to send the started child.
type Job = (Command, Sender<io::Result<Child>>);

/// Starts `program` (Windows ones under `wine`) with the region path as its argument.
pub(crate) fn spawn(platform: Platform, program: &Path, region: &Path) -> io::Result<Child> {
    let mut command = if platform.is_windows() {
        let wine: PathBuf = binaries::wine_program().unwrap_or_else(|| PathBuf::from("wine"));
        let mut command = Command::new(wine);
        command.arg(program).env("WINEDEBUG", "-all");
        command
    } else {
        Command::new(program)
    };
    command
        .arg(platform.path_for_helper(region))
        .stdin(Stdio::null());
    // SAFETY: getpid has no preconditions; the value is read before the fork.
    let master = unsafe { libc::getpid() };
    // SAFETY: the closure calls only async-signal-safe functions (prctl, getppid, _exit,
    // setpgid) between fork and exec.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(io::Error::last_os_error());
            }
            // The master may have died before prctl took effect.
            if libc::getppid() != master {
                libc::_exit(1);
            }
            if libc::setpgid(0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let (reply, child) = mpsc::channel();
    launcher()?
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .send((command, reply))
        .map_err(|_| io::Error::other("the helper launcher thread has ended"))?;
    child
        .recv()
        .map_err(|_| io::Error::other("the helper launcher thread has ended"))?
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
