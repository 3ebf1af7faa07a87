//! The cost of the master against the least a master can do: a chain of 100 Reference FMU 0.0.1
//! Feedthroughs (`S(i-1).real_continuous_out → S(i).real_continuous_in`), h = 1 ms, 0–10 s, a
//! result row per simulated second.
//!
//! - mastersim: the release binary on that project (Gauss-Seidel), whole-process wall time
//!   (reading the project, extraction, loading, instantiation, initialization, stepping, result
//!   files, summary) per slave-step;
//! - lower bound: the same chain driven through the `fmi` crate by the fewest FMI calls a step
//!   needs — `doStep` of every slave, and the get/set of the connected variables — with no
//!   master logic: no project, no result files, no statistics, no checks. It runs as a process
//!   of its own (this benchmark binary, `--lower-bound-driver`), so that its whole-process time
//!   (start, loading the FMU, instantiation, initialization, the loop, freeing) compares with
//!   mastersim's; its stepping loop alone is reported too.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use fmi::{Fmu, InstantiateOptions, ValueRef};

use crate::process::{self, median};

/// Slaves in the chain.
const N: usize = 100;
/// Communication step size, s.
const H: f64 = 1e-3;
/// Communication steps (0–10 s).
const STEPS: usize = 10_000;

/// The Feedthrough FMU of the corpus.
pub fn feedthrough(corpus: &Path) -> std::path::PathBuf {
    let fmu = corpus.join("crosscheck/fmi2/TestFMUs-0.0.1/Feedthrough/Feedthrough.fmu");
    assert!(
        fmu.is_file(),
        "the Feedthrough FMU of the corpus is missing: looked for '{}'",
        fmu.display()
    );
    fmu
}

/// Writes the chain project of `n` slaves of `fmu` into `dir` (h = 1 ms, 0–10 s).
pub fn chain_project(dir: &Path, fmu: &Path, n: usize) -> std::path::PathBuf {
    let mut text = format!(
        "tStart 0 s\ntEnd {} s\nhStart {H} s\nhOutputMin 1 s\nMasterMode GAUSS_SEIDEL\n\
         ErrorControlMode NONE\nmaxIterations 1\n",
        STEPS as f64 * H
    );
    for i in 0..n {
        let _ = writeln!(text, "simulator {i} 0 S{i} #000000 \"{}\"", fmu.display());
    }
    for i in 1..n {
        let _ = writeln!(
            text,
            "graph S{}.real_continuous_out S{i}.real_continuous_in",
            i - 1
        );
    }
    let path = dir.join("feedthrough_chain.msim");
    std::fs::write(&path, text).expect("write project");
    path
}

/// The lower bound: `N` instances of the FMU extracted in `dir`, each step setting the connected
/// input from the predecessor's output, stepping, and reading the output the next slave needs
/// (the last slave's feeds nothing). Returns the time of the stepping loop, s.
///
/// # Panics
/// When the FMU cannot be loaded or a call fails.
pub fn drive(dir: &Path) -> f64 {
    let fmu = Fmu::load(dir).expect("load Feedthrough");
    let description = fmu.description();
    let vr = |name: &str| -> ValueRef {
        description
            .variable_by_name(name)
            .unwrap_or_else(|| panic!("Feedthrough has no '{name}'"))
            .value_reference
    };
    let (u, y) = ([vr("real_continuous_in")], [vr("real_continuous_out")]);
    let mut slaves: Vec<_> = (0..N)
        .map(|i| {
            let mut instance = fmu
                .instantiate(&format!("S{i}"), &InstantiateOptions::default())
                .expect("instantiate");
            instance
                .setup_experiment(None, 0.0, Some(STEPS as f64 * H))
                .expect("setup");
            instance.enter_initialization_mode().expect("enter init");
            instance.exit_initialization_mode().expect("exit init");
            instance
        })
        .collect();
    let mut value = [0.0];
    let started = Instant::now();
    for n in 0..STEPS {
        let t = n as f64 * H;
        for (i, slave) in slaves.iter_mut().enumerate() {
            if i > 0 {
                slave.set_real(&u, &value).expect("set");
            }
            slave.do_step(t, H, true).expect("doStep");
            if i + 1 < N {
                slave.get_real(&y, &mut value).expect("get");
            }
        }
    }
    started.elapsed().as_secs_f64()
}

/// Runs the lower-bound driver as a process; returns its whole-process and loop time, s.
fn lower_bound_process(extracted: &Path) -> (f64, f64) {
    let started = Instant::now();
    let output = std::process::Command::new(std::env::current_exe().expect("own binary"))
        .arg("--lower-bound-driver")
        .arg(extracted)
        .output()
        .expect("the lower-bound driver starts");
    let whole = started.elapsed().as_secs_f64();
    assert!(output.status.success(), "the lower-bound driver failed");
    let looped = String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .expect("the driver prints its loop time");
    (whole, looped)
}

/// Runs both `runs` times, alternating, and prints µs per slave-step and the ratios.
///
/// # Panics
/// When the corpus is missing (naming the path) or a run fails.
pub fn compare(mastersim: &Path, corpus: &Path, runs: usize) {
    let fmu = feedthrough(corpus);
    let dir = tempfile::tempdir().expect("temp dir");
    let project = chain_project(dir.path(), &fmu, N);
    let extracted = dir.path().join("lower-bound");
    fmi::archive::extract(&fmu, &extracted, &Default::default()).expect("extract");
    let wd = dir.path().join("wd");
    process::run(mastersim, &project, &wd, &[]);
    lower_bound_process(&extracted);
    let per = |seconds: f64| seconds / (N * STEPS) as f64 * 1e6;
    let (mut whole, mut looped, mut bound_whole, mut bound_loop) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let m = process::run(mastersim, &project, &wd, &[]);
        whole.push(per(m.wall.as_secs_f64()));
        looped.push(per(m.summary_number("WallClockTime")));
        let (w, l) = lower_bound_process(&extracted);
        bound_whole.push(per(w));
        bound_loop.push(per(l));
    }
    let (whole, looped) = (median(whole), median(looped));
    let (bound_whole, bound_loop) = (median(bound_whole), median(bound_loop));
    println!(
        "\n## Master cost against the lower bound: {N} Feedthroughs (Reference FMUs 0.0.1), h = 1 ms, 10 s, {runs} runs (median)\n"
    );
    println!("| µs per slave-step | whole process | stepping loop |");
    println!("|---|---|---|");
    println!(
        "| lower bound (doStep and the connected get/set only) | {bound_whole:.4} | {bound_loop:.4} |"
    );
    println!("| mastersim | {whole:.4} | {looped:.4} |");
    println!(
        "| mastersim / lower bound | {:.2} | {:.2} |",
        whole / bound_whole,
        looped / bound_loop
    );
}
