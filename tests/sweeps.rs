//! Parameter sweeps and batches (crate `sweep`, `docs/sweeps.md`) with the local and print
//! executors on the bundled projects: the grid of `projects/sweeps/`, Monte Carlo determinism,
//! a failing case among good ones (with its JUnit report), interrupted cases continued on a
//! rerun with results byte-identical to an unbroken run, collected outputs against the result
//! files, batches of projects, sweep files with errors, and cases that another process runs (a
//! second `sweep run` of a running sweep stops at once; a case held by another process is not
//! started). The Slurm executor runs on a real one-node cluster in the `slurm` target.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mastersim_tests::{
    ResultTable, Run, case_values_csv as values_csv, csv_column as column, csv_rows,
    example_workspace, failing_sweep, long_sweep, mastersim_bin, run_args as mastersim,
    run_mastersim,
};

/// `projects/sweeps/<name>` of the test workspace (next to freshly packed FMUs).
fn bundled(name: &str) -> PathBuf {
    let path = example_workspace().join("projects/sweeps").join(name);
    assert!(path.is_file(), "missing bundled sweep '{}'", path.display());
    path
}

/// `mastersim sweep run <sweep> --sweep-dir <dir> <args>`.
fn sweep_run(sweep: &Path, dir: &Path, args: &[&str]) -> Run {
    let mut all = vec![
        "sweep",
        "run",
        sweep.to_str().expect("UTF-8 path"),
        "--sweep-dir",
        dir.to_str().expect("UTF-8 path"),
    ];
    all.extend_from_slice(args);
    mastersim(&all)
}

/// The 12-case grid of `projects/sweeps/lotka_volterra_grid.toml` under the local executor:
/// `cases.csv` in row-major order, every case completed with the values of a plain run with
/// the same `--set` options, the collected outputs equal to the result files', and a rerun
/// that skips every case.
#[test]
fn sweep_grid_runs_every_case_like_a_plain_run() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("grid");
    let sweep = bundled("lotka_volterra_grid.toml");
    let run = sweep_run(&sweep, &dir, &["--jobs", "2"]);
    run.assert_success();
    run.assert_stdout_has("12 cases: 12 completed");
    let cases = csv_rows(&dir.join("cases.csv"));
    assert_eq!(cases[0], ["case", "Prey.alpha", "Predator.gamma", "tEnd"]);
    assert_eq!(cases[1], ["0", "1.0", "0.9", "10 s"]);
    assert_eq!(cases[2], ["1", "1.0", "0.9", "20 s"]);
    assert_eq!(cases[12], ["11", "1.2", "1.0", "20 s"]);
    let results = csv_rows(&dir.join("sweep.csv"));
    assert_eq!(results.len(), 13);
    assert!(column(&results, "outcome").iter().all(|o| o == "completed"));
    // Case 7 (alpha 1.1, gamma 1.0, 20 s) equals the plain run with the same overrides.
    let plain = mastersim_tests::run_mastersim(
        &example_workspace().join("projects/lotka_volterra.msim"),
        &tmp.path().join("plain"),
        &[
            "--set",
            "Prey.alpha=1.1",
            "--set",
            "Predator.gamma=1.0",
            "--set",
            "tEnd=20 s",
        ],
    );
    plain.assert_success();
    let plain_values =
        std::fs::read(plain.path("results/values.csv")).expect("values.csv of the plain run");
    assert!(
        values_csv(&dir, 7) == plain_values,
        "case 7 differs from the plain run"
    );
    // The outputs collected for case 7 are those of its values.csv.
    let table = ResultTable::read(&dir.join("cases/7/results/values.csv"));
    let x = table.numbers("Prey.x");
    let time = table.numbers("Time [s]");
    let cell = |name: &str| -> f64 {
        column(&results, name)[7]
            .parse()
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    assert_eq!(cell("Prey.x.final"), *x.last().expect("rows"));
    assert_eq!(
        cell("Prey.x.min"),
        x.iter().copied().fold(f64::INFINITY, f64::min)
    );
    assert_eq!(
        cell("Prey.x.max"),
        x.iter().copied().fold(f64::NEG_INFINITY, f64::max)
    );
    let area: f64 = time
        .windows(2)
        .zip(x.windows(2))
        .map(|(t, v)| 0.5 * (t[1] - t[0]) * (v[0] + v[1]))
        .sum();
    assert!((cell("Prey.x.mean") - area / 20.0).abs() < 1e-12);
    assert_eq!(column(&results, "steps")[7], "2000");
    // A rerun runs nothing and leaves every result as it was.
    let before = values_csv(&dir, 3);
    let again = sweep_run(&sweep, &dir, &[]);
    again.assert_success();
    again.assert_stdout_has("12 completed before, 0 to run");
    assert!(values_csv(&dir, 3) == before);
    // sweep.json holds the same.
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("sweep.json")).expect("sweep.json"))
            .expect("JSON");
    assert_eq!(json["schema"], "mastersim-sweep");
    assert_eq!(json["cases"].as_array().map(Vec::len), Some(12));
    assert_eq!(
        json["cases"][7]["outputs"]["Prey.x"]["final"],
        cell("Prey.x.final")
    );
}

