//! The FMI 3.0 co-simulation proxy functions, and the table of them by symbol name.
//!
//! As in module `fmi2`: each proxy has the C prototype of its FMI function (checked at compile
//! time by [`proxy_address`]), its first argument is the instance's
//! [`Proxy`](super::proxy::Proxy); setters are deferred, getters may be answered from the
//! values prefetched with `fmi3DoStep`. Every getter and setter carries both counts,
//! `nValueReferences` and `nValues` (arrays).
//!
//! Spec: FMI 3.0 `fmi3FunctionTypes.h` (common and co-simulation functions).

use std::ffi::{CString, c_int, c_void};

use isolation::Scalar;
use isolation::protocol::*;

use super::common::{
    address, deserialize, experiment, free_instance, instance_only, serialize, serialized_size,
    set_debug_logging, set_state, state_in_out,
};
use super::proxy::{FATAL, Payload, c_bytes, proxy, slice, slice_mut};
use crate::ffi::fmi3::*;

/// `fmi3Get<T>` for the fixed-size types: `n_values` values of `T`.
extern "C" fn get_scalars<T: Scalar, const ID: u32>(
    instance: *mut c_void,
    vrs: *const u32,
    n_vrs: usize,
    values: *mut T,
    n_values: usize,
) -> c_int {
    // SAFETY: `instance` is the proxy of a live isolated instance (the fmi crate only calls
    // proxies with the instance it got from the isolated instantiation).
    let Some(proxy) = (unsafe { proxy(instance) }) else {
        return FATAL;
    };
    // SAFETY: the caller passes `n_vrs` value references and room for `n_values` values.
    let (vrs, out) = unsafe { (slice(vrs, n_vrs), slice_mut(values, n_values)) };
    let mut store = |payload: &Payload| {
        if let Payload::Scalars(bytes) = payload {
            for (value, chunk) in out.iter_mut().zip(bytes.chunks_exact(T::SIZE)) {
                *value = T::get(chunk);
            }
        }
    };
    let n = Some(n_values as u64);
    proxy.get(ID, vrs, n, Payload::read_scalars::<T>, &mut store)
}

/// `fmi3Set<T>` for the fixed-size types: deferred until the next call.
extern "C" fn set_scalars<T: Scalar, const ID: u32>(
    instance: *mut c_void,
    vrs: *const u32,
    n_vrs: usize,
    values: *const T,
    n_values: usize,
) -> c_int {
    // SAFETY: as in `get_scalars`.
    let Some(proxy) = (unsafe { proxy(instance) }) else {
        return FATAL;
    };
    // SAFETY: the caller passes `n_vrs` value references and `n_values` values.
    let (vrs, values) = unsafe { (slice(vrs, n_vrs), slice(values, n_values)) };
    proxy.defer(ID, |request| {
        request.u32s(vrs).array(values);
    })
}

/// `fmi3GetString`: the strings stay valid until the next call of the instance.
extern "C" fn get_string(
    instance: *mut c_void,
    vrs: *const u32,
    n_vrs: usize,
    values: *mut fmi3String,
    n_values: usize,
) -> c_int {
    // SAFETY: as in `get_scalars`.
    let Some(proxy) = (unsafe { proxy(instance) }) else {
        return FATAL;
    };
    // SAFETY: as in `get_scalars`.
    let (vrs, out) = unsafe { (slice(vrs, n_vrs), slice_mut(values, n_values)) };
    let mut texts = Vec::new();
    let mut store = |payload: &Payload| {
        if let Payload::Texts(values) = payload {
            texts = values
                .iter()
                .map(|t| {
                    t.as_ref()
                        .map(|t| CString::new(t.clone()).unwrap_or_default())
                })
                .collect();
        }
    };
    let n = Some(n_values as u64);
    let status = proxy.get(FN_FMI3_GET_STRING, vrs, n, Payload::read_texts, &mut store);
    for (pointer, text) in out.iter_mut().zip(&texts) {
        *pointer = text.as_ref().map_or(std::ptr::null(), |t| t.as_ptr());
    }
    // The heap buffers of the strings do not move with the vector.
    proxy.texts = texts;
    status
}

/// `fmi3SetString`: deferred until the next call (the strings are copied at once).
extern "C" fn set_string(
    instance: *mut c_void,
    vrs: *const u32,
    n_vrs: usize,
    values: *const fmi3String,
    n_values: usize,
) -> c_int {
    // SAFETY: as in `get_scalars`.
    let Some(proxy) = (unsafe { proxy(instance) }) else {
        return FATAL;
    };
    // SAFETY: as in `set_scalars`.
    let (vrs, values) = unsafe { (slice(vrs, n_vrs), slice(values, n_values)) };
    proxy.defer(FN_FMI3_SET_STRING, |request| {
        request.u32s(vrs);
        // SAFETY: each pointer is NULL or a NUL-terminated string of the caller.
        request.strings(values.iter().map(|&v| unsafe { c_bytes(v) }));
    })
}

