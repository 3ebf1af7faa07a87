#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::Arc;

use fmu_support::{Causality, Model, ModelError, StepOutcome, VarType, Variable};

/// GUID of Sampler.
pub const SAMPLER_GUID: &str = "{4d1aeedf-eb95-4fc8-bdb3-e157edfbf8d0}";
/// GUID of Aircraft.
pub const AIRCRAFT_GUID: &str = "{7f5c52fe-5db7-47e9-9791-8979b31e56f2}";
/// GUID of Controller.
pub const CONTROLLER_GUID: &str = "{e7f04069-83dc-4bd5-915c-e2dc49482d50}";
/// GUID of NavFilter.
pub const NAV_FILTER_GUID: &str = "{636ee0d6-67bc-4d0d-ae6e-ca79b0e76502}";

/// Sampler: Real input `u`, the signal to sample (-).
pub const VR_SAMPLER_U: u32 = 1;
/// Sampler: Real output `y`, the value `u` had when the latest completed step was taken (-).
pub const VR_SAMPLER_Y: u32 = 2;
/// Sampler: Real output `t`, the FMU's current time (s).
pub const VR_SAMPLER_T: u32 = 3;
/// Sampler: Integer output `steps`, the number of completed steps since initialization.
pub const VR_SAMPLER_STEPS: u32 = 4;
/// Sampler: Integer output `offGrid`, the number of completed steps that started off the
/// sample grid `t1 + k·dt`.
pub const VR_SAMPLER_OFF_GRID: u32 = 5;
/// Sampler: Real parameter `t1`, the absolute time of the first sample (s).
pub const VR_SAMPLER_T1: u32 = 6;
/// Sampler: Real parameter `dt`, the sample interval (s); 0 switches the grid check off.
pub const VR_SAMPLER_DT: u32 = 7;
/// Sampler: String parameter `logFile`, the file each completed step appends its
/// communication point and step size to; empty: no log.
pub const VR_SAMPLER_LOG_FILE: u32 = 8;

/// Aircraft: Real input `u`, the commanded vertical acceleration (m/s²).
pub const VR_AIRCRAFT_U: u32 = 1;
/// Aircraft: Real output `h`, the altitude (m).
pub const VR_AIRCRAFT_H: u32 = 2;
/// Aircraft: Real output `v`, the vertical speed (m/s).
pub const VR_AIRCRAFT_V: u32 = 3;
/// Aircraft: Real output `acc`, the vertical acceleration `u − d·v` (m/s²).
pub const VR_AIRCRAFT_ACC: u32 = 4;
/// Aircraft: Real parameter `d`, the drag coefficient (1/s).
pub const VR_AIRCRAFT_D: u32 = 5;
/// Aircraft: Real parameter `h0`, the initial altitude (m).
pub const VR_AIRCRAFT_H0: u32 = 6;
/// Aircraft: Real parameter `v0`, the initial vertical speed (m/s).
pub const VR_AIRCRAFT_V0: u32 = 7;
/// Aircraft: Real parameter `maxStep`, the largest RK4 substep (s).
pub const VR_AIRCRAFT_MAX_STEP: u32 = 8;

/// Controller: Real input `y`, the measured value (-).
pub const VR_CONTROLLER_Y: u32 = 1;
/// Controller: Real input `yDot`, the measured rate of change of `y` (per second).
pub const VR_CONTROLLER_Y_DOT: u32 = 2;
/// Controller: Real output `u = kp·(r − y) − kd·yDot`, held between steps (-).
pub const VR_CONTROLLER_U: u32 = 3;
/// Controller: Real parameter `r`, the setpoint (-).
pub const VR_CONTROLLER_R: u32 = 4;
/// Controller: Real parameter `kp`, the proportional gain (-).
pub const VR_CONTROLLER_KP: u32 = 5;
/// Controller: Real parameter `kd`, the derivative gain (seconds times the unit of `kp`).
pub const VR_CONTROLLER_KD: u32 = 6;

