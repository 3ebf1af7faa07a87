//! The event loop of [`MeSlave`] with models written in Rust: a bouncing ball (state events
//! against the analytic bounce times), a clock (time events hit exactly), a model without
//! states, and models that chatter, never end their event iteration, return a NaN derivative
//! or ask to terminate.

use std::sync::{Arc, Mutex};

use fmi::ValueRef;

use super::*;

/// Gravity, m/s², and the ball's coefficient of restitution.
const G: f64 = 9.81;
const E: f64 = 0.7;

/// What a test model does.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// `h' = v`, `v' = −g`; indicator `h`; at an event with `h ≤ 0`: `v = −e·v`.
    Ball,
    /// `x' = rate` with `rate` flipping sign at time events every `period` s.
    Clock { period: f64 },
    /// No states; a counter incremented at time events every `period` s.
    Counter { period: f64 },
    /// From the first time event at 0.25 s on, the next time event is always now.
    Chatter,
    /// Discrete states always need another update after the first event.
    EndlessIteration,
    /// `x' = 1` until `t > 0.5`, then NaN.
    NanAfterHalf,
    /// Terminates at the time event at `at` s.
    TerminateAt { at: f64 },
    /// `x' = u` (input value reference 0).
    Integrator,
}

/// A Model Exchange model in Rust; `log` collects the times of its events.
#[derive(Debug)]
struct Model {
    kind: Kind,
    t: f64,
    x: Vec<f64>,
    /// A discrete state (the clock's rate, the counter, the input `u`).
    d: f64,
    next: f64,
    iterations: usize,
    log: Arc<Mutex<Vec<f64>>>,
    saved: Vec<(f64, Vec<f64>, f64, f64)>,
}

fn model(kind: Kind) -> (Model, Arc<Mutex<Vec<f64>>>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let (x, d, next) = match kind {
        Kind::Ball => (vec![1.0, 0.0], 0.0, f64::INFINITY),
        Kind::Clock { period } => (vec![0.0], 1.0, period),
        Kind::Counter { period } => (vec![], 0.0, period),
        Kind::Chatter | Kind::EndlessIteration => (vec![0.0], 0.0, 0.25),
        Kind::TerminateAt { at } => (vec![0.0], 0.0, at),
        Kind::NanAfterHalf | Kind::Integrator => (vec![0.0], 0.0, f64::INFINITY),
    };
    let m = Model {
        kind,
        t: 0.0,
        x,
        d,
        next,
        iterations: 0,
        log: log.clone(),
        saved: vec![],
    };
    (m, log)
}

impl Slave for Model {
    fn name(&self) -> &str {
        "model"
    }
    fn capabilities(&self) -> SlaveCapabilities {
        SlaveCapabilities {
            can_get_and_set_state: true,
            ..SlaveCapabilities::default()
        }
    }
    fn setup_experiment(&mut self, _: f64, t_start: f64, _: f64) -> Result<()> {
        self.t = t_start;
        Ok(())
    }
    fn enter_initialization_mode(&mut self) -> Result<()> {
        Ok(())
    }
    fn exit_initialization_mode(&mut self) -> Result<()> {
        Ok(())
    }
    fn get_real(&mut self, vrs: &[ValueRef], values: &mut [f64]) -> Result<()> {
        for (vr, v) in vrs.iter().zip(values) {
            *v = match vr.0 {
                0 => self.d,
                i => self.x[i as usize - 1],
            };
        }
        Ok(())
    }
    fn get_integer(&mut self, _: &[ValueRef], _: &mut [i128]) -> Result<()> {
        Ok(())
    }
    fn get_boolean(&mut self, _: &[ValueRef], _: &mut [bool]) -> Result<()> {
        Ok(())
    }
    fn get_string(&mut self, _: &[ValueRef], _: &mut [String]) -> Result<()> {
        Ok(())
    }
    fn set_real(&mut self, _: &[ValueRef], values: &[f64]) -> Result<()> {
        self.d = values[0];
        Ok(())
    }
    fn set_integer(&mut self, _: &[ValueRef], _: &[i128]) -> Result<()> {
        Ok(())
    }
    fn set_boolean(&mut self, _: &[ValueRef], _: &[bool]) -> Result<()> {
        Ok(())
    }
    fn set_string(&mut self, _: &[ValueRef], _: &[String]) -> Result<()> {
        Ok(())
    }
    fn do_step(&mut self, _: f64, _: f64) -> Result<StepOutcome> {
        unreachable!("a Model Exchange instance is never stepped")
    }
    fn get_state(&mut self, into: Option<StateId>) -> Result<StateId> {
        let state = (self.t, self.x.clone(), self.d, self.next);
        match into {
            Some(id) => {
                self.saved[id.0] = state;
                Ok(id)
            }
            None => {
                self.saved.push(state);
                Ok(StateId(self.saved.len() - 1))
            }
        }
    }
    fn set_state(&mut self, state: StateId) -> Result<()> {
        (self.t, self.x, self.d, self.next) = self.saved[state.0].clone();
        Ok(())
    }
    fn free_state(&mut self, _: StateId) -> Result<()> {
        Ok(())
    }
    fn terminate(&mut self) -> Result<()> {
        Ok(())
    }
}

