#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

mod export_fmi1;
mod export_fmi2;
pub mod fmi1;
pub mod fmi2;
mod instance;
mod logger;
mod model;
mod model_enum;
mod raw;
mod registry;
mod serialized;

pub use logger::{Category, LoggerFn};
pub use model::{
    Causality, Model, ModelError, StepOutcome, VarType, Variable, find_variable, state_array,
};
