use std::ffi::CString;
use std::ptr;

use fmu_packer::{FmiVersion, MODELS, workspace_root};
use fmu_support::fmi2;

use super::*;

fn init(guid: &str) -> Workload {
    let mut m = Workload::instantiate(guid).expect("known GUID");
    m.initialize(0.0).expect("initialize");
    m
}

fn get(m: &impl Model, vr: u32) -> f64 {
    m.get_real(vr).expect("readable")
}

#[test]
fn guid_dispatch() {
    assert!(matches!(
        Workload::instantiate(SCALE_GUID),
        Some(Workload::Scale(_))
    ));
    assert!(matches!(
        Workload::instantiate(SCALE_ONCE_GUID),
        Some(Workload::Scale(_))
    ));
    assert!(matches!(
        Workload::instantiate(BUSY_GUID),
        Some(Workload::Busy(_))
    ));
    assert!(Workload::instantiate("Scale").is_none());
    assert_eq!(init(SCALE_GUID).variables(), SCALE_VARIABLES);
    assert_eq!(init(SCALE_ONCE_GUID).variables(), SCALE_VARIABLES);
    assert_eq!(init(BUSY_GUID).variables(), BUSY_VARIABLES);
}

#[test]
fn y_is_k_u_plus_offset_with_direct_feedthrough() {
    for guid in [SCALE_GUID, SCALE_ONCE_GUID, BUSY_GUID] {
        let mut m = init(guid);
        if guid == BUSY_GUID {
            m.set_real(VR_WORK_MICROS, 1.0).expect("set");
        }
        assert_eq!(get(&m, VR_Y), 0.0, "start: k = 1, u = 0, offset = 0");
        m.set_real(VR_K, -2.5).expect("set k");
        m.set_real(VR_OFFSET, 0.25).expect("set offset");
        m.initialize(0.0).expect("initialize");
        m.set_real(VR_U, 3.0).expect("set u");
        assert_eq!(get(&m, VR_Y), -7.25, "{guid}: at once, before any step");
        let mut t = 0.0;
        for _ in 0..10 {
            assert_eq!(m.do_step(t, 0.1), StepOutcome::Completed);
            t += 0.1;
            assert_eq!(get(&m, VR_Y), -7.25, "no state, no time");
        }
        m.set_real(VR_U, -1.0).expect("set u");
        assert_eq!(get(&m, VR_Y), 2.75);
        assert_eq!((get(&m, VR_K), get(&m, VR_OFFSET)), (-2.5, 0.25));
    }
}

#[test]
fn values_must_be_finite_and_work_micros_non_negative() {
    for guid in [SCALE_GUID, BUSY_GUID] {
        let mut m = init(guid);
        for vr in [VR_U, VR_K, VR_OFFSET] {
            for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                assert!(matches!(
                    m.set_real(vr, bad),
                    Err(ModelError::InvalidValue { .. })
                ));
            }
        }
        assert!(m.set_real(VR_Y, 1.0).is_err(), "y is an output");
    }
    let mut scale = init(SCALE_GUID);
    assert!(scale.set_real(VR_WORK_MICROS, 1.0).is_err(), "Busy only");
    assert!(scale.get_real(VR_WORK).is_err());
    let mut busy = init(BUSY_GUID);
    assert_eq!(get(&busy, VR_WORK_MICROS), DEFAULT_WORK_MICROS);
    assert!(busy.set_real(VR_WORK_MICROS, -1.0).is_err());
    assert!(busy.set_real(VR_WORK_MICROS, f64::INFINITY).is_err());
    busy.set_real(VR_WORK_MICROS, 0.0)
        .expect("no work is allowed");
    assert_eq!(busy.do_step(0.0, 1.0), StepOutcome::Completed);
}

#[test]
fn directional_derivatives() {
    for guid in [SCALE_GUID, BUSY_GUID] {
        let mut m = init(guid);
        m.set_real(VR_K, 2.0).expect("set");
        m.set_real(VR_U, 5.0).expect("set");
        let mut dv = [f64::NAN];
        let result = m.directional_derivative(
            &[VR_Y],
            &[VR_U, VR_K, VR_OFFSET],
            &[1.0, 10.0, 100.0],
            &mut dv,
        );
        assert_eq!(result, Some(Ok(())));
        assert_eq!(dv, [2.0 + 50.0 + 100.0], "{guid}");
        let err = m.directional_derivative(&[VR_U], &[VR_K], &[1.0], &mut dv);
        assert!(matches!(err, Some(Err(ModelError::NoDerivative { .. }))));
    }
    let m = init(BUSY_GUID);
    let mut dv = [f64::NAN];
    let zero = m.directional_derivative(&[VR_Y], &[VR_WORK_MICROS], &[1.0], &mut dv);
    assert_eq!((zero, dv), (Some(Ok(())), [0.0]));
    let none = m.directional_derivative(&[VR_WORK], &[VR_U], &[1.0], &mut dv);
    assert!(matches!(none, Some(Err(ModelError::NoDerivative { .. }))));
}

