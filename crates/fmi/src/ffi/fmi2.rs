//! FMI 2.0 C typedefs (after `fmi2TypesPlatform.h` and `fmi2FunctionTypes.h`, written by hand)
//! and the function table of one shared library.
//!
//! Enumerations (`fmi2Status`, `fmi2Type`, `fmi2StatusKind`) are `c_int`, so that an
//! out-of-range value returned by an FMU is just a number, never an invalid Rust enum.
//!
//! Spec: FMI 2.0.2 §2.1.2 (platform types), §2.1.3 (status), §2.1.5 (callbacks), §2.1.6–§2.1.8,
//! §4.2 (co-simulation functions).
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

use std::ffi::{c_char, c_double, c_int, c_uint, c_void};
use std::path::Path;

use libloading::os::unix::Library;

use super::{Resolver, Symbols, downgrade};
use crate::{Capabilities, Interface, Result};

pub(crate) type fmi2Component = *mut c_void;
pub(crate) type fmi2ComponentEnvironment = *mut c_void;
pub(crate) type fmi2FMUstate = *mut c_void;
pub(crate) type fmi2ValueReference = c_uint;
pub(crate) type fmi2Real = c_double;
pub(crate) type fmi2Integer = c_int;
pub(crate) type fmi2Boolean = c_int;
pub(crate) type fmi2Char = c_char;
pub(crate) type fmi2String = *const fmi2Char;
pub(crate) type fmi2Byte = c_char;
pub(crate) type fmi2Status = c_int;
pub(crate) type fmi2Type = c_int;
pub(crate) type fmi2StatusKind = c_int;

pub(crate) const fmi2True: fmi2Boolean = 1;
pub(crate) const fmi2False: fmi2Boolean = 0;
pub(crate) const fmi2ModelExchange: fmi2Type = 0;
pub(crate) const fmi2CoSimulation: fmi2Type = 1;
pub(crate) const fmi2DoStepStatus: fmi2StatusKind = 0;
pub(crate) const fmi2Terminated: fmi2StatusKind = 3;

pub(crate) type fmi2CallbackLogger = unsafe extern "C" fn(
    fmi2ComponentEnvironment,
    fmi2String,
    fmi2Status,
    fmi2String,
    fmi2String,
    ...
);
pub(crate) type fmi2CallbackAllocateMemory = unsafe extern "C" fn(usize, usize) -> *mut c_void;
pub(crate) type fmi2CallbackFreeMemory = unsafe extern "C" fn(*mut c_void);
pub(crate) type fmi2StepFinished = unsafe extern "C" fn(fmi2ComponentEnvironment, fmi2Status);

/// `fmi2CallbackFunctions`; passed by pointer, and the FMU may keep the pointer for the
/// lifetime of the instance.
#[repr(C)]
pub(crate) struct fmi2CallbackFunctions {
    pub(crate) logger: fmi2CallbackLogger,
    pub(crate) allocateMemory: fmi2CallbackAllocateMemory,
    pub(crate) freeMemory: fmi2CallbackFreeMemory,
    pub(crate) stepFinished: Option<fmi2StepFinished>,
    pub(crate) componentEnvironment: fmi2ComponentEnvironment,
}

pub(crate) type fmi2GetTypesPlatformTYPE = unsafe extern "C" fn() -> *const c_char;
pub(crate) type fmi2GetVersionTYPE = unsafe extern "C" fn() -> *const c_char;
pub(crate) type fmi2SetDebugLoggingTYPE =
    unsafe extern "C" fn(fmi2Component, fmi2Boolean, usize, *const fmi2String) -> fmi2Status;
