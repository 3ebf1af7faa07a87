//! What an FMU answers about events: the out-arguments of event iteration
//! ([`DiscreteStates`]) and of the end of an integrator step ([`IntegratorStepEnd`]), shared
//! by FMI 2.0 and 3.0 instances.
//!
//! Spec: FMI 2.0.2 §3.2.2 (`fmi2NewDiscreteStates`, `fmi2CompletedIntegratorStep`), FMI 3.0
//! `fmi3UpdateDiscreteStates`, `fmi3CompletedIntegratorStep`.

use crate::Status;

/// The out-arguments of an `fmi3UpdateDiscreteStates` call that did not fail.
///
/// Also the answer of FMI 2.0 `fmi2NewDiscreteStates` (its `fmi2EventInfo`), see
/// [`crate::Instance::new_discrete_states`].
///
/// Spec: FMI 3.0 `fmi3UpdateDiscreteStates`, FMI 2.0.2 §3.2.2 (`fmi2EventInfo`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DiscreteStates {
    /// OK or Warning.
    pub status: Status,
    /// Another event iteration is needed: call [`crate::Instance3::update_discrete_states`] again
    /// before [`crate::Instance3::enter_step_mode`].
    pub discrete_states_need_update: bool,
    /// The FMU asks to end the simulation.
    pub terminate_simulation: bool,
    /// The nominal values of continuous states changed (of interest to Model Exchange).
    pub nominals_of_continuous_states_changed: bool,
    /// The values of continuous states changed at the event.
    pub values_of_continuous_states_changed: bool,
    /// The time of the next time event, s, when the FMU knows one.
    pub next_event_time: Option<f64>,
}

/// The out-arguments of a `completedIntegratorStep` call that did not fail (FMI 2.0 and 3.0).
///
/// Spec: FMI 2.0.2 §3.2.2 (`fmi2CompletedIntegratorStep`), FMI 3.0
/// `fmi3CompletedIntegratorStep`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntegratorStepEnd {
    /// OK or Warning.
    pub status: Status,
    /// The FMU asks for Event Mode now (a step event).
    pub enter_event_mode: bool,
    /// The FMU asks to end the simulation at the current time.
    pub terminate_simulation: bool,
}
