//! FMU states (get, set, free, serialize) and directional derivatives: FMI 2.0 only.
//!
//! The instance owns its states in a slot table indexed by [`FmuStateId`]. Slots are never
//! reused, so a stale handle is an error instead of silently naming another state. All live
//! states are freed when the instance is dropped.

use std::ptr;

use super::{Instance, fmi2};
use crate::ffi::Functions;
use crate::{Error, FmuStateId, Result, Status, ValueRef};

impl Instance {
    /// True when the FMU declares `canGetAndSetFMUstate` and exports the three state functions
    /// (always false for FMI 1.0).
    ///
    /// Spec: FMI 2.0.2 §2.1.8, §4.3.1 (`canGetAndSetFMUstate`).
    pub fn can_get_and_set_fmu_state(&self) -> bool {
        self.state_functions().is_some()
    }

    /// True when the FMU declares `canSerializeFMUstate`, exports the three serialization
    /// functions, and can get and set states (always false for FMI 1.0).
    ///
    /// Spec: FMI 2.0.2 §2.1.8, §4.3.1 (`canSerializeFMUstate`).
    pub fn can_serialize_fmu_state(&self) -> bool {
        self.serialization_functions().is_some() && self.can_get_and_set_fmu_state()
    }

    /// True when the FMU declares `providesDirectionalDerivative` and exports the function
    /// (always false for FMI 1.0).
    ///
    /// Spec: FMI 2.0.2 §2.1.9, §4.3.1 (`providesDirectionalDerivative`).
    pub fn provides_directional_derivative(&self) -> bool {
        matches!(self.fmu.functions(), Functions::V2(f) if f.get_directional_derivative.is_some())
    }

    fn state_functions(&self) -> Option<fmi2::StateFunctions> {
        match self.fmu.functions() {
            Functions::V2(f) => f.fmu_state,
            Functions::V1(_) => None,
        }
    }

    fn serialization_functions(&self) -> Option<fmi2::SerializationFunctions> {
        match self.fmu.functions() {
            Functions::V2(f) => f.serialization,
            Functions::V1(_) => None,
        }
    }

    fn require_state_functions(&self, function: &'static str) -> Result<fmi2::StateFunctions> {
        let functions = self
            .state_functions()
            .ok_or_else(|| self.unsupported(function))?;
        let _call = self.enter(function)?;
        Ok(functions)
    }

    /// `fmi2GetFMUstate`: saves the instance's current state. With `into = None` a new state
    /// is created; with `Some(id)` the existing state is updated in place by the FMU (no new
    /// allocation).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the FMU cannot get and set states (always for FMI 1.0);
    /// [`Error::UnknownFmuState`] for a freed or foreign `id`; [`Error::NullPointer`] when the
    /// FMU returns no state; [`Error::Discard`] / [`Error::CallFailed`] for a failing status;
    /// [`Error::InvalidCall`] after Fatal.
    ///
    /// Spec: FMI 2.0.2 §2.1.8 (`fmi2GetFMUstate`).
    pub fn get_fmu_state(&mut self, into: Option<FmuStateId>) -> Result<FmuStateId> {
        const FUNCTION: &str = "fmi2GetFMUstate";
        let functions = self.require_state_functions(FUNCTION)?;
        let mut state = match into {
            Some(id) => self.states.pointer(&self.name, id)?,
            None => ptr::null_mut(),
        };
        // SAFETY: `component` is live; `state` is a local that outlives the call and holds
        // NULL (new state) or a state this instance got from the same FMU.
        let status = unsafe { (functions.get)(self.component, &mut state) };
        // Keep whatever the FMU handed back, so that it is freed at the latest on drop.
        let slot = self.states.record(into, state);
        self.check(FUNCTION, status)?;
        slot.ok_or_else(|| Error::NullPointer {
            instance: self.name.clone(),
            function: FUNCTION,
        })
    }

    /// `fmi2SetFMUstate`: restores a saved state. A success clears a previous Error status
    /// (the instance is usable again).
    ///
    /// # Errors
    /// As [`Instance::get_fmu_state`].
    ///
    /// Spec: FMI 2.0.2 §2.1.8 (`fmi2SetFMUstate`), §2.1.3 (recovering from `fmi2Error`).
    pub fn set_fmu_state(&mut self, state: FmuStateId) -> Result<Status> {
        const FUNCTION: &str = "fmi2SetFMUstate";
        let functions = self.require_state_functions(FUNCTION)?;
        let pointer = self.states.pointer(&self.name, state)?;
        // SAFETY: `component` is live and `pointer` is a live state of this instance.
        let status = unsafe { (functions.set)(self.component, pointer) };
        let status = self.check(FUNCTION, status)?;
        self.failed = false;
        Ok(status)
    }

    /// `fmi2FreeFMUstate`: frees a saved state; `state` is invalid afterwards, even if the call
    /// fails.
    ///
    /// # Errors
    /// As [`Instance::get_fmu_state`].
    ///
    /// Spec: FMI 2.0.2 §2.1.8 (`fmi2FreeFMUstate`).
    pub fn free_fmu_state(&mut self, state: FmuStateId) -> Result<Status> {
        const FUNCTION: &str = "fmi2FreeFMUstate";
        let functions = self.require_state_functions(FUNCTION)?;
        let mut pointer = self.states.pointer(&self.name, state)?;
        self.states.remove(state);
        // SAFETY: `component` is live and `pointer` is a live state of this instance, removed
        // from the table above so it is never freed twice.
        let status = unsafe { (functions.free)(self.component, &mut pointer) };
        self.check(FUNCTION, status)
    }

