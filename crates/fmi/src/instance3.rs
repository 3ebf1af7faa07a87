//! Safe FMI 3.0 co-simulation instances.
//!
//! Same conventions as [`crate::Instance`]: every method checks its arguments, calls through
//! the function table, copies anything the FMU returns, and maps the status: OK and Warning
//! become `Ok(Status)`, Discard becomes [`Error::Discard`], and Error/Fatal become
//! [`Error::CallFailed`] (FMI 3.0 has no Pending). After Fatal no instance of the FMU is called
//! again.
//!
//! FMI 3.0 differs from FMI 2.0 where a master notices it:
//! - there is no `setupExperiment`: tolerance, start and stop time go to
//!   [`Instance3::enter_initialization_mode`];
//! - `doStep` reports events, a termination request and an early return through
//!   out-arguments ([`DoStepResult`]) instead of status queries;
//! - with [`Fmi3InstantiateOptions::event_mode_used`], the FMU is in Event Mode after
//!   initialization and after every step that reports `event_handling_needed`; the master
//!   handles the event ([`Instance3::update_discrete_states`] until nothing changes) and returns
//!   with [`Instance3::enter_step_mode`];
//! - values come in ten numeric types plus Boolean, String and Binary, and a value reference may
//!   name an array (`values.len()` counts elements, `vrs.len()` variables);
//! - `resourcePath` is a native path ending in `/`, not a URI.
//!
//! Spec: FMI 3.0, common API (`fmi3InstantiateCoSimulation` … `fmi3FreeInstance`) and
//! co-simulation API (`fmi3DoStep`, Event Mode, Step Mode).

use std::ffi::{CString, c_char, c_void};
use std::fmt;
use std::ptr;
use std::sync::Arc;

use crate::ffi::{self, fmi3};
use crate::isolated::{self, HelperCalls};
use crate::{
    DiscreteStates, Error, FailureStatus, FmiVersion, Fmu, Interface, Result, Status, ValueRef,
};

/// Options for [`Fmu::instantiate_fmi3`]. `Default`: all false.
///
/// Spec: FMI 3.0 `fmi3InstantiateCoSimulation`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fmi3InstantiateOptions {
    /// Passed as `visible` (default false: no user interaction, batch mode).
    pub visible: bool,
    /// Passed as `loggingOn` (default false: the FMU logs only what it must).
    pub logging_on: bool,
    /// Passed as `eventModeUsed` (default false): the master handles events in Event Mode.
    /// Only allowed when the FMU declares `hasEventMode="true"`.
    pub event_mode_used: bool,
    /// Passed as `earlyReturnAllowed` (default false): `fmi3DoStep` may stop before the end of
    /// the communication step (see [`DoStepResult::early_return`]).
    pub early_return_allowed: bool,
}

/// The out-arguments of an `fmi3DoStep` call that did not fail. Times in s.
///
/// Spec: FMI 3.0 `fmi3DoStep`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DoStepResult {
    /// OK or Warning.
    pub status: Status,
    /// With Event Mode used: the FMU stopped at an event the master must handle in Event
    /// Mode ([`Instance3::enter_event_mode`]) before the next step.
    pub event_handling_needed: bool,
    /// The FMU asks to end the simulation (at `last_successful_time`); the master should call
    /// [`Instance3::terminate`]. A normal end, not a failure.
    pub terminate_simulation: bool,
    /// The FMU returned before reaching `t + h` (only when early return was allowed).
    pub early_return: bool,
    /// The FMU's time when it returned, s: `t + h` after a complete step, earlier after an
    /// early return.
    pub last_successful_time: f64,
}

/// Where an FMI 3.0 instance is in the co-simulation state machine (only what the wrapper
/// needs to know).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Instantiated (or reset), not yet initialized.
    Instantiated,
    /// Between enter and exit of Initialization Mode.
    InitializationMode,
    /// Event Mode (only with `eventModeUsed`).
    EventMode,
    /// Step Mode: `fmi3DoStep` is allowed.
    StepMode,
    /// Model Exchange: Continuous-Time Mode.
    ContinuousTimeMode,
    /// `fmi3Terminate` was called.
    Terminated,
}

