//! `mastersim sweep run|case|collect` and `mastersim batch`: the command line of crate
//! `sweep` (docs/sweeps.md). A case runs in-process exactly as `mastersim <base> --set …` would
//! (the same argument parsing and [`crate::run`]), so its files are those of a plain run.
//!
//! Exit codes: 0 every case ran to its end; 1 a case failed, timed out, was interrupted, is
//! still running or queued, or has not run (named on stderr); 2 a bad sweep file, batch input
//! or option, or the sweep directory is in use by another `sweep run`; 130/143 the local
//! executor was stopped by SIGINT/SIGTERM (rerun the sweep to continue). `sweep case` exits
//! with its run's code (0 when the case had already completed, 2 when another process runs
//! it, 138 when the time-limit warning SIGUSR1 stopped it).

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
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    checkpoint_interval: Option<f64>,
    /// Under Slurm: when the time-limit warning SIGUSR1 stops the case, requeue its array task
    /// so that it continues from its checkpoint (the job scripts of the Slurm executor pass
    /// it). SIGTERM, a cancel, never requeues.
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
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
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
    /// slurm: seconds before a task's time limit at which Slurm sends the warning SIGUSR1, so
    /// that the case checkpoints and requeues itself.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    signal_margin: u32,
    /// slurm: a further sbatch option for the job script (repeatable), e.g.
    /// `--sbatch-option=--account=proj42`.
    #[arg(long = "sbatch-option", value_name = "OPTION")]
    sbatch_options: Vec<String>,
    /// slurm: wait until Slurm holds no task of the sweep (asking squeue), then collect.
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
    // Every override name against the base, so that a misspelt one fails the sweep at once
    // instead of every case (exit 2, the sweep file's line, a did-you-mean hint).
    if let Err(e) = sweep::check_overrides(&plan) {
        return input_error(&e);
    }
    // One `sweep run` or `batch` at a time in a sweep directory, held until this one ends.
    let _lock = match lock_sweep_dir(&plan.dir) {
        Ok(lock) => lock,
        Err(code) => return code,
    };
    if let Err(e) = plan.lay_out() {
        return input_error(&e);
    }
    let pending = plan.pending();
    let done = plan.cases.len() - pending.len();
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return input_error(&format!("cannot find the mastersim binary: {e}")),
    };
    if exec.executor != Executor::Print {
        say!(
            "Sweep '{}': {} in '{}'{}",
            plan.name,
            cases(plan.cases.len()),
            plan.dir.display(),
            if done > 0 {
                format!(", {done} completed before, {} to run", pending.len())
            } else {
                String::new()
            }
        );
    }
    let to_run = match leave_out_running(&plan, &pending, exec.executor) {
        Ok(to_run) => to_run,
        Err(code) => return code,
    };
    let stopped_by = match exec.executor {
        Executor::Print => {
            print!("{}", sweep::print_commands(&plan, &to_run, &exe));
            return 0;
        }
        Executor::Local if to_run.is_empty() => None,
        Executor::Local => match run_locally(&plan, &to_run, exec, exe) {
            Ok(stopped_by) => stopped_by,
            Err(code) => return code,
        },
        Executor::Slurm => match submit_to_slurm(&plan, &to_run, exec, exe) {
            Ok(()) if exec.wait => None,
            Ok(()) => return 0,
            Err(code) => return code,
        },
    };
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

/// Locks the sweep directory `dir` for this `sweep run` or `batch`
/// ([`mastersim::WorkingDirLock`]); exit code 2 with the holder when another process has it.
fn lock_sweep_dir(dir: &Path) -> Result<mastersim::WorkingDirLock, u8> {
    mastersim::WorkingDirLock::acquire(dir).map_err(|e| match e {
        mastersim::Error::WorkingDirectoryLocked { holder, .. } => input_error(&format!(
            "the sweep directory '{}' is in use ({holder}); wait for that run to end, or give \
             this one another --sweep-dir",
            dir.display()
        )),
        other => input_error(&other.chain_text()),
    })
}