/// NavFilter: Real input `hMeas`, the measured altitude (m).
pub const VR_NAV_H_MEAS: u32 = 1;
/// NavFilter: Real input `acc`, the measured vertical acceleration (m/s²).
pub const VR_NAV_ACC: u32 = 2;
/// NavFilter: Real output `hEst`, the estimated altitude (m).
pub const VR_NAV_H_EST: u32 = 3;
/// NavFilter: Real output `vEst`, the estimated vertical speed (m/s).
pub const VR_NAV_V_EST: u32 = 4;
/// NavFilter: Integer output `updates`, the number of completed filter updates (steps).
pub const VR_NAV_UPDATES: u32 = 5;
/// NavFilter: Real parameter `alpha`, the position gain (-).
pub const VR_NAV_ALPHA: u32 = 6;
/// NavFilter: Real parameter `beta`, the speed gain (-).
pub const VR_NAV_BETA: u32 = 7;
/// NavFilter: Real parameter `h0`, the initial altitude estimate (m).
pub const VR_NAV_H0: u32 = 8;
/// NavFilter: Real parameter `v0`, the initial vertical speed estimate (m/s).
pub const VR_NAV_V0: u32 = 9;

/// The variables of Sampler, as in `models/Sampler/modelDescription.xml`.
pub const SAMPLER_VARIABLES: &[Variable] = &[
    Variable::new("u", VR_SAMPLER_U, VarType::Real, Causality::Input),
    Variable::new("y", VR_SAMPLER_Y, VarType::Real, Causality::Output),
    Variable::new("t", VR_SAMPLER_T, VarType::Real, Causality::Output),
    Variable::new(
        "steps",
        VR_SAMPLER_STEPS,
        VarType::Integer,
        Causality::Output,
    ),
    Variable::new(
        "offGrid",
        VR_SAMPLER_OFF_GRID,
        VarType::Integer,
        Causality::Output,
    ),
    Variable::new("t1", VR_SAMPLER_T1, VarType::Real, Causality::Parameter),
    Variable::new("dt", VR_SAMPLER_DT, VarType::Real, Causality::Parameter),
    Variable::new(
        "logFile",
        VR_SAMPLER_LOG_FILE,
        VarType::String,
        Causality::Parameter,
    ),
];

/// The variables of Aircraft, as in `models/Aircraft/modelDescription.xml`.
pub const AIRCRAFT_VARIABLES: &[Variable] = &[
    Variable::new("u", VR_AIRCRAFT_U, VarType::Real, Causality::Input),
    Variable::new("h", VR_AIRCRAFT_H, VarType::Real, Causality::Output),
    Variable::new("v", VR_AIRCRAFT_V, VarType::Real, Causality::Output),
    Variable::new("acc", VR_AIRCRAFT_ACC, VarType::Real, Causality::Output),
    Variable::new("d", VR_AIRCRAFT_D, VarType::Real, Causality::Parameter),
    Variable::new("h0", VR_AIRCRAFT_H0, VarType::Real, Causality::Parameter),
    Variable::new("v0", VR_AIRCRAFT_V0, VarType::Real, Causality::Parameter),
    Variable::new(
        "maxStep",
        VR_AIRCRAFT_MAX_STEP,
        VarType::Real,
        Causality::Parameter,
    ),
];

/// The variables of Controller, as in `models/Controller/modelDescription.xml`.
pub const CONTROLLER_VARIABLES: &[Variable] = &[
    Variable::new("y", VR_CONTROLLER_Y, VarType::Real, Causality::Input),
    Variable::new("yDot", VR_CONTROLLER_Y_DOT, VarType::Real, Causality::Input),
    Variable::new("u", VR_CONTROLLER_U, VarType::Real, Causality::Output),
    Variable::new("r", VR_CONTROLLER_R, VarType::Real, Causality::Parameter),
    Variable::new("kp", VR_CONTROLLER_KP, VarType::Real, Causality::Parameter),
    Variable::new("kd", VR_CONTROLLER_KD, VarType::Real, Causality::Parameter),
];

