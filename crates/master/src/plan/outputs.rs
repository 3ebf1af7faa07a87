//! Which variables of a slave are read after every step and written to the results: output
//! selection with aliases, parameters for the parameter sections of MAT and Signal Table files,
//! and the `outputOnly` filter.
//!
//! Spec: MasterSim reference §6.8 (output selection and synonyms), §3.7 (`outputOnly`, which
//! MasterSim parses and ignores).

use fmi::{Alias, Causality, ScalarVariable, VarType, Variability};

use super::{OutputVariable, SlavePlan, Synonym, VariableAlias};
use crate::project::Project;
use crate::values::{OUTPUT_TYPE_ORDER, PerType};
use crate::{Error, Result};

fn unit_of(v: &ScalarVariable) -> String {
    match (v.var_type, v.unit.as_deref()) {
        (VarType::Real, Some(u)) if !u.is_empty() => u.to_string(),
        _ => "-".to_string(),
    }
}

fn output_variable(v: &ScalarVariable) -> OutputVariable {
    OutputVariable {
        vr: v.handle,
        name: v.name.clone(),
        unit: unit_of(v),
        description: v.description.clone(),
        variability: v.variability,
        negated: v.alias == Alias::NegatedAlias,
        aliases: Vec::new(),
        written: true,
    }
}

fn alias_of(v: &ScalarVariable) -> VariableAlias {
    VariableAlias {
        name: v.name.clone(),
        unit: unit_of(v),
        description: v.description.clone(),
        negated: v.alias == Alias::NegatedAlias,
    }
}

/// Output selection of one FMU (reference §6.8): outputs first, then (with
/// `write_internal_variables`) all other variables, each (type, value reference) once. A later
/// variable with an already selected type and value reference becomes an alias of it (and a
/// synonym for `synonymous_variables.txt`).
pub(super) fn select_outputs(
    variables: &[ScalarVariable],
    write_internal_variables: bool,
    fmu_file: &str,
) -> (PerType<Vec<OutputVariable>>, Vec<Synonym>) {
    let mut outputs = PerType::<Vec<OutputVariable>>::default();
    let mut synonyms = Vec::new();
    let mut add = |v: &ScalarVariable| {
        let list = outputs.get_mut(v.var_type);
        if let Some(existing) = list.iter_mut().find(|o| o.vr == v.handle) {
            log::warn!(
                "Variable '{}' [{:?}] has valueReference {} which is already selected for output (variable '{}').",
                v.name,
                v.var_type,
                v.value_reference.0,
                existing.name
            );
            synonyms.push(Synonym {
                fmu_file: fmu_file.to_string(),
                output_name: existing.name.clone(),
                synonym: v.name.clone(),
            });
            existing.aliases.push(alias_of(v));
            return;
        }
        list.push(output_variable(v));
    };
    for v in variables
        .iter()
        .filter(|v| v.causality == Causality::Output)
    {
        add(v);
    }
    if write_internal_variables {
        for v in variables
            .iter()
            .filter(|v| v.causality != Causality::Output)
        {
            add(v);
        }
    }
    (outputs, synonyms)
}

/// Parameters and constants that are not among `outputs`, each (type, value reference) once
/// with its aliases: the values of the MAT `data_1` matrix and the Signal Table `Par` entries.
pub(super) fn select_parameters(
    variables: &[ScalarVariable],
    outputs: &PerType<Vec<OutputVariable>>,
) -> PerType<Vec<OutputVariable>> {
    let mut parameters = PerType::<Vec<OutputVariable>>::default();
    let is_parameter = |v: &ScalarVariable| {
        matches!(
            v.causality,
            Causality::Parameter | Causality::CalculatedParameter
        ) || matches!(
            v.variability,
            Variability::Constant | Variability::Fixed | Variability::Tunable
        )
    };
    for v in variables.iter().filter(|v| is_parameter(v)) {
        if outputs.get(v.var_type).iter().any(|o| o.vr == v.handle) {
            continue;
        }
        let list = parameters.get_mut(v.var_type);
        match list.iter_mut().find(|o| o.vr == v.handle) {
            Some(existing) => existing.aliases.push(alias_of(v)),
            None => list.push(output_variable(v)),
        }
    }
    parameters
}

/// Applies the `outputOnly` patterns: when there are any, a variable is written only when its
/// `slave.variable` name (or one of its aliases') matches one of them. Patterns are globs
/// (`*`, `?`, `[...]`), several per line separated by whitespace.
///
/// # Errors
/// [`Error::InvalidSetting`] for a malformed pattern, naming its line.
pub(super) fn apply_output_only(project: &Project, slaves: &mut [SlavePlan]) -> Result<()> {
    let mut patterns = Vec::new();
    for (text, line) in &project.output_only {
        for word in text.split_whitespace() {
            let pattern = glob::Pattern::new(word).map_err(|e| Error::InvalidSetting {
                at: project.location(Some(*line)),
                keyword: "outputOnly",
                reason: format!("bad pattern '{word}': {e}"),
            })?;
            patterns.push(pattern);
        }
    }
    if patterns.is_empty() {
        return Ok(());
    }
    let matches = |slave: &str, name: &str| {
        patterns
            .iter()
            .any(|p| p.matches(&format!("{slave}.{name}")))
    };
    // (When nothing matches, the result files warn that they hold only the time column.)
    for slave in slaves.iter_mut() {
        for ty in OUTPUT_TYPE_ORDER {
            for list in [slave.outputs.get_mut(ty), slave.parameters.get_mut(ty)] {
                for var in list.iter_mut() {
                    var.written = matches(&slave.name, &var.name)
                        || var.aliases.iter().any(|a| matches(&slave.name, &a.name));
                }
            }
        }
    }
    Ok(())
}
