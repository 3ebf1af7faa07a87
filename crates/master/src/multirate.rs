//! The multi-rate scheduler: which slaves step at which instant, and to which communication
//! point.
//!
//! Instants are integer ticks k of the master's tick τ (hStart): t = tStart + k·τ. Each slave
//! with a clock of its own ([`SlaveClock::Periodic`]) has its sample n at a fixed tick; the next
//! instant is the smallest next sample tick of any slave (a binary heap keeps them, so an
//! instant costs in proportion to the slaves that step, plus one pass over the cycles' order
//! lists). At an instant the due slaves step from their last communication point to their
//! sample time `t_i,1 + n·Δt_i`, computed from n with one multiplication and one addition, so
//! it never drifts; slaves triggered by a due slave step too, to the same point, after it. The
//! slaves that do not step hold their outputs: their coupling values stay as they are.
//!
//! [`crate::step_control`] takes the instant: the master algorithm sees it as an ordinary
//! communication step whose cycles hold
//! only the due slaves, in the order of [`crate::plan::MultiRate::order`]: Gauss-Jacobi reads
//! the values from before the instant, Gauss-Seidel passes a due slave's new outputs on to the
//! due slaves after it, and iteration rolls back only the due slaves.
//!
//! Spec: the block-scheduling design (next instant = smallest next sample time, predecessors
//! first, outputs held between samples); `docs/algorithms.md` (multi-rate schedule).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::checkpoint::SchedulerState;
use crate::index::SlaveIndex;
use crate::plan::{MultiRate, SimulationPlan, SlaveClock};
use crate::settings::Settings;
use crate::system::System;
use crate::time;

/// The schedule of a multi-rate run between instants.
#[derive(Debug, Clone)]
pub(crate) struct Scheduler {
    rates: MultiRate,
    t_start: f64,
    /// Index of the next sample of every slave (periodic slaves only).
    sample: Vec<u64>,
    /// `(tick of the next sample, slave)` of every periodic slave.
    queue: BinaryHeap<Reverse<(u64, usize)>>,
    /// The slaves each slave triggers.
    triggered: Vec<Vec<SlaveIndex>>,
    /// The communication point of the next instant, s (set by [`Scheduler::propose`]).
    next_time: f64,
    /// The periodic slaves due at the current instant (popped from the queue).
    popped: Vec<usize>,
    /// Slaves due at the current instant, with their target communication points.
    due: Vec<(SlaveIndex, f64)>,
    /// Whether each slave is due at the current instant.
    is_due: Vec<bool>,
}

impl Scheduler {
    /// The state a checkpoint keeps: the sample counters, the queue and the next instant.
    pub fn snapshot(&self) -> SchedulerState {
        SchedulerState {
            sample: self.sample.clone(),
            queue: self.queue.iter().map(|Reverse(entry)| *entry).collect(),
            next_time: self.next_time,
        }
    }

    /// Puts the scheduler back into a state taken by [`Scheduler::snapshot`].
    pub fn restore(&mut self, state: &SchedulerState) {
        self.sample.clone_from(&state.sample);
        self.queue = state.queue.iter().map(|&entry| Reverse(entry)).collect();
        self.next_time = state.next_time;
    }

    /// The scheduler of `plan`, when it has a multi-rate schedule.
    pub fn new(plan: &SimulationPlan) -> Option<Scheduler> {
        let rates = plan.multirate.clone()?;
        let t_start = plan.settings.t_start;
        let n = rates.clocks.len();
        let mut sample = vec![0; n];
        let mut queue = BinaryHeap::with_capacity(n);
        let mut triggered = vec![Vec::new(); n];
        for (s, clock) in rates.clocks.iter().enumerate() {
            match clock {
                SlaveClock::Periodic(grid) => {
                    // Sample time tStart is the initialization, not a step.
                    while grid.tick_of(sample[s], rates.tick, t_start) == 0 {
                        sample[s] += 1;
                    }
                    queue.push(Reverse((grid.tick_of(sample[s], rates.tick, t_start), s)));
                }
                SlaveClock::Triggered(by) => triggered[by.0].push(SlaveIndex(s)),
            }
        }
        Some(Scheduler {
            rates,
            t_start,
            sample,
            queue,
            triggered,
            next_time: t_start,
            popped: Vec::with_capacity(n),
            due: Vec::with_capacity(n),
            is_due: vec![false; n],
        })
    }

