//! Safe, version-neutral FMU instances.
//!
//! Every method checks its arguments (slice lengths, NUL bytes), calls through the function
//! table, copies anything the FMU returns, and maps the status: OK and Warning become
//! `Ok(Status)`, Discard becomes [`Error::Discard`], and Error/Fatal/Pending become
//! [`Error::CallFailed`]. After Fatal no instance of the FMU is called again.
//!
//! FMI 1.0 has no separate `setupExperiment`: [`Instance::setup_experiment`] only stores the
//! times, and [`Instance::enter_initialization_mode`] calls `fmiInitializeSlave`, so a master can
//! set start values and parameters before it (as FMI 1.0 requires).

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::fmt;
use std::ptr;
use std::sync::Arc;

use crate::ffi::{self, Functions, fmi1, fmi2};
use crate::fmu::file_uri;
use crate::isolated::{self, HelperCalls};
use crate::{Error, FailureStatus, FmiVersion, Fmu, Interface, Result, Status, ValueRef};

/// Why `do_step` is refused for a Model Exchange instance.
const NO_DO_STEP: &str = "a Model Exchange instance has no doStep: the master integrates it";

/// Options for [`Fmu::instantiate`].
///
/// Spec: FMI 2.0.2 §2.1.5 (`fmi2Instantiate`), FMI 1.0 CS §4.1 (`fmiInstantiateSlave`).
#[derive(Debug, Clone, Default)]
pub struct InstantiateOptions {
    /// Passed as `visible` (default false: no user interaction).
    pub visible: bool,
    /// Passed as `loggingOn` (default false).
    pub logging_on: bool,
}

/// The result of a `doStep` call that did not fail.
///
/// Spec: FMI 2.0.2 §4.2.2 (`fmi2DoStep`, `fmi2Terminated`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepOutcome {
    /// The step completed (status OK or Warning).
    Completed(Status),
    /// The FMU returned Discard and reports `fmi2Terminated = true`: it asks to end the
    /// simulation at its current time. This is a normal end, not a failure.
    Terminated,
}

/// Where an instance is in the FMI call sequence (only what the wrapper needs to know).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Instantiated (or reset), not yet initialized.
    Instantiated,
    /// FMI 2.0 only: between enter and exit of initialization mode.
    InitializationMode,
    /// Initialized: stepping is allowed (co-simulation).
    Initialized,
    /// Model Exchange: Event Mode (after initialization and `fmi2EnterEventMode`).
    EventMode,
    /// Model Exchange: Continuous-Time Mode (after `fmi2EnterContinuousTimeMode`).
    ContinuousTimeMode,
    /// `terminate` was called.
    Terminated,
}

/// One instance (FMI 2.0 "instance", FMI 1.0 "slave") of an [`Fmu`].
///
/// `Send` but not `Sync`: an instance is never called from two threads at once, which the
/// `&mut self` receivers guarantee. Sharing one between threads does not compile:
///
/// ```compile_fail
/// fn shared_between_threads<T: Sync>() {}
/// shared_between_threads::<fmi::Instance>();
/// ```
///
/// Dropping an instance frees its FMU states, terminates it if it was initialized and neither
/// terminated nor failed, frees it (`fmi2FreeInstance` / `fmiFreeSlaveInstance`, skipped after
/// Fatal), and only then releases its reference to the [`Fmu`] (and so possibly the library).
///
/// Spec: FMI 2.0.2 §2.1 (common API), §4.2 (co-simulation API), §4.2.4 (calling sequence);
/// FMI 1.0 CS §4.
pub struct Instance {
    name: String,
    /// `fmi2Component` or `fmiComponent` (both `void*`), depending on the FMU's version.
    component: *mut c_void,
    /// FMI 2.0 callbacks; the FMU may keep the pointer until the instance is freed.
    callbacks: Option<Box<fmi2::fmi2CallbackFunctions>>,
    /// Saved FMU states by [`crate::FmuStateId`]; `None` once freed.
    states: crate::state_table::StateTable,
    /// FMI 1.0: `(tStart, tStop)` from `setup_experiment`, used by `fmiInitializeSlave`.
    experiment: Option<(f64, Option<f64>)>,
    phase: Phase,
    /// Instantiated as `fmi2ModelExchange` (see [`Fmu::instantiate_model_exchange`]).
    model_exchange: bool,
    /// The last call returned Error (cleared by a successful `set_fmu_state` or `reset`).
    failed: bool,
    /// Buffers reused by the Boolean and String getters and setters (no allocation per call).
    scratch: values::Scratch,
    fmu: Arc<Fmu>,
}

