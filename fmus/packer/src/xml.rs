//! A minimal reader for the hand-written modelDescription.xml files (FMI 1.0, 2.0 and 3.0),
//! enough to pack them and to check them against the `VR_*` tables of the FMU crates. The FMI
//! 3.0 variable elements are in [`crate::xml3`], the FMI 3.0 checks in [`crate::check3`].

use fmu_support::{Causality, VarType, Variable};
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use crate::Error;
use crate::xml3::{self, ModelVariable3};

/// FMI version of a modelDescription.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FmiVersion {
    /// `fmiVersion="1.0"` (co-simulation: root `modelIdentifier`).
    V1,
    /// `fmiVersion="2.0"` (`CoSimulation@modelIdentifier`).
    V2,
    /// `fmiVersion="3.0"` (`instantiationToken`, `CoSimulation@modelIdentifier`, typed variable
    /// elements).
    V3,
}

/// One `ScalarVariable`, with attributes as written (no defaults applied).
#[derive(Clone, Debug, PartialEq)]
pub struct ScalarVariable {
    /// 1-based index in `ModelVariables`.
    pub index: usize,
    /// `name`.
    pub name: String,
    /// `valueReference`.
    pub vr: u32,
    /// The type element (`Enumeration` is not used by the test FMUs and is an error).
    pub ty: VarType,
    /// `causality`, if present.
    pub causality: Option<String>,
    /// `variability`, if present.
    pub variability: Option<String>,
    /// `initial` (FMI 2.0), if present.
    pub initial: Option<String>,
    /// The type element's `start`, if present.
    pub start: Option<String>,
    /// The `Real` element's `derivative` (FMI 2.0: the 1-based index of the state this
    /// variable is the derivative of), if present.
    pub derivative: Option<usize>,
}

impl ScalarVariable {
    /// The support-crate causality this variable declares, following the FMI 1.0 spelling
    /// (`variability="parameter"`, `causality="internal"`) or the FMI 2.0 one.
    ///
    /// Returns `None` for causalities the test FMUs never use.
    pub fn causality(&self, version: FmiVersion) -> Option<Causality> {
        let causality = self.causality.as_deref();
        match version {
            FmiVersion::V1 => match causality.unwrap_or("internal") {
                "input" => Some(Causality::Input),
                "output" => Some(Causality::Output),
                "internal" | "none" if self.variability.as_deref() == Some("parameter") => {
                    Some(Causality::Parameter)
                }
                "internal" | "none" => Some(Causality::Local),
                _ => None,
            },
            FmiVersion::V2 | FmiVersion::V3 => match causality.unwrap_or("local") {
                "parameter" => Some(Causality::Parameter),
                "input" => Some(Causality::Input),
                "output" => Some(Causality::Output),
                "local" => Some(Causality::Local),
                _ => None,
            },
        }
    }
}

/// The parts of a modelDescription.xml that the packer and the tests use.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelDescription {
    /// `fmiVersion`.
    pub fmi_version: FmiVersion,
    /// `modelName`.
    pub model_name: String,
    /// `guid` (FMI 1.0/2.0) or `instantiationToken` (FMI 3.0).
    pub guid: String,
    /// The model identifier: FMI 2.0 `CoSimulation@modelIdentifier`, FMI 1.0 root
    /// `modelIdentifier`. It names the shared library.
    pub model_identifier: String,
    /// `ModelVariables`, in order (FMI 1.0/2.0; empty for FMI 3.0).
    pub variables: Vec<ScalarVariable>,
    /// FMI 2.0 `ModelStructure/Outputs/Unknown@index` values (empty for FMI 1.0 and 3.0).
    pub outputs: Vec<usize>,
    /// FMI 3.0 `ModelVariables`, in order (empty for FMI 1.0/2.0).
    pub variables3: Vec<ModelVariable3>,
    /// FMI 3.0 `ModelStructure/Output@valueReference` values, in order.
    pub outputs3: Vec<u32>,
    /// The attributes of the `CoSimulation` element (FMI 2.0 and 3.0), as written.
    pub co_simulation: Vec<(String, String)>,
    /// The attributes of the `ModelExchange` element (FMI 2.0), as written; empty if there is
    /// none.
    pub model_exchange: Vec<(String, String)>,
    /// FMI 2.0 `ModelStructure/Derivatives/Unknown@index` values; FMI 3.0
    /// `ModelStructure/ContinuousStateDerivative@valueReference` values.
    pub derivatives: Vec<usize>,
    /// The root's `numberOfEventIndicators` (FMI 2.0), if written; FMI 3.0: the number of
    /// `ModelStructure/EventIndicator` elements, if any.
    pub number_of_event_indicators: Option<usize>,
}

