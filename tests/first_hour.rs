//! The first hour of a new user, with the own test FMUs: running an FMU without a project
//! (default experiment, `--set`, `--input`, `--write-msim`), overriding a project from the
//! command line, settings completed from the FMUs' default experiments, `summary.json`,
//! completions and the man page. (`info` is in `info.rs`; the same hour against a cross-check
//! FMU is in the corpus suite.)

use std::path::{Path, PathBuf};
use std::process::Command;

use mastersim::report::{SUMMARY_JSON_VERSION, SummaryJson};
use mastersim_tests::{ResultTable, Run, example_workspace, mastersim_bin, run_mastersim};

fn packed(name: &str) -> PathBuf {
    example_workspace()
        .join("fmus")
        .join("packed")
        .join(format!("{name}.fmu"))
}

fn summary(run: &Run) -> SummaryJson {
    SummaryJson::read(&run.path("log/summary.json")).expect("summary.json reads back")
}

/// `mastersim Prey.fmu` runs the FMU's default experiment (0–20 s at 0.01 s), a row at every
/// communication point; `--set` changes a parameter and `--write-msim` saves a project that
/// gives byte-identical results.
#[test]
fn an_fmu_runs_without_a_project() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let prey = packed("Prey");
    let run = run_mastersim(&prey, &tmp.path().join("default"), &[]);
    run.assert_success();
    assert!(
        run.said()
            .contains("tEnd = 20 s, from the default experiment of 'Prey'"),
        "{}",
        run.said()
    );
    let table = ResultTable::read(&run.path("results/values.csv"));
    let t = table.numbers("Time [s]");
    assert_eq!(t.len(), 2001, "0 to 20 s at 0.01 s, every point");
    assert_eq!((t[0], t[2000]), (0.0, 20.0));
    let s = summary(&run);
    assert_eq!(
        (s.outcome.as_str(), s.t_end, s.t_reached),
        ("Completed", 20.0, 20.0)
    );
    assert_eq!(s.counters.steps, 2000);
    assert!(s.overrides.is_empty());

    // --set on a variable of the FMU, with or without the slave name; --write-msim.
    let msim = tmp.path().join("saved.msim");
    let set = run_mastersim(
        &prey,
        &tmp.path().join("set"),
        &[
            "--set",
            "alpha=0.5",
            "--set",
            "Prey.x0=2",
            "--stop-time",
            "4",
            "--write-msim",
            msim.to_str().unwrap(),
        ],
    );
    set.assert_success();
    // Without the predator (y stays 4): x = x0·exp((alpha − beta·4)·t) = 2·exp(−1.1·t).
    let table = ResultTable::read(&set.path("results/values.csv"));
    let (t, x) = (table.numbers("Time [s]"), table.numbers("Prey.x [-]"));
    assert_eq!(t.last(), Some(&4.0));
    for (t, x) in t.iter().zip(&x) {
        let exact = 2.0 * (-1.1 * t).exp();
        assert!(
            (x - exact).abs() <= 1e-6 * exact.max(1e-3),
            "x({t}) = {x}, exact {exact}"
        );
    }
    assert_eq!(
        summary(&set).overrides,
        ["--set tEnd=4 s", "--set alpha=0.5", "--set Prey.x0=2"]
    );
    let text = std::fs::read_to_string(&msim).expect("--write-msim wrote the project");
    assert!(text.contains("parameter Prey.alpha 0.5"), "{text}");
    assert!(
        text.contains("tEnd                           4 s"),
        "{text}"
    );
    let again = run_mastersim(&msim, &tmp.path().join("again"), &[]);
    again.assert_success();
    assert!(
        !again.said().contains("default experiment"),
        "the saved project states every setting: {}",
        again.said()
    );
    assert_eq!(
        std::fs::read(set.path("results/values.csv")).unwrap(),
        std::fs::read(again.path("results/values.csv")).unwrap(),
        "the saved project gives identical results"
    );
}

