//! Validated run settings: the numeric part of a project, checked once.
//!
//! Spec: MasterSim reference §3.2 (keywords and defaults), §6.6 (capability and flag checks),
//! §8 step 8 (`hStart = 0`). Checks MasterSim lacks (`tEnd > tStart`, `hMin ≤ hStart ≤ hMax`,
//! `maxIterations ≥ 1`) are listed in `docs/deviations.md`.

use crate::project::{
    ErrorControl, MasterAlgorithm, NewtonDerivatives, NewtonJacobian, Project, TimeArithmetic,
    TimeUnit,
};
use crate::time::Seconds;
use crate::{Error, Result};

/// Validated settings of one run. All times in seconds.
///
/// Defaults are MasterSim 0.9.8's (reference §3.2); they come from the project parser.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Start time, s.
    pub t_start: f64,
    /// End time, s (> `t_start`).
    pub t_end: f64,
    /// Initial (variable-step) or fixed communication step size, s.
    pub h_start: f64,
    /// Largest step in variable-step mode, s.
    pub h_max: f64,
    /// Smallest step, s.
    pub h_min: f64,
    /// Gauss-Seidel does not iterate below this step size, s.
    pub h_fallback_limit: f64,
    /// Minimum spacing of result rows, s (> 0).
    pub h_output_min: f64,
    /// Unit of the time column in `values.csv`.
    pub output_time_unit: TimeUnit,
    /// Variable communication step sizes (`adjustStepSize`).
    pub adjust_step_size: bool,
    /// Truncate the last step so it ends at `t_end`.
    pub prevent_overstepping_of_end_time: bool,
    /// Absolute tolerance.
    pub abs_tol: f64,
    /// Relative tolerance (also passed to the slaves' `setupExperiment`).
    pub rel_tol: f64,
    /// Master algorithm.
    pub algorithm: MasterAlgorithm,
    /// Error control.
    pub error_control: ErrorControl,
    /// Iteration limit per cycle (1 = no iteration).
    pub max_iterations: u32,
    /// How communication points and slave clocks are computed.
    pub time_arithmetic: TimeArithmetic,
    /// When Newton rebuilds its Jacobian.
    pub newton_jacobian: NewtonJacobian,
    /// How Newton obtains partial derivatives.
    pub newton_derivatives: NewtonDerivatives,
}

impl Settings {
    /// The values that span the run's time grid, s: `tStart`, `hStart` and `tEnd`, and with
    /// variable steps (`adjustStepSize`, or an error control that adapts the step) also
    /// `hMin`. See [`crate::time::TimeFormat`] and [`crate::SimulationPlan::time_format`].
    pub fn grid_values(&self) -> Vec<f64> {
        let mut values = vec![self.t_start, self.h_start, self.t_end];
        if self.adjust_step_size || self.error_control.adapts_step() {
            values.push(self.h_min);
        }
        values
    }

    /// True when cycles iterate (`maxIterations > 1`).
    pub fn iterate(&self) -> bool {
        self.max_iterations > 1
    }

    /// True when slave states must be saved at each step: for iteration, Richardson error
    /// control, or Newton (whose Jacobian always needs rollback).
    pub fn needs_states(&self) -> bool {
        self.iterate() || self.error_control.adapts_step() || self.algorithm.rolls_back_every_step()
    }

