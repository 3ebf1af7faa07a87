//! FMI 3.0 FMU states (get, set, free, serialize) and directional derivatives.
//!
//! The instance owns its states in a slot table indexed by [`FmuStateId`], as
//! [`crate::Instance`] does: slots are never reused, so a stale handle is an error instead of
//! silently naming another state, and all live states are freed when the instance is dropped.

use std::ptr;

use super::{Instance3, raw_vrs};
use crate::ffi::fmi3;
use crate::{Error, FmuStateId, Result, Status, ValueRef};

impl Instance3 {
    /// True when the FMU declares `canGetAndSetFMUState` and exports the three state
    /// functions.
    ///
    /// Spec: FMI 3.0 `canGetAndSetFMUState` (co-simulation capabilities).
    pub fn can_get_and_set_fmu_state(&self) -> bool {
        self.functions.fmu_state.is_some()
    }

    /// True when the FMU declares `canSerializeFMUState`, exports the three serialization
    /// functions, and can get and set states.
    ///
    /// Spec: FMI 3.0 `canSerializeFMUState` (co-simulation capabilities).
    pub fn can_serialize_fmu_state(&self) -> bool {
        self.functions.serialization.is_some() && self.can_get_and_set_fmu_state()
    }

    /// True when the FMU declares `providesDirectionalDerivatives` and exports
    /// `fmi3GetDirectionalDerivative`.
    ///
    /// Spec: FMI 3.0 `providesDirectionalDerivatives` (co-simulation capabilities).
    pub fn provides_directional_derivative(&self) -> bool {
        self.functions.get_directional_derivative.is_some()
    }

    fn require_state_functions(&self, function: &'static str) -> Result<fmi3::StateFunctions> {
        self.functions
            .fmu_state
            .ok_or_else(|| self.unsupported(function))
    }

    fn require_serialization_functions(
        &self,
        function: &'static str,
    ) -> Result<fmi3::SerializationFunctions> {
        self.require_state_functions(function)?;
        self.functions
            .serialization
            .ok_or_else(|| self.unsupported(function))
    }

    /// `fmi3GetFMUState`: saves the instance's current state. With `into = None` a new state
    /// is created; with `Some(id)` the existing state is updated in place by the FMU (no new
    /// allocation).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the FMU cannot get and set states;
    /// [`Error::UnknownFmuState`] for a freed or foreign `id`; [`Error::NullPointer`] when the
    /// FMU returns no state; [`Error::Discard`] / [`Error::CallFailed`] for a failing status;
    /// [`Error::InvalidCall`] after Fatal.
    ///
    /// Spec: FMI 3.0 `fmi3GetFMUState`.
    pub fn get_fmu_state(&mut self, into: Option<FmuStateId>) -> Result<FmuStateId> {
        const FUNCTION: &str = "fmi3GetFMUState";
        let functions = self.require_state_functions(FUNCTION)?;
        let _call = self.enter(FUNCTION)?;
        let mut state = match into {
            Some(id) => self.states.pointer(&self.name, id)?,
            None => ptr::null_mut(),
        };
        // SAFETY: `instance` is live; `state` is a local that outlives the call and holds NULL
        // (new state) or a state this instance got from the same FMU.
        let status = unsafe { (functions.get)(self.instance, &mut state) };
        // Keep whatever the FMU handed back, so that it is freed at the latest on drop.
        let slot = self.states.record(into, state);
        self.check(FUNCTION, status)?;
        slot.ok_or_else(|| Error::NullPointer {
            instance: self.name.clone(),
            function: FUNCTION,
        })
    }

    /// `fmi3SetFMUState`: restores a saved state. A success clears a previous Error status
    /// (the instance is usable again).
    ///
    /// # Errors
    /// As [`Instance3::get_fmu_state`].
    ///
    /// Spec: FMI 3.0 `fmi3SetFMUState`, status `fmi3Error` (recovery by restoring a state).
    pub fn set_fmu_state(&mut self, state: FmuStateId) -> Result<Status> {
        const FUNCTION: &str = "fmi3SetFMUState";
        let functions = self.require_state_functions(FUNCTION)?;
        let _call = self.enter(FUNCTION)?;
        let pointer = self.states.pointer(&self.name, state)?;
        // SAFETY: `instance` is live and `pointer` is a live state of this instance.
        let status = unsafe { (functions.set)(self.instance, pointer) };
        let status = self.check(FUNCTION, status)?;
        self.failed = false;
        Ok(status)
    }

    /// `fmi3FreeFMUState`: frees a saved state; `state` is invalid afterwards, even if the
    /// call fails.
    ///
    /// # Errors
    /// As [`Instance3::get_fmu_state`].
    ///
    /// Spec: FMI 3.0 `fmi3FreeFMUState`.
    pub fn free_fmu_state(&mut self, state: FmuStateId) -> Result<Status> {
        const FUNCTION: &str = "fmi3FreeFMUState";
        let functions = self.require_state_functions(FUNCTION)?;
        let _call = self.enter(FUNCTION)?;
        let mut pointer = self.states.pointer(&self.name, state)?;
        self.states.remove(state);
        // SAFETY: `instance` is live and `pointer` is a live state of this instance, removed
        // from the table above so it is never freed twice.
        let status = unsafe { (functions.free)(self.instance, &mut pointer) };
        self.check(FUNCTION, status)
    }

