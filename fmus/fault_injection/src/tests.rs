use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};
use std::ptr;
use std::time::{Duration, Instant};

use fmu_packer::{FmiVersion, MODELS, workspace_root};

use super::*;

fn faulty(times: FaultTimes) -> Faulty {
    let mut m = Faulty::instantiate(GUID).expect("known GUID");
    for (vr, value) in [
        (VR_ERROR_TIME, times.error),
        (VR_FATAL_TIME, times.fatal),
        (VR_NAN_TIME, times.nan),
        (VR_HANG_TIME, times.hang),
        (VR_SEGFAULT_TIME, times.segfault),
        (VR_ABORT_TIME, times.abort),
        (VR_DISCARD_TIME, times.discard),
    ] {
        m.set_real(vr, value).expect("set a fault time");
    }
    m.initialize(0.0).expect("initialize");
    m
}

/// One step as the export layer runs it: on a clone, which replaces the model only if the step
/// completes.
fn step(m: &mut Faulty, t: f64, h: f64) -> StepOutcome {
    let mut next = m.clone();
    let outcome = next.do_step(t, h);
    if outcome == StepOutcome::Completed {
        *m = next;
    }
    outcome
}

fn y(m: &Faulty) -> f64 {
    m.get_real(VR_Y).expect("y")
}

fn count(m: &Faulty) -> i32 {
    m.get_integer(VR_COUNT).expect("count")
}

#[test]
fn without_faults_y_is_u_plus_t_and_count_counts_steps() {
    let mut m = faulty(FaultTimes::default());
    assert_eq!((y(&m), count(&m)), (0.0, 0));
    m.set_real(VR_U, 2.5).expect("set u");
    assert_eq!(y(&m), 2.5, "direct feedthrough");
    let mut t = 0.0;
    for n in 1..=200 {
        assert_eq!(step(&mut m, t, 0.05), StepOutcome::Completed);
        t += 0.05;
        assert_eq!((y(&m), count(&m)), (2.5 + t, n));
    }
    m.initialize(3.0).expect("initialize");
    assert_eq!((y(&m), count(&m)), (5.5, 0), "t is the start time");
}

#[test]
fn parameters_are_readable_and_must_be_finite() {
    let m = faulty(FaultTimes::default());
    for v in FAULTY_VARIABLES
        .iter()
        .filter(|v| v.causality == Causality::Parameter)
    {
        assert_eq!(m.get_real(v.vr), Ok(-1.0), "{} is off by default", v.name);
        let mut m = m.clone();
        m.set_real(v.vr, 4.5).expect("set");
        assert_eq!(m.get_real(v.vr), Ok(4.5));
        assert!(matches!(
            m.set_real(v.vr, f64::NAN),
            Err(ModelError::InvalidValue { .. })
        ));
        assert!(m.set_real(v.vr, f64::NEG_INFINITY).is_err());
    }
    let mut m = m;
    assert!(m.set_real(VR_Y, 1.0).is_err());
    assert!(m.get_integer(VR_U).is_err());
}

#[test]
fn error_is_returned_once_by_the_first_step_reaching_error_time() {
    let mut m = faulty(FaultTimes {
        error: 0.3,
        ..FaultTimes::default()
    });
    m.set_real(VR_U, 1.0).expect("set u");
    // 0.1 + 0.1 + 0.1 = 0.30000000000000004 and 0.1·3 accumulated differently would be below
    // 0.3: the tolerance makes the third step the failing one either way.
    assert_eq!(step(&mut m, 0.0, 0.1), StepOutcome::Completed);
    assert_eq!(step(&mut m, 0.1, 0.1), StepOutcome::Completed);
    let saved = m.clone();
    let t = 0.2;
    assert!(matches!(step(&mut m, t, 0.1 - 1e-12), StepOutcome::Error(_)));
    assert_eq!((count(&m), y(&m)), (2, 1.2), "state stays at the step start");
    // Rolled back to the saved state, the retry of the same step succeeds: the Error is not
    // part of the FMU state.
    let mut m = saved;
    assert_eq!(step(&mut m, t, 0.1), StepOutcome::Completed);
    assert_eq!(step(&mut m, 0.3, 0.1), StepOutcome::Completed);
    assert_eq!(count(&m), 4);
    // Initialization re-arms it; a step that starts after errorTime still reaches it.
    m.initialize(1.0).expect("initialize");
    assert!(matches!(step(&mut m, 1.0, 0.1), StepOutcome::Error(_)));
    assert_eq!(step(&mut m, 1.0, 0.1), StepOutcome::Completed);
}

