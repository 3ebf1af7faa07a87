use std::ffi::CString;
use std::fs;
use std::ptr;

use fmu_packer::{MODELS, workspace_root};
use fmu_support::fmi2;

use super::*;

fn init<M: Model>(guid: &str) -> M {
    let mut m = M::instantiate(guid).expect("known GUID");
    m.initialize(0.0).expect("initialize");
    m
}

fn get(m: &impl Model, vr: u32) -> f64 {
    m.get_real(vr).expect("readable")
}

fn get_int(m: &impl Model, vr: u32) -> i32 {
    m.get_integer(vr).expect("readable")
}

fn set(m: &mut impl Model, vr: u32, value: f64) {
    m.set_real(vr, value).expect("settable");
}

/// Sets a value as in initialization mode, where the export layer re-initializes the model
/// after every set.
fn set_init(m: &mut impl Model, vr: u32, value: f64) {
    set(m, vr, value);
    m.initialize(0.0).expect("initialize");
}

fn step(m: &mut impl Model, t: f64, h: f64) {
    assert_eq!(m.do_step(t, h), StepOutcome::Completed, "step from {t} s");
}

// ---------------------------------------------------------------------------------------------
// Aircraft

#[test]
fn exact_step_solves_the_ode() {
    let (h, v, u, d) = (1.0, -0.5, 2.0, 0.5);
    assert_eq!(exact_step(h, v, u, d, 0.0), (h, v));
    let e = 1e-5;
    for t in [0.1, 1.0, 3.7] {
        let (_, v_t) = exact_step(h, v, u, d, t);
        let (h_p, v_p) = exact_step(h, v, u, d, t + e);
        let (h_m, v_m) = exact_step(h, v, u, d, t - e);
        let dh = (h_p - h_m) / (2.0 * e);
        let dv = (v_p - v_m) / (2.0 * e);
        assert!((dh - v_t).abs() < 1e-8, "t = {t}: dh/dt {dh} vs v {v_t}");
        assert!((dv - (u - d * v_t)).abs() < 1e-8, "t = {t}: dv/dt {dv}");
    }
    // Two steps compose; d = 0 is the limit of small d.
    let (h1, v1) = exact_step(h, v, u, d, 0.3);
    let (h2, v2) = exact_step(h1, v1, u, d, 0.7);
    let (h3, v3) = exact_step(h, v, u, d, 1.0);
    assert!((h2 - h3).abs() < 1e-14 && (v2 - v3).abs() < 1e-14);
    let (h0, v0) = exact_step(h, v, u, 0.0, 2.0);
    assert_eq!((h0, v0), (1.0 - 1.0 + 4.0, -0.5 + 4.0));
    let (hs, vs) = exact_step(h, v, u, 1e-6, 2.0);
    assert!((hs - h0).abs() < 1e-4 && (vs - v0).abs() < 1e-4);
}

/// The README's claim: RK4 with 1 ms substeps matches the closed form to rounding.
#[test]
fn aircraft_rk4_matches_exact_step_to_rounding() {
    let mut m: Aircraft = init(AIRCRAFT_GUID);
    set_init(&mut m, VR_AIRCRAFT_H0, 2.0);
    set_init(&mut m, VR_AIRCRAFT_V0, -1.0);
    let d = get(&m, VR_AIRCRAFT_D);
    let (mut h, mut v) = (2.0, -1.0);
    let mut worst: f64 = 0.0;
    for k in 0..10_000 {
        let t = k as f64 * 0.001;
        let u = 5.0 * (3.0 * t).sin() + 1.0;
        set(&mut m, VR_AIRCRAFT_U, u);
        step(&mut m, t, 0.001);
        (h, v) = exact_step(h, v, u, d, 0.001);
        worst = worst
            .max((get(&m, VR_AIRCRAFT_H) - h).abs())
            .max((get(&m, VR_AIRCRAFT_V) - v).abs());
    }
    assert!(worst < 1e-10, "largest difference {worst}");
}