/// The variables of NavFilter, as in `models/NavFilter/modelDescription.xml`.
pub const NAV_FILTER_VARIABLES: &[Variable] = &[
    Variable::new("hMeas", VR_NAV_H_MEAS, VarType::Real, Causality::Input),
    Variable::new("acc", VR_NAV_ACC, VarType::Real, Causality::Input),
    Variable::new("hEst", VR_NAV_H_EST, VarType::Real, Causality::Output),
    Variable::new("vEst", VR_NAV_V_EST, VarType::Real, Causality::Output),
    Variable::new(
        "updates",
        VR_NAV_UPDATES,
        VarType::Integer,
        Causality::Output,
    ),
    Variable::new("alpha", VR_NAV_ALPHA, VarType::Real, Causality::Parameter),
    Variable::new("beta", VR_NAV_BETA, VarType::Real, Causality::Parameter),
    Variable::new("h0", VR_NAV_H0, VarType::Real, Causality::Parameter),
    Variable::new("v0", VR_NAV_V0, VarType::Real, Causality::Parameter),
];

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

/// A counter as an FMI Integer: saturates at `i32::MAX`.
fn count(n: u64) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// Sampler: a sample-and-hold block that also records where the master put its communication
/// points.
///
/// `y` is the value `u` had when the latest completed step was taken (in initialization mode
/// it follows `u`); `t` is the FMU's current time; `steps` counts completed steps and `offGrid`
/// those whose `currentCommunicationPoint` was not on the grid `t1 + k·dt` (see the README).
/// With `logFile` set, every completed step appends its communication point and step size
/// (two little-endian `f64`, 16 bytes) to that file. An FMU state restores everything except
/// the log file, which is never rewound.
#[derive(Clone, Debug)]
pub struct Sampler {
    u: f64,
    t1: f64,
    dt: f64,
    log_file: String,
    start_time: f64,
    y: f64,
    time: f64,
    steps: u64,
    off_grid: u64,
    /// The log file, opened by the first step that writes to it.
    log: Option<Arc<File>>,
}

impl Sampler {
    /// Whether the step from `t` with size `h` (s) starts where the grid check expects it;
    /// always true with `dt == 0`.
    fn on_grid(&self, t: f64, h: f64) -> Result<bool, String> {
        if self.dt <= 0.0 {
            return Ok(true);
        }
        let t0 = self.start_time;
        if t0 > self.t1 {
            return Err(format!(
                "the first sample time t1 = {} s lies before the start time {t0} s",
                self.t1
            ));
        }
        let k = if t0 < self.t1 {
            if self.steps == 0 {
                return Ok(t == t0 && t + h == self.t1);
            }
            self.steps - 1
        } else {
            self.steps
        };
        Ok(t == self.t1 + (k as f64) * self.dt)
    }

    /// Appends `t` and `h` (s) to the log file, opening it first if needed.
    fn append_log(&mut self, t: f64, h: f64) -> Result<(), String> {
        if self.log_file.is_empty() {
            return Ok(());
        }
        let describe = |e: std::io::Error| format!("logFile {:?}: {e}", self.log_file);
        let file = match &self.log {
            Some(file) => Arc::clone(file),
            None => {
                let file = OpenOptions::new()
                    .append(true)
                    .create(true)
                    .open(&self.log_file)
                    .map_err(describe)?;
                Arc::new(file)
            }
        };
        let mut record = [0u8; 16];
        record[..8].copy_from_slice(&t.to_le_bytes());
        record[8..].copy_from_slice(&h.to_le_bytes());
        (&*file).write_all(&record).map_err(describe)?;
        self.log = Some(file);
        Ok(())
    }
}

impl Model for Sampler {
    fn instantiate(guid: &str) -> Option<Self> {
        (guid == SAMPLER_GUID).then(|| Self {
            u: 0.0,
            t1: 0.0,
            dt: 0.0,
            log_file: String::new(),
            start_time: 0.0,
            y: 0.0,
            time: 0.0,
            steps: 0,
            off_grid: 0,
            log: None,
        })
    }

