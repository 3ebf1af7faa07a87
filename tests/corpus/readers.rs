//! Independent readers open mastersim's MAT files: `scipy.io.loadmat` and DyMat (from PyPI, in
//! the Python environment of [`python`]) read the MAT file of a
//! run, and every variable's name, unit and values equal the CSV output of the same run
//! (`tests/python/check_mat.py`). Also: a run killed with SIGKILL leaves a MAT file SciPy reads,
//! holding every row written so far.

use std::path::{Path, PathBuf};
use std::process::Command;

use mastersim_tests::{corpus_dir, run_mastersim};

/// The Python packages the corpus suite's independent checks import, and their PyPI names.
const PYTHON_PACKAGES: [(&str, &str); 4] = [
    ("scipy.io", "scipy"),
    ("DyMat", "DyMat"),
    ("jsonschema", "jsonschema"),
    ("xmlschema", "xmlschema"),
];

/// The Python interpreter with scipy, DyMat, jsonschema and xmlschema: `$MASTERSIM_PYTHON`, else the
/// virtual environment `target/pyenv`, created and filled from PyPI on first use when it is
/// missing or lacks a package (as `.ci/run` does).
///
/// # Panics
/// When no such interpreter can be had, naming what is missing and the commands that set it
/// up.
pub(crate) fn python() -> PathBuf {
    static PYTHON: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PYTHON.get_or_init(find_python).clone()
}

fn find_python() -> PathBuf {
    let imports = format!(
        "import {}",
        PYTHON_PACKAGES.map(|(module, _)| module).join(", ")
    );
    let usable = |python: &Path| {
        Command::new(python)
            .args(["-c", &imports])
            .status()
            .is_ok_and(|s| s.success())
    };
    if let Some(python) = std::env::var_os("MASTERSIM_PYTHON").map(PathBuf::from) {
        assert!(
            usable(&python),
            "MASTERSIM_PYTHON='{}' cannot run '{imports}'",
            python.display()
        );
        return python;
    }
    let env = mastersim_tests::target_dir().join("pyenv");
    let python = env.join("bin").join("python");
    if !usable(&python) {
        let created = python.is_file()
            || Command::new("python3")
                .args(["-m", "venv"])
                .arg(&env)
                .status()
                .is_ok_and(|s| s.success());
        let installed = created
            && Command::new(&python)
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                ])
                .args(PYTHON_PACKAGES.map(|(_, package)| package))
                .status()
                .is_ok_and(|s| s.success());
        assert!(
            installed && usable(&python),
            "no Python with {}: set MASTERSIM_PYTHON, or let the suite create '{}' (it needs \
             python3 with venv and access to PyPI: python3 -m venv {0} && {0}/bin/pip install {})",
            PYTHON_PACKAGES.map(|(_, p)| p).join(", "),
            env.display(),
            PYTHON_PACKAGES.map(|(_, p)| p).join(" ")
        );
    }
    python
}

fn check_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("python/check_mat.py")
}

/// Runs the checker on `mat` against `csv`; panics with its message on a mismatch.
fn check(mat: &Path, csv: &Path, extra: &[&str]) -> String {
    let out = Command::new(python())
        .arg(check_script())
        .arg(mat)
        .arg(csv)
        .args(extra)
        .output()
        .expect("python runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{}: {stdout}{}",
        mat.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn mastersim_project(relative: &str, tmp: &Path) -> (PathBuf, PathBuf) {
    let project = corpus_dir()
        .join("mastersim")
        .join(format!("{relative}.msim"));
    let run = run_mastersim(&project, &tmp.join("wd"), &["--result-format", "csv,mat"]);
    run.assert_success();
    let name = Path::new(relative)
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    (
        run.path(&format!("results/{name}.mat")),
        run.path("results/values.csv"),
    )
}

#[test]
fn scipy_and_dymat_read_math003_richardson() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (mat, csv) = mastersim_project(
        "Math_003_control_loop/Math003_GaussSeidel_2iters_adaptive_Richardson",
        tmp.path(),
    );
    let out = check(&mat, &csv, &[]);
    assert!(out.starts_with("OK "), "{out}");
}

/// Time in hours in the CSV, seconds in the MAT file; file-reader columns and internal
/// variables.
#[test]
fn scipy_and_dymat_read_file_reader_project() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (mat, csv) = mastersim_project("FileReaderSlave/FileReaderSeveralVars", tmp.path());
    let out = check(&mat, &csv, &[]);
    assert!(out.starts_with("OK "), "{out}");
}

/// Boolean and Integer columns (String outputs are not stored in MAT files).
#[test]
fn scipy_and_dymat_read_boolean_and_integer_columns() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (mat, csv) = mastersim_project("DifferentVariableTypes/DifferentVariableTypes", tmp.path());
    let out = check(&mat, &csv, &[]);
    assert!(out.starts_with("OK "), "{out}");
}

/// An OpenModelica FMU with many alias variables (same value reference and type) and
/// parameters: aliases are stored once and resolved through dataInfo.
#[test]
fn scipy_and_dymat_read_aliases() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = corpus_dir().join("crosscheck/fmi2/OpenModelica/v1.11.0/RoomHeating_OM_RH");
    let project = tmp.path().join("RoomHeating.msim");
    std::fs::write(
        &project,
        format!(
            "tStart 0 s\ntEnd 1 s\nhStart 0.0005 s\nhOutputMin 0.01 s\nwriteInternalVariables yes\n\
             simulator 0 0 Room #ff0000 \"{}\"\n",
            dir.join("RoomHeating_OM_RH.fmu").display()
        ),
    )
    .expect("write project");
    let run = run_mastersim(
        &project,
        &tmp.path().join("wd"),
        &["--result-format", "csv,mat"],
    );
    run.assert_success();
    let synonyms = run.path("results/synonymous_variables.txt");
    let out = check(
        &run.path("results/RoomHeating.mat"),
        &run.path("results/values.csv"),
        &["--aliases", "Room", &synonyms.to_string_lossy()],
    );
    assert!(!out.contains(" 0 aliases"), "{out}");
}

/// A long run killed with SIGKILL: SciPy and DyMat read the MAT file, which holds at least
/// every row the (buffered) CSV holds, with increasing time points.
#[test]
fn killed_run_leaves_a_readable_mat_file() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (mat, csv) = mastersim_tests::killed_long_run(tmp.path());
    let out = check(&mat, &csv, &["--prefix-only"]);
    assert!(out.starts_with("OK 2 variables"), "{out}");
}
