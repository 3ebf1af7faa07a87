//! The result files of a run, as one [`Observer`] of the master: `results/values.csv` and
//! `strings.csv` (MasterSim's format), `results/<project>.mat` (MAT v4) and
//! `results/<project>.json` (Signal Table), the optional adaptive-threshold output filter,
//! `log/progress.txt` and `log/stepstats.tsv`. Which formats are written comes from the
//! project's `resultFormats` unless the session's options override it; which columns, from the
//! plan (`outputOnly`).
//!
//! Spec: MasterSim reference §5 (layout), §12 (CSV formats); seeds 000/001 (MAT v4), seed 002
//! §3.5 (Signal Table), seed 003 "Output Handling" (the filter).

mod background;
mod csv;
mod json;
mod mat;
mod progress;
mod text;

use std::path::{Path, PathBuf};

use master::project::ResultFormat;
use master::values::TypedValues;
use master::{Counters, Observer, ObserverError, OutputLayout, SimulationPlan};
use output::filter::RowFilter;
use output::progress::ProgressWriter;
use progress::ProgressFile;
use text::TextSink;

pub use csv::RowsOnDisk;

use crate::report::StepStatsWriter;
use crate::{Error, Result};

/// Where the result files of a run stand at a checkpoint: what a resumed run needs to
/// continue them.
///
/// Spec: `docs/checkpoints.md` (result files).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct ResultsState {
    /// Lengths of `values.csv` and `strings.csv`, bytes (`None`: not written).
    pub csv: [Option<u64>; 2],
    /// Length of `log/progress.txt`, bytes.
    pub progress: u64,
    /// Length of `log/stepstats.tsv`, bytes, when written.
    pub step_stats: Option<u64>,
    /// The streaming MAT file, when written.
    pub mat: Option<output::MatState>,
    /// Some result rows exist only in memory until the end (Signal Table, output filter), so
    /// a resume must rebuild them by replaying the run.
    pub rows_in_memory: bool,
}

/// Whether result files are new or continue those of an interrupted run.
#[derive(Debug, Clone)]
pub(crate) enum Continued {
    /// A new run: create the files.
    Fresh,
    /// A resumed run whose slaves were restored: continue the files as `state` describes.
    Resume(ResultsState),
    /// A resumed run that recomputes the rows up to the checkpoint `state` first: compare
    /// them with the files (progress and step statistics are continued at once and receive
    /// nothing until [`ResultFiles::end_replay`]).
    Replay(ResultsState),
}

impl Continued {
    fn state(&self) -> Option<&ResultsState> {
        match self {
            Continued::Fresh => None,
            Continued::Resume(s) | Continued::Replay(s) => Some(s),
        }
    }
}

/// What the result files of a run are: formats, the output filter, step statistics.
#[derive(Debug, Clone)]
pub(crate) struct ResultOptions {
    /// Result formats to write.
    pub formats: Vec<ResultFormat>,
    /// Relative threshold of the adaptive output filter, if on.
    pub threshold: Option<f64>,
    /// Write `log/stepstats.tsv`.
    pub step_statistics: bool,
    /// The data rows of `values.csv` passed to the operating system (shared with readers).
    pub csv_on_disk: std::sync::Arc<RowsOnDisk>,
}

/// The numeric columns of a layout in file order: Booleans, Integers, then Reals.
/// Integers become the nearest `f64`: exact up to 2^53 in magnitude (every FMI 1.0/2.0
/// `Integer`); wider FMI 3.0 values are rounded (`docs/fmi3.md`).
fn numeric_row(values: &TypedValues, row: &mut Vec<f64>) {
    row.clear();
    row.extend(values.boolean.iter().map(|&b| f64::from(u8::from(b))));
    row.extend(values.integer.iter().map(|&i| i as f64));
    row.extend_from_slice(&values.real);
}

/// The CSV and JSON writers share one time column, so they share the row filter. CSV rows go
/// to the text writer ([`TextSink`]), which the caller passes in.
#[derive(Default)]
struct RowSinks {
    csv: bool,
    json: Option<json::JsonSink>,
    filter: Option<RowFilter>,
    /// Numeric values of the row being offered.
    numeric: Vec<f64>,
    /// The typed rows offered last and before (the filter releases one of the two).
    typed: [TypedValues; 2],
    offered: u64,
}

impl RowSinks {
    fn is_empty(&self) -> bool {
        !self.csv && self.json.is_none()
    }

