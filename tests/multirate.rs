//! Multi-rate co-simulation (`communicationInterval`, `communicationOffset`,
//! `communicationTrigger`): equal rates change nothing, communication points are exact integer
//! ticks, step counts follow the documented rule, held values, sampled control, non-harmonic
//! rates, triggers, and the bundled flight example against its reference. The FMUs are built
//! from the current source (`example_workspace`).

use std::path::{Path, PathBuf};

use mastersim::{Options, RunOutcome, Session, Statistics};
use mastersim_tests::example_workspace;

/// Options with the working directory `wd` (and `log/stepstats.tsv` when `step_statistics`).
fn options(wd: &Path, step_statistics: bool) -> Options {
    Options {
        working_dir: Some(wd.to_path_buf()),
        step_statistics,
        ..Options::default()
    }
}

/// Writes `text` as `projects/<name>.msim` of the example workspace (so that the bundled
/// projects' relative FMU paths work) and returns its path.
fn write_project(name: &str, text: &str) -> PathBuf {
    let path = example_workspace()
        .join("projects")
        .join(format!("{name}.msim"));
    std::fs::write(&path, text).expect("write project");
    path
}

/// Runs `project` to the end in working directory `wd`; returns the statistics.
fn run(project: &Path, wd: &Path, step_statistics: bool) -> Statistics {
    let mut session = Session::open(project, &options(wd, step_statistics))
        .unwrap_or_else(|e| panic!("open {}: {e}", project.display()));
    assert_eq!(session.run().expect("run"), RunOutcome::Completed);
    session.finish().expect("finish")
}

/// The lines of `summary.txt` without times and without the per-slave `doStep` calls of
/// multi-rate runs (compared through the statistics).
fn summary_counters(wd: &Path) -> Vec<String> {
    std::fs::read_to_string(wd.join("log/summary.txt"))
        .expect("summary.txt")
        .lines()
        .filter(|l| !l.contains("Time") && !l.contains("DoStepCalls"))
        .map(str::to_string)
        .collect()
}

/// The bundled project `name` with a `communicationInterval` equal to its `hStart` for every
/// slave gives byte-identical `values.csv`, identical counters and the same `summary.txt`
/// counters; `multirate` says whether the multi-rate scheduler runs it (fixed steps) or the
/// lines restate the master's schedule of a variable-step project.
fn assert_equal_rates_change_nothing(name: &str, multirate: bool) {
    let workspace = example_workspace();
    let text = std::fs::read_to_string(workspace.join(format!("projects/{name}.msim")))
        .expect("bundled project");
    let h_start = text
        .lines()
        .find_map(|l| l.strip_prefix("hStart"))
        .expect("hStart line")
        .trim();
    let mut with_lines = text.clone();
    for line in text.lines().filter(|l| l.starts_with("simulator")) {
        let slave = line.split_whitespace().nth(3).expect("slave name");
        with_lines.push_str(&format!("communicationInterval {slave} {h_start}\n"));
    }
    let equal = write_project(&format!("{name}_equal_rates"), &with_lines);
    let tmp = tempfile::tempdir().expect("temp dir");
    let (single, multi) = (tmp.path().join("single"), tmp.path().join("multi"));

    let session = Session::open(&equal, &options(&multi, false)).expect("open");
    assert_eq!(session.plan().multirate.is_some(), multirate, "{name}");
    drop(session);

    let single_stats = run(
        &workspace.join(format!("projects/{name}.msim")),
        &single,
        false,
    );
    let multi_stats = run(&equal, &multi, false);
    assert!(single_stats.counters.steps >= 100, "{name}: steps taken");
    assert_eq!(
        single_stats.counts(),
        multi_stats.counts(),
        "{name}: counters"
    );
    assert_eq!(
        summary_counters(&single),
        summary_counters(&multi),
        "{name}: summary.txt counters"
    );
    let values = |wd: &Path| std::fs::read(wd.join("results/values.csv")).expect("values.csv");
    assert!(
        values(&single) == values(&multi),
        "{name}: values.csv differs with equal communication intervals"
    );
}

