//! [`MeSlave`]: a Model Exchange instance driven by an integrator of the master's, so that it
//! is a slave like any co-simulation FMU.
//!
//! The slave owns one instance (through [`ModelExchangeCalls`]) and one [`solver::Integrator`].
//! A communication step from `t` to `t + h` holds the inputs and integrates the continuous
//! states; the integrator stops at every time event (`nextEventTime` is a hard stop time,
//! never stepped over), at every state event (a zero crossing of an event indicator, located
//! by the integrator's root finding) and after every integrator step the FMU asks to end in
//! Event Mode (a step event). Each event is Event Mode, the event iteration until no discrete
//! state needs an update, and Continuous-Time Mode again; then the states (and, when they
//! changed, their nominals) are read again and the integrator restarts from them.
//!
//! - **Tolerances.** `absTol_i = absTol · nominal_i` with the states' nominal values; `absTol`
//!   defaults to the relative tolerance (as FMPy does).
//! - **Largest step.** The communication step size, unless the slave's `maxStep` is set.
//!   Explicit Euler steps by that size.
//! - **Restarts.** The integrator keeps its history across communication points; it restarts
//!   only after an event, after an input was set to a different value, and after an FMU state
//!   was restored. A changed Integer, Boolean, String or Binary input (discrete by nature) is
//!   set in Event Mode, and the event iteration follows at the start of the next step.
//! - **Endings.** `terminateSimulation` (from an event iteration or `completedIntegratorStep`)
//!   ends the run as a co-simulation FMU's terminate request does: at the end of the step when
//!   the FMU reached it, else at the step's start. An event iteration that does not end within
//!   [`MAX_EVENT_ITERATIONS`], more than [`MAX_EVENTS_AT_ONE_TIME`] events at one time
//!   (chattering), a derivative that is not finite and an integrator failure are errors naming
//!   the slave and `t`.
//! - **Without continuous states** time goes from event to event (and to the end of the step)
//!   without the integrator; event indicators are checked for a sign change at each stop.
//! - **Checkpoints.** [`Slave::serialize_state`] gives `None`: a resumed run replays Model
//!   Exchange slaves (which reaches the same state by construction).
//!
//! Spec: FMI 2.0.2 §3.1–§3.2 (Model Exchange, the calling sequence of §3.2.3), FMI 3.0 §3.2;
//! FMPy's `simulate_fmu` (the default tolerance of the absolute error, Euler's fixed step).

mod calls;
mod choice;
mod early_inputs;
mod fmu;
mod stepping;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use fmi::ValueRef;

pub use calls::{EventUpdate, ModelExchangeCalls, StepEnd};
pub use choice::{interface_of, options_of};
pub(crate) use fmu::instantiate;

use early_inputs::{EarlyInputs, Held};

use crate::slave::{Slave, SlaveCapabilities, StateId, StepOutcome};
use crate::statistics::IntegratorStatistics;
use crate::{Error, Result};

/// Event iterations one event may take before the slave gives up.
pub const MAX_EVENT_ITERATIONS: usize = 1000;
/// Events at one instant (without progress in time) before the slave calls the model
/// chattering and gives up.
pub const MAX_EVENTS_AT_ONE_TIME: usize = 100;

/// The integrator settings of one Model Exchange slave, resolved.
///
/// Spec: FMPy `simulate_fmu` (`solver`, `relative_tolerance`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeOptions {
    /// The integration method.
    pub method: solver::Method,
    /// Relative tolerance of the integrator (also passed to the FMU's experiment set-up).
    pub rel_tol: f64,
    /// Absolute tolerance before scaling by the states' nominals; `None`: the relative tolerance.
    pub abs_tol: Option<f64>,
    /// Largest integrator step, s; `None`: the communication step size.
    pub max_step: Option<f64>,
}

impl Default for MeOptions {
    /// CVODE with a relative tolerance of 1e-6 (FMPy's default without a `DefaultExperiment`
    /// tolerance).
    fn default() -> Self {
        MeOptions {
            method: solver::Method::Cvode,
            rel_tol: 1e-6,
            abs_tol: None,
            max_step: None,
        }
    }
}

