//! Real FMUs that break a rule of FMI without being ambiguous (`docs/deviations.md`, "Model
//! descriptions"): the dp-ship demo's `DPController.fmu` (FMI 1.0) declares the names `iepsi`,
//! `iex` and `iey` twice each, under two value references. It is read and run with a warning;
//! only a reference to such a name is refused.
//!
//! Every run here has its working directory in a temp directory: nothing is written next to
//! the corpus FMU (the test checks that the corpus folder is unchanged).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use mastersim_tests::{corpus_dir, mastersim_bin, run_mastersim};

/// `corpus/ssp/dp-ship/DPController.fmu`, failing with the path when it is missing.
fn dp_controller() -> PathBuf {
    let path = corpus_dir().join("ssp/dp-ship/DPController.fmu");
    assert!(path.is_file(), "corpus FMU missing: '{}'", path.display());
    path
}

/// The files of `dir` with their sizes and modification times.
fn listing(dir: &Path) -> BTreeMap<PathBuf, (u64, Option<std::time::SystemTime>)> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list '{}': {e}", dir.display()))
        .flatten()
        .map(|entry| {
            let meta = entry.metadata().expect("metadata");
            (entry.path(), (meta.len(), meta.modified().ok()))
        })
        .collect()
}

#[test]
fn dp_controller_with_repeated_names_is_read_and_run_with_a_warning() {
    let fmu = dp_controller();
    let folder = fmu.parent().expect("the FMU's folder").to_path_buf();
    let before = listing(&folder);
    let iepsi = [
        "variable name 'iepsi' is declared 2 times",
        "ScalarVariable #21 (Real, value reference 20)",
        "ScalarVariable #28 (Real, value reference 27)",
        "refused as ambiguous",
    ];

    // `mastersim info` reads the archive (nothing extracted), lists both variables and warns
    // on stderr, naming the FMU.
    let out = Command::new(mastersim_bin())
        .arg("info")
        .arg(&fmu)
        .output()
        .expect("mastersim runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "exit {:?}: {stderr}", out.status);
    assert!(stdout.contains("Variables (59)"), "{stdout}");
    assert_eq!(
        stdout
            .lines()
            .filter(|l| l.trim_start().starts_with("iepsi "))
            .count(),
        2,
        "{stdout}"
    );
    let warning = stderr
        .lines()
        .find(|l| l.contains("'iepsi'"))
        .unwrap_or_else(|| panic!("no warning about 'iepsi': {stderr}"));
    assert!(warning.starts_with("Warning: "), "{warning}");
    assert!(
        warning.contains("DPController.fmu/modelDescription.xml"),
        "{warning}"
    );
    for part in iepsi {
        assert!(warning.contains(part), "'{part}' not in: {warning}");
    }

    // The FMU runs on its own (0 to 1 s), with the same warning.
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_mastersim(&fmu, &tmp.path().join("wd"), &[]);
    run.assert_success();
    let said = run.said();
    let warning = said
        .lines()
        .find(|l| l.starts_with("Warning: ") && l.contains("'iepsi'"))
        .unwrap_or_else(|| panic!("no warning about 'iepsi': {said}"));
    assert!(
        warning.contains("fmus/DPController/modelDescription.xml"),
        "{warning}"
    );
    for part in iepsi {
        assert!(warning.contains(part), "'{part}' not in: {warning}");
    }

    // Setting the ambiguous name is refused, naming both value references.
    let run = run_mastersim(
        &fmu,
        &tmp.path().join("wd2"),
        &["--set", "DPController.iepsi=1"],
    );
    assert_eq!(run.code(), 2, "{}", run.said());
    assert_eq!(
        run.stderr().trim_end(),
        "Error: --set DPController.iepsi=1: 'DPController.iepsi' is ambiguous: \
         DPController.fmu declares it twice (value references 20 and 27)"
    );

    assert_eq!(listing(&folder), before, "the corpus folder changed");
}