#[test]
fn aircraft_substeps_are_equal_rk4_steps() {
    let mut one: Aircraft = init(AIRCRAFT_GUID);
    set_init(&mut one, VR_AIRCRAFT_MAX_STEP, 0.25);
    set_init(&mut one, VR_AIRCRAFT_V0, 3.0);
    let mut four = one.clone();
    set(&mut one, VR_AIRCRAFT_U, 1.5);
    set(&mut four, VR_AIRCRAFT_U, 1.5);
    step(&mut one, 0.0, 1.0);
    for n in 0..4 {
        step(&mut four, f64::from(n) * 0.25, 0.25);
    }
    assert_eq!(get(&one, VR_AIRCRAFT_H), get(&four, VR_AIRCRAFT_H));
    assert_eq!(get(&one, VR_AIRCRAFT_V), get(&four, VR_AIRCRAFT_V));
    // One RK4 step of a linear ODE is its Taylor polynomial of degree 4.
    let mut m: Aircraft = init(AIRCRAFT_GUID);
    set_init(&mut m, VR_AIRCRAFT_MAX_STEP, 1.0);
    set_init(&mut m, VR_AIRCRAFT_V0, 1.0);
    set(&mut m, VR_AIRCRAFT_D, 1.0);
    step(&mut m, 0.0, 1.0);
    let taylor = 1.0 - 1.0 + 1.0 / 2.0 - 1.0 / 6.0 + 1.0 / 24.0;
    assert!((get(&m, VR_AIRCRAFT_V) - taylor).abs() < 1e-15);
    assert!(matches!(
        m.set_real(VR_AIRCRAFT_MAX_STEP, 0.0),
        Err(ModelError::InvalidValue { .. })
    ));
    set(&mut m, VR_AIRCRAFT_MAX_STEP, 1e-12);
    assert!(matches!(m.do_step(1.0, 10.0), StepOutcome::Error(_)));
}

#[test]
fn aircraft_acc_feeds_through() {
    let mut m: Aircraft = init(AIRCRAFT_GUID);
    set_init(&mut m, VR_AIRCRAFT_V0, 2.0);
    assert_eq!(get(&m, VR_AIRCRAFT_ACC), -1.0);
    set_init(&mut m, VR_AIRCRAFT_U, 3.0);
    assert_eq!(get(&m, VR_AIRCRAFT_ACC), 2.0);
    step(&mut m, 0.0, 0.001);
    let v = get(&m, VR_AIRCRAFT_V);
    assert!(v > 2.0);
    set(&mut m, VR_AIRCRAFT_U, -1.0);
    assert_eq!(get(&m, VR_AIRCRAFT_ACC), -1.0 - 0.5 * v);
}

// ---------------------------------------------------------------------------------------------
// Controller and NavFilter

#[test]
fn controller_samples_and_holds() {
    let mut m: Controller = init(CONTROLLER_GUID);
    assert_eq!(get(&m, VR_CONTROLLER_U), 0.0);
    set_init(&mut m, VR_CONTROLLER_R, 3.0);
    set_init(&mut m, VR_CONTROLLER_KP, 2.0);
    set_init(&mut m, VR_CONTROLLER_KD, 4.0);
    assert_eq!(get(&m, VR_CONTROLLER_U), 6.0);
    set_init(&mut m, VR_CONTROLLER_Y, 1.0);
    set_init(&mut m, VR_CONTROLLER_Y_DOT, 0.5);
    assert_eq!(
        get(&m, VR_CONTROLLER_U),
        2.0,
        "computed in initialization mode"
    );
    set(&mut m, VR_CONTROLLER_Y, 0.0);
    assert_eq!(get(&m, VR_CONTROLLER_U), 2.0, "held in step mode");
    step(&mut m, 0.0, 0.02);
    assert_eq!(get(&m, VR_CONTROLLER_U), 4.0);
}

#[test]
fn nav_filter_predicts_and_corrects() {
    let mut m: NavFilter = init(NAV_FILTER_GUID);
    set_init(&mut m, VR_NAV_H0, 1.0);
    set_init(&mut m, VR_NAV_V0, 2.0);
    assert_eq!((get(&m, VR_NAV_H_EST), get(&m, VR_NAV_V_EST)), (1.0, 2.0));
    assert_eq!(get_int(&m, VR_NAV_UPDATES), 0);
    set(&mut m, VR_NAV_H_MEAS, 2.0);
    set(&mut m, VR_NAV_ACC, 4.0);
    assert_eq!(get(&m, VR_NAV_H_EST), 1.0, "no feedthrough");
    step(&mut m, 0.0, 0.5);
    // Predict: hEst = 1 + 2·0.5 + 0.5·4·0.25 = 2.5, vEst = 2 + 4·0.5 = 4; e = −0.5;
    // correct: hEst = 2.5 − 0.25 = 2.25, vEst = 4 + (0.2/0.5)·(−0.5) = 3.8.
    assert_eq!(get(&m, VR_NAV_H_EST), 2.25);
    assert!((get(&m, VR_NAV_V_EST) - 3.8).abs() < 1e-15);
    assert_eq!(get_int(&m, VR_NAV_UPDATES), 1);
    step(&mut m, 0.5, 0.25);
    assert_eq!(get_int(&m, VR_NAV_UPDATES), 2);
}

// ---------------------------------------------------------------------------------------------
// Sampler

