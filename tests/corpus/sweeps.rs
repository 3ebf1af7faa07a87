//! JUnit reports of `mastersim sweep` and `mastersim batch` validated against the JUnit schema
//! that Jenkins reads (`junit-10.xsd`, taken from the pytest source distribution on PyPI, which
//! validates its own reports against it) with Python's xmlschema: a sweep with one failing
//! case, and a batch of the corpus's `DifferentVariableTypes` projects.

use std::path::Path;
use std::process::Command;

use mastersim_tests::{corpus_dir, failing_sweep, run_args, target_dir};

use crate::readers::python;

/// Downloads (once) the JUnit schema and validates every file of `reports` against it.
const VALIDATE: &str = r#"
import glob, os, subprocess, sys, tarfile, xmlschema
cache = sys.argv[1]
xsd = os.path.join(cache, "junit-10.xsd")
if not os.path.exists(xsd):
    os.makedirs(cache, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                    "--no-binary", ":all:", "--dest", cache, "pytest==8.3.4"], check=True)
    with tarfile.open(os.path.join(cache, "pytest-8.3.4.tar.gz")) as archive:
        data = archive.extractfile("pytest-8.3.4/testing/example_scripts/junit-10.xsd").read()
    with open(xsd + ".tmp", "wb") as out:
        out.write(data)
    os.replace(xsd + ".tmp", xsd)
schema = xmlschema.XMLSchema(xsd)
for report in sys.argv[2:]:
    schema.validate(report)
    print("valid", report)
"#;

/// Validates `reports` against the JUnit schema; panics with xmlschema's reason otherwise.
fn assert_valid_junit(reports: &[&Path]) {
    let out = Command::new(python())
        .args(["-c", VALIDATE])
        .arg(target_dir().join("junit-schema"))
        .args(reports)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "JUnit report not valid: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout)
            .matches("valid ")
            .count(),
        reports.len()
    );
}

#[test]
fn sweep_and_batch_junit_reports_validate_against_the_junit_schema() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let sweep = failing_sweep(tmp.path());
    let failing = tmp.path().join("failing.xml");
    let run = run_args(&[
        "sweep",
        "run",
        sweep.to_str().expect("UTF-8"),
        "--junit",
        failing.to_str().expect("UTF-8"),
    ]);
    assert_eq!(run.code(), 1, "{}", run.said());
    let report = std::fs::read_to_string(&failing).expect("report");
    assert!(
        report.contains(r#"failures="1""#) && report.contains("<failure "),
        "{report}"
    );
    let projects = corpus_dir().join("mastersim/DifferentVariableTypes");
    let batch = tmp.path().join("batch.xml");
    let run = run_args(&[
        "batch",
        projects.to_str().expect("UTF-8"),
        "--sweep-dir",
        tmp.path().join("batch").to_str().expect("UTF-8"),
        "--junit",
        batch.to_str().expect("UTF-8"),
        "--",
        "--time-arithmetic",
        "mastersim",
    ]);
    run.assert_success();
    run.assert_stdout_has("3 cases: 3 completed");
    assert_valid_junit(&[&failing, &batch]);
}
