//! `results/values.csv` and `results/strings.csv` in MasterSim's format: the rows on their
//! way to the writer thread ([`super::text`]) and the files they end up in.
//!
//! Spec: MasterSim reference §12.1–12.2. Deviation: `strings.csv` gives its time column in
//! `outputTimeUnit`, like `values.csv` (MasterSim always writes seconds there). Extension: FMI
//! 3.0 Binary outputs follow the String columns of `strings.csv`, as lowercase hexadecimal
//! text (MasterSim has no Binary type).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use master::OutputLayout;
use master::project::TimeUnit;
use master::values::TypedValues;
use output::OpenMode;
use output::csv::{Column, StringsCsvWriter, ValuesCsvWriter};

use super::Continued;

/// Bytes reserved per String value of a batch (longer values grow their String once).
const STRING_CAPACITY: usize = 32;

/// Rows on their way to the writer: times, then the Boolean, Integer, Real and text values,
/// each row-major. The text values of a row are its Strings followed by its Binary values in
/// lowercase hexadecimal (`strings.csv` holds both).
pub struct Rows {
    times: Vec<f64>,
    booleans: Vec<bool>,
    integers: Vec<i128>,
    reals: Vec<f64>,
    strings: Vec<String>,
    /// Number of text slots in use (`strings` keeps its Strings for reuse).
    string_count: usize,
}

impl Rows {
    /// Room for `rows` rows of `[booleans, integers, reals]` numeric and `strings` text values
    /// (each String with [`STRING_CAPACITY`] bytes).
    pub fn with_capacity(rows: usize, numeric: [usize; 3], strings: usize) -> Self {
        let [booleans, integers, reals] = numeric;
        Rows {
            times: Vec::with_capacity(rows),
            booleans: Vec::with_capacity(rows * booleans),
            integers: Vec::with_capacity(rows * integers),
            reals: Vec::with_capacity(rows * reals),
            strings: (0..rows * strings)
                .map(|_| String::with_capacity(STRING_CAPACITY))
                .collect(),
            string_count: 0,
        }
    }

    /// Appends the row of `values` at `t` (in the output time unit); allocates only beyond
    /// the capacity (a longer text than ever before in its slot).
    pub fn push(&mut self, t: f64, values: &TypedValues) {
        self.times.push(t);
        self.booleans.extend_from_slice(&values.boolean);
        self.integers.extend_from_slice(&values.integer);
        self.reals.extend_from_slice(&values.real);
        for s in &values.string {
            self.next_text().clone_from(s);
        }
        for b in &values.binary {
            output::hex::write_hex(b, self.next_text());
        }
    }

    /// The next text slot, reused when there is one.
    fn next_text(&mut self) -> &mut String {
        if self.string_count == self.strings.len() {
            self.strings.push(String::new());
        }
        self.string_count += 1;
        &mut self.strings[self.string_count - 1]
    }

    /// Values held (numeric and text).
    pub fn values(&self) -> usize {
        self.booleans.len() + self.integers.len() + self.reals.len() + self.string_count
    }
}

/// How many data rows of a run's `values.csv` are complete in the file, for readers of the
/// growing file (the live view reads rows older than its window back from it). The writer
/// thread publishes the count whenever it has passed its rows to the operating system: at
/// every flush (the session flushes at least once a second), and after every batch of rows
/// once [`watch`](Self::watch) was called. Shared by the session, the writer and the readers.
///
/// Spec: `docs/live.md` (what the server keeps in memory).
#[derive(Debug, Default)]
pub struct RowsOnDisk {
    rows: AtomicUsize,
    watched: AtomicBool,
}

impl RowsOnDisk {
    /// The data rows of `values.csv` that are complete in the file (the header not counted;
    /// the rows of an interrupted run that this one continues included).
    pub fn rows(&self) -> usize {
        self.rows.load(Ordering::Acquire)
    }

    /// Asks the writer to pass every batch of rows (about 4,096 values) to the operating
    /// system as soon as it is formatted, rather than when its 64 KiB buffer fills, so that
    /// [`rows`](Self::rows) lags the rows computed by a few batches at most.
    pub fn watch(&self) {
        self.watched.store(true, Ordering::Relaxed);
    }

    fn watched(&self) -> bool {
        self.watched.load(Ordering::Relaxed)
    }

    fn publish(&self, rows: usize) {
        self.rows.store(rows, Ordering::Release);
    }
}

/// The writer thread's side: both files.
pub struct CsvFiles {
    values: ValuesCsvWriter,
    strings: Option<StringsCsvWriter>,
    /// Data rows of `values.csv`: on file, in the writer's buffer, or compared (verifying).
    rows: usize,
    /// Where the rows passed to the operating system are counted.
    on_disk: Arc<RowsOnDisk>,
    /// Numeric columns (Boolean, Integer, Real).
    pub numeric: usize,
    /// Boolean and Integer columns, the first of the `numeric` columns.
    pub discrete: [usize; 2],
    /// Columns of `strings.csv`: String, then Binary.
    pub string_columns: usize,
}

