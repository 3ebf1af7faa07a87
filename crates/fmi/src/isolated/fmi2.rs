//! The FMI 2.0 co-simulation proxy functions, and the table of them by symbol name.
//!
//! Each proxy has the C prototype of its FMI function (checked at compile time by
//! [`proxy_address`]); its first argument, the `fmi2Component`, is the instance's
//! [`Proxy`](super::proxy::Proxy). Setters are deferred, getters may be answered from the
//! values prefetched with `fmi2DoStep` (module `proxy`).
//!
//! Spec: FMI 2.0.2 §2.1 (common functions), §4.2 (co-simulation functions).

use std::ffi::{CString, c_char, c_int, c_void};

use isolation::Scalar;
use isolation::protocol::*;

use super::common::{
    address, deserialize, experiment, free_instance, instance_only, serialize, serialized_size,
    set_debug_logging, set_state, state_in_out,
};
use super::proxy::{FATAL, Payload, c_bytes, proxy, slice, slice_mut};
use crate::ffi::fmi2::*;

/// `fmi2GetReal`, `fmi2GetInteger`, `fmi2GetBoolean`: `T` is `fmi2Real` or `int`.
extern "C" fn get_scalars<T: Scalar, const ID: u32>(
    component: *mut c_void,
    vrs: *const u32,
    n: usize,
    values: *mut T,
) -> c_int {
    // SAFETY: `component` is the proxy of a live isolated instance (the fmi crate only calls
    // proxies with the component it got from the isolated instantiation).
    let Some(proxy) = (unsafe { proxy(component) }) else {
        return FATAL;
    };
    // SAFETY: the caller passes `n` value references and room for `n` values (FMI).
    let (vrs, out) = unsafe { (slice(vrs, n), slice_mut(values, n)) };
    let mut store = |payload: &Payload| {
        if let Payload::Scalars(bytes) = payload {
            for (value, chunk) in out.iter_mut().zip(bytes.chunks_exact(T::SIZE)) {
                *value = T::get(chunk);
            }
        }
    };
    proxy.get(ID, vrs, None, Payload::read_scalars::<T>, &mut store)
}

/// `fmi2GetString`: the strings stay valid until the next call of the instance.
extern "C" fn get_string(
    component: *mut c_void,
    vrs: *const u32,
    n: usize,
    values: *mut fmi2String,
) -> c_int {
    // SAFETY: as in `get_scalars`.
    let Some(proxy) = (unsafe { proxy(component) }) else {
        return FATAL;
    };
    // SAFETY: as in `get_scalars`.
    let (vrs, out) = unsafe { (slice(vrs, n), slice_mut(values, n)) };
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
    let status = proxy.get(
        FN_FMI2_GET_STRING,
        vrs,
        None,
        Payload::read_texts,
        &mut store,
    );
    for (pointer, text) in out.iter_mut().zip(&texts) {
        *pointer = text.as_ref().map_or(std::ptr::null(), |t| t.as_ptr());
    }
    // The heap buffers of the strings do not move with the vector.
    proxy.texts = texts;
    status
}

/// `fmi2SetReal`, `fmi2SetInteger`, `fmi2SetBoolean`: deferred until the next call.
extern "C" fn set_scalars<T: Scalar, const ID: u32>(
    component: *mut c_void,
    vrs: *const u32,
    n: usize,
    values: *const T,
) -> c_int {
    // SAFETY: as in `get_scalars`.
    let Some(proxy) = (unsafe { proxy(component) }) else {
        return FATAL;
    };
    // SAFETY: the caller passes `n` value references and `n` values (FMI).
    let (vrs, values) = unsafe { (slice(vrs, n), slice(values, n)) };
    proxy.defer(ID, |request| {
        request.u32s(vrs).array(values);
    })
}