#[test]
fn equal_rates_gauss_jacobi() {
    assert_equal_rates_change_nothing("control_loop_jacobi", true);
}

#[test]
fn equal_rates_gauss_seidel() {
    assert_equal_rates_change_nothing("control_loop_seidel", true);
}

#[test]
fn equal_rates_newton() {
    assert_equal_rates_change_nothing("algebraic_loop_newton", true);
}

#[test]
fn equal_rates_richardson() {
    assert_equal_rates_change_nothing("lotka_volterra_adaptive", false);
}

/// A project of Sampler (and other multirate) FMUs over `t_end` with tick `h_start`, one row
/// per instant (`hOutputMin` = tick), `algorithm`, and `body` (simulator, graph, parameter and
/// multi-rate lines; `{fmus}` stands for the packed FMU directory).
fn project_text(t_end: &str, h_start: &str, algorithm: &str, body: &str) -> String {
    let fmus = example_workspace().join("fmus/packed");
    format!(
        "tStart 0 s\ntEnd {t_end}\nhStart {h_start}\nhOutputMin {h_start}\nMasterMode {algorithm}\n\
         maxIterations 1\n{}",
        body.replace("{fmus}", &fmus.display().to_string())
    )
}

/// Runs the project text `text` (written as `name`) with a recorder; returns the recorded
/// results, the statistics and the working directory (kept in `tmp`).
fn run_recorded(name: &str, text: &str, tmp: &Path) -> (mastersim::Results, Statistics, PathBuf) {
    let project = write_project(name, text);
    let wd = tmp.join(name);
    let mut session =
        Session::open(&project, &options(&wd, true)).unwrap_or_else(|e| panic!("open {name}: {e}"));
    assert!(session.plan().multirate.is_some(), "{name} runs multi-rate");
    let recorder = mastersim::Recorder::new();
    session
        .add_observer(Box::new(recorder.clone()))
        .expect("observer");
    assert_eq!(session.run().expect("run"), RunOutcome::Completed);
    let stats = session.finish().expect("finish");
    (recorder.results(), stats, wd)
}

/// The recorded column `name`.
fn column<'r>(results: &'r mastersim::Results, name: &str) -> &'r [f64] {
    results
        .column(name)
        .unwrap_or_else(|| panic!("no column {name} in {:?}", results.names()))
}

/// The `(communication point, step size)` pairs a Sampler logged.
fn logged_steps(path: &Path) -> Vec<(f64, f64)> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    bytes
        .chunks_exact(16)
        .map(|c| {
            let f = |b: &[u8]| f64::from_le_bytes(b.try_into().expect("8 bytes"));
            (f(&c[..8]), f(&c[8..]))
        })
        .collect()
}

#[test]
fn a_million_communication_points_are_exact_ticks() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let log = |name: &str| tmp.path().join(format!("{name}.bin"));
    // Tick 0.1 ms over 100 s: A steps 10^6 times at 0.1 ms, B at 0.7 ms from an offset of
    // 0.3 ms; both log every doStep and check their grid themselves.
    let body = format!(
        "simulator 0 0 A #000000 \"{{fmus}}/Sampler.fmu\"\n\
         simulator 1 0 B #000000 \"{{fmus}}/Sampler.fmu\"\n\
         communicationInterval A 0.1 ms\n\
         communicationInterval B 0.7 ms\ncommunicationOffset B 0.3 ms\n\
         parameter A.dt 0.0001\nparameter A.logFile \"{}\"\n\
         parameter B.t1 0.0003\nparameter B.dt 0.0007\nparameter B.logFile \"{}\"\n",
        log("A").display(),
        log("B").display()
    );
    let text = project_text("100 s", "0.1 ms", "GAUSS_JACOBI", &body)
        .replace("hOutputMin 0.1 ms", "hOutputMin 10 s");
    let (results, stats, _) = run_recorded("ticks", &text, tmp.path());
    assert_eq!(stats.slaves[0].do_step.count, 1_000_000);
    assert_eq!(stats.slaves[1].do_step.count, 142_857);
    for name in ["A", "B"] {
        let off = column(&results, &format!("{name}.offGrid"));
        assert_eq!(
            off.last(),
            Some(&0.0),
            "{name}: the FMU found no point off its grid"
        );
    }
    for (name, first, interval, offset_step) in [("A", 0.0, 1e-4, false), ("B", 3e-4, 7e-4, true)] {
        let steps = logged_steps(&log(name));
        let expected_len = if offset_step { 142_857 } else { 1_000_000 };
        assert_eq!(steps.len(), expected_len, "{name}");
        let mut grid = steps.iter();
        if offset_step {
            // The first step goes from tStart to the first sample time.
            assert_eq!(*grid.next().expect("a step"), (0.0, first));
        }
        let mut naive = first;
        let mut drifted = false;
        for (n, &(t, h)) in grid.enumerate() {
            let point = first + n as f64 * interval;
            assert!(
                t.to_bits() == point.to_bits(),
                "{name}: step {n} at {t:e}, expected t1 + n·Δt = {point:e}"
            );
            let next = first + (n + 1) as f64 * interval;
            assert_eq!(t + h, next, "{name}: step {n} ends on the next point");
            drifted |= naive != point;
            naive += interval;
        }
        assert!(
            drifted,
            "{name}: summing Δt would have drifted, the test has teeth"
        );
    }
}

