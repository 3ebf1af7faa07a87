use std::ptr;

use fmu_lotka_volterra::LotkaVolterra;
use fmu_packer::{MODELS3, workspace_root};
use fmu_support::{fmi2, fmi3};

use super::*;

#[test]
fn model_descriptions_match_the_tables_and_the_fmi2_twins() {
    let root = workspace_root();
    for (name, token, table, fmi2_table) in [
        ("Prey3", PREY3_TOKEN, PREY3_VARIABLES, PREY_VARIABLES),
        (
            "Predator3",
            PREDATOR3_TOKEN,
            PREDATOR3_VARIABLES,
            PREDATOR_VARIABLES,
        ),
    ] {
        let spec = MODELS3
            .iter()
            .find(|m| m.name == name)
            .expect("listed in the packer");
        assert_eq!(spec.package, env!("CARGO_PKG_NAME"));
        let md = spec.read_model_description(&root).expect("readable XML");
        assert_eq!(md.mismatches3(token, table), Vec::<String>::new(), "{name}");
        let mut model = LotkaVolterra3::instantiate(token).expect("known token");
        model.initialize(0.0).expect("initialize");
        assert_eq!(md.start_mismatches3(&model), Vec::<String>::new(), "{name}");
        // Same names and value references as the FMI 2.0 FMU, Real → Float64.
        let same: Vec<_> = fmi2_table.iter().map(|v| (v.name, v.vr)).collect();
        let twin: Vec<_> = table.iter().map(|v| (v.name, v.vr)).collect();
        assert_eq!(same, twin, "{name}");
        for (capability, value) in [
            ("canGetAndSetFMUState", "true"),
            ("canSerializeFMUState", "false"),
            ("canHandleVariableCommunicationStepSize", "true"),
            ("hasEventMode", "false"),
            ("mightReturnEarlyFromDoStep", "false"),
            ("providesDirectionalDerivatives", "false"),
        ] {
            assert_eq!(
                md.capability(capability),
                Some(value),
                "{name}.{capability}"
            );
        }
        assert!(!model.has_event_mode() && !model.might_return_early());
        assert_eq!(model.next_event_time(), None);
    }
}

#[test]
fn tokens_pick_the_twins_and_guids_do_not() {
    assert!(matches!(
        LotkaVolterra3::instantiate(PREY3_TOKEN),
        Some(LotkaVolterra3::Prey3(_))
    ));
    assert!(matches!(
        LotkaVolterra3::instantiate(PREDATOR3_TOKEN),
        Some(LotkaVolterra3::Predator3(_))
    ));
    assert!(LotkaVolterra3::instantiate(PREY_GUID).is_none());
    assert!(LotkaVolterra::instantiate(PREY3_TOKEN).is_none());
}

/// One FMU of either version behind the C entry points of fmu-support, as an importer sees it.
trait Slave {
    fn set(&mut self, vr: u32, value: f64);
    fn get(&self, vr: u32) -> f64;
    fn step(&mut self, t: f64, h: f64, no_set_prior: bool);
    fn save(&mut self) -> *mut std::ffi::c_void;
    fn restore(&mut self, state: *mut std::ffi::c_void);
}

struct Two(fmi2::Component);
struct Three(fmi3::Instance);

impl Two {
    fn new(guid: &std::ffi::CStr) -> Self {
        let callbacks = fmi2::CallbackFunctions {
            logger: None,
            allocate_memory: None,
            free_memory: None,
            step_finished: None,
            component_environment: ptr::null_mut(),
        };
        // SAFETY: NUL-terminated strings and a callback struct that outlive the call.
        let c = unsafe {
            fmi2::instantiate::<LotkaVolterra>(
                c"two".as_ptr(),
                fmi2::CO_SIMULATION,
                guid.as_ptr(),
                ptr::null(),
                &raw const callbacks,
                fmi2::FALSE,
                fmi2::FALSE,
            )
        };
        assert!(!c.is_null());
        // SAFETY: a live instance of this thread.
        unsafe {
            let ok = fmi2::STATUS_OK;
            assert_eq!(
                fmi2::setup_experiment::<LotkaVolterra>(c, 0, 0.0, 0.0, 0, 0.0),
                ok
            );
            assert_eq!(fmi2::enter_initialization_mode::<LotkaVolterra>(c), ok);
            assert_eq!(fmi2::exit_initialization_mode::<LotkaVolterra>(c), ok);
        }
        Self(c)
    }
}

impl Drop for Two {
    fn drop(&mut self) {
        // SAFETY: a live instance of this thread, not used afterwards.
        unsafe { fmi2::free_instance::<LotkaVolterra>(self.0) }
    }
}

