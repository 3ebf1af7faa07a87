//! Conversion of the raw structs into the version-neutral [`ModelDescription`], with every
//! check that needs more than the XML syntax (required attributes, keyword sets, numbers, the
//! type element of a variable, and the checks across variables in [`consistency`]). Errors name
//! the file and the element.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::str::FromStr;

use super::{
    Accept, ROOT, RawCoSimulationV2, RawDefaultExperiment, RawImplementationV1, RawModelStructure,
    RawModelVariables, RawTypeElement, RawV1, RawV2, RawVariable,
};
use crate::model_description::{
    Alias, Capabilities, Causality, DataType, DefaultExperiment, FmiVersion, Initial, Interfaces,
    ModelDescription, OutputDependency, ScalarVariable, VarType, Variability,
};
use crate::{Error, Result, ValueRef};

mod consistency;

pub(super) use consistency::repeated_names;

/// The end of the warning about a `ModelStructure` output that names no variable.
pub(super) const NO_OUTPUT: &str =
    "the entry is ignored (mastersim does not need ModelStructure to run the FMU)";

/// The end of the warning about a `ModelStructure` dependency that names no variable.
pub(super) const NO_DEPENDENCIES: &str = "its dependency list is ignored, as if it depended on \
     every variable (mastersim does not need ModelStructure to run the FMU)";

// ------------------------------------------------------------------------------------------

/// Error context: the file, plus helpers that build errors naming it, and the warnings about
/// it so far (the rules of FMI a file breaks without being ambiguous or unsafe to run).
pub(super) struct Ctx<'a> {
    pub(super) path: &'a Path,
    /// Which descriptions are accepted: to run (co-simulation only) or to describe.
    pub(super) accept: Accept,
    /// The warnings so far, each starting with the file name.
    pub(super) warnings: RefCell<Vec<String>>,
}

impl<'a> Ctx<'a> {
    /// The context of the file `path`, without warnings yet.
    pub(super) fn new(path: &'a Path) -> Self {
        Ctx {
            path,
            accept: Accept::CoSimulation,
            warnings: RefCell::default(),
        }
    }

    /// The model identifier and (all off) capabilities of an FMU without a co-simulation
    /// interface, which offers `interfaces`: its `identifier` read from `element` (the
    /// Model Exchange or Scheduled Execution element) when describing it.
    ///
    /// # Errors
    /// [`Error::NoCoSimulation`] naming the interfaces when the FMU is read to run, or offers
    /// no interface at all; the errors of [`Ctx::model_identifier`].
    pub(super) fn without_co_simulation(
        &self,
        version: FmiVersion,
        interfaces: Interfaces,
        element: &str,
        identifier: Option<String>,
    ) -> Result<(String, Capabilities)> {
        let offered = interfaces.model_exchange || interfaces.scheduled_execution;
        if self.accept == Accept::CoSimulation || !offered {
            return Err(Error::NoCoSimulation {
                path: self.path.to_owned(),
                version,
                interfaces,
            });
        }
        let identifier = self.model_identifier(element, identifier)?;
        Ok((identifier, Capabilities::default()))
    }

    /// Records a warning about the file (`message` names the element).
    pub(super) fn warn(&self, message: String) {
        self.warnings
            .borrow_mut()
            .push(format!("{}: {message}", self.path.display()));
    }
    pub(super) fn required(
        &self,
        element: &str,
        attribute: &'static str,
        value: Option<String>,
    ) -> Result<String> {
        value.ok_or_else(|| Error::MissingAttribute {
            path: self.path.to_owned(),
            element: element.to_owned(),
            attribute,
        })
    }

    pub(super) fn invalid(
        &self,
        element: &str,
        attribute: &'static str,
        value: &str,
        expected: &'static str,
    ) -> Error {
        Error::InvalidAttribute {
            path: self.path.to_owned(),
            element: element.to_owned(),
            attribute,
            value: value.to_owned(),
            expected,
        }
    }

    /// An optional boolean attribute (absent = false); only `true` and `false` are accepted.
    pub(super) fn boolean(
        &self,
        element: &str,
        attribute: &'static str,
        value: &Option<String>,
    ) -> Result<bool> {
        match value.as_deref() {
            None | Some("false") => Ok(false),
            Some("true") => Ok(true),
            Some(other) => Err(self.invalid(element, attribute, other, "true or false")),
        }
    }

