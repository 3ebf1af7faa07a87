#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

use fmu_support::{Causality, Model, ModelError, StepOutcome, VarType, Variable, state_array};

/// GUID of the Prey FMU.
pub const PREY_GUID: &str = "{c35f0414-d94e-4703-be0c-f1316c9ba34d}";
/// GUID of the Predator FMU.
pub const PREDATOR_GUID: &str = "{eb85e9cb-bdc1-496f-ac98-acb22369d22e}";

/// Prey: output `x`, the prey population (-).
pub const VR_PREY_X: u32 = 1;
/// Prey: input `y`, the predator population (-).
pub const VR_PREY_Y: u32 = 2;
/// Prey: parameter `alpha`, prey growth rate (1/s).
pub const VR_PREY_ALPHA: u32 = 3;
/// Prey: parameter `beta`, predation rate (1/s per predator).
pub const VR_PREY_BETA: u32 = 4;
/// Prey: parameter `x0`, initial prey population (-).
pub const VR_PREY_X0: u32 = 5;

/// Predator: output `y`, the predator population (-).
pub const VR_PREDATOR_Y: u32 = 1;
/// Predator: input `x`, the prey population (-).
pub const VR_PREDATOR_X: u32 = 2;
/// Predator: parameter `gamma`, predator death rate (1/s).
pub const VR_PREDATOR_GAMMA: u32 = 3;
/// Predator: parameter `delta`, predator growth per prey (1/s per prey).
pub const VR_PREDATOR_DELTA: u32 = 4;
/// Predator: parameter `y0`, initial predator population (-).
pub const VR_PREDATOR_Y0: u32 = 5;

/// The variables of Prey, as in `models/Prey/modelDescription.xml`.
pub const PREY_VARIABLES: &[Variable] = &[
    Variable::new("x", VR_PREY_X, VarType::Real, Causality::Output),
    Variable::new("y", VR_PREY_Y, VarType::Real, Causality::Input),
    Variable::new("alpha", VR_PREY_ALPHA, VarType::Real, Causality::Parameter),
    Variable::new("beta", VR_PREY_BETA, VarType::Real, Causality::Parameter),
    Variable::new("x0", VR_PREY_X0, VarType::Real, Causality::Parameter),
];

/// The variables of Predator, as in `models/Predator/modelDescription.xml`.
pub const PREDATOR_VARIABLES: &[Variable] = &[
    Variable::new("y", VR_PREDATOR_Y, VarType::Real, Causality::Output),
    Variable::new("x", VR_PREDATOR_X, VarType::Real, Causality::Input),
    Variable::new(
        "gamma",
        VR_PREDATOR_GAMMA,
        VarType::Real,
        Causality::Parameter,
    ),
    Variable::new(
        "delta",
        VR_PREDATOR_DELTA,
        VarType::Real,
        Causality::Parameter,
    ),
    Variable::new("y0", VR_PREDATOR_Y0, VarType::Real, Causality::Parameter),
];

/// Parameters of the coupled system; [`Default`] gives the start values of both
/// modelDescriptions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Parameters {
    /// Prey growth rate (1/s). Default 1.1.
    pub alpha: f64,
    /// Predation rate (1/s per predator). Default 0.4.
    pub beta: f64,
    /// Predator death rate (1/s). Default 0.4.
    pub gamma: f64,
    /// Predator growth per prey (1/s per prey). Default 0.1.
    pub delta: f64,
    /// Initial prey population (-). Default 6.
    pub x0: f64,
    /// Initial predator population (-). Default 4.
    pub y0: f64,
}

impl Default for Parameters {
    fn default() -> Self {
        Self {
            alpha: 1.1,
            beta: 0.4,
            gamma: 0.4,
            delta: 0.1,
            x0: 6.0,
            y0: 4.0,
        }
    }
}

/// Right-hand side of the coupled system: `(dx/dt, dy/dt)` (1/s).
pub fn derivatives(x: f64, y: f64, p: &Parameters) -> (f64, f64) {
    (x * (p.alpha - p.beta * y), y * (p.delta * x - p.gamma))
}

/// The conserved quantity `V = delta·x − gamma·ln x + beta·y − alpha·ln y` of the coupled
/// system (constant along exact solutions with `x, y > 0`).
pub fn invariant(x: f64, y: f64, p: &Parameters) -> f64 {
    p.delta * x - p.gamma * x.ln() + p.beta * y - p.alpha * y.ln()
}

/// Fixed step of [`reference_solution`] (s).
pub const REFERENCE_STEP: f64 = 1e-3;

