//! Whole-process wall time and peak memory of the MasterSim regression projects, against
//! MasterSim 0.9.8's times on the same machine class (issue 6, median whole-process wall
//! time without its 500 ms sleep at exit).

use std::path::Path;

use crate::baseline::Contender;
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

/// Runs every project `runs` times with every contender (after one unmeasured run each) and
/// prints the table: the first contender against MasterSim's target, and the first over each
/// other one.
///
/// # Panics
/// When the corpus is missing (naming the path) or a run fails.
pub fn whole_runs(contenders: &[Contender], corpus: &Path, runs: usize) {
    assert!(
        corpus.is_dir(),
        "the MasterSim corpus is missing: looked for '{}'",
        corpus.display()
    );
    println!("\n## Whole runs of the MasterSim regression projects ({runs} runs each, median)\n");
    let labels: Vec<&str> = contenders.iter().map(|c| c.label.as_str()).collect();
    let others: String = labels[1..]
        .iter()
        .map(|l| format!(" {l} ms | {} / {l} |", labels[0]))
        .collect();
    println!(
        "| project | MasterSim ms | target ms | {} ms | peak RSS MiB | within target |{others}",
        labels[0]
    );
    println!(
        "|---|---|---|---|---|---|{}",
        "---|---|".repeat(labels.len() - 1)
    );
    // One working directory per project and contender, extracted by a first run that is not
    // measured.
    let dirs: Vec<_> = MASTERSIM_MS
        .iter()
        .map(|(name, _)| {
            let project = corpus.join(format!("{name}.msim"));
            let dir = tempfile::tempdir().expect("temp dir");
            for (k, c) in contenders.iter().enumerate() {
                process::run(
                    c.binary,
                    &project,
                    &dir.path().join(format!("wd{k}")),
                    &c.args,
                );
            }
            (project, dir)
        })
        .collect();
    // Round robin over the projects and contenders, so that a slow spell of the machine (they
    // last seconds here) spreads over all of them instead of falling on the runs of one.
    let mut measured: Vec<Vec<Vec<process::Measured>>> = MASTERSIM_MS
        .iter()
        .map(|_| contenders.iter().map(|_| Vec::new()).collect())
        .collect();
    for _ in 0..runs {
        for ((project, dir), runs) in dirs.iter().zip(&mut measured) {
            for (k, c) in contenders.iter().enumerate() {
                let wd = dir.path().join(format!("wd{k}"));
                runs[k].push(process::run(c.binary, project, &wd, &c.args));
            }
        }
    }
    let mut all_within = true;
    let mut sums = vec![0.0; contenders.len()];
    for ((name, mastersim_ms), measured) in MASTERSIM_MS.iter().zip(&measured) {
        let ms: Vec<f64> = measured
            .iter()
            .map(|runs| median(runs.iter().map(|m| m.wall.as_secs_f64() * 1e3).collect()))
            .collect();
        for (sum, ms) in sums.iter_mut().zip(&ms) {
            *sum += ms;
        }
        let rss = median(
            measured[0]
                .iter()
                .map(|m| m.max_rss_kib as f64 / 1024.0)
                .collect(),
        );
        let target = target_ms(*mastersim_ms);
        let within = ms[0] <= target;
        all_within &= within;
        let others: String = ms[1..]
            .iter()
            .map(|m| format!(" {m:.2} | {:.3} |", ms[0] / m))
            .collect();
        println!(
            "| {name} | {mastersim_ms} | {target:.2} | {:.2} | {rss:.1} | {} |{others}",
            ms[0],
            if within { "yes" } else { "NO" }
        );
    }
    println!("\nall projects within target: {all_within}");
    for (k, label) in labels.iter().enumerate().skip(1) {
        println!(
            "sum of the medians: {} {:.1} ms, {label} {:.1} ms, {} / {label} = {:.3}",
            labels[0],
            sums[0],
            sums[k],
            labels[0],
            sums[0] / sums[k]
        );
    }
}
