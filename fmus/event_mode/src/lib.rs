#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

use fmu_support::{
    Causality3, DataType, Model, ModelError, StepOutcome, Values, ValuesMut, Variable, Variable3,
    state_array, time_reached,
};

/// Instantiation token of the Ticker FMU.
pub const TICKER_TOKEN: &str = "{57984334-e48b-4fd8-8ecf-6070003a875e}";
/// Instantiation token of the EarlyReturn FMU.
pub const EARLY_RETURN_TOKEN: &str = "{08a10d59-8917-450d-a29c-0a8c86418d5e}";

/// Ticker: parameter `period` (s, Float64), the time between ticks; start 0.5.
pub const VR_TICKER_PERIOD: u32 = 1;
/// Ticker: output `count` (Int32), the number of ticks handled; start 0.
pub const VR_TICKER_COUNT: u32 = 2;
/// Ticker: output `last_tick` (s, Float64), the scheduled time `k·period` of the last tick
/// handled; start 0.
pub const VR_TICKER_LAST_TICK: u32 = 3;
/// Ticker: output `handled_at` (s, Float64), the FMU time at which the last tick was handled;
/// start 0.
pub const VR_TICKER_HANDLED_AT: u32 = 4;

/// EarlyReturn: parameter `t_event` (s, Float64), the time of the internal event; start 0.35.
pub const VR_EARLY_T_EVENT: u32 = 1;
/// EarlyReturn: parameter `rate_before` (1/s, Float64), `dx/dt` before the event; start 1.
pub const VR_EARLY_RATE_BEFORE: u32 = 2;
/// EarlyReturn: parameter `rate_after` (1/s, Float64), `dx/dt` after the event; start 2.
pub const VR_EARLY_RATE_AFTER: u32 = 3;
/// EarlyReturn: output `x` (Float64), the integral of the rate; start 0.
pub const VR_EARLY_X: u32 = 4;
/// EarlyReturn: output `rate` (1/s, Float64), the current `dx/dt`.
pub const VR_EARLY_RATE: u32 = 5;
/// EarlyReturn: output `switched` (Boolean), whether the event has been handled; start false.
pub const VR_EARLY_SWITCHED: u32 = 6;
/// EarlyReturn: output `switched_at` (s, Float64), the FMU time at which the event was
/// handled; −1 before.
pub const VR_EARLY_SWITCHED_AT: u32 = 7;

/// The variables of Ticker, as in `models/Ticker/modelDescription.xml`.
pub const TICKER_VARIABLES: &[Variable3] = &[
    Variable3::new(
        "period",
        VR_TICKER_PERIOD,
        DataType::Float64,
        Causality3::Parameter,
    ),
    Variable3::new(
        "count",
        VR_TICKER_COUNT,
        DataType::Int32,
        Causality3::Output,
    ),
    Variable3::new(
        "last_tick",
        VR_TICKER_LAST_TICK,
        DataType::Float64,
        Causality3::Output,
    ),
    Variable3::new(
        "handled_at",
        VR_TICKER_HANDLED_AT,
        DataType::Float64,
        Causality3::Output,
    ),
];

/// The variables of EarlyReturn, as in `models/EarlyReturn/modelDescription.xml`.
pub const EARLY_RETURN_VARIABLES: &[Variable3] = &[
    Variable3::new(
        "t_event",
        VR_EARLY_T_EVENT,
        DataType::Float64,
        Causality3::Parameter,
    ),
    Variable3::new(
        "rate_before",
        VR_EARLY_RATE_BEFORE,
        DataType::Float64,
        Causality3::Parameter,
    ),
    Variable3::new(
        "rate_after",
        VR_EARLY_RATE_AFTER,
        DataType::Float64,
        Causality3::Parameter,
    ),
    Variable3::new("x", VR_EARLY_X, DataType::Float64, Causality3::Output),
    Variable3::new("rate", VR_EARLY_RATE, DataType::Float64, Causality3::Output),
    Variable3::new(
        "switched",
        VR_EARLY_SWITCHED,
        DataType::Boolean,
        Causality3::Output,
    ),
    Variable3::new(
        "switched_at",
        VR_EARLY_SWITCHED_AT,
        DataType::Float64,
        Causality3::Output,
    ),
];

/// The value of `count` at a communication point `t` (s) after its events are handled (by the
/// importer in Event Mode, or inside the FMU without it), for a run from 0: the number of
/// ticks `k·period ≤ t`, `k ≥ 1`, with the tolerance of [`time_reached`].
pub fn ticker_count(t: f64, period: f64) -> i32 {
    let mut k = 0;
    while time_reached(t, f64::from(k + 1) * period) {
        k += 1;
    }
    k
}

