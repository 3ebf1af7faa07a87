//! The FMI 3.0 co-simulation instance: the call-sequence state machine (with Configuration and
//! Event Mode), stepping with time events and early return, and FMU states. No unsafe code:
//! [`crate::fmi3`] turns raw arguments into slices and strings first. Typed value access lives
//! in the submodule `values`.
//!
//! This is a type of its own rather than a mode of the FMI 1.0/2.0 instance: FMI 3.0 has more
//! states, more types, arrays, and stepping outputs that FMI 2.0 lacks; keeping the FMI 2.0
//! instance untouched also keeps the FMI 2.0 libraries built from it unchanged.

use std::ffi::{CString, c_int};
use std::fmt;

use crate::instance::CallError;
use crate::logger::status;
use crate::logger3::{Category3, Logger3};
use crate::model::{Model, ModelError, StepOutcome};
use crate::model3::{DataType, time_reached};
use crate::phase::{Phase, Status};
use crate::serialized::{self, FormatError};

mod values;

/// The state of an FMI 3.0 co-simulation instance.
///
/// Spec: FMI 3.0 §4.2.3 (state machine for Co-Simulation), §2.3 (common states).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase3 {
    /// After instantiate, reset or exit configuration mode.
    Instantiated,
    /// Between enter and exit configuration mode: structural parameters can be set.
    Configuration,
    /// Between enter and exit initialization mode.
    Initialization,
    /// Event Mode (only with `eventModeUsed`).
    Event,
    /// Step Mode.
    Step,
    /// After terminate.
    Terminated,
    /// After a call returned Error.
    Error,
}

impl fmt::Display for Phase3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Instantiated => "Instantiated",
            Self::Configuration => "Configuration Mode",
            Self::Initialization => "Initialization Mode",
            Self::Event => "Event Mode",
            Self::Step => "Step Mode",
            Self::Terminated => "Terminated",
            Self::Error => "the error state",
        })
    }
}

impl Phase3 {
    /// The FMI 3.0 mode code stored in serialized states (see the crate README).
    fn code(self) -> u8 {
        match self {
            Self::Instantiated => 0,
            Self::Configuration => 1,
            Self::Initialization => 2,
            Self::Event => 3,
            Self::Step => 4,
            Self::Terminated => 5,
            Self::Error => 6,
        }
    }

    fn from_code(code: f64) -> Option<Self> {
        Some(match code {
            0.0 => Self::Instantiated,
            1.0 => Self::Configuration,
            2.0 => Self::Initialization,
            3.0 => Self::Event,
            4.0 => Self::Step,
            5.0 => Self::Terminated,
            6.0 => Self::Error,
            _ => return None,
        })
    }

    /// The nearest FMI 2.0 phase, written in the phase byte of serialized states.
    fn nearest_fmi2(self) -> Phase {
        match self {
            Self::Instantiated | Self::Configuration => Phase::Instantiated,
            Self::Initialization => Phase::InitializationMode,
            Self::Event | Self::Step => Phase::StepMode,
            Self::Terminated => Phase::Terminated,
            Self::Error => Phase::Error,
        }
    }
}

