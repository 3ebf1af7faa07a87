//! Real-time pacing: holds each communication point back until its wall-clock deadline.
//!
//! The deadline of communication point `t` is `T0 + (t − t0)/factor`, where `T0` is the wall
//! time and `t0` the simulated time at which pacing last (re)started: at the start of stepping,
//! after a pause, after a change of factor, and after an overrun. Every deadline is computed
//! from that one base, never by adding step lengths, so rounding and sleep overshoot do not
//! accumulate into drift.
//!
//! A step that ends more than [`OVERRUN_TOLERANCE`] after its deadline is an *overrun*: it is
//! counted, the base moves to that moment (so the following steps are not run back to back
//! to catch up), and a warning is logged at most once per second.
//!
//! Spec: the block simulator's real-time mode (seed design, "slow down to real time with a
//! configurable factor"); OMSimulator's soft real-time flag (overruns are reported, not
//! recovered).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use master::time::TimeFormat;
use serde::Serialize;

/// How late a step may end before it counts as an overrun: below this, the lateness is timer
/// jitter, and the next deadline (still on the same base) absorbs it.
pub const OVERRUN_TOLERANCE: Duration = Duration::from_millis(1);

/// The wall-time window of the rolling factor.
pub const ROLLING_WINDOW: Duration = Duration::from_millis(500);

/// Width of one bin of the deviation histogram.
const BIN: Duration = Duration::from_micros(10);

/// Number of bins: deviations up to 100 ms are resolved to [`BIN`], longer ones share the
/// last bin (the largest is kept exactly as the largest overrun).
const BINS: usize = 10_000;

/// Least wall time between two overrun warnings.
const WARNING_INTERVAL: Duration = Duration::from_secs(1);

/// The figures of a paced run, as `summary.txt`, the progress line and the live view report
/// them.
///
/// A *factor* is simulated seconds per wall-clock second while the run was stepping: single
/// steps and pauses do not count.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PacingFigures {
    /// The factor achieved since stepping started.
    pub total_factor: f64,
    /// The factor over the last [`ROLLING_WINDOW`] of stepping wall time.
    pub rolling_factor: f64,
    /// Steps that ended more than [`OVERRUN_TOLERANCE`] after their deadline.
    pub overruns: u64,
    /// The largest lateness of a step, s.
    pub max_overrun: f64,
    /// Median of how far each paced communication point was released after its deadline, s
    /// (resolution 10 µs).
    pub deviation_median: f64,
    /// 99th percentile of the same, s.
    pub deviation_p99: f64,
}

impl PacingFigures {
    /// The four figures of the progress line and the console statistics, e.g.
    /// `×1.000 (last 0.5 s ×1.002), 0 overruns, largest 0.0 ms`.
    pub fn describe(&self) -> String {
        format!(
            "×{:.3} (last 0.5 s ×{:.3}), {} overrun{}, largest {:.1} ms",
            self.total_factor,
            self.rolling_factor,
            self.overruns,
            if self.overruns == 1 { "" } else { "s" },
            self.max_overrun * 1e3
        )
    }
}

/// The latest figures of a paced run, shared by the stepping loop (which writes them) and the
/// progress line and `summary.txt` (which read them). A run that was never paced costs a
/// reader one relaxed atomic load per look, not a lock.
#[derive(Debug, Default)]
pub(crate) struct PacingSlot {
    /// Set once figures were stored.
    paced: AtomicBool,
    figures: Mutex<Option<PacingFigures>>,
}

impl PacingSlot {
    /// Stores `figures` when `pacing` (pacing is on now) or the run was paced before.
    pub(crate) fn report(&self, pacing: bool, figures: PacingFigures) {
        if pacing || self.paced.load(Ordering::Relaxed) {
            *self.figures.lock().unwrap_or_else(PoisonError::into_inner) = Some(figures);
            self.paced.store(true, Ordering::Release);
        }
    }

