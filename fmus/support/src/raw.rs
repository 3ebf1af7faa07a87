//! Checked conversions of raw C arguments, and the guarded entry into an instance that every
//! exported function goes through.

use std::any::Any;
use std::ffi::{CStr, c_char, c_int, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::instance::{CallError, CallResult, Instance};
#[cfg(feature = "fmi3")]
use crate::instance3::{Error3, Instance3, Result3};
use crate::logger::status;
use crate::model::Model;
use crate::phase::Version;
use crate::registry;

fn usable<T>(ptr: *const T, len: usize) -> bool {
    !ptr.is_null() && ptr.is_aligned() && len <= isize::MAX as usize / size_of::<T>().max(1)
}

/// Borrows `len` elements at `ptr`. A zero length gives an empty slice whatever the pointer.
///
/// # Errors
/// [`CallError::BadPointer`] if `len > 0` and `ptr` is null or misaligned.
///
/// # Safety
/// If `len > 0` and `ptr` is non-null and aligned, it must point to `len` initialized values
/// that stay valid and unmodified for `'a`.
pub(crate) unsafe fn slice<'a, T>(
    ptr: *const T,
    len: usize,
    arg: &'static str,
) -> CallResult<&'a [T]> {
    if len == 0 {
        return Ok(&[]);
    }
    if !usable(ptr, len) {
        return Err(CallError::BadPointer { arg });
    }
    // SAFETY: non-null, aligned and not too long (checked above); validity for `len` elements
    // is the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Borrows `len` writable elements at `ptr`. A zero length gives an empty slice.
///
/// # Errors
/// [`CallError::BadPointer`] if `len > 0` and `ptr` is null or misaligned.
///
/// # Safety
/// If `len > 0` and `ptr` is non-null and aligned, it must point to `len` values that are valid
/// for writes, and not accessed otherwise, during `'a`.
pub(crate) unsafe fn slice_mut<'a, T>(
    ptr: *mut T,
    len: usize,
    arg: &'static str,
) -> CallResult<&'a mut [T]> {
    if len == 0 {
        return Ok(&mut []);
    }
    if !usable(ptr, len) {
        return Err(CallError::BadPointer { arg });
    }
    // SAFETY: non-null, aligned and not too long (checked above); exclusive validity for `len`
    // elements is the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
}

/// Borrows one writable value at `ptr`.
///
/// # Errors
/// [`CallError::BadPointer`] if `ptr` is null or misaligned.
///
/// # Safety
/// If non-null and aligned, `ptr` must point to a value valid for reads and writes, and not
/// accessed otherwise, during `'a`.
pub(crate) unsafe fn out<'a, T>(ptr: *mut T, arg: &'static str) -> CallResult<&'a mut T> {
    if !usable(ptr, 1) {
        return Err(CallError::BadPointer { arg });
    }
    // SAFETY: non-null and aligned (checked above); validity is the caller's contract.
    Ok(unsafe { &mut *ptr })
}

/// Borrows a NUL-terminated UTF-8 string.
///
/// # Errors
/// [`CallError::BadPointer`] if `ptr` is null; [`CallError::NotUtf8`] for invalid UTF-8.
///
/// # Safety
/// If non-null, `ptr` must point to a NUL-terminated string that stays valid and unmodified
/// for `'a`.
pub(crate) unsafe fn c_str<'a>(ptr: *const c_char, arg: &'static str) -> CallResult<&'a str> {
    if ptr.is_null() {
        return Err(CallError::BadPointer { arg });
    }
    // SAFETY: non-null (checked above); NUL termination and validity are the caller's contract.
    let s = unsafe { CStr::from_ptr(ptr) };
    s.to_str().map_err(|_| CallError::NotUtf8 { arg })
}

/// The text of a caught panic payload.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_owned()
    }
}

/// Runs `f` on the instance behind `c` and maps its outcome to a status code.
///
/// Returns Error without touching anything if `c` is not a live instance of this type and
/// version. Errors and panics of `f` are logged and move the instance to the error phase
/// ([`Instance::fail`]); a panic never crosses into C.
///
/// # Safety
/// No other call on the same instance may run concurrently (FMI 2.0.2 §2.1.3 / FMI 1.0 CS: an
/// instance is used by one thread at a time).
pub(crate) unsafe fn with_instance<M: Model>(
    c: *mut c_void,
    version: Version,
    function: &'static str,
    f: impl FnOnce(&mut Instance<M>) -> CallResult,
) -> c_int {
    // The registry check only loads atomics and cannot panic, so it stays outside the unwind
    // guard; one guard around the call is enough on this hot path.
    if c.is_null() || !registry::contains(c.addr(), version) {
        return status::ERROR;
    }
    // SAFETY: the registry holds exactly the addresses of live `Box<Instance<M>>` values
    // created by `instantiate` for this version and not yet freed, and the caller guarantees
    // that no other call uses this instance meanwhile, so this is the only reference.
    let instance = unsafe { &mut *c.cast::<Instance<M>>() };
    match catch_unwind(AssertUnwindSafe(|| f(&mut *instance))) {
        Ok(Ok(status)) => status.code(),
        Ok(Err(error)) => fail_safely(instance, function, &error),
        Err(payload) => {
            let error = CallError::Panic {
                message: panic_message(payload.as_ref()),
            };
            fail_safely(instance, function, &error)
        }
    }
}

/// [`Instance::fail`], with a panic while logging mapped to Error (never unwinding into C).
#[cold]
fn fail_safely<M: Model>(instance: &mut Instance<M>, function: &str, error: &CallError) -> c_int {
    catch_unwind(AssertUnwindSafe(|| instance.fail(function, error))).unwrap_or(status::ERROR)
}

