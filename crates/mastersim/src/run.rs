//! One way to run a session to its end: [`run_to_end`] runs an opened [`Session`] plainly,
//! steered (the live view) or paced (real time), or only through initialization
//! (`--test-init`); it names what stopped it (a signal, a limit, the live view), logs and
//! writes the ending (`log/summary.txt`, `log/summary.json`) and returns the [`RunEnd`] with the
//! exit code that belongs to it. The `mastersim` binary and `mastersim sweep case` both end their
//! runs here, and learn the outcome from the returned value.
//!
//! Exit codes ([`SUCCESS`], [`SIMULATION_FAILED`], [`INPUT_ERROR`], [`TIMED_OUT`], 128 + the
//! signal number after SIGINT, SIGTERM or the time-limit warning SIGUSR1): `docs/robustness.md`.
//! An FMU that calls `exit` ends the process with its own code (module `exit`).
//!
//! Spec: `docs/robustness.md` (exit codes, outcomes); MasterSim reference §2 (`--test-init`).

use std::path::Path;

use crate::interrupt::Interrupt;
use crate::{
    Ending, Error, Options, RunState, Session, Statistics, Steering, SteeringError, WorkingDirLock,
};

/// Exit code of a run that reached its end: completed, `--test-init`, a slave's terminate
/// request, or stopped from the live view.
pub const SUCCESS: u8 = 0;
/// Exit code of a run that failed while simulating (initialization or stepping), or whose
/// result files or summary could not be completed.
pub const SIMULATION_FAILED: u8 = 1;
/// Exit code of a usage, project or FMU error (nothing was simulated).
pub const INPUT_ERROR: u8 = 2;
/// Exit code when an FMU call exceeded the step timeout, or a run was stopped at its
/// wall-time limit (as GNU `timeout`).
pub const TIMED_OUT: u8 = 124;
/// Exit code of a run stopped by the time-limit warning of a sweep case, SIGUSR1 (128 + 10).
pub const TIME_LIMIT_WARNING: u8 = 138;

/// Ends the process with [`TIMED_OUT`]: the [`crate::StepTimeout::on_expiry`] of a run whose
/// results are saved by then while an FMU call hangs.
pub fn exit_timed_out() -> ! {
    std::process::exit(i32::from(TIMED_OUT))
}

/// How [`run_to_end`] drives a session.
#[derive(Debug, Default)]
pub struct Control<'a> {
    /// Stop after initialization and the first result row; a failed initialization is
    /// reported like a failed run, with `summary.txt` (`--test-init`).
    pub test_init: bool,
    /// Steer the run: step, pause and stop from outside, paced at its real-time factor (see
    /// [`Control::steering_for`]); `None` runs as fast as it goes.
    pub steering: Option<Steering>,
    /// A live view steers the run: a stop without signal or limit is "stopped from the live
    /// view" (exit code 0).
    pub live_view: bool,
    /// What stops the run early: SIGINT, SIGTERM, the time-limit warning or an expired
    /// limit ([`Interrupt::expire`]); its flag becomes the session's stop flag.
    pub interrupt: Option<&'a Interrupt>,
}

impl Control<'_> {
    /// The steering a run under `options` needs: with a live view, one that waits for Start;
    /// with [`Options::real_time`], one that paces at that factor; else none.
    ///
    /// # Errors
    /// [`SteeringError`] for a real-time factor that is not finite and > 0 (refused before by
    /// [`Options::validate`]).
    pub fn steering_for(
        options: &Options,
        live_view: bool,
    ) -> std::result::Result<Option<Steering>, SteeringError> {
        let state = match (live_view, options.real_time) {
            (true, _) => RunState::Waiting,
            (false, Some(_)) => RunState::Running,
            (false, None) => return Ok(None),
        };
        Steering::new(state, options.real_time).map(Some)
    }
}

/// How a run ended, with the exit code that belongs to it.
#[derive(Debug, Clone)]
pub struct RunEnd {
    /// The ending (`Completed` also after a successful `--test-init`).
    pub ending: Ending,
    /// The process exit code ([`SUCCESS`], [`SIMULATION_FAILED`], [`TIMED_OUT`], 130, 138,
    /// 143; [`INPUT_ERROR`] from [`RunEnd::input_error`]).
    pub exit_code: u8,
    /// The error, or why the run did not complete (the `Message` of `summary.txt`); `None`
    /// for a completed run.
    pub message: Option<String>,
    /// The run's statistics, when the summary was written (boxed: a `RunEnd` is also the
    /// error of opening a run, and should stay small).
    pub statistics: Option<Box<Statistics>>,
}

