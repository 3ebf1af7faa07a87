//! Resource hygiene: valgrind memcheck on three corpus projects (FMU states saved, restored and
//! freed by Richardson error control; all four variable types; a file-reader slave) and on a
//! run that fails inside an own FMU. All result formats are written. Zero bytes may be lost
//! (definitely, indirectly or possibly) and memcheck may report no memory error. The few
//! suppressions in `tests/valgrind.supp` are explained there.
//!
//! A failure here is investigated with the symbol-carrying build, as docs/robustness.md shows:
//! `cargo build --profile profiling -p mastersim-cli` and valgrind on
//! `target/profiling/mastersim`, whose report names the allocating code.

use std::path::Path;

use mastersim_tests::{Memcheck, corpus_dir, example_workspace, memcheck};

const CLEAN: Memcheck = Memcheck {
    definitely_lost: 0,
    indirectly_lost: 0,
    possibly_lost: 0,
    errors: 0,
};

fn check_corpus(project: &str) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let path = corpus_dir().join("mastersim").join(project);
    assert!(
        path.is_file(),
        "corpus project missing: '{}'",
        path.display()
    );
    let counts = memcheck(
        &path,
        &tmp.path().join("wd"),
        // Two threads: Gauss-Jacobi projects start (and must join) the parallel workers.
        &["--result-format", "csv,mat,json", "--threads", "2"],
    );
    println!("{project}: {counts:?}");
    assert_eq!(counts, CLEAN, "{project}");
}

#[test]
fn no_leaks_with_fmu_states_and_richardson() {
    check_corpus("Math_003_control_loop/Math003_GaussSeidel_2iters_adaptive_Richardson.msim");
}

#[test]
fn no_leaks_with_all_variable_types() {
    check_corpus("DifferentVariableTypes/DifferentVariableTypes.msim");
}

#[test]
fn no_leaks_with_a_file_reader_slave() {
    check_corpus("FileReaderSlave/LV_Richardson_PredatorFromFile_noiter.msim");
}

#[test]
fn no_leaks_when_a_slave_fails() {
    // errorTime with maxIterations 2: the first Error is rolled back and the step retried, so
    // the run completes after an Error, a rollback and the states it used.
    let tmp = tempfile::tempdir().expect("temp dir");
    let packed = example_workspace().join("fmus/packed");
    let project = tmp.path().join("fault.msim");
    std::fs::write(
        &project,
        format!(
            "tEnd 2 s\nhStart 0.1 s\nMasterMode GAUSS_SEIDEL\nmaxIterations 2\n\
             simulator 0 0 F #ff0000 \"{}\"\nsimulator 1 0 S #00ff00 \"{}\"\n\
             graph F.y S.u\nparameter F.errorTime 0.95\n",
            packed.join("Faulty.fmu").display(),
            packed.join("Scale.fmu").display()
        ),
    )
    .expect("write project");
    let counts = memcheck(
        &project,
        &tmp.path().join("wd"),
        &["--result-format", "csv,mat,json"],
    );
    assert_eq!(counts, CLEAN);
    assert!(Path::new(&tmp.path().join("wd/log/summary.txt")).is_file());
}
