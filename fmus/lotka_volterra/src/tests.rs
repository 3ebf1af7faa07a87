use fmu_packer::{MODELS, workspace_root};

use super::*;

fn prey() -> Prey {
    let mut m = Prey::instantiate(PREY_GUID).expect("known GUID");
    m.initialize(0.0).expect("initialize");
    m
}

fn predator() -> Predator {
    let mut m = Predator::instantiate(PREDATOR_GUID).expect("known GUID");
    m.initialize(0.0).expect("initialize");
    m
}

/// Gauss–Seidel (Prey first, then Predator with the new x) or Gauss–Jacobi co-simulation with
/// a fixed step, driven through the `Model` trait. Returns (x, y) at `t_end`.
fn cosimulate(h: f64, t_end: f64, seidel: bool) -> (f64, f64) {
    let (mut prey, mut predator) = (prey(), predator());
    let n = (t_end / h).round() as usize;
    for i in 0..n {
        let t = i as f64 * h;
        let x = prey.get_real(VR_PREY_X).expect("x");
        let y = predator.get_real(VR_PREDATOR_Y).expect("y");
        prey.set_real(VR_PREY_Y, y).expect("set y");
        assert_eq!(prey.do_step(t, h), StepOutcome::Completed);
        let x_in = if seidel {
            prey.get_real(VR_PREY_X).expect("x")
        } else {
            x
        };
        predator.set_real(VR_PREDATOR_X, x_in).expect("set x");
        assert_eq!(predator.do_step(t, h), StepOutcome::Completed);
    }
    (
        prey.get_real(VR_PREY_X).expect("x"),
        predator.get_real(VR_PREDATOR_Y).expect("y"),
    )
}

#[test]
fn prey_step_is_exact_for_constant_input() {
    let mut m = prey();
    m.set_real(VR_PREY_Y, 2.0).expect("set y");
    let mut t = 0.0;
    for h in [0.1, 0.25, 0.4, 0.25] {
        assert_eq!(m.do_step(t, h), StepOutcome::Completed);
        t += h;
    }
    let exact = 6.0 * ((1.1 - 0.4 * 2.0) * t).exp();
    assert!((m.get_real(VR_PREY_X).expect("x") - exact).abs() < 1e-12 * exact);
}

#[test]
fn predator_step_is_exact_for_constant_input() {
    let mut m = predator();
    m.set_real(VR_PREDATOR_X, 3.0).expect("set x");
    assert_eq!(m.do_step(0.0, 0.7), StepOutcome::Completed);
    let exact = 4.0 * ((0.1 * 3.0 - 0.4) * 0.7_f64).exp();
    assert!((m.get_real(VR_PREDATOR_Y).expect("y") - exact).abs() < 1e-12 * exact);
}

#[test]
fn parameters_take_effect_at_initialize() {
    let mut m = prey();
    m.set_real(VR_PREY_X0, 3.0).expect("set x0");
    assert_eq!(m.get_real(VR_PREY_X).expect("x"), 6.0);
    m.initialize(0.0).expect("initialize");
    assert_eq!(m.get_real(VR_PREY_X).expect("x"), 3.0);
    assert!(matches!(
        m.set_real(VR_PREY_X0, -1.0),
        Err(ModelError::InvalidValue { .. })
    ));
    assert!(m.set_real(VR_PREY_ALPHA, f64::NAN).is_err());
    assert!(m.set_real(99, 1.0).is_err());
}

#[test]
fn guid_dispatch() {
    assert!(matches!(
        LotkaVolterra::instantiate(PREY_GUID),
        Some(LotkaVolterra::Prey(_))
    ));
    assert!(matches!(
        LotkaVolterra::instantiate(PREDATOR_GUID),
        Some(LotkaVolterra::Predator(_))
    ));
    assert!(LotkaVolterra::instantiate("{00000000-0000-0000-0000-000000000000}").is_none());
}

#[test]
fn reference_solution_conserves_the_invariant() {
    let p = Parameters::default();
    let v0 = invariant(p.x0, p.y0, &p);
    for t in [1.0, 5.0, 12.5, 20.0] {
        let (x, y) = reference_solution(t, &p);
        assert!((invariant(x, y, &p) - v0).abs() < 1e-9, "t = {t}");
    }
    assert_eq!(reference_solution(0.0, &p), (p.x0, p.y0));
}

#[test]
fn fixed_step_cosimulation_is_what_the_models_compute() {
    let p = Parameters::default();
    for (seidel, coupling) in [(true, Coupling::SeidelPreyFirst), (false, Coupling::Jacobi)] {
        assert_eq!(
            cosimulate(0.01, 3.0, seidel),
            fixed_step_cosimulation(&p, 0.01, 300, coupling)
        );
    }
}

/// Bounds stated in the README for h = 0.01 s on 0–20 s: the largest relative error of x and y
/// at whole seconds, and the largest drift of the invariant.
const BOUNDS: [(Coupling, f64, f64); 3] = [
    (Coupling::SeidelPreyFirst, 0.01, 2e-3),
    (Coupling::SeidelPredatorFirst, 0.01, 2e-3),
    (Coupling::Jacobi, 0.06, 2.5e-2),
];