    pub(super) fn number<T: FromStr>(
        &self,
        element: &str,
        attribute: &'static str,
        value: &Option<String>,
        expected: &'static str,
    ) -> Result<Option<T>> {
        value
            .as_deref()
            .map(|text| {
                text.trim()
                    .parse()
                    .map_err(|_| self.invalid(element, attribute, text, expected))
            })
            .transpose()
    }

    /// The required `modelIdentifier`: it names the library
    /// `binaries/<platform>/<modelIdentifier>.so`, so it must be a plain file-name stem. An empty
    /// value, `/`, `\` or NUL is refused: with a separator, `Fmu::load` would `dlopen` (and run
    /// the constructors of) a library outside the FMU.
    ///
    /// Spec: FMI 2.0.2 §2.2.1 and §4.3.1, FMI 1.0 §2.2 (`modelIdentifier`: a short class name
    /// in C syntax, also the name of the shared library).
    pub(super) fn model_identifier(&self, element: &str, value: Option<String>) -> Result<String> {
        let id = self.required(element, "modelIdentifier", value)?;
        if id.is_empty() || id.contains(['/', '\\', '\0']) {
            return Err(self.invalid(
                element,
                "modelIdentifier",
                &id,
                "a C identifier such as 'A_B_C' (it names the shared library, so no path)",
            ));
        }
        Ok(id)
    }

    /// One of a fixed set of keywords; `None` when the attribute is absent.
    pub(super) fn keyword<T: Copy>(
        &self,
        element: &str,
        attribute: &'static str,
        value: &Option<String>,
        table: &[(&str, T)],
        expected: &'static str,
    ) -> Result<Option<T>> {
        let Some(text) = value.as_deref() else {
            return Ok(None);
        };
        table
            .iter()
            .find(|(keyword, _)| *keyword == text)
            .map(|&(_, v)| Some(v))
            .ok_or_else(|| self.invalid(element, attribute, text, expected))
    }