/// Expected number of doStep calls of a slave with offset `o` and interval `d` ticks over `k`
/// ticks: one per sample in (tStart, tEnd] (`docs/algorithms.md`).
fn expected_steps(o: u64, d: u64, k: u64) -> u64 {
    if o == 0 {
        k / d
    } else if o > k {
        0
    } else {
        (k - o) / d + 1
    }
}

#[test]
fn step_counts_follow_the_documented_rule() {
    let tmp = tempfile::tempdir().expect("temp dir");
    // (slave, interval ms, offset ms); E is triggered by B.
    let slaves = [
        ("A", 10, 0),
        ("B", 30, 5),
        ("C", 70, 0),
        ("D", 7, 3),
        ("F", 1, 0),
    ];
    let mut body = String::new();
    for (i, (name, interval, offset)) in slaves.iter().enumerate() {
        body.push_str(&format!(
            "simulator {i} 0 {name} #000000 \"{{fmus}}/Sampler.fmu\"\n\
             communicationInterval {name} {interval} ms\ncommunicationOffset {name} {offset} ms\n"
        ));
    }
    body.push_str("simulator 9 0 E #000000 \"{fmus}/Sampler.fmu\"\ncommunicationTrigger E B\n");
    let text = project_text("1 s", "1 ms", "GAUSS_SEIDEL", &body);
    let (results, stats, wd) = run_recorded("counts", &text, tmp.path());
    let mut expected: Vec<u64> = slaves
        .iter()
        .map(|&(_, d, o)| expected_steps(o, d, 1000))
        .collect();
    expected.push(expected_steps(5, 30, 1000));
    assert_eq!(expected, [100, 34, 14, 143, 1000, 34]);
    let counted: Vec<u64> = stats.slaves.iter().map(|s| s.do_step.count).collect();
    assert_eq!(counted, expected, "doStep calls per slave");
    for (name, n) in slaves.iter().map(|s| s.0).chain(["E"]).zip(&expected) {
        assert_eq!(
            column(&results, &format!("{name}.steps")).last(),
            Some(&(*n as f64))
        );
    }
    // summary.txt and the last line of stepstats.tsv give the same counts.
    let summary = mastersim_tests::read_summary(&wd.join("log/summary.txt"));
    for (i, n) in expected.iter().enumerate() {
        assert_eq!(
            summary[&format!("Slave[{}]DoStepCalls", i + 1)],
            n.to_string()
        );
    }
    let stepstats = std::fs::read_to_string(wd.join("log/stepstats.tsv")).expect("stepstats");
    let header: Vec<&str> = stepstats
        .lines()
        .next()
        .expect("header")
        .split('\t')
        .map(str::trim)
        .collect();
    assert_eq!(
        &header[11..],
        [
            "doStep:A", "doStep:B", "doStep:C", "doStep:D", "doStep:F", "doStep:E"
        ]
    );
    let last: Vec<&str> = stepstats
        .lines()
        .last()
        .expect("a row")
        .split('\t')
        .map(str::trim)
        .collect();
    let last_counts: Vec<u64> = last[11..17]
        .iter()
        .map(|c| c.parse().unwrap_or_else(|_| panic!("a count in {last:?}")))
        .collect();
    assert_eq!(last_counts, expected);
    // An instant per tick at which some slave is due: F steps at every tick.
    assert_eq!(stats.counters.steps, 1000);

    // tEnd off the tick grid: the instant after it moves to tEnd, and the slaves due there
    // take one more step.
    let text = project_text("1.0005 s", "1 ms", "GAUSS_SEIDEL", &body);
    let (_, stats, _) = run_recorded("counts_off_grid", &text, tmp.path());
    assert_eq!(stats.slaves[4].do_step.count, 1001, "F steps to tEnd");
    assert_eq!(
        stats.slaves[0].do_step.count, 100,
        "A is not due at the moved instant"
    );
}

