//! Unit tests through the C entry points (`fmu_support::fmi2` and `fmu_support::fmi2_me`,
//! monomorphized for this crate's models, exactly what the exported symbols call), driven by a
//! small Model Exchange importer with fixed-step RK4, time events and state events located by
//! bisection; and the modelDescriptions against the tables.

mod driver;
mod driver3;

use std::ptr;

use fmu_packer::{MODELS_ME, workspace_root};
use fmu_support::fmi2::{self, STATUS_ERROR, STATUS_OK};
use fmu_support::{MeModel, Model, ModelExchange, fmi2_me};

use super::*;
use driver::{Api, Driver, Instance};
use driver3::Instance3;

type M = ModelExchangeModels;

#[test]
fn model_descriptions_match_the_tables_and_the_starts() {
    let root = workspace_root();
    let cases: [(&str, &str, &[fmu_support::Variable]); 8] = [
        ("Linear", LINEAR_GUID, LINEAR_VARIABLES),
        ("LinearDual", LINEAR_DUAL_GUID, LINEAR_VARIABLES),
        ("Bounce", BOUNCE_GUID, BOUNCE_VARIABLES),
        ("Steps", STEPS_GUID, STEPS_VARIABLES),
        ("Robertson", ROBERTSON_GUID, ROBERTSON_VARIABLES),
        ("Plant", PLANT_GUID, PLANT_VARIABLES),
        (
            "NanDerivative",
            NAN_DERIVATIVE_GUID,
            NAN_DERIVATIVE_VARIABLES,
        ),
        ("EventLoop", EVENT_LOOP_GUID, EVENT_LOOP_VARIABLES),
    ];
    assert_eq!(
        cases.len() + 2,
        MODELS_ME.len(),
        "and Linear3, Bounce3 below"
    );
    for (name, guid, table) in cases {
        let spec = MODELS_ME
            .iter()
            .find(|m| m.name == name)
            .expect("listed in the packer");
        assert_eq!(spec.package, env!("CARGO_PKG_NAME"));
        let md = spec.read_model_description(&root).expect("readable XML");
        assert_eq!(md.mismatches(guid, table), Vec::<String>::new(), "{name}");
        let model = M::instantiate(guid).expect("known GUID");
        let (n, nz) = (model.number_of_states(), model.number_of_event_indicators());
        assert_eq!(md.me_mismatches(n, nz), Vec::<String>::new(), "{name}");
        assert_eq!(
            md.co_simulation.is_empty(),
            !model.co_simulation(),
            "{name}"
        );
        for x in md.variables.iter().filter(|x| x.start.is_some()) {
            let start: f64 = x.start.as_deref().expect("start").parse().expect("number");
            assert_eq!(
                model.get_real(x.vr).expect("readable"),
                start,
                "{name}.{}",
                x.name
            );
        }
    }
}

#[test]
fn linear_follows_its_closed_form() {
    let p = LinearParameters::default();
    let mut driver = Driver::new(LINEAR_GUID, 1e-3);
    let mut worst: f64 = 0.0;
    driver.run(10.0, 0.1, |t, fmu| {
        let (x, v) = linear_solution(t, &p);
        worst = worst
            .max((fmu.real(VR_LINEAR_X) - x).abs())
            .max((fmu.real(VR_LINEAR_V) - v).abs());
    });
    assert!(worst < 1e-10, "RK4 with h = 1 ms: max error {worst}");
    assert_eq!(driver.state_events, 0);
}

#[test]
fn linear_derivatives_and_nominals_through_the_c_api() {
    let fmu = Instance::new(LINEAR_GUID, fmi2::MODEL_EXCHANGE).expect("instantiated");
    fmu.set_real(VR_LINEAR_X0, 0.5)
        .expect("parameter before initialization");
    fmu.initialize();
    assert_eq!(fmu.states(), [0.5, 0.0]);
    assert_eq!(fmu.nominals(), [1.0, 1.0]);
    // der(v) = -omega^2 x - 2 zeta omega v = -4 * 0.5
    assert_eq!(fmu.derivatives(), [0.0, -2.0]);
    assert_eq!(fmu.real(VR_LINEAR_DER_V), -2.0);
}

