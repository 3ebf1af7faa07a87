//! Raw serde structs of FMI 1.0 and 2.0, and the entry points that read text into them; the
//! conversion into [`ModelDescription`] is in [`convert`]. FMI 3.0 is read without serde, in
//! [`v3`].
//!
//! The raw structs hold every attribute as `Option<String>` so that serde never rejects a file
//! for a missing or mistyped attribute: all such checks happen in the conversion, where the
//! error can name the element (and for variables their index and name).

use std::path::Path;

use quick_xml::events::Event;
use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::ModelDescription;
use crate::{Error, Result};

mod convert;
mod model_exchange;
mod v3;

use convert::Ctx;

const ROOT: &str = "fmiModelDescription";

// ------------------------------------------------------------------------------------------
// Raw structs shared by both versions
// ------------------------------------------------------------------------------------------

#[derive(Debug, Deserialize)]
struct RawDefaultExperiment {
    #[serde(rename = "@startTime")]
    start_time: Option<String>,
    #[serde(rename = "@stopTime")]
    stop_time: Option<String>,
    #[serde(rename = "@tolerance")]
    tolerance: Option<String>,
    #[serde(rename = "@stepSize")]
    step_size: Option<String>,
}

#[derive(Debug, Deserialize)]
struct RawModelVariables {
    #[serde(rename = "ScalarVariable", default)]
    variables: Vec<RawVariable>,
}

/// One `ScalarVariable`; `initial` exists only in FMI 2.0, `alias` only in FMI 1.0.
#[derive(Debug, Deserialize)]
struct RawVariable {
    #[serde(rename = "@name")]
    name: Option<String>,
    #[serde(rename = "@valueReference")]
    value_reference: Option<String>,
    #[serde(rename = "@description")]
    description: Option<String>,
    #[serde(rename = "@causality")]
    causality: Option<String>,
    #[serde(rename = "@variability")]
    variability: Option<String>,
    #[serde(rename = "@initial")]
    initial: Option<String>,
    #[serde(rename = "@alias")]
    alias: Option<String>,
    #[serde(rename = "Real")]
    real: Option<RawTypeElement>,
    #[serde(rename = "Integer")]
    integer: Option<RawTypeElement>,
    #[serde(rename = "Boolean")]
    boolean: Option<RawTypeElement>,
    #[serde(rename = "String")]
    string: Option<RawTypeElement>,
    #[serde(rename = "Enumeration")]
    enumeration: Option<RawTypeElement>,
}

#[derive(Debug, Deserialize)]
struct RawTypeElement {
    #[serde(rename = "@start")]
    start: Option<String>,
    #[serde(rename = "@derivative")]
    derivative: Option<String>,
    #[serde(rename = "@unit")]
    unit: Option<String>,
    #[serde(rename = "@declaredType")]
    declared_type: Option<String>,
}

#[derive(Debug, Deserialize)]
struct RawUnit {
    #[serde(rename = "@unit")]
    unit: Option<String>,
}

// ------------------------------------------------------------------------------------------
// FMI 2.0
// ------------------------------------------------------------------------------------------

#[derive(Debug, Deserialize)]
struct RawV2 {
    #[serde(rename = "@modelName")]
    model_name: Option<String>,
    #[serde(rename = "@guid")]
    guid: Option<String>,
    #[serde(rename = "@description")]
    description: Option<String>,
    #[serde(rename = "@generationTool")]
    generation_tool: Option<String>,
    #[serde(rename = "@numberOfEventIndicators")]
    number_of_event_indicators: Option<String>,
    #[serde(rename = "CoSimulation")]
    co_simulation: Option<RawCoSimulationV2>,
    #[serde(rename = "ModelExchange")]
    model_exchange: Option<RawModelExchange>,
    #[serde(rename = "TypeDefinitions")]
    type_definitions: Option<RawTypeDefinitionsV2>,
    #[serde(rename = "DefaultExperiment")]
    default_experiment: Option<RawDefaultExperiment>,
    #[serde(rename = "ModelVariables")]
    model_variables: Option<RawModelVariables>,
    #[serde(rename = "ModelStructure")]
    model_structure: Option<RawModelStructure>,
}