/// The instance's mode, as far as the slave tracks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Before `exitInitializationMode`.
    Initialization,
    /// In Event Mode between communication steps (a discrete input changed).
    Event,
    /// Continuous-Time Mode.
    ContinuousTime,
}

/// What the slave remembers with an FMU state of its instance.
#[derive(Debug, Clone, Copy)]
struct Saved {
    next_event: Option<f64>,
    mode: Mode,
}

/// One Model Exchange instance as a [`Slave`] (`crate::AnySlave::ModelExchange`).
pub struct MeSlave {
    name: String,
    inner: Box<dyn ModelExchangeCalls>,
    options: MeOptions,
    /// Created at the first step (Euler's fixed step is the first communication step size).
    integrator: Option<solver::Integrator>,
    /// The largest step the integrator was given last, s.
    max_step: Option<f64>,
    /// Continuous states and their nominals; event indicators (without an integrator).
    x: Vec<f64>,
    nominals: Vec<f64>,
    indicators: Vec<f64>,
    t_start: f64,
    next_event: Option<f64>,
    mode: Mode,
    /// The integrator must restart at the next step.
    restart: bool,
    terminate_requested: bool,
    /// The time of the last event and how many events happened at it.
    last_event: (f64, usize),
    /// The values last set per value reference, to see whether an input changed.
    last_set: HashMap<(u8, u32), u64>,
    saved: Vec<Option<Saved>>,
    stats: IntegratorStatistics,
    /// Statistics of integrators replaced after a change of the nominals.
    replaced: solver::Statistics,
    /// Inputs set before Initialization Mode, held until it.
    early: EarlyInputs,
}

impl std::fmt::Debug for MeSlave {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MeSlave")
            .field("name", &self.name)
            .field("options", &self.options)
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

impl MeSlave {
    /// Wraps an instance (created for Model Exchange) with the integrator settings `options`.
    pub fn new(inner: Box<dyn ModelExchangeCalls>, options: MeOptions) -> MeSlave {
        let n = inner.number_of_continuous_states();
        let m = inner.number_of_event_indicators();
        MeSlave {
            name: inner.name().to_string(),
            inner,
            options,
            integrator: None,
            max_step: None,
            x: vec![0.0; n],
            nominals: vec![1.0; n],
            indicators: vec![0.0; m],
            t_start: 0.0,
            next_event: None,
            mode: Mode::Initialization,
            restart: true,
            terminate_requested: false,
            last_event: (f64::NAN, 0),
            last_set: HashMap::new(),
            saved: Vec::new(),
            stats: IntegratorStatistics::default(),
            replaced: solver::Statistics::default(),
            early: EarlyInputs::default(),
        }
    }

    /// Holds the inputs of the FMU described by `description` that are set before
    /// Initialization Mode until the instance is in it (`early_inputs`).
    pub fn hold_early_inputs(mut self, description: &fmi::ModelDescription) -> MeSlave {
        self.early = EarlyInputs::of(description);
        self
    }

    /// The integrator settings.
    pub fn options(&self) -> MeOptions {
        self.options
    }

    /// The error of this slave at `t` (s).
    #[cold]
    #[inline(never)]
    fn failure(&self, t: f64, reason: String) -> Error {
        Error::ModelExchange {
            slave: self.name.clone(),
            t,
            reason,
        }
    }

    /// True when one of `values` differs from the value set last into its value reference
    /// (of value class `class`); remembers the new values.
    fn changed<T>(
        &mut self,
        class: u8,
        vrs: &[ValueRef],
        values: &[T],
        bits: impl Fn(&T) -> u64,
    ) -> bool {
        let mut changed = false;
        for (vr, v) in vrs.iter().zip(values) {
            let b = bits(v);
            changed |= self.last_set.insert((class, vr.0), b) != Some(b);
        }
        changed
    }

