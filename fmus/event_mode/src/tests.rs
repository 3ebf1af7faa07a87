use std::ptr;

use fmu_packer::{MODELS3, workspace_root};
use fmu_support::fmi3::{self, Instance, STATUS_OK};

use super::*;

type M = EventMode;

#[test]
fn model_descriptions_match_the_tables_the_starts_and_the_hooks() {
    let root = workspace_root();
    for (name, token, table, early) in [
        ("Ticker", TICKER_TOKEN, TICKER_VARIABLES, "false"),
        (
            "EarlyReturn",
            EARLY_RETURN_TOKEN,
            EARLY_RETURN_VARIABLES,
            "true",
        ),
    ] {
        let spec = MODELS3
            .iter()
            .find(|m| m.name == name)
            .expect("listed in the packer");
        assert_eq!(spec.package, env!("CARGO_PKG_NAME"));
        let md = spec.read_model_description(&root).expect("readable XML");
        assert_eq!(md.mismatches3(token, table), Vec::<String>::new(), "{name}");
        let mut model = M::instantiate(token).expect("known token");
        model.initialize(0.0).expect("initialize");
        assert_eq!(md.start_mismatches3(&model), Vec::<String>::new(), "{name}");
        assert_eq!(md.capability("hasEventMode"), Some("true"));
        assert!(model.has_event_mode());
        assert_eq!(md.capability("mightReturnEarlyFromDoStep"), Some(early));
        assert_eq!(model.might_return_early().to_string(), early);
        assert_eq!(md.capability("canSerializeFMUState"), Some("true"));
        assert!(model.save_state().is_some());
    }
}

/// One communication point of [`run`]: the outputs after the events there were handled, and
/// what the FMU reported on the way there.
#[derive(Clone, Debug, PartialEq)]
struct Point {
    /// The time reached (s).
    t: f64,
    /// `eventHandlingNeeded` of the step that reached `t`.
    event_handling_needed: bool,
    /// `earlyReturn` of the step that reached `t`.
    early_return: bool,
    /// `fmi3UpdateDiscreteStates` calls made at `t`.
    updates: usize,
    /// Float64 outputs read at `t`.
    reals: Vec<f64>,
    /// Int32 outputs read at `t`.
    integers: Vec<i32>,
}

/// Drives one FMU like a fixed-step importer: steps towards the grid points `k·h` (summed),
/// and after an early return continues from `lastSuccessfulTime` to the same grid point; in
/// Event Mode, handles events as the FMU asks (`fmi3EnterEventMode`, `fmi3UpdateDiscreteStates`
/// until `discreteStatesNeedUpdate` is false, `fmi3EnterStepMode`). Records every point
/// reached, early returns included.
fn run(
    token: &std::ffi::CStr,
    event_mode_used: bool,
    early_return_allowed: bool,
    h: f64,
    steps: usize,
    reals: &[u32],
    integers: &[u32],
) -> Vec<Point> {
    // SAFETY: NUL-terminated strings that outlive the call; no callbacks.
    let c: Instance = unsafe {
        fmi3::instantiate_co_simulation::<M>(
            c"run".as_ptr(),
            token.as_ptr(),
            ptr::null(),
            false,
            false,
            event_mode_used,
            early_return_allowed,
            ptr::null(),
            0,
            ptr::null_mut(),
            None,
            None,
        )
    };
    assert!(!c.is_null());
    let read = |t: f64, event: bool, early: bool, updates: usize| {
        let mut r = vec![0.0; reals.len()];
        let mut i = vec![0; integers.len()];
        // SAFETY: a live instance; arrays of the lengths passed.
        unsafe {
            assert_eq!(
                fmi3::get_float64::<M>(c, reals.as_ptr(), reals.len(), r.as_mut_ptr(), r.len()),
                STATUS_OK
            );
            assert_eq!(
                fmi3::get_int32::<M>(
                    c,
                    integers.as_ptr(),
                    integers.len(),
                    i.as_mut_ptr(),
                    i.len()
                ),
                STATUS_OK
            );
        }
        Point {
            t,
            event_handling_needed: event,
            early_return: early,
            updates,
            reals: r,
            integers: i,
        }
    };
    let handle_events = || {
        let mut updates = 0;
        // SAFETY: a live instance in Event Mode; pointers to live locals.
        unsafe {
            loop {
                let (mut need, mut terminate, mut nominals, mut values) = (false, true, true, true);
                let (mut defined, mut next) = (false, 0.0);
                let status = fmi3::update_discrete_states::<M>(
                    c,
                    &mut need,
                    &mut terminate,
                    &mut nominals,
                    &mut values,
                    &mut defined,
                    &mut next,
                );
                assert_eq!(status, STATUS_OK);
                assert!(!terminate && !nominals && !values);
                updates += 1;
                if !need {
                    break;
                }
            }
            assert_eq!(fmi3::enter_step_mode::<M>(c), STATUS_OK);
        }
        updates
    };
    let mut points = Vec::new();
    // SAFETY: a live instance of this thread.
    unsafe {
        assert_eq!(
            fmi3::enter_initialization_mode::<M>(c, false, 0.0, 0.0, false, 0.0),
            STATUS_OK
        );
        assert_eq!(fmi3::exit_initialization_mode::<M>(c), STATUS_OK);
    }
    if event_mode_used {
        handle_events();
    }
    let (mut t, mut grid) = (0.0, 0.0);
    for _ in 0..steps {
        grid += h;
        while t < grid {
            let (mut event, mut terminate, mut early, mut last) = (false, false, false, 0.0);
            // SAFETY: a live instance; pointers to live locals.
            let status = unsafe {
                fmi3::do_step::<M>(
                    c,
                    t,
                    grid - t,
                    true,
                    &mut event,
                    &mut terminate,
                    &mut early,
                    &mut last,
                )
            };
            assert_eq!(status, STATUS_OK);
            assert!(!terminate);
            assert!(early || last == grid, "{last} {grid}");
            let mut updates = 0;
            if event {
                assert!(event_mode_used, "eventHandlingNeeded only with Event Mode");
                // SAFETY: a live instance in Step Mode.
                assert_eq!(unsafe { fmi3::enter_event_mode::<M>(c) }, STATUS_OK);
                updates = handle_events();
            }
            t = if early { last } else { grid };
            points.push(read(t, event, early, updates));
        }
    }
    // SAFETY: a live instance of this thread, not used afterwards.
    unsafe {
        assert_eq!(fmi3::terminate::<M>(c), STATUS_OK);
        fmi3::free_instance::<M>(c);
    }
    points
}

