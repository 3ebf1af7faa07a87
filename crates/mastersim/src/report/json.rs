//! `log/summary.json`: the machine-readable summary of a run, for build servers and sweeps.
//!
//! It holds what `summary.txt` holds (in MasterSim's layout, which must not change) and what
//! that file cannot: the outcome of every run, whether each timer is exact or sampled, each
//! slave's FMU and its versions, the result files and the command-line overrides. The layout
//! is [`SummaryJson`], versioned by [`SUMMARY_JSON_VERSION`] and described by the JSON Schema
//! `docs/summary.schema.json`. Programs read it back with serde into the same types.
//!
//! Spec: `docs/results.md` (summary.json).

use std::path::{Path, PathBuf};

use master::{Counters, SlaveKind, Statistics, Timer};
use serde::{Deserialize, Serialize};

use crate::pacing::PacingFigures;

/// The value of [`SummaryJson::version`]. It grows when a member changes meaning or is
/// removed; members may be added within a version.
pub const SUMMARY_JSON_VERSION: u32 = 1;

/// What a run is, known when it is opened: the part of `summary.json` that does not change
/// while it runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The project file, or the FMU of a run of one FMU (absolute path).
    pub project: PathBuf,
    /// The working directory (results in `results/`, logs in `log/`).
    pub working_directory: PathBuf,
    /// Start time, s.
    pub t_start: f64,
    /// End time, s.
    pub t_end: f64,
    /// The command-line options that changed the project, in order (`--set tEnd=10 s`,
    /// `--input table.csv`).
    pub overrides: Vec<String>,
    /// The slaves in project order: what each one is.
    pub slaves: Vec<SlaveInfo>,
    /// How the messages print times ([`master::SimulationPlan::time_format`]); not part of
    /// `summary.json`.
    #[serde(skip)]
    pub time_format: master::time::TimeFormat,
}

/// What one slave is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SlaveInfo {
    /// Slave name.
    pub name: String,
    /// The FMU or table file.
    pub file: PathBuf,
    /// `fmu`, `table` or `external`.
    pub kind: String,
    /// FMI version of an FMU (`1.0`, `2.0`); `null` otherwise.
    pub fmi_version: Option<String>,
    /// Model name of an FMU.
    pub model_name: Option<String>,
    /// GUID of an FMU.
    pub guid: Option<String>,
    /// The tool that exported the FMU, as it names itself (with its version, if given).
    pub generation_tool: Option<String>,
}

impl RunInfo {
    /// The run of `plan` (its slaves and times) in `working_directory`, changed by
    /// `overrides`.
    pub fn new(
        plan: &master::SimulationPlan,
        project: &Path,
        working_directory: &Path,
        overrides: &[String],
    ) -> RunInfo {
        let slaves = plan
            .slaves
            .iter()
            .map(|s| {
                let (kind, file, fmu) = match &s.kind {
                    SlaveKind::Fmu { fmu, path, .. } => {
                        ("fmu", path.clone(), Some(fmu.description()))
                    }
                    SlaveKind::FileReader { table } => ("table", table.path.clone(), None),
                    SlaveKind::External { .. } => ("external", PathBuf::new(), None),
                };
                SlaveInfo {
                    name: s.name.clone(),
                    file,
                    kind: kind.into(),
                    fmi_version: fmu.map(|d| {
                        match d.fmi_version {
                            fmi::FmiVersion::V1 => "1.0",
                            fmi::FmiVersion::V2 => "2.0",
                            fmi::FmiVersion::V3 => "3.0",
                        }
                        .to_owned()
                    }),
                    model_name: fmu.map(|d| d.model_name.clone()),
                    guid: fmu.map(|d| d.guid.clone()),
                    generation_tool: fmu.and_then(|d| d.generation_tool.clone()),
                }
            })
            .collect();
        RunInfo {
            project: std::path::absolute(project).unwrap_or_else(|_| project.to_path_buf()),
            working_directory: std::path::absolute(working_directory)
                .unwrap_or_else(|_| working_directory.to_path_buf()),
            t_start: plan.settings.t_start,
            t_end: plan.settings.t_end,
            overrides: overrides.to_vec(),
            slaves,
            time_format: plan.time_format(),
        }
    }
}

