//! The 17 projects of MasterSim's regression suite (`corpus/mastersim`): exit code 0, the four
//! counters of `summary.txt` exact, `values.csv`/`strings.csv` within 1e-9 absolute + 1e-6
//! relative of MasterSim's own results.

use std::path::PathBuf;

use mastersim_tests::{
    COUNTERS, ResultTable, compare_tables, corpus_dir, read_summary, run_mastersim,
};

/// MasterSim's own time arithmetic (`t += h`, per-slave clocks). Its reference results and
/// counters depend on it: IBK's Part1 switches one step after each whole second, and the
/// error-test counters of the Richardson cases depend on the slave clocks running half a step
/// ahead after a rejected test. mastersim's default (exact) arithmetic corrects both, so these
/// projects run with the option that reproduces MasterSim.
const MASTERSIM_ARITHMETIC: [&str; 2] = ["--time-arithmetic", "mastersim"];

/// Tolerances of the corpus README: 1e-9 absolute + 1e-6 relative.
const ABS: f64 = 1e-9;
const REL: f64 = 1e-6;

/// Runs one MasterSim regression project and checks exit code, the four counters and the
/// result files against `<project>.gcc_linux/`.
fn conforms(relative: &str) {
    let project = corpus_dir()
        .join("mastersim")
        .join(format!("{relative}.msim"));
    assert!(
        project.is_file(),
        "corpus project missing: '{}'",
        project.display()
    );
    let reference = corpus_dir()
        .join("mastersim")
        .join(format!("{relative}.gcc_linux"));
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_mastersim(&project, &tmp.path().join("wd"), &MASTERSIM_ARITHMETIC);
    run.assert_success();

    let ours = read_summary(&run.path("log/summary.txt"));
    let theirs = read_summary(&reference.join("log/summary.txt"));
    for key in COUNTERS {
        assert_eq!(
            ours.get(key),
            theirs.get(key),
            "{relative}: counter {key} (ours {ours:?})"
        );
    }
    for file in ["values.csv", "strings.csv"] {
        let expected = reference.join("results").join(file);
        if !expected.is_file() {
            continue;
        }
        let actual = run.path(&format!("results/{file}"));
        assert!(actual.is_file(), "{relative}: {file} was not written");
        let diffs = compare_tables(
            &ResultTable::read(&actual),
            &ResultTable::read(&expected),
            ABS,
            REL,
        );
        assert!(
            diffs.is_empty(),
            "{relative}/{file} differs from the reference:\n{}",
            diffs.join("\n")
        );
    }
}

macro_rules! conformance {
    ($($name:ident => $path:literal,)*) => {
        $(
            #[test]
            fn $name() {
                conforms($path);
            }
        )*
    };
}

conformance! {
    different_variable_types => "DifferentVariableTypes/DifferentVariableTypes",
    different_variable_types_feed_through => "DifferentVariableTypes/DifferentVariableTypesFeedThrough",
    different_variable_types_from_csv => "DifferentVariableTypes/DifferentVariableTypesFromCSV",
    file_reader_several_vars => "FileReaderSlave/FileReaderSeveralVars",
    file_reader_unused_vars => "FileReaderSlave/FileReaderUnusedVars",
    file_reader_unused_vars_write_all => "FileReaderSlave/FileReaderUnusedVarsWriteAll",
    math003_gauss_jacobi_1iters_fixed_step => "Math_003_control_loop/Math003_GaussJacobi_1iters_fixedStep",
    math003_gauss_seidel_1iters_fixed_step => "Math_003_control_loop/Math003_GaussSeidel_1iters_fixedStep",
    math003_gauss_seidel_2iters_fixed_step => "Math_003_control_loop/Math003_GaussSeidel_2iters_fixedStep",
    math003_gauss_seidel_2iters_adaptive => "Math_003_control_loop/Math003_GaussSeidel_2iters_adaptive",
    output_tests_different_time_unit => "OutputTests/DifferentTimeUnit",
    // Richardson step doubling (issue 3); the Lotka-Volterra projects have counters only.
    lv_richardson_predator_from_file_noiter => "FileReaderSlave/LV_Richardson_PredatorFromFile_noiter",
    lv_richardson_predator_from_file_noiter_excelcsv => "FileReaderSlave/LV_Richardson_PredatorFromFile_noiter_excelcsv",
    lv_richardson_5iter => "Lotka_Volterra_System/LV_Richardson_5iter",
    lv_richardson_noiter => "Lotka_Volterra_System/LV_Richardson_noiter",
    math003_gauss_seidel_2iters_adaptive_richardson => "Math_003_control_loop/Math003_GaussSeidel_2iters_adaptive_Richardson",
    project_file_lv_richardson_5iter => "ProjectFile/LV_Richardson_5iter",
}

