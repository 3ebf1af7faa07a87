//! Faulty's FMU states: what `fmi2GetFMUstate` saves and `fmi2SerializeFMUstate` writes, and
//! the parameter `stateFault` that makes a serialized state fail to restore the way real FMUs
//! fail (see the README, "FMU states"), with the exported `fmi2DeSerializeFMUstate` and
//! `fmi2SetFMUstate` that carry it out.
//!
//! Spec: FMI 2.0.2 §2.1.8 (getting, setting and serializing the FMU state).

use std::cell::Cell;

use fmu_support::{ModelError, fmi2};

use super::{FaultTimes, Faulty, exit_code, finite};

/// How an instance fails to restore a serialized FMU state (parameter `stateFault`), as real
/// FMUs do. Serializing always succeeds; with the faults switched off ([`FAULTS_ENV`]) every
/// state restores.
///
/// Spec: FMI 2.0.2 §2.1.8 (`fmi2DeSerializeFMUstate`, `fmi2SetFMUstate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum StateFault {
    /// 0: every serialized state restores.
    #[default]
    None,
    /// 1: `fmi2DeSerializeFMUstate` returns `fmi2Error` when asked for a new FMU state (a null
    /// `*FMUstate`); it deserializes only into a state that `fmi2GetFMUstate` handed out
    /// before. The FMUs exported by MasterSim's IBK FMI support code behave so.
    IntoNewState,
    /// 2: `fmi2DeSerializeFMUstate` succeeds, but `fmi2SetFMUstate` of a state it made returns
    /// `fmi2Error`.
    SetDeserialized,
    /// 3: a serialized state restores only in the process that wrote it
    /// (`fmi2DeSerializeFMUstate` returns `fmi2Error` in any other), like an FMU that
    /// serializes pointers.
    OtherProcess,
}

impl StateFault {
    /// The fault of the parameter value `value`.
    ///
    /// # Errors
    /// [`ModelError::InvalidValue`] outside 0…3.
    pub(crate) fn of(value: i32) -> Result<StateFault, ModelError> {
        match value {
            0 => Ok(StateFault::None),
            1 => Ok(StateFault::IntoNewState),
            2 => Ok(StateFault::SetDeserialized),
            3 => Ok(StateFault::OtherProcess),
            _ => Err(ModelError::InvalidValue {
                name: "stateFault",
                value: value.to_string(),
                reason: "must be 0 to 3",
            }),
        }
    }

    /// The parameter value of the fault.
    pub(crate) fn value(self) -> i32 {
        match self {
            StateFault::None => 0,
            StateFault::IntoNewState => 1,
            StateFault::SetDeserialized => 2,
            StateFault::OtherProcess => 3,
        }
    }
}

thread_local! {
    /// Set by [`fmi2_deserialize_fmu_state`] while it forwards a call that asks for a new FMU
    /// state; read by [`Faulty::load_state_values`] for [`StateFault::IntoNewState`].
    static INTO_NEW_STATE: Cell<bool> = const { Cell::new(false) };
    /// Set by [`fmi2_set_fmu_state`] while it forwards the call, during which the export layer
    /// clones the model of the state set (once).
    static SETTING_STATE: Cell<bool> = const { Cell::new(false) };
    /// Set by that clone when the state set was made by `fmi2DeSerializeFMUstate` of an
    /// instance with [`StateFault::SetDeserialized`]; read and cleared by
    /// [`fmi2_set_fmu_state`], which then returns `fmi2Error`.
    static SET_REFUSED: Cell<bool> = const { Cell::new(false) };

}

impl Clone for Faulty {
    /// A copy; while [`fmi2_set_fmu_state`] sets a state, the copy of a deserialized state of
    /// an instance with [`StateFault::SetDeserialized`] makes that call fail.
    fn clone(&self) -> Self {
        if SETTING_STATE.get()
            && self.deserialized
            && self.state_fault == StateFault::SetDeserialized
            && !self.faults_off
        {
            SET_REFUSED.set(true);
        }
        Self {
            u: self.u,
            time: self.time,
            count: self.count,
            times: self.times,
            exit_code: self.exit_code,
            state_fault: self.state_fault,
            deserialized: self.deserialized,
            jitter: self.jitter,
            faults_off: self.faults_off,
            memory: self.memory.clone(),
        }
    }
}

/// Number of values of a serialized Faulty state: `u`, time, `count`, the twelve fault
/// times, `exitCode`, `stateFault` and the process id.
const STATE_VALUES: usize = 18;

impl Faulty {
    /// The fault of `stateFault` in effect: the parameter, or none if the faults are switched
    /// off ([`FAULTS_ENV`]).
    pub fn state_fault(&self) -> StateFault {
        if self.faults_off {
            StateFault::None
        } else {
            self.state_fault
        }
    }

