//! Model Exchange instances against the Reference FMUs of the corpus: FMI 3.0
//! (`corpus/fmi3/<model>`) and FMI 2.0 (`corpus/crosscheck/fmi2/TestFMUs-0.0.1/<model>`, the
//! `linux64` binary), loaded with [`Fmu::load_as`] for Model Exchange. A small explicit-Euler
//! loop written here drives them, to show the calls work: Dahlquist's derivative is −k·x,
//! BouncingBall's event indicator crosses zero and event iteration flips the velocity,
//! Stair's next event time is reported and its counter steps at whole seconds. Calls in the
//! wrong mode and slices of the wrong length are errors, never calls into the FMU.

use std::sync::Arc;

use fmi::{
    DiscreteStates, Error, Fmi3InstantiateOptions, Fmu, Instance, Instance3, InstantiateOptions,
    IntegratorStepEnd, Interface, ValueRef,
};

use super::{Loaded, corpus_dir, corpus_fmu, extract_and, serial, vr};

/// The FMI 2.0 Reference FMU `model` (TestFMUs 0.0.1) of the corpus.
fn corpus_fmu2(model: &str) -> std::path::PathBuf {
    let path = corpus_dir()
        .join("crosscheck/fmi2/TestFMUs-0.0.1")
        .join(model)
        .join(format!("{model}.fmu"));
    assert!(path.is_file(), "corpus FMU missing: '{}'", path.display());
    path
}

/// Extracts the FMU at `path` and loads it for Model Exchange.
fn load_me(path: &std::path::Path) -> Loaded {
    let (dir, _) = extract_and(path, |_| {});
    let fmu = Fmu::load_as(dir.path(), Interface::ModelExchange)
        .unwrap_or_else(|e| panic!("loading {} for Model Exchange: {e}", path.display()));
    assert_eq!(fmu.interface(), Interface::ModelExchange);
    Loaded { fmu, dir }
}

/// The Model Exchange calls the Euler loop needs, for FMI 2.0 and 3.0 instances alike.
trait Me {
    fn initialize(&mut self, stop: f64) -> fmi::Result<()>;
    fn set_real(&mut self, vr: ValueRef, value: f64);
    fn real(&mut self, vr: ValueRef) -> f64;
    fn integer(&mut self, vr: ValueRef) -> i32;
    fn set_time(&mut self, t: f64) -> fmi::Result<fmi::Status>;
    fn set_continuous_states(&mut self, x: &[f64]) -> fmi::Result<fmi::Status>;
    fn get_continuous_states(&mut self, x: &mut [f64]) -> fmi::Result<fmi::Status>;
    fn get_derivatives(&mut self, dx: &mut [f64]) -> fmi::Result<fmi::Status>;
    fn get_event_indicators(&mut self, z: &mut [f64]) -> fmi::Result<fmi::Status>;
    fn get_nominals(&mut self, n: &mut [f64]) -> fmi::Result<fmi::Status>;
    fn completed_integrator_step(&mut self) -> fmi::Result<IntegratorStepEnd>;
    fn enter_event_mode(&mut self) -> fmi::Result<fmi::Status>;
    fn update(&mut self) -> fmi::Result<DiscreteStates>;
    fn enter_continuous_time_mode(&mut self) -> fmi::Result<fmi::Status>;
}

