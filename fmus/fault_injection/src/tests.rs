use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};
use std::ptr;
use std::time::{Duration, Instant};

use fmu_packer::{FmiVersion, MODELS, workspace_root};

use super::*;

mod state;

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
        (VR_INF_TIME, times.inf),
        (VR_EXIT_TIME, times.exit),
        (VR_JITTER_TIME, times.jitter),
        (VR_SLOW_TIME, times.slow),
        (VR_SLOW_UNTIL, times.slow_until),
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
        .filter(|v| v.causality == Causality::Parameter && v.ty == VarType::Real)
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
    // exitCode: an Integer parameter, a process exit status.
    assert_eq!(m.get_integer(VR_EXIT_CODE), Ok(DEFAULT_EXIT_CODE));
    assert_eq!(DEFAULT_EXIT_CODE, 3);
    for code in [0, 42, 255] {
        m.set_integer(VR_EXIT_CODE, code).expect("set exitCode");
        assert_eq!(m.get_integer(VR_EXIT_CODE), Ok(code));
    }
    for code in [-1, 256, i32::MIN] {
        assert!(matches!(
            m.set_integer(VR_EXIT_CODE, code),
            Err(ModelError::InvalidValue {
                name: "exitCode",
                ..
            })
        ));
    }
    assert_eq!(
        m.get_integer(VR_EXIT_CODE),
        Ok(255),
        "unchanged by a refused value"
    );
    assert!(m.set_integer(VR_COUNT, 1).is_err(), "count is an output");
}

#[test]
fn error_is_returned_once_by_the_first_step_reaching_error_time() {
    let mut m = faulty(FaultTimes {
        error: 0.3,
        ..FaultTimes::default()
    });
    m.set_real(VR_U, 1.0).expect("set u");
    // The third step fails, also when rounding leaves its end just below 0.3.
    assert_eq!(step(&mut m, 0.0, 0.1), StepOutcome::Completed);
    assert_eq!(step(&mut m, 0.1, 0.1), StepOutcome::Completed);
    let saved = m.clone();
    let t = 0.2;
    assert!(matches!(
        step(&mut m, t, 0.1 - 1e-12),
        StepOutcome::Error(_)
    ));
    assert_eq!(
        (count(&m), y(&m)),
        (2, 1.2),
        "state stays at the step start"
    );
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
    // Only a step sets it off: a start time after nanTime leaves y finite until the first step.
    m.initialize(0.75).expect("initialize");
    assert_eq!(y(&m), 1.75);
    assert_eq!(step(&mut m, 0.75, 0.25), StepOutcome::Completed);
    assert!(y(&m).is_nan());
    m.initialize(0.0).expect("initialize");
    assert_eq!(y(&m), 1.0);
}

#[test]
fn inf_time_makes_y_infinite_and_nan_wins_over_it() {
    let mut m = faulty(FaultTimes {
        inf: 0.5,
        ..FaultTimes::default()
    });
    m.set_real(VR_U, -3.0).expect("set u");
    assert_eq!(step(&mut m, 0.0, 0.25), StepOutcome::Completed);
    assert_eq!(y(&m), -2.75);
    let before = m.clone();
    assert_eq!(step(&mut m, 0.25, 0.25), StepOutcome::Completed);
    assert_eq!(y(&m), f64::INFINITY, "+inf, whatever the sign of u");
    assert_eq!(count(&m), 2);
    // A rollback to before the step gives the finite value back: it is part of the FMU state.
    assert_eq!(y(&before), -2.75);

    let mut m = faulty(FaultTimes {
        inf: 0.5,
        nan: 1.0,
        ..FaultTimes::default()
    });
    assert_eq!(step(&mut m, 0.0, 0.5), StepOutcome::Completed);
    assert_eq!(y(&m), f64::INFINITY);
    assert_eq!(step(&mut m, 0.5, 0.5), StepOutcome::Completed);
    assert!(y(&m).is_nan(), "NaN takes precedence once both are reached");
}

#[test]
fn reached_uses_the_tolerance_max_1_abs_t() {
    // Off below zero, whatever the time.
    assert!(!reached(1e9, -1.0));
    assert!(!reached(1e9, -1e-300));
    assert!(reached(0.0, 0.0));
    // |T| <= 1: an absolute allowance of 1e-9 s.
    assert!(reached(0.5 - 0.9e-9, 0.5));
    assert!(!reached(0.5 - 1.1e-9, 0.5));
    assert!(reached(-0.9e-9, 0.0));
    assert!(!reached(-1.1e-9, 0.0));
    // |T| > 1: relative, 1e-9·|T|.
    assert!(reached(100.0 - 0.9e-7, 100.0));
    assert!(!reached(100.0 - 1.1e-7, 100.0));
    // Three steps of 0.1 s reach 0.3 however they were rounded.
    let end = 0.1 + 0.1 + 0.1;
    assert!(reached(end, 0.3) && reached(0.3 - 1e-12, 0.3));
}

