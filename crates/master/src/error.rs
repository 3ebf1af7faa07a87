//! The error type of the `master` crate. (SKELETON: extended by the master author.)

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can end a mastersim run with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The project file is invalid.
    #[error(transparent)]
    Project(#[from] crate::project::ProjectError),
    /// A file-reader table is invalid.
    #[error(transparent)]
    Table(#[from] crate::file_reader::TableError),
    /// An FMI call or FMU import failed.
    #[error("slave '{slave}': {source}")]
    Fmi {
        /// Slave (or FMU file) concerned.
        slave: String,
        /// The underlying error.
        source: fmi::Error,
    },
    /// A batched get/set was called with slices of different lengths.
    #[error("slave '{slave}': {function} called with {values} values for {vrs} value references")]
    LengthMismatch {
        /// Slave concerned.
        slave: String,
        /// Function name.
        function: &'static str,
        /// Number of value references.
        vrs: usize,
        /// Number of values.
        values: usize,
    },
    /// A saved state id that the slave does not know.
    #[error("slave '{slave}': unknown saved state #{id}")]
    UnknownState {
        /// Slave concerned.
        slave: String,
        /// The state id.
        id: usize,
    },
}
