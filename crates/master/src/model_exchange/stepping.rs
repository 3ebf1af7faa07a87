//! The communication step of a [`MeSlave`]: integration between events, and the events.
//!
//! Spec: FMI 2.0.2 §3.2.3 (the calling sequence of Model Exchange), FMI 3.0 §3.2.

use solver::{Advance, Integrator, OdeSystem};

use super::{MAX_EVENT_ITERATIONS, MAX_EVENTS_AT_ONE_TIME, MeSlave, Mode, ModelExchangeCalls};
use crate::slave::StepOutcome;
use crate::time::Readable;
use crate::{Error, Result};

/// The instance as the integrator's ODE: time and states in, derivatives and event indicators
/// out. The first failing call is kept so that the slave can return it.
struct Ode<'a> {
    inner: &'a mut dyn ModelExchangeCalls,
    failure: Option<Error>,
}

impl Ode<'_> {
    fn set(&mut self, t: f64, x: &[f64]) -> std::result::Result<(), String> {
        let r = self
            .inner
            .set_time(t)
            .and_then(|()| self.inner.set_continuous_states(x));
        self.keep(r)
    }

    fn keep(&mut self, r: Result<()>) -> std::result::Result<(), String> {
        r.map_err(|e| {
            let message = e.to_string();
            self.failure = Some(e);
            message
        })
    }
}

impl OdeSystem for Ode<'_> {
    fn rhs(&mut self, t: f64, x: &[f64], dx: &mut [f64]) -> std::result::Result<(), String> {
        self.set(t, x)?;
        let r = self.inner.get_derivatives(dx);
        self.keep(r)?;
        match dx.iter().position(|d| !d.is_finite()) {
            Some(i) => Err(format!(
                "derivative '{}' is {}",
                self.inner.derivative_name(i),
                dx[i]
            )),
            None => Ok(()),
        }
    }

    fn roots(&mut self, t: f64, x: &[f64], g: &mut [f64]) -> std::result::Result<(), String> {
        self.set(t, x)?;
        let r = self.inner.get_event_indicators(g);
        self.keep(r)
    }
}

/// Which events happened at one stop of the integrator.
#[derive(Debug, Clone, Copy, Default)]
struct Events {
    time: bool,
    state: bool,
    step: bool,
}

impl MeSlave {
    /// A communication step from `t` by `h` (s).
    pub(super) fn step(&mut self, t: f64, h: f64) -> Result<StepOutcome> {
        if self.terminate_requested {
            return Ok(StepOutcome::Terminated);
        }
        let end = t + h;
        if self.mode == Mode::Event && self.event_iteration(t)? {
            return Ok(self.terminated(t, end));
        }
        if self.x.is_empty() {
            return self.step_without_states(t, end);
        }
        let mut now = t;
        loop {
            self.prepare(now, h)?;
            let t_stop = self.next_event.filter(|&te| te < end).unwrap_or(end);
            let advance = if t_stop > self.integrator_time() {
                self.advance(t_stop)?
            } else {
                Advance::Reached
            };
            let ti = self.integrator_time();
            let integrator = self.integrator.as_ref().expect("prepared");
            self.x.copy_from_slice(integrator.states());
            self.inner.set_time(ti)?;
            self.inner.set_continuous_states(&self.x)?;
            let events = Events {
                time: self.next_event.is_some_and(|te| ti >= te),
                state: advance == Advance::Root,
                step: false,
            };
            if let Some(outcome) = self.after_integrator_step(ti, end, events)? {
                return Ok(outcome);
            }
            if ti >= end {
                return Ok(StepOutcome::Completed);
            }
            now = ti;
        }
    }

    /// The time the integrator stopped at, s.
    fn integrator_time(&self) -> f64 {
        self.integrator
            .as_ref()
            .map_or(self.t_start, Integrator::time)
    }

