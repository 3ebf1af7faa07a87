//! The integration method and its settings.

use crate::Error;
use std::fmt;
use std::str::FromStr;

/// The integration method of a Model-Exchange slave.
///
/// Names follow FMPy's `--solver` option: `CVode` (SUNDIALS CVODE, BDF) and `Euler`
/// (explicit Euler with a fixed step).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// SUNDIALS CVODE: variable-order BDF with Newton iteration and a dense direct linear solver.
    Cvode,
    /// Explicit (forward) Euler with the fixed step `Settings::fixed_step`.
    Euler,
}

impl FromStr for Method {
    type Err = String;

    /// Parses `cvode` or `euler`, case-insensitive; anything else is an error naming the choices.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "cvode" => Ok(Method::Cvode),
            "euler" => Ok(Method::Euler),
            _ => Err(format!("unknown solver '{s}': expected 'CVode' or 'Euler'")),
        }
    }
}

impl fmt::Display for Method {
    /// `CVode` or `Euler` (FMPy's spelling).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Method::Cvode => "CVode",
            Method::Euler => "Euler",
        })
    }
}

/// The settings of one integrator.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The integration method.
    pub method: Method,
    /// Relative tolerance (CVODE's `reltol`), > 0. Checked for both methods, used by CVODE.
    pub rel_tol: f64,
    /// Absolute tolerance per state (already scaled by the states' nominals), each > 0;
    /// `len() == n_states`. Checked for both methods, used by CVODE.
    pub abs_tol: Vec<f64>,
    /// Largest internal step (s), > 0; `None` for no limit. The master passes the communication
    /// step size. Euler takes `min(fixed_step, max_step)`.
    pub max_step: Option<f64>,
    /// Euler's step size (s), > 0. Unused by CVODE.
    pub fixed_step: f64,
}

impl Settings {
    /// Checks the settings for an integrator of `n_states` states.
    ///
    /// # Errors
    /// `Error::Setup` naming the first bad value: a tolerance that is not a positive number,
    /// `abs_tol.len() != n_states`, a non-positive `max_step`, or (Euler) a non-positive
    /// `fixed_step`.
    pub fn validate(&self, n_states: usize) -> Result<(), Error> {
        let positive = |x: f64| x.is_finite() && x > 0.0;
        if !positive(self.rel_tol) {
            return Err(setup(format!(
                "relative tolerance {} is not a positive number",
                self.rel_tol
            )));
        }
        if self.abs_tol.len() != n_states {
            return Err(setup(format!(
                "{} absolute tolerances given for {n_states} states",
                self.abs_tol.len()
            )));
        }
        if let Some((i, a)) = self
            .abs_tol
            .iter()
            .enumerate()
            .find(|(_, a)| !positive(**a))
        {
            return Err(setup(format!(
                "absolute tolerance {a} of state {i} is not a positive number"
            )));
        }
        if let Some(h) = self.max_step
            && !positive(h)
        {
            return Err(setup(format!(
                "maximum step {h} s is not a positive number"
            )));
        }
        if self.method == Method::Euler && !positive(self.fixed_step) {
            return Err(setup(format!(
                "Euler step {} s is not a positive number",
                self.fixed_step
            )));
        }
        Ok(())
    }
}

fn setup(message: String) -> Error {
    Error::Setup(message)
}