impl ModelDescription {
    /// Parses a modelDescription.xml document.
    ///
    /// # Errors
    /// [`Error::Xml`] for malformed XML, an unknown `fmiVersion`, a missing required attribute
    /// (root `fmiVersion`, `modelName`, `guid` or `instantiationToken`, the model identifier,
    /// `name`, `valueReference`), an unsupported variable type or a malformed `Dimension`.
    pub fn parse(xml: &str) -> Result<Self, Error> {
        Parser::default().run(xml)
    }

    /// Lists every disagreement between this description and a model's GUID and variable table
    /// (empty if they agree). Checks names, value references, types and causalities, that no
    /// variable is missing or extra, that inputs and parameters have a `start`, and (FMI 2.0)
    /// that the outputs listed in `ModelStructure/Outputs` are exactly the output variables,
    /// with `start` present exactly when `initial="exact"`.
    pub fn mismatches(&self, guid: &str, table: &[Variable]) -> Vec<String> {
        let mut problems = Vec::new();
        if self.guid != guid {
            problems.push(format!("guid {} != {guid}", self.guid));
        }
        if self.variables.len() != table.len() {
            problems.push(format!(
                "{} ScalarVariables in the XML, {} in the table",
                self.variables.len(),
                table.len()
            ));
        }
        for v in table {
            let Some(x) = self.variables.iter().find(|x| x.name == v.name) else {
                problems.push(format!("variable {} missing from the XML", v.name));
                continue;
            };
            if x.vr != v.vr || x.ty != v.ty {
                problems.push(format!(
                    "{}: XML has {} vr {}, table has {} vr {}",
                    v.name, x.ty, x.vr, v.ty, v.vr
                ));
            }
            if x.causality(self.fmi_version) != Some(v.causality) {
                problems.push(format!(
                    "{}: XML causality {:?}/{:?}, table {}",
                    v.name, x.causality, x.variability, v.causality
                ));
            }
            let needs_start = match v.causality {
                Causality::Input | Causality::Parameter => true,
                Causality::Output | Causality::Local => {
                    self.fmi_version == FmiVersion::V2 && x.initial.as_deref() == Some("exact")
                }
            };
            if needs_start != x.start.is_some() {
                problems.push(format!(
                    "{}: start {:?} with initial {:?}",
                    v.name, x.start, x.initial
                ));
            }
        }
        if self.fmi_version == FmiVersion::V2 {
            let expected: Vec<usize> = self
                .variables
                .iter()
                .filter(|x| x.causality.as_deref() == Some("output"))
                .map(|x| x.index)
                .collect();
            if self.outputs != expected {
                problems.push(format!(
                    "ModelStructure/Outputs {:?}, output variables {:?}",
                    self.outputs, expected
                ));
            }
        }
        problems
    }

    /// Lists every disagreement between this description's Model Exchange parts and a model
    /// with `n_states` continuous states and `n_event_indicators` event indicators (empty if
    /// they agree): a `ModelExchange` element, `numberOfEventIndicators`, one
    /// `ModelStructure/Derivatives` entry per state, each a Real with a `derivative` attribute
    /// naming a continuous variable, in state order (the order of the derivatives fixes the
    /// order of the state vector, FMI 2.0.2 §2.2.8). For FMI 3.0 (`ContinuousStateDerivative`
    /// and `EventIndicator` elements) only the counts are checked.
    pub fn me_mismatches(&self, n_states: usize, n_event_indicators: usize) -> Vec<String> {
        let mut problems = Vec::new();
        if self.model_exchange.is_empty() {
            problems.push("no ModelExchange element".to_owned());
        }
        if self.number_of_event_indicators.unwrap_or(0) != n_event_indicators {
            problems.push(format!(
                "numberOfEventIndicators {:?}, the model has {n_event_indicators}",
                self.number_of_event_indicators
            ));
        }
        if self.derivatives.len() != n_states {
            problems.push(format!(
                "{} ModelStructure/Derivatives, the model has {n_states} states",
                self.derivatives.len()
            ));
        }
        if self.fmi_version == FmiVersion::V3 {
            return problems;
        }
        for &index in &self.derivatives {
            let derivative = self.variables.get(index.wrapping_sub(1));
            let state = derivative
                .and_then(|d| d.derivative)
                .and_then(|i| self.variables.get(i.wrapping_sub(1)));
            match state {
                Some(s) if s.variability.as_deref().unwrap_or("continuous") == "continuous" => {}
                _ => problems.push(format!(
                    "Derivatives/Unknown index {index} is not the derivative of a continuous variable"
                )),
            }
        }
        problems
    }