#[test]
fn jitter_time_adds_a_small_offset_that_differs_between_instances() {
    let mut m = faulty(FaultTimes {
        jitter: 0.5,
        ..FaultTimes::default()
    });
    let j = m.jitter();
    assert!((JITTER_SCALE..2.0 * JITTER_SCALE).contains(&j), "j = {j}");
    m.set_real(VR_U, 1.0).expect("set u");
    assert_eq!(step(&mut m, 0.0, 0.25), StepOutcome::Completed);
    assert_eq!(y(&m), 1.25, "exact before jitterTime");
    let before = m.clone();
    assert_eq!(step(&mut m, 0.25, 0.25), StepOutcome::Completed);
    assert_eq!(y(&m), 1.0 + 0.5 + j, "the step that reaches it");
    assert_ne!(y(&m), 1.5);
    assert_eq!(step(&mut m, 0.5, 0.5), StepOutcome::Completed);
    assert_eq!(y(&m), 1.0 + 1.0 + j, "and every step after it");
    assert_eq!(m.get_real(VR_U), Ok(1.0), "only y is changed");
    assert_eq!(count(&m), 3);
    // j belongs to the instance: the same in its clones (FMU states), fixed across
    // re-initialization.
    assert_eq!(before.jitter(), j);
    assert_eq!(y(&before), 1.25);
    m.initialize(0.75).expect("initialize");
    assert_eq!(y(&m), 1.75, "before the first step y is exact");
    assert_eq!(step(&mut m, 0.75, 0.25), StepOutcome::Completed);
    assert_eq!(y(&m), 2.0 + j);
    // Another instance has another offset.
    let other = faulty(FaultTimes::default());
    assert_ne!(other.jitter(), j);
    // NaN and +inf take precedence once reached.
    let mut m = faulty(FaultTimes {
        jitter: 0.0,
        inf: 0.5,
        nan: 1.0,
        ..FaultTimes::default()
    });
    assert_eq!(step(&mut m, 0.0, 0.25), StepOutcome::Completed);
    assert_eq!(y(&m), 0.25 + m.jitter());
    assert_eq!(step(&mut m, 0.25, 0.25), StepOutcome::Completed);
    assert_eq!(y(&m), f64::INFINITY);
    assert_eq!(step(&mut m, 0.5, 0.5), StepOutcome::Completed);
    assert!(y(&m).is_nan());
}

#[test]
fn slow_window_bounds_use_the_tolerance_and_can_be_empty() {
    let window = |slow, slow_until| {
        faulty(FaultTimes {
            slow,
            slow_until,
            ..FaultTimes::default()
        })
    };
    let m = window(1.0, 2.0);
    assert!(!m.slow(0.0, 0.5), "ends before slowTime");
    assert!(!m.slow(0.5, 0.49));
    assert!(m.slow(0.5, 0.5), "ends at slowTime");
    assert!(
        m.slow(0.5, 0.5 - 1e-12),
        "reaches slowTime within the tolerance"
    );
    assert!(m.slow(0.0, 1.5), "only the end counts, not the start");
    assert!(m.slow(1.5, 0.5 - 1e-8), "ends before slowUntil");
    assert!(!m.slow(1.5, 0.5), "slowUntil is excluded");
    assert!(
        !m.slow(1.5, 0.5 - 1e-12),
        "reaches slowUntil within the tolerance"
    );
    assert!(!m.slow(2.0, 0.5));
    assert_eq!(m.fault(0.5, 0.5), None, "not a fault that stops the step");
    // Empty windows: slowUntil not after slowTime, or slowTime off.
    for (slow, slow_until) in [(1.0, 1.0), (1.0, 0.5), (1.0, -1.0), (-1.0, 2.0)] {
        let m = window(slow, slow_until);
        for end in [0.0, 0.5, 1.0, 1.5, 2.0, 3.0] {
            assert!(!m.slow(0.0, end), "[{slow}, {slow_until}), end {end}");
        }
    }
    // Either bound alone, as set from the XML start values.
    let mut m = faulty(FaultTimes::default());
    m.set_real(VR_SLOW_TIME, 0.0).expect("set slowTime");
    assert!(!m.slow(0.0, 0.1), "slowUntil = -1: empty");
    m.set_real(VR_SLOW_UNTIL, 0.2).expect("set slowUntil");
    assert!(m.slow(0.0, 0.1) && !m.slow(0.1, 0.1));
    assert_eq!(
        (m.get_real(VR_SLOW_TIME), m.get_real(VR_SLOW_UNTIL)),
        (Ok(0.0), Ok(0.2))
    );
}

