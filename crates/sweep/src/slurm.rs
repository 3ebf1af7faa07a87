//! The Slurm executor: one job array whose task `k` runs case `k`
//! (`mastersim sweep case <dir> <k> --slurm-requeue`), submitted with `sbatch`; every
//! submission is recorded in the sweep directory (module `queue`), so that a later
//! `sweep run` submits no case whose task is still queued.
//!
//! Signals (`docs/sweeps.md`; Slurm's documentation of `sbatch --signal`, `scancel` and
//! preemption is the reference):
//!
//! - The job script asks Slurm for SIGUSR1 `signal_margin` seconds before a task's time limit
//!   (`--signal=B:USR1@…`, sent to the batch script only) and allows requeueing
//!   (`--requeue`). The script `exec`s the case, so the signal reaches `mastersim` itself: the
//!   case stops at its next communication point, writes a checkpoint and its results so far,
//!   and requeues its own array task ([`requeue_this_task`]); when the task starts again, the
//!   case continues from the checkpoint.
//! - SIGTERM is a cancel (`scancel <job>_<k>` sends it to the batch script, then SIGKILL after
//!   the cluster's `KillWait`): the case stops with a checkpoint and does not requeue itself.
//!   Where Slurm preempts with `PreemptMode=REQUEUE`, Slurm sends the same SIGTERM and
//!   requeues the task itself; the case continues from its checkpoint when it starts again.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};
use crate::files::write_atomically;
use crate::plan::Plan;
use crate::queue::record_submission;
pub use crate::queue::{
    JOBS_SCHEMA, QueuedTask, Submission, jobs_path, queued_tasks, submissions, wait_until_done,
};

/// Options of [`submit`].
#[derive(Debug, Clone)]
pub struct SlurmOptions {
    /// The `mastersim` binary the tasks run (it must be reachable from the compute nodes).
    pub exe: PathBuf,
    /// At most this many tasks at a time (`--array=…%M`); `None`: as many as Slurm allows.
    pub max_parallel: Option<usize>,
    /// `--partition`, when given.
    pub partition: Option<String>,
    /// `--time` of each task, in Slurm's format (`30`, `2:00:00`, `1-0`), when given;
    /// otherwise the sweep's wall-time limit plus the margin, rounded up to minutes, or the
    /// partition's default.
    pub time: Option<String>,
    /// Seconds before the time limit at which Slurm sends the time-limit warning SIGUSR1
    /// (`--signal=B:USR1@…`). Slurm may send it up to a minute early.
    pub signal_margin: u32,
    /// Further `sbatch` options, each written as one `#SBATCH` line.
    pub extra: Vec<String>,
}

/// The array specification of `cases`: ranges of consecutive numbers (`0-3,5,7-11`), with
/// `%M` when at most `max_parallel` tasks may run at a time.
pub fn array_spec(cases: &[usize], max_parallel: Option<usize>) -> String {
    let mut spec = String::new();
    let mut i = 0;
    while i < cases.len() {
        let start = cases[i];
        let mut end = start;
        while i + 1 < cases.len() && cases[i + 1] == end + 1 {
            i += 1;
            end = cases[i];
        }
        if !spec.is_empty() {
            spec.push(',');
        }
        if end == start {
            let _ = write!(spec, "{start}");
        } else {
            let _ = write!(spec, "{start}-{end}");
        }
        i += 1;
    }
    if let Some(m) = max_parallel {
        let _ = write!(spec, "%{m}");
    }
    spec
}