/// One timer: calls and wall time, and whether the time is measured or estimated.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TimerJson {
    /// Number of calls (exact).
    pub calls: u64,
    /// Wall time of the calls, s.
    pub seconds: f64,
    /// True when `seconds` is an estimate: after the first 64 calls, one call in 64 is timed
    /// and the rest extrapolated. False when every call was timed.
    pub sampled: bool,
}

impl TimerJson {
    /// The timer `timer`, its time capped at `wall_clock` s (an estimate may not exceed the
    /// run it is part of).
    fn of(timer: &Timer, wall_clock: f64) -> TimerJson {
        TimerJson {
            calls: timer.count,
            seconds: timer.seconds().min(wall_clock),
            sampled: timer.is_sampled(),
        }
    }
}

/// The counters of the run (exact).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CountersJson {
    /// Completed communication steps (`MasterAlgorithmSteps`).
    pub steps: u64,
    /// Master-algorithm step calls, error-test half steps included.
    pub algorithm_calls: u64,
    /// Cycle sweeps.
    pub iterations: u64,
    /// Step reductions after non-convergence or a rejected step (`ConvergenceFails`).
    pub convergence_fails: u64,
    /// Iteration-limit returns (`ConvergenceIterLimitExceeded`).
    pub iteration_limit_exceeded: u64,
    /// Failed error tests (`ErrorTestFails`).
    pub error_test_fails: u64,
    /// Steps rejected by a slave.
    pub fmu_errors: u64,
}

impl From<&Counters> for CountersJson {
    /// The exact counters of `c`.
    fn from(c: &Counters) -> Self {
        CountersJson {
            steps: c.steps,
            algorithm_calls: c.algorithm_calls,
            iterations: c.iterations,
            convergence_fails: c.convergence_fails,
            iteration_limit_exceeded: c.iteration_limit_exceeded,
            error_test_fails: c.error_test_fails,
            fmu_errors: c.fmu_errors,
        }
    }
}

/// The timers of the run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TimersJson {
    /// Wall-clock time from the first result row to the summary, s (measured, never
    /// sampled).
    pub wall_clock_seconds: f64,
    /// Master-algorithm steps (`MasterAlgorithmTime`).
    pub master_algorithm: TimerJson,
    /// Result rows handed to the result files and observers (`FrameworkTimeWriteOutputs`).
    pub output: TimerJson,
    /// Error tests (`ErrorTestTime`).
    pub error_test: TimerJson,
}

/// One slave's statistics.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SlaveJson {
    /// What the slave is.
    #[serde(flatten)]
    pub info: SlaveInfo,
    /// `doStep` calls.
    pub do_step: TimerJson,
    /// FMU state saves.
    pub get_state: TimerJson,
    /// FMU state restores.
    pub set_state: TimerJson,
    /// A Model Exchange slave's integrator and event counts; `null` for other slaves.
    #[serde(default)]
    pub integrator: Option<master::IntegratorStatistics>,
}

/// The real-time figures of a paced run (see [`PacingFigures`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RealTimeJson {
    /// Simulated seconds per wall-clock second over the paced part of the run.
    pub factor: f64,
    /// The same over the last 500 ms.
    pub rolling_factor: f64,
    /// Steps that ended more than 1 ms late.
    pub overruns: u64,
    /// The largest overrun, s.
    pub max_overrun_seconds: f64,
    /// Median deviation of the communication points from their deadlines, s.
    pub deviation_median_seconds: f64,
    /// 99th percentile of that deviation, s.
    pub deviation_p99_seconds: f64,
}

