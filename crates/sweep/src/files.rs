//! Paths and file writes shared by the plan, the records and the collection.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// `path` made absolute (from the current directory) with its `.` and `..` components
/// resolved lexically, so that the same place always reads the same.
///
/// # Errors
/// [`Error::Io`] when the current directory is unknown.
pub(crate) fn absolute(path: &Path) -> Result<PathBuf> {
    let path = std::path::absolute(path).map_err(Error::io(path))?;
    let mut clean = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                clean.pop();
            }
            other => clean.push(other),
        }
    }
    Ok(clean)
}

/// `path` relative to the directory `base` (both absolute and clean), with `..` where it lies
/// outside `base`.
pub(crate) fn relative(path: &Path, base: &Path) -> PathBuf {
    let path_parts: Vec<_> = path.components().collect();
    let base_parts: Vec<_> = base.components().collect();
    let common = path_parts
        .iter()
        .zip(&base_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut out: PathBuf = base_parts[common..].iter().map(|_| "..").collect();
    out.extend(&path_parts[common..]);
    out
}

/// Writes `bytes` to `path` through a temporary file renamed over it, so that a reader (or a
/// process killed meanwhile) sees the old file or the new one, never a part.
///
/// # Errors
/// [`Error::Io`] naming `path`.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes).map_err(Error::io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(Error::io(path))
}