/// The samples a producer with samples every `interval` ticks (from tick 0) has completed when
/// a consumer reads it at tick `at`: Gauss-Seidel passes on the value of the same instant,
/// Gauss-Jacobi only those from before it (`docs/algorithms.md`).
fn samples_seen(at: u64, interval: u64, algorithm: &str) -> u64 {
    if algorithm == "GAUSS_SEIDEL" {
        at / interval
    } else {
        at.saturating_sub(1) / interval
    }
}

#[test]
fn a_slow_sampler_holds_the_ramp_between_samples() {
    let tmp = tempfile::tempdir().expect("temp dir");
    // R: a 10 ms ramp (its output t); H samples it every 100 ms from 30 ms on.
    let body = "simulator 0 0 H #000000 \"{fmus}/Sampler.fmu\"\n\
                simulator 1 0 R #000000 \"{fmus}/Sampler.fmu\"\n\
                graph R.t H.u\n\
                communicationInterval R 10 ms\n\
                communicationInterval H 100 ms\ncommunicationOffset H 30 ms\n";
    for algorithm in ["GAUSS_SEIDEL", "GAUSS_JACOBI"] {
        let text = project_text("2 s", "1 ms", algorithm, body);
        let (results, _, _) = run_recorded(&format!("hold_{algorithm}"), &text, tmp.path());
        let held = column(&results, "H.y");
        // A row at every instant: every 10 ms (R's samples; H's fall on them).
        assert_eq!(results.time().len(), 201);
        for (&t, &y) in results.time().iter().zip(held) {
            let k = (t / 1e-3).round() as u64;
            // H's last sample tick at or before k, and the ramp's step count there; with
            // Gauss-Jacobi H reads the ramp as it was before the instant.
            let expected = if k < 30 {
                0.0
            } else {
                let sample = 30 + (k - 30) / 100 * 100;
                samples_seen(sample, 10, algorithm) as f64 * 0.01
            };
            assert!(
                y.to_bits() == expected.to_bits(),
                "{algorithm}: H.y = {y} at t = {t}, expected ramp(t_H,1 + ⌊(t − t_H,1)/Δt⌋·Δt) = {expected}"
            );
        }
    }
}

#[test]
fn non_harmonic_rates_read_the_latest_value_at_or_before_the_instant() {
    let tmp = tempfile::tempdir().expect("temp dir");
    // P: 20 ms producer (a ramp), C: 30 ms consumer, listed first: the predecessor order still
    // steps P first where both are due.
    let body = "simulator 0 0 C #000000 \"{fmus}/Sampler.fmu\"\n\
                simulator 1 0 P #000000 \"{fmus}/Sampler.fmu\"\n\
                graph P.t C.u\n\
                communicationInterval P 20 ms\ncommunicationInterval C 30 ms\n";
    for algorithm in ["GAUSS_SEIDEL", "GAUSS_JACOBI"] {
        let text = project_text("1.2 s", "10 ms", algorithm, body);
        let (results, stats, _) =
            run_recorded(&format!("nonharmonic_{algorithm}"), &text, tmp.path());
        // Instants: the union of both grids, 0.02, 0.03, 0.04, 0.06, …
        assert_eq!(stats.counters.steps, 80);
        let consumed = column(&results, "C.y");
        let produced = column(&results, "P.t");
        for ((&t, &y), &p) in results.time().iter().zip(consumed).zip(produced) {
            let k = (t / 1e-2).round() as u64; // ticks of 10 ms
            let c_sample = k / 3 * 3; // C's last sample tick
            let p_samples = samples_seen(c_sample, 2, algorithm);
            let expected = if c_sample == 0 {
                0.0
            } else {
                p_samples as f64 * 0.02
            };
            assert!(
                y.to_bits() == expected.to_bits(),
                "{algorithm}: C.y = {y} at t = {t}, expected P after {p_samples} samples = {expected}"
            );
            assert!(
                y <= t + 1e-12 && y <= p,
                "{algorithm}: no value from the future at t = {t}"
            );
        }
    }
}