// SAFETY: invariant: one instance is never called from two threads at once. All FFI calls go
// through `&mut self` (or happen in `Drop`), and `Instance` is not `Sync`, so the component and
// state pointers are only ever used by the thread that currently owns the instance; the boxed
// callbacks are never written after instantiation. The only other raw pointers, the string
// pointers in `scratch`, never outlive a call: `values::Scratch` holds them only while one
// `get_string` / `set_string` call runs (each entry written before it is read, the buffer
// cleared before the call returns), so between calls that buffer is empty and moving the
// instance moves no pointer. Moving an instance to another thread between calls is allowed by
// FMI 2.0.2 §2.1 (general properties of the API): functions of one instance need not be
// thread-safe, the environment must keep their calls sequential, and functions of different
// instances may run in parallel in different threads (the FMU must not change global or thread
// settings it does not restore). The shared `Fmu` is `Send + Sync` on its own (immutable
// function table, atomics, the isolated FMU's spare helper behind a mutex). The component of an
// isolated instance is its proxy (module `isolated`), which owns a `Send` helper and is only
// used through the calls of this instance.
unsafe impl Send for Instance {}

impl fmt::Debug for Instance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Instance")
            .field("name", &self.name)
            .field("fmu", &self.fmu.directory())
            .field("phase", &self.phase)
            .field("failed", &self.failed)
            .field("live_states", &self.states.live())
            .finish()
    }
}

// `Fmu::instantiate` lives here rather than in `fmu`, so that `fmu` does not depend on this
// module (which depends on `fmu`).
impl Fmu {
    /// Creates an instance named `instance_name`.
    ///
    /// FMI 2.0 calls `fmi2Instantiate(name, fmi2CoSimulation, guid, <file URI of
    /// directory/resources>, callbacks, visible, loggingOn)`; FMI 1.0 calls
    /// `fmiInstantiateSlave(name, guid, <file URI of directory>, "application/x-fmu-sharedlibrary",
    /// 0, visible, false, callbacks, loggingOn)`. FMU log messages go to the `log` crate with
    /// target `fmu`.
    ///
    /// # Errors
    /// - [`Error::InstantiatedTwice`]: the FMU declares `canBeInstantiatedOnlyOncePerProcess`
    ///   and already has a live instance;
    /// - [`Error::Instantiate`]: the FMU returned NULL;
    /// - [`Error::InteriorNul`]: the name contains a NUL byte;
    /// - [`Error::InvalidCall`]: an instance of this FMU returned Fatal earlier.
    ///
    /// Spec: FMI 2.0.2 §2.1.5 (`fmi2Instantiate`), FMI 1.0 CS §4.1 (`fmiInstantiateSlave`).
    pub fn instantiate(
        self: &Arc<Self>,
        instance_name: &str,
        options: &InstantiateOptions,
    ) -> Result<Instance> {
        Instance::new(
            Arc::clone(self),
            instance_name,
            options,
            Interface::CoSimulation,
        )
    }
}

/// `fmi2Instantiate` of an isolated FMU (in a helper process): the component (a proxy, or
/// NULL when the FMU returned NULL) and the callbacks, whose logger gets the FMU's messages.
fn instantiate_isolated(
    fmu: &Fmu,
    isolation: &crate::fmu::Isolation,
    name: &CStr,
    guid: &CStr,
    interface: Interface,
    options: &InstantiateOptions,
) -> isolation::Result<(*mut c_void, Box<fmi2::fmi2CallbackFunctions>)> {
    let callbacks = ffi::fmi2_callbacks();
    let fmu_type = match interface {
        Interface::CoSimulation => fmi2::fmi2CoSimulation,
        Interface::ModelExchange => fmi2::fmi2ModelExchange,
    };
    let component = isolated::instantiate_fmi2(
        fmu,
        isolation,
        name,
        fmu_type,
        guid,
        &callbacks,
        options.visible,
        options.logging_on,
    )?;
    Ok((component, callbacks))
}

/// Converts a Rust bool to `fmi2Boolean`.
fn fmi2_bool(value: bool) -> fmi2::fmi2Boolean {
    if value {
        fmi2::fmi2True
    } else {
        fmi2::fmi2False
    }
}

