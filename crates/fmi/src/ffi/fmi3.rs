//! FMI 3.0 C typedefs (after `fmi3PlatformTypes.h` and `fmi3FunctionTypes.h`, written by hand)
//! and the co-simulation function table of one shared library.
//!
//! Differences to FMI 2.0 that matter here:
//! - `fmi3Boolean` is C `bool` (one byte), not `int`;
//! - every getter and setter takes two counts, `nValueReferences` and `nValues`, because a
//!   value reference may name an array variable whose elements are passed flattened;
//! - there are ten numeric types (Float32, Float64, Int8 … UInt64) and a Binary type
//!   (a byte pointer plus a separate size);
//! - the log callback is not variadic and is passed directly to `fmi3InstantiateCoSimulation`
//!   (no callback struct, no memory callbacks);
//! - `fmi3Status` has no Pending.
//!
//! Enumerations (`fmi3Status`) are `c_int`, so that an out-of-range value returned by an FMU is
//! just a number, never an invalid Rust enum. `fmi3Boolean` is Rust `bool`: both are one byte
//! whose only values are 0 and 1, and C converts every value stored through a `bool*` to 0 or 1,
//! so the FMU can write Rust `bool`s (out-parameters, `fmi3GetBoolean`) directly.
//!
//! Spec: FMI 3.0 `fmi3PlatformTypes.h`, `fmi3FunctionTypes.h` (platform types, status, common
//! and co-simulation functions, `fmi3LogMessageCallback`).
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

use std::ffi::{c_char, c_int, c_void};
use std::path::Path;

use libloading::os::unix::Library;

use super::{Resolver, Symbols, downgrade};
use crate::{Capabilities, Interface, Result};

pub(crate) type fmi3Instance = *mut c_void;
pub(crate) type fmi3InstanceEnvironment = *mut c_void;
pub(crate) type fmi3FMUState = *mut c_void;
pub(crate) type fmi3ValueReference = u32;
pub(crate) type fmi3Float32 = f32;
pub(crate) type fmi3Float64 = f64;
pub(crate) type fmi3Int8 = i8;
pub(crate) type fmi3UInt8 = u8;
pub(crate) type fmi3Int16 = i16;
pub(crate) type fmi3UInt16 = u16;
pub(crate) type fmi3Int32 = i32;
pub(crate) type fmi3UInt32 = u32;
pub(crate) type fmi3Int64 = i64;
pub(crate) type fmi3UInt64 = u64;
/// C `bool`: one byte, 0 or 1 (C11 `_Bool`; Rust `bool` has the same size, alignment and
/// argument-passing convention).
pub(crate) type fmi3Boolean = bool;
pub(crate) type fmi3Char = c_char;
pub(crate) type fmi3String = *const fmi3Char;
pub(crate) type fmi3Byte = u8;
pub(crate) type fmi3Binary = *const fmi3Byte;
pub(crate) type fmi3Status = c_int;

pub(crate) const fmi3OK: fmi3Status = 0;
pub(crate) const fmi3Warning: fmi3Status = 1;
pub(crate) const fmi3Discard: fmi3Status = 2;
pub(crate) const fmi3Error: fmi3Status = 3;
pub(crate) const fmi3Fatal: fmi3Status = 4;

/// `fmi3LogMessageCallback`: not variadic (the FMU formats the message itself).
pub(crate) type fmi3LogMessageCallback =
    unsafe extern "C" fn(fmi3InstanceEnvironment, fmi3Status, fmi3String, fmi3String);
/// `fmi3IntermediateUpdateCallback` (mastersim passes NULL: no intermediate updates).
pub(crate) type fmi3IntermediateUpdateCallback = unsafe extern "C" fn(
    fmi3InstanceEnvironment,
    fmi3Float64,
    fmi3Boolean,
    fmi3Boolean,
    fmi3Boolean,
    fmi3Boolean,
    *mut fmi3Boolean,
    *mut fmi3Float64,
);

pub(crate) type fmi3GetVersionTYPE = unsafe extern "C" fn() -> *const c_char;
pub(crate) type fmi3SetDebugLoggingTYPE =
    unsafe extern "C" fn(fmi3Instance, fmi3Boolean, usize, *const fmi3String) -> fmi3Status;