/// Monte Carlo: the bundled 20-case sweep gives the same `cases.csv` and results on two
/// runs; another seed gives other cases; case k does not depend on the number of cases.
#[test]
fn sweep_monte_carlo_is_deterministic() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let sweep = bundled("lotka_volterra_monte_carlo.toml");
    let first = tmp.path().join("first");
    let second = tmp.path().join("second");
    sweep_run(&sweep, &first, &["--jobs", "2"]).assert_success();
    sweep_run(&sweep, &second, &["--jobs", "1"]).assert_success();
    let cases = std::fs::read(first.join("cases.csv")).expect("cases.csv");
    assert!(cases == std::fs::read(second.join("cases.csv")).expect("cases.csv"));
    assert_eq!(csv_rows(&first.join("cases.csv")).len(), 21);
    for k in 0..20 {
        assert!(
            values_csv(&first, k) == values_csv(&second, k),
            "case {k} differs"
        );
    }
    let alphas: Vec<f64> = column(&csv_rows(&first.join("cases.csv")), "Prey.alpha")
        .iter()
        .map(|a| a.parse().expect("a number"))
        .collect();
    assert!(alphas.iter().all(|a| (0.9..1.1).contains(a)), "{alphas:?}");
    // Another seed, and fewer cases: other values, but case k of the same seed is the same.
    let text = std::fs::read_to_string(&sweep).expect("sweep file");
    let other = tmp.path().join("other_seed.toml");
    let base = example_workspace().join("projects/lotka_volterra.msim");
    let rebased = text.replace("\"../lotka_volterra.msim\"", &format!("{:?}", base));
    std::fs::write(&other, rebased.replace("seed = 1", "seed = 2")).expect("write");
    let fewer = tmp.path().join("fewer.toml");
    std::fs::write(&fewer, rebased.replace("cases = 20", "cases = 5")).expect("write");
    for (file, dir) in [(&other, "other"), (&fewer, "fewer")] {
        let run = mastersim(&[
            "sweep",
            "run",
            file.to_str().expect("UTF-8"),
            "--sweep-dir",
            tmp.path().join(dir).to_str().expect("UTF-8"),
            "--executor",
            "print",
        ]);
        run.assert_success();
    }
    let other_cases = csv_rows(&tmp.path().join("other/cases.csv"));
    let first_cases = csv_rows(&first.join("cases.csv"));
    for k in 1..=20 {
        assert_ne!(
            other_cases[k][1..],
            first_cases[k][1..],
            "seed 2 repeats case {k}"
        );
    }
    assert_eq!(
        csv_rows(&tmp.path().join("fewer/cases.csv"))[..],
        first_cases[..6]
    );
}

