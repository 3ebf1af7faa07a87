//! FMI 2.0 Model Exchange (feature `me`): the C types and entry points generic over an
//! [`MeModel`], and [`export_fmi2_me!`](crate::export_fmi2_me).
//!
//! The instance is the FMI 2.0 [`crate::fmi2`] instance with a [`ModelExchange`] adapter as its
//! model, so the common functions (`fmi2GetReal`, `fmi2Terminate`, FMU states, …) are
//! [`crate::fmi2`]'s, called with `ModelExchange<M>`; this module adds instantiation for both
//! interfaces, `fmi2Reset` that keeps the interface, and the Model Exchange functions. Every
//! entry point checks its component against the live-instance registry, checks each pointer
//! and length, runs inside `catch_unwind`, and returns `fmi2Error` (entering the error phase) on
//! bad arguments, out-of-order calls, model errors and panics.
//!
//! Spec: FMI 2.0.2 §2.1 (common API) and §3.2 (Model Exchange API).

use std::ffi::CString;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;

use crate::fmi2::{
    Boolean, CO_SIMULATION, CallbackFunctions, Component, FALSE, FmiString, MODEL_EXCHANGE, Real,
    Status, TRUE, Type,
};
use crate::instance::Instance;
use crate::instance_me as me;
use crate::logger::{Category, Logger, status};
use crate::model::Model;
use crate::model_me::{Interface, MeModel, ModelExchange};
use crate::phase::{Status as CallStatus, Version};
use crate::raw::{self, c_str, out, slice, slice_mut, with_instance};

/// `fmi2EventInfo`. Spec: FMI 2.0.2 §3.2.2.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EventInfo {
    /// `newDiscreteStatesNeeded`.
    pub new_discrete_states_needed: Boolean,
    /// `terminateSimulation`.
    pub terminate_simulation: Boolean,
    /// `nominalsOfContinuousStatesChanged` (always false: the nominals are constant).
    pub nominals_of_continuous_states_changed: Boolean,
    /// `valuesOfContinuousStatesChanged`.
    pub values_of_continuous_states_changed: Boolean,
    /// `nextEventTimeDefined`.
    pub next_event_time_defined: Boolean,
    /// `nextEventTime` (s), meaningful if `next_event_time_defined`.
    pub next_event_time: Real,
}

const V: Version = Version::Fmi2;

fn boolean(b: bool) -> Boolean {
    if b { TRUE } else { FALSE }
}

/// `fmi2Instantiate` for a Model Exchange FMU with model `M`: accepts `fmi2ModelExchange`, and
/// `fmi2CoSimulation` if the model declares [`MeModel::co_simulation`]. Returns null (after
/// logging, if a logger was given) for a null or empty instance name, an interface the model
/// does not offer, a null or unknown GUID, null callbacks, or when [`Model::acquire_instance`]
/// refuses.
///
/// Spec: FMI 2.0.2 §2.1.5.
///
/// # Safety
/// As for [`crate::fmi2::instantiate`].
pub unsafe fn instantiate<M: MeModel>(
    instance_name: FmiString,
    fmu_type: Type,
    guid: FmiString,
    _resource_location: FmiString,
    functions: *const CallbackFunctions,
    _visible: Boolean,
    logging_on: Boolean,
) -> Component {
    let body = || {
        // SAFETY: the caller passes null or a valid callback struct (checked for null and
        // alignment by `out`); it is only read.
        let Ok(functions) = (unsafe { out(functions.cast_mut(), "functions") }) else {
            return ptr::null_mut();
        };
        let logger = Logger::new(
            functions.logger,
            functions.component_environment,
            logging_on != FALSE,
        );
        // SAFETY: the caller passes null or a NUL-terminated string.
        let name = match unsafe { c_str(instance_name, "instanceName") } {
            Ok(name) if !name.is_empty() => name,
            Ok(_) => return refuse(&logger, c"", "instanceName is empty"),
            Err(e) => return refuse(&logger, c"", &e.to_string()),
        };
        let c_name = CString::new(name).unwrap_or_default();
        // SAFETY: the caller passes null or a NUL-terminated string.
        let guid = match unsafe { c_str(guid, "fmuGUID") } {
            Ok(guid) => guid,
            Err(e) => return refuse(&logger, &c_name, &e.to_string()),
        };
        let Some(mut model) = ModelExchange::<M>::instantiate(guid) else {
            return refuse(&logger, &c_name, &format!("unknown GUID {guid}"));
        };
        let interface = match fmu_type {
            MODEL_EXCHANGE => Interface::ModelExchange,
            CO_SIMULATION if model.model().co_simulation() => Interface::CoSimulation,
            other => {
                let message = format!("fmuType {other}: this FMU offers only Model Exchange");
                return refuse(&logger, &c_name, &message);
            }
        };
        model.set_interface(interface);
        if let Err(e) = M::acquire_instance(guid) {
            return refuse(&logger, &c_name, &e.to_string());
        }
        let instance = Instance::new(V, c_name, guid.to_owned(), model, logger);
        instance.trace(|| format!("fmi2Instantiate(GUID = {guid}, {interface:?})"));
        match raw::register(instance, V) {
            Ok(ptr) => ptr.cast(),
            Err((instance, message)) => refuse(&instance.logger, &instance.c_name(), &message),
        }
    };
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(ptr::null_mut())
}

