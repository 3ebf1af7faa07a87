//! Reading an input file whole, with the limits a hostile path calls for: project files,
//! SSP files, tables and result files.
//!
//! The file is opened without waiting (`O_NONBLOCK`: opening a named pipe for reading would
//! otherwise block the run, deaf to SIGTERM, until a writer comes), and anything but a regular
//! file (a pipe, a device, a directory, a socket) is refused before a byte is read. A file
//! larger than the caller's limit is refused by its size, and no more than the limit is ever
//! read, so a file that grows while it is read cannot exhaust memory either. The limits are far
//! beyond real files of each kind ([`PROJECT_LIMIT`], [`TABLE_LIMIT`]).
//!
//! Refusals are [`InputError`]s; they convert into [`std::io::Error`]s (kind `InvalidInput`)
//! whose text says what was found, so a caller can report them as it reports a file it cannot
//! read.

use std::io::Read as _;
use std::os::unix::fs::{FileTypeExt as _, OpenOptionsExt as _};
use std::path::Path;

/// Largest text file describing a system (a `.msim` project, an `.ssd`, `.ssv` or `.ssm`
/// file): 256 MiB. Real ones have a few kilobytes to a few megabytes.
pub const PROJECT_LIMIT: u64 = 256 << 20;

/// Largest data file read whole (an input table, a result file opened by `view` or `plot`):
/// 16 GiB, beyond any table a simulation reads and near what this machine class can hold.
pub const TABLE_LIMIT: u64 = 16 << 30;

/// `O_NONBLOCK` of Linux.
const O_NONBLOCK: i32 = 0o4000;

/// Why an input file was not read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// The path is not a regular file; nothing was read.
    #[error("not a regular file ({kind}); expected a file")]
    NotAFile {
        /// What it is, in words (see [`file_kind`]).
        kind: &'static str,
    },
    /// The file is larger than the limit.
    #[error("{}, more than the {limit} bytes a file of this kind may have", match size {
        Some(size) => format!("the file has {size} bytes"),
        None => "the file grew while it was read".to_owned(),
    })]
    TooLarge {
        /// Its size, bytes; `None` when reading passed the limit (it grew meanwhile).
        size: Option<u64>,
        /// The limit, bytes.
        limit: u64,
    },
    /// The operating system's error opening or reading it.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl From<InputError> for std::io::Error {
    fn from(error: InputError) -> Self {
        match error {
            InputError::Io(e) => e,
            other => std::io::Error::new(std::io::ErrorKind::InvalidInput, other.to_string()),
        }
    }
}

/// The bytes of the regular file at `path`, at most `limit` of them (see the module
/// documentation).
///
/// # Errors
/// [`InputError::Io`] when the file cannot be opened or read, [`InputError::NotAFile`] when
/// it is not a regular file, [`InputError::TooLarge`] beyond `limit`.
pub fn read(path: &Path, limit: u64) -> Result<Vec<u8>, InputError> {
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(O_NONBLOCK)
        .open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(InputError::NotAFile {
            kind: file_kind(&metadata.file_type()),
        });
    }
    if metadata.len() > limit {
        return Err(InputError::TooLarge {
            size: Some(metadata.len()),
            limit,
        });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    (&mut file)
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(InputError::TooLarge { size: None, limit });
    }
    Ok(bytes)
}

/// Why `path` cannot be read as a regular file, for a message about it: "does not exist", or
/// "is not a regular file (a named pipe)" and the like. Asks the file system without opening
/// the path.
pub fn why_not_a_file(path: &Path) -> String {
    match std::fs::metadata(path) {
        Ok(metadata) if metadata.is_file() => "is a file".to_owned(),
        Ok(metadata) => format!(
            "is not a regular file ({})",
            file_kind(&metadata.file_type())
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "does not exist".to_owned(),
        Err(e) => format!("cannot be read ({e})"),
    }
}

/// What a file that is not a regular file is, in words ("a named pipe", …).
pub fn file_kind(file_type: &std::fs::FileType) -> &'static str {
    if file_type.is_dir() {
        "a directory"
    } else if file_type.is_char_device() {
        "a character device"
    } else if file_type.is_block_device() {
        "a block device"
    } else if file_type.is_fifo() {
        "a named pipe"
    } else if file_type.is_socket() {
        "a socket"
    } else {
        "neither a file nor a directory"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_are_read_and_the_rest_refused() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let file = tmp.path().join("p.msim");
        std::fs::write(&file, "tEnd 1 s\n").expect("write");
        assert_eq!(read(&file, 100).expect("read"), b"tEnd 1 s\n");
        let error = read(&file, 4).expect_err("too large");
        assert!(
            error.to_string().contains("9 bytes, more than the 4"),
            "{error}"
        );
        let error = read(tmp.path(), 100).expect_err("a directory");
        assert!(error.to_string().contains("a directory"), "{error}");
        let error = read(Path::new("/dev/zero"), 100).expect_err("a device");
        assert!(error.to_string().contains("a character device"), "{error}");
        let fifo = tmp.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo");
        assert!(made.success());
        // Returns at once: the open does not wait for a writer.
        let error = read(&fifo, 100).expect_err("a pipe");
        assert!(error.to_string().contains("a named pipe"), "{error}");
        let missing =
            std::io::Error::from(read(&tmp.path().join("missing"), 100).expect_err("missing"));
        assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
    }
}
