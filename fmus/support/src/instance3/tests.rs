use super::*;
use crate::model3::{Causality3, Dimension, Values, ValuesMut, Variable3};

/// Test model: `x' = rate`; time events at `k·period` (k ≥ 1, none if `period == 0`) count in
/// `count` and double `rate`; an input array `a` of `n` elements (structural parameter); a
/// fixed 2×3 Int32 output `m[i][j] = 10·i + j`; one scalar of the other types.
#[derive(Clone, Debug)]
struct Probe {
    x: f64,
    rate: f64,
    n: u64,
    a: Vec<f64>,
    mode: i64,
    count: i32,
    period: f64,
    next_k: f64,
    name: String,
    blob: Vec<u8>,
    flag: bool,
    small: f32,
    no_set_prior: bool,
    last_h: f64,
}

const VR_X: u32 = 1;
const VR_RATE: u32 = 2;
const VR_N: u32 = 3;
const VR_A: u32 = 4;
const VR_M: u32 = 5;
const VR_MODE: u32 = 6;
const VR_COUNT: u32 = 7;
const VR_PERIOD: u32 = 8;
const VR_NAME: u32 = 9;
const VR_BLOB: u32 = 10;
const VR_FLAG: u32 = 11;
const VR_SMALL: u32 = 12;

const VARS: &[Variable3] = &[
    Variable3::new("x", VR_X, DataType::Float64, Causality3::Output),
    Variable3::new("rate", VR_RATE, DataType::Float64, Causality3::Input),
    Variable3::new("n", VR_N, DataType::UInt64, Causality3::StructuralParameter),
    Variable3::new("a", VR_A, DataType::Float64, Causality3::Input)
        .array(&[Dimension::Parameter(VR_N)]),
    Variable3::new("m", VR_M, DataType::Int32, Causality3::Output)
        .array(&[Dimension::Fixed(2), Dimension::Fixed(3)]),
    Variable3::new("mode", VR_MODE, DataType::Enumeration, Causality3::Input),
    Variable3::new("count", VR_COUNT, DataType::Int32, Causality3::Output),
    Variable3::new(
        "period",
        VR_PERIOD,
        DataType::Float64,
        Causality3::Parameter,
    ),
    Variable3::new("name", VR_NAME, DataType::String, Causality3::Parameter),
    Variable3::new("blob", VR_BLOB, DataType::Binary, Causality3::Input),
    Variable3::new("flag", VR_FLAG, DataType::Boolean, Causality3::Input),
    Variable3::new("small", VR_SMALL, DataType::Float32, Causality3::Input),
];

const TOKEN: &str = "{probe}";

fn unknown(vr: u32) -> ModelError {
    ModelError::Unsupported {
        what: if vr == 0 { "vr 0" } else { "unknown vr" },
    }
}