    fn variables(&self) -> &'static [Variable] {
        SAMPLER_VARIABLES
    }

    fn initialize(&mut self, start_time: f64) -> Result<(), ModelError> {
        self.start_time = start_time;
        self.time = start_time;
        self.y = self.u;
        self.steps = 0;
        self.off_grid = 0;
        self.log = None;
        Ok(())
    }

    fn do_step(&mut self, t: f64, h: f64) -> StepOutcome {
        let on_grid = match self.on_grid(t, h) {
            Ok(on_grid) => on_grid,
            Err(reason) => return StepOutcome::Error(reason),
        };
        if let Err(reason) = self.append_log(t, h) {
            return StepOutcome::Error(reason);
        }
        if !on_grid {
            self.off_grid += 1;
        }
        self.steps += 1;
        self.y = self.u;
        self.time = t + h;
        StepOutcome::Completed
    }

    fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
        match vr {
            VR_SAMPLER_U => Ok(self.u),
            VR_SAMPLER_Y => Ok(self.y),
            VR_SAMPLER_T => Ok(self.time),
            VR_SAMPLER_T1 => Ok(self.t1),
            VR_SAMPLER_DT => Ok(self.dt),
            _ => Err(ModelError::unknown(VarType::Real, vr)),
        }
    }

    fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
        match vr {
            VR_SAMPLER_U => self.u = finite("u", value)?,
            VR_SAMPLER_T1 => self.t1 = finite("t1", value)?,
            VR_SAMPLER_DT if value >= 0.0 => self.dt = finite("dt", value)?,
            VR_SAMPLER_DT => {
                return Err(ModelError::InvalidValue {
                    name: "dt",
                    value: value.to_string(),
                    reason: "must be >= 0",
                });
            }
            _ => return Err(ModelError::unknown(VarType::Real, vr)),
        }
        Ok(())
    }

    fn get_integer(&self, vr: u32) -> Result<i32, ModelError> {
        match vr {
            VR_SAMPLER_STEPS => Ok(count(self.steps)),
            VR_SAMPLER_OFF_GRID => Ok(count(self.off_grid)),
            _ => Err(ModelError::unknown(VarType::Integer, vr)),
        }
    }

    fn get_string(&self, vr: u32) -> Result<String, ModelError> {
        match vr {
            VR_SAMPLER_LOG_FILE => Ok(self.log_file.clone()),
            _ => Err(ModelError::unknown(VarType::String, vr)),
        }
    }

    fn set_string(&mut self, vr: u32, value: &str) -> Result<(), ModelError> {
        match vr {
            VR_SAMPLER_LOG_FILE => {
                value.clone_into(&mut self.log_file);
                self.log = None;
                Ok(())
            }
            _ => Err(ModelError::unknown(VarType::String, vr)),
        }
    }
}

/// The closed-form solution of the Aircraft's equations `dh/dt = v`, `dv/dt = u − d·v` over
/// `dt` (s) with constant `u` (m/s²), from altitude `h` (m) and vertical speed `v` (m/s), with
/// drag coefficient `d` (1/s). Returns the new `(h, v)`.
///
/// For `d ≠ 0`, with the terminal speed `w = u/d`:
/// `v(dt) = w + (v − w)·e^{−d·dt}` and `h(dt) = h + w·dt + (v − w)·(1 − e^{−d·dt})/d`, where
/// `1 − e^{−d·dt}` is computed as `−expm1(−d·dt)`. For `d == 0` it returns the limit
/// `v + u·dt`, `h + v·dt + u·dt²/2`. For small `d` two terms of order `u·dt/d` cancel in `h`,
/// so its rounding error grows like `ε·|u|·dt/d` (ε ≈ 2.2e-16).
pub fn exact_step(h: f64, v: f64, u: f64, d: f64, dt: f64) -> (f64, f64) {
    if d == 0.0 {
        return (h + v * dt + 0.5 * u * dt * dt, v + u * dt);
    }
    let w = u / d;
    let decay = (-d * dt).exp();
    let gone = -(-d * dt).exp_m1();
    (h + w * dt + (v - w) * gone / d, w + (v - w) * decay)
}

/// A step beyond this many RK4 substeps is refused, so that a huge `H/maxStep` cannot hang the
/// FMU.
pub const MAX_SUBSTEPS: f64 = 1e9;

