//! Many short isolated runs in one process (`docs/isolation.md`, "Costs"): what a sweep or a
//! Python session does when every case runs its slaves in helper processes. Each run is
//! `mastersim::simulate` of a one-slave project (the Reference FMU 0.0.1 Feedthrough of the
//! corpus, 0–0.1 s, h = 10 ms) with `isolate` set: one helper started, ten round trips, the
//! helper ended and reaped. Every `every` runs the process's resident memory and open file
//! descriptors are sampled (`isolation::census`); at the end no region file may be left in
//! `/dev/shm` and no child process (helper or zombie) may remain.

use std::path::Path;
use std::time::Instant;

use mastersim::master::isolation::{Census, census};

use crate::lower_bound::feedthrough;

/// Runs `runs` short isolated runs and prints a census every `runs / 10` runs.
///
/// # Panics
/// When the corpus FMU is missing (naming the path), a run fails, a region file or a child
/// process is left at the end, or the file descriptors at the end differ from those after the
/// first sample.
pub fn leaks(corpus: &Path, runs: usize) {
    println!("\n## Isolation: {runs} short isolated runs in one process\n");
    let dir = tempfile::tempdir().expect("temp dir");
    let project = one_slave_project(dir.path(), &feedthrough(corpus));
    let options = mastersim::Options {
        isolate: true,
        working_dir: Some(dir.path().join("wd")),
        ..mastersim::Options::default()
    };
    let every = (runs / 10).max(1);
    let start = census().expect("census");
    println!("| runs | VmRSS KiB | open fds | region files | children | ms per run |");
    println!("|---|---|---|---|---|---|");
    print_row(0, &start, 0.0);
    let mut first: Option<Census> = None;
    let mut clock = Instant::now();
    for run in 1..=runs {
        mastersim::simulate(&project, &options)
            .unwrap_or_else(|e| panic!("isolated run {run} of '{}': {e}", project.display()));
        if run % every == 0 || run == runs {
            let ms = clock.elapsed().as_secs_f64() * 1e3 / every as f64;
            let sample = census().expect("census");
            print_row(run, &sample, ms);
            first.get_or_insert(sample);
            clock = Instant::now();
        }
    }
    let end = census().expect("census");
    let first = first.expect("at least one sample");
    println!(
        "\nafter the first {every} runs → after {runs}: VmRSS {:+} KiB, open fds {:+}; \
         region files left: {}, child processes left: {}",
        end.rss_kib as i64 - first.rss_kib as i64,
        end.open_fds as i64 - first.open_fds as i64,
        end.region_files.len(),
        end.children.len()
    );
    assert!(end.region_files.is_empty(), "left in /dev/shm: {end:?}");
    assert!(end.children.is_empty(), "child processes left: {end:?}");
    assert_eq!(end.open_fds, first.open_fds, "open file descriptors grew");
}

fn print_row(runs: usize, census: &Census, ms_per_run: f64) {
    println!(
        "| {runs} | {} | {} | {} | {} | {ms_per_run:.2} |",
        census.rss_kib,
        census.open_fds,
        census.region_files.len(),
        census.children.len()
    );
}

/// A project of one Feedthrough slave, 10 steps.
fn one_slave_project(dir: &Path, fmu: &Path) -> std::path::PathBuf {
    let text = format!(
        "tStart 0 s\ntEnd 0.1 s\nhStart 0.01 s\nhOutputMin 0.01 s\nMasterMode GAUSS_SEIDEL\n\
         simulator 0 0 S0 #000000 \"{}\"\n",
        fmu.display()
    );
    let path = dir.join("one_feedthrough.msim");
    std::fs::write(&path, text).expect("write project");
    path
}
