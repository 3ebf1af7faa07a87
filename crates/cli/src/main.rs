//! `mastersim`: runs a MasterSim project (`.msim`) of FMI co-simulation slaves.
//!
//! The binary only drives the `mastersim` library: it turns the command line into
//! [`mastersim::Options`], sets up logging, the SIGINT and SIGTERM handlers and the live view,
//! and runs with [`mastersim::run_to_end`], which owns the stop cause, the ending and its exit
//! code. `mastersim info` shows what an FMU holds ([`mastersim::describe`]), `mastersim plot`
//! draws result files (crate `mastersim-plot`); `--live` and `mastersim view` serve the live
//! view (crate `mastersim-live`). Exit codes: [`mastersim::run`] and docs/robustness.md.
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
mod sweep;
mod view;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{ArgAction, Parser, Subcommand, ValueEnum};
use mastersim::master::{project::FmiType, solver::Method};
use mastersim::run::{INPUT_ERROR, SIMULATION_FAILED};
use mastersim::{
    Control, Interrupt, Options, ResultFormat, RunEnd, StepTimeout, TimeArithmetic, logging,
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
    View(live::ViewArgs),
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

/// `mastersim completions <shell>` (`Some`) or `mastersim man` (`None`), generated from the
/// command-line definition, so they always match it; a closed stdout is not an error.
fn generated(shell: Option<clap_complete::Shell>) -> anyhow::Result<()> {
    use clap::CommandFactory as _;
    use std::io::Write as _;
    let (mut buffer, mut command) = (Vec::new(), Cli::command());
    match shell {
        Some(shell) => clap_complete::generate(shell, &mut command, "mastersim", &mut buffer),
        None => clap_mangen::Man::new(command).render(&mut buffer)?,
    }
    let mut out = std::io::stdout();
    let _ = out.write_all(&buffer).and_then(|()| out.flush());
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
    /// Largest total size an FMU or .ssp archive may extract to, in MiB (protects against zip bombs).
    #[arg(long, value_name = "MIB", default_value_t = 4096)]
    max_fmu_size: u64,
    /// Abandon the run when one FMU call (doStep, state or initialization call) takes longer than this many seconds of wall time; exit code 124 [default: no limit].
    #[arg(long, value_name = "SECONDS")]
    step_timeout: Option<f64>,
    /// Threads that step the slaves of Gauss-Jacobi in parallel [default: the number of cores]. Results do not depend on it.
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
    /// Continue the run interrupted at the last checkpoint in the working directory; the results end exactly as those of an unbroken run.
    #[arg(long)]
    resume: bool,
    /// Pace the run: FACTOR simulated seconds per wall-clock second [default FACTOR: 1]. Overruns are counted; summary.txt reports the factor achieved.
    #[arg(long, value_name = "FACTOR", num_args = 0..=1, default_missing_value = "1")]
    real_time: Option<f64>,
    /// Override a setting or parameter as if it were one more line of the project:
    /// `<keyword>=<value>` (tEnd=10 s, MasterMode=NEWTON) or `<slave>.<variable>=<value>`;
    /// for an FMU run, `<variable>=<value>`. Repeatable; later ones win.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Start time, s (a number) or with a unit ("2 min"); a --set tStart=… wins.
    #[arg(long, value_name = "TIME", value_parser = Options::parse_time)]
    start_time: Option<f64>,
    /// Stop time, s or with a unit; a --set tEnd=… wins [default for an FMU: its default experiment, else 1 s].
    #[arg(long, value_name = "TIME", value_parser = Options::parse_time)]
    stop_time: Option<f64>,
    /// Communication step size, s or with a unit; a --set hStart=… wins [default for an FMU: its default experiment, else 1/500 of the run].
    #[arg(long, value_name = "TIME", value_parser = Options::parse_time)]
    step_size: Option<f64>,
    /// FMU runs: a CSV/TSV table whose columns feed the FMU inputs of the same name.
    #[arg(long, value_name = "TABLE")]
    input: Option<PathBuf>,
    /// FMU runs: the interface, me (ModelExchange) or cs (CoSimulation) [default: cs if offered].
    #[arg(long, value_name = "TYPE")]
    fmi_type: Option<FmiType>,
    /// FMU runs as Model Exchange: the integrator, CVode or Euler [default: CVode].
    #[arg(long, value_name = "SOLVER")]
    solver: Option<Method>,
    /// FMU runs as Model Exchange: relative tolerance [default: the FMU's default experiment, else 1e-6].
    #[arg(long, value_name = "TOL")]
    relative_tolerance: Option<f64>,
    /// Run every FMU slave in a helper process of its own (a crash or hang of the FMU then ends the run with its results, not the process; docs/isolation.md).
    #[arg(long)]
    isolate: bool,
    /// FMU runs: the FMU binary to run, linux64, linux32, win64 or win32 (other than this machine's: in a helper process) [default: this machine's, else one a helper can run].
    #[arg(long, value_name = "NAME", value_parser = Options::parse_platform)]
    platform: Option<mastersim::master::isolation::Platform>,
    /// SSP systems: where an element binds several parameter sets, use the one of this name (default: the first of each element).
    #[arg(long, value_name = "NAME")]
    parameter_set: Option<String>,
    /// SSP systems: let references (component FMUs, nested systems, .ssv and .ssm files) lead outside the archive or folder (refused by default: an SSP is a self-contained package).
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

/// A mistyped subcommand as the first word of `args` (`mastersim veiw x.csv`): exit code 2
/// with the subcommand meant, before the words after it are taken for more projects.
fn check_subcommand(args: &Args) -> Result<(), RunEnd> {
    let given = args.project.as_deref().unwrap_or(Path::new(""));
    match subcommand_hint(given) {
        Some(hint) => Err(refused(format!(
            "'{}' is not a subcommand{hint}, and no project file of that name exists",
            given.display()
        ))),
        None => Ok(()),
    }
}

/// A run refused before it started: exit code 2 with `message`.
fn refused(message: String) -> RunEnd {
    RunEnd::failed(INPUT_ERROR, message)
}

/// The library's options for the command line `args` (checked by [`Options::validate`]).
fn options(args: &Args) -> Result<Options, RunEnd> {
    if let Some(extra) = args.more_projects.first() {
        return Err(refused(format!(
            "one project per run: '{}' follows the project '{}'{}",
            extra.display(),
            args.project.as_deref().unwrap_or(Path::new("")).display(),
            if args.set.is_empty() {
                ""
            } else {
                " (quote a --set value with spaces: --set 'tEnd=10 s')"
            }
        )));
    }
    let step_timeout = match args.step_timeout {
        Some(s) if !(s.is_finite() && s > 0.0) => {
            return Err(refused(format!(
                "--step-timeout {s}: expected a number of seconds > 0"
            )));
        }
        Some(s) => Some(StepTimeout {
            limit: Duration::from_secs_f64(s),
            on_expiry: mastersim::run::exit_timed_out,
        }),
        None => None,
    };
    let formats = args.result_format.iter().map(|f| match f {
        Format::Csv => ResultFormat::Csv,
        Format::Mat => ResultFormat::Mat,
        Format::Json => ResultFormat::Json,
    });
    let options = Options {
        working_dir: args.working_dir.clone(),
        skip_unzip: args.skip_unzip,
        result_formats: (!args.result_format.is_empty()).then(|| formats.collect()),
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
        start_time: args.start_time,
        stop_time: args.stop_time,
        step_size: args.step_size,
        real_time: args.real_time,
        output_only: None,
        overrides: args.set.clone(),
        input: args.input.clone(),
        parameter_set: args.parameter_set.clone(),
        allow_outside_references: args.allow_outside_references,
        fmi_type: args.fmi_type,
        solver: args.solver,
        relative_tolerance: args.relative_tolerance,
        isolate: args.isolate,
        platform: args.platform,
    };
    options.validate().map_err(|e| match e {
        mastersim::Error::InvalidOption {
            option: "real-time",
            value,
            expected,
        } => refused(format!("--real-time {value}: expected {expected}")),
        e => RunEnd::input_error(&e),
    })?;
    Ok(options)
}

/// Runs the project of `args` under `options`, stopped by `interrupt`: holds the working
/// directory, starts the screenlog, opens (or resumes) the session, serves the live view when
/// asked, and runs it with [`mastersim::run_to_end`]. A live view stays open after the run
/// until Ctrl-C.
fn launch(args: &Args, options: &Options, interrupt: Option<&Interrupt>) -> RunEnd {
    let _first_helper = mastersim::start_first_helper(options);
    let given = args.project.as_deref().unwrap_or(Path::new(""));
    let project = match mastersim::run::checked_input(given) {
        Ok(project) => project,
        Err(end) => return end,
    };
    let wd = options.working_dir_for(&project);
    // The lock is held until the live view closes.
    let (mut session, _lock) =
        match mastersim::run::open(&project, options, args.verbosity_level, args.resume) {
            Ok(opened) => opened,
            Err(end) => return end,
        };
    if let Some(path) = &args.write_msim {
        if let Err(e) = session.write_project(path) {
            return RunEnd::input_error(&e);
        }
        log::info!("Project written to '{}'", path.display());
    }
    let live = args.live.filter(|_| !args.test_init);
    let steering = match Control::steering_for(options, live.is_some()) {
        Ok(steering) => steering.filter(|_| !args.test_init),
        Err(e) => return refused(format!("--real-time: {e}")),
    };
    let mut server = None;
    if let (Some(port), Some(steering)) = (live, &steering) {
        let name = project.file_stem().unwrap_or_default().to_string_lossy();
        match live::serve_run(&mut session, &name, steering, port) {
            Ok(started) => server = Some(started),
            Err(message) => return refused(message),
        }
    }
    let control = Control {
        test_init: args.test_init,
        steering,
        live_view: server.is_some(),
        interrupt,
    };
    let end = mastersim::run_to_end(session, &control);
    if let (Some(server), Some(interrupt)) = (&server, interrupt) {
        live::linger(server, &interrupt.flag());
    }
    if end.succeeded() {
        say!("Results are in '{}'", wd.join("results").display());
    }
    end
}

/// Runs the project of `args`, stopped by `interrupt`; logs a failure.
fn run_project(args: &Args, interrupt: Option<&Interrupt>) -> RunEnd {
    reported(match check_subcommand(args).and_then(|()| options(args)) {
        Ok(options) => launch(args, &options, interrupt),
        Err(end) => end,
    })
}

/// `end`, its failure logged (on stderr when logging could not start).
fn reported(end: RunEnd) -> RunEnd {
    let failed = matches!(end.exit_code, INPUT_ERROR | SIMULATION_FAILED);
    if let (true, Some(message)) = (failed, &end.message) {
        log::error!("{message}");
        if !logging::is_initialized() {
            eprintln!("Error: {message}");
        }
    }
    end
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(Command::Info(_) | Command::Convert(_)) = &cli.command {
        logging::init_stderr_warnings();
    }
    let command = match &cli.command {
        Some(Command::Sweep(args)) => return ExitCode::from(sweep::run(args)),
        Some(Command::Batch(args)) => return ExitCode::from(sweep::batch(args)),
        Some(Command::Info(args)) => Some(info::run(args)),
        Some(Command::Convert(args)) => Some(convert::run(args)),
        Some(Command::Plot(args)) => Some(plot::run(args)),
        Some(Command::View(args)) => Some(view::run(args)),
        Some(Command::Completions { shell }) => Some(generated(Some(*shell))),
        Some(Command::Man) => Some(generated(None)),
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
    let interrupt = Interrupt::install_for_run(false);
    let end = run_project(&cli.run, interrupt.as_ref());
    log::logger().flush();
    ExitCode::from(end.exit_code)
}