    /// Validates the numeric settings of `project`.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] naming the keyword, its line and what is expected, for:
    /// `tEnd ≤ tStart` (or a span `tEnd - tStart` beyond the largest double), a negative
    /// `hStart`, an `hStart` (or, with `adjustStepSize`, an `hMin`) below the time resolution
    /// ([`crate::time::resolution`]), `hOutputMin ≤ 0`, `maxIterations = 0`, non-positive
    /// or non-finite tolerances, `hMin > hStart` or `hStart > hMax` with `adjustStepSize`, the
    /// flag combinations of reference §6.6, and Gauss-Jacobi with iteration.
    pub fn from_project(project: &Project) -> Result<Settings> {
        let invalid = |keyword: &'static str, reason: String| Error::InvalidSetting {
            at: project.location(project.keyword_lines.get(keyword).copied()),
            keyword,
            reason,
        };
        let t_start = project.t_start.seconds;
        let t_end = project.t_end.seconds;
        if !(t_start.is_finite()
            && t_end.is_finite()
            && t_end > t_start
            && (t_end - t_start).is_finite())
        {
            return Err(invalid(
                "tEnd",
                format!(
                    "tEnd = {} s must be greater than tStart = {} s",
                    Seconds(t_end),
                    Seconds(t_start)
                ),
            ));
        }
        let mut h_start = project.h_start.seconds;
        if !(h_start.is_finite() && h_start >= 0.0) {
            return Err(invalid(
                "hStart",
                format!("{h_start} s, expected a step ≥ 0 s"),
            ));
        }
        if h_start == 0.0 {
            h_start = (t_end - t_start) / 1000.0;
            log::info!("Setting h_0 = {h_start} s");
        }
        let resolution = crate::time::resolution(t_start, t_end);
        if h_start < resolution {
            return Err(invalid(
                "hStart",
                format!(
                    "hStart = {} s does not advance time: between tStart = {} s and tEnd = {} \
                     s, times are resolved to {} s only (t + hStart == t), expected a step ≥ \
                     {} s",
                    Seconds(h_start),
                    Seconds(t_start),
                    Seconds(t_end),
                    Seconds(resolution),
                    Seconds(resolution)
                ),
            ));
        }
        let steps = (t_end - t_start) / h_start;
        if steps > crate::time::MANY_STEPS {
            log::warn!(
                "{}: hStart = {} s makes {steps:.3e} communication steps from tStart = {} s to \
                 tEnd = {} s",
                project.location(project.keyword_lines.get("hStart").copied()),
                Seconds(h_start),
                Seconds(t_start),
                Seconds(t_end)
            );
        }
        let h_output_min = project.h_output_min.seconds;
        if !(h_output_min.is_finite() && h_output_min > 0.0) {
            return Err(invalid(
                "hOutputMin",
                format!(
                    "{} {}, expected a spacing > 0",
                    project.h_output_min.value,
                    project.h_output_min.unit.name()
                ),
            ));
        }
        for (value, keyword) in [(project.abs_tol, "absTol"), (project.rel_tol, "relTol")] {
            if !(value.is_finite() && value > 0.0) {
                return Err(invalid(
                    keyword,
                    format!("{value}, expected a tolerance > 0"),
                ));
            }
        }
        if project.max_iterations == 0 {
            return Err(invalid("maxIterations", "0, expected at least 1".into()));
        }
        let settings = Settings {
            t_start,
            t_end,
            h_start,
            h_max: project.h_max.seconds,
            // A step reduced below the resolution could not advance time: a fixed-step run
            // (which checks hMin only when a rejected step is retried) stops there instead.
            h_min: project.h_min.seconds.max(resolution),
            h_fallback_limit: project.h_fallback_limit.seconds,
            h_output_min,
            output_time_unit: project.output_time_unit,
            adjust_step_size: project.adjust_step_size,
            prevent_overstepping_of_end_time: project.prevent_overstepping_of_end_time,
            abs_tol: project.abs_tol,
            rel_tol: project.rel_tol,
            algorithm: project.master_algorithm,
            error_control: project.error_control,
            max_iterations: project.max_iterations,
            time_arithmetic: project.time_arithmetic,
            newton_jacobian: project.newton_jacobian,
            newton_derivatives: project.newton_derivatives,
        };
        if settings.error_control.adapts_step() && !settings.adjust_step_size {
            return Err(invalid(
                "ErrorControlMode",
                "error control with step adjustment (ADAPT_STEP) requires adjustStepSize yes"
                    .into(),
            ));
        }
        if settings.adjust_step_size {
            if !settings.iterate() && !settings.error_control.adapts_step() {
                return Err(invalid("adjustStepSize",
                    "variable steps need iteration (maxIterations > 1) or ErrorControlMode ADAPT_STEP".into(),
                ));
            }
            if project.h_min.seconds < resolution {
                return Err(invalid(
                    "hMin",
                    format!(
                        "hMin = {} s does not advance time: between tStart and tEnd, times are \
                         resolved to {} s only, expected hMin ≥ {} s",
                        Seconds(project.h_min.seconds),
                        Seconds(resolution),
                        Seconds(resolution)
                    ),
                ));
            }
            if !(settings.h_min > 0.0 && settings.h_min <= settings.h_start) {
                return Err(invalid(
                    "hMin",
                    format!(
                        "hMin = {} s, expected 0 < hMin ≤ hStart = {} s",
                        settings.h_min, settings.h_start
                    ),
                ));
            }
            if settings.h_max < settings.h_start {
                return Err(invalid(
                    "hMax",
                    format!(
                        "hMax = {} s, expected hMax ≥ hStart = {} s",
                        settings.h_max, settings.h_start
                    ),
                ));
            }
        }
        match settings.algorithm {
            MasterAlgorithm::GaussJacobi if settings.iterate() => {
                return Err(invalid(
                    "maxIterations",
                    "Gauss-Jacobi never iterates, expected maxIterations 1".into(),
                ));
            }
            MasterAlgorithm::Newton if !settings.iterate() => {
                return Err(invalid(
                    "maxIterations",
                    "Newton needs at least 2 iterations (one to build and solve, one to confirm), expected maxIterations ≥ 2".into(),
                ));
            }
            _ => {}
        }
        Ok(settings)
    }
}
