//! Running one project: read it, import the FMUs, plan, instantiate, initialize, step, and
//! end the run in every case with finished result files and a `log/summary.txt` that says how
//! the run ended.
//!
//! Spec: MasterSim reference §2 (command line), §3 (working directory), §9 (simulate), §12.5
//! (summary); docs/robustness.md (outcomes and exit codes).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use master::project::ResultFormat;
use master::watchdog::CallMonitor;
use master::{ImportOptions, PlanOptions, RunOutcome, Simulation, SimulationPlan};

use crate::supervise::{self, Interrupt, SharedRecord};
use crate::{Args, ExitCodeExt, Failure, INPUT_ERROR, SIMULATION_FAILED, results};

/// How a run that got as far as a [`Simulation`] ended; written to `summary.txt`.
#[derive(Debug)]
pub enum Ending {
    /// The end time was reached (or `--test-init` stopped after initialization).
    Completed,
    /// A slave asked to end the simulation at communication point `t` (s).
    Terminated { slave: String, t: f64 },
    /// SIGINT or SIGTERM ended the run at communication point `t` (s).
    Interrupted { signal: &'static str, t: f64 },
    /// The simulation failed with this message.
    Failed(String),
    /// An FMU call exceeded `--step-timeout` (message).
    TimedOut(String),
}

impl Ending {
    /// The lines appended to `summary.txt`: none for a completed run (so the key set stays
    /// MasterSim's), otherwise `Outcome=<word>` and `Message=<one line>`.
    pub fn summary_lines(&self) -> Vec<(&'static str, String)> {
        let (outcome, message) = match self {
            Ending::Completed => return Vec::new(),
            Ending::Terminated { slave, t } => (
                "Terminated",
                format!("slave '{slave}' requested the end of the simulation at t={t} s"),
            ),
            Ending::Interrupted { signal, t } => (
                "Interrupted",
                format!("{signal} received; stopped at t={t} s"),
            ),
            Ending::Failed(m) => ("Failed", m.clone()),
            Ending::TimedOut(m) => ("TimedOut", m.clone()),
        };
        vec![
            ("Outcome", outcome.to_string()),
            ("Message", message.replace(['\n', '\r'], " ")),
        ]
    }
}

/// The working directory: `--working-dir`, or the project path without its extension.
fn working_dir(args: &Args, project: &Path) -> PathBuf {
    args.working_dir
        .clone()
        .unwrap_or_else(|| project.with_extension(""))
}

/// Runs the project of `args`; returns the exit code of a run that did not fail (0, or
/// 128 + signal number after an interrupt).
///
/// # Errors
/// A [`Failure`] with exit code 2 for project and FMU errors, 1 when the simulation failed
/// (after writing the results so far and `summary.txt`).
pub fn run(args: &Args, interrupt: Option<&Interrupt>) -> Result<u8, Failure> {
    let project_arg = args
        .project
        .as_deref()
        .unwrap_or(Path::new(""))
        .to_string_lossy();
    let project_path = PathBuf::from(project_arg.strip_prefix("file://").unwrap_or(&project_arg));
    let wd = working_dir(args, &project_path);
    let log_dir = wd.join("log");
    std::fs::create_dir_all(&log_dir)
        .with_context(|| format!("cannot create working directory '{}'", log_dir.display()))
        .code(INPUT_ERROR)?;
    crate::logging::init(args.verbosity_level, &log_dir.join("screenlog.txt")).code(INPUT_ERROR)?;
    log::info!("mastersim, version {}", env!("CARGO_PKG_VERSION"));
    if !project_path.is_file() {
        return Err(anyhow::anyhow!(
            "project file '{}' doesn't exist",
            project_path.display()
        ))
        .code(INPUT_ERROR);
    }
    if let Some(t) = args.step_timeout
        && !(t.is_finite() && t > 0.0)
    {
        return Err(anyhow::anyhow!(
            "--step-timeout {t}: expected a number of seconds > 0"
        ))
        .code(INPUT_ERROR);
    }
    log::info!("Reading project '{}'", project_path.display());
    let project = master::project::Project::from_file(&project_path).code(INPUT_ERROR)?;

    let formats: Vec<ResultFormat> = if args.result_format.is_empty() {
        project.result_formats.clone()
    } else {
        args.result_format.iter().map(|&f| f.into()).collect()
    };
    let options = results::ResultOptions {
        formats: formats.clone(),
        threshold: args.output_threshold.or(project.output_threshold),
        step_statistics: args.verbosity_level >= 2,
    };
    if let Some(t) = options.threshold
        && !(t.is_finite() && t > 0.0)
    {
        return Err(anyhow::anyhow!(
            "--output-threshold {t}: expected a relative threshold > 0"
        ))
        .code(INPUT_ERROR);
    }

    log::info!("Importing FMUs");
    let import = ImportOptions {
        skip_unzip: args.skip_unzip,
        extract: fmi::archive::ExtractOptions {
            max_total_size: args.max_fmu_size.saturating_mul(1 << 20),
        },
    };
    let fmus = master::import_fmus(&project, &wd, &import).code(INPUT_ERROR)?;
    let plan = SimulationPlan::build(
        &project,
        &PlanOptions {
            working_dir: wd.clone(),
            collect_parameters: formats.iter().any(|f| *f != ResultFormat::Csv),
        },
        |def| master::resolve_slave(&project, def, &fmus),
    )
    .code(INPUT_ERROR)?;
    log::info!("Cycles");
    for (c, cycle) in plan.cycles.iter().enumerate() {
        log::info!("Cycle {}:", c + 1);
        for s in cycle {
            log::info!("  {}", plan.slaves[s.0].name);
        }
    }
    for dir in &plan.slave_directories {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create '{}'", dir.display()))
            .code(INPUT_ERROR)?;
    }
    let slaves = master::instantiate(&plan, args.verbosity_level > 3).code(INPUT_ERROR)?;
    let mut sim = Simulation::new(plan, slaves).code(INPUT_ERROR)?;
    if let Some(interrupt) = interrupt {
        sim.set_stop_flag(interrupt.flag());
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 {
        return Err(anyhow::anyhow!("--threads 0: expected at least 1 thread")).code(INPUT_ERROR);
    }
    sim.set_threads(threads);

    let record = SharedRecord::default();
    let names: Vec<String> = sim.plan().slaves.iter().map(|s| s.name.clone()).collect();
    let watch = args.step_timeout.map(|seconds| {
        let monitor = Arc::new(CallMonitor::new(names.len()));
        sim.set_call_monitor(monitor.clone());
        supervise::Watch {
            monitor,
            timeout: Duration::from_secs_f64(seconds),
            wd: wd.clone(),
            names,
        }
    });
    let supervisor = supervise::Supervisor::spawn(record.clone(), watch);

    let stepped = simulate(&mut sim, &record, args, &wd, &project_path, options);
    let finished = record.finish_files();
    let ending = match &stepped {
        Ok(RunOutcome::Completed) => Ending::Completed,
        Ok(RunOutcome::Terminated { slave, t }) => {
            log::info!("Simulation ended at t = {t} s on request of slave '{slave}'.");
            Ending::Terminated {
                slave: slave.clone(),
                t: *t,
            }
        }
        Ok(RunOutcome::Interrupted { t }) => {
            let signal = interrupt.map_or("stop request", |i| i.received().0);
            log::warn!(
                "{signal} received: simulation stopped at t = {t} s; results up to there are complete."
            );
            Ending::Interrupted { signal, t: *t }
        }
        Err(failure) => Ending::Failed(crate::describe(&failure.error)),
    };
    let summary = if args.test_init && stepped.is_ok() {
        Ok(())
    } else {
        results::write_statistics(&wd, &sim.statistics(), &ending.summary_lines())
    };
    let terminated = sim.terminate();
    supervisor.stop();
    // Report in order of cause: the run's own failure first, then the files, then the slaves.
    stepped?;
    finished.code(SIMULATION_FAILED)?;
    summary.code(SIMULATION_FAILED)?;
    terminated.code(SIMULATION_FAILED)?;
    match ending {
        Ending::Interrupted { .. } => Ok(interrupt.map_or(SIMULATION_FAILED, |i| i.received().1)),
        _ => {
            println!("Results are in '{}'", wd.join("results").display());
            Ok(0)
        }
    }
}

/// Initializes, creates the result files (kept in `record`), writes the first row and steps
/// to the end (or only the first row with `--test-init`).
fn simulate(
    sim: &mut Simulation,
    record: &SharedRecord,
    args: &Args,
    wd: &Path,
    project_path: &Path,
    options: results::ResultOptions,
) -> Result<RunOutcome, Failure> {
    sim.initialize()
        .context("initialization failed")
        .code(SIMULATION_FAILED)?;
    let files =
        results::ResultFiles::create(wd, project_path, sim, options).code(SIMULATION_FAILED)?;
    record.lock().files = Some(files);
    let mut observer = record.clone();
    sim.start_output(&mut observer).code(SIMULATION_FAILED)?;
    if args.test_init {
        log::info!("Stopping after successful initialization.");
        return Ok(RunOutcome::Completed);
    }
    sim.run(&mut observer).code(SIMULATION_FAILED)
}