impl ModelExchangeCalls for Model {
    fn number_of_continuous_states(&self) -> usize {
        self.x.len()
    }
    fn number_of_event_indicators(&self) -> usize {
        usize::from(self.kind == Kind::Ball)
    }
    fn derivative_name(&self, index: usize) -> String {
        format!("der(x{index})")
    }
    fn set_time(&mut self, t: f64) -> Result<()> {
        self.t = t;
        Ok(())
    }
    fn set_continuous_states(&mut self, x: &[f64]) -> Result<()> {
        self.x.copy_from_slice(x);
        Ok(())
    }
    fn get_continuous_states(&mut self, x: &mut [f64]) -> Result<()> {
        x.copy_from_slice(&self.x);
        Ok(())
    }
    fn get_derivatives(&mut self, dx: &mut [f64]) -> Result<()> {
        match self.kind {
            Kind::Ball => {
                dx[0] = self.x[1];
                dx[1] = -G;
            }
            Kind::Clock { .. } | Kind::Integrator => dx[0] = self.d,
            Kind::NanAfterHalf => dx[0] = if self.t > 0.5 { f64::NAN } else { 1.0 },
            _ => dx.fill(1.0),
        }
        Ok(())
    }
    fn get_event_indicators(&mut self, g: &mut [f64]) -> Result<()> {
        if self.kind == Kind::Ball {
            g[0] = self.x[0];
        }
        Ok(())
    }
    fn get_nominals_of_continuous_states(&mut self, nominals: &mut [f64]) -> Result<()> {
        nominals.fill(1.0);
        Ok(())
    }
    fn enter_event_mode(&mut self) -> Result<()> {
        Ok(())
    }
    fn enter_continuous_time_mode(&mut self) -> Result<()> {
        Ok(())
    }
    fn completed_integrator_step(&mut self, _: bool) -> Result<StepEnd> {
        Ok(StepEnd::default())
    }
    fn update_discrete_states(&mut self) -> Result<EventUpdate> {
        let mut update = EventUpdate::default();
        let at_time_event = self.t >= self.next;
        match self.kind {
            Kind::Ball if self.x[0] <= 0.0 && self.x[1] < 0.0 => {
                self.x[1] *= -E;
                self.x[0] = 0.0;
                update.values_of_continuous_states_changed = true;
                self.log.lock().unwrap().push(self.t);
            }
            Kind::Clock { period } | Kind::Counter { period } if at_time_event => {
                self.log.lock().unwrap().push(self.t);
                self.d = if matches!(self.kind, Kind::Clock { .. }) {
                    -self.d
                } else {
                    self.d + 1.0
                };
                self.next += period;
            }
            Kind::Chatter if at_time_event => self.next = self.t,
            Kind::EndlessIteration if at_time_event => {
                self.iterations += 1;
                update.discrete_states_need_update = true;
            }
            Kind::TerminateAt { .. } if at_time_event => {
                self.log.lock().unwrap().push(self.t);
                update.terminate_simulation = true;
            }
            _ => {}
        }
        update.next_event_time = self.next.is_finite().then_some(self.next);
        Ok(update)
    }
    fn no_state_held(&self) -> bool {
        self.saved.is_empty()
    }
}

