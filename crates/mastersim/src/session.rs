//! [`Session`]: a MasterSim project opened for simulation, which a program steps, reads and
//! finishes.
//!
//! Spec: MasterSim reference §2–§9 (what a run does, in order), §12 (result files); libcosim's
//! `execution` (a steppable run with observers).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use master::project::Project;
use master::{
    Counters, Observer, Observers, RunOutcome, Simulation, SimulationPlan, Statistics, StepReport,
    Value,
};

use crate::checkpoint::{FileHash, RunSettings, Sources};

use crate::pacing::{Pacer, PacingSlot};
use crate::report::{Ending, RunInfo, Summary};
use crate::results::{Continued, ResultFiles, ResultOptions};
use crate::steering::{Next, Steering};
use crate::supervise::{SharedRecord, Supervisor};
use crate::{Error, Result, WorkingDirLock};

mod access;
mod open;
mod resume;
mod snapshot;

pub use resume::StreamingCsv;

use resume::StateCheck;

/// Least wall time between two publications of the pacing figures by a steered run.
const PUBLISH_INTERVAL: Duration = Duration::from_millis(100);

/// A steered run that is not paced reads the clock (for its figures) once per this many steps.
const UNPACED_CLOCK: u32 = 16;

/// A MasterSim project opened for simulation: its FMUs imported and instantiated, ready to be
/// initialized and stepped.
///
/// The life of a session: [`Session::open`] reads the project, extracts and loads the FMUs,
/// validates the connections and instantiates the slaves; [`Session::initialize`] initializes
/// them, creates the result files and writes the first row; [`Session::step`],
/// [`Session::run_until`] and [`Session::run`] advance the simulation (initializing first if
/// needed); [`Session::finish`] completes the result files, writes `log/summary.txt` and
/// terminates the slaves. Between steps any variable can be read, by name
/// ([`Session::value`]) or through a handle resolved once ([`Session::variable`],
/// [`Session::get`], [`Session::read_reals`]), inputs that no connection drives and tunable
/// parameters set ([`Session::set`]), the whole session kept as bytes and rolled back to
/// ([`Session::snapshot`], [`Session::restore`]), and the statistics looked at
/// ([`Session::statistics`]). A session is opened from a file ([`Session::open`]) or from a
/// project loaded apart or built in code ([`Session::from_loaded`],
/// [`Session::from_project`]).
///
/// Dropping a session at any point completes the result files written so far, terminates the
/// slaves and frees them (FMU states, instances, libraries, in that order), without writing
/// `summary.txt`.
///
/// Stepping a session N times gives the same results and counters as running it: both go
/// through [`master::Simulation::step`].
pub struct Session {
    sim: Simulation,
    /// The project as run: overrides applied, settings completed from the FMUs.
    project: Project,
    /// Every observer, the result files first.
    observers: Observers,
    /// The result files, shared with the supervisor thread.
    record: SharedRecord,
    supervisor: Supervisor,
    /// Where and how the run writes, fixed when it was opened.
    setup: Setup,
    /// Checkpoints: where, when, and what they check.
    checkpoints: Checkpoints,
    /// The stop flag and what raised it.
    stop: Stop,
    /// The pacing figures of a steered run that was paced, shared with the progress line;
    /// written to `summary.txt`.
    pacing: Arc<PacingSlot>,
    /// How the error that ended the run ends it (failed, or timed out in a helper process),
    /// with its message, for `summary.txt`.
    failure: Option<Ending>,
    /// How far the session's life has come.
    stage: Stage,
}

/// Where and how a session writes, fixed when it is opened.
struct Setup {
    /// What the run is, for `summary.json`.
    run_info: Arc<RunInfo>,
    working_dir: PathBuf,
    /// The project file's stem: names the MAT and Signal Table files.
    project_name: String,
    results: ResultOptions,
    /// What the project holds that a `.msim` file cannot state (SSP mapping
    /// transformations), each naming its SSD line; empty for `.msim` and FMU runs.
    not_in_msim: Vec<String>,
    /// `loggingOn` of the slaves' instantiate calls (again when a resume falls back to
    /// replay).
    fmu_logging: bool,
    /// The lock on the working directory, held for the session's life.
    _lock: WorkingDirLock,
}

