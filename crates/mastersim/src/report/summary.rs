//! The statistics at the end of a run: the console "Solver statistics" block and
//! `log/summary.txt`, both views of [`Statistics`].
//!
//! MasterSim prints a fixed-width statistics table at the end of a run and writes the same
//! numbers as `Key=value` lines to `log/summary.txt`. MasterSim's regression runner compares
//! the integer counters of that file exactly, so their keys and format must not change. A run
//! that did not complete gets two more lines, `Outcome=` and `Message=` ([`Ending`]).
//!
//! Spec: MasterSim reference §12.5 and §12.8; §14.1 (how the runner reads the file).

use std::path::Path;

use master::Statistics;
use master::time::TimeFormat;
use output::number::{
    DEFAULT_PRECISION, write_fixed, write_g, write_left_aligned, write_right_aligned, write_u64,
};

use super::json::{RunInfo, SummaryJson};
use crate::pacing::PacingFigures;
use crate::{Error, Result};

/// How a run ended, as `log/summary.txt` reports it.
///
/// Spec: `docs/robustness.md` (outcomes).
#[derive(Debug, Clone, PartialEq)]
pub enum Ending {
    /// The end time was reached.
    Completed,
    /// A slave asked to end the simulation at communication point `t` (s).
    Terminated {
        /// The slave.
        slave: String,
        /// Last completed communication point, s.
        t: f64,
    },
    /// The run was stopped at communication point `t` (s) before the end time.
    Interrupted {
        /// Why, as a phrase (e.g. "SIGINT received", "stop requested").
        cause: String,
        /// Last completed communication point, s.
        t: f64,
    },
    /// The simulation failed with this message.
    Failed(String),
    /// An FMU call exceeded the step timeout (message).
    TimedOut(String),
    /// Code inside an FMU ended the process with the C library's `exit`.
    FmuExited {
        /// The slave whose FMU called `exit`.
        slave: String,
        /// The FMI function it was in.
        function: String,
        /// The exit status it passed (the process ends with it).
        code: i32,
        /// The last communication point with a complete result row, s.
        t: f64,
    },
}

impl Ending {
    /// How a run that `error` ended ends: [`Ending::TimedOut`] when an isolated slave's call
    /// exceeded the step timeout (its helper process was killed, the run's results are kept),
    /// else [`Ending::Failed`]; with [`Error::chain_text`] as the message.
    ///
    /// Spec: `docs/isolation.md`, `docs/robustness.md` (outcomes).
    pub fn of_error(error: &Error) -> Ending {
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
        while let Some(cause) = source {
            // A boxed source may be seen as the box or as what it holds.
            let fmi = cause
                .downcast_ref::<fmi::Error>()
                .or_else(|| cause.downcast_ref::<Box<fmi::Error>>().map(|b| &**b));
            if let Some(fmi::Error::Isolated {
                source: fmi::isolation::Error::Timeout { .. },
                ..
            }) = fmi
            {
                return Ending::TimedOut(error.chain_text());
            }
            source = cause.source();
        }
        Ending::Failed(error.chain_text())
    }

    /// The lines appended to `summary.txt`: none for a completed run (so the key set stays
    /// MasterSim's), otherwise `Outcome=<word>` and `Message=<one line>`, whose times are
    /// printed by `times` (to the precision of the run's time grid).
    pub fn summary_lines(&self, times: &TimeFormat) -> Vec<(&'static str, String)> {
        let (outcome, message) = match self {
            Ending::Completed => return Vec::new(),
            Ending::Terminated { slave, t } => (
                "Terminated",
                format!(
                    "slave '{slave}' requested the end of the simulation at t={} s",
                    times.show(*t)
                ),
            ),
            Ending::Interrupted { cause, t } => (
                "Interrupted",
                format!("{cause}; stopped at t={} s", times.show(*t)),
            ),
            Ending::Failed(m) => ("Failed", m.clone()),
            Ending::TimedOut(m) => ("TimedOut", m.clone()),
            Ending::FmuExited {
                slave,
                function,
                code,
                t,
            } => (
                "FmuExited",
                format!(
                    "slave '{slave}' ended the process with exit code {code} inside {function}; \
                     results are complete up to t={} s",
                    times.show(*t)
                ),
            ),
        };
        vec![
            ("Outcome", outcome.to_string()),
            ("Message", message.replace(['\n', '\r'], " ")),
        ]
    }
}

