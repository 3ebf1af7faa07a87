//! A buffered text file that remembers its path, shared by all writers of this crate.
//!
//! Besides creating a file, a writer can continue an existing one ([`OpenMode::Append`], cut
//! back to a length first) or check one ([`OpenMode::Verify`]): every write is then compared
//! with the bytes already in the file instead of being written, and the first difference is an
//! [`Error::Mismatch`] naming the line and, for tab-separated lines, the column. A resumed run
//! uses this to recompute rows already on file and to prove that they came out the same.

use std::fs::{File, OpenOptions};
use std::io::{BufRead as _, BufReader, BufWriter, Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// Buffer size of the result writers (bytes).
const BUFFER_SIZE: usize = 64 * 1024;

/// How a writer opens its file.
///
/// Spec: `docs/checkpoints.md` (result files of a resumed run).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    /// Create the file (replacing an existing one, see [`create_fresh`]) and write the
    /// header.
    Create,
    /// Continue an existing file: cut it back to `len` bytes (header included) and append.
    Append {
        /// Length the file is cut back to, bytes.
        len: u64,
    },
    /// Compare every write, header included, with the existing file instead of writing; see
    /// the module documentation. `end_verify` of the writer then switches to appending.
    Verify,
}

/// The existing file a verifying writer compares with.
#[derive(Debug)]
struct Verifier {
    reader: BufReader<File>,
    /// Bytes compared so far.
    offset: u64,
    /// Lines compared so far.
    lines: u64,
    /// The first line of the file (the column captions of a table), once read.
    header: Option<String>,
    /// Bytes read for the comparison of one write.
    found: Vec<u8>,
}

#[derive(Debug)]
enum Sink {
    Write(BufWriter<File>),
    Verify(Box<Verifier>),
}

/// Creates the file at `path` afresh, for writing: an existing file at `path` is removed
/// first (a symbolic link there is replaced, not followed), then a new, empty one is created.
///
/// Why not truncate: on ext4 (`auto_da_alloc`, its default), cutting a file with recently
/// written content to zero makes the kernel write that content out and wait for the disk
/// before the new content is written; on the project's machine that took about 3 ms per
/// file, against 0.1 ms for a removal and a creation. A reader sees the same as with a
/// truncation: no file or a partial one until the new content is written.
///
/// # Errors
/// The I/O error of the removal (other than "not found") or of the creation.
pub fn create_fresh(path: &Path) -> std::io::Result<File> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    File::create(path)
}

/// Writes `contents` to the file at `path`, replacing an existing one as [`create_fresh`]
/// does (`std::fs::write` without its truncation).
///
/// # Errors
/// As [`create_fresh`], and the error of the write.
pub fn write_fresh(path: &Path, contents: impl AsRef<[u8]>) -> std::io::Result<()> {
    create_fresh(path)?.write_all(contents.as_ref())
}

/// A created file with a write buffer; I/O errors are reported with the file's path.
#[derive(Debug)]
pub(crate) struct TextFile {
    path: PathBuf,
    sink: Sink,
}

/// Opens `path` for writing, cut back to `len` bytes, positioned at its end.
fn open_append(path: &Path, len: u64) -> Result<File> {
    let read_error = |source| Error::Read {
        path: path.to_path_buf(),
        source,
    };
    let mut file = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(read_error)?;
    let actual = file.metadata().map_err(read_error)?.len();
    if actual < len {
        return Err(Error::Mismatch {
            path: path.to_path_buf(),
            line: 0,
            column: None,
            detail: format!("the file has {actual} bytes, fewer than the {len} expected"),
        });
    }
    let write_error = |source| Error::Write {
        path: path.to_path_buf(),
        source,
    };
    file.set_len(len).map_err(write_error)?;
    file.seek(SeekFrom::End(0)).map_err(write_error)?;
    Ok(file)
}