/// The cases of `pending` to run now: those that no Slurm task of the sweep holds (pending,
/// running or requeued) and whose working directory no running process holds. A line names
/// each case left out and why (on stderr for the print executor, whose stdout is commands).
/// When Slurm cannot be asked, the Slurm executor stops with exit code 2 (nothing is
/// submitted); the others go on with a warning.
fn leave_out_running(plan: &Plan, pending: &[usize], executor: Executor) -> Result<Vec<usize>, u8> {
    let queued = match slurm::queued_tasks(plan) {
        Ok(tasks) => tasks,
        Err(e) if executor == Executor::Slurm => {
            return Err(input_error(&format!(
                "{e}; cannot tell which cases Slurm still holds, so nothing was submitted"
            )));
        }
        Err(e) => {
            eprintln!("Warning: {e}; a case that Slurm still holds may run twice");
            Vec::new()
        }
    };
    let note = |text: String| {
        if executor == Executor::Print {
            eprintln!("{text}");
        } else {
            say!("{text}");
        }
    };
    let mut to_run = Vec::new();
    for &k in pending {
        let label = plan.label(&plan.cases[k]);
        if let Some(task) = queued.iter().find(|t| t.case == k) {
            note(format!(
                "{label}: Slurm task {} is {}; left out",
                task.task, task.state
            ));
        } else if let Ok(Some(holder)) = mastersim::WorkingDirLock::holder_of(&plan.case_dir(k)) {
            note(format!(
                "{label}: running in another process ({holder}); left out"
            ));
        } else {
            to_run.push(k);
        }
    }
    Ok(to_run)
}

/// Runs `cases` with the local executor; returns the exit code of the signal that stopped
/// it, if one did.
fn run_locally(
    plan: &Plan,
    cases: &[usize],
    exec: &ExecArgs,
    exe: std::path::PathBuf,
) -> Result<Option<u8>, u8> {
    let interrupt = crate::signals::Interrupt::install()
        .map_err(|e| input_error(&format!("cannot install signal handlers: {e}")))?;
    let options = LocalOptions {
        exe,
        jobs: exec.jobs.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
        }),
        progress: true,
        // Ctrl-C reaches the cases as SIGINT, a SIGTERM as SIGTERM.
        stop_signal: interrupt.signal_number(),
    };
    sweep::run_local(plan, cases, &options, &interrupt.flag()).map_err(|e| input_error(&e))?;
    Ok(interrupt.signalled().then(|| interrupt.received().1))
}

/// Submits `cases` as one Slurm job array (none when empty) and, with `--wait`, waits until
/// Slurm holds no task of the sweep.
fn submit_to_slurm(
    plan: &Plan,
    cases: &[usize],
    exec: &ExecArgs,
    exe: std::path::PathBuf,
) -> Result<(), u8> {
    if cases.is_empty() {
        say!("Nothing to submit");
    } else {
        let options = slurm::SlurmOptions {
            exe,
            max_parallel: exec.jobs,
            partition: exec.partition.clone(),
            time: exec.time.clone(),
            signal_margin: exec.signal_margin,
            extra: exec.sbatch_options.clone(),
        };
        let job = slurm::submit(plan, cases, &options).map_err(|e| input_error(&e))?;
        say!(
            "Submitted Slurm job {job} ({} task{}; script '{}')",
            cases.len(),
            if cases.len() == 1 { "" } else { "s" },
            plan.dir.join("slurm").join("job.sh").display(),
        );
    }
    if exec.wait {
        slurm::wait_until_done(plan).map_err(|e| input_error(&e))?;
        say!("Slurm holds no task of the sweep any more");
    } else {
        say!(
            "When Slurm holds no task of the sweep (squeue): mastersim sweep collect '{}'",
            plan.dir.display()
        );
    }
    Ok(())
}

/// `n cases`, or `1 case`.
fn cases(n: usize) -> String {
    format!("{n} case{}", if n == 1 { "" } else { "s" })
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
        Outcome::Requeued,
        Outcome::Running,
        Outcome::NotRun,
    ] {
        let n = collection.count(outcome);
        if n > 0 {
            counts.push(format!("{n} {}", outcome.name().replace('_', " ")));
        }
    }
    say!(
        "{}: {}; results in '{}' and sweep.json",
        cases(collection.cases.len()),
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

/// The plan of `args.sweep` (a sweep directory, or a sweep file whose directory is laid out
/// when no executor has) and its case `args.case`, whose working directory is created.
fn open_case(args: &CaseArgs) -> Result<(Plan, sweep::Case), u8> {
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
    let mut plan = plan.map_err(|e| input_error(&e))?;
    if args.checkpoint_interval.is_some() {
        plan.checkpoint_interval = args.checkpoint_interval;
    }
    let case = plan.case(args.case).map_err(|e| input_error(&e))?.clone();
    let dir = plan.case_dir(case.index);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return Err(input_error(&format!(
            "cannot create '{}': {e}",
            dir.display()
        )));
    }
    Ok((plan, case))
}

