//! FMI 3.0 co-simulation: the C types, the entry points generic over the model, and
//! [`export_fmi3!`](crate::export_fmi3).
//!
//! The typedefs are written here by hand from the shapes of the standard's
//! `fmi3PlatformTypes.h` and `fmi3FunctionTypes.h`, independently of the importer crate, so that
//! a mismatch between the two shows up in tests.
//!
//! Every entry point checks its instance against the live-instance registry (FMI 3.0 instances
//! are kept apart from FMI 1.0/2.0 ones of the same library), checks each pointer and length,
//! runs inside `catch_unwind`, and returns `fmi3Error` (entering the error state) on bad
//! arguments, out-of-order calls, model errors and panics. Boolean arrays and out-arguments are
//! accessed as bytes (any non-zero byte is true), so a careless importer cannot cause undefined
//! behaviour with a byte other than 0 or 1 in a buffer.
//!
//! Spec: FMI 3.0 §2.2 (common API) and §4.2 (co-simulation API).

use std::ffi::{c_char, c_int, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;

use crate::instance3::{Error3, Instance3, Result3, Setup};
use crate::logger::status;
use crate::logger3::{Category3, Logger3};
use crate::model::Model;
use crate::phase::Status as CallStatus;
use crate::raw::{self, c_str, out, slice, slice_mut, with_instance3};

pub use crate::logger3::LogMessageFn;

/// `fmi3Instance`: the instance handle.
pub type Instance = *mut c_void;
/// `fmi3InstanceEnvironment`: the importer's context pointer, passed back to callbacks.
pub type InstanceEnvironment = *mut c_void;
/// `fmi3FMUState`: a saved-state handle.
pub type FmuState = *mut c_void;
/// `fmi3ValueReference` (`uint32_t`).
pub type ValueReference = u32;
/// `fmi3Float32`.
pub type Float32 = f32;
/// `fmi3Float64`.
pub type Float64 = f64;
/// `fmi3Int8`.
pub type Int8 = i8;
/// `fmi3UInt8`.
pub type UInt8 = u8;
/// `fmi3Int16`.
pub type Int16 = i16;
/// `fmi3UInt16`.
pub type UInt16 = u16;
/// `fmi3Int32`.
pub type Int32 = i32;
/// `fmi3UInt32`.
pub type UInt32 = u32;
/// `fmi3Int64`.
pub type Int64 = i64;
/// `fmi3UInt64`.
pub type UInt64 = u64;
/// `fmi3Boolean`: C `bool`, one byte. Arrays and out-arguments are accessed as bytes.
pub type Boolean = bool;
/// `fmi3Char`.
pub type Char = c_char;
/// `fmi3String`: a NUL-terminated UTF-8 string.
pub type FmiString = *const c_char;
/// `fmi3Byte`.
pub type Byte = u8;
/// `fmi3Binary`: a pointer to bytes whose length travels separately.
pub type Binary = *const Byte;
/// `fmi3Clock`: C `bool`.
pub type Clock = bool;
/// `fmi3Status` (a C enum), see the `STATUS_*` constants.
pub type Status = c_int;
/// `fmi3IntervalQualifier` (a C enum; unused, clocks are not supported).
pub type IntervalQualifier = c_int;
/// `fmi3DependencyKind` (a C enum; unused, dependencies are not reported by function).
pub type DependencyKind = c_int;
/// `fmi3LogMessageCallback`; null disables logging.
pub type LogMessageCallback = Option<LogMessageFn>;
/// `fmi3IntermediateUpdateCallback` (never called: `providesIntermediateUpdate="false"`).
pub type IntermediateUpdateCallback = Option<
    unsafe extern "C" fn(
        InstanceEnvironment,
        Float64,
        Boolean,
        Boolean,
        Boolean,
        Boolean,
        *mut Boolean,
        *mut Float64,
    ),
>;
/// `fmi3ClockUpdateCallback` (Scheduled Execution; never called).
pub type ClockUpdateCallback = Option<unsafe extern "C" fn(InstanceEnvironment)>;
/// `fmi3LockPreemptionCallback` (Scheduled Execution; never called).
pub type LockPreemptionCallback = Option<unsafe extern "C" fn()>;
/// `fmi3UnlockPreemptionCallback` (Scheduled Execution; never called).
pub type UnlockPreemptionCallback = Option<unsafe extern "C" fn()>;

/// `fmi3True`.
pub const TRUE: Boolean = true;
/// `fmi3False`.
pub const FALSE: Boolean = false;
/// `fmi3OK`.
pub const STATUS_OK: Status = 0;
/// `fmi3Warning`.
pub const STATUS_WARNING: Status = 1;
/// `fmi3Discard`.
pub const STATUS_DISCARD: Status = 2;
/// `fmi3Error`.
pub const STATUS_ERROR: Status = 3;
/// `fmi3Fatal`.
pub const STATUS_FATAL: Status = 4;

mod values;

pub use values::{
    get_binary, get_boolean, get_float32, get_float64, get_int8, get_int16, get_int32, get_int64,
    get_string, get_uint8, get_uint16, get_uint32, get_uint64, set_binary, set_boolean,
    set_float32, set_float64, set_int8, set_int16, set_int32, set_int64, set_string, set_uint8,
    set_uint16, set_uint32, set_uint64,
};

/// `fmi3GetVersion`: `"3.0"`.
///
/// Spec: FMI 3.0 §2.2.5.
pub fn get_version() -> *const c_char {
    c"3.0".as_ptr()
}

/// Writes a C `bool` out-argument as the byte 0 or 1.
///
/// # Safety
/// If non-null and aligned, `ptr` must be valid for a one-byte write.
pub(crate) unsafe fn write_bool(ptr: *mut Boolean, arg: &'static str, value: bool) -> Result3<()> {
    // SAFETY: caller contract; `bool` and `u8` have the same size and alignment, and the byte
    // written is 0 or 1, a valid `bool`.
    let slot = unsafe { out(ptr.cast::<u8>(), arg) }?;
    *slot = u8::from(value);
    Ok(())
}

/// Logs a refused instantiation through the callback, if any, and returns null.
pub(crate) fn refuse(
    callback: LogMessageCallback,
    environment: InstanceEnvironment,
    message: &str,
) -> Instance {
    Logger3::new(callback, environment, false).log(
        status::ERROR,
        Category3::StatusError,
        &format!("fmi3Instantiate: {message}"),
    );
    ptr::null_mut()
}

/// `fmi3InstantiateCoSimulation` for model `M`. Returns null (after logging, if a callback
/// was given) for a null or empty instance name, a null or unknown instantiation token, a
/// model without an FMI 3.0 variable table, `eventModeUsed` for a model without Event Mode,
/// required intermediate variables (intermediate update is not provided), or when
/// [`Model::acquire_instance`] refuses. `resourcePath` should be an absolute native path ending
/// in `/`; one without the trailing `/` gives a warning. `visible` and `intermediateUpdate` are
/// ignored.
///
/// Spec: FMI 3.0 §4.2.2 (fmi3InstantiateCoSimulation).
///
/// # Safety
/// Each pointer argument must be null or valid as the standard describes it: NUL-terminated
/// strings, `nRequiredIntermediateVariables` value references, and a `logMessage` callback that
/// stays callable until the instance is freed.
#[allow(clippy::too_many_arguments)]
pub unsafe fn instantiate_co_simulation<M: Model>(
    instance_name: FmiString,
    instantiation_token: FmiString,
    resource_path: FmiString,
    _visible: Boolean,
    logging_on: Boolean,
    event_mode_used: Boolean,
    early_return_allowed: Boolean,
    _required_intermediate_variables: *const ValueReference,
    n_required_intermediate_variables: usize,
    instance_environment: InstanceEnvironment,
    log_message: LogMessageCallback,
    _intermediate_update: IntermediateUpdateCallback,
) -> Instance {
    let body = || {
        let refuse = |message: &str| refuse(log_message, instance_environment, message);
        // SAFETY: the caller passes null or a NUL-terminated string.
        let name = match unsafe { c_str(instance_name, "instanceName") } {
            Ok(name) if !name.is_empty() => name,
            Ok(_) => return refuse("instanceName is empty"),
            Err(e) => return refuse(&e.to_string()),
        };
        // SAFETY: the caller passes null or a NUL-terminated string.
        let token = match unsafe { c_str(instantiation_token, "instantiationToken") } {
            Ok(token) => token,
            Err(e) => return refuse(&e.to_string()),
        };
        let Some(model) = M::instantiate(token) else {
            return refuse(&format!("unknown instantiationToken {token}"));
        };
        if model.variables3().is_empty() {
            return refuse(&format!("the model of {token} has no FMI 3.0 variables"));
        }
        if event_mode_used && !model.has_event_mode() {
            return refuse("eventModeUsed = true, but the FMU declares hasEventMode=\"false\"");
        }
        if n_required_intermediate_variables > 0 {
            return refuse(
                "requiredIntermediateVariables given, but the FMU declares providesIntermediateUpdate=\"false\"",
            );
        }
        let resource_path = if resource_path.is_null() {
            None
        } else {
            // SAFETY: non-null, and the caller passes a NUL-terminated string.
            match unsafe { c_str(resource_path, "resourcePath") } {
                Ok(path) => Some(path.to_owned()),
                Err(e) => return refuse(&e.to_string()),
            }
        };
        if let Err(e) = M::acquire_instance(token) {
            return refuse(&e.to_string());
        }
        let logger = Logger3::new(log_message, instance_environment, logging_on);
        if let Some(path) = resource_path.as_deref().filter(|p| !p.ends_with('/')) {
            logger.log(
                status::WARNING,
                Category3::StatusWarning,
                &format!("fmi3InstantiateCoSimulation: resourcePath {path:?} does not end in '/'"),
            );
        }
        let setup = Setup {
            event_mode_used,
            early_return_allowed,
            resource_path,
        };
        let instance = Instance3::new(name.to_owned(), token.to_owned(), model, logger, setup);
        instance.trace(|| {
            format!(
                "fmi3InstantiateCoSimulation(instantiationToken = {token}, eventModeUsed = {event_mode_used}, earlyReturnAllowed = {})",
                early_return_allowed
            )
        });
        match raw::register3(instance) {
            Ok(ptr) => ptr.cast(),
            Err((instance, message)) => {
                instance.log(status::ERROR, Category3::StatusError, &message);
                ptr::null_mut()
            }
        }
    };
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(ptr::null_mut())
}

/// `fmi3InstantiateModelExchange`: always null (the FMUs are co-simulation only), after
/// logging why.
///
/// Spec: FMI 3.0 §3.2.1.
///
/// # Safety
/// `log_message` must be null or callable with `instance_environment`.
pub unsafe fn instantiate_model_exchange(
    instance_environment: InstanceEnvironment,
    log_message: LogMessageCallback,
) -> Instance {
    catch_unwind(|| {
        refuse(
            log_message,
            instance_environment,
            "Model Exchange is not supported (co-simulation only)",
        )
    })
    .unwrap_or(ptr::null_mut())
}

/// `fmi3InstantiateScheduledExecution`: always null (not supported), after logging why.
///
/// Spec: FMI 3.0 §5.2.1.
///
/// # Safety
/// `log_message` must be null or callable with `instance_environment`.
pub unsafe fn instantiate_scheduled_execution(
    instance_environment: InstanceEnvironment,
    log_message: LogMessageCallback,
) -> Instance {
    catch_unwind(|| {
        refuse(
            log_message,
            instance_environment,
            "Scheduled Execution is not supported (co-simulation only)",
        )
    })
    .unwrap_or(ptr::null_mut())
}

/// `fmi3FreeInstance`: frees the instance and its saved FMU states, then calls
/// [`Model::release_instance`]; ignores unknown pointers.
///
/// Spec: FMI 3.0 §2.2.5.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn free_instance<M: Model>(c: Instance) {
    // SAFETY: forwarded caller contract.
    unsafe { raw::free_instance3::<M>(c) }
}