/// `--input` feeds the columns named after inputs; a column that names nothing is reported
/// with a suggestion, and a table that feeds nothing is refused naming the option.
#[test]
fn an_input_table_feeds_the_fmu_inputs() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let table = tmp.path().join("predators.csv");
    // y = 1 until 5 s, then 5: x grows at alpha − beta = 0.7, then shrinks at 1.1 − 2 = −0.9.
    // The table comes first in the Gauss-Seidel sweep, so the step ending at 5 s already sees
    // y = 5 (as the FMU would from any slave before it): the decline starts at 4.99 s.
    std::fs::write(
        &table,
        "time [s],y [-],alhpa [-]\n0,1,0\n5,1,0\n5,5,0\n10,5,0\n",
    )
    .unwrap();
    let run = run_mastersim(
        &packed("Prey"),
        &tmp.path().join("wd"),
        &[
            "--input",
            table.to_str().unwrap(),
            "--stop-time",
            "10",
            "--step-size",
            "0.01",
        ],
    );
    run.assert_success();
    let out = run.said();
    assert!(out.contains("column 'alhpa' names no variable"), "{out}");
    let result = ResultTable::read(&run.path("results/values.csv"));
    let (t, x) = (result.numbers("Time [s]"), result.numbers("Prey.x [-]"));
    let exact = |t: f64| {
        if t < 4.995 {
            6.0 * (0.7 * t).exp()
        } else {
            6.0 * (0.7f64 * 4.99).exp() * (-0.9 * (t - 4.99)).exp()
        }
    };
    for (t, x) in t.iter().zip(&x) {
        assert!(
            (x - exact(*t)).abs() <= 1e-5 * exact(*t),
            "x({t}) = {x}, exact {}",
            exact(*t)
        );
    }
    assert_eq!(
        summary(&run).overrides.last().map(String::as_str),
        Some(format!("--input {}", table.display()).as_str())
    );

    std::fs::write(&table, "time [s],nothing [-]\n0,1\n10,1\n").unwrap();
    let refused = run_mastersim(
        &packed("Prey"),
        &tmp.path().join("none"),
        &["--input", table.to_str().unwrap()],
    );
    assert_eq!(refused.code(), 2, "{}", refused.said());
    assert!(
        refused.said().contains(&format!(
            "--input {}: invalid --input: no column names an input of the FMU",
            table.display()
        )),
        "{}",
        refused.said()
    );
    let project = example_workspace().join("projects/lotka_volterra.msim");
    let refused = run_mastersim(
        &project,
        &tmp.path().join("project"),
        &["--input", table.to_str().unwrap()],
    );
    assert_eq!(refused.code(), 2);
    assert!(
        refused.said().contains("a run of one FMU"),
        "{}",
        refused.said()
    );
}

/// An FMU whose default experiment has no step size runs 500 steps, and says so; an FMU
/// given as a project file's FMU keeps its settings.
#[test]
fn without_a_step_size_an_fmu_run_takes_500_steps() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_mastersim(&packed("Oscillator"), &tmp.path().join("wd"), &[]);
    run.assert_success();
    assert!(
        run.said()
            .contains("running 0 s to 10 s in 500 steps of 0.02 s"),
        "{}",
        run.said()
    );
    let s = summary(&run);
    assert_eq!((s.counters.steps, s.t_end), (500, 10.0));
    assert_eq!(s.slaves[0].info.fmi_version.as_deref(), Some("1.0"));
}

/// `--set` on a project: settings and parameters as if written in the file, recorded in
/// summary.json; bad overrides are refused naming the option, before anything runs.
#[test]
fn a_project_takes_overrides() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = example_workspace().join("projects/lotka_volterra.msim");
    let run = run_mastersim(
        &project,
        &tmp.path().join("wd"),
        &[
            "--set",
            "tEnd=5 s",
            "--set=Prey.alpha=1.2",
            "--set",
            "MasterMode=GAUSS_JACOBI",
        ],
    );
    run.assert_success();
    let s = summary(&run);
    assert_eq!((s.t_end, s.t_reached, s.counters.steps), (5.0, 5.0, 500));
    assert_eq!(
        s.overrides,
        [
            "--set tEnd=5 s",
            "--set Prey.alpha=1.2",
            "--set MasterMode=GAUSS_JACOBI"
        ]
    );
    assert_eq!(s.schema, "mastersim-summary");
    assert_eq!(s.version, SUMMARY_JSON_VERSION);
    let names: Vec<&str> = s.slaves.iter().map(|s| s.info.name.as_str()).collect();
    assert_eq!(names, ["Prey", "Predator"]);
    assert_eq!(s.result_files, [Path::new("results/values.csv")]);

    let refused = |args: &[&str], expected: &str| {
        let wd = tmp.path().join("refused");
        let run = run_mastersim(&project, &wd, args);
        assert_eq!(run.code(), 2, "{args:?}: {}", run.said());
        assert!(run.said().contains(expected), "{args:?}: {}", run.said());
    };
    refused(
        &["--set", "tEnd=ten s"],
        "--set tEnd=ten s: invalid tEnd 'ten s'",
    );
    refused(&["--set", "tend=5 s"], "did you mean 'tEnd'?");
    refused(
        &["--set", "Prey.alpah=1"],
        "--set Prey.alpah=1: slave 'Prey' has no variable 'alpah'",
    );
    refused(&["--set", "Prey.alpah=1"], "did you mean 'alpha'?");
    refused(
        &["--set", "Wolf.alpha=1"],
        "'Wolf' is neither a keyword nor a slave of the project",
    );
    refused(&["--set", "tEnd=5", "s"], "quote a --set value with spaces");
    refused(
        &["--set", "MasterMode=NEWTON"],
        "invalid maxIterations: Newton needs at least 2 iterations",
    );
}

