//! Opening a [`Session`]: from a project file ([`Session::open`]), from a project loaded
//! apart ([`Session::from_loaded`]) or built in code ([`Session::from_project`]); the slaves
//! are instantiated, the supervisor started and the observers set up.
//!
//! Spec: MasterSim reference §5 (working directory), §6 (import and instantiation).

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use master::project::Project;
use master::watchdog::CallMonitor;
use master::{Observers, Simulation, SimulationPlan};

use super::resume::StateCheck;
use super::{Checkpoints, Session, Setup, Stage, Stop};
use crate::checkpoint::{Checkpoint, Sources};
use crate::console::ConsoleProgress;
use crate::options::Options;
use crate::pacing::PacingSlot;
use crate::prepare::{Loaded, Prepared};
use crate::report::RunInfo;
use crate::supervise::{SharedRecord, Supervisor, Watch};
use crate::{Error, Result};

impl Session {
    /// Opens the project file `project` (`.msim`): [`crate::load`] it (parses it, applies
    /// [`Options::overrides`], extracts and loads its FMUs into the working directory,
    /// completes the settings it leaves out from the FMUs' default experiments, see
    /// [`master::experiment::complete_settings`], and validates it into a plan), then
    /// instantiates every slave, in project order ([`Session::from_loaded`]). An FMU (`.fmu`)
    /// given as `project` runs on its own, as a one-slave project
    /// ([`master::project::Project::for_fmu`], with [`Options::input`]). Creates
    /// `<working dir>/log`. Logs through the `log` crate.
    ///
    /// The working directory is locked for the session's life ([`crate::WorkingDirLock`])
    /// before anything is written into it.
    ///
    /// # Errors
    /// [`Error::WorkingDirectoryLocked`] when another run holds the working directory;
    /// [`Error::InvalidOption`] for an option out of range, or an input table for a project
    /// file; [`Error::Io`] when the working directory cannot be created;
    /// [`Error::ProjectNotFound`]; [`Error::ProjectIsDirectory`]; [`Error::Master`] for a
    /// project, FMU, table or plan error (each names the file and line or the FMU);
    /// [`Error::Thread`] never (a supervisor thread that cannot start only disables
    /// supervision, with a warning).
    ///
    /// Spec: MasterSim reference §3 (project), §5 (working directory), §6 (import and
    /// instantiation), §7 (connections).
    pub fn open(project: impl AsRef<Path>, options: &Options) -> Result<Session> {
        options.validate()?;
        Self::open_unchecked(project.as_ref(), options, None)
    }

    /// Makes a session of the project `loaded` ([`crate::load`], [`crate::load_project`]):
    /// instantiates every slave, in project order, and starts the supervision the options ask
    /// for. `options` should be those the project was loaded with (their overrides and result
    /// settings were applied then; the rest apply here).
    ///
    /// # Errors
    /// [`Error::InvalidOption`] for an option out of range; [`Error::Io`] when a slave's
    /// results directory cannot be created; [`Error::Master`] when a slave cannot be
    /// instantiated.
    ///
    /// Spec: MasterSim reference §6 (instantiation).
    pub fn from_loaded(loaded: Loaded, options: &Options) -> Result<Session> {
        options.validate()?;
        Self::start(loaded, options, None)
    }

    /// Makes a session of the project `project` built in code ([`Project::in_code`]):
    /// [`crate::load_project`] then [`Session::from_loaded`].
    ///
    /// # Errors
    /// As [`crate::load_project`] and [`Session::from_loaded`].
    pub fn from_project(project: Project, options: &Options) -> Result<Session> {
        Self::from_loaded(crate::load_project(project, options)?, options)
    }

    /// [`Session::open`] without validating the options; with a checkpoint, its sources are
    /// checked against the project before any slave is instantiated.
    pub(super) fn open_unchecked(
        project: &Path,
        options: &Options,
        checkpoint: Option<(&Path, &Checkpoint)>,
    ) -> Result<Session> {
        let loaded = crate::prepare::load_checked(project, options, checkpoint)?;
        Self::start(loaded, options, checkpoint)
    }

