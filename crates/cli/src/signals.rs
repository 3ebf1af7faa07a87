//! SIGINT and SIGTERM: the first one asks the run to stop at the next communication point
//! (with complete result files and `summary.txt`); a second one ends the process at once.
//!
//! Exit codes: 130 after SIGINT, 143 after SIGTERM (128 + signal number, the shell convention).
//!
//! The same stop flag ends a sweep case at its wall-time limit ([`Interrupt::expire`]).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use signal_hook::consts::{SIGINT, SIGTERM};

/// The stop flag raised by SIGINT/SIGTERM, and which signal came.
pub struct Interrupt {
    stop: Arc<AtomicBool>,
    signal: Arc<AtomicUsize>,
    /// Why [`Interrupt::expire`] stopped the run.
    expired: OnceLock<String>,
}

impl Interrupt {
    /// Installs the handlers.
    ///
    /// # Errors
    /// When a handler cannot be registered.
    pub fn install() -> std::io::Result<Interrupt> {
        let stop = Arc::new(AtomicBool::new(false));
        let signal = Arc::new(AtomicUsize::new(0));
        for sig in [SIGINT, SIGTERM] {
            // A second signal while stopping ends the process at once (registered first, so it
            // sees the flag before the next handler sets it).
            signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, stop.clone())?;
            signal_hook::flag::register_usize(sig, signal.clone(), sig as usize)?;
            signal_hook::flag::register(sig, stop.clone())?;
        }
        Ok(Interrupt {
            stop,
            signal,
            expired: OnceLock::new(),
        })
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

    /// Whether SIGINT or SIGTERM was received.
    pub fn signalled(&self) -> bool {
        self.signal.load(Ordering::Relaxed) != 0
    }

    /// The name of the signal received and the exit code it maps to.
    pub fn received(&self) -> (&'static str, u8) {
        match self.signal.load(Ordering::Relaxed) as i32 {
            SIGTERM => ("SIGTERM", 128 + SIGTERM as u8),
            _ => ("SIGINT", 128 + SIGINT as u8),
        }
    }
}