#[test]
fn sampler_holds_and_counts() {
    let mut m: Sampler = init(SAMPLER_GUID);
    set_init(&mut m, VR_SAMPLER_U, 1.5);
    assert_eq!(
        get(&m, VR_SAMPLER_Y),
        1.5,
        "y follows u in initialization mode"
    );
    m.initialize(2.0).expect("initialize");
    assert_eq!(get(&m, VR_SAMPLER_T), 2.0);
    let mut t = 2.0;
    for (n, u) in [4.0, -1.0, 7.0].into_iter().enumerate() {
        set(&mut m, VR_SAMPLER_U, u);
        assert_ne!(get(&m, VR_SAMPLER_Y), u, "held in step mode");
        step(&mut m, t, 0.25);
        t += 0.25;
        assert_eq!(get(&m, VR_SAMPLER_Y), u);
        assert_eq!(get(&m, VR_SAMPLER_T), t);
        assert_eq!(get_int(&m, VR_SAMPLER_STEPS), n as i32 + 1);
        assert_eq!(get_int(&m, VR_SAMPLER_OFF_GRID), 0, "dt = 0: no check");
    }
}

/// A sampler with grid `t1`, `dt`, initialized at `t0` (s).
fn sampler(t0: f64, t1: f64, dt: f64) -> Sampler {
    let mut m: Sampler = init(SAMPLER_GUID);
    set(&mut m, VR_SAMPLER_T1, t1);
    set(&mut m, VR_SAMPLER_DT, dt);
    m.initialize(t0).expect("initialize");
    m
}

/// Steps through the communication points, each step ending at the next point.
fn off_grid_after(m: &mut Sampler, points: &[f64]) -> i32 {
    for pair in points.windows(2) {
        step(m, pair[0], pair[1] - pair[0]);
    }
    assert_eq!(get_int(m, VR_SAMPLER_STEPS), points.len() as i32 - 1);
    get_int(m, VR_SAMPLER_OFF_GRID)
}

#[test]
fn sampler_checks_the_grid() {
    let grid: Vec<f64> = (0..=100).map(|k| 0.3 + f64::from(k) * 0.01).collect();
    assert_eq!(off_grid_after(&mut sampler(0.3, 0.3, 0.01), &grid), 0);

    // A master that accumulates `t += dt` drifts off the grid.
    let mut summed = vec![0.0];
    for _ in 0..100 {
        summed.push(summed.last().expect("non-empty") + 0.01);
    }
    let drifted = summed
        .iter()
        .enumerate()
        .take(100)
        .filter(|&(k, &t)| t != k as f64 * 0.01)
        .count();
    assert!(drifted > 0);
    assert_eq!(
        off_grid_after(&mut sampler(0.0, 0.0, 0.01), &summed),
        drifted as i32
    );

    // Lead-in from t0 to t1, then the grid.
    let mut points = vec![0.0];
    points.extend((0..=10).map(|k| 0.005 + f64::from(k) * 0.04));
    assert_eq!(off_grid_after(&mut sampler(0.0, 0.005, 0.04), &points), 0);
    // One point moved by 1e-12 s: the step starting there is off the grid.
    let mut moved = points.clone();
    moved[5] += 1e-12;
    assert_eq!(off_grid_after(&mut sampler(0.0, 0.005, 0.04), &moved), 1);
    // The check counts steps: a lead-in that ends early (at 0.004 s) is a violation, and the
    // extra step to 0.005 s shifts every later step by one sample.
    let mut early = points.clone();
    early.insert(1, 0.004);
    assert_eq!(off_grid_after(&mut sampler(0.0, 0.005, 0.04), &early), 12);
    // Without the lead-in every step is one sample late.
    assert_eq!(
        off_grid_after(&mut sampler(0.0, 0.005, 0.04), &points[1..]),
        10
    );
    // With t0 = t1 the grid starts at once.
    assert_eq!(
        off_grid_after(&mut sampler(0.005, 0.005, 0.04), &points[1..]),
        0
    );

    // A first sample before the start time is refused.
    let mut m = sampler(1.0, 0.5, 0.1);
    assert!(matches!(m.do_step(1.0, 0.1), StepOutcome::Error(_)));
    assert!(matches!(
        m.set_real(VR_SAMPLER_DT, -0.1),
        Err(ModelError::InvalidValue { .. })
    ));
}

fn read_log(path: &std::path::Path) -> Vec<(f64, f64)> {
    let bytes = fs::read(path).expect("log readable");
    assert_eq!(bytes.len() % 16, 0);
    bytes
        .chunks(16)
        .map(|c| {
            let t = f64::from_le_bytes(c[..8].try_into().expect("8 bytes"));
            let h = f64::from_le_bytes(c[8..].try_into().expect("8 bytes"));
            (t, h)
        })
        .collect()
}