pub(crate) type fmi2InstantiateTYPE = unsafe extern "C" fn(
    fmi2String,
    fmi2Type,
    fmi2String,
    fmi2String,
    *const fmi2CallbackFunctions,
    fmi2Boolean,
    fmi2Boolean,
) -> fmi2Component;
pub(crate) type fmi2FreeInstanceTYPE = unsafe extern "C" fn(fmi2Component);
pub(crate) type fmi2SetupExperimentTYPE = unsafe extern "C" fn(
    fmi2Component,
    fmi2Boolean,
    fmi2Real,
    fmi2Real,
    fmi2Boolean,
    fmi2Real,
) -> fmi2Status;
pub(crate) type fmi2ComponentOnlyTYPE = unsafe extern "C" fn(fmi2Component) -> fmi2Status;
pub(crate) type fmi2GetRealTYPE = unsafe extern "C" fn(
    fmi2Component,
    *const fmi2ValueReference,
    usize,
    *mut fmi2Real,
) -> fmi2Status;
pub(crate) type fmi2GetIntegerTYPE = unsafe extern "C" fn(
    fmi2Component,
    *const fmi2ValueReference,
    usize,
    *mut fmi2Integer,
) -> fmi2Status;
pub(crate) type fmi2GetBooleanTYPE = unsafe extern "C" fn(
    fmi2Component,
    *const fmi2ValueReference,
    usize,
    *mut fmi2Boolean,
) -> fmi2Status;
pub(crate) type fmi2GetStringTYPE = unsafe extern "C" fn(
    fmi2Component,
    *const fmi2ValueReference,
    usize,
    *mut fmi2String,
) -> fmi2Status;
pub(crate) type fmi2SetRealTYPE = unsafe extern "C" fn(
    fmi2Component,
    *const fmi2ValueReference,
    usize,
    *const fmi2Real,
) -> fmi2Status;
pub(crate) type fmi2SetIntegerTYPE = unsafe extern "C" fn(
    fmi2Component,
    *const fmi2ValueReference,
    usize,
    *const fmi2Integer,
) -> fmi2Status;
pub(crate) type fmi2SetBooleanTYPE = unsafe extern "C" fn(
    fmi2Component,
    *const fmi2ValueReference,
    usize,
    *const fmi2Boolean,
) -> fmi2Status;
pub(crate) type fmi2SetStringTYPE = unsafe extern "C" fn(
    fmi2Component,
    *const fmi2ValueReference,
    usize,
    *const fmi2String,
) -> fmi2Status;
pub(crate) type fmi2GetFMUstateTYPE =
    unsafe extern "C" fn(fmi2Component, *mut fmi2FMUstate) -> fmi2Status;
pub(crate) type fmi2SetFMUstateTYPE =
    unsafe extern "C" fn(fmi2Component, fmi2FMUstate) -> fmi2Status;
pub(crate) type fmi2FreeFMUstateTYPE =
    unsafe extern "C" fn(fmi2Component, *mut fmi2FMUstate) -> fmi2Status;
pub(crate) type fmi2SerializedFMUstateSizeTYPE =
    unsafe extern "C" fn(fmi2Component, fmi2FMUstate, *mut usize) -> fmi2Status;
pub(crate) type fmi2SerializeFMUstateTYPE =
    unsafe extern "C" fn(fmi2Component, fmi2FMUstate, *mut fmi2Byte, usize) -> fmi2Status;
pub(crate) type fmi2DeSerializeFMUstateTYPE =
    unsafe extern "C" fn(fmi2Component, *const fmi2Byte, usize, *mut fmi2FMUstate) -> fmi2Status;
pub(crate) type fmi2GetDirectionalDerivativeTYPE = unsafe extern "C" fn(
    fmi2Component,
    *const fmi2ValueReference,
    usize,
    *const fmi2ValueReference,
    usize,
    *const fmi2Real,
    *mut fmi2Real,
) -> fmi2Status;
pub(crate) type fmi2DoStepTYPE =
    unsafe extern "C" fn(fmi2Component, fmi2Real, fmi2Real, fmi2Boolean) -> fmi2Status;
pub(crate) type fmi2GetStatusTYPE =
    unsafe extern "C" fn(fmi2Component, fmi2StatusKind, *mut fmi2Status) -> fmi2Status;