/// `fmi2SetString`: deferred until the next call (the strings are copied at once).
extern "C" fn set_string(
    component: *mut c_void,
    vrs: *const u32,
    n: usize,
    values: *const fmi2String,
) -> c_int {
    // SAFETY: as in `get_scalars`.
    let Some(proxy) = (unsafe { proxy(component) }) else {
        return FATAL;
    };
    // SAFETY: the caller passes `n` value references and `n` strings (FMI).
    let (vrs, values) = unsafe { (slice(vrs, n), slice(values, n)) };
    proxy.defer(FN_FMI2_SET_STRING, |request| {
        request.u32s(vrs);
        // SAFETY: each pointer is NULL or a NUL-terminated string of the caller.
        request.strings(values.iter().map(|&v| unsafe { c_bytes(v) }));
    })
}

/// `fmi2DoStep` (t and h in s), sent with the prefetched getters.
extern "C" fn do_step(
    component: *mut c_void,
    t: f64,
    h: f64,
    no_set_fmu_state_prior_to_current_point: fmi2Boolean,
) -> c_int {
    // SAFETY: as in `get_scalars`.
    let Some(proxy) = (unsafe { proxy(component) }) else {
        return FATAL;
    };
    proxy.step(
        FN_FMI2_DO_STEP,
        |request| {
            request
                .f64(t)
                .f64(h)
                .i32(no_set_fmu_state_prior_to_current_point);
        },
        |_| Ok(()),
    )
}

/// `fmi2GetStatus`, `fmi2GetBooleanStatus`: one `int` out.
extern "C" fn status_query<const ID: u32>(
    component: *mut c_void,
    kind: fmi2StatusKind,
    value: *mut c_int,
) -> c_int {
    // SAFETY: as in `get_scalars`.
    let Some(proxy) = (unsafe { proxy(component) }) else {
        return FATAL;
    };
    let mut answer = 0;
    let status = proxy.call(
        ID,
        |request| {
            request.i32(kind);
        },
        |response| {
            answer = response.i32()?;
            Ok(())
        },
    );
    if !value.is_null() {
        // SAFETY: `value` points to the caller's variable (FMI), checked non-NULL.
        unsafe { *value = answer };
    }
    status
}

/// `fmi2GetDirectionalDerivative`: `dv_unknown` (one per unknown) = J · `dv_known`.
extern "C" fn directional_derivative(
    component: *mut c_void,
    unknowns: *const u32,
    n_unknowns: usize,
    knowns: *const u32,
    n_knowns: usize,
    dv_known: *const f64,
    dv_unknown: *mut f64,
) -> c_int {
    // SAFETY: as in `get_scalars`.
    let Some(proxy) = (unsafe { proxy(component) }) else {
        return FATAL;
    };
    // SAFETY: the caller passes arrays of the lengths given (FMI 2.0.2 §2.1.9).
    let (unknowns, knowns, seed, out) = unsafe {
        (
            slice(unknowns, n_unknowns),
            slice(knowns, n_knowns),
            slice(dv_known, n_knowns),
            slice_mut(dv_unknown, n_unknowns),
        )
    };
    proxy.call(
        FN_FMI2_GET_DIRECTIONAL_DERIVATIVE,
        |request| {
            request.u32s(unknowns).u32s(knowns).f64s(seed);
        },
        |response| response.array_into(out),
    )
}

/// Stands in for `fmi2Instantiate` in the table: never called, since isolated instances are
/// made by `isolated::instantiate_fmi2`, which starts the helper. Returns NULL.
extern "C" fn instantiate(
    _: fmi2String,
    _: fmi2Type,
    _: fmi2String,
    _: fmi2String,
    _: *const fmi2CallbackFunctions,
    _: fmi2Boolean,
    _: fmi2Boolean,
) -> *mut c_void {
    log::error!("fmi2Instantiate of an isolated FMU is made through fmi::isolated");
    std::ptr::null_mut()
}

