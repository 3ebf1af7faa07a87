//! Benchmarks on generated projects of the own workload FMUs (`fmus/workload`): chains and
//! rings of `Scale`, result writing, parallel Gauss-Jacobi on `Busy`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::baseline::Contender;
use crate::process::{self, Measured, median};

/// Steps of every generated run: 0 … 100 s with h = 0.01 s.
const STEPS: f64 = 10_000.0;
const T_END: &str = "100 s";
const H: &str = "0.01 s";

/// How the slaves are connected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Topology {
    /// `S0 → S1 → … → S(N-1)`.
    Chain,
    /// A chain closed by `S(N-1) → S0` (an algebraic loop through all slaves).
    Ring,
}

/// A generated project: `n` instances of `fmu` (a file of `fmus/packed`), connected as
/// `topology`, stepped by `algorithm`, a row every `h_output`.
struct Spec<'a> {
    n: usize,
    fmu: &'a str,
    topology: Topology,
    algorithm: &'a str,
    h_output: &'a str,
    /// Extra `parameter` value for every slave: `(variable, value)`.
    parameter: Option<(&'a str, f64)>,
}

impl Spec<'_> {
    /// Writes the project into `dir` and returns its path.
    fn write(&self, dir: &Path) -> PathBuf {
        let fmu = mastersim_tests::workspace_root()
            .join("fmus/packed")
            .join(format!("{}.fmu", self.fmu));
        let mut text = format!(
            "tStart 0 s\ntEnd {T_END}\nhStart {H}\nhOutputMin {}\nMasterMode {}\nErrorControlMode NONE\nmaxIterations 1\n",
            self.h_output, self.algorithm
        );
        for i in 0..self.n {
            let _ = writeln!(text, "simulator {i} 0 S{i} #000000 \"{}\"", fmu.display());
        }
        for i in 1..self.n {
            let _ = writeln!(text, "graph S{}.y S{i}.u", i - 1);
        }
        if self.topology == Topology::Ring {
            let _ = writeln!(text, "graph S{}.y S0.u", self.n - 1);
        }
        for i in 0..self.n {
            // y = 0.999·u + 0.001 keeps every value near 1.
            let _ = writeln!(text, "parameter S{i}.k 0.999\nparameter S{i}.offset 0.001");
            if let Some((name, value)) = self.parameter {
                let _ = writeln!(text, "parameter S{i}.{name} {value}");
            }
        }
        let path = dir.join("bench.msim");
        std::fs::write(&path, text).expect("write project");
        path
    }
}

/// Median `WallClockTime` (s) of `runs`.
fn wall_clock(runs: &[Measured]) -> f64 {
    median(
        runs.iter()
            .map(|m| m.summary_number("WallClockTime"))
            .collect(),
    )
}

/// Runs of one configuration at several N: every project `runs` times (at most 3 times from
/// N = 10,000) with every contender, round robin over the projects and the contenders (one
/// unmeasured run each first, which extracts the FMUs), so that a drift of the machine's speed
/// falls on every N alike. Returns the measurements per spec, then per contender.
fn measure_round_robin(
    specs: &[Spec],
    contenders: &[Contender],
    runs: usize,
) -> Vec<Vec<Vec<Measured>>> {
    let dir = tempfile::tempdir().expect("temp dir");
    let projects: Vec<PathBuf> = specs
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let d = dir.path().join(format!("n{i}"));
            std::fs::create_dir_all(&d).expect("project dir");
            spec.write(&d)
        })
        .collect();
    let wd = |i: usize, k: usize| dir.path().join(format!("n{i}/wd{k}"));
    let runs_of = |spec: &Spec| if spec.n >= 10_000 { runs.min(3) } else { runs };
    for (i, project) in projects.iter().enumerate() {
        for (k, c) in contenders.iter().enumerate() {
            process::run(c.binary, project, &wd(i, k), &c.args);
        }
    }
    let mut measured: Vec<Vec<Vec<Measured>>> = specs
        .iter()
        .map(|_| contenders.iter().map(|_| Vec::new()).collect())
        .collect();
    for run in 0..runs {
        for (i, (spec, project)) in specs.iter().zip(&projects).enumerate() {
            if run >= runs_of(spec) {
                continue;
            }
            for (k, c) in contenders.iter().enumerate() {
                measured[i][k].push(process::run(c.binary, project, &wd(i, k), &c.args));
            }
        }
    }
    measured
}

