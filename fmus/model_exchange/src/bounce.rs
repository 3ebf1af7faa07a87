//! `Bounce`: a bouncing ball. h' = v, v' = −g in flight; the event indicator is h; at an impact
//! (h ≤ 0 with v < 0) the ball leaves the ground with v ← −e·v, and once that speed is below
//! `vMin` the ball rests on the ground (h = v = 0, no more events).

use fmu_support::{
    Causality, Causality3, DataType, EventUpdate, ModelError, VarType, Variable, Variable3,
};

use crate::linear::invalid;
use crate::ode::Equations;

/// GUID of `Bounce`.
pub const BOUNCE_GUID: &str = "{c4a1e7f2-0b6d-4e38-a9f5-2d81b3c6e590}";

/// Instantiation token of `Bounce3` (FMI 3.0 Model Exchange).
pub const BOUNCE3_TOKEN: &str = "{3e8b1d6f-c290-4a75-9f13-8d4e2a7b5c06}";

/// `h`: height (m), state.
pub const VR_BOUNCE_H: u32 = 1;
/// `v`: velocity (m/s, up is positive), state.
pub const VR_BOUNCE_V: u32 = 2;
/// `der(h)` (m/s).
pub const VR_BOUNCE_DER_H: u32 = 3;
/// `der(v)` (m/s²).
pub const VR_BOUNCE_DER_V: u32 = 4;
/// `h0`: initial height (m), ≥ 0.
pub const VR_BOUNCE_H0: u32 = 5;
/// `e`: coefficient of restitution, 0 < e < 1.
pub const VR_BOUNCE_E: u32 = 6;
/// `g`: gravity (m/s²), > 0.
pub const VR_BOUNCE_G: u32 = 7;
/// `vMin`: below this rebound speed (m/s) the ball rests, > 0.
pub const VR_BOUNCE_V_MIN: u32 = 8;

/// The variables of `Bounce`.
pub const BOUNCE_VARIABLES: &[Variable] = &[
    Variable::new("h", VR_BOUNCE_H, VarType::Real, Causality::Output),
    Variable::new("v", VR_BOUNCE_V, VarType::Real, Causality::Output),
    Variable::new("der(h)", VR_BOUNCE_DER_H, VarType::Real, Causality::Local),
    Variable::new("der(v)", VR_BOUNCE_DER_V, VarType::Real, Causality::Local),
    Variable::new("h0", VR_BOUNCE_H0, VarType::Real, Causality::Parameter),
    Variable::new("e", VR_BOUNCE_E, VarType::Real, Causality::Parameter),
    Variable::new("g", VR_BOUNCE_G, VarType::Real, Causality::Parameter),
    Variable::new("vMin", VR_BOUNCE_V_MIN, VarType::Real, Causality::Parameter),
];

/// `z` (`Bounce3` only): the event indicator as a variable, which FMI 3.0 needs
/// (`ModelStructure/EventIndicator`).
pub const VR_BOUNCE3_Z: u32 = 9;

/// The variables of `Bounce3`: those of `Bounce`, all Float64, and the event indicator `z`.
pub const BOUNCE3_VARIABLES: &[Variable3] = &[
    Variable3::new("h", VR_BOUNCE_H, DataType::Float64, Causality3::Output),
    Variable3::new("v", VR_BOUNCE_V, DataType::Float64, Causality3::Output),
    Variable3::new(
        "der(h)",
        VR_BOUNCE_DER_H,
        DataType::Float64,
        Causality3::Local,
    ),
    Variable3::new(
        "der(v)",
        VR_BOUNCE_DER_V,
        DataType::Float64,
        Causality3::Local,
    ),
    Variable3::new("h0", VR_BOUNCE_H0, DataType::Float64, Causality3::Parameter),
    Variable3::new("e", VR_BOUNCE_E, DataType::Float64, Causality3::Parameter),
    Variable3::new("g", VR_BOUNCE_G, DataType::Float64, Causality3::Parameter),
    Variable3::new(
        "vMin",
        VR_BOUNCE_V_MIN,
        DataType::Float64,
        Causality3::Parameter,
    ),
    Variable3::new("z", VR_BOUNCE3_Z, DataType::Float64, Causality3::Local),
];

/// How far below the ground (m) an impact is still accepted: an integrator locates the root of
/// h only to its tolerance, and one that does not locate roots (explicit Euler) overshoots.
/// Any h ≤ `IMPACT_HEIGHT` with v < 0 is an impact; the ball is put back to h = 0.
pub const IMPACT_HEIGHT: f64 = 1e-6;

/// Parameters of the ball; the defaults are the start values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BounceParameters {
    /// h(0) (m).
    pub h0: f64,
    /// Coefficient of restitution.
    pub e: f64,
    /// Gravity (m/s²).
    pub g: f64,
    /// Rest threshold (m/s).
    pub v_min: f64,
}