/// Every project of the MasterSim suite is covered by one test above.
#[test]
fn all_seventeen_projects_are_covered() {
    fn walk(dir: &std::path::Path, found: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).expect("readable corpus directory") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                walk(&p, found);
            } else if p.extension().is_some_and(|x| x == "msim") {
                found.push(p);
            }
        }
    }
    let mut found = Vec::new();
    walk(&corpus_dir().join("mastersim"), &mut found);
    assert_eq!(found.len(), 17, "projects in the corpus: {found:?}");
}

/// The per-slave call counts MasterSim reports for its Richardson test case (reference §14.2),
/// read from the statistics block that mastersim prints.
#[test]
fn richardson_per_slave_counts_match_mastersim() {
    let project = corpus_dir().join(
        "mastersim/Math_003_control_loop/Math003_GaussSeidel_2iters_adaptive_Richardson.msim",
    );
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_mastersim(&project, &tmp.path().join("wd"), &MASTERSIM_ARITHMETIC);
    run.assert_success();
    let counts: Vec<u64> = run
        .stdout()
        .lines()
        .filter(|l| l.contains("doStep =") || l.contains("getState =") || l.contains("setState ="))
        .map(|l| {
            l.split_whitespace()
                .last()
                .and_then(|n| n.parse().ok())
                .expect("count at line end")
        })
        .collect();
    // (doStep, getState, setState) for Part1, Part2, Part3
    assert_eq!(
        counts,
        vec![1229, 1116, 509, 1496, 1116, 776, 1496, 1116, 776]
    );
}

/// The adaptive-threshold filter on MasterSim's Lotka-Volterra (variable steps) and Math003
/// (fixed steps) projects: the compression ratio is reported, and every filtered signal of the
/// MAT file (own time points per variable) reconstructs the unfiltered one by linear
/// interpolation within the threshold.
#[test]
fn output_filter_on_lotka_volterra_and_math003() {
    const THRESHOLD: f64 = 1e-3;
    for relative in [
        "Lotka_Volterra_System/LV_Richardson_5iter",
        "Math_003_control_loop/Math003_GaussJacobi_1iters_fixedStep",
    ] {
        let project = corpus_dir()
            .join("mastersim")
            .join(format!("{relative}.msim"));
        let tmp = tempfile::tempdir().expect("temp dir");
        let full = run_mastersim(
            &project,
            &tmp.path().join("full"),
            &["--result-format", "mat"],
        );
        full.assert_success();
        let threshold = THRESHOLD.to_string();
        let filtered = run_mastersim(
            &project,
            &tmp.path().join("filtered"),
            &["--result-format", "mat", "--output-threshold", &threshold],
        );
        filtered.assert_success();
        let report = filtered.stdout();
        let line = report
            .lines()
            .find(|l| l.starts_with("Output filter (MAT): kept"))
            .expect("compression ratio reported");
        let ratio: f64 = line
            .rsplit("ratio ")
            .next()
            .and_then(|r| r.trim_end_matches(')').parse().ok())
            .expect("ratio");
        assert!(ratio < 0.6, "{relative}: {line}");
        let name = std::path::Path::new(relative)
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let read = |run: &mastersim_tests::Run| {
            output::mat::read(run.path(&format!("results/{name}.mat"))).expect("MAT")
        };
        let (a, b) = (read(&full), read(&filtered));
        for signal in a.signals.iter().filter(|s| s.time.len() > 2) {
            let original: Vec<(f64, f64)> = signal
                .time
                .iter()
                .copied()
                .zip(signal.values.iter().copied())
                .collect();
            let f = b.signal(&signal.name).expect("filtered signal");
            let kept: Vec<(f64, f64)> = f
                .time
                .iter()
                .copied()
                .zip(f.values.iter().copied())
                .collect();
            mastersim_tests::assert_reconstructs(
                &format!("{relative} {}", signal.name),
                &original,
                &kept,
                THRESHOLD,
                0.0,
            );
        }
    }
}