impl Me for Instance {
    fn initialize(&mut self, stop: f64) -> fmi::Result<()> {
        self.setup_experiment(None, 0.0, Some(stop))?;
        self.enter_initialization_mode()?;
        self.exit_initialization_mode().map(drop)
    }
    fn set_real(&mut self, vr: ValueRef, value: f64) {
        Instance::set_real(self, &[vr], &[value]).expect("set real");
    }
    fn real(&mut self, vr: ValueRef) -> f64 {
        let mut value = [0.0];
        self.get_real(&[vr], &mut value).expect("get real");
        value[0]
    }
    fn integer(&mut self, vr: ValueRef) -> i32 {
        let mut value = [0];
        self.get_integer(&[vr], &mut value).expect("get integer");
        value[0]
    }
    fn set_time(&mut self, t: f64) -> fmi::Result<fmi::Status> {
        Instance::set_time(self, t)
    }
    fn set_continuous_states(&mut self, x: &[f64]) -> fmi::Result<fmi::Status> {
        Instance::set_continuous_states(self, x)
    }
    fn get_continuous_states(&mut self, x: &mut [f64]) -> fmi::Result<fmi::Status> {
        Instance::get_continuous_states(self, x)
    }
    fn get_derivatives(&mut self, dx: &mut [f64]) -> fmi::Result<fmi::Status> {
        Instance::get_derivatives(self, dx)
    }
    fn get_event_indicators(&mut self, z: &mut [f64]) -> fmi::Result<fmi::Status> {
        Instance::get_event_indicators(self, z)
    }
    fn get_nominals(&mut self, n: &mut [f64]) -> fmi::Result<fmi::Status> {
        self.get_nominals_of_continuous_states(n)
    }
    fn completed_integrator_step(&mut self) -> fmi::Result<IntegratorStepEnd> {
        Instance::completed_integrator_step(self, true)
    }
    fn enter_event_mode(&mut self) -> fmi::Result<fmi::Status> {
        Instance::enter_event_mode(self)
    }
    fn update(&mut self) -> fmi::Result<DiscreteStates> {
        self.new_discrete_states()
    }
    fn enter_continuous_time_mode(&mut self) -> fmi::Result<fmi::Status> {
        Instance::enter_continuous_time_mode(self)
    }
}

impl Me for Instance3 {
    fn initialize(&mut self, stop: f64) -> fmi::Result<()> {
        self.enter_initialization_mode(None, 0.0, Some(stop))?;
        self.exit_initialization_mode().map(drop)
    }
    fn set_real(&mut self, vr: ValueRef, value: f64) {
        self.set_float64(&[vr], &[value]).expect("set float64");
    }
    fn real(&mut self, vr: ValueRef) -> f64 {
        let mut value = [0.0];
        self.get_float64(&[vr], &mut value).expect("get float64");
        value[0]
    }
    fn integer(&mut self, vr: ValueRef) -> i32 {
        let mut value = [0];
        self.get_int32(&[vr], &mut value).expect("get int32");
        value[0]
    }
    fn set_time(&mut self, t: f64) -> fmi::Result<fmi::Status> {
        Instance3::set_time(self, t)
    }
    fn set_continuous_states(&mut self, x: &[f64]) -> fmi::Result<fmi::Status> {
        Instance3::set_continuous_states(self, x)
    }
    fn get_continuous_states(&mut self, x: &mut [f64]) -> fmi::Result<fmi::Status> {
        Instance3::get_continuous_states(self, x)
    }
    fn get_derivatives(&mut self, dx: &mut [f64]) -> fmi::Result<fmi::Status> {
        Instance3::get_derivatives(self, dx)
    }
    fn get_event_indicators(&mut self, z: &mut [f64]) -> fmi::Result<fmi::Status> {
        Instance3::get_event_indicators(self, z)
    }
    fn get_nominals(&mut self, n: &mut [f64]) -> fmi::Result<fmi::Status> {
        self.get_nominals_of_continuous_states(n)
    }
    fn completed_integrator_step(&mut self) -> fmi::Result<IntegratorStepEnd> {
        Instance3::completed_integrator_step(self, true)
    }
    fn enter_event_mode(&mut self) -> fmi::Result<fmi::Status> {
        Instance3::enter_event_mode(self)
    }
    fn update(&mut self) -> fmi::Result<DiscreteStates> {
        self.update_discrete_states()
    }
    fn enter_continuous_time_mode(&mut self) -> fmi::Result<fmi::Status> {
        Instance3::enter_continuous_time_mode(self)
    }
}

