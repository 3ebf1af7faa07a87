//! Model Exchange end to end: the own ME FMUs (`fmus/model_exchange`) run by the `mastersim`
//! binary against their closed-form or published reference solutions, a mixed project of the
//! ME `Plant` and the co-simulation `Controller` under Gauss-Seidel against a solution computed
//! here, the same system as an SSP with `implementation="ModelExchange"`, and a run with an ME
//! slave killed and resumed. (The choice of interface is in `model_exchange.rs`.)
//!
//! The bounds follow from the integrator's tolerances. Every run here uses the FMUs'
//! `DefaultExperiment` tolerance, relTol = 1e-6, with absTol = 1e-6 scaled by the states'
//! nominals (the master's defaults, FMPy's). CVODE keeps the *local* error of each internal step
//! below about relTol·|x| + absTol; the *global* error at a communication point is the sum of
//! the local errors carried forward, damped or amplified by the ODE. For the stable, lightly
//! damped systems here (about a thousand internal steps, errors not amplified by more than
//! about one order) that sum stays below some 1e-5, so a bound of 1e-4 (100·relTol) holds with
//! a margin, yet fails for an integrator that ignores the tolerance or a master that holds
//! inputs or handles events wrongly. Each test prints the largest error it measured
//! (`--nocapture`; e.g. 4.5e-7 for `Linear`).

use std::path::{Path, PathBuf};

use fmu_model_exchange as me;
use mastersim_tests::kill_resume::kill_and_resume;
use mastersim_tests::{ResultTable, Run, example_workspace, read_summary, run_mastersim};

/// The own packed FMU `fmus/packed/<model>.fmu`, built from the current source.
fn packed(model: &str) -> PathBuf {
    let path = example_workspace()
        .join("fmus")
        .join("packed")
        .join(format!("{model}.fmu"));
    assert!(path.is_file(), "own FMU missing: '{}'", path.display());
    path
}

/// Runs `mastersim <args> <model>.fmu` in `tmp/<tag>` and asserts exit code 0.
fn run_fmu(model: &str, args: &[&str], tmp: &Path, tag: &str) -> Run {
    let run = run_mastersim(&packed(model), &tmp.join(tag), args);
    run.assert_success();
    run
}

/// `values.csv` of a run.
fn values(run: &Run) -> ResultTable {
    ResultTable::read(&run.path("results/values.csv"))
}

/// The `summary.txt` value of `key` as a number.
fn summary_count(run: &Run, key: &str) -> u64 {
    let summary = read_summary(&run.path("log/summary.txt"));
    let text = summary
        .get(key)
        .unwrap_or_else(|| panic!("no key '{key}' in summary.txt: {summary:?}"));
    text.parse()
        .unwrap_or_else(|_| panic!("summary.txt {key}={text} is not a count"))
}

/// The largest `|actual − expected(t)|` over the rows of `table` for the columns `names`,
/// checked against `bound(expected)`; panics naming the first row outside.
fn assert_near(
    table: &ResultTable,
    names: &[&str],
    expected: impl Fn(f64) -> Vec<f64>,
    bound: impl Fn(f64) -> f64,
) -> f64 {
    let time = table.numbers("Time");
    let columns: Vec<Vec<f64>> = names.iter().map(|n| table.numbers(n)).collect();
    assert!(time.len() > 1, "values.csv has {} rows", time.len());
    let mut worst: f64 = 0.0;
    for (row, t) in time.iter().enumerate() {
        for (k, reference) in expected(*t).into_iter().enumerate() {
            let actual = columns[k][row];
            let error = (actual - reference).abs();
            assert!(
                error <= bound(reference),
                "{} at t={t} s: {actual} against the reference {reference} (error {error:e}, bound {:e})",
                names[k],
                bound(reference)
            );
            worst = worst.max(error);
        }
    }
    worst
}

