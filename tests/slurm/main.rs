//! The Slurm executor of `mastersim sweep` on a real one-node cluster (`cluster.rs`):
//!
//! - a grid sweep under Slurm gives the local executor's results byte for byte;
//! - a plain `scancel` of a running task cancels it: the case stops with a checkpoint, is
//!   recorded `interrupted` with exit code 143 and is not requeued; the next `sweep run`
//!   continues it;
//! - the time-limit warning (SIGUSR1, sent by hand with `scancel --batch --signal=USR1`)
//!   checkpoints and requeues the task, which continues from its checkpoint;
//! - Slurm's own preemption (`PreemptMode=REQUEUE`) requeues the task once, and it continues
//!   from its checkpoint;
//! - `sweep run` after a requeue and a cancel submits only the case no task holds: the queue
//!   holds exactly one task per case.
//!
//! Every case's `values.csv` is compared byte for byte with an unbroken local run. The
//! cluster's daemons run as child processes of the test, so run one test at a time:
//!
//! ```text
//! cargo test --release -p mastersim-tests --test slurm -- --test-threads=1
//! ```
//!
//! `.ci/run` installs Slurm from the distribution's packages first; without it (or without
//! root) the tests fail and say why.

mod cluster;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use cluster::Cluster;
use mastersim_tests::{
    case_values_csv as values_csv, csv_column, csv_rows, example_workspace, mastersim_bin,
    target_dir,
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

/// Writes `dir/long.toml`: a sweep of `n` Lotka-Volterra cases (`Prey.alpha` = 1.0, 1.1, …;
/// 2.5·10⁷ steps of 0.1 ms, a row per simulated second, several seconds of wall time each);
/// case k of any such sweep runs what case k of [`reference`] ran.
fn long_sweep(dir: &Path, n: usize) -> PathBuf {
    let path = dir.join("long.toml");
    let base = example_workspace().join("projects/lotka_volterra.msim");
    let alphas: Vec<String> = (0..n)
        .map(|i| format!("{:.1}", 1.0 + 0.1 * i as f64))
        .collect();
    std::fs::write(
        &path,
        format!(
            "base = {base:?}\n\
             options = [\"--set\", \"tEnd=2500 s\", \"--set\", \"hStart=0.0001 s\", \
             \"--set\", \"hOutputMin=1 s\"]\n\
             [grid]\n\"Prey.alpha\" = [{}]\n",
            alphas.join(", ")
        ),
    )
    .expect("write sweep file");
    path
}

/// The sweep directory of an unbroken local run of the three cases of [`long_sweep`], made
/// once per test process (in the target directory).
fn reference() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let folder = target_dir().join("slurm-reference");
        let _ = std::fs::remove_dir_all(&folder);
        std::fs::create_dir_all(&folder).expect("reference folder");
        let sweep = long_sweep(&folder, 3);
        let dir = folder.join("unbroken");
        let out = std::process::Command::new(mastersim_bin())
            .args(["sweep", "run"])
            .arg(&sweep)
            .arg("--sweep-dir")
            .arg(&dir)
            .args(["--jobs", "2"])
            .output()
            .expect("mastersim starts");
        assert!(
            out.status.success(),
            "the unbroken local run failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        dir
    })
}

/// Asserts that case k's `values.csv` in `dir` is byte-identical to the unbroken run's, for
/// each of `cases`.
fn assert_like_unbroken(dir: &Path, cases: &[usize]) {
    for &k in cases {
        assert!(
            values_csv(dir, k) == values_csv(reference(), k),
            "case {k}: values.csv differs from the unbroken run"
        );
    }
}

/// Submits the sweep with the Slurm executor (a checkpoint every 0.5 s) and returns the job
/// id it printed.
fn submit(cluster: &Cluster, sweep: &Path, dir: &Path) -> String {
    let out = sweep_run(
        cluster,
        sweep,
        dir,
        &["--executor", "slurm", "--checkpoint-interval", "0.5"],
    );
    assert_success(&out, cluster);
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout
        .split("Submitted Slurm job ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no job id in: {stdout}"))
        .to_owned()
}

