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

/// A copy of `fmu` without its `binaries/linux64/` entries, written to `to`.
fn without_linux64(fmu: &Path, to: &Path) {
    use std::io::{Read as _, Write as _};
    let bytes = std::fs::read(fmu).unwrap_or_else(|e| panic!("{}: {e}", fmu.display()));
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("zip");
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).expect("entry");
        let name = entry.name().expect("entry name").into_owned();
        if name.starts_with("binaries/linux64/") || entry.is_dir() {
            continue;
        }
        let mut data = Vec::new();
        entry.read_to_end(&mut data).expect("entry data");
        writer
            .start_file(name.as_str(), zip::write::SimpleFileOptions::default())
            .expect("zip entry");
        writer.write_all(&data).expect("zip data");
    }
    std::fs::write(to, writer.finish().expect("zip").into_inner()).expect("write FMU");
}

/// The Reference FMU Feedthrough 0.0.1 (FMI 2.0) without its linux64 binary runs its win64
/// binary in a helper under Wine, chosen automatically with one warning, and its results
/// equal those of the linux64 binary in-process (within 1e-9 absolute + 1e-6 relative: two
/// compilers' code).
#[test]
fn an_fmu_without_a_linux64_binary_runs_its_win64_binary_under_wine() {
    let original = corpus_dir().join("crosscheck/fmi2/TestFMUs-0.0.1/Feedthrough/Feedthrough.fmu");
    assert!(original.is_file(), "missing '{}'", original.display());
    let tmp = tempfile::tempdir().expect("temp dir");
    let windows_only = tmp.path().join("Feedthrough.fmu");
    without_linux64(&original, &windows_only);
    let started = std::time::Instant::now();
    let args = ["--stop-time", "1", "--step-size", "0.01"];
    let wine = run_mastersim(&windows_only, &tmp.path().join("wine"), &args);
    wine.assert_success();
    let warnings: Vec<String> = wine
        .stderr()
        .lines()
        .chain(wine.stdout().lines())
        .filter(|l| l.contains("has no binary for linux64"))
        .map(str::to_owned)
        .collect();
    assert_eq!(warnings.len(), 1, "one warning: {warnings:?}");
    assert!(
        warnings[0].contains("win64 binary runs in a helper process under Wine"),
        "{warnings:?}"
    );
    let seconds = started.elapsed().as_secs_f64();
    let native = run_mastersim(&original, &tmp.path().join("native"), &args);
    native.assert_success();
    let diffs = mastersim_tests::compare_tables(
        &mastersim_tests::ResultTable::read(&wine.path("results/values.csv")),
        &mastersim_tests::ResultTable::read(&native.path("results/values.csv")),
        1e-9,
        1e-6,
    );
    assert!(diffs.is_empty(), "win64 vs linux64:\n{}", diffs.join("\n"));
    println!(
        "Feedthrough without linux64: its win64 binary under Wine, {seconds:.1} s, results equal"
    );
}
