//! The Model Exchange calls of an FMI 2.0 instance (feature `me`), on an [`Instance`] whose
//! model is a [`ModelExchange`] adapter: the call-sequence checks of FMI 2.0 §3.2.3 and the
//! forwarding to the [`MeModel`]. No unsafe code: [`crate::fmi2_me`] turns the raw arguments
//! into slices first.
//!
//! Modes: after `fmi2ExitInitializationMode` the instance (in [`Phase::StepMode`] of the
//! instance layer) is in Event Mode; `fmi2EnterContinuousTimeMode` and `fmi2EnterEventMode`
//! switch between Event Mode and Continuous-Time Mode ([`MeMode`]).

use crate::instance::{CallError, CallResult, Instance};
use crate::logger::{Category, status};
use crate::model_me::{EventUpdate, Interface, MeMode, MeModel, ModelExchange, StepEvent};
use crate::phase::{Phase, Status};

/// Where a Model Exchange call is allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Allowed {
    /// Only in Event Mode.
    EventMode,
    /// Only in Continuous-Time Mode.
    ContinuousTimeMode,
    /// In Event Mode or Continuous-Time Mode.
    EventOrContinuous,
    /// To read: Initialization Mode, Event Mode, Continuous-Time Mode, Terminated, error.
    Read,
}

type Me<M> = Instance<ModelExchange<M>>;

fn sequence_error<M: MeModel>(inst: &Me<M>, function: &str) -> CallError {
    let where_ = match (inst.phase(), inst.model().mode()) {
        (Phase::StepMode, MeMode::Event) => "Event Mode".to_owned(),
        (Phase::StepMode, MeMode::ContinuousTime) => "Continuous-Time Mode".to_owned(),
        (phase, _) => format!("phase {phase:?}"),
    };
    CallError::Me(format!("{function} is not allowed in {where_}"))
}

/// Checks that `function` may be called now.
fn require<M: MeModel>(inst: &Me<M>, function: &str, allowed: Allowed) -> CallResult<()> {
    if inst.model().interface() != Interface::ModelExchange {
        return Err(CallError::Me(format!(
            "{function}: this instance was created for co-simulation"
        )));
    }
    let mode = inst.model().mode();
    let ok = match (inst.phase(), allowed) {
        (Phase::StepMode, Allowed::EventMode) => mode == MeMode::Event,
        (Phase::StepMode, Allowed::ContinuousTimeMode) => mode == MeMode::ContinuousTime,
        (Phase::StepMode, Allowed::EventOrContinuous | Allowed::Read) => true,
        (Phase::InitializationMode | Phase::Terminated | Phase::Error, Allowed::Read) => true,
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(sequence_error(inst, function))
    }
}

/// Checks that an array argument has the model's length.
fn require_len(function: &str, what: &str, given: usize, expected: usize) -> CallResult<()> {
    if given == expected {
        Ok(())
    } else {
        Err(CallError::Me(format!(
            "{function}: {what} = {given}, but the model has {expected}"
        )))
    }
}

/// `fmi2SetTime`: sets the model time `t` (s), in Event Mode or Continuous-Time Mode. Time
/// must be finite; it may go back (an integrator that rejects a step or locates a root
/// evaluates at earlier times; FMI 2.0.2 §3.2.1 sets no order).
pub(crate) fn set_time<M: MeModel>(inst: &mut Me<M>, t: f64) -> CallResult {
    require(inst, "fmi2SetTime", Allowed::EventOrContinuous)?;
    if !t.is_finite() {
        return Err(CallError::Me(format!(
            "fmi2SetTime: time {t} s is not finite"
        )));
    }
    inst.model_mut().set_time(t);
    Ok(Status::Ok)
}

/// `fmi2SetContinuousStates`: only in Continuous-Time Mode; `x.len()` must be n_x.
pub(crate) fn set_continuous_states<M: MeModel>(inst: &mut Me<M>, x: &[f64]) -> CallResult {
    const F: &str = "fmi2SetContinuousStates";
    require(inst, F, Allowed::ContinuousTimeMode)?;
    require_len(F, "nx", x.len(), inst.model().model().number_of_states())?;
    inst.model_mut().model_mut().set_continuous_states(x)?;
    Ok(Status::Ok)
}