/// One FMI 3.0 co-simulation instance of an [`Fmu`].
///
/// `Send` but not `Sync`: an instance is never called from two threads at once, which the
/// `&mut self` receivers guarantee. Sharing one between threads does not compile:
///
/// ```compile_fail
/// fn shared_between_threads<T: Sync>() {}
/// shared_between_threads::<fmi::Instance3>();
/// ```
///
/// Dropping an instance frees its FMU states, terminates it if it is in Event or Step Mode and
/// neither terminated nor failed, frees it (`fmi3FreeInstance`, skipped after Fatal), and only
/// then releases its reference to the [`Fmu`] (and so possibly the library).
///
/// Spec: FMI 3.0 common API and co-simulation API (state machine of co-simulation).
pub struct Instance3 {
    name: String,
    /// `name` as a C string: passed as `instanceName` and as the instance environment, which
    /// the log callback reads back. Its heap buffer stays put when the instance moves, and it
    /// lives until after `fmi3FreeInstance` (leaked when the FMU returned Fatal).
    c_name: CString,
    /// `fmi3Instance`.
    instance: fmi3::fmi3Instance,
    /// A copy of the FMU's function pointers; valid while `fmu` (which owns the library) lives.
    functions: fmi3::Fmi3Table,
    /// Saved FMU states by [`crate::FmuStateId`]; `None` once freed.
    states: crate::state_table::StateTable,
    event_mode_used: bool,
    /// Instantiated with `fmi3InstantiateModelExchange`.
    model_exchange: bool,
    phase: Phase,
    /// The last call returned Error (cleared by a successful `set_fmu_state` or `reset`).
    failed: bool,
    /// Buffers reused by the String and Binary getters and setters (no allocation per call).
    scratch: values::Scratch,
    fmu: Arc<Fmu>,
}

// SAFETY: invariant: one instance is never called from two threads at once. All FFI calls go
// through `&mut self` (or happen in `Drop`), and `Instance3` is not `Sync`, so the instance and
// state pointers are only ever used by the thread that currently owns the instance. The
// instance environment (the heap buffer of `c_name`) is only read by the log callback, during
// calls of this instance, and never written after instantiation. The string and binary pointers
// in `scratch` never outlive a call (see `values::Scratch`), so between calls those buffers are
// empty and moving the instance moves no pointer. The function table holds plain function
// pointers into a library kept loaded by `fmu`. Moving an instance to another thread between
// calls is allowed by FMI 3.0's general properties of the C API: functions of one instance need
// not be thread-safe and the importer must keep their calls free of races, and FMI functions
// must not change global or thread settings they do not restore. The shared `Fmu` is
// `Send + Sync` on its own (immutable function table, atomics, the isolated FMU's spare helper
// behind a mutex). The instance pointer of an isolated instance is its proxy (module
// `isolated`), which owns a `Send` helper and is only used through the calls of this instance.
unsafe impl Send for Instance3 {}

impl fmt::Debug for Instance3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Instance3")
            .field("name", &self.name)
            .field("fmu", &self.fmu.directory())
            .field("phase", &self.phase)
            .field("event_mode_used", &self.event_mode_used)
            .field("failed", &self.failed)
            .field("live_states", &self.states.live())
            .finish()
    }
}