/// Why an FMI 3.0 call failed. [`Error3::is_discard`] tells which become Discard; all others
/// become Error and move the instance to [`Phase3::Error`].
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error3 {
    #[error("not allowed in {phase}")]
    Sequence { phase: Phase3 },
    #[error(transparent)]
    Argument(#[from] CallError),
    #[error("no variable with value reference {vr}")]
    UnknownVariable { vr: u32 },
    #[error("`{name}` (value reference {vr}) is a {declared} variable, not {requested}")]
    WrongType {
        name: &'static str,
        vr: u32,
        declared: DataType,
        requested: DataType,
    },
    #[error("{causality} `{name}` (value reference {vr}) cannot be set in {phase}")]
    NotSettable {
        name: &'static str,
        vr: u32,
        causality: crate::model3::Causality3,
        phase: Phase3,
    },
    #[error("`{name}` (value reference {vr}) cannot be read in {phase}")]
    NotReadable {
        name: &'static str,
        vr: u32,
        phase: Phase3,
    },
    #[error("{arg} is {found}, but the value references have {expected} elements")]
    ValueCount {
        arg: &'static str,
        expected: usize,
        found: usize,
    },
    #[error("array `{name}`: {reason} (value reference {vr})")]
    Dimension {
        name: &'static str,
        vr: u32,
        reason: &'static str,
    },
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error("currentCommunicationPoint {t} s differs from the FMU time {expected} s")]
    TimeMismatch { t: f64, expected: f64 },
    #[error("invalid communication step size {h} s (must be finite and > 0)")]
    StepSize { h: f64 },
    #[error("step from t = {t} s with h = {h} s discarded: {reason}")]
    Discarded { t: f64, h: f64, reason: String },
    #[error("step from t = {t} s with h = {h} s failed: {reason}")]
    StepFailed { t: f64, h: f64, reason: String },
    #[error("the model asked to end the simulation at t = {t} s")]
    AfterTerminate { t: f64 },
    #[error(
        "the event at t = {event} s is due at t = {t} s and not handled: call fmi3UpdateDiscreteStates (in Event Mode) until discreteStatesNeedUpdate is false"
    )]
    EventPending { t: f64, event: f64 },
    #[error("the model's event at t = {event} s is still due after {updates} updates at t = {t} s")]
    EventLoop { t: f64, event: f64, updates: usize },
    #[error("Event Mode needs eventModeUsed = true at instantiation")]
    NoEventMode,
    #[error("unknown FMU state handle")]
    UnknownState,
    #[error("String variable with value reference {vr} contains a NUL byte")]
    InteriorNul { vr: u32 },
    #[error("not supported: {what}")]
    Unsupported { what: &'static str },
    #[error("serialized FMU state refused: {0}")]
    SerializedState(#[from] FormatError),
    #[error("caught a panic: {message}")]
    Panic { message: String },
    /// A Model Exchange call out of sequence or with a wrong array length (feature `me`).
    #[cfg(feature = "me")]
    #[error("{0}")]
    Me(String),
}

impl Error3 {
    fn is_discard(&self) -> bool {
        matches!(self, Self::Discarded { .. })
    }
}

/// Result of an FMI 3.0 instance call.
pub(crate) type Result3<T = Status> = Result<T, Error3>;

/// The output arguments of `fmi3DoStep`.
///
/// Spec: FMI 3.0 §4.2.2 (fmi3DoStep).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct StepResult {
    /// An event is due and waits for Event Mode (only with `eventModeUsed`).
    pub(crate) event_handling_needed: bool,
    /// The model asked to end the simulation.
    pub(crate) terminate_simulation: bool,
    /// The step stopped before `t + h`, at [`StepResult::last_successful_time`].
    pub(crate) early_return: bool,
    /// The time reached (s): `t + h`, or the event time of an early return.
    pub(crate) last_successful_time: f64,
}

/// The output arguments of `fmi3UpdateDiscreteStates`.
///
/// Spec: FMI 3.0 §3.2.4 (fmi3UpdateDiscreteStates).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct EventUpdate {
    /// Another event is due at the current time: call again.
    pub(crate) discrete_states_need_update: bool,
    /// The model's next time event (s), if any.
    pub(crate) next_event_time: Option<f64>,
}

/// A saved FMU state. Spec: FMI 3.0 §2.2.7 (getting and setting the FMU state).
#[derive(Debug)]
struct Saved3<M> {
    model: M,
    phase: Phase3,
    start_time: f64,
    time: f64,
    terminate_requested: bool,
}

/// What the serialization functions report for a model whose [`Model::save_state`] is `None`.
const NOT_SERIALIZABLE: &str = "FMU state serialization (canSerializeFMUState=\"false\")";

/// Relative tolerance of the check `currentCommunicationPoint == FMU time` in `do_step`, scaled
/// by `1 + |t|` (s); the same as the FMI 2.0 layer's.
const TIME_TOLERANCE: f64 = 1e-8;

