//! A buffered text file that remembers its path, shared by all writers of this crate.

use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// Buffer size of the result writers (bytes).
const BUFFER_SIZE: usize = 64 * 1024;

/// A created file with a write buffer; I/O errors are reported with the file's path.
#[derive(Debug)]
pub(crate) struct TextFile {
    path: PathBuf,
    out: BufWriter<File>,
}

impl TextFile {
    /// Creates (or truncates) the file at `path`.
    pub(crate) fn create(path: &Path) -> Result<Self> {
        let file = File::create(path).map_err(|source| Error::Create {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(TextFile {
            path: path.to_path_buf(),
            out: BufWriter::with_capacity(BUFFER_SIZE, file),
        })
    }

    /// The path the file was created at.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `text` to the file.
    pub(crate) fn write(&mut self, text: &str) -> Result<()> {
        self.write_bytes(text.as_bytes())
    }

    /// Appends raw bytes to the file.
    pub(crate) fn write_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        self.out.write_all(bytes).map_err(|source| Error::Write {
            path: self.path.clone(),
            source,
        })
    }

    /// Writes buffered text to the operating system.
    pub(crate) fn flush(&mut self) -> Result<()> {
        self.out.flush().map_err(|source| Error::Write {
            path: self.path.clone(),
            source,
        })
    }
}