impl Default for BounceParameters {
    fn default() -> Self {
        Self {
            h0: 1.0,
            e: 0.7,
            g: 9.81,
            v_min: 0.1,
        }
    }
}

/// The exact impact times t_k (s), in order: t_0 = √(2·h0/g), then flights of 2·w_k/g with
/// rebound speeds w_k = e^k·√(2·g·h0) (k ≥ 1). The last time is the impact after which the
/// rebound speed would be below `v_min`: from there on the ball rests. With the defaults there
/// are 11 times, the last ≈ 2.44 s.
pub fn bounce_times(p: &BounceParameters) -> Vec<f64> {
    let mut times = Vec::new();
    flights(p, f64::INFINITY, |tau| times.push(tau));
    times
}

/// The exact (h, v) at `t` (s) (v just after an impact at an impact time).
pub fn bounce_solution(t: f64, p: &BounceParameters) -> (f64, f64) {
    flights(p, t, |_| {})
}

/// Walks the flights up to `t`, calling `impact` at each impact time; returns (h, v) at `t`.
fn flights(p: &BounceParameters, t: f64, mut impact: impl FnMut(f64)) -> (f64, f64) {
    let (mut tau, mut h, mut w) = (0.0, p.h0, 0.0);
    loop {
        let s = (w + (w * w + 2.0 * p.g * h).sqrt()) / p.g;
        if t < tau + s {
            let d = t - tau;
            return (h + w * d - 0.5 * p.g * d * d, w - p.g * d);
        }
        tau += s;
        impact(tau);
        h = 0.0;
        w = p.e * (p.g * s - w);
        if w < p.v_min {
            return (0.0, 0.0);
        }
    }
}

/// The ball's equations; the discrete state is whether it rests. `FMI3` makes it the
/// `Bounce3` FMU (the same code with its own token and FMI 3.0 table).
#[derive(Clone, Copy, Debug, Default)]
pub struct BounceEquations<const FMI3: bool> {
    resting: bool,
}

impl<const FMI3: bool> Equations for BounceEquations<FMI3> {
    const GUID: &'static str = if FMI3 { BOUNCE3_TOKEN } else { BOUNCE_GUID };
    const VARIABLES: &'static [Variable] = BOUNCE_VARIABLES;
    const VARIABLES3: &'static [Variable3] = if FMI3 { BOUNCE3_VARIABLES } else { &[] };
    const INDICATORS: &'static [u32] = if FMI3 { &[VR_BOUNCE3_Z] } else { &[] };
    const PARAMETERS: &'static [(u32, f64)] = &[
        (VR_BOUNCE_H0, 1.0),
        (VR_BOUNCE_E, 0.7),
        (VR_BOUNCE_G, 9.81),
        (VR_BOUNCE_V_MIN, 0.1),
    ];
    const STATES: &'static [u32] = &[VR_BOUNCE_H, VR_BOUNCE_V];
    const DERIVATIVES: &'static [u32] = &[VR_BOUNCE_DER_H, VR_BOUNCE_DER_V];
    const NOMINALS: &'static [f64] = &[1.0, 1.0];
    const EVENT_INDICATORS: usize = 1;

    fn start(&mut self, p: &[f64], _t0: f64) -> Result<Vec<f64>, ModelError> {
        if p[0] < 0.0 {
            return Err(invalid("h0", p[0], "must be >= 0"));
        }
        if !(p[1] > 0.0 && p[1] < 1.0) {
            return Err(invalid("e", p[1], "must be in (0, 1)"));
        }
        if p[2] <= 0.0 {
            return Err(invalid("g", p[2], "must be > 0"));
        }
        if p[3] <= 0.0 {
            return Err(invalid("vMin", p[3], "must be > 0"));
        }
        self.resting = false;
        Ok(vec![p[0], 0.0])
    }

    fn derivatives(&self, p: &[f64], _u: &[f64], _t: f64, x: &[f64], dx: &mut [f64]) {
        if self.resting {
            dx.fill(0.0);
        } else {
            dx[0] = x[1];
            dx[1] = -p[2];
        }
    }

    /// z = h in flight; a constant 1 while resting, so that no root is left to find.
    fn indicators(&self, _p: &[f64], _t: f64, x: &[f64], z: &mut [f64]) {
        z[0] = if self.resting { 1.0 } else { x[0] };
    }

    fn update(&mut self, p: &[f64], _t: f64, x: &mut [f64]) -> EventUpdate {
        let mut update = EventUpdate::default();
        if !self.resting && x[0] <= IMPACT_HEIGHT && x[1] < 0.0 {
            let rebound = -p[1] * x[1];
            self.resting = rebound < p[3];
            x[0] = 0.0;
            x[1] = if self.resting { 0.0 } else { rebound };
            update.values_of_continuous_states_changed = true;
        }
        update
    }
}
