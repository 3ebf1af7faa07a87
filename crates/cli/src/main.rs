//! `mastersim`: runs a MasterSim project (`.msim`) of FMI co-simulation slaves.
//!
//! The binary only drives the `mastersim` library: it turns the command line into
//! [`mastersim::Options`], sets up logging, turns SIGINT and SIGTERM into a stop request, and
//! maps how the run ended to an exit code. `mastersim info` shows what an FMU holds,
//! `mastersim plot` draws result files; `--live` and `mastersim view` serve the live view
//! (crate `mastersim-live`).
//!
//! Exit codes (docs/robustness.md): 0 done (also for `--test-init` and a slave's terminate
//! request), 1 the simulation failed, 2 usage, project or FMU error, 124 an FMU call exceeded
//! `--step-timeout`, 130 / 143 interrupted by SIGINT / SIGTERM (0 when stopped from the live
//! view; 138 when a sweep case is stopped by its time-limit warning, SIGUSR1). A crash inside
//! FMU code ends the process by the signal (SIGSEGV, SIGABRT, …) after naming the slave and FMI
//! function.
#![forbid(unsafe_code)]

/// Prints a line to stdout. A closed stdout (`mastersim p.msim | head -1`) is not an error:
/// the run goes on and its files are written as always.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

mod convert;
mod info;
mod logging;

mod signals;
mod sweep;
mod view;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{ArgAction, Parser, Subcommand, ValueEnum};
use mastersim::{
    Ending, Options, ResultFormat, RunState, Session, Steering, StepTimeout, TimeArithmetic,
};

/// Command line of `mastersim` (MasterSim reference §2; both `--opt=value` and `--opt value`).
#[derive(Debug, Parser)]
#[command(
    name = "mastersim",
    version,
    disable_version_flag = true,
    about = "FMI co-simulation master: runs MasterSim projects and single FMUs",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    allow_negative_numbers = true
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
    /// Show what an FMU holds: FMI version, platforms, capabilities, default experiment and
    /// variables (read from the archive; nothing is extracted or loaded).
    Info(info::InfoArgs),
    /// Write an SSP system (.ssp, .ssd or a folder) as the equivalent .msim project.
    Convert(convert::ConvertArgs),
    /// Plot variables of a result file (values.csv, .mat or .json) into an SVG or PNG chart.
    Plot(plot::PlotArgs),
    /// Open stored results (results .mat, values.csv or result .json) in the browser view.
    View(view::ViewArgs),
    /// Print the shell completion script of mastersim, e.g. `mastersim completions bash >
    /// ~/.local/share/bash-completion/completions/mastersim`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page of mastersim (roff), e.g. `mastersim man | man -l -`.
    Man,
    /// Parameter sweeps: run the cases of a sweep file (grid, table or Monte Carlo) on this
    /// machine, on a Slurm cluster or through another scheduler, and collect their results.
    Sweep(sweep::SweepArgs),
    /// Run many existing projects (a directory, or a file listing one per line) as the cases
    /// of a sweep: same executors, same collection, a JUnit report for build servers.
    Batch(sweep::BatchArgs),
}

/// Writes `bytes` to stdout; a closed stdout is not an error (as for [`say!`]).
fn print_bytes(bytes: &[u8]) {
    use std::io::Write as _;
    let mut out = std::io::stdout();
    let _ = out.write_all(bytes).and_then(|()| out.flush());
}

/// `mastersim completions <shell>`: generated from the command-line definition, so it always
/// matches it.
fn completions(shell: clap_complete::Shell) -> anyhow::Result<()> {
    use clap::CommandFactory as _;
    let mut buffer = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "mastersim", &mut buffer);
    print_bytes(&buffer);
    Ok(())
}

/// `mastersim man`: the man page, generated from the command-line definition.
fn man_page() -> anyhow::Result<()> {
    use clap::CommandFactory as _;
    let mut buffer = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut buffer)?;
    print_bytes(&buffer);
    Ok(())
}

