//! The MasterSim regression suite (`corpus/mastersim`) with every slave in a helper process
//! (`--isolate`, `docs/isolation.md`): `values.csv` and `strings.csv` byte-identical to the
//! in-process runs, the four counters equal.

use std::path::{Path, PathBuf};

use mastersim_tests::{COUNTERS, corpus_dir, read_summary, run_mastersim};

/// Every `.msim` below `dir`, sorted.
fn projects(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            found.extend(projects(&path));
        } else if path.extension().is_some_and(|x| x == "msim") {
            found.push(path);
        }
    }
    found.sort();
    found
}

#[test]
fn mastersim_suite_is_byte_identical_isolated() {
    let all = projects(&corpus_dir().join("mastersim"));
    assert_eq!(all.len(), 17, "projects in the corpus: {all:?}");
    let tmp = tempfile::tempdir().expect("temp dir");
    let arithmetic = ["--time-arithmetic", "mastersim"];
    for (k, project) in all.iter().enumerate() {
        let name = project.file_stem().expect("name").to_string_lossy();
        let in_process = run_mastersim(project, &tmp.path().join(format!("{k}-a")), &arithmetic);
        in_process.assert_success();
        let isolated = run_mastersim(
            project,
            &tmp.path().join(format!("{k}-b")),
            &[arithmetic[0], arithmetic[1], "--isolate"],
        );
        isolated.assert_success();
        for file in ["values.csv", "strings.csv"] {
            let a = std::fs::read(in_process.path(&format!("results/{file}"))).ok();
            let b = std::fs::read(isolated.path(&format!("results/{file}"))).ok();
            assert!(a == b, "{name}: {file} differs isolated");
        }
        let counters = |run: &mastersim_tests::Run| {
            let summary = read_summary(&run.path("log/summary.txt"));
            COUNTERS.map(|key| summary.get(key).cloned())
        };
        assert_eq!(
            counters(&in_process),
            counters(&isolated),
            "{name}: counters"
        );
        println!("{name}: byte-identical isolated");
    }
}
