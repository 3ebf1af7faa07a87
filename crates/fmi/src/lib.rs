#![doc = include_str!("../README.md")]
#![deny(unsafe_code)]
#![deny(missing_docs)]

pub mod archive;
#[allow(unsafe_code)]
mod crash;
mod elf;
mod error;
mod events;
#[allow(unsafe_code)]
mod ffi;
mod fmu;
#[allow(unsafe_code)]
mod instance;
#[allow(unsafe_code)]
mod instance3;
#[allow(unsafe_code)]
mod isolated;
mod kinds;
pub mod model_description;
mod state_table;
pub mod xml_tree;

pub use crash::{ExitInCall, install_crash_report, on_exit_in_fmu_call};
pub use error::{Error, FailureStatus, Result};
pub use events::{DiscreteStates, IntegratorStepEnd};
pub use fmu::Fmu;
pub use instance::{Instance, InstantiateOptions, StepOutcome};
pub use instance3::{DoStepResult, Fmi3InstantiateOptions, Instance3};
pub use isolated::{HelperCalls, ShippedPlatform, shipped_platforms};
/// The transport of isolated FMUs (crate `mastersim-isolation`): [`isolation::Platform`],
/// [`isolation::availability`], [`isolation::Error`].
pub use isolation;
pub use kinds::{Alias, DataType, FmiVersion, Interface, VarType};
pub use model_description::{
    ArrayElement, Capabilities, Causality, ClockVariable, ContinuousState, DefaultExperiment,
    Initial, Interfaces, ModelDescription, ModelExchange, OutputDependency, ScalarVariable,
    Variability,
};
pub use state_table::FmuStateId;

/// A value reference: the handle an FMU gives one variable of one type.
///
/// Value references are unique per type only: a Real and an Integer may share one.
/// Spec: FMI 2.0.2 §2.2.7 (`valueReference`), FMI 1.0 §2.4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)] // a `&[ValueRef]` is passed to the FMU as `const unsigned int*`
pub struct ValueRef(pub u32);

/// A non-failing status of an FMI call.
///
/// Failing statuses (Discard, Error, Fatal, Pending) are carried by [`Error`].
/// Spec: FMI 2.0.2 §2.1.3 (`fmi2Status`), FMI 1.0 §2.3 (`fmiStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The call succeeded.
    Ok,
    /// The call succeeded, but the FMU logged a warning.
    Warning,
}
