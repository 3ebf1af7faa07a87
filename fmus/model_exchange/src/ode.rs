//! The part every model of this crate shares: [`Equations`] is what a model defines (its
//! variables, parameters, right-hand side, event indicators and event update), and [`Ode`]
//! turns it into an [`MeModel`] with parameters, inputs, continuous states and time.

use std::fmt::Debug;

use fmu_support::{
    EventUpdate, MeModel, Model, ModelError, StepEvent, StepOutcome, VarType, Variable, Variable3,
};

/// Relative tolerance of "time `t` has reached the event time τ": `t ≥ τ − 1e-8·(1 + |τ|)` (s).
pub const EVENT_TOLERANCE: f64 = 1e-8;

/// Whether `t` (s) has reached the event time `tau` (s), within [`EVENT_TOLERANCE`].
pub fn reached(t: f64, tau: f64) -> bool {
    t >= tau - EVENT_TOLERANCE * (1.0 + tau.abs())
}

/// A Model Exchange model's equations. The discrete states live in the implementing value;
/// parameters `p`, inputs `u` and continuous states `x` are slices in the order of
/// [`Equations::PARAMETERS`], [`Equations::INPUTS`] and [`Equations::STATES`].
pub trait Equations: Clone + Debug + Default + Send + 'static {
    /// The FMU's GUID.
    const GUID: &'static str;
    /// The variable table (equal to the modelDescription's `ModelVariables`).
    const VARIABLES: &'static [Variable];
    /// The FMI 3.0 variable table of an FMI 3.0 FMU; empty for an FMI 2.0 one.
    const VARIABLES3: &'static [Variable3] = &[];
    /// Value reference and start value of each parameter.
    const PARAMETERS: &'static [(u32, f64)];
    /// Value reference and start value of each input.
    const INPUTS: &'static [(u32, f64)] = &[];
    /// Value references of the continuous states, in state order.
    const STATES: &'static [u32];
    /// Value references of the state derivatives, in state order.
    const DERIVATIVES: &'static [u32];
    /// Nominal magnitude of each state (`fmi2GetNominalsOfContinuousStates`).
    const NOMINALS: &'static [f64];
    /// Number of event indicators.
    const EVENT_INDICATORS: usize = 0;
    /// Value references of variables that equal the event indicators, in order (FMI 3.0
    /// declares event indicators as variables); may be empty.
    const INDICATORS: &'static [u32] = &[];
    /// Whether the FMU also offers co-simulation (with [`Ode`]'s RK4 inside `fmi2DoStep`).
    const CO_SIMULATION: bool = false;

    /// Checks the parameters and returns the initial states at `t0` (s), resetting the discrete
    /// states.
    ///
    /// # Errors
    /// [`ModelError::InvalidValue`] for a parameter out of range.
    fn start(&mut self, p: &[f64], t0: f64) -> Result<Vec<f64>, ModelError>;

    /// f(t, x): writes the derivatives into `dx`.
    fn derivatives(&self, p: &[f64], u: &[f64], t: f64, x: &[f64], dx: &mut [f64]);

    /// z(t, x): writes the event indicators into `z`.
    fn indicators(&self, p: &[f64], t: f64, x: &[f64], z: &mut [f64]) {
        let _ = (p, t, x, z);
    }

    /// One event iteration at `t` (s); may change `x`.
    fn update(&mut self, p: &[f64], t: f64, x: &mut [f64]) -> EventUpdate;

    /// A Real output or local that is neither a parameter, input, state nor derivative.
    fn output(&self, vr: u32) -> Option<f64> {
        let _ = vr;
        None
    }
}

/// A model of this crate: its [`Equations`] with parameters, inputs, states and time (s).
#[derive(Clone, Debug)]
pub struct Ode<E> {
    equations: E,
    p: Vec<f64>,
    u: Vec<f64>,
    x: Vec<f64>,
    t: f64,
}

/// Largest internal step (s) of the RK4 integrator of a co-simulation instance.
pub const RK4_MAX_STEP: f64 = 1e-3;

impl<E: Equations> Ode<E> {
    /// The model with every parameter and input at its start value, initialized at t = 0.
    ///
    /// # Panics
    /// If the start values are out of range (a defect of the model's tables).
    pub fn new() -> Self {
        let mut ode = Self {
            equations: E::default(),
            p: E::PARAMETERS.iter().map(|&(_, v)| v).collect(),
            u: E::INPUTS.iter().map(|&(_, v)| v).collect(),
            x: vec![0.0; E::STATES.len()],
            t: 0.0,
        };
        ode.initialize(0.0)
            .expect("invariant: start values are valid");
        ode
    }

    /// The equations (discrete states).
    pub fn equations(&self) -> &E {
        &self.equations
    }

    /// The continuous states.
    pub fn states(&self) -> &[f64] {
        &self.x
    }

    fn rhs(&self, t: f64, x: &[f64]) -> Vec<f64> {
        let mut dx = vec![0.0; x.len()];
        self.equations.derivatives(&self.p, &self.u, t, x, &mut dx);
        dx
    }

