//! Gauss-Seidel: the slaves of a cycle run in order, each seeing the values its predecessors
//! produced in this sweep; with `maxIterations > 1` the cycle is repeated from the saved
//! states until the coupled values converge.
//!
//! Spec: MasterSim reference §10.2.

use super::{Outcome, StepParams};
use crate::Result;
use crate::convergence::wrms_difference;
use crate::slave::StepOutcome;
use crate::system::{StateSlot, System};

/// One Gauss-Seidel step from `p.t` by `p.h`.
///
/// Convergence: every Integer, Boolean and String coupling value unchanged from the previous
/// iterate, and the WRMS norm over all Real coupling values `≤ 1` (reference §10.2).
pub(crate) fn step(sys: &mut System, p: &StepParams) -> Result<Outcome> {
    sys.y_next.copy_from(&sys.y_t);
    for c in 0..sys.cycles.len() {
        if sys.cycles[c].is_empty() {
            continue; // multi-rate: no slave of this cycle is due
        }
        let mut converged = !p.iterate;
        for iteration in 1..=p.max_iterations {
            sys.counters.iterations += 1;
            if p.iterate {
                sys.y_iter.copy_from(&sys.y_next);
                if iteration > 1 {
                    sys.restore_cycle(c, StateSlot::Iter, p.t)?;
                }
            }
            let System {
                nodes,
                cycles,
                y_next,
                counters,
                ..
            } = &mut *sys;
            for &s in &cycles[c] {
                let node = &mut nodes[s.0];
                node.update(y_next, false)?;
                match node.do_step(p.t, p.h)? {
                    StepOutcome::Completed => node.sync(y_next, false),
                    StepOutcome::Rejected(reason) => {
                        counters.fmu_errors += 1;
                        return Ok(Outcome::Rejected { slave: s, reason });
                    }
                    StepOutcome::Terminated => return Ok(Outcome::Terminated { slave: s }),
                }
            }
            if !p.iterate {
                break;
            }
            if sys.cycles[c].len() == 1 || p.h < p.h_fallback_limit || values_converged(sys, p) {
                converged = true;
                break;
            }
        }
        if !converged {
            sys.counters.iteration_limit_exceeded += 1;
            return Ok(Outcome::IterationLimitExceeded);
        }
    }
    Ok(Outcome::Converged)
}

fn values_converged(sys: &System, p: &StepParams) -> bool {
    if !sys.y_next.discrete_equal(&sys.y_iter) {
        return false;
    }
    let norm = wrms_difference(&sys.y_iter.real, &sys.y_next.real, p.rel_tol, p.abs_tol);
    // A NaN norm (no Real connections) counts as converged, as in MasterSim.
    norm <= 1.0 || norm.is_nan()
}
