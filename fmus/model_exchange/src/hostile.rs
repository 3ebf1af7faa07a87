//! Hostile Model Exchange FMUs for the master's error handling: `NanDerivative` (x' = −x, but
//! NaN derivatives from `tNan` on, with status OK) and `EventLoop` (x' = 1 with a time event at
//! `tLoop`, where `newDiscreteStatesNeeded` stays true at every event iteration).

use fmu_support::{Causality, EventUpdate, ModelError, VarType, Variable};

use crate::ode::{Equations, reached};

/// GUID of `NanDerivative`.
pub const NAN_DERIVATIVE_GUID: &str = "{e0d4b6a3-2c71-4f9e-8b15-4a6c3e9d2f08}";
/// GUID of `EventLoop`.
pub const EVENT_LOOP_GUID: &str = "{7c2e9f14-a3b6-4d51-9e08-5f1a6b3c4d92}";

/// `x`, state (both FMUs).
pub const VR_HOSTILE_X: u32 = 1;
/// `der(x)` (both FMUs).
pub const VR_HOSTILE_DER_X: u32 = 2;
/// `tNan` (NanDerivative) or `tLoop` (EventLoop): the time (s) the misbehaviour starts.
pub const VR_HOSTILE_T: u32 = 3;

/// Start value of `tNan` and `tLoop` (s).
pub const HOSTILE_T: f64 = 0.5;

/// The variables of `NanDerivative`.
pub const NAN_DERIVATIVE_VARIABLES: &[Variable] = &[
    Variable::new("x", VR_HOSTILE_X, VarType::Real, Causality::Output),
    Variable::new("der(x)", VR_HOSTILE_DER_X, VarType::Real, Causality::Local),
    Variable::new("tNan", VR_HOSTILE_T, VarType::Real, Causality::Parameter),
];

/// The variables of `EventLoop`.
pub const EVENT_LOOP_VARIABLES: &[Variable] = &[
    Variable::new("x", VR_HOSTILE_X, VarType::Real, Causality::Output),
    Variable::new("der(x)", VR_HOSTILE_DER_X, VarType::Real, Causality::Local),
    Variable::new("tLoop", VR_HOSTILE_T, VarType::Real, Causality::Parameter),
];

/// `NanDerivative`: x' = −x, x(0) = 1, so x = e^(−t) before `tNan`; NaN derivatives from
/// `tNan` on.
#[derive(Clone, Copy, Debug, Default)]
pub struct NanDerivativeEquations;

impl Equations for NanDerivativeEquations {
    const GUID: &'static str = NAN_DERIVATIVE_GUID;
    const VARIABLES: &'static [Variable] = NAN_DERIVATIVE_VARIABLES;
    const PARAMETERS: &'static [(u32, f64)] = &[(VR_HOSTILE_T, HOSTILE_T)];
    const STATES: &'static [u32] = &[VR_HOSTILE_X];
    const DERIVATIVES: &'static [u32] = &[VR_HOSTILE_DER_X];
    const NOMINALS: &'static [f64] = &[1.0];

    fn start(&mut self, _p: &[f64], _t0: f64) -> Result<Vec<f64>, ModelError> {
        Ok(vec![1.0])
    }

    fn derivatives(&self, p: &[f64], _u: &[f64], t: f64, x: &[f64], dx: &mut [f64]) {
        dx[0] = if reached(t, p[0]) { f64::NAN } else { -x[0] };
    }

    fn update(&mut self, _p: &[f64], _t: f64, _x: &mut [f64]) -> EventUpdate {
        EventUpdate::default()
    }
}

/// `EventLoop`: x' = 1, x(0) = 0; `nextEventTime` = `tLoop` until then, and from `tLoop` on
/// every event iteration asks for another one.
#[derive(Clone, Copy, Debug, Default)]
pub struct EventLoopEquations;

impl Equations for EventLoopEquations {
    const GUID: &'static str = EVENT_LOOP_GUID;
    const VARIABLES: &'static [Variable] = EVENT_LOOP_VARIABLES;
    const PARAMETERS: &'static [(u32, f64)] = &[(VR_HOSTILE_T, HOSTILE_T)];
    const STATES: &'static [u32] = &[VR_HOSTILE_X];
    const DERIVATIVES: &'static [u32] = &[VR_HOSTILE_DER_X];
    const NOMINALS: &'static [f64] = &[1.0];

    fn start(&mut self, _p: &[f64], _t0: f64) -> Result<Vec<f64>, ModelError> {
        Ok(vec![0.0])
    }

    fn derivatives(&self, _p: &[f64], _u: &[f64], _t: f64, _x: &[f64], dx: &mut [f64]) {
        dx[0] = 1.0;
    }

    fn update(&mut self, p: &[f64], t: f64, _x: &mut [f64]) -> EventUpdate {
        if reached(t, p[0]) {
            EventUpdate {
                new_discrete_states_needed: true,
                ..EventUpdate::default()
            }
        } else {
            EventUpdate {
                next_event_time: Some(p[0]),
                ..EventUpdate::default()
            }
        }
    }
}
