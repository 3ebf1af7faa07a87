//! Faulty FMUs at run time and interrupted runs: every fault of the fault-injection FMU
//! (`fmus/fault_injection`, model `Faulty`) gives its documented outcome (docs/robustness.md),
//! and the results written before the fault stay readable: `values.csv` up to its last flush,
//! the MAT file up to the last completed step, `summary.txt` with the outcome where the
//! process could write it. SIGINT and SIGTERM end a long run cleanly at a communication point.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use mastersim_tests::{ResultTable, example_workspace, mastersim_bin, read_summary};

/// Exit code after `--step-timeout` (as GNU `timeout`).
const EXIT_TIMEOUT: i32 = 124;

/// A run of the Faulty FMU feeding a Scale FMU (`S.u = F.y`, both `y = t` before the fault),
/// steps of 0.1 s to 2 s, rows every 0.1 s, CSV and MAT results. `fault` sets one fault
/// parameter to 0.95 s: it fires in the step from 0.9 s to 1.0 s. `busy` adds a Busy FMU
/// that spends that many µs of CPU per step, so that the run lasts long enough for the
/// periodic flush of `values.csv`.
struct FaultRun {
    dir: tempfile::TempDir,
    status: ExitStatus,
    stderr: String,
}

impl FaultRun {
    fn start(fault: &str, busy: Option<u32>, args: &[&str], project_extra: &str) -> FaultRun {
        let packed = example_workspace().join("fmus").join("packed");
        let dir = tempfile::tempdir().expect("temp dir");
        let mut text = format!(
            "tStart 0 s\ntEnd 2 s\nhStart 0.1 s\nhOutputMin 0.1 s\nMasterMode GAUSS_SEIDEL\n\
             ErrorControlMode NONE\nmaxIterations 1\n{project_extra}\
             simulator 0 0 F #ff0000 \"{faulty}\"\nsimulator 1 0 S #00ff00 \"{scale}\"\n\
             graph F.y S.u\nparameter F.{fault} 0.95\n",
            faulty = packed.join("Faulty.fmu").display(),
            scale = packed.join("Scale.fmu").display(),
        );
        if let Some(micros) = busy {
            text += &format!(
                "simulator 2 0 B #0000ff \"{}\"\nparameter B.workMicros {micros}\n",
                packed.join("Busy.fmu").display()
            );
        }
        let project = dir.path().join("fault.msim");
        std::fs::write(&project, text).expect("write project");
        let output = Command::new(mastersim_bin())
            .args(["--result-format", "csv,mat"])
            .args(args)
            .arg("--working-dir")
            .arg(dir.path().join("wd"))
            .arg(&project)
            .output()
            .expect("mastersim starts");
        FaultRun {
            dir,
            status: output.status,
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join("wd").join(relative)
    }

    fn assert_code(&self, code: i32) {
        assert_eq!(
            self.status.code(),
            Some(code),
            "status {:?}, stderr:\n{}",
            self.status,
            self.stderr
        );
    }

    fn assert_signal(&self, signal: i32) {
        assert_eq!(
            self.status.signal(),
            Some(signal),
            "status {:?}, stderr:\n{}",
            self.status,
            self.stderr
        );
    }

    fn assert_stderr(&self, parts: &[&str]) {
        for part in parts {
            assert!(
                self.stderr.contains(part),
                "stderr lacks '{part}':\n{}",
                self.stderr
            );
        }
        assert!(!self.stderr.contains("panicked"), "panic:\n{}", self.stderr);
    }

    /// `Outcome=` and `Message=` of `summary.txt`, after checking the standard counters.
    fn outcome(&self) -> (String, String) {
        let summary = read_summary(&self.path("log/summary.txt"));
        assert_eq!(
            summary["MasterAlgorithmSteps"], "9",
            "steps completed before the fault"
        );
        (summary["Outcome"].clone(), summary["Message"].clone())
    }

    /// The result rows at 0, 0.1, …: the MAT file holds all `rows`, the CSV file at least
    /// `csv_rows`; every value equals its time (`y = t` before the fault), and the CSV rows
    /// agree with the MAT file's.
    fn assert_results(&self, rows: usize, csv_rows: usize) {
        let csv = ResultTable::read(&self.path("results/values.csv"));
        assert!(
            csv.header.iter().any(|c| c.starts_with("S.y")),
            "header: {:?}",
            csv.header
        );
        assert!(
            (csv_rows..=rows).contains(&csv.rows.len()),
            "{} CSV rows, expected {csv_rows}..={rows}",
            csv.rows.len()
        );
        let mat =
            output::mat::read(self.path("results/fault.mat")).expect("the MAT file is readable");
        let y = mat.signal("S.y").expect("S.y in the MAT file");
        assert_eq!(y.time.len(), rows, "MAT rows: {:?}", y.time);
        for (k, (&t, &v)) in y.time.iter().zip(&y.values).enumerate() {
            assert!(
                (t - 0.1 * k as f64).abs() < 1e-12,
                "MAT time {t} at row {k}"
            );
            assert!((v - t).abs() < 1e-12, "S.y = {v} at t = {t}");
        }
        for (k, (t, v)) in csv
            .numbers("Time")
            .into_iter()
            .zip(csv.numbers("S.y"))
            .enumerate()
        {
            assert!(
                (t - y.time[k]).abs() < 1e-12 && (v - y.values[k]).abs() < 1e-12,
                "CSV row {k}"
            );
        }
    }
}

#[test]
fn error_from_do_step_ends_the_run_with_valid_results() {
    let run = FaultRun::start("errorTime", None, &[], "");
    run.assert_code(1);
    run.assert_stderr(&[
        "slave 'F'",
        "doStep",
        "t=0.9 s",
        "h=0.1 s",
        "returned Error",
    ]);
    let (outcome, message) = run.outcome();
    assert_eq!(outcome, "Failed");
    assert!(
        message.contains("slave 'F'") && message.contains("returned Error"),
        "{message}"
    );
    run.assert_results(10, 10);
}

#[test]
fn error_from_do_step_is_retried_with_a_smaller_step_when_states_are_kept() {
    // With iteration the master keeps FMU states, so it rolls back and retries with h/5;
    // the fault injection returns Error only once, so the run completes.
    let run = FaultRun::start("errorTime", None, &[], "maxIterations 2\n");
    run.assert_code(0);
    let summary = read_summary(&run.path("log/summary.txt"));
    assert_eq!(summary["ConvergenceFails"], "1");
    assert!(
        !summary.contains_key("Outcome"),
        "a completed run keeps MasterSim's keys only"
    );
}

#[test]
fn fatal_from_do_step_ends_the_run_with_valid_results() {
    let run = FaultRun::start("fatalTime", None, &[], "");
    run.assert_code(1);
    run.assert_stderr(&["slave 'F'", "doStep", "t=0.9 s", "h=0.1 s", "Fatal"]);
    assert_eq!(run.outcome().0, "Failed");
    run.assert_results(10, 10);
}

#[test]
fn nan_output_is_reported_with_slave_variable_and_time() {
    let run = FaultRun::start("nanTime", None, &[], "");
    run.assert_code(1);
    run.assert_stderr(&["slave 'F': output 'y' is NaN at t=1 s"]);
    let (outcome, message) = run.outcome();
    assert_eq!(outcome, "Failed");
    assert!(message.contains("output 'y' is NaN"), "{message}");
    run.assert_results(10, 10);
}

#[test]
fn hanging_call_ends_the_run_after_the_step_timeout() {
    let started = Instant::now();
    let run = FaultRun::start("hangTime", None, &["--step-timeout", "1"], "");
    run.assert_code(EXIT_TIMEOUT);
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the timeout took {:?}",
        started.elapsed()
    );
    run.assert_stderr(&["slave 'F': doStep did not return within 1 s (t=0.9 s, h=0.1 s)"]);
    let (outcome, message) = run.outcome();
    assert_eq!(outcome, "TimedOut");
    assert!(message.contains("doStep did not return"), "{message}");
    run.assert_results(10, 10);
}

