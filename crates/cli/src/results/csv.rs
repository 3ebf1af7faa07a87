//! `results/values.csv` and `results/strings.csv` in MasterSim's format, formatted and written
//! by a [`super::background`] writer (a thread once a batch of rows is full).
//!
//! Spec: MasterSim reference §12.1–12.2. Deviation: `strings.csv` gives its time column in
//! `outputTimeUnit`, like `values.csv` (MasterSim always writes seconds there).

use std::path::Path;

use master::OutputLayout;
use master::project::TimeUnit;
use master::values::TypedValues;
use output::csv::{Column, StringsCsvWriter, ValuesCsvWriter};

use super::background::{Background, Drain};

/// Values per batch before it is handed over (rows are never split).
const BATCH_VALUES: usize = 16 * 1024;

/// Rows on their way to the writer: times, numeric values row-major, String values row-major.
#[derive(Default)]
pub struct Rows {
    times: Vec<f64>,
    values: Vec<f64>,
    strings: Vec<String>,
    /// Number of String slots in use (`strings` keeps its Strings for reuse).
    string_count: usize,
}

/// The writer thread's side: both files.
struct CsvFiles {
    values: ValuesCsvWriter,
    strings: Option<StringsCsvWriter>,
    numeric: usize,
    string_columns: usize,
}

impl Drain for CsvFiles {
    type Batch = Rows;

    fn write(&mut self, batch: &mut Rows) -> anyhow::Result<()> {
        let (n, m) = (self.numeric, self.string_columns);
        for (r, &t) in batch.times.iter().enumerate() {
            self.values
                .write_row(t, &batch.values[r * n..(r + 1) * n])?;
            if let Some(s) = &mut self.strings {
                s.write_row(t, &batch.strings[r * m..(r + 1) * m])?;
            }
        }
        batch.times.clear();
        batch.values.clear();
        batch.string_count = 0;
        Ok(())
    }

    fn flush(&mut self) -> anyhow::Result<()> {
        self.values.flush()?;
        if let Some(s) = &mut self.strings {
            s.flush()?;
        }
        Ok(())
    }
}

/// The CSV result files, written by a background thread.
pub struct CsvSink {
    files: Background<CsvFiles>,
}

impl CsvSink {
    /// Creates `values.csv` (and `strings.csv` when there are String columns) in
    /// `results_dir` and writes and flushes their headers. Rows go to a writer thread once
    /// they fill a batch ([`super::background`]).
    pub fn create(
        results_dir: &Path,
        time_unit: TimeUnit,
        layout: &OutputLayout,
    ) -> anyhow::Result<Self> {
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
        let values =
            ValuesCsvWriter::create(results_dir.join("values.csv"), time_unit.name(), &columns)?;
        let strings = if c.string.is_empty() {
            log::debug!(
                "Skipping output file 'strings.csv', no outputs of this type are generated."
            );
            None
        } else {
            log::info!(
                "Creating output file 'strings.csv' with {} outputs.",
                c.string.len()
            );
            let names: Vec<String> = c.string.iter().map(|c| c.name.clone()).collect();
            Some(StringsCsvWriter::create(
                results_dir.join("strings.csv"),
                time_unit.name(),
                &names,
            )?)
        };
        let mut files = CsvFiles {
            values,
            strings,
            numeric: columns.len(),
            string_columns: c.string.len(),
        };
        // The headers reach the disk at once: a run that crashes early leaves valid files.
        files.flush()?;
        Ok(CsvSink {
            files: Background::new("mastersim-csv", files),
        })
    }

    /// Adds one row; `t` in the output time unit.
    pub fn write(&mut self, t: f64, values: &TypedValues) -> anyhow::Result<()> {
        let batch = &mut self.files.current;
        batch.times.push(t);
        super::extend_numeric_row(values, &mut batch.values);
        for s in &values.string {
            if batch.string_count < batch.strings.len() {
                batch.strings[batch.string_count].clone_from(s);
            } else {
                batch.strings.push(s.clone());
            }
            batch.string_count += 1;
        }
        if batch.values.len() + batch.string_count >= BATCH_VALUES {
            self.files.hand_over()?;
        }
        Ok(())
    }

    /// Hands the buffered rows to the operating system and waits until they are written.
    pub fn flush(&mut self) -> anyhow::Result<()> {
        self.files.flush()
    }

    /// Writes the last rows, flushes both files and ends the writer thread (if it started).
    pub fn finish(self) -> anyhow::Result<()> {
        self.files.finish()
    }
}
