//! The library's front door, `mastersim::Session`: variables by handle (read one or many,
//! set inputs that no connection drives, every other variable refused with its reason), an
//! in-memory snapshot restored in place so that the run ends byte-identical to an unbroken
//! one, and a project built in code run the same way as a file.
//!
//! Each test prints what it measured (`--nocapture`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use mastersim::master::project::Project;
use mastersim::{Options, ResultFormat, Session, Value};
use mastersim_tests::example_workspace;
use mastersim_tests::kill_resume::assert_identical;

use crate::checkpoints::fmu_variant;

/// Options writing CSV and MAT into `wd`, on one thread.
fn options(wd: &Path) -> Options {
    Options {
        working_dir: Some(wd.to_path_buf()),
        result_formats: Some(vec![ResultFormat::Csv, ResultFormat::Mat]),
        threads: Some(1),
        ..Options::default()
    }
}

/// The own Lotka-Volterra pair, both serializing their FMU state, with `Prey.y` (the
/// predator population Prey sees) left unconnected, to be set by handle; Gauss-Seidel,
/// h = 0.01 s, a row every 0.05 s, to 10 s; written to `dir/api.msim`.
fn lotka_volterra(dir: &Path) -> PathBuf {
    let fmus = dir.join("fmus");
    let mut text = String::from(
        "tEnd 10 s\nhStart 0.01 s\nhOutputMin 0.05 s\nMasterMode GAUSS_SEIDEL\nmaxIterations 1\n",
    );
    for (i, model) in ["Prey", "Predator"].into_iter().enumerate() {
        let fmu = fmu_variant(model, true, &fmus);
        let _ = writeln!(
            text,
            "simulator {i} 0 {model} #000000 \"{}\"",
            fmu.display()
        );
    }
    text.push_str("graph Prey.x Predator.x\n");
    let path = dir.join("api.msim");
    std::fs::write(&path, text).expect("write project");
    path
}

/// Two own Scale FMUs, S0 → S1 (S0.u unconnected, k = 0.5), and the Lotka-Volterra pair,
/// written to `dir/handles.msim`.
fn scales(dir: &Path) -> PathBuf {
    let packed = example_workspace().join("fmus/packed");
    let mut text = String::from("tEnd 10 s\nhStart 0.01 s\n");
    for (i, (name, model)) in [("S0", "Scale"), ("S1", "Scale"), ("Prey", "Prey")]
        .into_iter()
        .chain([("Predator", "Predator")])
        .enumerate()
    {
        let fmu = packed.join(format!("{model}.fmu"));
        let _ = writeln!(text, "simulator {i} 0 {name} #000000 \"{}\"", fmu.display());
    }
    text.push_str(
        "parameter S0.k 0.5\nparameter S1.k 0.5\ngraph S0.y S1.u\n\
         graph Predator.y Prey.y\ngraph Prey.x Predator.x\n",
    );
    let path = dir.join("handles.msim");
    std::fs::write(&path, text).expect("write project");
    path
}

/// Runs `project` in `wd`, setting `Prey.y` to each value of `sets` at its time (s) between
/// steps; at `detour.0` (s) it takes a snapshot, sets `Prey.y` to 3, runs on to `detour.1`
/// and restores the snapshot.
fn run(project: &Path, wd: &Path, sets: &[(f64, f64)], detour: Option<(f64, f64)>) -> usize {
    let mut session = Session::open(project, &options(wd)).expect("open");
    let u = session.variable("Prey.y").expect("Prey.y");
    let mut snapshot_size = 0;
    for &(t, value) in sets {
        if let Some((from, to)) = detour
            && session.time() < from
            && from <= t
        {
            session.run_until(from).expect("run to the snapshot");
            let snapshot = session.snapshot().expect("snapshot");
            snapshot_size = snapshot.len();
            session.set_real(&u, 3.0).expect("set on the detour");
            session.run_until(to).expect("the detour");
            session.restore(&snapshot).expect("restore");
            assert!((session.time() - from).abs() < 1e-9, "back at {from} s");
        }
        session.run_until(t).expect("run");
        session.set_real(&u, value).expect("set Prey.y");
    }
    session.run().expect("run to the end");
    session.finish().expect("finish");
    snapshot_size
}