/// `fmi3SetDebugLogging`: with `nCategories == 0` switches `logCalls`, `logEvents` and
/// `logDebug`; otherwise each named category. Unknown names give a Warning.
///
/// Spec: FMI 3.0 §2.2.5.
///
/// # Safety
/// `categories` must be null or point to `n_categories` NUL-terminated strings; `c` must not be
/// in use by a concurrent call.
pub unsafe fn set_debug_logging<M: Model>(
    c: Instance,
    logging_on: Boolean,
    n_categories: usize,
    categories: *const FmiString,
) -> Status {
    let body = |inst: &mut Instance3<M>| {
        // SAFETY: caller contract: `n_categories` valid string pointers.
        let raw_names = unsafe { slice(categories, n_categories, "categories") }?;
        let names = raw_names
            .iter()
            // SAFETY: each element is a NUL-terminated string per the caller contract.
            .map(|&p| unsafe { c_str(p, "categories[i]") })
            .collect::<Result<Vec<_>, _>>()?;
        inst.set_debug_logging(logging_on, &names)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance3::<M>(c, "fmi3SetDebugLogging", body) }
}

/// `fmi3EnterConfigurationMode`: from Instantiated, to set structural parameters.
///
/// Spec: FMI 3.0 §2.3.2 (Configuration Mode).
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn enter_configuration_mode<M: Model>(c: Instance) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe {
        with_instance3::<M>(
            c,
            "fmi3EnterConfigurationMode",
            Instance3::enter_configuration_mode,
        )
    }
}