/// `mastersim sweep case <sweep> <k>`.
fn run_case(args: &CaseArgs) -> u8 {
    let (plan, case) = match open_case(args) {
        Ok(opened) => opened,
        Err(code) => return code,
    };
    let dir = plan.case_dir(case.index);
    // Before anything in the case's directory is read or removed: another process may run
    // this case now (the run below shares this lock).
    let _lock = match mastersim::WorkingDirLock::acquire(&dir) {
        Ok(lock) => lock,
        Err(e) => return input_error(&e.chain_text()),
    };
    if plan.is_done(&case) {
        say!("{} has completed; nothing to do", plan.label(&case));
        return 0;
    }
    // From here on a signal stops the case at its first communication point at the latest.
    let interrupt = crate::install_handlers(true);
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
    let (code, message) = run_attempt(&plan, &cli, interrupt.as_ref());
    // The run has stopped: what is left (the record, a requeue) must not be cut short by a
    // further signal, such as the SIGTERM with which Slurm ends a requeued task.
    if let Some(interrupt) = &interrupt {
        interrupt.disarm();
    }
    let timed_out = interrupt.as_ref().and_then(|i| i.expired()).is_some();
    if timed_out {
        // A case stopped at its limit starts again from the beginning when rerun.
        let _ = std::fs::remove_dir_all(&checkpoint);
    }
    let summary = read_summary(&dir);
    let attempt = Attempt {
        outcome: Outcome::from_exit_code(
            i32::from(code),
            summary.as_ref().map(|s| s.outcome.as_str()),
        ),
        code,
        message: message.or_else(|| summary.and_then(|s| s.message)),
        elapsed: started.elapsed().as_secs_f64(),
    };
    let record = attempt.record(&plan, &case, previous.filter(|_| resume).as_ref());
    let requeue = args.slurm_requeue
        && code == TIME_LIMIT_WARNING
        && interrupt
            .as_ref()
            .is_some_and(|i| i.warned() && !i.terminated());
    end_attempt(record, &dir, requeue);
    log::logger().flush();
    code
}

/// The exit code of a case stopped by its time-limit warning, SIGUSR1 (128 + 10).
const TIME_LIMIT_WARNING: u8 = 138;

/// Runs the case's command line `cli` in-process, stopped by `interrupt` and by the plan's
/// wall-time limit; returns the exit code and the failure's message.
fn run_attempt(
    plan: &Plan,
    cli: &Cli,
    interrupt: Option<&crate::signals::Interrupt>,
) -> (u8, Option<String>) {
    let started = Instant::now();
    std::thread::scope(|scope| {
        // The watchdog waits for the limit or for the run's end (the sender dropped).
        let (ended, end) = std::sync::mpsc::channel::<()>();
        if let (Some(limit), Some(interrupt)) = (plan.wall_time_limit, interrupt) {
            scope.spawn(move || {
                let limit_reached = end.recv_timeout(Duration::from_secs_f64(limit)).is_err()
                    && started.elapsed() >= Duration::from_secs_f64(limit);
                if limit_reached {
                    interrupt.expire(format!("wall-time limit of {limit} s reached"));
                }
            });
        }
        let result = crate::run_project(&cli.run, interrupt);
        drop(ended);
        result
    })
}

/// Writes the case's `record` into `dir`; with `requeue` (the time-limit warning stopped it
/// under Slurm with `--slurm-requeue`), first as [`Outcome::Requeued`], then requeues the
/// task. The record comes first because Slurm ends a requeued task at once. When the
/// requeue fails, or the case runs outside Slurm, the record says `interrupted` and why, so
/// that the next `sweep run` continues it.
fn end_attempt(mut record: CaseRecord, dir: &Path, requeue: bool) {
    let write = |record: &CaseRecord| {
        if let Err(e) = record.write(dir) {
            eprintln!("Error: {e}");
        }
    };
    if !requeue {
        write(&record);
        return;
    }
    let stopped = record.message.take().unwrap_or_default();
    record.outcome = Outcome::Requeued;
    record.message = Some(format!(
        "{stopped}; requeued: Slurm starts it again from its checkpoint"
    ));
    write(&record);
    let not_requeued = match slurm::requeue_this_task() {
        Ok(true) => {
            log::info!("Requeued the Slurm task; it continues from the checkpoint.");
            return;
        }
        Ok(false) => "not requeued: not a Slurm task".to_owned(),
        Err(e) => {
            log::error!("{e}");
            format!("not requeued: {e}")
        }
    };
    record.outcome = Outcome::Interrupted;
    record.message = Some(format!("{stopped}; {not_requeued}"));
    write(&record);
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
