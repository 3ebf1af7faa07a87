//! SSP 1.0 systems of the corpus (`corpus/ssp`): libcosim's linear transformation test with
//! its two parameter sets, libcosim's zipped crane demo, and the OSP dynamic-positioning ship
//! (FMI 1.0, duplicate variable names, no stop time). Every run's working directory is a
//! temporary directory, never the corpus.

use std::path::PathBuf;

use mastersim::{Options, Session, Value};
use mastersim_tests::{ResultTable, corpus_dir, read_summary, run_mastersim};

/// `corpus/ssp/<relative>`, which must exist.
fn system(relative: &str) -> PathBuf {
    let path = corpus_dir().join("ssp").join(relative);
    assert!(
        path.exists(),
        "corpus SSP system missing: '{}'",
        path.display()
    );
    path
}

/// The value of `identity2.realIn` after one step of libcosim's `linear_transformation`
/// system with the parameter set `parameter_set`.
fn linear_transformation_after_one_step(parameter_set: Option<&str>) -> Value {
    let tmp = tempfile::tempdir().expect("temp dir");
    // Its components refer to `../../fmi1/identity.fmu`, outside the system's folder.
    let options = Options {
        working_dir: Some(tmp.path().join("wd")),
        parameter_set: parameter_set.map(str::to_owned),
        allow_outside_references: true,
        ..Options::default()
    };
    let mut session = Session::open(system("libcosim/ssp/linear_transformation"), &options)
        .expect("open the system");
    session.step().expect("one step");
    let value = session.value("identity2.realIn").expect("identity2.realIn");
    session.close().expect("close");
    value
}

/// identity1.realIn is bound to 2 by the first parameter set (`initialValues`); the connection
/// to identity2 applies `LinearTransformation factor=1.3 offset=50`: 1.3·2 + 50.
#[test]
fn ssp_libcosim_linear_transformation_first_parameter_set() {
    assert_eq!(
        linear_transformation_after_one_step(None),
        Value::Real(52.6)
    );
}

/// Without `--allow-outside-references`, the same system is refused before anything is read
/// from outside its folder, naming the component and the reference.
#[test]
fn ssp_libcosim_linear_transformation_needs_the_option_for_its_outside_fmu() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_mastersim(
        &system("libcosim/ssp/linear_transformation"),
        &tmp.path().join("wd"),
        &[],
    );
    assert_eq!(run.code(), 2, "{}", run.said());
    let said = run.stderr();
    for fragment in [
        "SystemStructure.ssd:9: Component 'identity1'",
        "source=\"../../fmi1/identity.fmu\" refers to a file outside the SSP",
        "--allow-outside-references",
    ] {
        assert!(said.contains(fragment), "no '{fragment}' in: {said}");
    }
}

/// `--parameter-set initialValues2` binds identity1.realIn to 4 instead: 1.3·4 + 50.
#[test]
fn ssp_libcosim_linear_transformation_second_parameter_set() {
    assert_eq!(
        linear_transformation_after_one_step(Some("initialValues2")),
        Value::Real(55.2)
    );
}

/// libcosim's `demo.ssp` (a zipped system of two FMI 2.0 FMUs, extracted into the working
/// directory): its inline parameter set reaches KnuckleBoomCrane at t0, and it runs to its
/// stop time 2e-4 s in steps of the OSP base step 1e-4 s.
#[test]
fn ssp_libcosim_demo_archive_runs_to_its_stop_time() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let wd = tmp.path().join("wd");
    let options = Options {
        working_dir: Some(wd.clone()),
        ..Options::default()
    };
    let mut session =
        Session::open(system("libcosim/ssp/demo/demo.ssp"), &options).expect("open demo.ssp");
    session.initialize().expect("initialize");
    assert_eq!(
        session
            .value("KnuckleBoomCrane.Spring_Joint.k")
            .expect("Spring_Joint.k"),
        Value::Real(0.005)
    );
    assert_eq!(
        session
            .value("KnuckleBoomCrane.mt0_init")
            .expect("mt0_init"),
        Value::Real(69.0)
    );
    session.run().expect("run");
    assert!(
        (session.time() - 2e-4).abs() < 1e-15,
        "ended at t = {} s",
        session.time()
    );
    session.finish().expect("finish");
    let summary = read_summary(&wd.join("log/summary.txt"));
    assert_eq!(summary["MasterAlgorithmSteps"], "2", "{summary:?}");
    assert!(
        wd.join("ssp/SystemStructure.ssd").is_file(),
        "the archive is extracted into the working directory"
    );
}

/// The OSP ship of five FMI 1.0 FMUs, whose SSD sets no stop time, run with
/// `--set 'tEnd=100 s'`: 2500 steps of the OSP base step 0.04 s, exit 0, and the warning
/// about DPController's duplicate variable names (`iepsi` is declared twice).
#[test]
fn ssp_dp_ship_runs_100_s_with_the_osp_base_step() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_mastersim(
        &system("dp-ship"),
        &tmp.path().join("wd"),
        &["--set", "tEnd=100 s"],
    );
    run.assert_success();
    let summary = read_summary(&run.path("log/summary.txt"));
    assert_eq!(summary["MasterAlgorithmSteps"], "2500", "{summary:?}");
    let time = ResultTable::read(&run.path("results/values.csv")).numbers("Time [s]");
    assert_eq!(
        (time[0], time[1], *time.last().unwrap()),
        (0.0, 0.04, 100.0)
    );
    assert_eq!(time.len(), 2501, "a row at every communication point");
    let screenlog = std::fs::read_to_string(run.path("log/screenlog.txt")).expect("screenlog");
    for text in [run.said(), screenlog] {
        assert!(
            text.lines().any(
                |l| l.contains("DPController.fmu") && l.contains("'iepsi' is declared 2 times")
            ),
            "no duplicate-name warning for DPController.fmu's 'iepsi' in:\n{text}"
        );
    }
    assert!(!run.said().contains("sets no stop time"), "{}", run.said());
}

/// Without a stop time from the SSD, the command line or an agreeing default experiment (the
/// FMUs give 1000 s and 3500 s), the ship runs to tStart + 1 s with a warning saying so.
#[test]
fn ssp_dp_ship_without_stop_time_warns_and_runs_1_s() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_mastersim(&system("dp-ship"), &tmp.path().join("wd"), &[]);
    run.assert_success();
    assert!(
        run.said().contains(
            "the system sets no stop time (DefaultExperiment stopTime) and the FMUs' default \
             experiments disagree"
        ) && run.said().contains("running to tEnd = tStart + 1 s = 1 s"),
        "{}",
        run.said()
    );
    let summary = read_summary(&run.path("log/summary.txt"));
    assert_eq!(summary["MasterAlgorithmSteps"], "25", "{summary:?}");
    let time = ResultTable::read(&run.path("results/values.csv")).numbers("Time [s]");
    assert_eq!(*time.last().unwrap(), 1.0);
}
