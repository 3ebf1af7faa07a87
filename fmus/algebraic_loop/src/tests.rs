use fmu_packer::{FmiVersion, MODELS, workspace_root};

use super::*;

fn gain(p: &Parameters) -> Gain {
    let mut m = Gain::instantiate(GUID).expect("known GUID");
    m.set_real(VR_K, p.k).expect("set k");
    m.set_real(VR_OFFSET, p.offset).expect("set offset");
    m.set_real(VR_AMPLITUDE, p.amplitude)
        .expect("set amplitude");
    m.set_real(VR_OMEGA, p.omega).expect("set omega");
    m.initialize(0.0).expect("initialize");
    m
}

fn get(m: &impl Model, vr: u32) -> f64 {
    m.get_real(vr).expect("readable")
}

/// The example of the README: `k_a·k_b = −0.4`, a time-varying solution.
fn example() -> (Parameters, Parameters) {
    let a = Parameters {
        k: 0.5,
        offset: 1.0,
        ..Parameters::default()
    };
    let b = Parameters {
        k: -0.8,
        amplitude: 1.0,
        omega: 2.0,
        ..Parameters::default()
    };
    (a, b)
}

fn close(x: f64, y: f64) -> bool {
    (x - y).abs() <= 1e-14 * (1.0 + y.abs())
}

#[test]
fn output_is_gain_plus_bias_with_direct_feedthrough() {
    let p = Parameters {
        k: 2.0,
        offset: 0.5,
        amplitude: 0.3,
        omega: 3.0,
    };
    let mut m = gain(&p);
    assert_eq!(get(&m, VR_Y), 0.5, "u = 0 and sin 0 = 0 at the start");
    m.set_real(VR_U, 1.5).expect("set u");
    assert_eq!(get(&m, VR_Y), 3.5, "a new u shows at once");
    assert_eq!(m.do_step(0.0, 0.25), StepOutcome::Completed);
    assert_eq!(get(&m, VR_Y), output(&p, 1.5, 0.25));
    assert!(close(get(&m, VR_Y), 2.0 * 1.5 + 0.5 + 0.3 * 0.75_f64.sin()));
    m.set_real(VR_U, -1.0).expect("set u");
    assert_eq!(get(&m, VR_Y), output(&p, -1.0, 0.25));
    assert_eq!(m.do_step(0.25, 0.5), StepOutcome::Completed);
    assert_eq!(get(&m, VR_Y), output(&p, -1.0, 0.75));
    m.initialize(2.0).expect("initialize");
    assert_eq!(get(&m, VR_Y), output(&p, -1.0, 2.0), "t is the start time");
    assert_eq!(get(&m, VR_U), -1.0);
}

#[test]
fn parameters_are_readable_and_must_be_finite() {
    let p = Parameters {
        k: -3.0,
        offset: 1.0,
        amplitude: 2.0,
        omega: 0.5,
    };
    let mut m = gain(&p);
    assert_eq!(
        [VR_K, VR_OFFSET, VR_AMPLITUDE, VR_OMEGA].map(|vr| get(&m, vr)),
        [-3.0, 1.0, 2.0, 0.5]
    );
    for vr in [VR_U, VR_K, VR_OFFSET, VR_AMPLITUDE, VR_OMEGA] {
        assert!(matches!(
            m.set_real(vr, f64::NAN),
            Err(ModelError::InvalidValue { .. })
        ));
        assert!(m.set_real(vr, f64::INFINITY).is_err());
    }
    assert!(matches!(
        m.set_real(VR_Y, 1.0),
        Err(ModelError::UnknownVariable { .. })
    ));
    assert!(m.get_real(7).is_err());
    assert_eq!(get(&m, VR_K), -3.0, "rejected values change nothing");
}

