//! Explicit (forward) Euler with a fixed step, as FMPy's `Euler` solver: roots are detected by a
//! sign change of g between step ends and reported at the step end.

use crate::system::{guarded_rhs, guarded_roots};
use crate::{Advance, Error, OdeSystem, Statistics};

/// A forward-Euler integrator: x(t + h) = x(t) + h f(t, x(t)).
#[derive(Debug)]
pub(crate) struct Euler {
    /// Current time, s.
    t: f64,
    /// States at `t`.
    x: Vec<f64>,
    /// f(t, x), scratch.
    dx: Vec<f64>,
    /// g at the last step end; empty until evaluated after a reset.
    g_prev: Vec<f64>,
    /// g at the new step end, scratch.
    g: Vec<f64>,
    /// Root directions of the last `advance`: +1 rising, -1 falling, 0 none.
    directions: Vec<i32>,
    /// The configured fixed step, s.
    fixed_step: f64,
    /// The step used: `min(fixed_step, max_step)`, s.
    step: f64,
    stats: Statistics,
}

impl Euler {
    /// An Euler integrator with `n_states` states and `n_roots` root functions, at t = 0.
    pub(crate) fn new(
        fixed_step: f64,
        max_step: Option<f64>,
        n_states: usize,
        n_roots: usize,
    ) -> Self {
        let mut euler = Euler {
            t: 0.0,
            x: vec![0.0; n_states],
            dx: vec![0.0; n_states],
            g_prev: Vec::new(),
            g: vec![0.0; n_roots],
            directions: vec![0; n_roots],
            fixed_step,
            step: fixed_step,
            stats: Statistics::default(),
        };
        euler.set_max_step(max_step);
        euler
    }

    pub(crate) fn reset(&mut self, t: f64, x: &[f64]) {
        self.t = t;
        self.x.copy_from_slice(x);
        self.g_prev.clear();
        self.directions.iter_mut().for_each(|d| *d = 0);
    }

    pub(crate) fn set_max_step(&mut self, h: Option<f64>) {
        self.step = h.map_or(self.fixed_step, |h| h.min(self.fixed_step));
    }

    /// Steps towards `t_stop` (the last step shortened to land on it exactly); stops at the end
    /// of the first step where a component of g changed sign.
    pub(crate) fn advance(
        &mut self,
        sys: &mut dyn OdeSystem,
        t_stop: f64,
    ) -> Result<Advance, Error> {
        self.directions.iter_mut().for_each(|d| *d = 0);
        if !self.g.is_empty() && self.g_prev.is_empty() {
            self.g_prev = vec![0.0; self.g.len()];
            self.eval_roots_into_prev(sys)?;
        }
        while self.t < t_stop {
            let h = self.step;
            // Land exactly on t_stop when the remainder is a step or less (or a sliver more).
            let t_next = if self.t + h >= t_stop - 1e-9 * h {
                t_stop
            } else {
                self.t + h
            };
            guarded_rhs(sys, self.t, &self.x, &mut self.dx)
                .map_err(|message| Error::System { t: self.t, message })?;
            self.stats.rhs_evaluations += 1;
            let dt = t_next - self.t;
            self.x
                .iter_mut()
                .zip(&self.dx)
                .for_each(|(x, dx)| *x += dt * dx);
            self.t = t_next;
            self.stats.steps += 1;
            if !self.g.is_empty() && self.detect_roots(sys)? {
                return Ok(Advance::Root);
            }
        }
        Ok(Advance::Reached)
    }

    fn eval_roots_into_prev(&mut self, sys: &mut dyn OdeSystem) -> Result<(), Error> {
        guarded_roots(sys, self.t, &self.x, &mut self.g_prev)
            .map_err(|message| Error::System { t: self.t, message })?;
        self.stats.root_evaluations += 1;
        Ok(())
    }

    /// Evaluates g at the step end and records the sign changes since the last step end.
    fn detect_roots(&mut self, sys: &mut dyn OdeSystem) -> Result<bool, Error> {
        guarded_roots(sys, self.t, &self.x, &mut self.g)
            .map_err(|message| Error::System { t: self.t, message })?;
        self.stats.root_evaluations += 1;
        let mut found = false;
        for ((d, &before), &after) in self.directions.iter_mut().zip(&self.g_prev).zip(&self.g) {
            *d = if before < 0.0 && after >= 0.0 {
                1
            } else if before > 0.0 && after <= 0.0 {
                -1
            } else {
                0
            };
            found |= *d != 0;
        }
        self.g_prev.copy_from_slice(&self.g);
        Ok(found)
    }

    pub(crate) fn time(&self) -> f64 {
        self.t
    }

    pub(crate) fn states(&self) -> &[f64] {
        &self.x
    }

    pub(crate) fn root_directions(&self) -> &[i32] {
        &self.directions
    }

    pub(crate) fn statistics(&self) -> Statistics {
        self.stats
    }
}