    /// The latest figures; `None` when the run was never paced.
    pub(crate) fn get(&self) -> Option<PacingFigures> {
        if !self.paced.load(Ordering::Acquire) {
            return None;
        }
        *self.figures.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Paces the communication points of a run (see the module documentation).
#[derive(Debug)]
pub struct Pacer {
    /// Simulated seconds per wall-clock second; `None`: measure only, never wait.
    factor: Option<f64>,
    /// How the warnings print times (to the precision of the run's time grid).
    time_format: TimeFormat,
    /// The simulated time of the base, s.
    t_base: f64,
    /// The wall time of the base.
    wall_base: Instant,
    /// The last communication point released while running, s, and when.
    last: Option<(f64, Instant)>,
    /// Simulated time advanced while running, s.
    advanced: f64,
    /// Wall time spent running (from resumption to each release).
    active: Duration,
    /// `(active, advanced)` at each release within the rolling window (plus one before it).
    window: VecDeque<(Duration, f64)>,
    overruns: u64,
    max_overrun: Duration,
    /// Counts of release deviations per [`BIN`].
    deviations: Vec<u64>,
    /// When the last overrun warning was logged, and overruns since then not warned about.
    last_warning: Option<Instant>,
    unwarned: u64,
}

impl Pacer {
    /// A pacer at `factor` (`None`: no waiting, figures only) whose base is the communication
    /// point `t` (s) now.
    ///
    /// # Panics
    /// Never; a factor that is not finite and > 0 is treated as `None` (callers validate it).
    pub fn new(t: f64, factor: Option<f64>) -> Pacer {
        Pacer {
            factor: factor.filter(|f| f.is_finite() && *f > 0.0),
            time_format: TimeFormat::default(),
            t_base: t,
            wall_base: Instant::now(),
            last: None,
            advanced: 0.0,
            active: Duration::ZERO,
            window: VecDeque::new(),
            overruns: 0,
            max_overrun: Duration::ZERO,
            deviations: vec![0; BINS],
            last_warning: None,
            unwarned: 0,
        }
    }

    /// The same pacer, printing the times of its warnings with `format` (the run's
    /// [`master::SimulationPlan::time_format`]).
    pub fn with_time_format(mut self, format: TimeFormat) -> Pacer {
        self.time_format = format;
        self
    }

    /// The real-time factor, if pacing.
    pub fn factor(&self) -> Option<f64> {
        self.factor
    }

    /// (Re)starts running at communication point `t` (s) with `factor`: the base moves to `t`
    /// now. Called when stepping starts, after a pause or single steps, and when the factor
    /// changes.
    pub fn resume(&mut self, t: f64, factor: Option<f64>) {
        let now = Instant::now();
        self.factor = factor.filter(|f| f.is_finite() && *f > 0.0);
        self.t_base = t;
        self.wall_base = now;
        self.last = Some((t, now));
    }

    /// Marks the run as not running (paused, waiting or single-stepping): the wall time until
    /// the next [`Pacer::resume`] does not count.
    pub fn hold(&mut self) {
        self.last = None;
    }

    /// The wall-clock deadline of communication point `t` (s) on the current base; `None`
    /// when not pacing.
    pub fn deadline(&self, t: f64) -> Option<Instant> {
        let factor = self.factor?;
        let offset = ((t - self.t_base) / factor).max(0.0);
        Some(self.wall_base + Duration::from_secs_f64(offset))
    }

    /// Releases communication point `t` (s), just computed while running (after
    /// [`Pacer::resume`], before [`Pacer::hold`]): waits until its
    /// deadline with `wait` (which returns `false` when it woke early because the run was
    /// steered, e.g. paused), or counts an overrun when the deadline has passed by more than
    /// [`OVERRUN_TOLERANCE`]. Returns the wall time of the release.
    pub fn release(&mut self, t: f64, wait: impl FnOnce(Instant) -> bool) -> Instant {
        if let Some(deadline) = self.deadline(t) {
            let now = Instant::now();
            if now <= deadline {
                if wait(deadline) {
                    self.record_deviation(Instant::now().saturating_duration_since(deadline));
                }
            } else {
                let late = now - deadline;
                self.record_deviation(late);
                if late > OVERRUN_TOLERANCE {
                    self.overrun(t, late, now);
                }
            }
        }
        let now = Instant::now();
        if let Some((t_last, wall_last)) = self.last {
            self.advanced += t - t_last;
            self.active += now.saturating_duration_since(wall_last);
            self.window.push_back((self.active, self.advanced));
            while self.window.len() > 2 && self.active - self.window[1].0 >= ROLLING_WINDOW {
                self.window.pop_front();
            }
        }
        if self.last.is_some() {
            self.last = Some((t, now));
        }
        now
    }

    /// Counts an overrun of `late` at communication point `t`, moves the base there, and warns
    /// unless a warning was logged less than a second ago.
    fn overrun(&mut self, t: f64, late: Duration, now: Instant) {
        self.overruns += 1;
        self.max_overrun = self.max_overrun.max(late);
        self.t_base = t;
        self.wall_base = now;
        self.unwarned += 1;
        if self
            .last_warning
            .is_none_or(|w| now.duration_since(w) >= WARNING_INTERVAL)
        {
            let others = self.unwarned - 1;
            let others = if others > 0 {
                format!(" ({others} more since the last warning)")
            } else {
                String::new()
            };
            log::warn!(
                "real time: the step to t = {} s ended {:.1} ms after its deadline{others}; \
                 pacing continues from there",
                self.time_format.show(t),
                late.as_secs_f64() * 1e3
            );
            self.last_warning = Some(now);
            self.unwarned = 0;
        }
    }

    fn record_deviation(&mut self, deviation: Duration) {
        let bin = (deviation.as_nanos() / BIN.as_nanos()).min(BINS as u128 - 1) as usize;
        self.deviations[bin] += 1;
    }

    /// The deviation below which a fraction `q` (0..=1) of the releases fall, s: the upper
    /// edge of that histogram bin; 0 when nothing was paced.
    fn deviation_quantile(&self, q: f64) -> f64 {
        let total: u64 = self.deviations.iter().sum();
        if total == 0 {
            return 0.0;
        }
        let rank = ((q * total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, n) in self.deviations.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return (i as f64 + 1.0) * BIN.as_secs_f64();
            }
        }
        BINS as f64 * BIN.as_secs_f64()
    }

    /// The figures so far (see [`PacingFigures`]); factors are 0 before anything ran.
    pub fn figures(&self) -> PacingFigures {
        let ratio = |sim: f64, wall: Duration| {
            if wall.is_zero() {
                0.0
            } else {
                sim / wall.as_secs_f64()
            }
        };
        let rolling = match (self.window.front(), self.window.back()) {
            (Some(first), Some(last)) => ratio(last.1 - first.1, last.0 - first.0),
            _ => 0.0,
        };
        PacingFigures {
            total_factor: ratio(self.advanced, self.active),
            rolling_factor: rolling,
            overruns: self.overruns,
            max_overrun: self.max_overrun.as_secs_f64(),
            deviation_median: self.deviation_quantile(0.5),
            deviation_p99: self.deviation_quantile(0.99),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sleep_until(deadline: Instant) -> bool {
        std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
        true
    }

    #[test]
    fn deadlines_come_from_one_base() {
        let mut pacer = Pacer::new(0.0, Some(2.0));
        pacer.resume(1.0, Some(2.0));
        let base = pacer.deadline(1.0).unwrap();
        // 1000 steps of 0.001 s at factor 2: exactly 0.5 s after the base, no accumulation.
        let d = pacer.deadline(1.0 + 1000.0 * 0.001).unwrap() - base;
        assert!((d.as_secs_f64() - 0.5).abs() < 1e-9, "{d:?}");
        assert_eq!(Pacer::new(0.0, None).deadline(5.0), None);
    }

    #[test]
    fn a_late_step_is_an_overrun_and_moves_the_base() {
        let mut pacer = Pacer::new(0.0, Some(1.0));
        pacer.resume(0.0, Some(1.0));
        // The step to 0.001 s "took" 20 ms: 19 ms late.
        std::thread::sleep(Duration::from_millis(20));
        let released = pacer.release(0.001, |_| panic!("a late step does not wait"));
        let f = pacer.figures();
        assert_eq!(f.overruns, 1);
        assert!(f.max_overrun >= 0.018, "{f:?}");
        // The next deadline is one step after the late release, not in the past.
        let next = pacer.deadline(0.002).unwrap();
        assert!(next >= released, "no catch-up burst");
        // A punctual step waits and records a small deviation.
        pacer.release(0.002, sleep_until);
        assert_eq!(pacer.figures().overruns, 1);
    }

    #[test]
    fn paced_steps_achieve_the_factor() {
        let mut pacer = Pacer::new(0.0, Some(10.0));
        pacer.resume(0.0, Some(10.0));
        for k in 1..=20 {
            pacer.release(f64::from(k) * 0.01, sleep_until); // 20 ms of wall time in all
        }
        // A pacer never runs ahead of its factor; on a loaded machine a sleep may end late, so
        // the lower bounds leave room for the scheduler.
        let f = pacer.figures();
        assert!(f.total_factor <= 10.5, "{f:?}");
        assert!(f.total_factor > 5.0, "{f:?}");
        assert!(f.rolling_factor > 5.0, "{f:?}");
        assert!(f.deviation_median < 0.01, "{f:?}");
        assert!(f.overruns <= 2, "{f:?}");
    }

    #[test]
    fn held_time_does_not_count() {
        let mut pacer = Pacer::new(0.0, None);
        pacer.resume(0.0, None);
        pacer.release(1.0, |_| true);
        pacer.hold();
        std::thread::sleep(Duration::from_millis(30));
        pacer.release(2.0, |_| true); // a single step while held: not counted
        pacer.resume(2.0, None);
        pacer.release(3.0, |_| true);
        let f = pacer.figures();
        // Two simulated seconds in well under 30 ms of running.
        assert!(f.total_factor > 2.0 / 0.030, "{f:?}");
        assert_eq!(f.overruns, 0);
    }
}
