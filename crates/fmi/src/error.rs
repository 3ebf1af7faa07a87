//! The error type of the `fmi` crate.

use std::path::PathBuf;

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A failing FMI status other than Discard.
///
/// Spec: FMI 2.0.2 §2.1.3 (`fmi2Status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureStatus {
    /// `fmi2Error`: the call failed; the instance may be restored from an FMU state.
    Error,
    /// `fmi2Fatal`: the instance (and possibly all instances of the FMU) is unusable.
    Fatal,
    /// `fmi2Pending`: an asynchronous `doStep` is still running (not supported here).
    Pending,
    /// A status code outside the standard's range.
    Unknown(i32),
}

/// Everything that can go wrong when importing or calling an FMU.
///
/// Each variant names the file, instance or FMI function involved.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// File or directory concerned.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// Placeholder for variants the implementation adds. (Removed by the fmi helper.)
    #[error("not implemented")]
    Todo,
}