impl Model for Probe {
    fn instantiate(guid: &str) -> Option<Self> {
        (guid == TOKEN).then(|| Self {
            x: 0.0,
            rate: 1.0,
            n: 2,
            a: vec![0.0; 2],
            mode: 1,
            count: 0,
            period: 0.5,
            next_k: 1.0,
            name: "probe".into(),
            blob: vec![0, 1],
            flag: false,
            small: 0.1,
            no_set_prior: false,
            last_h: f64::NAN,
        })
    }
    fn variables(&self) -> &'static [crate::Variable] {
        &[]
    }
    fn variables3(&self) -> &'static [Variable3] {
        VARS
    }
    fn initialize(&mut self, start_time: f64) -> Result<(), ModelError> {
        self.x = 0.0;
        self.count = 0;
        self.next_k = if self.period > 0.0 {
            (start_time / self.period).floor() + 1.0
        } else {
            0.0
        };
        self.a.resize(usize::try_from(self.n).unwrap_or(0), 0.0);
        Ok(())
    }
    fn do_step(&mut self, _t: f64, h: f64) -> StepOutcome {
        if h > 10.0 {
            return StepOutcome::Discard("h > 10".into());
        }
        self.x += self.rate * h;
        self.last_h = h;
        StepOutcome::Completed
    }
    fn get_values(&self, vr: u32, values: ValuesMut<'_>) -> Result<(), ModelError> {
        match (vr, values) {
            (VR_X, ValuesMut::Float64([v])) => *v = self.x,
            (VR_RATE, ValuesMut::Float64([v])) => *v = self.rate,
            (VR_PERIOD, ValuesMut::Float64([v])) => *v = self.period,
            (VR_N, ValuesMut::UInt64([v])) => *v = self.n,
            (VR_A, ValuesMut::Float64(v)) => v.copy_from_slice(&self.a),
            (VR_M, ValuesMut::Int32(v)) => {
                for (k, e) in v.iter_mut().enumerate() {
                    *e = 10 * (k as i32 / 3) + k as i32 % 3;
                }
            }
            (VR_MODE, ValuesMut::Int64([v])) => *v = self.mode,
            (VR_COUNT, ValuesMut::Int32([v])) => *v = self.count,
            (VR_NAME, ValuesMut::String([v])) => v.clone_from(&self.name),
            (VR_BLOB, ValuesMut::Binary([v])) => v.clone_from(&self.blob),
            (VR_FLAG, ValuesMut::Boolean([v])) => *v = self.flag,
            (VR_SMALL, ValuesMut::Float32([v])) => *v = self.small,
            (vr, _) => return Err(unknown(vr)),
        }
        Ok(())
    }
    fn set_values(&mut self, vr: u32, values: Values<'_>) -> Result<(), ModelError> {
        match (vr, values) {
            (VR_RATE, Values::Float64(&[v])) => self.rate = v,
            (VR_PERIOD, Values::Float64(&[v])) => self.period = v,
            (VR_N, Values::UInt64(&[v])) => {
                if v > 100 {
                    return Err(ModelError::InvalidValue {
                        name: "n",
                        value: v.to_string(),
                        reason: "must be <= 100",
                    });
                }
                self.n = v;
                self.a.resize(usize::try_from(v).unwrap_or(0), 0.0);
            }
            (VR_A, Values::Float64(v)) => self.a.copy_from_slice(v),
            (VR_MODE, Values::Int64(&[v])) => self.mode = v,
            (VR_NAME, Values::String(&[v])) => v.clone_into(&mut self.name),
            (VR_BLOB, Values::Binary(&[v])) => v.clone_into(&mut self.blob),
            (VR_FLAG, Values::Boolean(&[v])) => self.flag = v,
            (VR_SMALL, Values::Float32(&[v])) => self.small = v,
            (vr, _) => return Err(unknown(vr)),
        }
        Ok(())
    }
    fn has_event_mode(&self) -> bool {
        true
    }
    fn next_event_time(&self) -> Option<f64> {
        (self.period > 0.0).then_some(self.next_k * self.period)
    }
    fn update_discrete_states(&mut self, _t: f64) -> Result<(), ModelError> {
        self.count += 1;
        self.rate *= 2.0;
        self.next_k += 1.0;
        Ok(())
    }
    fn might_return_early(&self) -> bool {
        true
    }
    fn no_set_fmu_state_prior_to_current_point(&mut self, value: bool) {
        self.no_set_prior = value;
    }
    fn save_state(&self) -> Option<Vec<f64>> {
        Some(vec![
            self.x,
            self.rate,
            self.count.into(),
            self.period,
            self.next_k,
        ])
    }
    fn load_state(&mut self, state: &[f64]) -> Result<(), ModelError> {
        let [x, rate, count, period, next_k] = crate::state_array("Probe", state)?;
        self.x = x;
        self.rate = rate;
        self.count = count as i32;
        self.period = period;
        self.next_k = next_k;
        Ok(())
    }
}

fn probe(setup: Setup) -> Instance3<Probe> {
    let model = Probe::instantiate(TOKEN).expect("invariant: known token");
    let logger = Logger3::new(None, std::ptr::null_mut(), false);
    Instance3::new("probe".into(), TOKEN.into(), model, logger, setup)
}

fn event_mode(early: bool) -> Setup {
    Setup {
        event_mode_used: true,
        early_return_allowed: early,
        resource_path: None,
    }
}

fn no_event_mode(early: bool) -> Setup {
    Setup {
        event_mode_used: false,
        early_return_allowed: early,
        resource_path: None,
    }
}

