//! FMI 3.0 Model Exchange (features `fmi3` and `me`): the entry points generic over an
//! [`MeModel`], and [`export_fmi3_me!`](crate::export_fmi3_me).
//!
//! The instance is the FMI 3.0 [`crate::fmi3`] instance with a [`ModelExchange`] adapter as
//! its model, created with Event Mode in use; the common functions (`fmi3GetFloat64`,
//! `fmi3EnterEventMode`, `fmi3Terminate`, FMU states, …) are [`crate::fmi3`]'s, called with
//! `ModelExchange<M>`. Every entry point checks its instance against the registry, checks each
//! pointer and length, runs inside `catch_unwind`, and returns `fmi3Error` (entering the error
//! state) on bad arguments, out-of-order calls, model errors and panics.
//!
//! Spec: FMI 3.0 §2.2 (common API) and §3.2 (Model Exchange API).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;

use crate::fmi3::{
    Boolean, Float64, FmiString, Instance, InstanceEnvironment, LogMessageCallback, Status, refuse,
    write_bool,
};
use crate::instance3::{Instance3, Result3, Setup};
use crate::instance3_me as me;
pub use crate::instance3_me::Array;
use crate::logger::status;
use crate::logger3::{Category3, Logger3};
use crate::model::Model;
use crate::model_me::{Interface, MeModel, ModelExchange};
use crate::phase::Status as CallStatus;
use crate::raw::{self, c_str, out, slice, slice_mut, with_instance3};

type X<M> = ModelExchange<M>;

/// `fmi3InstantiateModelExchange` for model `M`. Returns null (after logging, if a callback
/// was given) for a null or empty instance name, a null or unknown instantiation token, a model
/// without an FMI 3.0 variable table, or when [`Model::acquire_instance`] refuses. A
/// `resourcePath` without a trailing `/` gives a warning; `visible` is ignored.
///
/// Spec: FMI 3.0 §3.2.1.
///
/// # Safety
/// Each pointer argument must be null or valid as the standard describes it: NUL-terminated
/// strings and a `logMessage` callback that stays callable until the instance is freed.
pub unsafe fn instantiate_model_exchange<M: MeModel>(
    instance_name: FmiString,
    instantiation_token: FmiString,
    resource_path: FmiString,
    _visible: Boolean,
    logging_on: Boolean,
    instance_environment: InstanceEnvironment,
    log_message: LogMessageCallback,
) -> Instance {
    let body = || {
        let refuse = |message: &str| refuse(log_message, instance_environment, message);
        // SAFETY: the caller passes null or a NUL-terminated string.
        let name = match unsafe { c_str(instance_name, "instanceName") } {
            Ok(name) if !name.is_empty() => name,
            Ok(_) => return refuse("instanceName is empty"),
            Err(e) => return refuse(&e.to_string()),
        };
        // SAFETY: the caller passes null or a NUL-terminated string.
        let token = match unsafe { c_str(instantiation_token, "instantiationToken") } {
            Ok(token) => token,
            Err(e) => return refuse(&e.to_string()),
        };
        let Some(mut model) = X::<M>::instantiate(token) else {
            return refuse(&format!("unknown instantiationToken {token}"));
        };
        if model.variables3().is_empty() {
            return refuse(&format!("the model of {token} has no FMI 3.0 variables"));
        }
        model.set_interface(Interface::ModelExchange);
        let resource_path = if resource_path.is_null() {
            None
        } else {
            // SAFETY: non-null, and the caller passes a NUL-terminated string.
            match unsafe { c_str(resource_path, "resourcePath") } {
                Ok(path) => Some(path.to_owned()),
                Err(e) => return refuse(&e.to_string()),
            }
        };
        if let Err(e) = M::acquire_instance(token) {
            return refuse(&e.to_string());
        }
        let logger = Logger3::new(log_message, instance_environment, logging_on);
        if let Some(path) = resource_path.as_deref().filter(|p| !p.ends_with('/')) {
            let message =
                format!("fmi3InstantiateModelExchange: resourcePath {path:?} does not end in '/'");
            logger.log(status::WARNING, Category3::StatusWarning, &message);
        }
        let setup = Setup {
            event_mode_used: true,
            early_return_allowed: false,
            resource_path,
        };
        let instance = Instance3::new(name.to_owned(), token.to_owned(), model, logger, setup);
        instance.trace(|| format!("fmi3InstantiateModelExchange(instantiationToken = {token})"));
        match raw::register3(instance) {
            Ok(ptr) => ptr.cast(),
            Err((instance, message)) => {
                instance.log(status::ERROR, Category3::StatusError, &message);
                ptr::null_mut()
            }
        }
    };
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(ptr::null_mut())
}

/// Runs `f` on the Model Exchange instance behind `c`.
///
/// # Safety
/// As for [`with_instance3`].
unsafe fn with<M: MeModel>(
    c: Instance,
    function: &'static str,
    f: impl FnOnce(&mut Instance3<X<M>>) -> Result3,
) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe { with_instance3::<X<M>>(c, function, f) }
}

/// `fmi3EnterContinuousTimeMode`.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn enter_continuous_time_mode<M: MeModel>(c: Instance) -> Status {
    let f = "fmi3EnterContinuousTimeMode";
    // SAFETY: forwarded caller contract.
    unsafe { with::<M>(c, f, me::enter_continuous_time_mode) }
}

