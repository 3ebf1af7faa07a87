//! The steppable session: stepping one communication point at a time gives the same result
//! files and counters as running; any variable can be read between steps; observers can be
//! added; the stop flag ends a run cleanly; and a session dropped at any point terminates and
//! frees its FMUs.
//!
//! The bundled projects (`projects/`) run with the committed FMUs (`fmus/packed/`, kept equal
//! to their source by the workspace test `packed_fmus`).

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Mutex, OnceLock, PoisonError};

use mastersim::{Ending, Options, Recorder, RunOutcome, Session, Value};

/// A bundled project.
fn project(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../projects")
        .join(format!("{name}.msim"))
}

/// Options with the working directory `wd`.
fn options(wd: &Path) -> Options {
    Options {
        working_dir: Some(wd.to_path_buf()),
        ..Options::default()
    }
}

/// The lines of `summary.txt` without times.
fn summary_counters(wd: &Path) -> Vec<String> {
    std::fs::read_to_string(wd.join("log/summary.txt"))
        .expect("summary.txt")
        .lines()
        .filter(|l| !l.contains("Time"))
        .map(str::to_string)
        .collect()
}

/// Runs `name` once with `run()` and once with `step()` until the end.
fn assert_stepping_equals_running(name: &str) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (ran, stepped) = (tmp.path().join("run"), tmp.path().join("step"));

    let mut session = Session::open(project(name), &options(&ran)).expect("open");
    assert_eq!(session.run().expect("run"), RunOutcome::Completed);
    let run_stats = session.finish().expect("finish");

    let mut session = Session::open(project(name), &options(&stepped)).expect("open");
    session.initialize().expect("initialize");
    let mut steps = 0;
    let mut last_t = session.time();
    let outcome = loop {
        let report = session.step().expect("step");
        steps += 1;
        assert!(report.t > last_t, "{name}: step {steps} did not advance");
        assert!(report.h > 0.0, "{name}: step {steps} took no step");
        last_t = report.t;
        if let Some(outcome) = report.ended {
            break outcome;
        }
    };
    assert_eq!(outcome, RunOutcome::Completed);
    let after = session.step().expect("a step after the end");
    assert_eq!((after.t, after.h), (last_t, 0.0), "no step after the end");
    let step_stats = session.finish().expect("finish");

    assert_eq!(steps, step_stats.counters.steps, "{name}");
    assert_eq!(run_stats.counts(), step_stats.counts(), "{name}: counters");
    assert_eq!(
        summary_counters(&ran),
        summary_counters(&stepped),
        "{name}: summary.txt"
    );
    let values = |wd: &Path| std::fs::read(wd.join("results/values.csv")).expect("values.csv");
    assert!(
        values(&ran) == values(&stepped),
        "{name}: values.csv differs between run() and step()"
    );
    assert!(values(&ran).len() > 1000, "{name}: values.csv has rows");
}

#[test]
fn stepping_the_control_loop_equals_running_it() {
    assert_stepping_equals_running("control_loop_jacobi");
    assert_stepping_equals_running("control_loop_seidel");
}

#[test]
fn stepping_adaptive_lotka_volterra_equals_running_it() {
    // Variable steps with Richardson error control: rejected tests, rollbacks, step doubling.
    assert_stepping_equals_running("lotka_volterra_adaptive");
}

#[test]
fn run_until_values_and_late_observers() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut session = Session::open(project("lotka_volterra"), &options(tmp.path())).expect("open");
    session.initialize().expect("initialize");
    // A parameter, not a result column, read from the slave.
    assert!(
        matches!(session.value("Prey.alpha"), Ok(Value::Real(_))),
        "{:?}",
        session.value("Prey.alpha")
    );
    let report = session.run_until(5.0).expect("run until 5 s");
    assert!((report.t - 5.0).abs() < 1e-12 && report.ended.is_none());
    let Ok(Value::Real(prey)) = session.value("Prey.x") else {
        panic!("Prey.x is Real");
    };
    let recorder = Recorder::new();
    session
        .add_observer(Box::new(recorder.clone()))
        .expect("observer");
    session.run().expect("run");
    let results = recorder.results();
    assert!(
        (results.time()[0] - 5.1).abs() < 1e-9,
        "first row after 5 s"
    );
    assert_eq!(results.time().last(), Some(&20.0));
    for (name, fragment) in [
        ("Prey.none", "has no variable 'none'"),
        ("Wolf.x", "no slave 'Wolf'"),
        ("nodot", "expected <slave>.<variable>"),
    ] {
        let err = session.value(name).expect_err("unknown");
        assert!(err.to_string().contains(fragment), "{err}");
    }
    session.finish().expect("finish");
    let csv = std::fs::read_to_string(tmp.path().join("results/values.csv")).expect("csv");
    let at_five = csv
        .lines()
        .find(|l| l.starts_with("5\t"))
        .expect("a row at t = 5 s");
    let column = csv
        .lines()
        .next()
        .expect("header")
        .split('\t')
        .position(|c| c.starts_with("Prey.x"))
        .expect("Prey.x column");
    let written: f64 = at_five
        .split('\t')
        .nth(column)
        .expect("cell")
        .parse()
        .expect("number");
    assert!(
        (written - prey).abs() <= 1e-12 * prey.abs(),
        "{written} vs {prey}"
    );
}

