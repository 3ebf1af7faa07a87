//! The FMI 3.0 Model Exchange calls of [`Instance3`]: instantiation, time, continuous
//! states, derivatives, event indicators and the mode changes between Event Mode and
//! Continuous-Time Mode (Event Mode itself: [`Instance3::enter_event_mode`] and
//! [`Instance3::update_discrete_states`], shared with co-simulation).
//!
//! As for FMI 2.0 (`instance::model_exchange`): the state machine is tracked and a call in
//! the wrong mode, or on a co-simulation instance, is [`crate::Error::InvalidCall`] without
//! calling the FMU; slice lengths are checked against the model description
//! ([`crate::Error::LengthMismatch`]).
//!
//! Spec: FMI 3.0 Model Exchange API (`fmi3InstantiateModelExchange`, `fmi3SetTime`,
//! `fmi3SetContinuousStates`, `fmi3GetContinuousStateDerivatives`, `fmi3GetEventIndicators`,
//! `fmi3CompletedIntegratorStep`, `fmi3EnterContinuousTimeMode`, …) and its state machine.

use std::ffi::{CStr, c_void};
use std::ptr;
use std::sync::Arc;

use super::{Fmi3InstantiateOptions, Instance3, Phase};
use crate::ffi::{self, fmi3};
use crate::{Fmu, IntegratorStepEnd, Interface, Result, Status};

/// The modes in which the getters of states, derivatives, event indicators and nominals are
/// allowed.
const GETTER_MODES: &[Phase] = &[
    Phase::InitializationMode,
    Phase::EventMode,
    Phase::ContinuousTimeMode,
    Phase::Terminated,
];

// `Fmu::instantiate_fmi3_model_exchange` lives here, next to the calls it enables.
impl Fmu {
    /// Creates an FMI 3.0 Model Exchange instance named `instance_name`, of an FMU loaded
    /// with [`Fmu::load_as`] for [`Interface::ModelExchange`]:
    /// `fmi3InstantiateModelExchange(name, instantiationToken, resourcePath, visible,
    /// loggingOn, <instance name>, <log callback>)`, `resourcePath` as for
    /// [`Fmu::instantiate_fmi3`]. The instance is in Event Mode after initialization
    /// ([`Instance3::event_mode_used`] is true) and refuses `do_step` and `enter_step_mode`.
    ///
    /// # Errors
    /// As [`Fmu::instantiate_fmi3`]; [`crate::Error::InvalidCall`] for an FMU not loaded for
    /// Model Exchange, or with `event_mode_used` or `early_return_allowed` set (options of
    /// co-simulation).
    ///
    /// Spec: FMI 3.0 `fmi3InstantiateModelExchange`.
    pub fn instantiate_fmi3_model_exchange(
        self: &Arc<Self>,
        instance_name: &str,
        options: &Fmi3InstantiateOptions,
    ) -> Result<Instance3> {
        Instance3::new(
            Arc::clone(self),
            instance_name,
            options,
            Interface::ModelExchange,
        )
    }
}

/// Refuses to instantiate `fmu` for `interface` when it was loaded for the other one, or for
/// Model Exchange with co-simulation options; the reason in return.
pub(super) fn check_interface(
    fmu: &Fmu,
    interface: Interface,
    options: &Fmi3InstantiateOptions,
) -> std::result::Result<(), &'static str> {
    match (fmu.interface(), interface) {
        (Interface::ModelExchange, Interface::CoSimulation) => {
            Err("the FMU was loaded for Model Exchange: use instantiate_fmi3_model_exchange")
        }
        (Interface::CoSimulation, Interface::ModelExchange) => {
            Err("the FMU was loaded for co-simulation: load it with Fmu::load_as")
        }
        (_, Interface::ModelExchange)
            if options.event_mode_used || options.early_return_allowed =>
        {
            Err("event_mode_used and early_return_allowed are options of co-simulation")
        }
        _ => Ok(()),
    }
}