#[test]
fn linear_dual_runs_as_co_simulation_with_rk4() {
    let p = LinearParameters::default();
    let fmu = Instance::new(LINEAR_DUAL_GUID, fmi2::CO_SIMULATION).expect("instantiated");
    fmu.initialize();
    let mut t = 0.0;
    for _ in 0..100 {
        // SAFETY: a live instance of this model type.
        let status = unsafe { fmi2::do_step::<ModelExchange<M>>(fmu.c, t, 0.05, fmi2::TRUE) };
        assert_eq!(status, STATUS_OK);
        t += 0.05;
    }
    let (x, v) = linear_solution(t, &p);
    assert!((fmu.real(VR_LINEAR_X) - x).abs() < 1e-10);
    assert!((fmu.real(VR_LINEAR_V) - v).abs() < 1e-10);
    // The Model Exchange functions are refused on a co-simulation instance.
    // SAFETY: as above.
    let status = unsafe { fmi2_me::enter_event_mode::<M>(fmu.c) };
    assert_eq!(status, STATUS_ERROR);
}

#[test]
fn model_exchange_only_fmus_refuse_co_simulation_and_do_step() {
    assert!(Instance::new(LINEAR_GUID, fmi2::CO_SIMULATION).is_none());
    assert!(Instance::new("{not a guid}", fmi2::MODEL_EXCHANGE).is_none());
    let fmu = Instance::new(LINEAR_GUID, fmi2::MODEL_EXCHANGE).expect("instantiated");
    fmu.initialize();
    // SAFETY: a live instance of this model type.
    let status = unsafe { fmi2::do_step::<ModelExchange<M>>(fmu.c, 0.0, 0.1, fmi2::TRUE) };
    assert_eq!(status, STATUS_ERROR);
}

#[test]
fn the_model_exchange_call_sequence_is_enforced() {
    let fmu = Instance::new(BOUNCE_GUID, fmi2::MODEL_EXCHANGE).expect("instantiated");
    let x = [1.0, 0.0];
    // SAFETY: live instance; arrays of the stated lengths.
    unsafe {
        assert_eq!(
            fmi2_me::set_time::<M>(fmu.c, 0.0),
            STATUS_ERROR,
            "before init"
        );
    }
    let fmu = Instance::new(BOUNCE_GUID, fmi2::MODEL_EXCHANGE).expect("instantiated");
    fmu.initialize();
    // SAFETY: as above.
    unsafe {
        // Event Mode after initialization: no continuous states yet.
        assert_eq!(
            fmi2_me::set_continuous_states::<M>(fmu.c, x.as_ptr(), 2),
            STATUS_ERROR
        );
    }
    let fmu = Instance::new(BOUNCE_GUID, fmi2::MODEL_EXCHANGE).expect("instantiated");
    fmu.initialize();
    fmu.event_iteration();
    fmu.enter_continuous_time_mode();
    // SAFETY: as above.
    unsafe {
        assert_eq!(
            fmi2_me::set_continuous_states::<M>(fmu.c, x.as_ptr(), 2),
            STATUS_OK
        );
        let mut dx = [0.0; 3];
        assert_eq!(
            fmi2_me::get_derivatives::<M>(fmu.c, dx.as_mut_ptr(), 3),
            STATUS_ERROR,
            "nx"
        );
    }
    let fmu = Instance::new(BOUNCE_GUID, fmi2::MODEL_EXCHANGE).expect("instantiated");
    fmu.initialize();
    fmu.event_iteration();
    fmu.enter_continuous_time_mode();
    let mut info = fmi2_me::EventInfo::default();
    // SAFETY: as above.
    unsafe {
        assert_eq!(fmi2_me::set_time::<M>(fmu.c, 0.5), STATUS_OK);
        assert_eq!(
            fmi2_me::set_time::<M>(fmu.c, 0.25),
            STATUS_OK,
            "back in time"
        );
        assert_eq!(fmi2_me::set_time::<M>(fmu.c, f64::NAN), STATUS_ERROR);
    }
    let fmu = Instance::new(BOUNCE_GUID, fmi2::MODEL_EXCHANGE).expect("instantiated");
    fmu.initialize();
    fmu.event_iteration();
    fmu.enter_continuous_time_mode();
    // SAFETY: as above.
    unsafe {
        let status = fmi2_me::new_discrete_states::<M>(fmu.c, &raw mut info);
        assert_eq!(status, STATUS_ERROR, "not in Continuous-Time Mode");
        assert_eq!(
            fmi2_me::get_derivatives::<M>(fmu.c, ptr::null_mut(), 2),
            STATUS_ERROR
        );
    }
}