/// How often events may become due again at one time before the export layer gives up, when it
/// handles them itself (no Event Mode).
const MAX_EVENT_UPDATES: usize = 1000;

/// How the importer instantiated the FMU (the `fmi3InstantiateCoSimulation` arguments that
/// stay for the instance's life).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Setup {
    /// `eventModeUsed`.
    pub(crate) event_mode_used: bool,
    /// `earlyReturnAllowed`.
    pub(crate) early_return_allowed: bool,
    /// `resourcePath`, if given.
    pub(crate) resource_path: Option<String>,
}

/// One FMI 3.0 co-simulation instance. Aligned to 16 bytes: the registry keeps the FMI
/// version in the low four bits of the address.
#[derive(Debug)]
#[repr(align(16))]
pub(crate) struct Instance3<M> {
    name: String,
    token: String,
    setup: Setup,
    pub(crate) logger: Logger3,
    phase: Phase3,
    start_time: f64,
    time: f64,
    terminate_requested: bool,
    model: M,
    /// Saved FMU states; the handle given to C is the address of the boxed state, only ever
    /// compared with these addresses, never dereferenced.
    states: Vec<Box<Saved3<M>>>,
    /// Strings returned by the last `fmi3GetString`; valid until the next one.
    strings: Vec<CString>,
    /// Byte strings returned by the last `fmi3GetBinary`; valid until the next one.
    binaries: Vec<Vec<u8>>,
}

impl<M: Model> Instance3<M> {
    /// A new instance in [`Phase3::Instantiated`]; the model is initialized at t = 0.
    pub(crate) fn new(
        name: String,
        token: String,
        model: M,
        logger: Logger3,
        setup: Setup,
    ) -> Self {
        let mut instance = Self {
            name,
            token,
            setup,
            logger,
            phase: Phase3::Instantiated,
            start_time: 0.0,
            time: 0.0,
            terminate_requested: false,
            model,
            states: Vec::new(),
            strings: Vec::new(),
            binaries: Vec::new(),
        };
        if let Err(e) = instance.model.initialize(0.0) {
            instance.log(
                status::WARNING,
                Category3::StatusWarning,
                &format!("start values: {e}"),
            );
        }
        instance
    }

    /// The instantiation token given at instantiation.
    pub(crate) fn token(&self) -> &str {
        &self.token
    }

    /// The model (read-only; for tests and the Model Exchange calls).
    #[cfg(any(test, feature = "me"))]
    pub(crate) fn model(&self) -> &M {
        &self.model
    }

    /// The model, writable (for the Model Exchange calls, [`crate::instance3_me`]).
    #[cfg(feature = "me")]
    pub(crate) fn model_mut(&mut self) -> &mut M {
        &mut self.model
    }

    /// The current state.
    #[cfg(any(test, feature = "me"))]
    pub(crate) fn phase(&self) -> Phase3 {
        self.phase
    }

    /// Switches between Event Mode and Step Mode, which a Model Exchange instance uses as
    /// Continuous-Time Mode ([`crate::instance3_me`]).
    #[cfg(feature = "me")]
    pub(crate) fn set_phase(&mut self, phase: Phase3) {
        self.phase = phase;
    }

    /// The FMU time (s): the last communication point reached.
    #[cfg(test)]
    pub(crate) fn time(&self) -> f64 {
        self.time
    }

    /// Sends a message to the environment's callback.
    pub(crate) fn log(&self, status: c_int, category: Category3, message: &str) {
        self.logger.log(status, category, message);
    }

    /// Logs in `category` at status OK, formatting only if the category is enabled.
    pub(crate) fn note(&self, category: Category3, message: impl FnOnce() -> String) {
        if self.logger.enabled(category) {
            self.log(status::OK, category, &message());
        }
    }

    /// Logs a call trace in category `logCalls`.
    pub(crate) fn trace(&self, message: impl FnOnce() -> String) {
        self.note(Category3::Calls, message);
    }

