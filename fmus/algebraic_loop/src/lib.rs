#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

use fmu_support::{Causality, Model, ModelError, StepOutcome, VarType, Variable, state_array};

/// GUID of the Gain FMU.
pub const GUID: &str = "{7d4ea821-9672-438c-af3b-b16283bf5c7e}";

/// Real input `u` (-), start 0.
pub const VR_U: u32 = 1;
/// Real output `y = k·u + offset + amplitude·sin(omega·t)` (-), direct feedthrough from `u`.
pub const VR_Y: u32 = 2;
/// Real parameter `k`, the gain from `u` to `y` (-), start 1.
pub const VR_K: u32 = 3;
/// Real parameter `offset`, the constant part of the bias (-), start 0.
pub const VR_OFFSET: u32 = 4;
/// Real parameter `amplitude`, the amplitude of the sinusoidal part of the bias (-), start 0.
pub const VR_AMPLITUDE: u32 = 5;
/// Real parameter `omega`, the angular frequency of the sinusoidal bias (rad/s), start 1.
pub const VR_OMEGA: u32 = 6;

/// The variables of Gain, as in `models/Gain/modelDescription.xml`.
pub const GAIN_VARIABLES: &[Variable] = &[
    Variable::new("u", VR_U, VarType::Real, Causality::Input),
    Variable::new("y", VR_Y, VarType::Real, Causality::Output),
    Variable::new("k", VR_K, VarType::Real, Causality::Parameter),
    Variable::new("offset", VR_OFFSET, VarType::Real, Causality::Parameter),
    Variable::new(
        "amplitude",
        VR_AMPLITUDE,
        VarType::Real,
        Causality::Parameter,
    ),
    Variable::new("omega", VR_OMEGA, VarType::Real, Causality::Parameter),
];

/// Parameters of one Gain instance; [`Default`] gives the modelDescription's start values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Parameters {
    /// Gain `k` from `u` to `y` (-). Default 1.
    pub k: f64,
    /// Constant bias `offset` (-). Default 0.
    pub offset: f64,
    /// Amplitude of the sinusoidal bias (-). Default 0.
    pub amplitude: f64,
    /// Angular frequency of the sinusoidal bias (rad/s). Default 1.
    pub omega: f64,
}

impl Default for Parameters {
    fn default() -> Self {
        Self {
            k: 1.0,
            offset: 0.0,
            amplitude: 0.0,
            omega: 1.0,
        }
    }
}

impl Parameters {
    /// The bias at time `t` (s): `offset + amplitude·sin(omega·t)` (-), the output for `u = 0`.
    pub fn bias(&self, t: f64) -> f64 {
        self.offset + self.amplitude * (self.omega * t).sin()
    }
}

/// The output `y = k·u + offset + amplitude·sin(omega·t)` (-) for the input `u` (-) at time
/// `t` (s). This is exactly what the FMU returns for `y`.
pub fn output(p: &Parameters, u: f64, t: f64) -> f64 {
    p.k * u + p.bias(t)
}

