//! Long runs without the GIL, interruptible with Ctrl-C: the one helper every function of the
//! package that runs a simulation goes through.
//!
//! [`detached`] runs the work with the GIL released (other Python threads run meanwhile);
//! inside it, the work calls [`SignalCheck::poll`] once per communication step, which takes
//! the GIL back for a moment every [`INTERVAL`] to let Python run its signal handlers: Ctrl-C
//! then ends the run with `KeyboardInterrupt`.
//!
//! Spec: PyO3 0.30 `Python::detach`, `Python::check_signals`.

use std::time::{Duration, Instant};

use pyo3::prelude::*;

/// Longest wall time between two signal checks.
pub const INTERVAL: Duration = Duration::from_millis(100);

/// Checks for pending Python signals at most every [`INTERVAL`].
#[derive(Debug)]
pub struct SignalCheck {
    last: Instant,
}

impl Default for SignalCheck {
    fn default() -> Self {
        SignalCheck {
            last: Instant::now(),
        }
    }
}

impl SignalCheck {
    /// A check whose first look is [`INTERVAL`] from now.
    pub fn new() -> Self {
        SignalCheck::default()
    }

    /// Runs Python's signal handlers when [`INTERVAL`] has passed since the last look
    /// (taking the GIL for that moment).
    ///
    /// # Errors
    /// The handler's exception, `KeyboardInterrupt` for Ctrl-C.
    pub fn poll(&mut self) -> PyResult<()> {
        if self.last.elapsed() < INTERVAL {
            return Ok(());
        }
        self.last = Instant::now();
        Python::attach(|py| py.check_signals())
    }
}

/// Runs `work` with the GIL released and a fresh [`SignalCheck`] for it to poll.
pub fn detached<T: Send>(py: Python<'_>, work: impl FnOnce(&mut SignalCheck) -> T + Send) -> T {
    py.detach(|| work(&mut SignalCheck::new()))
}