const TICKER_REALS: [u32; 2] = [VR_TICKER_LAST_TICK, VR_TICKER_HANDLED_AT];
const EARLY_REALS: [u32; 3] = [VR_EARLY_X, VR_EARLY_RATE, VR_EARLY_SWITCHED_AT];

fn ticker(event_mode_used: bool, h: f64, steps: usize) -> Vec<Point> {
    run(
        c"{57984334-e48b-4fd8-8ecf-6070003a875e}",
        event_mode_used,
        true,
        h,
        steps,
        &TICKER_REALS,
        &[VR_TICKER_COUNT],
    )
}

fn early_return(event_mode_used: bool, early_return_allowed: bool) -> Vec<Point> {
    run(
        c"{08a10d59-8917-450d-a29c-0a8c86418d5e}",
        event_mode_used,
        early_return_allowed,
        0.1,
        10,
        &EARLY_REALS,
        &[],
    )
}

#[test]
fn ticker_counts_every_half_second_with_and_without_event_mode() {
    for event_mode_used in [true, false] {
        let points = ticker(event_mode_used, 0.1, 20);
        assert_eq!(points.len(), 20, "the Ticker never returns early");
        for p in &points {
            let count = ticker_count(p.t, 0.5);
            assert_eq!(p.integers, [count], "t = {}", p.t);
            assert_eq!(p.reals[0], f64::from(count) * 0.5, "last_tick at {}", p.t);
            let tick = p.t == p.reals[1];
            assert_eq!(
                p.event_handling_needed,
                event_mode_used && tick,
                "t = {}",
                p.t
            );
            if event_mode_used {
                assert_eq!(p.updates, usize::from(tick));
            }
        }
        let counts: Vec<i32> = points.iter().map(|p| p.integers[0]).collect();
        assert_eq!(
            counts,
            [0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4]
        );
        let last = points.last().expect("20 points");
        assert_eq!(
            last.t, 2.0000000000000004,
            "twenty steps of 0.1 sum to this"
        );
        assert_eq!(last.reals, [2.0, 2.0000000000000004]);
    }
}