/// Event iteration until the FMU needs no more; the last answer.
fn iterate_events(instance: &mut dyn Me) -> DiscreteStates {
    for _ in 0..10 {
        let states = instance.update().expect("event iteration");
        if !states.discrete_states_need_update {
            return states;
        }
    }
    panic!("event iteration does not converge in 10 iterations");
}

/// The FMI 2.0 instance of an FMU loaded for Model Exchange.
fn instance2(loaded: &Loaded, name: &str) -> Instance {
    loaded
        .fmu
        .instantiate_model_exchange(name, &InstantiateOptions::default())
        .unwrap_or_else(|e| panic!("instantiating {name}: {e}"))
}

/// The FMI 3.0 instance of an FMU loaded for Model Exchange.
fn instance3(loaded: &Loaded, name: &str) -> Instance3 {
    let options = Fmi3InstantiateOptions::default();
    loaded
        .fmu
        .instantiate_fmi3_model_exchange(name, &options)
        .unwrap_or_else(|e| panic!("instantiating {name}: {e}"))
}

/// Dahlquist with k = 2: the derivative is −k·x at the start and along 100 Euler steps of
/// 0.01 s, and x follows the Euler recursion x ← x·(1 − k·h) exactly.
fn dahlquist(fmu: &Arc<Fmu>, instance: &mut dyn Me) {
    let md = fmu.description();
    assert_eq!(md.continuous_states.len(), 1);
    assert_eq!(md.number_of_event_indicators, 0);
    let k = 2.0;
    instance.set_real(vr(fmu, "k"), k);
    instance.initialize(1.0).expect("initialize");
    iterate_events(instance);
    instance
        .enter_continuous_time_mode()
        .expect("enter CT mode");
    let (mut x, mut dx, mut nominal) = ([0.0], [0.0], [0.0]);
    instance.get_continuous_states(&mut x).expect("states");
    instance.get_nominals(&mut nominal).expect("nominals");
    assert_eq!((x, nominal), ([1.0], [1.0]));
    let h = 0.01;
    let mut expected = 1.0;
    for step in 1..=100 {
        instance.get_derivatives(&mut dx).expect("derivatives");
        assert!((dx[0] + k * x[0]).abs() < 1e-12, "dx = {dx:?}, x = {x:?}");
        x[0] += h * dx[0];
        expected *= 1.0 - k * h;
        instance.set_time(f64::from(step) * h).expect("set time");
        instance.set_continuous_states(&x).expect("set states");
        let end = instance
            .completed_integrator_step()
            .expect("completed step");
        assert!(!end.enter_event_mode && !end.terminate_simulation);
    }
    assert!((x[0] - expected).abs() < 1e-12);
    assert!((instance.real(vr(fmu, "x")) - expected).abs() < 1e-12);
}

#[test]
fn fmi2_model_exchange_dahlquist_derivative_is_minus_k_x() {
    let _serial = serial();
    let loaded = load_me(&corpus_fmu2("Dahlquist"));
    let mut instance = instance2(&loaded, "dahlquist2");
    assert!(instance.is_model_exchange());
    dahlquist(&loaded.fmu, &mut instance);
}

#[test]
fn fmi3_model_exchange_dahlquist_derivative_is_minus_k_x() {
    let _serial = serial();
    let loaded = load_me(&corpus_fmu("Dahlquist"));
    let mut instance = instance3(&loaded, "dahlquist3");
    assert!(instance.is_model_exchange());
    assert_eq!(
        instance.number_of_continuous_states().ok(),
        None,
        "not yet initialized"
    );
    dahlquist(&loaded.fmu, &mut instance);
    assert_eq!(instance.number_of_continuous_states().unwrap(), 1);
    assert_eq!(instance.number_of_event_indicators().unwrap(), 0);
}

