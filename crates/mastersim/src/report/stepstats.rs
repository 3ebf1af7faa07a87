//! `log/stepstats.tsv`: one line of counters per completed master step (verbosity ≥ 2), a
//! view of the run's [`Counters`].
//!
//! Every field is left-aligned in a fixed width and followed by a tab; numbers use `%g`
//! (six significant digits). The header has the same widths but no tab after its last
//! caption, while data lines end with a tab before the newline, as in MasterSim.
//!
//! Spec: MasterSim reference §12.7.

use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};

use master::Counters;
use output::number::{DEFAULT_PRECISION, write_g, write_left_aligned, write_u64};

use crate::{Error, Result};

/// Column captions and their widths (bytes), in file order.
const COLUMNS: [(&str, usize); 11] = [
    ("Time [s]", 14),
    ("Steps", 10),
    ("StepSize [s]", 14),
    ("AlgorithmCalls", 18),
    ("ErrorTestFails", 18),
    ("ConvergenceFails", 18),
    ("Iterations", 12),
    ("IterLimitExceeded", 18),
    ("FMUErrors", 12),
    ("ErrorNormRichardson", 18),
    ("ErrorNormSlopeCheck", 18),
];

/// Writer of `log/stepstats.tsv`.
///
/// Output is buffered; call [`flush`](Self::flush) at the end of the run.
///
/// Spec: MasterSim reference §12.7.
#[derive(Debug)]
pub struct StepStatsWriter {
    path: PathBuf,
    file: BufWriter<File>,
    line: String,
    /// Widths of the per-slave `doStep` columns (multi-rate runs; empty otherwise).
    slave_widths: Vec<usize>,
}

impl StepStatsWriter {
    /// Creates the file at `path` (replacing one, [`output::create_fresh`]) and writes the
    /// header line. `slaves` names the slaves of a multi-rate run, each of which gets a column
    /// `doStep:<slave>` with its number of `doStep` calls after the MasterSim columns; it is
    /// empty for other runs, whose file is MasterSim's.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file when it cannot be created or written.
    ///
    /// Spec: MasterSim reference §12.7 (header); the per-slave columns are mastersim's own.
    pub fn create(path: &Path, slaves: &[String]) -> Result<Self> {
        Self::open(path, slaves, None)
    }

    /// As [`StepStatsWriter::create`], or with `append = Some(len)` continuing the existing
    /// file after its first `len` bytes (a resumed run; no header is written).
    ///
    /// # Errors
    /// [`Error::Io`] naming the file when it cannot be opened, cut back or written.
    pub fn open(path: &Path, slaves: &[String], append: Option<u64>) -> Result<Self> {
        let io = |action, source| Error::Io {
            action,
            path: path.to_path_buf(),
            source,
        };
        let file = match append {
            None => output::create_fresh(path).map_err(|e| io("create", e))?,
            Some(len) => {
                let mut file = std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .map_err(|e| io("open", e))?;
                file.set_len(len)
                    .and_then(|()| std::io::Seek::seek(&mut file, std::io::SeekFrom::End(0)))
                    .map_err(|e| io("cut back", e))?;
                file
            }
        };
        let mut header = String::with_capacity(256);
        for (i, (caption, width)) in COLUMNS.into_iter().enumerate() {
            if i > 0 {
                header.push('\t');
            }
            write_left_aligned(&mut header, width, |s| s.push_str(caption));
        }
        let mut slave_widths = Vec::with_capacity(slaves.len());
        for name in slaves {
            let caption = format!("doStep:{name}");
            let width = (caption.len() + 2).max(12);
            header.push('\t');
            write_left_aligned(&mut header, width, |s| s.push_str(&caption));
            slave_widths.push(width);
        }
        header.push('\n');
        let mut writer = StepStatsWriter {
            path: path.to_path_buf(),
            file: BufWriter::new(file),
            line: String::with_capacity(256),
            slave_widths,
        };
        if append.is_none() {
            writer.write_line(&header)?;
        }
        Ok(writer)
    }

    fn write_line(&mut self, line: &str) -> Result<()> {
        self.file
            .write_all(line.as_bytes())
            .map_err(|source| self.io_error(source))
    }

    fn io_error(&self, source: std::io::Error) -> Error {
        Error::Io {
            action: "write",
            path: self.path.clone(),
            source,
        }
    }

