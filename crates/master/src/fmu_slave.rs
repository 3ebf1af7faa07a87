//! [`FmuSlave`]: a [`Slave`] backed by an FMI 1.0 or 2.0 instance (FMI 3.0 instances are
//! [`crate::fmi3_slave::Fmi3Slave`]).
//!
//! Spec: FMI 2.0.2 §4.2 (co-simulation calls), FMI 1.0 CS §4, MasterSim reference §6.5–§6.7.

use fmi::{FailureStatus, Instance, ValueRef};

use crate::fmu_states::{self, StateSlots};
use crate::slave::{RejectReason, Slave, SlaveCapabilities, StateId, StepOutcome};
use crate::{Error, Result};

/// A slave that is an instance of an imported FMU.
#[derive(Debug)]
pub struct FmuSlave {
    name: String,
    instance: Instance,
    capabilities: SlaveCapabilities,
    states: StateSlots,
    /// FMI 1.0/2.0 `Integer` values of one batch, widened to or narrowed from the master's
    /// `i128` (grows to the largest batch, then never allocates again).
    integers: Vec<i32>,
}

impl FmuSlave {
    /// Wraps an instance; `name` is the slave name of the project.
    pub fn new(name: String, instance: Instance) -> Self {
        let c = instance.fmu().description().capabilities;
        let capabilities = SlaveCapabilities {
            can_get_and_set_state: instance.can_get_and_set_fmu_state(),
            can_handle_variable_step_size: c.can_handle_variable_communication_step_size,
            provides_directional_derivative: instance.provides_directional_derivative(),
            instantiated_only_once_per_process: c.can_be_instantiated_only_once_per_process,
        };
        FmuSlave {
            name,
            instance,
            capabilities,
            states: StateSlots::default(),
            integers: Vec::new(),
        }
    }

    /// The FMU of the instance.
    pub(crate) fn fmu(&self) -> &std::sync::Arc<fmi::Fmu> {
        self.instance.fmu()
    }

    /// The instance, for the Model Exchange calls ([`crate::model_exchange`]).
    pub(crate) fn instance_mut(&mut self) -> &mut Instance {
        &mut self.instance
    }

    /// True while no FMU state is held (`noSetFMUStatePriorToCurrentPoint` may be true).
    pub(crate) fn no_state_held(&self) -> bool {
        self.states.none_held()
    }

    #[inline]
    fn fmi<T>(&self, result: fmi::Result<T>) -> Result<T> {
        match result {
            Ok(value) => Ok(value),
            Err(source) => Err(self.error(source)),
        }
    }

    /// The error of a failed FMI call of this slave.
    #[cold]
    #[inline(never)]
    fn error(&self, source: fmi::Error) -> Error {
        Error::Fmi {
            slave: self.name.clone(),
            source: Box::new(source),
        }
    }

    /// The outcome of a `doStep` that did not succeed at `t` with `h` (s): Discard and Error
    /// reject the step, anything else fails it.
    #[cold]
    #[inline(never)]
    fn step_failure(&self, e: fmi::Error, t: f64, h: f64) -> Result<StepOutcome> {
        match e {
            fmi::Error::Discard { .. } => Ok(StepOutcome::Rejected(RejectReason::Discard)),
            fmi::Error::CallFailed {
                status: FailureStatus::Error,
                ..
            } => Ok(StepOutcome::Rejected(RejectReason::Error)),
            e @ fmi::Error::Isolated { .. } => Err(Error::HelperFailed {
                slave: self.name.clone(),
                function: "doStep",
                t,
                h,
                source: Box::new(e),
            }),
            e => Err(Error::StepFailed {
                slave: self.name.clone(),
                function: "doStep",
                t,
                h,
                reason: e.to_string(),
            }),
        }
    }
}

impl Slave for FmuSlave {
    fn name(&self) -> &str {
        &self.name
    }

    fn capabilities(&self) -> SlaveCapabilities {
        self.capabilities
    }

    fn setup_experiment(&mut self, rel_tol: f64, t_start: f64, t_end: f64) -> Result<()> {
        let r = self
            .instance
            .setup_experiment(Some(rel_tol), t_start, Some(t_end));
        self.fmi(r).map(drop)
    }

    fn enter_initialization_mode(&mut self) -> Result<()> {
        let r = self.instance.enter_initialization_mode();
        self.fmi(r).map(drop)
    }

    fn exit_initialization_mode(&mut self) -> Result<()> {
        let r = self.instance.exit_initialization_mode();
        self.fmi(r).map(drop)
    }

    #[inline]
    fn get_real(&mut self, vrs: &[ValueRef], values: &mut [f64]) -> Result<()> {
        let r = self.instance.get_real(vrs, values);
        self.fmi(r).map(drop)
    }