/// Waits until `condition` holds, polling every 100 ms; fails after `limit` saying `what`.
fn wait_until(cluster: &Cluster, limit: Duration, what: &str, mut condition: impl FnMut() -> bool) {
    let started = Instant::now();
    while !condition() {
        assert!(
            started.elapsed() < limit,
            "not within {limit:?}: {what}\nqueue:\n{}\nlogs:\n{}",
            cluster.queue(),
            cluster.logs()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Waits until Slurm task `task` runs case `k` of the sweep in `dir` and the case has written
/// a checkpoint.
fn wait_running_with_checkpoint(cluster: &Cluster, dir: &Path, task: &str, k: usize) {
    let checkpoint = dir.join(format!("cases/{k}/checkpoint/state.bin"));
    wait_until(
        cluster,
        Duration::from_secs(120),
        &format!("task {task} running case {k} with a checkpoint"),
        || cluster.state(task) == "RUNNING" && checkpoint.is_file(),
    );
}

/// `field=value` of `scontrol show job <task>` (e.g. `Restarts`, `JobState`).
fn job_field(cluster: &Cluster, task: &str, field: &str) -> String {
    let out = cluster.output("scontrol", &["show", "job", task]);
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace()
        .find_map(|word| word.strip_prefix(&format!("{field}=")))
        .unwrap_or_else(|| panic!("no {field} in scontrol show job {task}:\n{text}"))
        .to_owned()
}

/// Runs `scancel <args>` against the cluster and asserts that it succeeded.
fn scancel(cluster: &Cluster, args: &[&str]) {
    let out = cluster.output("scancel", args);
    assert!(
        out.status.success(),
        "scancel {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A member of case k's `case.json` in `dir`, as JSON text (`"requeued"`, `143`), or empty
/// when there is no record.
fn record(dir: &Path, k: usize, member: &str) -> String {
    std::fs::read(dir.join(format!("cases/{k}/case.json")))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .map(|json| json[member].to_string())
        .unwrap_or_default()
}

/// Case k's `console.txt` in `dir` (the output of every attempt of its task).
fn console(dir: &Path, k: usize) -> String {
    std::fs::read_to_string(dir.join(format!("cases/{k}/console.txt"))).expect("console.txt")
}

/// The tasks in the queue of the job arrays named `name`, by case (array task id).
fn tasks_by_case(cluster: &Cluster, name: &str) -> BTreeMap<usize, Vec<String>> {
    let out = cluster.output("squeue", &["--noheader", "--array", "--format=%j|%K|%i|%T"]);
    let mut tasks: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let fields: Vec<&str> = line.trim().split('|').collect();
        if let [job_name, case, id, state] = fields[..]
            && job_name == name
        {
            let case = case.parse().expect("an array task id");
            tasks.entry(case).or_default().push(format!("{id} {state}"));
        }
    }
    tasks
}

/// The bundled 12-case grid over the Lotka-Volterra project, under the local executor and as
/// a Slurm job array (`--wait`): every case's `values.csv` is byte-identical, and `sweep.csv`
/// lists 12 completed cases. The job script asks for the time-limit warning SIGUSR1.
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
        "#SBATCH --signal=B:USR1@60",
        "--slurm-requeue",
    ] {
        assert!(script.contains(line), "no '{line}' in:\n{script}");
    }
}

/// A plain `scancel <job>_0`, as a user cancels a task, while case 0 runs with a checkpoint:
/// Slurm sends SIGTERM to the batch script, which is the case itself. The case stops with a
/// checkpoint, is recorded `interrupted` with exit code 143 and does not requeue itself: the
/// task leaves the queue and stays out (`CANCELLED`, `Restarts=0`). The next `sweep run`
/// submits it again; it continues from the checkpoint (2 attempts) and ends byte-identical to
/// an unbroken run.
#[test]
fn slurm_scancel_cancels_a_task_with_a_checkpoint_and_no_requeue() {
    reference();
    let cluster = Cluster::start();
    let tmp = tempfile::tempdir().expect("temp dir");
    let sweep = long_sweep(tmp.path(), 1);
    let dir = tmp.path().join("cancelled");
    let job = submit(&cluster, &sweep, &dir);
    let task = format!("{job}_0");
    wait_running_with_checkpoint(&cluster, &dir, &task, 0);
    let cancelled = Instant::now();
    scancel(&cluster, &[&task]);
    wait_until(
        &cluster,
        Duration::from_secs(60),
        "the task leaves the queue",
        || cluster.state(&task).is_empty(),
    );
    // The case ended by itself (exit code 143), long before Slurm's SIGKILL after KillWait
    // (30 s on this cluster).
    let took = cancelled.elapsed();
    println!(
        "scancel to the end of the task: {:.2} s",
        took.as_secs_f64()
    );
    assert!(
        took < Duration::from_secs(20),
        "the task took {took:?} to end"
    );
    assert_eq!(job_field(&cluster, &task, "ExitCode"), "143:0");
    // A requeued task would be back in the queue at once (pending until it may start).
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(cluster.state(&task), "", "the cancelled task came back");
    assert_eq!(job_field(&cluster, &task, "Restarts"), "0");
    assert_eq!(job_field(&cluster, &task, "JobState"), "CANCELLED");
    assert_eq!(record(&dir, 0, "outcome"), "\"interrupted\"");
    assert_eq!(record(&dir, 0, "exit_code"), "143");
    assert!(dir.join("cases/0/checkpoint/state.bin").is_file());
    let text = console(&dir, 0);
    assert!(
        text.contains("SIGTERM received: simulation stopped at t =")
            && !text.contains("Requeued the Slurm task"),
        "case 0 was not cancelled as it should be:\n{text}"
    );
    let out = sweep_run(&cluster, &sweep, &dir, &["--executor", "slurm", "--wait"]);
    assert_success(&out, &cluster);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Submitted Slurm job "), "{stdout}");
    assert!(stdout.contains("1 case: 1 completed"), "{stdout}");
    assert_eq!(record(&dir, 0, "attempts"), "2");
    assert_like_unbroken(&dir, &[0]);
}

/// The time-limit warning, sent by hand as Slurm sends it before the time limit
/// (`scancel --batch --signal=USR1 <job>_0`): the case stops with a checkpoint, is recorded
/// `requeued` with exit code 138, requeues its own task, and the task's second start
/// continues from the checkpoint (`Restarts=1`, 2 attempts, byte-identical to an unbroken
/// run).
#[test]
fn slurm_time_limit_warning_requeues_and_resumes() {
    reference();
    let cluster = Cluster::start();
    let tmp = tempfile::tempdir().expect("temp dir");
    let sweep = long_sweep(tmp.path(), 1);
    let dir = tmp.path().join("warned");
    let job = submit(&cluster, &sweep, &dir);
    let task = format!("{job}_0");
    wait_running_with_checkpoint(&cluster, &dir, &task, 0);
    scancel(&cluster, &["--batch", "--signal=USR1", &task]);
    wait_until(
        &cluster,
        Duration::from_secs(60),
        "case 0 recorded requeued",
        || record(&dir, 0, "outcome") == "\"requeued\"",
    );
    assert_eq!(record(&dir, 0, "exit_code"), "138");
    cluster.wait_until_done(&job, Duration::from_secs(300));
    assert_eq!(job_field(&cluster, &task, "Restarts"), "1");
    assert_eq!(job_field(&cluster, &task, "JobState"), "COMPLETED");
    let text = console(&dir, 0);
    assert!(
        text.contains("SIGUSR1 (the time-limit warning) received: simulation stopped at t =")
            && text.contains("Requeued the Slurm task"),
        "case 0 was not stopped and requeued by the warning:\n{text}"
    );
    let collect = cluster
        .command(mastersim_bin())
        .args(["sweep", "collect"])
        .arg(&dir)
        .output()
        .expect("collect");
    assert_success(&collect, &cluster);
    assert_eq!(outcomes(&dir), ["completed"]);
    assert_eq!(record(&dir, 0, "attempts"), "2");
    assert_like_unbroken(&dir, &[0]);
}

/// Slurm's own preemption: a job of the higher-tier partition `urgent` that needs every CPU
/// preempts the running task, which Slurm ends with SIGTERM and requeues itself
/// (`PreemptMode=REQUEUE`). The case stops with a checkpoint and does not requeue itself
/// (`Restarts=1`, not 2); when the task starts again it continues from the checkpoint and
/// ends byte-identical to an unbroken run.
#[test]
fn slurm_preemption_requeues_once_and_resumes() {
    reference();
    let cluster = Cluster::start();
    let tmp = tempfile::tempdir().expect("temp dir");
    let sweep = long_sweep(tmp.path(), 1);
    let dir = tmp.path().join("preempted");
    let job = submit(&cluster, &sweep, &dir);
    let task = format!("{job}_0");
    wait_running_with_checkpoint(&cluster, &dir, &task, 0);
    let cpus = format!("--cpus-per-task={}", cluster.cpus());
    let urgent = cluster.output(
        "sbatch",
        &[
            "--parsable",
            "--partition=urgent",
            &cpus,
            "--output=/dev/null",
            "--wrap=sleep 1",
        ],
    );
    assert!(
        urgent.status.success(),
        "sbatch: {}",
        String::from_utf8_lossy(&urgent.stderr)
    );
    cluster.wait_until_done(&job, Duration::from_secs(300));
    assert_eq!(job_field(&cluster, &task, "Restarts"), "1");
    assert_eq!(job_field(&cluster, &task, "JobState"), "COMPLETED");
    let text = console(&dir, 0);
    assert!(
        text.contains("DUE TO PREEMPTION")
            && text.contains("SIGTERM received: simulation stopped at t =")
            && !text.contains("Requeued the Slurm task"),
        "case 0 was not preempted and requeued by Slurm alone:\n{text}"
    );
    assert_eq!(record(&dir, 0, "outcome"), "\"completed\"");
    assert_eq!(record(&dir, 0, "attempts"), "2");
    assert_like_unbroken(&dir, &[0]);
}

/// Three cases on a node of two CPUs. Case 0 gets the time-limit warning (its task requeued,
/// pending), case 1 is cancelled with a plain `scancel`, case 2 runs. The next `sweep run`
/// leaves out cases 0 and 2, whose tasks Slurm still holds, and submits case 1 alone; one
/// more `sweep run` submits nothing. Each time the queue holds exactly one task per case.
/// With `--wait` the sweep ends with every case completed, byte-identical to an unbroken run.
#[test]
fn slurm_rerun_after_a_requeue_and_a_cancel_keeps_one_task_per_case() {
    reference();
    let cluster = Cluster::start();
    let tmp = tempfile::tempdir().expect("temp dir");
    let sweep = long_sweep(tmp.path(), 3);
    let dir = tmp.path().join("rerun");
    let job = submit(&cluster, &sweep, &dir);
    let (task0, task1) = (format!("{job}_0"), format!("{job}_1"));
    wait_running_with_checkpoint(&cluster, &dir, &task0, 0);
    wait_running_with_checkpoint(&cluster, &dir, &task1, 1);
    scancel(&cluster, &["--batch", "--signal=USR1", &task0]);
    wait_until(
        &cluster,
        Duration::from_secs(60),
        "case 0 recorded requeued",
        || record(&dir, 0, "outcome") == "\"requeued\"",
    );
    scancel(&cluster, &[&task1]);
    wait_until(
        &cluster,
        Duration::from_secs(60),
        "task 1 leaves the queue",
        || cluster.state(&task1).is_empty(),
    );
    assert_eq!(cluster.state(&task0), "PENDING", "task 0 is requeued");
    let out = sweep_run(&cluster, &sweep, &dir, &["--executor", "slurm"]);
    assert_success(&out, &cluster);
    let stdout = String::from_utf8_lossy(&out.stdout);
    for line in [
        format!("case 0: Prey.alpha=1.0: Slurm task {task0} is PENDING; left out"),
        format!("case 2: Prey.alpha=1.2: Slurm task {job}_2 is "),
        "Submitted Slurm job ".to_owned(),
        "(1 task; ".to_owned(),
    ] {
        assert!(stdout.contains(&line), "no '{line}' in:\n{stdout}");
    }
    let per_case = |when: &str| {
        let tasks = tasks_by_case(&cluster, "long");
        println!("{when}: {tasks:?}");
        assert!(
            tasks.len() == 3 && tasks.values().all(|t| t.len() == 1),
            "{when}: not one task per case: {tasks:?}"
        );
    };
    per_case("after the second sweep run");
    let out = sweep_run(&cluster, &sweep, &dir, &["--executor", "slurm"]);
    assert_success(&out, &cluster);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Nothing to submit"), "{stdout}");
    per_case("after the third sweep run");
    let out = sweep_run(&cluster, &sweep, &dir, &["--executor", "slurm", "--wait"]);
    assert_success(&out, &cluster);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("3 cases: 3 completed"), "{stdout}");
    let attempts = csv_column(&csv_rows(&dir.join("sweep.csv")), "attempts");
    assert_eq!(attempts, ["2", "2", "1"]);
    assert_eq!(job_field(&cluster, &task0, "Restarts"), "1");
    assert_eq!(job_field(&cluster, &task1, "Restarts"), "0");
    assert_like_unbroken(&dir, &[0, 1, 2]);
}