impl TextFile {
    /// Opens the file at `path` in `mode`.
    pub(crate) fn open(path: &Path, mode: OpenMode) -> Result<Self> {
        let sink = match mode {
            OpenMode::Create => {
                let file = create_fresh(path).map_err(|source| Error::Create {
                    path: path.to_path_buf(),
                    source,
                })?;
                Sink::Write(BufWriter::with_capacity(BUFFER_SIZE, file))
            }
            OpenMode::Append { len } => Sink::Write(BufWriter::with_capacity(
                BUFFER_SIZE,
                open_append(path, len)?,
            )),
            OpenMode::Verify => {
                let file = File::open(path).map_err(|source| Error::Read {
                    path: path.to_path_buf(),
                    source,
                })?;
                Sink::Verify(Box::new(Verifier {
                    reader: BufReader::with_capacity(BUFFER_SIZE, file),
                    offset: 0,
                    lines: 0,
                    header: None,
                    found: Vec::new(),
                }))
            }
        };
        Ok(TextFile {
            path: path.to_path_buf(),
            sink,
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

    /// Appends raw bytes to the file (verifying: compares them with the file's next bytes).
    pub(crate) fn write_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        match &mut self.sink {
            Sink::Write(out) => out.write_all(bytes).map_err(|source| Error::Write {
                path: self.path.clone(),
                source,
            }),
            Sink::Verify(v) => v.compare(&self.path, bytes),
        }
    }

    /// Writes buffered text to the operating system (nothing when verifying).
    pub(crate) fn flush(&mut self) -> Result<()> {
        match &mut self.sink {
            Sink::Write(out) => out.flush().map_err(|source| Error::Write {
                path: self.path.clone(),
                source,
            }),
            Sink::Verify(_) => Ok(()),
        }
    }

    /// Ends verifying: cuts the file back to the bytes compared so far and appends from
    /// there. Returns that length (bytes). A file opened for writing only reports its length.
    pub(crate) fn end_verify(&mut self) -> Result<u64> {
        match &self.sink {
            Sink::Write(_) => {
                self.flush()?;
                std::fs::metadata(&self.path)
                    .map(|m| m.len())
                    .map_err(|source| Error::Read {
                        path: self.path.clone(),
                        source,
                    })
            }
            Sink::Verify(v) => {
                let len = v.offset;
                self.sink = Sink::Write(BufWriter::with_capacity(
                    BUFFER_SIZE,
                    open_append(&self.path, len)?,
                ));
                Ok(len)
            }
        }
    }
}

impl Verifier {
    /// Compares `expected` (what the writer would write) with the file's next bytes.
    fn compare(&mut self, path: &Path, expected: &[u8]) -> Result<()> {
        self.found.clear();
        let read = (&mut self.reader)
            .take(expected.len() as u64)
            .read_to_end(&mut self.found)
            .map_err(|source| Error::Read {
                path: path.to_path_buf(),
                source,
            })?;
        let line = self.lines + 1;
        if self.found != expected {
            let (column, detail) = if read < expected.len() && expected.starts_with(&self.found) {
                (None, "the file ends here".to_string())
            } else {
                self.describe(expected)
            };
            return Err(Error::Mismatch {
                path: path.to_path_buf(),
                line,
                column,
                detail,
            });
        }
        if self.header.is_none() {
            self.header = Some(first_line(expected));
        }
        self.offset += expected.len() as u64;
        self.lines += expected.iter().filter(|&&b| b == b'\n').count() as u64;
        Ok(())
    }

    /// Names the first differing tab-separated field of a line (its caption) and both values.
    fn describe(&mut self, expected: &[u8]) -> (Option<String>, String) {
        // Complete the file's line, so that the whole differing field shows.
        if !self.found.ends_with(b"\n") {
            let _ = self.reader.read_until(b'\n', &mut self.found);
        }
        let text = |b: &[u8]| String::from_utf8_lossy(b).trim_end().to_string();
        let (recomputed, found) = (text(expected), text(&self.found));
        let fields = |s: &str| s.split('\t').map(str::to_string).collect::<Vec<_>>();
        let (a, b) = (fields(&recomputed), fields(&found));
        let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) else {
            return (
                None,
                format!("recomputed '{recomputed}', the file has '{found}'"),
            );
        };
        let caption = self
            .header
            .as_deref()
            .and_then(|h| h.split('\t').nth(i))
            .map_or_else(|| format!("column {}", i + 1), |c| c.trim().to_string());
        let at = a.first().map_or(String::new(), |t| format!(" at time {t}"));
        let detail = format!(
            "{caption}{at}: recomputed {}, the file has {}",
            a.get(i).map_or("nothing", String::as_str),
            b.get(i).map_or("nothing", String::as_str)
        );
        (Some(caption), detail)
    }
}

/// The first line of `bytes`, without its newline.
fn first_line(bytes: &[u8]) -> String {
    let end = bytes
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file written afresh holds exactly the new content, whether it replaced a longer
    /// file or none, and is a new file (another name for the old one keeps the old content).
    #[test]
    fn a_fresh_file_replaces_the_old_one_whole() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let path = tmp.path().join("summary.txt");
        write_fresh(&path, "a first, longer content\n").expect("first write");
        let other_name = tmp.path().join("kept.txt");
        std::fs::hard_link(&path, &other_name).expect("second name");
        write_fresh(&path, "short\n").expect("second write");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "short\n");
        assert_eq!(
            std::fs::read_to_string(&other_name).expect("read"),
            "a first, longer content\n"
        );
        let mut file = create_fresh(&tmp.path().join("new.txt")).expect("no file before");
        file.write_all(b"x").expect("write");
    }

    /// A path that cannot be replaced is an error, not a panic.
    #[test]
    fn a_path_in_a_missing_folder_is_an_error() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let error =
            write_fresh(&tmp.path().join("missing").join("a.txt"), "x").expect_err("no folder");
        assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
    }
}