/// Initializes at t = 0 and enters Step Mode (through Event Mode if used).
fn started(setup: Setup) -> Instance3<Probe> {
    let mut inst = probe(setup);
    inst.enter_initialization_mode(None, 0.0, None)
        .expect("enter");
    inst.exit_initialization_mode().expect("exit");
    if inst.phase() == Phase3::Event {
        let update = inst.update_discrete_states().expect("update");
        assert_eq!(update.next_event_time, Some(0.5));
        inst.enter_step_mode().expect("step mode");
    }
    inst
}

fn x(inst: &Instance3<Probe>) -> f64 {
    let mut v = [f64::NAN];
    inst.get(DataType::Float64, &[VR_X], &mut v, |v| {
        ValuesMut::Float64(v)
    })
    .expect("x");
    v[0]
}

fn count(inst: &Instance3<Probe>) -> i32 {
    let mut v = [-1];
    inst.get(DataType::Int32, &[VR_COUNT], &mut v, |v| {
        ValuesMut::Int32(v)
    })
    .expect("count");
    v[0]
}

fn set_f64(inst: &mut Instance3<Probe>, vr: u32, values: &[f64]) -> Result3 {
    inst.set(DataType::Float64, &[vr], values, |v| Values::Float64(v))
}

#[test]
fn sequence_and_modes() {
    let mut inst = probe(no_event_mode(false));
    assert!(matches!(
        inst.do_step(0.0, 0.1, false),
        Err(Error3::Sequence { .. })
    ));
    assert!(inst.exit_initialization_mode().is_err());
    let mut inst = started(no_event_mode(false));
    assert_eq!(inst.phase(), Phase3::Step);
    assert!(matches!(inst.enter_event_mode(), Err(Error3::NoEventMode)));

    let mut inst = probe(event_mode(false));
    inst.enter_initialization_mode(Some(1e-6), 0.0, Some(2.0))
        .expect("enter");
    inst.exit_initialization_mode().expect("exit");
    assert_eq!(
        inst.phase(),
        Phase3::Event,
        "eventModeUsed: Event Mode first"
    );
    assert!(inst.do_step(0.0, 0.1, false).is_err());
    let mut inst = started(event_mode(false));
    inst.enter_event_mode().expect("event mode");
    inst.enter_step_mode().expect("step mode");
    inst.terminate().expect("terminate");
    assert!(inst.enter_step_mode().is_err());
    inst.reset().expect("reset");
    assert_eq!(inst.phase(), Phase3::Instantiated);
    assert_eq!(inst.time(), 0.0);
}

#[test]
fn causality_decides_where_a_variable_can_be_set() {
    let mut inst = probe(no_event_mode(false));
    set_f64(&mut inst, VR_PERIOD, &[0.25]).expect("parameter in Instantiated");
    assert!(matches!(
        inst.set(DataType::UInt64, &[VR_N], &[3], |v| Values::UInt64(v)),
        Err(Error3::NotSettable { .. })
    ));
    inst.enter_configuration_mode().expect("configuration");
    inst.set(DataType::UInt64, &[VR_N], &[3], |v| Values::UInt64(v))
        .expect("structural parameter in Configuration Mode");
    let mut n = [0u64];
    inst.get(DataType::UInt64, &[VR_N], &mut n, |v| ValuesMut::UInt64(v))
        .expect("readable in Configuration Mode");
    assert_eq!(n, [3]);
    assert!(matches!(
        inst.get(DataType::Float64, &[VR_X], &mut [0.0], |v| {
            ValuesMut::Float64(v)
        }),
        Err(Error3::NotReadable { .. })
    ));
    assert!(
        set_f64(&mut inst, VR_RATE, &[1.0]).is_err(),
        "no inputs there"
    );
    let mut inst2 = probe(no_event_mode(false));
    inst2.enter_configuration_mode().expect("configuration");
    assert!(matches!(
        inst2.set(DataType::UInt64, &[VR_N], &[101], |v| Values::UInt64(v)),
        Err(Error3::Model(ModelError::InvalidValue { .. }))
    ));
    inst.exit_configuration_mode().expect("exit configuration");
    inst.enter_initialization_mode(None, 0.0, None)
        .expect("enter");
    set_f64(&mut inst, VR_PERIOD, &[0.5]).expect("parameter in Initialization Mode");
    inst.exit_initialization_mode().expect("exit");
    set_f64(&mut inst, VR_RATE, &[2.0]).expect("input in Step Mode");
    assert!(matches!(
        set_f64(&mut inst, VR_PERIOD, &[1.0]),
        Err(Error3::NotSettable { .. })
    ));
    assert!(matches!(
        set_f64(&mut inst, VR_X, &[1.0]),
        Err(Error3::NotSettable { .. })
    ));
    assert!(matches!(
        set_f64(&mut inst, 99, &[1.0]),
        Err(Error3::UnknownVariable { vr: 99 })
    ));
    assert!(matches!(
        inst.set(DataType::Int32, &[VR_RATE], &[1], |v| Values::Int32(v)),
        Err(Error3::WrongType { .. })
    ));
}