    /// The `DefaultExperiment` (all versions). It only suggests settings, so a value that is
    /// not a number is not an error: it is left out with a warning, and the setting falls back
    /// as if the FMU gave none.
    pub(super) fn default_experiment(&self, raw: &RawDefaultExperiment) -> DefaultExperiment {
        const EL: &str = "DefaultExperiment";
        let number = |attribute: &'static str, value: &Option<String>| {
            self.number(EL, attribute, value, "a real number")
                .unwrap_or_else(|_| {
                    self.warn(format!(
                        "{EL}: invalid value '{}' of attribute '{attribute}' (expected a real \
                         number); ignored, as if the FMU gave none (a default experiment only \
                         suggests settings)",
                        value.as_deref().unwrap_or_default()
                    ));
                    None
                })
        };
        DefaultExperiment {
            start_time: number("startTime", &raw.start_time),
            stop_time: number("stopTime", &raw.stop_time),
            tolerance: number("tolerance", &raw.tolerance),
            step_size: number("stepSize", &raw.step_size),
        }
    }

    fn variables(
        &self,
        raw: Option<RawModelVariables>,
        version: FmiVersion,
        units: &HashMap<String, String>,
    ) -> Result<Vec<ScalarVariable>> {
        let raw = raw.ok_or_else(|| Error::MissingElement {
            path: self.path.to_owned(),
            parent: ROOT.to_owned(),
            element: "ModelVariables",
        })?;
        let variables = raw
            .variables
            .into_iter()
            .enumerate()
            .map(|(i, v)| self.variable(i + 1, v, version, units))
            .collect::<Result<Vec<_>>>()?;
        self.warn_repeated_names(&variables);
        if version == FmiVersion::V1 {
            self.check_alias_bases(&variables)?;
        }
        Ok(variables)
    }

    fn variable(
        &self,
        index: usize,
        raw: RawVariable,
        version: FmiVersion,
        units: &HashMap<String, String>,
    ) -> Result<ScalarVariable> {
        let element = match &raw.name {
            Some(name) => format!("ScalarVariable #{index} '{name}'"),
            None => format!("ScalarVariable #{index}"),
        };
        let name = self.required(&element, "name", raw.name)?;
        let vr_text = self.required(&element, "valueReference", raw.value_reference)?;
        let value_reference = vr_text.trim().parse().map_err(|_| {
            self.invalid(
                &element,
                "valueReference",
                &vr_text,
                "an unsigned 32-bit integer",
            )
        })?;

        let candidates = [
            ("Real", VarType::Real, raw.real),
            ("Integer", VarType::Integer, raw.integer),
            ("Boolean", VarType::Boolean, raw.boolean),
            ("String", VarType::String, raw.string),
            ("Enumeration", VarType::Integer, raw.enumeration),
        ];
        let mut present: Vec<(&'static str, VarType, RawTypeElement)> = candidates
            .into_iter()
            .filter_map(|(tag, ty, e)| e.map(|e| (tag, ty, e)))
            .collect();
        if present.len() != 1 {
            return Err(Error::TypeElement {
                path: self.path.to_owned(),
                element,
                found: present.iter().map(|(tag, _, _)| *tag).collect(),
            });
        }
        let (tag, var_type, type_element) = present.remove(0);

        let (causality, variability, initial, alias) = match version {
            FmiVersion::V2 | FmiVersion::V3 => {
                self.attributes_v2(&element, &raw.causality, &raw.variability, &raw.initial)?
            }
            FmiVersion::V1 => {
                self.attributes_v1(&element, &raw.causality, &raw.variability, &raw.alias)?
            }
        };

        let unit = if var_type == VarType::Real {
            type_element
                .unit
                .clone()
                .filter(|u| !u.is_empty())
                .or_else(|| {
                    type_element
                        .declared_type
                        .as_ref()
                        .and_then(|t| units.get(t).cloned())
                })
        } else {
            None
        };

        Ok(ScalarVariable {
            index,
            name,
            value_reference: ValueRef(value_reference),
            handle: ValueRef(value_reference),
            data_type: match var_type {
                VarType::Real => DataType::Float64,
                VarType::Integer => DataType::Int32,
                VarType::Boolean => DataType::Boolean,
                VarType::String | VarType::Binary => DataType::String,
            },
            array: None,
            description: raw.description,
            causality,
            variability,
            initial,
            var_type,
            is_enumeration: tag == "Enumeration",
            start: type_element.start,
            unit,
            display_unit: None,
            declared_type: type_element.declared_type,
            alias,
        })
    }

    fn attributes_v2(
        &self,
        element: &str,
        causality: &Option<String>,
        variability: &Option<String>,
        initial: &Option<String>,
    ) -> Result<(Causality, Variability, Option<Initial>, Alias)> {
        let causality = self
            .keyword(
                element,
                "causality",
                causality,
                &[
                    ("parameter", Causality::Parameter),
                    ("calculatedParameter", Causality::CalculatedParameter),
                    ("input", Causality::Input),
                    ("output", Causality::Output),
                    ("local", Causality::Local),
                    ("independent", Causality::Independent),
                ],
                "parameter, calculatedParameter, input, output, local or independent",
            )?
            .unwrap_or(Causality::Local);
        let variability = self
            .keyword(
                element,
                "variability",
                variability,
                &[
                    ("constant", Variability::Constant),
                    ("fixed", Variability::Fixed),
                    ("tunable", Variability::Tunable),
                    ("discrete", Variability::Discrete),
                    ("continuous", Variability::Continuous),
                ],
                "constant, fixed, tunable, discrete or continuous",
            )?
            .unwrap_or(Variability::Continuous);
        let initial = self.keyword(
            element,
            "initial",
            initial,
            &[
                ("exact", Initial::Exact),
                ("approx", Initial::Approx),
                ("calculated", Initial::Calculated),
            ],
            "exact, approx or calculated",
        )?;
        Ok((causality, variability, initial, Alias::NoAlias))
    }

    /// FMI 1.0 attributes, mapped onto the FMI 2.0 sets (see [`Causality`] and [`Variability`]).
    fn attributes_v1(
        &self,
        element: &str,
        causality: &Option<String>,
        variability: &Option<String>,
        alias: &Option<String>,
    ) -> Result<(Causality, Variability, Option<Initial>, Alias)> {
        #[derive(Clone, Copy, PartialEq)]
        enum V1Causality {
            Input,
            Output,
            Internal,
            None,
        }
        let is_parameter = variability.as_deref() == Some("parameter");
        let variability = self
            .keyword(
                element,
                "variability",
                variability,
                &[
                    ("constant", Variability::Constant),
                    ("parameter", Variability::Fixed),
                    ("discrete", Variability::Discrete),
                    ("continuous", Variability::Continuous),
                ],
                "constant, parameter, discrete or continuous",
            )?
            .unwrap_or(Variability::Continuous);
        let causality = match self
            .keyword(
                element,
                "causality",
                causality,
                &[
                    ("input", V1Causality::Input),
                    ("output", V1Causality::Output),
                    ("internal", V1Causality::Internal),
                    ("none", V1Causality::None),
                ],
                "input, output, internal or none",
            )?
            .unwrap_or(V1Causality::Internal)
        {
            V1Causality::Input | V1Causality::Internal if is_parameter => Causality::Parameter,
            V1Causality::Input => Causality::Input,
            V1Causality::Output => Causality::Output,
            V1Causality::Internal | V1Causality::None => Causality::Local,
        };
        let alias = self
            .keyword(
                element,
                "alias",
                alias,
                &[
                    ("noAlias", Alias::NoAlias),
                    ("alias", Alias::Alias),
                    ("negatedAlias", Alias::NegatedAlias),
                ],
                "noAlias, alias or negatedAlias",
            )?
            .unwrap_or_default();
        Ok((causality, variability, None, alias))
    }

    /// `ModelStructure/Outputs` (FMI 2.0). mastersim does not need it to run an FMU, so an
    /// index that names no variable is not an error: an `Unknown` whose `index` names none is
    /// left out, and one with such a dependency keeps no dependency list (it depends on
    /// everything), each with a warning. A missing `index` is still an error.
    fn outputs(
        &self,
        raw: Option<RawModelStructure>,
        n_variables: usize,
    ) -> Result<Vec<OutputDependency>> {
        const INDEX: &str = "an index into ModelVariables (1-based)";
        let unknowns = raw
            .and_then(|s| s.outputs)
            .map(|o| o.unknowns)
            .unwrap_or_default();
        let check = |element: &str, attribute: &str, text: &str, consequence: &str| {
            let index = text.parse::<usize>().ok();
            let index = index.filter(|i| (1..=n_variables).contains(i));
            if index.is_none() {
                self.warn(format!(
                    "{element}: invalid value '{text}' of attribute '{attribute}' (expected \
                     {INDEX}, there are {n_variables} variables); {consequence}"
                ));
            }
            index
        };
        let mut outputs = Vec::with_capacity(unknowns.len());
        for (k, unknown) in unknowns.into_iter().enumerate() {
            let element = format!("ModelStructure/Outputs/Unknown #{}", k + 1);
            let index_text = self.required(&element, "index", unknown.index)?;
            let Some(index) = check(&element, "index", index_text.trim(), NO_OUTPUT) else {
                continue;
            };
            let dependencies = unknown.dependencies.and_then(|list| {
                list.split_whitespace()
                    .map(|d| check(&element, "dependencies", d, NO_DEPENDENCIES))
                    .collect::<Option<Vec<_>>>()
            });
            outputs.push(OutputDependency {
                index,
                dependencies,
            });
        }
        Ok(outputs)
    }
}

