//! The text result files of a run — `results/values.csv`, `results/strings.csv` and
//! `log/progress.txt` — formatted and written by one [`super::background`] writer thread.
//!
//! One thread for all of them: with two cores, a writer thread per file would take turns with
//! the stepping thread on the second core, and each would leave a backlog to write at the end.
//!
//! Spec: MasterSim reference §12.1, §12.2 and §12.6.

use std::path::PathBuf;

use master::values::TypedValues;

use super::background::{Background, Drain};
use super::csv::{CsvFiles, Rows};
use super::progress::{LineClock, ProgressFile};

/// Values (and progress lines, counted as [`LINE_VALUES`] values each) per batch before it is
/// handed over; rows are never split. Small enough that the writer's share of the last batch,
/// written after the last step, stays near 0.1 ms, large enough that the hand-over costs
/// little per row.
const BATCH_VALUES: usize = 4096;

/// Numbers in a progress line.
const LINE_VALUES: usize = 3;

/// Rows and progress lines on their way to the writer.
pub struct TextBatch {
    rows: Rows,
    /// `(simulation time s, real time s)` per progress line.
    lines: Vec<(f64, f64)>,
}

/// The writer thread's side: the files.
struct TextFiles {
    csv: Option<CsvFiles>,
    progress: ProgressFile,
}

impl Drain for TextFiles {
    type Batch = TextBatch;

    fn new_batch(&self) -> TextBatch {
        let (numeric, [booleans, integers], strings) =
            self.csv.as_ref().map_or((0, [0, 0], 0), |c| {
                (c.numeric, c.discrete, c.string_columns)
            });
        // A batch is handed over once it holds BATCH_VALUES values: at most this many rows
        // (each adds its values and a progress line), one row more than fills it.
        let rows = BATCH_VALUES / (numeric + strings + LINE_VALUES) + 1;
        TextBatch {
            rows: Rows::with_capacity(
                rows,
                [booleans, integers, numeric - booleans - integers],
                strings,
            ),
            lines: Vec::with_capacity(rows),
        }
    }

    fn write(&mut self, batch: &mut TextBatch) -> crate::Result<()> {
        if let Some(csv) = &mut self.csv {
            csv.write(&mut batch.rows)?;
        }
        self.progress.write(&mut batch.lines)
    }

    fn flush(&mut self) -> crate::Result<()> {
        if let Some(csv) = &mut self.csv {
            csv.flush()?;
        }
        self.progress.flush()
    }
}

/// The stepping thread's side of the text files.
pub struct TextSink {
    files: Background<TextFiles>,
    clock: LineClock,
    /// Paths of `values.csv` and `strings.csv` (when written) and `progress.txt`.
    paths: [Option<PathBuf>; 3],
}

impl TextSink {
    /// Takes over `progress` and, when CSV results were asked for, `csv` (headers written).
    /// The real-time column of `progress.txt` counts from now.
    pub fn new(csv: Option<CsvFiles>, progress: ProgressFile) -> Self {
        Self::with_clock(TextFiles { csv, progress }, LineClock::new())
    }

    fn with_clock(files: TextFiles, clock: LineClock) -> Self {
        let [values, strings] = files.csv.as_ref().map_or([None, None], CsvFiles::paths);
        let paths = [values, strings, Some(files.progress.path().to_path_buf())];
        TextSink {
            files: Background::new("mastersim-text", files),
            clock,
            paths,
        }
    }

    /// Flushes and returns the lengths of `values.csv`, `strings.csv` and `progress.txt`,
    /// bytes (`None` for a file not written), for a checkpoint.
    pub fn lengths(&mut self) -> crate::Result<[Option<u64>; 3]> {
        self.flush()?;
        let mut lengths = [None; 3];
        for (len, path) in lengths.iter_mut().zip(&self.paths) {
            if let Some(path) = path {
                let meta = std::fs::metadata(path).map_err(|source| crate::Error::Io {
                    action: "read the length of",
                    path: path.clone(),
                    source,
                })?;
                *len = Some(meta.len());
            }
        }
        Ok(lengths)
    }

    /// Ends verifying the CSV files (a replay reached its checkpoint): waits for the writer,
    /// cuts the files back to the rows compared and continues them. Returns the sink and the
    /// lengths of `values.csv` and `strings.csv`, bytes.
    pub fn end_verify(self) -> crate::Result<(TextSink, [Option<u64>; 2])> {
        let clock = self.clock;
        let mut files = self.files.finish()?;
        let lengths = match &mut files.csv {
            Some(csv) => csv.end_verify()?,
            None => [None, None],
        };
        Ok((Self::with_clock(files, clock), lengths))
    }

    /// Adds a row of `values.csv` (and `strings.csv`); `t` in the output time unit.
    pub fn csv_row(&mut self, t: f64, values: &TypedValues) -> crate::Result<()> {
        self.files.current.rows.push(t, values);
        self.hand_over_if_full()
    }

    /// Adds the `progress.txt` line of the result row at `t` (s).
    pub fn progress_line(&mut self, t: f64) -> crate::Result<()> {
        let real = self.clock.line();
        self.files.current.lines.push((t, real));
        self.hand_over_if_full()
    }

    fn hand_over_if_full(&mut self) -> crate::Result<()> {
        let batch = &self.files.current;
        if batch.rows.values() + LINE_VALUES * batch.lines.len() >= BATCH_VALUES {
            self.files.hand_over()?;
        }
        Ok(())
    }

    /// Hands the buffered rows and lines to the operating system and waits until they are
    /// written.
    pub fn flush(&mut self) -> crate::Result<()> {
        self.files.flush()
    }

    /// Writes the last rows and lines, flushes the files and ends the writer thread (if it
    /// started).
    pub fn finish(self) -> crate::Result<()> {
        self.files.finish().map(drop)
    }
}