pub(crate) type fmi3InstantiateCoSimulationTYPE = unsafe extern "C" fn(
    fmi3String,
    fmi3String,
    fmi3String,
    fmi3Boolean,
    fmi3Boolean,
    fmi3Boolean,
    fmi3Boolean,
    *const fmi3ValueReference,
    usize,
    fmi3InstanceEnvironment,
    Option<fmi3LogMessageCallback>,
    Option<fmi3IntermediateUpdateCallback>,
) -> fmi3Instance;
pub(crate) type fmi3InstantiateModelExchangeTYPE = unsafe extern "C" fn(
    fmi3String,
    fmi3String,
    fmi3String,
    fmi3Boolean,
    fmi3Boolean,
    fmi3InstanceEnvironment,
    Option<fmi3LogMessageCallback>,
) -> fmi3Instance;
pub(crate) type fmi3SetTimeTYPE = unsafe extern "C" fn(fmi3Instance, fmi3Float64) -> fmi3Status;
pub(crate) type fmi3SetContinuousStatesTYPE =
    unsafe extern "C" fn(fmi3Instance, *const fmi3Float64, usize) -> fmi3Status;
pub(crate) type fmi3GetFloat64VectorTYPE =
    unsafe extern "C" fn(fmi3Instance, *mut fmi3Float64, usize) -> fmi3Status;
pub(crate) type fmi3GetNumberTYPE = unsafe extern "C" fn(fmi3Instance, *mut usize) -> fmi3Status;
pub(crate) type fmi3CompletedIntegratorStepTYPE = unsafe extern "C" fn(
    fmi3Instance,
    fmi3Boolean,
    *mut fmi3Boolean,
    *mut fmi3Boolean,
) -> fmi3Status;
pub(crate) type fmi3FreeInstanceTYPE = unsafe extern "C" fn(fmi3Instance);
pub(crate) type fmi3EnterInitializationModeTYPE = unsafe extern "C" fn(
    fmi3Instance,
    fmi3Boolean,
    fmi3Float64,
    fmi3Float64,
    fmi3Boolean,
    fmi3Float64,
) -> fmi3Status;
/// `fmi3ExitInitializationMode`, `fmi3EnterEventMode`, `fmi3Terminate`, `fmi3Reset`,
/// `fmi3EnterStepMode`: the instance is the only argument.
pub(crate) type fmi3InstanceOnlyTYPE = unsafe extern "C" fn(fmi3Instance) -> fmi3Status;
pub(crate) type fmi3UpdateDiscreteStatesTYPE = unsafe extern "C" fn(
    fmi3Instance,
    *mut fmi3Boolean,
    *mut fmi3Boolean,
    *mut fmi3Boolean,
    *mut fmi3Boolean,
    *mut fmi3Boolean,
    *mut fmi3Float64,
) -> fmi3Status;
pub(crate) type fmi3DoStepTYPE = unsafe extern "C" fn(
    fmi3Instance,
    fmi3Float64,
    fmi3Float64,
    fmi3Boolean,
    *mut fmi3Boolean,
    *mut fmi3Boolean,
    *mut fmi3Boolean,
    *mut fmi3Float64,
) -> fmi3Status;

/// `fmi3Get<Type>` for the fixed-size types: `(instance, valueReferences, nValueReferences,
/// values, nValues)`.
pub(crate) type fmi3GetTYPE<T> = unsafe extern "C" fn(
    fmi3Instance,
    *const fmi3ValueReference,
    usize,
    *mut T,
    usize,
) -> fmi3Status;
/// `fmi3Set<Type>` for the fixed-size types: `(instance, valueReferences, nValueReferences,
/// values, nValues)`.
pub(crate) type fmi3SetTYPE<T> = unsafe extern "C" fn(
    fmi3Instance,
    *const fmi3ValueReference,
    usize,
    *const T,
    usize,
) -> fmi3Status;
pub(crate) type fmi3GetBinaryTYPE = unsafe extern "C" fn(
    fmi3Instance,
    *const fmi3ValueReference,
    usize,
    *mut usize,
    *mut fmi3Binary,
    usize,
) -> fmi3Status;
pub(crate) type fmi3SetBinaryTYPE = unsafe extern "C" fn(
    fmi3Instance,
    *const fmi3ValueReference,
    usize,
    *const usize,
    *const fmi3Binary,
    usize,
) -> fmi3Status;

