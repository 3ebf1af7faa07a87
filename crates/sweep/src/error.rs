//! The error of reading a sweep, planning it, running its cases and collecting their results.

use std::path::PathBuf;

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong; every variant names the file it concerns.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read, written or created.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The sweep file breaks the format of `docs/sweeps.md`: `line` is 1-based where known.
    #[error("{}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    SweepFile {
        /// The sweep file (or the case table it names).
        path: PathBuf,
        /// 1-based line, where known.
        line: Option<usize>,
        /// What is wrong and what was expected.
        message: String,
    },
    /// A batch input (a directory or a list of projects) names nothing runnable.
    #[error("{}: {message}", path.display())]
    Batch {
        /// The directory or list file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The sweep directory holds no plan (`plan.json`), or one that cannot be read.
    #[error("{}: {message}", path.display())]
    Plan {
        /// The plan file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A case number outside the plan.
    #[error("case {case} does not exist: the sweep has {count} cases (0 to {})", count.saturating_sub(1))]
    NoSuchCase {
        /// The case asked for.
        case: usize,
        /// The number of cases.
        count: usize,
    },
    /// A command of the executor (`sbatch`, `scontrol`, the case process) could not be run or
    /// failed.
    #[error("{command}: {message}")]
    Command {
        /// The command line, shortened to its program and first arguments.
        command: String,
        /// What happened.
        message: String,
    },
}

impl Error {
    /// An [`Error::Io`] about `path`.
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }

    /// An [`Error::SweepFile`] about `path` at `line`.
    pub(crate) fn sweep_file(
        path: impl Into<PathBuf>,
        line: Option<usize>,
        message: impl Into<String>,
    ) -> Error {
        Error::SweepFile {
            path: path.into(),
            line,
            message: message.into(),
        }
    }
}