// `Fmu::instantiate_fmi3` lives here rather than in `fmu`, so that `fmu` does not depend on
// this module (which depends on `fmu`).
impl Fmu {
    /// Creates an FMI 3.0 co-simulation instance named `instance_name`.
    ///
    /// Calls `fmi3InstantiateCoSimulation(name, instantiationToken, resourcePath, visible,
    /// loggingOn, eventModeUsed, earlyReturnAllowed, NULL, 0, <instance name>, <log callback>,
    /// NULL)`: no intermediate variables and no intermediate-update callback. `resourcePath` is
    /// the native absolute path of `<directory>/resources/`, ending in `/`, when that folder
    /// exists, and NULL otherwise (the standard's value for "no resources"). FMU log messages
    /// go to the `log` crate with target `fmu`, formatted `[<instance>:<category>] <message>`.
    ///
    /// With `event_mode_used`, an FMU that declares `hasEventMode` but returns NULL is
    /// instantiated once more without Event Mode, with one warning (a harmless breach: the
    /// FMU then handles its events inside `fmi3DoStep`); [`Instance3::event_mode_used`] tells
    /// which one the instance uses.
    ///
    /// # Errors
    /// - [`Error::InvalidCall`]: the FMU is not an FMI 3.0 FMU (use [`Fmu::instantiate`]),
    ///   `event_mode_used` is set but the FMU does not declare `hasEventMode`, or an instance of
    ///   this FMU returned Fatal earlier;
    /// - [`Error::InstantiatedTwice`]: the FMU declares `canBeInstantiatedOnlyOncePerProcess`
    ///   and already has a live instance;
    /// - [`Error::InteriorNul`]: the name, the token or the resource path contains a NUL byte
    ///   (index 0, 1 and 2);
    /// - [`Error::Instantiate`]: the FMU returned NULL.
    ///
    /// Spec: FMI 3.0 `fmi3InstantiateCoSimulation`, `fmi3LogMessageCallback`.
    pub fn instantiate_fmi3(
        self: &Arc<Self>,
        instance_name: &str,
        options: &Fmi3InstantiateOptions,
    ) -> Result<Instance3> {
        Instance3::new(
            Arc::clone(self),
            instance_name,
            options,
            Interface::CoSimulation,
        )
    }
}

/// Value references as the `const fmi3ValueReference*` the FMU expects.
fn raw_vrs(vrs: &[ValueRef]) -> *const fmi3::fmi3ValueReference {
    // `ValueRef` is `#[repr(transparent)]` over `u32`, which is `fmi3ValueReference`.
    vrs.as_ptr().cast::<fmi3::fmi3ValueReference>()
}

impl Instance3 {
    /// Calls `fmi3InstantiateCoSimulation` or `fmi3InstantiateModelExchange`; see
    /// [`Fmu::instantiate_fmi3`] and [`Fmu::instantiate_fmi3_model_exchange`].
    fn new(
        fmu: Arc<Fmu>,
        name: &str,
        options: &Fmi3InstantiateOptions,
        interface: Interface,
    ) -> Result<Instance3> {
        let function = match interface {
            Interface::CoSimulation => "fmi3InstantiateCoSimulation",
            Interface::ModelExchange => "fmi3InstantiateModelExchange",
        };
        let invalid = |reason| Error::InvalidCall {
            instance: name.to_owned(),
            function,
            reason,
        };
        let functions = match (fmu.description().fmi_version, fmu.fmi3_functions()) {
            (FmiVersion::V3, Some(functions)) => functions.table,
            _ => {
                return Err(invalid(
                    "an FMI 1.0/2.0 FMU is instantiated with Fmu::instantiate",
                ));
            }
        };
        if fmu.is_fatal() {
            return Err(invalid("an instance of this FMU returned Fatal"));
        }
        model_exchange::check_interface(&fmu, interface, options).map_err(invalid)?;
        if options.event_mode_used && !fmu.description().capabilities.has_event_mode {
            return Err(invalid(
                "event_mode_used requires an FMU that declares hasEventMode=\"true\"",
            ));
        }
        let nul = |index| Error::InteriorNul {
            instance: name.to_owned(),
            function,
            index,
        };
        let c_name = CString::new(name).map_err(|_| nul(0))?;
        let token = CString::new(fmu.description().guid.as_str()).map_err(|_| nul(1))?;
        let resources = resource_path(&fmu).map_err(|_| nul(2))?;

        fmu.acquire_instance_slot(name)?;
        let resources = resources.as_deref();
        let (instance, event_mode_used) = match (
            functions.instantiate_co_simulation,
            functions.model_exchange,
            fmu.isolation_settings(),
        ) {
            (_, Some(me), _) => (
                model_exchange::instantiate(&me, &c_name, &token, resources, options),
                true,
            ),
            (Some(_), None, Some(isolation)) => {
                let arguments = isolated::Fmi3Arguments {
                    name: &c_name,
                    token: &token,
                    has_resources: resources.is_some(),
                    flags: [
                        options.visible,
                        options.logging_on,
                        options.event_mode_used,
                        options.early_return_allowed,
                    ],
                    environment: c_name.as_ptr().cast_mut().cast::<c_void>(),
                    log_message: Some(ffi::fmi3_log_message),
                };
                instantiate::isolated(name, &fmu, isolation, arguments)
                    .inspect_err(|_| fmu.release_instance_slot())
                    .map_err(|source| Error::Isolated {
                        instance: name.to_owned(),
                        function,
                        source,
                    })?
            }
            (Some(instantiate_co_simulation), None, None) => {
                let instantiate = |event_mode_used: bool| {
                    // SAFETY: all strings are NUL-terminated and outlive the call (the FMU copies what
                    // it keeps, except the instance environment: `c_name`'s heap buffer, which is
                    // stored in the instance and lives until after `fmi3FreeInstance`);
                    // `resourcePath` is NULL or a path; no intermediate variables (NULL, 0) and no
                    // intermediate-update callback; the log callback never unwinds. Argument types
                    // follow fmi3InstantiateCoSimulationTYPE (FMI 3.0 `fmi3InstantiateCoSimulation`).
                    unsafe {
                        instantiate_co_simulation(
                            c_name.as_ptr(),
                            token.as_ptr(),
                            resources.map_or(ptr::null(), |r| r.as_ptr()),
                            options.visible,
                            options.logging_on,
                            event_mode_used,
                            options.early_return_allowed,
                            ptr::null(),
                            0,
                            c_name.as_ptr().cast_mut().cast::<c_void>(),
                            Some(ffi::fmi3_log_message),
                            None,
                        )
                    }
                };
                if options.event_mode_used {
                    without_event_mode_if_refused(name, &fmu, instantiate)
                } else {
                    (instantiate(false), false)
                }
            }
            (None, None, _) => (ptr::null_mut(), false),
        };
        if instance.is_null() {
            fmu.release_instance_slot();
            return Err(Error::Instantiate {
                instance: name.to_owned(),
                fmu: fmu.directory().to_owned(),
            });
        }
        Ok(Instance3 {
            name: name.to_owned(),
            c_name,
            instance,
            functions,
            states: Default::default(),
            event_mode_used,
            model_exchange: interface == Interface::ModelExchange,
            phase: Phase::Instantiated,
            failed: false,
            scratch: values::Scratch::default(),
            fmu,
        })
    }