#[test]
fn ticker_handles_late_and_multiple_events_at_the_end_of_the_step() {
    // h = 0.3: the tick at 0.5 is handled at 0.6, the one at 1.0 at 1.2.
    let points = ticker(true, 0.3, 4);
    let seen: Vec<(i32, f64, bool)> = points
        .iter()
        .map(|p| (p.integers[0], p.reals[1], p.event_handling_needed))
        .collect();
    assert_eq!(
        seen,
        [
            (0, 0.0, false),
            (1, 0.6, true),
            (1, 0.6, false),
            (2, 1.2, true)
        ]
    );
    // h = 1.5: the ticks at 0.5, 1.0 and 1.5 are all due at 1.5; three updates in Event Mode,
    // or three internal ones without it.
    for event_mode_used in [true, false] {
        let points = ticker(event_mode_used, 1.5, 1);
        assert_eq!(points[0].integers, [3]);
        assert_eq!(points[0].reals, [1.5, 1.5]);
        assert_eq!(points[0].updates, if event_mode_used { 3 } else { 0 });
    }
}

#[test]
fn early_return_splits_the_step_at_the_event() {
    for event_mode_used in [true, false] {
        let points = early_return(event_mode_used, true);
        assert_eq!(points.len(), 11, "ten grid points and the early return");
        let early = &points[3];
        assert!(early.early_return);
        assert_eq!(early.t, 0.35);
        assert_eq!(early.event_handling_needed, event_mode_used);
        assert_eq!(early.reals[2], 0.35, "switched_at");
        assert_eq!(early.reals[1], 2.0, "rate after the event");
        assert!(
            (early.reals[0] - 0.35).abs() < 1e-15,
            "x(0.35) = {}",
            early.reals[0]
        );
        assert!(points.iter().filter(|p| p.early_return).count() == 1);
        let at = |t: f64| {
            points
                .iter()
                .find(|p| (p.t - t).abs() < 1e-9)
                .expect("a point")
                .reals[0]
        };
        assert!((at(0.4) - 0.45).abs() < 1e-15, "x(0.4) = {}", at(0.4));
        assert!((at(1.0) - 1.65).abs() < 1e-15, "x(1.0) = {}", at(1.0));
        for p in &points {
            let exact = early_return_x(p.t, 0.35, 1.0, 2.0);
            assert!((p.reals[0] - exact).abs() < 1e-14, "t = {}", p.t);
        }
    }
}

#[test]
fn without_early_return_the_event_waits_for_the_end_of_the_step() {
    for event_mode_used in [true, false] {
        let points = early_return(event_mode_used, false);
        assert_eq!(points.len(), 10);
        assert!(points.iter().all(|p| !p.early_return));
        let p = &points[3];
        assert_eq!(p.event_handling_needed, event_mode_used);
        assert_eq!(
            p.reals[2], 0.4,
            "switched_at: handled at the end of the step"
        );
        assert_eq!(p.reals[0], 0.4);
        assert!(
            (points[9].reals[0] - 1.6).abs() < 1e-15,
            "x(1.0) = {}",
            points[9].reals[0]
        );
        for p in &points {
            let exact = early_return_x(p.t, 0.4, 1.0, 2.0);
            assert!((p.reals[0] - exact).abs() < 1e-14, "t = {}", p.t);
        }
    }
}

#[test]
fn states_round_trip_through_serialization() {
    for token in [TICKER_TOKEN, EARLY_RETURN_TOKEN] {
        let mut a = M::instantiate(token).expect("known token");
        a.initialize(0.0).expect("initialize");
        a.do_step(0.0, 0.4);
        a.update_discrete_states(0.5).expect("event");
        let saved = a.save_state().expect("serializable");
        let mut b = M::instantiate(token).expect("known token");
        b.load_state(&saved).expect("load");
        assert_eq!(b.save_state(), Some(saved.clone()));
        assert_eq!(b.next_event_time(), a.next_event_time());
        let mut bad = saved.clone();
        bad[0] = f64::NAN;
        assert!(b.load_state(&bad).is_err());
        assert!(b.load_state(&saved[1..]).is_err());
    }
}

#[test]
fn ticker_starts_after_its_start_time_and_refuses_bad_periods() {
    let mut t = Ticker::instantiate(TICKER_TOKEN).expect("known token");
    t.initialize(1.0).expect("initialize");
    assert_eq!(
        t.next_event_time(),
        Some(1.5),
        "no tick at the start time itself"
    );
    assert!(
        t.set_values(VR_TICKER_PERIOD, Values::Float64(&[0.0]))
            .is_err()
    );
    assert!(
        t.set_values(VR_TICKER_PERIOD, Values::Float64(&[f64::INFINITY]))
            .is_err()
    );
    assert_eq!(ticker_count(0.49, 0.5), 0);
    assert_eq!(ticker_count(0.1 + 0.1 + 0.1 + 0.1 + 0.1, 0.5), 1);
    assert_eq!(ticker_count(1.9999999999999998, 0.5), 4);
    assert_eq!(ticker_count(2.0000000000000004, 0.5), 4);
}
