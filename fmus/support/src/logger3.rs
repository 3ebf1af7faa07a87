//! Messages to the FMI 3.0 `logMessage` callback, filtered by log category.
//!
//! FMI 3.0 changed the callback's shape: `void logMessage(fmi3InstanceEnvironment env,
//! fmi3Status status, fmi3String category, fmi3String message)`. It takes no instance name and
//! no variadic arguments, so the message is passed as finished text. FMI 3.0 FMUs also have two
//! categories more than the FMI 1.0/2.0 layer ([`Category3::Events`], [`Category3::Debug`]), so
//! this is a logger of its own rather than a mode of [`crate::Category`].

use std::ffi::{CStr, CString, c_char, c_int, c_void};

/// The FMI 3.0 log callback (`fmi3LogMessageCallback`, not variadic).
///
/// Spec: FMI 3.0 §2.2.4 (fmi3LogMessageCallback).
pub type LogMessageFn = unsafe extern "C" fn(*mut c_void, c_int, *const c_char, *const c_char);

/// The log categories of the FMI 3.0 layer; every FMI 3.0 FMU declares them in its
/// `LogCategories`.
///
/// Spec: FMI 3.0 §2.4.5 (LogCategories), §2.2.4 (fmi3SetDebugLogging).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category3 {
    /// `logStatusWarning`: warnings (unknown categories in `fmi3SetDebugLogging`, a resource
    /// path without a trailing `/`).
    StatusWarning,
    /// `logStatusDiscard`: rejected steps.
    StatusDiscard,
    /// `logStatusError`: bad arguments, out-of-order calls, model failures, caught panics.
    StatusError,
    /// `logCalls`: a trace of life-cycle calls.
    Calls,
    /// `logEvents`: events (due, handled, early returns) and Event Mode transitions.
    Events,
    /// `logDebug`: details of single calls, among them the `noSetFMUStatePriorToCurrentPoint`
    /// argument of every `fmi3DoStep`.
    Debug,
}

impl Category3 {
    /// All categories, in declaration order.
    pub const ALL: [Category3; 6] = [
        Self::StatusWarning,
        Self::StatusDiscard,
        Self::StatusError,
        Self::Calls,
        Self::Events,
        Self::Debug,
    ];

    /// The category name used in `LogCategories` and passed to the callback.
    pub const fn name(self) -> &'static str {
        match self {
            Self::StatusWarning => "logStatusWarning",
            Self::StatusDiscard => "logStatusDiscard",
            Self::StatusError => "logStatusError",
            Self::Calls => "logCalls",
            Self::Events => "logEvents",
            Self::Debug => "logDebug",
        }
    }

    const fn c_name(self) -> &'static CStr {
        match self {
            Self::StatusWarning => c"logStatusWarning",
            Self::StatusDiscard => c"logStatusDiscard",
            Self::StatusError => c"logStatusError",
            Self::Calls => c"logCalls",
            Self::Events => c"logEvents",
            Self::Debug => c"logDebug",
        }
    }

    const fn index(self) -> usize {
        self as usize
    }
}

/// The environment's `logMessage` callback plus the enabled categories.
///
/// The status categories are on from the start, whatever `loggingOn` says, because they tell
/// why a call failed; `logCalls`, `logEvents` and `logDebug` follow `loggingOn`.
#[derive(Debug)]
pub(crate) struct Logger3 {
    callback: Option<LogMessageFn>,
    environment: *mut c_void,
    enabled: [bool; 6],
}

impl Logger3 {
    /// A logger with the status categories on and the others set to `logging_on`.
    pub(crate) fn new(
        callback: Option<LogMessageFn>,
        environment: *mut c_void,
        logging_on: bool,
    ) -> Self {
        Self {
            callback,
            environment,
            enabled: [true, true, true, logging_on, logging_on, logging_on],
        }
    }

    /// Applies `fmi3SetDebugLogging`: with no categories, switches every category that
    /// `loggingOn` controls at instantiation; otherwise each named category. Returns the names
    /// that are not known categories.
    pub(crate) fn set_debug_logging<'a>(
        &mut self,
        on: bool,
        categories: &[&'a str],
    ) -> Vec<&'a str> {
        if categories.is_empty() {
            for c in [Category3::Calls, Category3::Events, Category3::Debug] {
                self.enabled[c.index()] = on;
            }
            return Vec::new();
        }
        let mut unknown = Vec::new();
        for name in categories {
            match Category3::ALL.iter().find(|c| c.name() == *name) {
                Some(c) => self.enabled[c.index()] = on,
                None => unknown.push(*name),
            }
        }
        unknown
    }

    /// Whether messages of this category reach the callback.
    pub(crate) fn enabled(&self, category: Category3) -> bool {
        self.callback.is_some() && self.enabled[category.index()]
    }

    /// Sends one message if its category is enabled. Interior NUL bytes become `?`.
    pub(crate) fn log(&self, status: c_int, category: Category3, message: &str) {
        let Some(callback) = self.callback else {
            return;
        };
        if !self.enabled[category.index()] {
            return;
        }
        let text = CString::new(message.replace('\0', "?")).unwrap_or_default();
        // SAFETY: the environment passed this callback at instantiation, and the standard
        // requires it to stay callable while the instance lives (FMI 3.0 §2.2.4). Both strings
        // are NUL-terminated and outlive the call; the callback takes no variadic arguments.
        unsafe {
            callback(
                self.environment,
                status,
                category.c_name().as_ptr(),
                text.as_ptr(),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logging_on_controls_the_non_status_categories() {
        let mut logger = Logger3::new(None, std::ptr::null_mut(), false);
        assert!(!logger.enabled(Category3::StatusError), "no callback");
        logger.callback = Some(ignore);
        assert!(logger.enabled(Category3::StatusError));
        assert!(!logger.enabled(Category3::Debug));
        assert!(logger.set_debug_logging(true, &[]).is_empty());
        assert!(logger.enabled(Category3::Debug) && logger.enabled(Category3::Events));
        assert_eq!(
            logger.set_debug_logging(false, &["logDebug", "nonsense"]),
            ["nonsense"]
        );
        assert!(!logger.enabled(Category3::Debug));
        assert!(logger.enabled(Category3::Events));
    }

    unsafe extern "C" fn ignore(_: *mut c_void, _: c_int, _: *const c_char, _: *const c_char) {}
}