/// A project that leaves out tEnd and hStart takes them from its FMUs' default experiments
/// when they agree, warns naming the keyword when they do not, and warns when a step exceeds
/// the run.
#[test]
fn settings_come_from_the_default_experiments() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let packed_dir = example_workspace().join("fmus").join("packed");
    let write = |name: &str, text: &str| {
        let path = tmp.path().join(name);
        std::fs::write(
            &path,
            text.replace("PACKED", &packed_dir.display().to_string()),
        )
        .unwrap();
        path
    };
    let minimal = write(
        "minimal.msim",
        "simulator 0 0 Prey #ff0000 \"PACKED/Prey.fmu\"\n\
         simulator 1 0 Predator #00ff00 \"PACKED/Predator.fmu\"\n\
         graph Prey.x Predator.x\ngraph Predator.y Prey.y\nhOutputMin 1 s\n",
    );
    let run = run_mastersim(&minimal, &tmp.path().join("minimal"), &[]);
    run.assert_success();
    let out = run.said();
    assert!(
        out.contains("tEnd = 20 s, from the default experiment of 'Prey', 'Predator'"),
        "{out}"
    );
    assert!(
        out.contains("hStart = 0.01 s, from the default experiment"),
        "{out}"
    );
    assert!(!out.contains("Warning"), "{out}");
    assert_eq!(summary(&run).counters.steps, 2000);

    let mixed = write(
        "mixed.msim",
        "simulator 0 0 Prey #ff0000 \"PACKED/Prey.fmu\"\n\
         simulator 1 0 Osc #00ff00 \"PACKED/Oscillator.fmu\"\n",
    );
    let run = run_mastersim(&mixed, &tmp.path().join("mixed"), &["--test-init"]);
    run.assert_success();
    let out = run.said();
    assert!(
        out.contains(
            "tEnd is not set and the FMUs' default experiments disagree (Prey: 20 s, Osc: 10 s): \
             using MasterSim's default tEnd = 1 a"
        ),
        "{out}"
    );
    assert!(
        out.contains("hStart = 0.01 s, from the default experiment of 'Prey'"),
        "{out}"
    );
    assert!(
        !out.contains("hOutputMin"),
        "one year holds 10-minute rows: {out}"
    );

    let too_long = write(
        "too_long.msim",
        "tEnd 20 s\nhStart 30 s\nsimulator 0 0 Prey #ff0000 \"PACKED/Prey.fmu\"\n",
    );
    let run = run_mastersim(&too_long, &tmp.path().join("too_long"), &[]);
    run.assert_success();
    let out = run.said();
    assert!(
        out.contains(&format!(
            "{}:2: hStart = 30 s is larger than tEnd - tStart = 20 s",
            too_long.display()
        )),
        "{out}"
    );
    assert!(
        out.contains("hOutputMin = 10 min is larger than tEnd - tStart = 20 s"),
        "{out}"
    );
}

/// summary.json marks sampled timers, and no timer exceeds the wall clock (summary.txt
/// neither); the console says the times are sampled.
#[test]
fn timers_are_marked_and_within_the_wall_clock() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_mastersim(&packed("Prey"), &tmp.path().join("wd"), &[]);
    run.assert_success();
    let s = summary(&run);
    let wall = s.timers.wall_clock_seconds;
    assert!(s.timers.master_algorithm.sampled, "2000 steps are sampled");
    assert!(!s.timers.error_test.sampled);
    let timers = [
        s.timers.master_algorithm,
        s.timers.output,
        s.timers.error_test,
    ]
    .into_iter()
    .chain(
        s.slaves
            .iter()
            .flat_map(|s| [s.do_step, s.get_state, s.set_state]),
    );
    for timer in timers {
        assert!(timer.seconds <= wall, "{timer:?} > wall clock {wall}");
    }
    let text = mastersim_tests::read_summary(&run.path("log/summary.txt"));
    let wall_txt: f64 = text["WallClockTime"].parse().unwrap();
    for key in [
        "MasterAlgorithmTime",
        "FrameworkTimeWriteOutputs",
        "Slave[1]Time",
    ] {
        assert!(text[key].parse::<f64>().unwrap() <= wall_txt, "{key}");
    }
    assert!(run.said().contains("are sampled"), "{}", run.said());
}