#[derive(Debug, Deserialize)]
struct RawCoSimulationV2 {
    #[serde(rename = "@modelIdentifier")]
    model_identifier: Option<String>,
    #[serde(rename = "@needsExecutionTool")]
    needs_execution_tool: Option<String>,
    #[serde(rename = "@canHandleVariableCommunicationStepSize")]
    can_handle_variable_communication_step_size: Option<String>,
    #[serde(rename = "@canInterpolateInputs")]
    can_interpolate_inputs: Option<String>,
    #[serde(rename = "@maxOutputDerivativeOrder")]
    max_output_derivative_order: Option<String>,
    #[serde(rename = "@canRunAsynchronuously")]
    can_run_asynchronuously: Option<String>,
    #[serde(rename = "@canBeInstantiatedOnlyOncePerProcess")]
    can_be_instantiated_only_once_per_process: Option<String>,
    #[serde(rename = "@canNotUseMemoryManagementFunctions")]
    can_not_use_memory_management_functions: Option<String>,
    #[serde(rename = "@canGetAndSetFMUstate")]
    can_get_and_set_fmu_state: Option<String>,
    #[serde(rename = "@canSerializeFMUstate")]
    can_serialize_fmu_state: Option<String>,
    #[serde(rename = "@providesDirectionalDerivative")]
    provides_directional_derivative: Option<String>,
}

/// The `ModelExchange` element (FMI 2.0).
#[derive(Debug, Deserialize)]
struct RawModelExchange {
    #[serde(rename = "@modelIdentifier")]
    model_identifier: Option<String>,
    #[serde(rename = "@needsExecutionTool")]
    needs_execution_tool: Option<String>,
    #[serde(rename = "@completedIntegratorStepNotNeeded")]
    completed_integrator_step_not_needed: Option<String>,
    #[serde(rename = "@canBeInstantiatedOnlyOncePerProcess")]
    can_be_instantiated_only_once_per_process: Option<String>,
    #[serde(rename = "@canNotUseMemoryManagementFunctions")]
    can_not_use_memory_management_functions: Option<String>,
    #[serde(rename = "@canGetAndSetFMUstate")]
    can_get_and_set_fmu_state: Option<String>,
    #[serde(rename = "@canSerializeFMUstate")]
    can_serialize_fmu_state: Option<String>,
    #[serde(rename = "@providesDirectionalDerivative")]
    provides_directional_derivative: Option<String>,
}

#[derive(Debug, Deserialize)]
struct RawTypeDefinitionsV2 {
    #[serde(rename = "SimpleType", default)]
    simple_types: Vec<RawSimpleTypeV2>,
}

#[derive(Debug, Deserialize)]
struct RawSimpleTypeV2 {
    #[serde(rename = "@name")]
    name: Option<String>,
    #[serde(rename = "Real")]
    real: Option<RawUnit>,
}

#[derive(Debug, Deserialize)]
struct RawModelStructure {
    #[serde(rename = "Outputs")]
    outputs: Option<RawUnknowns>,
    #[serde(rename = "Derivatives")]
    derivatives: Option<RawUnknowns>,
}

#[derive(Debug, Deserialize)]
struct RawUnknowns {
    #[serde(rename = "Unknown", default)]
    unknowns: Vec<RawUnknown>,
}

#[derive(Debug, Deserialize)]
struct RawUnknown {
    #[serde(rename = "@index")]
    index: Option<String>,
    #[serde(rename = "@dependencies")]
    dependencies: Option<String>,
}

// ------------------------------------------------------------------------------------------
// FMI 1.0
// ------------------------------------------------------------------------------------------

#[derive(Debug, Deserialize)]
struct RawV1 {
    #[serde(rename = "@modelName")]
    model_name: Option<String>,
    #[serde(rename = "@modelIdentifier")]
    model_identifier: Option<String>,
    #[serde(rename = "@guid")]
    guid: Option<String>,
    #[serde(rename = "@description")]
    description: Option<String>,
    #[serde(rename = "@generationTool")]
    generation_tool: Option<String>,
    #[serde(rename = "TypeDefinitions")]
    type_definitions: Option<RawTypeDefinitionsV1>,
    #[serde(rename = "DefaultExperiment")]
    default_experiment: Option<RawDefaultExperiment>,
    #[serde(rename = "ModelVariables")]
    model_variables: Option<RawModelVariables>,
    #[serde(rename = "Implementation")]
    implementation: Option<RawImplementationV1>,
}

