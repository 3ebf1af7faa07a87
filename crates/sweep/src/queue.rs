//! What a sweep has in the Slurm queue: the job arrays it submitted (`slurm/jobs.json` in
//! the sweep directory) and which of their tasks are still pending, running or requeued,
//! from `squeue`. `mastersim sweep run` submits no case whose task is still queued, so a case
//! never runs in two tasks at once; `--wait` waits until none is.
//!
//! Slurm's documentation of `squeue` (its `--array`, `--jobs` and `--format` options and the
//! job states) is the reference: a job array's task keeps its array job id (`%F`) and task id
//! (`%K`) through every requeue, and the executor's task id is the case number.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::files::write_atomically;
use crate::plan::Plan;

/// The `schema` member of `slurm/jobs.json`.
pub const JOBS_SCHEMA: &str = "mastersim-sweep-slurm-jobs";

/// One `sbatch` of the Slurm executor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Submission {
    /// The array job id `sbatch` printed.
    pub job: String,
    /// The cases it runs, as its `--array` specification (`0-3,5`; the task id is the case
    /// number).
    pub array: String,
}

/// The content of `slurm/jobs.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct JobsFile {
    /// [`JOBS_SCHEMA`].
    schema: String,
    /// 1.
    version: u32,
    /// The submissions whose tasks may still be in the queue, oldest first.
    jobs: Vec<Submission>,
}

/// An array task of the sweep that Slurm still holds: pending (also after a requeue),
/// running, completing or suspended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedTask {
    /// The case it runs (its array task id).
    pub case: usize,
    /// The task as Slurm's commands name it: `<array job id>_<case>`.
    pub task: String,
    /// Its state as `squeue` prints it (`PENDING`, `RUNNING`, `COMPLETING`, …).
    pub state: String,
}

/// The file that lists the jobs submitted from the sweep directory `dir`.
pub fn jobs_path(dir: &Path) -> PathBuf {
    dir.join("slurm").join("jobs.json")
}

/// The submissions recorded in the sweep directory `dir` whose tasks may still be queued
/// (none when the file does not exist).
///
/// # Errors
/// [`Error::Plan`] naming `slurm/jobs.json` when it exists but cannot be read.
pub fn submissions(dir: &Path) -> Result<Vec<Submission>> {
    let path = jobs_path(dir);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(&path)(e)),
    };
    let file: JobsFile = serde_json::from_slice(&bytes).map_err(|e| Error::Plan {
        path: path.clone(),
        message: format!(
            "not a list of Slurm jobs: {e}; remove it when no task of this sweep is queued"
        ),
    })?;
    if file.schema != JOBS_SCHEMA || file.version != 1 {
        return Err(Error::Plan {
            path,
            message: format!(
                "schema {} version {}, expected {JOBS_SCHEMA} version 1",
                file.schema, file.version
            ),
        });
    }
    Ok(file.jobs)
}

/// Writes `jobs` as the recorded submissions of the sweep directory `dir`.
fn write_submissions(dir: &Path, jobs: Vec<Submission>) -> Result<()> {
    let file = JobsFile {
        schema: JOBS_SCHEMA.to_owned(),
        version: 1,
        jobs,
    };
    let folder = dir.join("slurm");
    std::fs::create_dir_all(&folder).map_err(Error::io(&folder))?;
    let json = serde_json::to_vec_pretty(&file).expect("invariant: a job list serializes");
    write_atomically(&jobs_path(dir), &json)
}

/// Adds `submission` to the recorded submissions of the sweep directory `dir`.
///
/// # Errors
/// As [`submissions`]; [`Error::Io`] when the file cannot be written.
pub(crate) fn record_submission(dir: &Path, submission: Submission) -> Result<()> {
    let mut jobs = submissions(dir)?;
    jobs.push(submission);
    write_submissions(dir, jobs)
}

/// The tasks of `plan`'s recorded submissions that Slurm still holds, in the order `squeue`
/// lists them. Asks `squeue` (from `PATH`) only when a submission is recorded; forgets the
/// submissions of which no task is left.
///
/// # Errors
/// As [`submissions`]; [`Error::Command`] when `squeue` cannot be run or fails.
pub fn queued_tasks(plan: &Plan) -> Result<Vec<QueuedTask>> {
    let jobs = submissions(&plan.dir)?;
    if jobs.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<&str> = jobs.iter().map(|s| s.job.as_str()).collect();
    let list = ids.join(",");
    let shown = format!("squeue --noheader --array --jobs={list}");
    let output = Command::new("squeue")
        .args(["--noheader", "--array", "--format=%F|%K|%T"])
        .arg(format!("--jobs={list}"))
        .output()
        .map_err(|e| Error::Command {
            command: shown.clone(),
            message: format!("{e} (is Slurm installed and squeue on PATH?)"),
        })?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    // squeue refuses a single job id that Slurm no longer knows (it has ended and left the
    // controller's memory), where a list of several ids just shows nothing for it.
    let forgotten = ids.len() == 1 && stderr.contains("Invalid job id");
    if !output.status.success() && !forgotten {
        return Err(Error::Command {
            command: shown,
            message: format!("exit status {}: {}", output.status, stderr.trim()),
        });
    }
    let tasks = parse_squeue(
        &String::from_utf8_lossy(&output.stdout),
        &jobs,
        plan.cases.len(),
    );
    let left: Vec<Submission> = jobs
        .iter()
        .filter(|s| {
            tasks
                .iter()
                .any(|t| t.task.split('_').next() == Some(&s.job))
        })
        .cloned()
        .collect();
    if left.len() != jobs.len() {
        write_submissions(&plan.dir, left)?;
    }
    Ok(tasks)
}

/// The tasks in `text`, the output of `squeue --format=%F|%K|%T` (array job id, array task
/// id, state): those of the submissions `jobs` with a task id below `count`. Other lines
/// (other jobs, a job that is not an array) are left out.
pub(crate) fn parse_squeue(text: &str, jobs: &[Submission], count: usize) -> Vec<QueuedTask> {
    text.lines()
        .filter_map(|line| {
            let mut fields = line.trim().split('|');
            let job = fields.next()?.trim();
            let case: usize = fields.next()?.trim().parse().ok()?;
            let state = fields.next()?.trim();
            (case < count && jobs.iter().any(|s| s.job == job)).then(|| QueuedTask {
                case,
                task: format!("{job}_{case}"),
                state: state.to_owned(),
            })
        })
        .collect()
}

/// How many times in a row `squeue` may fail while [`wait_until_done`] waits (a busy
/// controller times out now and then) before the waiting stops with its error.
const SQUEUE_FAILURES: u32 = 5;

/// Waits until Slurm holds no task of `plan`'s recorded submissions. Asks `squeue` about
/// every tenth of the time waited so far (at least every second, at most every 30 s).
///
/// # Errors
/// As [`queued_tasks`]; an [`Error::Command`] of `squeue` only when it came
/// [`SQUEUE_FAILURES`] times in a row.
pub fn wait_until_done(plan: &Plan) -> Result<()> {
    let started = Instant::now();
    let mut failures = 0;
    loop {
        match queued_tasks(plan) {
            Ok(tasks) if tasks.is_empty() => return Ok(()),
            Ok(_) => failures = 0,
            Err(e @ Error::Command { .. }) => {
                failures += 1;
                if failures >= SQUEUE_FAILURES {
                    return Err(e);
                }
            }
            Err(e) => return Err(e),
        }
        let pause = (started.elapsed() / 10).clamp(Duration::from_secs(1), Duration::from_secs(30));
        std::thread::sleep(pause);
    }
}
