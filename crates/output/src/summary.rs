//! Run statistics: the console "Solver statistics" block and `log/summary.txt`.
//!
//! MasterSim prints a fixed-width statistics table at the end of a run and writes the same
//! numbers as `Key=value` lines to `log/summary.txt`. MasterSim's regression runner compares
//! the integer counters of that file exactly, so their keys and format must not change.
//!
//! Spec: MasterSim reference §12.5 and §12.8; §14.1 (how the runner reads the file).

use std::path::Path;

use crate::Result;
use crate::file::TextFile;
use crate::number::{
    DEFAULT_PRECISION, write_fixed, write_g, write_left_aligned, write_right_aligned, write_u64,
};

/// Timers and counters of one slave.
///
/// Spec: MasterSim reference §12.5 (per-slave lines) and §12.8 (when counters increment).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SlaveStatistics {
    /// Slave name, as on its `simulator` line.
    pub name: String,
    /// Wall time spent in `doStep` calls (s).
    pub do_step_time: f64,
    /// Number of `doStep` calls.
    pub do_step_count: u64,
    /// Wall time spent capturing states (s).
    pub get_state_time: f64,
    /// Number of state captures.
    pub get_state_count: u64,
    /// Wall time spent restoring states (s).
    pub set_state_time: f64,
    /// Number of state restores (rollbacks).
    pub set_state_count: u64,
}

/// Statistics of a whole run, written at its end.
///
/// Spec: MasterSim reference §12.5 and §12.8.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Statistics {
    /// Wall-clock time from the start of time stepping to the end (s).
    pub wall_clock_time: f64,
    /// Wall time spent writing outputs (s).
    pub output_writing_time: f64,
    /// Number of completed master steps.
    pub master_algorithm_steps: u64,
    /// Wall time spent in the master algorithm, error-test half steps included (s).
    pub master_algorithm_time: f64,
    /// Number of step-size reductions after a failed step.
    pub convergence_fails: u64,
    /// Number of times an iterating algorithm hit its iteration limit.
    pub convergence_iter_limit_exceeded: u64,
    /// Number of failed error tests.
    pub error_test_fails: u64,
    /// Wall time spent in the error test (s).
    pub error_test_time: f64,
    /// Per-slave statistics, in project (slave) order.
    pub slaves: Vec<SlaveStatistics>,
}

/// The dashed rule of the console block (78 characters).
const RULE: &str =
    "------------------------------------------------------------------------------\n";

impl Statistics {
    /// The content of `log/summary.txt`: one `Key=value` line per statistic.
    ///
    /// Keys, in order: `WallClockTime`, `FrameworkTimeWriteOutputs`, `MasterAlgorithmSteps`,
    /// `MasterAlgorithmTime`, `ConvergenceFails`, `ConvergenceIterLimitExceeded`,
    /// `ErrorTestFails`, `ErrorTestTime`, then `Slave[i]Time` for each slave (1-based, the
    /// sum of its doStep, getState and setState times). Times are printed with `%g` (six
    /// significant digits), counters as integers. Every line ends with `\n`.
    ///
    /// Units: times in seconds.
    ///
    /// Spec: MasterSim reference §12.5 (`log/summary.txt`).
    pub fn summary_text(&self) -> String {
        self.summary_text_with_extra(&[])
    }

    /// [`summary_text`](Self::summary_text) followed by one `key=value` line per `extra` entry.
    ///
    /// The standard keys and their format are unchanged; extra lines come last, in the
    /// order given, written verbatim. Note that MasterSim's regression runner requires the
    /// same key set as the reference for keys that do not contain `Time`.
    ///
    /// Shapes: `extra` holds `(key, value)` pairs.
    ///
    /// Spec: MasterSim reference §12.5; §14.1 (runner key-set rule).
    pub fn summary_text_with_extra(&self, extra: &[(&str, &str)]) -> String {
        let mut s = String::with_capacity(256 + 32 * self.slaves.len());
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
        time(
            &mut s,
            "FrameworkTimeWriteOutputs",
            self.output_writing_time,
        );
        count(&mut s, "MasterAlgorithmSteps", self.master_algorithm_steps);
        time(&mut s, "MasterAlgorithmTime", self.master_algorithm_time);
        count(&mut s, "ConvergenceFails", self.convergence_fails);
        count(
            &mut s,
            "ConvergenceIterLimitExceeded",
            self.convergence_iter_limit_exceeded,
        );
        count(&mut s, "ErrorTestFails", self.error_test_fails);
        time(&mut s, "ErrorTestTime", self.error_test_time);
        for (i, slave) in self.slaves.iter().enumerate() {
            let total = slave.do_step_time + slave.get_state_time + slave.set_state_time;
            time(&mut s, &format!("Slave[{}]Time", i + 1), total);
        }
        for (key, value) in extra {
            s.push_str(key);
            s.push('=');
            s.push_str(value);
            s.push('\n');
        }
        s
    }

    /// Writes [`summary_text`](Self::summary_text) to `path` (MasterSim: `<wd>/log/summary.txt`).
    ///
    /// # Errors
    /// [`Error::Create`](crate::Error::Create) or [`Error::Write`](crate::Error::Write)
    /// with the path when the file cannot be created or written.
    ///
    /// Spec: MasterSim reference §12.5.
    pub fn write_summary(&self, path: impl AsRef<Path>) -> Result<()> {
        self.write_summary_with_extra(path, &[])
    }

