//! Whole-process wall time and peak memory of the MasterSim regression projects, against
//! MasterSim 0.9.8's times on the same machine class (issue 6, median whole-process wall
//! time without its 500 ms sleep at exit).

use std::path::Path;

use crate::process::{self, median};

/// MasterSim 0.9.8's median whole-process wall time per project, ms.
const MASTERSIM_MS: [(&str, f64); 17] = [
    ("DifferentVariableTypes/DifferentVariableTypes", 8.3),
    (
        "DifferentVariableTypes/DifferentVariableTypesFeedThrough",
        11.9,
    ),
    ("DifferentVariableTypes/DifferentVariableTypesFromCSV", 8.5),
    ("FileReaderSlave/FileReaderSeveralVars", 4.2),
    ("FileReaderSlave/FileReaderUnusedVars", 4.4),
    ("FileReaderSlave/FileReaderUnusedVarsWriteAll", 6.0),
    (
        "FileReaderSlave/LV_Richardson_PredatorFromFile_noiter",
        170.4,
    ),
    (
        "FileReaderSlave/LV_Richardson_PredatorFromFile_noiter_excelcsv",
        156.5,
    ),
    ("Lotka_Volterra_System/LV_Richardson_5iter", 95.5),
    ("Lotka_Volterra_System/LV_Richardson_noiter", 82.2),
    (
        "Math_003_control_loop/Math003_GaussJacobi_1iters_fixedStep",
        11.6,
    ),
    (
        "Math_003_control_loop/Math003_GaussSeidel_1iters_fixedStep",
        12.4,
    ),
    (
        "Math_003_control_loop/Math003_GaussSeidel_2iters_adaptive",
        8.8,
    ),
    (
        "Math_003_control_loop/Math003_GaussSeidel_2iters_adaptive_Richardson",
        49.1,
    ),
    (
        "Math_003_control_loop/Math003_GaussSeidel_2iters_fixedStep",
        13.0,
    ),
    ("OutputTests/DifferentTimeUnit", 4.4),
    ("ProjectFile/LV_Richardson_5iter", 100.7),
];

/// The allowed time: half of MasterSim's, but at least 3 ms (issue 6).
fn target_ms(mastersim_ms: f64) -> f64 {
    (mastersim_ms / 2.0).max(3.0)
}

/// Runs every project `runs` times (after one unmeasured run) and prints the table.
///
/// # Panics
/// When the corpus is missing (naming the path) or a run fails.
pub fn whole_runs(mastersim: &Path, corpus: &Path, runs: usize) {
    assert!(
        corpus.is_dir(),
        "the MasterSim corpus is missing: looked for '{}'",
        corpus.display()
    );
    println!("\n## Whole runs of the MasterSim regression projects ({runs} runs each, median)\n");
    println!(
        "| project | MasterSim ms | target ms | mastersim ms | peak RSS MiB | within target |"
    );
    println!("|---|---|---|---|---|---|");
    // One working directory per project, extracted by a first run that is not measured.
    let dirs: Vec<_> = MASTERSIM_MS
        .iter()
        .map(|(name, _)| {
            let project = corpus.join(format!("{name}.msim"));
            let dir = tempfile::tempdir().expect("temp dir");
            process::run(mastersim, &project, &dir.path().join("wd"), &[]);
            (project, dir)
        })
        .collect();
    // Round robin over the projects, so that a slow spell of the machine (they last seconds
    // here) spreads over all projects instead of falling on the runs of one.
    let mut measured: Vec<Vec<process::Measured>> =
        MASTERSIM_MS.iter().map(|_| Vec::new()).collect();
    for _ in 0..runs {
        for ((project, dir), runs) in dirs.iter().zip(&mut measured) {
            runs.push(process::run(
                mastersim,
                project,
                &dir.path().join("wd"),
                &[],
            ));
        }
    }
    let mut all_within = true;
    for ((name, mastersim_ms), measured) in MASTERSIM_MS.iter().zip(&measured) {
        let ms = median(
            measured
                .iter()
                .map(|m| m.wall.as_secs_f64() * 1e3)
                .collect(),
        );
        let rss = median(
            measured
                .iter()
                .map(|m| m.max_rss_kib as f64 / 1024.0)
                .collect(),
        );
        let target = target_ms(*mastersim_ms);
        let within = ms <= target;
        all_within &= within;
        println!(
            "| {name} | {mastersim_ms} | {target:.2} | {ms:.2} | {rss:.1} | {} |",
            if within { "yes" } else { "NO" }
        );
    }
    println!("\nall projects within target: {all_within}");
}
