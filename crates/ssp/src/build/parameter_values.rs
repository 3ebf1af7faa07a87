//! The `parameter` lines of one bound parameter value: checked against the FMU variable it
//! sets (type, width, range, array shape, whether it may be set at all), converted to the
//! variable's unit, transformed by its mapping entry, and written as the text a `.msim`
//! `parameter` line holds.
//!
//! Spec: SSP 2.0 §6.2 (parameter types and arrays in row-major order), §7.1.1 (a mapping
//! entry's transformation applies after the unit conversion, unless suppressed), §5.2.3
//! (which variables may be set: for FMI 1.0 any variable with a start value), §4.4.2 (units);
//! FMI 1.0 CS §2.9 and FMI 2.0.2 §2.2.7 (setting variables before initialization).

use fmi::{Causality, FmiVersion, ScalarVariable, VarType, Variability};

use crate::common::{Transformation, Unit};
use crate::error::{Result, SspError};
use crate::ssd::Connector;
use crate::types::ConnectorType;
use crate::values::Value;

use super::parameters::Bound;
use super::{Builder, Comp, FmuVariable};

impl Builder<'_> {
    /// The `parameter` lines (scalar variable name, value text) that set `variable` of `comp`
    /// to the value of `bound`: one for a scalar, one per element for an array.
    ///
    /// # Errors
    /// A value that does not fit the variable (type, width, range, number of elements,
    /// enumeration item, unit), and a structural parameter (mastersim fixes array sizes when it
    /// loads the FMU).
    pub(super) fn parameter_lines(
        &self,
        bound: &Bound<'_>,
        comp: &Comp<'_>,
        variable: &FmuVariable<'_>,
        connector: Option<&Connector>,
    ) -> Result<Vec<(String, String)>> {
        let p = bound.parameter;
        let error = |message: String| {
            SspError::at(
                &bound.set.file,
                p.line,
                format!("Parameter '{}'", p.name),
                message,
            )
        };
        let elements: Vec<&ScalarVariable> = match variable {
            FmuVariable::Scalar(v) => vec![v],
            FmuVariable::Array(elements) => elements.clone(),
        };
        let first = elements[0];
        if first.causality == Causality::StructuralParameter {
            return Err(error(format!(
                "'{}' is a structural parameter of the FMU: mastersim fixes array sizes when it \
                 loads the FMU, so it cannot be set",
                first.name
            ))
            .unsupported());
        }
        if p.values.len() != elements.len() {
            return Err(error(match variable {
                FmuVariable::Scalar(v) => format!(
                    "{} values for the scalar variable '{}'",
                    p.values.len(),
                    v.name
                ),
                FmuVariable::Array(_) => format!(
                    "{} value(s) for the array '{}' of {} elements",
                    p.values.len(),
                    first
                        .array
                        .as_ref()
                        .map_or(first.name.as_str(), |a| &a.array),
                    elements.len()
                ),
            }));
        }
        if let Some(shape) = first.array.as_ref().map(|a| &a.dimensions)
            && !p.dimensions.is_empty()
            && !p
                .dimensions
                .iter()
                .map(|d| *d as usize)
                .eq(shape.iter().copied())
        {
            return Err(error(format!(
                "the parameter's dimensions {:?} differ from the shape {shape:?} of the array \
                 '{}'",
                p.dimensions,
                first.array.as_ref().map_or("", |a| a.array.as_str())
            )));
        }
        self.fmi1_start_value(bound, comp, first);
        elements
            .iter()
            .zip(&p.values)
            .map(|(v, value)| {
                let text = self.value_text(value, bound, v, connector).map_err(error)?;
                Ok((v.name.clone(), text))
            })
            .collect()
    }

    /// Warns (once per parameter) when `v` of an FMI 1.0 FMU is neither a parameter nor an
    /// input but has a start value: FMI 1.0 lets a master set such a variable before
    /// initialization, and mastersim does.
    fn fmi1_start_value(&self, bound: &Bound<'_>, comp: &Comp<'_>, v: &ScalarVariable) {
        if comp.description.fmi_version == FmiVersion::V1
            && !matches!(v.causality, Causality::Parameter | Causality::Input)
            && v.variability != Variability::Constant
            && v.start.is_some()
        {
            log::warn!(
                "{}:{}: parameter '{}': the variable '{}' of the FMI 1.0 FMU '{}' is not a \
                 parameter or input ({:?}, {:?}) but has a start value; it is set before \
                 initialization, as FMI 1.0 allows for variables with a start value",
                bound.set.file.display(),
                bound.parameter.line,
                bound.parameter.name,
                v.name,
                comp.element.name,
                v.causality,
                v.variability
            );
        }
    }

    /// The text of one value for scalar `v`: converted from the parameter's unit to the
    /// connector's (or the variable's), then transformed by the mapping entry; enumeration
    /// items as their values; Binary as hexadecimal digit pairs.
    fn value_text(
        &self,
        value: &Value,
        bound: &Bound<'_>,
        v: &ScalarVariable,
        connector: Option<&Connector>,
    ) -> std::result::Result<String, String> {
        let p = bound.parameter;
        let mismatch = || {
            format!(
                "a {} value for the {} variable '{}'",
                p.type_name,
                v.data_type.name(),
                v.name
            )
        };
        let not_applicable = |t: &Transformation| {
            format!(
                "a {} does not apply to the value of '{}'{}",
                t.name(),
                p.name,
                bound.entry_at()
            )
        };
        Ok(match value {
            Value::Real(x) => {
                if v.var_type != VarType::Real {
                    return Err(mismatch());
                }
                let mut x = *x;
                if !bound.suppress_unit_conversion() {
                    x = self.convert_parameter(x, bound, v, connector)?;
                }
                match bound.transformation() {
                    None => {}
                    Some(Transformation::Linear { factor, offset }) => x = factor * x + offset,
                    Some(t) => return Err(not_applicable(t)),
                }
                format!("{x:?}")
            }
            Value::Integer(i) => {
                if v.var_type != VarType::Integer {
                    return Err(mismatch());
                }
                let i = match bound.transformation() {
                    None => *i,
                    Some(Transformation::Integer(map)) => map_value(map, *i),
                    Some(t) => return Err(not_applicable(t)),
                };
                integer_text(i, v)?
            }
            Value::Boolean(flag) => {
                if v.var_type != VarType::Boolean {
                    return Err(mismatch());
                }
                match bound.transformation() {
                    None => flag.to_string(),
                    Some(Transformation::Boolean(map)) => map_value(map, *flag).to_string(),
                    Some(t) => return Err(not_applicable(t)),
                }
            }
            Value::String(s) => {
                if v.var_type != VarType::String {
                    return Err(mismatch());
                }
                if let Some(t) = bound.transformation() {
                    return Err(not_applicable(t));
                }
                s.clone()
            }
            Value::Binary(bytes) => {
                if v.var_type != VarType::Binary {
                    return Err(mismatch());
                }
                if let Some(t) = bound.transformation() {
                    return Err(not_applicable(t));
                }
                bytes.iter().map(|b| format!("{b:02x}")).collect()
            }
            Value::Enumeration(item) => self.enumeration_text(item, bound, v, connector)?,
        })
    }

    /// The value of the enumeration item `item` for `v`, through the mapping entry's
    /// transformation, in the enumeration type the variable's connector names.
    fn enumeration_text(
        &self,
        item: &str,
        bound: &Bound<'_>,
        v: &ScalarVariable,
        connector: Option<&Connector>,
    ) -> std::result::Result<String, String> {
        let p = bound.parameter;
        let item = match bound.transformation() {
            Some(Transformation::Enumeration(map)) => map_value(map, item.to_owned()),
            _ => item.to_owned(),
        };
        let Some(ConnectorType::Enumeration(e)) = connector.map(|k| &k.ty) else {
            return Err(format!(
                "an Enumeration value for '{}', which has no Enumeration connector naming its \
                 type (whose items give the values)",
                v.name
            ));
        };
        let e = self
            .ssd
            .enumerations
            .iter()
            .find(|x| x.name == *e)
            .ok_or_else(|| format!("the enumeration '{e}' is not declared"))?;
        let value = e
            .items
            .iter()
            .find(|(n, _)| *n == item)
            .map(|(_, v)| i128::from(*v))
            .ok_or_else(|| format!("the enumeration '{}' has no item '{item}'", e.name))?;
        let value = match bound.transformation() {
            Some(Transformation::Integer(map)) => map_value(map, value),
            Some(Transformation::Enumeration(_)) | None => value,
            Some(t) => {
                return Err(format!(
                    "a {} does not apply to the value of '{}'{}",
                    t.name(),
                    p.name,
                    bound.entry_at()
                ));
            }
        };
        if v.var_type != VarType::Integer {
            return Err(format!(
                "an Enumeration value for the {} variable '{}'",
                v.data_type.name(),
                v.name
            ));
        }
        integer_text(value, v)
    }

    /// `x` in the parameter's unit converted to the unit of the connector (or, without one,
    /// of the variable). A unit the parameter's file does not declare is looked up in the SSD
    /// (with one warning per file and unit); one declared nowhere is an error unless it is
    /// the target unit itself.
    fn convert_parameter(
        &self,
        x: f64,
        bound: &Bound<'_>,
        v: &ScalarVariable,
        connector: Option<&Connector>,
    ) -> std::result::Result<f64, String> {
        let (p, set) = (bound.parameter, bound.set);
        let Some(from) = p.unit.as_deref() else {
            return Ok(x);
        };
        let to = connector.and_then(|k| k.ty.unit()).or(v.unit.as_deref());
        let own = set.units.iter().find(|u| u.name == from);
        let from_unit = own.or_else(|| self.units.get(from));
        // An inline set is part of an SSD, whose Units count as its file's.
        let declared = own.is_some() || (set.inline && from_unit.is_some());
        if !declared {
            let assumed = match (from_unit, to) {
                (Some(_), _) => "the SSD's declaration of it is used".to_owned(),
                (None, Some(to)) if to == from => {
                    format!("it is taken as the variable's unit '{to}' (no conversion)")
                }
                (None, _) => "it is declared nowhere".to_owned(),
            };
            self.warn_unit_once(bound, from, &assumed);
        }
        let Some(to) = to.filter(|to| *to != from) else {
            return Ok(x);
        };
        let lookup = |name: &str| -> Option<&Unit> {
            self.units
                .get(name)
                .or_else(|| set.units.iter().find(|u| u.name == name))
        };
        let (Some(a), Some(b)) = (from_unit, lookup(to)) else {
            let missing = if from_unit.is_none() { from } else { to };
            return Err(format!(
                "cannot convert from unit '{from}' to '{to}': the unit '{missing}' is declared \
                 nowhere"
            ));
        };
        if a.exponents != b.exponents {
            return Err(format!(
                "the units '{from}' and '{to}' have different dimensions"
            ));
        }
        Ok((a.factor * x + a.offset - b.offset) / b.factor)
    }

    /// The warning that a parameter file uses the unit `unit` without declaring it, once per
    /// file and unit.
    fn warn_unit_once(&self, bound: &Bound<'_>, unit: &str, assumed: &str) {
        let key = (bound.set.file.clone(), unit.to_owned());
        if self.warned_units.borrow_mut().insert(key) {
            log::warn!(
                "{}:{}: parameter '{}': the unit '{unit}' is not declared in this file's Units; \
                 {assumed}",
                bound.set.file.display(),
                bound.parameter.line,
                bound.parameter.name
            );
        }
    }
}

/// `value` through a value mapping: the target of its entry, or itself.
fn map_value<T: PartialEq + Clone>(map: &[(T, T)], value: T) -> T {
    map.iter()
        .find(|(s, _)| *s == value)
        .map_or(value, |(_, t)| t.clone())
}

/// The text of integer `i` for `v`, which must hold it.
fn integer_text(i: i128, v: &ScalarVariable) -> std::result::Result<String, String> {
    if let Some((min, max)) = v.data_type.integer_range()
        && !(min..=max).contains(&i)
    {
        return Err(format!(
            "the value {i} is outside the range of the {} variable '{}' ({min} to {max})",
            v.data_type.name(),
            v.name
        ));
    }
    Ok(i.to_string())
}
