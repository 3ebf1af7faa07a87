//! FMPy's input rule: how a structured array with a `time` field feeds the FMU's inputs.
//!
//! - Which variables: every variable with causality `input` or variability `tunable` whose
//!   name is a field of the array (the first field is the time, s, ascending). An input
//!   without a field keeps its start value (with a warning).
//! - Continuous variables (Real, Float32, Float64 of variability `continuous`) are linearly
//!   interpolated at the communication point, held constant before the first and after the
//!   last time. Where a time repeats (a step in the signal), the value after the step is used
//!   at that time.
//! - Discrete variables (everything else: integers, enumerations, Booleans, discrete or
//!   tunable Reals) hold the value of the last row at or before the communication point
//!   (sample and hold, the right value at a step).
//! - The values are converted to the variable's type as numpy converts them (a Real column
//!   for an Integer input is truncated).
//! - Input events: a repeated time, and a row where a discrete variable changes, are events;
//!   an FMU that can handle variable communication step sizes gets a communication point
//!   there (the regular grid continues after it).
//!
//! Spec: FMPy 0.3 `simulation.Input` (`apply`, `interpolate`, `findEvents`, `nextEvent`).

use fmi::{DataType, ModelDescription, ValueRef, Variability};
use pyo3::prelude::*;

use super::slave::{CallResult, Scalar, Slave};
use super::time::is_close;
use crate::errors::InputError;
use crate::results::{field_f64, field_names};

/// Variables of one type fed the same way.
#[derive(Debug)]
struct Group {
    data_type: DataType,
    vrs: Vec<ValueRef>,
    /// Per variable, one value per row of the table.
    rows: Vec<Table>,
}

#[derive(Debug)]
enum Table {
    Continuous(Vec<f64>),
    Discrete(Vec<Scalar>),
}

/// An input table ready to apply, or none.
#[derive(Debug, Default)]
pub struct Input {
    /// Times of the rows, s.
    t: Vec<f64>,
    continuous: Vec<Group>,
    discrete: Vec<Group>,
    /// Input events, ascending, ending with infinity.
    events: Vec<f64>,
}

/// The numpy dtype a discrete column is converted to before it is set (FMPy converts to the
/// setter's C type).
fn discrete_dtype(dt: DataType, fmi3: bool) -> &'static str {
    match dt {
        DataType::Boolean if fmi3 => "?",
        DataType::Boolean | DataType::Int32 => "i4",
        DataType::Int8 => "i1",
        DataType::UInt8 => "u1",
        DataType::Int16 => "i2",
        DataType::UInt16 => "u2",
        DataType::UInt32 => "u4",
        DataType::Int64 => "i8",
        DataType::UInt64 => "u8",
        _ => "f8",
    }
}

fn add(groups: &mut Vec<Group>, dt: DataType, vr: ValueRef, table: Table) {
    match groups.iter_mut().find(|g| g.data_type == dt) {
        Some(g) => {
            g.vrs.push(vr);
            g.rows.push(table);
        }
        None => groups.push(Group {
            data_type: dt,
            vrs: vec![vr],
            rows: vec![table],
        }),
    }
}

fn discrete_table(
    signals: &Bound<'_, PyAny>,
    name: &str,
    dt: DataType,
    fmi3: bool,
) -> PyResult<Table> {
    let py = signals.py();
    let column = signals.get_item(name)?;
    let converted = py
        .import("numpy")?
        .call_method1("asarray", (column, discrete_dtype(dt, fmi3)))?;
    let values: Vec<Scalar> = if dt == DataType::Boolean && fmi3 {
        let v: Vec<bool> = converted.call_method0("tolist")?.extract()?;
        v.into_iter().map(Scalar::Bool).collect()
    } else if dt == DataType::Boolean {
        let v: Vec<i64> = converted.call_method0("tolist")?.extract()?;
        v.into_iter().map(|i| Scalar::Bool(i != 0)).collect()
    } else if matches!(dt, DataType::Float32 | DataType::Float64) {
        // A discrete or tunable Real.
        let v: Vec<f64> = converted.call_method0("tolist")?.extract()?;
        v.into_iter().map(Scalar::Real).collect()
    } else {
        let v: Vec<i128> = converted.call_method0("tolist")?.extract()?;
        v.into_iter().map(Scalar::Int).collect()
    };
    Ok(Table::Discrete(values))
}

