//! Gauss-Jacobi: every slave of a cycle takes its inputs from the previous communication
//! point, so a change propagates with one step of delay. Never iterates.
//!
//! Since every slave reads only `y_t`, the slaves can step at the same time: with a worker
//! pool ([`System::parallel`]) each slave sets its inputs, steps and reads its outputs on a
//! pool thread, and after all have finished (the barrier) the outcomes are taken and the
//! outputs copied into `y_next` serially, in project order. Each slave is called by one thread
//! at a time, and every value is computed from the same inputs as in the serial order, so the
//! results are bit-identical to a serial run.
//!
//! Spec: MasterSim reference §10.1; FMI 2.0.2 §2.1 (one instance is never called
//! concurrently; different instances may run on different threads); libcosim's barrier
//! pattern (parallel step, serial transfer).

use rayon::prelude::*;

use super::{Outcome, StepParams};
use crate::Result;
use crate::slave::StepOutcome;
use crate::system::{Counters, SlaveNode, System};
use crate::values::TypedValues;

/// One Gauss-Jacobi step from `p.t` by `p.h`.
pub(crate) fn step(sys: &mut System, p: &StepParams) -> Result<Outcome> {
    // Only on a worker of the simulation's pool: outside it rayon would start its global pool.
    if sys.parallel && rayon::current_thread_index().is_some() {
        return parallel_step(sys, p);
    }
    let System {
        nodes,
        cycles,
        y_t,
        y_next,
        counters,
        ..
    } = sys;
    for cycle in cycles.iter() {
        counters.iterations += 1;
        for &s in cycle {
            let node = &mut nodes[s];
            node.update(y_t, false)?;
            let outcome = node.do_step(p.t, p.h)?;
            if let Some(ended) = settle(node, s, outcome, y_next, counters) {
                return Ok(ended);
            }
        }
    }
    Ok(Outcome::Converged)
}

/// [`step`] with the slaves stepped concurrently on the current worker pool, then the
/// outcomes handled serially in cycle order.
fn parallel_step(sys: &mut System, p: &StepParams) -> Result<Outcome> {
    let System {
        nodes,
        cycles,
        y_t,
        y_next,
        counters,
        ..
    } = sys;
    let y_t = &*y_t;
    nodes.par_iter_mut().with_max_len(1).for_each(|node| {
        node.pending = Some(
            node.update(y_t, false)
                .and_then(|()| node.do_step(p.t, p.h)),
        );
    });
    let mut result = Ok(Outcome::Converged);
    for cycle in cycles.iter() {
        // Counted like the serial loop, which stops at the first slave that does not complete.
        if matches!(result, Ok(Outcome::Converged)) {
            counters.iterations += 1;
        }
        for &s in cycle {
            let node = &mut nodes[s];
            let pending = node.pending.take().expect("invariant: every slave stepped");
            if !matches!(result, Ok(Outcome::Converged)) {
                continue;
            }
            match pending {
                Ok(outcome) => {
                    if let Some(ended) = settle(node, s, outcome, y_next, counters) {
                        result = Ok(ended);
                    }
                }
                Err(e) => result = Err(e),
            }
        }
    }
    result
}

/// Takes the outcome of slave `s`'s step: when it completed, its outputs go into `y_next` and
/// the step goes on (`None`); otherwise the step ends with the returned outcome (a rejection
/// is counted as an FMU error).
fn settle(
    node: &SlaveNode,
    s: usize,
    outcome: StepOutcome,
    y_next: &mut TypedValues,
    counters: &mut Counters,
) -> Option<Outcome> {
    match outcome {
        StepOutcome::Completed => {
            node.sync(y_next, false);
            None
        }
        StepOutcome::Rejected(reason) => {
            counters.fmu_errors += 1;
            Some(Outcome::Rejected { slave: s, reason })
        }
        StepOutcome::Terminated => Some(Outcome::Terminated { slave: s }),
    }
}