/// The model identifier and capabilities of an FMI 2.0 `CoSimulation` element.
fn co_simulation_v2(cs: RawCoSimulationV2, ctx: &Ctx<'_>) -> Result<(String, Capabilities)> {
    const CS: &str = "CoSimulation";
    let model_identifier = ctx.model_identifier(CS, cs.model_identifier)?;
    // Validated for well-formedness, not used.
    ctx.boolean(CS, "needsExecutionTool", &cs.needs_execution_tool)?;
    ctx.boolean(
        CS,
        "canNotUseMemoryManagementFunctions",
        &cs.can_not_use_memory_management_functions,
    )?;
    let capabilities = Capabilities {
        can_handle_variable_communication_step_size: ctx.boolean(
            CS,
            "canHandleVariableCommunicationStepSize",
            &cs.can_handle_variable_communication_step_size,
        )?,
        can_interpolate_inputs: ctx.boolean(
            CS,
            "canInterpolateInputs",
            &cs.can_interpolate_inputs,
        )?,
        can_get_and_set_fmu_state: ctx.boolean(
            CS,
            "canGetAndSetFMUstate",
            &cs.can_get_and_set_fmu_state,
        )?,
        can_serialize_fmu_state: ctx.boolean(
            CS,
            "canSerializeFMUstate",
            &cs.can_serialize_fmu_state,
        )?,
        can_be_instantiated_only_once_per_process: ctx.boolean(
            CS,
            "canBeInstantiatedOnlyOncePerProcess",
            &cs.can_be_instantiated_only_once_per_process,
        )?,
        provides_directional_derivative: ctx.boolean(
            CS,
            "providesDirectionalDerivative",
            &cs.provides_directional_derivative,
        )?,
        can_run_asynchronuously: ctx.boolean(
            CS,
            "canRunAsynchronuously",
            &cs.can_run_asynchronuously,
        )?,
        max_output_derivative_order: ctx
            .number(
                CS,
                "maxOutputDerivativeOrder",
                &cs.max_output_derivative_order,
                "an unsigned integer",
            )?
            .unwrap_or(0),
        can_reject_steps: false,
        ..Capabilities::default()
    };
    Ok((model_identifier, capabilities))
}

