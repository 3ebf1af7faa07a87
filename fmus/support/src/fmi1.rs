//! FMI 1.0 co-simulation: the C types, the entry points generic over the model, and
//! [`export_fmi1!`](crate::export_fmi1).
//!
//! Hand-written typedefs, independent of FMI 2.0: `fmiBoolean` is a `char`, the callback
//! struct has four members and is passed by value, and every exported symbol carries the
//! `<modelIdentifier>_` prefix.
//!
//! Call rules (FMI 1.0 has no formal state machine; these are the ones enforced): values can
//! be read at any time; parameters can be set only before `fmiInitializeSlave`, inputs until
//! `fmiTerminateSlave`; `fmiDoStep` only between initialize and terminate;
//! `fmiResetSlave` returns to the state after instantiation.
//!
//! Spec: FMI 1.0 for Co-Simulation, §3 (application programming interface).

use std::ffi::{CStr, CString, c_char, c_int, c_uint, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;

use crate::instance::{CallError, CallResult, Instance};
use crate::logger::{Category, Logger, LoggerFn, status};
use crate::model::{Model, VarType};
use crate::phase::{Status as CallStatus, Version};
use crate::raw::{self, c_str, out, slice, slice_mut, with_instance};

/// `fmiComponent`: the slave handle.
pub type Component = *mut c_void;
/// `fmiValueReference`.
pub type ValueReference = c_uint;
/// `fmiReal`.
pub type Real = f64;
/// `fmiInteger`.
pub type Integer = c_int;
/// `fmiBoolean` (a `char`; 0 is false).
pub type Boolean = c_char;
/// `fmiString`.
pub type FmiString = *const c_char;
/// `fmiStatus`, numbered as in FMI 2.0 (0 OK … 5 Pending).
pub type Status = c_int;
/// `fmiStatusKind`, see the `KIND_*` constants.
pub type StatusKind = c_int;

/// `fmiTrue`.
pub const TRUE: Boolean = 1;
/// `fmiFalse`.
pub const FALSE: Boolean = 0;
/// `fmiDoStepStatus`.
pub const KIND_DO_STEP_STATUS: StatusKind = 0;
/// `fmiPendingStatus`.
pub const KIND_PENDING_STATUS: StatusKind = 1;
/// `fmiLastSuccessfulTime`.
pub const KIND_LAST_SUCCESSFUL_TIME: StatusKind = 2;

/// `fmiCallbackFunctions` (co-simulation flavour, passed by value). Spec: FMI 1.0 CS §3.3.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CallbackFunctions {
    /// `logger`; its first argument is the component. Null disables logging.
    pub logger: Option<LoggerFn>,
    /// `allocateMemory` (unused).
    pub allocate_memory: Option<unsafe extern "C" fn(usize, usize) -> *mut c_void>,
    /// `freeMemory` (unused).
    pub free_memory: Option<unsafe extern "C" fn(*mut c_void)>,
    /// `stepFinished` (unused: steps are never asynchronous).
    pub step_finished: Option<unsafe extern "C" fn(Component, Status)>,
}

const V: Version = Version::Fmi1;

/// `fmiGetTypesPlatform`: `"standard32"`.
pub fn get_types_platform() -> *const c_char {
    c"standard32".as_ptr()
}

/// `fmiGetVersion`: `"1.0"`.
pub fn get_version() -> *const c_char {
    c"1.0".as_ptr()
}

/// `fmiInstantiateSlave` for model `M`. Returns null (after logging, if a logger was given) for
/// a null or empty instance name, a null or unknown GUID, or when [`Model::acquire_instance`]
/// refuses. Location, MIME type, timeout, visibility and interactivity are not used.
///
/// # Safety
/// The string arguments must be null or NUL-terminated; the logger must stay callable until the
/// slave is freed.
#[allow(clippy::too_many_arguments)]
pub unsafe fn instantiate_slave<M: Model>(
    instance_name: FmiString,
    guid: FmiString,
    _fmu_location: FmiString,
    _mime_type: FmiString,
    _timeout: Real,
    _visible: Boolean,
    _interactive: Boolean,
    functions: CallbackFunctions,
    logging_on: Boolean,
) -> Component {
    let body = || {
        let logger = Logger::new(functions.logger, ptr::null_mut(), logging_on != FALSE);
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
        let Some(model) = M::instantiate(guid) else {
            return refuse(&logger, &c_name, &format!("unknown GUID {guid}"));
        };
        if let Err(e) = M::acquire_instance(guid) {
            return refuse(&logger, &c_name, &e.to_string());
        }
        let instance = Instance::new(V, c_name, guid.to_owned(), model, logger);
        let ptr = match raw::register(instance, V) {
            Ok(ptr) => ptr,
            Err((instance, message)) => {
                return refuse(&instance.logger, &instance.c_name(), &message);
            }
        };
        // SAFETY: `ptr` was just created by `Box::into_raw` and is not shared with C yet.
        let instance = unsafe { &mut *ptr };
        instance.logger.set_context(ptr.cast());
        instance.trace(|| format!("fmiInstantiateSlave(GUID = {guid})"));
        ptr.cast()
    };
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(ptr::null_mut())
}

fn refuse(logger: &Logger, name: &CStr, message: &str) -> Component {
    logger.log(
        name,
        status::ERROR,
        Category::StatusError,
        &format!("fmiInstantiateSlave: {message}"),
    );
    ptr::null_mut()
}