#[test]
fn directional_derivatives_are_the_partials_of_y() {
    let p = Parameters {
        k: 2.0,
        offset: 0.5,
        amplitude: 0.3,
        omega: 3.0,
    };
    let mut m = gain(&p);
    m.set_real(VR_U, 1.5).expect("set u");
    assert_eq!(m.do_step(0.0, 0.4), StepOutcome::Completed);

    let mut out = [0.0; 1];
    let r = m.directional_derivative(&[VR_Y], &[VR_U], &[1.0], &mut out);
    assert_eq!(r, Some(Ok(())));
    assert_eq!(out, [2.0], "∂y/∂u = k");
    let r = m.directional_derivative(
        &[VR_Y],
        &[VR_U, VR_K, VR_OFFSET],
        &[1.0, 0.5, -2.0],
        &mut out,
    );
    assert_eq!(r, Some(Ok(())));
    assert_eq!(out, [2.0 + 0.5 * 1.5 - 2.0]);

    // Every partial against a central difference of y.
    let d = 1e-6;
    for (vr, value) in [
        (VR_U, 1.5),
        (VR_K, p.k),
        (VR_OFFSET, p.offset),
        (VR_AMPLITUDE, p.amplitude),
        (VR_OMEGA, p.omega),
    ] {
        let mut plus = m.clone();
        plus.set_real(vr, value + d).expect("set");
        let mut minus = m.clone();
        minus.set_real(vr, value - d).expect("set");
        let difference = (get(&plus, VR_Y) - get(&minus, VR_Y)) / (2.0 * d);
        let r = m.directional_derivative(&[VR_Y], &[vr], &[1.0], &mut out);
        assert_eq!(r, Some(Ok(())));
        assert!(
            (out[0] - difference).abs() < 1e-8,
            "vr {vr}: {out:?} vs {difference}"
        );
    }

    let r = m.directional_derivative(&[VR_U], &[VR_U], &[1.0], &mut out);
    assert_eq!(
        r,
        Some(Err(ModelError::NoDerivative {
            unknown: VR_U,
            known: VR_U
        }))
    );
    let r = m.directional_derivative(&[VR_Y], &[VR_Y], &[1.0], &mut out);
    assert!(matches!(r, Some(Err(ModelError::NoDerivative { .. }))));
}

#[test]
fn a_cloned_state_restores_input_and_time() {
    let (a, _) = example();
    let mut m = gain(&Parameters {
        amplitude: 1.0,
        ..a
    });
    m.set_real(VR_U, 0.7).expect("set u");
    assert_eq!(m.do_step(0.0, 0.1), StepOutcome::Completed);
    let saved = m.clone();
    let y = get(&m, VR_Y);
    m.set_real(VR_U, -4.0).expect("set u");
    assert_eq!(m.do_step(0.1, 0.1), StepOutcome::Completed);
    assert_ne!(get(&m, VR_Y), y);
    let m = saved.clone();
    assert_eq!((get(&m, VR_U), get(&m, VR_Y)), (0.7, y));
}

#[test]
fn loop_solution_satisfies_both_equations() {
    let (a, b) = example();
    for t in [0.0, 0.3, 1.0, 4.2, 10.0] {
        let (y_a, y_b) = loop_solution(&a, &b, t);
        assert!(close(y_a, output(&a, y_b, t)), "t = {t}");
        assert!(close(y_b, output(&b, y_a, t)), "t = {t}");
        assert!(
            close(y_a, (1.0 + 0.5 * (2.0 * t).sin()) / 1.4),
            "README formula"
        );
    }
    // Also with both biases time-varying and a loop gain above 1 in magnitude.
    let a = Parameters {
        k: 3.0,
        offset: -1.0,
        amplitude: 0.5,
        omega: 1.5,
    };
    let b = Parameters {
        k: 0.9,
        offset: 2.0,
        amplitude: -0.25,
        omega: 0.5,
    };
    let (y_a, y_b) = loop_solution(&a, &b, 2.5);
    assert!((y_a - output(&a, y_b, 2.5)).abs() < 1e-12);
    assert!((y_b - output(&b, y_a, 2.5)).abs() < 1e-12);
    let (y_a, _) = loop_solution(&Parameters::default(), &Parameters::default(), 1.0);
    assert!(!y_a.is_finite(), "k_a·k_b = 1 has no unique solution");
}

