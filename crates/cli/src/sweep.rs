//! `mastersim sweep run|case|collect` and `mastersim batch`: the command line of crate
//! `sweep` (docs/sweeps.md). A case runs in-process exactly as `mastersim <base> --set …` would
//! (the same argument parsing and [`crate::run`]), so its files are those of a plain run.
//!
//! Exit codes: 0 every case ran to its end; 1 a case failed, timed out, was interrupted or has
//! not run (named on stderr); 2 a bad sweep file, batch input or option; 130/143 the local
//! executor was stopped by SIGINT/SIGTERM (rerun the sweep to continue). `sweep case` exits
//! with its run's code (0 when the case had already completed).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Parser as _, Subcommand, ValueEnum};
use sweep::{CaseRecord, Collection, LocalOptions, Outcome, Plan, slurm};

use crate::{Cli, INPUT_ERROR, SIMULATION_FAILED};

/// Arguments of `mastersim sweep`.
#[derive(Debug, clap::Args)]
pub struct SweepArgs {
    #[command(subcommand)]
    command: SweepCommand,
}

/// The sweep subcommands.
#[derive(Debug, Subcommand)]
enum SweepCommand {
    /// Lay out the cases of a sweep file in the sweep directory and run those not yet
    /// completed, then collect their results (local executor, or Slurm with --wait).
    Run {
        /// The sweep file (.toml).
        sweep: PathBuf,
        #[command(flatten)]
        exec: ExecArgs,
    },
    /// Run case K of a sweep, as the executors do: skipped when it has completed, continued
    /// from its checkpoint when it was interrupted, else run from the start.
    Case(CaseArgs),
    /// Gather every case's outcome, counters and outputs into sweep.csv and sweep.json in the
    /// sweep directory.
    Collect {
        /// The sweep directory (laid out by `sweep run` or `batch`).
        dir: PathBuf,
        /// Also write a JUnit XML report (one test case per sweep case) to this file.
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
    },
}

/// Arguments of `mastersim sweep case`.
#[derive(Debug, clap::Args)]
struct CaseArgs {
    /// The sweep directory (holding plan.json), or the sweep file.
    sweep: PathBuf,
    /// The case number, from 0.
    case: usize,
    /// With a sweep file: its sweep directory [default: the file's path without extension].
    #[arg(long, value_name = "DIR")]
    sweep_dir: Option<PathBuf>,
    /// Write a checkpoint every this many seconds of wall time [default: the plan's].
    #[arg(long, value_name = "SECONDS")]
    checkpoint_interval: Option<f64>,
    /// Under Slurm: when SIGTERM stops the case, requeue its array task so that it continues
    /// from its checkpoint (the job scripts of the Slurm executor pass it).
    #[arg(long)]
    slurm_requeue: bool,
}

/// Arguments of `mastersim batch`.
#[derive(Debug, clap::Args)]
pub struct BatchArgs {
    /// A directory (its .msim, .ssp, .ssd and .fmu files and SSP folders) or a text file
    /// listing one project per line (relative to the file; # starts a comment).
    input: PathBuf,
    #[command(flatten)]
    exec: ExecArgs,
    /// Further mastersim options for every project, after `--` (e.g. `-- --result-format mat`).
    #[arg(last = true, value_name = "OPTIONS")]
    options: Vec<String>,
}

/// Where and how the cases run (`sweep run` and `batch`).
#[derive(Debug, clap::Args)]
struct ExecArgs {
    /// local: child processes on this machine; slurm: one Slurm job array (sbatch); print:
    /// one command per line on stdout, for GNU parallel or another scheduler.
    #[arg(long, value_enum, default_value_t = Executor::Local)]
    executor: Executor,
    /// Cases at a time: local [default: the number of cores]; slurm: the array's %M limit
    /// [default: none].
    #[arg(short = 'j', long, value_name = "N", value_parser = crate::at_least_one)]
    jobs: Option<usize>,
    /// The sweep directory [default: the sweep file's path without extension; for a batch,
    /// <directory>/batch or the list file's path without extension].
    #[arg(long, value_name = "DIR")]
    sweep_dir: Option<PathBuf>,
    /// Every case writes a checkpoint every this many seconds of wall time (and at SIGTERM
    /// in any case), so that an interrupted case continues where it stopped.
    #[arg(long, value_name = "SECONDS")]
    checkpoint_interval: Option<f64>,
    /// Also write a JUnit XML report of the collected results to this file.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// slurm: the partition (sbatch --partition).
    #[arg(long, value_name = "NAME")]
    partition: Option<String>,
    /// slurm: the time limit of each task in Slurm's format (`30`, `2:00:00`) [default: the
    /// sweep's wall_time_limit plus the margin, else the partition's].
    #[arg(long, value_name = "TIME")]
    time: Option<String>,
    /// slurm: seconds before a task's time limit at which Slurm sends SIGTERM, so that the
    /// case checkpoints and requeues itself.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    signal_margin: u32,
    /// slurm: a further sbatch option for the job script (repeatable), e.g.
    /// `--sbatch-option=--account=proj42`.
    #[arg(long = "sbatch-option", value_name = "OPTION")]
    sbatch_options: Vec<String>,
    /// slurm: wait until every task has ended (sbatch --wait), then collect.
    #[arg(long)]
    wait: bool,
}