#[test]
fn arrays_use_element_counts_and_structural_parameters() {
    let mut inst = probe(no_event_mode(false));
    inst.enter_configuration_mode().expect("configuration");
    inst.set(DataType::UInt64, &[VR_N], &[3], |v| Values::UInt64(v))
        .expect("n = 3");
    inst.exit_configuration_mode().expect("exit configuration");
    inst.enter_initialization_mode(None, 0.0, None)
        .expect("enter");
    // `a` now has 3 elements: one rate plus three array elements in one call.
    inst.set(
        DataType::Float64,
        &[VR_RATE, VR_A],
        &[4.0, 1.0, 2.0, 3.0],
        |v| Values::Float64(v),
    )
    .expect("scalar then array");
    let mut out = [0.0; 4];
    inst.get(DataType::Float64, &[VR_A, VR_RATE], &mut out, |v| {
        ValuesMut::Float64(v)
    })
    .expect("array then scalar");
    assert_eq!(out, [1.0, 2.0, 3.0, 4.0]);
    assert!(matches!(
        set_f64(&mut inst, VR_A, &[1.0, 2.0]),
        Err(Error3::ValueCount {
            expected: 3,
            found: 2,
            ..
        })
    ));
    let mut m = [0; 6];
    inst.get(DataType::Int32, &[VR_M], &mut m, |v| ValuesMut::Int32(v))
        .expect("2x3");
    assert_eq!(m, [0, 1, 2, 10, 11, 12], "row-major");
    assert!(
        inst.get(DataType::Int32, &[VR_M], &mut [0; 5], |v| ValuesMut::Int32(
            v
        ))
        .is_err()
    );
    // Enumerations go through Int64; other types through their own functions.
    inst.set(DataType::Int64, &[VR_MODE], &[-3], |v| Values::Int64(v))
        .expect("enumeration as Int64");
    let mut mode = [0i64];
    inst.get(DataType::Int64, &[VR_MODE], &mut mode, |v| {
        ValuesMut::Int64(v)
    })
    .expect("mode");
    assert_eq!(mode, [-3]);
    let mut small = [0f32];
    inst.get(DataType::Float32, &[VR_SMALL], &mut small, |v| {
        ValuesMut::Float32(v)
    })
    .expect("float32");
    assert_eq!(small[0].to_bits(), 0.1f32.to_bits());
    inst.set(DataType::Binary, &[VR_BLOB], &[&[0u8, 0, 7][..]], |v| {
        Values::Binary(v)
    })
    .expect("binary");
    let mut seen = Vec::new();
    inst.get_binaries(&[VR_BLOB, VR_BLOB], 2, |i, b| seen.push((i, b.to_vec())))
        .expect("binaries");
    assert_eq!(seen, [(0, vec![0, 0, 7]), (1, vec![0, 0, 7])]);
    inst.set(DataType::String, &[VR_NAME], &["Grüße"], |v| {
        Values::String(v)
    })
    .expect("string parameter in Initialization Mode");
    let mut names = Vec::new();
    inst.get_strings(&[VR_NAME], 1, |_, s| names.push(s.clone()))
        .expect("strings");
    assert_eq!(names[0].to_str(), Ok("Grüße"));
}