/// `Linear` (damped oscillator, 2 states, no events) as ME over its default experiment
/// (0–10 s, 1000 communication steps of 0.01 s): x and v within 1e-4 of `linear_solution`
/// (100·relTol, see the module doc: about 3 periods of an amplitude ≤ 1, so the local
/// tolerance 1e-6 summed over the ~10³ internal steps that CVODE takes stays below 1e-4).
/// Its FMI 3.0 twin `Linear3` gives the same values bit for bit (the same model code behind
/// the FMI 3.0 calls). The summary counts the integrator's work and no events.
#[test]
fn model_exchange_linear_and_linear3_against_closed_form() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let p = me::LinearParameters::default();
    let exact = |t: f64| {
        let (x, v) = me::linear_solution(t, &p);
        vec![x, v]
    };
    let mut tables = Vec::new();
    for model in ["Linear", "Linear3"] {
        let run = run_fmu(model, &["--fmi-type", "me"], tmp.path(), model);
        let table = values(&run);
        assert_eq!(table.rows.len(), 1001, "{model}: rows of 0..10 s by 0.01 s");
        let x = format!("{model}.x");
        let v = format!("{model}.v");
        let worst = assert_near(&table, &[&x, &v], exact, |_| 1e-4);
        let steps = summary_count(&run, "Slave[1]IntegratorSteps");
        let rhs = summary_count(&run, "Slave[1]RhsEvaluations");
        assert!(
            steps > 10 && rhs >= steps,
            "{model}: {steps} steps, {rhs} RHS"
        );
        for key in ["StateEvents", "TimeEvents", "StepEvents"] {
            assert_eq!(summary_count(&run, &format!("Slave[1]{key}")), 0, "{key}");
        }
        println!("{model}: largest error {worst:e} (bound 1e-4); {steps} steps, {rhs} RHS");
        tables.push(table);
    }
    assert_eq!(
        tables[0].numbers("Linear.x"),
        tables[1].numbers("Linear3.x"),
        "Linear3 differs from Linear"
    );
}

/// `Bounce` and its FMI 3.0 twin `Bounce3` (state events located by CVODE's root finding) over
/// the default experiment (0–3 s by 0.01 s): exactly 11 state events (`bounce_times`); h within
/// 1e-3 m of `bounce_solution` at every communication point (an impact located to within
/// 1e-4 s, 100·relTol as in the module doc, moves h by at most 4.4e-4 m at the impact speed of
/// 4.4 m/s), v within 5e-3 m/s away from the impacts (a communication point less than 1e-4 s
/// from an impact is skipped for v, whose jump there is up to 8.9 m/s), and h = v = 0 exactly
/// once the ball rests (after the last impact).
#[test]
fn model_exchange_bounce_and_bounce3_state_events() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let p = me::BounceParameters::default();
    let impacts = me::bounce_times(&p);
    assert_eq!(impacts.len(), 11, "the reference has 11 impacts");
    let rest = *impacts.last().expect("impacts");
    for model in ["Bounce", "Bounce3"] {
        let run = run_fmu(model, &["--fmi-type", "me"], tmp.path(), model);
        let table = values(&run);
        let h = format!("{model}.h");
        let worst = assert_near(
            &table,
            &[&h],
            |t| vec![me::bounce_solution(t, &p).0],
            |_| 1e-3,
        );
        let time = table.numbers("Time");
        let velocity = table.numbers(&format!("{model}.v"));
        let height = table.numbers(&h);
        for ((t, v), h) in time.iter().zip(&velocity).zip(&height) {
            if *t > rest + 1e-3 {
                assert!(
                    *h == 0.0 && *v == 0.0,
                    "{model} at rest at t={t}: h={h}, v={v}"
                );
            } else if impacts.iter().all(|tau| (t - tau).abs() > 1e-4) {
                let reference = me::bounce_solution(*t, &p).1;
                assert!(
                    (v - reference).abs() <= 5e-3,
                    "{model}.v at t={t}: {v} against {reference}"
                );
            }
        }
        assert_eq!(summary_count(&run, "Slave[1]StateEvents"), 11, "{model}");
        println!("{model}: 11 state events; largest error of h {worst:e} m (bound 1e-3)");
    }
}

/// `Steps` (time events from `nextEventTime`, one of them at 1.25 s, off the 0.1 s grid) with
/// CVODE and with explicit Euler: x' is piecewise constant, so an integrator that stops at the
/// event times is exact up to rounding; x within 1e-9·(1 + x), u exact, 7 time events in
/// (0, 3] s. A master that handled the event at 1.25 s only at a communication point would be
/// off by 0.05 from t = 1.3 s on.
#[test]
fn model_exchange_steps_time_events_cvode_and_euler() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (period, extra) = (me::STEPS_PERIOD, me::STEPS_EXTRA_TIME);
    assert_eq!(me::steps_event_times(period, extra, 3.0).len(), 7);
    for solver in ["CVode", "Euler"] {
        let run = run_fmu("Steps", &["--solver", solver], tmp.path(), solver);
        let table = values(&run);
        assert_eq!(table.rows.len(), 31, "rows of 0..3 s by 0.1 s");
        let worst = assert_near(
            &table,
            &["Steps.x"],
            |t| vec![me::steps_solution(t, period, extra).0],
            |x| 1e-9 * (1.0 + x.abs()),
        );
        assert_near(
            &table,
            &["Steps.u"],
            |t| vec![me::steps_solution(t, period, extra).1],
            |_| 0.0,
        );
        assert_eq!(summary_count(&run, "Slave[1]TimeEvents"), 7, "{solver}");
        println!("Steps with {solver}: 7 time events; largest error of x {worst:e}");
    }
}

