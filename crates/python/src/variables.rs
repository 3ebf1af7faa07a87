//! `mastersim.Variable`: what a session's variable is (name, type, causality, variability,
//! unit), for `Session.variables`.
//!
//! Spec: FMI 2.0.2 §2.2.7 (ScalarVariable: causality, variability); FMI 3.0 §2.4.7; file
//! readers' columns are outputs (MasterSim reference §10).

use mastersim::master::SimulationPlan;
use mastersim::master::SlaveKind;
use mastersim::master::plan::OutputVariable;
use mastersim::master::values::PerType;
use pyo3::prelude::*;

/// A variable of a slave.
#[pyclass(module = "mastersim", frozen, get_all, eq)]
#[derive(Debug, Clone, PartialEq)]
pub struct Variable {
    /// `<slave>.<variable>`, as `Session.get` and the result columns name it.
    pub name: String,
    /// `"Real"`, `"Integer"`, `"Boolean"`, `"String"` or `"Binary"` (FMI 3.0 Float32/64 are
    /// Real, every integer width Integer).
    pub r#type: String,
    /// FMI's causality: `"parameter"`, `"calculatedParameter"`, `"input"`, `"output"`,
    /// `"local"`, `"independent"` (FMI 3.0 also `"structuralParameter"`).
    pub causality: String,
    /// FMI's variability: `"constant"`, `"fixed"`, `"tunable"`, `"discrete"`,
    /// `"continuous"`.
    pub variability: String,
    /// Unit (`None` when it has none).
    pub unit: Option<String>,
}

#[pymethods]
impl Variable {
    fn __repr__(&self) -> String {
        let unit = self
            .unit
            .as_ref()
            .map_or_else(|| "None".to_string(), |u| format!("'{u}'"));
        format!(
            "Variable('{}', type='{}', causality='{}', variability='{}', unit={unit})",
            self.name, self.r#type, self.causality, self.variability
        )
    }
}

/// `Debug` text of an FMI enumeration with its first letter lowered: the XML attribute
/// value (`CalculatedParameter` → `calculatedParameter`).
fn xml_name(value: &impl std::fmt::Debug) -> String {
    let text = format!("{value:?}");
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_lowercase().chain(chars).collect()
    })
}

/// Every variable of every slave of `plan`, slave by slave in project order, each slave's in
/// the order of its model description (a file reader's columns as they are recorded).
pub fn of_plan(plan: &SimulationPlan) -> Vec<Variable> {
    let mut all = Vec::new();
    for slave in &plan.slaves {
        let prefix = |name: &str| format!("{}.{name}", slave.name);
        let declared = match &slave.kind {
            SlaveKind::Fmu { fmu, .. } => &fmu.description().variables[..],
            SlaveKind::External { variables, .. } => &variables[..],
            SlaveKind::FileReader { .. } => {
                all.extend(columns(&slave.outputs).map(|(ty, o)| Variable {
                    name: prefix(&o.name),
                    r#type: ty.into(),
                    causality: "output".into(),
                    variability: xml_name(&o.variability),
                    unit: (o.unit != "-").then(|| o.unit.clone()),
                }));
                continue;
            }
        };
        all.extend(declared.iter().map(|v| Variable {
            name: prefix(&v.name),
            r#type: format!("{:?}", v.var_type),
            causality: xml_name(&v.causality),
            variability: xml_name(&v.variability),
            unit: v.unit.clone(),
        }));
    }
    all
}

/// A file reader's columns with their types, in the order of the result files.
fn columns(
    outputs: &PerType<Vec<OutputVariable>>,
) -> impl Iterator<Item = (&'static str, &OutputVariable)> {
    [
        ("Boolean", &outputs.boolean),
        ("Integer", &outputs.integer),
        ("Real", &outputs.real),
        ("String", &outputs.string),
    ]
    .into_iter()
    .flat_map(|(ty, list)| list.iter().map(move |o| (ty, o)))
}