/// Converts a Rust bool to FMI 1.0 `fmiBoolean`.
fn fmi1_bool(value: bool) -> fmi1::fmiBoolean {
    if value { fmi1::fmiTrue } else { fmi1::fmiFalse }
}

/// Value references as the `const unsigned int*` both versions expect.
fn raw_vrs(vrs: &[ValueRef]) -> *const u32 {
    // `ValueRef` is `#[repr(transparent)]` over `u32`.
    vrs.as_ptr().cast::<u32>()
}

impl Instance {
    /// Calls `fmi2Instantiate` / `fmiInstantiateSlave` for `interface`; see
    /// [`Fmu::instantiate`] and [`Fmu::instantiate_model_exchange`].
    pub(crate) fn new(
        fmu: Arc<Fmu>,
        name: &str,
        options: &InstantiateOptions,
        interface: Interface,
    ) -> Result<Instance> {
        let version = fmu.description().fmi_version;
        if fmu.interface() != interface {
            return Err(Error::InvalidCall {
                instance: name.to_owned(),
                function: "fmi2Instantiate",
                reason: match interface {
                    Interface::CoSimulation => {
                        "the FMU was loaded for Model Exchange: use instantiate_model_exchange"
                    }
                    Interface::ModelExchange => {
                        "the FMU was loaded for co-simulation: load it with Fmu::load_as"
                    }
                },
            });
        }
        let function = match version {
            FmiVersion::V1 => "fmiInstantiateSlave",
            FmiVersion::V2 => "fmi2Instantiate",
            FmiVersion::V3 => {
                return Err(Error::InvalidCall {
                    instance: name.to_owned(),
                    function: "fmi3InstantiateCoSimulation",
                    reason: "an FMI 3.0 FMU is instantiated with Fmu::instantiate_fmi3",
                });
            }
        };
        if fmu.is_fatal() {
            return Err(Error::InvalidCall {
                instance: name.to_owned(),
                function,
                reason: "an instance of this FMU returned Fatal",
            });
        }
        let c_string = |text: &str, index: usize| {
            CString::new(text).map_err(|_| Error::InteriorNul {
                instance: name.to_owned(),
                function,
                index,
            })
        };
        let c_name = c_string(name, 0)?;
        let guid = c_string(&fmu.description().guid, 1)?;
        let location = match version {
            FmiVersion::V1 => file_uri(fmu.directory()),
            FmiVersion::V2 | FmiVersion::V3 => file_uri(&fmu.directory().join("resources")),
        };
        let location = c_string(&location, 2)?;

        fmu.acquire_instance_slot(name)?;
        let (component, callbacks) = match (fmu.functions(), fmu.isolation_settings()) {
            (Functions::V2(_), Some(isolation)) => {
                let made =
                    instantiate_isolated(&fmu, isolation, &c_name, &guid, interface, options);
                let (component, callbacks) = made
                    .inspect_err(|_| fmu.release_instance_slot())
                    .map_err(|source| Error::Isolated {
                        instance: name.to_owned(),
                        function,
                        source,
                    })?;
                (component, Some(callbacks))
            }
            (Functions::V2(f), None) => {
                let callbacks = ffi::fmi2_callbacks();
                // SAFETY: all strings are NUL-terminated and outlive the call; `callbacks` is
                // boxed and stored in the instance, so the pointer stays valid until
                // `fmi2FreeInstance` (the FMU may keep it). Argument types follow
                // fmi2InstantiateTYPE (FMI 2.0.2 §2.1.5).
                let component = unsafe {
                    (f.instantiate)(
                        c_name.as_ptr(),
                        match interface {
                            Interface::CoSimulation => fmi2::fmi2CoSimulation,
                            Interface::ModelExchange => fmi2::fmi2ModelExchange,
                        },
                        guid.as_ptr(),
                        location.as_ptr(),
                        &*callbacks,
                        fmi2_bool(options.visible),
                        fmi2_bool(options.logging_on),
                    )
                };
                (component, Some(callbacks))
            }
            (Functions::V1(f), _) => {
                let mime_type = c"application/x-fmu-sharedlibrary";
                // SAFETY: all strings are NUL-terminated and outlive the call; the callback
                // struct is passed by value and holds only static function pointers. Argument
                // types follow fmiInstantiateSlave (FMI 1.0 CS §4.1).
                let component = unsafe {
                    (f.instantiate_slave)(
                        c_name.as_ptr(),
                        guid.as_ptr(),
                        location.as_ptr(),
                        mime_type.as_ptr(),
                        0.0,
                        fmi1_bool(options.visible),
                        fmi1::fmiFalse,
                        ffi::fmi1_callbacks(),
                        fmi1_bool(options.logging_on),
                    )
                };
                (component, None)
            }
        };
        if component.is_null() {
            fmu.release_instance_slot();
            return Err(Error::Instantiate {
                instance: name.to_owned(),
                fmu: fmu.directory().to_owned(),
            });
        }
        Ok(Instance {
            name: name.to_owned(),
            component,
            callbacks,
            states: Default::default(),
            experiment: None,
            phase: Phase::Instantiated,
            model_exchange: interface == Interface::ModelExchange,
            failed: false,
            scratch: values::Scratch::default(),
            fmu,
        })
    }