/// `fmi3SetTime`.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn set_time<M: MeModel>(c: Instance, time: Float64) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe { with::<M>(c, "fmi3SetTime", |i| me::set_time(i, time)) }
}

/// `fmi3SetContinuousStates`. Shape: `x` has `n` = n_x elements.
///
/// # Safety
/// `x` must be valid for `n` reads (or null with `n == 0`); `c` must not be in use by a
/// concurrent call.
pub unsafe fn set_continuous_states<M: MeModel>(
    c: Instance,
    x: *const Float64,
    n: usize,
) -> Status {
    let body = |inst: &mut Instance3<X<M>>| {
        // SAFETY: caller contract on `x`.
        let x = unsafe { slice(x, n, "continuousStates") }?;
        me::set_continuous_states(inst, x)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with::<M>(c, "fmi3SetContinuousStates", body) }
}

/// The getters of arrays: `fmi3GetContinuousStates`, `fmi3GetNominalsOfContinuousStates`,
/// `fmi3GetContinuousStateDerivatives`, `fmi3GetEventIndicators`. Shape: `values` has `n`
/// elements, n_x (n_z for the event indicators).
///
/// # Safety
/// `values` must be valid for `n` writes (or null with `n == 0`); `c` must not be in use by a
/// concurrent call.
pub unsafe fn get_array<M: MeModel>(
    c: Instance,
    which: Array,
    values: *mut Float64,
    n: usize,
) -> Status {
    let body = |inst: &mut Instance3<X<M>>| {
        // SAFETY: caller contract on `values`.
        let values = unsafe { slice_mut(values, n, "values") }?;
        me::get_array(inst, which, values)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with::<M>(c, which.function(), body) }
}

/// `fmi3GetNumberOfContinuousStates` (`event_indicators` false) or
/// `fmi3GetNumberOfEventIndicators` (true): writes the count to `*n`.
///
/// # Safety
/// `n` must be null or valid for writes; `c` must not be in use by a concurrent call.
pub unsafe fn get_number<M: MeModel>(c: Instance, event_indicators: bool, n: *mut usize) -> Status {
    let body = |inst: &mut Instance3<X<M>>| {
        // SAFETY: caller contract on `n`.
        let slot = unsafe { out(n, "n") }?;
        let (nx, nz) = me::sizes(inst);
        *slot = if event_indicators { nz } else { nx };
        Ok(CallStatus::Ok)
    };
    let function = if event_indicators {
        "fmi3GetNumberOfEventIndicators"
    } else {
        "fmi3GetNumberOfContinuousStates"
    };
    // SAFETY: forwarded caller contract.
    unsafe { with::<M>(c, function, body) }
}

/// `fmi3UpdateDiscreteStates` of a Model Exchange instance: one event iteration.
///
/// # Safety
/// Every out-pointer must be null or valid for writes; `c` must not be in use by a concurrent
/// call.
pub unsafe fn update_discrete_states<M: MeModel>(
    c: Instance,
    discrete_states_need_update: *mut Boolean,
    terminate_simulation: *mut Boolean,
    nominals_of_continuous_states_changed: *mut Boolean,
    values_of_continuous_states_changed: *mut Boolean,
    next_event_time_defined: *mut Boolean,
    next_event_time: *mut Float64,
) -> Status {
    let body = |inst: &mut Instance3<X<M>>| {
        // SAFETY: caller contract on `next_event_time`.
        let next_time = unsafe { out(next_event_time, "nextEventTime") }?;
        let update = me::update_discrete_states(inst)?;
        // SAFETY: caller contract on the Boolean out-pointers.
        unsafe {
            write_bool(
                discrete_states_need_update,
                "discreteStatesNeedUpdate",
                update.new_discrete_states_needed,
            )?;
            write_bool(
                terminate_simulation,
                "terminateSimulation",
                update.terminate_simulation,
            )?;
            write_bool(
                nominals_of_continuous_states_changed,
                "nominalsOfContinuousStatesChanged",
                false,
            )?;
            write_bool(
                values_of_continuous_states_changed,
                "valuesOfContinuousStatesChanged",
                update.values_of_continuous_states_changed,
            )?;
            write_bool(
                next_event_time_defined,
                "nextEventTimeDefined",
                update.next_event_time.is_some(),
            )?;
        }
        *next_time = update.next_event_time.unwrap_or(0.0);
        Ok(CallStatus::Ok)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with::<M>(c, "fmi3UpdateDiscreteStates", body) }
}

/// `fmi3CompletedIntegratorStep`; `noSetFMUStatePriorToCurrentPoint` is accepted and not used.
///
/// # Safety
/// Both out-pointers must be null or valid for writes; `c` must not be in use by a concurrent
/// call.
pub unsafe fn completed_integrator_step<M: MeModel>(
    c: Instance,
    _no_set_fmu_state_prior_to_current_point: Boolean,
    enter_event_mode: *mut Boolean,
    terminate_simulation: *mut Boolean,
) -> Status {
    let body = |inst: &mut Instance3<X<M>>| {
        let event = me::completed_integrator_step(inst)?;
        // SAFETY: caller contract on both out-pointers.
        unsafe {
            write_bool(enter_event_mode, "enterEventMode", event.enter_event_mode)?;
            write_bool(
                terminate_simulation,
                "terminateSimulation",
                event.terminate_simulation,
            )?;
        }
        Ok(CallStatus::Ok)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with::<M>(c, "fmi3CompletedIntegratorStep", body) }
}