    /// Before setting a discrete input: in Continuous-Time Mode, Event Mode when it changed
    /// (the event iteration follows at the start of the next step), and no call at all when it
    /// did not (the FMU holds the value already, and FMI 2.0 allows no `fmi2SetInteger`,
    /// `fmi2SetBoolean` or `fmi2SetString` in that mode). True: make the set call.
    fn discrete_input(&mut self, changed: bool) -> Result<bool> {
        if self.mode != Mode::ContinuousTime {
            return Ok(true);
        }
        if changed {
            self.inner.enter_event_mode()?;
            self.mode = Mode::Event;
        }
        Ok(changed)
    }
}

/// A hash of a string or byte value, for [`MeSlave::changed`].
fn hash_of(value: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    value.hash(&mut h);
    h.finish()
}

impl Slave for MeSlave {
    fn name(&self) -> &str {
        &self.name
    }

    /// The instance's capabilities, with any communication step size and without directional
    /// derivatives (those of a Model Exchange FMU are not the sensitivities of a step).
    fn capabilities(&self) -> SlaveCapabilities {
        SlaveCapabilities {
            can_handle_variable_step_size: true,
            provides_directional_derivative: false,
            ..self.inner.capabilities()
        }
    }

    /// Passes the integrator's relative tolerance to the FMU (not the master's `rel_tol`).
    fn setup_experiment(&mut self, _rel_tol: f64, t_start: f64, t_end: f64) -> Result<()> {
        self.t_start = t_start;
        self.inner
            .setup_experiment(self.options.rel_tol, t_start, t_end)
    }

    /// Enters Initialization Mode and makes the input sets held until it.
    fn enter_initialization_mode(&mut self) -> Result<()> {
        self.inner.enter_initialization_mode()?;
        for held in self.early.release() {
            match held {
                Held::Real(vrs, values) => self.inner.set_real(&vrs, &values)?,
                Held::Integer(vrs, values) => self.inner.set_integer(&vrs, &values)?,
                Held::Boolean(vrs, values) => self.inner.set_boolean(&vrs, &values)?,
                Held::String(vrs, values) => self.inner.set_string(&vrs, &values)?,
                Held::Binary(vrs, values) => self.inner.set_binary(&vrs, &values)?,
            }
        }
        Ok(())
    }

    /// Leaves initialization mode into Event Mode, iterates the events at the start time and
    /// enters Continuous-Time Mode.
    fn exit_initialization_mode(&mut self) -> Result<()> {
        self.inner.exit_initialization_mode()?;
        self.mode = Mode::Event;
        if self.event_iteration(self.t_start)? {
            log::info!(
                "slave '{}' asks to terminate during initialization",
                self.name
            );
            self.terminate_requested = true;
        }
        Ok(())
    }

    fn get_real(&mut self, vrs: &[ValueRef], values: &mut [f64]) -> Result<()> {
        self.inner.get_real(vrs, values)
    }
    fn get_integer(&mut self, vrs: &[ValueRef], values: &mut [i128]) -> Result<()> {
        self.inner.get_integer(vrs, values)
    }
    fn get_boolean(&mut self, vrs: &[ValueRef], values: &mut [bool]) -> Result<()> {
        self.inner.get_boolean(vrs, values)
    }
    fn get_string(&mut self, vrs: &[ValueRef], values: &mut [String]) -> Result<()> {
        self.inner.get_string(vrs, values)
    }
    fn get_binary(&mut self, vrs: &[ValueRef], values: &mut [Vec<u8>]) -> Result<()> {
        self.inner.get_binary(vrs, values)
    }