fn refuse(logger: &Logger, name: &std::ffi::CStr, message: &str) -> Component {
    logger.log(
        name,
        status::ERROR,
        Category::StatusError,
        &format!("fmi2Instantiate: {message}"),
    );
    ptr::null_mut()
}

/// `fmi2Reset`: back to a freshly instantiated model of the same interface.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn reset<M: MeModel>(c: Component) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<ModelExchange<M>>(c, V, "fmi2Reset", me::reset) }
}

/// `fmi2SetTime`: sets the model time (s); Event Mode or Continuous-Time Mode.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn set_time<M: MeModel>(c: Component, time: Real) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<ModelExchange<M>>(c, V, "fmi2SetTime", |i| me::set_time(i, time)) }
}

/// `fmi2SetContinuousStates`. Shape: `x` has `nx` = n_x elements.
///
/// # Safety
/// `x` must be valid for `nx` reads (or null with `nx == 0`); `c` must not be in use by a
/// concurrent call.
pub unsafe fn set_continuous_states<M: MeModel>(c: Component, x: *const Real, nx: usize) -> Status {
    let body = |inst: &mut Instance<ModelExchange<M>>| {
        // SAFETY: caller contract on `x`.
        let x = unsafe { slice(x, nx, "x") }?;
        me::set_continuous_states(inst, x)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<ModelExchange<M>>(c, V, "fmi2SetContinuousStates", body) }
}

/// One of the getters that fill an array of `n` reals.
type ArrayGetter<M> =
    fn(&mut Instance<ModelExchange<M>>, &mut [f64]) -> crate::instance::CallResult;

/// Runs an [`ArrayGetter`] on `n` values at `values`.
///
/// # Safety
/// `values` must be valid for `n` writes (or null with `n == 0`); `c` must not be in use by a
/// concurrent call.
unsafe fn get_array<M: MeModel>(
    c: Component,
    function: &'static str,
    values: *mut Real,
    n: usize,
    getter: ArrayGetter<M>,
) -> Status {
    let body = |inst: &mut Instance<ModelExchange<M>>| {
        // SAFETY: caller contract on `values`.
        let values = unsafe { slice_mut(values, n, "values") }?;
        getter(inst, values)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<ModelExchange<M>>(c, V, function, body) }
}

/// `fmi2GetContinuousStates`. Shape: `x` has `nx` = n_x elements.
///
/// # Safety
/// `x` must be valid for `nx` writes (or null with `nx == 0`); `c` must not be in use by a
/// concurrent call.
pub unsafe fn get_continuous_states<M: MeModel>(c: Component, x: *mut Real, nx: usize) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe {
        get_array::<M>(
            c,
            "fmi2GetContinuousStates",
            x,
            nx,
            me::get_continuous_states,
        )
    }
}

