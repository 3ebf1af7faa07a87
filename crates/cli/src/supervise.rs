//! Supervision of a run from outside the stepping loop: SIGINT and SIGTERM end the run at the
//! next communication point; a watchdog ends it when an FMU call hangs (`--step-timeout`); and a
//! crash inside FMU code is reported with the slave and FMI function (`fmi::install_crash_report`).
//!
//! Exit codes: 130 after SIGINT, 143 after SIGTERM (128 + signal number, the shell convention);
//! 124 when a call timed out (as GNU `timeout`). A second SIGINT or SIGTERM ends the process at
//! once with the same code.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use master::watchdog::{BusyCall, CallMonitor};
use signal_hook::consts::{SIGINT, SIGTERM};

/// Exit code when an FMU call exceeded `--step-timeout`.
pub const EXIT_TIMEOUT: u8 = 124;

/// The interrupt flags raised by SIGINT/SIGTERM.
pub struct Interrupt {
    stop: Arc<AtomicBool>,
    signal: Arc<AtomicUsize>,
}

impl Interrupt {
    /// Installs the handlers; the run stops at the next communication point after a signal.
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
        Ok(Interrupt { stop, signal })
    }

    /// The flag the simulation polls.
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// The name of the signal received and the exit code it maps to.
    pub fn received(&self) -> (&'static str, u8) {
        match self.signal.load(Ordering::Relaxed) as i32 {
            SIGTERM => ("SIGTERM", 128 + SIGTERM as u8),
            _ => ("SIGINT", 128 + SIGINT as u8),
        }
    }
}

/// Starts a thread that calls `on_timeout` (once) when a monitored call takes longer than
/// `timeout`; `on_timeout` is expected to end the process.
pub fn spawn_watchdog(monitor: Arc<CallMonitor>, timeout: Duration, on_timeout: impl FnOnce(BusyCall) + Send + 'static) {
    let poll = (timeout / 10).clamp(Duration::from_millis(5), Duration::from_millis(100));
    std::thread::Builder::new()
        .name("mastersim-watchdog".into())
        .spawn(move || {
            loop {
                std::thread::sleep(poll);
                if let Some(call) = monitor.longest_call()
                    && call.elapsed > timeout
                {
                    on_timeout(call);
                    return;
                }
            }
        })
        .map(drop)
        .unwrap_or_else(|e| log::warn!("the watchdog thread could not start ({e}); --step-timeout is not enforced"));
}
