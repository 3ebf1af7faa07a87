//! Messages to the environment's logger callback, filtered by log category.
//!
//! FMI 1.0 CS and FMI 2.0 share the callback's C shape: `void logger(void* context, const char*
//! instanceName, status, const char* category, const char* message, ...)`. The context is the
//! `componentEnvironment` in FMI 2.0 and the component itself in FMI 1.0. The message argument is
//! a printf format, so every message is passed as `"%s"` plus the text, and a `%` in the text is
//! never interpreted.

use std::ffi::{CStr, CString, c_char, c_int, c_void};

/// The logger callback type (C-variadic). Spec: FMI 2.0.2 §2.1.5 (fmi2CallbackLogger); FMI 1.0
/// CS §3.3 (fmiCallbackLogger).
pub type LoggerFn =
    unsafe extern "C" fn(*mut c_void, *const c_char, c_int, *const c_char, *const c_char, ...);

/// Status codes, numbered alike in FMI 1.0 and FMI 2.0.
pub(crate) mod status {
    use std::ffi::c_int;
    pub(crate) const OK: c_int = 0;
    pub(crate) const WARNING: c_int = 1;
    pub(crate) const DISCARD: c_int = 2;
    pub(crate) const ERROR: c_int = 3;
}

/// The log categories this support layer writes; every FMU declares them in its
/// `LogCategories` (FMI 2.0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Category {
    /// Warnings (for example unknown categories in `fmi2SetDebugLogging`).
    StatusWarning,
    /// Rejected steps.
    StatusDiscard,
    /// Errors: bad arguments, out-of-order calls, model failures, caught panics.
    StatusError,
    /// A trace of life-cycle calls (instantiate, initialization, steps, terminate, reset).
    Calls,
}

impl Category {
    /// All categories, in declaration order.
    pub const ALL: [Category; 4] = [
        Self::StatusWarning,
        Self::StatusDiscard,
        Self::StatusError,
        Self::Calls,
    ];

    /// The category name used in `LogCategories` and passed to the logger.
    pub const fn name(self) -> &'static str {
        match self {
            Self::StatusWarning => "logStatusWarning",
            Self::StatusDiscard => "logStatusDiscard",
            Self::StatusError => "logStatusError",
            Self::Calls => "logCalls",
        }
    }

    const fn c_name(self) -> &'static CStr {
        match self {
            Self::StatusWarning => c"logStatusWarning",
            Self::StatusDiscard => c"logStatusDiscard",
            Self::StatusError => c"logStatusError",
            Self::Calls => c"logCalls",
        }
    }

    const fn index(self) -> usize {
        self as usize
    }
}

/// The environment's logger plus the enabled categories.
///
/// Status categories (warning, discard, error) are enabled from the start, whatever
/// `loggingOn` says, because they report why a call failed; `logCalls` follows `loggingOn`.
#[derive(Debug)]
pub(crate) struct Logger {
    callback: Option<LoggerFn>,
    context: *mut c_void,
    enabled: [bool; 4],
}

impl Logger {
    /// A logger with the status categories on and `logCalls` set to `logging_on`.
    pub(crate) fn new(callback: Option<LoggerFn>, context: *mut c_void, logging_on: bool) -> Self {
        Self {
            callback,
            context,
            enabled: [true, true, true, logging_on],
        }
    }

    /// Replaces the context pointer (FMI 1.0 passes the component, known only after boxing).
    pub(crate) fn set_context(&mut self, context: *mut c_void) {
        self.context = context;
    }

    /// Applies `fmi2SetDebugLogging`: with no categories, switches `logCalls`; otherwise switches
    /// each named category. Returns the names that are not known categories.
    pub(crate) fn set_debug_logging<'a>(
        &mut self,
        on: bool,
        categories: &[&'a str],
    ) -> Vec<&'a str> {
        if categories.is_empty() {
            self.enabled[Category::Calls.index()] = on;
            return Vec::new();
        }
        let mut unknown = Vec::new();
        for name in categories {
            match Category::ALL.iter().find(|c| c.name() == *name) {
                Some(c) => self.enabled[c.index()] = on,
                None => unknown.push(*name),
            }
        }
        unknown
    }

    /// Whether messages of this category reach the callback.
    pub(crate) fn enabled(&self, category: Category) -> bool {
        self.callback.is_some() && self.enabled[category.index()]
    }

    /// Sends one message if its category is enabled. Interior NUL bytes are replaced by `?`.
    pub(crate) fn log(
        &self,
        instance_name: &CStr,
        status: c_int,
        category: Category,
        message: &str,
    ) {
        let Some(callback) = self.callback else {
            return;
        };
        if !self.enabled[category.index()] {
            return;
        }
        let text = CString::new(message.replace('\0', "?")).unwrap_or_default();
        // SAFETY: the environment passed this callback at instantiation and the FMI standard
        // requires it to stay callable for the lifetime of the instance (FMI 2.0.2 §2.1.5, FMI
        // 1.0 CS §3.3). All string arguments are NUL-terminated and outlive the call; the format
        // "%s" consumes exactly the one variadic `const char*` argument passed.
        unsafe {
            callback(
                self.context,
                instance_name.as_ptr(),
                status,
                category.c_name().as_ptr(),
                c"%s".as_ptr(),
                text.as_ptr(),
            );
        }
    }
}
