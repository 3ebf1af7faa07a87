//! Adapts the master's [`Observer`] to the `output` crate's writers: `results/values.csv`,
//! `results/strings.csv`, `log/progress.txt`, the console progress display, and the statistics
//! files written at the end.
//!
//! Spec: MasterSim reference §5 (layout), §12 (formats). Deviation: `strings.csv` gives its
//! time column in `outputTimeUnit`, like `values.csv` (MasterSim always writes seconds there).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use master::project::TimeUnit;
use master::values::TypedValues;
use master::{Observer, ObserverError, OutputLayout, Simulation, StepInfo};
use output::csv::{Column, StringsCsvWriter, ValuesCsvWriter};
use output::progress::ProgressWriter;
use output::stepstats::{StepStatsRow, StepStatsWriter};

/// Console progress: a bar on a terminal, otherwise a plain line every few seconds.
enum Progress {
    Bar(indicatif::ProgressBar),
    Lines { last: Instant },
}

/// The result files of one run.
pub struct ResultFiles {
    results_dir: PathBuf,
    time_unit: TimeUnit,
    values: Option<ValuesCsvWriter>,
    strings: Option<StringsCsvWriter>,
    progress_file: ProgressWriter,
    step_stats: Option<StepStatsWriter>,
    progress: Progress,
    started: Instant,
    t_end: f64,
    row: Vec<f64>,
}

impl ResultFiles {
    /// Creates `results/` and `log/progress.txt` under the working directory `wd`, and
    /// `log/stepstats.tsv` when `step_statistics` is set (verbosity ≥ 2, reference §12.7).
    pub fn create(wd: &Path, sim: &Simulation, step_statistics: bool) -> anyhow::Result<Self> {
        let results_dir = wd.join("results");
        std::fs::create_dir_all(&results_dir).with_context(|| {
            format!(
                "cannot create directory for results '{}'",
                results_dir.display()
            )
        })?;
        let settings = sim.settings();
        let progress_file =
            ProgressWriter::create(wd.join("log").join("progress.txt"), settings.t_start)?;
        let step_stats = if step_statistics {
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
        Ok(ResultFiles {
            results_dir,
            time_unit: settings.output_time_unit,
            values: None,
            strings: None,
            progress_file,
            step_stats,
            progress,
            started: Instant::now(),
            t_end: settings.t_end,
            row: Vec::new(),
        })
    }

    /// Flushes and closes all files.
    pub fn finish(&mut self) -> anyhow::Result<()> {
        if let Progress::Bar(bar) = &self.progress {
            bar.finish_and_clear();
        }
        if let Some(v) = &mut self.values {
            v.flush()?;
        }
        if let Some(s) = &mut self.strings {
            s.flush()?;
        }
        self.progress_file.flush()?;
        if let Some(s) = &mut self.step_stats {
            s.flush()?;
        }
        Ok(())
    }
}

impl Observer for ResultFiles {
    fn start(&mut self, layout: &OutputLayout) -> Result<(), ObserverError> {
        let unit = self.time_unit.name();
        let columns: Vec<Column> = [&layout.boolean, &layout.integer, &layout.real]
            .into_iter()
            .flatten()
            .map(|c| Column {
                name: c.name.clone(),
                unit: c.unit.clone(),
            })
            .collect();
        if columns.is_empty() && layout.string.is_empty() {
            log::warn!(
                "No output quantities defined in slaves, mastersim will not generate any results!"
            );
        }
        log::info!("Creating output file 'values.csv'.");
        self.values = Some(ValuesCsvWriter::create(
            self.results_dir.join("values.csv"),
            unit,
            &columns,
        )?);
        if layout.string.is_empty() {
            log::debug!(
                "Skipping output file 'strings.csv', no outputs of this type are generated."
            );
        } else {
            log::info!(
                "Creating output file 'strings.csv' with {} outputs.",
                layout.string.len()
            );
            let names: Vec<String> = layout.string.iter().map(|c| c.name.clone()).collect();
            self.strings = Some(StringsCsvWriter::create(
                self.results_dir.join("strings.csv"),
                unit,
                &names,
            )?);
        }
        self.started = Instant::now();
        Ok(())
    }

    fn output(&mut self, t: f64, values: &TypedValues) -> Result<(), ObserverError> {
        let time = self.time_unit.from_seconds(t);
        self.row.clear();
        self.row
            .extend(values.boolean.iter().map(|&b| f64::from(u8::from(b))));
        self.row
            .extend(values.integer.iter().map(|&i| f64::from(i)));
        self.row.extend_from_slice(&values.real);
        if let Some(v) = &mut self.values {
            v.write_row(time, &self.row)?;
        }
        if let Some(s) = &mut self.strings {
            s.write_row(time, &values.string)?;
        }
        self.progress_file
            .write_row(t, self.started.elapsed().as_secs_f64(), self.t_end)?;
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

/// Prints the statistics block and writes `log/summary.txt` (MasterSim reference §12.5).
pub fn write_statistics(wd: &Path, stats: &master::Statistics) -> anyhow::Result<()> {
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
                do_step_time: s.do_step.seconds,
                do_step_count: s.do_step.count,
                get_state_time: s.get_state.seconds,
                get_state_count: s.get_state.count,
                set_state_time: s.set_state.seconds,
                set_state_count: s.set_state.count,
            })
            .collect(),
    };
    for line in summary.console_block().lines() {
        log::info!("{line}");
    }
    summary.write_summary(wd.join("log").join("summary.txt"))?;
    Ok(())
}