/// The dashed rule of the console block (78 characters).
const RULE: &str =
    "------------------------------------------------------------------------------\n";

/// The end-of-run view of [`Statistics`] with the wall-clock time it was taken at.
#[derive(Debug, Clone, Copy)]
pub struct Summary<'a> {
    /// The statistics.
    pub stats: &'a Statistics,
    /// Wall-clock time of the run, s.
    pub wall_clock_time: f64,
    /// Also write every slave's `doStep` calls (`Slave[i]DoStepCalls`): multi-rate runs, whose
    /// slaves step at different instants.
    pub do_step_calls: bool,
    /// The figures of a paced run: `RealTime…` lines.
    pub pacing: Option<PacingFigures>,
    /// What the run is: with it, [`Summary::write`] also writes `summary.json`.
    pub run: Option<&'a RunInfo>,
}

impl<'a> Summary<'a> {
    /// The summary of `stats` now (its wall clock read from the counters).
    pub fn now(stats: &'a Statistics) -> Self {
        Summary {
            stats,
            wall_clock_time: stats.counters.wall_clock_time(),
            do_step_calls: false,
            pacing: None,
            run: None,
        }
    }

    /// The same summary, also written as `summary.json` next to `summary.txt` (see
    /// [`Summary::write`]).
    pub fn with_run(self, run: &'a RunInfo) -> Self {
        Summary {
            run: Some(run),
            ..self
        }
    }

    /// `seconds` of a timer, capped at the wall-clock time: a sampled estimate (see
    /// [`master::Timer`]) may come out above the run it is part of.
    fn capped(&self, timer: &master::Timer) -> f64 {
        timer.seconds().min(self.wall_clock_time)
    }

    /// True when any timer's time is a sampled estimate.
    fn any_sampled(&self) -> bool {
        let c = &self.stats.counters;
        [c.algorithm, c.output, c.error_test]
            .iter()
            .chain(
                self.stats
                    .slaves
                    .iter()
                    .flat_map(|s| [&s.do_step, &s.get_state, &s.set_state]),
            )
            .any(|t| t.is_sampled())
    }

    /// The same summary, with `Slave[i]DoStepCalls` lines when `multirate` (see
    /// [`Summary::text`]).
    pub fn with_do_step_calls(self, multirate: bool) -> Self {
        Summary {
            do_step_calls: multirate,
            ..self
        }
    }

    /// The same summary, with the `RealTime…` lines of a paced run (see [`Summary::text`]).
    pub fn with_pacing(self, pacing: Option<PacingFigures>) -> Self {
        Summary { pacing, ..self }
    }

