#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

use fmu_support::{Causality, Model, ModelError, StepOutcome, VarType, Variable, state_array};

/// GUID of Part1.
pub const PART1_GUID: &str = "{1b5aaded-2d2f-4a43-9b8d-d2f7e80129f0}";
/// GUID of Part2.
pub const PART2_GUID: &str = "{edf3670f-ebfe-4a7d-9f5f-f72f3407d970}";
/// GUID of Part3.
pub const PART3_GUID: &str = "{b75ab1a2-a873-42ed-85f8-2ce76dfc78d9}";

/// Part1: output `x1`, the setpoint `r` (-).
pub const VR_PART1_X1: u32 = 1;
/// Part1: output `x2`, the disturbance `a·sin(omega·t)` (-).
pub const VR_PART1_X2: u32 = 2;
/// Part1: parameter `r`, setpoint (-).
pub const VR_PART1_R: u32 = 3;
/// Part1: parameter `a`, disturbance amplitude (-).
pub const VR_PART1_A: u32 = 4;
/// Part1: parameter `omega`, disturbance angular frequency (rad/s).
pub const VR_PART1_OMEGA: u32 = 5;

/// Part2: input `x1`, setpoint (-).
pub const VR_PART2_X1: u32 = 1;
/// Part2: input `x2`, disturbance (-).
pub const VR_PART2_X2: u32 = 2;
/// Part2: output `x3`, the integrator state (-).
pub const VR_PART2_X3: u32 = 3;
/// Part2: input `x4`, the fed-back measurement (-).
pub const VR_PART2_X4: u32 = 4;
/// Part2: parameter `k`, controller gain (1/s).
pub const VR_PART2_K: u32 = 5;
/// Part2: parameter `x3_0`, initial state (-).
pub const VR_PART2_X3_0: u32 = 6;
/// Part2: parameter `discardTime` (s): a step that reaches it with `h > discardMaxStep` is
/// discarded. Negative: off.
pub const VR_PART2_DISCARD_TIME: u32 = 7;
/// Part2: parameter `discardMaxStep` (s), the largest step accepted across `discardTime`.
pub const VR_PART2_DISCARD_MAX_STEP: u32 = 8;
/// Part2: parameter `errorTime` (s): a step that reaches it fails with Error. Negative: off.
pub const VR_PART2_ERROR_TIME: u32 = 9;

/// Part3: input `x3` (-).
pub const VR_PART3_X3: u32 = 3;
/// Part3: output `x4 = g·x3` (-).
pub const VR_PART3_X4: u32 = 4;
/// Part3: parameter `g`, measurement gain (-).
pub const VR_PART3_G: u32 = 5;

/// The variables of Part1, as in `models/Part1/modelDescription.xml`.
pub const PART1_VARIABLES: &[Variable] = &[
    Variable::new("x1", VR_PART1_X1, VarType::Real, Causality::Output),
    Variable::new("x2", VR_PART1_X2, VarType::Real, Causality::Output),
    Variable::new("r", VR_PART1_R, VarType::Real, Causality::Parameter),
    Variable::new("a", VR_PART1_A, VarType::Real, Causality::Parameter),
    Variable::new("omega", VR_PART1_OMEGA, VarType::Real, Causality::Parameter),
];

/// The variables of Part2, as in `models/Part2/modelDescription.xml`.
pub const PART2_VARIABLES: &[Variable] = &[
    Variable::new("x1", VR_PART2_X1, VarType::Real, Causality::Input),
    Variable::new("x2", VR_PART2_X2, VarType::Real, Causality::Input),
    Variable::new("x3", VR_PART2_X3, VarType::Real, Causality::Output),
    Variable::new("x4", VR_PART2_X4, VarType::Real, Causality::Input),
    Variable::new("k", VR_PART2_K, VarType::Real, Causality::Parameter),
    Variable::new("x3_0", VR_PART2_X3_0, VarType::Real, Causality::Parameter),
    Variable::new(
        "discardTime",
        VR_PART2_DISCARD_TIME,
        VarType::Real,
        Causality::Parameter,
    ),
    Variable::new(
        "discardMaxStep",
        VR_PART2_DISCARD_MAX_STEP,
        VarType::Real,
        Causality::Parameter,
    ),
    Variable::new(
        "errorTime",
        VR_PART2_ERROR_TIME,
        VarType::Real,
        Causality::Parameter,
    ),
];

