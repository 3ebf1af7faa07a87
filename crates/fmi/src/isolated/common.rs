//! Proxy functions whose C prototype is the same in FMI 2.0 and FMI 3.0 (up to the names of
//! the types): instance-only calls, freeing, the debug-logging switch, the experiment setup,
//! and the FMU-state functions. The function id (`protocol::FN_*`) is a const parameter, so
//! each instantiation is the proxy of one FMI function; the boolean type (`fmi2Boolean` is
//! `int`, `fmi3Boolean` C `bool`) and the byte type of serialized states are type
//! parameters.
//!
//! Spec: FMI 2.0.2 §2.1.5–§2.1.8, FMI 3.0 common API (`fmi3FunctionTypes.h`); the encoding of
//! each call is documented in `crates/isolation/helper/protocol.h`.

use std::ffi::{c_char, c_int, c_void};

use isolation::Scalar;

use super::proxy::{FATAL, Proxy, c_bytes, proxy, slice, slice_mut};

/// A proxy's C pointer of an FMU state: the helper's opaque u64 handle (0 is NULL).
type State = *mut c_void;

/// `fmi2EnterInitializationMode`, `fmi3Terminate`, …: the instance is the only argument.
pub(super) extern "C" fn instance_only<const ID: u32>(component: *mut c_void) -> c_int {
    // SAFETY: `component` is the proxy of a live isolated instance (the fmi crate only calls
    // proxies with the component it got from the isolated instantiation).
    let Some(proxy) = (unsafe { proxy(component) }) else {
        return FATAL;
    };
    proxy.call(ID, |_| {}, |_| Ok(()))
}

/// `fmi2FreeInstance` / `fmi3FreeInstance`: frees the FMU instance in the helper (unless the
/// helper is gone), then drops the proxy, which ends and reaps the helper.
pub(super) extern "C" fn free_instance<const ID: u32>(component: *mut c_void) {
    if component.is_null() {
        return;
    }
    // SAFETY: `component` was made by `Box::into_raw` at instantiation and is freed only here
    // (or by `discard`), once.
    let mut proxy = unsafe { Box::from_raw(component.cast::<Proxy>()) };
    if proxy.failure().is_none() {
        proxy.call(ID, |_| {}, |_| Ok(()));
    }
}

/// `fmi2SetDebugLogging` / `fmi3SetDebugLogging`: `B` is the version's boolean type.
pub(super) extern "C" fn set_debug_logging<B: Scalar, const ID: u32>(
    component: *mut c_void,
    logging_on: B,
    n_categories: usize,
    categories: *const *const c_char,
) -> c_int {
    // SAFETY: as in `instance_only`.
    let Some(proxy) = (unsafe { proxy(component) }) else {
        return FATAL;
    };
    // SAFETY: the caller passes `n_categories` NUL-terminated strings (FMI).
    let categories = unsafe { slice(categories, n_categories) };
    proxy.call(
        ID,
        |request| {
            request.scalar(logging_on);
            // SAFETY: each pointer is NULL or a NUL-terminated string of the caller.
            request.strings(categories.iter().map(|&c| unsafe { c_bytes(c) }));
        },
        |_| Ok(()),
    )
}

/// `fmi2SetupExperiment` and `fmi3EnterInitializationMode` (the same arguments: tolerance
/// defined, tolerance, start time, stop time defined, stop time; times in s).
pub(super) extern "C" fn experiment<B: Scalar, const ID: u32>(
    component: *mut c_void,
    tolerance_defined: B,
    tolerance: f64,
    start_time: f64,
    stop_time_defined: B,
    stop_time: f64,
) -> c_int {
    // SAFETY: as in `instance_only`.
    let Some(proxy) = (unsafe { proxy(component) }) else {
        return FATAL;
    };
    proxy.call(
        ID,
        |request| {
            request
                .scalar(tolerance_defined)
                .f64(tolerance)
                .f64(start_time)
                .scalar(stop_time_defined)
                .f64(stop_time);
        },
        |_| Ok(()),
    )
}

