//! The Model Exchange calls of an FMI 3.0 instance (features `fmi3` and `me`), on an
//! [`Instance3`] whose model is a [`ModelExchange`] adapter. The instance is created with
//! Event Mode in use, so `fmi3ExitInitializationMode` enters Event Mode; Continuous-Time Mode is
//! the instance layer's [`Phase3::Step`] (no `fmi3DoStep` reaches a Model Exchange instance:
//! [`ModelExchange`] refuses it). No unsafe code: [`crate::fmi3_me`] checks the raw arguments.
//!
//! Spec: FMI 3.0 §3 (Model Exchange), §3.3 (state machine).

use crate::instance3::{Error3, Instance3, Phase3, Result3};
use crate::model_me::{EventUpdate, MeModel, ModelExchange, StepEvent};
use crate::phase::Status;

type Me<M> = Instance3<ModelExchange<M>>;

/// The states in which the getters of states, nominals, derivatives and event indicators work.
const READ: &[Phase3] = &[
    Phase3::Initialization,
    Phase3::Event,
    Phase3::Step,
    Phase3::Terminated,
    Phase3::Error,
];

/// Checks that `function` may be called in the instance's state.
fn require<M: MeModel>(inst: &Me<M>, function: &str, allowed: &[Phase3]) -> Result3<()> {
    if allowed.contains(&inst.phase()) {
        return Ok(());
    }
    let state = match inst.phase() {
        Phase3::Step => "Continuous-Time Mode".to_owned(),
        other => other.to_string(),
    };
    Err(Error3::Me(format!("{function} is not allowed in {state}")))
}

/// Checks that an array argument has the model's length.
fn require_len(function: &str, what: &str, given: usize, expected: usize) -> Result3<()> {
    if given == expected {
        Ok(())
    } else {
        Err(Error3::Me(format!(
            "{function}: {what} = {given}, but the model has {expected}"
        )))
    }
}

/// `fmi3SetTime` (Event Mode or Continuous-Time Mode; finite times, going back allowed).
pub(crate) fn set_time<M: MeModel>(inst: &mut Me<M>, t: f64) -> Result3 {
    require(inst, "fmi3SetTime", &[Phase3::Event, Phase3::Step])?;
    if !t.is_finite() {
        return Err(Error3::Me(format!("fmi3SetTime: time {t} s is not finite")));
    }
    inst.model_mut().set_time(t);
    Ok(Status::Ok)
}

/// `fmi3SetContinuousStates`: Continuous-Time Mode only; `x.len()` = n_x.
pub(crate) fn set_continuous_states<M: MeModel>(inst: &mut Me<M>, x: &[f64]) -> Result3 {
    const F: &str = "fmi3SetContinuousStates";
    require(inst, F, &[Phase3::Step])?;
    let n = inst.model().model().number_of_states();
    require_len(F, "nContinuousStates", x.len(), n)?;
    inst.model_mut().model_mut().set_continuous_states(x)?;
    Ok(Status::Ok)
}

/// Which array an FMI 3.0 Model Exchange getter fills ([`crate::fmi3_me::get_array`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Array {
    /// `fmi3GetContinuousStates`.
    States,
    /// `fmi3GetNominalsOfContinuousStates`.
    Nominals,
    /// `fmi3GetContinuousStateDerivatives`.
    Derivatives,
    /// `fmi3GetEventIndicators`.
    EventIndicators,
}

impl Array {
    /// The name of the FMI function.
    pub(crate) fn function(self) -> &'static str {
        match self {
            Self::States => "fmi3GetContinuousStates",
            Self::Nominals => "fmi3GetNominalsOfContinuousStates",
            Self::Derivatives => "fmi3GetContinuousStateDerivatives",
            Self::EventIndicators => "fmi3GetEventIndicators",
        }
    }
}

/// Fills `values` (of the model's length) with the array `which`.
pub(crate) fn get_array<M: MeModel>(inst: &mut Me<M>, which: Array, values: &mut [f64]) -> Result3 {
    let f = which.function();
    require(inst, f, READ)?;
    let adapter = inst.model();
    let (model, t) = (adapter.model(), adapter.time());
    match which {
        Array::EventIndicators => {
            let n = model.number_of_event_indicators();
            require_len(f, "nEventIndicators", values.len(), n)?;
            model.event_indicators(t, values)?;
        }
        _ => {
            let n = model.number_of_states();
            require_len(f, "nContinuousStates", values.len(), n)?;
            match which {
                Array::States => model.continuous_states(values),
                Array::Nominals => model.nominals(values),
                _ => model.derivatives(t, values)?,
            }
        }
    }
    Ok(Status::Ok)
}

/// `fmi3GetNumberOfContinuousStates` / `fmi3GetNumberOfEventIndicators`: (n_x, n_z).
pub(crate) fn sizes<M: MeModel>(inst: &Me<M>) -> (usize, usize) {
    let model = inst.model().model();
    (model.number_of_states(), model.number_of_event_indicators())
}

/// `fmi3UpdateDiscreteStates` of a Model Exchange instance: one event iteration in Event Mode.
pub(crate) fn update_discrete_states<M: MeModel>(inst: &mut Me<M>) -> Result3<EventUpdate> {
    require(inst, "fmi3UpdateDiscreteStates", &[Phase3::Event])?;
    let t = inst.model().time();
    let update = inst.model_mut().model_mut().event_update(t);
    inst.trace(|| format!("fmi3UpdateDiscreteStates at t = {t} s: {update:?}"));
    Ok(update)
}

/// `fmi3EnterContinuousTimeMode`: from Event Mode.
pub(crate) fn enter_continuous_time_mode<M: MeModel>(inst: &mut Me<M>) -> Result3 {
    require(inst, "fmi3EnterContinuousTimeMode", &[Phase3::Event])?;
    inst.trace(|| {
        format!(
            "fmi3EnterContinuousTimeMode at t = {} s",
            inst.model().time()
        )
    });
    inst.set_phase(Phase3::Step);
    Ok(Status::Ok)
}

/// `fmi3CompletedIntegratorStep`: Continuous-Time Mode only.
pub(crate) fn completed_integrator_step<M: MeModel>(inst: &mut Me<M>) -> Result3<StepEvent> {
    require(inst, "fmi3CompletedIntegratorStep", &[Phase3::Step])?;
    let t = inst.model().time();
    Ok(inst.model_mut().model_mut().completed_integrator_step(t))
}
