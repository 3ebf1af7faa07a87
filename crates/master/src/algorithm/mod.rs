//! Master algorithms: one communication step of all cycles from `t` to `t + h`.
//!
//! Each algorithm starts with every slave at `t`, its coupled outputs and `y_t` consistent, and
//! leaves `y_next` holding the coupled values at `t + h`. Cycles are evaluated in ascending
//! order; iteration happens within a cycle only. [`Algorithm`] is the one type of the three: it
//! owns what its kind needs between steps (Newton's matrices and scratch vectors, Gauss-Jacobi's
//! choice of parallel stepping).
//!
//! Spec: MasterSim reference §10.

pub(crate) mod gauss_jacobi;
pub(crate) mod gauss_seidel;
pub(crate) mod newton;

use crate::Result;
use crate::index::SlaveIndex;
use crate::plan::SimulationPlan;
use crate::project::MasterAlgorithm;
use crate::settings::Settings;
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
        /// The slave.
        slave: SlaveIndex,
        /// Discard or Error.
        reason: RejectReason,
    },
    /// A slave asked to end the simulation.
    Terminated {
        /// The slave.
        slave: SlaveIndex,
    },
}

/// The master algorithm of a run, with the state it keeps between steps.
#[derive(Debug)]
pub(crate) enum Algorithm {
    /// Gauss-Jacobi (reference §10.1).
    GaussJacobi(gauss_jacobi::GaussJacobi),
    /// Gauss-Seidel (reference §10.2).
    GaussSeidel,
    /// Newton (reference §10.3, corrected).
    Newton(Box<newton::Newton>),
}

impl Algorithm {
    /// The algorithm of `plan`'s settings for the slaves of `sys`.
    pub fn new(plan: &SimulationPlan, sys: &System) -> Algorithm {
        match plan.settings.algorithm {
            MasterAlgorithm::GaussJacobi => Algorithm::GaussJacobi(Default::default()),
            MasterAlgorithm::GaussSeidel => Algorithm::GaussSeidel,
            MasterAlgorithm::Newton => Algorithm::Newton(Box::new(newton::Newton::new(plan, sys))),
        }
    }

    /// One step from `p.t` by `p.h`, counted and timed in `sys.counters`.
    ///
    /// # Errors
    /// Unrecoverable slave failures (FMI Fatal, failing get/set calls, non-finite coupled
    /// outputs), and a singular Newton matrix.
    pub fn step(&mut self, sys: &mut System, p: &StepParams) -> Result<Outcome> {
        let started = sys.counters.algorithm.start();
        sys.counters.algorithm_calls += 1;
        let outcome = match self {
            Algorithm::GaussJacobi(gj) => gj.step(sys, p),
            Algorithm::GaussSeidel => gauss_seidel::step(sys, p),
            Algorithm::Newton(newton) => newton.step(sys, p),
        };
        sys.counters.algorithm.stop(started);
        outcome
    }

    /// True when slaves may be stepped in parallel by this algorithm (Gauss-Jacobi) with more
    /// than one slave.
    pub fn can_step_in_parallel(&self, sys: &System) -> bool {
        matches!(self, Algorithm::GaussJacobi(_)) && sys.nodes.len() > 1
    }

    /// Re-decides whether the slaves step in parallel on `threads` threads (Gauss-Jacobi only,
    /// see [`gauss_jacobi::GaussJacobi::choose`]); returns the decision.
    pub fn choose_parallel(&mut self, sys: &System, threads: usize) -> bool {
        match self {
            Algorithm::GaussJacobi(gj) => gj.choose(sys, threads),
            Algorithm::GaussSeidel | Algorithm::Newton(_) => false,
        }
    }
}

#[cfg(test)]
mod tests;
