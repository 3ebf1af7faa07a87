//! Which variables of a slave are read after every step and written to the results: output
//! selection with aliases, parameters for the parameter sections of MAT and Signal Table files,
//! and the `outputOnly` filter.
//!
//! Result-column names are unique within a slave, as the MAT and Signal Table formats need.
//! An FMU that breaks FMI's rule of unique variable names (read with a warning) would give two
//! columns one name; so the variables of a name that several *different* values share are
//! written as `<name>#<value reference>` (`Ctrl.iepsi#20`, `Ctrl.iepsi#27`;
//! [`name_ambiguous_columns`]), and a variable that repeats the name *and* value of one already
//! selected (a harmless alias) gets no column or alias entry of its own. `outputOnly` patterns
//! match the variables' own names, so `Ctrl.iepsi` selects both columns.
//!
//! Spec: MasterSim reference §6.8 (output selection and synonyms), §3.7 (`outputOnly`, which
//! MasterSim parses and ignores); FMI 2.0.2 §2.2.7 (`name` unique).

use std::collections::{HashMap, HashSet};

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

/// The variables selected so far, by name: a variable with the name *and* value of one of
/// them repeats it (a harmless alias under a repeated name) and needs no entry of its own.
#[derive(Default)]
struct Selected<'v>(HashMap<&'v str, Vec<&'v ScalarVariable>>);

impl<'v> Selected<'v> {
    fn add(&mut self, v: &'v ScalarVariable) {
        self.0.entry(v.name.as_str()).or_default().push(v);
    }

    fn repeats(&self, v: &ScalarVariable) -> bool {
        self.0
            .get(v.name.as_str())
            .is_some_and(|selected| selected.iter().any(|s| s.same_value(v)))
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
pub(super) fn select_outputs<'v>(
    variables: &'v [ScalarVariable],
    write_internal_variables: bool,
    fmu_file: &str,
) -> (PerType<Vec<OutputVariable>>, Vec<Synonym>) {
    let mut outputs = PerType::<Vec<OutputVariable>>::default();
    let mut synonyms = Vec::new();
    let mut selected = Selected::default();
    let mut add = |v: &'v ScalarVariable| {
        if selected.repeats(v) {
            return;
        }
        selected.add(v);
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
/// A variable that repeats the name and value of an output or an earlier parameter is left
/// out (see the module documentation).
pub(super) fn select_parameters(
    variables: &[ScalarVariable],
    outputs: &PerType<Vec<OutputVariable>>,
) -> PerType<Vec<OutputVariable>> {
    let mut parameters = PerType::<Vec<OutputVariable>>::default();
    let mut selected = Selected::default();
    for v in variables {
        if outputs.get(v.var_type).iter().any(|o| o.vr == v.handle) {
            selected.add(v);
        }
    }
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
        if outputs.get(v.var_type).iter().any(|o| o.vr == v.handle) || selected.repeats(v) {
            continue;
        }
        selected.add(v);
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

/// Gives the result columns (outputs, parameters and their aliases) of every FMU slave whose
/// name several variables of different values share the name `<name>#<value reference>`
/// (with `.2`, `.3`, … should that be taken too), so that every column name of a slave is
/// unique, as the MAT and Signal Table formats need. Runs after [`apply_output_only`], whose
/// patterns match the variables' own names.
pub(super) fn name_ambiguous_columns(slaves: &mut [SlavePlan]) {
    for slave in slaves.iter_mut() {
        let Some(variables) = slave.kind.variables() else {
            continue;
        };
        let mut by_name: HashMap<&str, Vec<&ScalarVariable>> = HashMap::new();
        for v in variables {
            by_name.entry(v.name.as_str()).or_default().push(v);
        }
        let ambiguous: HashSet<&str> = by_name
            .iter()
            .filter(|(_, all)| all.iter().any(|v| !v.same_value(all[0])))
            .map(|(&name, _)| name)
            .collect();
        if ambiguous.is_empty() {
            continue;
        }
        let mut taken: HashSet<String> = by_name.keys().map(|&name| name.to_owned()).collect();
        let mut rename = |ty: VarType, vr: fmi::ValueRef, name: &mut String| {
            if !ambiguous.contains(name.as_str()) {
                return;
            }
            let Some(v) = by_name[name.as_str()]
                .iter()
                .find(|v| v.var_type == ty && v.handle == vr)
            else {
                return;
            };
            let base = format!("{name}#{}", v.value_reference.0);
            let mut unique = base.clone();
            let mut k = 2;
            while !taken.insert(unique.clone()) {
                unique = format!("{base}.{k}");
                k += 1;
            }
            log::info!(
                "{}: result column '{}.{unique}' is variable '{name}' (value reference {}), \
                 whose name the FMU declares more than once",
                slave.name,
                slave.name,
                v.value_reference.0
            );
            *name = unique;
        };
        for ty in OUTPUT_TYPE_ORDER {
            for list in [slave.outputs.get_mut(ty), slave.parameters.get_mut(ty)] {
                for output in list.iter_mut() {
                    rename(ty, output.vr, &mut output.name);
                    for alias in &mut output.aliases {
                        rename(ty, output.vr, &mut alias.name);
                    }
                }
            }
        }
    }
}
