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

use crate::instance::{CallError, CallResult, Instance};
use crate::logger::{Category, Logger, LoggerFn, status};
use crate::model::{Model, VarType};
use crate::phase::{Status as CallStatus, Version};
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

/// `fmi2SerializedFMUstateSize`: writes to `*size` the number of bytes that
/// [`serialize_fmu_state`] needs for the state `state` of this instance. Error (unsupported)
/// if the model's [`Model::save_state`] is `None`, and for an unknown state.
///
/// Spec: FMI 2.0.2 §2.1.8.
///
/// # Safety
/// `size` must be null or valid for writes; `c` must not be in use by a concurrent call.
/// (`state` is only compared, never dereferenced.)
pub unsafe fn serialized_fmu_state_size<M: Model>(
    c: Component,
    state: FmuState,
    size: *mut usize,
) -> Status {
    let body = |inst: &mut Instance<M>| {
        inst.require_serializable()?;
        // SAFETY: caller contract on `size`.
        let out = unsafe { out(size, "size") }?;
        *out = inst.serialized_state_size(state.addr())?;
        Ok(CallStatus::Ok)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2SerializedFMUstateSize", body) }
}

/// `fmi2SerializeFMUstate`: writes the state `state` of this instance into `serializedState`,
/// which must hold exactly the number of bytes [`serialized_fmu_state_size`] gives. The format:
/// the magic `MSIMFMUS`, a format version, the GUID, the export layer's fields (phase, terminate
/// request, step status, start time, FMU time) and the model's [`Model::save_state`] values as
/// little-endian `f64` (see the crate README). Error (unsupported) if the model's
/// [`Model::save_state`] is `None`; Error for an unknown state or a buffer of another size.
///
/// Spec: FMI 2.0.2 §2.1.8.
///
/// # Safety
/// `bytes` must be null or valid for `size` writes; `c` must not be in use by a concurrent
/// call. (`state` is only compared, never dereferenced.)
pub unsafe fn serialize_fmu_state<M: Model>(
    c: Component,
    state: FmuState,
    bytes: *mut Byte,
    size: usize,
) -> Status {
    let body = |inst: &mut Instance<M>| {
        inst.require_serializable()?;
        // SAFETY: caller contract on `bytes`; `fmi2Byte` and `u8` have the same layout.
        let out = unsafe { slice_mut(bytes.cast::<u8>(), size, "serializedState") }?;
        inst.serialize_state(state.addr(), out)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2SerializeFMUstate", body) }
}

/// `fmi2DeSerializeFMUstate`: reads `size` bytes that [`serialize_fmu_state`] wrote (in an
/// instance of the same FMU, possibly in another process) into an FMU state of this instance.
/// As in [`get_fmu_state`], a null `*state` gives a new state and a non-null one must be a
/// state of this instance, which is overwritten in place. The caller then restores it with
/// `fmi2SetFMUstate` and frees it with `fmi2FreeFMUstate`.
///
/// Error, with a logged reason, if the model's [`Model::save_state`] is `None` (unsupported),
/// for bytes with a wrong magic, version, GUID or length, and when [`Model::load_state`]
/// refuses the values; then `*state` is unchanged.
///
/// Spec: FMI 2.0.2 §2.1.8.
///
/// # Safety
/// `bytes` must be null or valid for `size` reads; `state` must be null or valid for reads and
/// writes; `c` must not be in use by a concurrent call.
pub unsafe fn deserialize_fmu_state<M: Model>(
    c: Component,
    bytes: *const Byte,
    size: usize,
    state: *mut FmuState,
) -> Status {
    let body = |inst: &mut Instance<M>| {
        inst.require_serializable()?;
        // SAFETY: caller contract on `bytes` and `state`; `fmi2Byte` and `u8` have the same
        // layout.
        let (data, slot) = unsafe {
            (
                slice(bytes.cast::<u8>(), size, "serializedState")?,
                out(state, "FMUstate")?,
            )
        };
        let existing = (!slot.is_null()).then(|| slot.addr());
        let handle = inst.deserialize_state(data, existing)?;
        *slot = ptr::without_provenance_mut(handle);
        Ok(CallStatus::Ok)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmi2DeSerializeFMUstate", body) }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Causality, ModelError, StepOutcome, Variable, state_array};

    /// `x' = k·x + u`, stepped with explicit Euler; serializable.
    #[derive(Clone, Debug)]
    struct Growth {
        k: f64,
        u: f64,
        x: f64,
    }

    const VARS: &[Variable] = &[
        Variable::new("x", 0, VarType::Real, Causality::Output),
        Variable::new("u", 1, VarType::Real, Causality::Input),
        Variable::new("k", 2, VarType::Real, Causality::Parameter),
    ];

    impl Model for Growth {
        fn instantiate(guid: &str) -> Option<Self> {
            (guid == "{growth}").then_some(Self {
                k: 0.5,
                u: 0.0,
                x: 1.0,
            })
        }
        fn variables(&self) -> &'static [Variable] {
            VARS
        }
        fn initialize(&mut self, _start_time: f64) -> Result<(), ModelError> {
            self.x = 1.0;
            Ok(())
        }
        fn do_step(&mut self, _t: f64, h: f64) -> StepOutcome {
            self.x += h * (self.k * self.x + self.u);
            StepOutcome::Completed
        }
        fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
            match vr {
                0 => Ok(self.x),
                1 => Ok(self.u),
                2 => Ok(self.k),
                _ => Err(ModelError::unknown(VarType::Real, vr)),
            }
        }
        fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
            match vr {
                1 => self.u = value,
                2 => self.k = value,
                _ => return Err(ModelError::unknown(VarType::Real, vr)),
            }
            Ok(())
        }
        fn save_state(&self) -> Option<Vec<f64>> {
            Some(vec![self.k, self.u, self.x])
        }
        fn load_state(&mut self, state: &[f64]) -> Result<(), ModelError> {
            let [k, u, x] = state_array("Growth", state)?;
            *self = Self { k, u, x };
            Ok(())
        }
    }

    /// The same model without serialization.
    #[derive(Clone, Debug)]
    struct Opaque(Growth);

    impl Model for Opaque {
        fn instantiate(guid: &str) -> Option<Self> {
            Growth::instantiate(guid).map(Self)
        }
        fn variables(&self) -> &'static [Variable] {
            VARS
        }
        fn initialize(&mut self, start_time: f64) -> Result<(), ModelError> {
            self.0.initialize(start_time)
        }
        fn do_step(&mut self, t: f64, h: f64) -> StepOutcome {
            self.0.do_step(t, h)
        }
        fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
            self.0.get_real(vr)
        }
        fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
            self.0.set_real(vr, value)
        }
    }

    /// Instantiates, sets `k`, and enters step mode at t = 0.
    fn start<M: Model>(k: f64) -> Component {
        let callbacks = CallbackFunctions {
            logger: None,
            allocate_memory: None,
            free_memory: None,
            step_finished: None,
            component_environment: ptr::null_mut(),
        };
        // SAFETY: NUL-terminated strings and a callback struct that outlive the call.
        let c = unsafe {
            instantiate::<M>(
                c"growth".as_ptr(),
                CO_SIMULATION,
                c"{growth}".as_ptr(),
                ptr::null(),
                &raw const callbacks,
                FALSE,
                FALSE,
            )
        };
        assert!(!c.is_null());
        // SAFETY: a live instance used by this thread only; pointers to live locals.
        unsafe {
            assert_eq!(set_real::<M>(c, &2, 1, &k), STATUS_OK);
            assert_eq!(setup_experiment::<M>(c, 0, 0.0, 0.0, 0, 0.0), STATUS_OK);
            assert_eq!(enter_initialization_mode::<M>(c), STATUS_OK);
            assert_eq!(exit_initialization_mode::<M>(c), STATUS_OK);
        }
        c
    }

    fn x<M: Model>(c: Component) -> f64 {
        let mut value = f64::NAN;
        // SAFETY: a live instance; one value reference and one output slot.
        let status = unsafe { get_real::<M>(c, &0, 1, &raw mut value) };
        assert_eq!(status, STATUS_OK);
        value
    }

    /// `fmi2GetFMUstate`, `fmi2SerializedFMUstateSize` and `fmi2SerializeFMUstate`.
    fn serialize(c: Component) -> Vec<Byte> {
        let mut state: FmuState = ptr::null_mut();
        let mut size = 0;
        // SAFETY: a live instance; pointers to live locals and a buffer of `size` bytes.
        unsafe {
            assert_eq!(get_fmu_state::<Growth>(c, &raw mut state), STATUS_OK);
            assert_eq!(
                serialized_fmu_state_size::<Growth>(c, state, &raw mut size),
                STATUS_OK
            );
            let mut bytes = vec![0; size];
            assert_eq!(
                serialize_fmu_state::<Growth>(c, state, bytes.as_mut_ptr(), size),
                STATUS_OK
            );
            assert_eq!(free_fmu_state::<Growth>(c, &raw mut state), STATUS_OK);
            bytes
        }
    }

    #[test]
    fn serialized_state_moves_between_instances() {
        let a = start::<Growth>(0.3);
        // SAFETY: live instances used by this thread only; pointers to live locals.
        unsafe {
            assert_eq!(set_real::<Growth>(a, &1, 1, &0.7), STATUS_OK);
            assert_eq!(do_step::<Growth>(a, 0.0, 0.1, TRUE), STATUS_OK);
            assert_eq!(do_step::<Growth>(a, 0.1, 0.1, TRUE), STATUS_OK);
        }
        let bytes = serialize(a);
        assert_eq!(bytes.len(), 40 + "{growth}".len() + 3 * 8);

        let b = start::<Growth>(-1.0);
        let mut state: FmuState = ptr::null_mut();
        // SAFETY: as above.
        unsafe {
            assert_eq!(
                deserialize_fmu_state::<Growth>(b, bytes.as_ptr(), bytes.len(), &raw mut state),
                STATUS_OK
            );
            assert!(!state.is_null());
            assert_eq!(set_fmu_state::<Growth>(b, state), STATUS_OK);
            assert_eq!(free_fmu_state::<Growth>(b, &raw mut state), STATUS_OK);
            assert!(state.is_null());
            let mut time = 0.0;
            assert_eq!(
                get_real_status::<Growth>(b, KIND_LAST_SUCCESSFUL_TIME, &raw mut time),
                STATUS_OK
            );
            assert_eq!(time, 0.2);
            let mut t = 0.2;
            for _ in 0..5 {
                assert_eq!(do_step::<Growth>(a, t, 0.1, TRUE), STATUS_OK);
                assert_eq!(do_step::<Growth>(b, t, 0.1, TRUE), STATUS_OK);
                t += 0.1;
                assert_eq!(x::<Growth>(a).to_bits(), x::<Growth>(b).to_bits());
            }
            free_instance::<Growth>(a);
            free_instance::<Growth>(b);
        }
    }

    #[test]
    fn bad_bytes_and_pointers_give_error_not_a_panic() {
        let a = start::<Growth>(0.3);
        let good = serialize(a);
        let b = start::<Growth>(0.3);
        let mut bad = good.clone();
        bad[0] = b'X' as Byte;
        let mut state: FmuState = ptr::null_mut();
        // SAFETY: live instances; pointers to live locals, or null where that is tested.
        unsafe {
            for bytes in [&bad[..], &good[..good.len() - 1], &[]] {
                assert_eq!(
                    deserialize_fmu_state::<Growth>(b, bytes.as_ptr(), bytes.len(), &raw mut state),
                    STATUS_ERROR
                );
                assert!(state.is_null(), "no state is returned");
            }
            let mut longer = good.clone();
            longer.push(0);
            assert_eq!(
                deserialize_fmu_state::<Growth>(b, longer.as_ptr(), longer.len(), &raw mut state),
                STATUS_ERROR
            );
            assert_eq!(
                deserialize_fmu_state::<Growth>(b, ptr::null(), good.len(), &raw mut state),
                STATUS_ERROR
            );
            assert_eq!(
                deserialize_fmu_state::<Growth>(b, good.as_ptr(), good.len(), ptr::null_mut()),
                STATUS_ERROR
            );
            // The error phase still accepts the state functions: a good state recovers.
            assert_eq!(
                deserialize_fmu_state::<Growth>(b, good.as_ptr(), good.len(), &raw mut state),
                STATUS_OK
            );
            assert_eq!(set_fmu_state::<Growth>(b, state), STATUS_OK);
            assert_eq!(do_step::<Growth>(b, 0.0, 0.1, TRUE), STATUS_OK);

            let mut size = 0;
            assert_eq!(
                serialized_fmu_state_size::<Growth>(b, 8usize as FmuState, &raw mut size),
                STATUS_ERROR,
                "unknown state"
            );
            assert_eq!(
                serialized_fmu_state_size::<Growth>(b, state, ptr::null_mut()),
                STATUS_ERROR
            );
            let mut small = vec![0; good.len() - 1];
            assert_eq!(
                serialize_fmu_state::<Growth>(b, state, small.as_mut_ptr(), small.len()),
                STATUS_ERROR
            );
            assert_eq!(
                serialize_fmu_state::<Growth>(b, state, ptr::null_mut(), good.len()),
                STATUS_ERROR
            );
            free_instance::<Growth>(a);
            free_instance::<Growth>(b);
        }
    }

    #[test]
    fn model_without_save_state_keeps_serialization_unsupported() {
        let c = start::<Opaque>(0.3);
        let serializable = start::<Growth>(0.3);
        let bytes = serialize(serializable);
        let mut state: FmuState = ptr::null_mut();
        let mut size = 0;
        // SAFETY: live instances; pointers to live locals.
        unsafe {
            assert_eq!(get_fmu_state::<Opaque>(c, &raw mut state), STATUS_OK);
            assert_eq!(
                serialized_fmu_state_size::<Opaque>(c, state, &raw mut size),
                STATUS_ERROR
            );
            let mut buffer = vec![0; 64];
            assert_eq!(
                serialize_fmu_state::<Opaque>(c, state, buffer.as_mut_ptr(), buffer.len()),
                STATUS_ERROR
            );
            let mut copy: FmuState = ptr::null_mut();
            assert_eq!(
                deserialize_fmu_state::<Opaque>(c, bytes.as_ptr(), bytes.len(), &raw mut copy),
                STATUS_ERROR
            );
            assert!(copy.is_null());
            free_instance::<Opaque>(c);
            free_instance::<Growth>(serializable);
        }
    }
}
