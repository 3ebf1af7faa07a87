//! The FMU states an instance owns, by [`FmuStateId`]: one slot table for FMI 2.0
//! ([`crate::Instance`]) and FMI 3.0 ([`crate::Instance3`]) instances, whose state handles are
//! both `void*`.
//!
//! Slots are never reused, so a stale id can never silently name another state. The table only
//! stores the pointers; the instance types make the FFI calls and free what is left on drop.

use std::ffi::c_void;

use crate::{Error, Result};

/// Handle of an FMU state owned by an [`crate::Instance`] or [`crate::Instance3`]; see
/// [`crate::Instance::get_fmu_state`].
///
/// Only meaningful for the instance that created it. Handles are never reused, so a freed
/// handle stays invalid.
///
/// Spec: FMI 2.0.2 §2.1.8 (`fmi2FMUstate`), FMI 3.0 `fmi3FMUState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FmuStateId(pub(crate) usize);

/// Saved FMU states by [`FmuStateId`]; `None` once freed.
#[derive(Debug, Default)]
pub(crate) struct StateTable(Vec<Option<*mut c_void>>);

impl StateTable {
    /// The live state behind `id`.
    ///
    /// # Errors
    /// [`Error::UnknownFmuState`] (naming `instance`) for a freed or foreign id.
    pub(crate) fn pointer(&self, instance: &str, id: FmuStateId) -> Result<*mut c_void> {
        self.0
            .get(id.0)
            .copied()
            .flatten()
            .ok_or_else(|| Error::UnknownFmuState {
                instance: instance.to_owned(),
                id: id.0,
            })
    }

    /// Keeps what a get-state call handed back, so that it is freed at the latest on drop:
    /// into slot `into` (updated in place), or into a new slot. Returns the slot when the FMU
    /// returned a state (`None` for NULL).
    pub(crate) fn record(
        &mut self,
        into: Option<FmuStateId>,
        state: *mut c_void,
    ) -> Option<FmuStateId> {
        let live = (!state.is_null()).then_some(state);
        match into {
            Some(id) => {
                self.0[id.0] = live;
                live.map(|_| id)
            }
            None => live.map(|state| {
                self.0.push(Some(state));
                FmuStateId(self.0.len() - 1)
            }),
        }
    }

    /// Empties slot `id` (its state is being freed).
    pub(crate) fn remove(&mut self, id: FmuStateId) {
        if let Some(slot) = self.0.get_mut(id.0) {
            *slot = None;
        }
    }

    /// Number of live states.
    pub(crate) fn live(&self) -> usize {
        self.0.iter().filter(|s| s.is_some()).count()
    }

    /// Takes every live state out of the table (to free them on drop).
    pub(crate) fn take_all(&mut self) -> impl Iterator<Item = *mut c_void> + use<> {
        std::mem::take(&mut self.0).into_iter().flatten()
    }
}