#[test]
fn snapshot_restore_and_continue_equals_an_unbroken_run() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = lotka_volterra(tmp.path());
    let sets = [(1.0, 2.0), (6.0, 0.5)];
    let started = std::time::Instant::now();
    run(&project, &tmp.path().join("unbroken"), &sets, None);
    let unbroken = started.elapsed().as_secs_f64();
    // Snapshot at 3 s, a detour to 8.5 s with another input (past the set at 6 s), restore.
    let size = run(
        &project,
        &tmp.path().join("restored"),
        &sets,
        Some((3.0, 8.5)),
    );
    println!("snapshot of {size} bytes; the unbroken run took {unbroken:.3} s");
    assert!(size > 0);
    assert_identical(
        &tmp.path().join("unbroken"),
        &tmp.path().join("restored"),
        &project,
    );
    // The sets take effect: without them the results differ.
    run(&project, &tmp.path().join("unset"), &[], None);
    let csv = |wd: &str| std::fs::read(tmp.path().join(wd).join("results/values.csv"));
    assert_ne!(
        csv("unbroken").expect("values.csv"),
        csv("unset").expect("values.csv")
    );
}

#[test]
fn restore_after_the_end_runs_on_again() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = lotka_volterra(tmp.path());
    run(&project, &tmp.path().join("unbroken"), &[(1.0, 2.0)], None);
    let wd = tmp.path().join("again");
    let mut session = Session::open(&project, &options(&wd)).expect("open");
    let u = session.variable("Prey.y").expect("Prey.y");
    session.run_until(1.0).expect("run");
    session.set_real(&u, 2.0).expect("set");
    session.run_until(4.0).expect("run");
    let snapshot = session.snapshot().expect("snapshot");
    session.run().expect("run to the end");
    assert!(session.outcome().is_some());
    session.restore(&snapshot).expect("restore after the end");
    assert!(session.outcome().is_none(), "running again");
    session.run().expect("run to the end again");
    session.finish().expect("finish");
    assert_identical(&tmp.path().join("unbroken"), &wd, &project);
}

#[test]
fn handles_read_and_set_and_refuse_with_the_reason() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = scales(tmp.path());
    let mut session = Session::open(&project, &options(&tmp.path().join("wd"))).expect("open");
    let u = session.variable("S0.u").expect("S0.u");
    assert!(u.is_settable());
    let outputs = [
        session.variable("S0.y").expect("S0.y"),
        session.variable("S1.y").expect("S1.y"),
    ];
    session.set(&u, &Value::Real(4.0)).expect("set S0.u");
    session.step().expect("step");
    let mut y = [0.0; 2];
    session.read_reals(&outputs, &mut y).expect("read");
    assert_eq!(y, [2.0, 1.0], "S0.y = 0.5 · 4, S1.y = 0.5 · S0.y");
    assert_eq!(session.get(&u).expect("get"), Value::Real(4.0));
    assert_eq!(session.value("S1.y").expect("by name"), Value::Real(1.0));

    let refused = |session: &mut Session, name: &str, value: Value| -> String {
        let v = session.variable(name).expect(name);
        assert!(!v.is_settable(), "{name}");
        let e = session.set(&v, &value).expect_err(name).to_string();
        println!("{e}");
        assert!(e.contains(name), "names {name}: {e}");
        e
    };
    let e = refused(&mut session, "S1.u", Value::Real(1.0));
    assert!(e.contains("driven by the connection from 'S0.y'"), "{e}");
    let e = refused(&mut session, "S0.k", Value::Real(1.0));
    assert!(e.contains("fixed parameter"), "{e}");
    let e = refused(&mut session, "Prey.x", Value::Real(1.0));
    assert!(e.contains("an output"), "{e}");
    let e = session
        .set(&u, &Value::Boolean(true))
        .expect_err("wrong type")
        .to_string();
    assert!(e.contains("S0.u") && e.contains("Real"), "{e}");
    let e = session.variable("S0.uu").expect_err("misspelt").to_string();
    assert!(e.contains("did you mean"), "{e}");
    session.finish().expect("finish");
}

