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
    // A name far from every output lists the outputs there are.
    rejects(
        "graph Part1.flow Part2.x2",
        &["'Part1' has no variable 'flow'", "; it has: x1, x2"],
    );
}

#[test]
fn a_misspelt_variable_gets_a_suggestion() {
    rejects(
        "parameter Part1.omgea 3",
        &["'Part1' has no variable 'omgea'", "(did you mean 'omega'?)"],
    );
    rejects(
        "graph Part1.X2 Part2.x2",
        &["no variable 'X2'", "(did you mean 'x2'?)"],
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

// Multi-rate lines (`docs/project-format.md`): each bad line and each refused combination
// names line 9, the communication line.

#[test]
fn multirate_unknown_slave() {
    rejects(
        "communicationInterval Part9 0.2 s",
        &[
            "communicationInterval",
            "unknown slave 'Part9'",
            "Gen, Part1",
        ],
    );
}

#[test]
fn multirate_interval_not_positive() {
    rejects(
        "communicationInterval Part1 0 s",
        &["communicationInterval '0' is not greater than zero", "> 0"],
    );
}

#[test]
fn multirate_negative_offset() {
    rejects(
        "communicationOffset Part1 -5 ms",
        &["communicationOffset '-5' is negative", ">= 0"],
    );
}

#[test]
fn multirate_malformed_trigger() {
    rejects(
        "communicationTrigger Part1",
        &["malformed communicationTrigger line", "<other slave>"],
    );
}

#[test]
fn multirate_trigger_cycle() {
    rejects(
        "communicationTrigger Part2 Part3\ncommunicationTrigger Part3 Part2",
        &["cycle: Part2 -> Part3 -> Part2"],
    );
}

#[test]
fn multirate_interval_below_the_tick() {
    rejects(
        "communicationInterval Part1 50 ms",
        &["interval 0.05 s is shorter than the master's tick hStart = 0.1 s (line 3)"],
    );
}

/// The Sampler FMU with `canHandleVariableCommunicationStepSize="false"`, written into the
/// example workspace as `fmus/packed/FixedStepSampler.fmu` (the own FMUs all handle variable
/// step sizes).
fn fixed_step_sampler() -> std::path::PathBuf {
    use std::io::Read as _;
    let packed = example_workspace().join("fmus/packed");
    let file = std::fs::File::open(packed.join("Sampler.fmu")).expect("Sampler.fmu");
    let mut archive = zip::ZipArchive::new(file).expect("a zip archive");
    let mut entry = |name: &str| {
        let mut bytes = Vec::new();
        archive
            .by_name(name)
            .expect("entry")
            .read_to_end(&mut bytes)
            .expect("read entry");
        bytes
    };
    let xml = String::from_utf8(entry("modelDescription.xml")).expect("UTF-8");
    let library = entry("binaries/linux64/Sampler.so");
    let fixed = xml.replace(
        "canHandleVariableCommunicationStepSize=\"true\"",
        "canHandleVariableCommunicationStepSize=\"false\"",
    );
    assert_ne!(fixed, xml, "the capability was declared");
    let bytes = fmu_packer::pack_bytes(fixed.as_bytes(), "Sampler", &library).expect("pack");
    let path = packed.join("FixedStepSampler.fmu");
    std::fs::write(&path, bytes).expect("write FMU");
    path
}

#[test]
fn multirate_interval_off_the_tick_without_variable_steps() {
    rejects(
        &format!(
            "communicationInterval Fixed 0.25 s\nsimulator 4 3 Fixed #ff0000 \"{}\"",
            fixed_step_sampler().display()
        ),
        &[
            "'Fixed': interval 0.25 s is not a whole multiple",
            "hStart = 0.1 s (line 3)",
            "canHandleVariableCommunicationStepSize",
        ],
    );
}

#[test]
fn multirate_trigger_in_an_earlier_cycle() {
    rejects(
        "communicationTrigger Part1 Part2",
        &["'Part1' (cycle 0) is triggered by 'Part2' in the later cycle 1"],
    );
}

#[test]
fn multirate_refused_with_variable_steps() {
    rejects(
        "communicationInterval Part2 0.2 s\nadjustStepSize yes\nmaxIterations 3",
        &[
            "communicationInterval",
            "adjustStepSize is yes (line 10)",
            "cannot keep a fixed sample grid",
        ],
    );
}

#[test]
fn multirate_refused_with_error_check() {
    rejects(
        "communicationOffset Part2 0.1 s\nErrorControlMode CHECK",
        &[
            "communicationOffset",
            "ErrorControlMode CHECK (line 10)",
            "jump",
        ],
    );
}

#[test]
fn multirate_refused_with_mastersim_time_arithmetic() {
    rejects(
        "communicationInterval Part2 0.2 s\ntimeArithmetic MASTERSIM",
        &["timeArithmetic MASTERSIM (line 10)", "integer ticks"],
    );
}

#[test]
fn multirate_refused_for_newton_across_clocks() {
    rejects(
        "communicationInterval Part2 0.2 s\nMasterMode NEWTON\nmaxIterations 3\n\
         graph Part2.x3 Part3.x3\ngraph Part3.x4 Part2.x4",
        &[
            "MasterMode NEWTON (line 10)",
            "'Part2' and 'Part3' of cycle 1 step on different clocks",
        ],
    );
}
