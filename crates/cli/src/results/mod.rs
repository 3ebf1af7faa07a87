//! Adapts the master's [`Observer`] to the `output` crate's writers: `results/values.csv` and
//! `strings.csv` (MasterSim's format), `results/<project>.mat` (MAT v4) and
//! `results/<project>.json` (Signal Table), the optional adaptive-threshold output filter,
//! `log/progress.txt`, `log/stepstats.tsv`, the console progress display, and the statistics
//! written at the end.
//!
//! Spec: MasterSim reference §5 (layout), §12 (CSV formats); seeds 000/001 (MAT v4), seed 002
//! §3.5 (Signal Table), seed 003 "Output Handling" (the filter).

mod background;
mod csv;
mod json;
mod mat;
mod progress;
mod text;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use master::project::ResultFormat;
use master::values::TypedValues;
use master::{Observer, ObserverError, OutputLayout, Simulation, StepInfo};
use output::filter::RowFilter;
use output::progress::ProgressWriter;
use output::stepstats::{StepStatsRow, StepStatsWriter};
use progress::ProgressFile;
use text::TextSink;

/// What the user asked for: formats and the output filter.
#[derive(Debug, Clone)]
pub struct ResultOptions {
    /// Result formats to write (at least one).
    pub formats: Vec<ResultFormat>,
    /// Relative threshold of the adaptive output filter, if on.
    pub threshold: Option<f64>,
    /// Write `log/stepstats.tsv` (verbosity ≥ 2).
    pub step_statistics: bool,
}

/// The numeric columns of a layout in file order: Booleans, Integers, then Reals.
fn numeric_row(values: &TypedValues, row: &mut Vec<f64>) {
    row.clear();
    extend_numeric_row(values, row);
}

/// Appends the numeric columns of `values` to `row`, in the order of [`numeric_row`].
fn extend_numeric_row(values: &TypedValues, row: &mut Vec<f64>) {
    row.extend(values.boolean.iter().map(|&b| f64::from(u8::from(b))));
    row.extend(values.integer.iter().map(|&i| f64::from(i)));
    row.extend_from_slice(&values.real);
}

/// Console progress: a bar on a terminal, otherwise a plain line every few seconds.
enum Progress {
    Bar(indicatif::ProgressBar),
    Lines { last: Instant },
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

    fn write(&mut self, text: &mut TextSink, t: f64, values: &TypedValues) -> anyhow::Result<()> {
        let Some(filter) = &mut self.filter else {
            return write_both(self.csv, &mut self.json, text, t, values);
        };
        numeric_row(values, &mut self.numeric);
        let slot = (self.offered % 2) as usize;
        self.typed[slot].clone_from(values);
        // A String change is kept exactly: the row where it happens is written.
        let changed = self.offered > 0 && self.typed[1 - slot].string != values.string;
        self.offered += 1;
        if let Some(kept) = filter.push(t, &self.numeric, changed) {
            let row = &self.typed[(kept.index % 2) as usize];
            write_both(self.csv, &mut self.json, text, kept.t, row)?;
        }
        Ok(())
    }