/// One case with an invalid parameter value among good ones: the others complete, the
/// failing case is in `sweep.csv` and is a `failure` in the JUnit report, and `sweep run`
/// exits with 1 naming it. (The corpus suite validates the report against the JUnit schema.)
#[test]
fn sweep_with_a_failing_case_completes_the_others() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let sweep = failing_sweep(tmp.path());
    let dir = tmp.path().join("failing");
    let junit = tmp.path().join("report.xml");
    let run = sweep_run(&sweep, &dir, &["--junit", junit.to_str().expect("UTF-8")]);
    assert_eq!(run.code(), 1, "{}", run.said());
    assert!(
        run.stderr()
            .contains("case 2: Prey.alpha=fast failed: --set Prey.alpha=fast"),
        "{}",
        run.said()
    );
    let results = csv_rows(&dir.join("sweep.csv"));
    assert_eq!(
        column(&results, "outcome"),
        ["completed", "completed", "failed", "completed"]
    );
    assert_eq!(column(&results, "exit_code")[2], "2");
    assert!(column(&results, "message")[2].contains("cannot read 'fast' as a finite Real number"));
    let report = std::fs::read_to_string(&junit).expect("report");
    assert!(report.contains(r#"<testsuite name="failing" tests="4" failures="1" errors="0""#));
    assert!(report.contains(r#"<testcase name="case 2: Prey.alpha=fast" classname="failing""#));
    assert_eq!(report.matches("<failure ").count(), 1);
    // collect gives the same verdict.
    let collect = mastersim(&["sweep", "collect", dir.to_str().expect("UTF-8")]);
    assert_eq!(collect.code(), 1);
    assert!(collect.stdout().contains("4 cases: 3 completed, 1 failed"));
}

/// The process ids whose command line holds every one of `words`.
fn pids_with(words: &[&str]) -> Vec<i32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let args: Vec<String> = cmdline
            .split(|b| *b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        if words.iter().all(|w| args.iter().any(|a| a == w)) {
            pids.push(pid);
        }
    }
    pids
}

/// Waits until `path` exists (a checkpoint), failing after 60 s or when `child` ended.
fn wait_for(path: &Path, child: &mut Child) {
    let started = Instant::now();
    while !path.is_file() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no '{}'",
            path.display()
        );
        assert!(
            child.try_wait().expect("status").is_none(),
            "the sweep ended before '{}' existed",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `sweep run` of `sweep` into `dir` as a child process.
fn start_sweep(sweep: &Path, dir: &Path, args: &[&str]) -> Child {
    Command::new(mastersim_bin())
        .args(["sweep", "run"])
        .arg(sweep)
        .arg("--sweep-dir")
        .arg(dir)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("mastersim starts")
}

/// A case killed with SIGKILL (after its first periodic checkpoint) is recorded as
/// interrupted while the other case completes; the rerun continues it from its checkpoint.
/// A sweep stopped with SIGTERM stops every running case with a checkpoint and exits with
/// 143; its rerun completes them. Every case's `values.csv` is byte-identical to an unbroken
/// run's.
#[test]
fn sweep_interrupted_cases_continue_on_a_rerun() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let sweep = long_sweep(tmp.path(), 2);
    let unbroken = tmp.path().join("unbroken");
    sweep_run(&sweep, &unbroken, &["--jobs", "2"]).assert_success();

    // SIGKILL of one case process.
    let killed = tmp.path().join("killed");
    let mut child = start_sweep(
        &sweep,
        &killed,
        &["--jobs", "2", "--checkpoint-interval", "0.2"],
    );
    wait_for(&killed.join("cases/1/checkpoint/state.bin"), &mut child);
    let dir = killed.to_str().expect("UTF-8");
    let pids = pids_with(&["case", dir, "1"]);
    assert_eq!(pids.len(), 1, "one process runs case 1: {pids:?}");
    Command::new("kill")
        .args(["-KILL", &pids[0].to_string()])
        .status()
        .expect("kill");
    let status = child.wait().expect("sweep ends");
    assert_eq!(
        status.code(),
        Some(1),
        "an interrupted case is not a success"
    );
    let results = csv_rows(&killed.join("sweep.csv"));
    assert_eq!(column(&results, "outcome"), ["completed", "interrupted"]);
    assert!(column(&results, "message")[1].contains("SIGKILL"));
    let rerun = sweep_run(&sweep, &killed, &["--checkpoint-interval", "0.2"]);
    rerun.assert_success();
    rerun.assert_stdout_has("1 completed before, 1 to run");
    let results = csv_rows(&killed.join("sweep.csv"));
    assert_eq!(column(&results, "attempts"), ["1", "2"]);
    for k in 0..2 {
        assert!(
            values_csv(&killed, k) == values_csv(&unbroken, k),
            "case {k} differs"
        );
    }

    // SIGTERM to the sweep: both running cases stop with a checkpoint.
    let stopped = tmp.path().join("stopped");
    let mut child = start_sweep(&sweep, &stopped, &["--jobs", "2"]);
    for k in 0..2 {
        wait_for(
            &stopped.join(format!("cases/{k}/results/values.csv")),
            &mut child,
        );
    }
    std::thread::sleep(Duration::from_millis(200));
    mastersim_tests::stop_with_sigterm(&mut child);
    for k in 0..2 {
        let record = std::fs::read_to_string(stopped.join(format!("cases/{k}/case.json")))
            .expect("case.json");
        assert!(record.contains("\"outcome\": \"interrupted\""), "{record}");
        assert!(record.contains("SIGTERM received"), "{record}");
        assert!(
            stopped
                .join(format!("cases/{k}/checkpoint/state.bin"))
                .is_file()
        );
    }
    sweep_run(&sweep, &stopped, &[]).assert_success();
    for k in 0..2 {
        assert!(
            values_csv(&stopped, k) == values_csv(&unbroken, k),
            "case {k} differs"
        );
    }
}

/// Issue 28: a sweep stopped with Ctrl-C (SIGINT) stops its running case with SIGINT too:
/// the case reports that SIGINT interrupted it, not SIGTERM, and the sweep exits with 130.
#[test]
fn sweep_stopped_with_ctrl_c_reports_sigint() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let sweep = long_sweep(tmp.path(), 1);
    let dir = tmp.path().join("ctrl-c");
    let mut child = start_sweep(&sweep, &dir, &[]);
    wait_for(&dir.join("cases/0/results/values.csv"), &mut child);
    std::thread::sleep(Duration::from_millis(200));
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    let status = child.wait().expect("sweep ends");
    assert_eq!(status.code(), Some(130));
    let record = std::fs::read_to_string(dir.join("cases/0/case.json")).expect("case.json");
    assert!(record.contains("\"outcome\": \"interrupted\""), "{record}");
    assert!(record.contains("SIGINT received"), "{record}");
    assert!(!record.contains("SIGTERM"), "{record}");
}

/// A per-case wall-time limit stops a case at its next communication point: `timed_out`,
/// exit code 124, results up to there; a rerun starts it again from the beginning.
#[test]
fn sweep_wall_time_limit_stops_a_case() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let sweep = long_sweep(tmp.path(), 1);
    let text = std::fs::read_to_string(&sweep).expect("read");
    std::fs::write(&sweep, format!("wall_time_limit = 0.3\n{text}")).expect("write");
    let dir = tmp.path().join("limited");
    let run = sweep_run(&sweep, &dir, &["--checkpoint-interval", "0.1"]);
    assert_eq!(run.code(), 1, "{}", run.said());
    assert!(
        run.stderr()
            .contains("timed out: wall-time limit of 0.3 s reached"),
        "{}",
        run.said()
    );
    let results = csv_rows(&dir.join("sweep.csv"));
    assert_eq!(column(&results, "outcome"), ["timed_out"]);
    assert_eq!(column(&results, "exit_code"), ["124"]);
    let reached: f64 = column(&results, "t_reached")[0].parse().expect("t_reached");
    assert!(reached > 0.0 && reached < 1000.0, "t_reached = {reached}");
    assert!(
        !dir.join("cases/0/checkpoint").exists(),
        "no checkpoint to resume"
    );
}