/// `text` as one word for bash: in single quotes, with each `'` written as `'\''`.
pub fn shell_quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c))
    {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// `value` for an `#SBATCH` line: in double quotes when it holds a blank.
fn sbatch_value(value: &str) -> String {
    if value.contains(char::is_whitespace) {
        format!("\"{value}\"")
    } else {
        value.to_owned()
    }
}

/// The job script that runs `cases` of `plan` as one job array.
pub fn job_script(plan: &Plan, cases: &[usize], options: &SlurmOptions) -> String {
    let dir = plan.dir.display().to_string();
    let mut lines = vec![
        "#!/bin/bash".to_owned(),
        format!(
            "# mastersim sweep '{}': {} of its {} cases, written by `mastersim sweep run --executor slurm`.",
            plan.name,
            cases.len(),
            plan.cases.len()
        ),
        "# Task k runs case k in <sweep dir>/cases/k; its console output is cases/k/console.txt."
            .to_owned(),
        format!("#SBATCH --job-name={}", sbatch_value(&plan.name)),
        format!(
            "#SBATCH --array={}",
            array_spec(cases, options.max_parallel)
        ),
        format!(
            "#SBATCH --output={}",
            sbatch_value(&format!("{dir}/cases/%a/console.txt"))
        ),
        "#SBATCH --open-mode=append".to_owned(),
        format!("#SBATCH --chdir={}", sbatch_value(&dir)),
        "#SBATCH --ntasks=1".to_owned(),
        "#SBATCH --cpus-per-task=1".to_owned(),
        "#SBATCH --requeue".to_owned(),
        format!("#SBATCH --signal=B:USR1@{}", options.signal_margin),
    ];
    if let Some(partition) = &options.partition {
        lines.push(format!("#SBATCH --partition={}", sbatch_value(partition)));
    }
    let time = options.time.clone().or_else(|| {
        plan.wall_time_limit.map(|limit| {
            let seconds = limit + f64::from(options.signal_margin) + 60.0;
            format!("{}", (seconds / 60.0).ceil() as u64)
        })
    });
    if let Some(time) = time {
        lines.push(format!("#SBATCH --time={}", sbatch_value(&time)));
    }
    lines.extend(options.extra.iter().map(|o| format!("#SBATCH {o}")));
    // The task id is left to the shell, unquoted inside double quotes.
    let words = crate::command::case_words(Path::new(&dir), "$SLURM_ARRAY_TASK_ID");
    lines.push(format!(
        "exec {} {} {} {} \"{}\" {}",
        shell_quote(&options.exe.display().to_string()),
        words[0],
        words[1],
        shell_quote(&words[2]),
        words[3],
        crate::command::SLURM_REQUEUE
    ));
    lines.join("\n") + "\n"
}

/// Writes the job script of `cases` to `<dir>/slurm/job.sh`, submits it with `sbatch` (from
/// `PATH`) and records the submission in `<dir>/slurm/jobs.json` ([`queued_tasks`] reads
/// it). Returns the job id at once; [`wait_until_done`] waits for the tasks.
///
/// # Errors
/// [`Error::Io`] when the script or the record cannot be written; [`Error::Command`] when
/// `sbatch` cannot be started or refuses the job (with its message).
pub fn submit(plan: &Plan, cases: &[usize], options: &SlurmOptions) -> Result<String> {
    let folder = plan.dir.join("slurm");
    std::fs::create_dir_all(&folder).map_err(Error::io(&folder))?;
    let script = folder.join("job.sh");
    write_atomically(&script, job_script(plan, cases, options).as_bytes())?;
    let mut command = Command::new("sbatch");
    command.arg("--parsable").arg(&script);
    let shown = format!("sbatch {}", script.display());
    let output = command.output().map_err(|e| Error::Command {
        command: shown.clone(),
        message: format!("{e} (is Slurm installed and sbatch on PATH?)"),
    })?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let job = stdout
        .lines()
        .next()
        .and_then(|l| l.split(';').next())
        .map(str::trim)
        .filter(|id| !id.is_empty() && id.chars().all(|c| c.is_ascii_digit()));
    match job {
        Some(job) if output.status.success() => {
            let submission = Submission {
                job: job.to_owned(),
                array: array_spec(cases, None),
            };
            record_submission(&plan.dir, submission).map_err(|e| Error::Command {
                command: shown,
                message: format!(
                    "submitted as job {job}, but the job could not be recorded ({e}): run no \
                     `sweep run` of this sweep until `squeue -j {job}` shows nothing"
                ),
            })?;
            Ok(job.to_owned())
        }
        _ => Err(Error::Command {
            command: shown,
            message: format!(
                "exit status {}: {}",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            ),
        }),
    }
}

/// Requeues the array task this process runs in (`scontrol requeue <job>_<task>`, from the
/// environment Slurm sets), so that it starts again and continues from its checkpoint. Slurm
/// then ends this task as it ends a cancelled one (SIGTERM, then SIGKILL after `KillWait`), so
/// everything must be written before. Returns `Ok(false)` outside Slurm.
///
/// # Errors
/// [`Error::Command`] when `scontrol` cannot be run or refuses.
pub fn requeue_this_task() -> Result<bool> {
    let job = match (
        std::env::var("SLURM_ARRAY_JOB_ID"),
        std::env::var("SLURM_ARRAY_TASK_ID"),
        std::env::var("SLURM_JOB_ID"),
    ) {
        (Ok(job), Ok(task), _) => format!("{job}_{task}"),
        (_, _, Ok(job)) => job,
        _ => return Ok(false),
    };
    let shown = format!("scontrol requeue {job}");
    let output = Command::new("scontrol")
        .args(["requeue", &job])
        .output()
        .map_err(|e| Error::Command {
            command: shown.clone(),
            message: e.to_string(),
        })?;
    if output.status.success() {
        Ok(true)
    } else {
        Err(Error::Command {
            command: shown,
            message: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        })
    }
}