/// Frees the instance behind `c` if it is a live instance of this type and version, then calls
/// [`Model::release_instance`] with its GUID; otherwise does nothing. Saved FMU states of the
/// instance are freed with it.
///
/// # Safety
/// As for [`with_instance`].
pub(crate) unsafe fn free_instance<M: Model>(
    c: *mut c_void,
    version: Version,
    function: &'static str,
) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        if c.is_null() || !registry::remove(c.addr(), version) {
            return;
        }
        // SAFETY: `c` was a live `Box<Instance<M>>` from `Box::into_raw` in `instantiate`; it is
        // now out of the registry, so no later call can reach it, and the caller guarantees no
        // concurrent call is using it.
        let instance = unsafe { Box::from_raw(c.cast::<Instance<M>>()) };
        instance.trace(|| function.to_owned());
        let guid = instance.guid().to_owned();
        drop(instance);
        M::release_instance(&guid);
    }));
}

/// Boxes a new instance, registers it and returns its address as the component pointer.
///
/// # Errors
/// When [`registry::MAX_LIVE`] instances are live already: the instance is given back, after
/// [`Model::release_instance`] was called for its GUID, together with the message to log.
pub(crate) fn register<M: Model>(
    instance: Instance<M>,
    version: Version,
) -> Result<*mut Instance<M>, (Box<Instance<M>>, String)> {
    let ptr = Box::into_raw(Box::new(instance));
    if registry::insert(ptr.addr(), version) {
        return Ok(ptr);
    }
    // SAFETY: `ptr` came from `Box::into_raw` just above and was never shared.
    let instance = unsafe { Box::from_raw(ptr) };
    M::release_instance(instance.guid());
    let message = format!(
        "more than {} live instances of this library",
        registry::MAX_LIVE
    );
    Err((instance, message))
}

#[cfg(feature = "fmi3")]
/// [`with_instance`] for FMI 3.0 instances: runs `f` on the [`Instance3`] behind `c` and maps
/// its outcome to a status code.
///
/// Returns Error without touching anything if `c` is not a live FMI 3.0 instance of this
/// library. Errors and panics of `f` are logged and move the instance to the error state
/// ([`Instance3::fail`]); a panic never crosses into C.
///
/// # Safety
/// No other call on the same instance may run concurrently (FMI 3.0 §2.2.1: an instance is
/// used by one thread at a time).
pub(crate) unsafe fn with_instance3<M: Model>(
    c: *mut c_void,
    function: &'static str,
    f: impl FnOnce(&mut Instance3<M>) -> Result3,
) -> c_int {
    if c.is_null() || !registry::contains(c.addr(), Version::Fmi3) {
        return status::ERROR;
    }
    // SAFETY: the registry holds exactly the addresses of live `Box<Instance3<M>>` values
    // created by `fmi3::instantiate_co_simulation` and not yet freed (the version code keeps
    // FMI 1.0/2.0 instances of the same library apart), and the caller guarantees that no other
    // call uses this instance meanwhile, so this is the only reference.
    let instance = unsafe { &mut *c.cast::<Instance3<M>>() };
    match catch_unwind(AssertUnwindSafe(|| f(&mut *instance))) {
        Ok(Ok(status)) => status.code(),
        Ok(Err(error)) => fail_safely3(instance, function, &error),
        Err(payload) => {
            let error = Error3::Panic {
                message: panic_message(payload.as_ref()),
            };
            fail_safely3(instance, function, &error)
        }
    }
}

#[cfg(feature = "fmi3")]
/// [`Instance3::fail`], with a panic while logging mapped to Error.
#[cold]
fn fail_safely3<M: Model>(instance: &mut Instance3<M>, function: &str, error: &Error3) -> c_int {
    catch_unwind(AssertUnwindSafe(|| instance.fail(function, error))).unwrap_or(status::ERROR)
}

#[cfg(feature = "fmi3")]
/// [`free_instance`] for FMI 3.0: frees the instance behind `c` if it is a live FMI 3.0
/// instance of this library, then calls [`Model::release_instance`] with its instantiation
/// token; otherwise does nothing.
///
/// # Safety
/// As for [`with_instance3`].
pub(crate) unsafe fn free_instance3<M: Model>(c: *mut c_void) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        if c.is_null() || !registry::remove(c.addr(), Version::Fmi3) {
            return;
        }
        // SAFETY: `c` was a live `Box<Instance3<M>>` from `Box::into_raw` in `register3`; it is
        // now out of the registry, so no later call can reach it, and the caller guarantees no
        // concurrent call is using it.
        let instance = unsafe { Box::from_raw(c.cast::<Instance3<M>>()) };
        instance.trace(|| "fmi3FreeInstance".to_owned());
        let token = instance.token().to_owned();
        drop(instance);
        M::release_instance(&token);
    }));
}

#[cfg(feature = "fmi3")]
/// [`register`] for FMI 3.0: boxes the instance, registers it and returns its address.
///
/// # Errors
/// When [`registry::MAX_LIVE`] instances are live already: the instance is given back, after
/// [`Model::release_instance`] was called for its token, together with the message to log.
pub(crate) fn register3<M: Model>(
    instance: Instance3<M>,
) -> Result<*mut Instance3<M>, (Box<Instance3<M>>, String)> {
    let ptr = Box::into_raw(Box::new(instance));
    if registry::insert(ptr.addr(), Version::Fmi3) {
        return Ok(ptr);
    }
    // SAFETY: `ptr` came from `Box::into_raw` just above and was never shared.
    let instance = unsafe { Box::from_raw(ptr) };
    M::release_instance(instance.token());
    let message = format!(
        "more than {} live instances of this library",
        registry::MAX_LIVE
    );
    Err((instance, message))
}