    /// The content of `log/summary.txt`: one `Key=value` line per statistic, then one line per
    /// `extra` entry.
    ///
    /// Keys, in order: `WallClockTime`, `FrameworkTimeWriteOutputs`, `MasterAlgorithmSteps`,
    /// `MasterAlgorithmTime`, `ConvergenceFails`, `ConvergenceIterLimitExceeded`,
    /// `ErrorTestFails`, `ErrorTestTime`, then `Slave[i]Time` for each slave (1-based, the
    /// sum of its doStep, getState and setState times), and in a multi-rate run (see
    /// [`Summary::with_do_step_calls`]) `Slave[i]DoStepCalls` for each slave, its number of
    /// `doStep` calls (mastersim's own key). Each Model Exchange slave then has
    /// `Slave[i]IntegratorSteps`, `Slave[i]RhsEvaluations`, `Slave[i]JacobianEvaluations`,
    /// `Slave[i]StateEvents`, `Slave[i]TimeEvents` and `Slave[i]StepEvents` (mastersim's own
    /// keys; MasterSim 0.9.8 had no Model Exchange slaves). Times are printed with `%g` (six
    /// significant digits), counters as integers. A paced run (see [`Summary::with_pacing`])
    /// then has `RealTimeFactor` (achieved in total), `RealTimeRollingFactor` (over the last
    /// 500 ms), `RealTimeOverruns`, `RealTimeMaxOverrun`, `RealTimeDeviationMedian` and
    /// `RealTimeDeviationP99` (s; mastersim's own keys, see [`PacingFigures`]). Every line ends
    /// with `\n`. MasterSim's
    /// regression runner requires the reference's key set for keys without `Time`, so extra
    /// lines appear only for runs that did not complete.
    ///
    /// Units: times in seconds. Shapes: `extra` holds `(key, value)` pairs.
    ///
    /// Spec: MasterSim reference §12.5 (`log/summary.txt`), §14.1 (runner key-set rule).
    pub fn text(&self, extra: &[(&str, String)]) -> String {
        let c = &self.stats.counters;
        let mut s = String::with_capacity(256 + 32 * self.stats.slaves.len());
        let time = |s: &mut String, key: &str, value: f64| {
            s.push_str(key);
            s.push('=');
            write_g(s, value, DEFAULT_PRECISION);
            s.push('\n');
        };
        let count = |s: &mut String, key: &str, value: u64| {
            s.push_str(key);
            s.push('=');
            write_u64(s, value);
            s.push('\n');
        };
        time(&mut s, "WallClockTime", self.wall_clock_time);
        time(&mut s, "FrameworkTimeWriteOutputs", self.capped(&c.output));
        count(&mut s, "MasterAlgorithmSteps", c.steps);
        time(&mut s, "MasterAlgorithmTime", self.capped(&c.algorithm));
        count(&mut s, "ConvergenceFails", c.convergence_fails);
        count(
            &mut s,
            "ConvergenceIterLimitExceeded",
            c.iteration_limit_exceeded,
        );
        count(&mut s, "ErrorTestFails", c.error_test_fails);
        time(&mut s, "ErrorTestTime", self.capped(&c.error_test));
        for (i, slave) in self.stats.slaves.iter().enumerate() {
            let total =
                slave.do_step.seconds() + slave.get_state.seconds() + slave.set_state.seconds();
            time(
                &mut s,
                &format!("Slave[{}]Time", i + 1),
                total.min(self.wall_clock_time),
            );
        }
        if self.do_step_calls {
            for (i, slave) in self.stats.slaves.iter().enumerate() {
                count(
                    &mut s,
                    &format!("Slave[{}]DoStepCalls", i + 1),
                    slave.do_step.count,
                );
            }
        }
        for (i, slave) in self.stats.slaves.iter().enumerate() {
            for (key, value) in integrator_counts(slave) {
                count(&mut s, &format!("Slave[{}]{key}", i + 1), value);
            }
        }
        if let Some(p) = &self.pacing {
            time(&mut s, "RealTimeFactor", p.total_factor);
            time(&mut s, "RealTimeRollingFactor", p.rolling_factor);
            count(&mut s, "RealTimeOverruns", p.overruns);
            time(&mut s, "RealTimeMaxOverrun", p.max_overrun);
            time(&mut s, "RealTimeDeviationMedian", p.deviation_median);
            time(&mut s, "RealTimeDeviationP99", p.deviation_p99);
        }
        for (key, value) in extra {
            s.push_str(key);
            s.push('=');
            s.push_str(value);
            s.push('\n');
        }
        s
    }

    /// Writes [`Summary::text`] with the lines of `ending` to `path` (MasterSim:
    /// `<wd>/log/summary.txt`) and, with [`Summary::with_run`], [`SummaryJson`] to `path` with
    /// the extension `json`.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file when one cannot be written (both are attempted).
    ///
    /// Spec: MasterSim reference §12.5; `docs/results.md` (summary.json).
    pub fn write(&self, path: &Path, ending: &Ending) -> Result<()> {
        let write = |path: &Path, text: String| {
            output::write_fresh(path, text).map_err(|source| Error::Io {
                action: "write",
                path: path.to_path_buf(),
                source,
            })
        };
        let times = self.run.map_or_else(TimeFormat::default, |r| r.time_format);
        let lines = ending.summary_lines(&times);
        let text = write(path, self.text(&lines));
        if let Some(run) = self.run {
            let json = SummaryJson::new(
                run,
                self.stats,
                self.wall_clock_time,
                &lines,
                self.pacing.as_ref(),
            );
            let mut body = serde_json::to_string_pretty(&json).unwrap_or_default();
            body.push('\n');
            write(&path.with_extension("json"), body)?;
        }
        text
    }