/// The checkpoints of a session: where and when they are written, and what they record.
struct Checkpoints {
    /// Raised by the supervisor every checkpoint interval.
    due: Arc<AtomicBool>,
    /// Where periodic checkpoints and the checkpoint at a stop are written.
    path: PathBuf,
    /// Write a checkpoint when the stop flag ends the run.
    on_stop: bool,
    /// The project file's hash, taken when it was read.
    project_hash: FileHash,
    /// The hashes of the other files the project was read from, taken when they were read.
    input_hashes: Vec<FileHash>,
    /// The hashes of every file the run read, once computed.
    sources: Option<Sources>,
    /// The options a checkpoint records and a resume must share.
    settings: RunSettings,
    /// Whether the slaves' serialized states were checked to restore, and what was found.
    state_check: StateCheck,
    /// The checkpoint's communication point (s), when [`Session::open_resume`] brought the
    /// session there.
    resumed_at: Option<f64>,
}

/// The stop flag of a session and what raised it.
struct Stop {
    flag: Arc<AtomicBool>,
    /// What raised the flag, for `summary.txt`.
    cause: String,
}

/// How far a session's life has come.
#[derive(Default)]
struct Stage {
    /// Initialized, result files created and the first row written.
    initialized: bool,
    /// Result files finished and slaves terminated.
    closed: bool,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("working_dir", &self.setup.working_dir)
            .field("t", &self.sim.time())
            .field("initialized", &self.stage.initialized)
            .finish_non_exhaustive()
    }
}

impl Session {
    /// The project as it runs: the file's lines, then the overrides
    /// ([`Options::overrides`], [`Options::input`]), then the settings completed from the
    /// FMUs' default experiments. For a run of one FMU, the project made for it.
    pub fn project(&self) -> &Project {
        &self.project
    }

    /// Writes [`Session::project`] as a `.msim` file to `path`, every setting stated
    /// explicitly, so that running that file gives the same results as this session
    /// (`--write-msim`). Slave files below the file's directory are written relative to it.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file when it cannot be written; [`Error::NotInMsim`] (nothing
    /// is written) for an SSP system that uses what a `.msim` file cannot state.
    ///
    /// Spec: MasterSim reference §3 (project format).
    pub fn write_project(&self, path: &Path) -> Result<()> {
        if !self.setup.not_in_msim.is_empty() {
            return Err(Error::NotInMsim {
                path: path.to_path_buf(),
                features: self.setup.not_in_msim.join("; "),
            });
        }
        let dir = std::path::absolute(path)
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .unwrap_or_default();
        let mut header = format!(
            "Written by mastersim {} from '{}'",
            env!("CARGO_PKG_VERSION"),
            self.project.path.display()
        );
        for option in &self.project.command_line {
            header.push_str("\n  with ");
            header.push_str(option);
        }
        std::fs::write(path, self.project.to_text(&dir, &header)).map_err(|source| Error::Io {
            action: "write",
            path: path.to_path_buf(),
            source,
        })
    }

    /// Initializes the slaves, creates the result files and writes the first result row at
    /// the start time.
    ///
    /// # Errors
    /// [`Error::Initialization`] when a slave fails to initialize (also when called twice);
    /// [`Error::Io`] or [`Error::Output`] when a result file cannot be created; an observer's
    /// error ([`Error::Master`]).
    ///
    /// Spec: MasterSim reference §8 (initialization), §12 (result files).
    pub fn initialize(&mut self) -> Result<()> {
        let result = self.initialize_once();
        if let Err(e) = &result {
            self.failure = Some(Ending::of_error(e));
        }
        result
    }

    fn initialize_once(&mut self) -> Result<()> {
        self.sim.initialize().map_err(Error::Initialization)?;
        self.create_result_files(Continued::Fresh)?;
        self.sim.start_output(&mut self.observers)?;
        self.stage.initialized = true;
        Ok(())
    }

    /// Creates the result files (see [`Continued`]) and hands them to the record.
    fn create_result_files(&mut self, continued: Continued) -> Result<()> {
        let files = ResultFiles::create(
            &self.setup.working_dir,
            &self.setup.project_name,
            self.sim.plan(),
            self.setup.results.clone(),
            continued,
        )?;
        self.record.lock().files = Some(files);
        Ok(())
    }