    /// Instantiates the slaves of `loaded` and sets up the session around them.
    fn start(
        loaded: Loaded,
        options: &Options,
        checkpoint: Option<(&Path, &Checkpoint)>,
    ) -> Result<Session> {
        let Loaded {
            input,
            working_dir: wd,
            lock,
            project_hash,
            prepared,
        } = loaded;
        let Prepared {
            project,
            plan,
            results,
            settings,
            not_in_msim,
            input_hashes,
        } = prepared;
        log_cycles(&plan);
        for dir in &plan.slave_directories {
            std::fs::create_dir_all(dir).map_err(|source| Error::Io {
                action: "create",
                path: dir.clone(),
                source,
            })?;
        }
        let sources = checkpoint
            .map(|(path, checkpoint)| {
                let sources = Sources::of(project_hash.clone(), input_hashes.clone(), &plan)?;
                checkpoint.sources.check(path, &sources)?;
                Ok::<_, Error>(sources)
            })
            .transpose()?;
        let run_info = Arc::new(RunInfo::new(&plan, &input, &wd, &project.command_line));
        let summary_path = wd.join("log").join("summary.txt");
        let names: Vec<String> = plan.slaves.iter().map(|s| s.name.clone()).collect();
        let watch = options.step_timeout.map(|timeout| Watch {
            monitor: contained_monitor(&plan),
            timeout,
            summary_path: summary_path.clone(),
            run: run_info.clone(),
            names: names.clone(),
        });
        let stop = Stop {
            flag: Arc::new(AtomicBool::new(false)),
            cause: "stop requested".into(),
        };
        let due = Arc::new(AtomicBool::new(false));
        let sim = simulation(plan, options, &stop.flag, &due, watch.as_ref())?;
        let record = SharedRecord::new(options.step_timeout.is_some() || options.step_statistics);
        let checkpoint_every = options
            .checkpoint_interval
            .map(|s| (std::time::Duration::from_secs_f64(s), due.clone()));
        let supervisor = Supervisor::spawn(record.clone(), watch, checkpoint_every);
        crate::exit::watch(crate::exit::ExitWatch {
            record: record.clone(),
            summary_path,
            run: run_info.clone(),
            names,
        });
        let pacing = Arc::new(PacingSlot::default());
        let observers = observers(&record, options, &pacing);
        Ok(Session {
            sim,
            project,
            observers,
            record,
            supervisor,
            setup: Setup {
                run_info,
                project_name: input
                    .file_stem()
                    .map_or_else(|| "results".into(), |s| s.to_string_lossy().into_owned()),
                working_dir: wd,
                results,
                not_in_msim,
                fmu_logging: options.fmu_logging,
                _lock: lock,
            },
            checkpoints: Checkpoints {
                due,
                path: options.checkpoint_path_for(&input),
                on_stop: options.checkpoint_on_stop,
                project_hash,
                input_hashes,
                sources,
                settings,
                state_check: StateCheck::Pending,
                resumed_at: None,
            },
            stop,
            pacing,
            failure: None,
            stage: Stage::default(),
        })
    }
}

/// The observers of a new session: the result files (`record`), then the console's
/// progress line when the options ask for it.
fn observers(record: &SharedRecord, options: &Options, pacing: &Arc<PacingSlot>) -> Observers {
    let mut observers = Observers::default();
    observers.push(Box::new(record.clone()));
    if options.console_progress {
        observers.push(Box::new(ConsoleProgress::new(pacing.clone())));
    }
    observers
}

/// Logs the cycles of `plan` and their slaves.
fn log_cycles(plan: &SimulationPlan) {
    log::info!("Cycles");
    for (c, cycle) in plan.cycles.iter().enumerate() {
        log::info!("Cycle {}:", c + 1);
        for s in cycle {
            log::info!("  {}", plan.slaves[s.0].name);
        }
    }
}

/// Instantiates the slaves of `plan` and makes the simulation of them: paused by `stop` and
/// `due` (the checkpoint flag), on the threads the options allow, its calls watched by
/// `watch`'s monitor.
///
/// # Errors
/// [`Error::Master`] when a slave cannot be instantiated.
fn simulation(
    plan: SimulationPlan,
    options: &Options,
    stop: &Arc<AtomicBool>,
    due: &Arc<AtomicBool>,
    watch: Option<&Watch>,
) -> Result<Simulation> {
    let slaves = master::instantiate(&plan, options.fmu_logging)?;
    let mut sim = Simulation::new(plan, slaves)?;
    sim.set_pause_flags(vec![stop.clone(), due.clone()]);
    sim.set_threads(
        options
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
    );
    if let Some(watch) = watch {
        sim.set_call_monitor(watch.monitor.clone());
    }
    Ok(sim)
}

/// The call monitor of `plan`'s slaves, with the isolated ones marked as contained: their
/// calls end themselves at the step timeout (the helper process is killed), so the watchdog
/// gives them a grace period instead of ending the process.
fn contained_monitor(plan: &SimulationPlan) -> Arc<CallMonitor> {
    let monitor = CallMonitor::new(plan.slaves.len());
    for (i, slave) in plan.slaves.iter().enumerate() {
        if let master::SlaveKind::Fmu { placement, .. } = &slave.kind
            && placement.isolated().is_some()
        {
            monitor.contain(i);
        }
    }
    Arc::new(monitor)
}