/// Aircraft: vertical flight dynamics, `dh/dt = v`, `dv/dt = u − d·v`, with the input `u` held
/// over a step.
///
/// A step of size `H` takes `n = max(1, ceil(H/maxStep))` classical RK4 substeps of `H/n`.
/// The output `acc = u − d·v` is computed when read, so it follows a newly set `u` at once
/// (direct feedthrough), in initialization mode too.
#[derive(Clone, Debug)]
pub struct Aircraft {
    u: f64,
    d: f64,
    h0: f64,
    v0: f64,
    max_step: f64,
    h: f64,
    v: f64,
}

impl Aircraft {
    /// One RK4 substep of `delta` (s).
    fn rk4(&mut self, delta: f64) {
        let (u, d) = (self.u, self.d);
        let f = |v: f64| u - d * v;
        let (h1, v1) = (self.v, f(self.v));
        let va = self.v + 0.5 * delta * v1;
        let (h2, v2) = (va, f(va));
        let vb = self.v + 0.5 * delta * v2;
        let (h3, v3) = (vb, f(vb));
        let vc = self.v + delta * v3;
        let (h4, v4) = (vc, f(vc));
        self.h += delta / 6.0 * (h1 + 2.0 * h2 + 2.0 * h3 + h4);
        self.v += delta / 6.0 * (v1 + 2.0 * v2 + 2.0 * v3 + v4);
    }
}

impl Model for Aircraft {
    fn instantiate(guid: &str) -> Option<Self> {
        (guid == AIRCRAFT_GUID).then_some(Self {
            u: 0.0,
            d: 0.5,
            h0: 0.0,
            v0: 0.0,
            max_step: 0.001,
            h: 0.0,
            v: 0.0,
        })
    }

    fn variables(&self) -> &'static [Variable] {
        AIRCRAFT_VARIABLES
    }

    fn initialize(&mut self, _start_time: f64) -> Result<(), ModelError> {
        self.h = self.h0;
        self.v = self.v0;
        Ok(())
    }

    fn do_step(&mut self, _t: f64, h: f64) -> StepOutcome {
        let n = (h / self.max_step).ceil().max(1.0);
        if n > MAX_SUBSTEPS {
            return StepOutcome::Error(format!(
                "step {h} s needs {n} substeps of at most maxStep = {} s",
                self.max_step
            ));
        }
        let delta = h / n;
        // `n` is an integer in 1..=1e9 here, so the conversion is exact.
        for _ in 0..n as u64 {
            self.rk4(delta);
        }
        StepOutcome::Completed
    }

    fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
        match vr {
            VR_AIRCRAFT_U => Ok(self.u),
            VR_AIRCRAFT_H => Ok(self.h),
            VR_AIRCRAFT_V => Ok(self.v),
            VR_AIRCRAFT_ACC => Ok(self.u - self.d * self.v),
            VR_AIRCRAFT_D => Ok(self.d),
            VR_AIRCRAFT_H0 => Ok(self.h0),
            VR_AIRCRAFT_V0 => Ok(self.v0),
            VR_AIRCRAFT_MAX_STEP => Ok(self.max_step),
            _ => Err(ModelError::unknown(VarType::Real, vr)),
        }
    }

    fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
        match vr {
            VR_AIRCRAFT_U => self.u = finite("u", value)?,
            VR_AIRCRAFT_D => self.d = finite("d", value)?,
            VR_AIRCRAFT_H0 => self.h0 = finite("h0", value)?,
            VR_AIRCRAFT_V0 => self.v0 = finite("v0", value)?,
            VR_AIRCRAFT_MAX_STEP if value > 0.0 => self.max_step = finite("maxStep", value)?,
            VR_AIRCRAFT_MAX_STEP => {
                return Err(ModelError::InvalidValue {
                    name: "maxStep",
                    value: value.to_string(),
                    reason: "must be > 0",
                });
            }
            _ => return Err(ModelError::unknown(VarType::Real, vr)),
        }
        Ok(())
    }
}

/// Controller: a sampled PD controller, `u = kp·(r − y) − kd·yDot`.
///
/// `u` is computed from the inputs as set before each completed step and held until the next
/// one; in initialization mode it is computed from the current inputs.
#[derive(Clone, Debug)]
pub struct Controller {
    y: f64,
    y_dot: f64,
    r: f64,
    kp: f64,
    kd: f64,
    u: f64,
}

