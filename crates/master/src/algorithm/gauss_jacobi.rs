//! Gauss-Jacobi: every slave of a cycle takes its inputs from the previous communication
//! point, so a change propagates with one step of delay. Never iterates.
//!
//! Since every slave reads only `y_t`, the slaves can step at the same time: when parallel
//! stepping is chosen ([`GaussJacobi::choose`]) and the step runs on a worker of the
//! simulation's pool, each slave sets its inputs, steps and reads its outputs on a pool thread,
//! and after all have finished (the barrier) the outcomes are taken and the outputs copied into
//! `y_next` serially, in project order. Each slave is called by one thread at a time, and every
//! value is computed from the same inputs as in the serial order, so the results are
//! bit-identical to a serial run.
//!
//! Spec: MasterSim reference §10.1; FMI 2.0.2 §2.1 (one instance is never called
//! concurrently; different instances may run on different threads); libcosim's barrier
//! pattern (parallel step, serial transfer).

use rayon::prelude::*;

use super::{Outcome, StepParams};
use crate::Result;
use crate::index::SlaveIndex;
use crate::slave::StepOutcome;
use crate::statistics::Counters;
use crate::system::{SlaveNode, System};
use crate::values::TypedValues;

/// Least summed `doStep` time per step (s) for which Gauss-Jacobi steps slaves in parallel.
pub(crate) const PARALLEL_MIN_STEP_COST: f64 = 10e-6;

/// Least mean `doStep` time per slave (s) for which Gauss-Jacobi steps slaves in parallel.
/// A slave stepped on another core leaves its data (the instance's memory, its outputs) in
/// that core's cache, and the serial transfer phase pulls it back: some hundred ns per slave
/// on the machines measured (`docs/performance.md`). Many cheap slaves therefore run faster
/// on one thread.
pub(crate) const PARALLEL_MIN_SLAVE_COST: f64 = 1e-6;

/// Gauss-Jacobi's state between steps: whether slaves step in parallel.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct GaussJacobi {
    /// Step the slaves in parallel (acted on only inside the simulation's worker pool).
    parallel: bool,
}

impl GaussJacobi {
    /// Decides whether the slaves step in parallel on `threads` worker threads: only with more
    /// than one thread and slave, and only when the slaves' `doStep` calls together take at
    /// least [`PARALLEL_MIN_STEP_COST`] per step (mean of the sampled call times), and the mean
    /// per slave at least [`PARALLEL_MIN_SLAVE_COST`], so that cheap slaves are not slowed down
    /// by the cost of handing work to other threads. Results are the same either way. Returns
    /// the decision.
    pub fn choose(&mut self, sys: &System, threads: usize) -> bool {
        let cost: f64 = sys
            .nodes
            .iter()
            .map(|n| {
                let timer = &n.stats.do_step;
                if timer.count == 0 {
                    0.0
                } else {
                    timer.seconds() / timer.count as f64
                }
            })
            .sum();
        let n = sys.nodes.len();
        let parallel = threads > 1
            && n > 1
            && cost >= PARALLEL_MIN_STEP_COST
            && cost / n as f64 >= PARALLEL_MIN_SLAVE_COST;
        if parallel != self.parallel {
            log::info!(
                "Gauss-Jacobi: {} stepping ({n} slaves, {:.1} µs of doStep per step, {threads} threads)",
                if parallel { "parallel" } else { "serial" },
                cost * 1e6,
            );
        }
        self.parallel = parallel;
        parallel
    }

    /// One Gauss-Jacobi step from `p.t` by `p.h`.
    pub fn step(&self, sys: &mut System, p: &StepParams) -> Result<Outcome> {
        // Only on a worker of the simulation's pool: outside it rayon would start its global pool.
        if self.parallel && rayon::current_thread_index().is_some() {
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
        for cycle in cycles.iter().filter(|c| !c.is_empty()) {
            counters.iterations += 1;
            for &s in cycle {
                let node = &mut nodes[s.0];
                node.update(y_t, false)?;
                let outcome = node.do_step(p.t, p.h)?;
                if let Some(ended) = settle(node, s, outcome, y_next, counters) {
                    return Ok(ended);
                }
            }
        }
        Ok(Outcome::Converged)
    }
}

/// [`GaussJacobi::step`] with the slaves stepped concurrently on the current worker pool, then
/// the outcomes handled serially in cycle order.
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
        if !node.idle {
            node.pending = Some(
                node.update(y_t, false)
                    .and_then(|()| node.do_step(p.t, p.h)),
            );
        }
    });
    let mut result = Ok(Outcome::Converged);
    for cycle in cycles.iter().filter(|c| !c.is_empty()) {
        // Counted like the serial loop, which stops at the first slave that does not complete.
        if matches!(result, Ok(Outcome::Converged)) {
            counters.iterations += 1;
        }
        for &s in cycle {
            let node = &mut nodes[s.0];
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
    s: SlaveIndex,
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
