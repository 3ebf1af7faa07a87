//! `mastersim-bench`: the benchmark suite of mastersim (docs/performance.md).
//!
//! Every figure comes from running the release `mastersim` binary on generated or corpus
//! projects and is the median over repeated runs:
//! - `loop`: chains and rings of N = 10 … 10,000 `Scale` FMUs (`y = k·u + offset`), Gauss-Jacobi
//!   and Gauss-Seidel, 10,000 fixed steps, one result row per simulated second. Figure: µs
//!   per slave per step, from `WallClockTime` of `summary.txt` (first row to last), the
//!   whole-process time outside the loop (setup and end), and the cost per slave-step at
//!   N = 10,000 against N = 100 (the N of a configuration are run round robin);
//! - `write`: the same chain with a row on every step, CSV and MAT. Figure: ns per written
//!   value (extra whole-process wall time over the one-row-per-second run, divided by the
//!   extra values; the runs alternate and the median of the pairs' differences is taken);
//! - `parallel`: 8 `Busy` FMUs (fixed CPU work per `doStep`), Gauss-Jacobi, 1 thread against
//!   all cores; the results of both runs must be bit-identical;
//! - `corpus`: whole-process wall time and peak memory of every project of
//!   `../shared/corpus/mastersim` (with MasterSim's time arithmetic), against MasterSim
//!   0.9.8's times;
//! - `lower-bound`: a chain of 100 Reference FMU Feedthroughs of the corpus, mastersim's
//!   whole-process time per slave-step against the least any master must spend: the same chain
//!   driven by `doStep` and the connected get/set only;
//! - `multirate`: 100 `Busy` FMUs at 1 ms against 1 at 1 ms and 99 at 100 ms over 10 s:
//!   `doStep` calls and whole-process wall time, and their ratios;
//! - `isolation`: a chain of 10 Reference FMU Feedthroughs and two corpus FMUs in-process
//!   against `--isolate`: the cost of a round trip per isolated slave-step, and the ratio of
//!   whole runs (`docs/isolation.md`);
//! - `isolation-sweep`: `--runs` (default 10,000) short isolated runs in one process through
//!   the library: resident memory and open file descriptors every tenth of them, and no region
//!   file or child process left at the end (`docs/isolation.md`);
//! - `sweep`: `mastersim sweep run` of 100 Lotka-Volterra cases, 2 jobs against 1 (speed-up),
//!   and against the same cases as plain runs one after another (cost per case);
//! - `live`: a 500,000-row Lotka-Volterra run plain, with `--live` and no page, and with
//!   `--live` and a headless Chromium page: loop wall time, the run's and the server thread's
//!   CPU time, peak memory (also of a 2,000,000-row run, with the MAT file and with only
//!   `values.csv`).
//!
//! `--baseline <commit>` builds the `mastersim` of an earlier commit in a git worktree and runs
//! `loop` and `corpus` with both binaries, alternating their runs, and prints the ratio.
//!
//! Run: `cargo run --release -p mastersim-bench --
//! [loop|write|parallel|corpus|lower-bound|multirate|checkpoint|sweep|isolation|isolation-sweep|live]...
//! [--baseline <commit>]` (all suites when none is named).

mod baseline;
mod checkpoint;
mod corpus;
mod generated;
mod isolation;
mod isolation_sweep;
mod live;
mod lower_bound;
mod multirate;
mod process;
mod sweep;