/// A second run with fewer formats leaves no result file of the first.
#[test]
fn earlier_result_files_are_removed() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let wd = tmp.path().join("wd");
    let project = example_workspace().join("projects/four_vars.msim");
    run_mastersim(&project, &wd, &["--result-format", "csv,mat,json"]).assert_success();
    let list = || {
        let mut names: Vec<String> = std::fs::read_dir(wd.join("results"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    assert_eq!(
        list(),
        [
            "four_vars.json",
            "four_vars.mat",
            "strings.csv",
            "values.csv"
        ]
    );
    std::fs::write(wd.join("results/notes.txt"), "mine").unwrap();
    let run = run_mastersim(&project, &wd, &["--result-format", "mat"]);
    run.assert_success();
    assert_eq!(list(), ["four_vars.mat", "notes.txt"]);
    assert_eq!(
        summary(&run).result_files,
        [
            Path::new("results/four_vars.mat"),
            Path::new("results/notes.txt")
        ]
    );
}

/// Completions and the man page come from the command-line definition.
#[test]
fn completions_and_man_page() {
    let output = |args: &[&str]| {
        let out = Command::new(mastersim_bin()).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let bash = output(&["completions", "bash"]);
    assert!(bash.contains("complete -F _mastersim"), "{bash}");
    for word in [
        "--set",
        "--stop-time",
        "--write-msim",
        "info",
        "plot",
        "view",
    ] {
        assert!(
            bash.contains(word),
            "{word} missing from the bash completions"
        );
    }
    assert!(output(&["completions", "zsh"]).contains("#compdef mastersim"));
    let man = output(&["man"]);
    assert!(man.contains(".TH mastersim 1"), "{man}");
    assert!(man.contains("\\-\\-set"), "{man}");
}

/// The documented schema names every member summary.json has, and requires each of them
/// (the corpus suite validates files against it with a JSON Schema validator).
#[test]
fn the_schema_documents_every_member() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_mastersim(
        &packed("Prey"),
        &tmp.path().join("wd"),
        &["--stop-time", "1"],
    );
    run.assert_success();
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.path("log/summary.json")).unwrap())
            .unwrap();
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            mastersim_tests::workspace_root().join("docs/summary.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let resolve = |s: &serde_json::Value| -> serde_json::Value {
        match s.get("$ref").and_then(|r| r.as_str()) {
            Some(r) => schema["$defs"][r.trim_start_matches("#/$defs/")].clone(),
            None => s.clone(),
        }
    };
    // Every object member of the file is a property of its schema and required there.
    fn check(
        value: &serde_json::Value,
        schema: &serde_json::Value,
        at: &str,
        resolve: &dyn Fn(&serde_json::Value) -> serde_json::Value,
    ) {
        let schema = resolve(schema);
        match value {
            serde_json::Value::Object(members) => {
                let required: Vec<&str> = schema["required"]
                    .as_array()
                    .unwrap_or_else(|| panic!("{at}: no 'required' in the schema"))
                    .iter()
                    .map(|r| r.as_str().unwrap())
                    .collect();
                let mut names: Vec<&str> = members.keys().map(String::as_str).collect();
                let mut sorted = required.clone();
                names.sort_unstable();
                sorted.sort_unstable();
                assert_eq!(names, sorted, "{at}: members and required members differ");
                for (name, member) in members {
                    check(
                        member,
                        &schema["properties"][name],
                        &format!("{at}.{name}"),
                        resolve,
                    );
                }
            }
            serde_json::Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    check(item, &schema["items"], &format!("{at}[{i}]"), resolve);
                }
            }
            _ => assert!(schema.is_object(), "{at}: not in the schema"),
        }
    }
    check(&file, &schema, "summary", &resolve);
}

/// The README tour's FMU commands work as written (with the bundled input table).
#[test]
fn the_readme_tour_runs() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let table = mastersim_tests::workspace_root().join("projects/prey_predators.csv");
    let run = run_mastersim(
        &packed("Prey"),
        &tmp.path().join("wd"),
        &["--input", table.to_str().unwrap()],
    );
    run.assert_success();
    let result = ResultTable::read(&run.path("results/values.csv"));
    let (t, x) = (result.numbers("Time [s]"), result.numbers("Prey.x [-]"));
    // y = 4: x shrinks at 1.1 − 1.6 = −0.5 per s; from 5 s (y = 1) it grows at 0.7 per s.
    let at = |time: f64| x[t.iter().position(|&s| (s - time).abs() < 1e-9).unwrap()];
    assert!((at(4.0) - 6.0 * (-0.5f64 * 4.0).exp()).abs() < 1e-4);
    assert!(at(20.0) > at(5.0) * (0.7f64 * 14.9).exp() * 0.99);
    let info = Command::new(mastersim_bin())
        .args(["info", "--causality", "parameter", "--json"])
        .arg(packed("Prey"))
        .output()
        .unwrap();
    assert!(info.status.success());
    let json: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    assert_eq!(json["variables"].as_array().unwrap().len(), 3);
}
