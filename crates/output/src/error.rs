//! The error type of the `output` crate.

use std::path::PathBuf;

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong while writing a result or log file.
///
/// Spec: mastersim STYLE §4 (one `thiserror` enum per crate, variants with context).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be created (missing directory, permissions, …).
    #[error("cannot create file '{}': {source}", path.display())]
    Create {
        /// The file that was to be created.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// Writing to (or flushing) an open file failed.
    #[error("cannot write to file '{}': {source}", path.display())]
    Write {
        /// The file being written.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// A row did not have one value per column.
    #[error("'{}': row has {found} values, but the file has {expected} columns", path.display())]
    ColumnCount {
        /// The file being written.
        path: PathBuf,
        /// Number of columns declared when the file was created (time column excluded).
        expected: usize,
        /// Number of values passed for the row.
        found: usize,
    },
}
