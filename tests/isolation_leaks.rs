//! Many short isolated runs in one process leak nothing (`docs/isolation.md`, "Costs"): 300
//! runs of a one-slave project through the library (`mastersim::simulate` with `isolate`), as
//! a sweep or a Python session makes them. The open file descriptors are the same after as
//! before, resident memory grows by less than 2 MiB, no region file is left in `/dev/shm` and
//! no child process (helper or zombie) remains. The benchmark
//! `cargo run --release -p mastersim-bench -- isolation-sweep` does the same 10,000 times.
//!
//! The runs happen in a process of their own (this test binary started again for this test
//! only), because the other tests of this binary open files and start processes meanwhile.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use mastersim::master::isolation::census;
use mastersim_tests::example_workspace;

/// Set in the process that makes the runs: the test FMU to run.
const CHILD: &str = "MASTERSIM_LEAK_TEST_FMU";
/// Runs after the first (which starts the launcher thread and writes the helper program).
const RUNS: usize = 300;
/// Growth of resident memory allowed over the runs, KiB (allocator caches, lazily touched
/// pages of the libraries); a leak of one region mapping (64 MiB reserved) or of a helper's
/// pipes per run is far above it.
const RSS_GROWTH_KIB: u64 = 2048;

#[test]
fn many_isolated_runs_leak_no_memory_descriptors_regions_or_processes() {
    if let Some(fmu) = std::env::var_os(CHILD) {
        runs_in_this_process(Path::new(&fmu));
        return;
    }
    let fmu = example_workspace().join("fmus/packed/Prey.fmu");
    assert!(fmu.is_file(), "test FMU missing: '{}'", fmu.display());
    let started = Instant::now();
    let output = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "isolation_leaks::many_isolated_runs_leak_no_memory_descriptors_regions_or_processes",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(CHILD, &fmu)
        .output()
        .expect("the test binary starts again");
    let text = String::from_utf8_lossy(&output.stdout);
    println!("{text}{}", String::from_utf8_lossy(&output.stderr));
    assert!(
        output.status.success(),
        "the runs failed: {}",
        output.status
    );
    assert!(
        text.contains("leak check passed"),
        "the process of the runs did not run the check"
    );
    println!("({:.1} s)", started.elapsed().as_secs_f64());
}

fn runs_in_this_process(fmu: &Path) {
    let dir = tempfile::tempdir().expect("temp dir");
    let project = dir.path().join("one_prey.msim");
    let text = format!(
        "tStart 0 s\ntEnd 0.1 s\nhStart 0.01 s\nhOutputMin 0.01 s\nMasterMode GAUSS_SEIDEL\n\
         simulator 0 0 Prey #ff8c00 \"{}\"\n",
        fmu.display()
    );
    std::fs::write(&project, text).expect("write project");
    let options = mastersim::Options {
        isolate: true,
        working_dir: Some(dir.path().join("wd")),
        ..mastersim::Options::default()
    };
    let run = |n: usize| {
        mastersim::simulate(&project, &options).unwrap_or_else(|e| panic!("isolated run {n}: {e}"));
    };
    run(0);
    let before = census().expect("census");
    let started = Instant::now();
    for n in 1..=RUNS {
        run(n);
    }
    let seconds = started.elapsed().as_secs_f64();
    let after = census().expect("census");
    println!(
        "{RUNS} isolated runs in {seconds:.2} s: VmRSS {} -> {} KiB, open fds {} -> {}, \
         region files left {}, child processes {}",
        before.rss_kib,
        after.rss_kib,
        before.open_fds,
        after.open_fds,
        after.region_files.len(),
        after.children.len()
    );
    assert_eq!(after.open_fds, before.open_fds, "open file descriptors");
    assert!(
        after.rss_kib < before.rss_kib + RSS_GROWTH_KIB,
        "resident memory grew by {} KiB (bound {RSS_GROWTH_KIB} KiB)",
        after.rss_kib.saturating_sub(before.rss_kib)
    );
    assert!(after.region_files.is_empty(), "left in /dev/shm: {after:?}");
    assert!(after.children.is_empty(), "child processes left: {after:?}");
    println!("leak check passed");
}
