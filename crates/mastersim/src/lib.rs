#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod checkpoint;
mod console;
pub mod describe;
mod error;
mod exit;
mod input;
pub mod interrupt;
mod lock;
pub mod logging;
mod options;
pub mod pacing;
mod prepare;
mod recorder;
pub mod report;
mod results;
pub mod run;
mod session;
pub mod steering;
mod supervise;

use std::path::Path;

pub use error::{Error, Result};
pub use input::InputKind;
pub use interrupt::Interrupt;
pub use lock::{LOCK_FILE, WorkingDirLock};
pub use master;
pub use master::project::ResultFormat;
pub use master::{
    Counters, Observer, ObserverError, OutputLayout, RunOutcome, Statistics, StepReport,
    TimeArithmetic, Value, Variable,
};
pub use options::{Options, StepTimeout, TimeoutHandler};
pub use prepare::{Loaded, check, load, load_project, start_first_helper};
pub use recorder::{Recorder, Results};
pub use report::Ending;
pub use results::RowsOnDisk;
pub use run::{Control, RunEnd, run_to_end};
pub use session::{Session, StreamingCsv};
pub use steering::{RunState, Steering, SteeringError, SteeringStatus};

/// True when `path` is an SSP system: an `.ssp` or `.ssd` file, or a folder with
/// `SystemStructure.ssd`.
///
/// Spec: SSP 1.0 §8 (packaging).
pub fn is_ssp(path: &Path) -> bool {
    ssp::is_ssp(path)
}

/// The file a run of `path` reads: an SSP folder's `SystemStructure.ssd`, else `path` itself.
/// The working directory and messages follow from it (an SSP folder's results go to its
/// `SystemStructure/` folder, as for the `.ssd` given directly).
///
/// Spec: SSP 1.0 §8 (the `.ssp` package and its `SystemStructure.ssd`).
pub fn run_input(path: &Path) -> std::path::PathBuf {
    let ssd = path.join(ssp::SSD_NAME);
    if path.is_dir() && ssd.is_file() {
        ssd
    } else {
        path.to_path_buf()
    }
}

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
