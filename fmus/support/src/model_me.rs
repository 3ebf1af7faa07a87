//! Model Exchange models (feature `me`): the [`MeModel`] trait, the outcome of an event update
//! ([`EventUpdate`]), and [`ModelExchange`], the adapter that makes an [`MeModel`] a [`Model`]
//! so that the FMI 2.0 instance layer (call sequence, get/set, FMU states, logging) serves it.
//!
//! The model keeps its continuous states, discrete states, parameters and inputs; the adapter
//! keeps the model time (s) and the Model Exchange mode (Event Mode or Continuous-Time Mode),
//! so that FMU states, which are clones of the adapter, hold both.

use crate::model::{Model, ModelError, StepOutcome, Variable};

/// What one event iteration (`fmi2NewDiscreteStates`) gives back.
///
/// Spec: FMI 2.0.2 §3.2.2 (`fmi2EventInfo`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EventUpdate {
    /// Another event iteration is needed at the same time (`newDiscreteStatesNeeded`).
    pub new_discrete_states_needed: bool,
    /// The model asks to end the simulation at this time (`terminateSimulation`).
    pub terminate_simulation: bool,
    /// The continuous states jumped (`valuesOfContinuousStatesChanged`): the importer must
    /// read them again and restart its integrator.
    pub values_of_continuous_states_changed: bool,
    /// The next time event (s), strictly after the current time, if any (`nextEventTime`).
    pub next_event_time: Option<f64>,
}

/// What `fmi2CompletedIntegratorStep` gives back.
///
/// Spec: FMI 2.0.2 §3.2.2 (`fmi2CompletedIntegratorStep`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepEvent {
    /// The model wants Event Mode now (a step event).
    pub enter_event_mode: bool,
    /// The model asks to end the simulation at this time.
    pub terminate_simulation: bool,
}

/// A Model Exchange model: continuous states x with derivatives f(t, x), event indicators
/// z(t, x) whose sign changes are state events, and discrete updates in Event Mode.
///
/// It is a [`Model`] too, for the variable table, the typed getters and setters, the start
/// values ([`Model::initialize`] sets the states at the start time) and, for an FMU that also
/// declares co-simulation, [`Model::do_step`] with the model's own integrator. A Model Exchange
/// only model returns [`StepOutcome::Error`] from `do_step`; [`ModelExchange`] never calls it
/// for a Model Exchange instance.
///
/// Sizes are fixed per FMU: [`MeModel::number_of_states`] and
/// [`MeModel::number_of_event_indicators`] equal the modelDescription's
/// `ModelStructure/Derivatives` count and `numberOfEventIndicators`. Time is in seconds.
///
/// Spec: FMI 2.0.2 §3 (Model Exchange).
pub trait MeModel: Model {
    /// Number of continuous states n_x.
    fn number_of_states(&self) -> usize;

    /// Number of event indicators n_z.
    fn number_of_event_indicators(&self) -> usize;

    /// Whether this FMU also declares co-simulation (then `fmi2Instantiate` accepts
    /// `fmi2CoSimulation` and `fmi2DoStep` calls [`Model::do_step`]). Default: false.
    fn co_simulation(&self) -> bool {
        false
    }

    /// The importer set the time to `t` (s) (`fmi2SetTime`). Default: nothing; a model whose
    /// getters depend on time keeps it.
    fn set_time(&mut self, t: f64) {
        let _ = t;
    }

    /// Writes the continuous states into `x` (`x.len()` = n_x).
    fn continuous_states(&self, x: &mut [f64]);

    /// Sets the continuous states (`x.len()` = n_x).
    ///
    /// # Errors
    /// [`ModelError::InvalidValue`] for states the model cannot take.
    fn set_continuous_states(&mut self, x: &[f64]) -> Result<(), ModelError>;

    /// Writes the nominal magnitudes of the continuous states into `nominals` (> 0,
    /// `nominals.len()` = n_x). Default: 1 for every state.
    fn nominals(&self, nominals: &mut [f64]) {
        nominals.fill(1.0);
    }

    /// Writes the derivatives f(t, x) at time `t` (s) into `dx` (`dx.len()` = n_x).
    ///
    /// # Errors
    /// Any [`ModelError`]: the call returns Error.
    fn derivatives(&self, t: f64, dx: &mut [f64]) -> Result<(), ModelError>;

    /// Writes the event indicators z(t, x) into `z` (`z.len()` = n_z). Default: nothing (for
    /// n_z = 0).
    ///
    /// # Errors
    /// Any [`ModelError`]: the call returns Error.
    fn event_indicators(&self, t: f64, z: &mut [f64]) -> Result<(), ModelError> {
        let _ = (t, z);
        Ok(())
    }

    /// One event iteration at time `t` (s), in Event Mode: handles what is due at `t` (state
    /// events, time events, input changes) and reports the next time event. Called first right
    /// after the end of initialization.
    fn event_update(&mut self, t: f64) -> EventUpdate;

    /// The importer accepted an integrator step that ended at `t` (s). Default: no step event.
    fn completed_integrator_step(&mut self, t: f64) -> StepEvent {
        let _ = t;
        StepEvent::default()
    }
}

/// Which interface an instance was created for (`fmi2Instantiate`'s `fmuType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interface {
    /// `fmi2ModelExchange`.
    ModelExchange,
    /// `fmi2CoSimulation` (only for an [`MeModel::co_simulation`] model).
    CoSimulation,
}