/// `Robertson` (stiff chemical kinetics) with CVODE's BDF over 0–4e4 s by 40 s, and over 0–4 s
/// by 0.4 s for the first two reference times: y1 and y3 within 1e-4 relative, y2 within 1e-3
/// relative of `ROBERTSON_REFERENCE` (6 digits). The reference is itself exact to about 2e-5
/// relative; y2 (nominal 1e-4) has an absolute tolerance of 1e-10, so its relative error is
/// larger than the others'. An explicit integrator would need steps below 1e-4 s here.
#[test]
fn model_exchange_robertson_stiff_against_reference() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let long = values(&run_fmu("Robertson", &[], tmp.path(), "long"));
    let short = values(&run_fmu(
        "Robertson",
        &["--stop-time", "4", "--step-size", "0.4"],
        tmp.path(),
        "short",
    ));
    let mut worst = [0.0f64; 3];
    for (t, reference) in me::ROBERTSON_REFERENCE {
        let table = if t < 10.0 { &short } else { &long };
        let time = table.numbers("Time");
        let row = time
            .iter()
            .position(|s| (s - t).abs() <= 1e-9 * t)
            .unwrap_or_else(|| panic!("no row at t={t} s"));
        for (k, y) in reference.iter().enumerate() {
            let actual = table.numbers(&format!("Robertson.y{}", k + 1))[row];
            let relative = (actual - y).abs() / y.abs();
            let bound = if k == 1 { 1e-3 } else { 1e-4 };
            assert!(
                relative <= bound,
                "Robertson.y{} at t={t} s: {actual} against {y} (relative {relative:e}, bound {bound:e})",
                k + 1
            );
            worst[k] = worst[k].max(relative);
        }
    }
    println!(
        "Robertson: largest relative errors y1 {:e}, y2 {:e}, y3 {:e}",
        worst[0], worst[1], worst[2]
    );
}

/// The closed loop of the mixed project, 0–10 s by 0.1 s.
const LOOP_STEP: f64 = 0.1;
/// Communication steps of the closed loop.
const LOOP_STEPS: usize = 100;
/// The controller's parameters (setpoint m, kp N/m, kd N·s/m).
const LOOP_CONTROLLER: (f64, f64, f64) = (1.0, 2.0, 1.0);

/// The closed loop computed here, independently of mastersim: (t, x, v, u) at every
/// communication point. Gauss-Seidel in project order: the Plant steps first with the
/// controller's output `u` held over the step (exactly, `plant_step`), then the Controller
/// reads the Plant's new x and v and computes u = kp·(r − x) − kd·v, held until its next step
/// (`fmus/multirate/README.md`); at t = 0 the Controller's u comes from the Plant's initial
/// outputs.
fn closed_loop() -> Vec<[f64; 4]> {
    let (r, kp, kd) = LOOP_CONTROLLER;
    let control = |x: f64, v: f64| kp * (r - x) - kd * v;
    let (mut x, mut v) = (0.0, 0.0);
    let mut u = control(x, v);
    let mut rows = vec![[0.0, x, v, u]];
    for k in 1..=LOOP_STEPS {
        (x, v) = me::plant_step(x, v, u, me::PLANT_M, me::PLANT_C, LOOP_STEP);
        u = control(x, v);
        rows.push([k as f64 * LOOP_STEP, x, v, u]);
    }
    rows
}

/// The mixed project `<tag>.msim`: `Plant` (ME only) and `Controller` (co-simulation) under
/// Gauss-Seidel, with the line `extra` appended.
fn mixed_project(dir: &Path, tag: &str, extra: &str) -> PathBuf {
    let (r, kp, kd) = LOOP_CONTROLLER;
    let text = format!(
        "tStart 0 s\ntEnd {} s\nhStart {LOOP_STEP} s\nhOutputMin {LOOP_STEP} s\n\
         MasterMode GAUSS_SEIDEL\nErrorControlMode NONE\nmaxIterations 1\n\n\
         simulator 0 0 Plant #447cb4 \"{}\"\n\
         simulator 1 0 Controller #c38200 \"{}\"\n\n\
         graph Plant.x Controller.y\ngraph Plant.v Controller.yDot\ngraph Controller.u Plant.u\n\n\
         parameter Controller.r {r}\nparameter Controller.kp {kp}\nparameter Controller.kd {kd}\n{extra}\n",
        LOOP_STEPS as f64 * LOOP_STEP,
        packed("Plant").display(),
        packed("Controller").display(),
    );
    let path = dir.join(format!("{tag}.msim"));
    std::fs::write(&path, text).expect("write the mixed project");
    path
}