#[test]
fn a_triggered_slave_steps_exactly_when_and_after_its_trigger() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let logs = |name: &str| tmp.path().join(format!("trigger_{name}.bin"));
    let body = format!(
        "simulator 0 0 Nav #000000 \"{{fmus}}/Sampler.fmu\"\n\
         simulator 1 0 Camera #000000 \"{{fmus}}/Sampler.fmu\"\n\
         simulator 2 0 Plant #000000 \"{{fmus}}/Sampler.fmu\"\n\
         graph Camera.t Nav.u\n\
         communicationInterval Camera 40 ms\ncommunicationOffset Camera 5 ms\n\
         communicationTrigger Nav Camera\n\
         parameter Camera.logFile \"{}\"\nparameter Nav.logFile \"{}\"\n",
        logs("Camera").display(),
        logs("Nav").display()
    );
    let text = project_text("1 s", "1 ms", "GAUSS_SEIDEL", &body);
    let (results, stats, _) = run_recorded("trigger", &text, tmp.path());
    assert_eq!(stats.slaves[0].do_step.count, 25);
    assert_eq!(stats.slaves[1].do_step.count, 25);
    assert_eq!(stats.slaves[2].do_step.count, 1000);
    // The same communication points, step for step.
    assert_eq!(logged_steps(&logs("Nav")), logged_steps(&logs("Camera")));
    let camera_t = column(&results, "Camera.t");
    for (row, &t) in results.time().iter().enumerate() {
        // After its trigger: Nav sampled the camera's time of this very instant.
        assert_eq!(
            column(&results, "Nav.y")[row],
            camera_t[row],
            "Nav.y at t = {t}"
        );
        assert_eq!(
            column(&results, "Nav.t")[row],
            camera_t[row],
            "Nav.t at t = {t}"
        );
        assert_eq!(
            column(&results, "Nav.steps")[row],
            column(&results, "Camera.steps")[row],
            "step counts at t = {t}"
        );
    }
}