    /// `fmi3SerializedFMUStateSize` + `fmi3SerializeFMUState`: the bytes of a saved state,
    /// which [`Instance3::deserialize_fmu_state`] of an instance of the same FMU can read
    /// back.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the FMU cannot serialize states; otherwise as
    /// [`Instance3::get_fmu_state`].
    ///
    /// Spec: FMI 3.0 `fmi3SerializedFMUStateSize`, `fmi3SerializeFMUState`.
    pub fn serialize_fmu_state(&mut self, state: FmuStateId) -> Result<Vec<u8>> {
        const SIZE: &str = "fmi3SerializedFMUStateSize";
        const SERIALIZE: &str = "fmi3SerializeFMUState";
        let functions = self.require_serialization_functions(SERIALIZE)?;
        let pointer = self.states.pointer(&self.name, state)?;
        let mut size = 0usize;
        let status = {
            let _call = self.enter(SIZE)?;
            // SAFETY: `instance` is live, `pointer` is a live state; `size` outlives the call.
            unsafe { (functions.size)(self.instance, pointer, &mut size) }
        };
        self.check(SIZE, status)?;
        let mut bytes = vec![0u8; size];
        let _call = self.enter(SERIALIZE)?;
        // SAFETY: `bytes` has exactly `size` writable bytes and outlives the call.
        let status = unsafe {
            (functions.serialize)(self.instance, pointer, bytes.as_mut_ptr(), bytes.len())
        };
        self.check(SERIALIZE, status)?;
        Ok(bytes)
    }

    /// `fmi3DeserializeFMUState`: creates a new state of this instance from bytes written by
    /// [`Instance3::serialize_fmu_state`]. Restore it with [`Instance3::set_fmu_state`].
    ///
    /// # Errors
    /// As [`Instance3::serialize_fmu_state`].
    ///
    /// Spec: FMI 3.0 `fmi3DeserializeFMUState`.
    pub fn deserialize_fmu_state(&mut self, bytes: &[u8]) -> Result<FmuStateId> {
        const FUNCTION: &str = "fmi3DeserializeFMUState";
        let functions = self.require_serialization_functions(FUNCTION)?;
        let _call = self.enter(FUNCTION)?;
        let mut state: fmi3::fmi3FMUState = ptr::null_mut();
        // SAFETY: `bytes` is readable for `bytes.len()` bytes; `state` is a local (NULL: the
        // FMU allocates a new state) that outlives the call.
        let status = unsafe {
            (functions.deserialize)(self.instance, bytes.as_ptr(), bytes.len(), &mut state)
        };
        let slot = self.states.record(None, state);
        self.check(FUNCTION, status)?;
        slot.ok_or_else(|| Error::NullPointer {
            instance: self.name.clone(),
            function: FUNCTION,
        })
    }

    /// `fmi3GetDirectionalDerivative`: `sensitivity = J · seed` with the partial derivatives
    /// `J[i][j] = ∂unknowns[i] / ∂knowns[j]`, in the units declared in the modelDescription.
    ///
    /// Shapes: `seed.len()` is the number of elements of all `knowns`, `sensitivity.len()`
    /// that of all `unknowns` (equal to `knowns.len()` and `unknowns.len()` for scalar
    /// variables). Without unknowns nothing is called and `Ok(Status::Ok)` returned.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the FMU does not provide directional derivatives;
    /// [`Error::LengthMismatch`] for seeds without knowns or sensitivities without unknowns;
    /// [`Error::Discard`] / [`Error::CallFailed`] for a failing status; [`Error::InvalidCall`]
    /// after Fatal.
    ///
    /// Spec: FMI 3.0 `fmi3GetDirectionalDerivative`.
    pub fn get_directional_derivative(
        &mut self,
        unknowns: &[ValueRef],
        knowns: &[ValueRef],
        seed: &[f64],
        sensitivity: &mut [f64],
    ) -> Result<Status> {
        const FUNCTION: &str = "fmi3GetDirectionalDerivative";
        let function = self
            .functions
            .get_directional_derivative
            .ok_or_else(|| self.unsupported(FUNCTION))?;
        if knowns.is_empty() && !seed.is_empty() {
            return Err(self.length_mismatch(FUNCTION, 0, seed.len()));
        }
        let Some(_call) = self.begin_batch(FUNCTION, unknowns.len(), sensitivity.len())? else {
            return Ok(Status::Ok);
        };
        // SAFETY: each pointer refers to a slice of the length passed next to it; all slices
        // outlive the call and the FMU writes at most `sensitivity.len()` elements;
        // `instance` is live.
        let status = unsafe {
            function(
                self.instance,
                raw_vrs(unknowns),
                unknowns.len(),
                raw_vrs(knowns),
                knowns.len(),
                seed.as_ptr(),
                seed.len(),
                sensitivity.as_mut_ptr(),
                sensitivity.len(),
            )
        };
        self.check(FUNCTION, status)
    }

    /// Frees every live state (on drop); failures are logged.
    pub(super) fn free_all_fmu_states(&mut self) {
        let Some(functions) = self.functions.fmu_state else {
            return;
        };
        for mut pointer in self.states.take_all() {
            // SAFETY: `instance` is live and `pointer` is a live state of this instance, taken
            // out of the table so it is freed exactly once.
            let status = unsafe { (functions.free)(self.instance, &mut pointer) };
            if status > fmi3::fmi3Warning {
                log::warn!(
                    "instance '{}': fmi3FreeFMUState returned status {status}",
                    self.name
                );
            }
        }
    }
}
