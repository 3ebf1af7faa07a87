//! FMUs in their own process: the transport between the master and a helper process that
//! loads an FMU's shared library and executes the FMI calls the master sends.
//!
//! - [`protocol`]: the message protocol, generated from `helper/protocol.h` (function ids,
//!   header offsets, region layout; the per-function argument encoding is documented there);
//! - [`Platform`] and [`availability`]: which helper binaries this build has and whether they
//!   can run here (Wine for Windows helpers);
//! - [`Helper`]: one helper process with one loaded library, one shared memory region, the
//!   futex handshake (spin, then wait; polling for Windows helpers under Wine), crash and hang
//!   detection;
//! - [`Request`] / [`Response`]: writing calls into the shared region and reading their
//!   statuses, outputs and the FMU's log records, every read bounds-checked;
//! - [`prestart`]: helpers started ahead of need, so that their process start overlaps the
//!   master's extraction of the FMUs;
//! - [`census`]: what this process holds (resident memory, file descriptors, region files,
//!   child processes), to check that many isolated runs leak nothing.
//!
//! The crate knows FMI function ids and argument encodings, not the fmi crate's types: crate
//! `fmi` (module `fmi::isolated`) builds its proxy functions on top of it.

mod binaries;
mod census;
mod helper;
mod launcher;
mod message;
mod platform;
mod prestart;
pub mod protocol;
mod region;
mod spin;
mod wait;

pub use binaries::availability;
pub use census::{Census, ChildProcess, census};
pub use helper::{Helper, Launch, exception_name, signal_name};
pub use message::{LogRecord, Request, Response, Scalar};
pub use platform::Platform;
pub use prestart::{Prestarted, prestart};

use std::path::PathBuf;

/// What can go wrong between the master and a helper process.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// No helper for this platform can run on this installation.
    #[error("FMU binaries for {platform} cannot run here: {what_to_install}")]
    Unavailable {
        /// The platform asked for.
        platform: Platform,
        /// What to install (Debian package names) and why.
        what_to_install: String,
    },
    /// The helper did not start or could not load the library.
    #[error("cannot start the {platform} FMU helper for {}: {reason}", library.display())]
    Launch {
        /// The helper's platform.
        platform: Platform,
        /// The FMU's shared library (a path of this machine).
        library: PathBuf,
        /// Why, in words (the loader's message when the library does not load).
        reason: String,
    },
    /// The helper process ended while the master waited for it (the FMU crashed, aborted or
    /// called exit()).
    #[error("{}", crash_message(function, *signal, *signal_name, *exit_code))]
    Crashed {
        /// The FMI function in progress (its symbol name, e.g. `fmi2DoStep`), or "" when the
        /// helper was not inside the FMU.
        function: &'static str,
        /// The signal that ended the helper.
        signal: Option<i32>,
        /// That signal's name (`SIGSEGV`, `SIGABRT`, …); for a Windows helper ended by an
        /// exception, the exception's name (`EXCEPTION_ACCESS_VIOLATION`).
        signal_name: Option<&'static str>,
        /// The exit code when the helper exited instead; for a Windows exception, its code.
        exit_code: Option<i32>,
    },
    /// A call took longer than the call timeout: the helper was killed.
    #[error(
        "the FMU did not return from {} within {seconds} s: its process was killed",
        or_unknown(function)
    )]
    Timeout {
        /// The FMI function in progress, or "".
        function: &'static str,
        /// The call timeout, in seconds.
        seconds: f64,
    },
    /// A request or response does not fit into the shared region.
    #[error("a message of {bytes} bytes does not fit into the shared region ({capacity} bytes)")]
    TooLarge {
        /// The size needed, in bytes.
        bytes: usize,
        /// The capacity of the request or response area, in bytes.
        capacity: usize,
    },
    /// The helper broke the protocol (a malformed or truncated response).
    #[error("FMU helper protocol error: {0}")]
    Protocol(String),
}

fn or_unknown(function: &str) -> &str {
    if function.is_empty() {
        "the FMU helper"
    } else {
        function
    }
}

fn crash_message(
    function: &str,
    signal: Option<i32>,
    signal_name: Option<&str>,
    exit_code: Option<i32>,
) -> String {
    let place = if function.is_empty() {
        "outside any FMI function".to_string()
    } else {
        format!("in {function}")
    };
    match (signal, signal_name, exit_code) {
        (None, Some(name), Some(code)) => {
            let code = code as u32;
            format!(
                "the FMU's process ended with the Windows exception {name} (0x{code:08X}) {place}"
            )
        }
        (Some(number), Some(name), _) => {
            format!("the FMU's process was killed by {name} (signal {number}) {place}")
        }
        (Some(number), None, _) => {
            format!("the FMU's process was killed by signal {number} {place}")
        }
        (None, _, Some(code)) => format!("the FMU's process exited with code {code} {place}"),
        (None, _, None) => format!("the FMU's process ended {place}"),
    }
}

/// The helper program for `platform` (written to the per-user cache on first use), for
/// diagnostics and tests; `Helper::launch` finds it itself.
///
/// # Errors
/// When this build has no helper for `platform`, or the cache directory is not writable.
pub fn helper_program(platform: Platform) -> std::io::Result<PathBuf> {
    binaries::installed(platform)
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The examples of README.md, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