#[test]
fn sampled_p_control_matches_the_zero_order_hold_recurrence() {
    let tmp = tempfile::tempdir().expect("temp dir");
    // Plant dv/dt = −a·v + u (the Aircraft's speed, a = d) stepped every 1 ms; a P controller
    // u = kp·(r − v) sampled every T = 10 ms closes the loop.
    let (a, kp, r, period) = (5.0_f64, 3.0, 1.0, 0.01);
    let body = format!(
        "simulator 0 0 Plant #000000 \"{{fmus}}/Aircraft.fmu\"\n\
         simulator 1 0 P #000000 \"{{fmus}}/Controller.fmu\"\n\
         graph Plant.v P.y\ngraph P.u Plant.u\n\
         communicationInterval P 10 ms\n\
         parameter Plant.d {a}\nparameter P.kp {kp}\nparameter P.r {r}\n"
    );
    let text = project_text("2 s", "1 ms", "GAUSS_SEIDEL", &body)
        .replace("hOutputMin 1 ms", "hOutputMin 10 ms");
    let (results, stats, _) = run_recorded("sampled_control", &text, tmp.path());
    assert_eq!(stats.slaves[0].do_step.count, 2000);
    assert_eq!(stats.slaves[1].do_step.count, 200);

    // The exact discretization of the plant under a zero-order hold of period T.
    let decay = (-a * period).exp();
    let gain = (1.0 - decay) / a;
    let (mut v, mut u) = (0.0_f64, kp * r);
    let mut recurrence = vec![(v, u)];
    for _ in 0..200 {
        v = decay * v + gain * u;
        u = kp * (r - v);
        recurrence.push((v, u));
    }
    // The plant integrates with RK4 at 1 ms: for this linear equation each step's error is the
    // remainder of RK4's stability polynomial, |z|⁵/120 relative with z = a·1 ms, applied to
    // |v| + |u|/a ≤ 1.6; the loop is stable, so the errors of the 2000 steps add up at most.
    let per_step = (a * 1e-3_f64).powi(5) / 120.0 * 1.6;
    let bound = 2000.0 * per_step + 1e-12;
    let plant_v = column(&results, "Plant.v");
    let control_u = column(&results, "P.u");
    assert_eq!(results.time().len(), recurrence.len());
    let mut worst = 0.0_f64;
    for (k, ((&t, &v), &u)) in results
        .time()
        .iter()
        .zip(plant_v)
        .zip(control_u)
        .enumerate()
    {
        assert!((t - k as f64 * period).abs() < 1e-12);
        let (v_k, u_k) = recurrence[k];
        worst = worst.max((v - v_k).abs()).max((u - u_k).abs() / kp);
        assert!(
            (v - v_k).abs() <= bound && (u - u_k).abs() <= kp * bound,
            "t = {t}: v = {v}, u = {u}; recurrence v = {v_k}, u = {u_k} (bound {bound:e})"
        );
    }
    println!("sampled control: largest difference {worst:e}, bound {bound:e}");
    assert!(worst <= bound, "largest difference {worst:e}");
    // The sampling matters: a controller at every tick gives a different trajectory.
    let fast_decay = (-a * 1e-3_f64).exp();
    let (mut v_fast, mut u_fast) = (0.0_f64, kp * r);
    for _ in 0..10 {
        v_fast = fast_decay * v_fast + (1.0 - fast_decay) / a * u_fast;
        u_fast = kp * (r - v_fast);
    }
    let gap = (v_fast - recurrence[1].0).abs();
    assert!(
        gap > 1e3 * bound,
        "the test distinguishes sampling rates: {gap:e}"
    );
}

#[test]
fn iteration_rolls_back_only_the_due_slaves() {
    let tmp = tempfile::tempdir().expect("temp dir");
    // The algebraic loop of two Gain FMUs iterated by Gauss-Seidel every 0.1 s, and in the same
    // cycle a Sampler of A.y every 1 s.
    let text =
        std::fs::read_to_string(example_workspace().join("projects/algebraic_loop_seidel.msim"))
            .expect("bundled project")
            + "simulator 2 0 S #000000 \"../fmus/packed/Sampler.fmu\"\n\
           graph A.y S.u\ncommunicationInterval S 1 s\n";
    let project = write_project("iteration_multirate", &text);
    let wd = tmp.path().join("iteration");
    let mut session = Session::open(&project, &options(&wd, false)).expect("open");
    let recorder = mastersim::Recorder::new();
    session
        .add_observer(Box::new(recorder.clone()))
        .expect("observer");
    assert_eq!(session.run().expect("run"), RunOutcome::Completed);
    let stats = session.finish().expect("finish");
    let results = recorder.results();
    let (a, s) = (&stats.slaves[0], &stats.slaves[2]);
    assert_eq!(stats.counters.steps, 100);
    assert_eq!(
        a.get_state.count, 100,
        "A's state is saved at every instant"
    );
    assert!(
        a.set_state.count > 100,
        "the loop iterates: {}",
        a.set_state.count
    );
    assert_eq!(
        s.get_state.count, 10,
        "S's state is saved only at its 10 instants"
    );
    // S is rolled back only with the iterations of its own instants.
    assert_eq!(s.do_step.count, 10 + s.set_state.count);
    assert!(s.set_state.count > 0 && s.set_state.count < a.set_state.count);
    // S samples the converged A.y at its instants and holds it in between.
    let (sampled, source) = (column(&results, "S.y"), column(&results, "A.y"));
    let mut held = source[0];
    for (row, &t) in results.time().iter().enumerate() {
        let k = (t / 0.1).round() as u64;
        if k > 0 && k.is_multiple_of(10) {
            held = source[row];
        }
        assert_eq!(sampled[row], held, "S.y at t = {t}");
    }
}