#[test]
fn fatal_is_returned_by_every_step_reaching_fatal_time() {
    let mut m = faulty(FaultTimes {
        fatal: 1.0,
        ..FaultTimes::default()
    });
    assert_eq!(step(&mut m, 0.0, 0.5), StepOutcome::Completed);
    assert_eq!(step(&mut m, 0.5, 0.4), StepOutcome::Completed);
    FATAL.set(false);
    for _ in 0..3 {
        assert!(matches!(step(&mut m, 0.9, 0.1), StepOutcome::Error(e) if e.contains("Fatal")));
        assert!(FATAL.replace(false), "flagged for fmi2_do_step");
    }
    assert_eq!(count(&m), 2);
    assert_eq!(step(&mut m, 0.9, 0.05), StepOutcome::Completed);
    assert!(!FATAL.get());
}

#[test]
fn nan_time_makes_y_nan_from_then_on() {
    let mut m = faulty(FaultTimes {
        nan: 0.5,
        ..FaultTimes::default()
    });
    m.set_real(VR_U, 1.0).expect("set u");
    assert_eq!(step(&mut m, 0.0, 0.25), StepOutcome::Completed);
    assert_eq!(y(&m), 1.25);
    assert_eq!(
        step(&mut m, 0.25, 0.25),
        StepOutcome::Completed,
        "the step completes"
    );
    assert!(y(&m).is_nan());
    assert_eq!(count(&m), 2);
    assert_eq!(step(&mut m, 0.5, 1.0), StepOutcome::Completed);
    assert!(y(&m).is_nan());
    assert_eq!(m.get_real(VR_U), Ok(1.0), "only y is NaN");
    m.initialize(0.5).expect("initialize");
    assert!(y(&m).is_nan(), "also at a start time at or after nanTime");
    m.initialize(0.0).expect("initialize");
    assert_eq!(y(&m), 1.0);
}

#[test]
fn discard_once_per_communication_point() {
    let mut m = faulty(FaultTimes {
        discard: 1.0,
        ..FaultTimes::default()
    });
    assert_eq!(step(&mut m, 0.0, 0.5), StepOutcome::Completed);
    // From 0.5, the first step reaching 1.0 is discarded, whatever its size.
    assert!(matches!(step(&mut m, 0.5, 0.5), StepOutcome::Discard(_)));
    assert_eq!((count(&m), y(&m)), (1, 0.5), "state stays at the step start");
    // The retry from the same point completes, even with the same size.
    let mut same = m.clone();
    assert_eq!(step(&mut same, 0.5, 0.5), StepOutcome::Completed);
    // A smaller retry that ends before discardTime completes too.
    assert_eq!(step(&mut m, 0.5, 0.25), StepOutcome::Completed);
    // A new point before discardTime: its first step across is discarded again, once.
    assert!(matches!(step(&mut m, 0.75, 0.5), StepOutcome::Discard(_)));
    assert_eq!(step(&mut m, 0.75, 0.5), StepOutcome::Completed);
    // Steps from discardTime on are never discarded.
    let mut m = faulty(FaultTimes {
        discard: 1.0,
        ..FaultTimes::default()
    });
    assert_eq!(step(&mut m, 0.0, 1.0), StepOutcome::Discard("".into()).clone_if_discard());
    assert_eq!(step(&mut m, 0.0, 0.4), StepOutcome::Completed);
    assert_eq!(step(&mut m, 0.4, 0.3), StepOutcome::Completed);
    assert_eq!(step(&mut m, 0.7, 0.3 - 1e-12), StepOutcome::Discard("".into()).clone_if_discard());
    assert_eq!(step(&mut m, 0.7, 0.3), StepOutcome::Completed);
    for t in [1.0, 1.5, 2.0] {
        assert_eq!(step(&mut m, t, 0.5), StepOutcome::Completed, "from {t}");
    }
}

/// Compares outcomes by kind only.
trait Kind {
    fn clone_if_discard(self) -> StepOutcome;
}

impl Kind for StepOutcome {
    fn clone_if_discard(self) -> StepOutcome {
        self
    }
}
