//! Two runs in one working directory: the second stops at once (exit 2, naming the directory
//! and the run that holds it) and writes nothing; the first completes untouched. A lock left
//! by a killed run never blocks the next one (`docs/robustness.md`).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mastersim_tests::{example_workspace, mastersim_bin, run_mastersim, run_mastersim_within};

/// The long run's stop time: a few seconds of wall time (2·10⁶ steps of 0.01 s).
const LONG: &str = "tEnd=20000 s";

fn project() -> std::path::PathBuf {
    example_workspace().join("projects/lotka_volterra.msim")
}

/// Starts the long Lotka-Volterra run in `wd` and waits until it holds the lock (its holder
/// line names its process id).
fn start_long_run(wd: &Path) -> Child {
    let mut child = Command::new(mastersim_bin())
        .args(["--verbosity-level", "0", "--set", LONG, "--working-dir"])
        .arg(wd)
        .arg(project())
        .stdout(Stdio::null())
        .spawn()
        .expect("mastersim starts");
    let holder = format!("pid {} ", child.id());
    let started = Instant::now();
    while !std::fs::read_to_string(wd.join(mastersim::LOCK_FILE))
        .is_ok_and(|text| text.starts_with(&holder))
    {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the long run did not take the lock within 30 s"
        );
        assert!(
            child.try_wait().expect("status").is_none(),
            "the long run ended before it took the lock"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child
}

#[test]
fn a_second_run_in_a_held_working_directory_stops_at_once_and_writes_nothing() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let wd = tmp.path().join("wd");
    let mut long = start_long_run(&wd);
    let started = Instant::now();
    let second = run_mastersim(&project(), &wd, &["--set", "tEnd=20 s"]);
    let took = started.elapsed();
    assert!(
        long.try_wait().expect("status").is_none(),
        "the long run ended before the second run was refused: make it longer"
    );
    assert_eq!(second.code(), 2, "{}", second.said());
    assert!(took < Duration::from_secs(1), "refused after {took:?}");
    println!(
        "the second run was refused after {took:?}: {}",
        second.stderr().trim()
    );
    let stderr = second.stderr();
    assert_eq!(stderr.lines().count(), 1, "one error line: {stderr}");
    assert!(stderr.contains(&format!("'{}'", wd.display())), "{stderr}");
    assert!(stderr.contains("in use by another run"), "{stderr}");
    assert!(
        stderr.contains(&format!("pid {} on host", long.id())),
        "{stderr}"
    );
    assert!(
        stderr.contains(LONG),
        "names the holder's command line: {stderr}"
    );
    assert!(second.stdout().is_empty(), "{}", second.stdout());
    assert!(long.wait().expect("the long run ends").success());

    // The long run's files are those of an uncontended run, byte for byte.
    let alone = tmp.path().join("alone");
    let uncontended = run_mastersim(
        &project(),
        &alone,
        &["--verbosity-level", "0", "--set", LONG],
    );
    uncontended.assert_success();
    let values = |dir: &Path| std::fs::read(dir.join("results/values.csv")).expect("values.csv");
    let contended = values(&wd);
    assert!(contended.len() > 1_000_000, "{} bytes", contended.len());
    assert!(contended == values(&alone), "values.csv differs");
    let screenlog = std::fs::read_to_string(wd.join("log/screenlog.txt")).expect("screenlog");
    assert!(
        !screenlog.contains("in use"),
        "the second run wrote to the log: {screenlog}"
    );
}

#[test]
fn a_lock_left_by_a_killed_run_does_not_block_the_next_run() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let wd = tmp.path().join("wd");
    let mut killed = start_long_run(&wd);
    killed.kill().expect("SIGKILL");
    killed.wait().expect("reaped");
    let next = run_mastersim(&project(), &wd, &["--set", "tEnd=1 s"]);
    next.assert_success();
    let holder = std::fs::read_to_string(wd.join(mastersim::LOCK_FILE)).expect("lock file");
    assert!(
        !holder.starts_with(&format!("pid {} ", killed.id())),
        "the next run wrote its own holder line: {holder}"
    );
}

/// `--resume`, `--live` and `batch` respect the same lock: with the working directory (or the
/// batch's sweep directory) held by another process (here: this test), each stops at once
/// with exit code 2.
#[test]
fn resume_live_and_batch_respect_a_held_lock() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let wd = tmp.path().join("wd");
    let held = mastersim::WorkingDirLock::acquire(&wd).expect("the test holds the lock");
    let limit = Duration::from_secs(20);
    for extra in [
        &["--resume"][..],
        &["--live", "0"][..],
        &["--checkpoint-interval", "0.1"][..],
    ] {
        let run = run_mastersim_within(&project(), &wd, extra, limit)
            .unwrap_or_else(|| panic!("{extra:?} was not refused within {limit:?}"));
        assert_eq!(run.code(), 2, "{extra:?}: {}", run.said());
        assert!(
            run.stderr().contains("in use by another run"),
            "{extra:?}: {}",
            run.stderr()
        );
        assert!(
            run.stderr()
                .contains(&format!("pid {} on host", std::process::id())),
            "{extra:?} names the holder: {}",
            run.stderr()
        );
    }
    drop(held);

    // A batch whose sweep directory is held.
    let list = tmp.path().join("list.txt");
    std::fs::write(&list, format!("{}\n", project().display())).expect("list file");
    let sweep_dir = tmp.path().join("list");
    let _held = mastersim::WorkingDirLock::acquire(&sweep_dir).expect("the test holds it");
    let batch = Command::new(mastersim_bin())
        .args(["batch", "--sweep-dir"])
        .arg(&sweep_dir)
        .arg(&list)
        .output()
        .expect("mastersim batch");
    let stderr = String::from_utf8_lossy(&batch.stderr);
    assert_eq!(batch.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is in use"), "{stderr}");
    assert!(
        stderr.contains(&format!("pid {} on host", std::process::id())),
        "{stderr}"
    );
}
