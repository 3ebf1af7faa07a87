//! Whether a waiter spins before it sleeps, and how long: adaptive, per helper, for helpers of
//! every platform.
//!
//! Waking a sleeping process on an idle processor costs tens of microseconds on a virtual
//! machine (more than a cheap slave-step), so spinning pays when the master and the helper each
//! have a processor: the answer then comes within a microsecond. A spinning Linux helper runs
//! on another processor than the master's (`follow_master` of `fmu_host.c`). Spinning costs
//! when there are more helpers than processors (a chain of 10 on 2 cores): then a Linux helper
//! shares the master's processor and the hand-over is a switch between the two, with no spin
//! (2.5 µs per bare round trip on the 2-core machine), and a Windows helper polls.
//!
//! Rule: no spin while this process has at least as many helpers as processors; otherwise
//! spin for `SPIN_MICROSECONDS` until 8 spins in a row missed, then only every 64th round trip
//! (a probe, so that spinning resumes when processors become free).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::protocol::SPIN_MICROSECONDS;

/// Helpers alive in this process (counted by [`Spin`], one per helper).
static LIVE_HELPERS: AtomicUsize = AtomicUsize::new(0);

/// Misses in a row after which a helper stops spinning (but for probes).
const MISSES_TO_STOP: u32 = 8;
/// Round trips between two probes while spinning is stopped.
const PROBE_EVERY: u32 = 64;

/// The spin state of one helper.
#[derive(Debug)]
pub(crate) struct Spin {
    misses: u32,
    round_trips: u32,
}

impl Spin {
    /// A new helper's state (counted as live until dropped).
    pub(crate) fn new() -> Spin {
        LIVE_HELPERS.fetch_add(1, Ordering::Relaxed);
        Spin {
            misses: 0,
            round_trips: 0,
        }
    }

    /// The spin budget of the next round trip, in microseconds (0: sleep at once).
    pub(crate) fn budget(&mut self) -> u32 {
        static PROCESSORS: OnceLock<usize> = OnceLock::new();
        let processors =
            *PROCESSORS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        self.round_trips = self.round_trips.wrapping_add(1);
        let crowded = LIVE_HELPERS.load(Ordering::Relaxed) >= processors;
        let missing =
            self.misses >= MISSES_TO_STOP && !self.round_trips.is_multiple_of(PROBE_EVERY);
        if crowded || missing {
            0
        } else {
            SPIN_MICROSECONDS
        }
    }

    /// Records whether a spin saw the answer (`hit`) or ended in a sleep.
    pub(crate) fn record(&mut self, hit: bool) {
        self.misses = if hit {
            0
        } else {
            self.misses.saturating_add(1)
        };
    }
}

impl Drop for Spin {
    fn drop(&mut self) {
        LIVE_HELPERS.fetch_sub(1, Ordering::Relaxed);
    }
}
