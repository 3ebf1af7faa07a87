//! SIGINT and SIGTERM (and, for a sweep case, SIGUSR1): the first one asks the run to stop at
//! the next communication point (with complete result files, `summary.txt` and a checkpoint);
//! a second one ends the process at once.
//!
//! Exit codes ([`crate::run`]): 130 after SIGINT, 143 after SIGTERM, 138 after SIGUSR1
//! (128 + signal number, the shell convention).
//!
//! SIGUSR1 is the time-limit warning of a sweep case under Slurm (`docs/sweeps.md`): the job
//! script asks Slurm for it (`--signal=B:USR1@…`) shortly before the time limit, and the case
//! requeues its own task after stopping. SIGTERM always means "stop for good" (a `scancel`, a
//! shutdown, Slurm's own preemption); a plain run does not handle SIGUSR1.
//!
//! The same stop flag ends a sweep case at its wall-time limit ([`Interrupt::expire`]).
//! [`crate::run_to_end`] names the cause and picks the exit code from it.
//!
//! Spec: POSIX signals; Slurm `sbatch --signal`; `docs/robustness.md` (exit codes).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use signal_hook::SigId;
use signal_hook::consts::{SIGINT, SIGTERM, SIGUSR1};

/// The stop flag raised by SIGINT/SIGTERM (and SIGUSR1 when asked for), and which signal came.
#[derive(Debug)]
pub struct Interrupt {
    stop: Arc<AtomicBool>,
    /// The signal that stopped the run, 0 while none has come. A second signal ends the
    /// process before it could change this, so it holds the first one.
    signal: Arc<AtomicUsize>,
    /// Whether SIGTERM came at any time, also after [`Interrupt::disarm`].
    terminated: Arc<AtomicBool>,
    /// The handlers that end the process at a second signal and that note the signal; removed
    /// by [`Interrupt::disarm`].
    armed: Mutex<Vec<SigId>>,
    /// Why [`Interrupt::expire`] stopped the run.
    expired: OnceLock<String>,
}

impl Interrupt {
    /// Installs the handlers of SIGINT and SIGTERM.
    ///
    /// # Errors
    /// When a handler cannot be registered.
    pub fn install() -> std::io::Result<Interrupt> {
        Interrupt::install_for(&[SIGINT, SIGTERM])
    }

    /// Installs the handlers of SIGINT, SIGTERM and SIGUSR1, the time-limit warning of a
    /// sweep case (see [`Interrupt::warned`]).
    ///
    /// # Errors
    /// When a handler cannot be registered.
    pub fn install_with_warning() -> std::io::Result<Interrupt> {
        Interrupt::install_for(&[SIGINT, SIGTERM, SIGUSR1])
    }

    /// Installs what a run needs before it starts: the crash report of FMU code
    /// ([`fmi::install_crash_report`]) and the handlers of SIGINT and SIGTERM, with `warning`
    /// also of SIGUSR1, the time-limit warning of a sweep case. What cannot be installed
    /// costs a warning on stderr (`None`: a signal then ends the run at once).
    pub fn install_for_run(warning: bool) -> Option<Interrupt> {
        if let Err(e) = fmi::install_crash_report() {
            eprintln!("Warning: crashes inside FMU code will not be reported: {e}");
        }
        let interrupt = if warning {
            Interrupt::install_with_warning()
        } else {
            Interrupt::install()
        };
        interrupt
            .inspect_err(|e| eprintln!("Warning: SIGINT/SIGTERM will end the run at once: {e}"))
            .ok()
    }

    /// Installs the handlers of `signals`.
    fn install_for(signals: &[i32]) -> std::io::Result<Interrupt> {
        let stop = Arc::new(AtomicBool::new(false));
        let signal = Arc::new(AtomicUsize::new(0));
        let terminated = Arc::new(AtomicBool::new(false));
        let mut armed = Vec::new();
        for &sig in signals {
            // A second signal while stopping ends the process at once (registered first, so it
            // sees the flag before the next handler sets it).
            armed.push(signal_hook::flag::register_conditional_shutdown(
                sig,
                128 + sig,
                stop.clone(),
            )?);
            armed.push(signal_hook::flag::register_usize(
                sig,
                signal.clone(),
                sig as usize,
            )?);
            signal_hook::flag::register(sig, stop.clone())?;
        }
        signal_hook::flag::register(SIGTERM, terminated.clone())?;
        Ok(Interrupt {
            stop,
            signal,
            terminated,
            armed: Mutex::new(armed),
            expired: OnceLock::new(),
        })
    }

    /// From now on, a signal neither ends the process nor changes [`Interrupt::received`]: for
    /// the last steps after the run has stopped (a sweep case writing its record and
    /// requeueing its Slurm task, which makes Slurm send SIGTERM to the task). Whether SIGTERM
    /// came is still noted ([`Interrupt::terminated`]).
    pub fn disarm(&self) {
        let mut armed = self.armed.lock().unwrap_or_else(|p| p.into_inner());
        for id in armed.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }

    /// Stops the run at its next communication point for `cause` (a limit reached), as a
    /// signal would but without one; the first cause is kept.
    pub fn expire(&self, cause: String) {
        let _ = self.expired.set(cause);
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Why [`Interrupt::expire`] stopped the run, if it did.
    pub fn expired(&self) -> Option<&str> {
        self.expired.get().map(String::as_str)
    }

    /// The flag the session polls at every communication point.
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// The number of the signal that stopped the run, 0 while none has come: shared, so that
    /// the sweep executor stops its cases with the same signal.
    pub fn signal_number(&self) -> Arc<AtomicUsize> {
        self.signal.clone()
    }

    /// Whether a signal stopped the run.
    pub fn signalled(&self) -> bool {
        self.signal.load(Ordering::Relaxed) != 0
    }

    /// Whether the time-limit warning (SIGUSR1) stopped the run.
    pub fn warned(&self) -> bool {
        self.signal.load(Ordering::Relaxed) == SIGUSR1 as usize
    }

    /// Whether SIGTERM came at any time (also after [`Interrupt::disarm`]): the task was
    /// cancelled.
    pub fn terminated(&self) -> bool {
        self.terminated.load(Ordering::Relaxed)
    }

    /// What stopped the run (`SIGINT`, `SIGTERM`, `SIGUSR1 (the time-limit warning)`) and the
    /// exit code it maps to.
    pub fn received(&self) -> (&'static str, u8) {
        match self.signal.load(Ordering::Relaxed) as i32 {
            SIGTERM => ("SIGTERM", 128 + SIGTERM as u8),
            SIGUSR1 => ("SIGUSR1 (the time-limit warning)", 128 + SIGUSR1 as u8),
            _ => ("SIGINT", 128 + SIGINT as u8),
        }
    }
}
