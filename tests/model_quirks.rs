//! Model descriptions that break a rule of FMI without being ambiguous or unsafe: mastersim
//! runs them with a warning naming the file and the element, and refuses only a project line
//! that refers to an ambiguous name (`docs/deviations.md`, "Model descriptions").
//!
//! The FMU is the own `Gain.fmu` (FMI 2.0: #1 `u` input vr 1, #2 `y` output vr 2, #3 `k` vr 3,
//! #4 `offset` vr 4, #5 `amplitude` vr 5, all parameters from #3) repacked as `Quirky.fmu`
//! with `offset` renamed `k` and `amplitude` renamed `y`: two names, each of two values.

use std::path::{Path, PathBuf};

use mastersim_tests::{ResultTable, Run, run_mastersim};

use crate::hostile::rows::{fmu_entries, patched_entries, replace_once, zip_bytes};

/// Writes `Quirky.fmu` (Gain with the repeated names `k` and `y`) into `dir`.
fn quirky_fmu(dir: &Path) -> PathBuf {
    let entries = patched_entries("Gain", |xml| {
        let xml = replace_once(xml, "name=\"offset\"", "name=\"k\"");
        replace_once(&xml, "name=\"amplitude\"", "name=\"y\"")
    });
    let path = dir.join("Quirky.fmu");
    std::fs::write(&path, zip_bytes(&entries)).expect("write Quirky.fmu");
    path
}

/// Writes `quirky.msim` with two slaves `S1`, `S2` of `Quirky.fmu` (lines 1–5), then `extra`
/// from line 6, and runs it with the working directory `wd` and `args`.
fn run_quirky(dir: &Path, extra: &str, args: &[&str]) -> Run {
    quirky_fmu(dir);
    let project = dir.join("quirky.msim");
    std::fs::write(
        &project,
        format!(
            "tStart 0 s\ntEnd 1 s\nhStart 0.1 s\n\
             simulator 0 0 S1 #ff0000 \"Quirky.fmu\"\n\
             simulator 1 0 S2 #00ff00 \"Quirky.fmu\"\n{extra}"
        ),
    )
    .expect("write project");
    let wd = dir.join("wd");
    let _ = std::fs::remove_dir_all(&wd);
    run_mastersim(&project, &wd, args)
}

/// The warning lines of a run (console warnings are on stdout).
fn warnings(run: &Run) -> Vec<String> {
    run.said()
        .lines()
        .filter(|l| l.starts_with("Warning: "))
        .map(str::to_owned)
        .collect()
}

#[test]
fn repeated_names_are_warnings_and_a_reference_to_one_is_refused() {
    let tmp = tempfile::tempdir().expect("temp dir");

    // (a) Nothing refers to `k` or `y`: the run succeeds, and each repeated name is reported
    // once (the FMU is read once for both slaves), naming the file, the variables and their
    // value references. All variables are kept: the result columns of a repeated name carry
    // the value reference, in every format.
    let run = run_quirky(
        tmp.path(),
        "writeInternalVariables yes\nresultFormats csv mat json\n",
        &[],
    );
    run.assert_success();
    let warnings = warnings(&run);
    let about = |name: &str| -> Vec<&String> {
        warnings
            .iter()
            .filter(|w| w.contains(&format!("variable name '{name}'")))
            .collect()
    };
    for (name, first, second) in [
        (
            "k",
            "#3 (Real, value reference 3)",
            "#4 (Real, value reference 4)",
        ),
        (
            "y",
            "#2 (Real, value reference 2)",
            "#5 (Real, value reference 5)",
        ),
    ] {
        let found = about(name);
        assert_eq!(found.len(), 1, "one warning about '{name}': {warnings:#?}");
        let w = found[0];
        assert!(
            w.contains("fmus/Quirky/modelDescription.xml")
                && w.contains(&format!("ScalarVariable {first}, ScalarVariable {second}"))
                && w.contains(&format!("reference to '{name}' is refused as ambiguous")),
            "{w}"
        );
    }
    let values = ResultTable::read(&run.path("results/values.csv"));
    for column in ["S1.k#3", "S1.k#4", "S1.y#2", "S1.y#5", "S2.k#4", "S2.u"] {
        values.column(column);
    }
    assert_eq!(values.numbers("S1.k#3")[0], 1.0, "k's start value");
    assert_eq!(values.numbers("S1.k#4")[0], 0.0, "offset's start value");
    assert!(run.path("results/quirky.mat").is_file());
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(run.path("results/quirky.json")).expect("Signal Table"),
    )
    .expect("Signal Table JSON");
    assert!(json.get("S2.y#5").is_some(), "{json:#}");

    // `outputOnly` patterns match the variables' own names: `S1.k` selects both columns.
    let run = run_quirky(
        tmp.path(),
        "writeInternalVariables yes\noutputOnly S1.k\n",
        &[],
    );
    run.assert_success();
    let values = ResultTable::read(&run.path("results/values.csv"));
    assert_eq!(
        values.header.len(),
        3,
        "time, S1.k#3, S1.k#4: {:?}",
        values.header
    );

    // (b) A reference to a repeated name of different values: exit 2 and one error line naming
    // the project line (or option), the slave and variable, and the value references.
    for (extra, args, expected) in [
        (
            "graph S1.y S2.u\n",
            &[][..],
            "/quirky.msim:6: 'S1.y' is ambiguous: Quirky.fmu declares it twice (value \
             references 2 and 5)",
        ),
        (
            "parameter S2.k 2\n",
            &[][..],
            "/quirky.msim:6: 'S2.k' is ambiguous: Quirky.fmu declares it twice (value \
             references 3 and 4)",
        ),
        (
            "",
            &["--set", "S1.k=2"][..],
            "Error: --set S1.k=2: 'S1.k' is ambiguous: Quirky.fmu declares it twice (value \
             references 3 and 4)",
        ),
    ] {
        let run = run_quirky(tmp.path(), extra, args);
        let stderr = run.stderr();
        assert_eq!(run.code(), 2, "{extra}{args:?}: {}", run.said());
        assert_eq!(
            stderr.trim_end().lines().count(),
            1,
            "one error line: {stderr}"
        );
        assert!(
            stderr.starts_with("Error: ") && stderr.trim_end().ends_with(expected),
            "{extra}{args:?}: {stderr}"
        );
    }
}

