//! Kill and resume over real FMUs whose serialized FMU states do not restore: the IBK FMUs of
//! MasterSim's Math003 control loop declare `canSerializeFMUstate`, but their
//! `fmi2DeSerializeFMUstate` only deserializes into a state it handed out before. The check at
//! the first checkpoint finds it, with one warning naming the slaves and the FMI function;
//! the checkpoints replay, and the run, killed three times at random moments (SIGKILL, from a
//! seeded generator whose seed is printed) and resumed, ends byte-identical to an unbroken run.
//! The same FMUs in a live `Session`: an in-memory snapshot cannot be restored in place (the
//! refusal names the slaves and the FMI function), and the run goes on unharmed.

use std::path::{Path, PathBuf};

use mastersim::{Options, ResultFormat, Session};
use mastersim_tests::corpus_dir;
use mastersim_tests::kill_resume::{assert_identical, kill_and_resume};

/// Random kills of the run.
const KILLS: usize = 3;

/// The checkpoint interval, s of wall time.
const INTERVAL: &str = "0.05";

/// The least time from the start of a process to its kill, s: enough for a first checkpoint.
const MIN_DELAY: f64 = 0.3;

/// A copy of the corpus project `Math003_GaussSeidel_2iters_fixedStep.msim` in `dir`, its
/// FMUs named by absolute paths into the corpus, run to `tEnd <t_end>` (5000 s: 500 000 steps
/// and rows).
fn math003(dir: &Path, t_end: &str) -> PathBuf {
    let folder = corpus_dir().join("mastersim/Math_003_control_loop");
    let source = folder.join("Math003_GaussSeidel_2iters_fixedStep.msim");
    let text = std::fs::read_to_string(&source)
        .unwrap_or_else(|e| panic!("corpus project missing: '{}': {e}", source.display()));
    let fmus = folder.join("fmus/IBK");
    for part in ["Part1", "Part2", "Part3"] {
        let fmu = fmus.join(format!("{part}.fmu"));
        assert!(fmu.is_file(), "corpus FMU missing: '{}'", fmu.display());
    }
    let text = text.replace("\"fmus/IBK/", &format!("\"{}/", fmus.display()));
    assert!(text.contains(&fmus.display().to_string()), "FMU paths");
    let path = dir.join("Math003_GaussSeidel_2iters_fixedStep.msim");
    std::fs::write(&path, format!("{text}\ntEnd {t_end}\n")).expect("write the project copy");
    path
}

/// Whether `warning` names the three slaves and the function that failed.
fn names_slaves_and_function(warning: &str) -> bool {
    ["'Part1'", "'Part2'", "'Part3'", "fmi2DeSerializeFMUstate"]
        .iter()
        .all(|part| warning.contains(part))
}

#[test]
fn math003_killed_three_times_and_resumed_is_byte_identical() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = math003(tmp.path(), "5000 s");
    let report = kill_and_resume(&project, KILLS, INTERVAL, MIN_DELAY, tmp.path());
    for (run, warnings) in report.warnings.iter().enumerate() {
        assert!(
            warnings.len() <= 1,
            "run {run}: one warning at most: {warnings:#?}"
        );
        for warning in warnings {
            assert!(names_slaves_and_function(warning), "run {run}: {warning}");
        }
    }
    assert!(
        report
            .warnings
            .iter()
            .flatten()
            .any(|w| w.contains("cannot be restored; a resume")),
        "the check at the first checkpoint warned: {:#?}",
        report.warnings
    );
    let last = report.warnings.last().expect("the completed run");
    assert!(
        report.resumes > 0 && last.len() == 1 && last[0].contains("by replaying the run"),
        "the completed run resumed by replay, with one warning: {last:#?}"
    );
    println!(
        "Math003_GaussSeidel_2iters_fixedStep, tEnd 5000 s: unbroken {:.2} s; {} SIGKILLs, {} \
         resumes: values.csv, MAT and counters byte-identical; checkpoint {} bytes; the \
         completed run warned: {}",
        report.unbroken, report.kills, report.resumes, report.checkpoint_size, last[0]
    );
}

#[test]
fn math003_snapshot_is_refused_a_restore_in_place_and_the_run_goes_on() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = math003(tmp.path(), "10 s");
    let options = |wd: &str| Options {
        working_dir: Some(tmp.path().join(wd)),
        result_formats: Some(vec![ResultFormat::Csv, ResultFormat::Mat]),
        threads: Some(1),
        ..Options::default()
    };
    let mut session = Session::open(&project, &options("unbroken")).expect("open");
    session.run().expect("run");
    session.finish().expect("finish");
    let mut session = Session::open(&project, &options("refused")).expect("open");
    session.run_until(4.0).expect("run");
    let snapshot = session.snapshot().expect("snapshot");
    session.run_until(6.0).expect("run on");
    let e = session
        .restore(&snapshot)
        .expect_err("the IBK states do not restore")
        .to_string();
    println!("{e}");
    assert!(
        names_slaves_and_function(&e) && e.contains("open_resume"),
        "{e}"
    );
    assert!((session.time() - 6.0).abs() < 1e-9, "still at 6 s");
    session.run().expect("run to the end");
    session.finish().expect("finish");
    assert_identical(
        &tmp.path().join("unbroken"),
        &tmp.path().join("refused"),
        &project,
    );
}