pub(crate) type fmi2GetBooleanStatusTYPE =
    unsafe extern "C" fn(fmi2Component, fmi2StatusKind, *mut fmi2Boolean) -> fmi2Status;

/// `fmi2EventInfo`, filled by `fmi2NewDiscreteStates`. Spec: FMI 2.0.2 §3.2.2.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct fmi2EventInfo {
    pub(crate) newDiscreteStatesNeeded: fmi2Boolean,
    pub(crate) terminateSimulation: fmi2Boolean,
    pub(crate) nominalsOfContinuousStatesChanged: fmi2Boolean,
    pub(crate) valuesOfContinuousStatesChanged: fmi2Boolean,
    pub(crate) nextEventTimeDefined: fmi2Boolean,
    pub(crate) nextEventTime: fmi2Real,
}

pub(crate) type fmi2SetTimeTYPE = unsafe extern "C" fn(fmi2Component, fmi2Real) -> fmi2Status;
pub(crate) type fmi2SetContinuousStatesTYPE =
    unsafe extern "C" fn(fmi2Component, *const fmi2Real, usize) -> fmi2Status;
pub(crate) type fmi2GetRealVectorTYPE =
    unsafe extern "C" fn(fmi2Component, *mut fmi2Real, usize) -> fmi2Status;
pub(crate) type fmi2NewDiscreteStatesTYPE =
    unsafe extern "C" fn(fmi2Component, *mut fmi2EventInfo) -> fmi2Status;
pub(crate) type fmi2CompletedIntegratorStepTYPE = unsafe extern "C" fn(
    fmi2Component,
    fmi2Boolean,
    *mut fmi2Boolean,
    *mut fmi2Boolean,
) -> fmi2Status;

/// The FMI 2.0 Model Exchange functions (all required for Model Exchange).
///
/// Spec: FMI 2.0.2 §3.2 (`fmi2SetTime` … `fmi2GetNominalsOfContinuousStates`).
#[derive(Clone, Copy)]
pub(crate) struct ModelExchangeFunctions {
    pub(crate) set_time: fmi2SetTimeTYPE,
    pub(crate) set_continuous_states: fmi2SetContinuousStatesTYPE,
    pub(crate) enter_event_mode: fmi2ComponentOnlyTYPE,
    pub(crate) new_discrete_states: fmi2NewDiscreteStatesTYPE,
    pub(crate) enter_continuous_time_mode: fmi2ComponentOnlyTYPE,
    pub(crate) completed_integrator_step: fmi2CompletedIntegratorStepTYPE,
    pub(crate) get_derivatives: fmi2GetRealVectorTYPE,
    pub(crate) get_event_indicators: fmi2GetRealVectorTYPE,
    pub(crate) get_continuous_states: fmi2GetRealVectorTYPE,
    pub(crate) get_nominals_of_continuous_states: fmi2GetRealVectorTYPE,
}

impl ModelExchangeFunctions {
    /// Resolves the Model Exchange functions; a missing one is an error naming it.
    ///
    /// # Safety
    /// `r` resolves from an FMI 2.0 library (the types follow fmi2FunctionTypes.h).
    unsafe fn load(r: &Resolver<'_>) -> Result<Self> {
        // SAFETY: each type parameter is the function-pointer type of the same-named
        // prototype in fmi2FunctionTypes.h (FMI 2.0.2 §3.2), written out above.
        unsafe {
            Ok(ModelExchangeFunctions {
                set_time: r.required("fmi2SetTime")?,
                set_continuous_states: r.required("fmi2SetContinuousStates")?,
                enter_event_mode: r.required("fmi2EnterEventMode")?,
                new_discrete_states: r.required("fmi2NewDiscreteStates")?,
                enter_continuous_time_mode: r.required("fmi2EnterContinuousTimeMode")?,
                completed_integrator_step: r.required("fmi2CompletedIntegratorStep")?,
                get_derivatives: r.required("fmi2GetDerivatives")?,
                get_event_indicators: r.required("fmi2GetEventIndicators")?,
                get_continuous_states: r.required("fmi2GetContinuousStates")?,
                get_nominals_of_continuous_states: r
                    .required("fmi2GetNominalsOfContinuousStates")?,
            })
        }
    }
}