#[test]
fn invalid_step_timeout_is_an_input_error() {
    let run = FaultRun::start("hangTime", None, &["--step-timeout", "0"], "");
    run.assert_code(2);
    run.assert_stderr(&["--step-timeout 0: expected a number of seconds > 0"]);
}

/// A crash inside the FMU kills the process with the signal after naming the slave and FMI
/// function. 400 ms of nominal work per step make the run last 2 to 4 s before the crash
/// (`workMicros` is calibrated on a slower machine; 150 ms per step ended some runs before the
/// first flush), so the supervisor has flushed `values.csv` at least once: rows up to about
/// t = 0.3 s are on disk.
fn crash(fault: &str, signal: i32, name: &str) {
    let run = FaultRun::start(fault, Some(400_000), &[], "");
    run.assert_signal(signal);
    run.assert_stderr(&[
        &format!("mastersim: {name}"),
        "in FMU code: instance 'F' in fmi2DoStep",
    ]);
    assert!(
        !run.path("log/summary.txt").exists(),
        "no summary after a crash"
    );
    run.assert_results(10, 3);
}

#[test]
fn segfault_in_fmu_names_slave_and_function_and_keeps_results() {
    crash("segfaultTime", 11, "SIGSEGV");
}

#[test]
fn abort_in_fmu_names_slave_and_function_and_keeps_results() {
    crash("abortTime", 6, "SIGABRT");
}

