//! The master's side of a checkpoint: everything a run holds between two communication steps
//! besides the slaves' own states, as one serializable value.
//!
//! [`crate::Simulation::snapshot`] takes it at a communication point;
//! [`crate::Simulation::resume`] puts an initialized simulation of the same plan back into it.
//! With the slaves' states restored too (serialized FMU states, or a replay from the start
//! time), the run then goes on exactly as the interrupted one would have.
//!
//! Spec: `docs/checkpoints.md`; the block simulator's design (continuing an interrupted
//! simulation from stored simulation data).

use serde::{Deserialize, Serialize};

use crate::error_control::ErrorEstimator;
use crate::statistics::{Counters, SlaveStatistics, Statistics};
use crate::time::{FixedGrid, OutputSchedule};
use crate::values::TypedValues;

/// The master's state at a communication point: time, step-size control, coupled values,
/// counters and timers, the output schedule.
///
/// Spec: `docs/checkpoints.md` (what a checkpoint holds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MasterState {
    /// The communication point, s.
    pub t: f64,
    /// Run-wide counters and timers (without the wall-clock start, see `wall_clock`).
    pub counters: Counters,
    /// Wall time elapsed since the first result row, s.
    pub wall_clock: f64,
    pub(crate) control: ControlState,
    pub(crate) y_t: TypedValues,
    pub(crate) slaves: Vec<NodeState>,
    pub(crate) output: OutputSchedule,
}

impl MasterState {
    /// The statistics at the checkpoint (per-slave names, counts and timers).
    pub fn statistics(&self) -> Statistics {
        Statistics {
            counters: self.counters,
            slaves: self.slaves.iter().map(|s| s.stats.clone()).collect(),
        }
    }

    /// Where a recomputed state (a replay up to the same step) differs from this one, in the
    /// parts that do not depend on the wall clock: `None` when it does not.
    pub fn difference(&self, recomputed: &MasterState) -> Option<String> {
        let (a, b) = (self.statistics(), recomputed.statistics());
        if a.counts() != b.counts() {
            return Some(format!(
                "the counters differ (checkpoint {:?}, replay {:?})",
                a.counts(),
                b.counts()
            ));
        }
        if self.t.to_bits() != recomputed.t.to_bits() {
            return Some(format!(
                "the communication point differs (checkpoint {} s, replay {} s)",
                self.t, recomputed.t
            ));
        }
        if self.y_t != recomputed.y_t {
            return Some("the coupled values differ".to_string());
        }
        if self.control != recomputed.control || self.output != recomputed.output {
            return Some("the step-size control or the output schedule differs".to_string());
        }
        None
    }
}

/// The step-size controller's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ControlState {
    pub h_proposed: f64,
    pub grid: Option<FixedGrid>,
    pub estimator: ErrorEstimator,
    pub scheduler: Option<SchedulerState>,
}

/// The multi-rate scheduler's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct SchedulerState {
    /// Index of the next sample of every slave.
    pub sample: Vec<u64>,
    /// `(tick, slave)` of every queued sample, in heap order.
    pub queue: Vec<(u64, usize)>,
    /// The next instant, s.
    pub next_time: f64,
}

/// One slave's share of the master state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct NodeState {
    /// The slave's clock, s.
    pub clock: f64,
    pub stats: SlaveStatistics,
}