#[test]
fn sampler_logs_each_completed_step() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("points.bin");
    fs::write(&path, [0xAB; 16]).expect("write");
    let mut m: Sampler = init(SAMPLER_GUID);
    let name = path.to_str().expect("UTF-8 path");
    m.set_string(VR_SAMPLER_LOG_FILE, name).expect("set");
    m.initialize(0.0).expect("initialize");
    assert_eq!(m.get_string(VR_SAMPLER_LOG_FILE).as_deref(), Ok(name));
    let saved = m.clone();
    step(&mut m, 0.0, 0.1);
    step(&mut m, 0.1, 0.2);
    // A restored state steps on; the log keeps every completed step.
    let mut m = saved;
    step(&mut m, 0.0, 0.3);
    let log = read_log(&path);
    assert_eq!(log.len(), 4, "appended to the existing 16 bytes");
    assert_eq!(&log[1..], [(0.0, 0.1), (0.1, 0.2), (0.0, 0.3)]);

    // A path that cannot be opened for appending fails the step.
    let dir_name = dir.path().to_str().expect("UTF-8 path");
    m.set_string(VR_SAMPLER_LOG_FILE, dir_name).expect("set");
    m.initialize(0.0).expect("initialize");
    let StepOutcome::Error(message) = m.do_step(0.0, 0.1) else {
        panic!("expected Error");
    };
    assert!(message.contains("logFile"), "{message}");
    assert_eq!(get_int(&m, VR_SAMPLER_STEPS), 0);
}

// ---------------------------------------------------------------------------------------------
// Through the FMI 2.0 functions of the export layer

/// One instance driven through `fmu_support::fmi2`, as the packed library exports it.
struct Fmu(fmi2::Component);

impl Fmu {
    fn new(guid: &str) -> Self {
        let callbacks = fmi2::CallbackFunctions {
            logger: None,
            allocate_memory: None,
            free_memory: None,
            step_finished: None,
            component_environment: ptr::null_mut(),
        };
        let guid = CString::new(guid).expect("no NUL");
        // SAFETY: valid NUL-terminated strings and a callback struct that outlive the call.
        let c = unsafe {
            fmi2::instantiate::<Multirate>(
                c"multirate".as_ptr(),
                fmi2::CO_SIMULATION,
                guid.as_ptr(),
                ptr::null(),
                &raw const callbacks,
                fmi2::FALSE,
                fmi2::FALSE,
            )
        };
        assert!(!c.is_null());
        Self(c)
    }

    /// setupExperiment at `t0` and enterInitializationMode.
    fn enter(&self, t0: f64) {
        // SAFETY: a live instance, used by this thread only.
        unsafe {
            assert_eq!(
                fmi2::setup_experiment::<Multirate>(self.0, 0, 0.0, t0, 0, 0.0),
                fmi2::STATUS_OK
            );
            assert_eq!(
                fmi2::enter_initialization_mode::<Multirate>(self.0),
                fmi2::STATUS_OK
            );
        }
    }

    fn exit(&self) {
        // SAFETY: a live instance, used by this thread only.
        let status = unsafe { fmi2::exit_initialization_mode::<Multirate>(self.0) };
        assert_eq!(status, fmi2::STATUS_OK);
    }

    fn set_real(&self, vr: u32, value: f64) {
        // SAFETY: a live instance and one-element arrays.
        let status = unsafe { fmi2::set_real::<Multirate>(self.0, &vr, 1, &value) };
        assert_eq!(status, fmi2::STATUS_OK);
    }

    fn get_real(&self, vr: u32) -> f64 {
        let mut value = f64::NAN;
        // SAFETY: a live instance and one-element arrays.
        let status = unsafe { fmi2::get_real::<Multirate>(self.0, &vr, 1, &mut value) };
        assert_eq!(status, fmi2::STATUS_OK);
        value
    }

    fn get_integer(&self, vr: u32) -> i32 {
        let mut value = -1;
        // SAFETY: a live instance and one-element arrays.
        let status = unsafe { fmi2::get_integer::<Multirate>(self.0, &vr, 1, &mut value) };
        assert_eq!(status, fmi2::STATUS_OK);
        value
    }

    fn do_step(&self, t: f64, h: f64) -> fmi2::Status {
        // SAFETY: a live instance, used by this thread only.
        unsafe { fmi2::do_step::<Multirate>(self.0, t, h, fmi2::TRUE) }
    }

    fn get_state(&self) -> fmi2::FmuState {
        let mut state = ptr::null_mut();
        // SAFETY: a live instance and a writable state slot.
        let status = unsafe { fmi2::get_fmu_state::<Multirate>(self.0, &raw mut state) };
        assert_eq!(status, fmi2::STATUS_OK);
        state
    }

    fn set_state(&self, state: fmi2::FmuState) {
        // SAFETY: a live instance; the state is only compared with this instance's handles.
        let status = unsafe { fmi2::set_fmu_state::<Multirate>(self.0, state) };
        assert_eq!(status, fmi2::STATUS_OK);
    }
}