    /// Logs the console block (each line at info level, as MasterSim prints it at the standard
    /// verbosity) and writes `path` as [`Summary::write`] does.
    ///
    /// # Errors
    /// As [`Summary::write`].
    ///
    /// Spec: MasterSim reference §12.5.
    pub fn log_and_write(&self, path: &Path, ending: &Ending) -> Result<()> {
        for line in self.console_block().lines() {
            log::info!("{line}");
        }
        self.write(path, ending)
    }

    /// The console "Solver statistics" block, lines ending in `\n`, starting with an empty line.
    ///
    /// All times use one unit chosen from the wall-clock time (see [`DisplayUnit::suitable`]);
    /// each is printed as `%7.3f` (`%7.0f` for `ms`), a space, the unit and padding to
    /// four characters for units shorter than three, the whole right-aligned in 13
    /// characters. Counts are right-aligned in 6 characters, slave names left-aligned
    /// in 30 (widths in bytes, as C++ `setw`). MasterSim logs each line at the standard
    /// verbosity level.
    ///
    /// Units: times in seconds in the statistics; printed in the chosen unit.
    ///
    /// Spec: MasterSim reference §12.5 (console block).
    pub fn console_block(&self) -> String {
        let c = &self.stats.counters;
        let unit = DisplayUnit::suitable(self.wall_clock_time);
        let mut s = String::with_capacity(1024 + 256 * self.stats.slaves.len());
        let time = |s: &mut String, value: f64| {
            write_right_aligned(s, 13, |s| unit.write_duration(s, value));
        };
        let count = |s: &mut String, value: u64| {
            write_right_aligned(s, 6, |s| write_u64(s, value));
        };
        s.push_str("\nSolver statistics\n");
        s.push_str(RULE);
        s.push_str("Wall clock time                            = ");
        time(&mut s, self.wall_clock_time);
        s.push('\n');
        s.push_str(RULE);
        s.push_str("Output writing                             = ");
        time(&mut s, self.capped(&c.output));
        s.push('\n');
        s.push_str("Master-Algorithm                           = ");
        time(&mut s, self.capped(&c.algorithm));
        s.push_str("    ");
        count(&mut s, c.steps);
        s.push('\n');
        s.push_str("Convergence failures                       =                  ");
        count(&mut s, c.convergence_fails);
        s.push('\n');
        s.push_str("Convergence iteration limit exceeded       =                  ");
        count(&mut s, c.iteration_limit_exceeded);
        s.push('\n');
        s.push_str("Error test time and failure count          = ");
        time(&mut s, self.capped(&c.error_test));
        s.push_str("    ");
        count(&mut s, c.error_test_fails);
        s.push('\n');
        s.push_str(RULE);
        for slave in &self.stats.slaves {
            let lines = [
                ("      doStep = ", slave.do_step),
                ("getState = ", slave.get_state),
                ("setState = ", slave.set_state),
            ];
            for (i, (label, timer)) in lines.into_iter().enumerate() {
                if i == 0 {
                    write_left_aligned(&mut s, 30, |s| s.push_str(&slave.name));
                } else {
                    s.push_str(&" ".repeat(34));
                }
                s.push_str(label);
                time(&mut s, self.capped(&timer));
                s.push_str("    ");
                count(&mut s, timer.count);
                s.push('\n');
            }
            if let Some(n) = slave.integrator {
                s.push_str(&" ".repeat(34));
                s.push_str("integrator steps, RHS, Jacobians = ");
                for value in [n.steps, n.rhs_evaluations, n.jacobian_evaluations] {
                    s.push(' ');
                    count(&mut s, value);
                }
                s.push('\n');
                s.push_str(&" ".repeat(34));
                s.push_str("state, time, step events         = ");
                for value in [n.state_events, n.time_events, n.step_events] {
                    s.push(' ');
                    count(&mut s, value);
                }
                s.push('\n');
            }
        }
        s.push_str(RULE);
        if self.any_sampled() {
            s.push_str(
                "Times below the wall clock are sampled: after the first 64 calls of a kind, one \
                 in 64 is timed\nand the rest estimated from it (counts are exact).\n",
            );
        }
        if let Some(p) = &self.pacing {
            s.push_str("Real time: ");
            s.push_str(&p.describe());
            s.push('\n');
        }
        s
    }
}