/// `fmi3ExitConfigurationMode`: back to Instantiated.
///
/// Spec: FMI 3.0 §2.3.2 (Configuration Mode).
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn exit_configuration_mode<M: Model>(c: Instance) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe {
        with_instance3::<M>(
            c,
            "fmi3ExitConfigurationMode",
            Instance3::exit_configuration_mode,
        )
    }
}

/// `fmi3EnterInitializationMode`: stores the start time (s); the tolerance and stop time
/// (s) are only traced.
///
/// Spec: FMI 3.0 §2.2.6.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn enter_initialization_mode<M: Model>(
    c: Instance,
    tolerance_defined: Boolean,
    tolerance: Float64,
    start_time: Float64,
    stop_time_defined: Boolean,
    stop_time: Float64,
) -> Status {
    let tolerance = tolerance_defined.then_some(tolerance);
    let stop_time = stop_time_defined.then_some(stop_time);
    // SAFETY: forwarded caller contract.
    unsafe {
        with_instance3::<M>(c, "fmi3EnterInitializationMode", |i| {
            i.enter_initialization_mode(tolerance, start_time, stop_time)
        })
    }
}

/// `fmi3ExitInitializationMode`: to Event Mode with `eventModeUsed`, else to Step Mode.
///
/// Spec: FMI 3.0 §2.2.6, §4.2.3.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn exit_initialization_mode<M: Model>(c: Instance) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe {
        with_instance3::<M>(
            c,
            "fmi3ExitInitializationMode",
            Instance3::exit_initialization_mode,
        )
    }
}

