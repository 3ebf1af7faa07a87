//! How an FMI 3.0 instance checks its calls and turns an FMI status into a result: argument
//! lengths, the Error and Fatal states, the failures of an isolated instance's helper process,
//! and the calls whose only argument is the instance.

use super::*;

impl Instance3 {
    #[cold]
    #[inline(never)]
    pub(super) fn invalid_call(&self, function: &'static str, reason: &'static str) -> Error {
        Error::InvalidCall {
            instance: self.name.clone(),
            function,
            reason,
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn unsupported(&self, function: &'static str) -> Error {
        Error::Unsupported {
            instance: self.name.clone(),
            function,
        }
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

    /// Starts a call of `function`: refuses it after an instance of this FMU returned Fatal,
    /// and records it for the crash report while the returned scope lives.
    #[inline]
    pub(super) fn enter(&self, function: &'static str) -> Result<crate::crash::CallScope> {
        if self.fmu.is_fatal() {
            return Err(self.invalid_call(function, "an instance of this FMU returned Fatal"));
        }
        Ok(crate::crash::CallScope::enter(&self.name, function))
    }

    /// Maps an `fmi3Status` (OK=0, Warning=1, Discard=2, Error=3, Fatal=4) and records Error
    /// and Fatal.
    #[inline]
    pub(super) fn check(
        &mut self,
        function: &'static str,
        status: fmi3::fmi3Status,
    ) -> Result<Status> {
        match status {
            fmi3::fmi3OK => Ok(Status::Ok),
            fmi3::fmi3Warning => Ok(Status::Warning),
            _ => Err(self.failure(function, status)),
        }
    }

    /// The error of a failing status (Discard, Error, Fatal or unknown); records Error and
    /// Fatal.
    #[cold]
    #[inline(never)]
    pub(super) fn failure(&mut self, function: &'static str, status: fmi3::fmi3Status) -> Error {
        let failure = match status {
            fmi3::fmi3Discard => {
                return Error::Discard {
                    instance: self.name.clone(),
                    function,
                };
            }
            fmi3::fmi3Error => FailureStatus::Error,
            fmi3::fmi3Fatal => FailureStatus::Fatal,
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
        // SAFETY: the instance pointer of an instance of an isolated FMU is its live proxy.
        unsafe { isolated::failure(self.instance) }
    }

    /// For an instance of an isolated FMU ([`Fmu::load_isolated`]): its helper process and the
    /// round trips to it so far; `None` for an instance in this process.
    pub fn helper_calls(&self) -> Option<HelperCalls> {
        self.fmu.isolation_settings()?;
        // SAFETY: the instance pointer of an instance of an isolated FMU is its live proxy.
        unsafe { isolated::helper_calls(self.instance) }
    }

    /// Calls a function whose only argument is the instance, and moves to `next` on success.
    pub(super) fn call_instance_only(
        &mut self,
        function: &'static str,
        call: fmi3::fmi3InstanceOnlyTYPE,
        next: Phase,
    ) -> Result<Status> {
        let _call = self.enter(function)?;
        // SAFETY: `instance` is a live instance of the library `call` comes from (kept loaded
        // by `fmu`); the instance is the only argument.
        let status = unsafe { call(self.instance) };
        let result = self.check(function, status);
        if result.is_ok() {
            self.phase = next;
        }
        result
    }
}