impl CsvFiles {
    /// Creates `values.csv` (and `strings.csv` when there are String or Binary columns) in
    /// `results_dir` and writes and flushes their headers, so that a run that crashes early
    /// leaves valid files. `on_disk` counts the data rows of `values.csv` passed to the
    /// operating system, those a continued file holds already included.
    pub fn create(
        results_dir: &Path,
        time_unit: TimeUnit,
        layout: &OutputLayout,
        continued: &Continued,
        on_disk: Arc<RowsOnDisk>,
    ) -> crate::Result<Self> {
        let mode = |len: Option<u64>| match continued {
            Continued::Fresh => OpenMode::Create,
            Continued::Resume(_) => OpenMode::Append {
                len: len.unwrap_or(0),
            },
            Continued::Replay(_) => OpenMode::Verify,
        };
        let lengths = continued.state().map_or([None, None], |s| s.csv);
        let c = &layout.columns;
        let columns: Vec<Column> = [&c.boolean, &c.integer, &c.real]
            .into_iter()
            .flatten()
            .map(|c| Column {
                name: c.name.clone(),
                unit: c.unit.clone(),
            })
            .collect();
        log::info!("Creating output file 'values.csv'.");
        let values = ValuesCsvWriter::open(
            results_dir.join("values.csv"),
            time_unit.name(),
            &columns,
            mode(lengths[0]),
        )?;
        let texts = c.string.len() + c.binary.len();
        let strings = if texts == 0 {
            log::debug!(
                "Skipping output file 'strings.csv', no outputs of this type are generated."
            );
            None
        } else {
            log::info!("Creating output file 'strings.csv' with {texts} outputs.");
            let names: Vec<String> = c
                .string
                .iter()
                .chain(&c.binary)
                .map(|c| c.name.clone())
                .collect();
            Some(StringsCsvWriter::open(
                results_dir.join("strings.csv"),
                time_unit.name(),
                &names,
                mode(lengths[1]),
            )?)
        };
        // A continued file (cut back to the checkpoint) holds rows already.
        let rows = match continued {
            Continued::Resume(_) => output::csv::CsvRows::open(values.path(), &[])?.rows()?,
            Continued::Fresh | Continued::Replay(_) => 0,
        };
        let mut files = CsvFiles {
            values,
            strings,
            rows,
            on_disk,
            numeric: columns.len(),
            discrete: [c.boolean.len(), c.integer.len()],
            string_columns: texts,
        };
        files.flush()?;
        Ok(files)
    }

    /// Formats and writes `rows`, then empties them for reuse (keeping their capacity).
    pub fn write(&mut self, rows: &mut Rows) -> crate::Result<()> {
        let [b, i] = self.discrete;
        let (n, m) = (self.numeric - b - i, self.string_columns);
        self.rows += rows.times.len();
        for (r, &t) in rows.times.iter().enumerate() {
            self.values.write_typed_row(
                t,
                &rows.booleans[r * b..(r + 1) * b],
                &rows.integers[r * i..(r + 1) * i],
                &rows.reals[r * n..(r + 1) * n],
            )?;
            if let Some(s) = &mut self.strings {
                s.write_row(t, &rows.strings[r * m..(r + 1) * m])?;
            }
        }
        rows.times.clear();
        rows.booleans.clear();
        rows.integers.clear();
        rows.reals.clear();
        rows.string_count = 0;
        if self.on_disk.watched() {
            self.flush()?;
        }
        Ok(())
    }

    /// The paths of `values.csv` and `strings.csv` (when written).
    pub fn paths(&self) -> [Option<PathBuf>; 2] {
        [
            Some(self.values.path().to_path_buf()),
            self.strings.as_ref().map(|s| s.path().to_path_buf()),
        ]
    }

    /// Ends verifying (see [`output::OpenMode::Verify`]) and returns both files' lengths,
    /// bytes.
    pub fn end_verify(&mut self) -> crate::Result<[Option<u64>; 2]> {
        let values = self.values.end_verify()?;
        let strings = self.strings.as_mut().map(|s| s.end_verify()).transpose()?;
        Ok([Some(values), strings])
    }

    /// Passes both files' buffers to the operating system and publishes the rows of
    /// `values.csv` now complete in the file.
    pub fn flush(&mut self) -> crate::Result<()> {
        self.values.flush()?;
        if let Some(s) = &mut self.strings {
            s.flush()?;
        }
        self.on_disk.publish(self.rows);
        Ok(())
    }
}
