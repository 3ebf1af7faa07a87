//! Multi-rate cost: one fast slave and 99 slow ones against all 100 at the fast rate
//! (`docs/algorithms.md`, multi-rate co-simulation).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::process::{self, median};

/// Slaves in the chain.
const SLAVES: usize = 100;

/// Writes the chain project into `dir`: 100 `Busy` slaves (each `work_micros` µs of CPU per
/// step), hStart 1 ms over 10 s, Gauss-Jacobi; with `multirate`, S1 … S99 step every 100 ms,
/// otherwise every 1 ms.
fn write_project(dir: &Path, work_micros: f64, multirate: bool) -> PathBuf {
    let fmu = mastersim_tests::workspace_root().join("fmus/packed/Busy.fmu");
    let mut text = String::from(
        "tStart 0 s\ntEnd 10 s\nhStart 1 ms\nhOutputMin 0.1 s\nMasterMode GAUSS_JACOBI\nmaxIterations 1\n",
    );
    for i in 0..SLAVES {
        let _ = writeln!(text, "simulator {i} 0 S{i} #000000 \"{}\"", fmu.display());
        let _ = writeln!(
            text,
            "parameter S{i}.k 0.999\nparameter S{i}.offset 0.001\nparameter S{i}.workMicros {work_micros}"
        );
        // S0's line restates the master's step: it makes both projects multi-rate runs, so
        // that both report their slaves' doStep calls in summary.txt.
        let interval = if i == 0 || !multirate {
            "1 ms"
        } else {
            "100 ms"
        };
        let _ = writeln!(text, "communicationInterval S{i} {interval}");
        if i > 0 {
            let _ = writeln!(text, "graph S{}.y S{i}.u", i - 1);
        }
    }
    let path = dir.join(if multirate {
        "multirate.msim"
    } else {
        "single.msim"
    });
    std::fs::write(&path, text).expect("write project");
    path
}

/// The summed `doStep` calls of every slave in `summary.txt` of working directory `wd` (the
/// `Slave[i]DoStepCalls` lines of multi-rate runs; 0 for others).
fn do_step_calls(wd: &Path) -> u64 {
    std::fs::read_to_string(wd.join("log/summary.txt"))
        .expect("summary.txt")
        .lines()
        .filter_map(|l| l.split_once("DoStepCalls="))
        .map(|(_, n)| n.parse::<u64>().expect("a doStep count"))
        .sum()
}

/// One slave at 1 ms and 99 at 100 ms against all 100 at 1 ms, over 10 s: `doStep` calls and
/// whole-process wall time (median of `runs`, the two projects alternating), and their ratios.
pub fn cost(mastersim: &Path, runs: usize, work_micros: f64) {
    println!(
        "\n## Multi-rate cost: 100 Busy FMUs ({work_micros} µs per doStep) over 10 s, 1 at 1 ms and 99 at 100 ms against all at 1 ms\n"
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let projects = [
        ("all at 1 ms", write_project(dir.path(), work_micros, false)),
        (
            "1 at 1 ms, 99 at 100 ms",
            write_project(dir.path(), work_micros, true),
        ),
    ];
    let wd = |k: usize| dir.path().join(format!("wd{k}"));
    for (k, (_, project)) in projects.iter().enumerate() {
        process::run(mastersim, project, &wd(k), &[]);
    }
    let mut walls = [Vec::new(), Vec::new()];
    let mut calls = [0, 0];
    for _ in 0..runs {
        for (k, (_, project)) in projects.iter().enumerate() {
            let m = process::run(mastersim, project, &wd(k), &[]);
            walls[k].push(m.wall.as_secs_f64());
            calls[k] = do_step_calls(&wd(k));
        }
    }
    println!("| project | runs | doStep calls | whole process s (median) |");
    println!("|---|---|---|---|");
    let wall: Vec<f64> = walls.into_iter().map(median).collect();
    for (k, (label, _)) in projects.iter().enumerate() {
        println!("| {label} | {runs} | {} | {:.4} |", calls[k], wall[k]);
    }
    let call_ratio = calls[1] as f64 / calls[0] as f64;
    let wall_ratio = wall[1] / wall[0];
    println!(
        "\nmulti-rate / single-rate: doStep calls {call_ratio:.4} (1/{:.1}), whole process {wall_ratio:.4} (1/{:.1}); target: at most 1/20 each",
        1.0 / call_ratio,
        1.0 / wall_ratio
    );
}
