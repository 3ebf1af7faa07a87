//! FMPy's `start_values`: a dict of variable name → value, set in two passes, each variable
//! once, in the order of the model description.
//!
//! - Before Initialization Mode: inputs, and variables (not constant) with `initial` exact or
//!   approx (FMI 1.0: every variable with a start value).
//! - In Initialization Mode: the rest that is settable there: inputs, tunable variables that
//!   are not parameters, and variables (not constant) with `initial` exact.
//! - What neither pass could set is an error under `validate=True` and ignored otherwise.
//! - A value may be given as `(value, unit)` when the unit is the variable's own.
//!
//! Spec: FMPy 0.3 `simulation.apply_start_values`, `settable_in_instantiated`,
//! `settable_in_initialization_mode`; FMI 2.0.2 §4.2.4 (which variables may be set when).

use fmi::{
    Causality, DataType, FmiVersion, Initial, ModelDescription, ScalarVariable, ValueRef,
    Variability,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use super::slave::{CallResult, Scalar, Slave};
use crate::errors::InputError;

/// The pass a start value is set in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// After instantiation, before Initialization Mode.
    Instantiated,
    /// In Initialization Mode.
    Initialization,
}

/// One start value to set.
#[derive(Debug, Clone)]
struct Start {
    name: String,
    data_type: DataType,
    vr: ValueRef,
    value: Scalar,
    instantiated: bool,
    initialization: bool,
    set: bool,
}

/// The start values of one run.
#[derive(Debug, Clone, Default)]
pub struct StartValues {
    starts: Vec<Start>,
    /// Names that match no variable.
    unknown: Vec<String>,
    validate: bool,
}

fn settable_instantiated(v: &ScalarVariable, version: FmiVersion) -> bool {
    if version == FmiVersion::V1 {
        return v.start.is_some();
    }
    v.causality == Causality::Input
        || v.variability != Variability::Constant
            && matches!(
                super::validate::initial(v, version),
                Some(Initial::Approx | Initial::Exact)
            )
}

fn settable_initialization(v: &ScalarVariable, version: FmiVersion) -> bool {
    if version == FmiVersion::V1 {
        return false;
    }
    v.causality == Causality::Input
        || v.causality != Causality::Parameter && v.variability == Variability::Tunable
        || v.variability != Variability::Constant
            && super::validate::initial(v, version) == Some(Initial::Exact)
}

/// Converts the Python `value` for variable `v` as FMPy does (`float`, `int`, `bool` with
/// 'true'/'false' strings, `str`).
fn convert(v: &ScalarVariable, value: &Bound<'_, PyAny>) -> PyResult<Scalar> {
    let bad = |e: PyErr| {
        InputError::new_err(format!(
            "start_values: the value {} for '{}' cannot be converted to {}: {e}",
            value.repr().map(|r| r.to_string()).unwrap_or_default(),
            v.name,
            v.data_type.name()
        ))
    };
    let builtins = value.py().import("builtins")?;
    Ok(match v.data_type {
        DataType::Float32 | DataType::Float64 => Scalar::Real(
            builtins
                .call_method1("float", (value,))
                .and_then(|f| f.extract())
                .map_err(bad)?,
        ),
        DataType::Boolean => {
            if let Ok(text) = value.extract::<String>() {
                match text.to_lowercase().as_str() {
                    "true" => Scalar::Bool(true),
                    "false" => Scalar::Bool(false),
                    _ => {
                        return Err(InputError::new_err(format!(
                            "start_values: the value '{text}' for '{}' cannot be converted to Boolean",
                            v.name
                        )));
                    }
                }
            } else {
                Scalar::Bool(value.is_truthy().map_err(bad)?)
            }
        }
        DataType::String => Scalar::Str(value.str().map_err(bad)?.to_string()),
        DataType::Binary => {
            return Err(InputError::new_err(format!(
                "start_values: '{}' is Binary; simulate_fmu sets no Binary values",
                v.name
            )));
        }
        _ => Scalar::Int(
            builtins
                .call_method1("int", (value,))
                .and_then(|i| i.extract())
                .map_err(bad)?,
        ),
    })
}

/// Splits `(value, unit)`; a unit other than the variable's is refused.
fn strip_unit<'py>(v: &ScalarVariable, value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let Ok(tuple) = value.cast::<PyTuple>() else {
        return Ok(value.clone());
    };
    if tuple.len() != 2 {
        return Err(InputError::new_err(format!(
            "start_values: the value for '{}' must be a scalar or a tuple (value, unit)",
            v.name
        )));
    }
    let unit: Option<String> = tuple.get_item(1)?.extract()?;
    if unit.is_some() && unit != v.unit {
        return Err(InputError::new_err(format!(
            "start_values: the unit {:?} for '{}' is not its unit {:?} (display units are not \
             converted by mastersim)",
            unit.unwrap_or_default(),
            v.name,
            v.unit.clone().unwrap_or_default()
        )));
    }
    tuple.get_item(0)
}

impl StartValues {
    /// Reads the dict `values` for the FMU described by `md`.
    ///
    /// # Errors
    /// [`InputError`] for a value that cannot be converted to its variable's type, or a unit
    /// that is not the variable's.
    pub fn new(
        values: Option<&Bound<'_, PyDict>>,
        md: &ModelDescription,
        validate: bool,
    ) -> PyResult<StartValues> {
        let mut starts = StartValues {
            validate,
            ..StartValues::default()
        };
        let Some(values) = values else {
            return Ok(starts);
        };
        for key in values.keys() {
            let name: String = key.extract()?;
            if !md.variables.iter().any(|v| v.name == name) {
                starts.unknown.push(name);
            }
        }
        for v in &md.variables {
            let Some(value) = values.get_item(&v.name)? else {
                continue;
            };
            let value = strip_unit(v, &value)?;
            starts.starts.push(Start {
                name: v.name.clone(),
                data_type: v.data_type,
                vr: v.value_reference,
                value: convert(v, &value)?,
                instantiated: settable_instantiated(v, md.fmi_version),
                initialization: settable_initialization(v, md.fmi_version),
                set: false,
            });
        }
        Ok(starts)
    }

    /// Sets the values settable in `phase` that are not set yet.
    ///
    /// # Errors
    /// The message of a failed set call.
    pub fn apply(&mut self, slave: &mut Slave, phase: Phase) -> CallResult<()> {
        for s in self.starts.iter_mut().filter(|s| !s.set) {
            let settable = match phase {
                Phase::Instantiated => s.instantiated,
                Phase::Initialization => s.initialization,
            };
            if settable {
                slave
                    .set(s.data_type, &[s.vr], std::slice::from_ref(&s.value))
                    .map_err(|e| format!("start value of '{}': {e}", s.name))?;
                s.set = true;
            }
        }
        Ok(())
    }

    /// Under `validate`, an error naming the start values that could not be set (unknown
    /// names, variables that cannot be set before or in Initialization Mode).
    ///
    /// # Errors
    /// As described.
    pub fn check_all_set(&self) -> CallResult<()> {
        let missed: Vec<&str> = self
            .unknown
            .iter()
            .map(String::as_str)
            .chain(
                self.starts
                    .iter()
                    .filter(|s| !s.set)
                    .map(|s| s.name.as_str()),
            )
            .collect();
        if self.validate && !missed.is_empty() {
            return Err(format!(
                "the start values for the following variables could not be set: {} (pass \
                 validate=False to ignore them, as FMPy does)",
                missed.join(", ")
            ));
        }
        Ok(())
    }
}