#[derive(Debug, Deserialize)]
struct RawTypeDefinitionsV1 {
    #[serde(rename = "Type", default)]
    types: Vec<RawTypeV1>,
}

#[derive(Debug, Deserialize)]
struct RawTypeV1 {
    #[serde(rename = "@name")]
    name: Option<String>,
    #[serde(rename = "RealType")]
    real: Option<RawUnit>,
}

#[derive(Debug, Deserialize)]
struct RawImplementationV1 {
    #[serde(rename = "CoSimulation_StandAlone")]
    stand_alone: Option<RawCoSimulationV1>,
    #[serde(rename = "CoSimulation_Tool")]
    tool: Option<RawCoSimulationV1>,
}

#[derive(Debug, Deserialize)]
struct RawCoSimulationV1 {
    #[serde(rename = "Capabilities")]
    capabilities: Option<RawCapabilitiesV1>,
}

#[derive(Debug, Deserialize)]
struct RawCapabilitiesV1 {
    #[serde(rename = "@canHandleVariableCommunicationStepSize")]
    can_handle_variable_communication_step_size: Option<String>,
    #[serde(rename = "@canHandleEvents")]
    can_handle_events: Option<String>,
    #[serde(rename = "@canRejectSteps")]
    can_reject_steps: Option<String>,
    #[serde(rename = "@canInterpolateInputs")]
    can_interpolate_inputs: Option<String>,
    #[serde(rename = "@maxOutputDerivativeOrder")]
    max_output_derivative_order: Option<String>,
    #[serde(rename = "@canRunAsynchronuously")]
    can_run_asynchronuously: Option<String>,
    #[serde(rename = "@canSignalEvents")]
    can_signal_events: Option<String>,
    #[serde(rename = "@canBeInstantiatedOnlyOncePerProcess")]
    can_be_instantiated_only_once_per_process: Option<String>,
    #[serde(rename = "@canNotUseMemoryManagementFunctions")]
    can_not_use_memory_management_functions: Option<String>,
}

// ------------------------------------------------------------------------------------------
// Entry points
// ------------------------------------------------------------------------------------------

/// Turns the bytes of a file into text: UTF-8 (BOM skipped), or Latin-1 if declared so.
pub(super) fn decode_text(mut bytes: Vec<u8>, path: &Path) -> Result<String> {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(err) => {
            let position = err.utf8_error().valid_up_to() as u64;
            let bytes = err.into_bytes();
            if declares_latin1(&bytes) {
                Ok(bytes.iter().map(|&b| char::from(b)).collect())
            } else {
                Err(Error::Xml {
                    path: path.to_owned(),
                    position: Some(position),
                    message: "the file is not valid UTF-8".to_owned(),
                })
            }
        }
    }
}

/// True when the XML declaration names ISO-8859-1 (Latin-1) as the encoding.
fn declares_latin1(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(256)];
    let Some(end) = head.windows(2).position(|w| w == b"?>") else {
        return false;
    };
    let declaration = String::from_utf8_lossy(&head[..end]).to_ascii_lowercase();
    declaration.starts_with("<?xml")
        && ["iso-8859-1", "iso_8859-1", "latin1", "latin-1"]
            .iter()
            .any(|e| declaration.contains(e))
}

/// Which descriptions a reading accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Accept {
    /// Only FMUs with a co-simulation interface (to run them).
    CoSimulation,
    /// FMUs of any interface (to describe them): without `CoSimulation`, the model identifier
    /// is that of Model Exchange (or Scheduled Execution) and the capabilities are all off.
    AnyInterface,
    /// Only FMUs with a usable Model Exchange interface (to run them as Model Exchange):
    /// as [`Accept::AnyInterface`], but without `ModelExchange`, or with an ambiguous Model
    /// Exchange structure, the description is refused.
    ModelExchange,
}

/// Parses a description accepting `accept`; warnings go to the `log` crate.
pub(super) fn parse(xml: &str, path: &Path, accept: Accept) -> Result<ModelDescription> {
    let (result, warnings) = read(xml, path, accept);
    for warning in &warnings {
        log::warn!("{warning}");
    }
    result
}

