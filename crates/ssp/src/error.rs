//! The error of reading an SSP system: always the file, and where known the line and the
//! element.

use std::fmt;
use std::path::{Path, PathBuf};

/// Result alias of this crate.
pub type Result<T, E = SspError> = std::result::Result<T, E>;

/// What kind of problem an [`SspError`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The file breaks SSP, or refers to something that does not exist.
    Invalid,
    /// Valid SSP that mastersim does not run (clocks, single array elements on connections,
    /// components that are not FMUs, …): refused rather than ignored.
    Unsupported,
    /// A file could not be read or an archive not extracted.
    Io,
}

/// A problem with an SSP file: the file, the 1-based line and the element where known, and
/// what was expected.
///
/// Displayed as `file:line: element: message` (parts that are unknown are left out).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct SspError {
    /// The kind of problem.
    pub kind: ErrorKind,
    /// The `.ssp`, `.ssd`, `.ssv` or `.ssm` file.
    pub file: PathBuf,
    /// 1-based line of the element, when known.
    pub line: Option<usize>,
    /// The element, e.g. `Component 'engine'/Connector 'n'`, when known.
    pub element: Option<String>,
    /// What is wrong, and what was expected.
    pub message: String,
}

impl fmt::Display for SspError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(element) = &self.element {
            write!(f, ": {element}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl SspError {
    /// An [`ErrorKind::Invalid`] error at `line` of `file`, about `element`.
    pub(crate) fn at(
        file: &Path,
        line: usize,
        element: impl Into<String>,
        message: impl Into<String>,
    ) -> SspError {
        SspError {
            kind: ErrorKind::Invalid,
            file: file.to_path_buf(),
            line: Some(line),
            element: Some(element.into()),
            message: message.into(),
        }
    }

    /// An error about the whole of `file`.
    pub(crate) fn file(kind: ErrorKind, file: &Path, message: impl Into<String>) -> SspError {
        SspError {
            kind,
            file: file.to_path_buf(),
            line: None,
            element: None,
            message: message.into(),
        }
    }

    /// The same error, of kind [`ErrorKind::Unsupported`].
    pub(crate) fn unsupported(mut self) -> SspError {
        self.kind = ErrorKind::Unsupported;
        self
    }
}
