//! FMI 3.0 `modelDescription.xml`: read through a small element tree ([`tree`]) rather than
//! serde, because variables are differently named siblings (`Float64`, `Int32`, `Clock`, …)
//! whose order is their index, and because attributes this reader does not know are reported
//! with a warning instead of being refused or silently dropped.
//!
//! What is read: the root attributes, `CoSimulation` (required to run the FMU; of
//! `ModelExchange` and `ScheduledExecution` only whether they are there and, to describe an
//! FMU without `CoSimulation`, their `modelIdentifier`), `UnitDefinitions` and `TypeDefinitions` (for the unit
//! and display unit of Float variables), `LogCategories` (checked only), `DefaultExperiment`,
//! `ModelVariables` (in [`variables`]) and `ModelStructure`. Elements are named in errors by
//! their path, with XPath-style positions among same-named siblings, starting at 1:
//! `ModelVariables/Float64[3] 'x'` is the third `Float64` element, named `x`.
//!
//! Spec: FMI 3.0 §2.4.1 (`fmiModelDescription`), §2.4.3 (`UnitDefinitions`), §2.4.4
//! (`TypeDefinitions`), §2.4.5 (`LogCategories`), §2.4.6 (`DefaultExperiment`), §2.4.7
//! (`ModelVariables`), §2.4.8 (`ModelStructure`), §4.3.1 (`CoSimulation`).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use super::convert::{Ctx, NO_DEPENDENCIES, NO_OUTPUT};
use super::model_exchange::MODEL_EXCHANGE_ATTRIBUTES;
use super::{ROOT, RawDefaultExperiment};
use crate::model_description::{
    Capabilities, ClockVariable, FmiVersion, Interfaces, ModelDescription, ModelExchange,
    OutputDependency, ScalarVariable,
};
use crate::{Error, Result};

mod variables;

use crate::xml_tree::{Node, Tree};

/// How an `fmiVersion` reads as FMI 3.0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Release {
    /// `3.0`, or a patch release `3.0.x`.
    Final,
    /// A pre-release such as `3.0-beta.3` or `3.0-rc.1`: read as 3.0, with a warning.
    PreRelease,
}

/// The FMI 3.0 release `version` names, or `None` when it is not FMI 3.0 (`3.1` and `4.0` are
/// not).
pub(super) fn release(version: &str) -> Option<Release> {
    let rest = version.strip_prefix("3.0")?;
    if rest.is_empty() {
        return Some(Release::Final);
    }
    if let Some(patch) = rest.strip_prefix('.')
        && !patch.is_empty()
        && patch.bytes().all(|b| b.is_ascii_digit())
    {
        return Some(Release::Final);
    }
    match rest.strip_prefix('-') {
        Some(label) if !label.is_empty() => Some(Release::PreRelease),
        _ => None,
    }
}

/// Reads an FMI 3.0 description; `version` is the `fmiVersion` as written. Warnings (each
/// starting with the file name) are appended to `warnings`, also when reading fails.
pub(super) fn parse(
    xml: &str,
    ctx: &Ctx<'_>,
    version: &str,
    release: Release,
    warnings: &mut Vec<String>,
) -> Result<ModelDescription> {
    let tree = Tree::parse(xml, ctx.path)?;
    let reader = Reader {
        ctx,
        tree: &tree,
        warned: RefCell::default(),
        warnings: RefCell::default(),
    };
    if release == Release::PreRelease {
        reader.warn(format!(
            "fmiVersion '{version}' is a pre-release of FMI 3.0; reading it as FMI 3.0 (its \
             schema may differ from the release)"
        ));
    }
    let result = reader.model_description();
    warnings.append(&mut reader.warnings.borrow_mut());
    result
}

// ------------------------------------------------------------------------------------------
// Attributes each element may have (FMI 3.0 schema); others are reported, once per element
// name and attribute.
// ------------------------------------------------------------------------------------------

const ROOT_ATTRIBUTES: &[&str] = &[
    "fmiVersion",
    "modelName",
    "instantiationToken",
    "description",
    "author",
    "version",
    "copyright",
    "license",
    "generationTool",
    "generationDateAndTime",
    "variableNamingConvention",
];