/// Running a project.
#[derive(Debug, clap::Args)]
struct Args {
    /// The project file (.msim), or an FMU (.fmu) to run on its own.
    #[arg(required = true, value_name = "PROJECT|FMU")]
    project: Option<PathBuf>,
    /// Further project files: refused with a clear message (one project per run).
    #[arg(hide = true)]
    more_projects: Vec<PathBuf>,
    /// Working directory for extracted FMUs, logs and results [default: project path without extension].
    #[arg(long, value_name = "DIR")]
    working_dir: Option<PathBuf>,
    /// Do not extract FMUs; reuse `<working-dir>/fmus/<name>`.
    #[arg(long)]
    skip_unzip: bool,
    /// Console verbosity: 0 errors only, 1 standard, 2 info (+ log/stepstats.tsv), 3 detailed, 4 developer (also FMU logging).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u8).range(0..=4))]
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
    /// Largest total size an FMU or .ssp archive may extract to, in MiB (protects against zip
    /// bombs).
    #[arg(long, value_name = "MIB", default_value_t = 4096)]
    max_fmu_size: u64,
    /// Abandon the run when one FMU call (doStep, state or initialization call) takes longer
    /// than this many seconds of wall time; exit code 124 [default: no limit].
    #[arg(long, value_name = "SECONDS")]
    step_timeout: Option<f64>,
    /// Threads that step the slaves of Gauss-Jacobi in parallel [default: the number of cores].
    /// Results do not depend on it.
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    threads: Option<usize>,
    /// Time arithmetic [default: the project's timeArithmetic, exact]: `exact` computes fixed
    /// communication points as t0 + n·h; `mastersim` reproduces MasterSim 0.9.8 (t += h, slave
    /// clocks), for results comparable with it.
    #[arg(long, value_name = "MODE")]
    time_arithmetic: Option<Arithmetic>,
    /// Write a checkpoint to <working-dir>/checkpoint/ at the first communication point after
    /// every this many seconds of wall time, so that `--resume` can continue an interrupted
    /// run (a checkpoint is also written when SIGINT or SIGTERM stops the run).
    #[arg(long, value_name = "SECONDS")]
    checkpoint_interval: Option<f64>,
    /// Continue the run interrupted at the last checkpoint in the working directory; the
    /// results end exactly as those of an unbroken run.
    #[arg(long)]
    resume: bool,
    /// Pace the run: FACTOR simulated seconds per wall-clock second [default FACTOR: 1].
    /// Overruns are counted; summary.txt reports the factor achieved.
    #[arg(long, value_name = "FACTOR", num_args = 0..=1, default_missing_value = "1")]
    real_time: Option<f64>,
    /// Override a setting or parameter as if it were one more line of the project:
    /// `<keyword>=<value>` (tEnd=10 s, MasterMode=NEWTON) or `<slave>.<variable>=<value>`;
    /// for an FMU run, `<variable>=<value>`. Repeatable; later ones win.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Start time, s (a number) or with a unit ("2 min"); short for --set tStart=….
    #[arg(long, value_name = "TIME")]
    start_time: Option<String>,
    /// Stop time, s or with a unit; short for --set tEnd=… [default for an FMU: its default
    /// experiment, else 1 s].
    #[arg(long, value_name = "TIME")]
    stop_time: Option<String>,
    /// Communication step size, s or with a unit; short for --set hStart=… [default for an
    /// FMU: its default experiment, else 1/500 of the run].
    #[arg(long, value_name = "TIME")]
    step_size: Option<String>,
    /// FMU runs: a CSV/TSV table whose columns feed the FMU inputs of the same name.
    #[arg(long, value_name = "TABLE")]
    input: Option<PathBuf>,
    /// SSP systems: where an element binds several parameter sets, use the one of this name
    /// (default: the first of each element).
    #[arg(long, value_name = "NAME")]
    parameter_set: Option<String>,
    /// SSP systems: let references (component FMUs, nested systems, .ssv and .ssm files) lead
    /// outside the archive or folder (refused by default: an SSP is a self-contained package).
    #[arg(long)]
    allow_outside_references: bool,
    /// Save the project as run (overrides and defaults written out) to this .msim file.
    #[arg(long, value_name = "FILE")]
    write_msim: Option<PathBuf>,
    /// Serve a live view of the run at http://127.0.0.1:PORT (none or 0: a free port; the URL
    /// is printed). The run waits for Start in the page; after it ends the view stays open
    /// until Ctrl-C.
    #[arg(long, value_name = "PORT", num_args = 0..=1, default_missing_value = "0")]
    live: Option<u16>,
}

/// A thread count ≥ 1, refused by the parser before anything is created or loaded.
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("expected at least 1 thread".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("{e}, expected a number of threads ≥ 1")),
    }
}

