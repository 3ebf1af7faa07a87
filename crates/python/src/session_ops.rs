//! The calls of `mastersim.Session` that change a running session: setting a variable,
//! snapshots of the whole run in memory, checkpoints on disk. Every call into the library's
//! variable handles and snapshots is here, in one place.
//!
//! `set`, `snapshot` and `restore` wait for the library's session API (variable handles with
//! get and set, `Session::snapshot() -> Vec<u8>` and `Session::restore(&[u8])`); until it is
//! there they raise `NotImplementedError` naming what they wait for.
//!
//! Spec: FMI 2.0.2 §2.1.7 (setting inputs and tunable parameters between steps), §2.1.8
//! (FMU states); `docs/checkpoints.md`.

use std::path::Path;

use mastersim::{Session, Value};
use pyo3::exceptions::PyNotImplementedError;
use pyo3::prelude::*;

/// What `set`, `snapshot` and `restore` wait for.
const WAITING: &str = "waiting for the library's session API (variable handles with set, \
                       Session::snapshot and Session::restore)";

/// Sets variable `name` (`<slave>.<variable>`) to `value`: an input that no connection drives
/// or a tunable parameter, between communication steps.
///
/// To come: `let variable = session.variable(name)?; session.set(&variable, value)?`.
///
/// # Errors
/// `NotImplementedError` until the library's session API is there.
pub fn set(_session: &mut Session, name: &str, _value: Value) -> PyResult<()> {
    Err(PyNotImplementedError::new_err(format!(
        "Session.set('{name}', …): {WAITING}"
    )))
}

/// The state of the whole run (master and every slave) as bytes.
///
/// To come: `session.snapshot()`.
///
/// # Errors
/// `NotImplementedError` until the library's session API is there.
pub fn snapshot(_session: &mut Session) -> PyResult<Vec<u8>> {
    Err(PyNotImplementedError::new_err(format!(
        "Session.snapshot(): {WAITING}"
    )))
}

/// Puts the run back into the state `bytes` that [`snapshot`] returned.
///
/// To come: `session.restore(bytes)`.
///
/// # Errors
/// `NotImplementedError` until the library's session API is there.
pub fn restore(_session: &mut Session, _bytes: &[u8]) -> PyResult<()> {
    Err(PyNotImplementedError::new_err(format!(
        "Session.restore(…): {WAITING}"
    )))
}

/// Writes a checkpoint of the run at the current communication point to `path` (resumable
/// with `mastersim --resume` when written to `<working dir>/checkpoint/state.bin`); returns
/// its size, bytes.
///
/// # Errors
/// `SimulationError` as [`Session::save_checkpoint`]: before the first result row, after the
/// run ended, when a slave cannot serialize its state, when a file cannot be written.
pub fn save_checkpoint(session: &mut Session, path: &Path) -> PyResult<u64> {
    session
        .save_checkpoint(path)
        .map_err(|e| crate::errors::run_failed(&e))
}
