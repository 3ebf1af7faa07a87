//! `Steps`: time events. A discrete output u counts the event times passed: every `period`
//! seconds (t = period, 2·period, …) and once more at `extraTime`; each is announced in advance
//! as `nextEventTime`. A continuous state integrates it, x' = u, so that an integrator that
//! steps over an event time (instead of stopping there) gives a visibly wrong x.

use fmu_support::{Causality, EventUpdate, ModelError, VarType, Variable};

use crate::linear::invalid;
use crate::ode::{EVENT_TOLERANCE, Equations, reached};

/// GUID of `Steps`.
pub const STEPS_GUID: &str = "{1f9e3b57-6a2c-4d80-8e4b-7c5a0d2f3b61}";

/// `x`: the integral of u, state.
pub const VR_STEPS_X: u32 = 1;
/// `u`: number of event times passed (discrete output).
pub const VR_STEPS_U: u32 = 2;
/// `der(x)`.
pub const VR_STEPS_DER_X: u32 = 3;
/// `period`: time between the periodic events (s), > 0.
pub const VR_STEPS_PERIOD: u32 = 4;
/// `extraTime`: one more event time (s); ≤ 0 switches it off.
pub const VR_STEPS_EXTRA_TIME: u32 = 5;

/// The variables of `Steps`.
pub const STEPS_VARIABLES: &[Variable] = &[
    Variable::new("x", VR_STEPS_X, VarType::Real, Causality::Output),
    Variable::new("u", VR_STEPS_U, VarType::Real, Causality::Output),
    Variable::new("der(x)", VR_STEPS_DER_X, VarType::Real, Causality::Local),
    Variable::new(
        "period",
        VR_STEPS_PERIOD,
        VarType::Real,
        Causality::Parameter,
    ),
    Variable::new(
        "extraTime",
        VR_STEPS_EXTRA_TIME,
        VarType::Real,
        Causality::Parameter,
    ),
];

/// Start value of `period` (s).
pub const STEPS_PERIOD: f64 = 0.5;
/// Start value of `extraTime` (s).
pub const STEPS_EXTRA_TIME: f64 = 1.25;

/// The event times in (0, `t_end`] (s), sorted: k·`period` for k ≥ 1, and `extra` if > 0
/// (twice if it falls on a multiple of the period: u then steps by 2).
pub fn steps_event_times(period: f64, extra: f64, t_end: f64) -> Vec<f64> {
    let mut times: Vec<f64> = (1..)
        .map(|k| f64::from(k) * period)
        .take_while(|&t| t <= t_end)
        .collect();
    if extra > 0.0 && extra <= t_end {
        times.push(extra);
    }
    times.sort_by(f64::total_cmp);
    times
}

/// The exact (x, u) at `t` (s): u = the number of event times τ ≤ t, x = Σ (t − τ) over them.
pub fn steps_solution(t: f64, period: f64, extra: f64) -> (f64, f64) {
    let passed = steps_event_times(period, extra, t + EVENT_TOLERANCE * (1.0 + t.abs()));
    let x = passed.iter().map(|tau| (t - tau).max(0.0)).sum();
    (x, passed.len() as f64)
}

/// The discrete state u.
#[derive(Clone, Copy, Debug, Default)]
pub struct StepsEquations {
    u: f64,
}

/// The number of event times reached at `t`, and the next event time after `t`.
fn schedule(period: f64, extra: f64, t: f64) -> (f64, f64) {
    let mut k = (t / period).floor();
    while reached(t, (k + 1.0) * period) {
        k += 1.0;
    }
    while k > 0.0 && !reached(t, k * period) {
        k -= 1.0;
    }
    let mut count = k;
    let mut next = (k + 1.0) * period;
    if extra > 0.0 {
        if reached(t, extra) {
            count += 1.0;
        } else {
            next = next.min(extra);
        }
    }
    (count, next)
}

impl Equations for StepsEquations {
    const GUID: &'static str = STEPS_GUID;
    const VARIABLES: &'static [Variable] = STEPS_VARIABLES;
    const PARAMETERS: &'static [(u32, f64)] = &[
        (VR_STEPS_PERIOD, STEPS_PERIOD),
        (VR_STEPS_EXTRA_TIME, STEPS_EXTRA_TIME),
    ];
    const STATES: &'static [u32] = &[VR_STEPS_X];
    const DERIVATIVES: &'static [u32] = &[VR_STEPS_DER_X];
    const NOMINALS: &'static [f64] = &[1.0];

    fn start(&mut self, p: &[f64], t0: f64) -> Result<Vec<f64>, ModelError> {
        if p[0] <= 0.0 {
            return Err(invalid("period", p[0], "must be > 0"));
        }
        self.u = schedule(p[0], p[1], t0).0;
        Ok(vec![0.0])
    }

    fn derivatives(&self, _p: &[f64], _u: &[f64], _t: f64, _x: &[f64], dx: &mut [f64]) {
        dx[0] = self.u;
    }

    fn update(&mut self, p: &[f64], t: f64, _x: &mut [f64]) -> EventUpdate {
        let (count, next) = schedule(p[0], p[1], t);
        self.u = count;
        EventUpdate {
            next_event_time: Some(next),
            ..EventUpdate::default()
        }
    }

    fn output(&self, vr: u32) -> Option<f64> {
        (vr == VR_STEPS_U).then_some(self.u)
    }
}
