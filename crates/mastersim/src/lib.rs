#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod checkpoint;
mod console;
mod error;
mod exit;
mod options;
pub mod pacing;
mod recorder;
pub mod report;
mod results;
mod session;
pub mod steering;
mod supervise;

use std::path::Path;

pub use error::{Error, Result};
pub use master;
pub use master::project::ResultFormat;
pub use master::{
    Counters, Observer, ObserverError, OutputLayout, RunOutcome, Statistics, StepReport,
    TimeArithmetic, Value,
};
pub use options::{Options, StepTimeout, TimeoutHandler};
pub use recorder::{Recorder, Results};
pub use report::Ending;
pub use session::Session;
pub use steering::{RunState, Steering, SteeringError, SteeringStatus};

/// Runs the project `project` to the end under `options` and returns its result rows: opens a
/// [`Session`], records every row in memory, runs, and finishes (result files and
/// `log/summary.txt` are written as by the command-line program).
///
/// # Errors
/// As [`Session::open`], [`Session::run`] and [`Session::finish`]; the run's own error comes
/// first.
///
/// Spec: the block simulator's `simulate_unattended(experiment)`; FMPy's `simulate_fmu`.
pub fn simulate(project: impl AsRef<Path>, options: &Options) -> Result<Results> {
    let mut session = Session::open(project, options)?;
    let recorder = Recorder::new();
    session.add_observer(Box::new(recorder.clone()))?;
    let run = session.run();
    let finished = session.finish();
    run?;
    finished?;
    Ok(recorder.results())
}