/// Chains and rings of N cheap FMUs: µs per slave per step, for every contender (their runs
/// alternate), and the ratio of the first to each other one. Then, per configuration and
/// contender, the cost per slave-step at the largest N against N = 100, from the same
/// round-robin runs (the figure of `docs/performance.md`, target at most 1.3).
pub fn stepping(contenders: &[Contender], runs: usize, max_n: usize) {
    println!(
        "\n## Stepping cost: chains and rings of Scale FMUs, 10,000 steps, a row per simulated second\n"
    );
    let labels: Vec<&str> = contenders.iter().map(|c| c.label.as_str()).collect();
    println!(
        "| topology | algorithm | N | runs | {} |",
        labels
            .iter()
            .map(|l| format!("{l}: µs per slave per step (median) | {l}: outside the loop ms"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("|---|---|---|---|{}", "---|---|".repeat(contenders.len()));
    let mut ratios = Vec::new();
    let mut growth = Vec::new();
    for (topology, algorithm) in [
        (Topology::Chain, "GAUSS_JACOBI"),
        (Topology::Chain, "GAUSS_SEIDEL"),
        (Topology::Ring, "GAUSS_JACOBI"),
        (Topology::Ring, "GAUSS_SEIDEL"),
    ] {
        let specs: Vec<Spec> = [10, 100, 1_000, 10_000]
            .into_iter()
            .filter(|&n| n <= max_n)
            .map(|n| Spec {
                n,
                fmu: "Scale",
                topology,
                algorithm,
                h_output: "1 s",
                parameter: None,
            })
            .collect();
        let measured = measure_round_robin(&specs, contenders, runs);
        let mut costs = Vec::new();
        for (spec, measured) in specs.iter().zip(&measured) {
            let n = spec.n;
            let mut cells = Vec::new();
            let mut per_step = Vec::new();
            for runs in measured {
                let us = wall_clock(runs) / (n as f64 * STEPS) * 1e6;
                // Reading the project, loading and instantiating, initialization, the summary.
                let outside = median(
                    runs.iter()
                        .map(|m| m.wall.as_secs_f64() - m.summary_number("WallClockTime"))
                        .collect(),
                ) * 1e3;
                cells.push(format!("{us:.4} | {outside:.1}"));
                per_step.push(us);
            }
            println!(
                "| {topology:?} | {algorithm} | {n} | {} | {} |",
                measured[0].len(),
                cells.join(" | ")
            );
            costs.push((n, per_step.clone()));
            ratios.push(per_step);
        }
        growth.push((topology, algorithm, costs));
    }
    print_ratios(&labels, &ratios, "µs per slave per step");
    print_growth(&labels, &growth);
}

/// Per configuration and contender: µs per slave-step at N = 100 and at the largest N, and
/// their ratio (nothing when N = 100 is the largest).
#[allow(clippy::type_complexity)]
fn print_growth(labels: &[&str], growth: &[(Topology, &str, Vec<(usize, Vec<f64>)>)]) {
    let Some((_, _, costs)) = growth.first() else {
        return;
    };
    let Some(&(large, _)) = costs.last().filter(|&&(n, _)| n > 100) else {
        return;
    };
    println!("\n## Cost per slave-step at N = {large} against N = 100 (same runs)\n");
    println!("| topology | algorithm | contender | N = 100 µs | N = {large} µs | {large} / 100 |");
    println!("|---|---|---|---|---|---|");
    for (topology, algorithm, costs) in growth {
        let at = |n: usize| costs.iter().find(|(m, _)| *m == n).map(|(_, c)| c);
        let (Some(small), Some(big)) = (at(100), at(large)) else {
            continue;
        };
        for (k, label) in labels.iter().enumerate() {
            println!(
                "| {topology:?} | {algorithm} | {label} | {:.4} | {:.4} | {:.2} |",
                small[k],
                big[k],
                big[k] / small[k]
            );
        }
    }
}

/// For two or more contenders: the ratio of the first to each later one, per configuration
/// (geometric mean and worst).
fn print_ratios(labels: &[&str], rows: &[Vec<f64>], figure: &str) {
    for (k, label) in labels.iter().enumerate().skip(1) {
        let ratios: Vec<f64> = rows.iter().map(|r| r[0] / r[k]).collect();
        let geometric = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
        let worst = ratios.iter().copied().fold(0.0, f64::max);
        println!(
            "\n{} / {label}: {figure}, geometric mean of the ratios {geometric:.3}, worst {worst:.3}",
            labels[0]
        );
    }
}

/// A row on every step against a row per second: ns per written value, CSV and MAT. The two
/// runs of a pair follow each other, and the median is taken over the pairs' differences, so
/// that drifts of the machine's speed between pairs cancel.
pub fn writing(mastersim: &Path, runs: usize) {
    println!(
        "\n## Result writing: Gauss-Seidel chain of Scale FMUs, 10,000 steps, a row on every step\n"
    );
    println!(
        "| format | N | pairs | extra ns per written value (median) | whole run ns per written value |"
    );
    println!("|---|---|---|---|---|");
    for (format, name) in [("csv", "CSV"), ("mat", "MAT")] {
        for n in [10, 100, 1_000] {
            let spec = |h_output| Spec {
                n,
                fmu: "Scale",
                topology: Topology::Chain,
                algorithm: "GAUSS_SEIDEL",
                h_output,
                parameter: None,
            };
            let (sparse, dense) = (spec("1 s"), spec(H));
            let dir = tempfile::tempdir().expect("temp dir");
            let (sparse_project, dense_project) = {
                let (a, b) = (dir.path().join("sparse"), dir.path().join("dense"));
                std::fs::create_dir_all(&a).expect("dir");
                std::fs::create_dir_all(&b).expect("dir");
                (sparse.write(&a), dense.write(&b))
            };
            let args = ["--result-format", format];
            // Rows at 0, 0.01, …, 100 s against 0, 1, …, 100 s.
            let extra_values = (STEPS + 1.0 - 101.0) * n as f64;
            let all_values = (STEPS + 1.0) * n as f64;
            let mut extra = Vec::with_capacity(runs);
            let mut all = Vec::with_capacity(runs);
            for _ in 0..runs {
                let s = process::run(
                    mastersim,
                    &sparse_project,
                    &dir.path().join("wd-sparse"),
                    &args,
                );
                let d = process::run(
                    mastersim,
                    &dense_project,
                    &dir.path().join("wd-dense"),
                    &args,
                );
                // Whole-process times: they include finishing the files after the last step.
                let (s, d) = (s.wall.as_secs_f64(), d.wall.as_secs_f64());
                extra.push((d - s) / extra_values * 1e9);
                all.push(d / all_values * 1e9);
            }
            println!(
                "| {name} | {n} | {runs} | {:.1} | {:.1} |",
                median(extra),
                median(all)
            );
        }
    }
}

/// Parallel Gauss-Jacobi: 8 Busy FMUs, 1 thread against all cores, bit-identical results.
pub fn parallel(mastersim: &Path, runs: usize, work_micros: f64) {
    let cores = process::cores();
    println!(
        "\n## Parallel Gauss-Jacobi: 8 Busy FMUs ({work_micros} µs of work per doStep), 10,000 steps\n"
    );
    println!("| threads | runs | wall clock s (median) | speed-up |");
    println!("|---|---|---|---|");
    let spec = Spec {
        n: 8,
        fmu: "Busy",
        topology: Topology::Chain,
        algorithm: "GAUSS_JACOBI",
        h_output: "1 s",
        parameter: Some(("workMicros", work_micros)),
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let project = spec.write(dir.path());
    let mut serial = None;
    let mut results = Vec::new();
    for threads in [1, cores] {
        let wd = dir.path().join(format!("wd{threads}"));
        let threads_arg = threads.to_string();
        let args = ["--threads", threads_arg.as_str()];
        let measured: Vec<Measured> = (0..runs)
            .map(|_| process::run(mastersim, &project, &wd, &args))
            .collect();
        let wall = wall_clock(&measured);
        let serial_wall = *serial.get_or_insert(wall);
        println!(
            "| {threads} | {runs} | {wall:.4} | {:.2} |",
            serial_wall / wall
        );
        results.push(std::fs::read(wd.join("results/values.csv")).expect("values.csv"));
    }
    let identical = results.windows(2).all(|w| w[0] == w[1]);
    println!("\nvalues.csv of 1 and {cores} threads bit-identical: {identical}");
    assert!(identical, "parallel results differ from serial ones");
}