/// Calls `fmi3InstantiateModelExchange`; NULL when the FMU refuses.
pub(super) fn instantiate(
    functions: &fmi3::ModelExchangeFunctions,
    name: &CStr,
    token: &CStr,
    resources: Option<&CStr>,
    options: &Fmi3InstantiateOptions,
) -> fmi3::fmi3Instance {
    // SAFETY: all strings are NUL-terminated and outlive the call (the FMU copies what it
    // keeps, except the instance environment: `name`'s heap buffer, which the instance stores
    // and keeps until after `fmi3FreeInstance`); `resourcePath` is NULL or a path; the log
    // callback never unwinds. Argument types follow fmi3InstantiateModelExchangeTYPE.
    unsafe {
        (functions.instantiate)(
            name.as_ptr(),
            token.as_ptr(),
            resources.map_or(ptr::null(), |r| r.as_ptr()),
            options.visible,
            options.logging_on,
            name.as_ptr().cast_mut().cast::<c_void>(),
            Some(ffi::fmi3_log_message),
        )
    }
}

impl Instance3 {
    /// True for an instance made by [`Fmu::instantiate_fmi3_model_exchange`].
    pub fn is_model_exchange(&self) -> bool {
        self.model_exchange
    }

    /// For a Model Exchange instance: refuses `function` outside `mode` (shared Event Mode
    /// calls; co-simulation instances are not checked here).
    pub(super) fn check_me_mode(&self, function: &'static str, mode: Phase) -> Result<()> {
        if self.model_exchange && self.phase != mode {
            return Err(self.invalid_call(
                function,
                match mode {
                    Phase::EventMode => "allowed only in Event Mode",
                    _ => "allowed only in Continuous-Time Mode",
                },
            ));
        }
        Ok(())
    }

    /// The Model Exchange functions, after checking that this is a Model Exchange instance in
    /// one of the `modes` (`why` says which, for the error).
    fn me_call(
        &self,
        function: &'static str,
        modes: &[Phase],
        why: &'static str,
    ) -> Result<fmi3::ModelExchangeFunctions> {
        let Some(functions) = self
            .functions
            .model_exchange
            .filter(|_| self.model_exchange)
        else {
            return Err(self.invalid_call(function, "not a Model Exchange instance"));
        };
        if !modes.contains(&self.phase) {
            return Err(self.invalid_call(function, why));
        }
        Ok(functions)
    }

    /// Calls one of the getters that fill a vector of `expected` Float64 values.
    fn me_get_vector(
        &mut self,
        function: &'static str,
        get: fmi3::fmi3GetFloat64VectorTYPE,
        expected: usize,
        values: &mut [f64],
    ) -> Result<Status> {
        if expected != values.len() {
            return Err(self.length_mismatch(function, expected, values.len()));
        }
        let _call = self.enter(function)?;
        // SAFETY: `instance` is live; `values` holds `values.len()` writable Float64 values,
        // the count passed.
        let status = unsafe { get(self.instance, values.as_mut_ptr(), values.len()) };
        self.check(function, status)
    }

    fn n_states(&self) -> usize {
        self.fmu.description().continuous_states.len()
    }

    /// `fmi3SetTime`: sets the independent variable, s. Allowed in Event Mode and
    /// Continuous-Time Mode.
    ///
    /// # Errors
    /// [`crate::Error::InvalidCall`] in another mode, on a co-simulation instance or after
    /// Fatal; [`crate::Error::Discard`] / [`crate::Error::CallFailed`] for a failing status.
    ///
    /// Spec: FMI 3.0 `fmi3SetTime`.
    pub fn set_time(&mut self, t: f64) -> Result<Status> {
        const FUNCTION: &str = "fmi3SetTime";
        let f = self.me_call(
            FUNCTION,
            &[Phase::EventMode, Phase::ContinuousTimeMode],
            "allowed only in Event Mode and Continuous-Time Mode",
        )?;
        let _call = self.enter(FUNCTION)?;
        // SAFETY: `instance` is live; scalar argument only.
        let status = unsafe { (f.set_time)(self.instance, t) };
        self.check(FUNCTION, status)
    }