impl Slave for Two {
    fn set(&mut self, vr: u32, value: f64) {
        // SAFETY: a live instance; one value reference and one value.
        let status = unsafe { fmi2::set_real::<LotkaVolterra>(self.0, &vr, 1, &value) };
        assert_eq!(status, fmi2::STATUS_OK);
    }
    fn get(&self, vr: u32) -> f64 {
        let mut value = f64::NAN;
        // SAFETY: a live instance; one value reference and one slot.
        let status = unsafe { fmi2::get_real::<LotkaVolterra>(self.0, &vr, 1, &mut value) };
        assert_eq!(status, fmi2::STATUS_OK);
        value
    }
    fn step(&mut self, t: f64, h: f64, no_set_prior: bool) {
        let flag = fmi2::Boolean::from(no_set_prior);
        // SAFETY: a live instance.
        let status = unsafe { fmi2::do_step::<LotkaVolterra>(self.0, t, h, flag) };
        assert_eq!(status, fmi2::STATUS_OK);
    }
    fn save(&mut self) -> *mut std::ffi::c_void {
        let mut state = ptr::null_mut();
        // SAFETY: a live instance; a pointer to a live local.
        let status = unsafe { fmi2::get_fmu_state::<LotkaVolterra>(self.0, &mut state) };
        assert_eq!(status, fmi2::STATUS_OK);
        state
    }
    fn restore(&mut self, state: *mut std::ffi::c_void) {
        // SAFETY: a live instance and one of its states.
        let status = unsafe { fmi2::set_fmu_state::<LotkaVolterra>(self.0, state) };
        assert_eq!(status, fmi2::STATUS_OK);
    }
}

impl Three {
    fn new(token: &std::ffi::CStr) -> Self {
        // SAFETY: NUL-terminated strings that outlive the call; no callbacks.
        let c = unsafe {
            fmi3::instantiate_co_simulation::<LotkaVolterra3>(
                c"three".as_ptr(),
                token.as_ptr(),
                ptr::null(),
                fmi3::FALSE,
                fmi3::FALSE,
                fmi3::FALSE,
                fmi3::FALSE,
                ptr::null(),
                0,
                ptr::null_mut(),
                None,
                None,
            )
        };
        assert!(!c.is_null());
        // SAFETY: a live instance of this thread.
        unsafe {
            let ok = fmi3::STATUS_OK;
            assert_eq!(
                fmi3::enter_initialization_mode::<LotkaVolterra3>(
                    c,
                    fmi3::FALSE,
                    0.0,
                    0.0,
                    fmi3::FALSE,
                    0.0
                ),
                ok
            );
            assert_eq!(fmi3::exit_initialization_mode::<LotkaVolterra3>(c), ok);
        }
        Self(c)
    }
}

impl Drop for Three {
    fn drop(&mut self) {
        // SAFETY: a live instance of this thread, not used afterwards.
        unsafe { fmi3::free_instance::<LotkaVolterra3>(self.0) }
    }
}

impl Slave for Three {
    fn set(&mut self, vr: u32, value: f64) {
        // SAFETY: a live instance; one value reference and one value.
        let status = unsafe { fmi3::set_float64::<LotkaVolterra3>(self.0, &vr, 1, &value, 1) };
        assert_eq!(status, fmi3::STATUS_OK);
    }
    fn get(&self, vr: u32) -> f64 {
        let mut value = f64::NAN;
        // SAFETY: a live instance; one value reference and one slot.
        let status = unsafe { fmi3::get_float64::<LotkaVolterra3>(self.0, &vr, 1, &mut value, 1) };
        assert_eq!(status, fmi3::STATUS_OK);
        value
    }
    fn step(&mut self, t: f64, h: f64, no_set_prior: bool) {
        let (mut event, mut terminate, mut early, mut last) = (true, true, true, f64::NAN);
        // SAFETY: a live instance; pointers to live locals.
        let status = unsafe {
            fmi3::do_step::<LotkaVolterra3>(
                self.0,
                t,
                h,
                no_set_prior,
                &mut event,
                &mut terminate,
                &mut early,
                &mut last,
            )
        };
        assert_eq!(status, fmi3::STATUS_OK);
        assert!(!event && !terminate && !early);
        assert_eq!(last, t + h);
    }
    fn save(&mut self) -> *mut std::ffi::c_void {
        let mut state = ptr::null_mut();
        // SAFETY: a live instance; a pointer to a live local.
        let status = unsafe { fmi3::get_fmu_state::<LotkaVolterra3>(self.0, &mut state) };
        assert_eq!(status, fmi3::STATUS_OK);
        state
    }
    fn restore(&mut self, state: *mut std::ffi::c_void) {
        // SAFETY: a live instance and one of its states.
        let status = unsafe { fmi3::set_fmu_state::<LotkaVolterra3>(self.0, state) };
        assert_eq!(status, fmi3::STATUS_OK);
    }
}

