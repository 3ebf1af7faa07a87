//! Supervision of slave calls by wall-clock time.
//!
//! A hanging FMU call cannot be interrupted from inside the process. [`CallMonitor`] lets
//! another thread see which slave is in which call, since when, at which `t` and `h`: the
//! master records the start and end of every `doStep`, state and initialization call (a few
//! relaxed atomic stores, no locks), and a watchdog polls [`CallMonitor::longest_call`] and
//! ends the run when a call takes too long (`--step-timeout`).
//!
//! Spec: issue "Robustness" (timeout of hanging FMU calls); FMI 2.0.2 §2.1 (calls of one
//! instance are sequential; calls of different instances may run on different threads).

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::statistics::SlaveStatistics;
use crate::timer::Timer;

/// The slave calls a [`CallMonitor`] records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum SlaveCall {
    /// `setupExperiment`.
    SetupExperiment = 1,
    /// `enterInitializationMode` (FMI 1.0: `fmiInitializeSlave`).
    EnterInitializationMode,
    /// `exitInitializationMode`.
    ExitInitializationMode,
    /// `doStep`.
    DoStep,
    /// `getFMUstate`.
    GetState,
    /// `setFMUstate`.
    SetState,
    /// `terminate`.
    Terminate,
}

impl SlaveCall {
    const ALL: [SlaveCall; 7] = [
        SlaveCall::SetupExperiment,
        SlaveCall::EnterInitializationMode,
        SlaveCall::ExitInitializationMode,
        SlaveCall::DoStep,
        SlaveCall::GetState,
        SlaveCall::SetState,
        SlaveCall::Terminate,
    ];

    /// The FMI name of the call.
    pub fn name(self) -> &'static str {
        match self {
            SlaveCall::SetupExperiment => "setupExperiment",
            SlaveCall::EnterInitializationMode => "enterInitializationMode",
            SlaveCall::ExitInitializationMode => "exitInitializationMode",
            SlaveCall::DoStep => "doStep",
            SlaveCall::GetState => "getFMUstate",
            SlaveCall::SetState => "setFMUstate",
            SlaveCall::Terminate => "terminate",
        }
    }
}

/// One slave's current call: start time in ns since the monitor's origin (0 = idle), call,
/// and `t`/`h` as `f64` bits; plus count and total ns of its finished `doStep`, `getFMUstate`
/// and `setFMUstate` calls (indices of [`timed_index`]).
#[derive(Debug, Default)]
struct Slot {
    started: AtomicU64,
    call: AtomicU8,
    t: AtomicU64,
    h: AtomicU64,
    counts: [AtomicU64; 3],
    totals: [AtomicU64; 3],
    /// The slave runs in a helper process whose calls end themselves at the limit.
    contained: AtomicBool,
}

/// Index of the calls whose time [`CallMonitor::slave_statistics`] reports.
fn timed_index(call: SlaveCall) -> Option<usize> {
    match call {
        SlaveCall::DoStep => Some(0),
        SlaveCall::GetState => Some(1),
        SlaveCall::SetState => Some(2),
        _ => None,
    }
}

/// A call in progress, as seen by [`CallMonitor::longest_call`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BusyCall {
    /// Index of the slave (project order).
    pub slave: usize,
    /// The call.
    pub call: SlaveCall,
    /// Communication point of the call, s.
    pub t: f64,
    /// Communication step size of the call, s (0 for calls without a step).
    pub h: f64,
    /// Wall time the call has taken so far.
    pub elapsed: Duration,
    /// The slave runs in a helper process ([`CallMonitor::contain`]): its call is ended at
    /// the limit by killing the helper, and the run goes on to report it.
    pub contained: bool,
}

/// Which slave is in which call since when; shared between the simulation and a watchdog.
#[derive(Debug)]
pub struct CallMonitor {
    origin: Instant,
    slots: Vec<Slot>,
}

impl CallMonitor {
    /// A monitor for `slaves` slaves (indices `0..slaves`).
    pub fn new(slaves: usize) -> CallMonitor {
        CallMonitor {
            origin: Instant::now(),
            slots: (0..slaves).map(|_| Slot::default()).collect(),
        }
    }

