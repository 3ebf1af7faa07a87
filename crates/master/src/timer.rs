//! Sampled timers of the statistics (`summary.txt`).
//!
//! Reading the clock costs about 50 ns on the virtual machines mastersim is measured on, which
//! is more than the whole master costs per slave and step. So a [`Timer`] reads the clock for
//! one call in [`SAMPLE`] only (the first call, then every `SAMPLE`-th) and extrapolates: the
//! reported time is the sampled time times the number of calls over the number of sampled
//! calls. Counts are exact; times are estimates whose error shrinks with the number of calls.
//! A run with few calls is timed exactly, since the first call is always sampled.
//!
//! Spec: MasterSim reference §12.5 (timers of `summary.txt`); docs/performance.md.

use std::time::Instant;

/// One call in this many is timed.
pub const SAMPLE: u64 = 64;

/// Number of calls and estimated accumulated wall time (s) of one kind of call.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Timer {
    /// Number of calls.
    pub count: u64,
    /// Number of timed calls.
    sampled: u64,
    /// Wall time of the timed calls, s.
    sampled_seconds: f64,
}

impl Timer {
    /// A timer with exactly measured totals: `count` calls that took `seconds` s.
    pub fn from_totals(count: u64, seconds: f64) -> Timer {
        Timer {
            count,
            sampled: count,
            sampled_seconds: seconds,
        }
    }

    /// Starts a call: the current time when this call is to be timed.
    #[inline]
    pub fn start(&self) -> Option<Instant> {
        self.count.is_multiple_of(SAMPLE).then(Instant::now)
    }

    /// Ends a call started with [`Timer::start`].
    #[inline]
    pub fn stop(&mut self, started: Option<Instant>) {
        self.count += 1;
        if let Some(started) = started {
            self.sampled += 1;
            self.sampled_seconds += started.elapsed().as_secs_f64();
        }
    }

    /// Estimated wall time of all calls, s.
    pub fn seconds(&self) -> f64 {
        if self.sampled == 0 {
            0.0
        } else {
            self.sampled_seconds * self.count as f64 / self.sampled as f64
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
            (130, 3),
            "calls 0, 64 and 128 are timed"
        );
        let seconds = timer.seconds();
        assert!(seconds >= 130.0 * 200e-6 && seconds < 1.0, "{seconds}");
        assert_eq!(Timer::from_totals(3, 1.5).seconds(), 1.5);
        assert_eq!(Timer::default().seconds(), 0.0);
    }
}