/// Gauss–Seidel over the models: set `u_a = y_b`, read `y_a`, set `u_b = y_a`, read `y_b`.
/// Returns the error of `y_b` after each sweep.
fn gauss_seidel_errors(a: &mut Gain, b: &mut Gain, exact: (f64, f64), sweeps: usize) -> Vec<f64> {
    (0..sweeps)
        .map(|_| {
            a.set_real(VR_U, get(b, VR_Y)).expect("set");
            b.set_real(VR_U, get(a, VR_Y)).expect("set");
            get(b, VR_Y) - exact.1
        })
        .collect()
}

#[test]
fn gauss_seidel_converges_with_rate_ka_kb() {
    let (pa, pb) = example();
    let (mut a, mut b) = (gain(&pa), gain(&pb));
    let mut t = 0.0;
    for _ in 0..30 {
        let h = 0.1;
        assert_eq!(a.do_step(t, h), StepOutcome::Completed);
        assert_eq!(b.do_step(t, h), StepOutcome::Completed);
        t += h;
        let exact = loop_solution(&pa, &pb, t);
        let errors = gauss_seidel_errors(&mut a, &mut b, exact, 8);
        for w in errors.windows(2).filter(|w| w[0].abs() > 1e-12) {
            let rate = w[1] / w[0];
            assert!((rate - pa.k * pb.k).abs() < 1e-6, "t = {t}: rate {rate}");
        }
        for _ in 0..40 {
            a.set_real(VR_U, get(&b, VR_Y)).expect("set");
            b.set_real(VR_U, get(&a, VR_Y)).expect("set");
        }
        assert!((get(&a, VR_Y) - exact.0).abs() < 1e-14, "t = {t}");
        assert!((get(&b, VR_Y) - exact.1).abs() < 1e-14, "t = {t}");
    }
}

#[test]
fn one_newton_step_solves_the_loop() {
    let a_p = Parameters {
        k: 3.0,
        offset: 1.0,
        ..Parameters::default()
    };
    let (_, b_p) = example();
    let (mut a, mut b) = (gain(&a_p), gain(&b_p));
    assert_eq!(a.do_step(0.0, 0.7), StepOutcome::Completed);
    assert_eq!(b.do_step(0.0, 0.7), StepOutcome::Completed);
    // k_a·k_b = −2.4: fixed-point iteration diverges, Newton does not care.
    let exact = loop_solution(&a_p, &b_p, 0.7);
    let (u_a, u_b) = (5.0, -3.0);
    a.set_real(VR_U, u_a).expect("set");
    b.set_real(VR_U, u_b).expect("set");
    // Residual F(u) = u − y(u) with u_a fed by y_b and u_b fed by y_a.
    let (f_a, f_b) = (u_a - get(&b, VR_Y), u_b - get(&a, VR_Y));
    let mut d = [0.0; 1];
    a.directional_derivative(&[VR_Y], &[VR_U], &[1.0], &mut d)
        .expect("provided")
        .expect("∂y_a/∂u_a");
    let k_a = d[0];
    b.directional_derivative(&[VR_Y], &[VR_U], &[1.0], &mut d)
        .expect("provided")
        .expect("∂y_b/∂u_b");
    let k_b = d[0];
    // Jacobian [[1, −k_b], [−k_a, 1]]; solve J·du = −F by Cramer's rule.
    let det = 1.0 - k_a * k_b;
    let du_a = (-f_a - k_b * f_b) / det;
    let du_b = (-f_b - k_a * f_a) / det;
    a.set_real(VR_U, u_a + du_a).expect("set");
    b.set_real(VR_U, u_b + du_b).expect("set");
    assert!((get(&a, VR_Y) - exact.0).abs() < 1e-14);
    assert!((get(&b, VR_Y) - exact.1).abs() < 1e-14);
    assert!((get(&a, VR_U) - exact.1).abs() < 1e-14);
    assert!((get(&b, VR_U) - exact.0).abs() < 1e-14);
}