pub(super) fn convert_v2(raw: RawV2, ctx: &Ctx<'_>) -> Result<ModelDescription> {
    let model_name = ctx.required(ROOT, "modelName", raw.model_name)?;
    let guid = ctx.required(ROOT, "guid", raw.guid)?;
    let interfaces = Interfaces {
        co_simulation: raw.co_simulation.is_some(),
        model_exchange: raw.model_exchange.is_some(),
        scheduled_execution: false,
    };
    let (model_identifier, capabilities) = match raw.co_simulation {
        Some(cs) => co_simulation_v2(cs, ctx)?,
        None => ctx.without_co_simulation(
            FmiVersion::V2,
            interfaces,
            "ModelExchange",
            raw.model_exchange
                .as_ref()
                .and_then(|me| me.model_identifier.clone()),
        )?,
    };
    let units: HashMap<String, String> = raw
        .type_definitions
        .map(|t| t.simple_types)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|t| Some((t.name?, t.real?.unit.filter(|u| !u.is_empty())?)))
        .collect();
    let default_experiment = raw
        .default_experiment
        .as_ref()
        .map(|d| ctx.default_experiment(d));
    let derivative_attributes: Vec<Option<String>> = raw
        .model_variables
        .iter()
        .flat_map(|m| &m.variables)
        .map(|v| v.real.as_ref().and_then(|r| r.derivative.clone()))
        .collect();
    let mut model_structure = raw.model_structure;
    let derivatives = model_structure.as_mut().and_then(|s| s.derivatives.take());
    let variables = ctx.variables(raw.model_variables, FmiVersion::V2, &units)?;
    let outputs = ctx.outputs(model_structure, variables.len())?;
    let me = ctx.model_exchange_v2(
        interfaces,
        raw.model_exchange,
        raw.number_of_event_indicators,
        derivatives,
        &derivative_attributes,
        &variables,
    )?;
    Ok(ModelDescription {
        fmi_version: FmiVersion::V2,
        model_name,
        guid,
        description: raw.description,
        generation_tool: raw.generation_tool,
        model_identifier,
        interfaces,
        capabilities,
        default_experiment,
        variables,
        clocks: Vec::new(),
        outputs,
        model_exchange: me.model_exchange,
        number_of_event_indicators: me.number_of_event_indicators,
        continuous_states: me.continuous_states,
    })
}