/// The exact solution `(y_a, y_b)` (-) at time `t` (s) of the loop of two Gain instances `a` and
/// `b`, where each one's input is the other's output:
///
/// ```text
/// y_a = k_a·y_b + bias_a(t),   y_b = k_b·y_a + bias_b(t)
/// y_a = (k_a·bias_b(t) + bias_a(t)) / (1 − k_a·k_b),   y_b = k_b·y_a + bias_b(t)
/// ```
///
/// with `bias(t) = offset + amplitude·sin(omega·t)` ([`Parameters::bias`]).
///
/// The loop has a unique solution only if `k_a·k_b ≠ 1`; for `k_a·k_b = 1` the result is not
/// finite (or NaN). Fixed-point (Gauss–Seidel) iteration, which sets `u_a = y_b`, reads `y_a`,
/// sets `u_b = y_a`, reads `y_b`, and repeats, multiplies the error by `k_a·k_b` per sweep, so it
/// converges (linearly, with rate `|k_a·k_b|`) exactly when `|k_a·k_b| < 1`.
pub fn loop_solution(a: &Parameters, b: &Parameters, t: f64) -> (f64, f64) {
    let (bias_a, bias_b) = (a.bias(t), b.bias(t));
    let y_a = (a.k * bias_b + bias_a) / (1.0 - a.k * b.k);
    (y_a, b.k * y_a + bias_b)
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

/// The Gain FMU: `y = k·u + offset + amplitude·sin(omega·t)`, without state.
///
/// `t` is the FMU's current time: the start time from initialization on, `t + h` after a step
/// from `t` to `t + h`. `y` is computed when read, so a newly set `u` shows at once (direct
/// feedthrough). Provides the directional derivatives of `y` with respect to `u` and every
/// parameter.
#[derive(Clone, Debug)]
pub struct Gain {
    p: Parameters,
    u: f64,
    t: f64,
}

impl Gain {
    fn y(&self) -> f64 {
        output(&self.p, self.u, self.t)
    }
}

impl Model for Gain {
    fn instantiate(guid: &str) -> Option<Self> {
        (guid == GUID).then_some(Self {
            p: Parameters::default(),
            u: 0.0,
            t: 0.0,
        })
    }

    fn variables(&self) -> &'static [Variable] {
        GAIN_VARIABLES
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
            VR_U => Ok(self.u),
            VR_Y => Ok(self.y()),
            VR_K => Ok(self.p.k),
            VR_OFFSET => Ok(self.p.offset),
            VR_AMPLITUDE => Ok(self.p.amplitude),
            VR_OMEGA => Ok(self.p.omega),
            _ => Err(ModelError::unknown(VarType::Real, vr)),
        }
    }

    fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
        match vr {
            VR_U => self.u = finite("u", value)?,
            VR_K => self.p.k = finite("k", value)?,
            VR_OFFSET => self.p.offset = finite("offset", value)?,
            VR_AMPLITUDE => self.p.amplitude = finite("amplitude", value)?,
            VR_OMEGA => self.p.omega = finite("omega", value)?,
            _ => return Err(ModelError::unknown(VarType::Real, vr)),
        }
        Ok(())
    }

    /// `[k, offset, amplitude, omega, u, t]`: the parameters, the input and the FMU time (s).
    fn save_state(&self) -> Option<Vec<f64>> {
        let p = &self.p;
        Some(vec![p.k, p.offset, p.amplitude, p.omega, self.u, self.t])
    }

    /// Loads the values of [`Gain::save_state`](Model::save_state); parameters and input must
    /// be finite.
    fn load_state(&mut self, state: &[f64]) -> Result<(), ModelError> {
        let [k, offset, amplitude, omega, u, t] = state_array("Gain", state)?;
        *self = Self {
            p: Parameters {
                k: finite("k", k)?,
                offset: finite("offset", offset)?,
                amplitude: finite("amplitude", amplitude)?,
                omega: finite("omega", omega)?,
            },
            u: finite("u", u)?,
            t,
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
        let (s, c) = (self.p.omega * self.t).sin_cos();
        let mut compute = || {
            for (out, &unknown) in dv_unknown.iter_mut().zip(unknowns) {
                *out = 0.0;
                for (&known, &seed) in knowns.iter().zip(dv_known) {
                    let partial = match (unknown, known) {
                        (VR_Y, VR_U) => self.p.k,
                        (VR_Y, VR_K) => self.u,
                        (VR_Y, VR_OFFSET) => 1.0,
                        (VR_Y, VR_AMPLITUDE) => s,
                        (VR_Y, VR_OMEGA) => self.p.amplitude * self.t * c,
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

#[cfg(feature = "export")]
fmu_support::export_fmi2!(Gain);

#[cfg(test)]
mod tests;
