//! Long runs without the GIL, stoppable with Ctrl-C.
//!
//! [`without_gil`] runs the work on a thread of its own while the calling thread waits with
//! the GIL released, waking every [`POLL`] to let Python check for signals. A
//! `KeyboardInterrupt` (Ctrl-C, `signal.raise_signal(SIGINT)`, `_thread.interrupt_main()`)
//! raises the session's stop flag, so the run ends at its next communication point exactly
//! as SIGINT ends a run of the command line: the last row written, the result files complete
//! and the checkpoint at a stop written when the options ask for one. Other Python threads run
//! meanwhile, and so can other simulations.
//!
//! Spec: `docs/python.md` (threads and Ctrl-C); Python's C API, `PyErr_CheckSignals`
//! (signals are handled on the main thread only).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use pyo3::prelude::*;

/// How often the waiting thread checks for signals: a fifth of the 100 ms in which Ctrl-C
/// must stop a run, leaving the rest for the last row, the checkpoint at a stop and a busy
/// machine's scheduling.
pub const POLL: Duration = Duration::from_millis(20);

/// Runs `work` on a thread of its own with the GIL released, and returns its result with the
/// `KeyboardInterrupt` (or other signal handler's exception) that came meanwhile, if any.
/// When one comes, `stop` is raised and `work` is awaited to its end: the caller finishes
/// the run, then raises the exception.
///
/// # Errors
/// `MastersimError` when the thread cannot be started (nothing was run).
///
/// # Panics
/// Again on this thread when `work` panicked (PyO3 turns it into `PanicException`).
pub fn without_gil<R: Send>(
    py: Python<'_>,
    stop: &AtomicBool,
    work: impl FnOnce() -> R + Send,
) -> PyResult<(R, Option<PyErr>)> {
    std::thread::scope(|scope| {
        let (sender, mut receiver) = mpsc::channel();
        let worker = std::thread::Builder::new()
            .name("mastersim-python-run".into())
            .spawn_scoped(scope, move || {
                let _ = sender.send(work());
            })
            .map_err(|e| {
                crate::errors::MastersimError::new_err(format!(
                    "cannot start the thread of the run: {e}"
                ))
            })?;
        let mut signal = None;
        loop {
            let (back, got) = py.detach(move || {
                let got = receiver.recv_timeout(POLL);
                (receiver, got)
            });
            receiver = back;
            match got {
                Ok(result) => return Ok((result, signal)),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if signal.is_none()
                        && let Err(e) = py.check_signals()
                    {
                        stop.store(true, Ordering::Relaxed);
                        signal = Some(e);
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => match py.detach(|| worker.join()) {
                    Err(panic) => std::panic::resume_unwind(panic),
                    Ok(()) => unreachable!("the worker sends its result before it ends"),
                },
            }
        }
    })
}
