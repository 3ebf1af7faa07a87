//! `results/values.csv` and `results/strings.csv` in MasterSim's format.
//!
//! Spec: MasterSim reference §12.1–12.2. Deviation: `strings.csv` gives its time column in
//! `outputTimeUnit`, like `values.csv` (MasterSim always writes seconds there).

use std::path::Path;

use master::OutputLayout;
use master::project::TimeUnit;
use master::values::TypedValues;
use output::csv::{Column, StringsCsvWriter, ValuesCsvWriter};

/// The CSV result files.
pub struct CsvSink {
    values: ValuesCsvWriter,
    strings: Option<StringsCsvWriter>,
    row: Vec<f64>,
}

impl CsvSink {
    /// Creates `values.csv` (and `strings.csv` when there are String columns) in
    /// `results_dir` and writes their headers.
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
        let mut sink = CsvSink {
            values,
            strings,
            row: Vec::with_capacity(columns.len()),
        };
        // The headers reach the disk at once: a run that crashes early leaves valid files.
        sink.flush()?;
        Ok(sink)
    }

    /// Writes one row; `t` in the output time unit.
    pub fn write(&mut self, t: f64, values: &TypedValues) -> anyhow::Result<()> {
        super::numeric_row(values, &mut self.row);
        self.values.write_row(t, &self.row)?;
        if let Some(s) = &mut self.strings {
            s.write_row(t, &values.string)?;
        }
        Ok(())
    }

    /// Hands the buffered rows of both files to the operating system.
    pub fn flush(&mut self) -> anyhow::Result<()> {
        self.values.flush()?;
        if let Some(s) = &mut self.strings {
            s.flush()?;
        }
        Ok(())
    }

    /// Flushes both files.
    pub fn finish(mut self) -> anyhow::Result<()> {
        self.flush()
    }
}