const CO_SIMULATION_ATTRIBUTES: &[&str] = &[
    "modelIdentifier",
    "needsExecutionTool",
    "canBeInstantiatedOnlyOncePerProcess",
    "canGetAndSetFMUState",
    "canSerializeFMUState",
    "providesDirectionalDerivatives",
    "providesAdjointDerivatives",
    "providesPerElementDependencies",
    "canHandleVariableCommunicationStepSize",
    "fixedInternalStepSize",
    "maxOutputDerivativeOrder",
    "recommendedIntermediateInputSmoothness",
    "providesIntermediateUpdate",
    "mightReturnEarlyFromDoStep",
    "canReturnEarlyAfterIntermediateUpdate",
    "hasEventMode",
    "providesEvaluateDiscreteStates",
];

/// Attributes of type definitions besides `name` and `description`.
const REAL_TYPE_ATTRIBUTES: &[&str] = &[
    "quantity",
    "unit",
    "displayUnit",
    "relativeQuantity",
    "unbounded",
    "min",
    "max",
    "nominal",
];

const INTEGER_TYPE_ATTRIBUTES: &[&str] = &["quantity", "min", "max"];

/// Attributes of `Clock` variables and `ClockType`s besides the common ones.
const CLOCK_ATTRIBUTES: &[&str] = &[
    "canBeDeactivated",
    "priority",
    "intervalVariability",
    "intervalDecimal",
    "shiftDecimal",
    "supportsFraction",
    "resolution",
    "intervalCounter",
    "shiftCounter",
];

const DEPENDENCY_ATTRIBUTES: &[&str] = &["valueReference", "dependencies", "dependenciesKind"];

/// The children of `ModelStructure`.
const MODEL_STRUCTURE_ELEMENTS: &[&str] = &[
    "Output",
    "ContinuousStateDerivative",
    "ClockedState",
    "InitialUnknown",
    "EventIndicator",
];

/// The unit and display unit a `Float32Type`/`Float64Type` gives its variables.
struct TypeDefinition {
    /// The element name, e.g. `Float64Type`.
    element: String,
    /// `unit` (empty values dropped).
    unit: Option<String>,
    /// `displayUnit` (empty values dropped).
    display_unit: Option<String>,
}

/// What the reader needs from `UnitDefinitions` and `TypeDefinitions`.
struct Definitions {
    /// Display unit names of each unit, by unit name.
    display_units: HashMap<String, Vec<String>>,
    /// Type definitions by name.
    types: HashMap<String, TypeDefinition>,
}

/// The reader of one document: the file, its tree, and the warnings already given.
struct Reader<'a> {
    ctx: &'a Ctx<'a>,
    tree: &'a Tree,
    /// `(element name, attribute)` pairs already reported as unknown, and other once-only
    /// warnings (`("declaredType", name)`).
    warned: RefCell<HashSet<(String, String)>>,
    /// The warnings so far, each starting with the file name.
    warnings: RefCell<Vec<String>>,
}

/// `parent/child[k]`: the `k`-th (from 1) `child` among its same-named siblings.
fn path_of(parent: &str, child: &str, k: usize) -> String {
    if parent.is_empty() {
        format!("{child}[{k}]")
    } else {
        format!("{parent}/{child}[{k}]")
    }
}

