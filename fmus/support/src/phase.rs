//! Where an instance stands in the FMI call sequence, and how a call ended: the FMI version
//! whose rules apply, the call-sequence [`Phase`] and the non-error [`Status`]. The instance
//! layers ([`crate::instance`], [`crate::instance3`]) and the byte format of saved states
//! ([`crate::serialized`]) share them.

use std::ffi::c_int;

use crate::logger::status;

/// Which FMI version's rules apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Version {
    /// FMI 1.0 co-simulation.
    Fmi1,
    /// FMI 2.0 co-simulation.
    Fmi2,
    /// FMI 3.0 co-simulation: only the registry code of [`crate::instance3::Instance3`]
    /// values; an [`crate::instance::Instance`] never has it.
    #[cfg(feature = "fmi3")]
    Fmi3,
}

/// The call-sequence phase. Spec: FMI 2.0.2 §4.2.4 (state machine of the co-simulation slave);
/// FMI 1.0 CS §3.3–3.5.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// After instantiate or reset.
    Instantiated,
    /// Between enter and exit initialization mode (FMI 2.0 only).
    InitializationMode,
    /// After exit initialization mode (FMI 2.0) or initialize slave (FMI 1.0).
    StepMode,
    /// After terminate.
    Terminated,
    /// After a call returned Error.
    Error,
}

/// The non-error outcome of a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// `fmi2OK` (and its FMI 1.0 and 3.0 twins).
    Ok,
    /// `fmi2Warning`.
    Warning,
    /// `fmi2Discard`.
    Discard,
}

impl Status {
    /// The C status code.
    pub(crate) fn code(self) -> c_int {
        match self {
            Self::Ok => status::OK,
            Self::Warning => status::WARNING,
            Self::Discard => status::DISCARD,
        }
    }
}
