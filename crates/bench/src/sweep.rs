//! Sweeps (`mastersim sweep run`, local executor): the speed-up of 2 jobs over 1 on 100 short
//! cases, and the per-case cost of the sweep machinery over plain `mastersim` runs of the same
//! cases.
//!
//! Every case is the bundled Lotka-Volterra project with its own `Prey.alpha`. Each sweep run
//! starts in an empty sweep directory (removed untimed before it), so every case extracts its
//! FMUs, as a plain run in a new working directory does.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::process::median;

/// Cases per sweep.
const CASES: usize = 100;

/// The `--set` values of case `k`.
fn alpha(k: usize) -> String {
    format!("{:.3}", 1.0 + 0.001 * k as f64)
}

/// Writes a sweep file of [`CASES`] cases over the bundled Lotka-Volterra project, each with
/// the overrides `extra` (`--set` values) besides its `Prey.alpha`.
fn write_sweep(dir: &Path, name: &str, extra: &[&str]) -> PathBuf {
    let base = mastersim_tests::workspace_root().join("projects/lotka_volterra.msim");
    let alphas: Vec<String> = (0..CASES).map(alpha).collect();
    let options: Vec<String> = extra
        .iter()
        .flat_map(|o| ["\"--set\"".to_owned(), format!("\"{o}\"")])
        .collect();
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(
        &path,
        format!(
            "base = {base:?}\noptions = [{}]\n[grid]\n\"Prey.alpha\" = [{}]\n",
            options.join(", "),
            alphas.join(", ")
        ),
    )
    .expect("write sweep file");
    path
}

/// Wall time of `mastersim sweep run <sweep> --jobs <jobs>` into a new sweep directory, s.
fn sweep_seconds(mastersim: &Path, sweep: &Path, dir: &Path, jobs: usize) -> f64 {
    let _ = std::fs::remove_dir_all(dir);
    let started = Instant::now();
    let status = Command::new(mastersim)
        .args(["sweep", "run"])
        .arg(sweep)
        .arg("--sweep-dir")
        .arg(dir)
        .args(["--jobs", &jobs.to_string()])
        .stdout(Stdio::null())
        .status()
        .expect("mastersim starts");
    let seconds = started.elapsed().as_secs_f64();
    assert!(status.success(), "the sweep {} failed", sweep.display());
    seconds
}

/// Wall time of the sweep's cases as plain `mastersim` runs, one after another, each in a new
/// working directory below `dir`, s.
fn plain_seconds(mastersim: &Path, extra: &[&str], dir: &Path) -> f64 {
    let _ = std::fs::remove_dir_all(dir);
    let base = mastersim_tests::workspace_root().join("projects/lotka_volterra.msim");
    let started = Instant::now();
    for k in 0..CASES {
        let mut command = Command::new(mastersim);
        command
            .arg(&base)
            .arg("--working-dir")
            .arg(dir.join(k.to_string()))
            .args(["--set", &format!("Prey.alpha={}", alpha(k))]);
        for o in extra {
            command.args(["--set", o]);
        }
        let status = command
            .args(["--threads", "1"])
            .stdout(Stdio::null())
            .status()
            .expect("mastersim starts");
        assert!(status.success(), "plain run {k} failed");
    }
    started.elapsed().as_secs_f64()
}

/// Prints the speed-up of 2 jobs over 1 on [`CASES`] cases of about 0.1 s each, and the sweep
/// machinery's cost per case over plain runs on [`CASES`] cases of a few milliseconds (medians
/// of `runs`, the contenders alternating).
pub fn cost(mastersim: &Path, runs: usize) {
    let tmp = tempfile::tempdir().expect("temp dir");
    // About 0.1 s of stepping per case: 200,000 steps of 0.1 ms.
    let long = ["tEnd=20 s", "hStart=0.0001 s", "hOutputMin=0.1 s"];
    let sweep = write_sweep(tmp.path(), "speedup", &long);
    let (mut one, mut two) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        one.push(sweep_seconds(mastersim, &sweep, &tmp.path().join("s1"), 1));
        two.push(sweep_seconds(mastersim, &sweep, &tmp.path().join("s2"), 2));
    }
    let (one, two) = (median(one), median(two));
    println!(
        "sweep: {CASES} cases of 200,000 steps, local executor: 1 job {one:.2} s, 2 jobs {two:.2} s, \
         speed-up {:.2} (median of {runs})",
        one / two
    );
    // Short cases (2,000 steps): the sweep against the same runs started one by one.
    let short = ["tEnd=20 s"];
    let sweep = write_sweep(tmp.path(), "overhead", &short);
    let (mut swept, mut plain) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        swept.push(sweep_seconds(mastersim, &sweep, &tmp.path().join("o1"), 1));
        plain.push(plain_seconds(mastersim, &short, &tmp.path().join("plain")));
    }
    let (swept, plain) = (median(swept), median(plain));
    println!(
        "sweep: {CASES} cases of 2,000 steps: sweep run (1 job) {swept:.3} s, plain runs \
         {plain:.3} s: {:.2} ms per case for the sweep machinery (median of {runs})",
        (swept - plain) / CASES as f64 * 1e3
    );
}