/// `fmi2GetNominalsOfContinuousStates`. Shape: `x_nominal` has `nx` = n_x elements.
///
/// # Safety
/// As for [`get_continuous_states`].
pub unsafe fn get_nominals_of_continuous_states<M: MeModel>(
    c: Component,
    x_nominal: *mut Real,
    nx: usize,
) -> Status {
    let f = "fmi2GetNominalsOfContinuousStates";
    // SAFETY: forwarded caller contract.
    unsafe { get_array::<M>(c, f, x_nominal, nx, me::get_nominals) }
}

/// `fmi2GetDerivatives`. Shape: `derivatives` has `nx` = n_x elements.
///
/// # Safety
/// As for [`get_continuous_states`].
pub unsafe fn get_derivatives<M: MeModel>(
    c: Component,
    derivatives: *mut Real,
    nx: usize,
) -> Status {
    let f = "fmi2GetDerivatives";
    // SAFETY: forwarded caller contract.
    unsafe { get_array::<M>(c, f, derivatives, nx, me::get_derivatives) }
}

/// `fmi2GetEventIndicators`. Shape: `event_indicators` has `ni` = n_z elements.
///
/// # Safety
/// As for [`get_continuous_states`].
pub unsafe fn get_event_indicators<M: MeModel>(
    c: Component,
    event_indicators: *mut Real,
    ni: usize,
) -> Status {
    let f = "fmi2GetEventIndicators";
    // SAFETY: forwarded caller contract.
    unsafe { get_array::<M>(c, f, event_indicators, ni, me::get_event_indicators) }
}

/// `fmi2EnterEventMode`.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn enter_event_mode<M: MeModel>(c: Component) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<ModelExchange<M>>(c, V, "fmi2EnterEventMode", me::enter_event_mode) }
}

/// `fmi2NewDiscreteStates`: one event iteration; fills `*event_info`.
///
/// # Safety
/// `event_info` must be null or valid for writes; `c` must not be in use by a concurrent call.
pub unsafe fn new_discrete_states<M: MeModel>(c: Component, event_info: *mut EventInfo) -> Status {
    let body = |inst: &mut Instance<ModelExchange<M>>| {
        // SAFETY: caller contract on `event_info`.
        let info = unsafe { out(event_info, "fmi2eventInfo") }?;
        let update = me::new_discrete_states(inst)?;
        *info = EventInfo {
            new_discrete_states_needed: boolean(update.new_discrete_states_needed),
            terminate_simulation: boolean(update.terminate_simulation),
            nominals_of_continuous_states_changed: FALSE,
            values_of_continuous_states_changed: boolean(
                update.values_of_continuous_states_changed,
            ),
            next_event_time_defined: boolean(update.next_event_time.is_some()),
            next_event_time: update.next_event_time.unwrap_or(0.0),
        };
        Ok(CallStatus::Ok)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<ModelExchange<M>>(c, V, "fmi2NewDiscreteStates", body) }
}

/// `fmi2EnterContinuousTimeMode`.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn enter_continuous_time_mode<M: MeModel>(c: Component) -> Status {
    let f = "fmi2EnterContinuousTimeMode";
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<ModelExchange<M>>(c, V, f, me::enter_continuous_time_mode) }
}

/// `fmi2CompletedIntegratorStep`: writes whether the model wants Event Mode and whether it asks
/// to end the simulation. `noSetFMUStatePriorToCurrentPoint` is accepted and not used.
///
/// # Safety
/// `enter_event_mode` and `terminate_simulation` must be null or valid for writes; `c` must not
/// be in use by a concurrent call.
pub unsafe fn completed_integrator_step<M: MeModel>(
    c: Component,
    _no_set_fmu_state_prior_to_current_point: Boolean,
    enter_event_mode: *mut Boolean,
    terminate_simulation: *mut Boolean,
) -> Status {
    let body = |inst: &mut Instance<ModelExchange<M>>| {
        // SAFETY: caller contract on both out-arguments.
        let (enter, terminate) = unsafe {
            (
                out(enter_event_mode, "enterEventMode")?,
                out(terminate_simulation, "terminateSimulation")?,
            )
        };
        let event = me::completed_integrator_step(inst)?;
        *enter = boolean(event.enter_event_mode);
        *terminate = boolean(event.terminate_simulation);
        Ok(CallStatus::Ok)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<ModelExchange<M>>(c, V, "fmi2CompletedIntegratorStep", body) }
}
