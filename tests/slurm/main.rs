//! The Slurm executor of `mastersim sweep` on a real one-node cluster (`cluster.rs`): a grid
//! sweep under Slurm gives the local executor's results byte for byte, and an array task
//! stopped with SIGTERM checkpoints, requeues itself and completes with the results of an
//! unbroken run. The cluster's daemons run as child processes of the test, so run one test at
//! a time:
//!
//! ```text
//! cargo test --release -p mastersim-tests --test slurm -- --test-threads=1
//! ```
//!
//! `.ci/run` installs Slurm from the distribution's packages first; without it (or without
//! root) the tests fail and say why.

mod cluster;

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use cluster::Cluster;
use mastersim_tests::{
    case_values_csv as values_csv, csv_column, csv_rows, example_workspace, long_sweep,
    mastersim_bin,
};

/// `mastersim sweep run <sweep> --sweep-dir <dir> <args>` against `cluster`.
fn sweep_run(cluster: &Cluster, sweep: &Path, dir: &Path, args: &[&str]) -> Output {
    cluster
        .command(mastersim_bin())
        .args(["sweep", "run"])
        .arg(sweep)
        .arg("--sweep-dir")
        .arg(dir)
        .args(args)
        .output()
        .expect("mastersim can be started")
}

/// Asserts exit code 0 of `output`, showing what it said and the cluster's logs otherwise.
fn assert_success(output: &Output, cluster: &Cluster) {
    assert!(
        output.status.success(),
        "exit status {}\nstdout:\n{}\nstderr:\n{}\nlogs:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
        cluster.logs()
    );
}

/// The `outcome` column of `sweep.csv` in `dir`.
fn outcomes(dir: &Path) -> Vec<String> {
    csv_column(&csv_rows(&dir.join("sweep.csv")), "outcome")
}

/// The bundled 12-case grid over the Lotka-Volterra project, under the local executor and as
/// a Slurm job array (`--wait`): every case's `values.csv` is byte-identical, and `sweep.csv`
/// lists 12 completed cases.
#[test]
fn slurm_sweep_equals_local_sweep() {
    let cluster = Cluster::start();
    let tmp = tempfile::tempdir().expect("temp dir");
    let sweep = example_workspace().join("projects/sweeps/lotka_volterra_grid.toml");
    let local = tmp.path().join("local");
    let slurm = tmp.path().join("slurm");
    mastersim_bin();
    let started = Instant::now();
    let out = sweep_run(&cluster, &sweep, &local, &["--jobs", "2"]);
    assert_success(&out, &cluster);
    let local_time = started.elapsed();
    let started = Instant::now();
    let out = sweep_run(&cluster, &sweep, &slurm, &["--executor", "slurm", "--wait"]);
    assert_success(&out, &cluster);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("12 cases: 12 completed"), "{stdout}");
    println!(
        "12 cases: local {:.2} s, Slurm {:.2} s (submission to the end of the array)",
        local_time.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    assert_eq!(outcomes(&slurm), vec!["completed"; 12]);
    for k in 0..12 {
        assert!(
            values_csv(&slurm, k) == values_csv(&local, k),
            "case {k}: values.csv differs between Slurm and local"
        );
    }
    let script = std::fs::read_to_string(slurm.join("slurm/job.sh")).expect("job script");
    for line in [
        "#SBATCH --array=0-11",
        "#SBATCH --requeue",
        "#SBATCH --signal=B:TERM@60",
    ] {
        assert!(script.contains(line), "no '{line}' in:\n{script}");
    }
}

/// A sweep of two long cases, each writing a checkpoint every 0.5 s. Once case 0 runs under
/// Slurm and has a checkpoint, `scancel --batch --signal=TERM <job>_0` stops it: it writes a
/// checkpoint, requeues its array task, and the task's second start continues from the
/// checkpoint. Both cases complete with `values.csv` byte-identical to an unbroken local run.
#[test]
fn slurm_task_stopped_by_sigterm_checkpoints_requeues_and_completes() {
    let cluster = Cluster::start();
    let tmp = tempfile::tempdir().expect("temp dir");
    let sweep = long_sweep(tmp.path(), 2);
    let unbroken = tmp.path().join("unbroken");
    assert_success(
        &sweep_run(&cluster, &sweep, &unbroken, &["--jobs", "2"]),
        &cluster,
    );
    let dir = tmp.path().join("slurm");
    let out = sweep_run(
        &cluster,
        &sweep,
        &dir,
        &["--executor", "slurm", "--checkpoint-interval", "0.5"],
    );
    assert_success(&out, &cluster);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let job = stdout
        .split("Submitted Slurm job ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no job id in: {stdout}"))
        .to_owned();
    let task = format!("{job}_0");
    let checkpoint = dir.join("cases/0/checkpoint/state.bin");
    let started = Instant::now();
    while !(cluster.state(&task) == "RUNNING" && checkpoint.is_file()) {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "task {task} is '{}' without a checkpoint after 120 s\nlogs:\n{}",
            cluster.state(&task),
            cluster.logs()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let scancel = cluster.output("scancel", &["--batch", "--signal=TERM", &task]);
    assert!(
        scancel.status.success(),
        "scancel: {}",
        String::from_utf8_lossy(&scancel.stderr)
    );
    cluster.wait_until_done(&job, Duration::from_secs(300));
    let show = cluster.output("scontrol", &["show", "job", &task]);
    let show = String::from_utf8_lossy(&show.stdout);
    assert!(
        show.contains("Restarts=1"),
        "task {task} was not requeued:\n{show}"
    );
    let console = std::fs::read_to_string(dir.join("cases/0/console.txt")).expect("console");
    assert!(
        console.contains("SIGTERM received: simulation stopped at t ="),
        "case 0 was not stopped by SIGTERM:\n{console}"
    );
    assert!(
        console.contains("Requeued the Slurm task"),
        "case 0 did not requeue:\n{console}"
    );
    let collect = cluster
        .command(mastersim_bin())
        .args(["sweep", "collect"])
        .arg(&dir)
        .output()
        .expect("collect");
    assert_success(&collect, &cluster);
    assert_eq!(outcomes(&dir), ["completed", "completed"]);
    let record = std::fs::read_to_string(dir.join("cases/0/case.json")).expect("case.json");
    assert!(record.contains("\"attempts\": 2"), "{record}");
    for k in 0..2 {
        assert!(
            values_csv(&dir, k) == values_csv(&unbroken, k),
            "case {k}: values.csv differs from the unbroken run"
        );
    }
}