/// `fmi3EnterEventMode`: from Step Mode; Error unless instantiated with `eventModeUsed`.
///
/// Spec: FMI 3.0 §2.2.6, §4.2.3.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn enter_event_mode<M: Model>(c: Instance) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe { with_instance3::<M>(c, "fmi3EnterEventMode", Instance3::enter_event_mode) }
}

/// `fmi3Terminate`: from Step or Event Mode.
///
/// Spec: FMI 3.0 §2.2.6.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn terminate<M: Model>(c: Instance) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe { with_instance3::<M>(c, "fmi3Terminate", Instance3::terminate) }
}

/// `fmi3Reset`: back to Instantiated with start values.
///
/// Spec: FMI 3.0 §2.2.6.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn reset<M: Model>(c: Instance) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe { with_instance3::<M>(c, "fmi3Reset", Instance3::reset) }
}

/// Any function of a feature the FMUs do not provide (clocks, adjoint derivatives, output
/// derivatives, variable dependencies by function, model partitions, evaluation of discrete
/// states): Error, logged as `not supported: <what>`.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn unsupported<M: Model>(
    c: Instance,
    function: &'static str,
    what: &'static str,
) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe {
        with_instance3::<M>(c, function, |_| -> Result3 {
            Err(Error3::Unsupported { what })
        })
    }
}

