//! Safe, version-neutral FMU instances. (CONTRACT STUB: the fmi helper replaces the bodies.)

use std::sync::Arc;

use crate::{Fmu, Result, Status, ValueRef};

/// Options for [`Fmu::instantiate`].
///
/// Spec: FMI 2.0.2 §2.1.5 (`fmi2Instantiate`), FMI 1.0 CS §4.1 (`fmiInstantiateSlave`).
#[derive(Debug, Clone, Default)]
pub struct InstantiateOptions {
    /// Passed as `visible` (default false: no user interaction).
    pub visible: bool,
    /// Passed as `loggingOn` (default false).
    pub logging_on: bool,
}

/// Handle of an FMU state owned by an [`Instance`]; see [`Instance::get_fmu_state`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FmuStateId(pub(crate) usize);

/// The result of a `doStep` call that did not fail.
///
/// Spec: FMI 2.0.2 §4.2.2 (`fmi2DoStep`, `fmi2Terminated`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepOutcome {
    /// The step completed (status OK or Warning).
    Completed(Status),
    /// The FMU returned Discard and reports `fmi2Terminated = true`: it asks to end the
    /// simulation at its current time. This is a normal end, not a failure.
    Terminated,
}

/// One instance (FMI 2.0 "instance", FMI 1.0 "slave") of an [`Fmu`].
///
/// `Send` but not `Sync`: an instance is never called from two threads at once, which the
/// `&mut self` receivers guarantee.
#[derive(Debug)]
pub struct Instance {
    _fmu: Arc<Fmu>,
}

impl Instance {
    /// The instance name given at instantiation.
    pub fn name(&self) -> &str {
        todo!()
    }
    /// The FMU this instance belongs to.
    pub fn fmu(&self) -> &Arc<Fmu> {
        &self._fmu
    }
    /// FMI 2.0: `fmi2SetupExperiment`. FMI 1.0: stores the arguments for
    /// [`Instance::enter_initialization_mode`]. Times in s.
    pub fn setup_experiment(&mut self, tolerance: Option<f64>, start_time: f64, stop_time: Option<f64>) -> Result<Status> {
        let _ = (tolerance, start_time, stop_time);
        todo!()
    }
    /// FMI 2.0: `fmi2EnterInitializationMode`. FMI 1.0: `fmiInitializeSlave`.
    pub fn enter_initialization_mode(&mut self) -> Result<Status> {
        todo!()
    }
    /// FMI 2.0: `fmi2ExitInitializationMode`. FMI 1.0: nothing.
    pub fn exit_initialization_mode(&mut self) -> Result<Status> {
        todo!()
    }
    /// `fmi2GetReal`; `values.len() == vrs.len()`.
    pub fn get_real(&mut self, vrs: &[ValueRef], values: &mut [f64]) -> Result<Status> {
        let _ = (vrs, values);
        todo!()
    }
    /// `fmi2GetInteger`; `values.len() == vrs.len()`.
    pub fn get_integer(&mut self, vrs: &[ValueRef], values: &mut [i32]) -> Result<Status> {
        let _ = (vrs, values);
        todo!()
    }
    /// `fmi2GetBoolean`; `values.len() == vrs.len()`.
    pub fn get_boolean(&mut self, vrs: &[ValueRef], values: &mut [bool]) -> Result<Status> {
        let _ = (vrs, values);
        todo!()
    }
    /// `fmi2GetString`; `values.len() == vrs.len()`; existing strings are overwritten in place.
    pub fn get_string(&mut self, vrs: &[ValueRef], values: &mut [String]) -> Result<Status> {
        let _ = (vrs, values);
        todo!()
    }
    /// `fmi2SetReal`; `values.len() == vrs.len()`.
    pub fn set_real(&mut self, vrs: &[ValueRef], values: &[f64]) -> Result<Status> {
        let _ = (vrs, values);
        todo!()
    }
    /// `fmi2SetInteger`; `values.len() == vrs.len()`.
    pub fn set_integer(&mut self, vrs: &[ValueRef], values: &[i32]) -> Result<Status> {
        let _ = (vrs, values);
        todo!()
    }
    /// `fmi2SetBoolean`; `values.len() == vrs.len()`.
    pub fn set_boolean(&mut self, vrs: &[ValueRef], values: &[bool]) -> Result<Status> {
        let _ = (vrs, values);
        todo!()
    }
    /// `fmi2SetString`; `values.len() == vrs.len()`.
    pub fn set_string<S: AsRef<str>>(&mut self, vrs: &[ValueRef], values: &[S]) -> Result<Status> {
        let _ = (vrs, values);
        todo!()
    }
    /// `fmi2DoStep` / `fmiDoStep`. Times in s.
    pub fn do_step(&mut self, current_communication_point: f64, communication_step_size: f64, no_set_fmu_state_prior_to_current_point: bool) -> Result<StepOutcome> {
        let _ = (current_communication_point, communication_step_size, no_set_fmu_state_prior_to_current_point);
        todo!()
    }
    /// True when the FMU declares `canGetAndSetFMUstate` and exports the three state functions.
    pub fn can_get_and_set_fmu_state(&self) -> bool {
        todo!()
    }
    /// `fmi2GetFMUstate`: with `into = None` a new state is created; with `Some(id)` that state is
    /// updated in place.
    pub fn get_fmu_state(&mut self, into: Option<FmuStateId>) -> Result<FmuStateId> {
        let _ = into;
        todo!()
    }
    /// `fmi2SetFMUstate`.
    pub fn set_fmu_state(&mut self, state: FmuStateId) -> Result<Status> {
        let _ = state;
        todo!()
    }
    /// `fmi2FreeFMUstate`.
    pub fn free_fmu_state(&mut self, state: FmuStateId) -> Result<Status> {
        let _ = state;
        todo!()
    }
    /// True when the FMU declares `providesDirectionalDerivative` and exports the function.
    pub fn provides_directional_derivative(&self) -> bool {
        todo!()
    }
    /// `fmi2GetDirectionalDerivative`: `dv_unknown.len() == unknowns.len()`,
    /// `dv_known.len() == knowns.len()`.
    pub fn get_directional_derivative(&mut self, unknowns: &[ValueRef], knowns: &[ValueRef], dv_known: &[f64], dv_unknown: &mut [f64]) -> Result<Status> {
        let _ = (unknowns, knowns, dv_known, dv_unknown);
        todo!()
    }
    /// `fmi2Terminate` / `fmiTerminateSlave`.
    pub fn terminate(&mut self) -> Result<Status> {
        todo!()
    }
}
