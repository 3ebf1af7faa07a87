//! Progress on the console: a bar on a terminal, otherwise a plain line every few seconds. A
//! view of the run's counters ([`master::Counters`]).
//!
//! Spec: MasterSim reference §12.4 (console output).

use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Instant;

use master::values::TypedValues;
use master::{Counters, Observer, ObserverError, OutputLayout};

use crate::pacing::PacingSlot;

/// Steps between updates: reading the clock and formatting on every step would cost more than
/// the step of cheap slaves.
const PROGRESS_STEPS: u64 = 256;

/// Least wall time between two progress lines (when stdout is not a terminal), s.
const LINE_INTERVAL: f64 = 2.0;

/// Least wall time between two updates of the bar of a paced run (whose steps are few and
/// slow), s.
const PACED_INTERVAL: f64 = 0.25;

/// How progress is shown.
enum Display {
    Bar(indicatif::ProgressBar),
    Lines { last: Instant },
}

/// The console progress observer.
pub(crate) struct ConsoleProgress {
    display: Display,
    t_end: f64,
    started: Instant,
    /// The figures of a paced run, published by the session.
    pacing: Arc<PacingSlot>,
    /// The last update of a paced run's bar.
    paced_update: Instant,
}

impl ConsoleProgress {
    /// A bar when stdout is a terminal, lines otherwise; `pacing` holds the figures of a
    /// paced run, shown on the line.
    pub fn new(pacing: Arc<PacingSlot>) -> Self {
        let display = if std::io::stdout().is_terminal() {
            let bar = indicatif::ProgressBar::new(1000);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:40} {percent:>3}% t = {msg} [{elapsed_precise}, ETA {eta}]",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            Display::Bar(bar)
        } else {
            Display::Lines {
                last: Instant::now(),
            }
        };
        ConsoleProgress {
            display,
            t_end: 0.0,
            started: Instant::now(),
            pacing,
            paced_update: Instant::now(),
        }
    }
}

impl Observer for ConsoleProgress {
    fn start(&mut self, layout: &OutputLayout) -> Result<(), ObserverError> {
        self.t_end = layout.t_end;
        self.started = Instant::now();
        Ok(())
    }

    fn output(&mut self, _t: f64, _values: &TypedValues) -> Result<(), ObserverError> {
        Ok(())
    }

    fn step_completed(&mut self, c: &Counters) {
        let pacing = self.pacing.get();
        if pacing.is_some() {
            // A paced run takes few steps per second: update by wall time instead.
            if self.paced_update.elapsed().as_secs_f64() < PACED_INTERVAL {
                return;
            }
            self.paced_update = Instant::now();
        } else if !c.steps.is_multiple_of(PROGRESS_STEPS) {
            return;
        }
        let real_time =
            pacing.map_or_else(String::new, |p| format!(", real time {}", p.describe()));
        let fraction = (c.t / self.t_end).clamp(0.0, 1.0);
        match &mut self.display {
            Display::Bar(bar) => {
                bar.set_position((fraction * 1000.0) as u64);
                bar.set_message(format!("{:.6} s{real_time}", c.t));
            }
            Display::Lines { last } => {
                if last.elapsed().as_secs_f64() >= LINE_INTERVAL {
                    *last = Instant::now();
                    log::info!(
                        "t = {} s ({:.1} %), {} steps, {:.1} s elapsed{real_time}",
                        c.t,
                        100.0 * fraction,
                        c.steps,
                        self.started.elapsed().as_secs_f64()
                    );
                }
            }
        }
    }
}

impl Drop for ConsoleProgress {
    fn drop(&mut self) {
        if let Display::Bar(bar) = &self.display {
            bar.finish_and_clear();
        }
    }
}
