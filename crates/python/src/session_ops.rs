//! The calls of `mastersim.Session` that change a running session: setting a variable,
//! snapshots of the whole run in memory, checkpoints on disk. Every call into the library's
//! variable handles and snapshots is here, in one place.
//!
//! Spec: FMI 2.0.2 §2.1.7 (setting inputs and tunable parameters between steps), §2.1.8
//! (FMU states); `docs/checkpoints.md`.

use std::path::Path;

use mastersim::{Session, Value};
use pyo3::prelude::*;

use crate::errors::{read_failed, run_failed, to_py};

/// Sets variable `name` (`<slave>.<variable>`) to `value`: an input that no connection drives
/// or a tunable parameter, between communication steps (initializing first if needed). The
/// value holds from the next step on.
///
/// # Errors
/// `InputError` for a name that names no variable (with the name meant) and for a variable
/// that may not be set, naming it and saying why (driven by a connection, a fixed parameter,
/// an output, …); `SimulationError` when the slave refuses the value.
pub fn set(session: &mut Session, name: &str, value: Value) -> PyResult<()> {
    let variable = session.variable(name).map_err(|e| read_failed(&e))?;
    session.set(&variable, &value).map_err(|e| match &e {
        mastersim::Error::Master(mastersim::master::Error::VariableAccess { .. }) => to_py(&e),
        _ => run_failed(&e),
    })
}

/// The state of the whole run (master, result rows and every slave's FMU state) as bytes:
/// what a checkpoint file holds.
///
/// # Errors
/// `SimulationError` as [`Session::snapshot`]: before the first result row, when a slave
/// cannot serialize its FMU state.
pub fn snapshot(session: &mut Session) -> PyResult<Vec<u8>> {
    session.snapshot().map_err(|e| run_failed(&e))
}

/// Puts the run back into the state `bytes` that [`snapshot`] returned, in place: the slaves'
/// FMU states, the master's time and counters, and the result files cut back to its row.
///
/// # Errors
/// `SimulationError` as [`Session::restore`]: bytes of another project or no snapshot, a slave
/// whose FMU state does not restore.
pub fn restore(session: &mut Session, bytes: &[u8]) -> PyResult<()> {
    session.restore(bytes).map_err(|e| run_failed(&e))
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