    fn write(&mut self, text: &mut TextSink, t: f64, values: &TypedValues) -> Result<()> {
        let Some(filter) = &mut self.filter else {
            return write_both(self.csv, &mut self.json, text, t, values);
        };
        numeric_row(values, &mut self.numeric);
        let slot = (self.offered % 2) as usize;
        self.typed[slot].clone_from(values);
        // A String or Binary change is kept exactly: the row where it happens is written.
        let before = &self.typed[1 - slot];
        let changed =
            self.offered > 0 && (before.string != values.string || before.binary != values.binary);
        self.offered += 1;
        if let Some(kept) = filter.push(t, &self.numeric, changed) {
            let row = &self.typed[(kept.index % 2) as usize];
            write_both(self.csv, &mut self.json, text, kept.t, row)?;
        }
        Ok(())
    }

    /// Writes the row the filter still holds and closes the JSON file; returns the filter's
    /// counts (kept, offered).
    fn finish(mut self, text: &mut TextSink) -> Result<Option<(u64, u64)>> {
        let mut counts = None;
        if let Some(mut filter) = self.filter.take() {
            if let Some(kept) = filter.finish() {
                let row = &self.typed[(kept.index % 2) as usize];
                write_both(self.csv, &mut self.json, text, kept.t, row)?;
            }
            counts = Some((filter.kept(), filter.offered()));
        }
        if let Some(json) = self.json {
            json.finish()?;
        }
        Ok(counts)
    }
}

/// Writes one row to the CSV files (when `csv`) and to the JSON file.
fn write_both(
    csv: bool,
    json: &mut Option<json::JsonSink>,
    text: &mut TextSink,
    t: f64,
    values: &TypedValues,
) -> Result<()> {
    if csv {
        text.csv_row(t, values)?;
    }
    if let Some(json) = json {
        json.write(t, values)?;
    }
    Ok(())
}

/// The result files of one run.
pub(crate) struct ResultFiles {
    results_dir: PathBuf,
    project_name: String,
    options: ResultOptions,
    time_unit: master::project::TimeUnit,
    rows: RowSinks,
    mat: Option<mat::MatSink>,
    /// `log/progress.txt` until the text writer takes it over in [`Observer::start`].
    progress_file: Option<ProgressFile>,
    /// The text writer (CSV files and `progress.txt`), from [`Observer::start`] on.
    text: Option<TextSink>,
    step_stats: Option<StepStatsWriter>,
    /// Multi-rate runs: the counters of the last step, written to `stepstats.tsv` together with
    /// the slaves' `doStep` calls when they arrive.
    pending_step: Option<master::Counters>,
    /// The run is multi-rate (`stepstats.tsv` has per-slave columns).
    multirate: bool,
    settings: master::Settings,
    /// New files, or those of an interrupted run (replaying until [`ResultFiles::end_replay`]).
    continued: Continued,
}

/// Removes the result files an earlier run in the same working directory may have left:
/// `values.csv`, `strings.csv`, `synonymous_variables.txt`, `<project>.mat` and
/// `<project>.json`, so that `results/` holds only what this run writes (a format not chosen
/// this time, or a `strings.csv` this run has no strings for, would otherwise stay and look
/// current). Other files are left alone.
///
/// # Errors
/// [`Error::Io`] naming a file that exists but cannot be removed.
fn remove_earlier_results(results_dir: &Path, project_name: &str) -> Result<()> {
    let names = [
        "values.csv".to_owned(),
        "strings.csv".to_owned(),
        "synonymous_variables.txt".to_owned(),
        format!("{project_name}.mat"),
        format!("{project_name}.json"),
    ];
    for name in names {
        let path = results_dir.join(name);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(Error::Io {
                    action: "remove the earlier result file",
                    path,
                    source: e,
                });
            }
            _ => {}
        }
    }
    Ok(())
}