/// CVODE at relative tolerance `rel_tol`.
fn cvode(rel_tol: f64) -> MeOptions {
    MeOptions {
        rel_tol,
        ..MeOptions::default()
    }
}

/// A slave of `kind`, initialized at t = 0.
fn slave(kind: Kind, options: MeOptions) -> (MeSlave, Arc<Mutex<Vec<f64>>>) {
    let (m, log) = model(kind);
    let mut s = MeSlave::new(Box::new(m), options);
    s.setup_experiment(1e-4, 0.0, 10.0).unwrap();
    s.enter_initialization_mode().unwrap();
    s.exit_initialization_mode().unwrap();
    (s, log)
}

/// Steps `s` from 0 by `h` until `t_end` (s); returns the first outcome other than
/// `Completed` (with its time) or the error.
fn run(s: &mut MeSlave, h: f64, t_end: f64) -> Result<Option<(StepOutcome, f64)>> {
    let n = (t_end / h).round() as usize;
    for k in 0..n {
        let t = k as f64 * h;
        match s.do_step(t, h)? {
            StepOutcome::Completed => {}
            other => return Ok(Some((other, t))),
        }
    }
    Ok(None)
}

#[test]
fn ball_bounces_at_the_analytic_times() {
    // Up to 2.3 s: six bounces, well before the bounces accumulate (at 2.56 s).
    let (mut s, log) = slave(Kind::Ball, cvode(1e-8));
    run(&mut s, 0.1, 2.3).unwrap();
    let v1 = (2.0 * G).sqrt();
    let mut expected = vec![(2.0 / G).sqrt()];
    for k in 1..6 {
        let last = expected[k - 1];
        expected.push(last + 2.0 * E.powi(k as i32) * v1 / G);
    }
    let got = log.lock().unwrap().clone();
    assert_eq!(got.len(), 6, "bounces: {got:?}");
    for (g, e) in got.iter().zip(&expected) {
        assert!((g - e).abs() < 1e-6, "bounce at {g} s, expected {e} s");
    }
    let stats = s.integrator_statistics().unwrap();
    assert_eq!(stats.state_events, got.len() as u64);
    assert_eq!((stats.time_events, stats.step_events), (0, 0));
    assert!(stats.steps > 0 && stats.rhs_evaluations >= stats.steps);
}

#[test]
fn time_events_are_hit_exactly() {
    let (mut s, log) = slave(Kind::Clock { period: 0.3 }, cvode(1e-6));
    run(&mut s, 0.25, 2.0).unwrap();
    let got = log.lock().unwrap().clone();
    let expected: Vec<f64> = (1..=6)
        .map(|k| {
            let mut te = 0.3;
            for _ in 1..k {
                te += 0.3;
            }
            te
        })
        .collect();
    assert_eq!(got, expected);
    // x rises and falls by 0.3 in turn: back to 0 at 0.6, 1.2, 1.8; at 2.0 it is 0.2.
    let mut x = [0.0];
    s.get_real(&[ValueRef(1)], &mut x).unwrap();
    assert!((x[0] - 0.2).abs() < 1e-9, "x(2) = {}", x[0]);
    assert_eq!(s.integrator_statistics().unwrap().time_events, 6);
}

#[test]
fn a_model_without_states_steps_from_event_to_event() {
    let (mut s, log) = slave(Kind::Counter { period: 0.5 }, cvode(1e-6));
    run(&mut s, 0.2, 2.0).unwrap();
    // The event at the end of the last step is handled in that step.
    assert_eq!(*log.lock().unwrap(), vec![0.5, 1.0, 1.5, 2.0]);
    let mut d = [0.0];
    s.get_real(&[ValueRef(0)], &mut d).unwrap();
    assert_eq!(d[0], 4.0);
    let stats = s.integrator_statistics().unwrap();
    assert_eq!((stats.steps, stats.time_events), (0, 4));
}