impl Input {
    /// Reads the structured array `signals` for the FMU described by `md` (see the module's
    /// rule).
    ///
    /// # Errors
    /// `TypeError` when `signals` is not a structured array; [`InputError`] for a String or
    /// Binary input (FMPy cannot set those either) or times that are not ascending.
    pub fn new(signals: &Bound<'_, PyAny>, md: &ModelDescription) -> PyResult<Input> {
        let names = field_names(signals)?;
        let t = field_f64(signals, &names[0])?;
        if t.windows(2).any(|w| {
            w[1].partial_cmp(&w[0])
                .is_none_or(std::cmp::Ordering::is_lt)
        }) {
            return Err(InputError::new_err(format!(
                "input: the times in field '{}' must be ascending (a time may repeat for a step)",
                names[0]
            )));
        }
        let fmi3 = md.fmi_version == fmi::FmiVersion::V3;
        let mut input = Input {
            t,
            ..Input::default()
        };
        let mut events = vec![f64::INFINITY];
        for w in input.t.windows(2) {
            if w[1] == w[0] {
                events.push(w[0]);
            }
        }
        for v in &md.variables {
            if v.causality != fmi::Causality::Input && v.variability != Variability::Tunable {
                continue;
            }
            if !names.contains(&v.name) {
                if v.causality == fmi::Causality::Input {
                    let warnings = signals.py().import("warnings")?;
                    warnings.call_method1(
                        "warn",
                        (format!("missing input for variable \"{}\"", v.name),),
                    )?;
                }
                continue;
            }
            if matches!(v.data_type, DataType::String | DataType::Binary) {
                return Err(InputError::new_err(format!(
                    "input: the {} input '{}' cannot be fed from an array (only numbers and \
                     Booleans can, as in FMPy)",
                    v.data_type.name(),
                    v.name
                )));
            }
            let real = matches!(v.data_type, DataType::Float32 | DataType::Float64);
            let discrete = matches!(v.variability, Variability::Discrete | Variability::Tunable);
            if real && !discrete {
                let mut values = field_f64(signals, &v.name)?;
                if v.data_type == DataType::Float32 {
                    values.iter_mut().for_each(|x| *x = f64::from(*x as f32));
                }
                add(
                    &mut input.continuous,
                    v.data_type,
                    v.value_reference,
                    Table::Continuous(values),
                );
            } else {
                if discrete && input.t.len() >= 2 {
                    let raw = field_f64(signals, &v.name)?;
                    for (i, w) in raw.windows(2).enumerate() {
                        if w[1] != w[0] {
                            events.push(input.t[i + 1]);
                        }
                    }
                }
                let table = discrete_table(signals, &v.name, v.data_type, fmi3)?;
                add(&mut input.discrete, v.data_type, v.value_reference, table);
            }
        }
        if input.t.len() < 2 {
            events = vec![f64::INFINITY];
        }
        events.sort_by(f64::total_cmp);
        events.dedup();
        input.events = events;
        Ok(input)
    }

    /// The first input event after `t` (s), not within `isclose` of it; infinity when none.
    pub fn next_event(&self, t: f64) -> f64 {
        self.events
            .iter()
            .copied()
            .find(|&e| e > t && !is_close(e, t))
            .unwrap_or(f64::INFINITY)
    }

    /// Sets the inputs to their values at `time` (s): the continuous ones when `continuous`,
    /// the discrete ones when `discrete`; `after_event` takes the value after a step at
    /// `time`.
    ///
    /// # Errors
    /// The message of a failed set call, or a value that does not fit its variable.
    pub fn apply(
        &self,
        slave: &mut Slave,
        time: f64,
        continuous: bool,
        discrete: bool,
        after_event: bool,
    ) -> CallResult<()> {
        if self.t.is_empty() {
            return Ok(());
        }
        let (i0, found) = self.locate(time);
        if continuous {
            for g in &self.continuous {
                let values: Vec<Scalar> = g
                    .rows
                    .iter()
                    .map(|table| match table {
                        Table::Continuous(v) => {
                            Scalar::Real(self.continuous_value(v, time, i0, found, after_event))
                        }
                        Table::Discrete(_) => {
                            unreachable!("continuous groups hold continuous tables")
                        }
                    })
                    .collect();
                slave.set(g.data_type, &g.vrs, &values)?;
            }
        }
        if discrete {
            let i = self.discrete_row(time, i0, found, after_event);
            for g in &self.discrete {
                let values: Vec<Scalar> = g
                    .rows
                    .iter()
                    .map(|table| match table {
                        Table::Discrete(v) => v[i].clone(),
                        Table::Continuous(_) => {
                            unreachable!("discrete groups hold discrete tables")
                        }
                    })
                    .collect();
                slave.set(g.data_type, &g.vrs, &values)?;
            }
        }
        Ok(())
    }

    /// numpy's `searchsorted(t, time)` (the first row with `t >= time`), and whether `time`
    /// lies inside the table (`false`: hold the first or the last row, given as the index).
    fn locate(&self, time: f64) -> (usize, bool) {
        let n = self.t.len();
        if n < 2 {
            return (0, false);
        }
        let i0 = self.t.partition_point(|&x| x < time);
        match i0 {
            0 => (0, false),
            i if i == n => (n - 1, false),
            i => (i, true),
        }
    }

    fn discrete_row(&self, time: f64, i0: usize, found: bool, after_event: bool) -> usize {
        if !found {
            return i0;
        }
        let t = &self.t;
        let mut i = i0 - 1;
        if after_event {
            while i + 1 < t.len() && (t[i + 1] < time || is_close(time, t[i + 1])) {
                i += 1;
            }
        }
        i
    }

    fn continuous_value(
        &self,
        v: &[f64],
        time: f64,
        i0: usize,
        found: bool,
        after_event: bool,
    ) -> f64 {
        if !found {
            return v[i0];
        }
        let t = &self.t;
        let n = t.len();
        let mut i0 = i0;
        if is_close(time, t[i0]) && i0 < n - 1 && is_close(t[i0], t[i0 + 1]) {
            if after_event {
                while i0 < n - 1 && is_close(t[i0], t[i0 + 1]) {
                    i0 += 1;
                }
            }
            return v[i0];
        }
        let (a, b) = (i0 - 1, i0);
        let w0 = (t[b] - time) / (t[b] - t[a]);
        let w1 = 1.0 - w0;
        w0 * v[a] + w1 * v[b]
    }
}