/// An executor on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Executor {
    /// Child processes on this machine.
    Local,
    /// A Slurm job array.
    Slurm,
    /// Print the case commands.
    Print,
}

/// Prints `error` as the one error line and returns exit code 2.
fn input_error(error: &impl std::fmt::Display) -> u8 {
    eprintln!("Error: {error}");
    INPUT_ERROR
}

/// `mastersim sweep …`.
pub fn run(args: &SweepArgs) -> u8 {
    match &args.command {
        SweepCommand::Run { sweep, exec } => {
            match sweep::read_sweep_file(sweep, exec.sweep_dir.as_deref()) {
                Ok(plan) => execute(plan, exec),
                Err(e) => input_error(&e),
            }
        }
        SweepCommand::Case(case) => run_case(case),
        SweepCommand::Collect { dir, junit } => match sweep::collect(dir) {
            Ok(collection) => report(&collection, junit.as_deref()),
            Err(e) => input_error(&e),
        },
    }
}

/// `mastersim batch …`.
pub fn batch(args: &BatchArgs) -> u8 {
    match sweep::batch_plan(
        &args.input,
        args.exec.sweep_dir.as_deref(),
        args.options.clone(),
    ) {
        Ok(plan) => execute(plan, &args.exec),
        Err(e) => input_error(&e),
    }
}

/// Lays out `plan`, runs its pending cases with the chosen executor, and collects.
fn execute(mut plan: Plan, exec: &ExecArgs) -> u8 {
    if let Some(s) = exec.checkpoint_interval {
        if !(s.is_finite() && s > 0.0) {
            return input_error(&format!(
                "--checkpoint-interval {s}: expected a number of seconds > 0"
            ));
        }
        plan.checkpoint_interval = Some(s);
    }
    // The case options are checked once here, so that a typo fails the sweep, not each case.
    if let Some(case) = plan.cases.first()
        && let Err(e) = Cli::try_parse_from(case_argv(&plan, case, false))
    {
        let text = e.to_string();
        let first = text.lines().next().unwrap_or_default();
        return input_error(&format!(
            "{}: the options of the cases are not valid: {}",
            plan.source.display(),
            first.trim_start_matches("error: ")
        ));
    }
    if let Err(e) = plan.lay_out() {
        return input_error(&e);
    }
    let pending = plan.pending();
    let done = plan.cases.len() - pending.len();
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return input_error(&format!("cannot find the mastersim binary: {e}")),
    };
    if exec.executor == Executor::Print {
        print!("{}", sweep::print_commands(&plan, &pending, &exe));
        return 0;
    }
    say!(
        "Sweep '{}': {} cases in '{}'{}",
        plan.name,
        plan.cases.len(),
        plan.dir.display(),
        if done > 0 {
            format!(", {done} completed before, {} to run", pending.len())
        } else {
            String::new()
        }
    );
    let mut stopped_by = None;
    if !pending.is_empty() {
        match exec.executor {
            Executor::Local => {
                let interrupt = match crate::signals::Interrupt::install() {
                    Ok(interrupt) => interrupt,
                    Err(e) => return input_error(&format!("cannot install signal handlers: {e}")),
                };
                let options = LocalOptions {
                    exe,
                    jobs: exec.jobs.unwrap_or_else(|| {
                        std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
                    }),
                    progress: true,
                };
                match sweep::run_local(&plan, &pending, &options, &interrupt.flag()) {
                    Ok(_) if interrupt.signalled() => stopped_by = Some(interrupt.received().1),
                    Ok(_) => {}
                    Err(e) => return input_error(&e),
                }
            }
            Executor::Slurm => {
                let options = slurm::SlurmOptions {
                    exe,
                    max_parallel: exec.jobs,
                    partition: exec.partition.clone(),
                    time: exec.time.clone(),
                    signal_margin: exec.signal_margin,
                    extra: exec.sbatch_options.clone(),
                    wait: exec.wait,
                };
                match slurm::submit(&plan, &pending, &options) {
                    Ok(job) if exec.wait => say!("Slurm job {job} has ended"),
                    Ok(job) => {
                        say!(
                            "Submitted Slurm job {job} ({} tasks; script '{}'). When it has \
                             ended: mastersim sweep collect '{}'",
                            pending.len(),
                            plan.dir.join("slurm").join("job.sh").display(),
                            plan.dir.display()
                        );
                        return 0;
                    }
                    Err(e) => return input_error(&e),
                }
            }
            Executor::Print => unreachable!("handled above"),
        }
    }
    let code = match sweep::collect(&plan.dir) {
        Ok(collection) => report(&collection, exec.junit.as_deref()),
        Err(e) => input_error(&e),
    };
    match stopped_by {
        Some(signal_code) => {
            eprintln!(
                "Stopped: the interrupted cases continue from their checkpoints when the sweep \
                 runs again"
            );
            signal_code
        }
        None => code,
    }
}