    /// Turns a failed call into its status code: logs it, and for errors enters
    /// [`Phase3::Error`].
    pub(crate) fn fail(&mut self, function: &str, error: &Error3) -> c_int {
        let message = format!("{}: {function}: {error}", self.name);
        if error.is_discard() {
            self.log(status::DISCARD, Category3::StatusDiscard, &message);
            status::DISCARD
        } else {
            self.log(status::ERROR, Category3::StatusError, &message);
            self.phase = Phase3::Error;
            status::ERROR
        }
    }

    fn require(&self, allowed: &[Phase3]) -> Result3<()> {
        if allowed.contains(&self.phase) {
            Ok(())
        } else {
            Err(Error3::Sequence { phase: self.phase })
        }
    }

    /// `fmi3SetDebugLogging`: allowed in every state. Unknown category names give a Warning.
    pub(crate) fn set_debug_logging(&mut self, on: bool, categories: &[&str]) -> Result3 {
        let unknown = self.logger.set_debug_logging(on, categories);
        if unknown.is_empty() {
            Ok(Status::Ok)
        } else {
            let message = format!("unknown log categories ignored: {}", unknown.join(", "));
            self.log(status::WARNING, Category3::StatusWarning, &message);
            Ok(Status::Warning)
        }
    }

    /// `fmi3EnterConfigurationMode`: from Instantiated only (the FMUs have no tunable
    /// structural parameters, so there is no Reconfiguration Mode).
    pub(crate) fn enter_configuration_mode(&mut self) -> Result3 {
        self.require(&[Phase3::Instantiated])?;
        self.trace(|| "fmi3EnterConfigurationMode".to_owned());
        self.phase = Phase3::Configuration;
        Ok(Status::Ok)
    }

    /// `fmi3ExitConfigurationMode`: back to Instantiated.
    pub(crate) fn exit_configuration_mode(&mut self) -> Result3 {
        self.require(&[Phase3::Configuration])?;
        self.trace(|| "fmi3ExitConfigurationMode".to_owned());
        self.model.initialize(self.start_time)?;
        self.phase = Phase3::Instantiated;
        Ok(Status::Ok)
    }

    /// `fmi3EnterInitializationMode`: sets the start time (s); tolerance and stop time are
    /// only traced.
    pub(crate) fn enter_initialization_mode(
        &mut self,
        tolerance: Option<f64>,
        start_time: f64,
        stop_time: Option<f64>,
    ) -> Result3 {
        self.require(&[Phase3::Instantiated])?;
        self.trace(|| {
            format!(
                "fmi3EnterInitializationMode(tolerance = {tolerance:?}, startTime = {start_time}, stopTime = {stop_time:?})"
            )
        });
        if !start_time.is_finite() {
            return Err(Error3::TimeMismatch {
                t: start_time,
                expected: self.time,
            });
        }
        self.start_time = start_time;
        self.time = start_time;
        self.model.initialize(start_time)?;
        self.phase = Phase3::Initialization;
        Ok(Status::Ok)
    }

    /// `fmi3ExitInitializationMode`: to Event Mode with `eventModeUsed`, else to Step Mode.
    pub(crate) fn exit_initialization_mode(&mut self) -> Result3 {
        self.require(&[Phase3::Initialization])?;
        self.model.initialize(self.start_time)?;
        self.time = self.start_time;
        self.phase = if self.setup.event_mode_used {
            Phase3::Event
        } else {
            Phase3::Step
        };
        self.trace(|| format!("fmi3ExitInitializationMode: now in {}", self.phase));
        Ok(Status::Ok)
    }

    /// `fmi3EnterEventMode`: from Step Mode, only with `eventModeUsed`.
    pub(crate) fn enter_event_mode(&mut self) -> Result3 {
        self.require(&[Phase3::Step])?;
        if !self.setup.event_mode_used {
            return Err(Error3::NoEventMode);
        }
        self.note(Category3::Events, || {
            format!("fmi3EnterEventMode at t = {} s", self.time)
        });
        self.phase = Phase3::Event;
        Ok(Status::Ok)
    }

