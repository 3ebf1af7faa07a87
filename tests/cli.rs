//! Command-line options: both `--opt=value` and `--opt value`, `--test-init`, `--skip-unzip`,
//! `--version`, and the default working directory.

use std::process::Command;

use mastersim_tests::{ResultTable, example_workspace, mastersim_bin, run_mastersim};

fn project() -> std::path::PathBuf {
    example_workspace().join("projects/control_loop_seidel.msim")
}

#[test]
fn option_values_with_and_without_equals_sign() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let status = Command::new(mastersim_bin())
        .arg(format!("--working-dir={}", a.display()))
        .arg("--verbosity-level=0")
        .arg(project())
        .status()
        .expect("runs");
    assert!(status.success());
    let status = Command::new(mastersim_bin())
        .args(["--working-dir"])
        .arg(&b)
        .args(["--verbosity-level", "0"])
        .arg(project())
        .status()
        .expect("runs");
    assert!(status.success());
    assert_eq!(
        std::fs::read(a.join("results/values.csv")).expect("a"),
        std::fs::read(b.join("results/values.csv")).expect("b")
    );
}

#[test]
fn test_init_writes_the_first_row_only() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_mastersim(&project(), &tmp.path().join("wd"), &["-t"]);
    run.assert_success();
    let v = ResultTable::read(&run.path("results/values.csv"));
    assert_eq!(v.rows.len(), 1);
    assert_eq!(v.numbers("Time"), vec![0.0]);
    assert!(
        !run.path("log/summary.txt").exists(),
        "no summary after --test-init"
    );
}

#[test]
fn skip_unzip_reuses_extracted_fmus() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let wd = tmp.path().join("wd");
    run_mastersim(&project(), &wd, &[]).assert_success();
    let first = std::fs::read(wd.join("results/values.csv")).expect("results");
    std::fs::remove_dir_all(wd.join("results")).expect("remove results");
    run_mastersim(&project(), &wd, &["--skip-unzip"]).assert_success();
    assert_eq!(
        std::fs::read(wd.join("results/values.csv")).expect("results"),
        first
    );
    // Without the extracted FMUs, --skip-unzip is an FMU error naming the missing file.
    let other = tmp.path().join("other");
    let run = run_mastersim(&project(), &other, &["--skip-unzip"]);
    assert_eq!(run.code(), 2);
    assert!(
        run.stderr().contains("modelDescription.xml"),
        "{}",
        run.stderr()
    );
}

#[test]
fn version_and_default_working_directory() {
    let out = Command::new(mastersim_bin())
        .arg("-v")
        .output()
        .expect("runs");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains(env!("CARGO_PKG_VERSION")));
    let tmp = tempfile::tempdir().expect("temp dir");
    let copy = tmp.path().join("loop.msim");
    let text = std::fs::read_to_string(project()).expect("project");
    let fmus = example_workspace().join("fmus/packed");
    std::fs::write(
        &copy,
        text.replace("../fmus/packed", &fmus.display().to_string()),
    )
    .expect("write");
    let status = Command::new(mastersim_bin())
        .arg(&copy)
        .arg("--verbosity-level=0")
        .status()
        .expect("runs");
    assert!(status.success());
    assert!(
        tmp.path().join("loop/results/values.csv").is_file(),
        "working directory = project path without extension"
    );
}

#[test]
fn usage_errors_exit_with_two() {
    let out = Command::new(mastersim_bin())
        .arg("--no-such-option")
        .arg(project())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let out = Command::new(mastersim_bin()).output().expect("runs");
    assert_eq!(out.status.code(), Some(2), "a project file is required");
}

/// First-hour rough edges: a closed stdout, a directory or two projects on the command line,
/// a verbosity out of range. Each gets a clear answer and never a panic.
#[test]
fn rough_edges_of_the_command_line() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;

    let tmp = tempfile::tempdir().expect("temp dir");
    // `mastersim p.msim | head -1`: the reader goes away; the run completes without a panic.
    let mut child = Command::new(mastersim_bin())
        .arg("--working-dir")
        .arg(tmp.path().join("pipe"))
        .arg(project())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("waits");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(0) || out.status.signal() == Some(13),
        "{:?}: {stderr}",
        out.status
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(tmp.path().join("pipe/results/values.csv").is_file());

    let refused = |args: &[&std::ffi::OsStr], expected: &str| {
        let out = Command::new(mastersim_bin())
            .args(args)
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned()
            + &String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("subcommand") && !stderr.contains("panicked"),
            "{stderr}"
        );
    };
    let dir = tmp.path().join("a_folder");
    std::fs::create_dir(&dir).unwrap();
    refused(
        &[dir.as_os_str()],
        "is a directory without SystemStructure.ssd; expected a project file",
    );
    assert!(
        !dir.join("log").exists(),
        "nothing is created inside the directory"
    );
    let p = project();
    refused(&[p.as_os_str(), p.as_os_str()], "one project per run");
    refused(
        &["--verbosity-level".as_ref(), "9".as_ref(), p.as_os_str()],
        "9 is not in 0..=4",
    );
}

/// Messages say what happens: a second run reuses the extraction without talking of
/// overwriting it, and a run without result variables still writes its time column.
#[test]
fn messages_match_what_happens() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let wd = tmp.path().join("wd");
    let verbose = ["--verbosity-level", "3"];
    let first = run_mastersim(&project(), &wd, &verbose);
    first.assert_success();
    assert!(
        first.stdout().contains("extracting '"),
        "{}",
        first.stdout()
    );
    let second = run_mastersim(&project(), &wd, &verbose);
    second.assert_success();
    let out = second.stdout();
    assert!(out.contains("reusing the extraction"), "{out}");
    assert!(
        !out.contains("overwrite") && !out.contains("extracting '"),
        "{out}"
    );

    let run = mastersim_tests::run_example_with(
        "lotka_volterra",
        "outputOnly Nothing.*",
        &[],
        &tmp.path().join("none"),
    );
    run.assert_success();
    let out = run.stdout();
    assert!(!out.contains("will not generate any results"), "{out}");
    assert_eq!(
        out.matches("only the time column").count(),
        1,
        "one warning, naming both causes: {out}"
    );
    assert!(out.contains("no outputOnly pattern matches"), "{out}");
    let values = std::fs::read_to_string(run.path("results/values.csv")).expect("values.csv");
    assert!(values.starts_with("Time [s]\n0\n"), "{values}");
}
