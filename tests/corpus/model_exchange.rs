//! The Reference FMUs of the corpus run as Model Exchange: FMI 2.0 0.0.1
//! (`crosscheck/fmi2/TestFMUs-0.0.1`, `linux64`) and FMI 3.0 0.0.37 (`fmi3`, `x86_64-linux`),
//! each through the `mastersim` binary with `--fmi-type me` (a run of one FMU) or an `fmiType`
//! line (a project), so the master integrates them with CVODE and handles their events
//! (`docs/project-format.md`, `fmiType` lines).
//!
//! - BouncingBall: the first five bounce times within 1e-6 s of the analytic ones (state
//!   events located by the integrator's root finding);
//! - Dahlquist: within 1e-6 of e^(−k·t);
//! - Stair: the counter rises exactly at the whole seconds (time events never stepped over);
//! - Feedthrough (FMI 2.0): its `_in.csv` through a file reader, the same checks as the
//!   co-simulation run of `crosscheck.rs`.

use std::path::{Path, PathBuf};

use fmi::ModelDescription;
use mastersim_tests::{ResultTable, corpus_dir, read_summary, run_mastersim};

/// The two Reference FMU releases: (label, folder below the corpus).
const RELEASES: [(&str, &str); 2] = [
    ("FMI 2.0", "crosscheck/fmi2/TestFMUs-0.0.1"),
    ("FMI 3.0", "fmi3"),
];

/// `<release>/<model>/<model>.fmu`, failing with the path when it is missing.
fn fmu(release: &str, model: &str) -> PathBuf {
    let path = corpus_dir()
        .join(release)
        .join(model)
        .join(format!("{model}.fmu"));
    assert!(path.is_file(), "corpus FMU missing: '{}'", path.display());
    path
}

/// Runs `fmu` alone as Model Exchange (CVODE at relative tolerance `rel_tol`) from 0 to `stop`
/// s with communication step `step` s; returns the results and `summary.txt`'s entries.
fn run_me(
    fmu: &Path,
    stop: f64,
    step: f64,
    rel_tol: f64,
    tmp: &Path,
) -> (ResultTable, std::collections::BTreeMap<String, String>) {
    let (stop, step, rel_tol) = (stop.to_string(), step.to_string(), rel_tol.to_string());
    let args = [
        "--fmi-type",
        "me",
        "--solver",
        "CVode",
        "--relative-tolerance",
        &rel_tol,
        "--stop-time",
        &stop,
        "--step-size",
        &step,
    ];
    let run = run_mastersim(fmu, &tmp.join("wd"), &args);
    run.assert_success();
    let summary = read_summary(&run.path("log/summary.txt"));
    assert!(
        summary.contains_key("Slave[1]IntegratorSteps"),
        "{}: no Model Exchange statistics in summary.txt: {summary:?}",
        fmu.display()
    );
    (ResultTable::read(&run.path("results/values.csv")), summary)
}

/// The start value of variable `name` in the model description of `fmu`, as a number.
fn start_value(fmu: &Path, name: &str, tmp: &Path) -> f64 {
    let dir = tmp.join("description");
    fmi::archive::extract(fmu, &dir, &Default::default()).expect("extract FMU");
    let description = ModelDescription::from_file(&dir.join("modelDescription.xml"))
        .unwrap_or_else(|e| panic!("{}: {e}", fmu.display()));
    let variable = description
        .variable_by_name(name)
        .unwrap_or_else(|| panic!("{}: no variable '{name}'", fmu.display()));
    let start = variable.start.as_deref().unwrap_or_else(|| {
        panic!("{}: '{name}' has no start value", fmu.display());
    });
    start
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("{}: start of '{name}' is '{start}'", fmu.display()))
}

/// The first `n` bounce times of the ball (h₀ = 1 m dropped at rest, coefficient of
/// restitution `e`, gravity `g` m/s²): t₁ = √(2h₀/g), then flight k (after bounce k) lasts
/// 2·e^k·v₁/g with v₁ = √(2·g·h₀).
fn analytic_bounces(h0: f64, e: f64, g: f64, n: usize) -> Vec<f64> {
    let v1 = (2.0 * g * h0).sqrt();
    let mut times = vec![(2.0 * h0 / g).sqrt()];
    for k in 1..n {
        times.push(times[k - 1] + 2.0 * e.powi(k as i32) * v1 / g);
    }
    times
}

/// The bounce times seen in the results. Rows hold the communication points only, so a bounce
/// shows as a step whose velocity changes sign upward (v < 0 before, v > 0 after). Between
/// bounces the ball flies a parabola (h'' = −g exactly), so the bounce time follows from either
/// row: forward from (h, v) before it, t + (v + √(v² + 2gh))/g, and backward from (h, v) after
/// it, t + (v − √(v² + 2gh))/g. The first checks the integrated flight down and the located
/// event, the second the state after the event (h = 0, v = −e·v) and the flight up; both are
/// returned.
fn observed_bounces(results: &ResultTable, model: &str, g: f64) -> Vec<(f64, f64)> {
    let t = results.numbers("Time");
    let h = results.numbers(&format!("{model}.h"));
    let v = results.numbers(&format!("{model}.v"));
    let landing =
        |t: f64, h: f64, v: f64, sign: f64| t + (v + sign * (v * v + 2.0 * g * h).sqrt()) / g;
    (1..t.len())
        .filter(|&i| v[i - 1] < 0.0 && v[i] > 0.0)
        .map(|i| {
            (
                landing(t[i - 1], h[i - 1], v[i - 1], 1.0),
                landing(t[i], h[i], v[i], -1.0),
            )
        })
        .collect()
}

