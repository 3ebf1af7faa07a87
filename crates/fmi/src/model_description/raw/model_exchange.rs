//! The Model Exchange parts of a model description: the `ModelExchange` element, the number
//! of event indicators and the continuous states (each with its derivative) in state-vector
//! order, for FMI 2.0 (read through serde) and FMI 3.0 (read from the element tree).
//!
//! What makes the states ambiguous is an error ([`Error::ModelStructure`]): a derivative entry
//! that names no variable, a derivative variable without a `derivative` attribute or whose
//! attribute names no variable, two entries for one state or one derivative, a state that is
//! not a Real/Float variable, an FMI 3.0 array state whose size differs from its derivative's,
//! an event indicator that names no variable. A description read to run the FMU as Model
//! Exchange is refused with it; one read for co-simulation (or to describe the FMU) is read
//! with one warning that names the problem and says that the Model Exchange interface cannot
//! be used. A harmless breach is read with a warning: a state or derivative whose variability
//! is not `continuous`.
//!
//! Spec: FMI 2.0.2 §2.2.1 (`numberOfEventIndicators`), §2.2.7 (`derivative`), §2.2.8
//! (`ModelStructure/Derivatives`), §3.3.1 (`ModelExchange`); FMI 3.0 §2.4.7.5
//! (`derivative`), §2.4.8 (`ContinuousStateDerivative`, `EventIndicator`), §3.3.1.

use std::collections::HashMap;

use super::convert::Ctx;
use super::{Accept, RawModelExchange, RawUnknowns};
use crate::model_description::{
    Alias, Capabilities, ContinuousState, Interface, Interfaces, ModelExchange, ScalarVariable,
    Variability,
};
use crate::xml_tree::{Node, Tree};
use crate::{Error, Result, VarType};

/// What the Model Exchange parts of a description read to.
#[derive(Debug, Default)]
pub(super) struct MeParts {
    /// See [`crate::ModelDescription::model_exchange`].
    pub(super) model_exchange: Option<ModelExchange>,
    /// See [`crate::ModelDescription::number_of_event_indicators`].
    pub(super) number_of_event_indicators: usize,
    /// See [`crate::ModelDescription::continuous_states`].
    pub(super) continuous_states: Vec<ContinuousState>,
}

/// One derivative entry: the element that declares it and the 1-based scalar indices of the
/// derivative and of its state.
struct Entry {
    element: String,
    derivative: usize,
    state: usize,
}

/// The attributes an FMI 3.0 `ModelExchange` element may have.
pub(super) const MODEL_EXCHANGE_ATTRIBUTES: &[&str] = &[
    "modelIdentifier",
    "needsExecutionTool",
    "canBeInstantiatedOnlyOncePerProcess",
    "canGetAndSetFMUState",
    "canSerializeFMUState",
    "providesDirectionalDerivatives",
    "providesAdjointDerivatives",
    "providesPerElementDependencies",
    "needsCompletedIntegratorStep",
    "providesEvaluateDiscreteStates",
];