/// BouncingBall: Euler steps of 1 ms until the event indicator changes sign, then Event
/// Mode, where event iteration flips the velocity (times the coefficient of restitution).
fn bouncing_ball(fmu: &Arc<Fmu>, instance: &mut dyn Me) {
    let md = fmu.description();
    assert_eq!(md.continuous_states.len(), 2);
    assert_eq!(md.number_of_event_indicators, 1);
    let e = 0.7;
    instance.initialize(3.0).expect("initialize");
    iterate_events(instance);
    instance
        .enter_continuous_time_mode()
        .expect("enter CT mode");
    let (mut x, mut dx, mut z) = ([0.0; 2], [0.0; 2], [0.0]);
    instance.get_continuous_states(&mut x).expect("states");
    instance.get_event_indicators(&mut z).expect("indicators");
    assert!(z[0] > 0.0, "the ball starts above the floor: z = {z:?}");
    let h = 1e-3;
    let mut t = 0.0;
    let crossing = loop {
        assert!(t < 1.0, "no bounce within 1 s");
        instance.get_derivatives(&mut dx).expect("derivatives");
        for (xi, dxi) in x.iter_mut().zip(dx) {
            *xi += h * dxi;
        }
        t += h;
        instance.set_time(t).expect("set time");
        instance.set_continuous_states(&x).expect("set states");
        let before = z[0];
        instance.get_event_indicators(&mut z).expect("indicators");
        let end = instance
            .completed_integrator_step()
            .expect("completed step");
        assert!(!end.terminate_simulation);
        if before > 0.0 && z[0] <= 0.0 {
            break t;
        }
    };
    // Free fall from 1 m with g = 9.81 m/s² hits the floor after about 0.45 s.
    assert!(
        (crossing - 0.4515).abs() < 0.01,
        "crossing at t = {crossing}"
    );
    let falling = x[1];
    assert!(falling < -4.0, "v = {falling}");
    instance.enter_event_mode().expect("enter event mode");
    let states = iterate_events(instance);
    assert!(states.values_of_continuous_states_changed);
    instance
        .get_continuous_states(&mut x)
        .expect("states after the event");
    assert!(
        (x[1] + e * falling).abs() < 1e-9 * falling.abs(),
        "v after the bounce = {}, before = {falling}",
        x[1]
    );
    instance
        .enter_continuous_time_mode()
        .expect("back to CT mode");
    instance.get_event_indicators(&mut z).expect("indicators");
}

#[test]
fn fmi2_model_exchange_bouncing_ball_bounces_at_the_event() {
    let _serial = serial();
    let loaded = load_me(&corpus_fmu2("BouncingBall"));
    let mut instance = instance2(&loaded, "ball2");
    bouncing_ball(&loaded.fmu, &mut instance);
}

#[test]
fn fmi3_model_exchange_bouncing_ball_bounces_at_the_event_and_restores_a_state() {
    let _serial = serial();
    let loaded = load_me(&corpus_fmu("BouncingBall"));
    let mut instance = instance3(&loaded, "ball3");
    bouncing_ball(&loaded.fmu, &mut instance);
    // FMU states work for Model Exchange instances: save, move on, restore.
    let saved = instance.get_fmu_state(None).expect("get FMU state");
    let mut x = [0.0; 2];
    instance.get_continuous_states(&mut x).unwrap();
    instance.set_time(2.0).unwrap();
    instance.set_continuous_states(&[0.5, 1.0]).unwrap();
    instance.set_fmu_state(saved).expect("set FMU state");
    let mut restored = [0.0; 2];
    instance.get_continuous_states(&mut restored).unwrap();
    assert_eq!(restored, x);
}