#[test]
fn file_reader_columns_read_by_handle_and_refuse_a_set() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = example_workspace().join("projects/file_reader.msim");
    let mut session = Session::open(&project, &options(&tmp.path().join("wd"))).expect("open");
    session.run_until(1.0).expect("run");
    let level = session.variable("Table.level").expect("column");
    assert!(!level.is_settable());
    // The table goes from 0 to 4 between 0 and 2 s: 2 at 1 s.
    assert_eq!(session.get_real(&level).expect("read"), 2.0);
    let e = session
        .set_real(&level, 1.0)
        .expect_err("a column is not settable")
        .to_string();
    assert!(
        e.contains("Table.level") && e.contains("file reader"),
        "{e}"
    );
    session.finish().expect("finish");
}

#[test]
fn a_project_built_in_code_runs_as_its_file_does() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let packed = example_workspace().join("fmus/packed");
    let mut project = Project::in_code(tmp.path().join("built.msim"));
    project
        .set("tEnd", "2 s")
        .and_then(|p| p.set("hStart", "0.1 s"))
        .and_then(|p| p.add_slave("Prey", packed.join("Prey.fmu")))
        .and_then(|p| p.add_slave("Predator", packed.join("Predator.fmu")))
        .and_then(|p| p.connect("Predator.y", "Prey.y"))
        .and_then(|p| p.connect("Prey.x", "Predator.x"))
        .and_then(|p| p.set_parameter("Prey.alpha", "1.2"))
        .expect("build");
    let text = project.to_text(tmp.path(), "built");
    let file = tmp.path().join("file.msim");
    std::fs::write(&file, text).expect("write");
    let built = mastersim::load_project(project, &options(&tmp.path().join("built")))
        .expect("load the built project");
    assert_eq!(built.plan().slaves.len(), 2);
    let mut session =
        Session::from_loaded(built, &options(&tmp.path().join("built"))).expect("session");
    session.run().expect("run");
    session.finish().expect("finish");
    let mut session = Session::open(&file, &options(&tmp.path().join("file"))).expect("open");
    session.run().expect("run");
    session.finish().expect("finish");
    let read = |wd: &str| {
        std::fs::read(tmp.path().join(wd).join("results/values.csv")).expect("values.csv")
    };
    assert_eq!(read("built"), read("file"), "the same rows");
    let e = Project::in_code(tmp.path().join("x.msim"))
        .connect("Prey", "Predator.x")
        .expect_err("no dot")
        .to_string();
    assert!(e.contains("connect(\"Prey\", \"Predator.x\")"), "{e}");
}

#[test]
fn a_snapshot_written_to_a_file_is_a_checkpoint_to_resume_from() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = lotka_volterra(tmp.path());
    run(&project, &tmp.path().join("unbroken"), &[(1.0, 2.0)], None);
    let wd = tmp.path().join("resumed");
    let file = tmp.path().join("snapshot.bin");
    {
        let mut session = Session::open(&project, &options(&wd)).expect("open");
        let u = session.variable("Prey.y").expect("Prey.y");
        session.run_until(1.0).expect("run");
        session.set_real(&u, 2.0).expect("set");
        session.run_until(3.0).expect("run");
        std::fs::write(&file, session.snapshot().expect("snapshot")).expect("write");
        session.run_until(5.0).expect("run past the snapshot");
        // Dropped here: the result files hold rows up to 5 s, as after an interrupted run.
    }
    let mut session = Session::open_resume(&project, &options(&wd), &file).expect("resume");
    assert!((session.time() - 3.0).abs() < 1e-9, "at the snapshot");
    session.run().expect("run");
    session.finish().expect("finish");
    assert_identical(&tmp.path().join("unbroken"), &wd, &project);
}