impl Reader<'_> {
    /// Warns once per (element name, attribute) about each attribute of `node` outside
    /// `known`; namespace declarations and prefixed attributes (`xmlns`, `xsi:…`) are skipped.
    fn check(&self, element: &str, node: &Node, known: &[&str]) {
        self.check_all(element, node, &[known]);
    }

    /// As [`Reader::check`], with the known attributes in several lists.
    fn check_all(&self, element: &str, node: &Node, known: &[&[&str]]) {
        for attribute in node.attribute_names() {
            if known.iter().any(|list| list.contains(&attribute))
                || attribute.starts_with("xmlns")
                || attribute.contains(':')
            {
                continue;
            }
            self.warn_once((&node.name, attribute), || {
                format!(
                    "{element}: attribute '{attribute}' is not part of FMI 3.0 and is ignored \
                     (later ones on '{}' elements are not reported)",
                    node.name
                )
            });
        }
    }

    /// Records a warning about the file.
    fn warn(&self, message: String) {
        self.warnings
            .borrow_mut()
            .push(format!("{}: {message}", self.ctx.path.display()));
    }

    /// Records a warning once per `key`.
    fn warn_once(&self, key: (&str, &str), message: impl FnOnce() -> String) {
        if self
            .warned
            .borrow_mut()
            .insert((key.0.to_owned(), key.1.to_owned()))
        {
            self.warn(message());
        }
    }

    /// An optional `xs:boolean` attribute: `true`/`1` or `false`/`0` (absent = false).
    fn boolean(&self, element: &str, attribute: &'static str, node: &Node) -> Result<bool> {
        match node.get(attribute).map(str::trim) {
            None | Some("false" | "0") => Ok(false),
            Some("true" | "1") => Ok(true),
            Some(_) => Err(self.ctx.invalid(
                element,
                attribute,
                node.get(attribute).unwrap_or_default(),
                "true, false, 1 or 0",
            )),
        }
    }

    /// An optional unsigned 32-bit integer attribute.
    fn unsigned(&self, element: &str, attribute: &'static str, node: &Node) -> Result<Option<u32>> {
        self.ctx.number(
            element,
            attribute,
            &node.owned(attribute),
            "an unsigned 32-bit integer",
        )
    }

    fn model_description(&self) -> Result<ModelDescription> {
        let root = self.tree.root();
        self.check(ROOT, root, ROOT_ATTRIBUTES);
        let model_name = self
            .ctx
            .required(ROOT, "modelName", root.owned("modelName"))?;
        let guid =
            self.ctx
                .required(ROOT, "instantiationToken", root.owned("instantiationToken"))?;
        let [cs, me, se] = ["CoSimulation", "ModelExchange", "ScheduledExecution"]
            .map(|element| self.tree.child(root, element));
        let interfaces = Interfaces {
            co_simulation: cs.is_some(),
            model_exchange: me.is_some(),
            scheduled_execution: se.is_some(),
        };
        let (model_identifier, capabilities) = match (cs, me, se) {
            (Some(cs), _, _) => self.co_simulation(cs)?,
            (None, Some(other), _) | (None, None, Some(other)) => self.ctx.without_co_simulation(
                FmiVersion::V3,
                interfaces,
                if me.is_some() {
                    "ModelExchange"
                } else {
                    "ScheduledExecution"
                },
                other.owned("modelIdentifier"),
            )?,
            (None, None, None) => {
                self.ctx
                    .without_co_simulation(FmiVersion::V3, interfaces, ROOT, None)?
            }
        };
        let definitions = Definitions {
            display_units: self.units(root)?,
            types: self.types(root)?,
        };
        self.log_categories(root);
        let default_experiment = self
            .tree
            .child(root, "DefaultExperiment")
            .map(|node| self.default_experiment(node))
            .transpose()?;
        let model_variables =
            self.tree
                .child(root, "ModelVariables")
                .ok_or_else(|| Error::MissingElement {
                    path: self.ctx.path.to_owned(),
                    parent: ROOT.to_owned(),
                    element: "ModelVariables",
                })?;
        let (variables, clocks, empty) = self.variables(model_variables, &definitions)?;
        let outputs = self.model_structure(root, &variables, &clocks, &empty)?;
        let me = self.ctx.model_exchange_v3(
            interfaces,
            self.tree,
            root,
            me.map(|me| self.model_exchange(me)),
            model_variables,
            &variables,
            &empty,
        )?;
        Ok(ModelDescription {
            fmi_version: FmiVersion::V3,
            model_name,
            guid,
            description: root.owned("description"),
            generation_tool: root.owned("generationTool"),
            model_identifier,
            interfaces,
            capabilities,
            default_experiment,
            variables,
            clocks,
            outputs,
            model_exchange: me.model_exchange,
            number_of_event_indicators: me.number_of_event_indicators,
            continuous_states: me.continuous_states,
        })
    }

    /// `modelIdentifier` and the capability flags of the `ModelExchange` element.
    fn model_exchange(&self, me: &Node) -> Result<ModelExchange> {
        const ME: &str = "ModelExchange";
        self.check(ME, me, MODEL_EXCHANGE_ATTRIBUTES);
        let model_identifier = self.ctx.model_identifier(ME, me.owned("modelIdentifier"))?;
        // Validated for well-formedness, not used.
        for attribute in [
            "needsExecutionTool",
            "providesAdjointDerivatives",
            "providesPerElementDependencies",
            "providesEvaluateDiscreteStates",
        ] {
            self.boolean(ME, attribute, me)?;
        }
        let capabilities = Capabilities {
            can_get_and_set_fmu_state: self.boolean(ME, "canGetAndSetFMUState", me)?,
            can_serialize_fmu_state: self.boolean(ME, "canSerializeFMUState", me)?,
            can_be_instantiated_only_once_per_process: self.boolean(
                ME,
                "canBeInstantiatedOnlyOncePerProcess",
                me,
            )?,
            provides_directional_derivative: self.boolean(
                ME,
                "providesDirectionalDerivatives",
                me,
            )?,
            ..Capabilities::default()
        };
        Ok(ModelExchange {
            model_identifier,
            capabilities,
            completed_integrator_step_not_needed: !self.boolean(
                ME,
                "needsCompletedIntegratorStep",
                me,
            )?,
        })
    }

    /// `modelIdentifier` and the capability flags of the `CoSimulation` element.
    fn co_simulation(&self, cs: &Node) -> Result<(String, Capabilities)> {
        const CS: &str = "CoSimulation";
        self.check(CS, cs, CO_SIMULATION_ATTRIBUTES);
        let model_identifier = self.ctx.model_identifier(CS, cs.owned("modelIdentifier"))?;
        // Validated for well-formedness, not used.
        for attribute in [
            "needsExecutionTool",
            "providesAdjointDerivatives",
            "providesPerElementDependencies",
            "providesIntermediateUpdate",
            "providesEvaluateDiscreteStates",
        ] {
            self.boolean(CS, attribute, cs)?;
        }
        self.ctx.number::<i32>(
            CS,
            "recommendedIntermediateInputSmoothness",
            &cs.owned("recommendedIntermediateInputSmoothness"),
            "an integer",
        )?;
        let fixed_internal_step_size = match self.ctx.number::<f64>(
            CS,
            "fixedInternalStepSize",
            &cs.owned("fixedInternalStepSize"),
            "a positive number of seconds",
        )? {
            Some(h) if !(h.is_finite() && h > 0.0) => {
                return Err(self.ctx.invalid(
                    CS,
                    "fixedInternalStepSize",
                    cs.get("fixedInternalStepSize").unwrap_or_default(),
                    "a positive number of seconds",
                ));
            }
            h => h,
        };
        let capabilities = Capabilities {
            can_handle_variable_communication_step_size: self.boolean(
                CS,
                "canHandleVariableCommunicationStepSize",
                cs,
            )?,
            can_interpolate_inputs: false,
            can_get_and_set_fmu_state: self.boolean(CS, "canGetAndSetFMUState", cs)?,
            can_serialize_fmu_state: self.boolean(CS, "canSerializeFMUState", cs)?,
            can_be_instantiated_only_once_per_process: self.boolean(
                CS,
                "canBeInstantiatedOnlyOncePerProcess",
                cs,
            )?,
            provides_directional_derivative: self.boolean(
                CS,
                "providesDirectionalDerivatives",
                cs,
            )?,
            can_run_asynchronuously: false,
            max_output_derivative_order: self
                .unsigned(CS, "maxOutputDerivativeOrder", cs)?
                .unwrap_or(0),
            can_reject_steps: false,
            has_event_mode: self.boolean(CS, "hasEventMode", cs)?,
            might_return_early_from_do_step: self.boolean(CS, "mightReturnEarlyFromDoStep", cs)?,
            can_return_early_after_intermediate_update: self.boolean(
                CS,
                "canReturnEarlyAfterIntermediateUpdate",
                cs,
            )?,
            fixed_internal_step_size,
        };
        Ok((model_identifier, capabilities))
    }

    /// `UnitDefinitions`: the display unit names of each unit; numbers are checked.
    fn units(&self, root: &Node) -> Result<HashMap<String, Vec<String>>> {
        const REAL: &str = "a real number";
        const EXPONENT: &str = "an integer exponent";
        let mut units = HashMap::new();
        let Some(definitions) = self.tree.child(root, "UnitDefinitions") else {
            return Ok(units);
        };
        for (k, unit) in self.tree.children_named(definitions, "Unit").enumerate() {
            let element = path_of("UnitDefinitions", "Unit", k + 1);
            self.check(&element, unit, &["name"]);
            let name = self.ctx.required(&element, "name", unit.owned("name"))?;
            let element = format!("{element} '{name}'");
            for base in self.tree.children_named(unit, "BaseUnit") {
                let element = format!("{element}/BaseUnit");
                const EXPONENTS: [&str; 8] = ["kg", "m", "s", "A", "K", "mol", "cd", "rad"];
                self.check(
                    &element,
                    base,
                    &[
                        "kg", "m", "s", "A", "K", "mol", "cd", "rad", "factor", "offset",
                    ],
                );
                for exponent in EXPONENTS {
                    self.ctx
                        .number::<i32>(&element, exponent, &base.owned(exponent), EXPONENT)?;
                }
                self.ctx
                    .number::<f64>(&element, "factor", &base.owned("factor"), REAL)?;
                self.ctx
                    .number::<f64>(&element, "offset", &base.owned("offset"), REAL)?;
            }
            let mut display_units = Vec::new();
            for (j, display) in self.tree.children_named(unit, "DisplayUnit").enumerate() {
                let element = path_of(&element, "DisplayUnit", j + 1);
                self.check(&element, display, &["name", "factor", "offset", "inverse"]);
                let display_name = self.ctx.required(&element, "name", display.owned("name"))?;
                self.ctx
                    .number::<f64>(&element, "factor", &display.owned("factor"), REAL)?;
                self.ctx
                    .number::<f64>(&element, "offset", &display.owned("offset"), REAL)?;
                self.boolean(&element, "inverse", display)?;
                display_units.push(display_name);
            }
            units.insert(name, display_units);
        }
        Ok(units)
    }

    /// `TypeDefinitions`: every type by name; each needs a name. Unknown type elements are
    /// reported and skipped.
    fn types(&self, root: &Node) -> Result<HashMap<String, TypeDefinition>> {
        let mut types = HashMap::new();
        let Some(definitions) = self.tree.child(root, "TypeDefinitions") else {
            return Ok(types);
        };
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for node in self.tree.children(definitions) {
            let k = seen.entry(node.name.as_str()).or_default();
            *k += 1;
            let element = path_of("TypeDefinitions", &node.name, *k);
            let known: &[&str] = match node.name.as_str() {
                "Float32Type" | "Float64Type" => REAL_TYPE_ATTRIBUTES,
                "Int8Type" | "UInt8Type" | "Int16Type" | "UInt16Type" | "Int32Type"
                | "UInt32Type" | "Int64Type" | "UInt64Type" | "EnumerationType" => {
                    INTEGER_TYPE_ATTRIBUTES
                }
                "BooleanType" | "StringType" => &[],
                "BinaryType" => &["mimeType", "maxSize"],
                "ClockType" => CLOCK_ATTRIBUTES,
                _ => {
                    self.warn_once(("TypeDefinitions", &node.name), || {
                        format!("{element}: not an FMI 3.0 type definition; ignored")
                    });
                    continue;
                }
            };
            self.check_all(&element, node, &[&["name", "description"], known]);
            let name = self.ctx.required(&element, "name", node.owned("name"))?;
            if node.name == "EnumerationType" {
                self.enumeration_items(&format!("{element} '{name}'"), node)?;
            }
            let non_empty = |attribute: &str| node.owned(attribute).filter(|u| !u.is_empty());
            types.entry(name).or_insert(TypeDefinition {
                element: node.name.clone(),
                unit: non_empty("unit"),
                display_unit: non_empty("displayUnit"),
            });
        }
        Ok(types)
    }

    /// Checks the `Item`s of an `EnumerationType`: each has a name and an integer value.
    fn enumeration_items(&self, element: &str, node: &Node) -> Result<()> {
        for (k, item) in self.tree.children_named(node, "Item").enumerate() {
            let element = path_of(element, "Item", k + 1);
            self.check(&element, item, &["name", "value", "description"]);
            self.ctx.required(&element, "name", item.owned("name"))?;
            let value = self.ctx.required(&element, "value", item.owned("value"))?;
            self.ctx
                .number::<i64>(&element, "value", &Some(value), "a 64-bit integer")?;
        }
        Ok(())
    }

    /// `LogCategories`: only the attributes are checked.
    fn log_categories(&self, root: &Node) {
        if let Some(categories) = self.tree.child(root, "LogCategories") {
            for (k, category) in self.tree.children_named(categories, "Category").enumerate() {
                let element = path_of("LogCategories", "Category", k + 1);
                self.check(&element, category, &["name", "description"]);
            }
        }
    }

    fn default_experiment(&self, node: &Node) -> Result<crate::DefaultExperiment> {
        const EL: &str = "DefaultExperiment";
        self.check(
            EL,
            node,
            &["startTime", "stopTime", "tolerance", "stepSize"],
        );
        Ok(self.ctx.default_experiment(&RawDefaultExperiment {
            start_time: node.owned("startTime"),
            stop_time: node.owned("stopTime"),
            tolerance: node.owned("tolerance"),
            step_size: node.owned("stepSize"),
        }))
    }

    /// `ModelStructure`: every entry must have a value reference; the `Output` entries of
    /// variables become [`OutputDependency`]s. mastersim does not need `ModelStructure` to run
    /// an FMU, so a value reference that names no variable or clock is not an error: such an
    /// entry is left out, and an entry with such a dependency keeps no dependency list (it
    /// depends on everything), each with a warning.
    ///
    /// [`OutputDependency`] counts in scalar indices (1-based positions in `variables`): a
    /// value reference stands for the first scalar that has it, which for an array is its
    /// first element (the dependencies of the other elements are not told apart). Clocks and
    /// arrays without elements (value references in `empty`) have no scalar index: they are
    /// not listed as outputs, and are dropped from `dependencies`.
    fn model_structure(
        &self,
        root: &Node,
        variables: &[ScalarVariable],
        clocks: &[ClockVariable],
        empty: &[u32],
    ) -> Result<Vec<OutputDependency>> {
        let Some(structure) = self.tree.child(root, "ModelStructure") else {
            return Ok(Vec::new());
        };
        let mut first_scalar: HashMap<u32, usize> = HashMap::with_capacity(variables.len());
        for v in variables {
            first_scalar.entry(v.value_reference.0).or_insert(v.index);
        }
        let unindexed: HashSet<u32> = clocks
            .iter()
            .map(|c| c.value_reference.0)
            .chain(empty.iter().copied())
            .collect();
        const REFERENCE: &str = "the value reference of a variable in ModelVariables";
        // The scalar index of a value reference (inner `None` for a clock or an empty array);
        // `None`, with a warning ending in `consequence`, when it names nothing.
        let scalar = |element: &str, attribute: &str, text: &str, consequence: &str| {
            let found = match text.parse::<u32>() {
                Ok(vr) if unindexed.contains(&vr) => Some(None),
                Ok(vr) => first_scalar.get(&vr).map(|&i| Some(i)),
                Err(_) => None,
            };
            if found.is_none() {
                self.warn(format!(
                    "{element}: invalid value '{text}' of attribute '{attribute}' (expected \
                     {REFERENCE}); {consequence}"
                ));
            }
            found
        };
        let mut outputs = Vec::new();
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for node in self.tree.children(structure) {
            if !MODEL_STRUCTURE_ELEMENTS.contains(&node.name.as_str()) {
                self.warn_once(("ModelStructure", &node.name), || {
                    format!(
                        "ModelStructure/{}: not an FMI 3.0 ModelStructure element; ignored",
                        node.name
                    )
                });
                continue;
            }
            let k = seen.entry(node.name.as_str()).or_default();
            *k += 1;
            let element = path_of("ModelStructure", &node.name, *k);
            self.check(&element, node, DEPENDENCY_ATTRIBUTES);
            let vr = self
                .ctx
                .required(&element, "valueReference", node.owned("valueReference"))?;
            let Some(index) = scalar(&element, "valueReference", vr.trim(), NO_OUTPUT) else {
                continue;
            };
            let dependencies = node.get("dependencies").and_then(|list| {
                list.split_whitespace()
                    .map(|d| scalar(&element, "dependencies", d, NO_DEPENDENCIES))
                    .collect::<Option<Vec<_>>>()
                    .map(|found| found.into_iter().flatten().collect())
            });
            if let ("Output", Some(index)) = (node.name.as_str(), index) {
                outputs.push(OutputDependency {
                    index,
                    dependencies,
                });
            }
        }
        Ok(outputs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases() {
        assert_eq!(release("3.0"), Some(Release::Final));
        assert_eq!(release("3.0.1"), Some(Release::Final));
        assert_eq!(release("3.0-beta.3"), Some(Release::PreRelease));
        assert_eq!(release("3.0-rc.1"), Some(Release::PreRelease));
        for other in ["3.1", "4.0", "3", "3.0.", "3.0-", "3.0.x", "3.01", " 3.0"] {
            assert_eq!(release(other), None, "{other}");
        }
    }
}