/// `fmi3GetFMUState`: if `*state` is null a new state is created, otherwise the existing
/// state (which must belong to this instance) is overwritten in place.
///
/// Spec: FMI 3.0 §2.2.7.
///
/// # Safety
/// `state` must be null or valid for reads and writes; `c` must not be in use by a concurrent
/// call.
pub unsafe fn get_fmu_state<M: Model>(c: Instance, state: *mut FmuState) -> Status {
    let body = |inst: &mut Instance3<M>| {
        // SAFETY: caller contract on `state`.
        let slot = unsafe { out(state, "FMUState") }?;
        let existing = (!slot.is_null()).then(|| slot.addr());
        let handle = inst.get_state(existing)?;
        *slot = ptr::without_provenance_mut(handle);
        Ok(CallStatus::Ok)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance3::<M>(c, "fmi3GetFMUState", body) }
}

/// `fmi3SetFMUState`: restores a state of this instance.
///
/// Spec: FMI 3.0 §2.2.7.
///
/// # Safety
/// `c` must not be in use by a concurrent call. (`state` is only compared, never dereferenced.)
pub unsafe fn set_fmu_state<M: Model>(c: Instance, state: FmuState) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe { with_instance3::<M>(c, "fmi3SetFMUState", |i| i.set_state(state.addr())) }
}

/// `fmi3FreeFMUState`: frees a state of this instance and nulls `*state`; a null `*state` is
/// ignored.
///
/// Spec: FMI 3.0 §2.2.7.
///
/// # Safety
/// `state` must be null or valid for reads and writes; `c` must not be in use by a concurrent
/// call.
pub unsafe fn free_fmu_state<M: Model>(c: Instance, state: *mut FmuState) -> Status {
    let body = |inst: &mut Instance3<M>| {
        // SAFETY: caller contract on `state`.
        let slot = unsafe { out(state, "FMUState") }?;
        if slot.is_null() {
            return Ok(CallStatus::Ok);
        }
        inst.free_state(slot.addr())?;
        *slot = ptr::null_mut();
        Ok(CallStatus::Ok)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance3::<M>(c, "fmi3FreeFMUState", body) }
}

/// `fmi3SerializedFMUStateSize`: the number of bytes [`serialize_fmu_state`] needs for
/// `state`. Error (unsupported) if the model's [`Model::save_state`] is `None`.
///
/// Spec: FMI 3.0 §2.2.7.
///
/// # Safety
/// `size` must be null or valid for writes; `c` must not be in use by a concurrent call.
pub unsafe fn serialized_fmu_state_size<M: Model>(
    c: Instance,
    state: FmuState,
    size: *mut usize,
) -> Status {
    let body = |inst: &mut Instance3<M>| {
        inst.require_serializable()?;
        // SAFETY: caller contract on `size`.
        let out = unsafe { out(size, "size") }?;
        *out = inst.serialized_state_size(state.addr())?;
        Ok(CallStatus::Ok)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance3::<M>(c, "fmi3SerializedFMUStateSize", body) }
}

/// `fmi3SerializeFMUState`: writes `state` into `serializedState`, which must hold exactly
/// the number of bytes [`serialized_fmu_state_size`] gives. The format is the FMI 2.0 layer's
/// (crate README), with the instantiation token in place of the GUID and the FMI 3.0 mode code
/// as the first value.
///
/// Spec: FMI 3.0 §2.2.7.
///
/// # Safety
/// `bytes` must be null or valid for `size` writes; `c` must not be in use by a concurrent
/// call.
pub unsafe fn serialize_fmu_state<M: Model>(
    c: Instance,
    state: FmuState,
    bytes: *mut Byte,
    size: usize,
) -> Status {
    let body = |inst: &mut Instance3<M>| {
        inst.require_serializable()?;
        // SAFETY: caller contract on `bytes`.
        let out = unsafe { slice_mut(bytes, size, "serializedState") }?;
        inst.serialize_state(state.addr(), out)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance3::<M>(c, "fmi3SerializeFMUState", body) }
}

