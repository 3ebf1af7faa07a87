//! FMI 2.0 co-simulation: the C types, the entry points generic over the model, and
//! [`export_fmi2!`](crate::export_fmi2).
//!
//! The typedefs are written here by hand from the standard's header shapes, independently of
//! the importer crate, so that a mismatch between the two shows up in tests.
//!
//! Every entry point checks its component against the live-instance registry, checks each
//! pointer and length, runs inside `catch_unwind`, and returns `fmi2Error` (entering the error
//! phase) on bad arguments, out-of-order calls, model errors and panics.
//!
//! Spec: FMI 2.0.2 §2.1 (common API) and §4.2 (co-simulation API).

use std::ffi::{CString, c_char, c_int, c_uint, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;

use crate::instance::{CallError, CallResult, Instance, Status as CallStatus, Version};
use crate::logger::{Category, Logger, LoggerFn, status};
use crate::model::{Model, VarType};
use crate::raw::{self, c_str, out, slice, slice_mut, with_instance};

/// `fmi2Component`: the instance handle.
pub type Component = *mut c_void;
/// `fmi2ComponentEnvironment`: the environment's context pointer for callbacks.
pub type ComponentEnvironment = *mut c_void;
/// `fmi2FMUstate`: a saved-state handle.
pub type FmuState = *mut c_void;
/// `fmi2ValueReference`.
pub type ValueReference = c_uint;
/// `fmi2Real`.
pub type Real = f64;
/// `fmi2Integer`.
pub type Integer = c_int;
/// `fmi2Boolean` (an `int`; 0 is false).
pub type Boolean = c_int;
/// `fmi2String`.
pub type FmiString = *const c_char;
/// `fmi2Byte`.
pub type Byte = c_char;
/// `fmi2Status`, see the `STATUS_*` constants.
pub type Status = c_int;
/// `fmi2Type`, see [`MODEL_EXCHANGE`] and [`CO_SIMULATION`].
pub type Type = c_int;
/// `fmi2StatusKind`, see the `KIND_*` constants.
pub type StatusKind = c_int;

/// `fmi2True`.
pub const TRUE: Boolean = 1;
/// `fmi2False`.
pub const FALSE: Boolean = 0;
/// `fmi2OK`.
pub const STATUS_OK: Status = 0;
/// `fmi2Warning`.
pub const STATUS_WARNING: Status = 1;
/// `fmi2Discard`.
pub const STATUS_DISCARD: Status = 2;
/// `fmi2Error`.
pub const STATUS_ERROR: Status = 3;
/// `fmi2Fatal`.
pub const STATUS_FATAL: Status = 4;
/// `fmi2Pending`.
pub const STATUS_PENDING: Status = 5;
/// `fmi2ModelExchange`.
pub const MODEL_EXCHANGE: Type = 0;
/// `fmi2CoSimulation`.
pub const CO_SIMULATION: Type = 1;
/// `fmi2DoStepStatus`.
pub const KIND_DO_STEP_STATUS: StatusKind = 0;
/// `fmi2PendingStatus`.
pub const KIND_PENDING_STATUS: StatusKind = 1;
/// `fmi2LastSuccessfulTime`.
pub const KIND_LAST_SUCCESSFUL_TIME: StatusKind = 2;
/// `fmi2Terminated`.
pub const KIND_TERMINATED: StatusKind = 3;

/// `fmi2CallbackFunctions`. Spec: FMI 2.0.2 §2.1.5.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CallbackFunctions {
    /// `logger`; a null pointer disables logging.
    pub logger: Option<LoggerFn>,
    /// `allocateMemory` (unused: the FMUs declare `canNotUseMemoryManagementFunctions`).
    pub allocate_memory: Option<unsafe extern "C" fn(usize, usize) -> *mut c_void>,
    /// `freeMemory` (unused).
    pub free_memory: Option<unsafe extern "C" fn(*mut c_void)>,
    /// `stepFinished` (unused: steps are never asynchronous).
    pub step_finished: Option<unsafe extern "C" fn(ComponentEnvironment, Status)>,
    /// `componentEnvironment`, passed back as the logger's first argument.
    pub component_environment: ComponentEnvironment,
}