    /// Writes the row the filter still holds and closes the JSON file; returns the filter's
    /// counts (kept, offered).
    fn finish(mut self, text: &mut TextSink) -> anyhow::Result<Option<(u64, u64)>> {
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
) -> anyhow::Result<()> {
    if csv {
        text.csv_row(t, values)?;
    }
    if let Some(json) = json {
        json.write(t, values)?;
    }
    Ok(())
}

/// The result files of one run.
pub struct ResultFiles {
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
    progress: Progress,
    started: Instant,
    settings: master::Settings,
}

impl ResultFiles {
    /// Creates `results/` and `log/progress.txt` under the working directory `wd` (and
    /// `log/stepstats.tsv` when asked); the result files themselves are created when the
    /// master announces the layout.
    pub fn create(
        wd: &Path,
        project: &Path,
        sim: &Simulation,
        options: ResultOptions,
    ) -> anyhow::Result<Self> {
        let results_dir = wd.join("results");
        std::fs::create_dir_all(&results_dir).with_context(|| {
            format!(
                "cannot create directory for results '{}'",
                results_dir.display()
            )
        })?;
        let settings = sim.settings().clone();
        let progress_file = Some(ProgressFile::new(
            ProgressWriter::create(wd.join("log").join("progress.txt"), settings.t_start)?,
            settings.t_end,
        ));
        let step_stats = if options.step_statistics {
            Some(StepStatsWriter::create(
                wd.join("log").join("stepstats.tsv"),
            )?)
        } else {
            None
        };
        if !sim.plan().synonyms.is_empty() {
            let text: String = sim
                .plan()
                .synonyms
                .iter()
                .map(|s| format!("{}\t{}\t{}\n", s.fmu_file, s.output_name, s.synonym))
                .collect();
            let path = results_dir.join("synonymous_variables.txt");
            std::fs::write(&path, text)
                .with_context(|| format!("cannot write '{}'", path.display()))?;
        }
        let progress = if std::io::stdout().is_terminal() {
            let bar = indicatif::ProgressBar::new(1000);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:40} {percent:>3}% t = {msg} [{elapsed_precise}, ETA {eta}]",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            Progress::Bar(bar)
        } else {
            Progress::Lines {
                last: Instant::now(),
            }
        };
        let project_name = project
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "results".into());
        Ok(ResultFiles {
            results_dir,
            project_name,
            time_unit: settings.output_time_unit,
            options,
            rows: RowSinks::default(),
            mat: None,
            progress_file,
            text: None,
            step_stats,
            progress,
            started: Instant::now(),
            settings,
        })
    }

    /// Hands buffered rows to the operating system (the supervisor calls this every second;
    /// MAT rows are written through at once, the Signal Table only at the end).
    pub fn flush(&mut self) -> anyhow::Result<()> {
        if let Some(text) = &mut self.text {
            text.flush()?;
        }
        if let Some(progress) = &mut self.progress_file {
            progress.flush()?;
        }
        Ok(())
    }

    /// Writes the last rows and closes all files; logs the filter's compression.
    pub fn finish(&mut self) -> anyhow::Result<()> {
        if let Progress::Bar(bar) = &self.progress {
            bar.finish_and_clear();
        }
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
        {
            log::warn!(
                "No output quantities defined in slaves, mastersim will not generate any results!"
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
            )?);
        }
        if let Some(progress) = self.progress_file.take() {
            self.text = Some(TextSink::new(csv, progress));
        }
        self.started = Instant::now();
        Ok(())
    }

    fn output(&mut self, t: f64, values: &TypedValues) -> Result<(), ObserverError> {
        let Some(text) = &mut self.text else {
            return Err(anyhow::anyhow!("a result row came before the start of the run").into());
        };
        self.rows
            .write(text, self.time_unit.from_seconds(t), values)?;
        if let Some(mat) = &mut self.mat {
            mat.write(t, values)?;
        }
        text.progress_line(t)?;
        Ok(())
    }

    fn step_completed(&mut self, info: &StepInfo) {
        if let Some(writer) = &mut self.step_stats {
            let row = StepStatsRow {
                t: info.t,
                steps: info.steps,
                step_size: info.h,
                algorithm_calls: info.algorithm_calls,
                error_test_fails: info.error_test_fails,
                convergence_fails: info.convergence_fails,
                iterations: info.iterations,
                iter_limit_exceeded: info.iteration_limit_exceeded,
                fmu_errors: info.fmu_errors,
                error_norm_richardson: info.error_norms.0,
                error_norm_slope_check: info.error_norms.1,
            };
            if let Err(e) = writer.write_row(&row) {
                log::warn!("writing stepstats.tsv failed: {e}");
                self.step_stats = None;
            }
        }
        // The console is updated every PROGRESS_STEPS steps: reading the clock and formatting
        // on every step would cost more than the step of cheap slaves.
        if !info.steps.is_multiple_of(PROGRESS_STEPS) {
            return;
        }
        let fraction = (info.t / info.t_end).clamp(0.0, 1.0);
        match &mut self.progress {
            Progress::Bar(bar) => {
                bar.set_position((fraction * 1000.0) as u64);
                bar.set_message(format!("{:.6} s", info.t));
            }
            Progress::Lines { last } => {
                if last.elapsed().as_secs_f64() >= 2.0 {
                    *last = Instant::now();
                    log::info!(
                        "t = {} s ({:.1} %), {} steps, {:.1} s elapsed",
                        info.t,
                        100.0 * fraction,
                        info.steps,
                        self.started.elapsed().as_secs_f64()
                    );
                }
            }
        }
    }
}

/// Steps between updates of the console progress.
const PROGRESS_STEPS: u64 = 256;

/// Prints the statistics block and writes `log/summary.txt` (MasterSim reference §12.5),
/// followed by the `extra` `key=value` lines (the outcome of a run that did not complete).
pub fn write_statistics(
    wd: &Path,
    stats: &master::Statistics,
    extra: &[(&str, String)],
) -> anyhow::Result<()> {
    let summary = output::summary::Statistics {
        wall_clock_time: stats.wall_clock_time,
        output_writing_time: stats.output_time,
        master_algorithm_steps: stats.steps,
        master_algorithm_time: stats.algorithm_time,
        convergence_fails: stats.convergence_fails,
        convergence_iter_limit_exceeded: stats.iteration_limit_exceeded,
        error_test_fails: stats.error_test_fails,
        error_test_time: stats.error_test_time,
        slaves: stats
            .slaves
            .iter()
            .map(|s| output::summary::SlaveStatistics {
                name: s.name.clone(),
                do_step_time: s.do_step.seconds(),
                do_step_count: s.do_step.count,
                get_state_time: s.get_state.seconds(),
                get_state_count: s.get_state.count,
                set_state_time: s.set_state.seconds(),
                set_state_count: s.set_state.count,
            })
            .collect(),
    };
    for line in summary.console_block().lines() {
        log::info!("{line}");
    }
    let extra: Vec<(&str, &str)> = extra.iter().map(|(k, v)| (*k, v.as_str())).collect();
    summary.write_summary_with_extra(wd.join("log").join("summary.txt"), &extra)?;
    Ok(())
}
