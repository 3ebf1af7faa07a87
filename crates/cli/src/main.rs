//! `mastersim`: runs a MasterSim project (`.msim`) of FMI co-simulation slaves.
//!
//! Exit codes: 0 done (also for `--test-init` and a slave's terminate request), 1 the
//! simulation failed, 2 usage, project or FMU error.
#![forbid(unsafe_code)]

mod logging;
mod results;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{ArgAction, Parser};
use master::{ImportOptions, PlanOptions, RunOutcome, Simulation, SimulationPlan};

/// Command line of `mastersim` (MasterSim reference §2; both `--opt=value` and `--opt value`).
#[derive(Debug, Parser)]
#[command(
    name = "mastersim",
    version,
    disable_version_flag = true,
    about = "FMI co-simulation master for MasterSim projects"
)]
struct Args {
    /// The project file (.msim).
    project: PathBuf,
    /// Working directory for extracted FMUs, logs and results [default: project path without extension].
    #[arg(long, value_name = "DIR")]
    working_dir: Option<PathBuf>,
    /// Do not extract FMUs; reuse `<working-dir>/fmus/<name>`.
    #[arg(long)]
    skip_unzip: bool,
    /// Console verbosity: 0 errors only, 1 standard, 2 info, 3 detailed, 4 developer (also FMU logging).
    #[arg(long, value_name = "N", default_value_t = 1)]
    verbosity_level: u8,
    /// Stop after initialization and the first result row.
    #[arg(short = 't', long)]
    test_init: bool,
    /// Print the version and exit.
    #[arg(short = 'v', long, action = ArgAction::Version)]
    version: Option<bool>,
}

/// A failure with the exit code it maps to.
struct Failure {
    code: u8,
    error: anyhow::Error,
}

/// Attaches an exit code to errors: 2 for input (project, FMU) errors, 1 for simulation failures.
trait ExitCodeExt<T> {
    fn code(self, code: u8) -> Result<T, Failure>;
}

impl<T, E: Into<anyhow::Error>> ExitCodeExt<T> for Result<T, E> {
    fn code(self, code: u8) -> Result<T, Failure> {
        self.map_err(|e| Failure {
            code,
            error: e.into(),
        })
    }
}

const INPUT_ERROR: u8 = 2;
const SIMULATION_FAILED: u8 = 1;

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure { code, error }) => {
            log::error!("{error:#}");
            if !logging::is_initialized() {
                eprintln!("Error: {error:#}");
            }
            ExitCode::from(code)
        }
    }
}

/// The working directory: `--working-dir`, or the project path without its extension.
fn working_dir(args: &Args, project: &Path) -> PathBuf {
    args.working_dir
        .clone()
        .unwrap_or_else(|| project.with_extension(""))
}

fn run(args: &Args) -> Result<(), Failure> {
    let project_arg = args.project.to_string_lossy();
    let project_path = PathBuf::from(project_arg.strip_prefix("file://").unwrap_or(&project_arg));
    let wd = working_dir(args, &project_path);
    let log_dir = wd.join("log");
    std::fs::create_dir_all(&log_dir)
        .with_context(|| format!("cannot create working directory '{}'", log_dir.display()))
        .code(INPUT_ERROR)?;
    logging::init(args.verbosity_level, &log_dir.join("screenlog.txt")).code(INPUT_ERROR)?;
    log::info!("mastersim, version {}", env!("CARGO_PKG_VERSION"));
    if !project_path.is_file() {
        return Err(anyhow::anyhow!(
            "project file '{}' doesn't exist",
            project_path.display()
        ))
        .code(INPUT_ERROR);
    }
    log::info!("Reading project '{}'", project_path.display());
    let project = master::project::Project::from_file(&project_path).code(INPUT_ERROR)?;

    log::info!("Importing FMUs");
    let import = ImportOptions {
        skip_unzip: args.skip_unzip,
        ..Default::default()
    };
    let fmus = master::import_fmus(&project, &wd, &import).code(INPUT_ERROR)?;
    let plan = SimulationPlan::build(
        &project,
        &PlanOptions {
            working_dir: wd.clone(),
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

    sim.initialize()
        .context("initialization failed")
        .code(SIMULATION_FAILED)?;
    let mut files = results::ResultFiles::create(&wd, &sim, args.verbosity_level >= 2)
        .code(SIMULATION_FAILED)?;
    sim.start_output(&mut files).code(SIMULATION_FAILED)?;
    if args.test_init {
        log::info!("Stopping after successful initialization.");
        files.finish().code(SIMULATION_FAILED)?;
        return sim.terminate().code(SIMULATION_FAILED);
    }
    let outcome = sim.run(&mut files);
    let finished = files.finish();
    let outcome = outcome.code(SIMULATION_FAILED)?;
    finished.code(SIMULATION_FAILED)?;
    if let RunOutcome::Terminated { slave, t } = &outcome {
        log::info!("Simulation ended at t = {t} s on request of slave '{slave}'.");
    }
    results::write_statistics(&wd, &sim.statistics()).code(SIMULATION_FAILED)?;
    sim.terminate().code(SIMULATION_FAILED)?;
    println!("Results are in '{}'", wd.join("results").display());
    Ok(())
}