    /// `fmi3UpdateDiscreteStates`: handles the model's event if it is due at the FMU time, and
    /// reports whether another one is due and when the next one comes.
    pub(crate) fn update_discrete_states(&mut self) -> Result3<EventUpdate> {
        self.require(&[Phase3::Event])?;
        let t = self.time;
        let mut next = self.model.clone();
        if let Some(event) = due(&next, t) {
            next.update_discrete_states(t)?;
            self.note(Category3::Events, || {
                format!("fmi3UpdateDiscreteStates: handled the event at t = {event} s at t = {t} s")
            });
        }
        let update = EventUpdate {
            discrete_states_need_update: due(&next, t).is_some(),
            next_event_time: next.next_event_time(),
        };
        self.model = next;
        self.trace(|| format!("fmi3UpdateDiscreteStates at t = {t} s: {update:?}"));
        Ok(update)
    }

    /// `fmi3EnterStepMode`: from Event Mode, once no event is due any more.
    pub(crate) fn enter_step_mode(&mut self) -> Result3 {
        self.require(&[Phase3::Event])?;
        if let Some(event) = due(&self.model, self.time) {
            return Err(Error3::EventPending {
                t: self.time,
                event,
            });
        }
        self.trace(|| format!("fmi3EnterStepMode at t = {} s", self.time));
        self.phase = Phase3::Step;
        Ok(Status::Ok)
    }

    /// `fmi3Terminate`: from Step or Event Mode.
    pub(crate) fn terminate(&mut self) -> Result3 {
        self.require(&[Phase3::Step, Phase3::Event])?;
        self.trace(|| format!("fmi3Terminate at t = {} s", self.time));
        self.phase = Phase3::Terminated;
        Ok(Status::Ok)
    }

    /// `fmi3Reset`: back to a freshly instantiated model (same token and instantiation
    /// arguments). Saved FMU states stay valid.
    pub(crate) fn reset(&mut self) -> Result3 {
        self.trace(|| "fmi3Reset".to_owned());
        let Some(model) = M::instantiate(&self.token) else {
            return Err(Error3::Unsupported {
                what: "re-instantiation with the instantiation token given at instantiation",
            });
        };
        self.model = model;
        self.model.initialize(0.0)?;
        self.phase = Phase3::Instantiated;
        self.start_time = 0.0;
        self.time = 0.0;
        self.terminate_requested = false;
        Ok(Status::Ok)
    }

    /// Handles every event of `model` that is due at `t`, as the FMU does without Event Mode.
    fn handle_internally(&self, model: &mut M, t: f64) -> Result3<()> {
        for _ in 0..MAX_EVENT_UPDATES {
            let Some(event) = due(model, t) else {
                return Ok(());
            };
            model.update_discrete_states(t)?;
            self.note(Category3::Events, || {
                format!("handled the event at t = {event} s internally at t = {t} s")
            });
        }
        match due(model, t) {
            None => Ok(()),
            Some(event) => Err(Error3::EventLoop {
                t,
                event,
                updates: MAX_EVENT_UPDATES,
            }),
        }
    }