/// The proxy of the FMI 2.0 function `name`, for the table of an isolated FMU; `None` for
/// functions without one (`fmi2GetTypesPlatform` and `fmi2GetVersion`, which have no
/// instance argument and are asked at load time, and Model Exchange functions).
pub(super) fn proxy_address(name: &str) -> Option<*const c_void> {
    Some(match name {
        "fmi2Instantiate" => address::<fmi2InstantiateTYPE>(instantiate),
        "fmi2FreeInstance" => {
            address::<fmi2FreeInstanceTYPE>(free_instance::<FN_FMI2_FREE_INSTANCE>)
        }
        "fmi2SetDebugLogging" => {
            address::<fmi2SetDebugLoggingTYPE>(set_debug_logging::<i32, FN_FMI2_SET_DEBUG_LOGGING>)
        }
        "fmi2SetupExperiment" => {
            address::<fmi2SetupExperimentTYPE>(experiment::<i32, FN_FMI2_SETUP_EXPERIMENT>)
        }
        "fmi2EnterInitializationMode" => {
            address::<fmi2ComponentOnlyTYPE>(instance_only::<FN_FMI2_ENTER_INITIALIZATION_MODE>)
        }
        "fmi2ExitInitializationMode" => {
            address::<fmi2ComponentOnlyTYPE>(instance_only::<FN_FMI2_EXIT_INITIALIZATION_MODE>)
        }
        "fmi2Terminate" => address::<fmi2ComponentOnlyTYPE>(instance_only::<FN_FMI2_TERMINATE>),
        "fmi2Reset" => address::<fmi2ComponentOnlyTYPE>(instance_only::<FN_FMI2_RESET>),
        "fmi2CancelStep" => address::<fmi2ComponentOnlyTYPE>(instance_only::<FN_FMI2_CANCEL_STEP>),
        "fmi2GetReal" => address::<fmi2GetRealTYPE>(get_scalars::<f64, FN_FMI2_GET_REAL>),
        "fmi2GetInteger" => address::<fmi2GetIntegerTYPE>(get_scalars::<i32, FN_FMI2_GET_INTEGER>),
        "fmi2GetBoolean" => address::<fmi2GetBooleanTYPE>(get_scalars::<i32, FN_FMI2_GET_BOOLEAN>),
        "fmi2GetString" => address::<fmi2GetStringTYPE>(get_string),
        "fmi2SetReal" => address::<fmi2SetRealTYPE>(set_scalars::<f64, FN_FMI2_SET_REAL>),
        "fmi2SetInteger" => address::<fmi2SetIntegerTYPE>(set_scalars::<i32, FN_FMI2_SET_INTEGER>),
        "fmi2SetBoolean" => address::<fmi2SetBooleanTYPE>(set_scalars::<i32, FN_FMI2_SET_BOOLEAN>),
        "fmi2SetString" => address::<fmi2SetStringTYPE>(set_string),
        "fmi2GetFMUstate" => address::<fmi2GetFMUstateTYPE>(state_in_out::<FN_FMI2_GET_FMU_STATE>),
        "fmi2SetFMUstate" => address::<fmi2SetFMUstateTYPE>(set_state::<FN_FMI2_SET_FMU_STATE>),
        "fmi2FreeFMUstate" => {
            address::<fmi2FreeFMUstateTYPE>(state_in_out::<FN_FMI2_FREE_FMU_STATE>)
        }
        "fmi2SerializedFMUstateSize" => address::<fmi2SerializedFMUstateSizeTYPE>(
            serialized_size::<FN_FMI2_SERIALIZED_FMU_STATE_SIZE>,
        ),
        "fmi2SerializeFMUstate" => {
            address::<fmi2SerializeFMUstateTYPE>(serialize::<c_char, FN_FMI2_SERIALIZE_FMU_STATE>)
        }
        "fmi2DeSerializeFMUstate" => address::<fmi2DeSerializeFMUstateTYPE>(
            deserialize::<c_char, FN_FMI2_DESERIALIZE_FMU_STATE>,
        ),
        "fmi2GetDirectionalDerivative" => {
            address::<fmi2GetDirectionalDerivativeTYPE>(directional_derivative)
        }
        "fmi2DoStep" => address::<fmi2DoStepTYPE>(do_step),
        "fmi2GetStatus" => address::<fmi2GetStatusTYPE>(status_query::<FN_FMI2_GET_STATUS>),
        "fmi2GetBooleanStatus" => {
            address::<fmi2GetBooleanStatusTYPE>(status_query::<FN_FMI2_GET_BOOLEAN_STATUS>)
        }
        _ => return None,
    })
}
