//! Model Exchange end to end with the own ME FMUs (`fmus/model_exchange`): the interface chosen
//! by default, by `--fmi-type`, by a project's `fmiType` line and by an SSP component's
//! `implementation`; the results against the FMUs' closed-form solutions; the statistics in
//! `summary.txt` and `summary.json`; a NaN derivative that stops the run with the slave, `t`
//! and the results up to there.

use std::path::{Path, PathBuf};

use fmu_model_exchange::{BounceParameters, LinearParameters, bounce_solution, linear_solution};
use mastersim_tests::{ResultTable, Run, example_workspace, read_summary, run_mastersim};

/// The packed own FMU `<name>.fmu`.
fn fmu(name: &str) -> PathBuf {
    let path = example_workspace()
        .join("fmus/packed")
        .join(format!("{name}.fmu"));
    assert!(path.is_file(), "missing packed FMU '{}'", path.display());
    path
}

/// `log/summary.json` of `run`.
fn summary_json(run: &Run) -> serde_json::Value {
    let text = std::fs::read_to_string(run.path("log/summary.json")).expect("summary.json");
    serde_json::from_str(&text).expect("summary.json is JSON")
}

/// The integrator counts of slave `i` in `summary.json` (`null` for co-simulation).
fn integrator(run: &Run, i: usize) -> serde_json::Value {
    summary_json(run)["slaves"][i]["integrator"].clone()
}

/// Asserts that `x` and `v` of `slave` follow the damped oscillator's closed form within
/// `tolerance` at every row of `values.csv`.
fn assert_linear(run: &Run, slave: &str, tolerance: f64) {
    let table = ResultTable::read(&run.path("results/values.csv"));
    let time = table.numbers("Time [s]");
    let x = table.numbers(&format!("{slave}.x [-]"));
    let v = table.numbers(&format!("{slave}.v [-]"));
    assert!(time.len() > 10, "rows: {}", time.len());
    let p = LinearParameters::default();
    for ((t, x), v) in time.iter().zip(&x).zip(&v) {
        let (xr, vr) = linear_solution(*t, &p);
        assert!(
            (x - xr).abs() <= tolerance && (v - vr).abs() <= tolerance,
            "{slave} at t={t}: x={x} v={v}, expected {xr} {vr}"
        );
    }
}

#[test]
fn a_dual_fmu_runs_as_co_simulation_by_default_and_as_model_exchange_when_asked() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dual = fmu("LinearDual");
    let cs = run_mastersim(&dual, &tmp.path().join("cs"), &[]);
    cs.assert_success();
    assert!(integrator(&cs, 0).is_null());
    let me = run_mastersim(&dual, &tmp.path().join("me"), &["--fmi-type", "me"]);
    me.assert_success();
    assert_linear(&me, "LinearDual", 1e-4);
    let n = integrator(&me, 0);
    assert!(n["steps"].as_u64().unwrap() > 0, "{n}");
    assert!(n["rhs_evaluations"].as_u64() >= n["steps"].as_u64(), "{n}");
    assert_eq!(n["state_events"], 0);
    let summary = read_summary(&me.path("log/summary.txt"));
    assert_eq!(summary["Slave[1]IntegratorSteps"], n["steps"].to_string());
    assert_eq!(summary["Slave[1]StateEvents"], "0");
    assert!(me.said().contains("integrator steps, RHS, Jacobians"));
    // FMPy's names, explicit Euler: no Jacobians.
    let euler = run_mastersim(
        &dual,
        &tmp.path().join("euler"),
        &[
            "--fmi-type",
            "ModelExchange",
            "--solver",
            "Euler",
            "--relative-tolerance",
            "1e-8",
        ],
    );
    euler.assert_success();
    assert_eq!(integrator(&euler, 0)["jacobian_evaluations"], 0);
    // First order with the communication step size 0.05 s: within 0.1 over the run.
    assert_linear(&euler, "LinearDual", 0.1);
}

#[test]
fn an_fmu_with_only_model_exchange_runs_as_model_exchange() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_mastersim(&fmu("Bounce"), &tmp.path().join("b"), &[]);
    run.assert_success();
    assert_eq!(integrator(&run, 0)["state_events"], 11);
    let table = ResultTable::read(&run.path("results/values.csv"));
    let p = BounceParameters::default();
    for (t, h) in table
        .numbers("Time [s]")
        .iter()
        .zip(table.numbers("Bounce.h [-]"))
    {
        let (hr, _) = bounce_solution(*t, &p);
        assert!((h - hr).abs() <= 1e-3, "h({t}) = {h}, expected {hr}");
    }
    // The FMI 3.0 twin gives the same events; co-simulation it does not offer.
    let run3 = run_mastersim(&fmu("Bounce3"), &tmp.path().join("b3"), &[]);
    run3.assert_success();
    assert_eq!(integrator(&run3, 0)["state_events"], 11);
    let cs = run_mastersim(
        &fmu("Bounce"),
        &tmp.path().join("cs"),
        &["--fmi-type", "cs"],
    );
    assert_eq!(cs.code(), 2, "{}", cs.said());
    assert!(
        cs.said().contains("has no CoSimulation interface"),
        "{}",
        cs.said()
    );
}