impl Controller {
    fn law(&self) -> f64 {
        self.kp * (self.r - self.y) - self.kd * self.y_dot
    }
}

impl Model for Controller {
    fn instantiate(guid: &str) -> Option<Self> {
        (guid == CONTROLLER_GUID).then_some(Self {
            y: 0.0,
            y_dot: 0.0,
            r: 0.0,
            kp: 1.0,
            kd: 0.0,
            u: 0.0,
        })
    }

    fn variables(&self) -> &'static [Variable] {
        CONTROLLER_VARIABLES
    }

    fn initialize(&mut self, _start_time: f64) -> Result<(), ModelError> {
        self.u = self.law();
        Ok(())
    }

    fn do_step(&mut self, _t: f64, _h: f64) -> StepOutcome {
        self.u = self.law();
        StepOutcome::Completed
    }

    fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
        match vr {
            VR_CONTROLLER_Y => Ok(self.y),
            VR_CONTROLLER_Y_DOT => Ok(self.y_dot),
            VR_CONTROLLER_U => Ok(self.u),
            VR_CONTROLLER_R => Ok(self.r),
            VR_CONTROLLER_KP => Ok(self.kp),
            VR_CONTROLLER_KD => Ok(self.kd),
            _ => Err(ModelError::unknown(VarType::Real, vr)),
        }
    }

    fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
        match vr {
            VR_CONTROLLER_Y => self.y = finite("y", value)?,
            VR_CONTROLLER_Y_DOT => self.y_dot = finite("yDot", value)?,
            VR_CONTROLLER_R => self.r = finite("r", value)?,
            VR_CONTROLLER_KP => self.kp = finite("kp", value)?,
            VR_CONTROLLER_KD => self.kd = finite("kd", value)?,
            _ => return Err(ModelError::unknown(VarType::Real, vr)),
        }
        Ok(())
    }
}

/// NavFilter: an alpha-beta filter that fuses an altitude measurement `hMeas` with a measured
/// acceleration `acc`, one update per completed step.
///
/// A step of size `H` predicts `hEst += vEst·H + acc·H²/2`, `vEst += acc·H`, then corrects
/// with the residual `e = hMeas − hEst`: `hEst += alpha·e`, `vEst += (beta/H)·e`, and counts
/// the update in `updates`. The inputs are those set before the step.
#[derive(Clone, Debug)]
pub struct NavFilter {
    h_meas: f64,
    acc: f64,
    alpha: f64,
    beta: f64,
    h0: f64,
    v0: f64,
    h_est: f64,
    v_est: f64,
    updates: u64,
}

impl Model for NavFilter {
    fn instantiate(guid: &str) -> Option<Self> {
        (guid == NAV_FILTER_GUID).then_some(Self {
            h_meas: 0.0,
            acc: 0.0,
            alpha: 0.5,
            beta: 0.2,
            h0: 0.0,
            v0: 0.0,
            h_est: 0.0,
            v_est: 0.0,
            updates: 0,
        })
    }

    fn variables(&self) -> &'static [Variable] {
        NAV_FILTER_VARIABLES
    }

    fn initialize(&mut self, _start_time: f64) -> Result<(), ModelError> {
        self.h_est = self.h0;
        self.v_est = self.v0;
        self.updates = 0;
        Ok(())
    }

    fn do_step(&mut self, _t: f64, h: f64) -> StepOutcome {
        self.h_est += self.v_est * h + 0.5 * self.acc * h * h;
        self.v_est += self.acc * h;
        let e = self.h_meas - self.h_est;
        self.h_est += self.alpha * e;
        self.v_est += (self.beta / h) * e;
        self.updates += 1;
        StepOutcome::Completed
    }

    fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
        match vr {
            VR_NAV_H_MEAS => Ok(self.h_meas),
            VR_NAV_ACC => Ok(self.acc),
            VR_NAV_H_EST => Ok(self.h_est),
            VR_NAV_V_EST => Ok(self.v_est),
            VR_NAV_ALPHA => Ok(self.alpha),
            VR_NAV_BETA => Ok(self.beta),
            VR_NAV_H0 => Ok(self.h0),
            VR_NAV_V0 => Ok(self.v0),
            _ => Err(ModelError::unknown(VarType::Real, vr)),
        }
    }

    fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
        match vr {
            VR_NAV_H_MEAS => self.h_meas = finite("hMeas", value)?,
            VR_NAV_ACC => self.acc = finite("acc", value)?,
            VR_NAV_ALPHA => self.alpha = finite("alpha", value)?,
            VR_NAV_BETA => self.beta = finite("beta", value)?,
            VR_NAV_H0 => self.h0 = finite("h0", value)?,
            VR_NAV_V0 => self.v0 = finite("v0", value)?,
            _ => return Err(ModelError::unknown(VarType::Real, vr)),
        }
        Ok(())
    }

    fn get_integer(&self, vr: u32) -> Result<i32, ModelError> {
        match vr {
            VR_NAV_UPDATES => Ok(count(self.updates)),
            _ => Err(ModelError::unknown(VarType::Integer, vr)),
        }
    }
}