/// The variables of Part3, as in `models/Part3/modelDescription.xml`.
pub const PART3_VARIABLES: &[Variable] = &[
    Variable::new("x3", VR_PART3_X3, VarType::Real, Causality::Input),
    Variable::new("x4", VR_PART3_X4, VarType::Real, Causality::Output),
    Variable::new("g", VR_PART3_G, VarType::Real, Causality::Parameter),
];

/// Parameters of the loop; [`Default`] gives the start values of the three
/// modelDescriptions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Parameters {
    /// Setpoint `r` (Part1). Default 1.
    pub r: f64,
    /// Disturbance amplitude `a` (Part1). Default 0.5.
    pub a: f64,
    /// Disturbance angular frequency `omega` (Part1, rad/s). Default 2.
    pub omega: f64,
    /// Controller gain `k` (Part2, 1/s). Default 1.
    pub k: f64,
    /// Initial state `x3_0` (Part2). Default 0.
    pub x3_0: f64,
    /// Measurement gain `g` (Part3). Default 1.
    pub g: f64,
}

impl Default for Parameters {
    fn default() -> Self {
        Self {
            r: 1.0,
            a: 0.5,
            omega: 2.0,
            k: 1.0,
            x3_0: 0.0,
            g: 1.0,
        }
    }
}

/// The four loop signals at one time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Solution {
    /// Setpoint (Part1 output).
    pub x1: f64,
    /// Disturbance (Part1 output).
    pub x2: f64,
    /// Integrator state (Part2 output).
    pub x3: f64,
    /// Measurement `g·x3` (Part3 output).
    pub x4: f64,
}

/// The closed-form solution of the loop at time `t` (s, from 0).
///
/// With `lambda = k·g > 0` and `x3' = −lambda·x3 + k·r + a·sin(omega·t)`:
/// `x3(t) = r/g + A·sin(omega·t) + B·cos(omega·t) + (x3_0 − r/g − B)·exp(−lambda·t)`, where
/// `A = a·lambda/(lambda² + omega²)` and `B = −a·omega/(lambda² + omega²)`; `x4 = g·x3`.
///
/// # Panics
/// If `g == 0` (the closed form divides by `g`).
pub fn reference_solution(t: f64, p: &Parameters) -> Solution {
    assert!(p.g != 0.0, "reference_solution needs g != 0");
    let lambda = p.k * p.g;
    let d = lambda * lambda + p.omega * p.omega;
    let a_sin = p.a * lambda / d;
    let b_cos = -p.a * p.omega / d;
    let x3 = p.r / p.g
        + a_sin * (p.omega * t).sin()
        + b_cos * (p.omega * t).cos()
        + (p.x3_0 - p.r / p.g - b_cos) * (-lambda * t).exp();
    Solution {
        x1: p.r,
        x2: p.a * (p.omega * t).sin(),
        x3,
        x4: p.g * x3,
    }
}

/// How the master exchanges values in [`fixed_step_cosimulation`] (MasterSim's algorithms
/// without iteration, with Part1 in cycle 0 and Part2, Part3 in cycle 1, as in its Math003
/// projects).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coupling {
    /// Gauss–Jacobi: every FMU steps with the outputs cached at `t`. Part2 therefore sees
    /// `x4 = g·x3(t − h)`, a delay of one step in the loop.
    Jacobi,
    /// Gauss–Seidel without iteration, order Part1, Part2, Part3: Part2 sees `x2(t + h)` from
    /// Part1 and `x4 = g·x3(t)` from Part3.
    Seidel,
}