    /// Initializes if that has not happened yet.
    fn ensure_initialized(&mut self) -> Result<()> {
        if self.stage.initialized {
            Ok(())
        } else {
            self.initialize()
        }
    }

    /// Records `e` as the failure that ended the run.
    fn failed(&mut self, e: master::Error) -> Error {
        let e = Error::Master(e);
        self.failure = Some(Ending::of_error(&e));
        e
    }

    /// Takes exactly one communication step (initializing first if needed) and returns the new
    /// communication point, the step size taken and, after the last step, how the run ended.
    ///
    /// # Errors
    /// As [`Session::initialize`]; [`Error::Master`] when the step fails (a slave error, a
    /// step that would fall below `hMin`, an observer's error). Rows written before stay
    /// written.
    ///
    /// Spec: MasterSim reference §9.
    pub fn step(&mut self) -> Result<StepReport> {
        self.ensure_initialized()?;
        self.sim
            .step(&mut self.observers)
            .map_err(|e| self.failed(e))
    }

    /// Steps until the communication point reaches or passes `t` (s), or the run ends (end
    /// time, a slave's terminate request, the stop flag); returns the report of the last step.
    ///
    /// # Errors
    /// As [`Session::step`].
    pub fn run_until(&mut self, t: f64) -> Result<StepReport> {
        self.ensure_initialized()?;
        loop {
            let report = self
                .sim
                .run_until(t, &mut self.observers)
                .map_err(|e| self.failed(e))?;
            if report.ended.is_some() || self.sim.time() >= t {
                return Ok(report);
            }
            if self.stop.flag.load(Ordering::Relaxed) {
                return self.stop_now(report.h);
            }
            self.checkpoint_if_due()?;
        }
    }

    /// Ends the run at the current communication point because a stop was asked for: writes
    /// the checkpoint at a stop when the options ask for one, then the last row. `h` is the
    /// last step size taken, for the report.
    fn stop_now(&mut self, h: f64) -> Result<StepReport> {
        if self.checkpoints.on_stop {
            self.write_checkpoint("stop")?;
        }
        self.sim
            .interrupt(&mut self.observers)
            .map_err(|e| self.failed(e))?;
        Ok(StepReport {
            t: self.sim.time(),
            h,
            ended: self.sim.outcome().cloned(),
        })
    }

    /// Runs to the end under `steering` (initializing first if needed): waits while the
    /// steering says waiting or paused, takes single steps when asked, paces the communication
    /// points at the real-time factor when one is set (see [`crate::pacing`]), and publishes
    /// the communication point and the pacing figures after every step. The stop flag and
    /// [`Steering::stop`] end the run as an interrupt does; periodic checkpoints are written
    /// as by [`Session::run`]. The steering is marked finished when this returns.
    ///
    /// Steering never changes the results: the same steps are taken, only later.
    ///
    /// # Errors
    /// As [`Session::step`].
    ///
    /// Spec: `docs/live.md` (pacing and controls).
    pub fn run_steered(&mut self, steering: &Steering) -> Result<RunOutcome> {
        let outcome = self.steered(steering);
        let ending = match &outcome {
            Ok(RunOutcome::Completed) => "completed".to_string(),
            _ => self
                .ending()
                .summary_lines(&self.sim.plan().time_format())
                .into_iter()
                .map(|(_, v)| v)
                .next_back()
                .unwrap_or_default(),
        };
        steering.finish(ending);
        outcome
    }

