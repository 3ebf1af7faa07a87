//! Faulty's FMU states through the FMI 2.0 functions: a serialized state moves between
//! instances, and each `stateFault` kind fails to restore as documented (README, "FMU
//! states").

use std::ptr;

use super::*;

impl Fmu {
    /// `fmi2SetInteger` of one value.
    pub(super) fn set_integer(&self, vr: u32, value: i32) -> fmi2::Status {
        // SAFETY: a live instance; one value reference and one value.
        unsafe { fmi2::set_integer::<Faulty>(self.0, &raw const vr, 1, &raw const value) }
    }

    /// The current state, serialized (`fmi2GetFMUstate`, `fmi2SerializeFMUstate`, freed).
    pub(super) fn serialize(&self) -> Vec<u8> {
        let state = self.get_state();
        let mut size = 0;
        // SAFETY: a live instance, a state of it and writable outputs of the given sizes.
        unsafe {
            let ok = fmi2::STATUS_OK;
            assert_eq!(
                fmi2::serialized_fmu_state_size::<Faulty>(self.0, state, &raw mut size),
                ok
            );
            let mut bytes = vec![0; size];
            assert_eq!(
                fmi2::serialize_fmu_state::<Faulty>(self.0, state, bytes.as_mut_ptr(), size),
                ok
            );
            let mut state = state;
            assert_eq!(fmi2::free_fmu_state::<Faulty>(self.0, &raw mut state), ok);
            bytes.into_iter().map(|b| b as u8).collect()
        }
    }

    /// `fmi2DeSerializeFMUstate` (this crate's) of `bytes` into `state`: a new one when null.
    fn deserialize(&self, bytes: &[u8], state: &mut fmi2::FmuState) -> fmi2::Status {
        // SAFETY: a live instance, `bytes.len()` readable bytes and a writable state slot.
        unsafe {
            fmi2_deserialize_fmu_state(self.0, bytes.as_ptr().cast(), bytes.len(), &raw mut *state)
        }
    }

    /// `fmi2SetFMUstate` (this crate's).
    fn set_state_exported(&self, state: fmi2::FmuState) -> fmi2::Status {
        // SAFETY: a live instance; the handle is only compared.
        unsafe { fmi2_set_fmu_state(self.0, state) }
    }
}

/// A serialized state moves to another instance and restores there exactly (`stateFault` 0):
/// the same `y` and `count`, and the same next step.
#[test]
fn through_fmi2_serialized_states_restore_in_another_instance() {
    let a = Fmu::new(&[]);
    assert_eq!(a.set_real(VR_U, 0.5), fmi2::STATUS_OK);
    assert_eq!(a.do_step(0.0, 0.1), fmi2::STATUS_OK);
    let bytes = a.serialize();
    let b = Fmu::new(&[]);
    let mut state = ptr::null_mut();
    assert_eq!(b.deserialize(&bytes, &mut state), fmi2::STATUS_OK);
    assert_eq!(b.set_state_exported(state), fmi2::STATUS_OK);
    assert_eq!((b.y().to_bits(), b.count()), (a.y().to_bits(), 1));
    assert_eq!(b.do_step(0.1, 0.1), fmi2::STATUS_OK);
    assert_eq!(a.do_step(0.1, 0.1), fmi2::STATUS_OK);
    assert_eq!(b.y().to_bits(), a.y().to_bits());
}

/// `stateFault` 1: deserializing into a new state fails, into a state handed out by
/// `fmi2GetFMUstate` succeeds (MasterSim's IBK FMUs).
#[test]
fn through_fmi2_state_fault_1_deserializes_only_into_a_state_handed_out_before() {
    let fmu = Fmu::with_state_fault(&[], 1);
    assert_eq!(fmu.do_step(0.0, 0.1), fmi2::STATUS_OK);
    let bytes = fmu.serialize();
    let mut state = ptr::null_mut();
    assert_eq!(fmu.deserialize(&bytes, &mut state), fmi2::STATUS_ERROR);
    assert!(state.is_null(), "no state made");
    let mut existing = fmu.get_state();
    assert_eq!(fmu.deserialize(&bytes, &mut existing), fmi2::STATUS_OK);
    assert_eq!(fmu.set_state_exported(existing), fmi2::STATUS_OK);
    assert_eq!(fmu.count(), 1);
}

/// `stateFault` 2: deserializing succeeds, setting that state fails; a state saved by
/// `fmi2GetFMUstate` still sets.
#[test]
fn through_fmi2_state_fault_2_fails_to_set_a_deserialized_state() {
    let fmu = Fmu::with_state_fault(&[], 2);
    assert_eq!(fmu.do_step(0.0, 0.1), fmi2::STATUS_OK);
    let saved = fmu.get_state();
    let bytes = fmu.serialize();
    let mut state = ptr::null_mut();
    assert_eq!(fmu.deserialize(&bytes, &mut state), fmi2::STATUS_OK);
    assert_eq!(fmu.set_state_exported(state), fmi2::STATUS_ERROR);
    assert_eq!(fmu.set_state_exported(saved), fmi2::STATUS_OK, "recovery");
    assert_eq!(fmu.do_step(0.1, 0.1), fmi2::STATUS_OK);
    assert_eq!(fmu.count(), 2);
}

/// `stateFault` 3: a state restores in the process that wrote it only. The other
/// process is a child of this test binary ([`env_child`]), which serializes a state and prints it in hex.
#[test]
fn through_fmi2_state_fault_3_restores_only_in_the_writing_process() {
    let fmu = Fmu::with_state_fault(&[], 3);
    let mut state = ptr::null_mut();
    assert_eq!(
        fmu.deserialize(&fmu.serialize(), &mut state),
        fmi2::STATUS_OK
    );
    assert_eq!(
        fmu.set_state_exported(state),
        fmi2::STATUS_OK,
        "same process"
    );
    let line = env_child_line("state", &[]);
    let hex = line.strip_prefix("state ").expect("a state");
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
        .collect();
    let mut state = ptr::null_mut();
    assert_eq!(fmu.deserialize(&bytes, &mut state), fmi2::STATUS_ERROR);
    assert!(state.is_null(), "no state made");
}