#[test]
fn fmu_states_restore_states_time_and_mode() {
    let fmu = Instance::new(LINEAR_GUID, fmi2::MODEL_EXCHANGE).expect("instantiated");
    fmu.initialize();
    fmu.event_iteration();
    fmu.enter_continuous_time_mode();
    let mut state: fmi2::FmuState = ptr::null_mut();
    // SAFETY: live instance; `state` is a valid out-pointer.
    unsafe {
        assert_eq!(
            fmi2::get_fmu_state::<ModelExchange<M>>(fmu.c, &raw mut state),
            STATUS_OK
        );
    }
    fmu.set_time(0.5);
    fmu.set_states(&[3.0, 4.0]);
    fmu.enter_event_mode();
    // SAFETY: as above; `state` is a state of this instance.
    unsafe {
        assert_eq!(
            fmi2::set_fmu_state::<ModelExchange<M>>(fmu.c, state),
            STATUS_OK
        );
    }
    assert_eq!(fmu.states(), [1.0, 0.0]);
    fmu.set_states(&[2.0, 0.0]); // allowed again: back in Continuous-Time Mode
    fmu.set_time(0.0); // and at t = 0
    // SAFETY: as above.
    unsafe {
        assert_eq!(
            fmi2::free_fmu_state::<ModelExchange<M>>(fmu.c, &raw mut state),
            STATUS_OK
        );
    }
}

#[test]
fn bounce_hits_the_analytic_impact_times_and_comes_to_rest() {
    let p = BounceParameters::default();
    let times = bounce_times(&p);
    assert_eq!(times.len(), 11);
    assert!((times[0] - (2.0 / 9.81_f64).sqrt()).abs() < 1e-15);
    let mut driver = Driver::new(BOUNCE_GUID, 1e-3);
    let mut worst: f64 = 0.0;
    driver.run(3.0, 0.01, |t, fmu| {
        let (h, v) = bounce_solution(t, &p);
        worst = worst
            .max((fmu.real(VR_BOUNCE_H) - h).abs())
            .max((fmu.real(VR_BOUNCE_V) - v).abs());
    });
    assert_eq!(
        driver.event_times.len(),
        times.len(),
        "{:?}",
        driver.event_times
    );
    for (found, exact) in driver.event_times.iter().zip(&times) {
        assert!(
            (found - exact).abs() < 1e-9,
            "impact at {found} s, exact {exact} s"
        );
    }
    assert!(worst < 1e-8, "max error {worst}");
    assert_eq!(driver.fmu.states(), [0.0, 0.0], "at rest");
}

#[test]
fn steps_needs_the_time_events() {
    let (period, extra) = (STEPS_PERIOD, STEPS_EXTRA_TIME);
    assert_eq!(
        steps_event_times(period, extra, 3.0),
        [0.5, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0]
    );
    let mut driver = Driver::new(STEPS_GUID, 0.1);
    let mut worst: f64 = 0.0;
    driver.run(3.0, 0.1, |t, fmu| {
        let (x, u) = steps_solution(t, period, extra);
        worst = worst
            .max((fmu.real(VR_STEPS_X) - x).abs())
            .max((fmu.real(VR_STEPS_U) - u).abs());
    });
    assert!(
        worst < 1e-12,
        "stopping at every time event: max error {worst}"
    );
    assert_eq!(driver.time_events, 7);
    // An importer that ignores nextEventTime (handles events only at its 0.1 s grid) steps over
    // 1.25 s and is visibly wrong from there on.
    let mut blind = Driver::new(STEPS_GUID, 0.1);
    blind.ignore_time_events = true;
    let mut error_at_end = 0.0;
    blind.run(3.0, 0.1, |t, fmu| {
        error_at_end = (fmu.real(VR_STEPS_X) - steps_solution(t, period, extra).0).abs();
    });
    assert!(
        error_at_end > 0.04,
        "stepping over 1.25 s: error {error_at_end}"
    );
}

