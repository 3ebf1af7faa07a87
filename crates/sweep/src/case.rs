//! One case of a sweep, as `mastersim sweep case <sweep> <k>` runs it in its own process:
//! skipped when it has completed, continued from its checkpoint when it was interrupted with
//! the command line it has now, else run from the start; stopped at the plan's wall-time
//! limit; its [`CaseRecord`] (`case.json`) written from the returned [`RunEnd`]; under Slurm,
//! requeued after the time-limit warning (`docs/sweeps.md`).
//!
//! Exit codes: the run's ([`mastersim::run`]); 0 when the case had already completed, 2 when
//! another process runs it or the plan cannot be read.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mastersim::run::TIME_LIMIT_WARNING;
use mastersim::{Interrupt, RunEnd};

use crate::execute::input_error;
use crate::plan::{Case, Plan};
use crate::{CaseRecord, Outcome, slurm};

/// What `mastersim sweep case` is asked to run (its arguments).
#[derive(Debug, Clone, clap::Args)]
pub struct CaseOptions {
    /// The sweep directory (holding plan.json), or the sweep file.
    pub sweep: PathBuf,
    /// The case number, from 0.
    pub case: usize,
    /// With a sweep file: its sweep directory [default: the file's path without extension].
    #[arg(long, value_name = "DIR")]
    pub sweep_dir: Option<PathBuf>,
    /// Write a checkpoint every this many seconds of wall time [default: the plan's].
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub checkpoint_interval: Option<f64>,
    /// Under Slurm: when the time-limit warning SIGUSR1 stops the case, requeue its array task
    /// so that it continues from its checkpoint (the job scripts of the Slurm executor pass
    /// it). SIGTERM, a cancel, never requeues.
    #[arg(long)]
    pub slurm_requeue: bool,
}

/// Runs a case as its run of `mastersim`: `plan`, `case`, whether to resume from the case's
/// checkpoint, and the interrupt that stops it. Returns how the run ended.
pub type CaseRunner<'a> = dyn Fn(&Plan, &Case, bool, Option<&Interrupt>) -> RunEnd + 'a;

/// The plan of `args.sweep` (a sweep directory, or a sweep file whose directory is laid out
/// when no executor has) and its case `args.case`, whose working directory is created.
fn open_case(args: &CaseOptions) -> Result<(Plan, Case), u8> {
    let plan = if args.sweep.is_dir() {
        Plan::read(&args.sweep)
    } else {
        // A case started from the sweep file lays out the sweep directory when no executor
        // has (the same plan from every case, written atomically), so that collect finds it.
        crate::read_sweep_file(&args.sweep, args.sweep_dir.as_deref()).and_then(|plan| {
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

/// `mastersim sweep case <sweep> <k>`: runs case `args.case` with `run` (in this process),
/// stopped by SIGINT, SIGTERM, the time-limit warning SIGUSR1 and the plan's wall-time limit,
/// and writes its record; returns the exit code.
pub fn run_case(args: &CaseOptions, run: &CaseRunner<'_>) -> u8 {
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
    let interrupt = Interrupt::install_for_run(true);
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
    // The summary of an earlier attempt must not describe this one.
    let _ = std::fs::remove_file(dir.join("log").join("summary.json"));
    let started = Instant::now();
    let end = run_attempt(&plan, interrupt.as_ref(), || {
        run(&plan, &case, resume, interrupt.as_ref())
    });
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
    let code = end.exit_code;
    let attempt = Attempt {
        outcome: Outcome::of_run(&end),
        code,
        message: end.message,
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

/// Runs `run`, stopped by `interrupt` at the plan's wall-time limit.
fn run_attempt(plan: &Plan, interrupt: Option<&Interrupt>, run: impl FnOnce() -> RunEnd) -> RunEnd {
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
        let result = run();
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
    fn record(self, plan: &Plan, case: &Case, earlier: Option<&CaseRecord>) -> CaseRecord {
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
