//! Parameter sweeps and batches of mastersim runs.
//!
//! A sweep file ([`read_sweep_file`]) or a batch input ([`batch_plan`]) becomes a [`Plan`]:
//! numbered cases, each the base project (or SSP system, or FMU) with overrides in the `--set`
//! syntax; [`check_overrides`] checks every override name against the base before any case
//! starts. [`Plan::lay_out`] writes it to the sweep directory (`plan.json`, `cases.csv`, one
//! working directory `cases/<k>/` per case). Each case runs as `mastersim sweep case <dir> <k>`,
//! which leaves a [`CaseRecord`] (`case.json`) beside the run's usual files. The executors run
//! those commands: [`run_local`] as child processes on this machine, [`slurm::submit`] as a
//! Slurm job array, [`print_commands`] as lines for another scheduler. [`collect`] gathers
//! every case's outcome, counters and outputs into `sweep.csv` and `sweep.json`, and
//! [`write_junit`] a JUnit XML report. [`execute`] does a whole `sweep run` or `batch`;
//! [`run_case`] one `sweep case`, whose run the binary supplies (it ends in
//! `mastersim::run_to_end`, whose returned value the case's record is made from). The module
//! `command` is the one place that writes `mastersim`'s command grammar.
//!
//! Rerunning a sweep skips the cases that ran to their end with the same command line and
//! continues interrupted ones from their checkpoints (`docs/checkpoints.md`). No case runs
//! twice at once: every run holds its working directory ([`mastersim::WorkingDirLock`]), the
//! local executor starts no case another process holds ([`Held`]), and the Slurm executor
//! records its jobs and submits no case whose task Slurm still holds
//! ([`slurm::queued_tasks`]).
//!
//! The formats and commands are documented in `docs/sweeps.md`.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

/// Prints a line to stdout; a closed stdout is not an error (the sweep goes on).
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

mod case;
mod check;
mod collect;
mod command;
mod error;
mod execute;
mod files;
mod local;
mod plan;
mod queue;
pub mod slurm;
mod spec;
mod status;

use std::path::Path;

pub use case::{CaseOptions, run_case};
pub use check::check_overrides;
pub use collect::{CaseResult, Collection, OutputStats, SWEEP_JSON_SCHEMA, collect, write_junit};
pub use error::{Error, Result};
pub use execute::{ExecOptions, Executor, execute, report};
pub use local::{Ended, Held, KILL_GRACE, LocalOptions, LocalRun, run_local};
pub use plan::{Case, ColumnPlace, PLAN_SCHEMA, PLAN_VERSION, Plan, batch_plan};
pub use spec::{default_dir, read_sweep_file};
pub use status::{CaseRecord, Outcome};

/// The command lines of `cases` for another scheduler (the `print` executor), one per line:
/// `<exe> sweep case <dir> <k>`, quoted for a POSIX shell.
pub fn print_commands(plan: &Plan, cases: &[usize], exe: &Path) -> String {
    let exe = slurm::shell_quote(&exe.display().to_string());
    cases
        .iter()
        .map(|k| {
            let words = command::case_words(&plan.dir, &k.to_string());
            let quoted: Vec<String> = words.iter().map(|w| slurm::shell_quote(w)).collect();
            format!("{exe} {}\n", quoted.join(" "))
        })
        .collect()
}

#[cfg(test)]
mod tests;
