//! The FMI 2.0 Model Exchange calls of [`Instance`]: time, continuous states, derivatives,
//! event indicators and the mode changes between Event Mode and Continuous-Time Mode.
//!
//! The Model Exchange state machine is tracked: a call in a mode where FMI 2.0.2 does not
//! allow it is refused with [`crate::Error::InvalidCall`] before the FMU is called, and so is any of
//! these calls on a co-simulation instance. Slice lengths are checked against the model
//! description (number of continuous states and of event indicators): a mismatch is
//! [`crate::Error::LengthMismatch`].
//!
//! Spec: FMI 2.0.2 §3.2.1 (providing independent variables and re-initialization), §3.2.2
//! (evaluation of the model equations), §3.2.3 (state machine of calling sequence).

use std::sync::Arc;

use super::{Instance, InstantiateOptions, Phase, fmi2_bool};
use crate::ffi::{Functions, fmi2};
use crate::{DiscreteStates, Fmu, IntegratorStepEnd, Interface, Result, Status};

/// The modes in which the getters of states, derivatives, event indicators and nominals are
/// allowed (FMI 2.0.2 §3.2.3).
const GETTER_MODES: &[Phase] = &[
    Phase::InitializationMode,
    Phase::EventMode,
    Phase::ContinuousTimeMode,
    Phase::Terminated,
];

// `Fmu::instantiate_model_exchange` lives here, next to the calls it enables.
impl Fmu {
    /// Creates an FMI 2.0 Model Exchange instance named `instance_name`, of an FMU loaded with
    /// [`Fmu::load_as`] for [`Interface::ModelExchange`]: `fmi2Instantiate(name,
    /// fmi2ModelExchange, guid, <file URI of directory/resources>, callbacks, visible,
    /// loggingOn)`. The instance takes the Model Exchange calls ([`Instance::set_time`],
    /// [`Instance::get_derivatives`], …) and refuses `do_step`.
    ///
    /// # Errors
    /// As [`Fmu::instantiate`]; [`crate::Error::InvalidCall`] for an FMU not loaded for Model
    /// Exchange.
    ///
    /// Spec: FMI 2.0.2 §2.1.5 (`fmi2Instantiate`, `fmuType = fmi2ModelExchange`), §3.2.
    pub fn instantiate_model_exchange(
        self: &Arc<Self>,
        instance_name: &str,
        options: &InstantiateOptions,
    ) -> Result<Instance> {
        Instance::new(
            Arc::clone(self),
            instance_name,
            options,
            Interface::ModelExchange,
        )
    }
}

impl Instance {
    /// True for an instance made by [`Fmu::instantiate_model_exchange`].
    pub fn is_model_exchange(&self) -> bool {
        self.model_exchange
    }

    /// The Model Exchange functions, after checking that this is a Model Exchange instance in
    /// one of the `modes` (`why` says which, for the error).
    fn me_call(
        &self,
        function: &'static str,
        modes: &[Phase],
        why: &'static str,
    ) -> Result<fmi2::ModelExchangeFunctions> {
        let functions = match self.fmu.functions() {
            Functions::V2(f) if self.model_exchange => f.model_exchange,
            _ => None,
        };
        let Some(functions) = functions else {
            return Err(self.invalid_call(function, "not a Model Exchange instance"));
        };
        if !modes.contains(&self.phase) {
            return Err(self.invalid_call(function, why));
        }
        Ok(functions)
    }

    /// Calls a function with the instance as its only argument and moves to `next` on success.
    fn me_mode_change(
        &mut self,
        function: &'static str,
        call: fmi2::fmi2ComponentOnlyTYPE,
        next: Phase,
    ) -> Result<Status> {
        let _call = self.enter(function)?;
        // SAFETY: `component` is a live instance of the library `call` comes from.
        let status = unsafe { call(self.component) };
        let result = self.check(function, status);
        if result.is_ok() {
            self.phase = next;
        }
        result
    }

    /// Calls one of the getters that fill a vector of `expected` reals.
    fn me_get_vector(
        &mut self,
        function: &'static str,
        get: fmi2::fmi2GetRealVectorTYPE,
        expected: usize,
        values: &mut [f64],
    ) -> Result<Status> {
        self.check_len(function, expected, values.len())?;
        let _call = self.enter(function)?;
        // SAFETY: `component` is live; `values` holds `values.len()` writable reals, the
        // count passed.
        let status = unsafe { get(self.component, values.as_mut_ptr(), values.len()) };
        self.check(function, status)
    }

    fn n_states(&self) -> usize {
        self.fmu.description().continuous_states.len()
    }