impl Ctx<'_> {
    fn structure_error(&self, element: &str, message: String) -> Error {
        Error::ModelStructure {
            path: self.path.to_owned(),
            element: element.to_owned(),
            message,
        }
    }

    /// Combines the reading of the `ModelExchange` element (`None` when there is none) and of
    /// the states and event indicators: a problem refuses a description read for Model
    /// Exchange, and is one warning otherwise (the interface is then not usable).
    fn finish(&self, interfaces: Interfaces, parts: Option<Result<MeParts>>) -> Result<MeParts> {
        match parts {
            None if self.accept == Accept::ModelExchange => Err(Error::InterfaceMissing {
                path: self.path.to_owned(),
                interface: Interface::ModelExchange,
                interfaces,
            }),
            None => Ok(MeParts::default()),
            Some(Ok(parts)) => Ok(parts),
            Some(Err(error)) if self.accept == Accept::ModelExchange => Err(error),
            Some(Err(error)) => {
                let text = error.to_string();
                let prefix = format!("{}: ", self.path.display());
                let text = text.strip_prefix(&prefix).unwrap_or(&text);
                self.warn(format!(
                    "{text}; the FMU cannot be run as Model Exchange (its Model Exchange \
                     interface is ignored)"
                ));
                Ok(MeParts::default())
            }
        }
    }

    /// Checks the derivative entries against the variables and makes them continuous states.
    fn continuous_states(
        &self,
        variables: &[ScalarVariable],
        entries: Vec<Entry>,
    ) -> Result<Vec<ContinuousState>> {
        let mut by_state: HashMap<usize, &str> = HashMap::new();
        let mut by_derivative: HashMap<usize, &str> = HashMap::new();
        let mut states = Vec::with_capacity(entries.len());
        for entry in &entries {
            let state = &variables[entry.state - 1];
            let derivative = &variables[entry.derivative - 1];
            if let Some(first) = by_state.insert(entry.state, &entry.element) {
                return Err(self.structure_error(
                    &entry.element,
                    format!(
                        "a second derivative of state '{}' (the first is {first}); expected \
                         one derivative per state",
                        state.name
                    ),
                ));
            }
            if let Some(first) = by_derivative.insert(entry.derivative, &entry.element) {
                return Err(self.structure_error(
                    &entry.element,
                    format!(
                        "derivative '{}' is listed twice (first as {first}); expected each \
                         derivative once",
                        derivative.name
                    ),
                ));
            }
            for (role, variable) in [("state", state), ("derivative", derivative)] {
                if variable.var_type != VarType::Real {
                    return Err(self.structure_error(
                        &entry.element,
                        format!(
                            "the {role} '{}' is not a Real (Float) variable; expected \
                             continuous states and derivatives of type Real",
                            variable.name
                        ),
                    ));
                }
                if variable.variability != Variability::Continuous {
                    self.warn(format!(
                        "{}: the {role} '{}' is not of variability 'continuous'; taken as a \
                         continuous state all the same",
                        entry.element, variable.name
                    ));
                }
            }
            states.push(ContinuousState {
                state: state.value_reference,
                derivative: derivative.value_reference,
                state_index: entry.state,
                derivative_index: entry.derivative,
            });
        }
        Ok(states)
    }

    /// FMI 2.0: the `ModelExchange` element, `numberOfEventIndicators` and
    /// `ModelStructure/Derivatives`; `derivative_attributes[i]` is the `derivative` attribute
    /// of variable `i + 1` (of its `Real` element).
    pub(super) fn model_exchange_v2(
        &self,
        interfaces: Interfaces,
        element: Option<RawModelExchange>,
        number_of_event_indicators: Option<String>,
        derivatives: Option<RawUnknowns>,
        derivative_attributes: &[Option<String>],
        variables: &[ScalarVariable],
    ) -> Result<MeParts> {
        let parts = element.map(|element| {
            let model_exchange = self.model_exchange_element_v2(element)?;
            let number_of_event_indicators = self
                .number(
                    super::ROOT,
                    "numberOfEventIndicators",
                    &number_of_event_indicators,
                    "a non-negative integer",
                )?
                .unwrap_or(0);
            let unknowns = derivatives.map(|d| d.unknowns).unwrap_or_default();
            let mut entries = Vec::with_capacity(unknowns.len());
            for (k, unknown) in unknowns.into_iter().enumerate() {
                let element = format!("ModelStructure/Derivatives/Unknown #{}", k + 1);
                let text = self.required(&element, "index", unknown.index)?;
                let derivative = self.variable_index(&element, "index", &text, variables)?;
                let Some(attribute) = &derivative_attributes[derivative - 1] else {
                    return Err(self.structure_error(
                        &element,
                        format!(
                            "variable '{}' has no 'derivative' attribute, so the state it is \
                             the derivative of is unknown",
                            variables[derivative - 1].name
                        ),
                    ));
                };
                let state = self.variable_index(&element, "derivative", attribute, variables)?;
                entries.push(Entry {
                    element,
                    derivative,
                    state,
                });
            }
            Ok(MeParts {
                model_exchange: Some(model_exchange),
                number_of_event_indicators,
                continuous_states: self.continuous_states(variables, entries)?,
            })
        });
        self.finish(interfaces, parts)
    }

    /// A 1-based index into `variables` written in `attribute` of `element` (FMI 2.0).
    fn variable_index(
        &self,
        element: &str,
        attribute: &str,
        text: &str,
        variables: &[ScalarVariable],
    ) -> Result<usize> {
        match text.trim().parse::<usize>() {
            Ok(i) if (1..=variables.len()).contains(&i) => Ok(i),
            _ => Err(self.structure_error(
                element,
                format!(
                    "'{attribute}' is '{text}', which names no variable (expected an index \
                     into ModelVariables from 1 to {})",
                    variables.len()
                ),
            )),
        }
    }

    fn model_exchange_element_v2(&self, me: RawModelExchange) -> Result<ModelExchange> {
        const ME: &str = "ModelExchange";
        let model_identifier = self.model_identifier(ME, me.model_identifier)?;
        // Validated for well-formedness, not used.
        self.boolean(ME, "needsExecutionTool", &me.needs_execution_tool)?;
        self.boolean(
            ME,
            "canNotUseMemoryManagementFunctions",
            &me.can_not_use_memory_management_functions,
        )?;
        let capabilities = Capabilities {
            can_get_and_set_fmu_state: self.boolean(
                ME,
                "canGetAndSetFMUstate",
                &me.can_get_and_set_fmu_state,
            )?,
            can_serialize_fmu_state: self.boolean(
                ME,
                "canSerializeFMUstate",
                &me.can_serialize_fmu_state,
            )?,
            can_be_instantiated_only_once_per_process: self.boolean(
                ME,
                "canBeInstantiatedOnlyOncePerProcess",
                &me.can_be_instantiated_only_once_per_process,
            )?,
            provides_directional_derivative: self.boolean(
                ME,
                "providesDirectionalDerivative",
                &me.provides_directional_derivative,
            )?,
            ..Capabilities::default()
        };
        Ok(ModelExchange {
            model_identifier,
            capabilities,
            completed_integrator_step_not_needed: self.boolean(
                ME,
                "completedIntegratorStepNotNeeded",
                &me.completed_integrator_step_not_needed,
            )?,
        })
    }

    /// FMI 3.0: the `ModelExchange` element as read (`None` when there is none), and the
    /// `ContinuousStateDerivative` and `EventIndicator` children of `ModelStructure` (under
    /// `root`). `model_variables` is the `ModelVariables` element; `empty` the value
    /// references of arrays without elements.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn model_exchange_v3(
        &self,
        interfaces: Interfaces,
        tree: &Tree,
        root: &Node,
        me: Option<Result<ModelExchange>>,
        model_variables: &Node,
        variables: &[ScalarVariable],
        empty: &[u32],
    ) -> Result<MeParts> {
        let parts = me.map(|model_exchange| {
            let model_exchange = model_exchange?;
            let mut scalars: HashMap<u32, Vec<usize>> = HashMap::new();
            // The scalars of each variable element (its `<Alias>` rows share its value
            // reference and are left out).
            for v in variables.iter().filter(|v| v.alias == Alias::NoAlias) {
                let element = scalars.entry(v.value_reference.0).or_default();
                element.push(v.index);
            }
            for vr in empty {
                scalars.entry(*vr).or_default();
            }
            // The scalars of the variable a value reference names.
            let named = |element: &str, attribute: &str, text: &str| {
                text.trim()
                    .parse::<u32>()
                    .ok()
                    .and_then(|vr| scalars.get(&vr))
                    .ok_or_else(|| {
                        self.structure_error(
                            element,
                            format!(
                                "'{attribute}' is '{text}', which names no variable (expected \
                                 the value reference of a variable in ModelVariables)"
                            ),
                        )
                    })
            };
            let mut entries = Vec::new();
            let mut number_of_event_indicators = 0;
            let structure = tree.child(root, "ModelStructure");
            let children = structure.into_iter().flat_map(|s| tree.children(s));
            let mut seen: HashMap<&str, usize> = HashMap::new();
            for node in children {
                let kind = node.name.as_str();
                if !matches!(kind, "ContinuousStateDerivative" | "EventIndicator") {
                    continue;
                }
                let k = seen.entry(kind).or_default();
                *k += 1;
                let element = format!("ModelStructure/{kind}[{k}]");
                let vr = self.required(&element, "valueReference", node.owned("valueReference"))?;
                let derivatives = named(&element, "valueReference", &vr)?;
                if kind == "EventIndicator" {
                    number_of_event_indicators += derivatives.len();
                    continue;
                }
                let state =
                    derivative_attribute(tree, model_variables, vr.trim()).ok_or_else(|| {
                        self.structure_error(
                            &element,
                            format!(
                                "the variable with value reference {vr} has no 'derivative' \
                                 attribute, so the state it is the derivative of is unknown"
                            ),
                        )
                    })?;
                let states = named(&element, "derivative", &state)?;
                if states.len() != derivatives.len() {
                    return Err(self.structure_error(
                        &element,
                        format!(
                            "the derivative has {} elements but its state (value reference \
                             {state}) has {}; expected the same size",
                            derivatives.len(),
                            states.len()
                        ),
                    ));
                }
                entries.extend(
                    derivatives
                        .iter()
                        .zip(states)
                        .map(|(&derivative, &state)| Entry {
                            element: element.clone(),
                            derivative,
                            state,
                        }),
                );
            }
            Ok(MeParts {
                model_exchange: Some(model_exchange),
                number_of_event_indicators,
                continuous_states: self.continuous_states(variables, entries)?,
            })
        });
        self.finish(interfaces, parts)
    }
}

/// The `derivative` attribute of the variable element with value reference `vr` among the
/// children of `model_variables`.
fn derivative_attribute(tree: &Tree, model_variables: &Node, vr: &str) -> Option<String> {
    tree.children(model_variables)
        .find(|v| v.get("valueReference").map(str::trim) == Some(vr))
        .and_then(|v| v.owned("derivative"))
}