    #[inline]
    fn get_integer(&mut self, vrs: &[ValueRef], values: &mut [i128]) -> Result<()> {
        self.integers.clear();
        self.integers.resize(values.len(), 0);
        let r = self.instance.get_integer(vrs, &mut self.integers);
        self.fmi(r)?;
        for (to, &from) in values.iter_mut().zip(&self.integers) {
            *to = i128::from(from);
        }
        Ok(())
    }

    #[inline]
    fn get_boolean(&mut self, vrs: &[ValueRef], values: &mut [bool]) -> Result<()> {
        let r = self.instance.get_boolean(vrs, values);
        self.fmi(r).map(drop)
    }

    fn get_string(&mut self, vrs: &[ValueRef], values: &mut [String]) -> Result<()> {
        let r = self.instance.get_string(vrs, values);
        self.fmi(r).map(drop)
    }

    #[inline]
    fn set_real(&mut self, vrs: &[ValueRef], values: &[f64]) -> Result<()> {
        let r = self.instance.set_real(vrs, values);
        self.fmi(r).map(drop)
    }

    #[inline]
    fn set_integer(&mut self, vrs: &[ValueRef], values: &[i128]) -> Result<()> {
        self.integers.clear();
        for (&vr, &value) in vrs.iter().zip(values) {
            let narrow = i32::try_from(value).map_err(|_| Error::ValueRange {
                slave: self.name.clone(),
                handle: vr.0,
                value: value.to_string(),
                data_type: fmi::DataType::Int32,
            })?;
            self.integers.push(narrow);
        }
        let r = self.instance.set_integer(vrs, &self.integers);
        self.fmi(r).map(drop)
    }

    #[inline]
    fn set_boolean(&mut self, vrs: &[ValueRef], values: &[bool]) -> Result<()> {
        let r = self.instance.set_boolean(vrs, values);
        self.fmi(r).map(drop)
    }

    fn set_string(&mut self, vrs: &[ValueRef], values: &[String]) -> Result<()> {
        let r = self.instance.set_string(vrs, values);
        self.fmi(r).map(drop)
    }

    /// `doStep`, with `noSetFMUStatePriorToCurrentPoint` true only while the slave holds no
    /// saved FMU state: a held state means the master may roll back to it.
    #[inline]
    fn do_step(&mut self, t: f64, h: f64) -> Result<StepOutcome> {
        let no_set_prior = self.states.none_held();
        match self.instance.do_step(t, h, no_set_prior) {
            Ok(fmi::StepOutcome::Completed(_)) => Ok(StepOutcome::Completed),
            Ok(fmi::StepOutcome::Terminated) => Ok(StepOutcome::Terminated),
            Err(e) => self.step_failure(e, t, h),
        }
    }

    fn get_state(&mut self, into: Option<StateId>) -> Result<StateId> {
        self.states.save(&self.name, &mut self.instance, into)
    }

    fn set_state(&mut self, state: StateId) -> Result<()> {
        self.states.restore(&self.name, &mut self.instance, state)
    }

    fn free_state(&mut self, state: StateId) -> Result<()> {
        self.states.free(&self.name, &mut self.instance, state)
    }

    /// `fmi2GetFMUstate` into a new state, `fmi2SerializeFMUstate`, `fmi2FreeFMUstate`;
    /// `None` unless the FMU declares `canSerializeFMUstate`.
    fn serialize_state(&mut self) -> Result<Option<Vec<u8>>> {
        fmu_states::serialize(&self.name, &mut self.instance)
    }

    /// `fmi2DeSerializeFMUstate` into a new state, `fmi2SetFMUstate`, `fmi2FreeFMUstate`.
    fn deserialize_state(&mut self, bytes: &[u8]) -> Result<()> {
        fmu_states::deserialize(&self.name, &mut self.instance, bytes)
    }

    fn get_directional_derivative(
        &mut self,
        unknowns: &[ValueRef],
        knowns: &[ValueRef],
        dv_known: &[f64],
        dv_unknown: &mut [f64],
    ) -> Result<()> {
        let r = self
            .instance
            .get_directional_derivative(unknowns, knowns, dv_known, dv_unknown);
        self.fmi(r).map(drop)
    }

    fn terminate(&mut self) -> Result<()> {
        if self.instance.is_failed() {
            // Terminate is not allowed in the error state (FMI 2.0.2 §4.2.4); freeing follows.
            log::debug!(
                "not terminating '{}': it is in the error state",
                self.instance.name()
            );
            return Ok(());
        }
        let r = self.instance.terminate();
        self.fmi(r).map(drop)
    }
}