#[test]
fn slow_window_sleeps_and_gives_bit_identical_results() {
    // h = 0.1 s, accumulated: steps 3 to 5 end at 0.3, 0.4 and 0.5 (within rounding) and lie
    // in [0.3, 0.6); the step that ends at 0.6 does not.
    let mut slow = faulty(FaultTimes {
        slow: 0.3,
        slow_until: 0.6,
        ..FaultTimes::default()
    });
    let mut normal = faulty(FaultTimes::default());
    for m in [&mut slow, &mut normal] {
        m.set_real(VR_U, 0.7).expect("set u");
    }
    let mut t = 0.0;
    let mut slow_steps = 0;
    for n in 1..=10 {
        let in_window = (3..=5).contains(&n);
        assert_eq!(slow.slow(t, 0.1), in_window, "step {n}");
        assert!(!normal.slow(t, 0.1));
        let start = Instant::now();
        assert_eq!(step(&mut slow, t, 0.1), StepOutcome::Completed, "step {n}");
        let elapsed = start.elapsed();
        if in_window {
            slow_steps += 1;
            assert!(elapsed >= SLOW_STEP, "step {n} took {elapsed:?}");
        }
        assert_eq!(step(&mut normal, t, 0.1), StepOutcome::Completed);
        t += 0.1;
        assert_eq!(y(&slow).to_bits(), y(&normal).to_bits(), "step {n}");
        assert_eq!(count(&slow), count(&normal));
        assert_eq!(count(&slow), n);
    }
    assert_eq!(slow_steps, 3);
    assert_eq!(SLOW_STEP, Duration::from_millis(50));
}

/// Every fault time at 0.5 s, the slow window to 1 s, `u = 1`.
fn all_faults_at_half_a_second() -> Faulty {
    let mut m = faulty(FaultTimes {
        error: 0.5,
        fatal: 0.5,
        nan: 0.5,
        hang: 0.5,
        segfault: 0.5,
        abort: 0.5,
        discard: 0.5,
        inf: 0.5,
        exit: 0.5,
        jitter: 0.5,
        slow: 0.5,
        slow_until: 1.0,
    });
    m.set_real(VR_U, 1.0).expect("set u");
    m
}

#[test]
fn switched_off_faults_are_all_ignored() {
    assert!(faults_switched_off(Some(OsStr::new("off"))));
    for value in ["on", "", "0", "Off", " off"] {
        assert!(!faults_switched_off(Some(OsStr::new(value))), "{value:?}");
    }
    assert!(!faults_switched_off(None));

    let mut m = all_faults_at_half_a_second();
    assert!(!m.faults_off());
    assert_eq!(m.fault(0.25, 0.25), Some(Fault::Segfault));
    assert!(m.slow(0.25, 0.25));
    m.faults_off = true;
    assert!(m.faults_off());
    let mut t = 0.0;
    for _ in 0..8 {
        assert_eq!(m.fault(t, 0.25), None);
        assert!(!m.slow(t, 0.25), "no slow window");
        assert_eq!(step(&mut m, t, 0.25), StepOutcome::Completed);
        t += 0.25;
        assert_eq!(y(&m), 1.0 + t, "no NaN, +inf or jitter");
    }
    assert_eq!(count(&m), 8);
    assert_eq!(
        m.get_real(VR_SEGFAULT_TIME),
        Ok(0.5),
        "the parameters keep their values"
    );
}

/// Environment variable of [`env_child`]: what to do (`jitter`, `faults-off` or `state`).
const ENV_CHILD: &str = "FMU_FAULT_INJECTION_ENV_CHILD";

/// Not a test of its own: the entry point of the child processes that check what depends on
/// the process and its environment. Without [`ENV_CHILD`] it does nothing. Prints one line
/// for the parent, which starts with `child: ` (after libtest's `test … ... `).
#[test]
fn env_child() {
    let Ok(what) = std::env::var(ENV_CHILD) else {
        return;
    };
    match what.as_str() {
        "jitter" => {
            let m = Faulty::instantiate(GUID).expect("known GUID");
            println!("child: jitter {}", m.jitter().to_bits());
        }
        "faults-off" => {
            // Every fault at 0.5 s, the crashes included: with the faults off the steps across
            // complete, else the process dies with SIGSEGV.
            let mut m = all_faults_at_half_a_second();
            let mut t = 0.0;
            for _ in 0..4 {
                assert_eq!(step(&mut m, t, 0.25), StepOutcome::Completed);
                t += 0.25;
            }
            assert_eq!((y(&m), count(&m)), (2.0, 4));
            println!("child: faults off {}, y = {}", m.faults_off(), y(&m));
        }
        "state" => {
            // A serialized state of an instance with stateFault 3, in hex.
            let fmu = Fmu::with_state_fault(&[], 3);
            let hex: String = fmu.serialize().iter().map(|b| format!("{b:02x}")).collect();
            println!("child: state {hex}");
        }
        other => panic!("unknown child {other}"),
    }
}