impl RunEnd {
    /// The end of a run that could not start (`error` of opening or checking it): exit code
    /// [`INPUT_ERROR`], the error's text with its causes as the message.
    pub fn input_error(error: &Error) -> RunEnd {
        RunEnd::failed(INPUT_ERROR, error.chain_text())
    }

    /// A failed run with exit code `exit_code` (such as [`INPUT_ERROR`] for a run refused
    /// before it started) and `message`.
    pub fn failed(exit_code: u8, message: String) -> RunEnd {
        RunEnd {
            ending: Ending::Failed(message.clone()),
            exit_code,
            message: Some(message),
            statistics: None,
        }
    }

    /// Whether the run reached its end (exit code 0).
    pub fn succeeded(&self) -> bool {
        self.exit_code == SUCCESS
    }
}

/// The run input `given` (an SSP folder as its `SystemStructure.ssd`, a `file://` prefix
/// dropped), checked before anything is created, so that a missing file, a directory or a
/// file of another kind leaves nothing behind.
///
/// # Errors
/// A [`RunEnd`] with exit code [`INPUT_ERROR`]: the errors of [`crate::InputKind::check`]; a
/// sweep file, result file or list of projects is pointed to the `mastersim` subcommand meant
/// for it.
pub fn checked_input(given: &Path) -> Result<std::path::PathBuf, RunEnd> {
    let text = given.to_string_lossy();
    let project = crate::run_input(Path::new(text.strip_prefix("file://").unwrap_or(&text)));
    match crate::InputKind::check(&project) {
        Ok(_) => Ok(project),
        Err(e @ Error::UnknownInput { .. }) => Err(RunEnd::failed(
            INPUT_ERROR,
            format!("{e}{}", input_hint(&project)),
        )),
        Err(e) => Err(RunEnd::input_error(&e)),
    }
}

/// What to say about an input that is no project, FMU or SSP system, by what it looks like:
/// a sweep file or result file is meant for another subcommand of `mastersim`.
fn input_hint(path: &Path) -> &'static str {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match extension.as_deref() {
        Some("toml") => "; a sweep file runs with `mastersim sweep run <file>`",
        Some("csv" | "tsv" | "mat" | "json") => {
            "; results are shown with `mastersim view <file>` or `mastersim plot <file>`"
        }
        Some("txt") => "; a list of projects runs with `mastersim batch <file>`",
        _ => "",
    }
}

/// Opens the run of `project` under `options` as the `mastersim` binary does: holds the
/// working directory (the returned lock; the session shares it), creates `log/`, starts the
/// run's logging at `verbosity` into `log/screenlog.txt` ([`crate::logging::init`]), and
/// opens the session, or with `resume` continues it from its checkpoint
/// ([`Options::checkpoint_path_for`]).
///
/// # Errors
/// A [`RunEnd`] with exit code [`INPUT_ERROR`]: the directory is held by another run or
/// cannot be created, the screenlog cannot be written, or the session cannot be opened.
pub fn open(
    project: &Path,
    options: &Options,
    verbosity: u8,
    resume: bool,
) -> Result<(Session, WorkingDirLock), RunEnd> {
    let wd = options.working_dir_for(project);
    // Before the log file is opened: another run may own the directory.
    let lock = WorkingDirLock::acquire(&wd).map_err(|e| RunEnd::input_error(&e))?;
    let log_dir = wd.join("log");
    std::fs::create_dir_all(&log_dir).map_err(|e| {
        let dir = log_dir.display();
        RunEnd::failed(
            INPUT_ERROR,
            format!("cannot create working directory '{dir}': {e}"),
        )
    })?;
    crate::logging::init(verbosity, &log_dir.join("screenlog.txt"))
        .map_err(|message| RunEnd::failed(INPUT_ERROR, message))?;
    log::info!("mastersim, version {}", env!("CARGO_PKG_VERSION"));
    let session = if resume {
        Session::open_resume(project, options, options.checkpoint_path_for(project))
    } else {
        Session::open(project, options)
    };
    Ok((session.map_err(|e| RunEnd::input_error(&e))?, lock))
}