    /// `fmi3SetContinuousStates`: sets the continuous states, in state-vector order
    /// ([`crate::ModelDescription::continuous_states`]). Allowed in Continuous-Time Mode.
    ///
    /// # Errors
    /// [`crate::Error::LengthMismatch`] when `x` does not have one value per state; otherwise
    /// as [`Instance3::set_time`], in Continuous-Time Mode only.
    ///
    /// Spec: FMI 3.0 `fmi3SetContinuousStates`.
    pub fn set_continuous_states(&mut self, x: &[f64]) -> Result<Status> {
        const FUNCTION: &str = "fmi3SetContinuousStates";
        let f = self.me_call(
            FUNCTION,
            &[Phase::ContinuousTimeMode],
            "allowed only in Continuous-Time Mode",
        )?;
        if x.len() != self.n_states() {
            return Err(self.length_mismatch(FUNCTION, self.n_states(), x.len()));
        }
        let _call = self.enter(FUNCTION)?;
        // SAFETY: `instance` is live; `x` holds `x.len()` values, the count passed.
        let status = unsafe { (f.set_continuous_states)(self.instance, x.as_ptr(), x.len()) };
        self.check(FUNCTION, status)
    }

    /// `fmi3GetContinuousStates`: writes the continuous states into `x` (one per state).
    /// Allowed from Initialization Mode on.
    ///
    /// # Errors
    /// As [`Instance3::set_continuous_states`] (Initialization, Event and Continuous-Time
    /// Mode and after terminate are allowed).
    ///
    /// Spec: FMI 3.0 `fmi3GetContinuousStates`.
    pub fn get_continuous_states(&mut self, x: &mut [f64]) -> Result<Status> {
        const FUNCTION: &str = "fmi3GetContinuousStates";
        let f = self.me_call(FUNCTION, GETTER_MODES, "allowed only after initialization")?;
        self.me_get_vector(FUNCTION, f.get_continuous_states, self.n_states(), x)
    }

    /// `fmi3GetContinuousStateDerivatives`: writes the state derivatives (1/s times the
    /// state's unit) into `dx`, one per state.
    ///
    /// # Errors
    /// As [`Instance3::get_continuous_states`].
    ///
    /// Spec: FMI 3.0 `fmi3GetContinuousStateDerivatives`.
    pub fn get_derivatives(&mut self, dx: &mut [f64]) -> Result<Status> {
        const FUNCTION: &str = "fmi3GetContinuousStateDerivatives";
        let f = self.me_call(FUNCTION, GETTER_MODES, "allowed only after initialization")?;
        self.me_get_vector(FUNCTION, f.get_derivatives, self.n_states(), dx)
    }

    /// `fmi3GetEventIndicators`: writes the event indicators into `z`, one per indicator
    /// ([`crate::ModelDescription::number_of_event_indicators`]).
    ///
    /// # Errors
    /// As [`Instance3::get_continuous_states`], with the number of event indicators.
    ///
    /// Spec: FMI 3.0 `fmi3GetEventIndicators`.
    pub fn get_event_indicators(&mut self, z: &mut [f64]) -> Result<Status> {
        const FUNCTION: &str = "fmi3GetEventIndicators";
        let f = self.me_call(FUNCTION, GETTER_MODES, "allowed only after initialization")?;
        let n = self.fmu.description().number_of_event_indicators;
        self.me_get_vector(FUNCTION, f.get_event_indicators, n, z)
    }

    /// `fmi3GetNominalsOfContinuousStates`: writes the nominal value of each state into
    /// `nominals`.
    ///
    /// # Errors
    /// As [`Instance3::get_continuous_states`].
    ///
    /// Spec: FMI 3.0 `fmi3GetNominalsOfContinuousStates`.
    pub fn get_nominals_of_continuous_states(&mut self, nominals: &mut [f64]) -> Result<Status> {
        const FUNCTION: &str = "fmi3GetNominalsOfContinuousStates";
        let f = self.me_call(FUNCTION, GETTER_MODES, "allowed only after initialization")?;
        let get = f.get_nominals_of_continuous_states;
        self.me_get_vector(FUNCTION, get, self.n_states(), nominals)
    }

