#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

mod export_fmi1;
mod export_fmi2;
#[cfg(feature = "me")]
mod export_fmi2_me;
#[cfg(feature = "fmi3")]
mod export_fmi3;
#[cfg(all(feature = "fmi3", feature = "me"))]
mod export_fmi3_me;
pub mod fmi1;
pub mod fmi2;
#[cfg(feature = "me")]
pub mod fmi2_me;
#[cfg(feature = "fmi3")]
pub mod fmi3;
#[cfg(all(feature = "fmi3", feature = "me"))]
pub mod fmi3_me;
mod instance;
#[cfg(feature = "fmi3")]
mod instance3;
#[cfg(all(feature = "fmi3", feature = "me"))]
mod instance3_me;
#[cfg(feature = "me")]
mod instance_me;
mod logger;
#[cfg(feature = "fmi3")]
mod logger3;
mod model;
#[cfg(feature = "fmi3")]
mod model3;
mod model_enum;
#[cfg(feature = "me")]
mod model_me;
mod phase;
mod raw;
mod registry;
mod serialized;

pub use logger::{Category, LoggerFn};
#[cfg(feature = "fmi3")]
pub use logger3::Category3;
pub use model::{
    Causality, Model, ModelError, StepOutcome, VarType, Variable, find_variable, state_array,
};
#[cfg(feature = "me")]
pub use model_me::{EventUpdate, Interface, MeMode, MeModel, ModelExchange, StepEvent};
#[cfg(feature = "fmi3")]
pub use model3::{
    Causality3, DataType, Dimension, EVENT_TIME_TOLERANCE, Values, ValuesMut, Variable3,
    find_variable3, time_reached,
};
