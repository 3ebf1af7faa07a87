//! FMI 1.0 for Co-Simulation C typedefs (after `fmiPlatformTypes.h` and `fmiFunctions.h`,
//! written by hand) and the function table of one shared library.
//!
//! Differences to FMI 2.0 that matter here: `fmiBoolean` is `char`, every exported symbol is
//! prefixed with `<modelIdentifier>_`, and `fmiCallbackFunctions` (four members, no
//! `componentEnvironment`) is passed to `fmiInstantiateSlave` by value.
//!
//! Spec: FMI 1.0 for Co-Simulation §4 (C interface: types, `fmiInstantiateSlave`,
//! `fmiInitializeSlave`, `fmiDoStep`, status functions).
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

use std::ffi::{c_char, c_double, c_int, c_uint, c_void};
use std::path::Path;

use libloading::os::unix::Library;

use super::{Resolver, Symbols};
use crate::Result;

pub(crate) type fmiComponent = *mut c_void;
pub(crate) type fmiValueReference = c_uint;
pub(crate) type fmiReal = c_double;
pub(crate) type fmiInteger = c_int;
pub(crate) type fmiBoolean = c_char;
pub(crate) type fmiString = *const c_char;
pub(crate) type fmiStatus = c_int;
pub(crate) type fmiStatusKind = c_int;

pub(crate) const fmiTrue: fmiBoolean = 1;
pub(crate) const fmiFalse: fmiBoolean = 0;
pub(crate) const fmiDoStepStatus: fmiStatusKind = 0;

pub(crate) type fmiCallbackLogger =
    unsafe extern "C" fn(fmiComponent, fmiString, fmiStatus, fmiString, fmiString, ...);
pub(crate) type fmiCallbackAllocateMemory = unsafe extern "C" fn(usize, usize) -> *mut c_void;
pub(crate) type fmiCallbackFreeMemory = unsafe extern "C" fn(*mut c_void);
pub(crate) type fmiStepFinished = unsafe extern "C" fn(fmiComponent, fmiStatus);

/// `fmiCallbackFunctions` of FMI 1.0 CS (passed by value).
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct fmiCallbackFunctions {
    pub(crate) logger: fmiCallbackLogger,
    pub(crate) allocateMemory: fmiCallbackAllocateMemory,
    pub(crate) freeMemory: fmiCallbackFreeMemory,
    pub(crate) stepFinished: Option<fmiStepFinished>,
}

pub(crate) type fmiGetTypesPlatformTYPE = unsafe extern "C" fn() -> *const c_char;
pub(crate) type fmiGetVersionTYPE = unsafe extern "C" fn() -> *const c_char;
pub(crate) type fmiSetDebugLoggingTYPE =
    unsafe extern "C" fn(fmiComponent, fmiBoolean) -> fmiStatus;
pub(crate) type fmiInstantiateSlaveTYPE = unsafe extern "C" fn(
    fmiString,
    fmiString,
    fmiString,
    fmiString,
    fmiReal,
    fmiBoolean,
    fmiBoolean,
    fmiCallbackFunctions,
    fmiBoolean,
) -> fmiComponent;
pub(crate) type fmiInitializeSlaveTYPE =
    unsafe extern "C" fn(fmiComponent, fmiReal, fmiBoolean, fmiReal) -> fmiStatus;
pub(crate) type fmiComponentOnlyTYPE = unsafe extern "C" fn(fmiComponent) -> fmiStatus;
pub(crate) type fmiFreeSlaveInstanceTYPE = unsafe extern "C" fn(fmiComponent);
pub(crate) type fmiDoStepTYPE =
    unsafe extern "C" fn(fmiComponent, fmiReal, fmiReal, fmiBoolean) -> fmiStatus;
pub(crate) type fmiGetStatusTYPE =
    unsafe extern "C" fn(fmiComponent, fmiStatusKind, *mut fmiStatus) -> fmiStatus;
pub(crate) type fmiGetRealTYPE =
    unsafe extern "C" fn(fmiComponent, *const fmiValueReference, usize, *mut fmiReal) -> fmiStatus;
