//! FMU state (get, set, serialize into another instance), directional derivatives and early
//! return of FMI 3.0 co-simulation instances, on the Reference FMUs VanDerPol and BouncingBall.

use super::*;

/// VanDerPol: save the state, step, restore it, step again: the same trajectory, bit for bit.
/// Updating a saved state in place keeps its handle; a freed handle is refused.
#[test]
fn fmi3_fmu_state_restores_van_der_pol() {
    let _serial = serial();
    let loaded = load("VanDerPol");
    let states = [vr(&loaded.fmu, "x0"), vr(&loaded.fmu, "x1")];
    let h = 0.01;
    let mut instance = initialized(&loaded, "vdp", 0.0, 20.0);
    assert!(instance.can_get_and_set_fmu_state());
    trajectory(&mut instance, &states, 0.0, h, 100);
    let saved = instance.get_fmu_state(None).expect("get state");
    let first = trajectory(&mut instance, &states, 1.0, h, 100);
    instance.set_fmu_state(saved).expect("set state");
    let second = trajectory(&mut instance, &states, 1.0, h, 100);
    assert_eq!(first, second);

    // Update the saved state in place (now at t = 2 s) and restore it after more steps.
    let same = instance.get_fmu_state(Some(saved)).expect("update state");
    assert_eq!(same, saved);
    let third = trajectory(&mut instance, &states, 2.0, h, 50);
    instance.set_fmu_state(saved).expect("set state");
    assert_eq!(trajectory(&mut instance, &states, 2.0, h, 50), third);

    instance.free_fmu_state(saved).expect("free state");
    let error = instance.set_fmu_state(saved).expect_err("freed state");
    assert!(matches!(error, Error::UnknownFmuState { .. }), "{error}");
    // Live states are freed on drop.
    instance.get_fmu_state(None).expect("get state");
}

/// A serialized state, deserialized by a second instance of the same FMU, continues exactly
/// like the instance it was taken from.
#[test]
fn fmi3_serialized_state_continues_in_another_instance() {
    let _serial = serial();
    let loaded = load("VanDerPol");
    let states = [vr(&loaded.fmu, "x0"), vr(&loaded.fmu, "x1")];
    let h = 0.01;
    let mut first = initialized(&loaded, "first", 0.0, 20.0);
    assert!(first.can_serialize_fmu_state());
    trajectory(&mut first, &states, 0.0, h, 150);
    let saved = first.get_fmu_state(None).expect("get state");
    let bytes = first.serialize_fmu_state(saved).expect("serialize");
    assert!(!bytes.is_empty());
    let expected = trajectory(&mut first, &states, 1.5, h, 100);

    let mut second = initialized(&loaded, "second", 0.0, 20.0);
    let restored = second.deserialize_fmu_state(&bytes).expect("deserialize");
    second.set_fmu_state(restored).expect("set state");
    assert_eq!(trajectory(&mut second, &states, 1.5, h, 100), expected);

    // And back into the first instance.
    let again = first.deserialize_fmu_state(&bytes).expect("deserialize");
    first.set_fmu_state(again).expect("set state");
    assert_eq!(trajectory(&mut first, &states, 1.5, h, 100), expected);
}

/// VanDerPol: der(x0) = x1, der(x1) = mu·(1 − x0²)·x1 − x0 with mu = 1, x0 = 2, x1 = 0 at the
/// start, so ∂der/∂x0 = (0, −2·mu·x0·x1 − 1) = (0, −1) and ∂der/∂x1 = (1, mu·(1 − x0²)) =
/// (1, −3).
#[test]
fn fmi3_directional_derivatives_of_van_der_pol() {
    let _serial = serial();
    let loaded = load("VanDerPol");
    let fmu = &loaded.fmu;
    let (x0, x1) = (vr(fmu, "x0"), vr(fmu, "x1"));
    let derivatives = [vr(fmu, "der(x0)"), vr(fmu, "der(x1)")];
    let mut instance = initialized(&loaded, "vdp", 0.0, 20.0);
    assert!(instance.provides_directional_derivative());
    let mut sensitivity = [f64::NAN; 2];
    instance
        .get_directional_derivative(&derivatives, &[x0], &[1.0], &mut sensitivity)
        .expect("d/dx0");
    assert_eq!(sensitivity, [0.0, -1.0]);
    instance
        .get_directional_derivative(&derivatives, &[x1], &[2.0], &mut sensitivity)
        .expect("d/dx1");
    assert_eq!(sensitivity, [2.0, -6.0]);
    instance
        .get_directional_derivative(&derivatives, &[x0, x1], &[1.0, 1.0], &mut sensitivity)
        .expect("d/dx0 + d/dx1");
    assert_eq!(sensitivity, [1.0, -4.0]);
    // Nothing asked, nothing called.
    assert_eq!(
        instance
            .get_directional_derivative(&[], &[x0], &[1.0], &mut [])
            .expect("no unknowns"),
        Status::Ok
    );
}

/// BouncingBall with Event Mode and early return: a step that crosses a bounce returns at the
/// bounce, and the master continues from `last_successful_time`.
#[test]
fn fmi3_bouncing_ball_returns_early_at_the_bounce() {
    let _serial = serial();
    let loaded = load("BouncingBall");
    let height = vr(&loaded.fmu, "h");
    let options = Fmi3InstantiateOptions {
        event_mode_used: true,
        early_return_allowed: true,
        ..Default::default()
    };
    let mut instance = instantiate(&loaded, "ball", &options);
    instance
        .enter_initialization_mode(None, 0.0, Some(3.0))
        .expect("enter init");
    instance.exit_initialization_mode().expect("exit init");
    while instance
        .update_discrete_states()
        .expect("update")
        .discrete_states_need_update
    {}
    instance.enter_step_mode().expect("enter step mode");
    let mut t = 0.0;
    let mut bounces = Vec::new();
    while t < 1.0 {
        let result = instance.do_step(t, 0.1, false).expect("step");
        assert!(result.last_successful_time > t && result.last_successful_time <= t + 0.1 + 1e-12);
        if result.early_return {
            assert!(result.event_handling_needed, "{result:?}");
            bounces.push(result.last_successful_time);
        }
        if result.event_handling_needed {
            instance.enter_event_mode().expect("enter event mode");
            while instance
                .update_discrete_states()
                .expect("update")
                .discrete_states_need_update
            {}
            instance.enter_step_mode().expect("enter step mode");
        }
        t = result.last_successful_time;
    }
    // Free fall from 1 m: the first bounce after sqrt(2/9.81) ≈ 0.4515 s.
    assert!(!bounces.is_empty(), "no bounce before 1 s");
    assert!(
        (bounces[0] - (2.0f64 / 9.81).sqrt()).abs() < 0.01,
        "{bounces:?}"
    );
    let mut h = [f64::NAN];
    instance.get_float64(&[height], &mut h).expect("get h");
    assert!(h[0] >= 0.0, "h = {}", h[0]);
}