    /// `fmi2SetTime`: sets the independent variable, s. Allowed in Event Mode and
    /// Continuous-Time Mode.
    ///
    /// # Errors
    /// [`crate::Error::InvalidCall`] in another mode, on a co-simulation instance or after Fatal;
    /// [`crate::Error::Discard`] / [`crate::Error::CallFailed`] for a failing status.
    ///
    /// Spec: FMI 2.0.2 §3.2.1 (`fmi2SetTime`).
    pub fn set_time(&mut self, t: f64) -> Result<Status> {
        const FUNCTION: &str = "fmi2SetTime";
        let f = self.me_call(
            FUNCTION,
            &[Phase::EventMode, Phase::ContinuousTimeMode],
            "allowed only in Event Mode and Continuous-Time Mode",
        )?;
        let _call = self.enter(FUNCTION)?;
        // SAFETY: `component` is live; scalar argument only.
        let status = unsafe { (f.set_time)(self.component, t) };
        self.check(FUNCTION, status)
    }

    /// `fmi2SetContinuousStates`: sets the continuous states, in state-vector order
    /// ([`crate::ModelDescription::continuous_states`]). Allowed in Continuous-Time Mode.
    ///
    /// # Errors
    /// [`crate::Error::LengthMismatch`] when `x` does not have one value per state;
    /// [`crate::Error::InvalidCall`] in another mode, on a co-simulation instance or after Fatal;
    /// [`crate::Error::Discard`] / [`crate::Error::CallFailed`] for a failing status.
    ///
    /// Spec: FMI 2.0.2 §3.2.1 (`fmi2SetContinuousStates`).
    pub fn set_continuous_states(&mut self, x: &[f64]) -> Result<Status> {
        const FUNCTION: &str = "fmi2SetContinuousStates";
        let f = self.me_call(
            FUNCTION,
            &[Phase::ContinuousTimeMode],
            "allowed only in Continuous-Time Mode",
        )?;
        self.check_len(FUNCTION, self.n_states(), x.len())?;
        let _call = self.enter(FUNCTION)?;
        // SAFETY: `component` is live; `x` holds `x.len()` reals, the count passed.
        let status = unsafe { (f.set_continuous_states)(self.component, x.as_ptr(), x.len()) };
        self.check(FUNCTION, status)
    }

    /// `fmi2GetContinuousStates`: writes the continuous states into `x` (one per state).
    /// Allowed after entering Initialization Mode.
    ///
    /// # Errors
    /// As [`Instance::set_continuous_states`] (Initialization, Event, Continuous-Time Mode
    /// and after terminate are allowed).
    ///
    /// Spec: FMI 2.0.2 §3.2.2 (`fmi2GetContinuousStates`).
    pub fn get_continuous_states(&mut self, x: &mut [f64]) -> Result<Status> {
        const FUNCTION: &str = "fmi2GetContinuousStates";
        let f = self.me_call(FUNCTION, GETTER_MODES, "allowed only after initialization")?;
        self.me_get_vector(FUNCTION, f.get_continuous_states, self.n_states(), x)
    }

    /// `fmi2GetDerivatives`: writes the state derivatives (1/s times the state's unit) into
    /// `dx`, one per state.
    ///
    /// # Errors
    /// As [`Instance::get_continuous_states`].
    ///
    /// Spec: FMI 2.0.2 §3.2.2 (`fmi2GetDerivatives`).
    pub fn get_derivatives(&mut self, dx: &mut [f64]) -> Result<Status> {
        const FUNCTION: &str = "fmi2GetDerivatives";
        let f = self.me_call(FUNCTION, GETTER_MODES, "allowed only after initialization")?;
        self.me_get_vector(FUNCTION, f.get_derivatives, self.n_states(), dx)
    }

    /// `fmi2GetEventIndicators`: writes the event indicators into `z`, one per indicator
    /// ([`crate::ModelDescription::number_of_event_indicators`]); an event happens where one
    /// changes sign.
    ///
    /// # Errors
    /// As [`Instance::get_continuous_states`], with the number of event indicators.
    ///
    /// Spec: FMI 2.0.2 §3.2.2 (`fmi2GetEventIndicators`).
    pub fn get_event_indicators(&mut self, z: &mut [f64]) -> Result<Status> {
        const FUNCTION: &str = "fmi2GetEventIndicators";
        let f = self.me_call(FUNCTION, GETTER_MODES, "allowed only after initialization")?;
        let n = self.fmu.description().number_of_event_indicators;
        self.me_get_vector(FUNCTION, f.get_event_indicators, n, z)
    }

    /// `fmi2GetNominalsOfContinuousStates`: writes the nominal value of each state into
    /// `nominals` (1.0 when the FMU knows none).
    ///
    /// # Errors
    /// As [`Instance::get_continuous_states`].
    ///
    /// Spec: FMI 2.0.2 §3.2.2 (`fmi2GetNominalsOfContinuousStates`).
    pub fn get_nominals_of_continuous_states(&mut self, nominals: &mut [f64]) -> Result<Status> {
        const FUNCTION: &str = "fmi2GetNominalsOfContinuousStates";
        let f = self.me_call(FUNCTION, GETTER_MODES, "allowed only after initialization")?;
        let get = f.get_nominals_of_continuous_states;
        self.me_get_vector(FUNCTION, get, self.n_states(), nominals)
    }

