//! `Plant`: a mass with a force input, x' = v, v' = (u − c·v)/m, for a mixed project with a
//! co-simulation controller. With u held over a communication step (zero-order hold), the
//! step has a closed form ([`plant_step`]).

use fmu_support::{Causality, EventUpdate, ModelError, VarType, Variable};

use crate::linear::invalid;
use crate::ode::Equations;

/// GUID of `Plant`.
pub const PLANT_GUID: &str = "{6b3d2a90-7e14-4c5f-b8a2-9d0e1f4c7a38}";

/// `u`: force (N), input.
pub const VR_PLANT_U: u32 = 1;
/// `x`: position (m), state, output.
pub const VR_PLANT_X: u32 = 2;
/// `v`: velocity (m/s), state, output.
pub const VR_PLANT_V: u32 = 3;
/// `der(x)` (m/s).
pub const VR_PLANT_DER_X: u32 = 4;
/// `der(v)` (m/s²).
pub const VR_PLANT_DER_V: u32 = 5;
/// `m`: mass (kg), > 0.
pub const VR_PLANT_M: u32 = 6;
/// `c`: viscous damping (N·s/m), > 0.
pub const VR_PLANT_C: u32 = 7;
/// `x0`: initial position (m).
pub const VR_PLANT_X0: u32 = 8;
/// `v0`: initial velocity (m/s).
pub const VR_PLANT_V0: u32 = 9;

/// The variables of `Plant`.
pub const PLANT_VARIABLES: &[Variable] = &[
    Variable::new("u", VR_PLANT_U, VarType::Real, Causality::Input),
    Variable::new("x", VR_PLANT_X, VarType::Real, Causality::Output),
    Variable::new("v", VR_PLANT_V, VarType::Real, Causality::Output),
    Variable::new("der(x)", VR_PLANT_DER_X, VarType::Real, Causality::Local),
    Variable::new("der(v)", VR_PLANT_DER_V, VarType::Real, Causality::Local),
    Variable::new("m", VR_PLANT_M, VarType::Real, Causality::Parameter),
    Variable::new("c", VR_PLANT_C, VarType::Real, Causality::Parameter),
    Variable::new("x0", VR_PLANT_X0, VarType::Real, Causality::Parameter),
    Variable::new("v0", VR_PLANT_V0, VarType::Real, Causality::Parameter),
];

/// Start value of `m` (kg).
pub const PLANT_M: f64 = 2.0;
/// Start value of `c` (N·s/m).
pub const PLANT_C: f64 = 0.5;

/// The exact (x, v) after `h` (s) from (x, v) with the force `u` (N) held constant:
/// v(h) = u/c + (v − u/c)·e^(−c·h/m), x(h) = x + (u/c)·h + (v − u/c)·(m/c)·(1 − e^(−c·h/m)).
pub fn plant_step(x: f64, v: f64, u: f64, m: f64, c: f64, h: f64) -> (f64, f64) {
    let v_inf = u / c;
    let decay = (-c * h / m).exp();
    let x_next = x + v_inf * h + (v - v_inf) * (m / c) * (1.0 - decay);
    (x_next, v_inf + (v - v_inf) * decay)
}

/// The plant's equations (no discrete states).
#[derive(Clone, Copy, Debug, Default)]
pub struct PlantEquations;

impl Equations for PlantEquations {
    const GUID: &'static str = PLANT_GUID;
    const VARIABLES: &'static [Variable] = PLANT_VARIABLES;
    const PARAMETERS: &'static [(u32, f64)] = &[
        (VR_PLANT_M, PLANT_M),
        (VR_PLANT_C, PLANT_C),
        (VR_PLANT_X0, 0.0),
        (VR_PLANT_V0, 0.0),
    ];
    const INPUTS: &'static [(u32, f64)] = &[(VR_PLANT_U, 0.0)];
    const STATES: &'static [u32] = &[VR_PLANT_X, VR_PLANT_V];
    const DERIVATIVES: &'static [u32] = &[VR_PLANT_DER_X, VR_PLANT_DER_V];
    const NOMINALS: &'static [f64] = &[1.0, 1.0];

    fn start(&mut self, p: &[f64], _t0: f64) -> Result<Vec<f64>, ModelError> {
        if p[0] <= 0.0 {
            return Err(invalid("m", p[0], "must be > 0"));
        }
        if p[1] <= 0.0 {
            return Err(invalid("c", p[1], "must be > 0"));
        }
        Ok(vec![p[2], p[3]])
    }

    fn derivatives(&self, p: &[f64], u: &[f64], _t: f64, x: &[f64], dx: &mut [f64]) {
        dx[0] = x[1];
        dx[1] = (u[0] - p[1] * x[1]) / p[0];
    }

    fn update(&mut self, _p: &[f64], _t: f64, _x: &mut [f64]) -> EventUpdate {
        EventUpdate::default()
    }
}