/// `fmi3DeserializeFMUState`: reads bytes that [`serialize_fmu_state`] wrote (in an instance
/// of the same FMU, possibly in another process) into a state of this instance: a new one if
/// `*state` is null, else the existing one, overwritten. Error, and `*state` unchanged, for
/// bytes with a wrong magic, version, token, mode or length, or values the model refuses.
///
/// Spec: FMI 3.0 §2.2.7.
///
/// # Safety
/// `bytes` must be null or valid for `size` reads; `state` must be null or valid for reads and
/// writes; `c` must not be in use by a concurrent call.
pub unsafe fn deserialize_fmu_state<M: Model>(
    c: Instance,
    bytes: *const Byte,
    size: usize,
    state: *mut FmuState,
) -> Status {
    let body = |inst: &mut Instance3<M>| {
        inst.require_serializable()?;
        // SAFETY: caller contract on `bytes` and `state`.
        let (data, slot) = unsafe {
            (
                slice(bytes, size, "serializedState")?,
                out(state, "FMUState")?,
            )
        };
        let existing = (!slot.is_null()).then(|| slot.addr());
        let handle = inst.deserialize_state(data, existing)?;
        *slot = ptr::without_provenance_mut(handle);
        Ok(CallStatus::Ok)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance3::<M>(c, "fmi3DeserializeFMUState", body) }
}

/// `fmi3GetDirectionalDerivative`: `sensitivity = J·seed` with `J[i][j] = ∂unknowns[i] /
/// ∂knowns[j]`, for scalar Float64 variables, through [`Model::directional_derivative`]; Error
/// if the model does not provide derivatives.
///
/// Shapes: `unknowns` has `nUnknowns`, `knowns` `nKnowns`, `seed` `nSeed == nKnowns` and
/// `sensitivity` `nSensitivity == nUnknowns` elements.
///
/// Spec: FMI 3.0 §2.2.11 (fmi3GetDirectionalDerivative).
///
/// # Safety
/// Each array must be valid for its length (reads, or writes for `sensitivity`); `c` must not
/// be in use by a concurrent call.
#[allow(clippy::too_many_arguments)]
pub unsafe fn get_directional_derivative<M: Model>(
    c: Instance,
    unknowns: *const ValueReference,
    n_unknowns: usize,
    knowns: *const ValueReference,
    n_knowns: usize,
    seed: *const Float64,
    n_seed: usize,
    sensitivity: *mut Float64,
    n_sensitivity: usize,
) -> Status {
    let body = |inst: &mut Instance3<M>| {
        // SAFETY: caller contract on the four arrays.
        let (unknowns, knowns, seed, result) = unsafe {
            (
                slice(unknowns, n_unknowns, "unknowns")?,
                slice(knowns, n_knowns, "knowns")?,
                slice(seed, n_seed, "seed")?,
                slice_mut(sensitivity, n_sensitivity, "sensitivity")?,
            )
        };
        inst.directional_derivative(unknowns, knowns, seed, result)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance3::<M>(c, "fmi3GetDirectionalDerivative", body) }
}