    /// The value of the `CoSimulation` attribute `name`, if written.
    pub fn capability(&self, name: &str) -> Option<&str> {
        self.co_simulation
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Default)]
struct Parser {
    fmi_version: Option<FmiVersion>,
    model_name: Option<String>,
    guid: Option<String>,
    model_identifier: Option<String>,
    variables: Vec<ScalarVariable>,
    outputs: Vec<usize>,
    variables3: Vec<ModelVariable3>,
    outputs3: Vec<u32>,
    co_simulation: Vec<(String, String)>,
    model_exchange: Vec<(String, String)>,
    derivatives: Vec<usize>,
    number_of_event_indicators: Option<usize>,
    /// The FMI 3.0 variable being read, until its element ends.
    pending3: Option<ModelVariable3>,
    /// Element names from the root to the current element.
    path: Vec<String>,
    /// The ScalarVariable being read, until its type element has been seen.
    pending: Option<ScalarVariable>,
}

/// Every attribute of an element, as written (normalized values).
fn attributes(e: &BytesStart<'_>) -> Result<Vec<(String, String)>, Error> {
    let mut all = Vec::new();
    for attribute in e.attributes() {
        let attribute = attribute.map_err(|err| xml_error(err.to_string()))?;
        let name = String::from_utf8_lossy(attribute.key.as_ref().as_ref()).into_owned();
        let value = attribute
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|err| xml_error(err.to_string()))?
            .into_owned();
        all.push((name, value));
    }
    Ok(all)
}

fn xml_error(message: impl Into<String>) -> Error {
    Error::Xml {
        message: message.into(),
    }
}

fn attribute(e: &BytesStart<'_>, name: &str) -> Result<Option<String>, Error> {
    let found = e
        .try_get_attribute(name)
        .map_err(|err| xml_error(err.to_string()))?;
    match found {
        None => Ok(None),
        Some(a) => a
            .normalized_value(XmlVersion::Implicit1_0)
            .map(|v| Some(v.into_owned()))
            .map_err(|err| xml_error(err.to_string())),
    }
}

fn required(e: &BytesStart<'_>, name: &str) -> Result<String, Error> {
    let element = e.name().as_ref().to_owned();
    attribute(e, name)?
        .ok_or_else(|| xml_error(format!("element {element} lacks attribute {name}")))
}

impl Parser {
    fn run(mut self, xml: &str) -> Result<ModelDescription, Error> {
        let mut reader = Reader::from_str(xml);
        loop {
            match reader.read_event().map_err(|e| xml_error(e.to_string()))? {
                Event::Start(e) => {
                    self.element(&e)?;
                    self.path.push(e.name().as_ref().to_owned());
                }
                Event::Empty(e) => {
                    self.element(&e)?;
                    if self.parent() == Some("ModelVariables") {
                        self.finish_variable3();
                    }
                }
                Event::End(_) => {
                    let closed = self.path.pop();
                    if closed.as_deref() == Some("ScalarVariable") && self.pending.is_some() {
                        return Err(xml_error("ScalarVariable without a type element"));
                    }
                    if self.parent() == Some("ModelVariables") {
                        self.finish_variable3();
                    }
                }
                Event::Eof => break,
                _ => {}
            }
        }
        let missing = |what: &str| xml_error(format!("missing {what}"));
        Ok(ModelDescription {
            fmi_version: self
                .fmi_version
                .ok_or_else(|| missing("fmiModelDescription root"))?,
            model_name: self.model_name.ok_or_else(|| missing("modelName"))?,
            guid: self.guid.ok_or_else(|| missing("guid"))?,
            model_identifier: self
                .model_identifier
                .ok_or_else(|| missing("modelIdentifier"))?,
            variables: self.variables,
            outputs: self.outputs,
            variables3: self.variables3,
            outputs3: self.outputs3,
            co_simulation: self.co_simulation,
            model_exchange: self.model_exchange,
            derivatives: self.derivatives,
            number_of_event_indicators: self.number_of_event_indicators,
        })
    }

