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
