//! Corpus conformance suite: runs mastersim on the real FMUs and projects of
//! `../shared/corpus` (see its README) and compares with the reference results.
//!
//! Run with `cargo test --release -p mastersim-tests --test corpus`. Every test fails, naming
//! the path it looked for, when the corpus is missing.

use std::path::PathBuf;

use mastersim_tests::{
    COUNTERS, ResultTable, compare_tables, corpus_dir, read_summary, run_mastersim,
};

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
    let run = run_mastersim(&project, &tmp.path().join("wd"), &[]);
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

/// The corpus directory of the FMI 1.0 FMUs.
fn fmi1_dir() -> PathBuf {
    corpus_dir().join("fmi1")
}

#[test]
fn fmi1_identity_outputs_equal_inputs() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let table = tmp.path().join("inputs.tsv");
    std::fs::write(
        &table,
        "time [s]\treal\tint\tbool\n0\t0.5\t1\t0\n1\t1.5\t2\t1\n2\t-3.25\t-7\t0\n3\t4\t9\t1\n",
    )
    .expect("write table");
    let project = tmp.path().join("identity.msim");
    std::fs::write(
        &project,
        format!(
            "tStart 0 s\ntEnd 3 s\nhStart 0.25 s\nhOutputMin 0.25 s\nMasterMode GAUSS_SEIDEL\n\
             simulator 0 0 Inputs #ff0000 \"inputs.tsv\"\n\
             simulator 1 0 Identity #00ff00 \"{}\"\n\
             graph Inputs.real Identity.realIn\ngraph Inputs.int Identity.integerIn\ngraph Inputs.bool Identity.booleanIn\n\
             parameter Identity.stringIn hello world\n",
            fmi1_dir().join("identity/identity.fmu").display()
        ),
    )
    .expect("write project");
    let run = run_mastersim(&project, &tmp.path().join("wd"), &[]);
    run.assert_success();
    let values = ResultTable::read(&run.path("results/values.csv"));
    assert_eq!(values.rows.len(), 13, "rows every 0.25 s from 0 to 3");
    for (input, output) in [
        ("Inputs.real", "Identity.realOut"),
        ("Inputs.int", "Identity.integerOut"),
        ("Inputs.bool", "Identity.booleanOut"),
    ] {
        let (i, o) = (values.numbers(input), values.numbers(output));
        assert_eq!(i, o, "{output} must equal {input}");
    }
    assert!(values.numbers("Inputs.real").contains(&-3.25));
    let strings = ResultTable::read(&run.path("results/strings.csv"));
    let c = strings.column("Identity.stringOut");
    assert!(
        strings.rows.iter().all(|r| r[c] == "hello world"),
        "stringOut must equal stringIn: {:?}",
        strings.rows
    );
}

#[test]
fn fmi1_mass_spring_damper_energy_decays() {
    let dir = fmi1_dir().join("mass_spring_damper");
    let (m, k) = (10.0, 5.0);
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = tmp.path().join("msd.msim");
    let fmu = |name: &str| dir.join(format!("{name}.fmu")).display().to_string();
    std::fs::write(
        &project,
        format!(
            "tStart 0 s\ntEnd 20 s\nhStart 0.001 s\nhOutputMin 0.05 s\nMasterMode GAUSS_SEIDEL\n\
             simulator 0 0 Mass #ff0000 \"{}\"\nsimulator 1 0 Spring #00ff00 \"{}\"\nsimulator 2 0 Damper #0000ff \"{}\"\n\
             graph Mass.out_l_u Spring.dis_xx\ngraph Mass.out_l_w Spring.dis_yx\n\
             graph Spring.for_xx Mass.in_l_u\ngraph Spring.for_yx Mass.in_l_w\n\
             graph Mass.out_f_u Damper.lv_0\ngraph Mass.out_f_w Damper.lv_1\n\
             graph Damper.df_0 Mass.in_f_u\ngraph Damper.df_1 Mass.in_f_w\n\
             parameter Mass.mass {m}\nparameter Mass.initialPositionX 1.0\n\
             parameter Mass.inGravityField false\nparameter Mass.enableDrag false\nparameter Mass.livePlotting false\n\
             parameter Spring.springStiffness {k}\nparameter Spring.livePlotting false\n\
             parameter Damper.livePlotting false\n",
            fmu("Mass"),
            fmu("Spring"),
            fmu("Damper")
        ),
    )
    .expect("write project");
    let run = run_mastersim(&project, &tmp.path().join("wd"), &[]);
    run.assert_success();
    let values = ResultTable::read(&run.path("results/values.csv"));
    let (x, y) = (
        values.numbers("Mass.out_l_u"),
        values.numbers("Mass.out_l_w"),
    );
    let (vx, vy) = (
        values.numbers("Mass.out_f_u"),
        values.numbers("Mass.out_f_w"),
    );
    let energy: Vec<f64> = (0..x.len())
        .map(|i| 0.5 * m * (vx[i] * vx[i] + vy[i] * vy[i]) + 0.5 * k * (x[i] * x[i] + y[i] * y[i]))
        .collect();
    assert!(
        (energy[0] - 0.5 * k).abs() < 1e-6,
        "initial energy is the spring's: {}",
        energy[0]
    );
    // The mass oscillates: x changes sign.
    assert!(x.iter().any(|&v| v < -0.1), "the mass swings through zero");
    // Damping: energy at the end is well below the start, and no peak exceeds the start.
    let last = *energy.last().expect("rows");
    assert!(
        last < 0.5 * energy[0],
        "energy must decay: start {} end {last}",
        energy[0]
    );
    assert!(
        energy.iter().all(|&e| e <= energy[0] * 1.01),
        "energy never grows beyond its start"
    );
    assert!(
        y.iter().all(|v| v.abs() < 1e-12),
        "without gravity the motion stays on the x axis"
    );
}

/// The per-slave call counts MasterSim reports for its Richardson test case (reference §14.2),
/// read from the statistics block that mastersim prints.
#[test]
fn richardson_per_slave_counts_match_mastersim() {
    let project = corpus_dir().join(
        "mastersim/Math_003_control_loop/Math003_GaussSeidel_2iters_adaptive_Richardson.msim",
    );
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_mastersim(&project, &tmp.path().join("wd"), &[]);
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
