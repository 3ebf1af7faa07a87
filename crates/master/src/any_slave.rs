//! [`AnySlave`]: the slaves of a simulation, called without dynamic dispatch for the kinds the
//! master knows.
//!
//! A step calls every slave a few times (set inputs, `doStep`, get outputs); for cheap FMUs the
//! cost of those calls is a good part of the master's own cost. FMU instances and file readers
//! are therefore stored as themselves, so the compiler sees through the calls; any other
//! [`Slave`] implementation (tests, embedding programs) is called through a trait object.
//!
//! Spec: MasterSim reference §6 (the kinds of slaves); `docs/performance.md` (the stepping loop).

use fmi::ValueRef;

use crate::Result;
use crate::file_reader::FileReaderSlave;
use crate::fmi3_slave::Fmi3Slave;
use crate::fmu_slave::FmuSlave;
use crate::model_exchange::MeSlave;
use crate::slave::{Slave, SlaveCapabilities, StateId, StepOutcome};

/// A slave of one of the built-in kinds, or any other [`Slave`].
#[derive(Debug)]
pub enum AnySlave {
    /// An FMI 1.0 or 2.0 FMU instance.
    Fmu(FmuSlave),
    /// An FMI 3.0 FMU instance (boxed: its function table and buffers are large).
    Fmi3(Box<Fmi3Slave>),
    /// A Model Exchange instance with its integrator (boxed: it holds the instance and the
    /// integrator).
    ModelExchange(Box<MeSlave>),
    /// A CSV/TSV file reader.
    FileReader(FileReaderSlave),
    /// Any other implementation.
    Other(Box<dyn Slave>),
}

impl From<FmuSlave> for AnySlave {
    fn from(slave: FmuSlave) -> Self {
        AnySlave::Fmu(slave)
    }
}

impl From<Fmi3Slave> for AnySlave {
    fn from(slave: Fmi3Slave) -> Self {
        AnySlave::Fmi3(Box::new(slave))
    }
}

impl From<MeSlave> for AnySlave {
    fn from(slave: MeSlave) -> Self {
        AnySlave::ModelExchange(Box::new(slave))
    }
}

impl From<FileReaderSlave> for AnySlave {
    fn from(slave: FileReaderSlave) -> Self {
        AnySlave::FileReader(slave)
    }
}

impl From<Box<dyn Slave>> for AnySlave {
    fn from(slave: Box<dyn Slave>) -> Self {
        AnySlave::Other(slave)
    }
}

impl std::fmt::Debug for dyn Slave {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Slave({})", self.name())
    }
}

/// Forwards a method to the slave of whatever kind.
macro_rules! forward {
    ($self:ident, $slave:ident => $call:expr) => {
        match $self {
            AnySlave::Fmu($slave) => $call,
            AnySlave::Fmi3($slave) => $call,
            AnySlave::ModelExchange($slave) => $call,
            AnySlave::FileReader($slave) => $call,
            AnySlave::Other($slave) => $call,
        }
    };
}

impl Slave for AnySlave {
    fn name(&self) -> &str {
        forward!(self, s => s.name())
    }
    fn capabilities(&self) -> SlaveCapabilities {
        forward!(self, s => s.capabilities())
    }
    fn setup_experiment(&mut self, rel_tol: f64, t_start: f64, t_end: f64) -> Result<()> {
        forward!(self, s => s.setup_experiment(rel_tol, t_start, t_end))
    }
    fn enter_initialization_mode(&mut self) -> Result<()> {
        forward!(self, s => s.enter_initialization_mode())
    }
    fn exit_initialization_mode(&mut self) -> Result<()> {
        forward!(self, s => s.exit_initialization_mode())
    }
    #[inline]
    fn get_real(&mut self, vrs: &[ValueRef], values: &mut [f64]) -> Result<()> {
        forward!(self, s => s.get_real(vrs, values))
    }
    #[inline]
    fn get_integer(&mut self, vrs: &[ValueRef], values: &mut [i128]) -> Result<()> {
        forward!(self, s => s.get_integer(vrs, values))
    }
    #[inline]
    fn get_boolean(&mut self, vrs: &[ValueRef], values: &mut [bool]) -> Result<()> {
        forward!(self, s => s.get_boolean(vrs, values))
    }
    #[inline]
    fn get_string(&mut self, vrs: &[ValueRef], values: &mut [String]) -> Result<()> {
        forward!(self, s => s.get_string(vrs, values))
    }
    #[inline]
    fn set_real(&mut self, vrs: &[ValueRef], values: &[f64]) -> Result<()> {
        forward!(self, s => s.set_real(vrs, values))
    }
    #[inline]
    fn set_integer(&mut self, vrs: &[ValueRef], values: &[i128]) -> Result<()> {
        forward!(self, s => s.set_integer(vrs, values))
    }
    #[inline]
    fn set_boolean(&mut self, vrs: &[ValueRef], values: &[bool]) -> Result<()> {
        forward!(self, s => s.set_boolean(vrs, values))
    }
    #[inline]
    fn set_string(&mut self, vrs: &[ValueRef], values: &[String]) -> Result<()> {
        forward!(self, s => s.set_string(vrs, values))
    }
    fn get_binary(&mut self, vrs: &[ValueRef], values: &mut [Vec<u8>]) -> Result<()> {
        forward!(self, s => s.get_binary(vrs, values))
    }
    fn set_binary(&mut self, vrs: &[ValueRef], values: &[Vec<u8>]) -> Result<()> {
        forward!(self, s => s.set_binary(vrs, values))
    }
    #[inline]
    fn do_step(&mut self, t: f64, h: f64) -> Result<StepOutcome> {
        forward!(self, s => s.do_step(t, h))
    }
    fn get_state(&mut self, into: Option<StateId>) -> Result<StateId> {
        forward!(self, s => s.get_state(into))
    }
    fn set_state(&mut self, state: StateId) -> Result<()> {
        forward!(self, s => s.set_state(state))
    }
    fn free_state(&mut self, state: StateId) -> Result<()> {
        forward!(self, s => s.free_state(state))
    }
    fn serialize_state(&mut self) -> Result<Option<Vec<u8>>> {
        forward!(self, s => s.serialize_state())
    }
    fn deserialize_state(&mut self, bytes: &[u8]) -> Result<()> {
        forward!(self, s => s.deserialize_state(bytes))
    }
    fn get_directional_derivative(
        &mut self,
        unknowns: &[ValueRef],
        knowns: &[ValueRef],
        dv_known: &[f64],
        dv_unknown: &mut [f64],
    ) -> Result<()> {
        forward!(self, s => s.get_directional_derivative(unknowns, knowns, dv_known, dv_unknown))
    }
    fn integrator_statistics(&self) -> Option<crate::statistics::IntegratorStatistics> {
        forward!(self, s => s.integrator_statistics())
    }
    fn terminate(&mut self) -> Result<()> {
        forward!(self, s => s.terminate())
    }
}
