//! `log/progress.txt`: simulation time, wall time and percentage, one line per output row.
//!
//! The file lets other programs (the MasterSim GUI, scripts) follow a running simulation.
//! Every field is right-aligned in 15 characters and the fields are separated by tabs.
//!
//! Spec: MasterSim reference §12.6.

use std::path::Path;

use crate::Result;
use crate::file::{OpenMode, TextFile};
use crate::number::{write_g, write_right_aligned};

/// Width of every field of `progress.txt` (bytes).
const FIELD_WIDTH: usize = 15;

/// Writer of `log/progress.txt`.
///
/// Output is buffered; call [`flush`](Self::flush) to make rows visible to readers of the
/// file before the writer is dropped.
///
/// Spec: MasterSim reference §12.6.
#[derive(Debug)]
pub struct ProgressWriter {
    file: TextFile,
    line: String,
}

impl ProgressWriter {
    /// Creates (truncates) the file at `path`; writes the header line only if `t_start == 0.0`.
    ///
    /// The header is `Simtime [s] `, `Realtime [s]` and `Percentage [%]`, each right-aligned
    /// in 15 characters, separated by tabs. MasterSim omits it for a non-zero start time
    /// (it was meant for restarts, which append to an existing file).
    ///
    /// Units: `t_start` in seconds.
    ///
    /// # Errors
    /// [`Error::Create`](crate::Error::Create) if the file cannot be created,
    /// [`Error::Write`](crate::Error::Write) if the header cannot be written.
    ///
    /// Spec: MasterSim reference §12.6 (header).
    pub fn create(path: impl AsRef<Path>, t_start: f64) -> Result<Self> {
        Self::open(path, t_start, None)
    }

    /// Continues the existing file at `path` after its first `len` bytes (a resumed run).
    ///
    /// # Errors
    /// [`Error::Read`](crate::Error::Read) when the file cannot be opened,
    /// [`Error::Mismatch`](crate::Error::Mismatch) when it is shorter than `len`.
    ///
    /// Spec: `docs/checkpoints.md` (result files of a resumed run).
    pub fn append(path: impl AsRef<Path>, len: u64) -> Result<Self> {
        Self::open(path, 0.0, Some(len))
    }

    fn open(path: impl AsRef<Path>, t_start: f64, append: Option<u64>) -> Result<Self> {
        let mode = append.map_or(OpenMode::Create, |len| OpenMode::Append { len });
        let mut file = TextFile::open(path.as_ref(), mode)?;
        if t_start == 0.0 && append.is_none() {
            let mut header = String::new();
            for (i, caption) in ["Simtime [s] ", "Realtime [s]", "Percentage [%]"]
                .into_iter()
                .enumerate()
            {
                if i > 0 {
                    header.push('\t');
                }
                write_right_aligned(&mut header, FIELD_WIDTH, |s| s.push_str(caption));
            }
            header.push('\n');
            file.write(&header)?;
        }
        Ok(ProgressWriter {
            file,
            line: String::with_capacity(64),
        })
    }

    /// Appends one line for an output row at simulation time `t`; nothing at `t == 0.0` exactly.
    ///
    /// The line holds `%.14g` of `t`, `%.7g` of `elapsed_wall_s` and `%.2g` of
    /// `t*100/t_end` (so `1e+02` at the end), each right-aligned in 15 characters, separated
    /// by tabs, e.g. `           0.14\t       0.000196\t            1.4`.
    ///
    /// Units: `t` and `t_end` in seconds of simulation time; `elapsed_wall_s` in seconds of
    /// wall-clock time since time stepping started.
    ///
    /// # Errors
    /// [`Error::Write`](crate::Error::Write) if writing fails.
    ///
    /// Spec: MasterSim reference §12.6 (rows).
    pub fn write_row(&mut self, t: f64, elapsed_wall_s: f64, t_end: f64) -> Result<()> {
        if t == 0.0 {
            return Ok(());
        }
        let percentage = t * 100.0 / t_end;
        self.line.clear();
        write_right_aligned(&mut self.line, FIELD_WIDTH, |s| write_g(s, t, 14));
        self.line.push('\t');
        write_right_aligned(&mut self.line, FIELD_WIDTH, |s| {
            write_g(s, elapsed_wall_s, 7)
        });
        self.line.push('\t');
        write_right_aligned(&mut self.line, FIELD_WIDTH, |s| write_g(s, percentage, 2));
        self.line.push('\n');
        self.file.write(&self.line)
    }

    /// Path of the file being written.
    ///
    /// Spec: MasterSim reference §12.6.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Writes all buffered lines to the file.
    ///
    /// # Errors
    /// [`Error::Write`](crate::Error::Write) if the operating system rejects the data.
    ///
    /// Spec: MasterSim reference §12.6.
    pub fn flush(&mut self) -> Result<()> {
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_rows() -> Result<()> {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("progress.txt");
        let mut w = ProgressWriter::create(&path, 0.0)?;
        w.write_row(0.0, 0.0, 10.0)?;
        w.write_row(0.14, 0.000196, 10.0)?;
        w.write_row(10.0, 0.0123456789, 10.0)?;
        w.flush()?;
        let expected = "   Simtime [s] \t   Realtime [s]\t Percentage [%]\n           \
                        0.14\t       0.000196\t            1.4\n             \
                        10\t     0.01234568\t          1e+02\n";
        assert_eq!(std::fs::read_to_string(&path).expect("read"), expected);
        Ok(())
    }

    #[test]
    fn no_header_for_non_zero_start_and_first_row_kept() -> Result<()> {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("progress.txt");
        let mut w = ProgressWriter::create(&path, 5.0)?;
        w.write_row(5.0, 0.0, 20.0)?;
        w.flush()?;
        let expected = "              5\t              0\t             25\n";
        assert_eq!(std::fs::read_to_string(&path).expect("read"), expected);
        Ok(())
    }
}
