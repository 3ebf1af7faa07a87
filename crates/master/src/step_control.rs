//! Step-size control and rollback: which communication step size the next step takes, and how
//! a step that fails is retried.
//!
//! One step from `t`: the states of all slaves are saved when rollback may be needed; the
//! master algorithm steps; if it did not converge or a slave rejected the step, the slaves are
//! rolled back and the step is retried with `h/5` (counted as a convergence failure) until it
//! succeeds or would fall below `hMin`; a converged step then passes the error control
//! (`CHECK` only reports, `ADAPT_STEP` repeats the step as two half steps and may reject it
//! with a smaller step). The next step size comes from the fixed grid, the error control or
//! the doubling rule of variable steps, truncated at the end time.
//!
//! Spec: MasterSim reference §9 (driver: step reduction, end-time clamps), §11 (error control);
//! `docs/algorithms.md` (time arithmetic, the fixed grid).

use crate::algorithm::{Algorithm, Outcome, StepParams};
use crate::checkpoint::ControlState;
use crate::error_control::{ErrorEstimator, Verdict};
use crate::index::SlaveIndex;
use crate::multirate::Scheduler;
use crate::number::cpp_min;
use crate::plan::SimulationPlan;
use crate::project::{ErrorControl, TimeArithmetic};
use crate::settings::Settings;
use crate::slave::RejectReason;
use crate::system::{StateSlot, System};
use crate::time::{self, FixedGrid};
use crate::{Error, Result};

/// How [`StepControl::step`] ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Stepped {
    /// The step was accepted: the new communication point and the step size taken, s.
    Accepted { t: f64, h: f64 },
    /// A slave asked to end the simulation; the master stays at its communication point.
    Terminated { slave: SlaveIndex },
}

/// The step-size controller of a run.
#[derive(Debug, Clone)]
pub(crate) struct StepControl {
    /// Step size proposed for the next step, s.
    h_proposed: f64,
    /// The fixed communication grid (exact time arithmetic with fixed steps).
    grid: Option<FixedGrid>,
    /// The local error estimates.
    estimator: ErrorEstimator,
    /// The multi-rate scheduler, when the plan has multi-rate slaves (fixed steps only).
    multirate: Option<Scheduler>,
}

impl StepControl {
    /// The controller of a run of `plan`.
    pub fn new(plan: &SimulationPlan) -> StepControl {
        let s = &plan.settings;
        let exact = s.time_arithmetic == TimeArithmetic::Exact;
        StepControl {
            h_proposed: s.h_start,
            grid: (exact && !s.adjust_step_size).then(|| FixedGrid::new(s.t_start, s.h_start)),
            estimator: ErrorEstimator::new(plan.connections.real.len()),
            multirate: Scheduler::new(plan),
        }
    }

    /// The controller's state for a checkpoint.
    pub fn snapshot(&self) -> ControlState {
        ControlState {
            h_proposed: self.h_proposed,
            grid: self.grid,
            estimator: self.estimator.clone(),
            scheduler: self.multirate.as_ref().map(Scheduler::snapshot),
        }
    }

    /// Puts the controller back into a state taken by [`StepControl::snapshot`] in a run of
    /// the same plan.
    pub fn restore(&mut self, state: &ControlState) {
        self.h_proposed = state.h_proposed;
        self.grid = state.grid;
        self.estimator.clone_from(&state.estimator);
        if let (Some(scheduler), Some(s)) = (&mut self.multirate, &state.scheduler) {
            scheduler.restore(s);
        }
    }

