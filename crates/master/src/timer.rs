//! Sampled timers of the statistics (`summary.txt`).
//!
//! Reading the clock costs about 50 ns on the virtual machines mastersim is measured on, which
//! is more than the whole master costs per slave and step. So a [`Timer`] times the first
//! [`SAMPLE`] calls exactly and after them one call in [`SAMPLE`] only, whose time it
//! extrapolates over the calls after the first `SAMPLE`. Counts are exact; a run with few calls
//! is timed exactly, and a longer run's time is an estimate whose error shrinks with the number
//! of calls. The first calls are often far slower than the rest (cold caches, the FMU's first
//! allocations); timing them exactly keeps them from being multiplied by `SAMPLE`.
//!
//! Spec: MasterSim reference §12.5 (timers of `summary.txt`); docs/performance.md.

use std::time::Instant;

/// The first `SAMPLE` calls are timed, then one call in `SAMPLE`.
pub const SAMPLE: u64 = 64;

/// Number of calls and estimated accumulated wall time (s) of one kind of call.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Timer {
    /// Number of calls.
    pub count: u64,
    /// Wall time of the first [`SAMPLE`] calls (all timed), s.
    exact_seconds: f64,
    /// Number of timed calls after the first [`SAMPLE`].
    sampled: u64,
    /// Wall time of those timed calls, s.
    sampled_seconds: f64,
}

impl Timer {
    /// A timer with exactly measured totals: `count` calls that took `seconds` s.
    pub fn from_totals(count: u64, seconds: f64) -> Timer {
        Timer {
            count,
            exact_seconds: seconds,
            sampled: 0,
            sampled_seconds: 0.0,
        }
    }

    /// Starts a call: the current time when this call is to be timed.
    #[inline]
    pub fn start(&self) -> Option<Instant> {
        (self.count < SAMPLE || self.count.is_multiple_of(SAMPLE)).then(Instant::now)
    }

    /// Ends a call started with [`Timer::start`].
    #[inline]
    pub fn stop(&mut self, started: Option<Instant>) {
        let index = self.count;
        self.count += 1;
        if let Some(started) = started {
            let seconds = started.elapsed().as_secs_f64();
            if index < SAMPLE {
                self.exact_seconds += seconds;
            } else {
                self.sampled += 1;
                self.sampled_seconds += seconds;
            }
        }
    }

    /// True when [`Timer::seconds`] is an estimate: more than [`SAMPLE`] calls, so that only
    /// one call in [`SAMPLE`] after the first was timed.
    pub fn is_sampled(&self) -> bool {
        self.sampled > 0
    }

    /// Estimated wall time of all calls, s.
    pub fn seconds(&self) -> f64 {
        if self.sampled == 0 {
            self.exact_seconds
        } else {
            let later = self.count.saturating_sub(SAMPLE);
            self.exact_seconds + self.sampled_seconds * later as f64 / self.sampled as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_one_call_in_sample_and_extrapolates() {
        let mut timer = Timer::default();
        let mut timed = 0;
        for _ in 0..130 {
            let started = timer.start();
            timed += u64::from(started.is_some());
            std::thread::sleep(std::time::Duration::from_micros(200));
            timer.stop(started);
        }
        assert_eq!(
            (timer.count, timed),
            (130, 66),
            "calls 0 to 63, then 64 and 128 are timed"
        );
        let seconds = timer.seconds();
        assert!((130.0 * 200e-6..1.0).contains(&seconds), "{seconds}");
        assert_eq!(Timer::from_totals(3, 1.5).seconds(), 1.5);
        assert_eq!(Timer::default().seconds(), 0.0);
    }

    #[test]
    fn a_slow_first_call_is_not_extrapolated() {
        let mut timer = Timer::default();
        let started = timer.start();
        std::thread::sleep(std::time::Duration::from_millis(20));
        timer.stop(started);
        for _ in 0..1000 {
            let started = timer.start();
            timer.stop(started);
        }
        let seconds = timer.seconds();
        // Extrapolating the first call over the 1001 calls would report more than 1 s.
        assert!((0.02..0.5).contains(&seconds), "{seconds}");
    }
}