/// The `summary.txt` keys (after `Slave[i]`) and values of a Model Exchange slave's
/// integrator counts; none for other slaves.
fn integrator_counts(slave: &master::SlaveStatistics) -> Vec<(&'static str, u64)> {
    slave.integrator.map_or_else(Vec::new, |n| {
        vec![
            ("IntegratorSteps", n.steps),
            ("RhsEvaluations", n.rhs_evaluations),
            ("JacobianEvaluations", n.jacobian_evaluations),
            ("StateEvents", n.state_events),
            ("TimeEvents", n.time_events),
            ("StepEvents", n.step_events),
        ]
    })
}

/// Display unit of the console statistics, chosen from the wall-clock time.
///
/// Spec: MasterSim reference §12.5 (time unit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DisplayUnit {
    /// Milliseconds (`ms`), printed without decimals.
    Milliseconds,
    /// Seconds (`s`).
    Seconds,
    /// Minutes (`min`).
    Minutes,
    /// Hours (`h`).
    Hours,
    /// Days (`d`).
    Days,
    /// Years of 365 days (`a`).
    Years,
}

impl DisplayUnit {
    /// Picks the unit for a wall-clock time: > 180 d → `a`, > 0.5 d → `d`, > 1800 s → `h`,
    /// > 180 s → `min`, > 1 s → `s`, otherwise `ms`.
    ///
    /// Units: `wall_clock_time` in seconds.
    ///
    /// Spec: MasterSim reference §12.5 (time unit).
    pub fn suitable(wall_clock_time: f64) -> DisplayUnit {
        const DAY: f64 = 86400.0;
        if wall_clock_time > 180.0 * DAY {
            DisplayUnit::Years
        } else if wall_clock_time > 0.5 * DAY {
            DisplayUnit::Days
        } else if wall_clock_time > 1800.0 {
            DisplayUnit::Hours
        } else if wall_clock_time > 180.0 {
            DisplayUnit::Minutes
        } else if wall_clock_time > 1.0 {
            DisplayUnit::Seconds
        } else {
            DisplayUnit::Milliseconds
        }
    }

    /// The unit's symbol (`ms`, `s`, `min`, `h`, `d`, `a`).
    ///
    /// Spec: MasterSim reference §12.5.
    pub fn symbol(self) -> &'static str {
        match self {
            DisplayUnit::Milliseconds => "ms",
            DisplayUnit::Seconds => "s",
            DisplayUnit::Minutes => "min",
            DisplayUnit::Hours => "h",
            DisplayUnit::Days => "d",
            DisplayUnit::Years => "a",
        }
    }

    /// Converts a duration from seconds to this unit.
    ///
    /// Units: `seconds` in s; result in this unit.
    ///
    /// Spec: MasterSim reference §12.5.
    pub fn from_seconds(self, seconds: f64) -> f64 {
        match self {
            DisplayUnit::Milliseconds => seconds * 1000.0,
            DisplayUnit::Seconds => seconds,
            DisplayUnit::Minutes => seconds / 60.0,
            DisplayUnit::Hours => seconds / 3600.0,
            DisplayUnit::Days => seconds / 86400.0,
            DisplayUnit::Years => seconds / (365.0 * 86400.0),
        }
    }

    /// Appends a duration as the console block prints it, before the 13-character alignment.
    ///
    /// That is `%7.3f` of the converted value (`%7.0f` for `ms`), a space, the symbol, and
    /// `4 − len(symbol)` spaces when the symbol is shorter than 3 characters.
    ///
    /// Units: `seconds` in s.
    ///
    /// Spec: MasterSim reference §12.5 (time fields).
    pub fn write_duration(self, out: &mut String, seconds: f64) {
        let decimals = if self == DisplayUnit::Milliseconds {
            0
        } else {
            3
        };
        write_right_aligned(out, 7, |s| {
            write_fixed(s, self.from_seconds(seconds), decimals)
        });
        out.push(' ');
        let symbol = self.symbol();
        out.push_str(symbol);
        if symbol.len() < 3 {
            for _ in symbol.len()..4 {
                out.push(' ');
            }
        }
    }
}

#[cfg(test)]
mod tests;