/// Prints the outcome of `collection` (every case that did not run to its end, named), writes
/// the JUnit report when asked; exit code 0 when every case ran to its end, else 1.
fn report(collection: &Collection, junit: Option<&Path>) -> u8 {
    if let Some(path) = junit
        && let Err(e) = sweep::write_junit(collection, path)
    {
        return input_error(&e);
    }
    for warning in &collection.warnings {
        eprintln!("Warning: {warning}");
    }
    let mut counts = Vec::new();
    for outcome in [
        Outcome::Completed,
        Outcome::Terminated,
        Outcome::Failed,
        Outcome::TimedOut,
        Outcome::Interrupted,
        Outcome::NotRun,
    ] {
        let n = collection.count(outcome);
        if n > 0 {
            counts.push(format!("{n} {}", outcome.name().replace('_', " ")));
        }
    }
    say!(
        "{} cases: {}; results in '{}' and sweep.json",
        collection.cases.len(),
        counts.join(", "),
        collection.dir.join("sweep.csv").display()
    );
    let mut failed = false;
    for case in collection.unsuccessful() {
        failed = true;
        eprintln!(
            "Error: {} {}{}",
            case.label,
            case.outcome.name().replace('_', " "),
            case.message
                .as_deref()
                .map(|m| format!(": {m}"))
                .unwrap_or_default()
        );
    }
    if failed { SIMULATION_FAILED } else { 0 }
}

/// The `mastersim` command line of `case` as the case process runs it: the plan's command
/// line, its checkpoint interval, and `--resume` when continuing.
fn case_argv(plan: &Plan, case: &sweep::Case, resume: bool) -> Vec<String> {
    let mut argv = vec!["mastersim".to_owned()];
    argv.extend(plan.command_line(case));
    if let Some(s) = plan.checkpoint_interval {
        argv.extend(["--checkpoint-interval".to_owned(), s.to_string()]);
    }
    if resume {
        argv.push("--resume".to_owned());
    }
    argv
}

