//! Where the live store reads back the rows older than its window: the run's MAT file when
//! it is written row by row (each value bit for bit), else its `values.csv` (14 significant
//! digits).
//!
//! Spec: `docs/live.md` (what the server keeps in memory).

use std::path::Path;
use std::path::PathBuf;

use master::project::TimeUnit;
use mastersim::{Session, StreamingCsv};
use output::csv::CsvRows;
use output::mat::MatRows;

/// A result file of the run that holds every row the store is given, in the same order.
#[derive(Debug)]
pub(crate) enum RowFile {
    /// The streaming MAT file: a row is on disk as soon as it is written.
    Mat(PathBuf),
    /// `values.csv`, written by a writer thread that says how many rows are on disk.
    Csv(StreamingCsv),
}

/// A [`RowFile`] opened for reading, its columns matched to the store's.
#[derive(Debug)]
pub(crate) enum RowSource {
    /// Time points of the MAT file.
    Mat(MatRows),
    /// Rows of `values.csv`, time in `unit`.
    Csv {
        /// The reader.
        rows: CsvRows,
        /// The unit of the file's time column.
        unit: TimeUnit,
    },
}

impl RowFile {
    /// The file of `session` that rows can be read back from: the MAT file written row by
    /// row when there is one, else `values.csv` (whose writer is then asked to pass each
    /// batch of rows to the operating system at once); `None` when the run writes neither
    /// row by row (the output filter; only the Signal Table).
    pub(crate) fn of(session: &Session) -> Option<RowFile> {
        if let Some(path) = session.streaming_mat() {
            return Some(RowFile::Mat(path));
        }
        let csv = session.streaming_csv()?;
        csv.on_disk.watch();
        Some(RowFile::Csv(csv))
    }

    /// The file's path.
    pub(crate) fn path(&self) -> &Path {
        match self {
            RowFile::Mat(path) => path,
            RowFile::Csv(csv) => &csv.path,
        }
    }

    /// The rows the file holds completely now, so that the store may drop them: every row it
    /// was given for the MAT file (written through), the count its writer published for
    /// `values.csv`.
    pub(crate) fn rows_on_disk(&self) -> usize {
        match self {
            RowFile::Mat(_) => usize::MAX,
            RowFile::Csv(csv) => csv.on_disk.rows(),
        }
    }

    /// Opens the file for rows of the time and `columns` (by name, in that order).
    ///
    /// # Errors
    /// A message: the file cannot be opened or read, the MAT file has another number of
    /// values per row, `values.csv` lacks one of `columns`.
    pub(crate) fn open(&self, columns: &[&str]) -> Result<RowSource, String> {
        match self {
            RowFile::Mat(path) => {
                let rows = MatRows::open(path).map_err(|e| e.to_string())?;
                let width = columns.len() + 1;
                if rows.width() == width {
                    Ok(RowSource::Mat(rows))
                } else {
                    Err(format!(
                        "it has {} values per row, not {width}",
                        rows.width()
                    ))
                }
            }
            RowFile::Csv(csv) => Ok(RowSource::Csv {
                rows: CsvRows::open(&csv.path, columns).map_err(|e| e.to_string())?,
                unit: csv.time_unit,
            }),
        }
    }
}

impl RowSource {
    /// Appends rows `from..to` to `out`, each `[t, v_0, …]`, time in s.
    ///
    /// # Errors
    /// The file cannot be read, or holds no complete row `to − 1` (the message names the
    /// file, and for `values.csv` the line).
    pub(crate) fn read(&self, from: usize, to: usize, out: &mut Vec<f64>) -> output::Result<()> {
        match self {
            RowSource::Mat(rows) => rows.read(from, to, out),
            RowSource::Csv { rows, unit } => {
                let start = out.len();
                rows.read(from, to, out)?;
                if *unit != TimeUnit::Second {
                    for t in out[start..].iter_mut().step_by(rows.width()) {
                        *t = unit.to_seconds(*t);
                    }
                }
                Ok(())
            }
        }
    }
}
