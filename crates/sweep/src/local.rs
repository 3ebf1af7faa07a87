//! The local executor: the cases as child processes (`mastersim sweep case <dir> <k>`), at
//! most `jobs` at a time, with a progress bar over cases.
//!
//! Each child runs in a process group of its own, so that Ctrl-C at the terminal reaches only
//! the executor, which then asks every running case to stop once with the signal it received
//! itself (SIGINT after Ctrl-C, SIGTERM otherwise: the case writes a checkpoint and its results
//! so far, and the next run of the sweep continues it). A case that
//! exceeds the sweep's wall-time limit stops itself; one that does not react is killed after
//! [`KILL_GRACE`]. A case that fails does not stop the others.
//!
//! A case whose working directory is held by a running process (the same case started by
//! another `sweep case`, a Slurm task, a plain run; [`mastersim::WorkingDirLock`]) is not
//! started: it is reported as [`Held`], never as failed.

use std::collections::HashMap;
use std::io::Write as _;
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use nix::unistd::Pid;

use crate::error::{Error, Result};
use crate::plan::Plan;
use crate::status::{CaseRecord, Outcome};

/// How long a case may run past the sweep's wall-time limit before it is killed (it stops
/// itself at the limit, at its next communication point).
pub const KILL_GRACE: Duration = Duration::from_secs(30);