/// `fmi3GetBinary`: sizes and pointers; the bytes stay valid until the next call.
extern "C" fn get_binary(
    instance: *mut c_void,
    vrs: *const u32,
    n_vrs: usize,
    sizes: *mut usize,
    values: *mut fmi3Binary,
    n_values: usize,
) -> c_int {
    // SAFETY: as in `get_scalars`.
    let Some(proxy) = (unsafe { proxy(instance) }) else {
        return FATAL;
    };
    // SAFETY: the caller passes `n_vrs` value references and room for `n_values` sizes and
    // pointers.
    let (vrs, sizes, out) = unsafe {
        (
            slice(vrs, n_vrs),
            slice_mut(sizes, n_values),
            slice_mut(values, n_values),
        )
    };
    let mut binaries = Vec::new();
    let mut store = |payload: &Payload| {
        if let Payload::Texts(values) = payload {
            binaries = values
                .iter()
                .map(|b| b.clone().unwrap_or_default())
                .collect();
        }
    };
    let n = Some(n_values as u64);
    let status = proxy.get(FN_FMI3_GET_BINARY, vrs, n, Payload::read_texts, &mut store);
    for ((size, pointer), binary) in sizes.iter_mut().zip(out.iter_mut()).zip(&binaries) {
        *size = binary.len();
        *pointer = binary.as_ptr();
    }
    // The heap buffers of the binaries do not move with the vector.
    proxy.binaries = binaries;
    status
}

/// `fmi3SetBinary`: deferred until the next call (the bytes are copied at once).
extern "C" fn set_binary(
    instance: *mut c_void,
    vrs: *const u32,
    n_vrs: usize,
    sizes: *const usize,
    values: *const fmi3Binary,
    n_values: usize,
) -> c_int {
    // SAFETY: as in `get_scalars`.
    let Some(proxy) = (unsafe { proxy(instance) }) else {
        return FATAL;
    };
    // SAFETY: the caller passes `n_vrs` value references, `n_values` sizes and pointers.
    let (vrs, sizes, values) = unsafe {
        (
            slice(vrs, n_vrs),
            slice(sizes, n_values),
            slice(values, n_values),
        )
    };
    proxy.defer(FN_FMI3_SET_BINARY, |request| {
        request.u32s(vrs);
        // SAFETY: each pointer holds as many bytes as its size says (FMI 3.0).
        request.binaries(
            values
                .iter()
                .zip(sizes)
                .map(|(&v, &size)| unsafe { slice(v, size) }),
        );
    })
}

/// `fmi3DoStep` (t and h in s), sent with the prefetched getters; the out-arguments come back
/// with the answer.
#[allow(clippy::too_many_arguments)] // the prototype of fmi3DoStep
extern "C" fn do_step(
    instance: *mut c_void,
    t: f64,
    h: f64,
    no_set_fmu_state_prior_to_current_point: bool,
    event_handling_needed: *mut bool,
    terminate_simulation: *mut bool,
    early_return: *mut bool,
    last_successful_time: *mut f64,
) -> c_int {
    // SAFETY: as in `get_scalars`.
    let Some(proxy) = (unsafe { proxy(instance) }) else {
        return FATAL;
    };
    let mut answer = (false, false, false, t + h);
    let status = proxy.step(
        FN_FMI3_DO_STEP,
        |request| {
            request
                .f64(t)
                .f64(h)
                .scalar(no_set_fmu_state_prior_to_current_point);
        },
        |response| {
            answer = (
                response.scalar()?,
                response.scalar()?,
                response.scalar()?,
                response.f64()?,
            );
            Ok(())
        },
    );
    // SAFETY: the out-pointers are NULL or point to the caller's variables (FMI 3.0).
    unsafe {
        write(event_handling_needed, answer.0);
        write(terminate_simulation, answer.1);
        write(early_return, answer.2);
        write(last_successful_time, answer.3);
    }
    status
}