/// Runs [`env_child`] doing `what` with the environment `env`, and returns its `child:` line.
fn env_child_line(what: &str, env: &[(&str, &OsStr)]) -> String {
    let mut vars = vec![(ENV_CHILD, OsStr::new(what))];
    vars.extend_from_slice(env);
    let output = spawn_test("tests::env_child", &vars, Stdio::piped())
        .wait_with_output()
        .expect("wait");
    assert!(output.status.success(), "{:?}", output.status);
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|l| l.split_once("child: ").map(|(_, line)| line.to_owned()))
        .expect("the child printed its line")
}

#[test]
fn jitter_differs_from_process_to_process() {
    let lines: Vec<String> = (0..3).map(|_| env_child_line("jitter", &[])).collect();
    assert_ne!(lines[0], lines[1]);
    assert_ne!(lines[1], lines[2]);
    assert_ne!(lines[0], lines[2]);
}

#[test]
fn faults_env_off_switches_every_fault_off() {
    let line = env_child_line("faults-off", &[(FAULTS_ENV, OsStr::new("off"))]);
    assert_eq!(line, "faults off true, y = 2");
    // Any other value leaves the faults on: the child dies with SIGSEGV at 0.5 s.
    let status = spawn_test(
        "tests::env_child",
        &[
            (ENV_CHILD, OsStr::new("faults-off")),
            (FAULTS_ENV, OsStr::new("on")),
        ],
        Stdio::null(),
    )
    .wait()
    .expect("wait");
    assert_eq!(status.signal(), Some(11), "{status:?}");
}

/// The kind of a step outcome, without its message.
fn kind(outcome: &StepOutcome) -> &'static str {
    match outcome {
        StepOutcome::Completed => "completed",
        StepOutcome::Terminate => "terminate",
        StepOutcome::Discard(_) => "discard",
        StepOutcome::Error(_) => "error",
        _ => "other",
    }
}

#[test]
fn discard_once_per_communication_point() {
    let mut m = faulty(FaultTimes {
        discard: 1.0,
        ..FaultTimes::default()
    });
    assert_eq!(step(&mut m, 0.0, 0.5), StepOutcome::Completed);
    // From 0.5, the first step reaching 1.0 is discarded.
    assert_eq!(kind(&step(&mut m, 0.5, 0.5)), "discard");
    assert_eq!(
        (count(&m), y(&m)),
        (1, 0.5),
        "state stays at the step start"
    );
    // The retry from the same point completes, even with the same size.
    let mut same = m.clone();
    assert_eq!(step(&mut same, 0.5, 0.5), StepOutcome::Completed);
    // A smaller retry that ends before discardTime completes too.
    assert_eq!(step(&mut m, 0.5, 0.25), StepOutcome::Completed);
    // A new point before discardTime: its first step across is discarded again, once.
    assert_eq!(kind(&step(&mut m, 0.75, 0.5)), "discard");
    assert_eq!(step(&mut m, 0.75, 0.5), StepOutcome::Completed);
    // Steps that start at discardTime or later are never discarded.
    for t in [1.25, 1.5, 2.0] {
        assert_eq!(step(&mut m, t, 0.5), StepOutcome::Completed, "from {t}");
    }

    // Reaching within the tolerance counts; starting within it counts as starting at it.
    let mut m = faulty(FaultTimes {
        discard: 1.0,
        ..FaultTimes::default()
    });
    assert_eq!(step(&mut m, 0.0, 0.7), StepOutcome::Completed);
    assert_eq!(kind(&step(&mut m, 0.7, 0.3 - 1e-12)), "discard");
    assert_eq!(step(&mut m, 0.7, 0.3 - 1e-12), StepOutcome::Completed);
    assert_eq!(step(&mut m, 1.0 - 1e-12, 0.5), StepOutcome::Completed);
}