/// `fmi2GetFMUstate`, `fmi2SetFMUstate`, `fmi2FreeFMUstate`: all three, or the capability is
/// absent.
#[derive(Clone, Copy)]
pub(crate) struct StateFunctions {
    pub(crate) get: fmi2GetFMUstateTYPE,
    pub(crate) set: fmi2SetFMUstateTYPE,
    pub(crate) free: fmi2FreeFMUstateTYPE,
}

/// `fmi2SerializedFMUstateSize`, `fmi2SerializeFMUstate`, `fmi2DeSerializeFMUstate`.
#[derive(Clone, Copy)]
pub(crate) struct SerializationFunctions {
    pub(crate) size: fmi2SerializedFMUstateSizeTYPE,
    pub(crate) serialize: fmi2SerializeFMUstateTYPE,
    pub(crate) deserialize: fmi2DeSerializeFMUstateTYPE,
}

/// The FMI 2.0 functions of one shared library for one interface: the common functions,
/// plus `fmi2DoStep` for co-simulation or the Model Exchange functions.
///
/// Owns the [`Library`], so no function pointer outlives the code it points to.
pub(crate) struct Fmi2Functions {
    pub(crate) get_types_platform: Option<fmi2GetTypesPlatformTYPE>,
    pub(crate) get_version: Option<fmi2GetVersionTYPE>,
    pub(crate) set_debug_logging: Option<fmi2SetDebugLoggingTYPE>,
    pub(crate) instantiate: fmi2InstantiateTYPE,
    pub(crate) free_instance: fmi2FreeInstanceTYPE,
    pub(crate) setup_experiment: fmi2SetupExperimentTYPE,
    pub(crate) enter_initialization_mode: fmi2ComponentOnlyTYPE,
    pub(crate) exit_initialization_mode: fmi2ComponentOnlyTYPE,
    pub(crate) terminate: fmi2ComponentOnlyTYPE,
    pub(crate) reset: Option<fmi2ComponentOnlyTYPE>,
    pub(crate) get_real: fmi2GetRealTYPE,
    pub(crate) get_integer: fmi2GetIntegerTYPE,
    pub(crate) get_boolean: fmi2GetBooleanTYPE,
    pub(crate) get_string: fmi2GetStringTYPE,
    pub(crate) set_real: fmi2SetRealTYPE,
    pub(crate) set_integer: fmi2SetIntegerTYPE,
    pub(crate) set_boolean: fmi2SetBooleanTYPE,
    pub(crate) set_string: fmi2SetStringTYPE,
    pub(crate) fmu_state: Option<StateFunctions>,
    pub(crate) serialization: Option<SerializationFunctions>,
    pub(crate) get_directional_derivative: Option<fmi2GetDirectionalDerivativeTYPE>,
    /// Co-simulation only.
    pub(crate) do_step: Option<fmi2DoStepTYPE>,
    /// Model Exchange only.
    pub(crate) model_exchange: Option<ModelExchangeFunctions>,
    pub(crate) cancel_step: Option<fmi2ComponentOnlyTYPE>,
    pub(crate) get_status: Option<fmi2GetStatusTYPE>,
    pub(crate) get_boolean_status: Option<fmi2GetBooleanStatusTYPE>,
    /// The library the pointers point into; `None` for the proxy functions of an isolated
    /// FMU (Rust functions of this crate).
    _library: Option<Library>,
}