    /// The tick of the next instant (`None` when no slave has a clock of its own, which only a
    /// trigger cycle in a project built in code can cause: then nothing steps).
    fn next_tick(&self) -> Option<u64> {
        self.queue.peek().map(|&Reverse((k, _))| k)
    }

    /// Proposes the next instant after communication point `t` (s) and returns the step size
    /// to it, or `None` when no step remains. An instant beyond the end time is moved to it when
    /// `preventOversteppingOfEndTime` is on; a remainder below the rounding guard ends the run.
    ///
    /// Spec: MasterSim reference §9 (end-time clamps), applied to the instant.
    pub fn propose(&mut self, t: f64, s: &Settings) -> Option<f64> {
        if t >= s.t_end {
            return None;
        }
        let mut next = self.t_start + self.next_tick()? as f64 * self.rates.tick;
        if next > s.t_end {
            if time::remainder_negligible(t, s.t_end) {
                return None;
            }
            if s.prevent_overstepping_of_end_time {
                next = s.t_end;
            }
        }
        self.next_time = next;
        Some(next - t)
    }

    /// The communication point of the proposed instant, s.
    pub fn next_time(&self) -> f64 {
        self.next_time
    }

    /// Marks the slaves due at the proposed instant, sets their target communication points,
    /// and fills `sys.cycles` with them in evaluation order.
    pub fn prepare(&mut self, sys: &mut System) {
        let Some(tick) = self.next_tick() else {
            return;
        };
        let truncated = self.next_time != self.t_start + tick as f64 * self.rates.tick;
        while let Some(&Reverse((k, s))) = self.queue.peek()
            && k == tick
        {
            self.queue.pop();
            self.popped.push(s);
            let SlaveClock::Periodic(grid) = self.rates.clocks[s] else {
                unreachable!("invariant: only periodic slaves are queued");
            };
            let target = if truncated {
                self.next_time
            } else if grid.interval_ticks.is_some() {
                grid.first + self.sample[s] as f64 * grid.interval
            } else {
                self.next_time
            };
            self.due.push((SlaveIndex(s), target));
        }
        // Triggered slaves, transitively, to their trigger's point.
        let mut i = 0;
        while i < self.due.len() {
            let (s, target) = self.due[i];
            for &d in &self.triggered[s.0] {
                self.due.push((d, target));
            }
            i += 1;
        }
        for &(s, target) in &self.due {
            self.is_due[s.0] = true;
            let node = &mut sys.nodes[s.0];
            node.target = Some(target);
            node.idle = false;
        }
        for (cycle, order) in sys.cycles.iter_mut().zip(&self.rates.order) {
            cycle.clear();
            cycle.extend(order.iter().filter(|s| self.is_due[s.0]));
        }
    }

    /// Moves every slave that stepped at the instant on to its next sample (after the instant
    /// was accepted) and marks it idle again.
    pub fn commit(&mut self, sys: &mut System) {
        for &s in &self.popped {
            self.sample[s] += 1;
            if let SlaveClock::Periodic(grid) = self.rates.clocks[s] {
                let k = grid.tick_of(self.sample[s], self.rates.tick, self.t_start);
                self.queue.push(Reverse((k, s)));
            }
        }
        self.popped.clear();
        for &(s, _) in &self.due {
            self.is_due[s.0] = false;
            sys.nodes[s.0].idle = true;
        }
        self.due.clear();
    }
}