/// A long run (Lotka-Volterra to 10⁶ s, a row every 0.01 s) that has written some rows.
fn long_run(dir: &Path) -> Child {
    let projects = example_workspace().join("projects");
    let text =
        std::fs::read_to_string(projects.join("lotka_volterra.msim")).expect("bundled project");
    let project = projects.join(format!(
        "interrupted-{}.msim",
        dir.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    ));
    std::fs::write(&project, text + "\ntEnd 1000000 s\nhOutputMin 0.01 s\n")
        .expect("write project");
    let child = Command::new(mastersim_bin())
        .args(["--result-format", "csv,mat", "--working-dir"])
        .arg(dir.join("wd"))
        .arg(&project)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mastersim starts");
    let csv = dir.join("wd/results/values.csv");
    let started = Instant::now();
    while std::fs::metadata(&csv).map(|m| m.len()).unwrap_or(0) < 10_000 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no rows after 60 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::fs::remove_file(&project).expect("remove project copy");
    child
}

/// Sends `signal` to a long run and checks exit code, summary and result files.
fn interrupt(signal: &str, code: i32) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut child = long_run(dir.path());
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("status") {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no exit 20 s after {signal}"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(status.code(), Some(code), "{status:?}");
    let wd = dir.path().join("wd");
    let summary = read_summary(&wd.join("log/summary.txt"));
    assert_eq!(summary["Outcome"], "Interrupted");
    let message = &summary["Message"];
    assert!(
        message.starts_with(&format!("SIG{signal} received; stopped at t=")),
        "{message}"
    );
    let t_stop: f64 = message
        .rsplit_once("t=")
        .and_then(|(_, t)| t.trim_end_matches(" s").parse().ok())
        .expect("stop time in the message");
    let steps: u64 = summary["MasterAlgorithmSteps"].parse().expect("steps");
    assert!(
        steps > 0 && (steps as f64 * 0.01 - t_stop).abs() < 1e-6 * t_stop,
        "{steps} steps, t={t_stop}"
    );
    // Every row is complete, the last one at the stop time, in both formats.
    let csv = ResultTable::read(&wd.join("results/values.csv"));
    let times = csv.numbers("Time");
    let last = *times.last().expect("rows");
    assert!(
        (last - t_stop).abs() < 1e-9 * t_stop.max(1.0),
        "last CSV row at {last}, stopped at {t_stop}"
    );
    let mat = output::mat::read(wd.join(format!(
        "results/interrupted-{}.mat",
        dir.path().file_name().unwrap_or_default().to_string_lossy()
    )))
    .expect("the MAT file is readable");
    let prey = mat.signal("Prey.x").expect("Prey.x in the MAT file");
    assert_eq!(
        prey.time.len(),
        times.len(),
        "MAT and CSV have the same rows"
    );
    // CSV times are printed with 14 significant digits, the MAT file keeps the f64.
    let mat_last = *prey.time.last().expect("rows");
    assert!(
        (mat_last - last).abs() < 1e-9 * last.max(1.0),
        "last MAT row at {mat_last}, last CSV row at {last}"
    );
    let (a, b) = (
        csv.numbers("Prey.x")[times.len() - 1],
        prey.values[times.len() - 1],
    );
    assert!(
        (a - b).abs() <= 1e-12 * b.abs(),
        "last Prey.x: CSV {a}, MAT {b}"
    );
}

#[test]
fn sigint_stops_a_long_run_at_a_communication_point() {
    interrupt("INT", 130);
}

#[test]
fn sigterm_stops_a_long_run_at_a_communication_point() {
    interrupt("TERM", 143);
}