/// Runs `session` to its end as `control` says, names what stopped it, logs the ending and
/// finishes the session (result files, `summary.txt`, `summary.json`; `--test-init` writes
/// no summary). The returned [`RunEnd`] has the exit code: 0 when the run reached its end
/// (or the live view stopped it), 1 when it failed or its files could not be finished,
/// 128 + signal number after a signal, [`TIMED_OUT`] after an expired limit.
///
/// Spec: `docs/robustness.md` (exit codes and outcomes).
pub fn run_to_end(mut session: Session, control: &Control<'_>) -> RunEnd {
    if let Some(interrupt) = control.interrupt {
        session.set_stop_flag(interrupt.flag());
    }
    if control.test_init {
        if session.initialize().is_ok() {
            log::info!("Stopping after successful initialization.");
            return match session.close() {
                Ok(()) => RunEnd {
                    ending: Ending::Completed,
                    exit_code: SUCCESS,
                    message: None,
                    statistics: None,
                },
                Err(e) => RunEnd::failed(SIMULATION_FAILED, e.chain_text()),
            };
        }
        // A failed initialization is reported like a failed run, with summary.txt.
    } else if let Some(steering) = &control.steering {
        let _ = session.run_steered(steering);
    } else {
        let _ = session.run();
    }
    if let Ending::Interrupted { .. } = session.ending() {
        session.set_stop_cause(&stop_cause(control));
    }
    let ending = session.ending();
    let times = session.plan().time_format();
    match &ending {
        Ending::Terminated { slave, t } => log::info!(
            "Simulation ended at t = {} s on request of slave '{slave}'.",
            times.show(*t)
        ),
        Ending::Interrupted { cause, t } => log::warn!(
            "{cause}: simulation stopped at t = {} s; results up to there are complete.",
            times.show(*t)
        ),
        // A call into an isolated slave that timed out: the helper was killed, the run ended
        // here (an in-process hang is reported by the supervisor, which ends the process).
        Ending::TimedOut(message) => log::error!("{message}"),
        Ending::Completed | Ending::Failed(_) | Ending::FmuExited { .. } => {}
    }
    let summary_message = ending
        .summary_lines(&times)
        .into_iter()
        .find_map(|(key, text)| (key == "Message").then_some(text));
    let finished = session.finish();
    // Report in order of cause: the run's own failure first, then the files and the slaves.
    if let Ending::Failed(message) = ending {
        return RunEnd::failed(SIMULATION_FAILED, message);
    }
    let statistics = match finished {
        Ok(statistics) => statistics,
        Err(e) => return RunEnd::failed(SIMULATION_FAILED, e.chain_text()),
    };
    RunEnd {
        exit_code: exit_code(&ending, control),
        ending,
        message: summary_message,
        statistics: Some(Box::new(statistics)),
    }
}

/// What stopped an interrupted run: the signal, the expired limit, the live view, or a stop
/// request of the library user.
fn stop_cause(control: &Control<'_>) -> String {
    let interrupt = control.interrupt;
    match (interrupt, interrupt.and_then(Interrupt::expired)) {
        (Some(interrupt), _) if interrupt.signalled() => {
            format!("{} received", interrupt.received().0)
        }
        (_, Some(cause)) => cause.to_owned(),
        _ if control.live_view => "stopped from the live view".to_owned(),
        _ => "stop requested".to_owned(),
    }
}

/// The exit code of a run that did not fail and whose files are finished: 128 + signal number
/// after a signal, [`TIMED_OUT`] after an expired limit, else 0.
fn exit_code(ending: &Ending, control: &Control<'_>) -> u8 {
    match ending {
        Ending::TimedOut(_) => return TIMED_OUT,
        Ending::Interrupted { .. } => {}
        _ => return SUCCESS,
    }
    match control.interrupt {
        Some(interrupt) if interrupt.signalled() => interrupt.received().1,
        Some(interrupt) if interrupt.expired().is_some() => TIMED_OUT,
        _ => SUCCESS,
    }
}