/// The capabilities of an FMI 1.0 `Implementation` element (`CoSimulation_StandAlone` or
/// `CoSimulation_Tool`).
fn co_simulation_v1(implementation: RawImplementationV1, ctx: &Ctx<'_>) -> Result<Capabilities> {
    let (element, cs) = match (implementation.stand_alone, implementation.tool) {
        (Some(cs), _) => ("CoSimulation_StandAlone/Capabilities", cs),
        (None, Some(cs)) => ("CoSimulation_Tool/Capabilities", cs),
        (None, None) => {
            return Err(Error::MissingElement {
                path: ctx.path.to_owned(),
                parent: "Implementation".to_owned(),
                element: "CoSimulation_StandAlone or CoSimulation_Tool",
            });
        }
    };
    let capabilities = match cs.capabilities {
        None => Capabilities::default(),
        Some(c) => {
            // Validated for well-formedness, not used.
            ctx.boolean(element, "canHandleEvents", &c.can_handle_events)?;
            ctx.boolean(element, "canSignalEvents", &c.can_signal_events)?;
            ctx.boolean(
                element,
                "canNotUseMemoryManagementFunctions",
                &c.can_not_use_memory_management_functions,
            )?;
            Capabilities {
                can_handle_variable_communication_step_size: ctx.boolean(
                    element,
                    "canHandleVariableCommunicationStepSize",
                    &c.can_handle_variable_communication_step_size,
                )?,
                can_interpolate_inputs: ctx.boolean(
                    element,
                    "canInterpolateInputs",
                    &c.can_interpolate_inputs,
                )?,
                can_get_and_set_fmu_state: false,
                can_serialize_fmu_state: false,
                can_be_instantiated_only_once_per_process: ctx.boolean(
                    element,
                    "canBeInstantiatedOnlyOncePerProcess",
                    &c.can_be_instantiated_only_once_per_process,
                )?,
                provides_directional_derivative: false,
                can_run_asynchronuously: ctx.boolean(
                    element,
                    "canRunAsynchronuously",
                    &c.can_run_asynchronuously,
                )?,
                max_output_derivative_order: ctx
                    .number(
                        element,
                        "maxOutputDerivativeOrder",
                        &c.max_output_derivative_order,
                        "an unsigned integer",
                    )?
                    .unwrap_or(0),
                can_reject_steps: ctx.boolean(element, "canRejectSteps", &c.can_reject_steps)?,
                ..Capabilities::default()
            }
        }
    };
    Ok(capabilities)
}

pub(super) fn convert_v1(raw: RawV1, ctx: &Ctx<'_>) -> Result<ModelDescription> {
    if ctx.accept == Accept::ModelExchange {
        return Err(Error::Fmi1ModelExchange {
            path: ctx.path.to_owned(),
        });
    }
    let model_name = ctx.required(ROOT, "modelName", raw.model_name)?;
    let guid = ctx.required(ROOT, "guid", raw.guid)?;
    let model_identifier = ctx.model_identifier(ROOT, raw.model_identifier)?;
    let interfaces = Interfaces {
        co_simulation: raw.implementation.is_some(),
        model_exchange: raw.implementation.is_none(),
        scheduled_execution: false,
    };
    let capabilities = match raw.implementation {
        Some(implementation) => co_simulation_v1(implementation, ctx)?,
        None => {
            ctx.without_co_simulation(
                FmiVersion::V1,
                interfaces,
                ROOT,
                Some(model_identifier.clone()),
            )?
            .1
        }
    };
    let units: HashMap<String, String> = raw
        .type_definitions
        .map(|t| t.types)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|t| Some((t.name?, t.real?.unit.filter(|u| !u.is_empty())?)))
        .collect();
    let default_experiment = raw
        .default_experiment
        .as_ref()
        .map(|d| ctx.default_experiment(d));
    let variables = ctx.variables(raw.model_variables, FmiVersion::V1, &units)?;
    Ok(ModelDescription {
        fmi_version: FmiVersion::V1,
        model_name,
        guid,
        description: raw.description,
        generation_tool: raw.generation_tool,
        model_identifier,
        interfaces,
        capabilities,
        default_experiment,
        variables,
        clocks: Vec::new(),
        outputs: Vec::new(),
        model_exchange: None,
        number_of_event_indicators: 0,
        continuous_states: Vec::new(),
    })
}