#[test]
fn events_without_event_mode_are_handled_at_the_end_of_the_step() {
    let mut inst = started(no_event_mode(false));
    let mut t = 0.0;
    for _ in 0..4 {
        let step = inst.do_step(t, 0.1, true).expect("step");
        assert!(!step.event_handling_needed && !step.early_return);
        t = step.last_successful_time;
    }
    assert_eq!(count(&inst), 0);
    let step = inst.do_step(t, 0.1, true).expect("step to 0.5");
    assert_eq!(step.last_successful_time, t + 0.1);
    assert!(!step.event_handling_needed, "handled internally");
    assert_eq!(count(&inst), 1);
    // A long step over two events handles both at its end; the rate doubled only then.
    let before = x(&inst);
    let step = inst.do_step(0.5, 1.0, true).expect("step to 1.5");
    assert_eq!(count(&inst), 3);
    assert_eq!(x(&inst), before + 2.0 * 1.0);
    assert_eq!(step.last_successful_time, 1.5);
}

#[test]
fn event_mode_reports_and_waits_for_the_importer() {
    let mut inst = started(event_mode(false));
    let step = inst.do_step(0.0, 0.3, false).expect("step");
    assert!(!step.event_handling_needed);
    let step = inst.do_step(0.3, 0.3, false).expect("step over 0.5");
    assert!(step.event_handling_needed, "event at 0.5 in (0.3, 0.6]");
    assert!(!step.early_return, "early return not allowed");
    assert_eq!(step.last_successful_time, 0.6);
    assert_eq!(count(&inst), 0, "not handled yet");
    let err = inst.do_step(0.6, 0.1, false).expect_err("event pending");
    assert!(
        matches!(err, Error3::EventPending { event: 0.5, .. }),
        "{err}"
    );

    let mut inst = started(event_mode(false));
    inst.do_step(0.0, 1.2, false)
        .expect("step over 0.5 and 1.0");
    inst.enter_event_mode().expect("event mode");
    assert!(inst.enter_step_mode().is_err(), "events still due");
    let mut inst = started(event_mode(false));
    inst.do_step(0.0, 1.2, false)
        .expect("step over 0.5 and 1.0");
    inst.enter_event_mode().expect("event mode");
    let first = inst.update_discrete_states().expect("update");
    assert!(first.discrete_states_need_update, "1.0 is due too");
    let second = inst.update_discrete_states().expect("update");
    assert_eq!(
        second,
        EventUpdate {
            discrete_states_need_update: false,
            next_event_time: Some(1.5)
        }
    );
    assert_eq!(count(&inst), 2);
    inst.enter_step_mode().expect("step mode");
    inst.do_step(1.2, 0.1, false).expect("step");
}

#[test]
fn early_return_stops_at_the_event() {
    for event_mode_used in [false, true] {
        let setup = Setup {
            event_mode_used,
            early_return_allowed: true,
            resource_path: None,
        };
        let mut inst = started(setup);
        let step = inst.do_step(0.0, 0.3, true).expect("step");
        assert!(!step.early_return);
        let step = inst.do_step(0.3, 0.3, true).expect("step over 0.5");
        assert!(step.early_return);
        assert_eq!(step.last_successful_time, 0.5);
        assert_eq!(step.event_handling_needed, event_mode_used);
        assert_eq!(x(&inst), 0.5, "integrated to the event only");
        if event_mode_used {
            inst.enter_event_mode().expect("event mode");
            inst.update_discrete_states().expect("update");
            inst.enter_step_mode().expect("step mode");
        }
        assert_eq!(count(&inst), 1);
        let step = inst.do_step(0.5, 0.1, true).expect("rest of the step");
        assert!(!step.early_return);
        assert!((x(&inst) - 0.7).abs() < 1e-15, "rate 2 after the event");
    }
    // An event exactly at the end of the step is no early return.
    let mut inst = started(event_mode(true));
    let step = inst.do_step(0.0, 0.5, true).expect("step to 0.5");
    assert!(!step.early_return && step.event_handling_needed);
}

#[test]
fn the_model_steps_by_exactly_h() {
    let mut inst = started(no_event_mode(true));
    inst.do_step(0.0, 0.2, true).expect("step");
    inst.do_step(0.2, 0.1, true).expect("step");
    assert_ne!(
        (0.2 + 0.1) - 0.2,
        0.1,
        "the difference would lose the last bit"
    );
    assert_eq!(inst.model().last_h.to_bits(), 0.1f64.to_bits());
}

