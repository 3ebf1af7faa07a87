//! The error type of the `mastersim` library.
//!
//! Every variant names what failed: the project or FMU error of the master, the file a result
//! writer could not write, the option that is out of range.

use std::path::PathBuf;

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong while opening, running or finishing a session.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The project, an FMU, a table or the simulation (a slave call, the step control, an
    /// observer) failed.
    #[error(transparent)]
    Master(#[from] master::Error),
    /// Initializing the slaves failed.
    #[error("initialization failed: {0}")]
    Initialization(#[source] master::Error),
    /// A result file could not be created or written.
    #[error(transparent)]
    Output(#[from] output::Error),
    /// A file or directory could not be created, read or written.
    #[error("cannot {action} '{}': {source}", path.display())]
    Io {
        /// What was attempted (e.g. "create the working directory").
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The project file (or FMU) does not exist.
    #[error("'{}' doesn't exist, expected a project file (.msim), an FMU (.fmu) or an SSP system (.ssp, .ssd or a folder with SystemStructure.ssd)", path.display())]
    ProjectNotFound {
        /// The path given.
        path: PathBuf,
    },
    /// The path given as the project file exists but is not a regular file (a named pipe, a
    /// device).
    #[error("'{}' {problem}; expected a project file (.msim), an FMU (.fmu) or an SSP system", path.display())]
    ProjectNotAFile {
        /// The path given.
        path: PathBuf,
        /// What it is: "is not a regular file (a named pipe)" and the like.
        problem: String,
    },
    /// The path given as the project file is a directory without `SystemStructure.ssd`.
    #[error("'{}' is a directory without SystemStructure.ssd; expected a project file (.msim), an FMU (.fmu) or an SSP system", path.display())]
    ProjectIsDirectory {
        /// The path given.
        path: PathBuf,
    },
    /// The path given as the project is a file of a kind mastersim does not read (a
    /// Markdown file, a table): refused before anything is created.
    #[error("'{}' is not a project: expected a MasterSim project (.msim), an FMU (.fmu) or an SSP system (.ssp, .ssd or a folder with SystemStructure.ssd)", path.display())]
    UnknownInput {
        /// The path given.
        path: PathBuf,
    },
    /// An SSP system could not be read (names the file, line and element).
    #[error(transparent)]
    Ssp(#[from] ssp::SspError),
    /// A project cannot be written as a `.msim` file (`mastersim convert`, `--write-msim`):
    /// it uses what the format cannot state.
    #[error("cannot write '{}': a .msim project cannot state {features}", path.display())]
    NotInMsim {
        /// The `.msim` file asked for.
        path: PathBuf,
        /// What cannot be stated, each with its SSD file and line.
        features: String,
    },
    /// A path given as an FMU that is none ([`crate::describe::read`]): a directory or a
    /// project.
    #[error("'{}' {problem}", path.display())]
    NotAnFmu {
        /// The path.
        path: PathBuf,
        /// What it is instead, and what was expected.
        problem: String,
    },
    /// An FMU that cannot be read ([`crate::describe::read`]).
    #[error(transparent)]
    Fmi(#[from] fmi::Error),
    /// A variable pattern of [`crate::describe::select`] that is no valid glob and names no
    /// variable.
    #[error("invalid variable pattern '{pattern}': {problem}")]
    InvalidPattern {
        /// The pattern as given.
        pattern: String,
        /// What is wrong with it as a glob.
        problem: String,
    },
    /// An option value out of its range.
    #[error("option {option} = {value}: expected {expected}")]
    InvalidOption {
        /// The option (field of [`crate::Options`]).
        option: &'static str,
        /// The value given.
        value: String,
        /// What is allowed.
        expected: &'static str,
    },
    /// A thread of the session could not be started.
    #[error("cannot start the thread {name}: {source}")]
    Thread {
        /// The thread's name.
        name: &'static str,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A checkpoint cannot be resumed from: missing, corrupt or truncated, written by an
    /// incompatible format, or the project, an FMU archive or a GUID changed since.
    #[error("cannot resume from checkpoint '{}': {problem}", path.display())]
    Checkpoint {
        /// The checkpoint file.
        path: PathBuf,
        /// What is wrong, and what to do about it.
        problem: String,
    },
    /// A resumed run could not reach its checkpoint as the interrupted run did: a replayed
    /// slave is not deterministic, or the result files do not hold the rows recomputed.
    #[error("resume failed: {0}")]
    Resume(String),
    /// Another run holds the working directory (see [`crate::WorkingDirLock`]).
    #[error(
        "the working directory '{}' is in use by another run of mastersim ({holder}); wait for \
         it to end, or give this run another working directory",
        dir.display()
    )]
    WorkingDirectoryLocked {
        /// The working directory.
        dir: PathBuf,
        /// Who holds it: process id, host, start time and command line, as the holder wrote
        /// them into the lock file.
        holder: String,
    },
    /// A `summary.json` that is not valid JSON of the summary's layout.
    #[error("'{}' is not a mastersim summary: {problem}", path.display())]
    SummaryJson {
        /// The file.
        path: PathBuf,
        /// What is wrong, with line and column.
        problem: String,
    },
    /// A result writer thread ended without finishing its files.
    #[error("the result writer thread {name} {reason}")]
    Writer {
        /// The thread's name.
        name: &'static str,
        /// What happened ("panicked", "ended early").
        reason: &'static str,
    },
}

impl Error {
    /// The message and all its causes on one line, `: `-separated, each cause once (several
    /// errors of the master and of `fmi` already include their source in their own message).
    pub fn chain_text(&self) -> String {
        let mut text = self.to_string();
        let mut source = std::error::Error::source(self);
        while let Some(cause) = source {
            let cause_text = cause.to_string();
            if !text.contains(&cause_text) {
                text.push_str(": ");
                text.push_str(&cause_text);
            }
            source = cause.source();
        }
        text
    }
}
