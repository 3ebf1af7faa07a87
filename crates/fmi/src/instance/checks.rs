//! How an instance checks its calls and turns an FMI status into a result: the function name
//! per FMI version, argument lengths, the Error and Fatal states, and the failures of an
//! isolated instance's helper process.

use super::*;

impl Instance {
    /// The FMI function name for this instance's version.
    #[inline]
    pub(super) fn function(&self, v1: &'static str, v2: &'static str) -> &'static str {
        match self.fmu.description().fmi_version {
            FmiVersion::V1 => v1,
            // An `Instance` is never made for an FMI 3.0 FMU (see `Instance::new`).
            FmiVersion::V2 | FmiVersion::V3 => v2,
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn invalid_call(&self, function: &'static str, reason: &'static str) -> Error {
        Error::InvalidCall {
            instance: self.name.clone(),
            function,
            reason,
        }
    }

    pub(super) fn unsupported(&self, function: &'static str) -> Error {
        Error::Unsupported {
            instance: self.name.clone(),
            function,
        }
    }

    /// Starts a call of `function`: refuses it after an instance of this FMU returned Fatal,
    /// and records it for the crash report while the returned scope lives.
    #[inline]
    pub(super) fn enter(&self, function: &'static str) -> Result<crate::crash::CallScope> {
        if self.fmu.is_fatal() {
            return Err(self.invalid_call(function, "an instance of this FMU returned Fatal"));
        }
        Ok(crate::crash::CallScope::enter(&self.name, function))
    }

    #[inline]
    pub(super) fn check_len(
        &self,
        function: &'static str,
        expected: usize,
        found: usize,
    ) -> Result<()> {
        if expected != found {
            return Err(self.length_mismatch(function, expected, found));
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    pub(super) fn length_mismatch(
        &self,
        function: &'static str,
        expected: usize,
        found: usize,
    ) -> Error {
        Error::LengthMismatch {
            instance: self.name.clone(),
            function,
            expected,
            found,
        }
    }

    /// Maps a status code (identical in FMI 1.0 and 2.0: OK=0, Warning=1, Discard=2, Error=3,
    /// Fatal=4, Pending=5) and records Error and Fatal.
    #[inline]
    pub(super) fn check(&mut self, function: &'static str, status: c_int) -> Result<Status> {
        match status {
            0 => Ok(Status::Ok),
            1 => Ok(Status::Warning),
            _ => Err(self.failure(function, status)),
        }
    }

    /// The error of a failing status (Discard, Error, Fatal, Pending or unknown); records Error
    /// and Fatal.
    #[cold]
    #[inline(never)]
    pub(super) fn failure(&mut self, function: &'static str, status: c_int) -> Error {
        let failure = match status {
            2 => {
                return Error::Discard {
                    instance: self.name.clone(),
                    function,
                };
            }
            3 => FailureStatus::Error,
            4 => FailureStatus::Fatal,
            5 => FailureStatus::Pending,
            other => FailureStatus::Unknown(other),
        };
        match failure {
            FailureStatus::Fatal => self.fmu.mark_fatal(),
            _ => self.failed = true,
        }
        Error::failed_call(&self.name, function, failure, self.helper_failure())
    }

    /// For an isolated instance whose helper process crashed, hung or broke the protocol:
    /// what happened (the proxy then answers Fatal).
    pub(super) fn helper_failure(&self) -> Option<isolation::Error> {
        self.fmu.isolation_settings()?;
        // SAFETY: the component of an instance of an isolated FMU is its live proxy.
        unsafe { isolated::failure(self.component) }
    }

    /// For an instance of an isolated FMU ([`Fmu::load_isolated`]): its helper process and the
    /// round trips to it so far; `None` for an instance in this process.
    pub fn helper_calls(&self) -> Option<HelperCalls> {
        self.fmu.isolation_settings()?;
        // SAFETY: the component of an instance of an isolated FMU is its live proxy.
        unsafe { isolated::helper_calls(self.component) }
    }
}