    /// Whether the instance uses Event Mode: as asked for in
    /// [`Fmi3InstantiateOptions::event_mode_used`], unless the FMU refused it at
    /// instantiation and was instantiated without it (see [`Fmu::instantiate_fmi3`]).
    pub fn event_mode_used(&self) -> bool {
        self.event_mode_used
    }

    /// The instance name given at instantiation (the FMU uses it in its log messages).
    ///
    /// Spec: FMI 3.0 `fmi3InstantiateCoSimulation` (`instanceName`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// True after a call returned Error, until a successful [`Instance3::set_fmu_state`] or
    /// [`Instance3::reset`] brings the instance back, and for good once an instance of its FMU
    /// returned Fatal.
    ///
    /// Spec: FMI 3.0 status codes (`fmi3Error`, `fmi3Fatal`).
    pub fn is_failed(&self) -> bool {
        self.failed || self.fmu.is_fatal()
    }

    /// The FMU this instance belongs to.
    pub fn fmu(&self) -> &Arc<Fmu> {
        &self.fmu
    }

    /// `fmi3EnterInitializationMode`: enters Initialization Mode with the experiment's
    /// settings. Times in s; `tolerance` is relative (dimensionless); `None` means "not
    /// defined" (for `stop_time`: the simulation may run without end). Start values and
    /// parameters are set before this call (after instantiation).
    ///
    /// # Errors
    /// [`Error::Discard`] / [`Error::CallFailed`] for a failing status; [`Error::InvalidCall`]
    /// after Fatal.
    ///
    /// Spec: FMI 3.0 `fmi3EnterInitializationMode`.
    pub fn enter_initialization_mode(
        &mut self,
        tolerance: Option<f64>,
        start_time: f64,
        stop_time: Option<f64>,
    ) -> Result<Status> {
        const FUNCTION: &str = "fmi3EnterInitializationMode";
        let _call = self.enter(FUNCTION)?;
        // SAFETY: `instance` is a live instance of this library; scalar arguments only.
        let status = unsafe {
            (self.functions.enter_initialization_mode)(
                self.instance,
                tolerance.is_some(),
                tolerance.unwrap_or(0.0),
                start_time,
                stop_time.is_some(),
                stop_time.unwrap_or(0.0),
            )
        };
        let result = self.check(FUNCTION, status);
        if result.is_ok() {
            self.phase = Phase::InitializationMode;
        }
        result
    }