    fn steered(&mut self, steering: &Steering) -> Result<RunOutcome> {
        self.ensure_initialized()?;
        let mut pacer = Pacer::new(self.sim.time(), steering.status().real_time)
            .with_time_format(self.sim.plan().time_format());
        // The steering's command count when pacing last restarted; `None` while held.
        let mut paced_since = None;
        let mut published = Instant::now();
        // The last answer of `steering.next`, reused while no command comes (no lock per step).
        let mut last_run = None;
        // Steps since the clock was last read while running unpaced.
        let mut unclocked = 0u32;
        steering.publish(self.sim.time(), None, None);
        loop {
            let next = match last_run {
                Some(run @ Next::Run { commands, .. })
                    if steering.unchanged_since(commands, &self.stop.flag) =>
                {
                    run
                }
                _ => steering.next(&self.stop.flag),
            };
            last_run = matches!(next, Next::Run { .. }).then_some(next);
            let mut clocked = true;
            let report = match next {
                Next::Stop => self.stop_now(0.0)?,
                Next::Step => {
                    pacer.hold();
                    paced_since = None;
                    self.step()?
                }
                Next::Run { factor, commands } => {
                    // Any command (pause, resume, a new factor) restarts pacing from here.
                    if paced_since != Some(commands) {
                        pacer.resume(self.sim.time(), factor);
                        paced_since = Some(commands);
                        unclocked = 0;
                    }
                    let report = self.step()?;
                    // Unpaced, the clock (tens of ns) is read every UNPACED_CLOCK steps only:
                    // the pacing figures are sums of differences, so they come out the same.
                    unclocked += 1;
                    clocked = factor.is_some() || unclocked >= UNPACED_CLOCK;
                    if clocked || report.ended.is_some() {
                        unclocked = 0;
                        let stop = &self.stop.flag;
                        pacer.release(report.t, |deadline| steering.sleep_until(deadline, stop));
                    }
                    report
                }
            };
            // The figures at most every PUBLISH_INTERVAL, and at the end.
            let due =
                report.ended.is_some() || { clocked && published.elapsed() >= PUBLISH_INTERVAL };
            let figures = due.then(|| {
                published = Instant::now();
                pacer.figures()
            });
            if let Some(f) = figures {
                self.pacing.report(pacer.factor().is_some(), f);
            }
            let running_since = match last_run {
                Some(Next::Run { commands, .. }) => Some(commands),
                _ => None,
            };
            let held = steering.publish(report.t, figures, running_since);
            if let Some(outcome) = report.ended {
                return Ok(outcome);
            }
            if held {
                // A pause or a single step: show the values here even if no row is due.
                self.sim
                    .show_held(&mut self.observers)
                    .map_err(|e| self.failed(e))?;
            }
            self.checkpoint_if_due()?;
        }
    }

    /// Runs to the end (initializing first if needed), writing the checkpoints the options
    /// ask for (one that cannot be written is logged as a warning).
    ///
    /// # Errors
    /// As [`Session::step`].
    ///
    /// Spec: MasterSim reference §9 (`simulate`).
    pub fn run(&mut self) -> Result<RunOutcome> {
        let report = self.run_until(f64::INFINITY)?;
        Ok(report
            .ended
            .expect("invariant: a run to infinity ends the simulation"))
    }

    /// The current value of any variable, named `<slave>.<variable>` (a file reader's column:
    /// `<slave>.<column caption>`), read from the slave now. The name is looked up at every
    /// call: a program that reads a variable at every step resolves it once
    /// ([`Session::variable`]) and reads it through the handle ([`Session::get`]).
    ///
    /// # Errors
    /// [`Error::Master`]: no such slave or variable, or the slave cannot be read in its current
    /// state.
    ///
    /// Spec: FMI 2.0.2 §2.1.7 (getting values).
    pub fn value(&mut self, name: &str) -> Result<Value> {
        Ok(self.sim.value(name)?)
    }

    /// Adds an observer of result rows and steps. One added after initialization gets the
    /// layout at once and the rows from the next one on.
    ///
    /// # Errors
    /// The observer's error when it is given the layout ([`Error::Master`]).
    pub fn add_observer(&mut self, mut observer: Box<dyn Observer>) -> Result<()> {
        if self.stage.initialized {
            observer
                .start(self.sim.layout())
                .map_err(|source| master::Error::Observer { source })?;
        }
        self.observers.push(observer);
        Ok(())
    }