/// `mastersim sweep case <sweep> <k>`.
fn run_case(args: &CaseArgs) -> u8 {
    let plan = if args.sweep.is_dir() {
        Plan::read(&args.sweep)
    } else {
        // A case started from the sweep file lays out the sweep directory when no executor
        // has (the same plan from every case, written atomically), so that collect finds it.
        sweep::read_sweep_file(&args.sweep, args.sweep_dir.as_deref()).and_then(|plan| {
            if !Plan::plan_path(&plan.dir).is_file() {
                plan.lay_out()?;
            }
            Ok(plan)
        })
    };
    let mut plan = match plan {
        Ok(plan) => plan,
        Err(e) => return input_error(&e),
    };
    if args.checkpoint_interval.is_some() {
        plan.checkpoint_interval = args.checkpoint_interval;
    }
    let case = match plan.case(args.case) {
        Ok(case) => case.clone(),
        Err(e) => return input_error(&e),
    };
    let dir = plan.case_dir(case.index);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return input_error(&format!("cannot create '{}': {e}", dir.display()));
    }
    if plan.is_done(&case) {
        say!("{} has completed; nothing to do", plan.label(&case));
        return 0;
    }
    // A case interrupted with the command line it has now continues from its checkpoint; a
    // checkpoint of another command line (the sweep file changed) is stale.
    let previous = CaseRecord::read(&dir);
    let checkpoint = dir.join("checkpoint");
    let stale = previous
        .as_ref()
        .is_some_and(|r| r.key != plan.case_key(&case));
    if stale {
        let _ = std::fs::remove_dir_all(&checkpoint);
    }
    let resume = checkpoint.join("state.bin").is_file();
    let _ = std::fs::remove_file(CaseRecord::path(&dir));
    let argv = case_argv(&plan, &case, resume);
    let cli = match Cli::try_parse_from(&argv) {
        Ok(cli) => cli,
        Err(e) => {
            let message = e.to_string().lines().next().unwrap_or_default().to_owned();
            let failed = Attempt {
                outcome: Outcome::Failed,
                code: INPUT_ERROR,
                message: Some(message.clone()),
                elapsed: 0.0,
            };
            let _ = failed.record(&plan, &case, None).write(&dir);
            return input_error(&message);
        }
    };
    // The summary of an earlier attempt must not describe this one.
    let _ = std::fs::remove_file(dir.join("log").join("summary.json"));
    let started = Instant::now();
    let interrupt = crate::install_handlers();
    let (code, message) = std::thread::scope(|scope| {
        // The watchdog waits for the limit or for the run's end (the sender dropped).
        let (ended, end) = std::sync::mpsc::channel::<()>();
        if let (Some(limit), Some(interrupt)) = (plan.wall_time_limit, interrupt.as_ref()) {
            scope.spawn(move || {
                let limit_reached = end.recv_timeout(Duration::from_secs_f64(limit)).is_err()
                    && started.elapsed() >= Duration::from_secs_f64(limit);
                if limit_reached {
                    interrupt.expire(format!("wall-time limit of {limit} s reached"));
                }
            });
        }
        let result = crate::run_project(&cli.run, interrupt.as_ref());
        drop(ended);
        result
    });
    let summary = read_summary(&dir);
    let timed_out = interrupt.as_ref().and_then(|i| i.expired()).is_some();
    if timed_out {
        // A case stopped at its limit starts again from the beginning when rerun.
        let _ = std::fs::remove_dir_all(&checkpoint);
    }
    let outcome = Outcome::from_exit_code(
        i32::from(code),
        summary.as_ref().map(|s| s.outcome.as_str()),
    );
    let message = message.or_else(|| summary.and_then(|s| s.message));
    let elapsed = started.elapsed().as_secs_f64();
    let earlier = previous.filter(|_| resume);
    let attempt = Attempt {
        outcome,
        code,
        message,
        elapsed,
    };
    if let Err(e) = attempt.record(&plan, &case, earlier.as_ref()).write(&dir) {
        eprintln!("Error: {e}");
    }
    if outcome == Outcome::Interrupted && args.slurm_requeue && code == 143 {
        match slurm::requeue_this_task() {
            Ok(true) => log::info!("Requeued the Slurm task; it continues from the checkpoint."),
            Ok(false) => {}
            Err(e) => log::error!("{e}"),
        }
    }
    log::logger().flush();
    code
}

/// How one attempt of a case ended.
struct Attempt {
    outcome: Outcome,
    code: u8,
    message: Option<String>,
    /// Wall time of the attempt, s.
    elapsed: f64,
}

impl Attempt {
    /// The record of this attempt of `case`, continuing `earlier` attempts when resumed.
    fn record(self, plan: &Plan, case: &sweep::Case, earlier: Option<&CaseRecord>) -> CaseRecord {
        CaseRecord {
            case: case.index,
            key: plan.case_key(case),
            command: plan.command_line(case),
            outcome: self.outcome,
            exit_code: i32::from(self.code),
            message: self.message,
            wall_seconds: earlier.map_or(0.0, |r| r.wall_seconds) + self.elapsed,
            attempts: earlier.map_or(0, |r| r.attempts) + 1,
        }
    }
}

/// The case's `log/summary.json`, when its run wrote one.
fn read_summary(case_dir: &Path) -> Option<mastersim::report::SummaryJson> {
    let bytes = std::fs::read(case_dir.join("log").join("summary.json")).ok()?;
    serde_json::from_slice(&bytes).ok()
}