    /// `completedIntegratorStep` and the events at `ti`; `Some` when the step ends here.
    fn after_integrator_step(
        &mut self,
        ti: f64,
        end: f64,
        mut events: Events,
    ) -> Result<Option<StepOutcome>> {
        let step_end = self
            .inner
            .completed_integrator_step(self.inner.no_state_held())?;
        if step_end.terminate_simulation {
            return Ok(Some(self.terminated(ti, end)));
        }
        events.step = step_end.enter_event_mode;
        if !(events.time || events.state || events.step) {
            return Ok(None);
        }
        self.count(ti, events)?;
        self.inner.enter_event_mode()?;
        self.mode = Mode::Event;
        if self.event_iteration(ti)? {
            return Ok(Some(self.terminated(ti, end)));
        }
        Ok(None)
    }

    /// Creates the integrator (at the first step, and after the nominals changed), restarts it
    /// at `t` (s) from the instance's states when needed, and sets its largest step for a
    /// communication step of size `h` (s).
    fn prepare(&mut self, t: f64, h: f64) -> Result<()> {
        let step = self.options.max_step.unwrap_or(h);
        let max_step = Some(step);
        if self.integrator.is_none() {
            let abs_tol = self.options.abs_tol.unwrap_or(self.options.rel_tol);
            let settings = solver::Settings {
                method: self.options.method,
                rel_tol: self.options.rel_tol,
                abs_tol: self.nominals.iter().map(|n| abs_tol * n.abs()).collect(),
                max_step,
                fixed_step: step,
            };
            let integrator = Integrator::new(&settings, self.x.len(), self.indicators.len())
                .map_err(|e| self.failure(t, e.to_string()))?;
            self.integrator = Some(integrator);
            self.max_step = max_step;
            self.restart = true;
        }
        let integrator = self.integrator.as_mut().expect("created above");
        if self.max_step != max_step {
            self.max_step = max_step;
            if let Err(e) = integrator.set_max_step(max_step) {
                return Err(self.failure(t, e.to_string()));
            }
        }
        if self.restart {
            self.inner.get_continuous_states(&mut self.x)?;
            let integrator = self.integrator.as_mut().expect("created above");
            if let Err(e) = integrator.reset(t, &self.x) {
                return Err(self.failure(t, e.to_string()));
            }
            self.restart = false;
        }
        Ok(())
    }

    /// Integrates towards `t_stop` (s).
    fn advance(&mut self, t_stop: f64) -> Result<Advance> {
        let integrator = self.integrator.as_mut().expect("prepared");
        let mut ode = Ode {
            inner: self.inner.as_mut(),
            failure: None,
        };
        match integrator.advance(&mut ode, t_stop) {
            Ok(advance) => Ok(advance),
            Err(solver::Error::System { t, message }) => {
                // An FMU call's own error names the FMI function; keep it as the reason.
                let reason = ode.failure.map_or(message, |e| e.to_string());
                Err(self.failure(t, reason))
            }
            Err(solver::Error::Failed { t, message }) => Err(self.failure(t, message)),
            Err(e) => {
                let t = integrator.time();
                Err(self.failure(t, e.to_string()))
            }
        }
    }

    /// A step of an instance without continuous states: time jumps to each time event and to
    /// the step's end; an event indicator that changed sign at a stop is a state event there.
    fn step_without_states(&mut self, t: f64, end: f64) -> Result<StepOutcome> {
        let mut now = t;
        if self.restart {
            self.inner.get_event_indicators(&mut self.indicators)?;
            self.restart = false;
        }
        loop {
            let t_stop = self
                .next_event
                .filter(|&te| te < end)
                .unwrap_or(end)
                .max(now);
            self.inner.set_time(t_stop)?;
            let before = std::mem::take(&mut self.indicators);
            let mut after = vec![0.0; before.len()];
            self.inner.get_event_indicators(&mut after)?;
            let crossed = before
                .iter()
                .zip(&after)
                .any(|(&a, &b)| (a < 0.0) != (b < 0.0) || (a > 0.0) != (b > 0.0));
            self.indicators = after;
            let events = Events {
                time: self.next_event.is_some_and(|te| t_stop >= te),
                state: crossed,
                step: false,
            };
            if let Some(outcome) = self.after_integrator_step(t_stop, end, events)? {
                return Ok(outcome);
            }
            if self.restart {
                self.inner.get_event_indicators(&mut self.indicators)?;
                self.restart = false;
            }
            now = t_stop;
            if now >= end {
                return Ok(StepOutcome::Completed);
            }
        }
    }

