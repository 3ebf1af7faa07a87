//! `mastersim`: runs a MasterSim project (`.msim`) of FMI co-simulation slaves.
//!
//! Exit codes (docs/robustness.md): 0 done (also for `--test-init` and a slave's terminate
//! request), 1 the simulation failed, 2 usage, project or FMU error, 124 an FMU call exceeded
//! `--step-timeout`, 130 / 143 interrupted by SIGINT / SIGTERM. A crash inside FMU code ends
//! the process by the signal (SIGSEGV, SIGABRT, …) after naming the slave and FMI function.
#![forbid(unsafe_code)]

mod logging;
mod plot;
mod results;
mod run;
mod supervise;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{ArgAction, Parser, Subcommand, ValueEnum};
use master::project::ResultFormat;

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
    /// Abandon the run when one FMU call (doStep, state or initialization call) takes longer
    /// than this many seconds of wall time; exit code 124 [default: no limit].
    #[arg(long, value_name = "SECONDS")]
    step_timeout: Option<f64>,
    /// Threads that step the slaves of Gauss-Jacobi in parallel [default: the number of cores].
    /// Results do not depend on it.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
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

/// The error and its causes on one line, `: `-separated, each cause once: several error
/// types already include their source in their own message, and repeating it would make the
/// line hard to read.
pub fn describe(error: &anyhow::Error) -> String {
    let mut text = error.to_string();
    for cause in error.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}

const INPUT_ERROR: u8 = 2;
const SIMULATION_FAILED: u8 = 1;

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(Command::Plot(args)) = &cli.command {
        return match plot::run(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("Error: {}", describe(&error));
                ExitCode::from(INPUT_ERROR)
            }
        };
    }
    if let Err(e) = fmi::install_crash_report() {
        eprintln!("Warning: crashes inside FMU code will not be reported: {e}");
    }
    let interrupt = supervise::Interrupt::install()
        .inspect_err(|e| eprintln!("Warning: SIGINT/SIGTERM will end the run at once: {e}"))
        .ok();
    match run::run(&cli.run, interrupt.as_ref()) {
        Ok(code) => ExitCode::from(code),
        Err(Failure { code, error }) => {
            log::error!("{}", describe(&error));
            if !logging::is_initialized() {
                eprintln!("Error: {}", describe(&error));
            }
            ExitCode::from(code)
        }
    }
}