/// Reference solution `(x, y)` of the coupled system at time `t` (s, from 0), by classical
/// fourth-order Runge–Kutta with a step of at most [`REFERENCE_STEP`] (global error about
/// 1e-10 for the default parameters on 0–20 s).
///
/// # Panics
/// If `t` is negative or not finite.
pub fn reference_solution(t: f64, p: &Parameters) -> (f64, f64) {
    assert!(
        t.is_finite() && t >= 0.0,
        "reference_solution needs a finite t >= 0, got {t}"
    );
    let n = (t / REFERENCE_STEP).ceil().max(1.0) as usize;
    let dt = t / n as f64;
    let (mut x, mut y) = (p.x0, p.y0);
    for _ in 0..n {
        let k1 = derivatives(x, y, p);
        let k2 = derivatives(x + 0.5 * dt * k1.0, y + 0.5 * dt * k1.1, p);
        let k3 = derivatives(x + 0.5 * dt * k2.0, y + 0.5 * dt * k2.1, p);
        let k4 = derivatives(x + dt * k3.0, y + dt * k3.1, p);
        x += dt / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0);
        y += dt / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1);
    }
    (x, y)
}

/// How Prey and Predator exchange values in [`fixed_step_cosimulation`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coupling {
    /// Gauss–Jacobi: both FMUs step from the outputs at `t`.
    Jacobi,
    /// Gauss–Seidel without iteration, Prey first: Predator steps with the new `x(t+h)`.
    SeidelPreyFirst,
    /// Gauss–Seidel without iteration, Predator first: Prey steps with the new `y(t+h)`.
    SeidelPredatorFirst,
}

/// The exact discrete result `(x, y)` after `steps` fixed communication steps of size `h` (s)
/// from t = 0, for a master without iteration that couples the FMUs as `coupling` says.
///
/// It evaluates the FMUs' own step formulas in the same floating-point order, so a correct
/// master reproduces it to rounding (it differs from [`reference_solution`] by the O(h)
/// coupling error).
pub fn fixed_step_cosimulation(
    p: &Parameters,
    h: f64,
    steps: usize,
    coupling: Coupling,
) -> (f64, f64) {
    let prey_step = |x: f64, y: f64| x * ((p.alpha - p.beta * y) * h).exp();
    let predator_step = |y: f64, x: f64| y * ((p.delta * x - p.gamma) * h).exp();
    let (mut x, mut y) = (p.x0, p.y0);
    for _ in 0..steps {
        (x, y) = match coupling {
            Coupling::Jacobi => (prey_step(x, y), predator_step(y, x)),
            Coupling::SeidelPreyFirst => {
                let x_next = prey_step(x, y);
                (x_next, predator_step(y, x_next))
            }
            Coupling::SeidelPredatorFirst => {
                let y_next = predator_step(y, x);
                (prey_step(x, y_next), y_next)
            }
        };
    }
    (x, y)
}

fn population(name: &'static str, value: f64) -> Result<f64, ModelError> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(ModelError::InvalidValue {
            name,
            value: value.to_string(),
            reason: "must be finite and >= 0",
        })
    }
}

fn rate(name: &'static str, value: f64) -> Result<f64, ModelError> {
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

/// The Prey FMU: `dx/dt = x·(alpha − beta·y)` with the predator population `y` as input.
///
/// With `y` held over a step the equation is linear, so a step is exact:
/// `x(t+h) = x(t)·exp((alpha − beta·y)·h)`.
#[derive(Clone, Debug)]
pub struct Prey {
    alpha: f64,
    beta: f64,
    x0: f64,
    y: f64,
    x: f64,
}

impl Model for Prey {
    fn instantiate(guid: &str) -> Option<Self> {
        let p = Parameters::default();
        (guid == PREY_GUID).then_some(Self {
            alpha: p.alpha,
            beta: p.beta,
            x0: p.x0,
            y: p.y0,
            x: p.x0,
        })
    }

    fn variables(&self) -> &'static [Variable] {
        PREY_VARIABLES
    }

    fn initialize(&mut self, _start_time: f64) -> Result<(), ModelError> {
        self.x = self.x0;
        Ok(())
    }

    fn do_step(&mut self, _t: f64, h: f64) -> StepOutcome {
        self.x *= ((self.alpha - self.beta * self.y) * h).exp();
        StepOutcome::Completed
    }

    fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
        match vr {
            VR_PREY_X => Ok(self.x),
            VR_PREY_Y => Ok(self.y),
            VR_PREY_ALPHA => Ok(self.alpha),
            VR_PREY_BETA => Ok(self.beta),
            VR_PREY_X0 => Ok(self.x0),
            _ => Err(ModelError::unknown(VarType::Real, vr)),
        }
    }

    fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
        match vr {
            VR_PREY_Y => self.y = population("y", value)?,
            VR_PREY_ALPHA => self.alpha = rate("alpha", value)?,
            VR_PREY_BETA => self.beta = rate("beta", value)?,
            VR_PREY_X0 => self.x0 = population("x0", value)?,
            _ => return Err(ModelError::unknown(VarType::Real, vr)),
        }
        Ok(())
    }

    /// `[alpha, beta, x0, y, x]`: the parameters, the input and the state. Implemented although
    /// the modelDescription declares `canSerializeFMUstate="false"` (see the README).
    fn save_state(&self) -> Option<Vec<f64>> {
        Some(vec![self.alpha, self.beta, self.x0, self.y, self.x])
    }

    /// Loads the values of [`Prey::save_state`](Model::save_state); the parameters and the
    /// input must pass the setters' checks.
    fn load_state(&mut self, state: &[f64]) -> Result<(), ModelError> {
        let [alpha, beta, x0, y, x] = state_array("Prey", state)?;
        *self = Self {
            alpha: rate("alpha", alpha)?,
            beta: rate("beta", beta)?,
            x0: population("x0", x0)?,
            y: population("y", y)?,
            x,
        };
        Ok(())
    }
}