#[test]
fn cosimulation_matches_reference_within_the_readme_bounds() {
    let p = Parameters::default();
    let v0 = invariant(p.x0, p.y0, &p);
    for (coupling, relative, drift) in BOUNDS {
        let (mut worst, mut worst_drift) = (0.0_f64, 0.0_f64);
        for k in 1..=20 {
            let (x, y) = fixed_step_cosimulation(&p, 0.01, 100 * k, coupling);
            let (xr, yr) = reference_solution(k as f64, &p);
            worst = worst.max(((x - xr) / xr).abs()).max(((y - yr) / yr).abs());
            worst_drift = worst_drift.max((invariant(x, y, &p) - v0).abs());
        }
        assert!(
            worst < relative,
            "{coupling:?}: worst relative error {worst}"
        );
        assert!(
            worst_drift < drift,
            "{coupling:?}: invariant drift {worst_drift}"
        );
    }
}

#[test]
fn cosimulation_error_is_first_order() {
    let p = Parameters::default();
    let (xr, _) = reference_solution(10.0, &p);
    for coupling in [Coupling::SeidelPreyFirst, Coupling::Jacobi] {
        let e1 = (fixed_step_cosimulation(&p, 0.02, 500, coupling).0 - xr).abs();
        let e2 = (fixed_step_cosimulation(&p, 0.01, 1000, coupling).0 - xr).abs();
        let ratio = e1 / e2;
        assert!(
            (1.7..2.3).contains(&ratio),
            "{coupling:?}: error ratio {ratio} for halved h"
        );
    }
}

#[test]
fn model_descriptions_match_the_tables() {
    let root = workspace_root();
    let defaults = Parameters::default();
    for (name, guid, table, starts) in [
        (
            "Prey",
            PREY_GUID,
            PREY_VARIABLES,
            [
                ("y", defaults.y0),
                ("alpha", defaults.alpha),
                ("beta", defaults.beta),
                ("x0", defaults.x0),
            ],
        ),
        (
            "Predator",
            PREDATOR_GUID,
            PREDATOR_VARIABLES,
            [
                ("x", defaults.x0),
                ("gamma", defaults.gamma),
                ("delta", defaults.delta),
                ("y0", defaults.y0),
            ],
        ),
    ] {
        let spec = MODELS
            .iter()
            .find(|m| m.name == name)
            .expect("listed in the packer");
        assert_eq!(spec.package, env!("CARGO_PKG_NAME"));
        let md = spec.read_model_description(&root).expect("readable XML");
        assert_eq!(md.mismatches(guid, table), Vec::<String>::new(), "{name}");
        let model = LotkaVolterra::instantiate(guid).expect("known GUID");
        for (var, value) in starts {
            let x = md
                .variables
                .iter()
                .find(|v| v.name == var)
                .expect("declared");
            let start: f64 = x.start.as_deref().expect("start").parse().expect("number");
            assert_eq!(start, value, "{name}.{var}");
            assert_eq!(
                model.get_real(x.vr).expect("readable"),
                value,
                "{name}.{var}"
            );
        }
    }
}

/// Every Real variable of `m`, as bits.
fn reals(m: &impl Model) -> Vec<u64> {
    m.variables()
        .iter()
        .map(|v| m.get_real(v.vr).expect("readable").to_bits())
        .collect()
}

#[test]
fn saved_state_loads_into_a_fresh_instance_and_behaves_alike() {
    for guid in [PREY_GUID, PREDATOR_GUID] {
        let mut a = LotkaVolterra::instantiate(guid).expect("known GUID");
        for (i, v) in a.variables().iter().enumerate() {
            if matches!(v.causality, Causality::Parameter | Causality::Input) {
                let value = a.get_real(v.vr).expect("readable") * (1.0 + 0.1 * i as f64);
                a.set_real(v.vr, value).expect("set");
            }
        }
        a.initialize(0.0).expect("initialize");
        assert_eq!(a.do_step(0.0, 0.1), StepOutcome::Completed);
        let state = a.save_state().expect("serializable");
        assert_eq!(state.len(), 5);
        let mut b = LotkaVolterra::instantiate(guid).expect("known GUID");
        b.load_state(&state).expect("load");
        assert_eq!(reals(&b), reals(&a), "{guid}");
        let mut t = 0.1;
        for h in [0.01, 0.5, 0.02] {
            assert_eq!(a.do_step(t, h), StepOutcome::Completed);
            assert_eq!(b.do_step(t, h), StepOutcome::Completed);
            t += h;
            assert_eq!(reals(&b), reals(&a), "{guid} at t = {t}");
        }
    }
}

#[test]
fn load_state_checks_length_and_values() {
    for (guid, name) in [(PREY_GUID, "Prey"), (PREDATOR_GUID, "Predator")] {
        let mut m = LotkaVolterra::instantiate(guid).expect("known GUID");
        let state = m.save_state().expect("serializable");
        assert_eq!(
            m.load_state(&state[..4]),
            Err(ModelError::StateLength {
                model: name,
                expected: 5,
                found: 4
            })
        );
        let mut negative = state.clone();
        negative[3] = -1.0;
        assert!(
            matches!(
                m.load_state(&negative),
                Err(ModelError::InvalidValue { .. })
            ),
            "{name}: negative input population"
        );
        let mut nan = state.clone();
        nan[0] = f64::NAN;
        assert!(matches!(
            m.load_state(&nan),
            Err(ModelError::InvalidValue { .. })
        ));
        assert_eq!(m.save_state(), Some(state));
    }
}

#[test]
fn model_descriptions_do_not_declare_serialization() {
    // The master must replay Prey and Predator; tests that need serialization flip this in a
    // temporary copy.
    let root = workspace_root();
    for name in ["Prey", "Predator"] {
        let spec = MODELS
            .iter()
            .find(|m| m.name == name)
            .expect("listed in the packer");
        let xml = std::fs::read_to_string(spec.xml_path(&root)).expect("readable XML");
        assert!(xml.contains(r#"canSerializeFMUstate="false""#), "{name}");
    }
}