    /// Writes [`summary_text_with_extra`](Self::summary_text_with_extra) to `path`.
    ///
    /// Shapes: `extra` holds `(key, value)` pairs appended after the standard keys.
    ///
    /// # Errors
    /// [`Error::Create`](crate::Error::Create) or [`Error::Write`](crate::Error::Write)
    /// with the path when the file cannot be created or written.
    ///
    /// Spec: MasterSim reference §12.5.
    pub fn write_summary_with_extra(
        &self,
        path: impl AsRef<Path>,
        extra: &[(&str, &str)],
    ) -> Result<()> {
        let mut file = TextFile::create(path.as_ref())?;
        file.write(&self.summary_text_with_extra(extra))?;
        file.flush()
    }

    /// The console "Solver statistics" block, lines ending in `\n`, starting with an empty line.
    ///
    /// All times use one unit chosen from the wall-clock time (see [`TimeUnit::suitable`]);
    /// each is printed as `%7.3f` (`%7.0f` for `ms`), a space, the unit and padding to
    /// four characters for units shorter than three, the whole right-aligned in 13
    /// characters. Counts are right-aligned in 6 characters, slave names left-aligned
    /// in 30 (widths in bytes, as C++ `setw`). MasterSim logs each line at the standard verbosity level.
    ///
    /// Units: times in seconds in `self`; printed in the chosen unit.
    ///
    /// Spec: MasterSim reference §12.5 (console block).
    pub fn console_block(&self) -> String {
        let unit = TimeUnit::suitable(self.wall_clock_time);
        let mut s = String::with_capacity(1024 + 256 * self.slaves.len());
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
        time(&mut s, self.output_writing_time);
        s.push('\n');
        s.push_str("Master-Algorithm                           = ");
        time(&mut s, self.master_algorithm_time);
        s.push_str("    ");
        count(&mut s, self.master_algorithm_steps);
        s.push('\n');
        s.push_str("Convergence failures                       =                  ");
        count(&mut s, self.convergence_fails);
        s.push('\n');
        s.push_str("Convergence iteration limit exceeded       =                  ");
        count(&mut s, self.convergence_iter_limit_exceeded);
        s.push('\n');
        s.push_str("Error test time and failure count          = ");
        time(&mut s, self.error_test_time);
        s.push_str("    ");
        count(&mut s, self.error_test_fails);
        s.push('\n');
        s.push_str(RULE);
        for slave in &self.slaves {
            let lines = [
                ("      doStep = ", slave.do_step_time, slave.do_step_count),
                ("getState = ", slave.get_state_time, slave.get_state_count),
                ("setState = ", slave.set_state_time, slave.set_state_count),
            ];
            for (i, (label, t, n)) in lines.into_iter().enumerate() {
                if i == 0 {
                    write_left_aligned(&mut s, 30, |s| s.push_str(&slave.name));
                } else {
                    s.push_str(&" ".repeat(34));
                }
                s.push_str(label);
                time(&mut s, t);
                s.push_str("    ");
                count(&mut s, n);
                s.push('\n');
            }
        }
        s.push_str(RULE);
        s
    }
}

/// Display unit of the console statistics, chosen from the wall-clock time.
///
/// Spec: MasterSim reference §12.5 (time unit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TimeUnit {
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

impl TimeUnit {
    /// Picks the unit for a wall-clock time: > 180 d → `a`, > 0.5 d → `d`, > 1800 s → `h`,
    /// > 180 s → `min`, > 1 s → `s`, otherwise `ms`.
    ///
    /// Units: `wall_clock_time` in seconds.
    ///
    /// Spec: MasterSim reference §12.5 (time unit).
    pub fn suitable(wall_clock_time: f64) -> TimeUnit {
        const DAY: f64 = 86400.0;
        if wall_clock_time > 180.0 * DAY {
            TimeUnit::Years
        } else if wall_clock_time > 0.5 * DAY {
            TimeUnit::Days
        } else if wall_clock_time > 1800.0 {
            TimeUnit::Hours
        } else if wall_clock_time > 180.0 {
            TimeUnit::Minutes
        } else if wall_clock_time > 1.0 {
            TimeUnit::Seconds
        } else {
            TimeUnit::Milliseconds
        }
    }

    /// The unit's symbol (`ms`, `s`, `min`, `h`, `d`, `a`).
    ///
    /// Spec: MasterSim reference §12.5.
    pub fn symbol(self) -> &'static str {
        match self {
            TimeUnit::Milliseconds => "ms",
            TimeUnit::Seconds => "s",
            TimeUnit::Minutes => "min",
            TimeUnit::Hours => "h",
            TimeUnit::Days => "d",
            TimeUnit::Years => "a",
        }
    }

    /// Converts a duration from seconds to this unit.
    ///
    /// Units: `seconds` in s; result in this unit.
    ///
    /// Spec: MasterSim reference §12.5.
    pub fn from_seconds(self, seconds: f64) -> f64 {
        match self {
            TimeUnit::Milliseconds => seconds * 1000.0,
            TimeUnit::Seconds => seconds,
            TimeUnit::Minutes => seconds / 60.0,
            TimeUnit::Hours => seconds / 3600.0,
            TimeUnit::Days => seconds / 86400.0,
            TimeUnit::Years => seconds / (365.0 * 86400.0),
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
        let decimals = if self == TimeUnit::Milliseconds { 0 } else { 3 };
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