    /// `u`, the FMU time, `count`, the fault times, `exitCode`, `stateFault`, and the id of
    /// the process (for [`StateFault::OtherProcess`]).
    pub(crate) fn state_values(&self) -> Vec<f64> {
        let t = &self.times;
        vec![
            self.u,
            self.time,
            f64::from(self.count),
            t.error,
            t.fatal,
            t.nan,
            t.hang,
            t.segfault,
            t.abort,
            t.discard,
            t.inf,
            t.exit,
            t.jitter,
            t.slow,
            t.slow_until,
            f64::from(self.exit_code),
            f64::from(self.state_fault.value()),
            f64::from(std::process::id()),
        ]
    }

    /// Loads the values of [`Faulty::state_values`], unless the fault of `stateFault` ([`StateFault`])
    /// refuses: a new state with [`StateFault::IntoNewState`], a state of another process
    /// with [`StateFault::OtherProcess`]. The jitter offset and the fault memory stay the
    /// instance's.
    pub(crate) fn load_state_values(&mut self, state: &[f64]) -> Result<(), ModelError> {
        let values: [f64; STATE_VALUES] = fmu_support::state_array("Faulty", state)?;
        let fault = self.state_fault();
        if fault == StateFault::IntoNewState && INTO_NEW_STATE.get() {
            return Err(ModelError::Unsupported {
                what: "deserializing into a new FMU state (stateFault = 1: only into a state \
                       that fmi2GetFMUstate handed out before)",
            });
        }
        if fault == StateFault::OtherProcess && values[17] != f64::from(std::process::id()) {
            return Err(ModelError::InvalidValue {
                name: "serialized FMU state",
                value: format!("of process {}", values[17]),
                reason: "restores only in the process that wrote it (stateFault = 3)",
            });
        }
        let integer = |name: &'static str, v: f64| -> Result<i32, ModelError> {
            if v.fract() == 0.0 && v >= f64::from(i32::MIN) && v <= f64::from(i32::MAX) {
                Ok(v as i32)
            } else {
                Err(ModelError::InvalidValue {
                    name,
                    value: v.to_string(),
                    reason: "must be an integer",
                })
            }
        };
        self.u = finite("u", values[0])?;
        self.time = finite("time", values[1])?;
        self.count = integer("count", values[2])?;
        let [
            error,
            fatal,
            nan,
            hang,
            segfault,
            abort,
            discard,
            inf,
            exit,
            jitter,
            slow,
            slow_until,
        ] = std::array::from_fn(|i| values[3 + i]);
        self.times = FaultTimes {
            error,
            fatal,
            nan,
            hang,
            segfault,
            abort,
            discard,
            inf,
            exit,
            jitter,
            slow,
            slow_until,
        };
        self.exit_code = exit_code(integer("exitCode", values[15])?)?;
        self.state_fault = StateFault::of(integer("stateFault", values[16])?)?;
        self.deserialized = true;
        Ok(())
    }
}

/// `fmi2DeSerializeFMUstate` of Faulty: [`fmi2::deserialize_fmu_state`], which refuses a new
/// state (`*FMUstate` null) when `stateFault` is 1 ([`StateFault::IntoNewState`]) and a state
/// of another process when it is 3; the support layer then logs the reason and returns
/// `fmi2Error`.
///
/// Exported through `export_fmi2!` with `deserialize_fmu_state = fmi2_deserialize_fmu_state`.
///
/// Spec: FMI 2.0.2 §2.1.8.
///
/// # Safety
/// As for [`fmi2::deserialize_fmu_state`].
pub unsafe fn fmi2_deserialize_fmu_state(
    c: fmi2::Component,
    bytes: *const fmi2::Byte,
    size: usize,
    state: *mut fmi2::FmuState,
) -> fmi2::Status {
    // SAFETY: `state` is null or valid for reads (caller contract).
    let into_new = !state.is_null() && unsafe { (*state).is_null() };
    INTO_NEW_STATE.set(into_new);
    // SAFETY: forwarded caller contract.
    let status = unsafe { fmi2::deserialize_fmu_state::<Faulty>(c, bytes, size, state) };
    INTO_NEW_STATE.set(false);
    status
}

/// `fmi2SetFMUstate` of Faulty: [`fmi2::set_fmu_state`], except that setting a state made by
/// `fmi2DeSerializeFMUstate` returns `fmi2Error` when `stateFault` is 2
/// ([`StateFault::SetDeserialized`]). The instance then holds that state, as FMI leaves the
/// state undefined after an Error; setting a state saved by `fmi2GetFMUstate` recovers it.
///
/// Exported through `export_fmi2!` with `set_fmu_state = fmi2_set_fmu_state`.
///
/// Spec: FMI 2.0.2 §2.1.3 (`fmi2Error`), §2.1.8.
///
/// # Safety
/// As for [`fmi2::set_fmu_state`].
pub unsafe fn fmi2_set_fmu_state(c: fmi2::Component, state: fmi2::FmuState) -> fmi2::Status {
    SET_REFUSED.set(false);
    SETTING_STATE.set(true);
    // SAFETY: forwarded caller contract.
    let status = unsafe { fmi2::set_fmu_state::<Faulty>(c, state) };
    SETTING_STATE.set(false);
    if SET_REFUSED.replace(false) && status == fmi2::STATUS_OK {
        fmi2::STATUS_ERROR
    } else {
        status
    }
}