    /// Counts the events at `ti` (s) by kind; too many at one time is chattering.
    fn count(&mut self, ti: f64, events: Events) -> Result<()> {
        self.stats.time_events += u64::from(events.time);
        self.stats.state_events += u64::from(events.state);
        self.stats.step_events += u64::from(events.step);
        if self.last_event.0 == ti {
            self.last_event.1 += 1;
        } else {
            self.last_event = (ti, 1);
        }
        if self.last_event.1 > MAX_EVENTS_AT_ONE_TIME {
            return Err(self.failure(
                ti,
                format!(
                    "chattering: more than {MAX_EVENTS_AT_ONE_TIME} events without progress in time"
                ),
            ));
        }
        Ok(())
    }

    /// The event iteration at `t` (s) in Event Mode, then Continuous-Time Mode with the
    /// nominals (when they changed) and the next time event read again; the integrator
    /// restarts from the states at the next stop. Returns true when the FMU asks to terminate
    /// (it stays in Event Mode).
    pub(super) fn event_iteration(&mut self, t: f64) -> Result<bool> {
        let mut nominals_changed = false;
        let mut iterations = 0;
        loop {
            if iterations == MAX_EVENT_ITERATIONS {
                return Err(self.failure(
                    t,
                    format!(
                        "the event iteration did not end: discrete states still need an update after {MAX_EVENT_ITERATIONS} iterations"
                    ),
                ));
            }
            iterations += 1;
            let update = self.inner.update_discrete_states()?;
            if update.terminate_simulation {
                return Ok(true);
            }
            nominals_changed |= update.nominals_of_continuous_states_changed;
            if !update.discrete_states_need_update {
                self.next_event = update.next_event_time;
                break;
            }
        }
        self.inner.enter_continuous_time_mode()?;
        self.mode = Mode::ContinuousTime;
        if !self.x.is_empty() && (nominals_changed || self.integrator.is_none()) {
            self.read_nominals(t)?;
        }
        if let Some(te) = self.next_event.filter(|&te| te < t) {
            log::warn!(
                "slave '{}': next time event {} s lies before the event at {} s; ignored",
                self.name,
                Readable(te),
                Readable(t)
            );
            self.next_event = None;
        }
        self.restart = true;
        Ok(false)
    }

    /// Reads the states' nominals; a change after the integrator was created replaces it
    /// (its absolute tolerances depend on them).
    fn read_nominals(&mut self, t: f64) -> Result<()> {
        self.inner
            .get_nominals_of_continuous_states(&mut self.nominals)?;
        if let Some(i) = self
            .nominals
            .iter()
            .position(|n| !n.is_finite() || *n == 0.0)
        {
            return Err(self.failure(
                t,
                format!("the nominal value of state {} is {}", i, self.nominals[i]),
            ));
        }
        if let Some(old) = self.integrator.take() {
            let s = old.statistics();
            self.replaced.steps += s.steps;
            self.replaced.rhs_evaluations += s.rhs_evaluations;
            self.replaced.jacobian_evaluations += s.jacobian_evaluations;
            self.replaced.root_evaluations += s.root_evaluations;
        }
        Ok(())
    }

    /// The outcome of a termination requested at `ti` (s) in a step that ends at `end`: the
    /// step is complete when the FMU reached its end (the next step reports the request), else
    /// the run ends at the step's start.
    fn terminated(&mut self, ti: f64, end: f64) -> StepOutcome {
        log::info!(
            "slave '{}' asks to terminate at t={} s",
            self.name,
            Readable(ti)
        );
        if ti >= end {
            self.terminate_requested = true;
            StepOutcome::Completed
        } else {
            StepOutcome::Terminated
        }
    }
}
