//! `validate=True`: the rules of FMI that FMPy checks in a model description before it runs an
//! FMU, so that `mastersim.simulate_fmu` refuses what `fmpy.simulate_fmu` refuses.
//!
//! mastersim itself reads these descriptions (its parser accepts harmless breaks of the
//! standard); `validate=False` runs them, as it does in FMPy.
//!
//! Spec: FMI 2.0.2 §2.2.7 (the allowed combinations of causality and variability; only Real
//! variables are continuous; no start value with `initial="calculated"`), FMI 3.0 §2.4.7.4;
//! FMPy 0.3 `model_description.validate`.

use std::path::Path;

use fmi::{
    Causality, DataType, FmiVersion, Initial, ModelDescription, ScalarVariable, Variability,
};

/// The `initial` of `v` as FMPy reads it: as written, else the default of FMI 2.0.2 §2.2.7
/// (table of `initial` by causality and variability); `None` for FMI 1.0, for `input` and
/// `independent` variables of FMI 1.0-style combinations, and for illegal combinations.
pub fn initial(v: &ScalarVariable, version: FmiVersion) -> Option<Initial> {
    use Causality as C;
    use Variability as V;
    if v.initial.is_some() || version == FmiVersion::V1 {
        return v.initial;
    }
    match (v.variability, v.causality) {
        (V::Constant, C::Output | C::Local) => Some(Initial::Exact),
        (V::Fixed | V::Tunable, C::Parameter | C::StructuralParameter) => Some(Initial::Exact),
        (V::Fixed | V::Tunable, C::CalculatedParameter | C::Local) => Some(Initial::Calculated),
        (V::Discrete | V::Continuous, C::Input) => Some(Initial::Exact),
        (V::Discrete | V::Continuous, C::Output | C::Local) => Some(Initial::Calculated),
        _ => None,
    }
}

/// Whether `causality` may have `variability` (FMI 2.0.2 table in §2.2.7).
fn allowed(causality: Causality, variability: Variability) -> bool {
    use Causality as C;
    use Variability as V;
    match causality {
        C::Parameter | C::CalculatedParameter | C::StructuralParameter => {
            matches!(variability, V::Fixed | V::Tunable)
        }
        C::Input => matches!(variability, V::Discrete | V::Continuous),
        C::Output => matches!(variability, V::Constant | V::Discrete | V::Continuous),
        C::Local => true,
        C::Independent => variability == V::Continuous,
    }
}

fn problems_of(v: &ScalarVariable, version: FmiVersion) -> Vec<String> {
    let mut problems = Vec::new();
    if !allowed(v.causality, v.variability) {
        problems.push(format!(
            "variable '{}' has the illegal combination causality=\"{}\" and variability=\"{}\"",
            v.name,
            mastersim::describe::causality_name(v.causality),
            crate::model_description::variability(v.variability)
        ));
    }
    if v.variability == Variability::Continuous
        && !matches!(v.data_type, DataType::Float32 | DataType::Float64)
    {
        problems.push(format!(
            "variable '{}' is of type {} and cannot be continuous (only Real variables can)",
            v.name,
            crate::model_description::type_name(v, version)
        ));
    }
    if initial(v, version) == Some(Initial::Calculated) && v.start.is_some() {
        problems.push(format!(
            "variable '{}' has initial=\"calculated\" but a start value",
            v.name
        ));
    }
    problems
}

/// The rules `md` breaks (FMI 2.0 and 3.0; FMI 1.0 descriptions are not checked), one line
/// each naming the variable; empty when it keeps them.
pub fn problems(md: &ModelDescription) -> Vec<String> {
    if md.fmi_version == FmiVersion::V1 {
        return Vec::new();
    }
    md.variables
        .iter()
        .flat_map(|v| problems_of(v, md.fmi_version))
        .collect()
}

/// Under `validate`, an [`InputError`](crate::errors::InputError) listing the [`problems`] of
/// the description of `path`, if any; `action` says what `validate=False` does instead
/// ("runs it", "reads it").
///
/// # Errors
/// As described.
pub fn refuse_invalid(
    md: &ModelDescription,
    path: &Path,
    validate: bool,
    action: &str,
) -> pyo3::PyResult<()> {
    let problems = if validate { problems(md) } else { Vec::new() };
    if problems.is_empty() {
        return Ok(());
    }
    Err(crate::errors::InputError::new_err(format!(
        "{}: the model description breaks rules of FMI (refused under validate=True, as FMPy \
         does; validate=False {action}):\n  - {}",
        path.display(),
        problems.join("\n  - ")
    )))
}