#[test]
fn other_rules_real_exporters_break_are_warnings() {
    // Gain (FMI 2.0) with a DefaultExperiment value that is not a number and a ModelStructure
    // output that names no variable; Oscillator (FMI 1.0) with the Boolean `positive` made a
    // negated alias of its own value reference, so that no base variable exists.
    let tmp = tempfile::tempdir().expect("temp dir");
    let gain = patched_entries("Gain", |xml| {
        let xml = replace_once(xml, "stepSize=\"0.1\"", "stepSize=\"fast\"");
        replace_once(
            &xml,
            "<Unknown index=\"2\" dependencies=\"1\"/>",
            "<Unknown index=\"99\" dependencies=\"1\"/>",
        )
    });
    std::fs::write(tmp.path().join("Gain.fmu"), zip_bytes(&gain)).expect("write Gain.fmu");
    let oscillator = patched_entries("Oscillator", |xml| {
        replace_once(
            xml,
            "name=\"positive\" valueReference=\"9\"",
            "name=\"positive\" valueReference=\"9\" alias=\"negatedAlias\"",
        )
    });
    std::fs::write(tmp.path().join("Osc.fmu"), zip_bytes(&oscillator)).expect("write Osc.fmu");
    // The untouched Oscillator as the reference for the negated alias.
    std::fs::write(
        tmp.path().join("Ref.fmu"),
        zip_bytes(&fmu_entries("Oscillator")),
    )
    .expect("write Ref.fmu");
    let project = tmp.path().join("quirks.msim");
    std::fs::write(
        &project,
        "tStart 0 s\ntEnd 2 s\nhStart 0.1 s\n\
         simulator 0 0 G #ff0000 \"Gain.fmu\"\n\
         simulator 1 0 O #00ff00 \"Osc.fmu\"\n\
         simulator 2 0 R #0000ff \"Ref.fmu\"\n",
    )
    .expect("write project");
    let run = run_mastersim(&project, &tmp.path().join("wd"), &[]);
    run.assert_success();
    let warnings = warnings(&run);
    let has = |parts: &[&str]| {
        assert!(
            warnings.iter().any(|w| parts.iter().all(|p| w.contains(p))),
            "no warning with {parts:?}: {warnings:#?}"
        );
    };
    has(&[
        "fmus/Gain/modelDescription.xml: DefaultExperiment:",
        "invalid value 'fast' of attribute 'stepSize'",
        "ignored",
    ]);
    has(&[
        "fmus/Gain/modelDescription.xml: ModelStructure/Outputs/Unknown #1:",
        "invalid value '99' of attribute 'index'",
        "the entry is ignored",
    ]);
    has(&[
        "fmus/Osc/modelDescription.xml: ScalarVariable #9 'positive':",
        "alias=\"negatedAlias\" of value reference 9",
        "read through its value reference",
    ]);
    // The alias is read through its value reference: its column holds the value stored there,
    // as for the unpatched FMU (values.csv holds stored values; MAT and Signal Table files mark
    // the negation).
    let values = ResultTable::read(&run.path("results/values.csv"));
    let (alias, reference) = (values.numbers("O.positive"), values.numbers("R.positive"));
    assert!(
        reference.contains(&1.0) && reference.contains(&0.0),
        "{reference:?}"
    );
    assert_eq!(alias, reference);
}