    /// `fmi2SerializedFMUstateSize` + `fmi2SerializeFMUstate`: the bytes of a saved state,
    /// which [`Instance::deserialize_fmu_state`] of an instance of the same FMU can read back.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the FMU cannot serialize states; otherwise as
    /// [`Instance::get_fmu_state`].
    ///
    /// Spec: FMI 2.0.2 §2.1.8 (serialization of FMU states).
    pub fn serialize_fmu_state(&mut self, state: FmuStateId) -> Result<Vec<u8>> {
        const SIZE: &str = "fmi2SerializedFMUstateSize";
        const SERIALIZE: &str = "fmi2SerializeFMUstate";
        let functions = self
            .serialization_functions()
            .ok_or_else(|| self.unsupported(SERIALIZE))?;
        self.require_state_functions(SERIALIZE)?;
        let pointer = self.states.pointer(&self.name, state)?;
        let mut size = 0usize;
        // SAFETY: `component` is live, `pointer` is a live state; `size` outlives the call.
        let status = unsafe { (functions.size)(self.component, pointer, &mut size) };
        self.check(SIZE, status)?;
        let mut bytes = vec![0u8; size];
        // SAFETY: `bytes` has exactly `size` writable bytes and outlives the call.
        let status = unsafe {
            (functions.serialize)(
                self.component,
                pointer,
                bytes.as_mut_ptr().cast::<fmi2::fmi2Byte>(),
                size,
            )
        };
        self.check(SERIALIZE, status)?;
        Ok(bytes)
    }

    /// `fmi2DeSerializeFMUstate`: creates a new state of this instance from bytes written by
    /// [`Instance::serialize_fmu_state`].
    ///
    /// # Errors
    /// As [`Instance::serialize_fmu_state`].
    ///
    /// Spec: FMI 2.0.2 §2.1.8 (`fmi2DeSerializeFMUstate`).
    pub fn deserialize_fmu_state(&mut self, bytes: &[u8]) -> Result<FmuStateId> {
        const FUNCTION: &str = "fmi2DeSerializeFMUstate";
        let functions = self
            .serialization_functions()
            .ok_or_else(|| self.unsupported(FUNCTION))?;
        self.require_state_functions(FUNCTION)?;
        let mut state: fmi2::fmi2FMUstate = ptr::null_mut();
        // SAFETY: `bytes` is readable for `bytes.len()` bytes; `state` is a local (NULL: the
        // FMU allocates a new state) that outlives the call.
        let status = unsafe {
            (functions.deserialize)(
                self.component,
                bytes.as_ptr().cast::<fmi2::fmi2Byte>(),
                bytes.len(),
                &mut state,
            )
        };
        let slot = self.states.record(None, state);
        self.check(FUNCTION, status)?;
        slot.ok_or_else(|| Error::NullPointer {
            instance: self.name.clone(),
            function: FUNCTION,
        })
    }

    /// `fmi2GetDirectionalDerivative`: `dv_unknown = J · dv_known` with the partial derivatives
    /// `J[i][j] = ∂unknowns[i] / ∂knowns[j]`, in the units declared in the modelDescription.
    ///
    /// Shapes: `dv_unknown.len() == unknowns.len()`, `dv_known.len() == knowns.len()`.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the FMU does not provide it (always for FMI 1.0);
    /// [`Error::LengthMismatch`]; [`Error::Discard`] / [`Error::CallFailed`] for a failing
    /// status; [`Error::InvalidCall`] after Fatal.
    ///
    /// Spec: FMI 2.0.2 §2.1.9 (`fmi2GetDirectionalDerivative`).
    pub fn get_directional_derivative(
        &mut self,
        unknowns: &[ValueRef],
        knowns: &[ValueRef],
        dv_known: &[f64],
        dv_unknown: &mut [f64],
    ) -> Result<Status> {
        const FUNCTION: &str = "fmi2GetDirectionalDerivative";
        let function = match self.fmu.functions() {
            Functions::V2(f) => f.get_directional_derivative,
            Functions::V1(_) => None,
        }
        .ok_or_else(|| self.unsupported(FUNCTION))?;
        self.check_len(FUNCTION, unknowns.len(), dv_unknown.len())?;
        self.check_len(FUNCTION, knowns.len(), dv_known.len())?;
        let _call = self.enter(FUNCTION)?;
        // SAFETY: each pointer refers to a slice of the length passed next to it (checked
        // above); all slices outlive the call; `component` is live.
        let status = unsafe {
            function(
                self.component,
                unknowns.as_ptr().cast::<fmi2::fmi2ValueReference>(),
                unknowns.len(),
                knowns.as_ptr().cast::<fmi2::fmi2ValueReference>(),
                knowns.len(),
                dv_known.as_ptr(),
                dv_unknown.as_mut_ptr(),
            )
        };
        self.check(FUNCTION, status)
    }

    /// Frees every live state (on drop); failures are logged.
    pub(super) fn free_all_fmu_states(&mut self) {
        let Some(functions) = self.state_functions() else {
            return;
        };
        for mut pointer in self.states.take_all() {
            // SAFETY: `component` is live and `pointer` is a live state of this instance, taken
            // out of the table so it is freed exactly once.
            let status = unsafe { (functions.free)(self.component, &mut pointer) };
            if status > 1 {
                log::warn!(
                    "instance '{}': fmi2FreeFMUstate returned status {status}",
                    self.name
                );
            }
        }
    }
}