#[test]
fn crash_and_hang_faults_take_precedence_in_the_documented_order() {
    let all = FaultTimes {
        error: 1.0,
        fatal: 1.0,
        nan: 1.0,
        hang: 1.0,
        segfault: 1.0,
        abort: 1.0,
        discard: 1.0,
        inf: 1.0,
        exit: 1.0,
        jitter: 1.0,
        slow: 1.0,
        slow_until: 2.0,
    };
    let order = [
        Fault::Segfault,
        Fault::Abort,
        Fault::Exit,
        Fault::Hang,
        Fault::Fatal,
        Fault::Error,
        Fault::Discard,
    ];
    let mut times = all;
    for expected in order {
        let m = faulty(times);
        assert_eq!(m.fault(0.0, 0.5), None, "nothing before 1 s");
        assert_eq!(m.fault(0.5, 0.5), Some(expected));
        assert_eq!(
            m.fault(0.5, 0.5 - 1e-12),
            Some(expected),
            "within the tolerance"
        );
        assert_eq!(m.fault(0.5, 0.49), None);
        match expected {
            Fault::Segfault => times.segfault = -1.0,
            Fault::Abort => times.abort = -1.0,
            Fault::Exit => times.exit = -1.0,
            Fault::Hang => times.hang = -1.0,
            Fault::Fatal => times.fatal = -1.0,
            Fault::Error => times.error = -1.0,
            Fault::Discard => times.discard = -1.0,
        }
    }
    let m = faulty(times);
    assert_eq!(m.fault(0.5, 0.5), None);
    assert!(
        m.slow(0.5, 0.5),
        "the slow window is not a fault that stops the step"
    );
    // A simulation that starts after a crash time crashes in its first step.
    let m = faulty(FaultTimes {
        abort: 0.0,
        ..FaultTimes::default()
    });
    assert_eq!(m.fault(0.0, 0.01), Some(Fault::Abort));
}

/// The FMI functions of `fmu_support::fmi2` for Faulty, with this crate's `fmi2DoStep`, as
/// the packed library exports them.
struct Fmu(fmi2::Component);

impl Fmu {
    /// Instantiates, sets the fault times and enters step mode at t = 0.
    fn new(times: &[(u32, f64)]) -> Self {
        Self::with_state_fault(times, 0)
    }

    /// [`Fmu::new`] with the parameter `stateFault` set to `state_fault`.
    fn with_state_fault(times: &[(u32, f64)], state_fault: i32) -> Self {
        let callbacks = fmi2::CallbackFunctions {
            logger: None,
            allocate_memory: None,
            free_memory: None,
            step_finished: None,
            component_environment: ptr::null_mut(),
        };
        let guid = std::ffi::CString::new(GUID).expect("no NUL");
        // SAFETY: valid NUL-terminated strings and a callback struct that outlive the call.
        let c = unsafe {
            fmi2::instantiate::<Faulty>(
                c"faulty".as_ptr(),
                fmi2::CO_SIMULATION,
                guid.as_ptr(),
                ptr::null(),
                &raw const callbacks,
                fmi2::FALSE,
                fmi2::FALSE,
            )
        };
        assert!(!c.is_null());
        let fmu = Self(c);
        for &(vr, value) in times {
            assert_eq!(fmu.set_real(vr, value), fmi2::STATUS_OK);
        }
        assert_eq!(
            fmu.set_integer(VR_STATE_FAULT, state_fault),
            fmi2::STATUS_OK
        );
        // SAFETY: a live instance, used by this thread only.
        unsafe {
            let ok = fmi2::STATUS_OK;
            assert_eq!(fmi2::setup_experiment::<Faulty>(c, 0, 0.0, 0.0, 0, 0.0), ok);
            assert_eq!(fmi2::enter_initialization_mode::<Faulty>(c), ok);
            assert_eq!(fmi2::exit_initialization_mode::<Faulty>(c), ok);
        }
        fmu
    }

    fn set_real(&self, vr: u32, value: f64) -> fmi2::Status {
        // SAFETY: a live instance; one value reference and one value.
        unsafe { fmi2::set_real::<Faulty>(self.0, &raw const vr, 1, &raw const value) }
    }

    fn y(&self) -> f64 {
        let (vr, mut value) = (VR_Y, 0.0);
        // SAFETY: a live instance; one value reference and one output slot.
        let status = unsafe { fmi2::get_real::<Faulty>(self.0, &raw const vr, 1, &raw mut value) };
        assert_eq!(status, fmi2::STATUS_OK);
        value
    }

    fn count(&self) -> i32 {
        let (vr, mut value) = (VR_COUNT, -1);
        // SAFETY: a live instance; one value reference and one output slot.
        let status =
            unsafe { fmi2::get_integer::<Faulty>(self.0, &raw const vr, 1, &raw mut value) };
        assert_eq!(status, fmi2::STATUS_OK);
        value
    }