impl Drop for Fmu {
    fn drop(&mut self) {
        // SAFETY: a live instance, freed once.
        unsafe { fmi2::free_instance::<Multirate>(self.0) }
    }
}

#[test]
fn initialization_mode_outputs_follow_the_inputs() {
    let sampler = Fmu::new(SAMPLER_GUID);
    sampler.enter(0.0);
    sampler.set_real(VR_SAMPLER_U, 2.5);
    assert_eq!(sampler.get_real(VR_SAMPLER_Y), 2.5);
    sampler.exit();
    assert_eq!(sampler.get_real(VR_SAMPLER_Y), 2.5);
    sampler.set_real(VR_SAMPLER_U, 3.0);
    assert_eq!(sampler.get_real(VR_SAMPLER_Y), 2.5);

    let controller = Fmu::new(CONTROLLER_GUID);
    controller.enter(0.0);
    controller.set_real(VR_CONTROLLER_R, 10.0);
    controller.set_real(VR_CONTROLLER_KD, 3.0);
    controller.set_real(VR_CONTROLLER_Y, 4.0);
    controller.set_real(VR_CONTROLLER_Y_DOT, 1.0);
    assert_eq!(controller.get_real(VR_CONTROLLER_U), 6.0 - 3.0);
    controller.exit();
    controller.set_real(VR_CONTROLLER_Y, 0.0);
    assert_eq!(controller.get_real(VR_CONTROLLER_U), 3.0);
    assert_eq!(controller.do_step(0.0, 0.02), fmi2::STATUS_OK);
    assert_eq!(controller.get_real(VR_CONTROLLER_U), 10.0 - 3.0);

    let aircraft = Fmu::new(AIRCRAFT_GUID);
    aircraft.enter(0.0);
    aircraft.set_real(VR_AIRCRAFT_V0, 2.0);
    aircraft.set_real(VR_AIRCRAFT_U, 4.0);
    assert_eq!(aircraft.get_real(VR_AIRCRAFT_ACC), 3.0);
    aircraft.exit();
    assert_eq!(aircraft.get_real(VR_AIRCRAFT_V), 2.0);
}

#[test]
fn fmu_state_restores_the_sampler_counters() {
    let fmu = Fmu::new(SAMPLER_GUID);
    fmu.enter(0.0);
    fmu.set_real(VR_SAMPLER_DT, 0.5);
    fmu.exit();
    fmu.set_real(VR_SAMPLER_U, 1.0);
    assert_eq!(fmu.do_step(0.0, 0.5), fmi2::STATUS_OK);
    let state = fmu.get_state();
    fmu.set_real(VR_SAMPLER_U, 2.0);
    assert_eq!(fmu.do_step(0.5, 0.25), fmi2::STATUS_OK);
    assert_eq!(fmu.do_step(0.75, 0.25), fmi2::STATUS_OK);
    assert_eq!(
        fmu.get_integer(VR_SAMPLER_OFF_GRID),
        1,
        "0.75 is off the grid"
    );
    assert_eq!(fmu.get_integer(VR_SAMPLER_STEPS), 3);
    fmu.set_state(state);
    assert_eq!(fmu.get_integer(VR_SAMPLER_STEPS), 1);
    assert_eq!(fmu.get_integer(VR_SAMPLER_OFF_GRID), 0);
    assert_eq!(fmu.get_real(VR_SAMPLER_T), 0.5);
    assert_eq!(fmu.get_real(VR_SAMPLER_Y), 1.0);
    assert_eq!(fmu.get_real(VR_SAMPLER_U), 1.0);
    assert_eq!(fmu.do_step(0.5, 0.5), fmi2::STATUS_OK);
    assert_eq!(fmu.get_integer(VR_SAMPLER_OFF_GRID), 0);
}

// ---------------------------------------------------------------------------------------------
// The flight navigation example

const T_END: f64 = 10.0;

/// Camera instants `k = 5 + 40·n` in `1..=10_000`.
const CAMERA_SAMPLES: i32 = 250;