    /// Proposes the step from communication point `t` (s), truncated at the end time. Returns
    /// false when no step remains: the end time is reached, or (fixed steps) the remainder is
    /// too small for another step.
    ///
    /// Spec: MasterSim reference §9 (`hRem` rounding guard, `preventOversteppingOfEndTime`).
    pub fn propose(&mut self, t: f64, s: &Settings) -> bool {
        if let Some(scheduler) = &mut self.multirate {
            return match scheduler.propose(t, s) {
                Some(h) => {
                    self.h_proposed = h;
                    true
                }
                None => false,
            };
        }
        if t >= s.t_end {
            return false;
        }
        if let Some(grid) = &self.grid {
            self.h_proposed = grid.next_point() - t;
        }
        let h_rem = s.t_end - t;
        if h_rem < self.h_proposed {
            if !s.adjust_step_size && time::remainder_negligible(t, s.t_end) {
                return false;
            }
            if s.prevent_overstepping_of_end_time {
                if self.h_proposed - h_rem > time::TRUNCATION_REPORT {
                    log::info!(
                        "Truncating last step by {} to avoid overstepping end time.",
                        self.h_proposed - h_rem
                    );
                }
                self.h_proposed = h_rem;
            }
        }
        true
    }

    /// Takes the proposed step from `t` (s) with rollback, step reduction and error control,
    /// counting convergence and error-test failures in `sys.counters`.
    ///
    /// # Errors
    /// [`Error::StepFailed`] when a slave rejects the step and no states are saved to retry
    /// from, [`Error::StepTooSmall`] when the step would have to fall below `hMin`, and any
    /// failing slave call.
    ///
    /// Spec: MasterSim reference §9 (`doStep` of the driver), §11.
    pub fn step(
        &mut self,
        t: f64,
        algorithm: &mut Algorithm,
        sys: &mut System,
        s: &Settings,
    ) -> Result<Stepped> {
        if let Some(scheduler) = &mut self.multirate {
            return step_instant(scheduler, t, algorithm, sys, s);
        }
        let mut h = self.h_proposed;
        if s.adjust_step_size && t + h + time::VARIABLE_STEP_END_GUARD > s.t_end {
            h = s.t_end - t;
            log::debug!("Adjusting h='{h}' to hit the end time.");
        }
        let h_planned = h;
        let grid_target = self.grid.map(|g| g.next_point()).filter(|&p| p - t == h);
        if s.needs_states() {
            sys.save_states(StateSlot::Iter)?;
        }
        let t_new = loop {
            match algorithm.step(sys, &StepParams::new(s, t, h))? {
                Outcome::Converged => {}
                Outcome::IterationLimitExceeded if !s.adjust_step_size => log::info!(
                    "Step failure at t={}, taking step size {h}. Reduction of time step is not enabled, continuing with potentially inaccurate values.",
                    crate::time::TimeFormat::for_grid(s.grid_values()).show(t)
                ),
                Outcome::Terminated { slave } => return Ok(Stepped::Terminated { slave }),
                failed @ (Outcome::IterationLimitExceeded | Outcome::Rejected { .. }) => {
                    let cause = failure_cause(failed, sys, t, h, s)?;
                    if h / 5.0 < s.h_min {
                        return Err(Error::StepTooSmall {
                            t,
                            h,
                            h_min: s.h_min,
                            cause,
                        });
                    }
                    h /= 5.0;
                    sys.restore_states(StateSlot::Iter, t)?;
                    sys.counters.convergence_fails += 1;
                    continue;
                }
            }
            match s.error_control {
                ErrorControl::None => break t + h,
                ErrorControl::Check => {
                    let started = sys.counters.error_test.start();
                    let err = self
                        .estimator
                        .check(&sys.y_t.real, &sys.y_next.real, t, h, s);
                    if let Some(err) = err {
                        sys.counters.error_norms = (err, err);
                        if err > 1.0 {
                            sys.counters.error_test_fails += 1;
                        }
                    }
                    sys.counters.error_test.stop(started);
                    break t + h;
                }
                ErrorControl::Adapt => {
                    let started = sys.counters.error_test.start();
                    let verdict = self.estimator.richardson(algorithm, sys, t, h, s);
                    sys.counters.error_test.stop(started);
                    match verdict? {
                        Verdict::Accepted { t_new, h_next } => {
                            self.h_proposed = h_next;
                            break t_new;
                        }
                        Verdict::Rejected { h_new } => h = h_new,
                    }
                }
            }
        };
        std::mem::swap(&mut sys.y_t, &mut sys.y_next);
        // An unreduced fixed step lands exactly on its grid point.
        let t_new = match grid_target {
            Some(target) if h == h_planned => target,
            _ => t_new,
        };
        if let Some(grid) = &mut self.grid {
            grid.advance(t_new);
        }
        if s.adjust_step_size {
            if s.error_control == ErrorControl::None {
                self.h_proposed = cpp_min(s.h_max, 2.0 * h);
            }
            if t_new + self.h_proposed > s.t_end {
                self.h_proposed = s.t_end - t_new;
            }
            if t_new + self.h_proposed > s.t_end * time::END_FRACTION {
                self.h_proposed = s.t_end - t_new;
            }
        }
        Ok(Stepped::Accepted { t: t_new, h })
    }
}