    /// A changed value restarts the integrator at the next step; a changed Real input that is
    /// not continuous is set in Event Mode.
    fn set_real(&mut self, vrs: &[ValueRef], values: &[f64]) -> Result<()> {
        let changed = self.changed(0, vrs, values, |v| v.to_bits());
        self.restart |= changed;
        if self.early.any_discrete_real(vrs) && !self.discrete_input(changed)? {
            return Ok(());
        }
        if let Some((vrs, values)) = self.early.split(0, vrs, values, Held::Real) {
            return self.inner.set_real(&vrs, &values);
        }
        self.inner.set_real(vrs, values)
    }
    fn set_integer(&mut self, vrs: &[ValueRef], values: &[i128]) -> Result<()> {
        let changed = self.changed(1, vrs, values, |v| *v as u64 ^ (*v >> 64) as u64);
        if !self.discrete_input(changed)? {
            return Ok(());
        }
        if let Some((vrs, values)) = self.early.split(1, vrs, values, Held::Integer) {
            return self.inner.set_integer(&vrs, &values);
        }
        self.inner.set_integer(vrs, values)
    }
    fn set_boolean(&mut self, vrs: &[ValueRef], values: &[bool]) -> Result<()> {
        let changed = self.changed(2, vrs, values, |v| u64::from(*v));
        if !self.discrete_input(changed)? {
            return Ok(());
        }
        if let Some((vrs, values)) = self.early.split(2, vrs, values, Held::Boolean) {
            return self.inner.set_boolean(&vrs, &values);
        }
        self.inner.set_boolean(vrs, values)
    }
    fn set_string(&mut self, vrs: &[ValueRef], values: &[String]) -> Result<()> {
        let changed = self.changed(3, vrs, values, |v| hash_of(v.as_bytes()));
        if !self.discrete_input(changed)? {
            return Ok(());
        }
        if let Some((vrs, values)) = self.early.split(3, vrs, values, Held::String) {
            return self.inner.set_string(&vrs, &values);
        }
        self.inner.set_string(vrs, values)
    }
    fn set_binary(&mut self, vrs: &[ValueRef], values: &[Vec<u8>]) -> Result<()> {
        let changed = self.changed(4, vrs, values, |v| hash_of(v));
        if !self.discrete_input(changed)? {
            return Ok(());
        }
        if let Some((vrs, values)) = self.early.split(4, vrs, values, Held::Binary) {
            return self.inner.set_binary(&vrs, &values);
        }
        self.inner.set_binary(vrs, values)
    }

    fn do_step(&mut self, t: f64, h: f64) -> Result<StepOutcome> {
        self.step(t, h)
    }

    /// The instance's FMU state, with the next time event and mode remembered beside it.
    fn get_state(&mut self, into: Option<StateId>) -> Result<StateId> {
        let id = self.inner.get_state(into)?;
        if self.saved.len() <= id.0 {
            self.saved.resize(id.0 + 1, None);
        }
        self.saved[id.0] = Some(Saved {
            next_event: self.next_event,
            mode: self.mode,
        });
        Ok(id)
    }

    /// Restores the FMU state; the integrator restarts at the next step, and a termination
    /// requested after the state was saved is forgotten.
    fn set_state(&mut self, state: StateId) -> Result<()> {
        self.inner.set_state(state)?;
        if let Some(Some(saved)) = self.saved.get(state.0) {
            self.next_event = saved.next_event;
            self.mode = saved.mode;
        }
        self.terminate_requested = false;
        self.restart = true;
        self.last_set.clear();
        Ok(())
    }

    fn free_state(&mut self, state: StateId) -> Result<()> {
        self.inner.free_state(state)?;
        if let Some(slot) = self.saved.get_mut(state.0) {
            *slot = None;
        }
        Ok(())
    }

    /// `fmi2Terminate` / `fmi3Terminate` of the instance.
    fn terminate(&mut self) -> Result<()> {
        self.inner.terminate()
    }

    fn integrator_statistics(&self) -> Option<IntegratorStatistics> {
        let mut s = self.stats;
        let now = self
            .integrator
            .as_ref()
            .map(solver::Integrator::statistics)
            .unwrap_or_default();
        s.steps = self.replaced.steps + now.steps;
        s.rhs_evaluations = self.replaced.rhs_evaluations + now.rhs_evaluations;
        s.jacobian_evaluations = self.replaced.jacobian_evaluations + now.jacobian_evaluations;
        Some(s)
    }
}