pub(crate) type fmi3GetFMUStateTYPE =
    unsafe extern "C" fn(fmi3Instance, *mut fmi3FMUState) -> fmi3Status;
pub(crate) type fmi3SetFMUStateTYPE =
    unsafe extern "C" fn(fmi3Instance, fmi3FMUState) -> fmi3Status;
pub(crate) type fmi3FreeFMUStateTYPE =
    unsafe extern "C" fn(fmi3Instance, *mut fmi3FMUState) -> fmi3Status;
pub(crate) type fmi3SerializedFMUStateSizeTYPE =
    unsafe extern "C" fn(fmi3Instance, fmi3FMUState, *mut usize) -> fmi3Status;
pub(crate) type fmi3SerializeFMUStateTYPE =
    unsafe extern "C" fn(fmi3Instance, fmi3FMUState, *mut fmi3Byte, usize) -> fmi3Status;
pub(crate) type fmi3DeserializeFMUStateTYPE =
    unsafe extern "C" fn(fmi3Instance, *const fmi3Byte, usize, *mut fmi3FMUState) -> fmi3Status;
pub(crate) type fmi3GetDirectionalDerivativeTYPE = unsafe extern "C" fn(
    fmi3Instance,
    *const fmi3ValueReference,
    usize,
    *const fmi3ValueReference,
    usize,
    *const fmi3Float64,
    usize,
    *mut fmi3Float64,
    usize,
) -> fmi3Status;

/// `fmi3GetFMUState`, `fmi3SetFMUState`, `fmi3FreeFMUState`: all three, or the capability is
/// absent.
#[derive(Clone, Copy)]
pub(crate) struct StateFunctions {
    pub(crate) get: fmi3GetFMUStateTYPE,
    pub(crate) set: fmi3SetFMUStateTYPE,
    pub(crate) free: fmi3FreeFMUStateTYPE,
}

/// `fmi3SerializedFMUStateSize`, `fmi3SerializeFMUState`, `fmi3DeserializeFMUState`.
#[derive(Clone, Copy)]
pub(crate) struct SerializationFunctions {
    pub(crate) size: fmi3SerializedFMUStateSizeTYPE,
    pub(crate) serialize: fmi3SerializeFMUStateTYPE,
    pub(crate) deserialize: fmi3DeserializeFMUStateTYPE,
}

/// `fmi3EnterEventMode`, `fmi3UpdateDiscreteStates`, `fmi3EnterStepMode`: all three, or Event
/// Mode is not available.
#[derive(Clone, Copy)]
pub(crate) struct EventModeFunctions {
    pub(crate) enter_event_mode: fmi3InstanceOnlyTYPE,
    pub(crate) update_discrete_states: fmi3UpdateDiscreteStatesTYPE,
    /// Co-simulation only (always there when loaded for co-simulation).
    pub(crate) enter_step_mode: Option<fmi3InstanceOnlyTYPE>,
}

/// The FMI 3.0 Model Exchange functions (all required for Model Exchange; Event Mode is in
/// [`EventModeFunctions`]).
///
/// Spec: FMI 3.0 Model Exchange API (`fmi3InstantiateModelExchange` …
/// `fmi3GetNumberOfContinuousStates`).
#[derive(Clone, Copy)]
pub(crate) struct ModelExchangeFunctions {
    pub(crate) instantiate: fmi3InstantiateModelExchangeTYPE,
    pub(crate) enter_continuous_time_mode: fmi3InstanceOnlyTYPE,
    pub(crate) completed_integrator_step: fmi3CompletedIntegratorStepTYPE,
    pub(crate) set_time: fmi3SetTimeTYPE,
    pub(crate) set_continuous_states: fmi3SetContinuousStatesTYPE,
    pub(crate) get_derivatives: fmi3GetFloat64VectorTYPE,
    pub(crate) get_event_indicators: fmi3GetFloat64VectorTYPE,
    pub(crate) get_continuous_states: fmi3GetFloat64VectorTYPE,
    pub(crate) get_nominals_of_continuous_states: fmi3GetFloat64VectorTYPE,
    pub(crate) get_number_of_event_indicators: fmi3GetNumberTYPE,
    pub(crate) get_number_of_continuous_states: fmi3GetNumberTYPE,
}