/// Why the step from `t` by `h` (s) failed, for the message of a later [`Error::StepTooSmall`].
///
/// # Errors
/// [`Error::StepFailed`] when a slave rejected the step and no states are saved to retry from.
fn failure_cause(failed: Outcome, sys: &System, t: f64, h: f64, s: &Settings) -> Result<String> {
    let Outcome::Rejected { slave, reason } = failed else {
        return Ok(format!(
            "no convergence within {} iterations",
            s.max_iterations
        ));
    };
    let status = status_name(reason);
    let name = sys.node(slave).name();
    if !s.needs_states() {
        return Err(Error::StepFailed {
            slave: name.to_string(),
            function: "doStep",
            t,
            h,
            reason: format!(
                "the slave returned {status}, and no saved state exists to retry from (enable iteration or ADAPT_STEP error control to allow step reduction)"
            ),
        });
    }
    Ok(format!("slave '{name}' returned {status} from doStep"))
}

/// Takes the multi-rate instant `scheduler` proposed, from communication point `t` (s): the due
/// slaves step (their states saved first when the settings need rollback), the others hold.
///
/// # Errors
/// [`Error::StepFailed`] when a slave rejects its step (a slave on its own sample grid cannot
/// retry with a smaller step), and any failing slave call.
///
/// Spec: `docs/algorithms.md` (multi-rate co-simulation).
fn step_instant(
    scheduler: &mut Scheduler,
    t: f64,
    algorithm: &mut Algorithm,
    sys: &mut System,
    s: &Settings,
) -> Result<Stepped> {
    let t_new = scheduler.next_time();
    let h = t_new - t;
    scheduler.prepare(sys);
    if s.needs_states() {
        sys.save_cycle_states(StateSlot::Iter)?;
    }
    sys.y_next.copy_from(&sys.y_t);
    match algorithm.step(sys, &StepParams::new(s, t, h))? {
        Outcome::Converged => {}
        Outcome::IterationLimitExceeded => log::info!(
            "Step failure at t={}, taking step size {h}. Reduction of time step is not enabled, continuing with potentially inaccurate values.",
            crate::time::TimeFormat::for_grid(s.grid_values()).show(t)
        ),
        Outcome::Terminated { slave } => return Ok(Stepped::Terminated { slave }),
        Outcome::Rejected { slave, reason } => {
            return Err(Error::StepFailed {
                slave: sys.node(slave).name().to_string(),
                function: "doStep",
                t,
                h,
                reason: format!(
                    "the slave returned {}; in a multi-rate project every slave keeps its sample \
                     grid, so the step cannot be retried with a smaller step size",
                    status_name(reason)
                ),
            });
        }
    }
    std::mem::swap(&mut sys.y_t, &mut sys.y_next);
    scheduler.commit(sys);
    Ok(Stepped::Accepted { t: t_new, h })
}

/// The FMI status name of a rejection.
fn status_name(reason: RejectReason) -> &'static str {
    match reason {
        RejectReason::Discard => "Discard",
        RejectReason::Error => "Error",
    }
}