    /// `fmi3DoStep` from `t` with step `h` (s).
    ///
    /// An event that is due at `t` must have been handled (Event Mode), or is handled first
    /// (no Event Mode). With `earlyReturnAllowed` and a model that
    /// [might return early](Model::might_return_early), the step stops at an event time
    /// strictly inside `(t, t + h)`. An event due where the step ends is handled there: by the
    /// layer without Event Mode, else it sets `eventHandlingNeeded`.
    pub(crate) fn do_step(&mut self, t: f64, h: f64, no_set_prior: bool) -> Result3<StepResult> {
        self.require(&[Phase3::Step])?;
        self.trace(|| {
            format!("fmi3DoStep(currentCommunicationPoint = {t}, communicationStepSize = {h})")
        });
        self.note(Category3::Debug, || {
            format!("fmi3DoStep at t = {t} s: noSetFMUStatePriorToCurrentPoint = {no_set_prior}")
        });
        if self.terminate_requested {
            return Err(Error3::AfterTerminate { t: self.time });
        }
        if !(h.is_finite() && h > 0.0) {
            return Err(Error3::StepSize { h });
        }
        if !t.is_finite() || (t - self.time).abs() > TIME_TOLERANCE * (1.0 + self.time.abs()) {
            return Err(Error3::TimeMismatch {
                t,
                expected: self.time,
            });
        }
        let end = t + h;
        let mut next = self.model.clone();
        next.no_set_fmu_state_prior_to_current_point(no_set_prior);
        if let Some(event) = due(&next, t) {
            if self.setup.event_mode_used {
                return Err(Error3::EventPending { t, event });
            }
            self.handle_internally(&mut next, t)?;
        }
        let early = next.next_event_time().filter(|&event| {
            self.setup.early_return_allowed
                && next.might_return_early()
                && !time_reached(t, event)
                && !time_reached(event, end)
        });
        // The model steps by exactly `h` unless it returns early: `(t + h) - t` may differ
        // from `h` in the last bit, and FMI 2.0 twins must compute the same numbers.
        let (reached, step) = match early {
            Some(event) => (event, event - t),
            None => (end, h),
        };
        let terminate = match next.do_step(t, step) {
            StepOutcome::Completed => false,
            StepOutcome::Terminate => true,
            StepOutcome::Discard(reason) => return Err(Error3::Discarded { t, h, reason }),
            StepOutcome::Error(reason) => return Err(Error3::StepFailed { t, h, reason }),
        };
        let mut event_handling_needed = false;
        if let Some(event) = due(&next, reached) {
            if self.setup.event_mode_used {
                event_handling_needed = true;
                self.note(Category3::Events, || {
                    format!(
                        "the event at t = {event} s is due at t = {reached} s: eventHandlingNeeded"
                    )
                });
            } else {
                self.handle_internally(&mut next, reached)?;
            }
        }
        if early.is_some() {
            self.note(Category3::Events, || {
                format!("fmi3DoStep returns early at t = {reached} s (the step was to {end} s)")
            });
        }
        self.model = next;
        self.time = reached;
        if terminate {
            self.terminate_requested = true;
            self.note(Category3::Events, || {
                format!("the model asks to end the simulation at t = {reached} s")
            });
        }
        Ok(StepResult {
            event_handling_needed,
            terminate_simulation: terminate,
            early_return: early.is_some(),
            last_successful_time: reached,
        })
    }

    /// `fmi3GetFMUState`: saves the state into `existing` (updated in place) or a new handle.
    pub(crate) fn get_state(&mut self, existing: Option<usize>) -> Result3<usize> {
        let saved = Saved3 {
            model: self.model.clone(),
            phase: self.phase,
            start_time: self.start_time,
            time: self.time,
            terminate_requested: self.terminate_requested,
        };
        self.store_state(saved, existing)
    }

    fn store_state(&mut self, saved: Saved3<M>, existing: Option<usize>) -> Result3<usize> {
        match existing {
            Some(handle) => {
                let slot = self.find_state(handle)?;
                *self.states[slot] = saved;
                Ok(handle)
            }
            None => {
                let boxed = Box::new(saved);
                let handle = state_handle(&boxed);
                self.states.push(boxed);
                Ok(handle)
            }
        }
    }

    /// `fmi3SetFMUState`: restores model, time and terminate request. The state is kept,
    /// except in [`Phase3::Error`], which returns to the state in which it was saved.
    pub(crate) fn set_state(&mut self, handle: usize) -> Result3 {
        let slot = self.find_state(handle)?;
        let saved = &self.states[slot];
        self.model = saved.model.clone();
        self.start_time = saved.start_time;
        self.time = saved.time;
        self.terminate_requested = saved.terminate_requested;
        if self.phase == Phase3::Error {
            self.phase = saved.phase;
        }
        Ok(Status::Ok)
    }

