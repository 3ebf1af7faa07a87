//! The errors of the integrators.

/// What went wrong while setting up or running an integrator.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The integrator could not be created or (re)started: bad settings (a non-positive or NaN
    /// tolerance, `abs_tol` of the wrong length, a non-positive Euler step), zero states, a call
    /// out of order, or SUNDIALS refused the setup (its message is included).
    #[error("integrator setup: {0}")]
    Setup(String),
    /// The ODE system (`OdeSystem::rhs` or `OdeSystem::roots`) returned `Err` or panicked at
    /// time `t` (s); `message` is its message.
    #[error("the ODE system failed at t = {t} s: {message}")]
    System {
        /// Time (s) of the failing evaluation.
        t: f64,
        /// The system's message (or the panic's).
        message: String,
    },
    /// The integrator gave up at time `t` (s), the last time it reached; `message` starts with
    /// CVODE's flag name (e.g. `CV_CONV_FAILURE`) followed by its message.
    #[error("the integrator failed at t = {t} s: {message}")]
    Failed {
        /// Time (s) the integration reached before failing.
        t: f64,
        /// The flag name and SUNDIALS' message.
        message: String,
    },
}