/// The exact value of EarlyReturn's `x` at time `t` (s) for a run from 0 in which the rate
/// switched at `switched_at` (s): `rate_before·min(t, s) + rate_after·max(t − s, 0)`. The FMU
/// sums `rate·h` step by step, so it agrees to rounding (a few ulps).
pub fn early_return_x(t: f64, switched_at: f64, rate_before: f64, rate_after: f64) -> f64 {
    rate_before * t.min(switched_at) + rate_after * (t - switched_at).max(0.0)
}

fn finite_positive(name: &'static str, value: f64) -> Result<f64, ModelError> {
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

/// The Ticker FMU: time events at `t = k·period` (k = 1, 2, …, after the start time). Each
/// handled event increments `count`, sets `last_tick = k·period` and `handled_at` to the FMU
/// time. No continuous state.
#[derive(Clone, Debug)]
pub struct Ticker {
    period: f64,
    count: i32,
    next_k: u64,
    last_tick: f64,
    handled_at: f64,
}

impl Ticker {
    fn next_tick(&self) -> f64 {
        self.next_k as f64 * self.period
    }
}

impl Model for Ticker {
    fn instantiate(token: &str) -> Option<Self> {
        (token == TICKER_TOKEN).then_some(Self {
            period: 0.5,
            count: 0,
            next_k: 1,
            last_tick: 0.0,
            handled_at: 0.0,
        })
    }

    /// None: Ticker is an FMI 3.0 FMU only.
    fn variables(&self) -> &'static [Variable] {
        &[]
    }

    fn variables3(&self) -> &'static [Variable3] {
        TICKER_VARIABLES
    }

    /// Resets the outputs; the first tick is the first `k·period` after `start_time`.
    fn initialize(&mut self, start_time: f64) -> Result<(), ModelError> {
        self.count = 0;
        self.last_tick = 0.0;
        self.handled_at = 0.0;
        self.next_k = 1;
        while time_reached(start_time, self.next_tick()) {
            self.next_k += 1;
        }
        Ok(())
    }

    fn do_step(&mut self, _t: f64, _h: f64) -> StepOutcome {
        StepOutcome::Completed
    }

    fn get_values(&self, vr: u32, values: ValuesMut<'_>) -> Result<(), ModelError> {
        match (vr, values) {
            (VR_TICKER_PERIOD, ValuesMut::Float64([v])) => *v = self.period,
            (VR_TICKER_COUNT, ValuesMut::Int32([v])) => *v = self.count,
            (VR_TICKER_LAST_TICK, ValuesMut::Float64([v])) => *v = self.last_tick,
            (VR_TICKER_HANDLED_AT, ValuesMut::Float64([v])) => *v = self.handled_at,
            (vr, values) => return Err(ModelError::unknown3(vr, &values)),
        }
        Ok(())
    }

    fn set_values(&mut self, vr: u32, values: Values<'_>) -> Result<(), ModelError> {
        match (vr, values) {
            (VR_TICKER_PERIOD, Values::Float64(&[v])) => {
                self.period = finite_positive("period", v)?;
            }
            (vr, values) => return Err(ModelError::unknown3_set(vr, &values)),
        }
        Ok(())
    }

    fn has_event_mode(&self) -> bool {
        true
    }

    fn next_event_time(&self) -> Option<f64> {
        Some(self.next_tick())
    }

    fn update_discrete_states(&mut self, t: f64) -> Result<(), ModelError> {
        self.count += 1;
        self.last_tick = self.next_tick();
        self.handled_at = t;
        self.next_k += 1;
        Ok(())
    }

    /// `[period, count, next_k, last_tick, handled_at]`.
    fn save_state(&self) -> Option<Vec<f64>> {
        Some(vec![
            self.period,
            f64::from(self.count),
            self.next_k as f64,
            self.last_tick,
            self.handled_at,
        ])
    }

    fn load_state(&mut self, state: &[f64]) -> Result<(), ModelError> {
        let [period, count, next_k, last_tick, handled_at] = state_array("Ticker", state)?;
        let integer = |name: &'static str, v: f64, max: f64| {
            if v.fract() == 0.0 && (0.0..=max).contains(&v) {
                Ok(v)
            } else {
                Err(ModelError::InvalidValue {
                    name,
                    value: v.to_string(),
                    reason: "must be a whole number in range",
                })
            }
        };
        *self = Self {
            period: finite_positive("period", period)?,
            count: integer("count", count, f64::from(i32::MAX))? as i32,
            next_k: integer("next_k", next_k, 2f64.powi(53))? as u64,
            last_tick: finite("last_tick", last_tick)?,
            handled_at: finite("handled_at", handled_at)?,
        };
        Ok(())
    }
}

/// The EarlyReturn FMU: `dx/dt = rate`, with `rate = rate_before` until the internal event at
/// `t_event` is handled and `rate_after` from then on. The FMU may return early from
/// `fmi3DoStep` at `t_event`; if it does not, the event is handled at the end of the step that
/// passes it, and `x` is off by `(rate_after − rate_before)·(t_handled − t_event)`.
#[derive(Clone, Debug)]
pub struct EarlyReturn {
    t_event: f64,
    rate_before: f64,
    rate_after: f64,
    x: f64,
    switched: bool,
    switched_at: f64,
}

