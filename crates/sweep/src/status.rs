//! The record a case leaves in its working directory, `case.json`: how its last attempt ended,
//! with which command line, after how long. A rerun of the sweep skips the cases whose record
//! says they ran to their end with the command line they have now.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::files::write_atomically;

/// How a case ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Ran to its stop time (exit code 0).
    Completed,
    /// Ended early on a slave's terminate request (exit code 0).
    Terminated,
    /// The run or its input failed (exit code 1 or 2, or a crash).
    Failed,
    /// Stopped by the sweep's wall-time limit, or an FMU call exceeded `--step-timeout`
    /// (exit code 124).
    TimedOut,
    /// Stopped by SIGTERM or SIGINT (exit code 143 or 130: a cancel, Ctrl-C, a stopped
    /// `sweep run`, Slurm's preemption), killed (SIGKILL), or stopped by the time-limit warning
    /// SIGUSR1 (exit code 138) where it could not requeue itself: continued from its
    /// checkpoint by the next run of the sweep (or by Slurm, where Slurm requeued it).
    Interrupted,
    /// Stopped by the time-limit warning SIGUSR1 under Slurm (exit code 138) after a
    /// checkpoint, with its array task requeued: Slurm starts it again and it continues from
    /// its checkpoint.
    Requeued,
    /// Its working directory is held by a running process right now (seen by `collect`; no
    /// case writes it).
    Running,
    /// No attempt has ended yet (no record; used by `collect`).
    NotRun,
}

impl Outcome {
    /// Whether the case ran to its end (completed or terminated): nothing left to do.
    pub fn is_success(self) -> bool {
        matches!(self, Outcome::Completed | Outcome::Terminated)
    }

    /// Whether the case continues from its checkpoint when it runs again (interrupted or
    /// requeued), or is still running: stopped, but not failed.
    pub fn is_unfinished(self) -> bool {
        matches!(
            self,
            Outcome::Interrupted | Outcome::Requeued | Outcome::Running
        )
    }

    /// The outcome of an exit code of `mastersim` (`docs/robustness.md`), given the
    /// `summary.json` outcome for code 0 (`Terminated` stays apart from `Completed`).
    pub fn from_exit_code(code: i32, summary_outcome: Option<&str>) -> Outcome {
        match code {
            0 if summary_outcome == Some("Terminated") => Outcome::Terminated,
            0 => Outcome::Completed,
            124 => Outcome::TimedOut,
            130 | 138 | 143 => Outcome::Interrupted,
            _ => Outcome::Failed,
        }
    }

    /// The outcome of a case's run that ended as `end` ([`Outcome::from_exit_code`], with a
    /// slave's terminate request apart from a completed run).
    pub fn of_run(end: &mastersim::RunEnd) -> Outcome {
        let terminated = matches!(end.ending, mastersim::Ending::Terminated { .. });
        Outcome::from_exit_code(i32::from(end.exit_code), terminated.then_some("Terminated"))
    }

    /// The snake-case name written to `case.json`, `sweep.csv` and `sweep.json`.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Completed => "completed",
            Outcome::Terminated => "terminated",
            Outcome::Failed => "failed",
            Outcome::TimedOut => "timed_out",
            Outcome::Interrupted => "interrupted",
            Outcome::Requeued => "requeued",
            Outcome::Running => "running",
            Outcome::NotRun => "not_run",
        }
    }
}

/// The content of `cases/<k>/case.json`, written by `mastersim sweep case` when an attempt
/// ends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseRecord {
    /// The case number.
    pub case: usize,
    /// The case's [`crate::Plan::case_key`] at the attempt: its base, overrides and options.
    pub key: Vec<String>,
    /// The `mastersim` command line of the attempt (without the program), to repeat it by
    /// hand.
    pub command: Vec<String>,
    /// How the attempt ended.
    pub outcome: Outcome,
    /// The exit code of the attempt.
    pub exit_code: i32,
    /// The error or the reason of the stop, when there is one.
    pub message: Option<String>,
    /// Wall time of all attempts since the case last started from its beginning, s.
    pub wall_seconds: f64,
    /// Attempts since the case last started from its beginning (resumed attempts included).
    pub attempts: u32,
}

impl CaseRecord {
    /// The record file in the case's working directory `case_dir`.
    pub fn path(case_dir: &Path) -> PathBuf {
        case_dir.join("case.json")
    }

    /// The record in `case_dir`, if there is a readable one.
    pub fn read(case_dir: &Path) -> Option<CaseRecord> {
        let bytes = std::fs::read(CaseRecord::path(case_dir)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Writes the record into `case_dir` (atomically).
    ///
    /// # Errors
    /// [`crate::Error::Io`] naming `case.json`.
    pub fn write(&self, case_dir: &Path) -> Result<()> {
        let json = serde_json::to_vec_pretty(self).expect("invariant: a record serializes");
        write_atomically(&CaseRecord::path(case_dir), &json)
    }
}