impl ModelExchangeFunctions {
    /// Resolves the Model Exchange functions; a missing one is an error naming it.
    ///
    /// # Safety
    /// `r` resolves from an FMI 3.0 library (the types follow fmi3FunctionTypes.h).
    unsafe fn load(r: &Resolver<'_>) -> Result<Self> {
        // SAFETY: each type parameter is the function-pointer type of the same-named
        // prototype in fmi3FunctionTypes.h (Model Exchange functions), written out above.
        unsafe {
            Ok(ModelExchangeFunctions {
                instantiate: r.required("fmi3InstantiateModelExchange")?,
                enter_continuous_time_mode: r.required("fmi3EnterContinuousTimeMode")?,
                completed_integrator_step: r.required("fmi3CompletedIntegratorStep")?,
                set_time: r.required("fmi3SetTime")?,
                set_continuous_states: r.required("fmi3SetContinuousStates")?,
                get_derivatives: r.required("fmi3GetContinuousStateDerivatives")?,
                get_event_indicators: r.required("fmi3GetEventIndicators")?,
                get_continuous_states: r.required("fmi3GetContinuousStates")?,
                get_nominals_of_continuous_states: r
                    .required("fmi3GetNominalsOfContinuousStates")?,
                get_number_of_event_indicators: r.required("fmi3GetNumberOfEventIndicators")?,
                get_number_of_continuous_states: r.required("fmi3GetNumberOfContinuousStates")?,
            })
        }
    }
}

/// The function pointers of one FMI 3.0 co-simulation library, without the library itself.
///
/// `Copy`, so that each instance keeps its own copy and calls without a lookup; the copy is
/// only valid while the [`Fmi3Functions`] it came from (and so its `Library`) is alive, which
/// the instance guarantees by holding the `Fmu` through an `Arc`.
///
/// Getters and setters other than Float64 are optional: an FMU without variables of a type
/// may leave the function out; calling it then is an `Unsupported` error, not a load error.
/// (Float64 ones are `Option` too, for uniform access, but always `Some`: they are required
/// at load time.)
#[derive(Clone, Copy)]
pub(crate) struct Fmi3Table {
    pub(crate) get_version: Option<fmi3GetVersionTYPE>,
    pub(crate) set_debug_logging: Option<fmi3SetDebugLoggingTYPE>,
    /// Co-simulation only.
    pub(crate) instantiate_co_simulation: Option<fmi3InstantiateCoSimulationTYPE>,
    pub(crate) free_instance: fmi3FreeInstanceTYPE,
    pub(crate) enter_initialization_mode: fmi3EnterInitializationModeTYPE,
    pub(crate) exit_initialization_mode: fmi3InstanceOnlyTYPE,
    pub(crate) terminate: fmi3InstanceOnlyTYPE,
    pub(crate) reset: Option<fmi3InstanceOnlyTYPE>,
    /// Co-simulation only.
    pub(crate) do_step: Option<fmi3DoStepTYPE>,
    pub(crate) event_mode: Option<EventModeFunctions>,
    /// Model Exchange only.
    pub(crate) model_exchange: Option<ModelExchangeFunctions>,
    pub(crate) get_float32: Option<fmi3GetTYPE<fmi3Float32>>,
    pub(crate) get_float64: Option<fmi3GetTYPE<fmi3Float64>>,
    pub(crate) get_int8: Option<fmi3GetTYPE<fmi3Int8>>,
    pub(crate) get_uint8: Option<fmi3GetTYPE<fmi3UInt8>>,
    pub(crate) get_int16: Option<fmi3GetTYPE<fmi3Int16>>,
    pub(crate) get_uint16: Option<fmi3GetTYPE<fmi3UInt16>>,
    pub(crate) get_int32: Option<fmi3GetTYPE<fmi3Int32>>,
    pub(crate) get_uint32: Option<fmi3GetTYPE<fmi3UInt32>>,
    pub(crate) get_int64: Option<fmi3GetTYPE<fmi3Int64>>,
    pub(crate) get_uint64: Option<fmi3GetTYPE<fmi3UInt64>>,
    pub(crate) get_boolean: Option<fmi3GetTYPE<fmi3Boolean>>,
    pub(crate) get_string: Option<fmi3GetTYPE<fmi3String>>,
    pub(crate) get_binary: Option<fmi3GetBinaryTYPE>,
    pub(crate) set_float32: Option<fmi3SetTYPE<fmi3Float32>>,
    pub(crate) set_float64: Option<fmi3SetTYPE<fmi3Float64>>,
    pub(crate) set_int8: Option<fmi3SetTYPE<fmi3Int8>>,
    pub(crate) set_uint8: Option<fmi3SetTYPE<fmi3UInt8>>,
    pub(crate) set_int16: Option<fmi3SetTYPE<fmi3Int16>>,
    pub(crate) set_uint16: Option<fmi3SetTYPE<fmi3UInt16>>,
    pub(crate) set_int32: Option<fmi3SetTYPE<fmi3Int32>>,
    pub(crate) set_uint32: Option<fmi3SetTYPE<fmi3UInt32>>,
    pub(crate) set_int64: Option<fmi3SetTYPE<fmi3Int64>>,
    pub(crate) set_uint64: Option<fmi3SetTYPE<fmi3UInt64>>,
    pub(crate) set_boolean: Option<fmi3SetTYPE<fmi3Boolean>>,
    pub(crate) set_string: Option<fmi3SetTYPE<fmi3String>>,
    pub(crate) set_binary: Option<fmi3SetBinaryTYPE>,
    pub(crate) fmu_state: Option<StateFunctions>,
    pub(crate) serialization: Option<SerializationFunctions>,
    pub(crate) get_directional_derivative: Option<fmi3GetDirectionalDerivativeTYPE>,
}