impl ResultFiles {
    /// Creates `results/` and `log/progress.txt` under the working directory `wd` (and
    /// `log/stepstats.tsv` when asked, and `results/synonymous_variables.txt` when `plan`
    /// found synonyms); the result files themselves are created when the master announces the
    /// layout. `project_name` names the MAT and JSON files. A fresh run first removes the
    /// result files of an earlier run (see `remove_earlier_results`).
    ///
    /// # Errors
    /// [`Error::Io`] or [`Error::Output`] naming the file that cannot be created.
    pub fn create(
        wd: &Path,
        project_name: &str,
        plan: &SimulationPlan,
        options: ResultOptions,
        continued: Continued,
    ) -> Result<Self> {
        let results_dir = wd.join("results");
        std::fs::create_dir_all(&results_dir).map_err(|source| Error::Io {
            action: "create the directory for results",
            path: results_dir.clone(),
            source,
        })?;
        if continued.state().is_none() {
            remove_earlier_results(&results_dir, project_name)?;
        }
        let settings = plan.settings.clone();
        let progress_path = wd.join("log").join("progress.txt");
        let progress_file = Some(ProgressFile::new(
            match continued.state() {
                None => ProgressWriter::create(progress_path, settings.t_start)?,
                Some(s) => ProgressWriter::append(progress_path, s.progress)?,
            },
            settings.t_end,
        ));
        let step_stats = if options.step_statistics {
            let slaves: Vec<String> = match plan.multirate {
                Some(_) => plan.slaves.iter().map(|s| s.name.clone()).collect(),
                None => Vec::new(),
            };
            Some(StepStatsWriter::open(
                &wd.join("log").join("stepstats.tsv"),
                &slaves,
                continued.state().and_then(|s| s.step_stats),
            )?)
        } else {
            None
        };
        if !plan.synonyms.is_empty() {
            let text: String = plan
                .synonyms
                .iter()
                .map(|s| format!("{}\t{}\t{}\n", s.fmu_file, s.output_name, s.synonym))
                .collect();
            let path = results_dir.join("synonymous_variables.txt");
            std::fs::write(&path, text).map_err(|source| Error::Io {
                action: "write",
                path,
                source,
            })?;
        }
        Ok(ResultFiles {
            results_dir,
            project_name: project_name.to_string(),
            time_unit: settings.output_time_unit,
            options,
            rows: RowSinks::default(),
            mat: None,
            progress_file,
            text: None,
            step_stats,
            pending_step: None,
            multirate: plan.multirate.is_some(),
            settings,
            continued,
        })
    }

    /// Where the files stand now, for a checkpoint taken at a communication point: flushes
    /// the text files and reads their lengths.
    ///
    /// # Errors
    /// The writers' errors; [`Error::Io`] when a length cannot be read.
    pub fn checkpoint_state(&mut self) -> Result<ResultsState> {
        let [values, strings, progress] = match &mut self.text {
            Some(text) => text.lengths()?,
            None => [None; 3],
        };
        let step_stats = self
            .step_stats
            .as_mut()
            .map(StepStatsWriter::file_len)
            .transpose()?;
        Ok(ResultsState {
            csv: [values, strings],
            progress: progress.unwrap_or(0),
            step_stats,
            mat: self.mat.as_ref().and_then(mat::MatSink::state),
            rows_in_memory: self.rows.json.is_some() || self.rows.filter.is_some(),
        })
    }

    /// Ends a replay that reached its checkpoint: every file compared so far must hold
    /// exactly the checkpoint's rows; the files are then continued from there.
    ///
    /// # Errors
    /// [`Error::Output`] naming the file when it holds other rows than were recomputed
    /// (more, fewer, or different ones); the writers' errors.
    pub fn end_replay(&mut self) -> Result<()> {
        let Continued::Replay(state) = &self.continued else {
            return Ok(());
        };
        let state = state.clone();
        if let Some(text) = self.text.take() {
            let (text, lengths) = text.end_verify()?;
            self.text = Some(text);
            if lengths != state.csv {
                return Err(Error::Resume(format!(
                    "the rows recomputed up to the checkpoint fill {lengths:?} bytes of values.csv and strings.csv, but the checkpoint recorded {:?}",
                    state.csv
                )));
            }
        }
        if let Some(mat) = &mut self.mat {
            mat.end_verify(state.mat)?;
        }
        self.continued = Continued::Resume(state);
        Ok(())
    }

    /// Hands buffered rows to the operating system (the supervisor calls this every second;
    /// MAT rows are written through at once, the Signal Table only at the end).
    ///
    /// # Errors
    /// The writers' errors.
    pub fn flush(&mut self) -> Result<()> {
        if let Some(text) = &mut self.text {
            text.flush()?;
        }
        if let Some(progress) = &mut self.progress_file {
            progress.flush()?;
        }
        Ok(())
    }