#[test]
fn flight_reference_flies_to_the_target() {
    let p = FlightParameters::default();
    let samples = flight_reference(&p, T_END);
    assert_eq!(samples.len(), 10_001);
    let first = samples[0];
    assert_eq!(
        (first.t, first.h, first.v, first.h_est, first.v_est),
        (0.0, 0.0, 0.0, 0.0, 0.0)
    );
    assert_eq!(
        (first.u, first.acc, first.imu, first.camera),
        (40.0, 40.0, 40.0, 0.0)
    );
    let last = samples[10_000];
    let peak = samples.iter().map(|s| s.h).fold(f64::MIN, f64::max);
    let tracking = samples[2000..]
        .iter()
        .map(|s| (s.h_est - s.h).abs())
        .fold(0.0, f64::max);
    let settled = samples[5000..]
        .iter()
        .map(|s| (s.h - p.r).abs())
        .fold(0.0, f64::max);
    // The figures of the README.
    assert_eq!(last.t, 10.0);
    assert_eq!(last.updates, CAMERA_SAMPLES);
    assert!((last.h - p.r).abs() < 1e-6, "h(10 s) = {}", last.h);
    assert!(
        (last.h_est - p.r).abs() < 1e-6,
        "hEst(10 s) = {}",
        last.h_est
    );
    assert!(p.r < peak && peak < p.r + 0.05, "peak {peak}");
    assert!(settled < 0.01, "max |h - r| after 5 s: {settled}");
    assert!(tracking < 0.05, "max |hEst - h| after 2 s: {tracking}");
    // The schedule: the IMU holds between its samples, the camera samples at 5 + 40·n ms.
    assert_eq!(samples[19].imu, samples[10].acc);
    assert_eq!(samples[44].camera, samples[5].h);
    assert_eq!(samples[45].camera, samples[45].h);
    assert_eq!(
        (samples[4].updates, samples[5].updates, samples[45].updates),
        (0, 1, 2)
    );
    // The autopilot holds u for 20 ms.
    assert_eq!(samples[19].u, first.u);
    assert_ne!(samples[20].u, first.u);
    assert_eq!(
        samples[20].acc,
        first.u - p.d * samples[20].v,
        "acc before the update"
    );
}

#[test]
#[should_panic(expected = "whole number of ticks")]
fn flight_reference_needs_whole_ticks() {
    let p = FlightParameters {
        camera_offset: 0.0055,
        ..FlightParameters::default()
    };
    flight_reference(&p, 1.0);
}

/// The bundled example's slaves, driven through the `Model` trait by a multi-rate
/// Gauss–Seidel master in the order Aircraft, IMU, Camera, Navigation, Autopilot.
struct Flight {
    aircraft: Aircraft,
    imu: Sampler,
    camera: Sampler,
    navigation: NavFilter,
    autopilot: Controller,
}

impl Flight {
    /// Instantiates with the parameters of `p` and runs one initialization pass in dependency
    /// order, as a master does in initialization mode.
    fn new(p: &FlightParameters) -> Self {
        let mut f = Self {
            aircraft: init(AIRCRAFT_GUID),
            imu: init(SAMPLER_GUID),
            camera: init(SAMPLER_GUID),
            navigation: init(NAV_FILTER_GUID),
            autopilot: init(CONTROLLER_GUID),
        };
        for (vr, value) in [
            (VR_AIRCRAFT_D, p.d),
            (VR_AIRCRAFT_H0, p.h0),
            (VR_AIRCRAFT_V0, p.v0),
        ] {
            set_init(&mut f.aircraft, vr, value);
        }
        set_init(&mut f.imu, VR_SAMPLER_DT, p.imu_interval);
        set_init(&mut f.camera, VR_SAMPLER_T1, p.camera_offset);
        set_init(&mut f.camera, VR_SAMPLER_DT, p.camera_interval);
        for (vr, value) in [
            (VR_NAV_ALPHA, p.alpha),
            (VR_NAV_BETA, p.beta),
            (VR_NAV_H0, p.h0),
            (VR_NAV_V0, p.v0),
        ] {
            set_init(&mut f.navigation, vr, value);
        }
        for (vr, value) in [
            (VR_CONTROLLER_R, p.r),
            (VR_CONTROLLER_KP, p.kp),
            (VR_CONTROLLER_KD, p.kd),
        ] {
            set_init(&mut f.autopilot, vr, value);
        }
        let h_est = get(&f.navigation, VR_NAV_H_EST);
        let v_est = get(&f.navigation, VR_NAV_V_EST);
        set_init(&mut f.autopilot, VR_CONTROLLER_Y, h_est);
        set_init(&mut f.autopilot, VR_CONTROLLER_Y_DOT, v_est);
        let u = get(&f.autopilot, VR_CONTROLLER_U);
        set_init(&mut f.aircraft, VR_AIRCRAFT_U, u);
        let (acc, h) = (
            get(&f.aircraft, VR_AIRCRAFT_ACC),
            get(&f.aircraft, VR_AIRCRAFT_H),
        );
        set_init(&mut f.imu, VR_SAMPLER_U, acc);
        set_init(&mut f.camera, VR_SAMPLER_U, h);
        let (camera, imu) = (get(&f.camera, VR_SAMPLER_Y), get(&f.imu, VR_SAMPLER_Y));
        set_init(&mut f.navigation, VR_NAV_H_MEAS, camera);
        set_init(&mut f.navigation, VR_NAV_ACC, imu);
        f
    }