/// A batch of the bundled projects (a list file) with the print and local executors, and a
/// directory as input.
#[test]
fn batch_runs_projects_as_cases() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let list = bundled("examples.txt");
    let dir = tmp.path().join("batch");
    let printed = mastersim(&[
        "batch",
        list.to_str().expect("UTF-8"),
        "--sweep-dir",
        dir.to_str().expect("UTF-8"),
        "--executor",
        "print",
    ]);
    printed.assert_success();
    let stdout = printed.stdout();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 6, "{}", printed.said());
    assert!(lines[0].ends_with(&format!("sweep case {} 0", dir.display())));
    let junit = tmp.path().join("batch.xml");
    let run = mastersim(&[
        "batch",
        list.to_str().expect("UTF-8"),
        "--sweep-dir",
        dir.to_str().expect("UTF-8"),
        "--junit",
        junit.to_str().expect("UTF-8"),
        "--",
        "--result-format",
        "csv,mat",
    ]);
    run.assert_success();
    run.assert_stdout_has("6 cases: 6 completed");
    let report = std::fs::read_to_string(&junit).expect("report");
    assert!(
        report.contains(r#"name="case 0: ../lotka_volterra.msim""#),
        "{report}"
    );
    assert!(
        report.contains(r#"name="case 5: ../ssp/units.ssd""#),
        "{report}"
    );
    assert!(dir.join("cases/0/results/lotka_volterra.mat").is_file());
    // A directory: its projects, sorted.
    let projects = tmp.path().join("projects");
    std::fs::create_dir(&projects).expect("mkdir");
    for name in ["oscillator_fmi1.msim", "four_vars.msim"] {
        let text = std::fs::read_to_string(example_workspace().join("projects").join(name))
            .expect("bundled project");
        let fmus = example_workspace().join("fmus/packed");
        let text = text.replace("../fmus/packed", fmus.to_str().expect("UTF-8"));
        std::fs::write(projects.join(name), text).expect("write");
    }
    std::fs::write(projects.join("notes.txt"), "not a project").expect("write");
    let run = mastersim(&["batch", projects.to_str().expect("UTF-8")]);
    run.assert_success();
    let cases = csv_rows(&projects.join("batch/cases.csv"));
    assert_eq!(cases.len(), 3);
    assert!(
        cases[1][1].ends_with("four_vars.msim") && cases[2][1].ends_with("oscillator_fmi1.msim")
    );
}

/// Sweep files with errors: exit code 2 and one line naming the file, the line and what was
/// expected; nothing is laid out.
#[test]
fn sweep_file_errors_name_the_file_and_line() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let base = example_workspace().join("projects/lotka_volterra.msim");
    let base = format!("base = {base:?}\n");
    let cases: [(&str, String, &str); 11] = [
        (
            "no_cases",
            base.clone(),
            "bad.toml: expected exactly one of [grid], [table] and [monte_carlo]",
        ),
        (
            "two_kinds",
            format!(
                "{base}[grid]\n\"tEnd\" = [\"1 s\"]\n[monte_carlo]\nseed = 1\ncases = 2\nparameters = {{ \"Prey.alpha\" = {{ uniform = [1, 2] }} }}\n"
            ),
            "expected exactly one of",
        ),
        (
            "unknown_key",
            format!("{base}jobs = 4\n[grid]\n\"tEnd\" = [\"1 s\"]\n"),
            "bad.toml:2: unknown field `jobs`",
        ),
        (
            "missing_base",
            "base = \"nowhere.msim\"\n[grid]\n\"tEnd\" = [\"1 s\"]\n".to_owned(),
            "bad.toml:1: base = \"nowhere.msim\"",
        ),
        (
            "empty_list",
            format!("{base}[grid]\n\"Prey.alpha\" = []\n"),
            "bad.toml:3: [grid] \"Prey.alpha\": the list of values is empty",
        ),
        (
            "bad_distribution",
            format!(
                "{base}[monte_carlo]\nseed = 1\ncases = 3\nparameters = {{ \"Prey.alpha\" = {{ uniform = [2, 1] }} }}\n"
            ),
            "bad.toml:5: [monte_carlo] \"Prey.alpha\": uniform = [2, 1]: expected low < high",
        ),
        (
            "missing_table",
            format!("{base}[table]\nfile = \"cases.csv\"\n"),
            "bad.toml:3: [table] file = \"cases.csv\"",
        ),
        (
            "bad_option",
            format!("{base}options = [\"--no-such-option\"]\n[grid]\n\"tEnd\" = [\"1 s\"]\n"),
            "the options of the cases are not valid: unexpected argument '--no-such-option'",
        ),
        // Issue 28: every override is checked against the base before any case starts.
        (
            "misspelt_override",
            format!("{base}[grid]\n\"tEnd\" = [\"1 s\", \"2 s\"]\n\"Prey.alpah\" = [1.0, 1.1]\n"),
            "bad.toml:4: override 'Prey.alpah' (Prey.alpah=1.0) cannot be applied to the base, \
             so every case would fail: --set Prey.alpah=1.0: slave 'Prey' has no variable 'alpah'",
        ),
        (
            "misspelt_slave",
            format!(
                "{base}[monte_carlo]\nseed = 1\ncases = 2\nparameters = {{ \"Pray.alpha\" = {{ uniform = [1, 2] }} }}\n"
            ),
            "bad.toml:5: override 'Pray.alpha'",
        ),
        (
            "base_cannot_run",
            format!("{base}options = [\"--set\", \"tEnd=-1 s\"]\n[grid]\n\"Prey.alpha\" = [1.0]\n"),
            "bad.toml: the base",
        ),
    ];
    for (name, text, expected) in cases {
        let folder = tmp.path().join(name);
        std::fs::create_dir(&folder).expect("mkdir");
        let file = folder.join("bad.toml");
        std::fs::write(&file, text).expect("write");
        let run = mastersim(&["sweep", "run", file.to_str().expect("UTF-8")]);
        assert_eq!(run.code(), 2, "{name}: {}", run.said());
        let stderr = run.stderr();
        assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
        assert!(
            stderr.contains(expected),
            "{name}: expected '{expected}' in: {stderr}"
        );
        assert!(
            !folder.join("bad").exists(),
            "{name}: the sweep was laid out"
        );
    }
    // A table row with a cell too many names the table and its line.
    let folder = tmp.path().join("table_row");
    std::fs::create_dir(&folder).expect("mkdir");
    std::fs::write(
        folder.join("cases.csv"),
        "Prey.alpha,tEnd\n1.0,2 s\n1.1,2 s,extra\n",
    )
    .expect("write");
    let file = folder.join("bad.toml");
    std::fs::write(&file, format!("{base}[table]\nfile = \"cases.csv\"\n")).expect("write");
    let run = mastersim(&["sweep", "run", file.to_str().expect("UTF-8")]);
    assert_eq!(run.code(), 2, "{}", run.said());
    assert!(
        run.stderr()
            .contains("cases.csv:3: 3 fields, but the header has 2; expected one field per column"),
        "{}",
        run.said()
    );
    // A misspelt column of a case table names the table's header line and the closest name.
    std::fs::write(folder.join("cases.csv"), "Prey.alhpa,tEnd\n1.0,2 s\n").expect("write");
    let run = mastersim(&["sweep", "run", file.to_str().expect("UTF-8")]);
    assert_eq!(run.code(), 2, "{}", run.said());
    assert!(
        run.stderr().contains("cases.csv:1: override 'Prey.alhpa'")
            && run.stderr().contains("(did you mean 'alpha'?)"),
        "{}",
        run.said()
    );
    assert!(!folder.join("bad").exists(), "no case was laid out");
}