/// Options of [`run_local`].
#[derive(Debug, Clone)]
pub struct LocalOptions {
    /// The `mastersim` binary the cases run with.
    pub exe: PathBuf,
    /// Cases run at the same time, ≥ 1.
    pub jobs: usize,
    /// Draw a progress bar on the terminal (hidden when stderr is not one).
    pub progress: bool,
    /// The signal number the running cases are stopped with when the stop flag is raised:
    /// read at that moment, so that the caller can store the signal it received (SIGINT after
    /// Ctrl-C; a case then reports that it was interrupted by SIGINT). 0, or a number that is
    /// no signal, means SIGTERM.
    pub stop_signal: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl LocalOptions {
    /// The signal the running cases get when the run is stopped (see
    /// [`LocalOptions::stop_signal`]).
    fn stop_signal(&self) -> Signal {
        i32::try_from(self.stop_signal.load(Ordering::Relaxed))
            .ok()
            .and_then(|n| Signal::try_from(n).ok())
            .unwrap_or(Signal::SIGTERM)
    }
}

/// A case that ended, as the executor saw it.
#[derive(Debug, Clone)]
pub struct Ended {
    /// The case number.
    pub case: usize,
    /// The exit code, or 128 + the signal that ended the process.
    pub code: i32,
}

/// A case that was not started because a running process holds its working directory.
#[derive(Debug, Clone)]
pub struct Held {
    /// The case number.
    pub case: usize,
    /// The holder line of the lock file: process id, host, start time and command line.
    pub holder: String,
}

/// What [`run_local`] did.
#[derive(Debug, Clone, Default)]
pub struct LocalRun {
    /// The cases that ran, in the order they ended.
    pub ended: Vec<Ended>,
    /// The cases that were not started because another process holds them.
    pub held: Vec<Held>,
}

/// What became of one case the executor took up.
enum Taken {
    /// It ran.
    Ended(Ended),
    /// Another process holds it.
    Held(Held),
}

/// The holder of case `k`'s working directory, when a running process holds it.
fn holder(plan: &Plan, k: usize) -> Option<String> {
    mastersim::WorkingDirLock::holder_of(&plan.case_dir(k))
        .ok()
        .flatten()
}

/// The command of case `k` of the sweep in `dir`: `<exe> sweep case <dir> <k>`.
fn case_command(exe: &Path, dir: &Path, k: usize) -> Command {
    let mut command = Command::new(exe);
    command.args(crate::command::case_words(dir, &k.to_string()));
    command
}

/// Runs the cases `cases` of `plan` as child processes, `options.jobs` at a time; each
/// child's console output goes to `cases/<k>/console.txt`. When `stop` is raised, no further
/// case starts and the running ones get [`LocalOptions::stop_signal`] once (SIGTERM unless
/// the caller stored another). Returns the cases that ran, in the order
/// they ended, and those that another process held.
///
/// A child that ends by a signal cannot write its own record; the executor writes it
/// (`interrupted` for SIGTERM, SIGINT, SIGUSR1 and SIGKILL, `failed` for a crash).
///
/// A case whose working directory another process holds when its turn comes is not started
/// (a line on the progress bar names it and the holder) and is returned in
/// [`LocalRun::held`].
///
/// # Errors
/// [`Error::Command`] when a child process cannot be started.
pub fn run_local(
    plan: &Plan,
    cases: &[usize],
    options: &LocalOptions,
    stop: &AtomicBool,
) -> Result<LocalRun> {
    let next = AtomicUsize::new(0);
    let running = Mutex::new(Running::default());
    let (sender, receiver) = mpsc::channel::<Result<Taken>>();
    let bar = progress_bar(plan, cases.len(), options.progress);
    let mut done = LocalRun::default();
    let mut failed = 0usize;
    let mut first_error = None;
    std::thread::scope(|scope| {
        for _ in 0..options.jobs.max(1) {
            let sender = sender.clone();
            let (next, running) = (&next, &running);
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let Some(&k) = cases.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        break;
                    };
                    let ended = run_case(plan, k, options, running);
                    if sender.send(ended).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        loop {
            match receiver.recv_timeout(Duration::from_millis(100)) {
                Ok(Ok(Taken::Held(held))) => {
                    // On stdout also when the bar is hidden (not a terminal); a closed stdout
                    // is no error.
                    bar.suspend(|| {
                        let _ = writeln!(
                            std::io::stdout(),
                            "{}: running in another process ({}); not started",
                            plan.label(&plan.cases[held.case]),
                            held.holder
                        );
                    });
                    bar.inc(1);
                    done.held.push(held);
                }
                Ok(Ok(Taken::Ended(ended))) => {
                    let outcome = CaseRecord::read(&plan.case_dir(ended.case))
                        .map_or(Outcome::Failed, |r| r.outcome);
                    if !outcome.is_success() && !outcome.is_unfinished() {
                        failed += 1;
                        bar.set_message(format!("{failed} failed"));
                        bar.println(format!(
                            "{} {} (exit code {}; see {})",
                            plan.label(&plan.cases[ended.case]),
                            outcome.name().replace('_', " "),
                            ended.code,
                            plan.case_dir(ended.case).join("console.txt").display()
                        ));
                    }
                    bar.inc(1);
                    done.ended.push(ended);
                }
                Ok(Err(e)) => {
                    stop.store(true, Ordering::Relaxed);
                    first_error.get_or_insert(e);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            let mut running = running.lock().expect("invariant: no panic while locked");
            if stop.load(Ordering::Relaxed) && running.signalled.is_none() {
                let signal = options.stop_signal();
                running.signalled = Some(signal);
                for (pid, _) in running.children.values() {
                    // The child may have ended meanwhile; nothing to do then.
                    let _ = nix::sys::signal::kill(*pid, signal);
                }
            }
            if let Some(limit) = plan.wall_time_limit {
                let deadline = Duration::from_secs_f64(limit) + KILL_GRACE;
                for (pid, started) in running.children.values() {
                    if started.elapsed() > deadline {
                        let _ = nix::sys::signal::kill(*pid, Signal::SIGKILL);
                    }
                }
            }
        }
    });
    bar.finish_and_clear();
    match first_error {
        Some(e) => Err(e),
        None => Ok(done),
    }
}

/// The running cases, and whether they were asked to stop.
#[derive(Debug, Default)]
struct Running {
    /// Process id and start of each running case.
    children: HashMap<usize, (Pid, Instant)>,
    /// The signal sent to every running case once the run was stopped; a case that starts
    /// later gets it at once.
    signalled: Option<Signal>,
}

/// Runs case `k` in a child process and waits for it; registers it in `running` meanwhile.
/// A case held by another process is not started; one that another process took between the
/// look and the start ends with exit code 2 without writing anything, and counts as held too.
fn run_case(
    plan: &Plan,
    k: usize,
    options: &LocalOptions,
    running: &Mutex<Running>,
) -> Result<Taken> {
    let exe = options.exe.as_path();
    if let Some(holder) = holder(plan, k) {
        return Ok(Taken::Held(Held { case: k, holder }));
    }
    let console_path = plan.case_dir(k).join("console.txt");
    let console = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&console_path)
        .map_err(Error::io(&console_path))?;
    let console_err = console.try_clone().map_err(Error::io(&console_path))?;
    let mut command = case_command(exe, &plan.dir, k);
    command
        .stdin(Stdio::null())
        .stdout(console)
        .stderr(console_err)
        .process_group(0);
    let mut child = command.spawn().map_err(|e| Error::Command {
        command: format!("{} sweep case {} {k}", exe.display(), plan.dir.display()),
        message: e.to_string(),
    })?;
    let pid = Pid::from_raw(i32::try_from(child.id()).expect("invariant: a pid fits i32"));
    {
        let mut running = running.lock().expect("invariant: no panic while locked");
        running.children.insert(k, (pid, Instant::now()));
        if let Some(signal) = running.signalled {
            let _ = nix::sys::signal::kill(pid, signal);
        }
    }
    let status = child.wait();
    running
        .lock()
        .expect("invariant: no panic while locked")
        .children
        .remove(&k);
    let status = status.map_err(|e| Error::Command {
        command: format!("{} sweep case {} {k}", exe.display(), plan.dir.display()),
        message: e.to_string(),
    })?;
    let code = exit_code(status);
    if let Some(signal) = status.signal() {
        record_signal_death(plan, k, signal, code)?;
    }
    if code == 2
        && let Some(holder) = holder(plan, k)
    {
        return Ok(Taken::Held(Held { case: k, holder }));
    }
    Ok(Taken::Ended(Ended { case: k, code }))
}

/// The exit code of `status`, or 128 + the signal that ended the process (the shell's rule).
fn exit_code(status: ExitStatus) -> i32 {
    status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}

/// The record of case `k` after its process was ended by `signal`, which left no record of
/// its own: `interrupted` for SIGTERM, SIGINT, SIGUSR1 and SIGKILL (a rerun continues it from
/// its last checkpoint), `failed` for any other signal (a crash).
///
/// # Errors
/// [`Error::Io`] when the record cannot be written.
fn record_signal_death(plan: &Plan, k: usize, signal: i32, code: i32) -> Result<()> {
    let case = plan.case(k)?;
    let dir = plan.case_dir(k);
    let name = Signal::try_from(signal)
        .map_or_else(|_| format!("signal {signal}"), |s| s.as_str().to_owned());
    let outcome = if [
        Signal::SIGTERM,
        Signal::SIGINT,
        Signal::SIGUSR1,
        Signal::SIGKILL,
    ]
    .iter()
    .any(|s| *s as i32 == signal)
    {
        Outcome::Interrupted
    } else {
        Outcome::Failed
    };
    let previous = CaseRecord::read(&dir);
    CaseRecord {
        case: k,
        key: plan.case_key(case),
        command: plan.command_line(case),
        outcome,
        exit_code: code,
        message: Some(format!("the case process was ended by {name}")),
        wall_seconds: previous.as_ref().map_or(0.0, |r| r.wall_seconds),
        attempts: previous.as_ref().map_or(1, |r| r.attempts),
    }
    .write(&dir)
}

/// The progress bar over the cases of one run (hidden unless `show` and stderr is a terminal).
fn progress_bar(plan: &Plan, count: usize, show: bool) -> indicatif::ProgressBar {
    if !show {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(count as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{prefix} [{bar:30}] {pos}/{len} cases {msg} ({elapsed}, ETA {eta})",
        )
        .expect("invariant: the template is valid")
        .progress_chars("=> "),
    );
    bar.set_prefix(plan.name.clone());
    bar
}