    /// `fmi3GetNumberOfContinuousStates`: the number of continuous states as the FMU
    /// counts it now (it may depend on structural parameters). Allowed from Initialization
    /// Mode on.
    ///
    /// # Errors
    /// As [`Instance3::get_continuous_states`].
    ///
    /// Spec: FMI 3.0 `fmi3GetNumberOfContinuousStates`.
    pub fn number_of_continuous_states(&mut self) -> Result<usize> {
        const FUNCTION: &str = "fmi3GetNumberOfContinuousStates";
        let f = self.me_call(FUNCTION, GETTER_MODES, "allowed only after initialization")?;
        self.me_get_number(FUNCTION, f.get_number_of_continuous_states)
    }

    /// `fmi3GetNumberOfEventIndicators`: the number of event indicators as the FMU counts it
    /// now.
    ///
    /// # Errors
    /// As [`Instance3::get_continuous_states`].
    ///
    /// Spec: FMI 3.0 `fmi3GetNumberOfEventIndicators`.
    pub fn number_of_event_indicators(&mut self) -> Result<usize> {
        const FUNCTION: &str = "fmi3GetNumberOfEventIndicators";
        let f = self.me_call(FUNCTION, GETTER_MODES, "allowed only after initialization")?;
        self.me_get_number(FUNCTION, f.get_number_of_event_indicators)
    }

    fn me_get_number(
        &mut self,
        function: &'static str,
        get: fmi3::fmi3GetNumberTYPE,
    ) -> Result<usize> {
        let _call = self.enter(function)?;
        let mut n = 0usize;
        // SAFETY: `instance` is live; `n` is a local `size_t` that outlives the call.
        let status = unsafe { get(self.instance, &mut n) };
        self.check(function, status)?;
        Ok(n)
    }

    /// `fmi3CompletedIntegratorStep`: tells the FMU that an integrator step is complete.
    /// `no_set_fmu_state_prior` promises that no FMU state from before this point is
    /// restored. Allowed in Continuous-Time Mode.
    ///
    /// # Errors
    /// As [`Instance3::set_time`], in Continuous-Time Mode only.
    ///
    /// Spec: FMI 3.0 `fmi3CompletedIntegratorStep`.
    pub fn completed_integrator_step(
        &mut self,
        no_set_fmu_state_prior: bool,
    ) -> Result<IntegratorStepEnd> {
        const FUNCTION: &str = "fmi3CompletedIntegratorStep";
        let f = self.me_call(
            FUNCTION,
            &[Phase::ContinuousTimeMode],
            "allowed only in Continuous-Time Mode",
        )?;
        let _call = self.enter(FUNCTION)?;
        let (mut enter_event_mode, mut terminate_simulation) = (false, false);
        // SAFETY: `instance` is live; both out-pointers refer to local `bool`s (C `bool`)
        // that outlive the call.
        let status = unsafe {
            (f.completed_integrator_step)(
                self.instance,
                no_set_fmu_state_prior,
                &mut enter_event_mode,
                &mut terminate_simulation,
            )
        };
        let status = self.check(FUNCTION, status)?;
        Ok(IntegratorStepEnd {
            status,
            enter_event_mode,
            terminate_simulation,
        })
    }

    /// `fmi3EnterContinuousTimeMode`: from Event Mode into Continuous-Time Mode, once event
    /// iteration has converged.
    ///
    /// # Errors
    /// As [`Instance3::set_time`], in Event Mode only.
    ///
    /// Spec: FMI 3.0 `fmi3EnterContinuousTimeMode`.
    pub fn enter_continuous_time_mode(&mut self) -> Result<Status> {
        const FUNCTION: &str = "fmi3EnterContinuousTimeMode";
        let f = self.me_call(FUNCTION, &[Phase::EventMode], "allowed only in Event Mode")?;
        let call = f.enter_continuous_time_mode;
        self.call_instance_only(FUNCTION, call, Phase::ContinuousTimeMode)
    }
}