/// The mixed system as an SSP 1.0 folder: the same FMUs (copied to `fmus/`), connections,
/// parameters and step, with `implementation="ModelExchange"` on the Plant.
fn mixed_ssd(dir: &Path) -> PathBuf {
    let (r, kp, kd) = LOOP_CONTROLLER;
    let fmus = dir.join("ssp").join("fmus");
    std::fs::create_dir_all(&fmus).expect("SSP folder");
    for model in ["Plant", "Controller"] {
        std::fs::copy(packed(model), fmus.join(format!("{model}.fmu"))).expect("copy FMU");
    }
    let parameter = |name: &str, value: f64| {
        format!("<ssv:Parameter name=\"{name}\"><ssv:Real value=\"{value}\"/></ssv:Parameter>")
    };
    let text = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription name="mixed" version="1.0"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues"
    xmlns:osp="http://opensimulationplatform.com/SSP/OSPAnnotations">
  <ssd:System name="Loop">
    <ssd:Elements>
      <ssd:Component name="Plant" source="fmus/Plant.fmu" implementation="ModelExchange">
        <ssd:Connectors>
          <ssd:Connector name="u" kind="input"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="x" kind="output"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="v" kind="output"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
      </ssd:Component>
      <ssd:Component name="Controller" source="fmus/Controller.fmu" implementation="CoSimulation">
        <ssd:Connectors>
          <ssd:Connector name="y" kind="input"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="yDot" kind="input"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="u" kind="output"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
        <ssd:ParameterBindings>
          <ssd:ParameterBinding>
            <ssd:ParameterValues>
              <ssv:ParameterSet version="1.0" name="controller">
                <ssv:Parameters>{}{}{}</ssv:Parameters>
              </ssv:ParameterSet>
            </ssd:ParameterValues>
          </ssd:ParameterBinding>
        </ssd:ParameterBindings>
      </ssd:Component>
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="Plant" startConnector="x" endElement="Controller" endConnector="y"/>
      <ssd:Connection startElement="Plant" startConnector="v" endElement="Controller" endConnector="yDot"/>
      <ssd:Connection startElement="Controller" startConnector="u" endElement="Plant" endConnector="u"/>
    </ssd:Connections>
  </ssd:System>
  <ssd:DefaultExperiment startTime="0" stopTime="{}">
    <ssd:Annotations>
      <ssc:Annotation type="com.opensimulationplatform">
        <osp:Algorithm><osp:FixedStepAlgorithm baseStepSize="{LOOP_STEP}"/></osp:Algorithm>
      </ssc:Annotation>
    </ssd:Annotations>
  </ssd:DefaultExperiment>
</ssd:SystemStructureDescription>
"#,
        parameter("r", r),
        parameter("kp", kp),
        parameter("kd", kd),
        LOOP_STEPS as f64 * LOOP_STEP,
    );
    let path = dir.join("ssp").join("SystemStructure.ssd");
    std::fs::write(&path, text).expect("write the SSD");
    path
}