    /// The instance name given at instantiation (the FMU uses it in its log messages).
    ///
    /// Spec: FMI 2.0.2 §2.1.5 (`instanceName`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// True after a call returned Error, until a successful `fmi2SetFMUstate` or reset brings
    /// the instance back, and for good once an instance of its FMU returned Fatal. In the
    /// error state FMI 2.0 allows only reset, state restoration, value getters and freeing;
    /// `fmi2Terminate` is not among them.
    ///
    /// Spec: FMI 2.0.2 §2.1.3 (statuses Error and Fatal), §4.2.4 (co-simulation state machine).
    pub fn is_failed(&self) -> bool {
        self.failed || self.fmu.is_fatal()
    }

    /// The FMU this instance belongs to.
    pub fn fmu(&self) -> &Arc<Fmu> {
        &self.fmu
    }

    /// FMI 2.0: `fmi2SetupExperiment`. FMI 1.0: stores the arguments for
    /// [`Instance::enter_initialization_mode`] (tolerance is ignored; FMI 1.0 CS has none).
    ///
    /// Times in s; `tolerance` is relative (dimensionless). `None` means "not defined".
    ///
    /// # Errors
    /// [`Error::Discard`] / [`Error::CallFailed`] for a failing status; [`Error::InvalidCall`]
    /// after Fatal.
    ///
    /// Spec: FMI 2.0.2 §2.1.6 (`fmi2SetupExperiment`), FMI 1.0 CS §4.1 (`fmiInitializeSlave`).
    pub fn setup_experiment(
        &mut self,
        tolerance: Option<f64>,
        start_time: f64,
        stop_time: Option<f64>,
    ) -> Result<Status> {
        let function = self.function("fmiInitializeSlave", "fmi2SetupExperiment");
        let _call = self.enter(function)?;
        let status = match self.fmu.functions() {
            Functions::V1(_) => {
                self.experiment = Some((start_time, stop_time));
                return Ok(Status::Ok);
            }
            // SAFETY: `component` is a live instance of this library; scalar arguments only.
            Functions::V2(f) => unsafe {
                (f.setup_experiment)(
                    self.component,
                    fmi2_bool(tolerance.is_some()),
                    tolerance.unwrap_or(0.0),
                    start_time,
                    fmi2_bool(stop_time.is_some()),
                    stop_time.unwrap_or(0.0),
                )
            },
        };
        self.check(function, status)
    }

    /// FMI 2.0: `fmi2EnterInitializationMode`. FMI 1.0: `fmiInitializeSlave(tStart,
    /// stopTimeDefined, tStop)` with the times given to [`Instance::setup_experiment`].
    ///
    /// # Errors
    /// [`Error::Discard`] / [`Error::CallFailed`] for a failing status; [`Error::InvalidCall`]
    /// after Fatal, or for FMI 1.0 when `setup_experiment` was not called first.
    ///
    /// Spec: FMI 2.0.2 §2.1.6, FMI 1.0 CS §4.1 (`fmiInitializeSlave`).
    pub fn enter_initialization_mode(&mut self) -> Result<Status> {
        let function = self.function("fmiInitializeSlave", "fmi2EnterInitializationMode");
        let _call = self.enter(function)?;
        let (status, next) = match self.fmu.functions() {
            Functions::V1(f) => {
                let Some((start, stop)) = self.experiment else {
                    return Err(
                        self.invalid_call(function, "setup_experiment must be called first")
                    );
                };
                // SAFETY: `component` is a live instance of this library; scalar arguments only.
                let status = unsafe {
                    (f.initialize_slave)(
                        self.component,
                        start,
                        fmi1_bool(stop.is_some()),
                        stop.unwrap_or(0.0),
                    )
                };
                (status, Phase::Initialized)
            }
            // SAFETY: `component` is a live instance of this library.
            Functions::V2(f) => (
                unsafe { (f.enter_initialization_mode)(self.component) },
                Phase::InitializationMode,
            ),
        };
        let result = self.check(function, status);
        if result.is_ok() {
            self.phase = next;
        }
        result
    }

