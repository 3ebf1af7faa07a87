//! A sweep or batch from start to end, as `mastersim sweep run` and `mastersim batch` do it:
//! the plan checked and laid out in its directory (held by one such command at a time), the
//! cases still to run handed to an executor (local, Slurm, print), then collected and
//! reported. Prints its progress on stdout and the cases that did not run to their end on
//! stderr; returns the exit code (`docs/sweeps.md`).

use std::path::{Path, PathBuf};

use mastersim::run::{INPUT_ERROR, SIMULATION_FAILED};

use crate::slurm;
use crate::{Collection, LocalOptions, Outcome, Plan};

/// Prints `error` as the one error line and returns exit code 2.
pub(crate) fn input_error(error: &impl std::fmt::Display) -> u8 {
    eprintln!("Error: {error}");
    INPUT_ERROR
}

/// Where and how the cases run ([`execute`]; the options of `mastersim sweep run` and
/// `mastersim batch`).
#[derive(Debug, Clone, clap::Args)]
pub struct ExecOptions {
    /// local: child processes on this machine; slurm: one Slurm job array (sbatch); print:
    /// one command per line on stdout, for GNU parallel or another scheduler.
    #[arg(long, value_enum, default_value_t = Executor::Local)]
    pub executor: Executor,
    /// Cases at a time: local [default: the number of cores]; slurm: the array's %M limit
    /// [default: none].
    #[arg(short = 'j', long, value_name = "N", value_parser = at_least_one)]
    pub jobs: Option<usize>,
    /// The sweep directory [default: the sweep file's path without extension; for a batch,
    /// <directory>/batch or the list file's path without extension].
    #[arg(long, value_name = "DIR")]
    pub sweep_dir: Option<PathBuf>,
    /// Every case writes a checkpoint every this many seconds of wall time (and at SIGTERM
    /// in any case), so that an interrupted case continues where it stopped.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub checkpoint_interval: Option<f64>,
    /// Also write a JUnit XML report of the collected results to this file.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// slurm: the partition (sbatch --partition).
    #[arg(long, value_name = "NAME")]
    pub partition: Option<String>,
    /// slurm: the time limit of each task in Slurm's format (`30`, `2:00:00`) [default: the
    /// sweep's wall_time_limit plus the margin, else the partition's].
    #[arg(long, value_name = "TIME")]
    pub time: Option<String>,
    /// slurm: seconds before a task's time limit at which Slurm sends the warning SIGUSR1, so
    /// that the case checkpoints and requeues itself.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub signal_margin: u32,
    /// slurm: a further sbatch option for the job script (repeatable), e.g.
    /// `--sbatch-option=--account=proj42`.
    #[arg(long = "sbatch-option", value_name = "OPTION")]
    pub sbatch_options: Vec<String>,
    /// slurm: wait until Slurm holds no task of the sweep (asking squeue), then collect.
    #[arg(long)]
    pub wait: bool,
}

/// Where the cases of a sweep run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Executor {
    /// Child processes on this machine.
    Local,
    /// A Slurm job array.
    Slurm,
    /// Print the case commands.
    Print,
}

/// A number of cases ≥ 1, refused by the parser before anything is laid out.
fn at_least_one(text: &str) -> std::result::Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("expected at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("{e}, expected a number ≥ 1")),
    }
}

/// Lays out `plan`, runs its pending cases with the chosen executor, and collects; returns
/// the exit code (0 every case ran to its end, 1 one did not, 2 a bad plan or option or a
/// sweep directory in use, 128 + signal number when a signal stopped the local executor).
/// `check_options` checks the options of the cases once, so that a typo fails the sweep, not
/// each case (an error names the first bad word).
pub fn execute(
    mut plan: Plan,
    exec: &ExecOptions,
    check_options: &dyn Fn(&Plan) -> std::result::Result<(), String>,
) -> u8 {
    if let Some(s) = exec.checkpoint_interval {
        if !(s.is_finite() && s > 0.0) {
            return input_error(&format!(
                "--checkpoint-interval {s}: expected a number of seconds > 0"
            ));
        }
        plan.checkpoint_interval = Some(s);
    }
    // The case options are checked once here, so that a typo fails the sweep, not each case.
    if let Err(first) = check_options(&plan) {
        return input_error(&format!(
            "{}: the options of the cases are not valid: {}",
            plan.source.display(),
            first.trim_start_matches("error: ")
        ));
    }
    // Every override name against the base, so that a misspelt one fails the sweep at once
    // instead of every case (exit 2, the sweep file's line, a did-you-mean hint).
    if let Err(e) = crate::check_overrides(&plan) {
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
            print!("{}", crate::print_commands(&plan, &to_run, &exe));
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
    let code = match crate::collect(&plan.dir) {
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
pub(crate) fn lock_sweep_dir(dir: &Path) -> Result<mastersim::WorkingDirLock, u8> {
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
    exec: &ExecOptions,
    exe: std::path::PathBuf,
) -> Result<Option<u8>, u8> {
    let interrupt = mastersim::Interrupt::install()
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
    crate::run_local(plan, cases, &options, &interrupt.flag()).map_err(|e| input_error(&e))?;
    Ok(interrupt.signalled().then(|| interrupt.received().1))
}

/// Submits `cases` as one Slurm job array (none when empty) and, with `--wait`, waits until
/// Slurm holds no task of the sweep.
fn submit_to_slurm(
    plan: &Plan,
    cases: &[usize],
    exec: &ExecOptions,
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
pub fn report(collection: &Collection, junit: Option<&Path>) -> u8 {
    if let Some(path) = junit
        && let Err(e) = crate::write_junit(collection, path)
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