#[test]
fn plant_follows_the_zero_order_hold_solution() {
    let h = 0.1;
    let mut driver = Driver::new(PLANT_GUID, 1e-3);
    let (mut x, mut v) = (0.0, 0.0);
    let mut worst: f64 = 0.0;
    for k in 0..50 {
        let t = f64::from(k) * h;
        let u = (1.3 * t).sin() + 0.5;
        driver.fmu.set_real(VR_PLANT_U, u).expect("input");
        driver.run(t + h, h, |_, _| {});
        (x, v) = plant_step(x, v, u, PLANT_M, PLANT_C, h);
        worst = worst
            .max((driver.fmu.real(VR_PLANT_X) - x).abs())
            .max((driver.fmu.real(VR_PLANT_V) - v).abs());
    }
    assert!(worst < 1e-12, "max error {worst}");
}

#[test]
fn nan_derivative_gives_nan_with_ok_from_t_nan() {
    let fmu = Instance::new(NAN_DERIVATIVE_GUID, fmi2::MODEL_EXCHANGE).expect("instantiated");
    fmu.initialize();
    fmu.event_iteration();
    fmu.enter_continuous_time_mode();
    fmu.set_time(0.4);
    assert_eq!(fmu.derivatives(), [-1.0]);
    fmu.set_time(0.5);
    assert!(fmu.derivatives()[0].is_nan(), "status OK, value NaN");
}

#[test]
fn event_loop_never_settles_at_t_loop() {
    let fmu = Instance::new(EVENT_LOOP_GUID, fmi2::MODEL_EXCHANGE).expect("instantiated");
    fmu.initialize();
    let info = fmu.event_iteration();
    assert_eq!(info.next_event_time_defined, fmi2::TRUE);
    assert_eq!(info.next_event_time, HOSTILE_T);
    fmu.enter_continuous_time_mode();
    fmu.set_time(HOSTILE_T);
    fmu.enter_event_mode();
    for _ in 0..1000 {
        let mut info = fmi2_me::EventInfo::default();
        // SAFETY: live instance; `info` is a valid out-pointer.
        let status = unsafe { fmi2_me::new_discrete_states::<M>(fmu.c, &raw mut info) };
        assert_eq!(status, STATUS_OK);
        assert_eq!(info.new_discrete_states_needed, fmi2::TRUE);
    }
}

#[test]
fn robertson_reference_values_hold() {
    let fmu = Instance::new(ROBERTSON_GUID, fmi2::MODEL_EXCHANGE).expect("instantiated");
    fmu.initialize();
    assert_eq!(fmu.nominals(), [1.0, 1e-4, 1.0]);
    let mut dy = [0.0; 3];
    robertson_rhs([0.04, 1e4, 3e7], &[1.0, 0.0, 0.0], &mut dy);
    assert_eq!(fmu.derivatives(), dy);
    let computed = driver::robertson_implicit(&ROBERTSON_REFERENCE.map(|(t, _)| t));
    for ((t, reference), y) in ROBERTSON_REFERENCE.iter().zip(&computed) {
        for i in 0..3 {
            let error = (y[i] - reference[i]).abs() / reference[i];
            assert!(
                error < 2e-5,
                "t = {t}: y{} = {} vs {}",
                i + 1,
                y[i],
                reference[i]
            );
        }
    }
}

