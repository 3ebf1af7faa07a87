//! The version-neutral FMU instance: call-sequence phases, batched get/set, stepping and FMU
//! states. No unsafe code: the C layers ([`crate::fmi2`], [`crate::fmi1`]) turn raw arguments
//! into slices and strings first.

use std::ffi::{CString, c_int};

use crate::logger::{Category, Logger, status};
use crate::model::{Causality, Model, ModelError, StepOutcome, VarType, Variable, find_variable};
use crate::phase::{Phase, Status, Version};
use crate::serialized::{self, FormatError};

/// Why a call failed. [`CallError::is_discard`] tells which become Discard; all others become
/// Error and move the instance to [`Phase::Error`].
#[derive(Debug, thiserror::Error)]
pub(crate) enum CallError {
    #[error("not allowed in phase {phase:?}")]
    Sequence { phase: Phase },
    #[error("argument `{arg}` is null or misaligned")]
    BadPointer { arg: &'static str },
    #[error("argument `{arg}` is not valid UTF-8")]
    NotUtf8 { arg: &'static str },
    #[error(
        "{ty} variable `{name}` (value reference {vr}) has causality {causality} and cannot be set in phase {phase:?}"
    )]
    NotSettable {
        ty: VarType,
        name: &'static str,
        vr: u32,
        causality: Causality,
        phase: Phase,
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
    #[error("unknown FMU state handle")]
    UnknownState,
    #[error("String variable with value reference {vr} contains a NUL byte")]
    InteriorNul { vr: u32 },
    #[error("not supported: {what}")]
    Unsupported { what: &'static str },
    #[error("serialized FMU state refused: {0}")]
    SerializedState(#[from] FormatError),
    #[error("status kind {kind} is not available")]
    StatusKind { kind: c_int },
    #[error("caught a panic: {message}")]
    Panic { message: String },
    /// A Model Exchange call out of sequence or with a wrong array length (feature `me`).
    #[cfg(feature = "me")]
    #[error("{0}")]
    Me(String),
}

impl CallError {
    fn is_discard(&self) -> bool {
        matches!(self, Self::Discarded { .. } | Self::StatusKind { .. })
    }
}

/// Result of an instance call.
pub(crate) type CallResult<T = Status> = Result<T, CallError>;

/// A saved FMU state. Spec: FMI 2.0.2 §2.1.8 (getting and setting the FMU state).
#[derive(Debug)]
struct SavedState<M> {
    model: M,
    phase: Phase,
    start_time: f64,
    time: f64,
    terminate_requested: bool,
    last_step: Status,
}

/// What the serialization functions report for a model whose [`Model::save_state`] is `None`.
const NOT_SERIALIZABLE: &str = "FMU state serialization (canSerializeFMUstate=\"false\")";

/// Relative tolerance of the check `currentCommunicationPoint == FMU time` in `do_step`, scaled
/// by `1 + |t|` (s).
const TIME_TOLERANCE: f64 = 1e-8;

/// One instance (FMI 2.0 component / FMI 1.0 slave). Aligned to 16 bytes: the registry keeps
/// the FMI version in the low four bits of the address.
#[derive(Debug)]
#[repr(align(16))]
pub(crate) struct Instance<M> {
    version: Version,
    name: CString,
    guid: String,
    pub(crate) logger: Logger,
    phase: Phase,
    start_time: f64,
    time: f64,
    terminate_requested: bool,
    last_step: Status,
    model: M,
    /// Saved FMU states; the handle given to C is the address of the boxed state. The handle is
    /// only ever compared with these addresses, never dereferenced.
    states: Vec<Box<SavedState<M>>>,
    /// Strings returned by the last `get_string` call; valid until the next one.
    strings: Vec<CString>,
}

impl<M: Model> Instance<M> {
    /// A new instance in [`Phase::Instantiated`]; the model is initialized at t = 0.
    pub(crate) fn new(
        version: Version,
        name: CString,
        guid: String,
        model: M,
        logger: Logger,
    ) -> Self {
        let mut instance = Self {
            version,
            name,
            guid,
            logger,
            phase: Phase::Instantiated,
            start_time: 0.0,
            time: 0.0,
            terminate_requested: false,
            last_step: Status::Ok,
            model,
            states: Vec::new(),
            strings: Vec::new(),
        };
        if let Err(e) = instance.model.initialize(0.0) {
            instance.log(
                status::WARNING,
                Category::StatusWarning,
                &format!("start values: {e}"),
            );
        }
        instance
    }

    /// The instance name given at instantiation.
    pub(crate) fn c_name(&self) -> CString {
        self.name.clone()
    }

    /// The GUID given at instantiation.
    pub(crate) fn guid(&self) -> &str {
        &self.guid
    }

    /// The model (read-only; for tests, status queries and the Model Exchange calls).
    #[cfg(any(test, feature = "me"))]
    pub(crate) fn model(&self) -> &M {
        &self.model
    }

    /// The model, writable (for the Model Exchange calls, [`crate::instance_me`]).
    #[cfg(feature = "me")]
    pub(crate) fn model_mut(&mut self) -> &mut M {
        &mut self.model
    }

    /// Sends a message to the environment's logger.
    pub(crate) fn log(&self, status: c_int, category: Category, message: &str) {
        self.logger.log(&self.name, status, category, message);
    }

    /// Logs a call trace in category `logCalls`, formatting only if the category is enabled.
    pub(crate) fn trace(&self, message: impl FnOnce() -> String) {
        if self.logger.enabled(Category::Calls) {
            self.log(status::OK, Category::Calls, &message());
        }
    }

    /// Turns a failed call into its status code: logs it, and for errors enters
    /// [`Phase::Error`].
    pub(crate) fn fail(&mut self, function: &str, error: &CallError) -> c_int {
        let message = format!("{function}: {error}");
        if error.is_discard() {
            self.log(status::DISCARD, Category::StatusDiscard, &message);
            status::DISCARD
        } else {
            self.log(status::ERROR, Category::StatusError, &message);
            self.phase = Phase::Error;
            status::ERROR
        }
    }

    fn require(&self, allowed: &[Phase]) -> CallResult<()> {
        if allowed.contains(&self.phase) {
            Ok(())
        } else {
            Err(CallError::Sequence { phase: self.phase })
        }
    }

    /// `fmi2SetDebugLogging` / `fmiSetDebugLogging`: allowed in every phase. Unknown category
    /// names give a Warning.
    pub(crate) fn set_debug_logging(&mut self, on: bool, categories: &[&str]) -> CallResult {
        let unknown = self.logger.set_debug_logging(on, categories);
        if unknown.is_empty() {
            Ok(Status::Ok)
        } else {
            let message = format!("unknown log categories ignored: {}", unknown.join(", "));
            self.log(status::WARNING, Category::StatusWarning, &message);
            Ok(Status::Warning)
        }
    }

    /// `fmi2SetupExperiment`: only right after instantiation; sets the start time (s).
    pub(crate) fn setup_experiment(&mut self, start_time: f64) -> CallResult {
        self.require(&[Phase::Instantiated])?;
        self.trace(|| format!("fmi2SetupExperiment(startTime = {start_time})"));
        self.start_time = start_time;
        self.time = start_time;
        self.model.initialize(start_time)?;
        Ok(Status::Ok)
    }

    /// `fmi2EnterInitializationMode`.
    pub(crate) fn enter_initialization_mode(&mut self) -> CallResult {
        self.require(&[Phase::Instantiated])?;
        self.trace(|| "fmi2EnterInitializationMode".to_owned());
        self.model.initialize(self.start_time)?;
        self.phase = Phase::InitializationMode;
        Ok(Status::Ok)
    }

    /// `fmi2ExitInitializationMode`.
    pub(crate) fn exit_initialization_mode(&mut self) -> CallResult {
        self.require(&[Phase::InitializationMode])?;
        self.trace(|| "fmi2ExitInitializationMode".to_owned());
        self.model.initialize(self.start_time)?;
        self.time = self.start_time;
        self.phase = Phase::StepMode;
        Ok(Status::Ok)
    }

    /// `fmiInitializeSlave` (FMI 1.0): initializes at `start_time` (s) and enters step mode.
    pub(crate) fn initialize_slave(&mut self, start_time: f64) -> CallResult {
        self.require(&[Phase::Instantiated])?;
        self.trace(|| format!("fmiInitializeSlave(tStart = {start_time})"));
        self.start_time = start_time;
        self.time = start_time;
        self.model.initialize(start_time)?;
        self.phase = Phase::StepMode;
        Ok(Status::Ok)
    }

    /// `fmi2Terminate` / `fmiTerminateSlave`.
    pub(crate) fn terminate(&mut self) -> CallResult {
        self.require(&[Phase::StepMode])?;
        self.trace(|| format!("terminate at t = {}", self.time));
        self.phase = Phase::Terminated;
        Ok(Status::Ok)
    }

    /// `fmi2Reset` / `fmiResetSlave`: back to a freshly instantiated model. Saved FMU states
    /// stay valid.
    pub(crate) fn reset(&mut self) -> CallResult {
        self.trace(|| "reset".to_owned());
        let Some(model) = M::instantiate(&self.guid) else {
            return Err(CallError::Unsupported {
                what: "re-instantiation with the GUID given at instantiation",
            });
        };
        self.model = model;
        self.model.initialize(0.0)?;
        self.phase = Phase::Instantiated;
        self.start_time = 0.0;
        self.time = 0.0;
        self.terminate_requested = false;
        self.last_step = Status::Ok;
        Ok(Status::Ok)
    }

    fn get_phases(&self) -> &'static [Phase] {
        match self.version {
            // FMI 2.0 allows getting values from initialization mode on.
            Version::Fmi2 => &[
                Phase::InitializationMode,
                Phase::StepMode,
                Phase::Terminated,
                Phase::Error,
            ],
            // FMI 1.0 CS has no formal state machine; values can be read at any time.
            Version::Fmi1 => &[
                Phase::Instantiated,
                Phase::StepMode,
                Phase::Terminated,
                Phase::Error,
            ],
            #[cfg(feature = "fmi3")]
            Version::Fmi3 => &[],
        }
    }

    fn lookup(&self, ty: VarType, vr: u32) -> CallResult<&'static Variable> {
        find_variable(self.model.variables(), ty, vr)
            .ok_or_else(|| CallError::Model(ModelError::unknown(ty, vr)))
    }

    /// Calls `sink(i, value)` for each value reference, reading through `get`.
    pub(crate) fn get_values<T>(
        &self,
        ty: VarType,
        vrs: &[u32],
        get: impl Fn(&M, u32) -> Result<T, ModelError>,
        mut sink: impl FnMut(usize, T),
    ) -> CallResult {
        self.require(self.get_phases())?;
        for (i, &vr) in vrs.iter().enumerate() {
            self.lookup(ty, vr)?;
            sink(i, get(&self.model, vr)?);
        }
        Ok(Status::Ok)
    }

    /// Reads String variables into the instance's string buffer, which keeps them valid until
    /// the next call of this function, and calls `sink(i, string)` for each.
    pub(crate) fn get_strings(
        &mut self,
        vrs: &[u32],
        mut sink: impl FnMut(usize, &CString),
    ) -> CallResult {
        let mut strings = Vec::with_capacity(vrs.len());
        self.get_values(VarType::String, vrs, M::get_string, |_, s| strings.push(s))?;
        let strings = strings
            .into_iter()
            .zip(vrs)
            .map(|(s, &vr)| CString::new(s).map_err(|_| CallError::InteriorNul { vr }))
            .collect::<CallResult<Vec<_>>>()?;
        self.strings = strings;
        for (i, s) in self.strings.iter().enumerate() {
            sink(i, s);
        }
        Ok(Status::Ok)
    }

    /// Writes each value through `set`, after checking that the variable exists and that its
    /// causality allows setting it in the current phase. Before the end of initialization the
    /// model is re-initialized, so parameters take effect at once.
    ///
    /// Shapes: `vrs.len() == values.len()` (checked by the caller).
    pub(crate) fn set_values<T: Copy>(
        &mut self,
        ty: VarType,
        vrs: &[u32],
        values: impl Fn(usize) -> CallResult<T>,
        set: impl Fn(&mut M, u32, T) -> Result<(), ModelError>,
    ) -> CallResult {
        self.require(&[
            Phase::Instantiated,
            Phase::InitializationMode,
            Phase::StepMode,
        ])?;
        for (i, &vr) in vrs.iter().enumerate() {
            let variable = self.lookup(ty, vr)?;
            let settable = match variable.causality {
                Causality::Input => true,
                Causality::Parameter => self.phase != Phase::StepMode,
                Causality::Output | Causality::Local => false,
            };
            if !settable {
                return Err(CallError::NotSettable {
                    ty,
                    name: variable.name,
                    vr,
                    causality: variable.causality,
                    phase: self.phase,
                });
            }
            set(&mut self.model, vr, values(i)?)?;
        }
        if self.phase != Phase::StepMode {
            self.model.initialize(self.start_time)?;
        }
        Ok(Status::Ok)
    }

    /// `fmi2DoStep` / `fmiDoStep` from `t` with step `h` (s).
    pub(crate) fn do_step(&mut self, t: f64, h: f64) -> CallResult {
        self.require(&[Phase::StepMode])?;
        self.trace(|| format!("doStep(t = {t}, h = {h})"));
        if self.terminate_requested {
            return Err(CallError::AfterTerminate { t: self.time });
        }
        if !(h.is_finite() && h > 0.0) {
            return Err(CallError::StepSize { h });
        }
        if !t.is_finite() || (t - self.time).abs() > TIME_TOLERANCE * (1.0 + self.time.abs()) {
            return Err(CallError::TimeMismatch {
                t,
                expected: self.time,
            });
        }
        let mut next = self.model.clone();
        match next.do_step(t, h) {
            StepOutcome::Completed => {
                self.model = next;
                self.time = t + h;
                self.last_step = Status::Ok;
                Ok(Status::Ok)
            }
            StepOutcome::Terminate => {
                self.model = next;
                self.time = t + h;
                self.terminate_requested = true;
                self.last_step = Status::Discard;
                let message = format!(
                    "the model asks to end the simulation at t = {} s",
                    self.time
                );
                self.log(status::DISCARD, Category::StatusDiscard, &message);
                Ok(Status::Discard)
            }
            StepOutcome::Discard(reason) => {
                self.last_step = Status::Discard;
                Err(CallError::Discarded { t, h, reason })
            }
            StepOutcome::Error(reason) => Err(CallError::StepFailed { t, h, reason }),
        }
    }

    /// `fmi2GetDirectionalDerivative`.
    ///
    /// Shapes: `dv_known.len() == knowns.len()`, `dv_unknown.len() == unknowns.len()`.
    pub(crate) fn directional_derivative(
        &self,
        unknowns: &[u32],
        knowns: &[u32],
        dv_known: &[f64],
        dv_unknown: &mut [f64],
    ) -> CallResult {
        self.require(self.get_phases())?;
        for &vr in unknowns.iter().chain(knowns) {
            self.lookup(VarType::Real, vr)?;
        }
        match self
            .model
            .directional_derivative(unknowns, knowns, dv_known, dv_unknown)
        {
            None => Err(CallError::Unsupported {
                what: "directional derivatives (providesDirectionalDerivative=\"false\")",
            }),
            Some(result) => result.map(|()| Status::Ok).map_err(CallError::from),
        }
    }

    /// `fmi2GetFMUstate`: saves the state into `existing` (updated in place) or a new handle.
    /// Returns the handle.
    pub(crate) fn get_state(&mut self, existing: Option<usize>) -> CallResult<usize> {
        let saved = SavedState {
            model: self.model.clone(),
            phase: self.phase,
            start_time: self.start_time,
            time: self.time,
            terminate_requested: self.terminate_requested,
            last_step: self.last_step,
        };
        self.store_state(saved, existing)
    }

    /// Stores `saved` in the state `existing` of this instance (overwritten in place) or under a
    /// new handle. Returns the handle.
    fn store_state(&mut self, saved: SavedState<M>, existing: Option<usize>) -> CallResult<usize> {
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

    /// `fmi2SetFMUstate`: restores model, time and step status. The phase is kept, except in
    /// [`Phase::Error`], which returns to the phase in which the state was saved (the recovery
    /// path of FMI 2.0.2 §2.1.3, status fmi2Error).
    pub(crate) fn set_state(&mut self, handle: usize) -> CallResult {
        let slot = self.find_state(handle)?;
        let saved = &self.states[slot];
        self.model = saved.model.clone();
        self.start_time = saved.start_time;
        self.time = saved.time;
        self.terminate_requested = saved.terminate_requested;
        self.last_step = saved.last_step;
        if self.phase == Phase::Error {
            self.phase = saved.phase;
        }
        Ok(Status::Ok)
    }

    /// `fmi2FreeFMUstate`.
    pub(crate) fn free_state(&mut self, handle: usize) -> CallResult {
        let slot = self.find_state(handle)?;
        self.states.swap_remove(slot);
        Ok(Status::Ok)
    }

    fn find_state(&self, handle: usize) -> CallResult<usize> {
        self.states
            .iter()
            .position(|s| state_handle(s) == handle)
            .ok_or(CallError::UnknownState)
    }

    /// Whether the model can serialize its state ([`Model::save_state`] gives values).
    ///
    /// # Errors
    /// [`CallError::Unsupported`] if it cannot.
    pub(crate) fn require_serializable(&self) -> CallResult<()> {
        match self.model.save_state() {
            Some(_) => Ok(()),
            None => Err(CallError::Unsupported {
                what: NOT_SERIALIZABLE,
            }),
        }
    }

    /// The saved state `handle` and its model's [`Model::save_state`] values.
    fn saved_values(&self, handle: usize) -> CallResult<(&SavedState<M>, Vec<f64>)> {
        self.require_serializable()?;
        let saved = &self.states[self.find_state(handle)?];
        let values = saved.model.save_state().ok_or(CallError::Unsupported {
            what: NOT_SERIALIZABLE,
        })?;
        Ok((saved, values))
    }

    /// `fmi2SerializedFMUstateSize`: the length in bytes of the saved state `handle` in the
    /// format of [`crate::serialized`].
    ///
    /// Spec: FMI 2.0.2 §2.1.8.
    pub(crate) fn serialized_state_size(&self, handle: usize) -> CallResult<usize> {
        let (_, values) = self.saved_values(handle)?;
        Ok(serialized::encoded_len(self.guid.len(), values.len())?)
    }

    /// `fmi2SerializeFMUstate`: writes the saved state `handle` into `out`, whose length must be
    /// exactly [`Instance::serialized_state_size`].
    ///
    /// Spec: FMI 2.0.2 §2.1.8.
    pub(crate) fn serialize_state(&self, handle: usize, out: &mut [u8]) -> CallResult {
        let (saved, values) = self.saved_values(handle)?;
        let fields = serialized::Fields {
            guid: &self.guid,
            phase: saved.phase,
            start_time: saved.start_time,
            time: saved.time,
            terminate_requested: saved.terminate_requested,
            last_step: saved.last_step,
        };
        serialized::encode(&fields, &values, out)?;
        Ok(Status::Ok)
    }

    /// `fmi2DeSerializeFMUstate`: reads bytes that [`Instance::serialize_state`] wrote (in
    /// any instance of the same FMU, in any process) into the state `existing` of this instance
    /// (overwritten in place) or a new one, as [`Instance::get_state`] does. Returns the
    /// handle, for `fmi2SetFMUstate` and `fmi2FreeFMUstate`.
    ///
    /// The bytes are checked (magic, version, GUID, flags, length), and the values go through
    /// [`Model::load_state`] on a clone of this instance's model; nothing changes on an error.
    ///
    /// Spec: FMI 2.0.2 §2.1.8.
    pub(crate) fn deserialize_state(
        &mut self,
        bytes: &[u8],
        existing: Option<usize>,
    ) -> CallResult<usize> {
        self.require_serializable()?;
        if let Some(handle) = existing {
            self.find_state(handle)?;
        }
        let (fields, values) = serialized::decode(bytes, &self.guid)?;
        let mut model = self.model.clone();
        model.load_state(&values)?;
        let saved = SavedState {
            model,
            phase: fields.phase,
            start_time: fields.start_time,
            time: fields.time,
            terminate_requested: fields.terminate_requested,
            last_step: fields.last_step,
        };
        self.store_state(saved, existing)
    }

    /// Status of the last `do_step` (for `fmi2GetStatus(fmi2DoStepStatus)`).
    pub(crate) fn last_step_status(&self) -> Status {
        self.last_step
    }

    /// The last successful communication point (s).
    pub(crate) fn time(&self) -> f64 {
        self.time
    }

    /// Whether the model asked to end the simulation.
    pub(crate) fn terminate_requested(&self) -> bool {
        self.terminate_requested
    }

    /// The current phase.
    #[cfg(any(test, feature = "me"))]
    pub(crate) fn phase(&self) -> Phase {
        self.phase
    }
}

fn state_handle<M>(state: &SavedState<M>) -> usize {
    std::ptr::from_ref(state).addr()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, Default)]
    struct Ramp {
        slope: f64,
        x: f64,
        u: f64,
        t: f64,
    }