/// The discrete result after `steps` fixed communication steps of size `h` (s) from t = 0 for
/// a master without iteration, assuming initialization propagated `x4 = g·x3_0`.
///
/// It repeats the FMUs' step formulas, so a correct master reproduces it to rounding (about
/// 1e-12; time is accumulated as `t += h`).
pub fn fixed_step_cosimulation(
    p: &Parameters,
    h: f64,
    steps: usize,
    coupling: Coupling,
) -> Solution {
    let mut x3 = p.x3_0;
    let mut x4_cached = p.g * p.x3_0;
    let mut t = 0.0;
    for _ in 0..steps {
        let t_next = t + h;
        let (x2, x4) = match coupling {
            Coupling::Jacobi => (p.a * (p.omega * t).sin(), x4_cached),
            Coupling::Seidel => (p.a * (p.omega * t_next).sin(), p.g * x3),
        };
        let x3_next = x3 + h * (p.k * (p.r - x4) + x2);
        x4_cached = p.g * x3;
        x3 = x3_next;
        t = t_next;
    }
    let x4 = match coupling {
        Coupling::Jacobi => x4_cached,
        Coupling::Seidel => p.g * x3,
    };
    Solution {
        x1: p.r,
        x2: p.a * (p.omega * t).sin(),
        x3,
        x4,
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

/// Part1: the loop's sources, `x1 = r` and `x2 = a·sin(omega·t)`, as functions of time.
#[derive(Clone, Debug)]
pub struct Part1 {
    r: f64,
    a: f64,
    omega: f64,
    t: f64,
}

impl Model for Part1 {
    fn instantiate(guid: &str) -> Option<Self> {
        let p = Parameters::default();
        (guid == PART1_GUID).then_some(Self {
            r: p.r,
            a: p.a,
            omega: p.omega,
            t: 0.0,
        })
    }

    fn variables(&self) -> &'static [Variable] {
        PART1_VARIABLES
    }

    fn initialize(&mut self, start_time: f64) -> Result<(), ModelError> {
        self.t = start_time;
        Ok(())
    }

    fn do_step(&mut self, t: f64, h: f64) -> StepOutcome {
        self.t = t + h;
        StepOutcome::Completed
    }

    fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
        match vr {
            VR_PART1_X1 => Ok(self.r),
            VR_PART1_X2 => Ok(self.a * (self.omega * self.t).sin()),
            VR_PART1_R => Ok(self.r),
            VR_PART1_A => Ok(self.a),
            VR_PART1_OMEGA => Ok(self.omega),
            _ => Err(ModelError::unknown(VarType::Real, vr)),
        }
    }

    fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
        match vr {
            VR_PART1_R => self.r = finite("r", value)?,
            VR_PART1_A => self.a = finite("a", value)?,
            VR_PART1_OMEGA => self.omega = finite("omega", value)?,
            _ => return Err(ModelError::unknown(VarType::Real, vr)),
        }
        Ok(())
    }

    /// `[r, a, omega, t]`: the parameters and the time (s) at which `x2` is evaluated.
    fn save_state(&self) -> Option<Vec<f64>> {
        Some(vec![self.r, self.a, self.omega, self.t])
    }

    /// Loads `[r, a, omega, t]` from [`Part1::save_state`](Model::save_state); the parameters
    /// must be finite.
    fn load_state(&mut self, state: &[f64]) -> Result<(), ModelError> {
        let [r, a, omega, t] = state_array("Part1", state)?;
        *self = Self {
            r: finite("r", r)?,
            a: finite("a", a)?,
            omega: finite("omega", omega)?,
            t,
        };
        Ok(())
    }
}

