//! Parallel Gauss-Jacobi (`--threads`): results are bit-identical to the serial run, every slave
//! is called by one thread at a time, and an FMU that may be instantiated only once per process
//! (`ScaleOnce`) steps without problems next to the parallel ones.

use std::path::Path;

use mastersim_tests::{example_workspace, read_summary, run_mastersim};

/// Six Busy FMUs (50 µs of work per doStep, so stepping them in parallel pays off) in a chain
/// fed by a ScaleOnce, Gauss-Jacobi, 300 steps, a row on every step, CSV and MAT results.
fn project(dir: &Path) -> std::path::PathBuf {
    let packed = example_workspace().join("fmus").join("packed");
    let mut text = String::from(
        "tStart 0 s\ntEnd 3 s\nhStart 0.01 s\nhOutputMin 0.01 s\nMasterMode GAUSS_JACOBI\n\
         ErrorControlMode NONE\nmaxIterations 1\n",
    );
    text += &format!(
        "simulator 0 0 Once #000000 \"{}\"\n",
        packed.join("ScaleOnce.fmu").display()
    );
    for i in 0..6 {
        text += &format!(
            "simulator {} 0 B{i} #000000 \"{}\"\n",
            i + 1,
            packed.join("Busy.fmu").display()
        );
        text += &format!(
            "parameter B{i}.workMicros 50\nparameter B{i}.k 0.9{i}\nparameter B{i}.offset 0.{i}\n"
        );
    }
    text += "graph B5.y Once.u\ngraph Once.y B0.u\n";
    for i in 1..6 {
        text += &format!("graph B{}.y B{i}.u\n", i - 1);
    }
    let path = dir.join("parallel.msim");
    std::fs::write(&path, text).expect("write project");
    path
}

#[test]
fn parallel_gauss_jacobi_is_bit_identical_to_serial() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = project(tmp.path());
    let runs: Vec<_> = [1, 2, 3]
        .into_iter()
        .map(|threads| {
            let wd = tmp.path().join(format!("wd{threads}"));
            let threads = threads.to_string();
            let run = run_mastersim(
                &project,
                &wd,
                &["--threads", &threads, "--result-format", "csv,mat"],
            );
            run.assert_success();
            run
        })
        .collect();
    let screenlog = std::fs::read_to_string(runs[1].path("log/screenlog.txt")).expect("screenlog");
    assert!(
        screenlog.contains("Gauss-Jacobi: parallel stepping (7 slaves"),
        "the 2-thread run did not step in parallel:\n{screenlog}"
    );
    let serial = std::fs::read_to_string(runs[0].path("log/screenlog.txt")).expect("screenlog");
    assert!(
        !serial.contains("parallel stepping"),
        "the 1-thread run stepped in parallel"
    );
    let read = |run: &mastersim_tests::Run, file: &str| std::fs::read(run.path(file)).expect(file);
    for run in &runs[1..] {
        assert!(
            read(run, "results/values.csv") == read(&runs[0], "results/values.csv"),
            "values.csv differs"
        );
        assert!(
            read(run, "results/parallel.mat") == read(&runs[0], "results/parallel.mat"),
            "MAT file differs"
        );
        let (a, b) = (
            read_summary(&run.path("log/summary.txt")),
            read_summary(&runs[0].path("log/summary.txt")),
        );
        for key in ["MasterAlgorithmSteps", "ConvergenceFails", "ErrorTestFails"] {
            assert_eq!(a[key], b[key], "{key}");
        }
    }
    let rows = std::fs::read_to_string(runs[0].path("results/values.csv")).expect("values.csv");
    assert_eq!(rows.lines().count(), 1 + 301, "header and 301 rows");
}

/// `--threads 0` is refused by the argument parser, before the working directory exists and
/// any FMU is loaded.
#[test]
fn zero_threads_is_a_usage_error() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let wd = tmp.path().join("wd");
    let run = run_mastersim(&project(tmp.path()), &wd, &["--threads", "0"]);
    assert_eq!(run.code(), 2, "{}", run.stderr());
    assert!(
        run.stderr()
            .contains("invalid value '0' for '--threads <N>': expected at least 1 thread"),
        "{}",
        run.stderr()
    );
    assert!(!wd.exists(), "nothing is created");
}

#[test]
fn parallel_multirate_steps_only_the_due_slaves_and_is_bit_identical() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let busy = example_workspace().join("fmus/packed/Busy.fmu");
    // Eight Busy FMUs at 1, 2 and 3 ms: parallel stepping must skip the slaves not due.
    let mut text = String::from(
        "tStart 0 s\ntEnd 0.3 s\nhStart 1 ms\nhOutputMin 1 ms\nMasterMode GAUSS_JACOBI\nmaxIterations 1\n",
    );
    for i in 0..8 {
        text += &format!(
            "simulator {i} 0 S{i} #000000 \"{}\"\nparameter S{i}.workMicros 50\n\
             communicationInterval S{i} {} ms\n",
            busy.display(),
            1 + i % 3
        );
        if i > 0 {
            text += &format!("graph S{}.y S{i}.u\n", i - 1);
        }
    }
    let project = tmp.path().join("multirate.msim");
    std::fs::write(&project, text).expect("write project");
    let runs: Vec<_> = [1, 2]
        .into_iter()
        .map(|threads| {
            let run = run_mastersim(
                &project,
                &tmp.path().join(format!("wd{threads}")),
                &["--threads", &threads.to_string()],
            );
            run.assert_success();
            run
        })
        .collect();
    let screenlog = std::fs::read_to_string(runs[1].path("log/screenlog.txt")).expect("screenlog");
    assert!(
        screenlog.contains("Gauss-Jacobi: parallel stepping (8 slaves"),
        "{screenlog}"
    );
    let values = |k: usize| std::fs::read(runs[k].path("results/values.csv")).expect("values");
    assert!(
        values(0) == values(1),
        "parallel multi-rate results differ from serial ones"
    );
    let summary = read_summary(&runs[1].path("log/summary.txt"));
    for (i, expected) in ["300", "150", "100"].iter().cycle().take(8).enumerate() {
        assert_eq!(
            &summary[&format!("Slave[{}]DoStepCalls", i + 1)],
            expected,
            "S{i}"
        );
    }
}