    fn sample(&self, t: f64) -> FlightSample {
        FlightSample {
            t,
            h: get(&self.aircraft, VR_AIRCRAFT_H),
            v: get(&self.aircraft, VR_AIRCRAFT_V),
            acc: get(&self.aircraft, VR_AIRCRAFT_ACC),
            imu: get(&self.imu, VR_SAMPLER_Y),
            camera: get(&self.camera, VR_SAMPLER_Y),
            h_est: get(&self.navigation, VR_NAV_H_EST),
            v_est: get(&self.navigation, VR_NAV_V_EST),
            updates: get_int(&self.navigation, VR_NAV_UPDATES),
            u: get(&self.autopilot, VR_CONTROLLER_U),
        }
    }
}

/// The `n`-th step (from 0) of a slave sampled on `offset + n·interval` (s), after a lead-in
/// from 0 to `offset` if `offset > 0`: its communication point and step size.
fn grid_step(offset: f64, interval: f64, n: u64) -> (f64, f64) {
    if offset > 0.0 {
        if n == 0 {
            return (0.0, offset);
        }
        let n = n - 1;
        let t = offset + n as f64 * interval;
        (t, offset + (n + 1) as f64 * interval - t)
    } else {
        let t = n as f64 * interval;
        (t, (n + 1) as f64 * interval - t)
    }
}

/// Runs the example for `k_end` ticks; returns one sample per tick.
fn flight_cosimulation(p: &FlightParameters, k_end: u64) -> (Vec<FlightSample>, Flight) {
    let mut f = Flight::new(p);
    let mut samples = vec![f.sample(0.0)];
    let (mut n_imu, mut n_camera, mut n_autopilot) = (0, 0, 0);
    for k in 1..=k_end {
        let t = (k - 1) as f64 * p.tick;
        let u = get(&f.autopilot, VR_CONTROLLER_U);
        set(&mut f.aircraft, VR_AIRCRAFT_U, u);
        step(&mut f.aircraft, t, k as f64 * p.tick - t);
        if k.is_multiple_of(10) {
            set(&mut f.imu, VR_SAMPLER_U, get(&f.aircraft, VR_AIRCRAFT_ACC));
            let (t, h) = grid_step(0.0, p.imu_interval, n_imu);
            step(&mut f.imu, t, h);
            n_imu += 1;
        }
        if k >= 5 && (k - 5).is_multiple_of(40) {
            set(&mut f.camera, VR_SAMPLER_U, get(&f.aircraft, VR_AIRCRAFT_H));
            let (t, h) = grid_step(p.camera_offset, p.camera_interval, n_camera);
            step(&mut f.camera, t, h);
            n_camera += 1;
            let (camera, imu) = (get(&f.camera, VR_SAMPLER_Y), get(&f.imu, VR_SAMPLER_Y));
            set(&mut f.navigation, VR_NAV_H_MEAS, camera);
            set(&mut f.navigation, VR_NAV_ACC, imu);
            step(&mut f.navigation, t, h);
        }
        if k.is_multiple_of(20) {
            let h_est = get(&f.navigation, VR_NAV_H_EST);
            let v_est = get(&f.navigation, VR_NAV_V_EST);
            set(&mut f.autopilot, VR_CONTROLLER_Y, h_est);
            set(&mut f.autopilot, VR_CONTROLLER_Y_DOT, v_est);
            let (t, h) = grid_step(0.0, p.autopilot_interval, n_autopilot);
            step(&mut f.autopilot, t, h);
            n_autopilot += 1;
        }
        samples.push(f.sample(k as f64 * p.tick));
    }
    (samples, f)
}

/// The README's bound for a correct master against `flight_reference` (m, m/s, m/s²).
const FLIGHT_BOUND: f64 = 1e-9;

#[test]
fn the_models_reproduce_flight_reference() {
    let p = FlightParameters::default();
    let reference = flight_reference(&p, T_END);
    let (samples, f) = flight_cosimulation(&p, 10_000);
    assert_eq!(samples.len(), reference.len());
    let mut worst: f64 = 0.0;
    for (a, b) in samples.iter().zip(&reference) {
        assert_eq!(a.t, b.t);
        assert_eq!(a.updates, b.updates, "t = {}", a.t);
        for (x, y) in [
            (a.h, b.h),
            (a.v, b.v),
            (a.acc, b.acc),
            (a.imu, b.imu),
            (a.camera, b.camera),
            (a.h_est, b.h_est),
            (a.v_est, b.v_est),
            (a.u, b.u),
        ] {
            worst = worst.max((x - y).abs());
        }
    }
    println!("largest difference from flight_reference: {worst:e}");
    assert!(worst < FLIGHT_BOUND, "largest difference {worst}");
    assert_eq!(get_int(&f.imu, VR_SAMPLER_STEPS), 1000);
    assert_eq!(get_int(&f.camera, VR_SAMPLER_STEPS), CAMERA_SAMPLES);
    assert_eq!(get_int(&f.imu, VR_SAMPLER_OFF_GRID), 0);
    assert_eq!(get_int(&f.camera, VR_SAMPLER_OFF_GRID), 0);
    assert_eq!(get(&f.camera, VR_SAMPLER_T), 0.005 + 249.0 * 0.04);
}