    /// FMI 2.0: `fmi2ExitInitializationMode`. FMI 1.0: nothing (returns `Ok(Status::Ok)`).
    /// A Model Exchange instance is then in Event Mode (FMI 2.0.2 §3.2.3).
    ///
    /// # Errors
    /// [`Error::Discard`] / [`Error::CallFailed`] for a failing status; [`Error::InvalidCall`]
    /// after Fatal.
    ///
    /// Spec: FMI 2.0.2 §2.1.6 (`fmi2ExitInitializationMode`).
    pub fn exit_initialization_mode(&mut self) -> Result<Status> {
        let function = self.function("fmiInitializeSlave", "fmi2ExitInitializationMode");
        let _call = self.enter(function)?;
        let status = match self.fmu.functions() {
            Functions::V1(_) => return Ok(Status::Ok),
            // SAFETY: `component` is a live instance of this library.
            Functions::V2(f) => unsafe { (f.exit_initialization_mode)(self.component) },
        };
        let result = self.check(function, status);
        if result.is_ok() {
            self.phase = if self.model_exchange {
                Phase::EventMode
            } else {
                Phase::Initialized
            };
        }
        result
    }

    /// `fmi2DoStep` / `fmiDoStep`: advances from `current_communication_point` by
    /// `communication_step_size`. Times in s.
    ///
    /// FMI 1.0 always passes `newStep = true` and ignores
    /// `no_set_fmu_state_prior_to_current_point`. When FMI 2.0 returns Discard, the FMU is asked
    /// `fmi2GetBooleanStatus(fmi2Terminated)`; if true, the step ends the simulation normally
    /// ([`StepOutcome::Terminated`]). FMI 1.0 CS has no such status, so Discard stays Discard.
    ///
    /// # Errors
    /// [`Error::Discard`] (step not completed; retry with a smaller step or roll back),
    /// [`Error::CallFailed`] (Error, Fatal, Pending), [`Error::InvalidCall`] after Fatal.
    ///
    /// Spec: FMI 2.0.2 §4.2.2 (`fmi2DoStep`, `fmi2GetBooleanStatus`), FMI 1.0 CS §4.3
    /// (`fmiDoStep`).
    #[inline]
    pub fn do_step(
        &mut self,
        current_communication_point: f64,
        communication_step_size: f64,
        no_set_fmu_state_prior_to_current_point: bool,
    ) -> Result<StepOutcome> {
        let function = self.function("fmiDoStep", "fmi2DoStep");
        let _call = self.enter(function)?;
        let (c, t, h) = (
            self.component,
            current_communication_point,
            communication_step_size,
        );
        let status = match self.fmu.functions() {
            // SAFETY: `c` is a live instance of this library; scalar arguments only.
            Functions::V1(f) => unsafe { (f.do_step)(c, t, h, fmi1::fmiTrue) },
            Functions::V2(f) => {
                let Some(do_step) = f.do_step else {
                    return Err(self.invalid_call(function, NO_DO_STEP));
                };
                let no_prior = fmi2_bool(no_set_fmu_state_prior_to_current_point);
                // SAFETY: `c` is a live instance of this library; scalar arguments only.
                unsafe { do_step(c, t, h, no_prior) }
            }
        };
        match self.check(function, status) {
            Ok(status) => Ok(StepOutcome::Completed(status)),
            Err(Error::Discard { .. }) if self.terminated_by_fmu() => Ok(StepOutcome::Terminated),
            Err(error) => Err(error),
        }
    }

