//! `mastersim-bench`: the benchmark suite of mastersim (docs/performance.md).
//!
//! Every figure comes from running the release `mastersim` binary on generated or corpus
//! projects and is the median over repeated runs:
//! - `loop`: chains and rings of N = 10 … 10,000 `Scale` FMUs (`y = k·u + offset`), Gauss-Jacobi
//!   and Gauss-Seidel, 10,000 fixed steps, one result row per simulated second. Figure: µs
//!   per slave per step, from `WallClockTime` of `summary.txt` (first row to last), and the
//!   whole-process time outside the loop (setup and end);
//! - `write`: the same chain with a row on every step, CSV and MAT. Figure: ns per written
//!   value (extra whole-process wall time over the one-row-per-second run, divided by the
//!   extra values; the runs alternate and the median of the pairs' differences is taken);
//! - `parallel`: 8 `Busy` FMUs (fixed CPU work per `doStep`), Gauss-Jacobi, 1 thread against
//!   all cores; the results of both runs must be bit-identical;
//! - `corpus`: whole-process wall time and peak memory of every project of
//!   `../shared/corpus/mastersim`, against MasterSim 0.9.8's times.
//!
//! Run: `cargo run --release -p mastersim-bench -- [loop|write|parallel|corpus]...`
//! (all suites when none is named).

mod corpus;
mod generated;
mod process;

use std::path::PathBuf;

use clap::{Parser, ValueEnum};

/// Command line of the benchmark suite.
#[derive(Debug, Parser)]
#[command(
    name = "mastersim-bench",
    about = "Benchmarks of mastersim (docs/performance.md)"
)]
struct Cli {
    /// Suites to run [default: all].
    suites: Vec<Suite>,
    /// Runs per measurement (medians are reported) [default: 5; 21 for `corpus`].
    #[arg(long)]
    runs: Option<usize>,
    /// Largest N of the chain and ring benchmarks.
    #[arg(long, default_value_t = 10_000)]
    max_n: usize,
    /// Busy work per `doStep` of the parallel benchmark, µs.
    #[arg(long, default_value_t = 20.0)]
    work_micros: f64,
    /// The MasterSim regression corpus [default: $MASTERSIM_CORPUS/mastersim or
    /// ../shared/corpus/mastersim].
    #[arg(long)]
    corpus: Option<PathBuf>,
}

/// One part of the suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Suite {
    /// Stepping cost on chains and rings of cheap FMUs.
    Loop,
    /// Cost of writing a result row on every step (CSV, MAT).
    Write,
    /// Parallel Gauss-Jacobi on expensive FMUs.
    Parallel,
    /// Whole runs of the MasterSim regression projects.
    Corpus,
}

fn main() {
    let cli = Cli::parse();
    let suites = if cli.suites.is_empty() {
        Suite::value_variants().to_vec()
    } else {
        cli.suites.clone()
    };
    let mastersim = mastersim_tests::mastersim_bin();
    println!(
        "mastersim-bench: {} cores, binary {}",
        process::cores(),
        mastersim.display()
    );
    for suite in suites {
        match suite {
            Suite::Loop => generated::stepping(mastersim, cli.runs.unwrap_or(5), cli.max_n),
            Suite::Write => generated::writing(mastersim, cli.runs.unwrap_or(5)),
            Suite::Parallel => {
                generated::parallel(mastersim, cli.runs.unwrap_or(5), cli.work_micros)
            }
            Suite::Corpus => {
                let dir = cli
                    .corpus
                    .clone()
                    .unwrap_or_else(|| mastersim_tests::corpus_dir().join("mastersim"));
                corpus::whole_runs(mastersim, &dir, cli.runs.unwrap_or(21));
            }
        }
    }
}