const V: Version = Version::Fmi2;

/// `fmi2GetTypesPlatform`: `"default"`.
pub fn get_types_platform() -> *const c_char {
    c"default".as_ptr()
}

/// `fmi2GetVersion`: `"2.0"`.
pub fn get_version() -> *const c_char {
    c"2.0".as_ptr()
}

/// `fmi2Instantiate` for model `M`. Returns null (after logging, if a logger was given) for a
/// null or empty instance name, a model-exchange request, a null or unknown GUID, null
/// callbacks, or when [`Model::acquire_instance`] refuses.
///
/// Spec: FMI 2.0.2 §2.1.5.
///
/// # Safety
/// Each pointer argument must be null or valid as the standard describes it: NUL-terminated
/// strings, and `functions` pointing to a `fmi2CallbackFunctions` whose logger stays callable
/// until the instance is freed.
pub unsafe fn instantiate<M: Model>(
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
        if fmu_type != CO_SIMULATION {
            return refuse(
                &logger,
                &c_name,
                &format!("fmuType {fmu_type}: only co-simulation is supported"),
            );
        }
        // SAFETY: the caller passes null or a NUL-terminated string.
        let guid = match unsafe { c_str(guid, "fmuGUID") } {
            Ok(guid) => guid,
            Err(e) => return refuse(&logger, &c_name, &e.to_string()),
        };
        let Some(model) = M::instantiate(guid) else {
            return refuse(&logger, &c_name, &format!("unknown GUID {guid}"));
        };
        if let Err(e) = M::acquire_instance(guid) {
            return refuse(&logger, &c_name, &e.to_string());
        }
        let instance = Instance::new(V, c_name, guid.to_owned(), model, logger);
        instance.trace(|| format!("fmi2Instantiate(GUID = {guid})"));
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

/// `fmi2FreeInstance`: frees the instance and its saved FMU states, then calls
/// [`Model::release_instance`]; ignores unknown pointers.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn free_instance<M: Model>(c: Component) {
    // SAFETY: forwarded caller contract.
    unsafe { raw::free_instance::<M>(c, V, "fmi2FreeInstance") }
}

/// `fmi2SetDebugLogging`: with `nCategories == 0` switches `logCalls`, otherwise each named
/// category; unknown names give a Warning.
///
/// # Safety
/// `categories` must be null or point to `n_categories` NUL-terminated strings; `c` must not be
/// in use by a concurrent call.
pub unsafe fn set_debug_logging<M: Model>(
    c: Component,
    logging_on: Boolean,
    n_categories: usize,
    categories: *const FmiString,
) -> Status {
    let body = |inst: &mut Instance<M>| {
        // SAFETY: caller contract: `n_categories` valid string pointers.
        let raw_names = unsafe { slice(categories, n_categories, "categories") }?;
        let names = raw_names
            .iter()
            // SAFETY: each element is a NUL-terminated string per the caller contract.
            .map(|&p| unsafe { c_str(p, "categories[i]") })
            .collect::<CallResult<Vec<_>>>()?;
        inst.set_debug_logging(logging_on != FALSE, &names)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2SetDebugLogging", body) }
}

/// `fmi2SetupExperiment`: stores the start time (s); tolerance and stop time are not used.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn setup_experiment<M: Model>(
    c: Component,
    _tolerance_defined: Boolean,
    _tolerance: Real,
    start_time: Real,
    _stop_time_defined: Boolean,
    _stop_time: Real,
) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe {
        with_instance::<M>(c, V, "fmi2SetupExperiment", |i| {
            i.setup_experiment(start_time)
        })
    }
}

/// `fmi2EnterInitializationMode`.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn enter_initialization_mode<M: Model>(c: Component) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe {
        with_instance::<M>(
            c,
            V,
            "fmi2EnterInitializationMode",
            Instance::enter_initialization_mode,
        )
    }
}