pub(crate) type fmiGetIntegerTYPE = unsafe extern "C" fn(
    fmiComponent,
    *const fmiValueReference,
    usize,
    *mut fmiInteger,
) -> fmiStatus;
pub(crate) type fmiGetBooleanTYPE = unsafe extern "C" fn(
    fmiComponent,
    *const fmiValueReference,
    usize,
    *mut fmiBoolean,
) -> fmiStatus;
pub(crate) type fmiGetStringTYPE = unsafe extern "C" fn(
    fmiComponent,
    *const fmiValueReference,
    usize,
    *mut fmiString,
) -> fmiStatus;
pub(crate) type fmiSetRealTYPE = unsafe extern "C" fn(
    fmiComponent,
    *const fmiValueReference,
    usize,
    *const fmiReal,
) -> fmiStatus;
pub(crate) type fmiSetIntegerTYPE = unsafe extern "C" fn(
    fmiComponent,
    *const fmiValueReference,
    usize,
    *const fmiInteger,
) -> fmiStatus;
pub(crate) type fmiSetBooleanTYPE = unsafe extern "C" fn(
    fmiComponent,
    *const fmiValueReference,
    usize,
    *const fmiBoolean,
) -> fmiStatus;
pub(crate) type fmiSetStringTYPE = unsafe extern "C" fn(
    fmiComponent,
    *const fmiValueReference,
    usize,
    *const fmiString,
) -> fmiStatus;

/// The FMI 1.0 co-simulation functions of one shared library, prefix already applied.
///
/// Owns the [`Library`], so no function pointer outlives the code it points to.
/// `fmiGetBooleanStatus` is not resolved: FMI 1.0 CS defines no boolean status kind (there is
/// no `fmiTerminated`), so there is nothing to ask it.
pub(crate) struct Fmi1Functions {
    pub(crate) get_types_platform: Option<fmiGetTypesPlatformTYPE>,
    pub(crate) get_version: Option<fmiGetVersionTYPE>,
    pub(crate) set_debug_logging: Option<fmiSetDebugLoggingTYPE>,
    pub(crate) instantiate_slave: fmiInstantiateSlaveTYPE,
    pub(crate) initialize_slave: fmiInitializeSlaveTYPE,
    pub(crate) terminate_slave: fmiComponentOnlyTYPE,
    pub(crate) reset_slave: Option<fmiComponentOnlyTYPE>,
    pub(crate) free_slave_instance: fmiFreeSlaveInstanceTYPE,
    pub(crate) do_step: fmiDoStepTYPE,
    pub(crate) cancel_step: Option<fmiComponentOnlyTYPE>,
    pub(crate) get_status: Option<fmiGetStatusTYPE>,
    pub(crate) get_real: fmiGetRealTYPE,
    pub(crate) get_integer: fmiGetIntegerTYPE,
    pub(crate) get_boolean: fmiGetBooleanTYPE,
    pub(crate) get_string: fmiGetStringTYPE,
    pub(crate) set_real: fmiSetRealTYPE,
    pub(crate) set_integer: fmiSetIntegerTYPE,
    pub(crate) set_boolean: fmiSetBooleanTYPE,
    pub(crate) set_string: fmiSetStringTYPE,
    _library: Option<Library>,
}

impl Fmi1Functions {
    /// Resolves all symbols `<model_identifier>_fmi…` of `library` (loaded from `path`).
    pub(crate) fn load(library: Library, path: &Path, model_identifier: &str) -> Result<Self> {
        let symbols = Symbols::Library(library);
        let prefix = format!("{model_identifier}_");
        let r = Resolver {
            symbols: &symbols,
            path,
            prefix: &prefix,
        };
        // SAFETY: every type parameter below is the function-pointer type of the same-named
        // prototype of FMI 1.0 CS `fmiFunctions.h`, written out above.
        unsafe {
            Ok(Fmi1Functions {
                get_types_platform: r.optional("fmiGetTypesPlatform"),
                get_version: r.optional("fmiGetVersion"),
                set_debug_logging: r.optional("fmiSetDebugLogging"),
                instantiate_slave: r.required("fmiInstantiateSlave")?,
                initialize_slave: r.required("fmiInitializeSlave")?,
                terminate_slave: r.required("fmiTerminateSlave")?,
                reset_slave: r.optional("fmiResetSlave"),
                free_slave_instance: r.required("fmiFreeSlaveInstance")?,
                do_step: r.required("fmiDoStep")?,
                cancel_step: r.optional("fmiCancelStep"),
                get_status: r.optional("fmiGetStatus"),
                get_real: r.required("fmiGetReal")?,
                get_integer: r.required("fmiGetInteger")?,
                get_boolean: r.required("fmiGetBoolean")?,
                get_string: r.required("fmiGetString")?,
                set_real: r.required("fmiSetReal")?,
                set_integer: r.required("fmiSetInteger")?,
                set_boolean: r.required("fmiSetBoolean")?,
                set_string: r.required("fmiSetString")?,
                _library: symbols.into_library(),
            })
        }
    }
}
