#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod algorithm;
pub mod any_slave;
pub mod checkpoint;
mod convergence;
pub mod error;
mod error_control;
pub mod experiment;
pub mod file_reader;
pub mod fmi3_slave;
pub mod fmu_slave;
mod fmu_states;
pub mod import;
pub mod index;
pub mod model_exchange;
mod multirate;
pub mod number;
pub mod observer;
pub mod path_name;
pub mod placement;
pub mod plan;
pub mod project;
mod rows;
pub mod settings;
pub mod simulation;
pub mod single_fmu;
pub mod slave;
pub mod statistics;
mod step_control;
mod system;
pub mod table;
pub mod time;
pub mod timer;
pub mod values;
pub mod watchdog;
mod workers;

pub use any_slave::AnySlave;
pub use checkpoint::MasterState;
pub use error::{Error, Result};
/// The transport to helper processes (crate `mastersim-isolation`, through `fmi`): platforms
/// and their availability.
pub use fmi::isolation;
pub use import::{ImportOptions, ImportedFmus, import_fmus, instantiate, resolve_slave};
pub use index::{GlobalIndex, LocalIndex, SlaveIndex};
pub use observer::{ColumnAlias, Observer, ObserverError, Observers, OutputColumn, OutputLayout};
pub use plan::{PlanOptions, SimulationPlan, SlaveKind, Value};
pub use project::{ErrorControl, MasterAlgorithm, TimeArithmetic};
pub use settings::Settings;
pub use simulation::{Restored, RunOutcome, Simulation, StepReport, Variable};
pub use slave::{Slave, SlaveCapabilities, StepOutcome};
/// The integrators of Model Exchange slaves (crate `mastersim-solver`).
pub use solver;
pub use statistics::{Counters, IntegratorStatistics, SlaveStatistics, Statistics};
pub use timer::Timer;
