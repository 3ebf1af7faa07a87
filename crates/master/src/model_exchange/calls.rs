//! [`ModelExchangeCalls`]: the Model Exchange calls of one instance, version-neutral, on top of
//! the value access every [`Slave`] has.
//!
//! [`crate::model_exchange::MeSlave`] drives an instance only through this trait: FMI 2.0 and
//! 3.0 instances implement it (through the co-simulation slaves' value access, which they
//! reuse), and so can a model written in Rust (the event loop's tests, embedding programs).
//!
//! Spec: FMI 2.0.2 §3.2 (`fmi2SetTime` … `fmi2CompletedIntegratorStep`, `fmi2NewDiscreteStates`),
//! FMI 3.0 §3.2 (`fmi3UpdateDiscreteStates` and the same calls).

use crate::Result;
use crate::slave::Slave;

/// What `completedIntegratorStep` returned.
///
/// Spec: FMI 2.0.2 §3.2.2 (`fmi2CompletedIntegratorStep`), FMI 3.0 §3.2.1.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StepEnd {
    /// The FMU asks for Event Mode now (a step event).
    pub enter_event_mode: bool,
    /// The FMU asks to end the simulation.
    pub terminate_simulation: bool,
}

/// What one event iteration (`fmi2NewDiscreteStates` / `fmi3UpdateDiscreteStates`) returned.
///
/// Spec: FMI 2.0.2 §3.2.2 (`fmi2EventInfo`), FMI 3.0 §3.2.2.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct EventUpdate {
    /// Another iteration is needed before Continuous-Time Mode.
    pub discrete_states_need_update: bool,
    /// The FMU asks to end the simulation.
    pub terminate_simulation: bool,
    /// The nominal values of the continuous states changed.
    pub nominals_of_continuous_states_changed: bool,
    /// The values of the continuous states changed.
    pub values_of_continuous_states_changed: bool,
    /// The time of the next time event, s, when the FMU knows one.
    pub next_event_time: Option<f64>,
}

impl From<fmi::DiscreteStates> for EventUpdate {
    fn from(d: fmi::DiscreteStates) -> Self {
        EventUpdate {
            discrete_states_need_update: d.discrete_states_need_update,
            terminate_simulation: d.terminate_simulation,
            nominals_of_continuous_states_changed: d.nominals_of_continuous_states_changed,
            values_of_continuous_states_changed: d.values_of_continuous_states_changed,
            next_event_time: d.next_event_time,
        }
    }
}

/// The Model Exchange calls of one instance. Times in s; every slice has the length of the
/// state vector ([`ModelExchangeCalls::number_of_continuous_states`]) or of the event
/// indicators ([`ModelExchangeCalls::number_of_event_indicators`]).
///
/// The [`Slave`] part gives value access, FMU states and `terminate`; its `exit_initialization_mode`
/// must leave the instance in Event Mode (FMI 2.0.2 §3.2.2, FMI 3.0 §3.2.2). Its `do_step` is
/// never called.
///
/// Every error names the slave (as [`Slave`]'s errors do).
pub trait ModelExchangeCalls: Slave {
    /// Length of the continuous state vector.
    fn number_of_continuous_states(&self) -> usize;
    /// Number of event indicators.
    fn number_of_event_indicators(&self) -> usize;
    /// The name of the derivative of state `index` (for error messages).
    fn derivative_name(&self, index: usize) -> String;
    /// Sets the independent variable time, s.
    ///
    /// # Errors
    /// A failing FMI call (`fmi2SetTime`, `fmi3SetTime`).
    fn set_time(&mut self, t: f64) -> Result<()>;
    /// Sets the continuous states.
    ///
    /// # Errors
    /// A failing FMI call (`fmi2SetContinuousStates`).
    fn set_continuous_states(&mut self, x: &[f64]) -> Result<()>;
    /// Reads the continuous states.
    ///
    /// # Errors
    /// A failing FMI call (`fmi2GetContinuousStates`).
    fn get_continuous_states(&mut self, x: &mut [f64]) -> Result<()>;
    /// Reads the state derivatives at the time and states set last.
    ///
    /// # Errors
    /// A failing FMI call (`fmi2GetDerivatives`, `fmi3GetContinuousStateDerivatives`).
    fn get_derivatives(&mut self, dx: &mut [f64]) -> Result<()>;
    /// Reads the event indicators.
    ///
    /// # Errors
    /// A failing FMI call (`fmi2GetEventIndicators`).
    fn get_event_indicators(&mut self, g: &mut [f64]) -> Result<()>;
    /// Reads the nominal values of the continuous states.
    ///
    /// # Errors
    /// A failing FMI call (`fmi2GetNominalsOfContinuousStates`).
    fn get_nominals_of_continuous_states(&mut self, nominals: &mut [f64]) -> Result<()>;
    /// Continuous-Time Mode → Event Mode.
    ///
    /// # Errors
    /// A failing FMI call (`fmi2EnterEventMode`).
    fn enter_event_mode(&mut self) -> Result<()>;
    /// Event Mode → Continuous-Time Mode.
    ///
    /// # Errors
    /// A failing FMI call (`fmi2EnterContinuousTimeMode`).
    fn enter_continuous_time_mode(&mut self) -> Result<()>;
    /// Tells the FMU that an integrator step is complete; `no_set_prior` is
    /// `noSetFMUStatePriorToCurrentPoint`.
    ///
    /// # Errors
    /// A failing FMI call (`fmi2CompletedIntegratorStep`).
    fn completed_integrator_step(&mut self, no_set_prior: bool) -> Result<StepEnd>;
    /// One event iteration in Event Mode.
    ///
    /// # Errors
    /// A failing FMI call (`fmi2NewDiscreteStates`, `fmi3UpdateDiscreteStates`).
    fn update_discrete_states(&mut self) -> Result<EventUpdate>;
    /// True while the instance holds no saved FMU state (for `noSetFMUStatePriorToCurrentPoint`).
    fn no_state_held(&self) -> bool;
}