    /// Marks `slave` as one that runs in a helper process with the same call timeout: a
    /// watchdog gives its calls a grace period beyond the limit, in which the helper is killed
    /// and the failed call reported by the stepping thread itself.
    pub fn contain(&self, slave: usize) {
        if let Some(slot) = self.slots.get(slave) {
            slot.contained.store(true, Ordering::Relaxed);
        }
    }

    /// Records that `slave` starts `call` at communication point `t` with step `h` (s).
    pub(crate) fn begin(&self, slave: usize, call: SlaveCall, t: f64, h: f64) {
        if let Some(slot) = self.slots.get(slave) {
            slot.call.store(call as u8, Ordering::Relaxed);
            slot.t.store(t.to_bits(), Ordering::Relaxed);
            slot.h.store(h.to_bits(), Ordering::Relaxed);
            let now = self.origin.elapsed().as_nanos().max(1) as u64;
            slot.started.store(now, Ordering::Release);
        }
    }

    /// Records that `slave`'s `call` returned.
    pub(crate) fn end(&self, slave: usize, call: SlaveCall) {
        if let Some(slot) = self.slots.get(slave) {
            let started = slot.started.swap(0, Ordering::AcqRel);
            if let Some(i) = timed_index(call) {
                let now = self.origin.elapsed().as_nanos() as u64;
                slot.counts[i].fetch_add(1, Ordering::Relaxed);
                slot.totals[i].fetch_add(now.saturating_sub(started), Ordering::Relaxed);
            }
        }
    }

    /// Count and wall time of `slave`'s finished `doStep`, `getFMUstate` and `setFMUstate`
    /// calls, for a summary written while the simulation itself cannot be asked (the
    /// master thread is stuck in a call). `name` is the slave's name.
    pub fn slave_statistics(&self, slave: usize, name: &str) -> SlaveStatistics {
        let timer = |i: usize| {
            self.slots.get(slave).map_or_else(Timer::default, |slot| {
                Timer::from_totals(
                    slot.counts[i].load(Ordering::Relaxed),
                    slot.totals[i].load(Ordering::Relaxed) as f64 * 1e-9,
                )
            })
        };
        SlaveStatistics {
            name: name.to_string(),
            do_step: timer(0),
            get_state: timer(1),
            set_state: timer(2),
            integrator: None,
        }
    }

    /// The call in progress that has taken longest so far, if any.
    pub fn longest_call(&self) -> Option<BusyCall> {
        let now = self.origin.elapsed().as_nanos() as u64;
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(slave, slot)| {
                let started = slot.started.load(Ordering::Acquire);
                if started == 0 {
                    return None;
                }
                let code = slot.call.load(Ordering::Relaxed);
                let call = SlaveCall::ALL.into_iter().find(|c| *c as u8 == code)?;
                Some(BusyCall {
                    slave,
                    call,
                    t: f64::from_bits(slot.t.load(Ordering::Relaxed)),
                    h: f64::from_bits(slot.h.load(Ordering::Relaxed)),
                    elapsed: Duration::from_nanos(now.saturating_sub(started)),
                    contained: slot.contained.load(Ordering::Relaxed),
                })
            })
            .max_by_key(|c| c.elapsed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_the_longest_running_call() {
        let monitor = CallMonitor::new(3);
        assert_eq!(monitor.longest_call(), None);
        monitor.begin(1, SlaveCall::DoStep, 2.5, 0.1);
        std::thread::sleep(Duration::from_millis(5));
        monitor.begin(2, SlaveCall::GetState, 2.5, 0.0);
        let busy = monitor.longest_call().expect("a call in progress");
        assert_eq!(
            (busy.slave, busy.call, busy.t, busy.h),
            (1, SlaveCall::DoStep, 2.5, 0.1)
        );
        assert!(busy.elapsed >= Duration::from_millis(5));
        monitor.end(1, SlaveCall::DoStep);
        assert_eq!(monitor.longest_call().map(|c| c.slave), Some(2));
        monitor.end(2, SlaveCall::GetState);
        assert_eq!(monitor.longest_call(), None);
        let stats = monitor.slave_statistics(1, "one");
        assert_eq!(
            (
                stats.name.as_str(),
                stats.do_step.count,
                stats.get_state.count
            ),
            ("one", 1, 0)
        );
        assert!(stats.do_step.seconds() >= 0.005);
        assert_eq!(monitor.slave_statistics(2, "two").get_state.count, 1);
        assert_eq!(SlaveCall::DoStep.name(), "doStep");
    }
}
