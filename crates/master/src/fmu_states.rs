//! FMU states of FMU-backed slaves: the bookkeeping and call sequences that the FMI 1.0/2.0
//! slave ([`crate::fmu_slave::FmuSlave`]) and the FMI 3.0 slave
//! ([`crate::fmi3_slave::Fmi3Slave`]) share, over the state calls both instance types offer.
//!
//! Spec: FMI 2.0.2 §2.1.8, FMI 3.0 `fmi3GetFMUState` … `fmi3DeserializeFMUState`.

use fmi::{FmuStateId, Status};

use crate::slave::StateId;
use crate::{Error, Result};

/// The FMU-state calls of an instance ([`fmi::Instance`] or [`fmi::Instance3`]).
pub(crate) trait FmuStateCalls {
    fn get_fmu_state(&mut self, into: Option<FmuStateId>) -> fmi::Result<FmuStateId>;
    fn set_fmu_state(&mut self, state: FmuStateId) -> fmi::Result<Status>;
    fn free_fmu_state(&mut self, state: FmuStateId) -> fmi::Result<Status>;
    fn can_serialize_fmu_state(&self) -> bool;
    fn serialize_fmu_state(&mut self, state: FmuStateId) -> fmi::Result<Vec<u8>>;
    fn deserialize_fmu_state(&mut self, bytes: &[u8]) -> fmi::Result<FmuStateId>;
}

macro_rules! state_calls {
    ($($instance:ty),*) => {$(
        impl FmuStateCalls for $instance {
            fn get_fmu_state(&mut self, into: Option<FmuStateId>) -> fmi::Result<FmuStateId> {
                <$instance>::get_fmu_state(self, into)
            }
            fn set_fmu_state(&mut self, state: FmuStateId) -> fmi::Result<Status> {
                <$instance>::set_fmu_state(self, state)
            }
            fn free_fmu_state(&mut self, state: FmuStateId) -> fmi::Result<Status> {
                <$instance>::free_fmu_state(self, state)
            }
            fn can_serialize_fmu_state(&self) -> bool {
                <$instance>::can_serialize_fmu_state(self)
            }
            fn serialize_fmu_state(&mut self, state: FmuStateId) -> fmi::Result<Vec<u8>> {
                <$instance>::serialize_fmu_state(self, state)
            }
            fn deserialize_fmu_state(&mut self, bytes: &[u8]) -> fmi::Result<FmuStateId> {
                <$instance>::deserialize_fmu_state(self, bytes)
            }
        }
    )*};
}

state_calls!(fmi::Instance, fmi::Instance3);

/// The error of a failed FMI call of slave `slave`.
#[cold]
#[inline(never)]
fn fmi_error(slave: &str, source: fmi::Error) -> Error {
    Error::Fmi {
        slave: slave.to_string(),
        source: Box::new(source),
    }
}

/// The FMU states a slave holds, by [`StateId`]. Freed slots are reused.
#[derive(Debug, Default)]
pub(crate) struct StateSlots(Vec<Option<FmuStateId>>);

impl StateSlots {
    /// The FMU state of `id`.
    ///
    /// # Errors
    /// [`Error::UnknownState`] (naming `slave`) for an id never given or already freed.
    fn get(&self, slave: &str, id: StateId) -> Result<FmuStateId> {
        self.0
            .get(id.0)
            .copied()
            .flatten()
            .ok_or_else(|| Error::UnknownState {
                slave: slave.to_string(),
                id: id.0,
            })
    }

    /// True while no state is held: the master cannot roll back, so `doStep` may be told
    /// `noSetFMUStatePriorToCurrentPoint = true`.
    pub(crate) fn none_held(&self) -> bool {
        self.0.iter().all(Option::is_none)
    }

    /// Saves the instance's state into slot `into` (updated in place) or a free slot.
    ///
    /// # Errors
    /// An unknown `into`, or the failing FMI call.
    pub(crate) fn save(
        &mut self,
        slave: &str,
        instance: &mut impl FmuStateCalls,
        into: Option<StateId>,
    ) -> Result<StateId> {
        let existing = into.map(|id| self.get(slave, id)).transpose()?;
        let state = instance
            .get_fmu_state(existing)
            .map_err(|e| fmi_error(slave, e))?;
        let slot = into.map_or_else(
            || {
                self.0
                    .iter()
                    .position(Option::is_none)
                    .unwrap_or(self.0.len())
            },
            |id| id.0,
        );
        if slot >= self.0.len() {
            self.0.resize(slot + 1, None);
        }
        self.0[slot] = Some(state);
        Ok(StateId(slot))
    }

    /// Restores the state of `id`.
    ///
    /// # Errors
    /// An unknown `id`, or the failing FMI call.
    pub(crate) fn restore(
        &self,
        slave: &str,
        instance: &mut impl FmuStateCalls,
        id: StateId,
    ) -> Result<()> {
        let state = self.get(slave, id)?;
        instance
            .set_fmu_state(state)
            .map(drop)
            .map_err(|e| fmi_error(slave, e))
    }

    /// Frees the state of `id`; the slot is empty afterwards, even if the call fails.
    ///
    /// # Errors
    /// An unknown `id`, or the failing FMI call.
    pub(crate) fn free(
        &mut self,
        slave: &str,
        instance: &mut impl FmuStateCalls,
        id: StateId,
    ) -> Result<()> {
        let state = self.get(slave, id)?;
        self.0[id.0] = None;
        instance
            .free_fmu_state(state)
            .map(drop)
            .map_err(|e| fmi_error(slave, e))
    }
}

/// The instance's current state as bytes (get a new state, serialize, free it), or `None`
/// unless the FMU can serialize its states.
///
/// # Errors
/// The first failing FMI call.
pub(crate) fn serialize(slave: &str, instance: &mut impl FmuStateCalls) -> Result<Option<Vec<u8>>> {
    if !instance.can_serialize_fmu_state() {
        return Ok(None);
    }
    let error = |e| fmi_error(slave, e);
    let state = instance.get_fmu_state(None).map_err(error)?;
    let bytes = instance.serialize_fmu_state(state);
    let freed = instance.free_fmu_state(state);
    let bytes = bytes.map_err(error)?;
    freed.map_err(error)?;
    Ok(Some(bytes))
}

/// Restores a state from bytes of [`serialize`] (deserialize into a new state, set it, free
/// it).
///
/// # Errors
/// The first failing FMI call (bytes the FMU does not accept).
pub(crate) fn deserialize(
    slave: &str,
    instance: &mut impl FmuStateCalls,
    bytes: &[u8],
) -> Result<()> {
    let error = |e| fmi_error(slave, e);
    let state = instance.deserialize_fmu_state(bytes).map_err(error)?;
    let set = instance.set_fmu_state(state);
    let freed = instance.free_fmu_state(state);
    set.map_err(error)?;
    freed.map(drop).map_err(error)
}
