//! The ODE system the integrators solve, and guarded calls into it.

use std::panic::{AssertUnwindSafe, catch_unwind};

/// The ODE the integrator solves: x' = f(t, x), with root functions g(t, x).
///
/// Time `t` is in seconds. The system is called only from inside `Integrator::advance`.
pub trait OdeSystem {
    /// Writes f(t, x) into dx (dx.len() == x.len()). Err(message) aborts the integration with
    /// that message (`Error::System`).
    fn rhs(&mut self, t: f64, x: &[f64], dx: &mut [f64]) -> Result<(), String>;
    /// Writes g(t, x) into g (g.len() == the n_roots given to Integrator::new). Err as for rhs.
    /// A root is a sign change of a component of g (FMI's event indicators).
    fn roots(&mut self, t: f64, x: &[f64], g: &mut [f64]) -> Result<(), String>;
}

/// Calls `f(t, x) -> dx`; a panic becomes `Err` with the panic's message.
pub(crate) fn guarded_rhs(
    sys: &mut dyn OdeSystem,
    t: f64,
    x: &[f64],
    dx: &mut [f64],
) -> Result<(), String> {
    guarded(|| sys.rhs(t, x, dx), "rhs")
}

/// Calls `g(t, x) -> g`; a panic becomes `Err` with the panic's message.
pub(crate) fn guarded_roots(
    sys: &mut dyn OdeSystem,
    t: f64,
    x: &[f64],
    g: &mut [f64],
) -> Result<(), String> {
    guarded(|| sys.roots(t, x, g), "roots")
}

fn guarded(call: impl FnOnce() -> Result<(), String>, what: &str) -> Result<(), String> {
    match catch_unwind(AssertUnwindSafe(call)) {
        Ok(result) => result,
        Err(payload) => {
            let text = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(no message)".to_string());
            Err(format!("{what} panicked: {text}"))
        }
    }
}
