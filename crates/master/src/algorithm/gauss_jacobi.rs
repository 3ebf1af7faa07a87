//! Gauss-Jacobi: every slave of a cycle takes its inputs from the previous communication
//! point, so a change propagates with one step of delay. Never iterates.
//!
//! Spec: MasterSim reference §10.1.

use super::{Outcome, StepParams};
use crate::Result;
use crate::slave::StepOutcome;
use crate::system::System;

/// One Gauss-Jacobi step from `p.t` by `p.h`.
pub(crate) fn step(sys: &mut System, p: &StepParams) -> Result<Outcome> {
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
            match node.do_step(p.t, p.h)? {
                StepOutcome::Completed => node.sync(y_next, false),
                StepOutcome::Rejected(reason) => {
                    counters.fmu_errors += 1;
                    return Ok(Outcome::Rejected { slave: s, reason });
                }
                StepOutcome::Terminated => return Ok(Outcome::Terminated { slave: s }),
            }
        }
    }
    Ok(Outcome::Converged)
}