    /// `fmi3ExitInitializationMode`: ends initialization. Afterwards the FMU is in Event Mode
    /// when the instance was created with [`Fmi3InstantiateOptions::event_mode_used`] (handle
    /// the initial event with [`Instance3::update_discrete_states`], then call
    /// [`Instance3::enter_step_mode`]), and in Step Mode otherwise.
    ///
    /// # Errors
    /// [`Error::Discard`] / [`Error::CallFailed`] for a failing status; [`Error::InvalidCall`]
    /// after Fatal.
    ///
    /// Spec: FMI 3.0 `fmi3ExitInitializationMode`, co-simulation state machine.
    pub fn exit_initialization_mode(&mut self) -> Result<Status> {
        let next = if self.event_mode_used {
            Phase::EventMode
        } else {
            Phase::StepMode
        };
        let exit = self.functions.exit_initialization_mode;
        self.call_instance_only("fmi3ExitInitializationMode", exit, next)
    }

    /// `fmi3EnterEventMode`: from Step Mode into Event Mode, after a step that reported
    /// [`DoStepResult::event_handling_needed`] (or when the master has an event of its own);
    /// for Model Exchange, from Continuous-Time Mode.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the FMU has no Event Mode functions; [`Error::Discard`] /
    /// [`Error::CallFailed`] for a failing status; [`Error::InvalidCall`] after Fatal, and for
    /// a Model Exchange instance outside Continuous-Time Mode.
    ///
    /// Spec: FMI 3.0 `fmi3EnterEventMode`.
    pub fn enter_event_mode(&mut self) -> Result<Status> {
        const FUNCTION: &str = "fmi3EnterEventMode";
        let functions = self
            .functions
            .event_mode
            .ok_or_else(|| self.unsupported(FUNCTION))?;
        self.check_me_mode(FUNCTION, Phase::ContinuousTimeMode)?;
        self.call_instance_only(FUNCTION, functions.enter_event_mode, Phase::EventMode)
    }

    /// `fmi3UpdateDiscreteStates`: one event iteration in Event Mode. Call it until
    /// [`DiscreteStates::discrete_states_need_update`] is false (setting inputs in between if
    /// needed), then [`Instance3::enter_step_mode`] (Model Exchange:
    /// [`Instance3::enter_continuous_time_mode`]).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the FMU has no Event Mode functions; [`Error::Discard`] /
    /// [`Error::CallFailed`] for a failing status; [`Error::InvalidCall`] after Fatal, and for
    /// a Model Exchange instance outside Event Mode.
    ///
    /// Spec: FMI 3.0 `fmi3UpdateDiscreteStates`.
    pub fn update_discrete_states(&mut self) -> Result<DiscreteStates> {
        const FUNCTION: &str = "fmi3UpdateDiscreteStates";
        let functions = self
            .functions
            .event_mode
            .ok_or_else(|| self.unsupported(FUNCTION))?;
        self.check_me_mode(FUNCTION, Phase::EventMode)?;
        let _call = self.enter(FUNCTION)?;
        let (mut need_update, mut terminate, mut nominals, mut values) =
            (false, false, false, false);
        let (mut next_defined, mut next_time) = (false, 0.0);
        // SAFETY: `instance` is live; every out-pointer refers to a local of the pointee type
        // (`bool` is C `bool`) that outlives the call.
        let status = unsafe {
            (functions.update_discrete_states)(
                self.instance,
                &mut need_update,
                &mut terminate,
                &mut nominals,
                &mut values,
                &mut next_defined,
                &mut next_time,
            )
        };
        let status = self.check(FUNCTION, status)?;
        Ok(DiscreteStates {
            status,
            discrete_states_need_update: need_update,
            terminate_simulation: terminate,
            nominals_of_continuous_states_changed: nominals,
            values_of_continuous_states_changed: values,
            next_event_time: next_defined.then_some(next_time),
        })
    }

