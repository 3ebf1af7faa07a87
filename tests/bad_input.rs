//! Bad project input gives a one-line error naming the file and the line, exit code 2, no panic,
//! and nothing written outside the working directory.

use std::path::Path;

use mastersim_tests::{example_workspace, run_mastersim};

/// A valid project around the own control-loop FMUs; `extra` is appended as line 9.
fn project_with(extra: &str) -> String {
    let packed = example_workspace().join("fmus").join("packed");
    let fmu = |name: &str| packed.join(format!("{name}.fmu")).display().to_string();
    format!(
        "tStart 0 s\ntEnd 1 s\nhStart 0.1 s\n\
         simulator 0 0 Part1 #447cb4 \"{}\"\n\
         simulator 1 1 Part2 #c38200 \"{}\"\n\
         simulator 2 1 Part3 #ff0000 \"{}\"\n\
         simulator 3 2 Gen #ff0000 \"{}\"\n\
         graph Part1.x1 Part2.x1\n\
         {extra}\n",
        fmu("Part1"),
        fmu("Part2"),
        fmu("Part3"),
        fmu("FourVars")
    )
}

/// Runs the project text and checks exit code 2, a single error line on stderr that names
/// `bad.msim`, line 9 and contains every expected fragment, and that only the working
/// directory was written.
fn rejects(extra: &str, expected: &[&str]) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = tmp.path().join("bad.msim");
    std::fs::write(&project, project_with(extra)).expect("write project");
    let run = run_mastersim(&project, &tmp.path().join("wd"), &[]);
    let stderr = run.stderr();
    assert_eq!(run.code(), 2, "exit code for {extra:?}; stderr: {stderr}");
    assert!(
        !stderr.contains("panicked"),
        "panic for {extra:?}: {stderr}"
    );
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "one error line for {extra:?}, got: {stderr}"
    );
    let line = lines[0];
    assert!(
        line.contains("bad.msim:9:"),
        "file and line named for {extra:?}: {line}"
    );
    for fragment in expected {
        assert!(
            line.contains(fragment),
            "{extra:?}: expected '{fragment}' in: {line}"
        );
    }
    let written: Vec<_> = std::fs::read_dir(tmp.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(
        written.len(),
        2,
        "only bad.msim and wd/ in {}: {written:?}",
        tmp.path().display()
    );
    assert!(Path::new(&tmp.path().join("wd/log/screenlog.txt")).is_file());
}

#[test]
fn unknown_keyword() {
    rejects("tEndd 5 s", &["'tEndd'", "did you mean 'tEnd'"]);
}

#[test]
fn bad_unit() {
    rejects("tEnd 5 parsec", &["'parsec'", "ms, s, min, h, d, a"]);
}

#[test]
fn non_time_unit() {
    rejects("hStart 5 m", &["'m' is not a time unit", "hStart"]);
}

#[test]
fn malformed_simulator_line() {
    rejects(
        "simulator 4 1 Part4 #ff0000",
        &["4 field(s)", "simulator <index> <cycle> <name> <color>"],
    );
}

#[test]
fn unknown_slave_in_graph() {
    rejects(
        "graph Part9.x1 Part2.x2",
        &["unknown slave 'Part9'", "Part1, Part2, Part3, Gen"],
    );
}

#[test]
fn unknown_variable_in_graph() {
    rejects(
        "graph Part1.x9 Part2.x2",
        &["'Part1' has no variable 'x9'", "Part1.fmu"],
    );
}

#[test]
fn type_mismatch() {
    rejects(
        "graph Gen.VBool Part2.x2",
        &[
            "type mismatch",
            "'Gen.VBool' (Boolean)",
            "'Part2.x2' (Real)",
        ],
    );
}

#[test]
fn missing_fmu_file() {
    rejects(
        "simulator 4 1 Part4 #ff0000 \"fmus/Nope.fmu\"",
        &["'Part4'", "Nope.fmu' not found"],
    );
}

#[test]
fn connection_into_an_output() {
    rejects(
        "graph Part1.x2 Part3.x4",
        &["'Part3.x4' cannot receive a connection", "expected Input"],
    );
}

#[test]
fn bad_boolean_and_trailing_comment() {
    rejects(
        "adjustStepSize maybe # comment",
        &["adjustStepSize", "maybe"],
    );
}

#[test]
fn parameter_of_wrong_type() {
    rejects(
        "parameter Part2.k fast",
        &["Part2.k", "'fast'", "Real number"],
    );
}

#[test]
fn duplicate_connection_to_one_input() {
    rejects(
        "graph Part1.x1 Part2.x1",
        &["'Part2.x1' is already connected in line 8"],
    );
}

#[test]
fn missing_project_file_is_a_usage_error() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_mastersim(&tmp.path().join("none.msim"), &tmp.path().join("wd"), &[]);
    assert_eq!(run.code(), 2);
    assert!(
        run.stderr().contains("none.msim' doesn't exist"),
        "{}",
        run.stderr()
    );
}
