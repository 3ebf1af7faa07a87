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
    Variable::new(
        "der(y1)",
        VR_ROBERTSON_DER_Y1,
        VarType::Real,
        Causality::Local,
    ),
    Variable::new(
        "der(y2)",
        VR_ROBERTSON_DER_Y2,
        VarType::Real,
        Causality::Local,
    ),
    Variable::new(
        "der(y3)",
        VR_ROBERTSON_DER_Y3,
        VarType::Real,
        Causality::Local,
    ),
    Variable::new("k1", VR_ROBERTSON_K1, VarType::Real, Causality::Parameter),
    Variable::new("k2", VR_ROBERTSON_K2, VarType::Real, Causality::Parameter),
    Variable::new("k3", VR_ROBERTSON_K3, VarType::Real, Causality::Parameter),
];

/// Reference values (t in s, then y1, y2, y3), 6 significant digits. Computed by the crate's
/// tests with an integration independent of the FMU (backward Euler on a geometric grid of
/// 20 000 and 40 000 steps, Richardson-extrapolated; the two agree to about 1e-8), which the
/// tests repeat and compare to 2e-5 relative; they also agree with the output of the SUNDIALS
/// example cvRoberts_dns to that example's tolerance (1e-4).
pub const ROBERTSON_REFERENCE: [(f64, [f64; 3]); 6] = [
    (0.4, [9.85172e-01, 3.38640e-05, 1.47940e-02]),
    (4.0, [9.05519e-01, 2.24048e-05, 9.44589e-02]),
    (40.0, [7.15827e-01, 9.18553e-06, 2.84164e-01]),
    (400.0, [4.50519e-01, 3.22290e-06, 5.49478e-01]),
    (4.0e3, [1.83202e-01, 8.94237e-07, 8.16797e-01]),
    (4.0e4, [3.89834e-02, 1.62177e-07, 9.61016e-01]),
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
