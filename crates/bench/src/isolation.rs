//! The cost of isolation (`docs/isolation.md`): the same projects with every slave in-process
//! and in helper processes (`--isolate`), the runs alternating.
//!
//! - a chain of 10 Reference FMU 0.0.1 Feedthroughs (h = 1 ms, 0–10 s: 100,000 slave-steps):
//!   the stepping time per slave-step (`WallClockTime` of `summary.txt`, first row to last)
//!   in-process and isolated; their difference is the cost of one round trip per slave-step
//!   (the deferral of setters and the prefetch of getters make it one);
//! - the 20-sim Threetank and the OpenModelica WaterTank of the corpus run on their own (their
//!   default experiment): whole-process wall time (ms) in-process and isolated, and the ratio.

use std::path::Path;

use crate::lower_bound::{chain_project, feedthrough};
use crate::process::{self, median};

/// Slaves in the Feedthrough chain.
const CHAIN: usize = 10;
/// Slave-steps of the chain: 10 slaves × 10,000 steps.
const SLAVE_STEPS: f64 = (CHAIN * 10_000) as f64;

/// Prints the isolation figures, medians of `runs` alternating runs.
///
/// # Panics
/// When the corpus is missing (naming the path) or a run fails.
pub fn cost(mastersim: &Path, corpus: &Path, runs: usize) {
    println!("\n## Isolation: in-process against helper processes (--isolate)\n");
    let dir = tempfile::tempdir().expect("temp dir");
    let chain = chain_project(dir.path(), &feedthrough(corpus), CHAIN);
    let wd = |label: &str| dir.path().join(label);
    let modes: [(&str, &[&str]); 2] = [("in-process", &[]), ("isolated", &["--isolate"])];
    let mut stepping = [Vec::new(), Vec::new()];
    for round in 0..=runs {
        for (k, (label, args)) in modes.iter().enumerate() {
            let m = process::run(mastersim, &chain, &wd(label), args);
            if round > 0 {
                stepping[k].push(m.summary_number("WallClockTime") / SLAVE_STEPS * 1e6);
            }
        }
    }
    let [inside, isolated] = stepping.map(median);
    println!("| chain of {CHAIN} Feedthroughs | µs per slave-step (median of {runs}) |");
    println!("|---|---|");
    println!("| in-process | {inside:.2} |");
    println!("| isolated | {isolated:.2} |");
    println!(
        "\nround trip per isolated slave-step: {:.2} µs (target ≤ 5 µs)\n",
        isolated - inside
    );
    println!("| corpus FMU | in-process ms | isolated ms | ratio (target ≤ 1.3) |");
    println!("|---|---|---|---|");
    for fmu in [
        "crosscheck/fmi2/20sim/4.6.4.8004/Threetank/Threetank.fmu",
        "crosscheck/fmi2/OpenModelica/v1.11.0/WaterTank_Control/WaterTank_Control.fmu",
    ] {
        let path = corpus.join(fmu);
        assert!(path.is_file(), "missing corpus FMU '{}'", path.display());
        let mut walls = [Vec::new(), Vec::new()];
        for round in 0..=runs {
            for (k, (label, args)) in modes.iter().enumerate() {
                let m = process::run(mastersim, &path, &wd(label), args);
                if round > 0 {
                    walls[k].push(m.wall.as_secs_f64() * 1e3);
                }
            }
        }
        let [a, b] = walls.map(median);
        let name = path.file_stem().unwrap_or_default().to_string_lossy();
        println!("| {name} | {a:.2} | {b:.2} | {:.2} |", b / a);
    }
}
