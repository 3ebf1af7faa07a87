//! `mastersim sweep run|case|collect` and `mastersim batch`: the command line of crate
//! `sweep` (docs/sweeps.md), which does the work ([`sweep::execute`], [`sweep::run_case`]). A
//! case runs in-process as the binary's own run ([`crate::launch`], ending in
//! [`mastersim::run_to_end`]) with typed options: the sweep's options read with the grammar of
//! a run, then the case's working directory, overrides, threads and checkpointing.
//!
//! Exit codes: 0 every case ran to its end; 1 a case failed, timed out, was interrupted, is
//! still running or queued, or has not run (named on stderr); 2 a bad sweep file, batch input
//! or option, or the sweep directory is in use by another `sweep run`; 130/143 the local
//! executor was stopped by SIGINT/SIGTERM (rerun the sweep to continue). `sweep case` exits
//! with its run's code (0 when the case had already completed, 2 when another process runs
//! it, 138 when the time-limit warning SIGUSR1 stopped it).

use std::path::PathBuf;

use clap::{Parser as _, Subcommand};
use mastersim::run::INPUT_ERROR;
use mastersim::{Interrupt, Options, RunEnd};
use sweep::{Case, ExecOptions, Plan};

use crate::{Args, Cli};

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
        exec: ExecOptions,
    },
    /// Run case K of a sweep, as the executors do: skipped when it has completed, continued
    /// from its checkpoint when it was interrupted, else run from the start.
    Case(sweep::CaseOptions),
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

/// Arguments of `mastersim batch`.
#[derive(Debug, clap::Args)]
pub struct BatchArgs {
    /// A directory (its .msim, .ssp, .ssd and .fmu files and SSP folders) or a text file
    /// listing one project per line (relative to the file; # starts a comment).
    input: PathBuf,
    #[command(flatten)]
    exec: ExecOptions,
    /// Further mastersim options for every project, after `--` (e.g. `-- --result-format mat`).
    #[arg(last = true, value_name = "OPTIONS")]
    options: Vec<String>,
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
                Ok(plan) => sweep::execute(plan, exec, &check_case_options),
                Err(e) => input_error(&e),
            }
        }
        SweepCommand::Case(case) => sweep::run_case(case, &run_case),
        SweepCommand::Collect { dir, junit } => match sweep::collect(dir) {
            Ok(collection) => sweep::report(&collection, junit.as_deref()),
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
        Ok(plan) => sweep::execute(plan, &args.exec, &check_case_options),
        Err(e) => input_error(&e),
    }
}

/// The run of `case`: the plan's options read with the grammar of a run (`mastersim <base>
/// <options>`), then the case's own settings as typed options: its working directory, its
/// overrides before the `--set`s of the options, one thread unless the options choose, the
/// plan's checkpoint interval, and `resume`.
///
/// # Errors
/// A run refused with exit code 2: the options are no valid command line (the first line of
/// the parser's message), or out of range.
fn case_run(plan: &Plan, case: &Case, resume: bool) -> Result<(Args, Options), RunEnd> {
    let mut args = case_args(plan, case).map_err(|message| RunEnd::failed(INPUT_ERROR, message))?;
    args.resume |= resume;
    let mut options = crate::options(&args)?;
    options.working_dir = Some(plan.case_dir(case.index));
    options.overrides = case
        .overrides
        .iter()
        .cloned()
        .chain(options.overrides)
        .collect();
    if !plan.chooses_threads() {
        options.threads = Some(1);
    }
    if plan.checkpoint_interval.is_some() {
        options.checkpoint_interval = plan.checkpoint_interval;
    }
    Ok((args, options))
}

/// The plan's options for `case`, read with the grammar of a run.
///
/// # Errors
/// The first line of the parser's message.
fn case_args(plan: &Plan, case: &Case) -> Result<Args, String> {
    let words = ["mastersim".to_owned(), case.base.display().to_string()];
    Cli::try_parse_from(words.into_iter().chain(plan.options.iter().cloned()))
        .map(|cli| cli.run)
        .map_err(|e| e.to_string().lines().next().unwrap_or_default().to_owned())
}

/// Checks the options of the first case of `plan` with the grammar of a run.
fn check_case_options(plan: &Plan) -> Result<(), String> {
    plan.cases
        .first()
        .map_or(Ok(()), |case| case_args(plan, case).map(drop))
}

/// Runs `case` of `plan` in this process as `mastersim` runs a project.
fn run_case(plan: &Plan, case: &Case, resume: bool, interrupt: Option<&Interrupt>) -> RunEnd {
    match case_run(plan, case, resume) {
        Ok((args, options)) => crate::reported(crate::launch(&args, &options, interrupt)),
        Err(end) => {
            input_error(&end.message.clone().unwrap_or_default());
            end
        }
    }
}