/// Parameters of the flight navigation example; [`Default`] gives the bundled values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlightParameters {
    /// Aircraft drag coefficient `d` (1/s). Default 0.5.
    pub d: f64,
    /// Initial altitude `h0` of the Aircraft and of the filter's estimate (m). Default 0.
    pub h0: f64,
    /// Initial vertical speed `v0` of the Aircraft and of the filter's estimate (m/s).
    /// Default 0.
    pub v0: f64,
    /// Target altitude `r` of the Autopilot (m). Default 10.
    pub r: f64,
    /// Autopilot proportional gain `kp` (1/s²). Default 4.
    pub kp: f64,
    /// Autopilot derivative gain `kd` (1/s). Default 3.
    pub kd: f64,
    /// Filter position gain `alpha` (-). Default 0.5.
    pub alpha: f64,
    /// Filter speed gain `beta` (-). Default 0.2.
    pub beta: f64,
    /// Sample interval of the IMU (s). Default 0.010.
    pub imu_interval: f64,
    /// Sample interval of the Camera (s). Default 0.040.
    pub camera_interval: f64,
    /// Time of the Camera's first sample after the start (s). Default 0.005.
    pub camera_offset: f64,
    /// Sample interval of the Autopilot (s). Default 0.020.
    pub autopilot_interval: f64,
    /// The base tick: the Aircraft's step and the unit of every other time (s). Default 0.001.
    pub tick: f64,
}

impl Default for FlightParameters {
    fn default() -> Self {
        Self {
            d: 0.5,
            h0: 0.0,
            v0: 0.0,
            r: 10.0,
            kp: 4.0,
            kd: 3.0,
            alpha: 0.5,
            beta: 0.2,
            imu_interval: 0.010,
            camera_interval: 0.040,
            camera_offset: 0.005,
            autopilot_interval: 0.020,
            tick: 0.001,
        }
    }
}

/// The signals of the flight navigation example at one tick.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlightSample {
    /// Time `k·tick` (s).
    pub t: f64,
    /// Aircraft altitude `h` (m).
    pub h: f64,
    /// Aircraft vertical speed `v` (m/s).
    pub v: f64,
    /// Aircraft acceleration `acc = u − d·v` (m/s²), with the `u` held over the tick that ends
    /// here.
    pub acc: f64,
    /// The IMU's output `y`: `acc` at the latest IMU sample (m/s²).
    pub imu: f64,
    /// The Camera's output `y`: `h` at the latest Camera sample (m).
    pub camera: f64,
    /// NavFilter's altitude estimate `hEst` (m).
    pub h_est: f64,
    /// NavFilter's speed estimate `vEst` (m/s).
    pub v_est: f64,
    /// NavFilter's update count `updates`.
    pub updates: i32,
    /// The Autopilot's output `u`, the commanded acceleration (m/s²).
    pub u: f64,
}

/// `time` (s) as a whole number of ticks.
///
/// # Panics
/// If `time` is negative, not finite, or not a whole multiple of `tick` (within 1e-9 ticks).
fn ticks(name: &str, time: f64, tick: f64) -> u64 {
    let n = time / tick;
    assert!(
        n.is_finite() && n >= 0.0 && (n - n.round()).abs() < 1e-9,
        "{name} = {time} s must be a whole number of ticks of {tick} s"
    );
    // A non-negative whole number: the conversion is exact up to 2^53.
    n.round() as u64
}