/// The `--set` overrides of `args`: `--start-time`, `--stop-time` and `--step-size` first (a
/// plain number is in seconds), then every `--set` in order, so that a `--set` wins.
fn overrides(args: &Args) -> Vec<String> {
    let time = |keyword: &str, value: &Option<String>| {
        value.as_ref().map(|v| {
            let v = v.trim();
            if v.parse::<f64>().is_ok() {
                format!("{keyword}={v} s")
            } else {
                format!("{keyword}={v}")
            }
        })
    };
    [
        time("tStart", &args.start_time),
        time("tEnd", &args.stop_time),
        time("hStart", &args.step_size),
    ]
    .into_iter()
    .flatten()
    .chain(args.set.iter().cloned())
    .collect()
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

/// A time arithmetic on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum Arithmetic {
    /// MasterSim 0.9.8's: accumulated steps, per-slave clocks.
    Mastersim,
    /// Drift-free communication points.
    Exact,
}

/// Exit code of a run that failed while simulating.
const SIMULATION_FAILED: u8 = 1;
/// Exit code of a usage, project or FMU error.
const INPUT_ERROR: u8 = 2;
/// Exit code when an FMU call exceeded `--step-timeout` (as GNU `timeout`).
const EXIT_TIMEOUT: u8 = 124;

/// A failure with the exit code it maps to.
pub(crate) struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    fn new(code: u8, error: &mastersim::Error) -> Failure {
        Failure {
            code,
            message: error.chain_text(),
        }
    }
}

