use fmu_packer::{MODELS, workspace_root};

use super::*;

fn init<M: Model>(guid: &str) -> M {
    let mut m = M::instantiate(guid).expect("known GUID");
    m.initialize(0.0).expect("initialize");
    m
}

fn outputs(m: &FourVars) -> FourValues {
    FourValues {
        boolean: m.get_boolean(VR_V_BOOL).expect("VBool"),
        integer: m.get_integer(VR_V_INTEGER).expect("VInteger"),
        string: m.get_string(VR_V_STRING).expect("VString"),
        real: m.get_real(VR_V_REAL).expect("VReal"),
    }
}

fn fed_through(m: &FourVarsFeedThrough) -> FourValues {
    FourValues {
        boolean: m.get_boolean(VR_OUT_BOOL).expect("OutBool"),
        integer: m.get_integer(VR_OUT_INTEGER).expect("OutInteger"),
        string: m.get_string(VR_OUT_STRING).expect("OutString"),
        real: m.get_real(VR_OUT_REAL).expect("OutReal"),
    }
}

#[test]
fn reference_solution_thresholds() {
    let at = |t| reference_solution(t);
    assert_eq!(at(0.0).string, "Blabla");
    assert_eq!(at(0.5).string, "blabla");
    assert_eq!(at(5.0).string, "blabla");
    assert_eq!(at(5.5).string, "blubbblubb");
    assert!(!at(9.5).boolean);
    assert!(at(10.0).boolean);
    assert_eq!(at(2.99).integer, 2);
    assert_eq!(at(3.0).integer, 3);
    assert_eq!(at(1.5).real, 2.25);
    assert_eq!(at(1e12).integer, i32::MAX);
}

#[test]
fn accumulated_steps_land_on_the_intended_side() {
    let mut m: FourVars = init(FOUR_VARS_GUID);
    let mut t = 0.0;
    for _ in 0..100 {
        assert_eq!(m.do_step(t, 0.1), StepOutcome::Completed);
        t += 0.1;
    }
    assert!(t < 10.0, "the float sum is below 10: {t}");
    let v = outputs(&m);
    assert!(v.boolean);
    assert_eq!(v.integer, 10);
    assert_eq!(v.string, "blubbblubb");
}

#[test]
fn terminate_time_requests_the_end() {
    let mut m: FourVars = init(FOUR_VARS_GUID);
    m.set_real(VR_TERMINATE_TIME, 1.0).expect("set");
    assert_eq!(m.do_step(0.0, 0.5), StepOutcome::Completed);
    assert_eq!(m.do_step(0.5, 0.75), StepOutcome::Terminate);
    assert_eq!(outputs(&m).real, 1.25 * 1.25, "the step still completes");
    assert!(m.set_real(VR_TERMINATE_TIME, f64::INFINITY).is_err());
}

#[test]
fn feed_through_outputs_follow_inputs_immediately() {
    let mut m: FourVarsFeedThrough = init(FEED_THROUGH_GUID);
    assert_eq!(
        fed_through(&m),
        FourValues {
            boolean: true,
            integer: 2,
            string: "blubbblubb".into(),
            real: 5.0
        }
    );
    m.set_boolean(VR_IN_BOOL, false).expect("set");
    m.set_integer(VR_IN_INTEGER, -7).expect("set");
    m.set_string(VR_IN_STRING, "äöü").expect("set");
    m.set_real(VR_IN_REAL, 0.125).expect("set");
    let expected = FourValues {
        boolean: false,
        integer: -7,
        string: "äöü".into(),
        real: 0.125,
    };
    assert_eq!(fed_through(&m), expected);
    assert_eq!(m.do_step(0.0, 1.0), StepOutcome::Completed);
    assert_eq!(fed_through(&m), expected);
    assert!(m.set_real(VR_OUT_REAL, 1.0).is_err());
}

/// Gauss–Jacobi with h = 0.5 s on 0–20 s (MasterSim's DifferentVariableTypesFeedThrough
/// setup): the feed-through outputs lag the generator by exactly one step.
#[test]
fn jacobi_chain_lags_one_step() {
    let mut gen_model: FourVars = init(FOUR_VARS_GUID);
    let mut ft: FourVarsFeedThrough = init(FEED_THROUGH_GUID);
    let connect = |ft: &mut FourVarsFeedThrough, v: &FourValues| {
        ft.set_boolean(VR_IN_BOOL, v.boolean).expect("set");
        ft.set_integer(VR_IN_INTEGER, v.integer).expect("set");
        ft.set_string(VR_IN_STRING, &v.string).expect("set");
        ft.set_real(VR_IN_REAL, v.real).expect("set");
    };
    let mut cached = outputs(&gen_model);
    connect(&mut ft, &cached);
    assert_eq!(fed_through(&ft), reference_solution(0.0));
    let h = 0.5;
    for n in 0..40 {
        let t = n as f64 * h;
        assert_eq!(gen_model.do_step(t, h), StepOutcome::Completed);
        connect(&mut ft, &cached);
        assert_eq!(ft.do_step(t, h), StepOutcome::Completed);
        cached = outputs(&gen_model);
        assert_eq!(cached, reference_solution(t + h));
        assert_eq!(fed_through(&ft), reference_solution(t));
    }
}

#[test]
fn guid_dispatch() {
    assert!(matches!(
        FourVarsModels::instantiate(FOUR_VARS_GUID),
        Some(FourVarsModels::FourVars(_))
    ));
    assert!(matches!(
        FourVarsModels::instantiate(FEED_THROUGH_GUID),
        Some(FourVarsModels::FeedThrough(_))
    ));
    assert!(FourVarsModels::instantiate("").is_none());
}

#[test]
fn model_descriptions_match_the_tables() {
    let root = workspace_root();
    for (name, guid, table) in [
        ("FourVars", FOUR_VARS_GUID, FOUR_VARS_VARIABLES),
        (
            "FourVarsFeedThrough",
            FEED_THROUGH_GUID,
            FEED_THROUGH_VARIABLES,
        ),
    ] {
        let spec = MODELS
            .iter()
            .find(|m| m.name == name)
            .expect("listed in the packer");
        assert_eq!(spec.package, env!("CARGO_PKG_NAME"));
        let md = spec.read_model_description(&root).expect("readable XML");
        assert_eq!(md.mismatches(guid, table), Vec::<String>::new(), "{name}");
        let model = FourVarsModels::instantiate(guid).expect("known GUID");
        for x in md.variables.iter() {
            let Some(start) = x.start.as_deref() else {
                continue;
            };
            match x.ty {
                VarType::Real => assert_eq!(model.get_real(x.vr), Ok(start.parse().expect("real"))),
                VarType::Integer => {
                    assert_eq!(model.get_integer(x.vr), Ok(start.parse().expect("int")))
                }
                VarType::Boolean => assert_eq!(model.get_boolean(x.vr), Ok(start == "true")),
                VarType::String => assert_eq!(model.get_string(x.vr).as_deref(), Ok(start)),
            }
        }
    }
}