    /// `fmi3EnterStepMode`: from Event Mode back into Step Mode, once the event is handled.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the FMU has no Event Mode functions; [`Error::Discard`] /
    /// [`Error::CallFailed`] for a failing status; [`Error::InvalidCall`] after Fatal.
    ///
    /// Spec: FMI 3.0 `fmi3EnterStepMode`.
    pub fn enter_step_mode(&mut self) -> Result<Status> {
        const FUNCTION: &str = "fmi3EnterStepMode";
        let enter_step_mode = self
            .functions
            .event_mode
            .and_then(|f| f.enter_step_mode)
            .ok_or_else(|| self.unsupported(FUNCTION))?;
        self.call_instance_only(FUNCTION, enter_step_mode, Phase::StepMode)
    }

    /// `fmi3DoStep`: advances from `t` (the current communication point) by `h` (the
    /// communication step size). Times in s.
    ///
    /// `no_set_fmu_state_prior_to_current_point` promises the FMU that no state saved before
    /// `t` will be restored, so it may discard its history. Every call is logged at debug
    /// level with target `fmi3`, e.g. `fmi3DoStep(t=0.2, h=0.1,
    /// noSetFMUStatePriorToCurrentPoint=false)`.
    ///
    /// The out-arguments come back in [`DoStepResult`]: an event to handle (Event Mode only), a
    /// request to end the simulation, an early return and the FMU's time when it returned.
    ///
    /// # Errors
    /// [`Error::Discard`] (step not completed; retry with a smaller step or roll back; the
    /// out-arguments are not reported, as the standard leaves them undefined for Discard),
    /// [`Error::CallFailed`] (Error, Fatal), [`Error::InvalidCall`] after Fatal.
    ///
    /// Spec: FMI 3.0 `fmi3DoStep`.
    #[inline]
    pub fn do_step(
        &mut self,
        t: f64,
        h: f64,
        no_set_fmu_state_prior_to_current_point: bool,
    ) -> Result<DoStepResult> {
        const FUNCTION: &str = "fmi3DoStep";
        log::debug!(
            target: "fmi3",
            "fmi3DoStep(t={t}, h={h}, noSetFMUStatePriorToCurrentPoint={no_set_fmu_state_prior_to_current_point})"
        );
        let do_step = self.functions.do_step.ok_or_else(|| {
            self.invalid_call(
                FUNCTION,
                "a Model Exchange instance has no doStep: the master integrates it",
            )
        })?;
        let _call = self.enter(FUNCTION)?;
        let (mut event_handling_needed, mut terminate_simulation, mut early_return) =
            (false, false, false);
        let mut last_successful_time = t + h;
        // SAFETY: `instance` is live; every out-pointer refers to a local of the pointee type
        // (`bool` is C `bool`) that outlives the call.
        let status = unsafe {
            do_step(
                self.instance,
                t,
                h,
                no_set_fmu_state_prior_to_current_point,
                &mut event_handling_needed,
                &mut terminate_simulation,
                &mut early_return,
                &mut last_successful_time,
            )
        };
        let status = self.check(FUNCTION, status)?;
        Ok(DoStepResult {
            status,
            event_handling_needed,
            terminate_simulation,
            early_return,
            last_successful_time,
        })
    }