    fn finish_variable3(&mut self) {
        if let Some(variable) = self.pending3.take() {
            self.variables3.push(variable);
        }
    }

    fn parent(&self) -> Option<&str> {
        self.path.last().map(String::as_str)
    }

    fn element(&mut self, e: &BytesStart<'_>) -> Result<(), Error> {
        let name = e.name();
        match name.as_ref() {
            "fmiModelDescription" if self.path.is_empty() => {
                self.fmi_version = Some(match required(e, "fmiVersion")?.as_str() {
                    "1.0" => FmiVersion::V1,
                    "2.0" => FmiVersion::V2,
                    "3.0" => FmiVersion::V3,
                    other => return Err(xml_error(format!("unsupported fmiVersion {other}"))),
                });
                self.model_name = Some(required(e, "modelName")?);
                self.guid = Some(if self.fmi_version == Some(FmiVersion::V3) {
                    required(e, "instantiationToken")?
                } else {
                    required(e, "guid")?
                });
                if self.fmi_version == Some(FmiVersion::V1) {
                    self.model_identifier = Some(required(e, "modelIdentifier")?);
                }
                if let Some(n) = attribute(e, "numberOfEventIndicators")? {
                    self.number_of_event_indicators = Some(
                        n.parse()
                            .map_err(|_| xml_error(format!("bad numberOfEventIndicators {n}")))?,
                    );
                }
            }
            "CoSimulation"
                if self.path.len() == 1
                    && matches!(self.fmi_version, Some(FmiVersion::V2 | FmiVersion::V3)) =>
            {
                self.model_identifier = Some(required(e, "modelIdentifier")?);
                self.co_simulation = attributes(e)?;
            }
            "ModelExchange"
                if self.path.len() == 1
                    && matches!(self.fmi_version, Some(FmiVersion::V2 | FmiVersion::V3)) =>
            {
                let identifier = required(e, "modelIdentifier")?;
                self.model_identifier.get_or_insert(identifier);
                self.model_exchange = attributes(e)?;
            }
            type_name
                if self.fmi_version == Some(FmiVersion::V3)
                    && self.parent() == Some("ModelVariables") =>
            {
                let ty = xml3::data_type(type_name)
                    .ok_or_else(|| xml_error(format!("unsupported variable type {type_name}")))?;
                let vr = required(e, "valueReference")?;
                self.pending3 = Some(ModelVariable3 {
                    index: self.variables3.len() + 1,
                    name: required(e, "name")?,
                    vr: vr
                        .parse()
                        .map_err(|_| xml_error(format!("bad valueReference {vr}")))?,
                    ty,
                    causality: attribute(e, "causality")?,
                    variability: attribute(e, "variability")?,
                    initial: attribute(e, "initial")?,
                    start: attribute(e, "start")?,
                    start_values: Vec::new(),
                    dimensions: Vec::new(),
                });
            }
            "Dimension" if self.pending3.is_some() => {
                let dimension =
                    xml3::dimension(attribute(e, "start")?, attribute(e, "valueReference")?)?;
                if let Some(v) = self.pending3.as_mut() {
                    v.dimensions.push(dimension);
                }
            }
            "Start" if self.pending3.is_some() => {
                let value = required(e, "value")?;
                if let Some(v) = self.pending3.as_mut() {
                    v.start_values.push(value);
                }
            }
            "Output"
                if self.fmi_version == Some(FmiVersion::V3)
                    && self.parent() == Some("ModelStructure") =>
            {
                let vr = required(e, "valueReference")?;
                self.outputs3.push(
                    vr.parse()
                        .map_err(|_| xml_error(format!("bad Output valueReference {vr}")))?,
                );
            }
            "ScalarVariable" if self.parent() == Some("ModelVariables") => {
                let vr = required(e, "valueReference")?;
                self.pending = Some(ScalarVariable {
                    index: self.variables.len() + 1,
                    name: required(e, "name")?,
                    vr: vr
                        .parse()
                        .map_err(|_| xml_error(format!("bad valueReference {vr}")))?,
                    ty: VarType::Real,
                    causality: attribute(e, "causality")?,
                    variability: attribute(e, "variability")?,
                    initial: attribute(e, "initial")?,
                    start: None,
                    derivative: None,
                });
            }
            type_name
                if self.parent() == Some("ScalarVariable")
                    && self.fmi_version != Some(FmiVersion::V3) =>
            {
                let Some(mut variable) = self.pending.take() else {
                    return Err(xml_error("more than one type element in a ScalarVariable"));
                };
                variable.ty = match type_name {
                    "Real" => VarType::Real,
                    "Integer" => VarType::Integer,
                    "Boolean" => VarType::Boolean,
                    "String" => VarType::String,
                    other => return Err(xml_error(format!("unsupported variable type {other}"))),
                };
                variable.start = attribute(e, "start")?;
                if let Some(d) = attribute(e, "derivative")? {
                    variable.derivative = Some(
                        d.parse()
                            .map_err(|_| xml_error(format!("bad derivative {d}")))?,
                    );
                }
                self.variables.push(variable);
            }
            "ContinuousStateDerivative" if self.parent() == Some("ModelStructure") => {
                let vr = required(e, "valueReference")?;
                self.derivatives.push(
                    vr.parse()
                        .map_err(|_| xml_error(format!("bad valueReference {vr}")))?,
                );
            }
            "EventIndicator" if self.parent() == Some("ModelStructure") => {
                *self.number_of_event_indicators.get_or_insert(0) += 1;
            }
            "Unknown" if self.parent() == Some("Derivatives") => {
                let index = required(e, "index")?;
                self.derivatives.push(
                    index
                        .parse()
                        .map_err(|_| xml_error(format!("bad Unknown index {index}")))?,
                );
            }
            "Unknown" if self.parent() == Some("Outputs") => {
                let index = required(e, "index")?;
                self.outputs.push(
                    index
                        .parse()
                        .map_err(|_| xml_error(format!("bad Unknown index {index}")))?,
                );
            }
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const V1: &str = r#"<?xml version="1.0"?>
<fmiModelDescription fmiVersion="1.0" modelName="M" modelIdentifier="M_id" guid="{g}">
  <ModelVariables>
    <ScalarVariable name="p" valueReference="1" variability="parameter" causality="internal"><Real start="1"/></ScalarVariable>
    <ScalarVariable name="o" valueReference="1" causality="output" variability="discrete"><Integer/></ScalarVariable>
  </ModelVariables>
  <Implementation><CoSimulation_StandAlone><Capabilities canHandleVariableCommunicationStepSize="true"/></CoSimulation_StandAlone></Implementation>
</fmiModelDescription>"#;

    #[test]
    fn reads_fmi1() {
        let md = ModelDescription::parse(V1).expect("parse");
        assert_eq!(md.fmi_version, FmiVersion::V1);
        assert_eq!(md.model_identifier, "M_id");
        assert_eq!(md.variables.len(), 2);
        assert_eq!(
            md.variables[0].causality(md.fmi_version),
            Some(Causality::Parameter)
        );
        assert_eq!(md.variables[1].ty, VarType::Integer);
        let table = [
            Variable::new("p", 1, VarType::Real, Causality::Parameter),
            Variable::new("o", 1, VarType::Integer, Causality::Output),
        ];
        assert_eq!(md.mismatches("{g}", &table), Vec::<String>::new());
        let wrong = [
            Variable::new("p", 2, VarType::Real, Causality::Input),
            Variable::new("o", 1, VarType::Integer, Causality::Output),
        ];
        assert_eq!(md.mismatches("{h}", &wrong).len(), 3);
    }

    #[test]
    fn rejects_bad_documents() {
        assert!(
            ModelDescription::parse(
                "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"a\" guid=\"g\"/>"
            )
            .is_err(),
            "FMI 3.0 has an instantiationToken, no guid"
        );
        assert!(
            ModelDescription::parse(
                "<fmiModelDescription fmiVersion=\"4.0\" modelName=\"a\" guid=\"g\"/>"
            )
            .is_err()
        );
        assert!(
            ModelDescription::parse(
                "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"a\" guid=\"g\"/>"
            )
            .is_err()
        );
        assert!(ModelDescription::parse("<a><b></a>").is_err());
    }
}