/// `fmi3UpdateDiscreteStates`: five Booleans and the next event time (s) out.
extern "C" fn update_discrete_states(
    instance: *mut c_void,
    need_update: *mut bool,
    terminate_simulation: *mut bool,
    nominals_changed: *mut bool,
    values_changed: *mut bool,
    next_event_time_defined: *mut bool,
    next_event_time: *mut f64,
) -> c_int {
    // SAFETY: as in `get_scalars`.
    let Some(proxy) = (unsafe { proxy(instance) }) else {
        return FATAL;
    };
    let mut flags = [false; 5];
    let mut time = 0.0;
    let status = proxy.call(
        FN_FMI3_UPDATE_DISCRETE_STATES,
        |_| {},
        |response| {
            for flag in &mut flags {
                *flag = response.scalar()?;
            }
            time = response.f64()?;
            Ok(())
        },
    );
    let outs = [
        need_update,
        terminate_simulation,
        nominals_changed,
        values_changed,
        next_event_time_defined,
    ];
    // SAFETY: the out-pointers are NULL or point to the caller's variables (FMI 3.0).
    unsafe {
        for (out, flag) in outs.into_iter().zip(flags) {
            write(out, flag);
        }
        write(next_event_time, time);
    }
    status
}

/// `fmi3GetDirectionalDerivative`: `sensitivity` = J · `seed`.
#[allow(clippy::too_many_arguments)] // the prototype of fmi3GetDirectionalDerivative
extern "C" fn directional_derivative(
    instance: *mut c_void,
    unknowns: *const u32,
    n_unknowns: usize,
    knowns: *const u32,
    n_knowns: usize,
    seed: *const f64,
    n_seed: usize,
    sensitivity: *mut f64,
    n_sensitivity: usize,
) -> c_int {
    // SAFETY: as in `get_scalars`.
    let Some(proxy) = (unsafe { proxy(instance) }) else {
        return FATAL;
    };
    // SAFETY: the caller passes arrays of the lengths given (FMI 3.0).
    let (unknowns, knowns, seed, out) = unsafe {
        (
            slice(unknowns, n_unknowns),
            slice(knowns, n_knowns),
            slice(seed, n_seed),
            slice_mut(sensitivity, n_sensitivity),
        )
    };
    proxy.call(
        FN_FMI3_GET_DIRECTIONAL_DERIVATIVE,
        |request| {
            request
                .u32s(unknowns)
                .u32s(knowns)
                .f64s(seed)
                .u64(n_sensitivity as u64);
        },
        |response| response.array_into(out),
    )
}

/// Writes `value` through `pointer` unless it is NULL.
///
/// # Safety
/// `pointer` must be NULL or valid for writing a `T`.
unsafe fn write<T>(pointer: *mut T, value: T) {
    if !pointer.is_null() {
        // SAFETY: guaranteed by the caller.
        unsafe { *pointer = value };
    }
}

/// Stands in for `fmi3InstantiateCoSimulation` in the table: never called, since isolated
/// instances are made by `isolated::instantiate_fmi3`, which starts the helper. Returns NULL.
#[allow(clippy::too_many_arguments)] // the prototype of fmi3InstantiateCoSimulation
extern "C" fn instantiate(
    _: fmi3String,
    _: fmi3String,
    _: fmi3String,
    _: bool,
    _: bool,
    _: bool,
    _: bool,
    _: *const u32,
    _: usize,
    _: *mut c_void,
    _: Option<fmi3LogMessageCallback>,
    _: Option<fmi3IntermediateUpdateCallback>,
) -> *mut c_void {
    log::error!("fmi3InstantiateCoSimulation of an isolated FMU is made through fmi::isolated");
    std::ptr::null_mut()
}

/// The address of the getter and setter proxies of a fixed-size type.
macro_rules! typed {
    ($name:expr, $($get:literal, $set:literal, $t:ty, $get_id:ident, $set_id:ident;)*) => {
        match $name {
            $(
                $get => Some(address::<fmi3GetTYPE<$t>>(get_scalars::<$t, $get_id>)),
                $set => Some(address::<fmi3SetTYPE<$t>>(set_scalars::<$t, $set_id>)),
            )*
            _ => None,
        }
    };
}