/// Writes `dir/<name>.toml`: a grid over the stop time (`stop_times`, each `<n> s`) of the
/// bundled Lotka-Volterra project with steps of 0.1 ms (some seconds of wall time per 1000 s
/// simulated); returns its path.
fn stop_time_sweep(dir: &Path, name: &str, stop_times: &[&str]) -> PathBuf {
    let path = dir.join(format!("{name}.toml"));
    let base = example_workspace().join("projects/lotka_volterra.msim");
    let times: Vec<String> = stop_times.iter().map(|t| format!("\"{t}\"")).collect();
    std::fs::write(
        &path,
        format!(
            "base = {base:?}\n\
             options = [\"--set\", \"hStart=0.0001 s\", \"--set\", \"hOutputMin=1 s\"]\n\
             [grid]\n\"tEnd\" = [{}]\n",
            times.join(", ")
        ),
    )
    .expect("write sweep file");
    path
}

/// Waits until a process whose holder line starts with `pid <pid> ` (any process for 0)
/// holds the working directory `dir`; fails after 60 s or when `child` ended.
fn wait_until_held_by(dir: &Path, pid: u32, child: &mut Child) {
    let started = Instant::now();
    let prefix = format!("pid {pid} ");
    loop {
        let holder = mastersim::WorkingDirLock::holder_of(dir).expect("lock file readable");
        if holder.is_some_and(|h| pid == 0 || h.starts_with(&prefix)) {
            return;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "'{}' is not held by pid {pid} after 60 s",
            dir.display()
        );
        assert!(
            child.try_wait().expect("status").is_none(),
            "the process ended before '{}' was held by pid {pid}",
            dir.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The process id of the one process that runs case `k` of the sweep in `dir`.
fn case_pid(dir: &Path, k: usize) -> u32 {
    let pids = pids_with(&["case", dir.to_str().expect("UTF-8"), &k.to_string()]);
    assert_eq!(pids.len(), 1, "one process runs case {k}: {pids:?}");
    u32::try_from(pids[0]).expect("a pid")
}

/// Sends SIGTERM to `child` and returns its exit code.
fn terminate(child: &mut Child) -> Option<i32> {
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    child.wait().expect("ends").code()
}

/// A `sweep run` holds its sweep directory: a second `sweep run` of the same sweep while the
/// first runs its cases stops at once (exit code 2, naming the first), and starts no case
/// again (one process per case). Each case's directory is locked by its process: a plain run
/// there and the same case started by hand stop at once, writing nothing; `collect` reports
/// both cases `running`. SIGTERM then stops the first `sweep run` as always.
#[test]
fn a_second_sweep_run_of_a_running_sweep_stops_at_once() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let sweep = stop_time_sweep(tmp.path(), "busy", &["20000 s", "20001 s"]);
    let dir = tmp.path().join("busy");
    let mut first = start_sweep(&sweep, &dir, &["--jobs", "2"]);
    for k in 0..2 {
        let case_dir = dir.join(format!("cases/{k}"));
        wait_for(&case_dir.join("results/values.csv"), &mut first);
        wait_until_held_by(&case_dir, case_pid(&dir, k), &mut first);
    }
    let started = Instant::now();
    let second = sweep_run(&sweep, &dir, &["--jobs", "2"]);
    let took = started.elapsed();
    assert_eq!(second.code(), 2, "{}", second.said());
    assert!(took < Duration::from_secs(5), "refused after {took:?}");
    let expected = format!(
        "Error: the sweep directory '{}' is in use (pid {} on host ",
        dir.display(),
        first.id()
    );
    assert!(second.stderr().contains(&expected), "{}", second.said());
    for k in 0..2 {
        case_pid(&dir, k);
    }
    let case_dir = dir.join("cases/0");
    let plain = run_mastersim(
        &example_workspace().join("projects/lotka_volterra.msim"),
        &case_dir,
        &["--set", "tEnd=1 s"],
    );
    let by_hand = mastersim(&["sweep", "case", dir.to_str().expect("UTF-8"), "0"]);
    for refused in [&plain, &by_hand] {
        assert_eq!(refused.code(), 2, "{}", refused.said());
        let holder = format!(
            "in use by another run of mastersim (pid {} ",
            case_pid(&dir, 0)
        );
        assert!(refused.stderr().contains(&holder), "{}", refused.said());
        assert!(
            refused.stderr().contains(" sweep case "),
            "{}",
            refused.said()
        );
    }
    assert!(
        !case_dir.join("case.json").exists(),
        "a refused run wrote a record"
    );
    let collect = mastersim(&["sweep", "collect", dir.to_str().expect("UTF-8")]);
    assert_eq!(collect.code(), 1, "{}", collect.said());
    collect.assert_stdout_has("2 cases: 2 running");
    assert_eq!(
        column(&csv_rows(&dir.join("sweep.csv")), "outcome"),
        ["running", "running"]
    );
    assert_eq!(terminate(&mut first), Some(143));
    let results = csv_rows(&dir.join("sweep.csv"));
    assert_eq!(column(&results, "outcome"), ["interrupted", "interrupted"]);
    assert_eq!(column(&results, "exit_code"), ["143", "143"]);
}

/// A case that another process runs (here `sweep case` started by hand) is not started by
/// `sweep run`, nor recorded as failed: left out before the run when it is held already (the
/// print executor prints no command for it), and not started when it becomes held while the
/// local executor runs another case (`--jobs 1`). Each time a line names the case and its
/// holder; the collection says `running`, and the processes by hand end their cases as they
/// would anyway.
#[test]
fn sweep_run_does_not_start_a_case_another_process_runs() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let sweep = stop_time_sweep(tmp.path(), "shared", &["20000 s", "1500 s", "3000 s"]);
    let dir = tmp.path().join("shared");
    let dir_text = dir.to_str().expect("UTF-8");
    let sweep_text = sweep.to_str().expect("UTF-8");
    let by_hand = |k: &str| {
        Command::new(mastersim_bin())
            .args(["sweep", "case", dir_text, k])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("mastersim starts")
    };
    let run_args = ["sweep", "run", sweep_text, "--sweep-dir", dir_text];
    mastersim(&[&run_args[..], &["--executor", "print"]].concat()).assert_success();

    // Held before the run: left out.
    let mut case0 = by_hand("0");
    wait_until_held_by(&dir.join("cases/0"), case0.id(), &mut case0);
    let print = mastersim(&[&run_args[..], &["--executor", "print"]].concat());
    print.assert_success();
    let commands: Vec<String> = print.stdout().lines().map(str::to_owned).collect();
    assert_eq!(commands.len(), 2, "{}", print.said());
    assert!(
        commands[0].ends_with(" 1") && commands[1].ends_with(" 2"),
        "{commands:?}"
    );
    let left_out = format!(
        "case 0: tEnd=20000 s: running in another process (pid {} on host ",
        case0.id()
    );
    assert!(print.stderr().contains(&left_out), "{}", print.said());

    // Held while the executor runs another case: not started.
    let output = tmp.path().join("run.out");
    let mut run = Command::new(mastersim_bin())
        .args(run_args)
        .args(["--jobs", "1"])
        .stdout(std::fs::File::create(&output).expect("output file"))
        .stderr(Stdio::null())
        .spawn()
        .expect("mastersim starts");
    wait_until_held_by(&dir.join("cases/1"), 0, &mut run);
    let mut case2 = by_hand("2");
    wait_until_held_by(&dir.join("cases/2"), case2.id(), &mut case2);
    assert_eq!(run.wait().expect("sweep ends").code(), Some(1));
    let said = std::fs::read_to_string(&output).expect("output");
    assert!(said.contains(&left_out), "{said}");
    let not_started = format!(
        "case 2: tEnd=3000 s: running in another process (pid {} on host ",
        case2.id()
    );
    assert!(
        said.contains(&not_started) && said.contains("; not started"),
        "{said}"
    );
    assert!(said.contains("3 cases: 1 completed, 2 running"), "{said}");
    assert_eq!(pids_with(&["case", dir_text, "2"]), [case2.id() as i32]);
    let results = csv_rows(&dir.join("sweep.csv"));
    assert_eq!(
        column(&results, "outcome"),
        ["running", "completed", "running"]
    );
    for child in [&mut case0, &mut case2] {
        assert_eq!(terminate(child), Some(143));
    }
    mastersim(&["sweep", "collect", dir_text]);
    let results = csv_rows(&dir.join("sweep.csv"));
    assert_eq!(
        column(&results, "outcome"),
        ["interrupted", "completed", "interrupted"]
    );
}