    /// FMI 2.0: asks `fmi2GetBooleanStatus(fmi2Terminated)`; false when unavailable or failing.
    fn terminated_by_fmu(&mut self) -> bool {
        let Functions::V2(f) = self.fmu.functions() else {
            return false;
        };
        let Some(get_boolean_status) = f.get_boolean_status else {
            return false;
        };
        let mut terminated = fmi2::fmi2False;
        // SAFETY: `component` is live; `terminated` is a local that outlives the call.
        let status =
            unsafe { get_boolean_status(self.component, fmi2::fmi2Terminated, &mut terminated) };
        match status {
            0 | 1 => terminated != fmi2::fmi2False,
            4 => {
                // A Fatal status still poisons the FMU; other failures only mean "unknown".
                let _ = self.check("fmi2GetBooleanStatus", status);
                false
            }
            _ => false,
        }
    }

    /// `fmi2GetStatus(fmi2DoStepStatus)` / `fmiGetStatus(fmiDoStepStatus)`: the status of the
    /// last (asynchronous) `doStep`, mapped like any other status (naming the doStep function).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the function is not exported; otherwise the errors of the
    /// query itself, or those of the reported doStep status.
    ///
    /// Spec: FMI 2.0.2 §4.2.3 (`fmi2GetStatus`), FMI 1.0 CS §4.4 (`fmiGetStatus`).
    pub fn get_do_step_status(&mut self) -> Result<Status> {
        let function = self.function("fmiGetStatus", "fmi2GetStatus");
        let _call = self.enter(function)?;
        let mut value: c_int = 0;
        let status = match self.fmu.functions() {
            Functions::V1(f) => {
                let get_status = f.get_status.ok_or_else(|| self.unsupported(function))?;
                // SAFETY: `component` is live; `value` is a local that outlives the call.
                unsafe { get_status(self.component, fmi1::fmiDoStepStatus, &mut value) }
            }
            Functions::V2(f) => {
                let get_status = f.get_status.ok_or_else(|| self.unsupported(function))?;
                // SAFETY: `component` is live; `value` is a local that outlives the call.
                unsafe { get_status(self.component, fmi2::fmi2DoStepStatus, &mut value) }
            }
        };
        self.check(function, status)?;
        let step = self.function("fmiDoStep", "fmi2DoStep");
        self.check(step, value)
    }

    /// `fmi2CancelStep` / `fmiCancelStep`: cancels a pending asynchronous `doStep`.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the function is not exported; [`Error::Discard`] /
    /// [`Error::CallFailed`] for a failing status; [`Error::InvalidCall`] after Fatal.
    ///
    /// Spec: FMI 2.0.2 §4.2.2 (`fmi2CancelStep`), FMI 1.0 CS §4.3 (`fmiCancelStep`).
    pub fn cancel_step(&mut self) -> Result<Status> {
        let function = self.function("fmiCancelStep", "fmi2CancelStep");
        let _call = self.enter(function)?;
        let cancel = match self.fmu.functions() {
            Functions::V1(f) => f.cancel_step,
            Functions::V2(f) => f.cancel_step,
        }
        .ok_or_else(|| self.unsupported(function))?;
        // SAFETY: `component` is a live instance of this library.
        let status = unsafe { cancel(self.component) };
        self.check(function, status)
    }

