//! `log/stepstats.tsv`: one line of counters per completed master step (verbosity ≥ 2).
//!
//! Every field is left-aligned in a fixed width and followed by a tab; numbers use `%g`
//! (six significant digits). The header has the same widths but no tab after its last
//! caption, while data lines end with a tab before the newline, as in MasterSim.
//!
//! Spec: MasterSim reference §12.7.

use std::path::Path;

use crate::Result;
use crate::file::TextFile;
use crate::number::{DEFAULT_PRECISION, write_g, write_left_aligned, write_u64};

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

/// The numbers of one `stepstats.tsv` line.
///
/// Spec: MasterSim reference §12.7 (rows).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StepStatsRow {
    /// Master time after the step (s).
    pub t: f64,
    /// Completed master steps so far.
    pub steps: u64,
    /// Step size of the step (s); MasterSim reports twice the half step in ADAPT_STEP mode.
    pub step_size: f64,
    /// Master algorithm calls so far (error-test half steps included).
    pub algorithm_calls: u64,
    /// Failed error tests so far.
    pub error_test_fails: u64,
    /// Step-size reductions after failed steps so far.
    pub convergence_fails: u64,
    /// Iterations of the master algorithm so far.
    pub iterations: u64,
    /// Iteration-limit returns of the master algorithm so far.
    pub iter_limit_exceeded: u64,
    /// FMU errors seen by the master algorithm so far.
    pub fmu_errors: u64,
    /// Last accepted Richardson error norm (starts at 1).
    pub error_norm_richardson: f64,
    /// Last accepted slope-check error norm (starts at 1).
    pub error_norm_slope_check: f64,
}

/// Writer of `log/stepstats.tsv`.
///
/// Output is buffered; call [`flush`](Self::flush) at the end of the run.
///
/// Spec: MasterSim reference §12.7.
#[derive(Debug)]
pub struct StepStatsWriter {
    file: TextFile,
    line: String,
}

impl StepStatsWriter {
    /// Creates (truncates) the file at `path` and writes the header line.
    ///
    /// # Errors
    /// [`Error::Create`](crate::Error::Create) if the file cannot be created,
    /// [`Error::Write`](crate::Error::Write) if the header cannot be written.
    ///
    /// Spec: MasterSim reference §12.7 (header).
    pub fn create(path: impl AsRef<Path>) -> Result<Self> {
        let mut file = TextFile::create(path.as_ref())?;
        let mut header = String::with_capacity(256);
        for (i, (caption, width)) in COLUMNS.into_iter().enumerate() {
            if i > 0 {
                header.push('\t');
            }
            write_left_aligned(&mut header, width, |s| s.push_str(caption));
        }
        header.push('\n');
        file.write(&header)?;
        Ok(StepStatsWriter {
            file,
            line: String::with_capacity(256),
        })
    }

    /// Appends one line for a completed step; each field is followed by a tab.
    ///
    /// Units: times and step sizes in seconds; norms are dimensionless.
    ///
    /// # Errors
    /// [`Error::Write`](crate::Error::Write) if writing fails.
    ///
    /// Spec: MasterSim reference §12.7 (rows).
    pub fn write_row(&mut self, row: &StepStatsRow) -> Result<()> {
        enum Field {
            Real(f64),
            Count(u64),
        }
        let fields = [
            Field::Real(row.t),
            Field::Count(row.steps),
            Field::Real(row.step_size),
            Field::Count(row.algorithm_calls),
            Field::Count(row.error_test_fails),
            Field::Count(row.convergence_fails),
            Field::Count(row.iterations),
            Field::Count(row.iter_limit_exceeded),
            Field::Count(row.fmu_errors),
            Field::Real(row.error_norm_richardson),
            Field::Real(row.error_norm_slope_check),
        ];
        self.line.clear();
        for (field, (_, width)) in fields.into_iter().zip(COLUMNS) {
            write_left_aligned(&mut self.line, width, |s| match field {
                Field::Real(v) => write_g(s, v, DEFAULT_PRECISION),
                Field::Count(n) => write_u64(s, n),
            });
            self.line.push('\t');
        }
        self.line.push('\n');
        self.file.write(&self.line)
    }

    /// Path of the file being written.
    ///
    /// Spec: MasterSim reference §12.7.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Writes all buffered lines to the file.
    ///
    /// # Errors
    /// [`Error::Write`](crate::Error::Write) if the operating system rejects the data.
    ///
    /// Spec: MasterSim reference §12.7.
    pub fn flush(&mut self) -> Result<()> {
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_row_layout() -> Result<()> {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("stepstats.tsv");
        let mut w = StepStatsWriter::create(&path)?;
        w.write_row(&StepStatsRow {
            t: 0.1,
            steps: 1,
            step_size: 0.1,
            algorithm_calls: 3,
            error_test_fails: 0,
            convergence_fails: 0,
            iterations: 2,
            iter_limit_exceeded: 0,
            fmu_errors: 0,
            error_norm_richardson: 0.000123456789,
            error_norm_slope_check: 1.0,
        })?;
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
}