/// Stair: no continuous states; the next event time is reported at every event, and the
/// counter steps at whole seconds (time events only).
fn stair(fmu: &Arc<Fmu>, instance: &mut dyn Me) {
    assert!(fmu.description().continuous_states.is_empty());
    let counter = vr(fmu, "counter");
    instance.initialize(10.0).expect("initialize");
    let mut next = iterate_events(instance).next_event_time;
    assert_eq!(instance.integer(counter), 1);
    instance
        .enter_continuous_time_mode()
        .expect("enter CT mode");
    for second in 1..=5 {
        let event = next.unwrap_or_else(|| panic!("no next event time before t = {second}"));
        assert!(
            (event - f64::from(second)).abs() < 1e-9,
            "next event at {event}"
        );
        instance.set_time(event - 0.5).expect("set time");
        assert_eq!(instance.integer(counter), second, "just before t = {event}");
        instance.set_time(event).expect("set time");
        instance.enter_event_mode().expect("enter event mode");
        let states = iterate_events(instance);
        assert_eq!(instance.integer(counter), second + 1, "after t = {event}");
        next = states.next_event_time;
        instance
            .enter_continuous_time_mode()
            .expect("enter CT mode");
    }
}

#[test]
fn fmi2_model_exchange_stair_steps_at_its_time_events() {
    let _serial = serial();
    let loaded = load_me(&corpus_fmu2("Stair"));
    let mut instance = instance2(&loaded, "stair2");
    stair(&loaded.fmu, &mut instance);
}

#[test]
fn fmi3_model_exchange_stair_steps_at_its_time_events() {
    let _serial = serial();
    let loaded = load_me(&corpus_fmu("Stair"));
    let mut instance = instance3(&loaded, "stair3");
    stair(&loaded.fmu, &mut instance);
}

/// `error` is an [`Error::InvalidCall`] of `function` whose reason contains `reason`.
fn assert_invalid(error: Error, function: &str, reason: &str) {
    let text = error.to_string();
    assert!(
        matches!(&error, Error::InvalidCall { function: f, reason: r, .. } if *f == function && r.contains(reason)),
        "{text}"
    );
}

#[test]
fn fmi2_model_exchange_calls_in_the_wrong_mode_or_with_wrong_lengths_are_errors() {
    let _serial = serial();
    let loaded = load_me(&corpus_fmu2("Dahlquist"));
    // A co-simulation instance of an FMU loaded for Model Exchange is refused, and back.
    let error = loaded
        .fmu
        .instantiate("cs", &InstantiateOptions::default())
        .unwrap_err();
    assert_invalid(error, "fmi2Instantiate", "loaded for Model Exchange");
    let mut instance = instance2(&loaded, "modes2");
    assert_invalid(
        instance.set_time(0.0).unwrap_err(),
        "fmi2SetTime",
        "Event Mode",
    );
    let mut dx = [0.0];
    let error = instance.get_derivatives(&mut dx).unwrap_err();
    assert_invalid(error, "fmi2GetDerivatives", "after initialization");
    Me::initialize(&mut instance, 1.0).unwrap();
    // In Event Mode.
    let error = instance.set_continuous_states(&[1.0]).unwrap_err();
    assert_invalid(error, "fmi2SetContinuousStates", "Continuous-Time Mode");
    let error = instance.completed_integrator_step(true).unwrap_err();
    assert_invalid(error, "fmi2CompletedIntegratorStep", "Continuous-Time Mode");
    let error = instance.enter_event_mode().unwrap_err();
    assert_invalid(error, "fmi2EnterEventMode", "Continuous-Time Mode");
    let error = instance.do_step(0.0, 0.1, true).unwrap_err();
    assert_invalid(error, "fmi2DoStep", "Model Exchange");
    let mut two = [0.0; 2];
    let error = instance.get_derivatives(&mut two).unwrap_err();
    assert!(
        matches!(
            error,
            Error::LengthMismatch {
                expected: 1,
                found: 2,
                ..
            }
        ),
        "{error}"
    );
    let error = instance.get_event_indicators(&mut dx).unwrap_err();
    assert!(
        matches!(
            error,
            Error::LengthMismatch {
                expected: 0,
                found: 1,
                ..
            }
        ),
        "{error}"
    );
    instance.new_discrete_states().unwrap();
    instance.enter_continuous_time_mode().unwrap();
    let error = instance.new_discrete_states().unwrap_err();
    assert_invalid(error, "fmi2NewDiscreteStates", "Event Mode");
    let error = instance.set_continuous_states(&[]).unwrap_err();
    assert!(matches!(error, Error::LengthMismatch { .. }), "{error}");
    instance.set_continuous_states(&[0.5]).unwrap();

    // The Model Exchange calls on a co-simulation instance.
    let (dir, cs) = extract_and(&corpus_fmu2("Dahlquist"), |_| {});
    let cs = cs.expect("load for co-simulation");
    let mut cs_instance = cs
        .instantiate("cs2", &InstantiateOptions::default())
        .unwrap();
    assert!(!cs_instance.is_model_exchange());
    let error = cs_instance.set_time(0.0).unwrap_err();
    assert_invalid(error, "fmi2SetTime", "not a Model Exchange instance");
    let error = cs.instantiate_model_exchange("me", &InstantiateOptions::default());
    assert_invalid(
        error.unwrap_err(),
        "fmi2Instantiate",
        "loaded for co-simulation",
    );
    drop((cs_instance, cs, dir));
}

