//! Start values and project parameters, converted to the variables' types.
//!
//! Spec: MasterSim reference §8 steps 6.2–6.3, §5 (`ResultsRootDir`).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use fmi::{Causality, Initial, ScalarVariable, VarType, Variability};

use super::lookup::find_variable;
use super::{InitialValue, PlanOptions, SlavePlan, Value};
use crate::error::name_hint;
use crate::project::Project;
use crate::{Error, Result};

/// Whether the master may set `v` (of an FMI 1.0 FMU when `fmi1`) before initialization, and
/// if not, why.
///
/// Spec: FMI 2.0.2 §2.2.7 (which variables may be set in which state); FMI 1.0 CS §2.9 (with
/// ME §2.9: before `fmiInitializeSlave`, any variable with a start value may be set);
/// constants and calculated variables are never set.
fn settable(v: &ScalarVariable, fmi1: bool) -> std::result::Result<(), String> {
    if v.variability == Variability::Constant {
        return Err("it is a constant".into());
    }
    if v.initial == Some(Initial::Calculated) {
        return Err("the FMU calculates it (initial=\"calculated\")".into());
    }
    match v.causality {
        Causality::StructuralParameter => Err(
            "it is a structural parameter: mastersim fixes array sizes when it loads the FMU"
                .into(),
        ),
        Causality::Parameter | Causality::Input => Ok(()),
        _ if matches!(v.initial, Some(Initial::Exact | Initial::Approx)) => Ok(()),
        _ if fmi1 && v.start.is_some() => Ok(()),
        other => Err(format!(
            "its causality is {other:?}, expected Parameter or Input"
        )),
    }
}

/// Converts a value text to the type of `v`. `None` when it cannot be read, or when an
/// integer lies outside the range of the variable's width.
fn convert(v: &ScalarVariable, text: &str) -> Option<Value> {
    let t = text.trim();
    match v.var_type {
        // A number beyond the type's range is refused, as in every other place that reads
        // numbers (times, `.ssv` files), never rounded to ±∞ (nor are `inf` and `nan` taken).
        VarType::Real => t
            .parse::<f64>()
            .ok()
            .filter(|x| {
                // A Float32 must round to a finite f32 (3.4028235e38 does, to f32::MAX).
                x.is_finite() && (v.data_type != fmi::DataType::Float32 || (*x as f32).is_finite())
            })
            .map(Value::Real),
        VarType::Integer => {
            let value = t.parse::<i128>().ok()?;
            let (min, max) = v.data_type.integer_range()?;
            (min..=max)
                .contains(&value)
                .then_some(Value::Integer(value))
        }
        VarType::Boolean => match t {
            "true" | "1" => Some(Value::Boolean(true)),
            "false" | "0" => Some(Value::Boolean(false)),
            _ => None,
        },
        VarType::String => Some(Value::String(text.to_string())),
        VarType::Binary => output::hex::parse_hex(t).map(Value::Binary),
    }
}

/// What a value of `v` must look like, for error messages.
fn type_description(v: &ScalarVariable) -> String {
    match v.var_type {
        VarType::Real if v.data_type == fmi::DataType::Float32 => {
            "a finite Float32 number (magnitude at most 3.4028235e38)".into()
        }
        VarType::Real => "a finite Real number (magnitude at most 1.7976931348623157e308)".into(),
        VarType::Integer => match v.data_type.integer_range() {
            Some((min, max)) if v.data_type != fmi::DataType::Int32 => {
                let name = v.data_type.name();
                let article = if name.starts_with('I') { "an" } else { "a" };
                format!("{article} {name} ({min} to {max})")
            }
            _ => "an Integer".into(),
        },
        VarType::Boolean => "a Boolean (true, false, 1 or 0)".into(),
        VarType::String => "a String".into(),
        VarType::Binary => "a Binary value in hexadecimal digit pairs".into(),
    }
}

/// Collects start values and project parameters of every FMU-backed slave (reference §8
/// steps 6.2–6.3) and adds `ResultsRootDir` parameters (reference §5). Returns the slave
/// directories that must exist.
pub(super) fn initial_values(
    project: &Project,
    options: &PlanOptions,
    slaves: &mut [SlavePlan],
) -> Result<Vec<PathBuf>> {
    let mut directories = Vec::new();
    // The parameter lines of each slave, in file order (one pass, not one per slave).
    let mut by_slave: HashMap<&str, Vec<&crate::project::ParameterDef>> = HashMap::new();
    for p in &project.parameters {
        by_slave.entry(p.slave.as_str()).or_default().push(p);
    }
    for slave in slaves.iter_mut() {
        let parameters = by_slave.remove(slave.name.as_str()).unwrap_or_default();
        let Some(variables) = slave.kind.variables() else {
            for p in parameters {
                log::warn!(
                    "{}: parameter '{}.{}' ignored: file reader slaves have no parameters",
                    project.location(Some(p.line)),
                    p.slave,
                    p.variable
                );
            }
            continue;
        };
        let mut values = Vec::new();
        for v in variables {
            if !matches!(v.causality, Causality::Input | Causality::Parameter)
                || settable(v, false).is_err()
            {
                continue;
            }
            let Some(start) = &v.start else { continue };
            match convert(v, start) {
                Some(value) => values.push(InitialValue {
                    variable: v.name.clone(),
                    vr: v.handle,
                    value,
                }),
                None => log::warn!(
                    "slave '{}': start value '{}' of '{}' is not {}; not set",
                    slave.name,
                    start,
                    v.name,
                    type_description(v)
                ),
            }
        }
        // Parameters are applied sorted by variable name; a later line overrides an earlier one.
        let mut params: BTreeMap<&str, &crate::project::ParameterDef> = BTreeMap::new();
        for p in parameters {
            params.insert(&p.variable, p);
        }
        let results_root = variables.iter().find(|v| {
            v.name == "ResultsRootDir"
                && v.causality == Causality::Parameter
                && v.var_type == VarType::String
        });
        if let Some(v) = results_root
            && !params.contains_key("ResultsRootDir")
        {
            // Whatever the slave's name holds, its folder is one component inside `slaves/`.
            let dir = crate::path_name::join(&options.working_dir.join("slaves"), &slave.name);
            log::info!("{}.ResultsRootDir = {}", slave.name, dir.display());
            values.push(InitialValue {
                variable: v.name.clone(),
                vr: v.handle,
                value: Value::String(dir.to_string_lossy().into_owned()),
            });
            directories.push(dir);
        }
        for p in params.values() {
            let at = project.location(Some(p.line));
            let source_file = slave.kind.source_file();
            let v = find_variable(variables, &p.slave, &p.variable, &source_file, || {
                Some(at.clone())
            })?
            .ok_or_else(|| Error::UnknownVariable {
                at: at.clone(),
                slave: p.slave.clone(),
                variable: p.variable.clone(),
                source_file: source_file.into(),
                hint: name_hint(&p.variable, variables.iter().map(|v| v.name.as_str())),
            })?;
            let fmi1 = slave.kind.fmi_version() == Some(fmi::FmiVersion::V1);
            settable(v, fmi1).map_err(|reason| Error::NotSettable {
                at: at.clone(),
                slave: p.slave.clone(),
                variable: p.variable.clone(),
                reason,
            })?;
            let value = convert(v, &p.value).ok_or_else(|| Error::ParameterValue {
                at,
                parameter: format!("{}.{}", p.slave, p.variable),
                value: p.value.clone(),
                expected: type_description(v),
            })?;
            values.push(InitialValue {
                variable: v.name.clone(),
                vr: v.handle,
                value,
            });
        }
        slave.initial_values = values;
    }
    Ok(directories)
}
