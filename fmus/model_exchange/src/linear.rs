//! `Linear` and `LinearDual`: a damped linear oscillator x' = v, v' = −ω²·x − 2ζω·v with its
//! closed-form solution. `LinearDual` is the same model in an FMU that offers both Model
//! Exchange and co-simulation (RK4 inside `fmi2DoStep`).

use fmu_support::{
    Causality, Causality3, DataType, EventUpdate, ModelError, VarType, Variable, Variable3,
};

use crate::ode::Equations;

/// GUID of `Linear` (Model Exchange only).
pub const LINEAR_GUID: &str = "{5d0b7a4e-3c41-4f5e-9a36-1b7c2e8f4d10}";
/// Instantiation token of `Linear3` (FMI 3.0 Model Exchange).
pub const LINEAR3_TOKEN: &str = "{0c6a8e3d-51f2-4b97-a4d8-2e7b9f6c1a53}";
/// GUID of `LinearDual` (Model Exchange and co-simulation).
pub const LINEAR_DUAL_GUID: &str = "{8e2f6c1a-94b3-4d7e-b5a0-6c3d9f1e2a47}";

/// `x`: position (m), state.
pub const VR_LINEAR_X: u32 = 1;
/// `v`: velocity (m/s), state.
pub const VR_LINEAR_V: u32 = 2;
/// `der(x)` (m/s).
pub const VR_LINEAR_DER_X: u32 = 3;
/// `der(v)` (m/s²).
pub const VR_LINEAR_DER_V: u32 = 4;
/// `omega`: undamped angular frequency (rad/s), > 0.
pub const VR_LINEAR_OMEGA: u32 = 5;
/// `zeta`: damping ratio, 0 ≤ ζ < 1.
pub const VR_LINEAR_ZETA: u32 = 6;
/// `x0`: initial position (m).
pub const VR_LINEAR_X0: u32 = 7;
/// `v0`: initial velocity (m/s).
pub const VR_LINEAR_V0: u32 = 8;

/// The variables of `Linear` and `LinearDual`.
pub const LINEAR_VARIABLES: &[Variable] = &[
    Variable::new("x", VR_LINEAR_X, VarType::Real, Causality::Output),
    Variable::new("v", VR_LINEAR_V, VarType::Real, Causality::Output),
    Variable::new("der(x)", VR_LINEAR_DER_X, VarType::Real, Causality::Local),
    Variable::new("der(v)", VR_LINEAR_DER_V, VarType::Real, Causality::Local),
    Variable::new(
        "omega",
        VR_LINEAR_OMEGA,
        VarType::Real,
        Causality::Parameter,
    ),
    Variable::new("zeta", VR_LINEAR_ZETA, VarType::Real, Causality::Parameter),
    Variable::new("x0", VR_LINEAR_X0, VarType::Real, Causality::Parameter),
    Variable::new("v0", VR_LINEAR_V0, VarType::Real, Causality::Parameter),
];

/// The variables of `Linear3`: those of `Linear` (value references already unique), all
/// Float64.
pub const LINEAR3_VARIABLES: &[Variable3] = &[
    Variable3::new("x", VR_LINEAR_X, DataType::Float64, Causality3::Output),
    Variable3::new("v", VR_LINEAR_V, DataType::Float64, Causality3::Output),
    Variable3::new(
        "der(x)",
        VR_LINEAR_DER_X,
        DataType::Float64,
        Causality3::Local,
    ),
    Variable3::new(
        "der(v)",
        VR_LINEAR_DER_V,
        DataType::Float64,
        Causality3::Local,
    ),
    Variable3::new(
        "omega",
        VR_LINEAR_OMEGA,
        DataType::Float64,
        Causality3::Parameter,
    ),
    Variable3::new(
        "zeta",
        VR_LINEAR_ZETA,
        DataType::Float64,
        Causality3::Parameter,
    ),
    Variable3::new("x0", VR_LINEAR_X0, DataType::Float64, Causality3::Parameter),
    Variable3::new("v0", VR_LINEAR_V0, DataType::Float64, Causality3::Parameter),
];