    const VARS: &[Variable] = &[
        Variable::new("x", 0, VarType::Real, Causality::Output),
        Variable::new("slope", 1, VarType::Real, Causality::Parameter),
        Variable::new("u", 2, VarType::Real, Causality::Input),
        Variable::new("label", 0, VarType::String, Causality::Output),
    ];

    impl Model for Ramp {
        fn instantiate(guid: &str) -> Option<Self> {
            (guid == "ramp").then(|| Self {
                slope: 1.0,
                ..Self::default()
            })
        }
        fn variables(&self) -> &'static [Variable] {
            VARS
        }
        fn initialize(&mut self, start_time: f64) -> Result<(), ModelError> {
            self.x = 0.0;
            self.t = start_time;
            Ok(())
        }
        fn do_step(&mut self, t: f64, h: f64) -> StepOutcome {
            if h > 1.0 {
                return StepOutcome::Discard("h > 1".into());
            }
            self.x += (self.slope + self.u) * h;
            self.t = t + h;
            if self.t >= 10.0 {
                StepOutcome::Terminate
            } else {
                StepOutcome::Completed
            }
        }
        fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
            match vr {
                0 => Ok(self.x),
                1 => Ok(self.slope),
                2 => Ok(self.u),
                _ => Err(ModelError::unknown(VarType::Real, vr)),
            }
        }
        fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
            match vr {
                1 => self.slope = value,
                2 => self.u = value,
                _ => return Err(ModelError::unknown(VarType::Real, vr)),
            }
            Ok(())
        }
        fn get_string(&self, _vr: u32) -> Result<String, ModelError> {
            Ok(format!("t={}", self.t))
        }
        fn save_state(&self) -> Option<Vec<f64>> {
            Some(vec![self.slope, self.u, self.x, self.t])
        }
        fn load_state(&mut self, state: &[f64]) -> Result<(), ModelError> {
            let [slope, u, x, t] = crate::model::state_array("Ramp", state)?;
            *self = Self { slope, x, u, t };
            Ok(())
        }
    }

    /// A model without serializable state (the defaults of `save_state` and `load_state`).
    #[derive(Clone, Debug)]
    struct Plain;

    impl Model for Plain {
        fn instantiate(guid: &str) -> Option<Self> {
            (guid == "plain").then_some(Self)
        }
        fn variables(&self) -> &'static [Variable] {
            &[]
        }
        fn initialize(&mut self, _start_time: f64) -> Result<(), ModelError> {
            Ok(())
        }
        fn do_step(&mut self, _t: f64, _h: f64) -> StepOutcome {
            StepOutcome::Completed
        }
    }

    fn new_instance(version: Version) -> Instance<Ramp> {
        let model = Ramp::instantiate("ramp").expect("invariant: known GUID");
        let logger = Logger::new(None, std::ptr::null_mut(), false);
        Instance::new(version, c"test".to_owned(), "ramp".into(), model, logger)
    }

    fn set_real(inst: &mut Instance<Ramp>, vr: u32, v: f64) -> CallResult {
        inst.set_values(VarType::Real, &[vr], |_| Ok(v), M::set_real)
    }

    type M = Ramp;

    fn get_real(inst: &Instance<Ramp>, vr: u32) -> CallResult<f64> {
        let mut out = f64::NAN;
        inst.get_values(VarType::Real, &[vr], M::get_real, |_, v| out = v)?;
        Ok(out)
    }

    fn to_step_mode(inst: &mut Instance<Ramp>) {
        inst.setup_experiment(0.0).expect("setup");
        inst.enter_initialization_mode().expect("enter");
        inst.exit_initialization_mode().expect("exit");
    }

    #[test]
    fn fmi2_sequence_is_enforced() {
        let mut inst = new_instance(Version::Fmi2);
        assert!(matches!(
            inst.do_step(0.0, 0.1),
            Err(CallError::Sequence { .. })
        ));
        let mut inst = new_instance(Version::Fmi2);
        assert!(
            get_real(&inst, 0).is_err(),
            "no get before initialization mode"
        );
        let mut inst2 = new_instance(Version::Fmi2);
        assert!(inst2.exit_initialization_mode().is_err());
        to_step_mode(&mut inst);
        assert!(inst.setup_experiment(0.0).is_err());
    }

    #[test]
    fn parameters_only_before_step_mode() {
        let mut inst = new_instance(Version::Fmi2);
        inst.setup_experiment(0.0).expect("setup");
        set_real(&mut inst, 1, 2.0).expect("parameter before init");
        inst.enter_initialization_mode().expect("enter");
        set_real(&mut inst, 1, 3.0).expect("parameter in init mode");
        inst.exit_initialization_mode().expect("exit");
        set_real(&mut inst, 2, 1.0).expect("input in step mode");
        assert!(matches!(
            set_real(&mut inst, 1, 4.0),
            Err(CallError::NotSettable { .. })
        ));
        let mut inst = new_instance(Version::Fmi2);
        assert!(matches!(
            set_real(&mut inst, 0, 4.0),
            Err(CallError::NotSettable { .. })
        ));
        let mut inst = new_instance(Version::Fmi2);
        assert!(matches!(
            set_real(&mut inst, 9, 4.0),
            Err(CallError::Model(_))
        ));
    }

    #[test]
    fn step_checks_time_and_keeps_state_on_discard() {
        let mut inst = new_instance(Version::Fmi2);
        to_step_mode(&mut inst);
        assert!(matches!(
            inst.do_step(0.5, 0.1),
            Err(CallError::TimeMismatch { .. })
        ));
        let mut inst = new_instance(Version::Fmi2);
        to_step_mode(&mut inst);
        assert!(matches!(
            inst.do_step(0.0, 0.0),
            Err(CallError::StepSize { .. })
        ));
        let mut inst = new_instance(Version::Fmi2);
        to_step_mode(&mut inst);
        inst.do_step(0.0, 0.5).expect("step");
        let err = inst.do_step(0.5, 2.0).expect_err("discard");
        assert!(err.is_discard());
        assert_eq!(inst.fail("doStep", &err), status::DISCARD);
        assert_eq!(inst.phase(), Phase::StepMode);
        assert_eq!(inst.time(), 0.5);
        assert_eq!(get_real(&inst, 0).expect("x"), 0.5);
        inst.do_step(0.5, 0.5).expect("retry with a smaller step");
        assert_eq!(get_real(&inst, 0).expect("x"), 1.0);
    }

    #[test]
    fn terminate_request_and_error_phase() {
        let mut inst = new_instance(Version::Fmi2);
        to_step_mode(&mut inst);
        let mut t = 0.0;
        while inst.do_step(t, 1.0).expect("step") == Status::Ok {
            t += 1.0;
        }
        assert!(inst.terminate_requested());
        assert_eq!(inst.time(), 10.0);
        let err = inst.do_step(10.0, 1.0).expect_err("after terminate");
        assert_eq!(inst.fail("doStep", &err), status::ERROR);
        assert_eq!(inst.phase(), Phase::Error);
        assert!(
            get_real(&inst, 0).is_ok(),
            "get is allowed in the error phase"
        );
        inst.reset().expect("reset");
        assert_eq!(inst.phase(), Phase::Instantiated);
    }

    #[test]
    fn states_roundtrip_update_in_place_and_recover_from_error() {
        let mut inst = new_instance(Version::Fmi2);
        to_step_mode(&mut inst);
        inst.do_step(0.0, 1.0).expect("step");
        let handle = inst.get_state(None).expect("get state");
        inst.do_step(1.0, 1.0).expect("step");
        assert_eq!(inst.get_state(Some(handle)).expect("update"), handle);
        inst.do_step(2.0, 1.0).expect("step");
        let err = inst.do_step(0.0, 1.0).expect_err("wrong time");
        inst.fail("doStep", &err);
        assert_eq!(inst.phase(), Phase::Error);
        inst.set_state(handle).expect("set state");
        assert_eq!(inst.phase(), Phase::StepMode);
        assert_eq!(inst.time(), 2.0);
        assert_eq!(inst.model().x, 2.0);
        inst.free_state(handle).expect("free");
        assert!(matches!(
            inst.set_state(handle),
            Err(CallError::UnknownState)
        ));
        assert!(matches!(
            inst.free_state(handle),
            Err(CallError::UnknownState)
        ));
    }

    /// Serializes the saved state `handle` of `inst`.
    fn serialize(inst: &Instance<Ramp>, handle: usize) -> Vec<u8> {
        let size = inst.serialized_state_size(handle).expect("size");
        let mut bytes = vec![0; size];
        inst.serialize_state(handle, &mut bytes).expect("serialize");
        bytes
    }

    #[test]
    fn serialized_state_roundtrips_into_another_instance() {
        let mut a = new_instance(Version::Fmi2);
        a.setup_experiment(0.5).expect("setup");
        set_real(&mut a, 1, 3.0).expect("slope");
        a.enter_initialization_mode().expect("enter");
        a.exit_initialization_mode().expect("exit");
        set_real(&mut a, 2, 0.25).expect("u");
        a.do_step(0.5, 0.5).expect("step");
        a.do_step(1.0, 0.25).expect("step");
        let handle = a.get_state(None).expect("get state");
        let bytes = serialize(&a, handle);
        assert_eq!(bytes.len(), 40 + "ramp".len() + 4 * 8);
        assert_eq!(&bytes[..8], b"MSIMFMUS");

        // Another instance of the same model, with other parameters and at another time.
        let mut b = new_instance(Version::Fmi2);
        to_step_mode(&mut b);
        b.do_step(0.0, 0.1).expect("step");
        let copy = b.deserialize_state(&bytes, None).expect("deserialize");
        assert_eq!(b.states.len(), 1);
        b.set_state(copy).expect("set state");
        b.free_state(copy).expect("free state");
        assert_eq!(b.time(), a.time());
        assert_eq!(b.start_time, 0.5);
        assert_eq!(get_real(&b, 1).expect("slope"), 3.0);
        let mut t = a.time();
        for h in [0.1, 0.3, 0.05] {
            a.do_step(t, h).expect("step a");
            b.do_step(t, h).expect("step b");
            t += h;
            let (ya, yb) = (get_real(&a, 0).expect("x"), get_real(&b, 0).expect("x"));
            assert_eq!(ya.to_bits(), yb.to_bits(), "t = {t}");
        }
        assert_eq!(a.time(), b.time());

        // The same bytes again, now overwriting a state of `b` in place.
        let existing = b.get_state(None).expect("get state");
        assert_eq!(
            b.deserialize_state(&bytes, Some(existing))
                .expect("in place"),
            existing
        );
        assert_eq!(
            serialize(&b, existing),
            bytes,
            "bit-identical after a round trip"
        );
    }

    #[test]
    fn serialized_state_keeps_phase_terminate_request_and_step_status() {
        let mut a = new_instance(Version::Fmi2);
        to_step_mode(&mut a);
        let mut t = 0.0;
        while a.do_step(t, 1.0).expect("step") == Status::Ok {
            t += 1.0;
        }
        let handle = a.get_state(None).expect("get state");
        let bytes = serialize(&a, handle);
        let mut b = new_instance(Version::Fmi2);
        to_step_mode(&mut b);
        let err = b.do_step(5.0, 1.0).expect_err("wrong time");
        b.fail("doStep", &err);
        assert_eq!(b.phase(), Phase::Error);
        let copy = b.deserialize_state(&bytes, None).expect("deserialize");
        b.set_state(copy).expect("set state");
        assert_eq!(b.phase(), Phase::StepMode, "the phase of the saved state");
        assert!(b.terminate_requested());
        assert_eq!(b.last_step_status(), Status::Discard);
        assert_eq!(b.time(), 10.0);
    }

    #[test]
    fn bad_serialized_bytes_are_refused() {
        let mut a = new_instance(Version::Fmi2);
        to_step_mode(&mut a);
        a.do_step(0.0, 1.0).expect("step");
        let handle = a.get_state(None).expect("get state");
        let good = serialize(&a, handle);
        let mut b = new_instance(Version::Fmi2);
        to_step_mode(&mut b);

        let mut magic = good.clone();
        magic[..8].copy_from_slice(b"FMUSTATE");
        let err = b.deserialize_state(&magic, None).expect_err("wrong magic");
        assert!(matches!(
            err,
            CallError::SerializedState(FormatError::Magic { .. })
        ));
        assert!(err.to_string().contains("magic"), "{err}");
        let mut version = good.clone();
        version[8] = 9;
        assert!(b.deserialize_state(&version, None).is_err());
        let err = b
            .deserialize_state(&good[..good.len() - 8], None)
            .expect_err("one value short");
        assert!(matches!(
            err,
            CallError::SerializedState(FormatError::Length { .. })
        ));
        let mut longer = good.clone();
        longer.extend_from_slice(&[0; 8]);
        assert!(b.deserialize_state(&longer, None).is_err());
        assert!(b.deserialize_state(&[], None).is_err());

        // A well-formed state with three model values instead of four: the model refuses it.
        let fields = serialized::Fields {
            guid: "ramp",
            phase: Phase::StepMode,
            start_time: 0.0,
            time: 1.0,
            terminate_requested: false,
            last_step: Status::Ok,
        };
        let mut short = vec![0; serialized::encoded_len(4, 3).expect("length")];
        serialized::encode(&fields, &[1.0, 2.0, 3.0], &mut short).expect("encode");
        let err = b.deserialize_state(&short, None).expect_err("three values");
        assert!(
            matches!(
                err,
                CallError::Model(ModelError::StateLength {
                    model: "Ramp",
                    expected: 4,
                    found: 3
                })
            ),
            "{err}"
        );

        // A state of another FMU (GUID) of the same library.
        let mut other = Instance::new(
            Version::Fmi2,
            c"other".to_owned(),
            "ramp-2".into(),
            Ramp::instantiate("ramp").expect("invariant: known GUID"),
            Logger::new(None, std::ptr::null_mut(), false),
        );
        assert!(matches!(
            other.deserialize_state(&good, None),
            Err(CallError::SerializedState(FormatError::OtherFmu { .. }))
        ));
        // An unknown handle to overwrite, and a buffer of the wrong size.
        assert!(matches!(
            b.deserialize_state(&good, Some(8)),
            Err(CallError::UnknownState)
        ));
        let mut small = vec![0; good.len() - 1];
        assert!(matches!(
            a.serialize_state(handle, &mut small),
            Err(CallError::SerializedState(FormatError::BufferSize { .. }))
        ));
        assert!(matches!(
            a.serialized_state_size(handle + 16),
            Err(CallError::UnknownState)
        ));

        assert!(b.states.is_empty(), "no state was created");
        let err = b.deserialize_state(&magic, None).expect_err("wrong magic");
        assert_eq!(b.fail("fmi2DeSerializeFMUstate", &err), status::ERROR);
        assert_eq!(b.phase(), Phase::Error);
    }

    #[test]
    fn model_without_save_state_cannot_serialize() {
        let model = Plain::instantiate("plain").expect("invariant: known GUID");
        let logger = Logger::new(None, std::ptr::null_mut(), false);
        let mut inst = Instance::new(
            Version::Fmi2,
            c"p".to_owned(),
            "plain".into(),
            model,
            logger,
        );
        let handle = inst
            .get_state(None)
            .expect("FMU states work without serialization");
        assert!(matches!(
            inst.require_serializable(),
            Err(CallError::Unsupported { .. })
        ));
        assert!(matches!(
            inst.serialized_state_size(handle),
            Err(CallError::Unsupported { .. })
        ));
        assert!(matches!(
            inst.serialize_state(handle, &mut [0; 64]),
            Err(CallError::Unsupported { .. })
        ));
        // Even bytes in the right format for this GUID are refused.
        let fields = serialized::Fields {
            guid: "plain",
            phase: Phase::StepMode,
            start_time: 0.0,
            time: 0.0,
            terminate_requested: false,
            last_step: Status::Ok,
        };
        let mut bytes = vec![0; serialized::encoded_len(5, 0).expect("length")];
        serialized::encode(&fields, &[], &mut bytes).expect("encode");
        assert!(matches!(
            inst.deserialize_state(&bytes, None),
            Err(CallError::Unsupported { .. })
        ));
        assert_eq!(
            Plain.clone().load_state(&[]),
            Err(ModelError::Unsupported {
                what: NOT_SERIALIZABLE
            })
        );
    }

    #[test]
    fn strings_stay_in_the_instance() {
        let mut inst = new_instance(Version::Fmi1);
        let mut ptrs = Vec::new();
        inst.get_strings(&[0, 0], |_, s| ptrs.push(s.as_ptr()))
            .expect("strings");
        assert_eq!(ptrs.len(), 2);
        assert_eq!(inst.strings[0].to_str().expect("utf-8"), "t=0");
    }

    #[test]
    fn fmi1_rules() {
        let mut inst = new_instance(Version::Fmi1);
        assert!(
            get_real(&inst, 0).is_ok(),
            "FMI 1.0 allows get before initialization"
        );
        set_real(&mut inst, 1, 2.0).expect("parameter before initialize");
        inst.initialize_slave(1.0).expect("initialize");
        assert!(set_real(&mut inst, 1, 3.0).is_err());
        inst.do_step(1.0, 0.5).expect("step");
        assert_eq!(get_real(&inst, 0).expect("x"), 1.0);
        inst.terminate().expect("terminate");
        assert!(inst.do_step(1.5, 0.5).is_err());
    }
}