#[test]
fn spin_is_a_fixed_function() {
    assert_eq!(spin(0, 42), 42);
    // One round by hand.
    let seed = 0x1234_5678_9abc_def0_u64;
    let x = seed ^ (seed >> 29);
    assert_eq!(spin(1, seed), x.wrapping_mul(0xbf58_476d_1ce4_e5b9));
    assert_eq!(spin(3, SPIN_SEED), spin(1, spin(2, SPIN_SEED)));
    // Pinned, so that a change of the computation (and so of every `work` output) is noticed.
    assert_eq!(spin(1000, SPIN_SEED), PINNED_SPIN_1000);
    assert_eq!(iterations(DEFAULT_WORK_MICROS), 500_000);
    assert_eq!(iterations(0.0), 0);
    assert_eq!(iterations(0.0011), 1, "rounded to the nearest");
    assert_eq!(iterations(1e300), u64::MAX, "saturates");
    assert_eq!(work_value(0), 0.0);
    assert_eq!(work_value(u64::MAX), 1.0 - f64::EPSILON / 2.0);
}

/// `spin(1000, SPIN_SEED)`.
const PINNED_SPIN_1000: u64 = 0xcf25_3768_cf96_101f;

/// Runs a Busy instance through `inputs`, one step of 0.1 s each, and returns `work` after
/// every step.
fn busy_run(work_micros: f64, inputs: &[f64]) -> Vec<u64> {
    let mut m = init(BUSY_GUID);
    m.set_real(VR_WORK_MICROS, work_micros).expect("set");
    m.initialize(0.0).expect("initialize");
    assert_eq!(get(&m, VR_WORK), work_value(SPIN_SEED));
    let mut t = 0.0;
    inputs
        .iter()
        .map(|&u| {
            m.set_real(VR_U, u).expect("set u");
            assert_eq!(m.do_step(t, 0.1), StepOutcome::Completed);
            t += 0.1;
            get(&m, VR_WORK).to_bits()
        })
        .collect()
}

#[test]
fn busy_work_is_deterministic_across_threads_and_depends_on_the_inputs() {
    let inputs: Vec<f64> = (0..20).map(|i| f64::from(i) * 0.5 - 3.0).collect();
    let serial = busy_run(20.0, &inputs);
    // The same, by hand.
    let mut d = SPIN_SEED;
    let expected: Vec<u64> = inputs
        .iter()
        .map(|&u| {
            d = next_digest(d, u, iterations(20.0));
            work_value(d).to_bits()
        })
        .collect();
    assert_eq!(serial, expected);
    // Many threads at once give the same bits.
    let parallel: Vec<Vec<u64>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| s.spawn(|| busy_run(20.0, &inputs)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("no panic"))
            .collect()
    });
    for run in parallel {
        assert_eq!(run, serial);
    }
    // Another input sequence or amount of work gives another digest.
    let mut other = inputs.clone();
    other[7] = 1e-300;
    assert_ne!(busy_run(20.0, &other).last(), serial.last());
    assert_ne!(busy_run(21.0, &inputs).last(), serial.last());
}

#[test]
fn busy_digest_is_part_of_the_state_and_reset_by_initialization() {
    let mut m = init(BUSY_GUID);
    m.set_real(VR_WORK_MICROS, 2.0).expect("set");
    m.set_real(VR_U, 1.5).expect("set");
    assert_eq!(m.do_step(0.0, 1.0), StepOutcome::Completed);
    let saved = m.clone();
    assert_eq!(m.do_step(1.0, 1.0), StepOutcome::Completed);
    let after_two = get(&m, VR_WORK);
    let mut again = saved;
    assert_eq!(again.do_step(1.0, 1.0), StepOutcome::Completed);
    assert_eq!(get(&again, VR_WORK).to_bits(), after_two.to_bits());
    m.initialize(0.0).expect("initialize");
    assert_eq!(get(&m, VR_WORK), work_value(SPIN_SEED));
}

/// The FMI functions of `fmu_support::fmi2` for the workload models, as the packed library
/// exports them.
fn instantiate(guid: &str) -> fmi2::Component {
    let callbacks = fmi2::CallbackFunctions {
        logger: None,
        allocate_memory: None,
        free_memory: None,
        step_finished: None,
        component_environment: ptr::null_mut(),
    };
    let guid = CString::new(guid).expect("no NUL");
    // SAFETY: valid NUL-terminated strings and a callback struct that outlive the call.
    unsafe {
        fmi2::instantiate::<Workload>(
            c"workload".as_ptr(),
            fmi2::CO_SIMULATION,
            guid.as_ptr(),
            ptr::null(),
            &raw const callbacks,
            fmi2::FALSE,
            fmi2::FALSE,
        )
    }
}