#[test]
fn chattering_is_refused_with_slave_and_time() {
    let (mut s, _) = slave(Kind::Chatter, cvode(1e-6));
    let e = run(&mut s, 0.1, 1.0).unwrap_err().to_string();
    assert!(e.contains("slave 'model'") && e.contains("t=0.25 s"), "{e}");
    assert!(e.contains("chattering"), "{e}");
}

#[test]
fn an_endless_event_iteration_is_refused_with_slave_and_time() {
    let (mut s, _) = slave(Kind::EndlessIteration, cvode(1e-6));
    let e = run(&mut s, 0.1, 1.0).unwrap_err().to_string();
    assert!(e.contains("slave 'model'") && e.contains("t=0.25 s"), "{e}");
    assert!(e.contains("event iteration did not end"), "{e}");
}

#[test]
fn a_nan_derivative_is_refused_naming_it() {
    for method in [solver::Method::Cvode, solver::Method::Euler] {
        let options = MeOptions {
            method,
            ..cvode(1e-6)
        };
        let (mut s, _) = slave(Kind::NanAfterHalf, options);
        let e = run(&mut s, 0.1, 1.0).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("slave 'model'"), "{text}");
        assert!(text.contains("derivative 'der(x0)' is NaN"), "{text}");
        let Error::ModelExchange { t, .. } = e else {
            panic!("{text}")
        };
        assert!((0.5..=0.6).contains(&t), "{text}");
    }
}

#[test]
fn terminate_ends_the_run_at_the_step_start_and_keeps_the_state() {
    let (mut s, log) = slave(Kind::TerminateAt { at: 0.55 }, cvode(1e-6));
    let (outcome, t) = run(&mut s, 0.1, 1.0).unwrap().unwrap();
    assert_eq!((outcome, t), (StepOutcome::Terminated, 0.5));
    assert_eq!(*log.lock().unwrap(), vec![0.55]);
    // At the end of a step: the step completes, the next one reports the request.
    let (mut s, _) = slave(Kind::TerminateAt { at: 0.5 }, cvode(1e-6));
    let (outcome, t) = run(&mut s, 0.1, 1.0).unwrap().unwrap();
    assert_eq!((outcome, t), (StepOutcome::Terminated, 0.5));
    let mut x = [0.0];
    s.get_real(&[ValueRef(1)], &mut x).unwrap();
    assert!((x[0] - 0.5).abs() < 1e-9, "x = {}", x[0]);
}

#[test]
fn the_integrator_restarts_only_after_a_changed_input_or_a_restored_state() {
    let (mut s, _) = slave(Kind::Integrator, cvode(1e-8));
    let u = [ValueRef(0)];
    s.set_real(&u, &[1.0]).unwrap();
    s.do_step(0.0, 0.5).unwrap();
    let steps = s.integrator_statistics().unwrap().steps;
    // The same value again: no restart (the history is kept), the result is exact.
    s.set_real(&u, &[1.0]).unwrap();
    assert!(!s.restart);
    s.do_step(0.5, 0.5).unwrap();
    s.set_real(&u, &[-2.0]).unwrap();
    assert!(s.restart);
    let saved = s.get_state(None).unwrap();
    s.do_step(1.0, 0.5).unwrap();
    let mut x = [0.0];
    s.get_real(&[ValueRef(1)], &mut x).unwrap();
    assert!((x[0] - 0.0).abs() < 1e-7, "x(1.5) = {}", x[0]);
    s.set_state(saved).unwrap();
    assert!(s.restart);
    s.do_step(1.0, 0.25).unwrap();
    s.get_real(&[ValueRef(1)], &mut x).unwrap();
    assert!((x[0] - 0.5).abs() < 1e-7, "x(1.25) = {}", x[0]);
    assert!(s.integrator_statistics().unwrap().steps > steps);
}