    /// `fmi3FreeFMUState`.
    pub(crate) fn free_state(&mut self, handle: usize) -> Result3 {
        let slot = self.find_state(handle)?;
        self.states.swap_remove(slot);
        Ok(Status::Ok)
    }

    fn find_state(&self, handle: usize) -> Result3<usize> {
        self.states
            .iter()
            .position(|s| state_handle(s) == handle)
            .ok_or(Error3::UnknownState)
    }

    /// Whether the model can serialize its state.
    ///
    /// # Errors
    /// [`Error3::Unsupported`] if its [`Model::save_state`] is `None`.
    pub(crate) fn require_serializable(&self) -> Result3<()> {
        match self.model.save_state() {
            Some(_) => Ok(()),
            None => Err(Error3::Unsupported {
                what: NOT_SERIALIZABLE,
            }),
        }
    }

    /// The saved state `handle` in the form of [`crate::serialized`]: its fields, and the
    /// FMI 3.0 mode code followed by the model's values.
    fn saved_values(&self, handle: usize) -> Result3<(serialized::Fields<'_>, Vec<f64>)> {
        self.require_serializable()?;
        let saved = &self.states[self.find_state(handle)?];
        let model_values = saved.model.save_state().ok_or(Error3::Unsupported {
            what: NOT_SERIALIZABLE,
        })?;
        let mut values = Vec::with_capacity(model_values.len() + 1);
        values.push(f64::from(saved.phase.code()));
        values.extend(model_values);
        let fields = serialized::Fields {
            guid: &self.token,
            phase: saved.phase.nearest_fmi2(),
            start_time: saved.start_time,
            time: saved.time,
            terminate_requested: saved.terminate_requested,
            last_step: Status::Ok,
        };
        Ok((fields, values))
    }

    /// `fmi3SerializedFMUStateSize`: the length in bytes of the saved state `handle`.
    pub(crate) fn serialized_state_size(&self, handle: usize) -> Result3<usize> {
        let (_, values) = self.saved_values(handle)?;
        Ok(serialized::encoded_len(self.token.len(), values.len())?)
    }

    /// `fmi3SerializeFMUState`: writes the saved state `handle` into `out`, whose length must
    /// be exactly [`Instance3::serialized_state_size`].
    pub(crate) fn serialize_state(&self, handle: usize, out: &mut [u8]) -> Result3 {
        let (fields, values) = self.saved_values(handle)?;
        serialized::encode(&fields, &values, out)?;
        Ok(Status::Ok)
    }

    /// `fmi3DeserializeFMUState`: reads bytes that [`Instance3::serialize_state`] wrote (in
    /// any instance of the same FMU) into the state `existing` (overwritten in place) or a new
    /// one. Nothing changes on an error.
    pub(crate) fn deserialize_state(
        &mut self,
        bytes: &[u8],
        existing: Option<usize>,
    ) -> Result3<usize> {
        self.require_serializable()?;
        if let Some(handle) = existing {
            self.find_state(handle)?;
        }
        let (fields, values) = serialized::decode(bytes, &self.token)?;
        let code = values.first().copied().unwrap_or(f64::NAN);
        let phase = Phase3::from_code(code)
            .filter(|p| p.nearest_fmi2() == fields.phase)
            .ok_or(FormatError::Field {
                field: "FMI 3.0 mode",
                value: if (0.0..=255.0).contains(&code) {
                    code as u8
                } else {
                    u8::MAX
                },
            })?;
        let mut model = self.model.clone();
        model.load_state(&values[1..])?;
        let saved = Saved3 {
            model,
            phase,
            start_time: fields.start_time,
            time: fields.time,
            terminate_requested: fields.terminate_requested,
        };
        self.store_state(saved, existing)
    }
}

/// The model's next event time, if it is due at `t`.
fn due<M: Model>(model: &M, t: f64) -> Option<f64> {
    model
        .next_event_time()
        .filter(|&event| time_reached(t, event))
}

fn state_handle<M>(state: &Saved3<M>) -> usize {
    std::ptr::from_ref(state).addr()
}

#[cfg(test)]
mod tests;