/// `fmi2ExitInitializationMode`.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn exit_initialization_mode<M: Model>(c: Component) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe {
        with_instance::<M>(
            c,
            V,
            "fmi2ExitInitializationMode",
            Instance::exit_initialization_mode,
        )
    }
}

/// `fmi2Terminate`.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn terminate<M: Model>(c: Component) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2Terminate", Instance::terminate) }
}

/// `fmi2Reset`.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn reset<M: Model>(c: Component) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2Reset", Instance::reset) }
}

/// `fmi2GetReal`. Shapes: `vr` and `value` have `nvr` elements.
///
/// # Safety
/// `vr` must be valid for `nvr` reads and `value` for `nvr` writes (or null with `nvr == 0`);
/// `c` must not be in use by a concurrent call.
pub unsafe fn get_real<M: Model>(
    c: Component,
    vr: *const ValueReference,
    nvr: usize,
    value: *mut Real,
) -> Status {
    let body = |inst: &mut Instance<M>| {
        // SAFETY: caller contract on `vr`/`value`.
        let (vrs, out) = unsafe { (slice(vr, nvr, "vr")?, slice_mut(value, nvr, "value")?) };
        inst.get_values(VarType::Real, vrs, M::get_real, |i, v| out[i] = v)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2GetReal", body) }
}

/// `fmi2GetInteger`. Shapes: `vr` and `value` have `nvr` elements.
///
/// # Safety
/// As for [`get_real`].
pub unsafe fn get_integer<M: Model>(
    c: Component,
    vr: *const ValueReference,
    nvr: usize,
    value: *mut Integer,
) -> Status {
    let body = |inst: &mut Instance<M>| {
        // SAFETY: caller contract on `vr`/`value`.
        let (vrs, out) = unsafe { (slice(vr, nvr, "vr")?, slice_mut(value, nvr, "value")?) };
        inst.get_values(VarType::Integer, vrs, M::get_integer, |i, v| out[i] = v)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2GetInteger", body) }
}

/// `fmi2GetBoolean` (writes 1 or 0). Shapes: `vr` and `value` have `nvr` elements.
///
/// # Safety
/// As for [`get_real`].
pub unsafe fn get_boolean<M: Model>(
    c: Component,
    vr: *const ValueReference,
    nvr: usize,
    value: *mut Boolean,
) -> Status {
    let body = |inst: &mut Instance<M>| {
        // SAFETY: caller contract on `vr`/`value`.
        let (vrs, out) = unsafe { (slice(vr, nvr, "vr")?, slice_mut(value, nvr, "value")?) };
        inst.get_values(VarType::Boolean, vrs, M::get_boolean, |i, v| {
            out[i] = Boolean::from(v)
        })
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2GetBoolean", body) }
}

/// `fmi2GetString`. The returned strings stay valid until the next `fmi2GetString` call on
/// this instance (or its freeing). Shapes: `vr` and `value` have `nvr` elements.
///
/// # Safety
/// As for [`get_real`].
pub unsafe fn get_string<M: Model>(
    c: Component,
    vr: *const ValueReference,
    nvr: usize,
    value: *mut FmiString,
) -> Status {
    let body = |inst: &mut Instance<M>| {
        // SAFETY: caller contract on `vr`/`value`.
        let (vrs, out) = unsafe { (slice(vr, nvr, "vr")?, slice_mut(value, nvr, "value")?) };
        inst.get_strings(vrs, |i, s| out[i] = s.as_ptr())
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2GetString", body) }
}

/// `fmi2SetReal`. Shapes: `vr` and `value` have `nvr` elements.
///
/// # Safety
/// `vr` and `value` must be valid for `nvr` reads (or null with `nvr == 0`); `c` must not be
/// in use by a concurrent call.
pub unsafe fn set_real<M: Model>(
    c: Component,
    vr: *const ValueReference,
    nvr: usize,
    value: *const Real,
) -> Status {
    let body = |inst: &mut Instance<M>| {
        // SAFETY: caller contract on `vr`/`value`.
        let (vrs, values) = unsafe { (slice(vr, nvr, "vr")?, slice(value, nvr, "value")?) };
        inst.set_values(VarType::Real, vrs, |i| Ok(values[i]), M::set_real)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2SetReal", body) }
}

/// `fmi2SetInteger`. Shapes: `vr` and `value` have `nvr` elements.
///
/// # Safety
/// As for [`set_real`].
pub unsafe fn set_integer<M: Model>(
    c: Component,
    vr: *const ValueReference,
    nvr: usize,
    value: *const Integer,
) -> Status {
    let body = |inst: &mut Instance<M>| {
        // SAFETY: caller contract on `vr`/`value`.
        let (vrs, values) = unsafe { (slice(vr, nvr, "vr")?, slice(value, nvr, "value")?) };
        inst.set_values(VarType::Integer, vrs, |i| Ok(values[i]), M::set_integer)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2SetInteger", body) }
}

/// `fmi2SetBoolean` (any non-zero value is true). Shapes: `vr` and `value` have `nvr` elements.
///
/// # Safety
/// As for [`set_real`].
pub unsafe fn set_boolean<M: Model>(
    c: Component,
    vr: *const ValueReference,
    nvr: usize,
    value: *const Boolean,
) -> Status {
    let body = |inst: &mut Instance<M>| {
        // SAFETY: caller contract on `vr`/`value`.
        let (vrs, values) = unsafe { (slice(vr, nvr, "vr")?, slice(value, nvr, "value")?) };
        inst.set_values(
            VarType::Boolean,
            vrs,
            |i| Ok(values[i] != FALSE),
            M::set_boolean,
        )
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2SetBoolean", body) }
}

/// `fmi2SetString` (UTF-8 required). Shapes: `vr` and `value` have `nvr` elements.
///
/// # Safety
/// As for [`set_real`]; each `value[i]` must be null or a NUL-terminated string.
pub unsafe fn set_string<M: Model>(
    c: Component,
    vr: *const ValueReference,
    nvr: usize,
    value: *const FmiString,
) -> Status {
    let body = |inst: &mut Instance<M>| {
        // SAFETY: caller contract on `vr`/`value`.
        let (vrs, values) = unsafe { (slice(vr, nvr, "vr")?, slice(value, nvr, "value")?) };
        // SAFETY: each element is null or NUL-terminated per the caller contract.
        let text = |i: usize| unsafe { c_str(values[i], "value[i]") };
        inst.set_values(VarType::String, vrs, text, M::set_string)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2SetString", body) }
}

/// `fmi2GetFMUstate`: if `*state` is null a new state is created, otherwise the existing state
/// (which must belong to this instance) is overwritten in place.
///
/// # Safety
/// `state` must be null or valid for reads and writes; `c` must not be in use by a concurrent
/// call.
pub unsafe fn get_fmu_state<M: Model>(c: Component, state: *mut FmuState) -> Status {
    let body = |inst: &mut Instance<M>| {
        // SAFETY: caller contract on `state`.
        let slot = unsafe { out(state, "FMUstate") }?;
        let existing = (!slot.is_null()).then(|| slot.addr());
        let handle = inst.get_state(existing)?;
        *slot = ptr::without_provenance_mut(handle);
        Ok(CallStatus::Ok)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2GetFMUstate", body) }
}

/// `fmi2SetFMUstate`: restores a state of this instance.
///
/// # Safety
/// `c` must not be in use by a concurrent call. (`state` is only compared, never dereferenced.)
pub unsafe fn set_fmu_state<M: Model>(c: Component, state: FmuState) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2SetFMUstate", |i| i.set_state(state.addr())) }
}

/// `fmi2FreeFMUstate`: frees a state of this instance and nulls `*state`; a null `*state` is
/// ignored.
///
/// # Safety
/// `state` must be null or valid for reads and writes; `c` must not be in use by a concurrent
/// call.
pub unsafe fn free_fmu_state<M: Model>(c: Component, state: *mut FmuState) -> Status {
    let body = |inst: &mut Instance<M>| {
        // SAFETY: caller contract on `state`.
        let slot = unsafe { out(state, "FMUstate") }?;
        if slot.is_null() {
            return Ok(CallStatus::Ok);
        }
        inst.free_state(slot.addr())?;
        *slot = ptr::null_mut();
        Ok(CallStatus::Ok)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2FreeFMUstate", body) }
}

fn unsupported(what: &'static str) -> CallResult {
    Err(CallError::Unsupported { what })
}

/// `fmi2SerializedFMUstateSize`: not supported (`canSerializeFMUstate="false"`), Error.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn serialized_fmu_state_size<M: Model>(
    c: Component,
    _state: FmuState,
    _size: *mut usize,
) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe {
        with_instance::<M>(c, V, "fmi2SerializedFMUstateSize", |_| {
            unsupported("FMU state serialization")
        })
    }
}

/// `fmi2SerializeFMUstate`: not supported, Error.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn serialize_fmu_state<M: Model>(
    c: Component,
    _state: FmuState,
    _bytes: *mut Byte,
    _size: usize,
) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe {
        with_instance::<M>(c, V, "fmi2SerializeFMUstate", |_| {
            unsupported("FMU state serialization")
        })
    }
}

/// `fmi2DeSerializeFMUstate`: not supported, Error.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn deserialize_fmu_state<M: Model>(
    c: Component,
    _bytes: *const Byte,
    _size: usize,
    _state: *mut FmuState,
) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe {
        with_instance::<M>(c, V, "fmi2DeSerializeFMUstate", |_| {
            unsupported("FMU state serialization")
        })
    }
}

/// `fmi2GetDirectionalDerivative`: forwards to [`Model::directional_derivative`]; Error if the
/// model does not provide derivatives.
///
/// Shapes: `v_unknown_ref`/`dv_unknown` have `n_unknown` elements, `v_known_ref`/`dv_known`
/// have `n_known`.
///
/// # Safety
/// Each array must be valid for its length (reads, or writes for `dv_unknown`); `c` must not be
/// in use by a concurrent call.
pub unsafe fn get_directional_derivative<M: Model>(
    c: Component,
    v_unknown_ref: *const ValueReference,
    n_unknown: usize,
    v_known_ref: *const ValueReference,
    n_known: usize,
    dv_known: *const Real,
    dv_unknown: *mut Real,
) -> Status {
    let body = |inst: &mut Instance<M>| {
        // SAFETY: caller contract on the four arrays.
        let (unknowns, knowns, seed, result) = unsafe {
            (
                slice(v_unknown_ref, n_unknown, "vUnknown_ref")?,
                slice(v_known_ref, n_known, "vKnown_ref")?,
                slice(dv_known, n_known, "dvKnown")?,
                slice_mut(dv_unknown, n_unknown, "dvUnknown")?,
            )
        };
        inst.directional_derivative(unknowns, knowns, seed, result)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2GetDirectionalDerivative", body) }
}

/// `fmi2SetRealInputDerivatives`: not supported (`canInterpolateInputs="false"`), Error.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn set_real_input_derivatives<M: Model>(
    c: Component,
    _vr: *const ValueReference,
    _nvr: usize,
    _order: *const Integer,
    _value: *const Real,
) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe {
        with_instance::<M>(c, V, "fmi2SetRealInputDerivatives", |_| {
            unsupported("input derivatives (canInterpolateInputs=\"false\")")
        })
    }
}

/// `fmi2GetRealOutputDerivatives`: not supported (`maxOutputDerivativeOrder="0"`), Error.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn get_real_output_derivatives<M: Model>(
    c: Component,
    _vr: *const ValueReference,
    _nvr: usize,
    _order: *const Integer,
    _value: *mut Real,
) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe {
        with_instance::<M>(c, V, "fmi2GetRealOutputDerivatives", |_| {
            unsupported("output derivatives (maxOutputDerivativeOrder=\"0\")")
        })
    }
}