    fn do_step(&self, t: f64, h: f64) -> fmi2::Status {
        // SAFETY: a live instance, used by this thread only.
        unsafe { fmi2_do_step(self.0, t, h, fmi2::FALSE) }
    }

    fn get_state(&self) -> fmi2::FmuState {
        let mut state = ptr::null_mut();
        // SAFETY: a live instance and a writable, null state slot.
        let status = unsafe { fmi2::get_fmu_state::<Faulty>(self.0, &raw mut state) };
        assert_eq!(status, fmi2::STATUS_OK);
        state
    }

    fn set_state(&self, state: fmi2::FmuState) -> fmi2::Status {
        // SAFETY: a live instance; the handle is only compared.
        unsafe { fmi2::set_fmu_state::<Faulty>(self.0, state) }
    }
}

impl Drop for Fmu {
    fn drop(&mut self) {
        // SAFETY: a live instance, freed once; its FMU states go with it.
        unsafe { fmi2::free_instance::<Faulty>(self.0) }
    }
}

#[test]
fn through_fmi2_error_is_recoverable_by_rollback() {
    let fmu = Fmu::new(&[(VR_ERROR_TIME, 0.2)]);
    assert_eq!(fmu.do_step(0.0, 0.1), fmi2::STATUS_OK);
    let state = fmu.get_state();
    assert_eq!(fmu.do_step(0.1, 0.1), fmi2::STATUS_ERROR);
    assert_eq!(fmu.do_step(0.1, 0.1), fmi2::STATUS_ERROR, "error phase");
    assert_eq!(fmu.set_state(state), fmi2::STATUS_OK);
    assert_eq!(fmu.do_step(0.1, 0.1), fmi2::STATUS_OK, "the retry succeeds");
    assert_eq!(fmu.count(), 2);
    assert!((fmu.y() - 0.2).abs() < 1e-15);
}

#[test]
fn through_fmi2_fatal_is_fmi2_fatal() {
    let fmu = Fmu::new(&[(VR_FATAL_TIME, 0.2), (VR_ERROR_TIME, 0.2)]);
    assert_eq!(fmu.do_step(0.0, 0.1), fmi2::STATUS_OK);
    let state = fmu.get_state();
    assert_eq!(fmu.do_step(0.1, 0.1), fmi2::STATUS_FATAL);
    assert_eq!(
        fmu.do_step(0.1, 0.1),
        fmi2::STATUS_ERROR,
        "after Fatal the instance is in the error phase"
    );
    assert_eq!(fmu.set_state(state), fmi2::STATUS_OK);
    assert_eq!(fmu.do_step(0.1, 0.1), fmi2::STATUS_FATAL, "Fatal again");
    assert!(!FATAL.get(), "the flag is consumed");
    // An ordinary Error on the same thread stays an Error.
    let fmu = Fmu::new(&[(VR_ERROR_TIME, 0.1)]);
    assert_eq!(fmu.do_step(0.0, 0.1), fmi2::STATUS_ERROR);
}

#[test]
fn through_fmi2_inf() {
    let fmu = Fmu::new(&[(VR_INF_TIME, 0.2)]);
    assert_eq!(fmu.do_step(0.0, 0.1), fmi2::STATUS_OK);
    assert!((fmu.y() - 0.1).abs() < 1e-15);
    assert_eq!(fmu.do_step(0.1, 0.1), fmi2::STATUS_OK, "the step completes");
    assert_eq!(fmu.y(), f64::INFINITY);
    assert_eq!(fmu.count(), 2);
}

#[test]
fn through_fmi2_jitter_and_rollback() {
    let fmu = Fmu::new(&[(VR_JITTER_TIME, 0.2)]);
    assert_eq!(fmu.do_step(0.0, 0.1), fmi2::STATUS_OK);
    assert!((fmu.y() - 0.1).abs() < 1e-15);
    let state = fmu.get_state();
    assert_eq!(fmu.do_step(0.1, 0.1), fmi2::STATUS_OK);
    let j = fmu.y() - 0.2;
    assert!(
        (0.9 * JITTER_SCALE..2.1 * JITTER_SCALE).contains(&j),
        "j = {j}"
    );
    assert_eq!(fmu.set_state(state), fmi2::STATUS_OK);
    assert!(
        (fmu.y() - 0.1).abs() < 1e-15,
        "rolled back before jitterTime"
    );
    assert_eq!(fmu.do_step(0.1, 0.1), fmi2::STATUS_OK);
    assert_eq!(fmu.y() - 0.2, j, "the same offset after the rollback");
}

