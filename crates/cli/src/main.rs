//! `mastersim`: runs a MasterSim project (`.msim`) of FMI co-simulation slaves.
//!
//! Exit codes: 0 done (also for `--test-init` and a slave's terminate request), 1 the
//! simulation failed, 2 usage, project or FMU error.
#![forbid(unsafe_code)]

mod logging;
mod plot;
mod results;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{ArgAction, Parser, Subcommand, ValueEnum};
use master::project::ResultFormat;
use master::{ImportOptions, PlanOptions, RunOutcome, Simulation, SimulationPlan};

/// Command line of `mastersim` (MasterSim reference §2; both `--opt=value` and `--opt value`).
#[derive(Debug, Parser)]
#[command(
    name = "mastersim",
    version,
    disable_version_flag = true,
    about = "FMI co-simulation master for MasterSim projects",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    run: Args,
    /// Print the version and exit.
    #[arg(short = 'v', long, action = ArgAction::Version)]
    version: Option<bool>,
}

/// Subcommands besides running a project.
#[derive(Debug, Subcommand)]
enum Command {
    /// Plot variables of a result file (values.csv or .mat) into an SVG or PNG chart.
    Plot(plot::PlotArgs),
}

/// Running a project.
#[derive(Debug, clap::Args)]
struct Args {
    /// The project file (.msim).
    #[arg(required = true)]
    project: Option<PathBuf>,
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
    /// Result formats, comma separated or repeated [default: the project's resultFormats, csv].
    #[arg(long, value_name = "FORMAT", value_delimiter = ',')]
    result_format: Vec<Format>,
    /// Relative threshold of the adaptive output filter [default: the project's outputThreshold, off].
    #[arg(long, value_name = "THRESHOLD")]
    output_threshold: Option<f64>,
    /// Largest total size an FMU archive may extract to, in MiB (protects against zip bombs).
    #[arg(long, value_name = "MIB", default_value_t = 4096)]
    max_fmu_size: u64,
}

/// A result format on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    /// values.csv and strings.csv (MasterSim).
    Csv,
    /// results/<project>.mat (MAT v4).
    Mat,
    /// results/<project>.json (Signal Table).
    Json,
}

impl From<Format> for ResultFormat {
    fn from(f: Format) -> Self {
        match f {
            Format::Csv => ResultFormat::Csv,
            Format::Mat => ResultFormat::Mat,
            Format::Json => ResultFormat::Json,
        }
    }
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
    let cli = Cli::parse();
    if let Some(Command::Plot(args)) = &cli.command {
        return match plot::run(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("Error: {error:#}");
                ExitCode::from(INPUT_ERROR)
            }
        };
    }
    match run(&cli.run) {
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
        extract: fmi::archive::ExtractOptions { max_total_size: args.max_fmu_size.saturating_mul(1 << 20) },
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

    sim.initialize()
        .context("initialization failed")
        .code(SIMULATION_FAILED)?;
    let mut files =
        results::ResultFiles::create(&wd, &project_path, &sim, options).code(SIMULATION_FAILED)?;
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