#[test]
fn fmi3_model_descriptions_match_the_tables_and_the_starts() {
    let root = workspace_root();
    for (name, token, table) in [
        ("Linear3", LINEAR3_TOKEN, LINEAR3_VARIABLES),
        ("Bounce3", BOUNCE3_TOKEN, BOUNCE3_VARIABLES),
    ] {
        let spec = MODELS_ME.iter().find(|m| m.name == name).expect("listed");
        let md = spec.read_model_description(&root).expect("readable XML");
        assert_eq!(md.mismatches3(token, table), Vec::<String>::new(), "{name}");
        let mut model = M::instantiate(token).expect("known token");
        model.initialize(0.0).expect("initialize");
        assert_eq!(md.start_mismatches3(&model), Vec::<String>::new(), "{name}");
        let (n, nz) = (model.number_of_states(), model.number_of_event_indicators());
        assert_eq!(md.me_mismatches(n, nz), Vec::<String>::new(), "{name}");
    }
}

/// Runs the same driver over FMI 2.0 and FMI 3.0 and returns both records: every output at
/// every communication point, and the state event times.
fn twin_runs(guid: &str, token: &str, vrs: &[u32], t_end: f64) -> [(Vec<f64>, Vec<f64>); 2] {
    let mut two = Driver::new(guid, 1e-3);
    let mut three = Driver::with(Instance3::new(token), 1e-3);
    let mut record2 = Vec::new();
    two.run(t_end, 0.01, |_, fmu| {
        record2.extend(vrs.iter().map(|&vr| fmu.real(vr)))
    });
    let mut record3 = Vec::new();
    three.run(t_end, 0.01, |_, fmu| {
        record3.extend(vrs.iter().map(|&vr| fmu.real(vr)))
    });
    [(record2, two.event_times), (record3, three.event_times)]
}

#[test]
fn fmi3_twins_give_the_fmi2_results_bit_for_bit() {
    let [two, three] = twin_runs(
        LINEAR_GUID,
        LINEAR3_TOKEN,
        &[VR_LINEAR_X, VR_LINEAR_V],
        10.0,
    );
    assert_eq!(two, three, "Linear3");
    let [two, three] = twin_runs(BOUNCE_GUID, BOUNCE3_TOKEN, &[VR_BOUNCE_H, VR_BOUNCE_V], 3.0);
    assert_eq!(two.1.len(), 11);
    assert_eq!(two, three, "Bounce3");
}

#[test]
fn fmi3_model_exchange_calls_are_checked() {
    let fmu = Instance3::new(BOUNCE3_TOKEN);
    assert_eq!(fmu.sizes(), (2, 1));
    assert_eq!(fmu.real(VR_BOUNCE3_Z), 1.0, "z = h");
    // Event Mode after initialization: no continuous states yet.
    let x = [1.0, 0.0];
    // SAFETY: live instance; `x` has 2 elements.
    let status = unsafe { fmi3_me_set(&fmu, &x) };
    assert_eq!(status, fmu_support::fmi3::STATUS_ERROR);
    let fmu = Instance3::new(LINEAR3_TOKEN);
    assert_eq!(fmu.sizes(), (2, 0));
    fmu.iterate_events();
    fmu.enter_continuous_time_mode();
    fmu.set_states(&[0.5, 0.0]);
    assert_eq!(fmu.derivatives(), [0.0, -2.0]);
    let mut wrong = [0.0; 3];
    // SAFETY: live instance; `wrong` has 3 elements.
    let status = unsafe {
        fmu_support::fmi3_me::get_array::<M>(
            fmu.c,
            fmu_support::fmi3_me::Array::Derivatives,
            wrong.as_mut_ptr(),
            3,
        )
    };
    assert_eq!(status, fmu_support::fmi3::STATUS_ERROR, "nContinuousStates");
}

/// `fmi3SetContinuousStates` with `x`.
///
/// # Safety
/// `fmu` is live.
unsafe fn fmi3_me_set(fmu: &Instance3, x: &[f64]) -> i32 {
    // SAFETY: caller contract; `x` has `x.len()` elements.
    unsafe { fmu_support::fmi3_me::set_continuous_states::<M>(fmu.c, x.as_ptr(), x.len()) }
}
