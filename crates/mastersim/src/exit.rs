//! An FMU that ends the process: some FMUs call the C library's `exit` when their solver
//! fails. The process then ends inside the FMU call, with the FMU's exit status; no error
//! reaches the master. [`watch`] registers a session so that, in that moment, everything
//! complete is saved: the result files are finished (every row written so far, the first
//! included) and `log/summary.txt` is written with `Outcome=FmuExited`, naming the slave, the
//! FMI function and the exit code. Checkpoints already written stay valid, so `--resume`
//! continues the run once the cause is fixed.
//!
//! Spec: `docs/robustness.md` (outcomes); C `exit` (handlers run before the process ends).

use std::path::PathBuf;
use std::sync::{Mutex, Once};

use crate::report::{Ending, Summary};
use crate::supervise::SharedRecord;

/// What the exit handler needs of the session being watched.
pub(crate) struct ExitWatch {
    /// The session's result files and last counters.
    pub record: SharedRecord,
    /// `log/summary.txt`.
    pub summary_path: PathBuf,
    /// What the run is, for `summary.json`.
    pub run: std::sync::Arc<crate::report::RunInfo>,
    /// Slave names in project order.
    pub names: Vec<String>,
}

/// The session being watched (the one opened last).
static WATCHED: Mutex<Option<ExitWatch>> = Mutex::new(None);

/// Watches the session of `watch` from now on (replacing any other), installing the process's
/// exit handler on first use; a handler that cannot be installed only costs a warning.
pub(crate) fn watch(watch: ExitWatch) {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        if let Err(e) = fmi::on_exit_in_fmu_call(fmu_exited) {
            log::warn!("an FMU that calls exit() will end the run without saving its summary: {e}");
        }
    });
    *lock() = Some(watch);
}

/// Stops watching the session of `record` (if it is the one watched).
pub(crate) fn unwatch(record: &SharedRecord) {
    let mut watched = lock();
    if watched
        .as_ref()
        .is_some_and(|w| w.record.id() == record.id())
    {
        *watched = None;
    }
}

fn lock() -> std::sync::MutexGuard<'static, Option<ExitWatch>> {
    WATCHED.lock().unwrap_or_else(|p| p.into_inner())
}

/// The exit handler: finishes the result files and writes `summary.txt`.
fn fmu_exited(call: &fmi::ExitInCall) {
    let Some(w) = lock().take() else {
        return;
    };
    let stats = w.record.last_statistics(&w.names);
    let ending = Ending::FmuExited {
        slave: call.instance.clone(),
        function: call.function.clone(),
        code: call.code,
        t: stats.counters.t,
    };
    log::error!(
        "slave '{}' ended the process with exit code {} inside {}",
        call.instance,
        call.code,
        call.function
    );
    if let Err(e) = w.record.finish_files() {
        log::error!("finishing the result files failed: {e}");
    }
    if let Err(e) = Summary::now(&stats)
        .with_run(&w.run)
        .log_and_write(&w.summary_path, &ending)
    {
        log::error!("{e}");
    }
    log::logger().flush();
}