/// The proxy of the FMI 3.0 function `name`, for the table of an isolated FMU; `None` for
/// functions without one (`fmi3GetVersion`, asked at load time, and Model Exchange
/// functions).
pub(super) fn proxy_address(name: &str) -> Option<*const c_void> {
    let typed = typed!(name,
        "fmi3GetFloat32", "fmi3SetFloat32", f32, FN_FMI3_GET_FLOAT32, FN_FMI3_SET_FLOAT32;
        "fmi3GetFloat64", "fmi3SetFloat64", f64, FN_FMI3_GET_FLOAT64, FN_FMI3_SET_FLOAT64;
        "fmi3GetInt8", "fmi3SetInt8", i8, FN_FMI3_GET_INT8, FN_FMI3_SET_INT8;
        "fmi3GetUInt8", "fmi3SetUInt8", u8, FN_FMI3_GET_UINT8, FN_FMI3_SET_UINT8;
        "fmi3GetInt16", "fmi3SetInt16", i16, FN_FMI3_GET_INT16, FN_FMI3_SET_INT16;
        "fmi3GetUInt16", "fmi3SetUInt16", u16, FN_FMI3_GET_UINT16, FN_FMI3_SET_UINT16;
        "fmi3GetInt32", "fmi3SetInt32", i32, FN_FMI3_GET_INT32, FN_FMI3_SET_INT32;
        "fmi3GetUInt32", "fmi3SetUInt32", u32, FN_FMI3_GET_UINT32, FN_FMI3_SET_UINT32;
        "fmi3GetInt64", "fmi3SetInt64", i64, FN_FMI3_GET_INT64, FN_FMI3_SET_INT64;
        "fmi3GetUInt64", "fmi3SetUInt64", u64, FN_FMI3_GET_UINT64, FN_FMI3_SET_UINT64;
        "fmi3GetBoolean", "fmi3SetBoolean", bool, FN_FMI3_GET_BOOLEAN, FN_FMI3_SET_BOOLEAN;
    );
    if typed.is_some() {
        return typed;
    }
    Some(match name {
        "fmi3InstantiateCoSimulation" => address::<fmi3InstantiateCoSimulationTYPE>(instantiate),
        "fmi3FreeInstance" => {
            address::<fmi3FreeInstanceTYPE>(free_instance::<FN_FMI3_FREE_INSTANCE>)
        }
        "fmi3SetDebugLogging" => {
            address::<fmi3SetDebugLoggingTYPE>(set_debug_logging::<bool, FN_FMI3_SET_DEBUG_LOGGING>)
        }
        "fmi3EnterInitializationMode" => address::<fmi3EnterInitializationModeTYPE>(
            experiment::<bool, FN_FMI3_ENTER_INITIALIZATION_MODE>,
        ),
        "fmi3ExitInitializationMode" => {
            address::<fmi3InstanceOnlyTYPE>(instance_only::<FN_FMI3_EXIT_INITIALIZATION_MODE>)
        }
        "fmi3EnterEventMode" => {
            address::<fmi3InstanceOnlyTYPE>(instance_only::<FN_FMI3_ENTER_EVENT_MODE>)
        }
        "fmi3EnterStepMode" => {
            address::<fmi3InstanceOnlyTYPE>(instance_only::<FN_FMI3_ENTER_STEP_MODE>)
        }
        "fmi3Terminate" => address::<fmi3InstanceOnlyTYPE>(instance_only::<FN_FMI3_TERMINATE>),
        "fmi3Reset" => address::<fmi3InstanceOnlyTYPE>(instance_only::<FN_FMI3_RESET>),
        "fmi3UpdateDiscreteStates" => {
            address::<fmi3UpdateDiscreteStatesTYPE>(update_discrete_states)
        }
        "fmi3DoStep" => address::<fmi3DoStepTYPE>(do_step),
        "fmi3GetString" => address::<fmi3GetTYPE<fmi3String>>(get_string),
        "fmi3SetString" => address::<fmi3SetTYPE<fmi3String>>(set_string),
        "fmi3GetBinary" => address::<fmi3GetBinaryTYPE>(get_binary),
        "fmi3SetBinary" => address::<fmi3SetBinaryTYPE>(set_binary),
        "fmi3GetFMUState" => address::<fmi3GetFMUStateTYPE>(state_in_out::<FN_FMI3_GET_FMU_STATE>),
        "fmi3SetFMUState" => address::<fmi3SetFMUStateTYPE>(set_state::<FN_FMI3_SET_FMU_STATE>),
        "fmi3FreeFMUState" => {
            address::<fmi3FreeFMUStateTYPE>(state_in_out::<FN_FMI3_FREE_FMU_STATE>)
        }
        "fmi3SerializedFMUStateSize" => address::<fmi3SerializedFMUStateSizeTYPE>(
            serialized_size::<FN_FMI3_SERIALIZED_FMU_STATE_SIZE>,
        ),
        "fmi3SerializeFMUState" => {
            address::<fmi3SerializeFMUStateTYPE>(serialize::<u8, FN_FMI3_SERIALIZE_FMU_STATE>)
        }
        "fmi3DeserializeFMUState" => {
            address::<fmi3DeserializeFMUStateTYPE>(deserialize::<u8, FN_FMI3_DESERIALIZE_FMU_STATE>)
        }
        "fmi3GetDirectionalDerivative" => {
            address::<fmi3GetDirectionalDerivativeTYPE>(directional_derivative)
        }
        _ => return None,
    })
}