/// Parses a description, and returns the warnings (each starting with the file name) instead
/// of logging them; there are warnings also when parsing fails. All versions: rules of FMI
/// the file breaks without being ambiguous or unsafe to run (duplicate variable names, a
/// `DefaultExperiment` value that is not a number, `ModelStructure` entries that name no
/// variable, FMI 1.0 aliases without a base variable; `docs/deviations.md`). FMI 3.0 also:
/// unknown attributes, pre-release versions, undefined types and units, empty arrays.
#[cfg(test)]
pub(super) fn parse_with_warnings(
    xml: &str,
    path: &Path,
) -> (Result<ModelDescription>, Vec<String>) {
    read(xml, path, Accept::CoSimulation)
}

/// [`parse_with_warnings`], reading the description to run it through `interface`.
#[cfg(test)]
pub(super) fn parse_for_with_warnings(
    xml: &str,
    path: &Path,
    interface: crate::Interface,
) -> (Result<ModelDescription>, Vec<String>) {
    let accept = match interface {
        crate::Interface::CoSimulation => Accept::CoSimulation,
        crate::Interface::ModelExchange => Accept::ModelExchange,
    };
    read(xml, path, accept)
}

/// [`parse_with_warnings`], accepting `accept`.
fn read(xml: &str, path: &Path, accept: Accept) -> (Result<ModelDescription>, Vec<String>) {
    let mut warnings = Vec::new();
    let mut ctx = Ctx::new(path);
    ctx.accept = accept;
    let result = dispatch(xml, &ctx, &mut warnings);
    warnings.append(&mut ctx.warnings.borrow_mut());
    (result, warnings)
}

/// Reads the root and dispatches on `fmiVersion`.
fn dispatch(xml: &str, ctx: &Ctx<'_>, warnings: &mut Vec<String>) -> Result<ModelDescription> {
    let path = ctx.path;
    let root = scan(xml, path)?;
    if root.name != ROOT {
        return Err(Error::WrongRootElement {
            path: path.to_owned(),
            found: root.name,
        });
    }
    let version = ctx.required(ROOT, "fmiVersion", root.fmi_version)?;
    match version.trim() {
        "1.0" => convert::convert_v1(deserialize(xml, path)?, ctx),
        v if v == "2.0" || v.starts_with("2.0.") => {
            convert::convert_v2(deserialize(xml, path)?, ctx)
        }
        v if let Some(release) = v3::release(v) => v3::parse(xml, ctx, v, release, warnings),
        _ => Err(Error::UnsupportedVersion {
            path: path.to_owned(),
            version,
        }),
    }
}

/// The root element's name and `fmiVersion`.
struct Root {
    name: String,
    fmi_version: Option<String>,
}

/// Reads the whole document with the pull parser: finds the root element and reports syntax
/// errors with their byte position (the serde layer does not know positions).
fn scan(xml: &str, path: &Path) -> Result<Root> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut root = None;
    let mut depth = 0usize;
    loop {
        let event = reader.read_event().map_err(|err| Error::Xml {
            path: path.to_owned(),
            position: Some(reader.error_position()),
            message: err.to_string(),
        })?;
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                if matches!(event, Event::Start(_)) {
                    depth += 1;
                }
                if root.is_some() {
                    continue;
                }
                let attribute_error = |message: String| Error::Xml {
                    path: path.to_owned(),
                    position: Some(reader.buffer_position()),
                    message,
                };
                let fmi_version = match e.try_get_attribute("fmiVersion") {
                    Ok(Some(attribute)) => Some(
                        attribute
                            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                            .map_err(|err| attribute_error(err.to_string()))?
                            .into_owned(),
                    ),
                    Ok(None) => None,
                    Err(err) => return Err(attribute_error(err.to_string())),
                };
                let name = AsRef::<str>::as_ref(&e.name()).to_owned();
                root = Some(Root { name, fmi_version });
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            Event::Eof => break,
            _ => {}
        }
    }
    if depth != 0 {
        return Err(Error::Xml {
            path: path.to_owned(),
            position: Some(reader.buffer_position()),
            message: "unexpected end of file: an element is not closed".to_owned(),
        });
    }
    root.ok_or_else(|| Error::Xml {
        path: path.to_owned(),
        position: None,
        message: "the document has no root element".to_owned(),
    })
}

fn deserialize<T: DeserializeOwned>(xml: &str, path: &Path) -> Result<T> {
    quick_xml::de::from_str(xml).map_err(|err| Error::Xml {
        path: path.to_owned(),
        position: None,
        message: err.to_string(),
    })
}