    /// `fmi3SetDebugLogging`: switches the FMU's debug logging. `categories` selects log
    /// categories (as declared in the modelDescription; empty means all).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the function is not exported; [`Error::InteriorNul`] for a
    /// category containing NUL; [`Error::Discard`] / [`Error::CallFailed`] for a failing
    /// status; [`Error::InvalidCall`] after Fatal.
    ///
    /// Spec: FMI 3.0 `fmi3SetDebugLogging`.
    pub fn set_debug_logging<S: AsRef<str>>(
        &mut self,
        logging_on: bool,
        categories: &[S],
    ) -> Result<Status> {
        const FUNCTION: &str = "fmi3SetDebugLogging";
        let set = self
            .functions
            .set_debug_logging
            .ok_or_else(|| self.unsupported(FUNCTION))?;
        let _call = self.enter(FUNCTION)?;
        let strings = categories
            .iter()
            .enumerate()
            .map(|(index, v)| {
                CString::new(v.as_ref()).map_err(|_| Error::InteriorNul {
                    instance: self.name.clone(),
                    function: FUNCTION,
                    index,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let pointers: Vec<*const c_char> = strings.iter().map(|s| s.as_ptr()).collect();
        // SAFETY: `pointers` holds `pointers.len()` NUL-terminated strings owned by `strings`,
        // which outlives the call; `instance` is live.
        let status = unsafe { set(self.instance, logging_on, pointers.len(), pointers.as_ptr()) };
        self.check(FUNCTION, status)
    }

    /// `fmi3Reset`: back to the state right after instantiation (call
    /// [`Instance3::enter_initialization_mode`] again). Saved FMU states stay valid.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the function is not exported; [`Error::Discard`] /
    /// [`Error::CallFailed`] for a failing status; [`Error::InvalidCall`] after Fatal.
    ///
    /// Spec: FMI 3.0 `fmi3Reset`.
    pub fn reset(&mut self) -> Result<Status> {
        const FUNCTION: &str = "fmi3Reset";
        let reset = self
            .functions
            .reset
            .ok_or_else(|| self.unsupported(FUNCTION))?;
        let result = self.call_instance_only(FUNCTION, reset, Phase::Instantiated);
        if result.is_ok() {
            self.failed = false;
        }
        result
    }

    /// `fmi3Terminate`: ends the simulation run. Called at most once; after it only value
    /// getters, [`Instance3::reset`] and dropping remain meaningful.
    ///
    /// # Errors
    /// [`Error::InvalidCall`] when already terminated or after Fatal; [`Error::Discard`] /
    /// [`Error::CallFailed`] for a failing status.
    ///
    /// Spec: FMI 3.0 `fmi3Terminate`.
    pub fn terminate(&mut self) -> Result<Status> {
        const FUNCTION: &str = "fmi3Terminate";
        if self.phase == Phase::Terminated {
            return Err(self.invalid_call(FUNCTION, "the instance is already terminated"));
        }
        let _call = self.enter(FUNCTION)?;
        // SAFETY: `instance` is a live instance of this library.
        let status = unsafe { (self.functions.terminate)(self.instance) };
        self.phase = Phase::Terminated;
        self.check(FUNCTION, status)
    }
}

mod checks;
mod instantiate;
mod model_exchange;
mod state;
mod values;

use instantiate::{resource_path, without_event_mode_if_refused};

impl Drop for Instance3 {
    fn drop(&mut self) {
        if !self.fmu.is_fatal() {
            self.free_all_fmu_states();
            if matches!(
                self.phase,
                Phase::EventMode | Phase::StepMode | Phase::ContinuousTimeMode
            ) && !self.failed
                && let Err(error) = self.terminate()
            {
                log::warn!("while dropping instance '{}': {error}", self.name);
            }
            // SAFETY: `instance` is a live instance of this library and is not used again; the
            // instance environment it may reference (`c_name`) is freed only after this (field
            // drop order).
            unsafe { (self.functions.free_instance)(self.instance) };
        } else if self.fmu.isolation_settings().is_some() {
            // No FMI call after Fatal; the helper process (and the FMU in it) ends instead.
            // SAFETY: the instance pointer of an isolated instance is its proxy, not used again.
            unsafe { isolated::discard(self.instance) };
        } else {
            // The FMU may still hold the instance environment pointer: leak it rather than
            // free it.
            log::warn!(
                "instance '{}' is not freed: its FMU returned Fatal",
                self.name
            );
            std::mem::forget(std::mem::take(&mut self.c_name));
        }
        self.instance = ptr::null_mut();
        self.fmu.release_instance_slot();
        // `self.fmu` (and with the last reference, the library) is released after this.
    }
}
