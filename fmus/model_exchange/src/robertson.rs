//! `Robertson`: the stiff chemical kinetics problem of H. H. Robertson (1966),
//! y1' = −k1·y1 + k2·y2·y3, y2' = k1·y1 − k2·y2·y3 − k3·y2², y3' = k3·y2², with
//! k1 = 0.04, k2 = 1e4, k3 = 3e7 and y(0) = (1, 0, 0): the classic stiff test problem (the
//! SUNDIALS CVODE example cvRoberts_dns, Hairer and Wanner's test set), here as an FMU for the
//! benchmark against FMPy.

use fmu_support::{Causality, EventUpdate, ModelError, VarType, Variable};

use crate::linear::invalid;
use crate::ode::Equations;

/// GUID of `Robertson`.
pub const ROBERTSON_GUID: &str = "{9a7c4e21-5b3f-4d08-a6e9-3f2b8c1d0e75}";

/// `y1`, state.
pub const VR_ROBERTSON_Y1: u32 = 1;
/// `y2`, state.
pub const VR_ROBERTSON_Y2: u32 = 2;
/// `y3`, state.
pub const VR_ROBERTSON_Y3: u32 = 3;
/// `der(y1)` (1/s).
pub const VR_ROBERTSON_DER_Y1: u32 = 4;
/// `der(y2)` (1/s).
pub const VR_ROBERTSON_DER_Y2: u32 = 5;
/// `der(y3)` (1/s).
pub const VR_ROBERTSON_DER_Y3: u32 = 6;
/// `k1` (1/s).
pub const VR_ROBERTSON_K1: u32 = 7;
/// `k2` (1/s).
pub const VR_ROBERTSON_K2: u32 = 8;
/// `k3` (1/s).
pub const VR_ROBERTSON_K3: u32 = 9;

/// The variables of `Robertson`.
pub const ROBERTSON_VARIABLES: &[Variable] = &[
    Variable::new("y1", VR_ROBERTSON_Y1, VarType::Real, Causality::Output),
    Variable::new("y2", VR_ROBERTSON_Y2, VarType::Real, Causality::Output),
    Variable::new("y3", VR_ROBERTSON_Y3, VarType::Real, Causality::Output),
    Variable::new("der(y1)", VR_ROBERTSON_DER_Y1, VarType::Real, Causality::Local),
    Variable::new("der(y2)", VR_ROBERTSON_DER_Y2, VarType::Real, Causality::Local),
    Variable::new("der(y3)", VR_ROBERTSON_DER_Y3, VarType::Real, Causality::Local),
    Variable::new("k1", VR_ROBERTSON_K1, VarType::Real, Causality::Parameter),
    Variable::new("k2", VR_ROBERTSON_K2, VarType::Real, Causality::Parameter),
    Variable::new("k3", VR_ROBERTSON_K3, VarType::Real, Causality::Parameter),
];

/// Reference values (t in s, then y1, y2, y3), 4 significant digits, as published with the
/// SUNDIALS example cvRoberts_dns; the crate's tests confirm them with an independent
/// L-stable integration (backward Euler with Richardson extrapolation) to 1e-3 relative.
pub const ROBERTSON_REFERENCE: [(f64, [f64; 3]); 6] = [
    (0.4, [9.8517e-01, 3.3864e-05, 1.4794e-02]),
    (4.0, [9.0553e-01, 2.2406e-05, 9.4444e-02]),
    (40.0, [7.1583e-01, 9.1855e-06, 2.8416e-01]),
    (400.0, [4.5052e-01, 3.2229e-06, 5.4947e-01]),
    (4.0e3, [1.8320e-01, 8.9424e-07, 8.1680e-01]),
    (4.0e4, [3.8983e-02, 1.6218e-07, 9.6102e-01]),
];

/// Robertson's right-hand side with rate constants `k` = (k1, k2, k3) (1/s).
pub fn robertson_rhs(k: [f64; 3], y: &[f64], dy: &mut [f64]) {
    let r1 = k[0] * y[0];
    let r2 = k[1] * y[1] * y[2];
    let r3 = k[2] * y[1] * y[1];
    dy[0] = -r1 + r2;
    dy[1] = r1 - r2 - r3;
    dy[2] = r3;
}

/// The equations (no discrete states).
#[derive(Clone, Copy, Debug, Default)]
pub struct RobertsonEquations;

impl Equations for RobertsonEquations {
    const GUID: &'static str = ROBERTSON_GUID;
    const VARIABLES: &'static [Variable] = ROBERTSON_VARIABLES;
    const PARAMETERS: &'static [(u32, f64)] = &[
        (VR_ROBERTSON_K1, 0.04),
        (VR_ROBERTSON_K2, 1.0e4),
        (VR_ROBERTSON_K3, 3.0e7),
    ];
    const STATES: &'static [u32] = &[VR_ROBERTSON_Y1, VR_ROBERTSON_Y2, VR_ROBERTSON_Y3];
    const DERIVATIVES: &'static [u32] = &[
        VR_ROBERTSON_DER_Y1,
        VR_ROBERTSON_DER_Y2,
        VR_ROBERTSON_DER_Y3,
    ];
    /// y2 stays below 4e-5: its nominal scales the absolute tolerance down.
    const NOMINALS: &'static [f64] = &[1.0, 1.0e-4, 1.0];

    fn start(&mut self, p: &[f64], _t0: f64) -> Result<Vec<f64>, ModelError> {
        for (name, &k) in ["k1", "k2", "k3"].into_iter().zip(p) {
            if k <= 0.0 {
                return Err(invalid(name, k, "must be > 0"));
            }
        }
        Ok(vec![1.0, 0.0, 0.0])
    }

    fn derivatives(&self, p: &[f64], _u: &[f64], _t: f64, x: &[f64], dx: &mut [f64]) {
        robertson_rhs([p[0], p[1], p[2]], x, dx);
    }

    fn update(&mut self, _p: &[f64], _t: f64, _x: &mut [f64]) -> EventUpdate {
        EventUpdate::default()
    }
}