/// `fmi3UpdateDiscreteStates` (Event Mode): handles the model's event if it is due at the FMU
/// time. `discreteStatesNeedUpdate` tells whether another event is due at the same time (call
/// again); `terminateSimulation`, `nominalsOfContinuousStatesChanged` and
/// `valuesOfContinuousStatesChanged` are false; `nextEventTime` (s) is the model's next event,
/// if `nextEventTimeDefined`.
///
/// Spec: FMI 3.0 §3.2.4 (fmi3UpdateDiscreteStates), §4.2.3.
///
/// # Safety
/// Each out-pointer must be null or valid for a write; `c` must not be in use by a concurrent
/// call.
#[allow(clippy::too_many_arguments)]
pub unsafe fn update_discrete_states<M: Model>(
    c: Instance,
    discrete_states_need_update: *mut Boolean,
    terminate_simulation: *mut Boolean,
    nominals_of_continuous_states_changed: *mut Boolean,
    values_of_continuous_states_changed: *mut Boolean,
    next_event_time_defined: *mut Boolean,
    next_event_time: *mut Float64,
) -> Status {
    let body = |inst: &mut Instance3<M>| {
        // SAFETY: caller contract on `next_event_time`.
        let next_time = unsafe { out(next_event_time, "nextEventTime") }?;
        let update = inst.update_discrete_states()?;
        // SAFETY: caller contract on the Boolean out-pointers.
        unsafe {
            write_bool(
                discrete_states_need_update,
                "discreteStatesNeedUpdate",
                update.discrete_states_need_update,
            )?;
            write_bool(terminate_simulation, "terminateSimulation", false)?;
            write_bool(
                nominals_of_continuous_states_changed,
                "nominalsOfContinuousStatesChanged",
                false,
            )?;
            write_bool(
                values_of_continuous_states_changed,
                "valuesOfContinuousStatesChanged",
                false,
            )?;
            write_bool(
                next_event_time_defined,
                "nextEventTimeDefined",
                update.next_event_time.is_some(),
            )?;
        }
        *next_time = update.next_event_time.unwrap_or(0.0);
        Ok(CallStatus::Ok)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance3::<M>(c, "fmi3UpdateDiscreteStates", body) }
}

/// `fmi3EnterStepMode`: from Event Mode, once no event is due.
///
/// Spec: FMI 3.0 §4.2.3.
///
/// # Safety
/// `c` must not be in use by a concurrent call.
pub unsafe fn enter_step_mode<M: Model>(c: Instance) -> Status {
    // SAFETY: forwarded caller contract.
    unsafe { with_instance3::<M>(c, "fmi3EnterStepMode", Instance3::enter_step_mode) }
}

/// `fmi3DoStep` from `currentCommunicationPoint` with `communicationStepSize` (s). The point
/// must equal the FMU time (within 1e-8·(1+|t|)); the step must be finite and > 0.
///
/// Out-arguments: `eventHandlingNeeded` (an event waits for Event Mode), `terminateSimulation`
/// (the model asks to stop; the status is still OK), `earlyReturn` (the step stopped at an
/// internal event before `t + h`) and `lastSuccessfulTime` (s, the time reached). On Discard or
/// Error they are false and `lastSuccessfulTime = t`. With logging on, the
/// `noSetFMUStatePriorToCurrentPoint` argument is logged in category `logDebug`.
///
/// Spec: FMI 3.0 §4.2.2 (fmi3DoStep).
///
/// # Safety
/// The four out-pointers must be null or valid for a write; `c` must not be in use by a
/// concurrent call.
#[allow(clippy::too_many_arguments)]
pub unsafe fn do_step<M: Model>(
    c: Instance,
    current_communication_point: Float64,
    communication_step_size: Float64,
    no_set_fmu_state_prior_to_current_point: Boolean,
    event_handling_needed: *mut Boolean,
    terminate_simulation: *mut Boolean,
    early_return: *mut Boolean,
    last_successful_time: *mut Float64,
) -> Status {
    let t = current_communication_point;
    let body = |inst: &mut Instance3<M>| {
        // SAFETY: caller contract on `last_successful_time`.
        let last_time = unsafe { out(last_successful_time, "lastSuccessfulTime") }?;
        let write_flags = |event: bool, terminate: bool, early: bool| -> Result3<()> {
            // SAFETY: caller contract on the Boolean out-pointers.
            unsafe {
                write_bool(event_handling_needed, "eventHandlingNeeded", event)?;
                write_bool(terminate_simulation, "terminateSimulation", terminate)?;
                write_bool(early_return, "earlyReturn", early)
            }
        };
        write_flags(false, false, false)?;
        *last_time = t;
        let step = inst.do_step(
            t,
            communication_step_size,
            no_set_fmu_state_prior_to_current_point,
        )?;
        write_flags(
            step.event_handling_needed,
            step.terminate_simulation,
            step.early_return,
        )?;
        *last_time = step.last_successful_time;
        Ok(CallStatus::Ok)
    };
    // SAFETY: forwarded caller contract.
    unsafe { with_instance3::<M>(c, "fmi3DoStep", body) }
}

#[cfg(test)]
mod tests;
