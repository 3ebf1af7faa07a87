//! The exceptions of the package: one base class, `mastersim.MastersimError`, and a subclass
//! per kind of failure, each carrying the message the command line prints (file, line,
//! did-you-mean hint).
//!
//! Spec: `docs/python.md` (exceptions); the exit codes of `docs/robustness.md` (2: input,
//! 1: simulation).

use pyo3::create_exception;
use pyo3::prelude::*;

create_exception!(
    _mastersim,
    MastersimError,
    pyo3::exceptions::PyException,
    "Base class of every error that mastersim raises."
);
create_exception!(
    _mastersim,
    InputError,
    MastersimError,
    "A project, FMU, SSP system, option or argument that cannot be used (the command line's \
     exit code 2). The message names the file and line, and offers the name meant."
);
create_exception!(
    _mastersim,
    SimulationError,
    MastersimError,
    "A simulation that failed while initializing or stepping (the command line's exit code 1); \
     the results written before it stay written."
);

/// The Python exception for `error`: [`SimulationError`] for an initialization or a step that
/// failed, [`InputError`] for everything else, with the library's one-line message.
pub fn to_py(error: &mastersim::Error) -> PyErr {
    let message = error.chain_text();
    match error {
        mastersim::Error::Initialization(_) => SimulationError::new_err(message),
        _ => InputError::new_err(message),
    }
}

/// Registers the exception classes in `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("MastersimError", py.get_type::<MastersimError>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    Ok(())
}
