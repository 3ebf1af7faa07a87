use fmu_packer::{FmiVersion, MODELS, workspace_root};

use super::*;

fn oscillator() -> Oscillator {
    let mut m = Oscillator::instantiate(GUID).expect("known GUID");
    m.initialize(0.0).expect("initialize");
    m
}

fn get(m: &Oscillator, vr: u32) -> f64 {
    m.get_real(vr).expect("readable")
}

#[test]
fn free_oscillation_matches_the_analytic_solution_for_any_steps() {
    let p = Parameters::default();
    let mut m = oscillator();
    let mut t = 0.0;
    let mut n = 0;
    for h in [0.1, 0.37, 1.0, 0.013].iter().cycle().take(40) {
        assert_eq!(m.do_step(t, *h), StepOutcome::Completed);
        t += h;
        n += 1;
        let (x, v) = reference_solution(t, 0.0, &p);
        assert!(
            (get(&m, VR_X) - x).abs() < 1e-12 && (get(&m, VR_V) - v).abs() < 1e-12,
            "t = {t}"
        );
        assert_eq!(m.get_boolean(VR_POSITIVE), Ok(x > 0.0));
    }
    assert_eq!(m.get_integer(VR_STEPS), Ok(n));
}

#[test]
fn constant_force_shifts_the_equilibrium() {
    let p = Parameters {
        m: 2.0,
        ..Parameters::default()
    };
    let mut m = oscillator();
    m.set_real(VR_M, 2.0).expect("set m");
    m.set_real(VR_F, 4.0).expect("set F");
    assert_eq!(m.do_step(0.0, 0.3), StepOutcome::Completed);
    assert_eq!(m.do_step(0.3, 0.4), StepOutcome::Completed);
    let (x, v) = reference_solution(0.7, 4.0, &p);
    assert!((get(&m, VR_X) - x).abs() < 1e-12 && (get(&m, VR_V) - v).abs() < 1e-12);
    // x_e = F/(m·omega²) = 0.5 and x0 = 1, so x oscillates in [0, 1].
    assert!((0.0..=1.0).contains(&x));
}

#[test]
fn parameters_are_validated_and_take_effect_at_initialize() {
    let mut m = oscillator();
    assert!(m.set_real(VR_OMEGA, 0.0).is_err());
    assert!(m.set_real(VR_M, -1.0).is_err());
    assert!(m.set_real(VR_X0, f64::NAN).is_err());
    m.set_real(VR_X0, -0.5).expect("set x0");
    m.set_real(VR_V0, 1.0).expect("set v0");
    m.set_string(VR_LABEL, "spring").expect("set label");
    m.initialize(0.0).expect("initialize");
    assert_eq!((get(&m, VR_X), get(&m, VR_V)), (-0.5, 1.0));
    assert_eq!(m.get_boolean(VR_POSITIVE), Ok(false));
    assert_eq!(m.get_string(VR_TAG).as_deref(), Ok("spring"));
    assert!(m.set_string(VR_TAG, "x").is_err());
}

#[test]
fn model_description_matches_the_table() {
    let spec = MODELS
        .iter()
        .find(|m| m.name == "Oscillator")
        .expect("listed in the packer");
    assert_eq!(spec.package, env!("CARGO_PKG_NAME"));
    let md = spec
        .read_model_description(&workspace_root())
        .expect("readable XML");
    assert_eq!(md.fmi_version, FmiVersion::V1);
    assert_eq!(md.model_identifier, MODEL_IDENTIFIER);
    assert_eq!(md.mismatches(GUID, VARIABLES), Vec::<String>::new());
    let m = Oscillator::instantiate(GUID).expect("known GUID");
    for x in md.variables.iter() {
        let Some(start) = x.start.as_deref() else {
            continue;
        };
        match x.ty {
            VarType::Real => assert_eq!(m.get_real(x.vr), Ok(start.parse().expect("real"))),
            VarType::String => assert_eq!(m.get_string(x.vr).as_deref(), Ok(start)),
            VarType::Integer | VarType::Boolean => {
                panic!("no Integer/Boolean start values expected")
            }
        }
    }
}