/// The discrete-event reference of the flight navigation example (see the README): one
/// [`FlightSample`] per tick `k = 0, 1, …, round(t_end/tick)`, at `t = k·tick` (s).
///
/// It evaluates the sampled-data schedule of a multi-rate Gauss–Seidel master event by event,
/// in integer ticks, with the Aircraft advanced by [`exact_step`] (not through the [`Model`]
/// implementations). At each tick `k ≥ 1`, in this order: the Aircraft advances one tick with
/// the held `u`; at IMU instants the IMU samples `acc`; at Camera instants the Camera samples
/// `h` and NavFilter updates over the time since its previous update with `hMeas = camera`
/// and `acc = imu`; at Autopilot instants the Autopilot computes `u` from the estimates.
///
/// # Panics
/// If `tick` is not finite and positive, if `t_end` is negative or not finite, if an interval
/// is not a positive whole number of ticks, or if the camera offset is not a non-negative
/// whole number of ticks.
pub fn flight_reference(p: &FlightParameters, t_end: f64) -> Vec<FlightSample> {
    assert!(
        p.tick.is_finite() && p.tick > 0.0,
        "tick = {} s must be finite and > 0",
        p.tick
    );
    assert!(
        t_end.is_finite() && t_end >= 0.0,
        "t_end = {t_end} s must be finite and >= 0"
    );
    let imu_every = ticks("imu_interval", p.imu_interval, p.tick);
    let camera_every = ticks("camera_interval", p.camera_interval, p.tick);
    let camera_first = ticks("camera_offset", p.camera_offset, p.tick);
    let autopilot_every = ticks("autopilot_interval", p.autopilot_interval, p.tick);
    assert!(
        imu_every > 0 && camera_every > 0 && autopilot_every > 0,
        "sample intervals must be > 0"
    );
    let k_end = (t_end / p.tick).round() as u64;

    let u = p.kp * (p.r - p.h0) - p.kd * p.v0;
    let acc = u - p.d * p.v0;
    let mut s = FlightSample {
        t: 0.0,
        h: p.h0,
        v: p.v0,
        acc,
        imu: acc,
        camera: p.h0,
        h_est: p.h0,
        v_est: p.v0,
        updates: 0,
        u,
    };
    let mut k_filter = 0;
    let mut samples = Vec::with_capacity(usize::try_from(k_end).map_or(0, |n| n + 1));
    samples.push(s);
    for k in 1..=k_end {
        s.t = k as f64 * p.tick;
        (s.h, s.v) = exact_step(s.h, s.v, s.u, p.d, p.tick);
        s.acc = s.u - p.d * s.v;
        if k.is_multiple_of(imu_every) {
            s.imu = s.acc;
        }
        if k >= camera_first && (k - camera_first).is_multiple_of(camera_every) {
            s.camera = s.h;
            let dt = (k - k_filter) as f64 * p.tick;
            s.h_est += s.v_est * dt + 0.5 * s.imu * dt * dt;
            s.v_est += s.imu * dt;
            let e = s.camera - s.h_est;
            s.h_est += p.alpha * e;
            s.v_est += (p.beta / dt) * e;
            s.updates += 1;
            k_filter = k;
        }
        if k.is_multiple_of(autopilot_every) {
            s.u = p.kp * (p.r - s.h_est) - p.kd * s.v_est;
        }
        samples.push(s);
    }
    samples
}

fmu_support::model_enum! {
    /// The model behind the shared library: Sampler, Aircraft, Controller or NavFilter, chosen
    /// by the GUID.
    pub enum Multirate {
        /// The Sampler FMU.
        Sampler(Sampler),
        /// The Aircraft FMU.
        Aircraft(Aircraft),
        /// The Controller FMU.
        Controller(Controller),
        /// The NavFilter FMU.
        NavFilter(NavFilter),
    }
}

#[cfg(feature = "export")]
fmu_support::export_fmi2!(Multirate);

#[cfg(test)]
mod tests;