    /// `fmi2SetDebugLogging` / `fmiSetDebugLogging`: switches the FMU's debug logging.
    /// `categories` selects log categories (FMI 2.0 only; empty means all).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the function is not exported; [`Error::InteriorNul`] for a
    /// category containing NUL; [`Error::Discard`] / [`Error::CallFailed`] for a failing
    /// status; [`Error::InvalidCall`] after Fatal.
    ///
    /// Spec: FMI 2.0.2 §2.1.5 (`fmi2SetDebugLogging`), FMI 1.0 CS §4.1.
    pub fn set_debug_logging<S: AsRef<str>>(
        &mut self,
        logging_on: bool,
        categories: &[S],
    ) -> Result<Status> {
        let function = self.function("fmiSetDebugLogging", "fmi2SetDebugLogging");
        let _call = self.enter(function)?;
        let status = match self.fmu.functions() {
            Functions::V1(f) => {
                let set = f
                    .set_debug_logging
                    .ok_or_else(|| self.unsupported(function))?;
                // SAFETY: `component` is live; scalar argument only.
                unsafe { set(self.component, fmi1_bool(logging_on)) }
            }
            Functions::V2(f) => {
                let set = f
                    .set_debug_logging
                    .ok_or_else(|| self.unsupported(function))?;
                let strings = categories
                    .iter()
                    .enumerate()
                    .map(|(index, v)| {
                        CString::new(v.as_ref()).map_err(|_| Error::InteriorNul {
                            instance: self.name.clone(),
                            function,
                            index,
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                let pointers: Vec<*const c_char> = strings.iter().map(|s| s.as_ptr()).collect();
                // SAFETY: `pointers` holds `pointers.len()` NUL-terminated strings owned by
                // `strings`, which outlives the call.
                unsafe {
                    set(
                        self.component,
                        fmi2_bool(logging_on),
                        pointers.len(),
                        pointers.as_ptr(),
                    )
                }
            }
        };
        self.check(function, status)
    }

    /// `fmi2Reset` / `fmiResetSlave`: back to the state right after instantiation (FMI 2.0:
    /// call [`Instance::setup_experiment`] again). Saved FMU states stay valid.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the function is not exported; [`Error::Discard`] /
    /// [`Error::CallFailed`] for a failing status; [`Error::InvalidCall`] after Fatal.
    ///
    /// Spec: FMI 2.0.2 §2.1.6 (`fmi2Reset`), FMI 1.0 CS §4.1 (`fmiResetSlave`).
    pub fn reset(&mut self) -> Result<Status> {
        let function = self.function("fmiResetSlave", "fmi2Reset");
        let _call = self.enter(function)?;
        let reset = match self.fmu.functions() {
            Functions::V1(f) => f.reset_slave,
            Functions::V2(f) => f.reset,
        }
        .ok_or_else(|| self.unsupported(function))?;
        // SAFETY: `component` is a live instance of this library.
        let status = unsafe { reset(self.component) };
        let result = self.check(function, status);
        if result.is_ok() {
            self.phase = Phase::Instantiated;
            self.failed = false;
        }
        result
    }

    /// `fmi2Terminate` / `fmiTerminateSlave`: ends the simulation run. Called at most once;
    /// after it only value getters, [`Instance::reset`] and dropping remain meaningful.
    ///
    /// # Errors
    /// [`Error::InvalidCall`] when already terminated or after Fatal; [`Error::Discard`] /
    /// [`Error::CallFailed`] for a failing status.
    ///
    /// Spec: FMI 2.0.2 §2.1.6 (`fmi2Terminate`), FMI 1.0 CS §4.1 (`fmiTerminateSlave`).
    pub fn terminate(&mut self) -> Result<Status> {
        let function = self.function("fmiTerminateSlave", "fmi2Terminate");
        if self.phase == Phase::Terminated {
            return Err(self.invalid_call(function, "the instance is already terminated"));
        }
        let _call = self.enter(function)?;
        // SAFETY: `component` is a live instance of this library.
        let status = unsafe {
            match self.fmu.functions() {
                Functions::V1(f) => (f.terminate_slave)(self.component),
                Functions::V2(f) => (f.terminate)(self.component),
            }
        };
        self.phase = Phase::Terminated;
        self.check(function, status)
    }
}

mod checks;
mod model_exchange;
mod state;
mod values;

impl Drop for Instance {
    fn drop(&mut self) {
        if !self.fmu.is_fatal() {
            self.free_all_fmu_states();
            let initialized = matches!(
                self.phase,
                Phase::Initialized | Phase::EventMode | Phase::ContinuousTimeMode
            );
            if initialized
                && !self.failed
                && let Err(error) = self.terminate()
            {
                log::warn!("while dropping instance '{}': {error}", self.name);
            }
            // SAFETY: `component` is a live instance of this library and is not used again;
            // the callbacks it may reference are freed only after this (field drop order).
            unsafe {
                match self.fmu.functions() {
                    Functions::V1(f) => (f.free_slave_instance)(self.component),
                    Functions::V2(f) => (f.free_instance)(self.component),
                }
            }
            self.callbacks = None;
        } else if self.fmu.isolation_settings().is_some() {
            // No FMI call after Fatal; the helper process (and the FMU in it) ends instead.
            // SAFETY: the component of an isolated instance is its proxy, not used again.
            unsafe { isolated::discard(self.component) };
        } else {
            // The FMU may still hold the callback pointer: leak it rather than free it.
            log::warn!(
                "instance '{}' is not freed: its FMU returned Fatal",
                self.name
            );
            if let Some(callbacks) = self.callbacks.take() {
                Box::leak(callbacks);
            }
        }
        self.component = ptr::null_mut();
        self.fmu.release_instance_slot();
        // `self.fmu` (and with the last reference, the library) is released after this.
    }
}