    /// `fmi2CompletedIntegratorStep`: tells the FMU that an integrator step is complete (the
    /// states are accepted). `no_set_fmu_state_prior` promises that no FMU state from before
    /// this point is restored. Allowed in Continuous-Time Mode.
    ///
    /// # Errors
    /// As [`Instance::set_time`], in Continuous-Time Mode only.
    ///
    /// Spec: FMI 2.0.2 §3.2.2 (`fmi2CompletedIntegratorStep`).
    pub fn completed_integrator_step(
        &mut self,
        no_set_fmu_state_prior: bool,
    ) -> Result<IntegratorStepEnd> {
        const FUNCTION: &str = "fmi2CompletedIntegratorStep";
        let f = self.me_call(
            FUNCTION,
            &[Phase::ContinuousTimeMode],
            "allowed only in Continuous-Time Mode",
        )?;
        let _call = self.enter(FUNCTION)?;
        let (mut enter_event_mode, mut terminate) = (fmi2::fmi2False, fmi2::fmi2False);
        // SAFETY: `component` is live; both out-pointers refer to locals of type fmi2Boolean
        // that outlive the call.
        let status = unsafe {
            (f.completed_integrator_step)(
                self.component,
                fmi2_bool(no_set_fmu_state_prior),
                &mut enter_event_mode,
                &mut terminate,
            )
        };
        let status = self.check(FUNCTION, status)?;
        Ok(IntegratorStepEnd {
            status,
            enter_event_mode: enter_event_mode != fmi2::fmi2False,
            terminate_simulation: terminate != fmi2::fmi2False,
        })
    }

    /// `fmi2EnterEventMode`: from Continuous-Time Mode into Event Mode (at a state, time or
    /// step event, or when the master changes a discrete input).
    ///
    /// # Errors
    /// As [`Instance::set_time`], in Continuous-Time Mode only.
    ///
    /// Spec: FMI 2.0.2 §3.2.2 (`fmi2EnterEventMode`).
    pub fn enter_event_mode(&mut self) -> Result<Status> {
        const FUNCTION: &str = "fmi2EnterEventMode";
        let f = self.me_call(
            FUNCTION,
            &[Phase::ContinuousTimeMode],
            "allowed only in Continuous-Time Mode",
        )?;
        self.me_mode_change(FUNCTION, f.enter_event_mode, Phase::EventMode)
    }

    /// `fmi2NewDiscreteStates`: one event iteration in Event Mode. Call it until
    /// [`DiscreteStates::discrete_states_need_update`] is false, then
    /// [`Instance::enter_continuous_time_mode`]. [`DiscreteStates::next_event_time`] is `Some`
    /// only when the FMU defines it (`nextEventTimeDefined`), s.
    ///
    /// # Errors
    /// As [`Instance::set_time`], in Event Mode only.
    ///
    /// Spec: FMI 2.0.2 §3.2.2 (`fmi2NewDiscreteStates`, `fmi2EventInfo`).
    pub fn new_discrete_states(&mut self) -> Result<DiscreteStates> {
        const FUNCTION: &str = "fmi2NewDiscreteStates";
        let f = self.me_call(FUNCTION, &[Phase::EventMode], "allowed only in Event Mode")?;
        let _call = self.enter(FUNCTION)?;
        let mut info = fmi2::fmi2EventInfo::default();
        // SAFETY: `component` is live; `info` is a local `fmi2EventInfo` (repr(C), the
        // layout of FMI 2.0.2 §3.2.2) that outlives the call.
        let status = unsafe { (f.new_discrete_states)(self.component, &mut info) };
        let status = self.check(FUNCTION, status)?;
        let yes = |flag: fmi2::fmi2Boolean| flag != fmi2::fmi2False;
        Ok(DiscreteStates {
            status,
            discrete_states_need_update: yes(info.newDiscreteStatesNeeded),
            terminate_simulation: yes(info.terminateSimulation),
            nominals_of_continuous_states_changed: yes(info.nominalsOfContinuousStatesChanged),
            values_of_continuous_states_changed: yes(info.valuesOfContinuousStatesChanged),
            next_event_time: yes(info.nextEventTimeDefined).then_some(info.nextEventTime),
        })
    }

    /// `fmi2EnterContinuousTimeMode`: from Event Mode into Continuous-Time Mode, once event
    /// iteration has converged.
    ///
    /// # Errors
    /// As [`Instance::set_time`], in Event Mode only.
    ///
    /// Spec: FMI 2.0.2 §3.2.2 (`fmi2EnterContinuousTimeMode`).
    pub fn enter_continuous_time_mode(&mut self) -> Result<Status> {
        const FUNCTION: &str = "fmi2EnterContinuousTimeMode";
        let f = self.me_call(FUNCTION, &[Phase::EventMode], "allowed only in Event Mode")?;
        let call = f.enter_continuous_time_mode;
        self.me_mode_change(FUNCTION, call, Phase::ContinuousTimeMode)
    }
}