/// The error and its causes on one line, `: `-separated, each cause once: several error
/// types already include their source in their own message.
fn describe(error: &anyhow::Error) -> String {
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

/// Ends the process after a hanging FMU call (the results are saved by then).
fn timed_out() -> ! {
    std::process::exit(i32::from(EXIT_TIMEOUT))
}

/// The subcommand a mistyped first word most likely meant (`veiw` for `view`), when that word
/// names no file: ` (did you mean 'view'?)`.
fn subcommand_hint(word: &Path) -> Option<String> {
    use clap::CommandFactory as _;
    if word.exists() || word.extension().is_some() {
        return None;
    }
    let word = word.to_str()?;
    let command = Cli::command();
    let names = command.get_subcommands().map(clap::Command::get_name);
    let hint = mastersim::master::error::name_hint(word, names);
    hint.starts_with(" (did you mean")
        .then(|| hint.into_string())
}

/// What to say about an input that is no project, FMU or SSP system, by what it looks like:
/// a sweep file or result file is meant for another subcommand.
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

/// A mistyped subcommand as the first word of `args` (`mastersim veiw x.csv`): exit code 2
/// with the subcommand meant, before the words after it are taken for more projects.
fn check_subcommand(args: &Args) -> Result<(), Failure> {
    let given = args.project.as_deref().unwrap_or(Path::new(""));
    match subcommand_hint(given) {
        Some(hint) => Err(Failure {
            code: INPUT_ERROR,
            message: format!(
                "'{}' is not a subcommand{hint}, and no project file of that name exists",
                given.display()
            ),
        }),
        None => Ok(()),
    }
}

/// The run input of `args` (an SSP folder as its `SystemStructure.ssd`, a `file://` prefix
/// dropped), checked before anything is created: a missing file, a directory or a file of
/// another kind exits with code 2 and leaves nothing behind.
fn checked_input(args: &Args) -> Result<PathBuf, Failure> {
    let given = args.project.as_deref().unwrap_or(Path::new(""));
    let text = given.to_string_lossy();
    let project = mastersim::run_input(Path::new(text.strip_prefix("file://").unwrap_or(&text)));
    match mastersim::InputKind::check(&project) {
        Ok(_) => Ok(project),
        Err(e @ mastersim::Error::UnknownInput { .. }) => Err(Failure {
            code: INPUT_ERROR,
            message: format!("{e}{}", input_hint(&project)),
        }),
        Err(e) => Err(Failure::new(INPUT_ERROR, &e)),
    }
}

/// The library's options for the command line `args`.
fn options(args: &Args) -> Result<Options, Failure> {
    if let Some(extra) = args.more_projects.first() {
        return Err(Failure {
            code: INPUT_ERROR,
            message: format!(
                "one project per run: '{}' follows the project '{}'{}",
                extra.display(),
                args.project.as_deref().unwrap_or(Path::new("")).display(),
                if args.set.is_empty() {
                    ""
                } else {
                    " (quote a --set value with spaces: --set 'tEnd=10 s')"
                }
            ),
        });
    }
    if let Some(f) = args.real_time.filter(|f| !(f.is_finite() && *f > 0.0)) {
        return Err(Failure {
            code: INPUT_ERROR,
            message: format!("--real-time {f}: expected a factor > 0"),
        });
    }
    let step_timeout = match args.step_timeout {
        Some(s) if !(s.is_finite() && s > 0.0) => {
            return Err(Failure {
                code: INPUT_ERROR,
                message: format!("--step-timeout {s}: expected a number of seconds > 0"),
            });
        }
        Some(s) => Some(StepTimeout {
            limit: Duration::from_secs_f64(s),
            on_expiry: timed_out,
        }),
        None => None,
    };
    Ok(Options {
        working_dir: args.working_dir.clone(),
        skip_unzip: args.skip_unzip,
        result_formats: (!args.result_format.is_empty()).then(|| {
            args.result_format
                .iter()
                .map(|f| match f {
                    Format::Csv => ResultFormat::Csv,
                    Format::Mat => ResultFormat::Mat,
                    Format::Json => ResultFormat::Json,
                })
                .collect()
        }),
        output_threshold: args.output_threshold,
        threads: args.threads,
        time_arithmetic: args.time_arithmetic.map(|a| match a {
            Arithmetic::Mastersim => TimeArithmetic::MasterSim,
            Arithmetic::Exact => TimeArithmetic::Exact,
        }),
        max_fmu_size: args.max_fmu_size.saturating_mul(1 << 20),
        fmu_logging: args.verbosity_level > 3,
        step_statistics: args.verbosity_level >= 2,
        console_progress: true,
        step_timeout,
        checkpoint_interval: args.checkpoint_interval,
        checkpoint_on_stop: true,
        overrides: overrides(args),
        input: args.input.clone(),
        parameter_set: args.parameter_set.clone(),
        allow_outside_references: args.allow_outside_references,
    })
}

/// Runs the project of `args`; returns the exit code of a run that did not fail (0, or
/// 128 + signal number after an interrupt).
fn run(args: &Args, interrupt: Option<&signals::Interrupt>) -> Result<u8, Failure> {
    check_subcommand(args)?;
    let options = options(args)?;
    let project = checked_input(args)?;
    let wd = options.working_dir_for(&project);
    // Before the log file is opened: another run may own the directory. The session shares
    // this lock; it is held until the live view closes.
    let _lock =
        mastersim::WorkingDirLock::acquire(&wd).map_err(|e| Failure::new(INPUT_ERROR, &e))?;
    let log_dir = wd.join("log");
    std::fs::create_dir_all(&log_dir).map_err(|e| Failure {
        code: INPUT_ERROR,
        message: format!(
            "cannot create working directory '{}': {e}",
            log_dir.display()
        ),
    })?;
    logging::init(args.verbosity_level, &log_dir.join("screenlog.txt")).map_err(|e| Failure {
        code: INPUT_ERROR,
        message: format!("{e:#}"),
    })?;
    log::info!("mastersim, version {}", env!("CARGO_PKG_VERSION"));
    let session = if args.resume {
        Session::open_resume(&project, &options, options.checkpoint_path_for(&project))
    } else {
        Session::open(&project, &options)
    };
    let mut session = session.map_err(|e| Failure::new(INPUT_ERROR, &e))?;
    if let Some(path) = &args.write_msim {
        session
            .write_project(path)
            .map_err(|e| Failure::new(INPUT_ERROR, &e))?;
        log::info!("Project written to '{}'", path.display());
    }
    // The live view, kept open after the run until Ctrl-C.
    let mut server = None;
    if let Some(interrupt) = interrupt {
        session.set_stop_flag(interrupt.flag());
    }
    if args.test_init {
        let initialized = session.initialize();
        if initialized.is_ok() {
            log::info!("Stopping after successful initialization.");
            session
                .close()
                .map_err(|e| Failure::new(SIMULATION_FAILED, &e))?;
            say!("Results are in '{}'", wd.join("results").display());
            return Ok(0);
        }
        // A failed initialization is reported like a failed run, with summary.txt.
    } else if args.live.is_some() || args.real_time.is_some() {
        let state = if args.live.is_some() {
            RunState::Waiting
        } else {
            RunState::Running
        };
        let steering = Steering::new(state, args.real_time).map_err(|e| Failure {
            code: INPUT_ERROR,
            message: format!("--real-time: {e}"),
        })?;
        if let Some(port) = args.live {
            let name = project.file_stem().unwrap_or_default().to_string_lossy();
            server = Some(view::serve_run(&mut session, &name, &steering, port)?);
        }
        let _ = session.run_steered(&steering);
    } else {
        let _ = session.run();
    }
    let signalled = interrupt.is_some_and(signals::Interrupt::signalled);
    let expired = interrupt.and_then(signals::Interrupt::expired);
    if let Ending::Interrupted { .. } = session.ending() {
        let cause = match (interrupt, expired) {
            (Some(interrupt), _) if signalled => format!("{} received", interrupt.received().0),
            (_, Some(cause)) => cause.to_owned(),
            _ if server.is_some() => "stopped from the live view".to_string(),
            _ => "stop requested".to_string(),
        };
        session.set_stop_cause(&cause);
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
        Ending::Completed | Ending::Failed(_) | Ending::TimedOut(_) | Ending::FmuExited { .. } => {}
    }
    let finished = session.finish();
    if let (Some(server), Some(interrupt)) = (&server, interrupt) {
        view::linger(server, interrupt);
    }
    // Report in order of cause: the run's own failure first, then the files and the slaves.
    if let Ending::Failed(message) = ending {
        return Err(Failure {
            code: SIMULATION_FAILED,
            message,
        });
    }
    finished.map_err(|e| Failure::new(SIMULATION_FAILED, &e))?;
    match (ending, interrupt) {
        (Ending::Interrupted { .. }, Some(interrupt)) if signalled => Ok(interrupt.received().1),
        (Ending::Interrupted { .. }, _) if expired.is_some() => Ok(EXIT_TIMEOUT),
        _ => {
            say!("Results are in '{}'", wd.join("results").display());
            Ok(0)
        }
    }
}

/// Runs the project of `args` and logs a failure (on stderr when logging could not start);
/// returns the exit code and the failure's message.
fn run_project(args: &Args, interrupt: Option<&signals::Interrupt>) -> (u8, Option<String>) {
    match run(args, interrupt) {
        Ok(code) => (code, None),
        Err(Failure { code, message }) => {
            log::error!("{message}");
            if !logging::is_initialized() {
                eprintln!("Error: {message}");
            }
            (code, Some(message))
        }
    }
}

/// Installs the crash report of FMU code and the SIGINT/SIGTERM handlers, with `warning` also
/// the SIGUSR1 handler of a sweep case's time-limit warning (warning when they cannot be).
fn install_handlers(warning: bool) -> Option<signals::Interrupt> {
    if let Err(e) = fmi::install_crash_report() {
        eprintln!("Warning: crashes inside FMU code will not be reported: {e}");
    }
    let interrupt = if warning {
        signals::Interrupt::install_with_warning()
    } else {
        signals::Interrupt::install()
    };
    interrupt
        .inspect_err(|e| eprintln!("Warning: SIGINT/SIGTERM will end the run at once: {e}"))
        .ok()
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let command = match &cli.command {
        Some(Command::Sweep(args)) => return ExitCode::from(sweep::run(args)),
        Some(Command::Batch(args)) => return ExitCode::from(sweep::batch(args)),
        Some(Command::Info(args)) => {
            logging::init_stderr_warnings();
            Some(info::run(args))
        }
        Some(Command::Convert(args)) => {
            logging::init_stderr_warnings();
            Some(convert::run(args))
        }
        Some(Command::Plot(args)) => Some(plot::run(args)),
        Some(Command::View(args)) => Some(view::run(args)),
        Some(Command::Completions { shell }) => Some(completions(*shell)),
        Some(Command::Man) => Some(man_page()),
        None => None,
    };
    if let Some(done) = command {
        return match done {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("Error: {}", describe(&error));
                ExitCode::from(INPUT_ERROR)
            }
        };
    }
    let interrupt = install_handlers(false);
    let (code, _) = run_project(&cli.run, interrupt.as_ref());
    log::logger().flush();
    ExitCode::from(code)
}