/// The Predator FMU: `dy/dt = y·(delta·x − gamma)` with the prey population `x` as input.
///
/// With `x` held over a step: `y(t+h) = y(t)·exp((delta·x − gamma)·h)`.
#[derive(Clone, Debug)]
pub struct Predator {
    gamma: f64,
    delta: f64,
    y0: f64,
    x: f64,
    y: f64,
}

impl Model for Predator {
    fn instantiate(guid: &str) -> Option<Self> {
        let p = Parameters::default();
        (guid == PREDATOR_GUID).then_some(Self {
            gamma: p.gamma,
            delta: p.delta,
            y0: p.y0,
            x: p.x0,
            y: p.y0,
        })
    }

    fn variables(&self) -> &'static [Variable] {
        PREDATOR_VARIABLES
    }

    fn initialize(&mut self, _start_time: f64) -> Result<(), ModelError> {
        self.y = self.y0;
        Ok(())
    }

    fn do_step(&mut self, _t: f64, h: f64) -> StepOutcome {
        self.y *= ((self.delta * self.x - self.gamma) * h).exp();
        StepOutcome::Completed
    }

    fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
        match vr {
            VR_PREDATOR_Y => Ok(self.y),
            VR_PREDATOR_X => Ok(self.x),
            VR_PREDATOR_GAMMA => Ok(self.gamma),
            VR_PREDATOR_DELTA => Ok(self.delta),
            VR_PREDATOR_Y0 => Ok(self.y0),
            _ => Err(ModelError::unknown(VarType::Real, vr)),
        }
    }

    fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
        match vr {
            VR_PREDATOR_X => self.x = population("x", value)?,
            VR_PREDATOR_GAMMA => self.gamma = rate("gamma", value)?,
            VR_PREDATOR_DELTA => self.delta = rate("delta", value)?,
            VR_PREDATOR_Y0 => self.y0 = population("y0", value)?,
            _ => return Err(ModelError::unknown(VarType::Real, vr)),
        }
        Ok(())
    }

    /// `[gamma, delta, y0, x, y]`: the parameters, the input and the state. Implemented
    /// although the modelDescription declares `canSerializeFMUstate="false"` (see the README).
    fn save_state(&self) -> Option<Vec<f64>> {
        Some(vec![self.gamma, self.delta, self.y0, self.x, self.y])
    }

    /// Loads the values of [`Predator::save_state`](Model::save_state); the parameters and the
    /// input must pass the setters' checks.
    fn load_state(&mut self, state: &[f64]) -> Result<(), ModelError> {
        let [gamma, delta, y0, x, y] = state_array("Predator", state)?;
        *self = Self {
            gamma: rate("gamma", gamma)?,
            delta: rate("delta", delta)?,
            y0: population("y0", y0)?,
            x: population("x", x)?,
            y,
        };
        Ok(())
    }
}

fmu_support::model_enum! {
    /// The model behind the shared library: Prey or Predator, chosen by the GUID.
    pub enum LotkaVolterra {
        /// The Prey FMU.
        Prey(Prey),
        /// The Predator FMU.
        Predator(Predator),
    }
}

#[cfg(feature = "export")]
fmu_support::export_fmi2!(LotkaVolterra);

#[cfg(test)]
mod tests;