/// The content of `log/summary.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SummaryJson {
    /// Always `mastersim-summary`.
    pub schema: String,
    /// [`SUMMARY_JSON_VERSION`].
    pub version: u32,
    /// The version of mastersim that ran.
    pub mastersim_version: String,
    /// `Completed`, `Terminated`, `Interrupted`, `Failed`, `TimedOut` or `FmuExited` (the
    /// `Outcome` of `summary.txt`, which a completed run leaves out there).
    pub outcome: String,
    /// What happened, for every outcome but `Completed` (`null` then).
    pub message: Option<String>,
    /// The project file, or the FMU of a run of one FMU.
    pub project: PathBuf,
    /// The working directory.
    pub working_directory: PathBuf,
    /// Start time, s.
    pub t_start: f64,
    /// End time, s.
    pub t_end: f64,
    /// The last communication point reached, s.
    pub t_reached: f64,
    /// The counters.
    pub counters: CountersJson,
    /// The timers.
    pub timers: TimersJson,
    /// The slaves in project order.
    pub slaves: Vec<SlaveJson>,
    /// The real-time figures of a paced run; `null` otherwise.
    pub real_time: Option<RealTimeJson>,
    /// The files in `results/`, relative to the working directory, sorted.
    pub result_files: Vec<PathBuf>,
    /// The command-line options that changed the project, in order.
    pub overrides: Vec<String>,
}

impl SummaryJson {
    /// The summary of a run described by `run`, with statistics `stats` after
    /// `wall_clock` s, ended as the `Outcome` and `Message` of `ending_lines` say (a completed
    /// run has none; see `Ending::summary_lines`), paced with `pacing`.
    pub(crate) fn new(
        run: &RunInfo,
        stats: &Statistics,
        wall_clock: f64,
        ending_lines: &[(&str, String)],
        pacing: Option<&PacingFigures>,
    ) -> SummaryJson {
        let c = &stats.counters;
        let lines = ending_lines;
        let field = |key: &str| {
            lines
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.clone())
        };
        let timer = |t: &Timer| TimerJson::of(t, wall_clock);
        let slaves = run
            .slaves
            .iter()
            .zip(&stats.slaves)
            .map(|(info, s)| SlaveJson {
                info: info.clone(),
                do_step: timer(&s.do_step),
                get_state: timer(&s.get_state),
                set_state: timer(&s.set_state),
                integrator: s.integrator,
            })
            .collect();
        SummaryJson {
            schema: "mastersim-summary".into(),
            version: SUMMARY_JSON_VERSION,
            mastersim_version: env!("CARGO_PKG_VERSION").into(),
            outcome: field("Outcome").unwrap_or_else(|| "Completed".into()),
            message: field("Message"),
            project: run.project.clone(),
            working_directory: run.working_directory.clone(),
            t_start: run.t_start,
            t_end: run.t_end,
            t_reached: c.t,
            counters: CountersJson::from(c),
            timers: TimersJson {
                wall_clock_seconds: wall_clock,
                master_algorithm: timer(&c.algorithm),
                output: timer(&c.output),
                error_test: timer(&c.error_test),
            },
            slaves,
            real_time: pacing.map(|p| RealTimeJson {
                factor: p.total_factor,
                rolling_factor: p.rolling_factor,
                overruns: p.overruns,
                max_overrun_seconds: p.max_overrun,
                deviation_median_seconds: p.deviation_median,
                deviation_p99_seconds: p.deviation_p99,
            }),
            result_files: result_files(&run.working_directory),
            overrides: run.overrides.clone(),
        }
    }

    /// Reads a `summary.json`.
    ///
    /// # Errors
    /// [`crate::Error::Io`] when the file cannot be read; [`crate::Error::SummaryJson`] when it
    /// is not a summary of this layout (naming the line and column).
    pub fn read(path: &Path) -> crate::Result<SummaryJson> {
        let text = std::fs::read_to_string(path).map_err(|source| crate::Error::Io {
            action: "read",
            path: path.to_path_buf(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|e| crate::Error::SummaryJson {
            path: path.to_path_buf(),
            problem: e.to_string(),
        })
    }
}

/// The files in `<working_dir>/results/`, relative to `working_dir`, sorted (subdirectories
/// walked).
fn result_files(working_dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, base, out);
            } else if let Ok(relative) = path.strip_prefix(base) {
                out.push(relative.to_path_buf());
            }
        }
    }
    let mut files = Vec::new();
    walk(&working_dir.join("results"), working_dir, &mut files);
    files.sort();
    files
}