/// A fixed-point iterated co-simulation (Gauss–Seidel, Prey first, `iterations` sweeps per
/// step, each after rolling both FMUs back with FMU states) with varying step sizes. Returns
/// every `(x, y)` after each step, as bits.
fn iterated(prey: &mut dyn Slave, predator: &mut dyn Slave, iterations: usize) -> Vec<[u64; 2]> {
    let mut trace = Vec::new();
    let mut t = 0.0;
    for k in 0..300 {
        let h = [0.01, 0.02, 0.005][k % 3];
        let (prey_state, predator_state) = (prey.save(), predator.save());
        for i in 0..iterations {
            if i > 0 {
                prey.restore(prey_state);
                predator.restore(predator_state);
            }
            let last = i + 1 == iterations;
            prey.set(VR_PREY_Y, predator.get(VR_PREDATOR_Y));
            prey.step(t, h, last);
            predator.set(VR_PREDATOR_X, prey.get(VR_PREY_X));
            predator.step(t, h, last);
        }
        t += h;
        trace.push([
            prey.get(VR_PREY_X).to_bits(),
            predator.get(VR_PREDATOR_Y).to_bits(),
        ]);
    }
    trace
}

#[test]
fn twins_compute_the_fmi2_results_bit_for_bit() {
    for iterations in [1, 3] {
        let fmi2 = iterated(
            &mut Two::new(c"{c35f0414-d94e-4703-be0c-f1316c9ba34d}"),
            &mut Two::new(c"{eb85e9cb-bdc1-496f-ac98-acb22369d22e}"),
            iterations,
        );
        let fmi3 = iterated(
            &mut Three::new(c"{1150abed-3fe0-48da-9a71-87d042cc5e79}"),
            &mut Three::new(c"{bd3c83cd-b115-4c0d-806f-39145acc2038}"),
            iterations,
        );
        assert_eq!(fmi2, fmi3, "{iterations} sweeps per step");
    }
}

#[test]
fn jacobi_through_fmi3_is_the_closed_form_discrete_result() {
    let p = Parameters::default();
    let (mut prey, mut predator) = (
        Three::new(c"{1150abed-3fe0-48da-9a71-87d042cc5e79}"),
        Three::new(c"{bd3c83cd-b115-4c0d-806f-39145acc2038}"),
    );
    let h = 0.01;
    for k in 0..500 {
        let t = k as f64 * h;
        let (x, y) = (prey.get(VR_PREY_X), predator.get(VR_PREDATOR_Y));
        prey.set(VR_PREY_Y, y);
        predator.set(VR_PREDATOR_X, x);
        prey.step(t, h, true);
        predator.step(t, h, true);
    }
    let expected = fixed_step_cosimulation(&p, h, 500, Coupling::Jacobi);
    assert_eq!(prey.get(VR_PREY_X).to_bits(), expected.0.to_bits());
    assert_eq!(predator.get(VR_PREDATOR_Y).to_bits(), expected.1.to_bits());
}

#[test]
fn serialization_works_although_undeclared() {
    let mut a = Three::new(c"{1150abed-3fe0-48da-9a71-87d042cc5e79}");
    a.set(VR_PREY_Y, 3.0);
    a.step(0.0, 0.25, true);
    let state = a.save();
    let mut size = 0;
    // SAFETY: live instances of this thread; buffers of the sizes passed.
    unsafe {
        assert_eq!(
            fmi3::serialized_fmu_state_size::<LotkaVolterra3>(a.0, state, &mut size),
            fmi3::STATUS_OK
        );
        let mut bytes = vec![0u8; size];
        assert_eq!(
            fmi3::serialize_fmu_state::<LotkaVolterra3>(a.0, state, bytes.as_mut_ptr(), size),
            fmi3::STATUS_OK
        );
        let mut b = Three::new(c"{1150abed-3fe0-48da-9a71-87d042cc5e79}");
        let mut copy = ptr::null_mut();
        assert_eq!(
            fmi3::deserialize_fmu_state::<LotkaVolterra3>(b.0, bytes.as_ptr(), size, &mut copy),
            fmi3::STATUS_OK
        );
        b.restore(copy);
        a.step(0.25, 0.5, true);
        b.step(0.25, 0.5, true);
        assert_eq!(a.get(VR_PREY_X).to_bits(), b.get(VR_PREY_X).to_bits());
    }
}