use baseline::Contender;

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
    /// Runs per measurement (medians are reported) [default: 5; 21 for `corpus`; for
    /// `isolation-sweep` the number of runs, 10,000].
    #[arg(long)]
    runs: Option<usize>,
    /// Largest N of the chain and ring benchmarks.
    #[arg(long, default_value_t = 10_000)]
    max_n: usize,
    /// Busy work per `doStep` of the parallel and multi-rate benchmarks, µs.
    #[arg(long, default_value_t = 20.0)]
    work_micros: f64,
    /// The conformance corpus [default: $MASTERSIM_CORPUS or ../shared/corpus].
    #[arg(long)]
    corpus: Option<PathBuf>,
    /// Also measure the `mastersim` of this earlier commit (`loop` and `corpus`), built in a
    /// git worktree under target/bench-baseline.
    #[arg(long, value_name = "COMMIT")]
    baseline: Option<String>,
    /// Internal: run the lower-bound chain on the FMU extracted in DIR and print its loop time
    /// (the `lower-bound` suite starts this as a process of its own).
    #[arg(long, value_name = "DIR", hide = true)]
    lower_bound_driver: Option<PathBuf>,
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
    /// The Feedthrough chain against the lower bound of any master.
    LowerBound,
    /// One fast and 99 slow slaves against all 100 fast (multi-rate co-simulation).
    Multirate,
    /// Checkpoints every second on the corpus Lotka-Volterra and Math003 projects.
    Checkpoint,
    /// Sweeps of 100 cases: 2 jobs against 1, and the cost per case over plain runs.
    Sweep,
    /// Slaves in helper processes against in-process (`--isolate`).
    Isolation,
    /// The cost of `--live`, with and without a page attached, and the server's memory.
    Live,
    /// Many short isolated runs in one process: memory, descriptors, leftovers.
    IsolationSweep,
}

fn main() {
    let cli = Cli::parse();
    if let Some(dir) = &cli.lower_bound_driver {
        println!("{}", lower_bound::drive(dir));
        return;
    }
    let suites = if cli.suites.is_empty() {
        Suite::value_variants().to_vec()
    } else {
        cli.suites.clone()
    };
    // `isolation-sweep` runs the library in this process: no binary to build for it alone.
    let binary_needed = suites.iter().any(|s| *s != Suite::IsolationSweep);
    let mastersim = if binary_needed {
        mastersim_tests::mastersim_bin()
    } else {
        std::path::Path::new("(none: the library in this process)")
    };
    println!(
        "mastersim-bench: {} cores, binary {}",
        process::cores(),
        mastersim.display()
    );
    let baseline = cli
        .baseline
        .as_deref()
        .map(|commit| (commit, baseline::build(commit)));
    if let Some((commit, bin)) = &baseline {
        println!("baseline: commit {commit}, binary {}", bin.display());
    }
    // `args` of the current binary: MasterSim's time arithmetic for the corpus projects, the
    // baseline's default (its runs then do the same work).
    let contenders = |args: Vec<&'static str>| {
        let mut all = vec![Contender {
            label: "current".into(),
            binary: mastersim,
            args,
        }];
        if let Some((commit, bin)) = &baseline {
            all.push(Contender {
                label: format!("baseline {commit}"),
                binary: bin,
                args: vec![],
            });
        }
        all
    };
    let corpus = || {
        cli.corpus
            .clone()
            .unwrap_or_else(mastersim_tests::corpus_dir)
    };
    for suite in suites {
        match suite {
            Suite::Loop => {
                generated::stepping(&contenders(vec![]), cli.runs.unwrap_or(5), cli.max_n);
            }
            Suite::Write => generated::writing(mastersim, cli.runs.unwrap_or(5)),
            Suite::Parallel => {
                generated::parallel(mastersim, cli.runs.unwrap_or(5), cli.work_micros)
            }
            Suite::Corpus => corpus::whole_runs(
                &contenders(vec!["--time-arithmetic", "mastersim"]),
                &corpus().join("mastersim"),
                cli.runs.unwrap_or(21),
            ),
            Suite::LowerBound => {
                lower_bound::compare(mastersim, &corpus(), cli.runs.unwrap_or(11));
            }
            Suite::Multirate => multirate::cost(mastersim, cli.runs.unwrap_or(3), cli.work_micros),
            Suite::Checkpoint => checkpoint::cost(
                mastersim,
                &corpus().join("mastersim"),
                cli.runs.unwrap_or(5),
                8.0,
            ),
            Suite::Sweep => sweep::cost(mastersim, cli.runs.unwrap_or(3)),
            Suite::Isolation => isolation::cost(mastersim, &corpus(), cli.runs.unwrap_or(5)),
            Suite::Live => live::cost(mastersim, cli.runs.unwrap_or(5)),
            Suite::IsolationSweep => {
                isolation_sweep::leaks(&corpus(), cli.runs.unwrap_or(10_000));
            }
        }
    }
}