    /// The flag that stops [`Session::run`] and [`Session::run_until`] at the next
    /// communication point when set (e.g. by a signal handler); the run then ends with
    /// [`RunOutcome::Interrupted`].
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.flag.clone()
    }

    /// Replaces the stop flag by `flag` (e.g. one that signal handlers installed before the
    /// session was opened already raise).
    pub fn set_stop_flag(&mut self, flag: Arc<AtomicBool>) {
        self.sim
            .set_pause_flags(vec![flag.clone(), self.checkpoints.due.clone()]);
        self.stop.flag = flag;
    }

    /// Names what raised the stop flag, as a phrase for `summary.txt` (e.g. "SIGINT
    /// received"; default "stop requested").
    pub fn set_stop_cause(&mut self, cause: &str) {
        self.stop.cause = cause.to_string();
    }

    /// The current communication point, s.
    pub fn time(&self) -> f64 {
        self.sim.time()
    }

    /// The validated project: settings, slaves, connections.
    pub fn plan(&self) -> &SimulationPlan {
        self.sim.plan()
    }

    /// The working directory (extracted FMUs, `log/`, `results/`).
    pub fn working_dir(&self) -> &Path {
        &self.setup.working_dir
    }

    /// The run-wide counters and timers so far.
    pub fn counters(&self) -> &Counters {
        self.sim.counters()
    }

    /// The statistics so far: counters and every slave's call statistics.
    pub fn statistics(&self) -> Statistics {
        self.sim.statistics()
    }

    /// How the run ended, once it has.
    pub fn outcome(&self) -> Option<&RunOutcome> {
        self.sim.outcome()
    }

    /// How the run ended, as `summary.txt` will report it: the failure of the last error, else
    /// the run's outcome, else interrupted at the current communication point.
    pub fn ending(&self) -> Ending {
        if let Some(ending) = &self.failure {
            return ending.clone();
        }
        match self.sim.outcome() {
            Some(RunOutcome::Completed) => Ending::Completed,
            Some(RunOutcome::Terminated { slave, t }) => Ending::Terminated {
                slave: slave.clone(),
                t: *t,
            },
            Some(RunOutcome::Interrupted { t }) => Ending::Interrupted {
                cause: self.stop.cause.clone(),
                t: *t,
            },
            None => Ending::Interrupted {
                cause: "finished before the end time".into(),
                t: self.sim.time(),
            },
        }
    }

    /// Completes the result files, prints the statistics and writes `log/summary.txt` (with the
    /// outcome when the run did not complete, see [`Session::ending`]), then terminates the
    /// slaves. Returns the statistics.
    ///
    /// # Errors
    /// The first of: a result file that cannot be completed, `summary.txt` that cannot be
    /// written, a slave that fails to terminate. Each later step is done anyway.
    ///
    /// Spec: MasterSim reference §12.5 (summary).
    pub fn finish(mut self) -> Result<Statistics> {
        let files = self.record.finish_files();
        let stats = self.sim.statistics();
        let summary_path = self.setup.working_dir.join("log").join("summary.txt");
        let pacing = self.pacing.get();
        let summary = Summary::now(&stats)
            .with_do_step_calls(self.plan().multirate.is_some())
            .with_pacing(pacing)
            .with_run(&self.setup.run_info)
            .log_and_write(&summary_path, &self.ending());
        let terminated = self.terminate();
        files?;
        summary?;
        terminated?;
        Ok(stats)
    }

    /// Completes the result files and terminates the slaves, without writing `summary.txt`
    /// (MasterSim's `--test-init` leaves none).
    ///
    /// # Errors
    /// The first of: a result file that cannot be completed, a slave that fails to terminate.
    pub fn close(mut self) -> Result<()> {
        let files = self.record.finish_files();
        let terminated = self.terminate();
        files?;
        terminated
    }

    /// Terminates the slaves and stops the supervisor.
    fn terminate(&mut self) -> Result<()> {
        self.stage.closed = true;
        crate::exit::unwatch(&self.record);
        // Slaves never initialized (`mastersim convert`, a session closed right after opening)
        // are only freed: FMI 2.0.2 §4.2.4 allows no fmi2Terminate before initialization.
        let attempted = self.stage.initialized || self.failure.is_some();
        let terminated = if attempted {
            self.sim.terminate()
        } else {
            Ok(())
        };
        self.supervisor.stop();
        Ok(terminated?)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if self.stage.closed {
            return;
        }
        if let Err(e) = self.record.finish_files() {
            log::warn!("completing the result files failed: {e}");
        }
        if let Err(e) = self.terminate() {
            log::warn!("{e}");
        }
    }
}