/// The README's "Sampled P control": Aircraft and Controller (kd = 0, y = Aircraft.v), both
/// stepped every T in Gauss–Seidel order, follow the zero-order-hold recurrence.
#[test]
fn sampled_p_control_follows_the_zoh_recurrence() {
    let (d, kp, r, big_t): (f64, f64, f64, f64) = (0.5, 2.0, 3.0, 0.01);
    let mut aircraft: Aircraft = init(AIRCRAFT_GUID);
    let mut controller: Controller = init(CONTROLLER_GUID);
    set_init(&mut controller, VR_CONTROLLER_KP, kp);
    set_init(&mut controller, VR_CONTROLLER_R, r);
    set_init(
        &mut controller,
        VR_CONTROLLER_Y,
        get(&aircraft, VR_AIRCRAFT_V),
    );
    let decay = (-d * big_t).exp();
    let (mut v, mut u) = (0.0, kp * r);
    let mut worst: f64 = 0.0;
    for n in 0..1000 {
        let t = f64::from(n) * big_t;
        set(
            &mut aircraft,
            VR_AIRCRAFT_U,
            get(&controller, VR_CONTROLLER_U),
        );
        step(&mut aircraft, t, big_t);
        set(
            &mut controller,
            VR_CONTROLLER_Y,
            get(&aircraft, VR_AIRCRAFT_V),
        );
        step(&mut controller, t, big_t);
        v = decay * v + (1.0 - decay) / d * u;
        u = kp * (r - v);
        worst = worst
            .max((get(&aircraft, VR_AIRCRAFT_V) - v).abs())
            .max((get(&controller, VR_CONTROLLER_U) - u).abs());
    }
    assert!(worst < 1e-12, "largest difference {worst}");
    let steady = kp * r / (d + kp);
    assert!((v - steady).abs() < 1e-6, "v = {v}, steady state {steady}");
}

#[test]
fn guid_dispatch() {
    for (guid, name) in [
        (SAMPLER_GUID, "Sampler"),
        (AIRCRAFT_GUID, "Aircraft"),
        (CONTROLLER_GUID, "Controller"),
        (NAV_FILTER_GUID, "NavFilter"),
    ] {
        let m = Multirate::instantiate(guid).expect("known GUID");
        let found = match m {
            Multirate::Sampler(_) => "Sampler",
            Multirate::Aircraft(_) => "Aircraft",
            Multirate::Controller(_) => "Controller",
            Multirate::NavFilter(_) => "NavFilter",
        };
        assert_eq!(found, name);
    }
    assert!(Multirate::instantiate("Sampler").is_none());
}

#[test]
fn model_descriptions_match_the_tables() {
    let root = workspace_root();
    for (name, guid, table) in [
        ("Sampler", SAMPLER_GUID, SAMPLER_VARIABLES),
        ("Aircraft", AIRCRAFT_GUID, AIRCRAFT_VARIABLES),
        ("Controller", CONTROLLER_GUID, CONTROLLER_VARIABLES),
        ("NavFilter", NAV_FILTER_GUID, NAV_FILTER_VARIABLES),
    ] {
        let spec = MODELS
            .iter()
            .find(|m| m.name == name)
            .expect("listed in the packer");
        assert_eq!(spec.package, env!("CARGO_PKG_NAME"));
        let md = spec.read_model_description(&root).expect("readable XML");
        assert_eq!(md.mismatches(guid, table), Vec::<String>::new(), "{name}");
        let model = Multirate::instantiate(guid).expect("known GUID");
        for x in &md.variables {
            assert_eq!(x.vr as usize, x.index, "{name}.{}: vr = index", x.name);
            let Some(start) = x.start.as_deref() else {
                continue;
            };
            match x.ty {
                VarType::Real => assert_eq!(
                    model.get_real(x.vr),
                    Ok(start.parse().expect("real")),
                    "{name}.{}",
                    x.name
                ),
                VarType::Integer => assert_eq!(
                    model.get_integer(x.vr),
                    Ok(start.parse().expect("integer")),
                    "{name}.{}",
                    x.name
                ),
                VarType::Boolean => panic!("{name}.{}: no Boolean variables", x.name),
                VarType::String => assert_eq!(
                    model.get_string(x.vr).as_deref(),
                    Ok(start),
                    "{name}.{}",
                    x.name
                ),
            }
        }
    }
}