#[test]
fn through_fmi2_discard_then_retry_and_nan() {
    let fmu = Fmu::new(&[(VR_DISCARD_TIME, 0.5), (VR_NAN_TIME, 0.75)]);
    assert_eq!(fmu.set_real(VR_U, 1.0), fmi2::STATUS_OK);
    assert_eq!(fmu.do_step(0.0, 0.25), fmi2::STATUS_OK);
    assert_eq!(fmu.do_step(0.25, 0.5), fmi2::STATUS_DISCARD);
    assert_eq!((fmu.count(), fmu.y()), (1, 1.25));
    assert_eq!(fmu.do_step(0.25, 0.25), fmi2::STATUS_OK);
    assert_eq!(fmu.y(), 1.5);
    assert_eq!(fmu.do_step(0.5, 0.25), fmi2::STATUS_OK);
    assert!(fmu.y().is_nan());
    assert_eq!(fmu.count(), 3);
}

#[test]
fn through_fmi2_slow_steps_are_ok_and_slow_again_after_rollback() {
    let fmu = Fmu::new(&[(VR_SLOW_TIME, 0.2), (VR_SLOW_UNTIL, 0.3)]);
    let normal = Fmu::new(&[]);
    for f in [&fmu, &normal] {
        assert_eq!(f.set_real(VR_U, 1.0), fmi2::STATUS_OK);
        assert_eq!(f.do_step(0.0, 0.1), fmi2::STATUS_OK);
    }
    let state = fmu.get_state();
    for _ in 0..2 {
        let start = Instant::now();
        assert_eq!(
            fmu.do_step(0.1, 0.1),
            fmi2::STATUS_OK,
            "fmi2OK, not a fault"
        );
        assert!(start.elapsed() >= SLOW_STEP, "took {:?}", start.elapsed());
        assert_eq!(fmu.count(), 2);
        // Rolled back, the same step is slow again: the window is not remembered.
        assert_eq!(fmu.set_state(state), fmi2::STATUS_OK);
    }
    let mut t = 0.1;
    for h in [0.1, 0.1, 0.5] {
        assert_eq!(fmu.do_step(t, h), fmi2::STATUS_OK);
        assert_eq!(normal.do_step(t, h), fmi2::STATUS_OK);
        t += h;
        assert_eq!(fmu.y().to_bits(), normal.y().to_bits(), "at {t}");
        assert_eq!(fmu.count(), normal.count());
    }
    assert_eq!(fmu.count(), 4);
}

/// Environment variable that makes [`crash_child`] run a fault instead of passing.
const CHILD_FAULT: &str = "FMU_FAULT_INJECTION_CHILD";

/// Not a test of its own: the entry point of the child processes started by the crash tests.
/// Without [`CHILD_FAULT`] it does nothing.
#[test]
fn crash_child() {
    let Ok(fault) = std::env::var(CHILD_FAULT) else {
        return;
    };
    let vr = match fault.as_str() {
        "segfault" => VR_SEGFAULT_TIME,
        "abort" => VR_ABORT_TIME,
        "hang" => VR_HANG_TIME,
        "exit" => VR_EXIT_TIME,
        other => panic!("unknown fault {other}"),
    };
    let mut m = faulty(FaultTimes::default());
    m.set_real(vr, 0.2).expect("set");
    if let Some(code) = std::env::var_os(CHILD_EXIT_CODE) {
        let code = code
            .to_str()
            .and_then(|c| c.parse().ok())
            .expect("an exit code");
        m.set_integer(VR_EXIT_CODE, code).expect("set exitCode");
    }
    if std::env::var_os(CHILD_ATEXIT_MARKER).is_some() {
        // SAFETY: registers a plain `extern "C" fn()` without captured state; `atexit` has no
        // other preconditions.
        let registered = unsafe { atexit(write_atexit_marker) };
        assert_eq!(registered, 0, "atexit");
    }
    m.initialize(0.0).expect("initialize");
    assert_eq!(step(&mut m, 0.0, 0.1), StepOutcome::Completed);
    step(&mut m, 0.1, 0.1);
    // Unreachable if the fault works; exits normally otherwise, which the parent reports.
}

/// Environment variable of [`crash_child`]: the `exitCode` to set.
const CHILD_EXIT_CODE: &str = "FMU_FAULT_INJECTION_EXIT_CODE";

/// Environment variable of [`crash_child`]: a file that an `atexit` handler writes.
const CHILD_ATEXIT_MARKER: &str = "FMU_FAULT_INJECTION_ATEXIT_MARKER";

unsafe extern "C" {
    /// The C library's `atexit`.
    fn atexit(callback: extern "C" fn()) -> std::ffi::c_int;
}