/// `fmiInitializeSlave`: initializes at `t_start` (s) and enters step mode; the stop time is not
/// used.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn initialize_slave<M: Model>(
    c: Component,
    t_start: Real,
    _stop_time_defined: Boolean,
    _t_stop: Real,
) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmiInitializeSlave", |i| i.initialize_slave(t_start)) }
}

/// `fmiTerminateSlave`.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn terminate_slave<M: Model>(c: Component) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmiTerminateSlave", Instance::terminate) }
}

/// `fmiResetSlave`.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn reset_slave<M: Model>(c: Component) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmiResetSlave", Instance::reset) }
}

/// `fmiFreeSlaveInstance`: frees the slave, then calls [`Model::release_instance`]; ignores
/// unknown pointers.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn free_slave_instance<M: Model>(c: Component) {
    // SAFETY: forwarded caller contract.
    unsafe { raw::free_instance::<M>(c, V, "fmiFreeSlaveInstance") }
}

/// `fmiSetDebugLogging`: switches the `logCalls` trace.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn set_debug_logging<M: Model>(c: Component, logging_on: Boolean) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe {
        with_instance::<M>(c, V, "fmiSetDebugLogging", |i| {
            i.set_debug_logging(logging_on != FALSE, &[])
        })
    }
}

fn unsupported(what: &'static str) -> CallResult {
    Err(CallError::Unsupported { what })
}

/// `fmiSetRealInputDerivatives`: not supported (`canInterpolateInputs="false"`), Error.
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
        with_instance::<M>(c, V, "fmiSetRealInputDerivatives", |_| {
            unsupported("input derivatives (canInterpolateInputs=\"false\")")
        })
    }
}

/// `fmiGetRealOutputDerivatives`: not supported (`maxOutputDerivativeOrder="0"`), Error.
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
        with_instance::<M>(c, V, "fmiGetRealOutputDerivatives", |_| {
            unsupported("output derivatives (maxOutputDerivativeOrder=\"0\")")
        })
    }
}

/// `fmiCancelStep`: Error, because `fmiDoStep` never returns `fmiPending`.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn cancel_step<M: Model>(c: Component) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe {
        with_instance::<M>(c, V, "fmiCancelStep", |_| {
            unsupported("fmiCancelStep (steps are never pending)")
        })
    }
}

/// `fmiDoStep` from `current_communication_point` with `communication_step_size` (s). The point
/// must equal the slave time (within 1e-8·(1+|t|)); `newStep` is informational only.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn do_step<M: Model>(
    c: Component,
    current_communication_point: Real,
    communication_step_size: Real,
    _new_step: Boolean,
) -> Status {
    let body =
        |inst: &mut Instance<M>| inst.do_step(current_communication_point, communication_step_size);
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmiDoStep", body) }
}

/// `fmiGetStatus`: `fmiDoStepStatus` gives the status of the last step; other kinds give
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
    unsafe { with_instance::<M>(c, V, "fmiGetStatus", body) }
}

/// `fmiGetRealStatus`: `fmiLastSuccessfulTime` gives the time (s) of the last successful
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
    unsafe { with_instance::<M>(c, V, "fmiGetRealStatus", body) }
}

/// `fmiGetIntegerStatus`: no integer status exists; Discard.
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
    unsafe { with_instance::<M>(c, V, "fmiGetIntegerStatus", body) }
}

/// `fmiGetBooleanStatus`: FMI 1.0 defines no boolean status kind; Discard.
///
/// # Safety
/// As for [`get_status`].
pub unsafe fn get_boolean_status<M: Model>(
    c: Component,
    kind: StatusKind,
    value: *mut Boolean,
) -> Status {
    let body = |_: &mut Instance<M>| {
        // SAFETY: caller contract on `value`.
        unsafe { out(value, "value") }?;
        Err(CallError::StatusKind { kind })
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance::<M>(c, V, "fmiGetBooleanStatus", body) }
}

/// `fmiGetStringStatus`: only `fmiPendingStatus` exists and steps never pend; Discard.
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
    unsafe { with_instance::<M>(c, V, "fmiGetStringStatus", body) }
}

/// `fmiGetReal`. Shapes: `vr` and `value` have `nvr` elements.
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
    unsafe { with_instance::<M>(c, V, "fmiGetReal", body) }
}

/// `fmiGetInteger`. Shapes: `vr` and `value` have `nvr` elements.
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
    unsafe { with_instance::<M>(c, V, "fmiGetInteger", body) }
}

/// `fmiGetBoolean` (writes 1 or 0). Shapes: `vr` and `value` have `nvr` elements.
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
    unsafe { with_instance::<M>(c, V, "fmiGetBoolean", body) }
}

/// `fmiGetString`. The returned strings stay valid until the next `fmiGetString` call on this
/// slave (or its freeing). Shapes: `vr` and `value` have `nvr` elements.
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
    unsafe { with_instance::<M>(c, V, "fmiGetString", body) }
}

/// `fmiSetReal`. Shapes: `vr` and `value` have `nvr` elements.
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
    unsafe { with_instance::<M>(c, V, "fmiSetReal", body) }
}

/// `fmiSetInteger`. Shapes: `vr` and `value` have `nvr` elements.
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
    unsafe { with_instance::<M>(c, V, "fmiSetInteger", body) }
}

/// `fmiSetBoolean` (any non-zero `char` is true). Shapes: `vr` and `value` have `nvr`
/// elements.
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
    unsafe { with_instance::<M>(c, V, "fmiSetBoolean", body) }
}

/// `fmiSetString` (UTF-8 required). Shapes: `vr` and `value` have `nvr` elements.
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
    unsafe { with_instance::<M>(c, V, "fmiSetString", body) }
}