#[test]
fn the_stop_flag_interrupts_with_complete_results() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut session = Session::open(project("lotka_volterra"), &options(tmp.path())).expect("open");
    session.run_until(3.0).expect("run until 3 s");
    session.stop_flag().store(true, Ordering::Relaxed);
    let outcome = session.run().expect("run");
    let RunOutcome::Interrupted { t } = outcome else {
        panic!("{outcome:?}");
    };
    assert!((t - 3.0).abs() < 1e-12, "stopped at {t}");
    session.set_stop_cause("test request");
    assert_eq!(
        session.ending(),
        Ending::Interrupted {
            cause: "test request".into(),
            t
        }
    );
    session.finish().expect("finish");
    let summary = std::fs::read_to_string(tmp.path().join("log/summary.txt")).expect("summary");
    assert!(summary.contains("Outcome=Interrupted\nMessage=test request; stopped at t=3 s\n"));
    let csv = std::fs::read_to_string(tmp.path().join("results/values.csv")).expect("csv");
    assert!(csv.lines().last().is_some_and(|l| l.starts_with("3\t")));
}

/// FMU log messages (target `fmu`), captured for the drop test.
static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());

struct Capture;

impl log::Log for Capture {
    fn enabled(&self, metadata: &log::Metadata) -> bool {
        metadata.target() == "fmu"
    }
    fn log(&self, record: &log::Record) {
        if self.enabled(record.metadata()) {
            MESSAGES
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(record.args().to_string());
        }
    }
    fn flush(&self) {}
}

fn take_messages() -> Vec<String> {
    std::mem::take(&mut *MESSAGES.lock().unwrap_or_else(PoisonError::into_inner))
}

#[test]
fn dropping_a_session_at_any_point_terminates_and_frees_the_fmus() {
    static LOGGER: OnceLock<()> = OnceLock::new();
    LOGGER.get_or_init(|| {
        log::set_logger(&Capture).expect("the only logger of this test binary");
        log::set_max_level(log::LevelFilter::Trace);
    });
    let tmp = tempfile::tempdir().expect("temp dir");
    let traced = Options {
        fmu_logging: true,
        ..options(tmp.path())
    };
    type Advance = fn(&mut Session);
    let points: [(&str, Advance, bool); 4] = [
        ("after open", |_| {}, false),
        (
            "after initialize",
            |s| s.initialize().expect("initialize"),
            true,
        ),
        (
            "after three steps",
            |s| {
                for _ in 0..3 {
                    s.step().expect("step");
                }
            },
            true,
        ),
        (
            "after the run",
            |s| {
                s.run().expect("run");
            },
            true,
        ),
    ];
    for (point, advance, initialized) in points {
        take_messages();
        let mut session = Session::open(project("lotka_volterra"), &traced).expect("open");
        advance(&mut session);
        drop(session);
        let messages = take_messages();
        for slave in ["Prey", "Predator"] {
            let of = |call: &str| {
                messages
                    .iter()
                    .filter(|m| m.starts_with(&format!("[{slave}:")) && m.contains(call))
                    .count()
            };
            assert_eq!(of("fmi2FreeInstance"), 1, "{slave} {point}: {messages:?}");
            assert_eq!(
                of("terminate at t"),
                usize::from(initialized),
                "{slave} {point}: {messages:?}"
            );
        }
        assert!(
            !tmp.path().join("log/summary.txt").exists(),
            "{point}: a dropped session writes no summary"
        );
    }
}