/// The `atexit` handler of [`crash_child`]: writes the file named by [`CHILD_ATEXIT_MARKER`].
extern "C" fn write_atexit_marker() {
    if let Some(path) = std::env::var_os(CHILD_ATEXIT_MARKER) {
        let _ = std::fs::write(path, "atexit ran");
    }
}

/// Starts this test binary running only the test `test` ([`crash_child`] or [`env_child`]),
/// with core dumps off, without [`FAULTS_ENV`] unless `env` sets it, and with the environment
/// variables `env`.
fn spawn_test(test: &str, env: &[(&str, &OsStr)], stdout: Stdio) -> std::process::Child {
    let exe = std::env::current_exe().expect("test binary");
    Command::new("/bin/sh")
        .arg("-c")
        .arg(r#"ulimit -c 0 && exec "$0" "$@""#)
        .arg(exe)
        .args(["--exact", test, "--test-threads=1", "--nocapture"])
        .env_remove(FAULTS_ENV)
        .envs(env.iter().copied())
        .stdout(stdout)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the child")
}

/// Starts this test binary running only [`crash_child`] with `fault`, with core dumps off.
fn spawn_child(fault: &str) -> std::process::Child {
    spawn_test(
        "tests::crash_child",
        &[(CHILD_FAULT, OsStr::new(fault))],
        Stdio::null(),
    )
}

#[test]
fn segfault_time_kills_the_process_with_sigsegv() {
    let status = spawn_child("segfault").wait().expect("wait");
    assert_eq!(status.signal(), Some(11), "{status:?}");
}

#[test]
fn abort_time_kills_the_process_with_sigabrt() {
    let status = spawn_child("abort").wait().expect("wait");
    assert_eq!(status.signal(), Some(6), "{status:?}");
}

#[test]
fn exit_time_exits_with_exit_code_after_atexit_handlers() {
    let marker = std::env::temp_dir().join(format!(
        "fmu-fault-injection-atexit-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = std::fs::remove_file(&marker);
    let status = spawn_test(
        "tests::crash_child",
        &[
            (CHILD_FAULT, OsStr::new("exit")),
            (CHILD_EXIT_CODE, OsStr::new("42")),
            (CHILD_ATEXIT_MARKER, marker.as_os_str()),
        ],
        Stdio::null(),
    )
    .wait()
    .expect("wait");
    assert_eq!(status.code(), Some(42), "{status:?}");
    let written = std::fs::read_to_string(&marker);
    let _ = std::fs::remove_file(&marker);
    assert_eq!(written.expect("the atexit handler ran"), "atexit ran");
    // The default exit code.
    let status = spawn_child("exit").wait().expect("wait");
    assert_eq!(status.code(), Some(DEFAULT_EXIT_CODE), "{status:?}");
}

#[test]
fn hang_time_never_returns() {
    let mut child = spawn_child("hang");
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(1500) {
        assert!(
            child.try_wait().expect("try_wait").is_none(),
            "the child ended"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    child.kill().expect("kill");
    child.wait().expect("reap");
}

#[test]
fn guid_dispatch() {
    assert!(Faulty::instantiate(GUID).is_some());
    assert!(Faulty::instantiate("Faulty").is_none());
}

#[test]
fn model_description_matches_the_table() {
    let spec = MODELS
        .iter()
        .find(|m| m.name == "Faulty")
        .expect("listed in the packer");
    assert_eq!(spec.package, env!("CARGO_PKG_NAME"));
    let md = spec
        .read_model_description(&workspace_root())
        .expect("readable XML");
    assert_eq!(md.fmi_version, FmiVersion::V2);
    assert_eq!(md.model_identifier, "Faulty");
    assert_eq!(md.mismatches(GUID, FAULTY_VARIABLES), Vec::<String>::new());
    assert_eq!(md.outputs, [2, 3]);
    let m = Faulty::instantiate(GUID).expect("known GUID");
    for x in md.variables.iter().filter(|x| x.start.is_some()) {
        let start = x.start.as_deref().expect("start");
        match x.ty {
            VarType::Real => {
                let start: f64 = start.parse().expect("number");
                assert_eq!(m.get_real(x.vr), Ok(start), "{}", x.name);
            }
            VarType::Integer => {
                let start: i32 = start.parse().expect("integer");
                assert_eq!(m.get_integer(x.vr), Ok(start), "{}", x.name);
            }
            other => panic!("{}: unexpected type {other}", x.name),
        }
    }
    assert_eq!(
        md.variables.iter().map(|x| x.vr).max(),
        Some(VR_STATE_FAULT),
        "stateFault has the last value reference"
    );
    for x in &md.variables {
        assert_eq!(x.index as u32, x.vr, "{}: vr equals the index", x.name);
    }
}