    /// Appends the line of the step that `c` describes (its time, step size and counters so
    /// far), then, in a multi-rate run, each slave's `doStep` calls so far from `do_step_calls`
    /// (one per slave of [`StepStatsWriter::create`]); each field is followed by a tab.
    ///
    /// Units: times and step sizes in seconds; norms are dimensionless.
    ///
    /// # Errors
    /// [`Error::Io`] if writing fails.
    ///
    /// Spec: MasterSim reference §12.7 (rows).
    pub fn write_row(&mut self, c: &Counters, do_step_calls: &[u64]) -> Result<()> {
        enum Field {
            Real(f64),
            Count(u64),
        }
        let fields = [
            Field::Real(c.t),
            Field::Count(c.steps),
            Field::Real(c.h),
            Field::Count(c.algorithm_calls),
            Field::Count(c.error_test_fails),
            Field::Count(c.convergence_fails),
            Field::Count(c.iterations),
            Field::Count(c.iteration_limit_exceeded),
            Field::Count(c.fmu_errors),
            Field::Real(c.error_norms.0),
            Field::Real(c.error_norms.1),
        ];
        self.line.clear();
        for (field, (_, width)) in fields.into_iter().zip(COLUMNS) {
            write_left_aligned(&mut self.line, width, |s| match field {
                Field::Real(v) => write_g(s, v, DEFAULT_PRECISION),
                Field::Count(n) => write_u64(s, n),
            });
            self.line.push('\t');
        }
        for (&calls, &width) in do_step_calls.iter().zip(&self.slave_widths) {
            write_left_aligned(&mut self.line, width, |s| write_u64(s, calls));
            self.line.push('\t');
        }
        self.line.push('\n');
        let line = std::mem::take(&mut self.line);
        let written = self.write_line(&line);
        self.line = line;
        written
    }

    /// Writes all buffered lines to the file.
    ///
    /// # Errors
    /// [`Error::Io`] if the operating system rejects the data.
    ///
    /// Spec: MasterSim reference §12.7.
    pub fn flush(&mut self) -> Result<()> {
        self.file.flush().map_err(|source| self.io_error(source))
    }

    /// Flushes and returns the file's length, bytes (for a checkpoint).
    ///
    /// # Errors
    /// [`Error::Io`] if flushing or reading the length fails.
    pub fn file_len(&mut self) -> Result<u64> {
        self.flush()?;
        self.file
            .get_ref()
            .metadata()
            .map(|m| m.len())
            .map_err(|source| self.io_error(source))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_row_layout() -> Result<()> {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("stepstats.tsv");
        let mut w = StepStatsWriter::create(&path, &[])?;
        w.write_row(
            &Counters {
                t: 0.1,
                steps: 1,
                h: 0.1,
                algorithm_calls: 3,
                iterations: 2,
                error_norms: (0.000123456789, 1.0),
                ..Counters::default()
            },
            &[],
        )?;
        w.flush()?;
        let text = std::fs::read_to_string(&path).expect("read");
        let expected = "Time [s]      \tSteps     \tStepSize [s]  \tAlgorithmCalls    \t\
                        ErrorTestFails    \tConvergenceFails  \tIterations  \t\
                        IterLimitExceeded \tFMUErrors   \tErrorNormRichardson\tErrorNormSlopeCheck\n\
                        0.1           \t1         \t0.1           \t3                 \t\
                        0                 \t0                 \t2           \t\
                        0                 \t0           \t0.000123457       \t1                 \t\n";
        assert_eq!(text, expected);
        Ok(())
    }

    #[test]
    fn multirate_runs_get_a_do_step_column_per_slave() -> Result<()> {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("stepstats.tsv");
        let slaves = ["Plant".to_string(), "Controller".to_string()];
        let mut w = StepStatsWriter::create(&path, &slaves)?;
        w.write_row(&Counters::default(), &[10, 1])?;
        w.flush()?;
        let text = std::fs::read_to_string(&path).expect("read");
        let (header, row) = text.split_once('\n').expect("two lines");
        assert!(
            header.ends_with("\tdoStep:Plant  \tdoStep:Controller  "),
            "{header:?}"
        );
        assert!(
            row.ends_with("\t10            \t1                  \t\n"),
            "{row:?}"
        );
        Ok(())
    }
}