    /// One classical Runge–Kutta step of size `h` (s) from `t`.
    fn rk4(&mut self, t: f64, h: f64) {
        let axpy = |x: &[f64], k: &[f64], a: f64| -> Vec<f64> {
            x.iter().zip(k).map(|(x, k)| x + a * k).collect()
        };
        let k1 = self.rhs(t, &self.x);
        let k2 = self.rhs(t + h / 2.0, &axpy(&self.x, &k1, h / 2.0));
        let k3 = self.rhs(t + h / 2.0, &axpy(&self.x, &k2, h / 2.0));
        let k4 = self.rhs(t + h, &axpy(&self.x, &k3, h));
        for (i, x) in self.x.iter_mut().enumerate() {
            *x += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
    }
}

impl<E: Equations> Default for Ode<E> {
    fn default() -> Self {
        Self::new()
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

fn name_of<E: Equations>(vr: u32) -> &'static str {
    E::VARIABLES
        .iter()
        .find(|v| v.vr == vr && v.ty == VarType::Real)
        .map_or("?", |v| v.name)
}

impl<E: Equations> Model for Ode<E> {
    fn instantiate(guid: &str) -> Option<Self> {
        (guid == E::GUID).then(Self::new)
    }

    fn variables(&self) -> &'static [Variable] {
        E::VARIABLES
    }

    fn variables3(&self) -> &'static [Variable3] {
        E::VARIABLES3
    }

    fn initialize(&mut self, start_time: f64) -> Result<(), ModelError> {
        self.t = start_time;
        self.x = self.equations.start(&self.p, start_time)?;
        Ok(())
    }

    /// Co-simulation (only for [`Equations::CO_SIMULATION`]): RK4 with equal internal steps of
    /// at most [`RK4_MAX_STEP`]; the equations of such a model have no events.
    fn do_step(&mut self, t: f64, h: f64) -> StepOutcome {
        if !E::CO_SIMULATION {
            return StepOutcome::Error("this FMU offers only Model Exchange".to_owned());
        }
        let n = (h / RK4_MAX_STEP).ceil().max(1.0);
        let dt = h / n;
        for k in 0..n as u64 {
            self.rk4(t + k as f64 * dt, dt);
        }
        self.t = t + h;
        StepOutcome::Completed
    }

    fn get_real(&self, vr: u32) -> Result<f64, ModelError> {
        if let Some(i) = E::STATES.iter().position(|&s| s == vr) {
            return Ok(self.x[i]);
        }
        if let Some(i) = E::DERIVATIVES.iter().position(|&s| s == vr) {
            return Ok(self.rhs(self.t, &self.x)[i]);
        }
        if let Some(i) = E::PARAMETERS.iter().position(|&(s, _)| s == vr) {
            return Ok(self.p[i]);
        }
        if let Some(i) = E::INDICATORS.iter().position(|&s| s == vr) {
            let mut z = vec![0.0; E::EVENT_INDICATORS];
            self.equations.indicators(&self.p, self.t, &self.x, &mut z);
            return Ok(z[i]);
        }
        if let Some(i) = E::INPUTS.iter().position(|&(s, _)| s == vr) {
            return Ok(self.u[i]);
        }
        self.equations
            .output(vr)
            .ok_or(ModelError::unknown(VarType::Real, vr))
    }

    fn set_real(&mut self, vr: u32, value: f64) -> Result<(), ModelError> {
        let value = finite(name_of::<E>(vr), value)?;
        if let Some(i) = E::PARAMETERS.iter().position(|&(s, _)| s == vr) {
            self.p[i] = value;
        } else if let Some(i) = E::INPUTS.iter().position(|&(s, _)| s == vr) {
            self.u[i] = value;
        } else {
            return Err(ModelError::unknown(VarType::Real, vr));
        }
        Ok(())
    }
}

impl<E: Equations> MeModel for Ode<E> {
    fn number_of_states(&self) -> usize {
        E::STATES.len()
    }

    fn number_of_event_indicators(&self) -> usize {
        E::EVENT_INDICATORS
    }

    fn co_simulation(&self) -> bool {
        E::CO_SIMULATION
    }

    fn set_time(&mut self, t: f64) {
        self.t = t;
    }

    fn continuous_states(&self, x: &mut [f64]) {
        x.copy_from_slice(&self.x);
    }

    fn set_continuous_states(&mut self, x: &[f64]) -> Result<(), ModelError> {
        self.x.copy_from_slice(x);
        Ok(())
    }

    fn nominals(&self, nominals: &mut [f64]) {
        nominals.copy_from_slice(E::NOMINALS);
    }

    fn derivatives(&self, t: f64, dx: &mut [f64]) -> Result<(), ModelError> {
        self.equations.derivatives(&self.p, &self.u, t, &self.x, dx);
        Ok(())
    }

    fn event_indicators(&self, t: f64, z: &mut [f64]) -> Result<(), ModelError> {
        self.equations.indicators(&self.p, t, &self.x, z);
        Ok(())
    }

    fn event_update(&mut self, t: f64) -> EventUpdate {
        self.t = t;
        self.equations.update(&self.p, t, &mut self.x)
    }

    fn completed_integrator_step(&mut self, t: f64) -> StepEvent {
        self.t = t;
        StepEvent::default()
    }
}
