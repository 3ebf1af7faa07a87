#![doc = include_str!("../README.md")]
#![deny(unsafe_code)]
#![deny(missing_docs)]

#[allow(unsafe_code)]
mod cvode;
mod error;
mod euler;
mod settings;
mod system;

pub use cvode::MAX_NUM_STEPS;
pub use error::Error;
pub use settings::{Method, Settings};
pub use system::OdeSystem;

use cvode::Cvode;
use euler::Euler;

/// How `Integrator::advance` stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Advance {
    /// `t_stop` was reached exactly: `Integrator::time() == t_stop`.
    Reached,
    /// A root function changed sign before `t_stop`; `Integrator::time()` is the root (CVODE:
    /// located by its root finding; Euler: the end of the step where the sign changed) and
    /// `Integrator::root_directions()` tells which roots and how.
    Root,
}

/// Work counters of one integrator, cumulative over `Integrator::reset`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Statistics {
    /// Internal integration steps (CVODE: `CVodeGetNumSteps`).
    pub steps: u64,
    /// Evaluations of f (CVODE: `CVodeGetNumRhsEvals` + `CVodeGetNumLinRhsEvals`, the latter
    /// from the difference-quotient Jacobian).
    pub rhs_evaluations: u64,
    /// Jacobian evaluations (CVODE: `CVodeGetNumJacEvals`; 0 for Euler).
    pub jacobian_evaluations: u64,
    /// Evaluations of g (CVODE: `CVodeGetNumGEvals`).
    pub root_evaluations: u64,
}

/// An ODE integrator (CVODE or explicit Euler) for one Model-Exchange instance.
///
/// Use: `new`, `reset` to the initial time and states, then `advance` to each stop time
/// (communication point, time event); after a root or any change the ODE does not know of
/// (an event, an input change, a restored FMU state), `reset` again.
#[derive(Debug)]
pub struct Integrator {
    backend: Backend,
    /// False until the first `reset`.
    started: bool,
}

#[derive(Debug)]
enum Backend {
    Cvode(Box<Cvode>),
    Euler(Euler),
}

impl Integrator {
    /// An integrator for `n_states` states and `n_roots` root functions (event indicators).
    ///
    /// # Errors
    /// `Error::Setup` when `n_states` is 0 (a slave without continuous states steps time
    /// from event to event itself), when `settings` are bad (`Settings::validate`), or when
    /// SUNDIALS refuses the setup.
    pub fn new(settings: &Settings, n_states: usize, n_roots: usize) -> Result<Integrator, Error> {
        if n_states == 0 {
            return Err(Error::Setup(
                "an integrator needs at least one continuous state (got 0)".into(),
            ));
        }
        settings.validate(n_states)?;
        let backend = match settings.method {
            Method::Cvode => Backend::Cvode(Box::new(Cvode::new(settings, n_states, n_roots)?)),
            Method::Euler => Backend::Euler(Euler::new(
                settings.fixed_step,
                settings.max_step,
                n_states,
                n_roots,
            )),
        };
        Ok(Integrator {
            backend,
            started: false,
        })
    }

    /// (Re)starts at t (s) with states x (after initialization, an event, an input change, a
    /// restored FMU state); forgets the history. Statistics stay cumulative.
    ///
    /// # Errors
    /// `Error::Setup` when `x.len()` is not the number of states, `t` or an `x` is not finite,
    /// or CVODE refuses the restart.
    pub fn reset(&mut self, t: f64, x: &[f64]) -> Result<(), Error> {
        let n = self.states().len();
        if x.len() != n {
            return Err(Error::Setup(format!(
                "reset with {} states, expected {n}",
                x.len()
            )));
        }
        if !t.is_finite() {
            return Err(Error::Setup(format!("reset at t = {t} s")));
        }
        if let Some(i) = x.iter().position(|v| !v.is_finite()) {
            return Err(Error::Setup(format!(
                "reset at t = {t} s with state {i} = {}",
                x[i]
            )));
        }
        match &mut self.backend {
            Backend::Cvode(c) => c.reset(t, x)?,
            Backend::Euler(e) => e.reset(t, x),
        }
        self.started = true;
        Ok(())
    }

    /// Sets the largest internal step (s); `None` for no limit (Euler: its fixed step).
    ///
    /// # Errors
    /// `Error::Setup` for a step that is not a positive number.
    pub fn set_max_step(&mut self, h: Option<f64>) -> Result<(), Error> {
        if let Some(h) = h
            && !(h.is_finite() && h > 0.0)
        {
            return Err(Error::Setup(format!(
                "maximum step {h} s is not a positive number"
            )));
        }
        match &mut self.backend {
            Backend::Cvode(c) => c.set_max_step(h),
            Backend::Euler(e) => {
                e.set_max_step(h);
                Ok(())
            }
        }
    }

    /// Integrates from time() towards t_stop (s), never past it (t_stop is a hard stop time);
    /// returns early at the first root. On `Advance::Reached`, `time() == t_stop` bit for bit.
    ///
    /// # Errors
    /// `Error::Setup` before the first `reset` or for `t_stop < time()`; `Error::System` when
    /// the system returned `Err` or panicked; `Error::Failed` when CVODE gave up.
    pub fn advance(&mut self, sys: &mut dyn OdeSystem, t_stop: f64) -> Result<Advance, Error> {
        if !self.started {
            return Err(Error::Setup("advance before the first reset".into()));
        }
        let t = self.time();
        if t_stop.is_nan() || t_stop < t {
            return Err(Error::Setup(format!(
                "stop time {t_stop} s lies before the integrator's time {t} s"
            )));
        }
        if t_stop == t {
            return Ok(Advance::Reached);
        }
        match &mut self.backend {
            Backend::Cvode(c) => c.advance(sys, t_stop),
            Backend::Euler(e) => e.advance(sys, t_stop),
        }
    }

    /// Time (s) where the last `advance` stopped (or the last `reset` time).
    pub fn time(&self) -> f64 {
        match &self.backend {
            Backend::Cvode(c) => c.time(),
            Backend::Euler(e) => e.time(),
        }
    }

    /// The states at `time()`; `len()` is the number of states.
    pub fn states(&self) -> &[f64] {
        match &self.backend {
            Backend::Cvode(c) => c.states(),
            Backend::Euler(e) => e.states(),
        }
    }

    /// After `Advance::Root`: per root function +1 rising, -1 falling, 0 not crossed; `len()`
    /// is `n_roots`. All 0 after `Advance::Reached`.
    pub fn root_directions(&self) -> &[i32] {
        match &self.backend {
            Backend::Cvode(c) => c.root_directions(),
            Backend::Euler(e) => e.root_directions(),
        }
    }

    /// Work counters, cumulative over resets.
    pub fn statistics(&self) -> Statistics {
        match &self.backend {
            Backend::Cvode(c) => c.statistics(),
            Backend::Euler(e) => e.statistics(),
        }
    }
}