/// The FMI 3.0 co-simulation functions of one shared library.
///
/// Owns the [`Library`], so no function pointer outlives the code it points to.
pub(crate) struct Fmi3Functions {
    pub(crate) table: Fmi3Table,
    /// The library the pointers point into; `None` for the proxy functions of an isolated
    /// FMU (Rust functions of this crate).
    _library: Option<Library>,
}

impl Fmi3Functions {
    /// Resolves all symbols from `symbols` (a library loaded from `path`, or proxies).
    ///
    /// Required: `fmi3InstantiateCoSimulation`, `fmi3FreeInstance`,
    /// `fmi3EnterInitializationMode`, `fmi3ExitInitializationMode`, `fmi3Terminate`,
    /// `fmi3DoStep`, `fmi3GetFloat64`, `fmi3SetFloat64`. Capabilities whose functions are
    /// missing (FMU state, serialization, directional derivatives, Event Mode) are switched off
    /// in `capabilities` (with a warning); capabilities not declared are not resolved at all.
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
        // prototype in fmi3FunctionTypes.h, written out above (`fmi3GetTYPE<T>` /
        // `fmi3SetTYPE<T>` with `T` the matching platform type).
        let table = unsafe {
            let fmu_state = if capabilities.can_get_and_set_fmu_state {
                let functions = r
                    .optional("fmi3GetFMUState")
                    .zip(r.optional("fmi3SetFMUState"))
                    .zip(r.optional("fmi3FreeFMUState"));
                functions.map(|((get, set), free)| StateFunctions { get, set, free })
            } else {
                None
            };
            let serialization = if capabilities.can_serialize_fmu_state {
                let functions = r
                    .optional("fmi3SerializedFMUStateSize")
                    .zip(r.optional("fmi3SerializeFMUState"))
                    .zip(r.optional("fmi3DeserializeFMUState"));
                functions.map(|((size, serialize), deserialize)| SerializationFunctions {
                    size,
                    serialize,
                    deserialize,
                })
            } else {
                None
            };
            let get_directional_derivative = if capabilities.provides_directional_derivative {
                r.optional("fmi3GetDirectionalDerivative")
            } else {
                None
            };
            let event_mode = match interface {
                Interface::CoSimulation => r
                    .optional("fmi3EnterEventMode")
                    .zip(r.optional("fmi3UpdateDiscreteStates"))
                    .zip(r.optional("fmi3EnterStepMode"))
                    .map(
                        |((enter_event_mode, update_discrete_states), enter_step_mode)| {
                            EventModeFunctions {
                                enter_event_mode,
                                update_discrete_states,
                                enter_step_mode: Some(enter_step_mode),
                            }
                        },
                    ),
                Interface::ModelExchange => Some(EventModeFunctions {
                    enter_event_mode: r.required("fmi3EnterEventMode")?,
                    update_discrete_states: r.required("fmi3UpdateDiscreteStates")?,
                    enter_step_mode: None,
                }),
            };
            let co_simulation = interface == Interface::CoSimulation;
            Fmi3Table {
                get_version: r.optional("fmi3GetVersion"),
                set_debug_logging: r.optional("fmi3SetDebugLogging"),
                instantiate_co_simulation: if co_simulation {
                    Some(r.required("fmi3InstantiateCoSimulation")?)
                } else {
                    None
                },
                free_instance: r.required("fmi3FreeInstance")?,
                enter_initialization_mode: r.required("fmi3EnterInitializationMode")?,
                exit_initialization_mode: r.required("fmi3ExitInitializationMode")?,
                terminate: r.required("fmi3Terminate")?,
                reset: r.optional("fmi3Reset"),
                do_step: if co_simulation {
                    Some(r.required("fmi3DoStep")?)
                } else {
                    None
                },
                event_mode,
                model_exchange: if co_simulation {
                    None
                } else {
                    Some(ModelExchangeFunctions::load(&r)?)
                },
                get_float32: r.optional("fmi3GetFloat32"),
                get_float64: Some(r.required("fmi3GetFloat64")?),
                get_int8: r.optional("fmi3GetInt8"),
                get_uint8: r.optional("fmi3GetUInt8"),
                get_int16: r.optional("fmi3GetInt16"),
                get_uint16: r.optional("fmi3GetUInt16"),
                get_int32: r.optional("fmi3GetInt32"),
                get_uint32: r.optional("fmi3GetUInt32"),
                get_int64: r.optional("fmi3GetInt64"),
                get_uint64: r.optional("fmi3GetUInt64"),
                get_boolean: r.optional("fmi3GetBoolean"),
                get_string: r.optional("fmi3GetString"),
                get_binary: r.optional("fmi3GetBinary"),
                set_float32: r.optional("fmi3SetFloat32"),
                set_float64: Some(r.required("fmi3SetFloat64")?),
                set_int8: r.optional("fmi3SetInt8"),
                set_uint8: r.optional("fmi3SetUInt8"),
                set_int16: r.optional("fmi3SetInt16"),
                set_uint16: r.optional("fmi3SetUInt16"),
                set_int32: r.optional("fmi3SetInt32"),
                set_uint32: r.optional("fmi3SetUInt32"),
                set_int64: r.optional("fmi3SetInt64"),
                set_uint64: r.optional("fmi3SetUInt64"),
                set_boolean: r.optional("fmi3SetBoolean"),
                set_string: r.optional("fmi3SetString"),
                set_binary: r.optional("fmi3SetBinary"),
                fmu_state,
                serialization,
                get_directional_derivative,
            }
        };
        downgrade(
            path,
            &mut capabilities.can_get_and_set_fmu_state,
            table.fmu_state.is_some(),
            "canGetAndSetFMUState",
            "fmi3GetFMUState/fmi3SetFMUState/fmi3FreeFMUState",
        );
        downgrade(
            path,
            &mut capabilities.can_serialize_fmu_state,
            table.serialization.is_some(),
            "canSerializeFMUState",
            "fmi3SerializedFMUStateSize/fmi3SerializeFMUState/fmi3DeserializeFMUState",
        );
        downgrade(
            path,
            &mut capabilities.provides_directional_derivative,
            table.get_directional_derivative.is_some(),
            "providesDirectionalDerivatives",
            "fmi3GetDirectionalDerivative",
        );
        downgrade(
            path,
            &mut capabilities.has_event_mode,
            table.event_mode.is_some(),
            "hasEventMode",
            "fmi3EnterEventMode/fmi3UpdateDiscreteStates/fmi3EnterStepMode",
        );
        Ok(Fmi3Functions {
            table,
            _library: symbols.into_library(),
        })
    }
}