    /// Writes the last rows and closes all files; logs the filter's compression.
    ///
    /// # Errors
    /// The writers' errors.
    pub fn finish(&mut self) -> Result<()> {
        let rows = std::mem::take(&mut self.rows);
        if let Some(mut text) = self.text.take() {
            if let Some((kept, offered)) = rows.finish(&mut text)? {
                log::info!(
                    "Output filter: kept {kept} of {offered} rows (compression ratio {:.4})",
                    ratio(kept, offered)
                );
            }
            text.finish()?;
        }
        if let Some(mat) = self.mat.take()
            && let Some((kept, offered)) = mat.finish()?
        {
            log::info!(
                "Output filter (MAT): kept {kept} of {offered} samples (compression ratio {:.4})",
                ratio(kept, offered)
            );
        }
        if let Some(mut progress) = self.progress_file.take() {
            progress.flush()?;
        }
        if let Some(s) = &mut self.step_stats {
            s.flush()?;
        }
        Ok(())
    }
}

impl ResultFiles {
    /// Rows are being recomputed and compared (see [`Continued::Replay`]).
    fn replaying(&self) -> bool {
        matches!(self.continued, Continued::Replay(_))
    }

    /// Appends one line to `stepstats.tsv` when it is written; a failure is logged once and
    /// ends the file.
    fn write_step_row(&mut self, counters: &Counters, do_step_calls: &[u64]) {
        if self.replaying() {
            return;
        }
        if let Some(writer) = &mut self.step_stats
            && let Err(e) = writer.write_row(counters, do_step_calls)
        {
            log::warn!("writing stepstats.tsv failed: {e}");
            self.step_stats = None;
        }
    }
}

fn ratio(kept: u64, offered: u64) -> f64 {
    if offered == 0 {
        1.0
    } else {
        kept as f64 / offered as f64
    }
}

impl Observer for ResultFiles {
    fn start(&mut self, layout: &OutputLayout) -> Result<(), ObserverError> {
        let columns = &layout.columns;
        if columns.boolean.is_empty()
            && columns.integer.is_empty()
            && columns.real.is_empty()
            && columns.string.is_empty()
            && columns.binary.is_empty()
        {
            log::warn!(
                "no variable is written (the slaves have none, or no outputOnly pattern matches \
                 one): the result files hold only the time column"
            );
        }
        let formats = &self.options.formats;
        let s = &self.settings;
        let csv = if formats.contains(&ResultFormat::Csv) {
            self.rows.csv = true;
            Some(csv::CsvFiles::create(
                &self.results_dir,
                self.time_unit,
                layout,
                &self.continued,
                self.options.csv_on_disk.clone(),
            )?)
        } else {
            None
        };
        if formats.contains(&ResultFormat::Json) {
            let path = self.results_dir.join(format!("{}.json", self.project_name));
            self.rows.json = Some(json::JsonSink::create(&path, layout, s)?);
        }
        if let Some(threshold) = self.options.threshold
            && !self.rows.is_empty()
        {
            let numeric = columns.boolean.len() + columns.integer.len() + columns.real.len();
            self.rows.filter = Some(RowFilter::new(numeric, threshold));
        }
        if formats.contains(&ResultFormat::Mat) {
            let path = self.results_dir.join(format!("{}.mat", self.project_name));
            self.mat = Some(mat::MatSink::create(
                &path,
                layout,
                s,
                self.options.threshold,
                &self.continued,
            )?);
        }
        if let Some(progress) = self.progress_file.take() {
            self.text = Some(TextSink::new(csv, progress));
        }
        Ok(())
    }

    fn output(&mut self, t: f64, values: &TypedValues) -> Result<(), ObserverError> {
        let replaying = self.replaying();
        let Some(text) = &mut self.text else {
            return Err("a result row came before the start of the run".into());
        };
        self.rows
            .write(text, self.time_unit.from_seconds(t), values)?;
        if let Some(mat) = &mut self.mat {
            mat.write(t, values)?;
        }
        if !replaying {
            text.progress_line(t)?;
        }
        Ok(())
    }

    fn step_completed(&mut self, counters: &Counters) {
        if self.multirate {
            self.pending_step = Some(*counters);
        } else {
            self.write_step_row(counters, &[]);
        }
    }

    fn slave_steps(&mut self, do_step_calls: &[u64]) {
        if let Some(counters) = self.pending_step.take() {
            self.write_step_row(&counters, do_step_calls);
        }
    }
}
