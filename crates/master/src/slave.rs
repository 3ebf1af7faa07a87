//! The version-neutral slave interface that master algorithms drive.
//!
//! A slave is one simulator instance from a `simulator` line: an FMU instance ([`crate::fmu_slave::FmuSlave`])
//! or a file reader (`crate::file_reader::FileReaderSlave`). Algorithms only see this trait, so
//! FMI 3.0 or remote slaves can be added without touching them.
//!
//! Spec: MasterSim reference §6–§9 (how the master calls slaves), FMI 2.0.2 §4.2 (the calls this
//! interface mirrors).

use fmi::ValueRef;

use crate::Result;

/// Handle of a saved slave state, owned by the slave that created it.
///
/// Spec: FMI 2.0.2 §2.1.8 (FMU state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StateId(pub usize);

/// What a slave can do, as far as master algorithms care.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SlaveCapabilities {
    /// The slave can save and restore its state (needed for rollback).
    pub can_get_and_set_state: bool,
    /// The slave accepts a different communication step size at each step.
    pub can_handle_variable_step_size: bool,
    /// The slave can compute directional derivatives of outputs with respect to inputs.
    pub provides_directional_derivative: bool,
    /// Only one instance of this slave's FMU may exist per process.
    pub instantiated_only_once_per_process: bool,
}

/// Result of a communication step that did not end the run with an error.
///
/// Spec: FMI 2.0.2 §4.2.2 (`fmi2DoStep` statuses), MasterSim reference §6.7.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepOutcome {
    /// The step completed (FMI status OK or Warning).
    Completed,
    /// The slave could not complete the step (FMI Discard, or Error while the master can still
    /// roll back). The master may retry from a saved state with a smaller step.
    Rejected(RejectReason),
    /// The slave asks to end the simulation at the step's start time (FMI 2.0 terminate request).
    Terminated,
}

/// Why a slave rejected a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RejectReason {
    /// FMI status Discard.
    Discard,
    /// FMI status Error.
    Error,
}

/// One co-simulation slave.
///
/// Value references are the slave's own (for a file reader: the column index, see
/// `crate::file_reader`). All times are in seconds. For every batched getter and setter,
/// `values.len() == vrs.len()`, otherwise an error is returned.
///
/// Implementations must be `Send` so that algorithms may step different slaves on different
/// threads; a slave is never called from two threads at once.
pub trait Slave: Send {
    /// The slave name from the project (`simulator` line).
    fn name(&self) -> &str;

    /// What this slave can do.
    fn capabilities(&self) -> SlaveCapabilities;

    /// Tells the slave the experiment: relative tolerance and start/end time in s.
    ///
    /// # Errors
    /// When the underlying FMI call fails. Spec: FMI 2.0.2 §4.2.1 (`fmi2SetupExperiment`).
    fn setup_experiment(&mut self, rel_tol: f64, t_start: f64, t_end: f64) -> Result<()>;

    /// Enters initialization mode (FMI 1.0: `fmiInitializeSlave`, after start values were set).
    ///
    /// # Errors
    /// When the underlying call fails. Spec: FMI 2.0.2 §4.2.1, FMI 1.0 CS §4.1.
    fn enter_initialization_mode(&mut self) -> Result<()>;

    /// Leaves initialization mode (nothing for FMI 1.0 and file readers).
    ///
    /// # Errors
    /// When the underlying call fails. Spec: FMI 2.0.2 §4.2.1.
    fn exit_initialization_mode(&mut self) -> Result<()>;

    /// Reads Real values; `values.len() == vrs.len()`.
    ///
    /// # Errors
    /// Length mismatch or a failing FMI call. Spec: FMI 2.0.2 §2.1.7.
    fn get_real(&mut self, vrs: &[ValueRef], values: &mut [f64]) -> Result<()>;
    /// Reads Integer values of any width, carried as `i128`; `values.len() == vrs.len()`.
    ///
    /// # Errors
    /// As [`Slave::get_real`].
    fn get_integer(&mut self, vrs: &[ValueRef], values: &mut [i128]) -> Result<()>;
    /// Reads Boolean values; `values.len() == vrs.len()`.
    ///
    /// # Errors
    /// As [`Slave::get_real`].
    fn get_boolean(&mut self, vrs: &[ValueRef], values: &mut [bool]) -> Result<()>;
    /// Reads String values into existing strings; `values.len() == vrs.len()`.
    ///
    /// # Errors
    /// As [`Slave::get_real`].
    fn get_string(&mut self, vrs: &[ValueRef], values: &mut [String]) -> Result<()>;

    /// Writes Real values; `values.len() == vrs.len()`.
    ///
    /// # Errors
    /// Length mismatch or a failing FMI call. Spec: FMI 2.0.2 §2.1.7.
    fn set_real(&mut self, vrs: &[ValueRef], values: &[f64]) -> Result<()>;
    /// Writes Integer values; `values.len() == vrs.len()`. Each value must fit the width of
    /// its variable (the plan checks connections and start values; a value that does not fit
    /// is an error, never truncated).
    ///
    /// # Errors
    /// As [`Slave::set_real`].
    fn set_integer(&mut self, vrs: &[ValueRef], values: &[i128]) -> Result<()>;
    /// Writes Boolean values; `values.len() == vrs.len()`.
    ///
    /// # Errors
    /// As [`Slave::set_real`].
    fn set_boolean(&mut self, vrs: &[ValueRef], values: &[bool]) -> Result<()>;
    /// Writes String values; `values.len() == vrs.len()`.
    ///
    /// # Errors
    /// As [`Slave::set_real`].
    fn set_string(&mut self, vrs: &[ValueRef], values: &[String]) -> Result<()>;

