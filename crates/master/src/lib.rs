#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod algorithm;
mod convergence;
pub mod error;
mod error_control;
pub mod file_reader;
pub mod fmu_slave;
pub mod import;
pub mod number;
pub mod observer;
pub mod plan;
pub mod project;
pub mod settings;
pub mod simulation;
pub mod slave;
mod system;
pub mod time;
pub mod timer;
pub mod values;
pub mod watchdog;
mod workers;

pub use error::{Error, Result};
pub use import::{ImportOptions, ImportedFmus, import_fmus, instantiate, resolve_slave};
pub use observer::{ColumnAlias, Observer, ObserverError, OutputColumn, OutputLayout, StepInfo};
pub use plan::{PlanOptions, SimulationPlan, SlaveIndex, SlaveKind};
pub use settings::{ErrorControl, MasterAlgorithm, Settings};
pub use simulation::{RunOutcome, Simulation, Statistics};
pub use slave::{Slave, SlaveCapabilities, StepOutcome};
pub use system::SlaveStatistics;
pub use timer::Timer;