/// Part2: the controller, an integrator `dx3/dt = k·(x1 − x4) + x2`.
///
/// The right-hand side is constant over a step (inputs held), so the step
/// `x3(t+h) = x3(t) + h·(k·(x1 − x4) + x2)` is exact. Also injects faults (see the README).
#[derive(Clone, Debug)]
pub struct Part2 {
    x1: f64,
    x2: f64,
    x4: f64,
    k: f64,
    x3_0: f64,
    discard_time: f64,
    discard_max_step: f64,
    error_time: f64,
    x3: f64,
}

/// Whether the step from `t` to `t + h` reaches the time `at` (`t < at <= t + h`); negative
/// times are "off".
fn reaches(t: f64, h: f64, at: f64) -> bool {
    at >= 0.0 && t < at && at <= t + h
}

impl Model for Part2 {
    fn instantiate(guid: &str) -> Option<Self> {
        let p = Parameters::default();
        (guid == PART2_GUID).then_some(Self {
            x1: p.r,
            x2: 0.0,
            x4: p.g * p.x3_0,
            k: p.k,
            x3_0: p.x3_0,
            discard_time: -1.0,
            discard_max_step: 1e-3,
            error_time: -1.0,
            x3: p.x3_0,
        })
    }

    fn variables(&self) -> &'static [Variable] {
        PART2_VARIABLES
    }

    fn initialize(&mut self, _start_time: f64) -> Result<(), ModelError> {
        self.x3 = self.x3_0;
        Ok(())
    }

    fn do_step(&mut self, t: f64, h: f64) -> StepOutcome {
        if reaches(t, h, self.error_time) {
            return StepOutcome::Error(format!("errorTime = {} s reached", self.error_time));
        }
        if reaches(t, h, self.discard_time) && h > self.discard_max_step {
            return StepOutcome::Discard(format!(
                "discardTime = {} s lies in the step and h > discardMaxStep = {} s",
                self.discard_time, self.discard_max_step
            ));
        }
        self.x3 += h * (self.k * (self.x1 - self.x4) + self.x2);
        StepOutcome::Completed
    }

    fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
        match vr {
            VR_PART2_X1 => Ok(self.x1),
            VR_PART2_X2 => Ok(self.x2),
            VR_PART2_X3 => Ok(self.x3),
            VR_PART2_X4 => Ok(self.x4),
            VR_PART2_K => Ok(self.k),
            VR_PART2_X3_0 => Ok(self.x3_0),
            VR_PART2_DISCARD_TIME => Ok(self.discard_time),
            VR_PART2_DISCARD_MAX_STEP => Ok(self.discard_max_step),
            VR_PART2_ERROR_TIME => Ok(self.error_time),
            _ => Err(ModelError::unknown(VarType::Real, vr)),
        }
    }

    fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
        match vr {
            VR_PART2_X1 => self.x1 = finite("x1", value)?,
            VR_PART2_X2 => self.x2 = finite("x2", value)?,
            VR_PART2_X4 => self.x4 = finite("x4", value)?,
            VR_PART2_K => self.k = finite("k", value)?,
            VR_PART2_X3_0 => self.x3_0 = finite("x3_0", value)?,
            VR_PART2_DISCARD_TIME => self.discard_time = finite("discardTime", value)?,
            VR_PART2_DISCARD_MAX_STEP => self.discard_max_step = finite("discardMaxStep", value)?,
            VR_PART2_ERROR_TIME => self.error_time = finite("errorTime", value)?,
            _ => return Err(ModelError::unknown(VarType::Real, vr)),
        }
        Ok(())
    }

    /// `[x1, x2, x4, k, x3_0, discardTime, discardMaxStep, errorTime, x3]`: the inputs, the
    /// parameters (fault times in s) and the state.
    fn save_state(&self) -> Option<Vec<f64>> {
        Some(vec![
            self.x1,
            self.x2,
            self.x4,
            self.k,
            self.x3_0,
            self.discard_time,
            self.discard_max_step,
            self.error_time,
            self.x3,
        ])
    }

    /// Loads the values of [`Part2::save_state`](Model::save_state); inputs and parameters
    /// must be finite.
    fn load_state(&mut self, state: &[f64]) -> Result<(), ModelError> {
        let [
            x1,
            x2,
            x4,
            k,
            x3_0,
            discard_time,
            discard_max_step,
            error_time,
            x3,
        ] = state_array("Part2", state)?;
        *self = Self {
            x1: finite("x1", x1)?,
            x2: finite("x2", x2)?,
            x4: finite("x4", x4)?,
            k: finite("k", k)?,
            x3_0: finite("x3_0", x3_0)?,
            discard_time: finite("discardTime", discard_time)?,
            discard_max_step: finite("discardMaxStep", discard_max_step)?,
            error_time: finite("errorTime", error_time)?,
            x3,
        };
        Ok(())
    }
}