    /// Reads Binary values (FMI 3.0) into existing buffers; `values.len() == vrs.len()`.
    ///
    /// # Errors
    /// [`crate::Error::Unsupported`] for slaves without Binary variables (the default), or as
    /// [`Slave::get_real`]. Spec: FMI 3.0 §2.2.6.2 (`fmi3GetBinary`).
    fn get_binary(&mut self, vrs: &[ValueRef], values: &mut [Vec<u8>]) -> Result<()> {
        let _ = (vrs, values);
        Err(crate::Error::Unsupported {
            slave: self.name().to_string(),
            function: "getBinary",
        })
    }

    /// Writes Binary values (FMI 3.0); `values.len() == vrs.len()`.
    ///
    /// # Errors
    /// As [`Slave::get_binary`]. Spec: FMI 3.0 §2.2.6.2 (`fmi3SetBinary`).
    fn set_binary(&mut self, vrs: &[ValueRef], values: &[Vec<u8>]) -> Result<()> {
        let _ = (vrs, values);
        Err(crate::Error::Unsupported {
            slave: self.name().to_string(),
            function: "setBinary",
        })
    }

    /// Advances the slave from communication point `t` by the communication step size `h` (s).
    ///
    /// # Errors
    /// A failure the master cannot recover from (FMI Fatal, Pending, or Error when the slave
    /// cannot be rolled back). Recoverable failures are [`StepOutcome::Rejected`].
    /// Spec: FMI 2.0.2 §4.2.2 (`fmi2DoStep`).
    fn do_step(&mut self, t: f64, h: f64) -> Result<StepOutcome>;

    /// Saves the slave state: into a new slot (`into = None`) or over an existing one.
    ///
    /// # Errors
    /// When the slave cannot save its state. Spec: FMI 2.0.2 §2.1.8 (`fmi2GetFMUstate`).
    fn get_state(&mut self, into: Option<StateId>) -> Result<StateId>;

    /// Restores a saved state.
    ///
    /// # Errors
    /// Unknown id or a failing FMI call. Spec: FMI 2.0.2 §2.1.8 (`fmi2SetFMUstate`).
    fn set_state(&mut self, state: StateId) -> Result<()>;

    /// Frees a saved state; its id must not be used again.
    ///
    /// # Errors
    /// Unknown id or a failing FMI call. Spec: FMI 2.0.2 §2.1.8 (`fmi2FreeFMUstate`).
    fn free_state(&mut self, state: StateId) -> Result<()>;

    /// The slave's current state as bytes, for a checkpoint on disk, or `None` when the slave
    /// cannot serialize its state (the default; a resumed run then replays it).
    ///
    /// # Errors
    /// A failing FMI call. Spec: FMI 2.0.2 §2.1.8 (`fmi2SerializeFMUstate`).
    fn serialize_state(&mut self) -> Result<Option<Vec<u8>>> {
        Ok(None)
    }

    /// Restores a state from bytes that [`Slave::serialize_state`] of the same slave (in an
    /// earlier process) returned.
    ///
    /// # Errors
    /// [`crate::Error::Unsupported`] (the default), or a failing FMI call (bytes the slave
    /// does not accept). Spec: FMI 2.0.2 §2.1.8 (`fmi2DeSerializeFMUstate`).
    fn deserialize_state(&mut self, bytes: &[u8]) -> Result<()> {
        let _ = bytes;
        Err(crate::Error::Unsupported {
            slave: self.name().to_string(),
            function: "deSerializeFMUstate",
        })
    }

    /// Partial derivatives of Real outputs (`unknowns`) with respect to Real inputs (`knowns`)
    /// at the current state, times the seed `dv_known`:
    /// `dv_unknown[i] = Σ_j ∂unknowns[i]/∂knowns[j] · dv_known[j]`.
    ///
    /// Shapes: `dv_known.len() == knowns.len()`, `dv_unknown.len() == unknowns.len()`.
    ///
    /// # Errors
    /// [`crate::Error::Unsupported`] when the slave does not provide derivatives (the default),
    /// or a failing FMI call. Spec: FMI 2.0.2 §2.1.9 (`fmi2GetDirectionalDerivative`).
    fn get_directional_derivative(
        &mut self,
        unknowns: &[ValueRef],
        knowns: &[ValueRef],
        dv_known: &[f64],
        dv_unknown: &mut [f64],
    ) -> Result<()> {
        let _ = (unknowns, knowns, dv_known, dv_unknown);
        Err(crate::Error::Unsupported {
            slave: self.name().to_string(),
            function: "getDirectionalDerivative",
        })
    }

    /// The integrator's counts of a Model Exchange slave; `None` (the default) for any other.
    fn integrator_statistics(&self) -> Option<crate::statistics::IntegratorStatistics> {
        None
    }

    /// Ends the simulation of this slave (`fmi2Terminate` / `fmiTerminateSlave`).
    ///
    /// # Errors
    /// When the underlying call fails. Spec: FMI 2.0.2 §4.2.1.
    fn terminate(&mut self) -> Result<()>;
}
