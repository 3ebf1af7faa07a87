#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

mod bounce;
mod hostile;
mod linear;
mod ode;
mod plant;
mod robertson;
mod steps;

pub use bounce::*;
pub use hostile::*;
pub use linear::{
    LINEAR_DUAL_GUID, LINEAR_GUID, LINEAR_VARIABLES, LINEAR3_TOKEN, LINEAR3_VARIABLES,
    LinearEquations, LinearParameters, VR_LINEAR_DER_V, VR_LINEAR_DER_X, VR_LINEAR_OMEGA,
    VR_LINEAR_V, VR_LINEAR_V0, VR_LINEAR_X, VR_LINEAR_X0, VR_LINEAR_ZETA, linear_solution,
};
pub use ode::{EVENT_TOLERANCE, Equations, Ode, RK4_MAX_STEP, reached};
pub use plant::*;
pub use robertson::*;
pub use steps::*;

use fmu_support::{EventUpdate, MeModel, ModelError, StepEvent};

fmu_support::model_enum! {
    /// Every model of this library, chosen by the GUID at instantiation.
    pub enum ModelExchangeModels {
        /// `Linear`.
        Linear(Ode<LinearEquations<false, false>>),
        /// `LinearDual`.
        LinearDual(Ode<LinearEquations<true, false>>),
        /// `Bounce`.
        Bounce(Ode<BounceEquations<false>>),
        /// `Steps`.
        Steps(Ode<StepsEquations>),
        /// `Robertson`.
        Robertson(Ode<RobertsonEquations>),
        /// `Plant`.
        Plant(Ode<PlantEquations>),
        /// `NanDerivative`.
        NanDerivative(Ode<NanDerivativeEquations>),
        /// `EventLoop`.
        EventLoop(Ode<EventLoopEquations>),
        /// `Linear3` (FMI 3.0).
        Linear3(Ode<LinearEquations<false, true>>),
        /// `Bounce3` (FMI 3.0).
        Bounce3(Ode<BounceEquations<true>>),
    }
}

/// Calls `$call` on the model of whichever variant `$self` is.
macro_rules! dispatch {
    ($self:expr, $m:ident => $call:expr) => {
        match $self {
            ModelExchangeModels::Linear($m) => $call,
            ModelExchangeModels::LinearDual($m) => $call,
            ModelExchangeModels::Bounce($m) => $call,
            ModelExchangeModels::Steps($m) => $call,
            ModelExchangeModels::Robertson($m) => $call,
            ModelExchangeModels::Plant($m) => $call,
            ModelExchangeModels::NanDerivative($m) => $call,
            ModelExchangeModels::EventLoop($m) => $call,
            ModelExchangeModels::Linear3($m) => $call,
            ModelExchangeModels::Bounce3($m) => $call,
        }
    };
}

impl MeModel for ModelExchangeModels {
    fn number_of_states(&self) -> usize {
        dispatch!(self, m => m.number_of_states())
    }

    fn number_of_event_indicators(&self) -> usize {
        dispatch!(self, m => m.number_of_event_indicators())
    }

    fn co_simulation(&self) -> bool {
        dispatch!(self, m => m.co_simulation())
    }

    fn set_time(&mut self, t: f64) {
        dispatch!(self, m => m.set_time(t));
    }

    fn continuous_states(&self, x: &mut [f64]) {
        dispatch!(self, m => m.continuous_states(x));
    }

    fn set_continuous_states(&mut self, x: &[f64]) -> Result<(), ModelError> {
        dispatch!(self, m => m.set_continuous_states(x))
    }

    fn nominals(&self, nominals: &mut [f64]) {
        dispatch!(self, m => m.nominals(nominals));
    }

    fn derivatives(&self, t: f64, dx: &mut [f64]) -> Result<(), ModelError> {
        dispatch!(self, m => m.derivatives(t, dx))
    }

    fn event_indicators(&self, t: f64, z: &mut [f64]) -> Result<(), ModelError> {
        dispatch!(self, m => m.event_indicators(t, z))
    }

    fn event_update(&mut self, t: f64) -> EventUpdate {
        dispatch!(self, m => m.event_update(t))
    }

    fn completed_integrator_step(&mut self, t: f64) -> StepEvent {
        dispatch!(self, m => m.completed_integrator_step(t))
    }
}

#[cfg(feature = "export")]
fmu_support::export_fmi2_me!(ModelExchangeModels);
#[cfg(feature = "export")]
fmu_support::export_fmi3_me!(ModelExchangeModels);

#[cfg(test)]
mod tests;