#[test]
fn guid_dispatch() {
    assert!(Gain::instantiate(GUID).is_some());
    assert!(Gain::instantiate("Gain").is_none());
}

#[test]
fn model_description_matches_the_table() {
    let spec = MODELS
        .iter()
        .find(|m| m.name == "Gain")
        .expect("listed in the packer");
    assert_eq!(spec.package, env!("CARGO_PKG_NAME"));
    let md = spec
        .read_model_description(&workspace_root())
        .expect("readable XML");
    assert_eq!(md.fmi_version, FmiVersion::V2);
    assert_eq!(md.model_identifier, "Gain");
    assert_eq!(md.mismatches(GUID, GAIN_VARIABLES), Vec::<String>::new());
    assert_eq!(md.outputs, [2], "y is the only output, at index 2");
    let m = Gain::instantiate(GUID).expect("known GUID");
    for x in md.variables.iter().filter(|x| x.start.is_some()) {
        let start: f64 = x.start.as_deref().expect("start").parse().expect("number");
        assert_eq!(m.get_real(x.vr), Ok(start), "{}", x.name);
    }
    let p = Parameters::default();
    assert_eq!(
        [VR_K, VR_OFFSET, VR_AMPLITUDE, VR_OMEGA].map(|vr| get(&m, vr)),
        [p.k, p.offset, p.amplitude, p.omega],
        "Parameters::default() holds the start values"
    );
}

#[test]
fn saved_state_loads_into_a_fresh_instance_and_behaves_alike() {
    let (p, _) = example();
    let mut a = gain(&Parameters {
        amplitude: 0.75,
        omega: 3.0,
        ..p
    });
    a.set_real(VR_U, -1.25).expect("set u");
    a.initialize(0.2).expect("initialize");
    assert_eq!(a.do_step(0.2, 0.3), StepOutcome::Completed);
    let state = a.save_state().expect("serializable");
    assert_eq!(state.len(), 6);
    let mut b = Gain::instantiate(GUID).expect("known GUID");
    b.load_state(&state).expect("load");
    assert_eq!(b.save_state(), Some(state));
    let mut t = 0.5;
    for (h, u) in [(0.1, 2.0), (0.25, -0.5), (0.05, 0.0)] {
        for vr in [VR_U, VR_Y, VR_K, VR_OFFSET, VR_AMPLITUDE, VR_OMEGA] {
            assert_eq!(
                get(&a, vr).to_bits(),
                get(&b, vr).to_bits(),
                "vr {vr} at {t}"
            );
        }
        for m in [&mut a, &mut b] {
            m.set_real(VR_U, u).expect("set u");
            assert_eq!(m.do_step(t, h), StepOutcome::Completed);
        }
        t += h;
        assert_eq!(get(&a, VR_Y).to_bits(), get(&b, VR_Y).to_bits());
    }
}

#[test]
fn load_state_checks_length_and_values() {
    let mut m = Gain::instantiate(GUID).expect("known GUID");
    let state = m.save_state().expect("serializable");
    for wrong in [0, 5, 7] {
        assert_eq!(
            m.load_state(&vec![1.0; wrong]),
            Err(ModelError::StateLength {
                model: "Gain",
                expected: 6,
                found: wrong
            })
        );
    }
    for i in 0..5 {
        let mut bad = state.clone();
        bad[i] = f64::INFINITY;
        assert!(
            matches!(m.load_state(&bad), Err(ModelError::InvalidValue { .. })),
            "value {i}"
        );
    }
    assert_eq!(m.save_state(), Some(state), "unchanged by refused loads");
}

#[test]
fn model_description_declares_serialization() {
    let spec = MODELS
        .iter()
        .find(|m| m.name == "Gain")
        .expect("listed in the packer");
    let xml = std::fs::read_to_string(spec.xml_path(&workspace_root())).expect("readable XML");
    assert!(xml.contains(r#"canSerializeFMUstate="true""#));
}