#[test]
fn fmi3_model_exchange_calls_in_the_wrong_mode_or_with_wrong_lengths_are_errors() {
    let _serial = serial();
    let loaded = load_me(&corpus_fmu("BouncingBall"));
    let error = loaded
        .fmu
        .instantiate_fmi3("cs", &Fmi3InstantiateOptions::default())
        .unwrap_err();
    assert_invalid(
        error,
        "fmi3InstantiateCoSimulation",
        "loaded for Model Exchange",
    );
    let options = Fmi3InstantiateOptions {
        event_mode_used: true,
        ..Default::default()
    };
    let error = loaded.fmu.instantiate_fmi3_model_exchange("em", &options);
    assert_invalid(
        error.unwrap_err(),
        "fmi3InstantiateModelExchange",
        "co-simulation",
    );
    let mut instance = instance3(&loaded, "modes3");
    assert!(instance.event_mode_used());
    assert_invalid(
        instance.set_time(0.0).unwrap_err(),
        "fmi3SetTime",
        "Event Mode",
    );
    Me::initialize(&mut instance, 1.0).unwrap();
    let error = instance.completed_integrator_step(true).unwrap_err();
    assert_invalid(error, "fmi3CompletedIntegratorStep", "Continuous-Time Mode");
    let error = instance.enter_event_mode().unwrap_err();
    assert_invalid(error, "fmi3EnterEventMode", "Continuous-Time Mode");
    let error = instance.do_step(0.0, 0.1, true).unwrap_err();
    assert_invalid(error, "fmi3DoStep", "Model Exchange");
    let mut three = [0.0; 3];
    let error = instance.get_continuous_states(&mut three).unwrap_err();
    assert!(
        matches!(
            error,
            Error::LengthMismatch {
                expected: 2,
                found: 3,
                ..
            }
        ),
        "{error}"
    );
    let error = instance.get_event_indicators(&mut three).unwrap_err();
    assert!(
        matches!(
            error,
            Error::LengthMismatch {
                expected: 1,
                found: 3,
                ..
            }
        ),
        "{error}"
    );
    iterate_events(&mut instance);
    instance.enter_continuous_time_mode().unwrap();
    let error = instance.update_discrete_states().unwrap_err();
    assert_invalid(error, "fmi3UpdateDiscreteStates", "Event Mode");
    let error = instance.enter_continuous_time_mode().unwrap_err();
    assert_invalid(error, "fmi3EnterContinuousTimeMode", "Event Mode");
    instance.terminate().unwrap();
    let mut x = [0.0; 2];
    instance
        .get_continuous_states(&mut x)
        .expect("states after terminate");
}