impl Fmi2Functions {
    /// Resolves all symbols from `symbols` (a library loaded from `path`, or proxies) for `interface`: only the
    /// functions of that interface are required.
    ///
    /// Capabilities whose functions are missing are switched off in `capabilities` (with a
    /// warning); capabilities not declared are not resolved at all.
    pub(crate) fn load(
        symbols: Symbols<'_>,
        path: &Path,
        capabilities: &mut Capabilities,
        interface: Interface,
    ) -> Result<Self> {
        let r = Resolver {
            symbols: &symbols,
            path,
            prefix: "",
        };
        // SAFETY: every type parameter below is the function-pointer type of the same-named
        // prototype in fmi2FunctionTypes.h (FMI 2.0.2 §2.1, §3.2 and §4.2), written out above.
        let table = unsafe {
            let fmu_state = if capabilities.can_get_and_set_fmu_state {
                let functions = r
                    .optional("fmi2GetFMUstate")
                    .zip(r.optional("fmi2SetFMUstate"))
                    .zip(r.optional("fmi2FreeFMUstate"));
                functions.map(|((get, set), free)| StateFunctions { get, set, free })
            } else {
                None
            };
            let serialization = if capabilities.can_serialize_fmu_state {
                let functions = r
                    .optional("fmi2SerializedFMUstateSize")
                    .zip(r.optional("fmi2SerializeFMUstate"))
                    .zip(r.optional("fmi2DeSerializeFMUstate"));
                functions.map(|((size, serialize), deserialize)| SerializationFunctions {
                    size,
                    serialize,
                    deserialize,
                })
            } else {
                None
            };
            let get_directional_derivative = if capabilities.provides_directional_derivative {
                r.optional("fmi2GetDirectionalDerivative")
            } else {
                None
            };
            Fmi2Functions {
                get_types_platform: r.optional("fmi2GetTypesPlatform"),
                get_version: r.optional("fmi2GetVersion"),
                set_debug_logging: r.optional("fmi2SetDebugLogging"),
                instantiate: r.required("fmi2Instantiate")?,
                free_instance: r.required("fmi2FreeInstance")?,
                setup_experiment: r.required("fmi2SetupExperiment")?,
                enter_initialization_mode: r.required("fmi2EnterInitializationMode")?,
                exit_initialization_mode: r.required("fmi2ExitInitializationMode")?,
                terminate: r.required("fmi2Terminate")?,
                reset: r.optional("fmi2Reset"),
                get_real: r.required("fmi2GetReal")?,
                get_integer: r.required("fmi2GetInteger")?,
                get_boolean: r.required("fmi2GetBoolean")?,
                get_string: r.required("fmi2GetString")?,
                set_real: r.required("fmi2SetReal")?,
                set_integer: r.required("fmi2SetInteger")?,
                set_boolean: r.required("fmi2SetBoolean")?,
                set_string: r.required("fmi2SetString")?,
                fmu_state,
                serialization,
                get_directional_derivative,
                do_step: match interface {
                    Interface::CoSimulation => Some(r.required("fmi2DoStep")?),
                    Interface::ModelExchange => None,
                },
                model_exchange: match interface {
                    Interface::CoSimulation => None,
                    Interface::ModelExchange => Some(ModelExchangeFunctions::load(&r)?),
                },
                cancel_step: r.optional("fmi2CancelStep"),
                get_status: r.optional("fmi2GetStatus"),
                get_boolean_status: r.optional("fmi2GetBooleanStatus"),
                _library: symbols.into_library(),
            }
        };
        downgrade(
            path,
            &mut capabilities.can_get_and_set_fmu_state,
            table.fmu_state.is_some(),
            "canGetAndSetFMUstate",
            "fmi2GetFMUstate/fmi2SetFMUstate/fmi2FreeFMUstate",
        );
        downgrade(
            path,
            &mut capabilities.can_serialize_fmu_state,
            table.serialization.is_some(),
            "canSerializeFMUstate",
            "fmi2SerializedFMUstateSize/fmi2SerializeFMUstate/fmi2DeSerializeFMUstate",
        );
        downgrade(
            path,
            &mut capabilities.provides_directional_derivative,
            table.get_directional_derivative.is_some(),
            "providesDirectionalDerivative",
            "fmi2GetDirectionalDerivative",
        );
        Ok(table)
    }
}
