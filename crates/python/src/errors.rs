//! The exceptions of the package: one base class, `mastersim.MastersimError`, and a subclass
//! per kind of failure, each carrying the message the command line prints (file, line,
//! did-you-mean hint).
//!
//! - `InputError`: a project, FMU, SSP system, option or argument that cannot be used (the
//!   command line's exit code 2);
//! - `ProjectNotFoundError`: an `InputError` that is also Python's `FileNotFoundError`, for a
//!   project, FMU or SSP system that does not exist (its `filename` is the path);
//! - `SimulationError`: initializing or stepping failed (exit code 1);
//! - Ctrl-C during a run raises Python's own `KeyboardInterrupt`, after the run stopped as
//!   for SIGINT (no class of its own: `except KeyboardInterrupt` works as everywhere).
//!
//! Wrong argument types raise `TypeError`, as for any Python function.
//!
//! Spec: `docs/python.md` (exceptions); the exit codes of `docs/robustness.md` (2: input,
//! 1: simulation).

use pyo3::create_exception;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple, PyType};

create_exception!(
    mastersim,
    MastersimError,
    pyo3::exceptions::PyException,
    "Base class of every error that mastersim raises."
);
create_exception!(
    mastersim,
    InputError,
    MastersimError,
    "A project, FMU, SSP system, option or argument that cannot be used (the command line's \
     exit code 2). The message names the file and line, and offers the name meant."
);
create_exception!(
    mastersim,
    SimulationError,
    MastersimError,
    "A simulation that failed while initializing or stepping (the command line's exit code 1); \
     the results written before it stay written."
);

/// `ProjectNotFoundError(InputError, FileNotFoundError)`, made once per interpreter (two
/// bases, which `create_exception!` cannot give).
static PROJECT_NOT_FOUND: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// The class `mastersim.ProjectNotFoundError`.
fn project_not_found(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    PROJECT_NOT_FOUND
        .get_or_try_init(py, || {
            let namespace = PyDict::new(py);
            namespace.set_item("__module__", "mastersim")?;
            // The message alone, as for the other classes (not OSError's `[Errno 2] …`).
            namespace.set_item(
                "__str__",
                py.get_type::<pyo3::exceptions::PyBaseException>()
                    .getattr("__str__")?,
            )?;
            namespace.set_item(
                "__doc__",
                "The project, FMU or SSP system does not exist: an InputError that is also a \
                 FileNotFoundError; `filename` is the path given.",
            )?;
            let bases = PyTuple::new(
                py,
                [
                    py.get_type::<InputError>().into_any(),
                    py.get_type::<pyo3::exceptions::PyFileNotFoundError>()
                        .into_any(),
                ],
            )?;
            let class =
                py.get_type::<PyType>()
                    .call1(("ProjectNotFoundError", bases, namespace))?;
            Ok(class.cast_into::<PyType>()?.unbind())
        })
        .map(|class| class.bind(py))
}

/// The Python exception for `error` raised while opening a project or reading a variable:
/// [`SimulationError`] for an initialization that failed, `ProjectNotFoundError` for a
/// missing project, [`InputError`] for everything else, with the library's one-line message.
pub fn to_py(error: &mastersim::Error) -> PyErr {
    let message = error.chain_text();
    match error {
        mastersim::Error::Initialization(_) => SimulationError::new_err(message),
        mastersim::Error::ProjectNotFound { path } => Python::attach(|py| {
            let raised = project_not_found(py).and_then(|class| {
                let exception = class.call1((message.clone(),))?;
                exception.setattr("errno", 2)?; // ENOENT
                exception.setattr("strerror", message.as_str())?;
                exception.setattr("filename", path.to_string_lossy().as_ref())?;
                Ok(PyErr::from_value(exception))
            });
            raised.unwrap_or_else(|e| e)
        }),
        _ => InputError::new_err(message),
    }
}

/// The Python exception for `error` raised while a simulation initialized, stepped or
/// finished: always [`SimulationError`] (the command line's exit code 1).
pub fn run_failed(error: &mastersim::Error) -> PyErr {
    SimulationError::new_err(error.chain_text())
}

/// The Python exception for `error` raised while reading a variable: [`InputError`] for a
/// name that names no variable (with the name meant), else [`SimulationError`] (the slave
/// refused the read).
pub fn read_failed(error: &mastersim::Error) -> PyErr {
    match error {
        mastersim::Error::Master(mastersim::master::Error::NoSuchVariable { .. }) => to_py(error),
        _ => run_failed(error),
    }
}

/// Registers the exception classes in `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("MastersimError", py.get_type::<MastersimError>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    m.add("ProjectNotFoundError", project_not_found(py)?)?;
    Ok(())
}