/// Part3: the measurement, `x4 = g·x3`, with direct feedthrough (the output follows the input
/// as soon as it is set). Provides the directional derivatives `∂x4/∂x3 = g` and
/// `∂x4/∂g = x3`.
#[derive(Clone, Debug)]
pub struct Part3 {
    g: f64,
    x3: f64,
}

impl Model for Part3 {
    fn instantiate(guid: &str) -> Option<Self> {
        let p = Parameters::default();
        (guid == PART3_GUID).then_some(Self { g: p.g, x3: p.x3_0 })
    }

    fn variables(&self) -> &'static [Variable] {
        PART3_VARIABLES
    }

    fn initialize(&mut self, _start_time: f64) -> Result<(), ModelError> {
        Ok(())
    }

    fn do_step(&mut self, _t: f64, _h: f64) -> StepOutcome {
        StepOutcome::Completed
    }

    fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
        match vr {
            VR_PART3_X3 => Ok(self.x3),
            VR_PART3_X4 => Ok(self.g * self.x3),
            VR_PART3_G => Ok(self.g),
            _ => Err(ModelError::unknown(VarType::Real, vr)),
        }
    }

    fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
        match vr {
            VR_PART3_X3 => self.x3 = finite("x3", value)?,
            VR_PART3_G => self.g = finite("g", value)?,
            _ => return Err(ModelError::unknown(VarType::Real, vr)),
        }
        Ok(())
    }

    /// `[g, x3]`: the parameter and the input.
    fn save_state(&self) -> Option<Vec<f64>> {
        Some(vec![self.g, self.x3])
    }

    /// Loads `[g, x3]` from [`Part3::save_state`](Model::save_state); both must be finite.
    fn load_state(&mut self, state: &[f64]) -> Result<(), ModelError> {
        let [g, x3] = state_array("Part3", state)?;
        *self = Self {
            g: finite("g", g)?,
            x3: finite("x3", x3)?,
        };
        Ok(())
    }

    fn directional_derivative(
        &self,
        unknowns: &[u32],
        knowns: &[u32],
        dv_known: &[f64],
        dv_unknown: &mut [f64],
    ) -> Option<Result<(), ModelError>> {
        let mut compute = || {
            for (out, &unknown) in dv_unknown.iter_mut().zip(unknowns) {
                *out = 0.0;
                for (&known, &seed) in knowns.iter().zip(dv_known) {
                    let partial = match (unknown, known) {
                        (VR_PART3_X4, VR_PART3_X3) => self.g,
                        (VR_PART3_X4, VR_PART3_G) => self.x3,
                        _ => return Err(ModelError::NoDerivative { unknown, known }),
                    };
                    *out += partial * seed;
                }
            }
            Ok(())
        };
        Some(compute())
    }
}

fmu_support::model_enum! {
    /// The model behind the shared library: Part1, Part2 or Part3, chosen by the GUID.
    pub enum ControlLoop {
        /// The Part1 FMU.
        Part1(Part1),
        /// The Part2 FMU.
        Part2(Part2),
        /// The Part3 FMU.
        Part3(Part3),
    }
}

#[cfg(feature = "export")]
fmu_support::export_fmi2!(ControlLoop);

#[cfg(test)]
mod tests;