/// A project of `LinearDual` chosen as Model Exchange by an `fmiType` line and `Steps` (time
/// events, Model Exchange only), in `dir`.
fn project(dir: &Path, name: &str, line: &str) -> PathBuf {
    let text = format!(
        "tStart 0 s\ntEnd 3 s\nhStart 0.1 s\nhOutputMin 0.1 s\n\
         simulator 0 0 Osc #ff0000 \"{}\"\nsimulator 1 0 St #00ff00 \"{}\"\n{line}\n",
        fmu("LinearDual").display(),
        fmu("Steps").display()
    );
    let path = dir.join(format!("{name}.msim"));
    std::fs::write(&path, text).expect("write project");
    path
}

#[test]
fn a_project_line_chooses_model_exchange_and_its_settings() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let p = project(
        tmp.path(),
        "me",
        "fmiType Osc ModelExchange relTol=1e-8 maxStep=50ms",
    );
    let run = run_mastersim(&p, &tmp.path().join("wd"), &[]);
    run.assert_success();
    assert_linear(&run, "Osc", 1e-6);
    assert_eq!(integrator(&run, 1)["time_events"], 7);
    let table = ResultTable::read(&run.path("results/values.csv"));
    for (t, x) in table
        .numbers("Time [s]")
        .iter()
        .zip(table.numbers("St.x [-]"))
    {
        let (xr, _) = fmu_model_exchange::steps_solution(*t, 0.5, 1.25);
        assert!(
            (x - xr).abs() <= 1e-9 * (1.0 + xr),
            "x({t}) = {x}, expected {xr}"
        );
    }
    // Written back with --write-msim, the line reads the same.
    let written = tmp.path().join("written.msim");
    let again = run_mastersim(
        &p,
        &tmp.path().join("wd2"),
        &["--write-msim", written.to_str().unwrap()],
    );
    again.assert_success();
    let text = std::fs::read_to_string(&written).expect("written project");
    assert!(
        text.contains("fmiType Osc ModelExchange relTol=0.00000001 maxStep=50ms"),
        "{text}"
    );
    // A bad line names the file and line.
    let bad = project(tmp.path(), "bad", "fmiType Osc ModelExchange solver=rk45");
    let run = run_mastersim(&bad, &tmp.path().join("bad"), &[]);
    assert_eq!(run.code(), 2, "{}", run.said());
    assert!(
        run.said().contains("bad.msim:7: 'rk45' is not a solver"),
        "{}",
        run.said()
    );
    // --fmi-type is for a run of one FMU.
    let run = run_mastersim(&p, &tmp.path().join("opt"), &["--fmi-type", "me"]);
    assert_eq!(run.code(), 2, "{}", run.said());
    assert!(run.said().contains("fmiType line"), "{}", run.said());
}

#[test]
fn an_ssp_component_with_implementation_model_exchange() {
    let tmp = tempfile::tempdir().expect("temp dir");
    std::fs::copy(fmu("LinearDual"), tmp.path().join("LinearDual.fmu")).expect("copy FMU");
    let ssd = |implementation: &str| {
        format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription" version="1.0" name="me">
  <ssd:System name="root">
    <ssd:Elements>
      <ssd:Component name="Osc" source="LinearDual.fmu" {implementation}/>
    </ssd:Elements>
  </ssd:System>
  <ssd:DefaultExperiment startTime="0" stopTime="5"/>
</ssd:SystemStructureDescription>
"#
        )
    };
    for (tag, implementation, model_exchange) in [
        ("me", r#"implementation="ModelExchange""#, true),
        ("cs", r#"implementation="CoSimulation""#, false),
        ("any", r#"implementation="any""#, false),
    ] {
        let path = tmp.path().join(format!("{tag}.ssd"));
        std::fs::write(&path, ssd(implementation)).expect("write ssd");
        let run = run_mastersim(&path, &tmp.path().join(tag), &[]);
        run.assert_success();
        assert_eq!(!integrator(&run, 0).is_null(), model_exchange, "{tag}");
        assert_linear(&run, "Osc", 1e-4);
    }
}

#[test]
fn a_nan_derivative_stops_the_run_naming_slave_and_time_with_results_kept() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_mastersim(&fmu("NanDerivative"), &tmp.path().join("nan"), &[]);
    assert_eq!(run.code(), 1, "{}", run.said());
    let said = run.said();
    assert!(
        said.contains("slave 'NanDerivative' (Model Exchange) failed at t="),
        "{said}"
    );
    assert!(said.contains("derivative 'der(x)' is NaN"), "{said}");
    let table = ResultTable::read(&run.path("results/values.csv"));
    let time = table.numbers("Time [s]");
    let x = table.numbers("NanDerivative.x [-]");
    assert!(time.len() > 2, "rows kept: {}", time.len());
    for (t, x) in time.iter().zip(x) {
        assert!((x - (-t).exp()).abs() < 1e-4, "x({t}) = {x}");
    }
    let run = run_mastersim(&fmu("EventLoop"), &tmp.path().join("loop"), &[]);
    assert_eq!(run.code(), 1, "{}", run.said());
    assert!(
        run.said()
            .contains("slave 'EventLoop' (Model Exchange) failed at t="),
        "{}",
        run.said()
    );
    assert!(
        run.said().contains("event iteration did not end"),
        "{}",
        run.said()
    );
}