/// `fmi2GetContinuousStates`: writes x into `x` (`x.len()` = n_x).
pub(crate) fn get_continuous_states<M: MeModel>(inst: &mut Me<M>, x: &mut [f64]) -> CallResult {
    const F: &str = "fmi2GetContinuousStates";
    require(inst, F, Allowed::Read)?;
    require_len(F, "nx", x.len(), inst.model().model().number_of_states())?;
    inst.model().model().continuous_states(x);
    Ok(Status::Ok)
}

/// `fmi2GetNominalsOfContinuousStates`: writes the states' nominals (`x.len()` = n_x).
pub(crate) fn get_nominals<M: MeModel>(inst: &mut Me<M>, x: &mut [f64]) -> CallResult {
    const F: &str = "fmi2GetNominalsOfContinuousStates";
    require(inst, F, Allowed::Read)?;
    require_len(F, "nx", x.len(), inst.model().model().number_of_states())?;
    inst.model().model().nominals(x);
    Ok(Status::Ok)
}

/// `fmi2GetDerivatives`: writes f(t, x) into `dx` (`dx.len()` = n_x). The values are the
/// model's, unchecked (a hostile model may give NaN with OK).
pub(crate) fn get_derivatives<M: MeModel>(inst: &mut Me<M>, dx: &mut [f64]) -> CallResult {
    const F: &str = "fmi2GetDerivatives";
    require(inst, F, Allowed::Read)?;
    require_len(F, "nx", dx.len(), inst.model().model().number_of_states())?;
    let t = inst.model().time();
    inst.model().model().derivatives(t, dx)?;
    Ok(Status::Ok)
}

/// `fmi2GetEventIndicators`: writes z(t, x) into `z` (`z.len()` = n_z).
pub(crate) fn get_event_indicators<M: MeModel>(inst: &mut Me<M>, z: &mut [f64]) -> CallResult {
    const F: &str = "fmi2GetEventIndicators";
    require(inst, F, Allowed::Read)?;
    require_len(
        F,
        "ni",
        z.len(),
        inst.model().model().number_of_event_indicators(),
    )?;
    let t = inst.model().time();
    inst.model().model().event_indicators(t, z)?;
    Ok(Status::Ok)
}

/// `fmi2EnterEventMode`: from Continuous-Time Mode (or Event Mode, where it does nothing).
pub(crate) fn enter_event_mode<M: MeModel>(inst: &mut Me<M>) -> CallResult {
    require(inst, "fmi2EnterEventMode", Allowed::EventOrContinuous)?;
    inst.trace(|| format!("fmi2EnterEventMode at t = {} s", inst.model().time()));
    inst.model_mut().set_mode(MeMode::Event);
    Ok(Status::Ok)
}

/// `fmi2NewDiscreteStates`: one event iteration, only in Event Mode.
pub(crate) fn new_discrete_states<M: MeModel>(inst: &mut Me<M>) -> CallResult<EventUpdate> {
    require(inst, "fmi2NewDiscreteStates", Allowed::EventMode)?;
    let t = inst.model().time();
    let update = inst.model_mut().model_mut().event_update(t);
    if inst.logger.enabled(Category::Calls) {
        let message = format!("fmi2NewDiscreteStates at t = {t} s: {update:?}");
        inst.log(status::OK, Category::Calls, &message);
    }
    Ok(update)
}

/// `fmi2EnterContinuousTimeMode`: only from Event Mode.
pub(crate) fn enter_continuous_time_mode<M: MeModel>(inst: &mut Me<M>) -> CallResult {
    require(inst, "fmi2EnterContinuousTimeMode", Allowed::EventMode)?;
    inst.trace(|| {
        format!(
            "fmi2EnterContinuousTimeMode at t = {} s",
            inst.model().time()
        )
    });
    inst.model_mut().set_mode(MeMode::ContinuousTime);
    Ok(Status::Ok)
}

/// `fmi2CompletedIntegratorStep`: only in Continuous-Time Mode.
pub(crate) fn completed_integrator_step<M: MeModel>(inst: &mut Me<M>) -> CallResult<StepEvent> {
    require(
        inst,
        "fmi2CompletedIntegratorStep",
        Allowed::ContinuousTimeMode,
    )?;
    let t = inst.model().time();
    Ok(inst.model_mut().model_mut().completed_integrator_step(t))
}

/// `fmi2Reset` of a Model Exchange FMU: [`Instance::reset`], keeping the interface the
/// instance was created for.
pub(crate) fn reset<M: MeModel>(inst: &mut Me<M>) -> CallResult {
    let interface = inst.model().interface();
    let status = inst.reset()?;
    inst.model_mut().set_interface(interface);
    Ok(status)
}