/// The mixed project (ME `Plant`, co-simulation `Controller`, Gauss-Seidel, 100 steps of
/// 0.1 s) against the loop computed in [`closed_loop`], at the default relTol = 1e-6 and with
/// `fmiType Plant ModelExchange relTol=1e-9`: x and v within 200·relTol·(1 + |value|), u
/// within (kp + kd)·200·relTol·(1 + |u|) (u = kp·(r − x) − kd·v carries the errors of x and v
/// with those gains). Why 200·relTol: the Plant's input changes at every communication point,
/// so CVODE restarts there (order 1, a new step size) each time; each of the 100 restarted
/// steps adds a local error of up to about relTol·(1 + |value|) with absTol = relTol·nominal
/// (nominal 1), and the stable closed loop carries them forward without amplifying them much.
/// Measured: 5.2e-5 and 1.1e-7 for x and v, 8.4e-5 and 1.8e-7 for u: the error scales with the
/// tolerance, which an error of the coupling (a delayed or missed input) would not. The same
/// system as an SSP with `implementation="ModelExchange"` on the Plant gives the values of the
/// default run bit for bit.
#[test]
fn model_exchange_plant_with_co_simulation_controller_msim_and_ssp() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let reference = closed_loop();
    let at = |t: f64| {
        let k = (t / LOOP_STEP).round() as usize;
        reference[k][1..].to_vec()
    };
    let (_, kp, kd) = LOOP_CONTROLLER;
    let names = ["Plant.x", "Plant.v", "Controller.u"];
    let mut default = None;
    for (tag, extra, rel_tol) in [
        ("default", "", 1e-6),
        ("tight", "fmiType Plant ModelExchange relTol=1e-9", 1e-9),
    ] {
        let project = mixed_project(tmp.path(), tag, extra);
        let run = run_mastersim(&project, &tmp.path().join(tag), &[]);
        run.assert_success();
        let table = values(&run);
        assert_eq!(
            table.rows.len(),
            LOOP_STEPS + 1,
            "rows of the mixed project"
        );
        let bound = 200.0 * rel_tol;
        let worst = assert_near(
            &table,
            &names[..2],
            |t| at(t)[..2].to_vec(),
            |y| bound * (1.0 + y.abs()),
        );
        let worst_u = assert_near(
            &table,
            &names[2..],
            |t| at(t)[2..].to_vec(),
            |u| (kp + kd) * bound * (1.0 + u.abs()),
        );
        assert!(
            summary_count(&run, "Slave[1]IntegratorSteps") > 0,
            "Plant ran as ME"
        );
        println!(
            "mixed loop, relTol {rel_tol:e}: largest error of x, v {worst:e}, of u {worst_u:e}"
        );
        default.get_or_insert(table);
    }
    let msim = default.expect("the default run");
    let ssp = run_mastersim(&mixed_ssd(tmp.path()), &tmp.path().join("ssp-run"), &[]);
    ssp.assert_success();
    let system = values(&ssp);
    for name in ["Time", "Plant.x", "Plant.v", "Controller.u"] {
        assert_eq!(
            system.numbers(name),
            msim.numbers(name),
            "{name}: the SSP's values differ from the project's"
        );
    }
    assert!(
        summary_count(&ssp, "Slave[1]IntegratorSteps") > 0,
        "SSP Plant ran as ME"
    );
    println!("the SSP with implementation=\"ModelExchange\" gives the same values");
}

/// A Model Exchange `Plant` held by a spring: the co-simulation `Gain` (`Spring`, which can
/// serialize its FMU state) feeds back u = −2·x + 2 + 0.5·sin(t); Gauss-Seidel, 0.1 s steps,
/// 10 000 s (about a second of wall time), a result row per second.
fn spring_project(dir: &Path) -> PathBuf {
    let text = format!(
        "tStart 0 s\ntEnd 10000 s\nhStart 0.1 s\nhOutputMin 1 s\n\
         MasterMode GAUSS_SEIDEL\nErrorControlMode NONE\nmaxIterations 1\n\n\
         simulator 0 0 Plant #447cb4 \"{}\"\n\
         simulator 1 0 Spring #c38200 \"{}\"\n\n\
         graph Plant.x Spring.u\ngraph Spring.y Plant.u\n\n\
         parameter Spring.k -2\nparameter Spring.offset 2\nparameter Spring.amplitude 0.5\n",
        packed("Plant").display(),
        packed("Gain").display(),
    );
    let path = dir.join("spring.msim");
    std::fs::write(&path, text).expect("write the spring project");
    path
}

/// [`spring_project`] killed (SIGKILL) 6 times at random moments, with a checkpoint every
/// 0.05 s of wall time, and resumed after each kill: `values.csv`, the MAT file and the
/// counters (the ME statistics among them) are byte-identical to an unbroken run's. The ME
/// slave serializes no state (`Slave::serialize_state` gives none; the co-simulation `Spring`
/// does), so every resume replays the run from the start time, comparing each recomputed row
/// with the files; the resumed runs' warnings name `Plant`, and only it, as the reason.
#[test]
fn model_exchange_kill_and_resume_is_byte_identical() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = spring_project(tmp.path());
    let report = kill_and_resume(&project, 6, "0.05", 0.06, tmp.path());
    assert!(report.resumes > 0, "no run was resumed: {report:?}");
    let reasons: Vec<&String> = report
        .warnings
        .iter()
        .flatten()
        .filter(|w| w.contains("by replaying the run"))
        .collect();
    assert!(!reasons.is_empty(), "no resumed run replays: {report:?}");
    for reason in reasons {
        assert!(
            reason.ends_with("cannot serialize their state: Plant"),
            "a replay for another reason: {reason}"
        );
    }
    println!(
        "ME slave with a serializing CS slave: unbroken {:.2} s; {} SIGKILLs, {} resumes (replays because of 'Plant'): byte-identical",
        report.unbroken, report.kills, report.resumes
    );
}