fn free(c: fmi2::Component) {
    // SAFETY: a live instance (or null, which is ignored), freed once.
    unsafe { fmi2::free_instance::<Workload>(c) }
}

/// The only test that instantiates ScaleOnce through the FMI functions: the live-instance
/// counter is process-wide and tests run in parallel.
#[test]
fn scale_once_refuses_a_second_live_instance() {
    assert_eq!(scale_once_live(), 0);
    let first = instantiate(SCALE_ONCE_GUID);
    assert!(!first.is_null());
    assert_eq!(scale_once_live(), 1);
    assert!(
        instantiate(SCALE_ONCE_GUID).is_null(),
        "second live instance"
    );
    // Scale, with the same model type, is not limited.
    let scales: Vec<_> = (0..3).map(|_| instantiate(SCALE_GUID)).collect();
    assert!(scales.iter().all(|c| !c.is_null()));
    // Neither a reset nor FMU states free the place.
    let mut state = ptr::null_mut();
    // SAFETY: a live instance, used by this thread only, and a writable state slot.
    unsafe {
        assert_eq!(fmi2::reset::<Workload>(first), fmi2::STATUS_OK);
        assert_eq!(
            fmi2::setup_experiment::<Workload>(first, 0, 0.0, 0.0, 0, 0.0),
            fmi2::STATUS_OK
        );
        assert_eq!(
            fmi2::enter_initialization_mode::<Workload>(first),
            fmi2::STATUS_OK
        );
        assert_eq!(
            fmi2::get_fmu_state::<Workload>(first, &raw mut state),
            fmi2::STATUS_OK
        );
    }
    assert!(instantiate(SCALE_ONCE_GUID).is_null());
    free(first);
    free(first);
    assert_eq!(scale_once_live(), 0, "freed once, released once");
    let second = instantiate(SCALE_ONCE_GUID);
    assert!(!second.is_null(), "possible again after the free");
    // From another thread too (the component pointer is sent as an address).
    let refused = std::thread::spawn(|| instantiate(SCALE_ONCE_GUID).is_null())
        .join()
        .expect("no panic");
    assert!(refused);
    free(second);
    let addr = std::thread::spawn(|| instantiate(SCALE_ONCE_GUID).expose_provenance())
        .join()
        .expect("no panic");
    assert_ne!(addr, 0, "another thread may hold the one instance");
    free(ptr::with_exposed_provenance_mut(addr));
    for c in scales {
        free(c);
    }
    assert_eq!(scale_once_live(), 0);
}

#[test]
fn scale_once_counter_through_the_model_trait() {
    // Only non-ScaleOnce GUIDs here, so that this test cannot race with the one above.
    for guid in [SCALE_GUID, BUSY_GUID, "unknown"] {
        for _ in 0..3 {
            assert_eq!(Workload::acquire_instance(guid), Ok(()));
        }
        Workload::release_instance(guid);
    }
}

#[test]
fn model_descriptions_match_the_tables() {
    let root = workspace_root();
    for (name, guid, table, outputs, once) in [
        ("Scale", SCALE_GUID, SCALE_VARIABLES, &[2][..], false),
        (
            "ScaleOnce",
            SCALE_ONCE_GUID,
            SCALE_VARIABLES,
            &[2][..],
            true,
        ),
        ("Busy", BUSY_GUID, BUSY_VARIABLES, &[2, 6][..], false),
    ] {
        let spec = MODELS
            .iter()
            .find(|m| m.name == name)
            .expect("listed in the packer");
        assert_eq!(spec.package, env!("CARGO_PKG_NAME"));
        let md = spec.read_model_description(&root).expect("readable XML");
        assert_eq!(md.fmi_version, FmiVersion::V2);
        assert_eq!(md.model_identifier, name);
        assert_eq!(md.mismatches(guid, table), Vec::<String>::new(), "{name}");
        assert_eq!(md.outputs, outputs, "{name}");
        let m = Workload::instantiate(guid).expect("known GUID");
        for x in md.variables.iter().filter(|x| x.start.is_some()) {
            let start: f64 = x.start.as_deref().expect("start").parse().expect("number");
            assert_eq!(m.get_real(x.vr), Ok(start), "{name}.{}", x.name);
        }
        for x in &md.variables {
            assert_eq!(
                x.index as u32, x.vr,
                "{name}.{}: vr equals the index",
                x.name
            );
        }
        let text = std::fs::read_to_string(spec.xml_path(&root)).expect("readable");
        let attribute = format!("canBeInstantiatedOnlyOncePerProcess=\"{once}\"");
        assert!(text.contains(&attribute), "{name}: {attribute}");
    }
}