/// BouncingBall as Model Exchange: its first five bounces within 1e-6 s of the analytic times.
/// The parameters are read from the FMU (h start 1 m, e = 0.7, g = −9.81 m/s²). Relative
/// tolerance 1e-8: at 1e-6 the integration error (about 1e-6 relative on h and v over each
/// flight) moves the fifth bounce by up to 4e-6 s (measured), at 1e-8 by 3.4e-8 s.
#[test]
fn model_exchange_bouncing_ball_bounces_at_the_analytic_times() {
    for (label, release) in RELEASES {
        let tmp = tempfile::tempdir().expect("temp dir");
        let path = fmu(release, "BouncingBall");
        let (h0, e, g) = (
            start_value(&path, "h", tmp.path()),
            start_value(&path, "e", tmp.path()),
            -start_value(&path, "g", tmp.path()),
        );
        assert_eq!(
            (h0, e, g),
            (1.0, 0.7, 9.81),
            "{label} BouncingBall's parameters"
        );
        let (results, summary) = run_me(&path, 3.0, 0.01, 1e-8, tmp.path());
        let expected = analytic_bounces(h0, e, g, 5);
        let observed = observed_bounces(&results, "BouncingBall", g);
        assert!(
            observed.len() >= 5,
            "{label}: {} bounces seen, expected at least 5",
            observed.len()
        );
        let state_events: usize = summary["Slave[1]StateEvents"].parse().expect("a count");
        assert!(state_events >= 5, "{label}: {state_events} state events");
        for (k, (exact, (before, after))) in expected.iter().zip(&observed).enumerate() {
            for (from, seen) in [("before", before), ("after", after)] {
                assert!(
                    (seen - exact).abs() <= 1e-6,
                    "{label} bounce {}: {seen} s from the row {from} it, analytic {exact} s",
                    k + 1
                );
            }
        }
    }
}

/// Dahlquist (x' = −k·x, x₀ = 1, k = 1, read from the FMU) as Model Exchange at relative
/// tolerance 1e-8: within 1e-6 of e^(−k·t) at every communication point over 10 s (measured
/// 4.8e-8; at relative tolerance 1e-6 the deviation is 1.6e-6, CVODE's global error being a
/// small multiple of its local tolerance).
#[test]
fn model_exchange_dahlquist_follows_the_exponential() {
    for (label, release) in RELEASES {
        let tmp = tempfile::tempdir().expect("temp dir");
        let path = fmu(release, "Dahlquist");
        let (x0, k) = (
            start_value(&path, "x", tmp.path()),
            start_value(&path, "k", tmp.path()),
        );
        assert_eq!((x0, k), (1.0, 1.0), "{label} Dahlquist's parameters");
        let (results, _) = run_me(&path, 10.0, 0.1, 1e-8, tmp.path());
        let times = results.numbers("Time");
        assert_eq!(times.len(), 101, "{label}: rows");
        for (t, x) in times.iter().zip(results.numbers("Dahlquist.x")) {
            let exact = x0 * (-k * t).exp();
            assert!(
                (x - exact).abs() <= 1e-6,
                "{label} Dahlquist x at t={t}: {x} vs {exact}"
            );
        }
    }
}

/// Stair as Model Exchange, at a communication step of 0.3 s that never meets a whole second:
/// the counter is ⌊t⌋ + 1 at every row, which needs the integrator to stop exactly at each
/// whole second (the time events of `nextEventTime`): the FMI 2.0 FMU increments only when its
/// time equals the event time. The FMI 3.0 FMU ends the run at t = 9 s (counter 10), the
/// FMI 2.0 FMU runs to 10 s; each whole second is one time event.
#[test]
fn model_exchange_stair_steps_exactly_at_whole_seconds() {
    for (label, release) in RELEASES {
        let tmp = tempfile::tempdir().expect("temp dir");
        let (results, summary) = run_me(&fmu(release, "Stair"), 10.0, 0.3, 1e-6, tmp.path());
        let times = results.numbers("Time");
        let counter = results.numbers("Stair.counter");
        for (t, c) in times.iter().zip(&counter) {
            assert_eq!(*c, t.floor() + 1.0, "{label} Stair counter at t={t}");
        }
        let last = times[times.len() - 1];
        let expected_end = if release == "fmi3" { 9.0 } else { 10.0 };
        assert!(
            (last - expected_end).abs() < 1e-12,
            "{label}: run ended at {last} s"
        );
        assert_eq!(
            summary["Slave[1]TimeEvents"],
            format!("{expected_end}"),
            "{label}: one time event per whole second"
        );
    }
}

/// Feedthrough (FMI 2.0 0.0.1) as Model Exchange, fed from its `_in.csv` by a file reader: the
/// co-simulation run's checks (`crosscheck.rs`): the discrete outputs exact, the continuous
/// output within 1e-12 (the inputs are held over each step and set between steps).
#[test]
fn model_exchange_feedthrough_with_its_input_table() {
    let out = super::crosscheck::reference_fmu_with(
        "Feedthrough",
        super::crosscheck::FEEDTHROUGH_PARAMETERS,
        &["--set", "fmiType=Feedthrough ModelExchange"],
    );
    super::crosscheck::feedthrough_matches(&out);
}