/// Reads one signal of a reference sample.
type Signal = fn(&fmu_multirate::FlightSample) -> f64;

#[test]
fn the_bundled_flight_example_matches_its_reference() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = example_workspace().join("projects/flight_navigation_multirate.msim");
    let wd = tmp.path().join("flight");
    let mut session = Session::open(&project, &options(&wd, false)).expect("open");
    let recorder = mastersim::Recorder::new();
    session
        .add_observer(Box::new(recorder.clone()))
        .expect("observer");
    assert_eq!(session.run().expect("run"), RunOutcome::Completed);
    let stats = session.finish().expect("finish");
    let results = recorder.results();
    let calls: Vec<u64> = stats.slaves.iter().map(|s| s.do_step.count).collect();
    assert_eq!(
        calls,
        [10_000, 1000, 250, 250, 500],
        "Aircraft, IMU, Camera, Navigation, Autopilot"
    );

    let p = fmu_multirate::FlightParameters::default();
    let reference = fmu_multirate::flight_reference(&p, 10.0);
    let signals: [(&str, Signal); 8] = [
        ("Aircraft.h", |s| s.h),
        ("Aircraft.v", |s| s.v),
        ("IMU.y", |s| s.imu),
        ("Camera.y", |s| s.camera),
        ("Navigation.hEst", |s| s.h_est),
        ("Navigation.vEst", |s| s.v_est),
        ("Navigation.updates", |s| f64::from(s.updates)),
        ("Autopilot.u", |s| s.u),
    ];
    assert_eq!(results.time().len(), 1001, "a row every 10 ms");
    // The reference integrates the plant in closed form; the Aircraft FMU uses RK4 at 1 ms,
    // whose error here is far below 1e-9 (fmus/multirate/README.md).
    for (name, of) in signals {
        let values = column(&results, name);
        for (&t, &value) in results.time().iter().zip(values) {
            let k = (t / p.tick).round() as usize;
            let expected = of(&reference[k]);
            assert!(
                (value - expected).abs() <= 1e-9,
                "{name} at t = {t}: {value}, reference {expected}"
            );
        }
    }
    let h = column(&results, "Aircraft.h");
    assert!(
        (h[h.len() - 1] - p.r).abs() < 1e-6,
        "the aircraft holds the target altitude"
    );
}

#[test]
fn an_interval_off_the_tick_grid_falls_on_the_nearest_ticks() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let log = tmp.path().join("off_grid.bin");
    // The Sampler handles variable step sizes: 2.5 ms on a 1 ms tick samples at the ticks
    // nearest to 2.5·n ms (2.5 rounds to 3), so its steps alternate between 3 and 2 ms.
    let body = format!(
        "simulator 0 0 S #000000 \"{{fmus}}/Sampler.fmu\"\n\
         simulator 1 0 F #000000 \"{{fmus}}/Sampler.fmu\"\n\
         communicationInterval S 2.5 ms\nparameter S.logFile \"{}\"\n",
        log.display()
    );
    let text = project_text("0.1 s", "1 ms", "GAUSS_JACOBI", &body);
    let (_, stats, _) = run_recorded("off_tick_grid", &text, tmp.path());
    assert_eq!(stats.slaves[0].do_step.count, 40);
    let steps = logged_steps(&log);
    assert_eq!(steps.len(), 40);
    for (j, &(t, h)) in steps.iter().enumerate() {
        let start = (2.5 * j as f64).round() * 1e-3;
        let end = (2.5 * (j + 1) as f64).round() * 1e-3;
        assert_eq!(t, start, "step {j} starts on its nearest tick");
        assert_eq!(t + h, end, "step {j} ends on the next one");
    }
}