impl EarlyReturn {
    fn rate(&self) -> f64 {
        if self.switched {
            self.rate_after
        } else {
            self.rate_before
        }
    }
}

impl Model for EarlyReturn {
    fn instantiate(token: &str) -> Option<Self> {
        (token == EARLY_RETURN_TOKEN).then_some(Self {
            t_event: 0.35,
            rate_before: 1.0,
            rate_after: 2.0,
            x: 0.0,
            switched: false,
            switched_at: -1.0,
        })
    }

    /// None: EarlyReturn is an FMI 3.0 FMU only.
    fn variables(&self) -> &'static [Variable] {
        &[]
    }

    fn variables3(&self) -> &'static [Variable3] {
        EARLY_RETURN_VARIABLES
    }

    fn initialize(&mut self, _start_time: f64) -> Result<(), ModelError> {
        self.x = 0.0;
        self.switched = false;
        self.switched_at = -1.0;
        Ok(())
    }

    fn do_step(&mut self, _t: f64, h: f64) -> StepOutcome {
        self.x += self.rate() * h;
        StepOutcome::Completed
    }

    fn get_values(&self, vr: u32, values: ValuesMut<'_>) -> Result<(), ModelError> {
        match (vr, values) {
            (VR_EARLY_T_EVENT, ValuesMut::Float64([v])) => *v = self.t_event,
            (VR_EARLY_RATE_BEFORE, ValuesMut::Float64([v])) => *v = self.rate_before,
            (VR_EARLY_RATE_AFTER, ValuesMut::Float64([v])) => *v = self.rate_after,
            (VR_EARLY_X, ValuesMut::Float64([v])) => *v = self.x,
            (VR_EARLY_RATE, ValuesMut::Float64([v])) => *v = self.rate(),
            (VR_EARLY_SWITCHED, ValuesMut::Boolean([v])) => *v = self.switched,
            (VR_EARLY_SWITCHED_AT, ValuesMut::Float64([v])) => *v = self.switched_at,
            (vr, values) => return Err(ModelError::unknown3(vr, &values)),
        }
        Ok(())
    }

    fn set_values(&mut self, vr: u32, values: Values<'_>) -> Result<(), ModelError> {
        match (vr, values) {
            (VR_EARLY_T_EVENT, Values::Float64(&[v])) => self.t_event = finite("t_event", v)?,
            (VR_EARLY_RATE_BEFORE, Values::Float64(&[v])) => {
                self.rate_before = finite("rate_before", v)?;
            }
            (VR_EARLY_RATE_AFTER, Values::Float64(&[v])) => {
                self.rate_after = finite("rate_after", v)?;
            }
            (vr, values) => return Err(ModelError::unknown3_set(vr, &values)),
        }
        Ok(())
    }

    fn has_event_mode(&self) -> bool {
        true
    }

    fn next_event_time(&self) -> Option<f64> {
        (!self.switched).then_some(self.t_event)
    }

    fn update_discrete_states(&mut self, t: f64) -> Result<(), ModelError> {
        self.switched = true;
        self.switched_at = t;
        Ok(())
    }

    fn might_return_early(&self) -> bool {
        true
    }

    /// `[t_event, rate_before, rate_after, x, switched (0 or 1), switched_at]`.
    fn save_state(&self) -> Option<Vec<f64>> {
        Some(vec![
            self.t_event,
            self.rate_before,
            self.rate_after,
            self.x,
            f64::from(u8::from(self.switched)),
            self.switched_at,
        ])
    }

    fn load_state(&mut self, state: &[f64]) -> Result<(), ModelError> {
        let [t_event, rate_before, rate_after, x, switched, switched_at] =
            state_array("EarlyReturn", state)?;
        let switched = match switched {
            0.0 => false,
            1.0 => true,
            other => {
                return Err(ModelError::InvalidValue {
                    name: "switched",
                    value: other.to_string(),
                    reason: "must be 0 or 1",
                });
            }
        };
        *self = Self {
            t_event: finite("t_event", t_event)?,
            rate_before: finite("rate_before", rate_before)?,
            rate_after: finite("rate_after", rate_after)?,
            x: finite("x", x)?,
            switched,
            switched_at: finite("switched_at", switched_at)?,
        };
        Ok(())
    }
}

fmu_support::model_enum! {
    /// The model behind the shared library: Ticker or EarlyReturn, chosen by the
    /// instantiation token.
    pub enum EventMode {
        /// The Ticker FMU.
        Ticker(Ticker),
        /// The EarlyReturn FMU.
        EarlyReturn(EarlyReturn),
    }
}

#[cfg(feature = "export")]
fmu_support::export_fmi3!(EventMode);

#[cfg(test)]
mod tests;
