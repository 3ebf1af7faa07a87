//! Master algorithms: one communication step of all cycles from `t` to `t + h`.
//!
//! Each algorithm starts with every slave at `t`, its output cache and `y_t` consistent, and
//! leaves `y_next` holding the coupled values at `t + h`. Cycles are evaluated in ascending
//! order; iteration happens within a cycle only.
//!
//! Spec: MasterSim reference §10.

pub(crate) mod gauss_jacobi;
pub(crate) mod gauss_seidel;
pub(crate) mod newton;

use crate::Result;
use crate::settings::{MasterAlgorithm, Settings};
use crate::slave::RejectReason;
use crate::system::System;

/// The parameters of one algorithm step.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StepParams {
    /// Communication point, s.
    pub t: f64,
    /// Communication step size, s.
    pub h: f64,
    /// Iterate cycles (`maxIterations > 1`).
    pub iterate: bool,
    /// Iteration limit per cycle.
    pub max_iterations: u32,
    /// No iteration below this step size (Gauss-Seidel), s.
    pub h_fallback_limit: f64,
    /// Relative tolerance of the convergence test.
    pub rel_tol: f64,
    /// Absolute tolerance of the convergence test.
    pub abs_tol: f64,
}

impl StepParams {
    /// The parameters for a step from `t` by `h` (s) under `settings`.
    pub fn new(settings: &Settings, t: f64, h: f64) -> Self {
        StepParams {
            t,
            h,
            iterate: settings.iterate(),
            max_iterations: settings.max_iterations,
            h_fallback_limit: settings.h_fallback_limit,
            rel_tol: settings.rel_tol,
            abs_tol: settings.abs_tol,
        }
    }
}

/// How an algorithm step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// All cycles converged (or did not need to iterate).
    Converged,
    /// A cycle did not converge within the iteration limit.
    IterationLimitExceeded,
    /// A slave rejected the step; the caller may roll back and retry with a smaller step.
    Rejected {
        /// Index of the slave.
        slave: usize,
        /// Discard or Error.
        reason: RejectReason,
    },
    /// A slave asked to end the simulation.
    Terminated {
        /// Index of the slave.
        slave: usize,
    },
}

/// Runs one step of `algorithm`.
///
/// # Errors
/// Unrecoverable slave failures (FMI Fatal, failing get/set calls).
pub(crate) fn step(
    algorithm: MasterAlgorithm,
    sys: &mut System,
    p: &StepParams,
) -> Result<Outcome> {
    sys.counters.algorithm_calls += 1;
    match algorithm {
        MasterAlgorithm::GaussJacobi => gauss_jacobi::step(sys, p),
        MasterAlgorithm::GaussSeidel => gauss_seidel::step(sys, p),
        MasterAlgorithm::Newton => {
            let mut newton = sys
                .newton
                .take()
                .expect("invariant: Newton data exists for NEWTON");
            let outcome = newton::step(sys, &mut newton, p);
            sys.newton = Some(newton);
            outcome
        }
    }
}

#[cfg(test)]
mod tests;