#[test]
fn no_set_prior_reaches_the_model_and_a_discard_keeps_the_state() {
    let mut inst = started(no_event_mode(false));
    inst.do_step(0.0, 0.1, true).expect("step");
    assert!(inst.model().no_set_prior);
    inst.do_step(0.1, 0.1, false).expect("step");
    assert!(!inst.model().no_set_prior);
    let err = inst.do_step(0.2, 11.0, true).expect_err("discard");
    assert!(err.is_discard());
    assert_eq!(inst.fail("fmi3DoStep", &err), status::DISCARD);
    assert_eq!(inst.phase(), Phase3::Step);
    assert!(!inst.model().no_set_prior, "the discarded copy is dropped");
    assert!(matches!(
        inst.do_step(0.5, 0.1, true),
        Err(Error3::TimeMismatch { .. })
    ));
    assert!(matches!(
        inst.do_step(0.2, -0.1, true),
        Err(Error3::StepSize { .. })
    ));
}

#[test]
fn states_restore_events_and_serialize_with_the_mode() {
    let mut inst = started(event_mode(false));
    inst.do_step(0.0, 0.4, false).expect("step");
    let handle = inst.get_state(None).expect("get");
    inst.do_step(0.4, 0.2, false).expect("step over 0.5");
    inst.enter_event_mode().expect("event mode");
    inst.update_discrete_states().expect("update");
    assert_eq!(count(&inst), 1);
    inst.set_state(handle).expect("set");
    assert_eq!(count(&inst), 0);
    assert_eq!(inst.time(), 0.4);
    assert_eq!(
        inst.phase(),
        Phase3::Event,
        "the state is kept outside errors"
    );

    let size = inst.serialized_state_size(handle).expect("size");
    assert_eq!(size, 40 + TOKEN.len() + 6 * 8, "mode code plus five values");
    let mut bytes = vec![0; size];
    inst.serialize_state(handle, &mut bytes).expect("serialize");
    let mut other = started(event_mode(false));
    other.do_step(0.0, 2.0, false).expect("step");
    let copy = other.deserialize_state(&bytes, None).expect("deserialize");
    let err = other.enter_step_mode().expect_err("event pending");
    other.fail("fmi3EnterStepMode", &err);
    assert_eq!(other.phase(), Phase3::Error);
    other.set_state(copy).expect("set");
    assert_eq!(
        other.phase(),
        Phase3::Step,
        "the saved state's mode, from Error"
    );
    assert_eq!(other.time(), 0.4);
    other.do_step(0.4, 0.1, false).expect("step");
    assert_eq!(x(&other), 0.5);

    // The mode code must be known and agree with the FMI 2.0 phase byte.
    let mode_at = 40 + TOKEN.len();
    let mut bad = bytes.clone();
    bad[mode_at..mode_at + 8].copy_from_slice(&7.0f64.to_le_bytes());
    assert!(matches!(
        other.deserialize_state(&bad, None),
        Err(Error3::SerializedState(FormatError::Field { .. }))
    ));
    bad[mode_at..mode_at + 8].copy_from_slice(&0.0f64.to_le_bytes());
    assert!(
        other.deserialize_state(&bad, None).is_err(),
        "Instantiated vs step mode byte"
    );
    let mut short = bytes.clone();
    short.truncate(short.len() - 8);
    assert!(other.deserialize_state(&short, None).is_err());
    other.free_state(copy).expect("free");
    assert!(matches!(other.set_state(copy), Err(Error3::UnknownState)));
}

#[test]
fn directional_derivatives_need_scalar_float64_and_matching_lengths() {
    let inst = started(no_event_mode(false));
    let mut out = [0.0];
    assert!(matches!(
        inst.directional_derivative(&[VR_X], &[VR_RATE], &[1.0], &mut out),
        Err(Error3::Unsupported { .. })
    ));
    assert!(matches!(
        inst.directional_derivative(&[VR_X], &[VR_A], &[1.0], &mut out),
        Err(Error3::Unsupported { .. })
    ));
    assert!(matches!(
        inst.directional_derivative(&[VR_X], &[VR_RATE], &[1.0, 2.0], &mut out),
        Err(Error3::ValueCount { arg: "nSeed", .. })
    ));
}