/// The Model Exchange mode once initialization is over.
///
/// Spec: FMI 2.0.2 §3.2.3 (state machine of Model Exchange).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeMode {
    /// Event Mode: `fmi2NewDiscreteStates` iterates; continuous states are not set.
    Event,
    /// Continuous-Time Mode: the importer integrates.
    ContinuousTime,
}

/// An [`MeModel`] with the model time and the Model Exchange mode: the [`Model`] that the FMI
/// 2.0 instance layer holds for a Model Exchange FMU (`export_fmi2_me!`).
#[derive(Clone, Debug)]
pub struct ModelExchange<M> {
    model: M,
    interface: Interface,
    time: f64,
    mode: MeMode,
}

impl<M: MeModel> ModelExchange<M> {
    /// The model.
    pub fn model(&self) -> &M {
        &self.model
    }

    /// The model, writable.
    pub fn model_mut(&mut self) -> &mut M {
        &mut self.model
    }

    /// The interface the instance was created for.
    pub fn interface(&self) -> Interface {
        self.interface
    }

    /// Sets the interface (at instantiation and after `fmi2Reset`).
    pub fn set_interface(&mut self, interface: Interface) {
        self.interface = interface;
    }

    /// The model time (s), as set by `fmi2SetupExperiment` and `fmi2SetTime`.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Sets the model time (s), and tells the model ([`MeModel::set_time`]).
    pub fn set_time(&mut self, t: f64) {
        self.time = t;
        self.model.set_time(t);
    }

    /// The Model Exchange mode.
    pub fn mode(&self) -> MeMode {
        self.mode
    }

    /// Switches between Event Mode and Continuous-Time Mode.
    pub fn set_mode(&mut self, mode: MeMode) {
        self.mode = mode;
    }
}

/// The message of `fmi2DoStep` on a Model Exchange instance.
const NOT_CO_SIMULATION: &str =
    "fmi2DoStep: this instance was created for Model Exchange (fmuType fmi2ModelExchange)";

impl<M: MeModel> Model for ModelExchange<M> {
    fn acquire_instance(guid: &str) -> Result<(), ModelError> {
        M::acquire_instance(guid)
    }

    fn release_instance(guid: &str) {
        M::release_instance(guid);
    }

    fn instantiate(guid: &str) -> Option<Self> {
        M::instantiate(guid).map(|model| Self {
            model,
            interface: Interface::ModelExchange,
            time: 0.0,
            mode: MeMode::Event,
        })
    }

    fn variables(&self) -> &'static [Variable] {
        self.model.variables()
    }

    fn initialize(&mut self, start_time: f64) -> Result<(), ModelError> {
        self.time = start_time;
        self.mode = MeMode::Event;
        self.model.initialize(start_time)
    }

    fn do_step(&mut self, t: f64, h: f64) -> StepOutcome {
        match self.interface {
            Interface::CoSimulation => {
                let outcome = self.model.do_step(t, h);
                if matches!(outcome, StepOutcome::Completed | StepOutcome::Terminate) {
                    self.time = t + h;
                }
                outcome
            }
            Interface::ModelExchange => StepOutcome::Error(NOT_CO_SIMULATION.to_owned()),
        }
    }

    fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
        self.model.get_real(vr)
    }

    fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
        self.model.set_real(vr, value)
    }

    fn get_integer(&self, vr: u32) -> Result<i32, ModelError> {
        self.model.get_integer(vr)
    }

    fn set_integer(&mut self, vr: u32, value: i32) -> Result<(), ModelError> {
        self.model.set_integer(vr, value)
    }

    fn get_boolean(&self, vr: u32) -> Result<bool, ModelError> {
        self.model.get_boolean(vr)
    }

    fn set_boolean(&mut self, vr: u32, value: bool) -> Result<(), ModelError> {
        self.model.set_boolean(vr, value)
    }

    fn get_string(&self, vr: u32) -> Result<String, ModelError> {
        self.model.get_string(vr)
    }

    fn set_string(&mut self, vr: u32, value: &str) -> Result<(), ModelError> {
        self.model.set_string(vr, value)
    }

    #[cfg(feature = "fmi3")]
    fn variables3(&self) -> &'static [crate::Variable3] {
        self.model.variables3()
    }

    fn directional_derivative(
        &self,
        unknowns: &[u32],
        knowns: &[u32],
        dv_known: &[f64],
        dv_unknown: &mut [f64],
    ) -> Option<Result<(), ModelError>> {
        self.model
            .directional_derivative(unknowns, knowns, dv_known, dv_unknown)
    }

    /// The model's values, then the time (s) and the mode (0 Event Mode, 1 Continuous-Time
    /// Mode); `None` if the model's own `save_state` is `None`.
    fn save_state(&self) -> Option<Vec<f64>> {
        let mut values = self.model.save_state()?;
        values.push(self.time);
        values.push(match self.mode {
            MeMode::Event => 0.0,
            MeMode::ContinuousTime => 1.0,
        });
        Some(values)
    }

    fn load_state(&mut self, state: &[f64]) -> Result<(), ModelError> {
        let Some((&[time, mode], values)) = state.split_last_chunk::<2>().map(|(v, t)| (t, v))
        else {
            return Err(ModelError::StateLength {
                model: "Model Exchange model",
                expected: 2,
                found: state.len(),
            });
        };
        self.model.load_state(values)?;
        self.time = time;
        self.mode = if mode == 0.0 {
            MeMode::Event
        } else {
            MeMode::ContinuousTime
        };
        Ok(())
    }
}
