//! The statistics of a run: one model, of which `summary.txt`, `stepstats.tsv`, the progress
//! displays and any observer's view are derived.
//!
//! [`Counters`] holds the run-wide counters and sampled timers. The algorithms and the stepping
//! driver update it in place; it is `Copy`, so an observer can keep the state after a step for
//! a few hundred bytes. [`SlaveStatistics`] holds one slave's call timers; each slave's entry
//! lives next to the slave while the run steps (so that slaves stepped on different threads
//! never share one), and [`Statistics`] brings both together on request.
//!
//! Spec: MasterSim reference §12.5 (summary), §12.7 (step statistics), §12.8 (when each counter
//! increments).

use std::time::Instant;

use crate::timer::Timer;

/// Run-wide counters and timers after the last completed communication step. Times in s.
///
/// Spec: MasterSim reference §12.7, §12.8.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Counters {
    /// Communication point after the last completed step (the start time before the first), s.
    pub t: f64,
    /// Communication step size of the last completed step, s (0 before the first).
    pub h: f64,
    /// Completed communication steps (`MasterAlgorithmSteps`).
    pub steps: u64,
    /// Master-algorithm step calls, error-test half steps included.
    pub algorithm_calls: u64,
    /// Cycle sweeps (one per cycle and iteration).
    pub iterations: u64,
    /// Iteration-limit returns of Gauss-Seidel and Newton (`ConvergenceIterLimitExceeded`).
    pub iteration_limit_exceeded: u64,
    /// Step reductions by 1/5 after non-convergence or a rejected step (`ConvergenceFails`).
    pub convergence_fails: u64,
    /// Failed error tests (`ErrorTestFails`).
    pub error_test_fails: u64,
    /// Steps rejected by a slave (Discard or Error).
    pub fmu_errors: u64,
    /// Last error norms: Richardson value norm and slope norm (CHECK: the same norm twice);
    /// 1 before any test.
    pub error_norms: (f64, f64),
    /// Master-algorithm step calls, timed (sampled).
    pub algorithm: Timer,
    /// Error tests, timed (sampled).
    pub error_test: Timer,
    /// Result rows handed to the observer, timed (sampled).
    pub output: Timer,
    /// When the first result row was prepared (the wall clock of `summary.txt` starts there).
    /// Not part of a checkpoint, which holds the wall time elapsed instead.
    #[serde(skip)]
    pub started: Option<Instant>,
}

impl Counters {
    /// Counters of a run that starts at `t_start` (s).
    pub fn new(t_start: f64) -> Counters {
        Counters {
            t: t_start,
            error_norms: (1.0, 1.0),
            ..Counters::default()
        }
    }

    /// Wall time since the first result row was prepared, s (0 before).
    ///
    /// Spec: MasterSim reference §12.5 (`WallClockTime`).
    pub fn wall_clock_time(&self) -> f64 {
        self.started.map_or(0.0, |s| s.elapsed().as_secs_f64())
    }
}

/// Call counts and timers of one slave.
///
/// Spec: MasterSim reference §12.8 (per-slave counts).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SlaveStatistics {
    /// Slave name.
    pub name: String,
    /// `doStep` calls.
    pub do_step: Timer,
    /// State captures (`getFMUstate`).
    pub get_state: Timer,
    /// State restorations (`setFMUstate`, rollbacks).
    pub set_state: Timer,
    /// The integrator's counts, for a Model Exchange slave.
    #[serde(default)]
    pub integrator: Option<IntegratorStatistics>,
}

/// The integrator's and the events' counts of one Model Exchange slave (cumulative over the
/// integrator's restarts).
///
/// Spec: FMPy and SUNDIALS CVODE (`CVodeGetNumSteps`, `CVodeGetNumRhsEvals`,
/// `CVodeGetNumJacEvals`); FMI 2.0.2 §3.1 (time, state and step events).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IntegratorStatistics {
    /// Integrator steps.
    pub steps: u64,
    /// Evaluations of the right-hand side (`getDerivatives` calls by the integrator).
    pub rhs_evaluations: u64,
    /// Jacobian evaluations (0 for explicit Euler).
    pub jacobian_evaluations: u64,
    /// State events (zero crossings of event indicators).
    pub state_events: u64,
    /// Time events (`nextEventTime` reached).
    pub time_events: u64,
    /// Step events (`completedIntegratorStep` asked for Event Mode).
    pub step_events: u64,
}

/// The statistics of a run: the run-wide [`Counters`] and every slave's [`SlaveStatistics`],
/// in project order.
///
/// Spec: MasterSim reference §12.5, §12.8.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Statistics {
    /// Run-wide counters and timers.
    pub counters: Counters,
    /// Per-slave statistics, in project order.
    pub slaves: Vec<SlaveStatistics>,
}

impl Statistics {
    /// The counts that do not depend on the wall clock, for comparing two runs: steps,
    /// algorithm calls, iterations, iteration-limit, convergence, error-test and FMU-error
    /// counts, then every slave's `doStep`, `getState` and `setState` calls (length
    /// 7 + 3 × slaves). Two runs of the same project and settings give equal counts.
    pub fn counts(&self) -> Vec<u64> {
        let c = &self.counters;
        let mut counts = vec![
            c.steps,
            c.algorithm_calls,
            c.iterations,
            c.iteration_limit_exceeded,
            c.convergence_fails,
            c.error_test_fails,
            c.fmu_errors,
        ];
        for s in &self.slaves {
            counts.extend([s.do_step.count, s.get_state.count, s.set_state.count]);
        }
        counts
    }
}