/// `fmi2GetFMUstate` / `fmi3GetFMUState` (state in: NULL for a new one, or one to update),
/// and `fmi2FreeFMUstate` / `fmi3FreeFMUState` (state out: NULL once freed).
pub(super) extern "C" fn state_in_out<const ID: u32>(
    component: *mut c_void,
    state: *mut State,
) -> c_int {
    // SAFETY: as in `instance_only`.
    let Some(proxy) = (unsafe { proxy(component) }) else {
        return FATAL;
    };
    if state.is_null() {
        return FATAL;
    }
    // SAFETY: `state` points to the caller's state variable (FMI), checked non-NULL.
    let handle = unsafe { *state } as u64;
    let mut answer = handle;
    let status = proxy.call(
        ID,
        |request| {
            request.u64(handle);
        },
        |response| {
            answer = response.u64()?;
            Ok(())
        },
    );
    // SAFETY: as above. The helper's handle becomes the pointer's value (never dereferenced
    // by the fmi crate: states are only passed back).
    unsafe { *state = answer as State };
    status
}

/// `fmi2SetFMUstate` / `fmi3SetFMUState`.
pub(super) extern "C" fn set_state<const ID: u32>(component: *mut c_void, state: State) -> c_int {
    // SAFETY: as in `instance_only`.
    let Some(proxy) = (unsafe { proxy(component) }) else {
        return FATAL;
    };
    proxy.call(
        ID,
        |request| {
            request.u64(state as u64);
        },
        |_| Ok(()),
    )
}

/// `fmi2SerializedFMUstateSize` / `fmi3SerializedFMUStateSize`: size in bytes.
pub(super) extern "C" fn serialized_size<const ID: u32>(
    component: *mut c_void,
    state: State,
    size: *mut usize,
) -> c_int {
    // SAFETY: as in `instance_only`.
    let Some(proxy) = (unsafe { proxy(component) }) else {
        return FATAL;
    };
    let mut answer = 0u64;
    let status = proxy.call(
        ID,
        |request| {
            request.u64(state as u64);
        },
        |response| {
            answer = response.u64()?;
            Ok(())
        },
    );
    if !size.is_null() {
        // SAFETY: `size` points to the caller's variable (FMI), checked non-NULL.
        unsafe { *size = usize::try_from(answer).unwrap_or(usize::MAX) };
    }
    status
}

/// `fmi2SerializeFMUstate` / `fmi3SerializeFMUState`: the state's bytes into the caller's
/// buffer of `size` bytes. `B` is `fmi2Byte` (`char`) or `fmi3Byte` (`uint8_t`).
pub(super) extern "C" fn serialize<B, const ID: u32>(
    component: *mut c_void,
    state: State,
    bytes: *mut B,
    size: usize,
) -> c_int {
    const { assert!(size_of::<B>() == 1) };
    // SAFETY: as in `instance_only`.
    let Some(proxy) = (unsafe { proxy(component) }) else {
        return FATAL;
    };
    // SAFETY: the caller's buffer holds `size` bytes (FMI); `B` is one byte (checked above).
    let out = unsafe { slice_mut(bytes.cast::<u8>(), size) };
    proxy.call(
        ID,
        |request| {
            request.u64(state as u64).u64(size as u64);
        },
        |response| response.array_into(out),
    )
}

/// `fmi2DeSerializeFMUstate` / `fmi3DeserializeFMUState`: a new state (or the one given) from
/// `size` bytes.
pub(super) extern "C" fn deserialize<B, const ID: u32>(
    component: *mut c_void,
    bytes: *const B,
    size: usize,
    state: *mut State,
) -> c_int {
    const { assert!(size_of::<B>() == 1) };
    // SAFETY: as in `instance_only`.
    let Some(proxy) = (unsafe { proxy(component) }) else {
        return FATAL;
    };
    if state.is_null() {
        return FATAL;
    }
    // SAFETY: the caller's buffer holds `size` bytes (FMI); `B` is one byte (checked above);
    // `state` points to the caller's state variable, checked non-NULL.
    let (bytes, handle) = unsafe { (slice(bytes.cast::<u8>(), size), *state as u64) };
    let mut answer = handle;
    let status = proxy.call(
        ID,
        |request| {
            request.bytes(bytes).u64(handle);
        },
        |response| {
            answer = response.u64()?;
            Ok(())
        },
    );
    // SAFETY: as above.
    unsafe { *state = answer as State };
    status
}

/// The address of a proxy function `f` of function-pointer type `F`: writing
/// `address::<fmi2::fmi2DoStepTYPE>(do_step)` checks at compile time that the proxy has the
/// prototype of the table's field it will fill.
pub(super) fn address<F: Copy>(f: F) -> *const c_void {
    const { assert!(size_of::<F>() == size_of::<*const c_void>()) };
    // SAFETY: `F` is a function-pointer type of pointer size (checked above).
    unsafe { std::mem::transmute_copy(&f) }
}
