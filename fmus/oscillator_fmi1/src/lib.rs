#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

use fmu_support::{Causality, Model, ModelError, StepOutcome, VarType, Variable};

/// GUID of the Oscillator FMU.
pub const GUID: &str = "{73fbd0da-ca5b-484e-b5b1-de9e903234aa}";
/// The FMI 1.0 model identifier: the symbol prefix and the shared library's name.
pub const MODEL_IDENTIFIER: &str = "Oscillator";

/// Real output `x`, position (m).
pub const VR_X: u32 = 1;
/// Real output `v`, velocity (m/s).
pub const VR_V: u32 = 2;
/// Real input `F`, force (N), start 0.
pub const VR_F: u32 = 3;
/// Real parameter `omega`, angular frequency (rad/s), start 2.
pub const VR_OMEGA: u32 = 4;
/// Real parameter `m`, mass (kg), start 1.
pub const VR_M: u32 = 5;
/// Real parameter `x0`, initial position (m), start 1.
pub const VR_X0: u32 = 6;
/// Real parameter `v0`, initial velocity (m/s), start 0.
pub const VR_V0: u32 = 7;
/// Integer output `steps`, the number of completed steps since initialization.
pub const VR_STEPS: u32 = 8;
/// Boolean output `positive`, `x > 0`.
pub const VR_POSITIVE: u32 = 9;
/// String parameter `label`, start "oscillator".
pub const VR_LABEL: u32 = 10;
/// String output `tag`, equal to `label`.
pub const VR_TAG: u32 = 11;

/// The variables, as in `models/Oscillator/modelDescription.xml`.
pub const VARIABLES: &[Variable] = &[
    Variable::new("x", VR_X, VarType::Real, Causality::Output),
    Variable::new("v", VR_V, VarType::Real, Causality::Output),
    Variable::new("F", VR_F, VarType::Real, Causality::Input),
    Variable::new("omega", VR_OMEGA, VarType::Real, Causality::Parameter),
    Variable::new("m", VR_M, VarType::Real, Causality::Parameter),
    Variable::new("x0", VR_X0, VarType::Real, Causality::Parameter),
    Variable::new("v0", VR_V0, VarType::Real, Causality::Parameter),
    Variable::new("steps", VR_STEPS, VarType::Integer, Causality::Output),
    Variable::new("positive", VR_POSITIVE, VarType::Boolean, Causality::Output),
    Variable::new("label", VR_LABEL, VarType::String, Causality::Parameter),
    Variable::new("tag", VR_TAG, VarType::String, Causality::Output),
];

/// Real parameters; [`Default`] gives the modelDescription's start values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Parameters {
    /// Angular frequency (rad/s), > 0. Default 2.
    pub omega: f64,
    /// Mass (kg), > 0. Default 1.
    pub m: f64,
    /// Initial position (m). Default 1.
    pub x0: f64,
    /// Initial velocity (m/s). Default 0.
    pub v0: f64,
}

impl Default for Parameters {
    fn default() -> Self {
        Self {
            omega: 2.0,
            m: 1.0,
            x0: 1.0,
            v0: 0.0,
        }
    }
}

/// Advances `(x, v)` by `h` (s) under the constant force `force` (N): the exact solution of
/// `x'' = −omega²·x + force/m` around the equilibrium `x_e = force/(m·omega²)`.
pub fn exact_step(x: f64, v: f64, force: f64, h: f64, p: &Parameters) -> (f64, f64) {
    let x_e = force / (p.m * p.omega * p.omega);
    let (s, c) = (p.omega * h).sin_cos();
    let dx = x - x_e;
    (x_e + dx * c + v / p.omega * s, -dx * p.omega * s + v * c)
}

/// The analytic solution `(x, v)` at time `t` (s) after initialization at t = 0, for a force
/// `force` (N) held constant; with `force = 0` it is `x = x0·cos(omega·t) + v0/omega·sin(omega·t)`.
pub fn reference_solution(t: f64, force: f64, p: &Parameters) -> (f64, f64) {
    exact_step(p.x0, p.v0, force, t, p)
}

fn positive(name: &'static str, value: f64) -> Result<f64, ModelError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(ModelError::InvalidValue {
            name,
            value: value.to_string(),
            reason: "must be finite and > 0",
        })
    }
}

fn finite(name: &'static str, value: f64) -> Result<f64, ModelError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(ModelError::InvalidValue {
            name,
            value: value.to_string(),
            reason: "must be finite",
        })
    }
}

/// The Oscillator FMU (FMI 1.0 co-simulation): an undamped harmonic oscillator
/// `x'' = −omega²·x + F/m`, stepped exactly with `F` held over each step.
#[derive(Clone, Debug)]
pub struct Oscillator {
    p: Parameters,
    force: f64,
    label: String,
    x: f64,
    v: f64,
    steps: i32,
}

impl Model for Oscillator {
    fn instantiate(guid: &str) -> Option<Self> {
        let p = Parameters::default();
        (guid == GUID).then(|| Self {
            p,
            force: 0.0,
            label: "oscillator".to_owned(),
            x: p.x0,
            v: p.v0,
            steps: 0,
        })
    }

    fn variables(&self) -> &'static [Variable] {
        VARIABLES
    }

    fn initialize(&mut self, _start_time: f64) -> Result<(), ModelError> {
        self.x = self.p.x0;
        self.v = self.p.v0;
        self.steps = 0;
        Ok(())
    }

    fn do_step(&mut self, _t: f64, h: f64) -> StepOutcome {
        (self.x, self.v) = exact_step(self.x, self.v, self.force, h, &self.p);
        self.steps = self.steps.saturating_add(1);
        StepOutcome::Completed
    }

    fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
        match vr {
            VR_X => Ok(self.x),
            VR_V => Ok(self.v),
            VR_F => Ok(self.force),
            VR_OMEGA => Ok(self.p.omega),
            VR_M => Ok(self.p.m),
            VR_X0 => Ok(self.p.x0),
            VR_V0 => Ok(self.p.v0),
            _ => Err(ModelError::unknown(VarType::Real, vr)),
        }
    }

    fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
        match vr {
            VR_F => self.force = finite("F", value)?,
            VR_OMEGA => self.p.omega = positive("omega", value)?,
            VR_M => self.p.m = positive("m", value)?,
            VR_X0 => self.p.x0 = finite("x0", value)?,
            VR_V0 => self.p.v0 = finite("v0", value)?,
            _ => return Err(ModelError::unknown(VarType::Real, vr)),
        }
        Ok(())
    }

    fn get_integer(&self, vr: u32) -> Result<i32, ModelError> {
        match vr {
            VR_STEPS => Ok(self.steps),
            _ => Err(ModelError::unknown(VarType::Integer, vr)),
        }
    }

    fn get_boolean(&self, vr: u32) -> Result<bool, ModelError> {
        match vr {
            VR_POSITIVE => Ok(self.x > 0.0),
            _ => Err(ModelError::unknown(VarType::Boolean, vr)),
        }
    }

    fn get_string(&self, vr: u32) -> Result<String, ModelError> {
        match vr {
            VR_LABEL | VR_TAG => Ok(self.label.clone()),
            _ => Err(ModelError::unknown(VarType::String, vr)),
        }
    }

    fn set_string(&mut self, vr: u32, value: &str) -> Result<(), ModelError> {
        match vr {
            VR_LABEL => self.label = value.to_owned(),
            _ => return Err(ModelError::unknown(VarType::String, vr)),
        }
        Ok(())
    }
}

#[cfg(feature = "export")]
fmu_support::export_fmi1!(Oscillator, "Oscillator");

#[cfg(test)]
mod tests;