/// Parameters of the oscillator; the defaults are the start values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinearParameters {
    /// ω (rad/s).
    pub omega: f64,
    /// ζ.
    pub zeta: f64,
    /// x(0) (m).
    pub x0: f64,
    /// v(0) (m/s).
    pub v0: f64,
}

impl Default for LinearParameters {
    fn default() -> Self {
        Self {
            omega: 2.0,
            zeta: 0.1,
            x0: 1.0,
            v0: 0.0,
        }
    }
}

/// The exact (x, v) at `t` (s) from t = 0, for 0 ≤ ζ < 1 (underdamped):
/// x(t) = e^(−ζωt)·(A·cos ω_d t + B·sin ω_d t), ω_d = ω·√(1 − ζ²), A = x0,
/// B = (v0 + ζω·x0)/ω_d, and v = x'.
pub fn linear_solution(t: f64, p: &LinearParameters) -> (f64, f64) {
    let sigma = p.zeta * p.omega;
    let wd = p.omega * (1.0 - p.zeta * p.zeta).sqrt();
    let a = p.x0;
    let b = (p.v0 + sigma * p.x0) / wd;
    let (s, c) = (wd * t).sin_cos();
    let decay = (-sigma * t).exp();
    let x = decay * (a * c + b * s);
    let v = decay * ((wd * b - sigma * a) * c - (wd * a + sigma * b) * s);
    (x, v)
}

/// The oscillator's equations; `DUAL` makes it the `LinearDual` FMU, `FMI3` the `Linear3`
/// FMU (the same code with its own token and FMI 3.0 table).
#[derive(Clone, Copy, Debug, Default)]
pub struct LinearEquations<const DUAL: bool, const FMI3: bool>;

impl<const DUAL: bool, const FMI3: bool> Equations for LinearEquations<DUAL, FMI3> {
    const GUID: &'static str = match (DUAL, FMI3) {
        (_, true) => LINEAR3_TOKEN,
        (true, false) => LINEAR_DUAL_GUID,
        (false, false) => LINEAR_GUID,
    };
    const VARIABLES: &'static [Variable] = LINEAR_VARIABLES;
    const VARIABLES3: &'static [Variable3] = if FMI3 { LINEAR3_VARIABLES } else { &[] };
    const PARAMETERS: &'static [(u32, f64)] = &[
        (VR_LINEAR_OMEGA, 2.0),
        (VR_LINEAR_ZETA, 0.1),
        (VR_LINEAR_X0, 1.0),
        (VR_LINEAR_V0, 0.0),
    ];
    const STATES: &'static [u32] = &[VR_LINEAR_X, VR_LINEAR_V];
    const DERIVATIVES: &'static [u32] = &[VR_LINEAR_DER_X, VR_LINEAR_DER_V];
    const NOMINALS: &'static [f64] = &[1.0, 1.0];
    const CO_SIMULATION: bool = DUAL;

    fn start(&mut self, p: &[f64], _t0: f64) -> Result<Vec<f64>, ModelError> {
        if p[0] <= 0.0 {
            return Err(invalid("omega", p[0], "must be > 0"));
        }
        if !(0.0..1.0).contains(&p[1]) {
            return Err(invalid("zeta", p[1], "must be in [0, 1)"));
        }
        Ok(vec![p[2], p[3]])
    }

    fn derivatives(&self, p: &[f64], _u: &[f64], _t: f64, x: &[f64], dx: &mut [f64]) {
        let (omega, zeta) = (p[0], p[1]);
        dx[0] = x[1];
        dx[1] = -omega * omega * x[0] - 2.0 * zeta * omega * x[1];
    }

    fn update(&mut self, _p: &[f64], _t: f64, _x: &mut [f64]) -> EventUpdate {
        EventUpdate::default()
    }
}

/// A [`ModelError::InvalidValue`] for parameter `name`.
pub(crate) fn invalid(name: &'static str, value: f64, reason: &'static str) -> ModelError {
    ModelError::InvalidValue {
        name,
        value: value.to_string(),
        reason,
    }
}