/// `fmi2DoStep` from `current_communication_point` with `communication_step_size` (s). The
/// point must equal the FMU time (within 1e-8·(1+|t|)); the step must be finite and > 0.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn do_step<M: Model>(
    c: Component,
    current_communication_point: Real,
    communication_step_size: Real,
    _no_set_fmu_state_prior_to_current_point: Boolean,
) -> Status {
    let body =
        |inst: &mut Instance<M>| inst.do_step(current_communication_point, communication_step_size);
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2DoStep", body) }
}

/// `fmi2CancelStep`: Error, because `fmi2DoStep` never returns `fmi2Pending`.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn cancel_step<M: Model>(c: Component) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe {
        with_instance::<M>(c, V, "fmi2CancelStep", |_| {
            unsupported("fmi2CancelStep (steps are never pending)")
        })
    }
}

/// `fmi2GetStatus`: `fmi2DoStepStatus` gives the status of the last step; other kinds give
/// Discard.
///
/// # Safety
/// `value` must be null or valid for writes; `c` must not be in use by a concurrent call.
pub unsafe fn get_status<M: Model>(c: Component, kind: StatusKind, value: *mut Status) -> Status {
    let body = |inst: &mut Instance<M>| {
        // SAFETY: caller contract on `value`.
        let out = unsafe { out(value, "value") }?;
        match kind {
            KIND_DO_STEP_STATUS => *out = inst.last_step_status().code(),
            _ => return Err(CallError::StatusKind { kind }),
        }
        Ok(CallStatus::Ok)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2GetStatus", body) }
}

/// `fmi2GetRealStatus`: `fmi2LastSuccessfulTime` gives the time (s) of the last successful
/// communication point; other kinds give Discard.
///
/// # Safety
/// As for [`get_status`].
pub unsafe fn get_real_status<M: Model>(
    c: Component,
    kind: StatusKind,
    value: *mut Real,
) -> Status {
    let body = |inst: &mut Instance<M>| {
        // SAFETY: caller contract on `value`.
        let out = unsafe { out(value, "value") }?;
        match kind {
            KIND_LAST_SUCCESSFUL_TIME => *out = inst.time(),
            _ => return Err(CallError::StatusKind { kind }),
        }
        Ok(CallStatus::Ok)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2GetRealStatus", body) }
}

/// `fmi2GetIntegerStatus`: no integer status exists; Discard.
///
/// # Safety
/// As for [`get_status`].
pub unsafe fn get_integer_status<M: Model>(
    c: Component,
    kind: StatusKind,
    value: *mut Integer,
) -> Status {
    let body = |_: &mut Instance<M>| {
        // SAFETY: caller contract on `value`.
        unsafe { out(value, "value") }?;
        Err(CallError::StatusKind { kind })
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2GetIntegerStatus", body) }
}

/// `fmi2GetBooleanStatus`: `fmi2Terminated` tells whether the model asked to end the
/// simulation; other kinds give Discard.
///
/// # Safety
/// As for [`get_status`].
pub unsafe fn get_boolean_status<M: Model>(
    c: Component,
    kind: StatusKind,
    value: *mut Boolean,
) -> Status {
    let body = |inst: &mut Instance<M>| {
        // SAFETY: caller contract on `value`.
        let out = unsafe { out(value, "value") }?;
        match kind {
            KIND_TERMINATED => *out = Boolean::from(inst.terminate_requested()),
            _ => return Err(CallError::StatusKind { kind }),
        }
        Ok(CallStatus::Ok)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2GetBooleanStatus", body) }
}

/// `fmi2GetStringStatus`: only `fmi2PendingStatus` exists and steps never pend; Discard.
///
/// # Safety
/// As for [`get_status`].
pub unsafe fn get_string_status<M: Model>(
    c: Component,
    kind: StatusKind,
    value: *mut FmiString,
) -> Status {
    let body = |_: &mut Instance<M>| {
        // SAFETY: caller contract on `value`.
        unsafe { out(value, "value") }?;
        Err(CallError::StatusKind { kind })
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2GetStringStatus", body) }
}
