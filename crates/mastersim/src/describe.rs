//! The description of an FMU, as `mastersim info` shows it and Python's
//! `read_model_description` returns it: what an FMU holds — FMI version, interfaces, model, generation tool,
//! platforms, co-simulation capabilities, default experiment and variables — as text or JSON,
//! and whether mastersim runs it here ([`Info`], serialized as the JSON of `mastersim info
//! --json`; [`Info::text`] is the text form, module `text`).
//!
//! The FMU is read with [`fmi::archive::describe`]: `modelDescription.xml` and the list of
//! entries come straight from the zip archive; nothing is extracted and no shared library is
//! loaded, so FMUs without binaries for this platform can be inspected too, and so can FMUs
//! that mastersim cannot run (Scheduled Execution or FMI 1.0 Model Exchange only, a library of
//! another architecture, clocks): `info` describes them and says what a run would refuse.
//! The capabilities are those the XML declares.
//!
//! FMI 1.0 FMUs are shown with the version-neutral model of the `fmi` crate: causality and
//! variability use the FMI 2.0 names (`internal` with `variability="parameter"` is a
//! `parameter` of variability `fixed`, other `internal` and `none` are `local`); see
//! [`fmi::Causality`] and [`fmi::Variability`].
//!
//! FMI 3.0 FMUs are shown one row per scalar, as mastersim addresses them: an array variable
//! `x` of dimensions 2×3 is six rows `x[1,1]` … `x[2,3]` (row-major), and an `<Alias>` is rows
//! of its own. The type column gives the FMI 3.0 data type (`Float64`, `UInt8`, …), the JSON
//! adds `dataType` and, for array elements, `array`, `dimensions` and `indices`. Clocks are
//! listed apart: mastersim cannot simulate FMUs that have any.
//!
//! Spec: FMI 2.0.2 §2.2.1 (`fmiModelDescription`), §2.2.5 (`DefaultExperiment`), §2.2.7
//! (`ScalarVariable`), §2.3 (FMU layout), §4.3.1 (`CoSimulation`); FMI 1.0 §2.2–§2.4,
//! FMI 1.0 CS §3 (`Capabilities`); FMI 3.0 §2.4 (FMU description), §2.4.7.5 (`Clock`),
//! §2.4.7.6 (arrays), §4.3.1 (`CoSimulation`).

mod platforms;
mod text;

pub use platforms::PlatformSupport;

use std::path::Path;

use crate::{Error, Result};
use fmi::archive::FmuContents;
use fmi::{
    Alias, Causality, ClockVariable, FmiVersion, Initial, ScalarVariable, VarType, Variability,
};
use serde::Serialize;

/// Everything `mastersim info` shows; with `--json` printed as one JSON object whose members
/// are named in camelCase as below. Optional members are left out when the FMU does not
/// give them.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Info<'a> {
    /// `fmu`: the FMU path as given on the command line.
    pub fmu: String,
    /// `fmiVersion`: `"1.0"`, `"2.0"` or `"3.0"`.
    pub fmi_version: &'static str,
    /// `modelName`.
    pub model_name: &'a str,
    /// `modelIdentifier`: the base name of the shared libraries (FMI 1.0: also the prefix
    /// of the function names); that of Co-Simulation, else of Model Exchange, else of
    /// Scheduled Execution.
    pub model_identifier: &'a str,
    /// `interfaces`: the interfaces the FMU offers, named as FMI names them
    /// (`["Co-Simulation", "Model Exchange"]`).
    pub interfaces: Vec<&'static str>,
    /// `run`: whether mastersim runs the FMU on this machine, and what a run would refuse.
    pub run: RunCheck,
    /// `guid` (FMI 1.0/2.0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guid: Option<&'a str>,
    /// `instantiationToken` (FMI 3.0), the FMI 3.0 successor of the GUID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instantiation_token: Option<&'a str>,
    /// `description` of the model (optional).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<&'a str>,
    /// `generationTool`, as written (often with the tool's version; optional).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation_tool: Option<&'a str>,
    /// `generationDateAndTime`, as written (ISO 8601; optional).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation_date_and_time: Option<&'a str>,
    /// `modelVersion`: the root element's `version` attribute, the model's own version
    /// (optional).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_version: Option<&'a str>,
    /// `platforms`: the folders under `binaries/`, sorted (e.g. `["linux64", "win64"]`;
    /// empty when the FMU has no binaries).
    pub platforms: &'a [String],
    /// `platformSupport`: for each of `platforms`, whether and how this installation runs
    /// its binary (in-process, in a helper process, under Wine; or what to install).
    pub platform_support: Vec<PlatformSupport>,
    /// `sourceFiles`: the files under `sources/` (archive paths; empty when the FMU comes
    /// without sources).
    pub source_files: &'a [String],
    /// `capabilities`: the co-simulation capability flags the XML declares (an empty object
    /// for an FMU without Co-Simulation).
    pub capabilities: CapabilitiesInfo,
    /// `modelExchange`: the Model Exchange interface (left out when the FMU has none, or when
    /// its model structure is ambiguous, which reading the FMU warns about).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_exchange: Option<ModelExchangeInfo<'a>>,
    /// `defaultExperiment` (left out when the FMU has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_experiment: Option<ExperimentInfo>,
    /// `numberOfVariables`: how many variables the FMU has, before filtering (FMI 3.0: how
    /// many scalars, counting each array element and alias).
    pub number_of_variables: usize,
    /// `variables`: the variables that pass the filters, in file order.
    pub variables: Vec<VariableInfo<'a>>,
    /// `clocks`: the FMI 3.0 clocks, unfiltered (left out when there are none). mastersim
    /// cannot simulate an FMU that has clocks.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub clocks: Vec<ClockInfo<'a>>,
}

/// Whether mastersim runs the FMU on this machine: what a run of it would refuse, found in the
/// archive without extracting or loading anything (neither Co-Simulation nor FMI 2.0/3.0 Model
/// Exchange, no library for
/// this platform or one built for another architecture, FMI 3.0 clocks).
///
/// Spec: FMI 2.0.2 §2.3 and FMI 3.0 FMU distribution (platform folders); `docs/fmi3.md`
/// (clocks refused).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunCheck {
    /// `runs`: true when a run would refuse nothing of the below.
    pub runs: bool,
    /// `refusals`: each reason a run would be refused, in words (empty when it runs).
    pub refusals: Vec<String>,
}

impl RunCheck {
    /// What a run of the FMU of `contents` would refuse.
    pub fn new(contents: &FmuContents) -> RunCheck {
        let md = &contents.description;
        let mut refusals = Vec::new();
        let model_exchange = md.interfaces.model_exchange && md.fmi_version != FmiVersion::V1;
        if !md.interfaces.co_simulation && !model_exchange {
            refusals.push(format!(
                "the FMU offers only {}; mastersim runs Co-Simulation and (FMI 2.0, 3.0) Model \
                 Exchange FMUs",
                md.interfaces.describe()
            ));
        }
        let platform = fmi::Fmu::platform_folder(md.fmi_version);
        match &contents.library {
            None => {
                if let Some(refusal) = without_native_binary(contents, platform) {
                    refusals.push(refusal);
                }
            }
            Some(library) => {
                if let Some(architecture) = &library.foreign_architecture {
                    refusals.push(format!(
                        "{} is built for {architecture}, not for this machine",
                        library.path
                    ));
                }
            }
        }
        if let Some(clock) = md.clocks.first() {
            refusals.push(format!(
                "it has {} clock(s), e.g. '{}'; mastersim does not support FMI 3.0 clocks",
                md.clocks.len(),
                clock.name
            ));
        }
        RunCheck {
            runs: refusals.is_empty(),
            refusals,
        }
    }
}

/// What a run refuses of an FMU of `contents` without a library for this machine's `platform`
/// folder: nothing when a helper process can run one of its other binaries (a run isolates it
/// automatically; FMI 2.0 and 3.0 co-simulation only), else that and what to install.
fn without_native_binary(contents: &FmuContents, platform: &str) -> Option<String> {
    let md = &contents.description;
    let missing = format!(
        "no binary for this platform: binaries/{platform}/{}.so is not in the archive",
        md.model_identifier
    );
    if contents.platforms.is_empty() {
        return Some(format!("{missing} (it has no binaries)"));
    }
    let has = contents.platforms.join(", ");
    if md.fmi_version == FmiVersion::V1 || !md.interfaces.co_simulation {
        return Some(format!(
            "{missing} (it has: {has}; helper processes run FMI 2.0 and 3.0 co-simulation only)"
        ));
    }
    let supports: Vec<PlatformSupport> = contents
        .platforms
        .iter()
        .map(|f| PlatformSupport::of(f, md.fmi_version, false))
        .collect();
    if supports.iter().any(|s| s.runs) {
        return None;
    }
    let why: Vec<String> = supports
        .iter()
        .map(|s| format!("{}: {}", s.platform, s.how))
        .collect();
    Some(format!("{missing} (it has {})", why.join("; ")))
}

/// One FMI 3.0 clock.
///
/// Spec: FMI 3.0 §2.4.7.5 (`Clock`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClockInfo<'a> {
    /// `name`.
    pub name: &'a str,
    /// `valueReference`.
    pub value_reference: u32,
    /// `causality`: `input`, `output` or `local`.
    pub causality: &'static str,
}

/// Co-simulation capabilities as `(attribute, value)` pairs, named and ordered as the XML
/// attributes of the FMU's FMI version; in JSON, one object. Only the attributes the version
/// defines are listed: `canRejectSteps` in FMI 1.0; `canGetAndSetFMUstate`,
/// `canSerializeFMUstate` and `providesDirectionalDerivative` in FMI 2.0;
/// `canInterpolateInputs` and `canRunAsynchronuously` (sic) in FMI 1.0 and 2.0. FMI 3.0
/// spells the state and derivative flags `canGetAndSetFMUState`, `canSerializeFMUState` and
/// `providesDirectionalDerivatives`, and adds `hasEventMode`, `mightReturnEarlyFromDoStep`,
/// `canReturnEarlyAfterIntermediateUpdate` and `fixedInternalStepSize` (s, only when given).
/// Attributes missing from the XML are `false` (0 for `maxOutputDerivativeOrder`).
///
/// Spec: FMI 2.0.2 §4.3.1, FMI 1.0 CS §3 (`Capabilities`), FMI 3.0 §4.3.1.
#[derive(Debug)]
pub struct CapabilitiesInfo(pub Vec<(&'static str, Capability)>);

/// The value of one capability attribute.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(untagged)]
pub enum Capability {
    /// A flag.
    Flag(bool),
    /// A count (`maxOutputDerivativeOrder`).
    Count(u32),
    /// A time in seconds (`fixedInternalStepSize`).
    Seconds(f64),
}

impl Serialize for CapabilitiesInfo {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

impl CapabilitiesInfo {
    /// The capabilities of `md` that its FMI version defines; none without a co-simulation
    /// interface.
    fn new(md: &fmi::ModelDescription) -> Self {
        use Capability::{Count, Flag, Seconds};
        if !md.interfaces.co_simulation {
            return CapabilitiesInfo(Vec::new());
        }
        let c = &md.capabilities;
        let v3 = md.fmi_version == FmiVersion::V3;
        let mut list = vec![(
            "canHandleVariableCommunicationStepSize",
            Flag(c.can_handle_variable_communication_step_size),
        )];
        if !v3 {
            list.push(("canInterpolateInputs", Flag(c.can_interpolate_inputs)));
        }
        list.push((
            "maxOutputDerivativeOrder",
            Count(c.max_output_derivative_order),
        ));
        if !v3 {
            list.push(("canRunAsynchronuously", Flag(c.can_run_asynchronuously)));
        }
        list.push((
            "canBeInstantiatedOnlyOncePerProcess",
            Flag(c.can_be_instantiated_only_once_per_process),
        ));
        match md.fmi_version {
            FmiVersion::V1 => list.push(("canRejectSteps", Flag(c.can_reject_steps))),
            FmiVersion::V2 => list.extend([
                ("canGetAndSetFMUstate", Flag(c.can_get_and_set_fmu_state)),
                ("canSerializeFMUstate", Flag(c.can_serialize_fmu_state)),
                (
                    "providesDirectionalDerivative",
                    Flag(c.provides_directional_derivative),
                ),
            ]),
            FmiVersion::V3 => {
                list.extend([
                    ("canGetAndSetFMUState", Flag(c.can_get_and_set_fmu_state)),
                    ("canSerializeFMUState", Flag(c.can_serialize_fmu_state)),
                    (
                        "providesDirectionalDerivatives",
                        Flag(c.provides_directional_derivative),
                    ),
                    ("hasEventMode", Flag(c.has_event_mode)),
                    (
                        "mightReturnEarlyFromDoStep",
                        Flag(c.might_return_early_from_do_step),
                    ),
                    (
                        "canReturnEarlyAfterIntermediateUpdate",
                        Flag(c.can_return_early_after_intermediate_update),
                    ),
                ]);
                if let Some(h) = c.fixed_internal_step_size {
                    list.push(("fixedInternalStepSize", Seconds(h)));
                }
            }
        }
        CapabilitiesInfo(list)
    }
}

/// The Model Exchange interface: its model identifier (the base name of its shared library,
/// which may differ from co-simulation's), the number of continuous states and of event
/// indicators, and the capability flags of the `ModelExchange` element, named as the FMU's
/// FMI version names them (FMI 2.0 `completedIntegratorStepNotNeeded`, FMI 3.0
/// `needsCompletedIntegratorStep`).
///
/// Spec: FMI 2.0.2 §2.2.1 (`numberOfEventIndicators`), §2.2.8 (`Derivatives`), §3.3.1
/// (`ModelExchange`); FMI 3.0 §2.4.8, §3.3.1.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelExchangeInfo<'a> {
    /// `modelIdentifier`.
    pub model_identifier: &'a str,
    /// `numberOfContinuousStates`: the entries of `ModelStructure/Derivatives` (FMI 3.0:
    /// the scalars of the `ContinuousStateDerivative` entries).
    pub number_of_continuous_states: usize,
    /// `numberOfEventIndicators`.
    pub number_of_event_indicators: usize,
    /// `capabilities`: the flags of the `ModelExchange` element.
    pub capabilities: CapabilitiesInfo,
}

impl<'a> ModelExchangeInfo<'a> {
    /// The Model Exchange interface of `md`, when it has a usable one.
    fn new(md: &'a fmi::ModelDescription) -> Option<Self> {
        use Capability::Flag;
        let me = md.model_exchange.as_ref()?;
        let c = &me.capabilities;
        let v3 = md.fmi_version == FmiVersion::V3;
        let pick = |v2: &'static str, v3_name: &'static str| if v3 { v3_name } else { v2 };
        let completed = if v3 {
            (
                "needsCompletedIntegratorStep",
                Flag(!me.completed_integrator_step_not_needed),
            )
        } else {
            (
                "completedIntegratorStepNotNeeded",
                Flag(me.completed_integrator_step_not_needed),
            )
        };
        let list = vec![
            (
                "canBeInstantiatedOnlyOncePerProcess",
                Flag(c.can_be_instantiated_only_once_per_process),
            ),
            (
                pick("canGetAndSetFMUstate", "canGetAndSetFMUState"),
                Flag(c.can_get_and_set_fmu_state),
            ),
            (
                pick("canSerializeFMUstate", "canSerializeFMUState"),
                Flag(c.can_serialize_fmu_state),
            ),
            (
                pick(
                    "providesDirectionalDerivative",
                    "providesDirectionalDerivatives",
                ),
                Flag(c.provides_directional_derivative),
            ),
            completed,
        ];
        Some(ModelExchangeInfo {
            model_identifier: &me.model_identifier,
            number_of_continuous_states: md.continuous_states.len(),
            number_of_event_indicators: md.number_of_event_indicators,
            capabilities: CapabilitiesInfo(list),
        })
    }
}

/// The `DefaultExperiment`; each member only when the FMU gives it.
///
/// Spec: FMI 2.0.2 §2.2.5, FMI 1.0 §2.2.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExperimentInfo {
    /// `startTime`, s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_time: Option<f64>,
    /// `stopTime`, s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_time: Option<f64>,
    /// `tolerance`: relative tolerance, no unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// `stepSize`, s (FMI 2.0 and 3.0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step_size: Option<f64>,
}

/// One variable. Optional members are left out when the XML does not give them.
///
/// Spec: FMI 2.0.2 §2.2.7, FMI 1.0 §2.4.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VariableInfo<'a> {
    /// `name`.
    pub name: &'a str,
    /// `valueReference` (unique per type only).
    pub value_reference: u32,
    /// `causality`: `parameter`, `calculatedParameter`, `input`, `output`, `local` or
    /// `independent` (FMI 1.0 values mapped, see the module documentation).
    pub causality: &'static str,
    /// `variability`: `constant`, `fixed`, `tunable`, `discrete` or `continuous` (FMI 1.0
    /// `parameter` is `fixed`).
    pub variability: &'static str,
    /// `initial`: `exact`, `approx` or `calculated` (FMI 2.0, when given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial: Option<&'static str>,
    /// `type`: how mastersim carries the value, the same for every FMI version: `Real`,
    /// `Integer`, `Boolean`, `String`, `Binary` (FMI 3.0) or `Enumeration`.
    #[serde(rename = "type")]
    pub var_type: &'static str,
    /// `dataType` (FMI 3.0): the variable's element, `Float32` … `UInt64`, `Boolean`,
    /// `String`, `Binary` or `Enumeration`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_type: Option<&'static str>,
    /// `array` (FMI 3.0 array elements): the name of the whole array variable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub array: Option<&'a str>,
    /// `dimensions` (FMI 3.0 array elements): the size of each dimension of the array.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dimensions: Option<&'a [usize]>,
    /// `indices` (FMI 3.0 array elements): the element's indices, from 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indices: Option<&'a [usize]>,
    /// `declaredType` of the type element.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_type: Option<&'a str>,
    /// `unit` of a Real variable (its own, or that of its declared type).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<&'a str>,
    /// `displayUnit` of an FMI 3.0 Float variable (its own, or that of its declared type).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_unit: Option<&'a str>,
    /// `start` value, as written in the XML (a string for every type).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<&'a str>,
    /// `description`, in full.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<&'a str>,
    /// `alias`: `alias` or `negatedAlias` (FMI 1.0 alias variables), `alias` (the scalars
    /// of an FMI 3.0 `<Alias>` element).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alias: Option<&'static str>,
}

impl<'a> Info<'a> {
    /// The information on the FMU at `path` with contents `contents`, listing the variables
    /// `selected`.
    pub fn new(path: &Path, contents: &'a FmuContents, selected: &[&'a ScalarVariable]) -> Self {
        let md = &contents.description;
        let v3 = md.fmi_version == FmiVersion::V3;
        Info {
            fmu: path.display().to_string(),
            fmi_version: match md.fmi_version {
                FmiVersion::V1 => "1.0",
                FmiVersion::V2 => "2.0",
                FmiVersion::V3 => "3.0",
            },
            model_name: &md.model_name,
            model_identifier: &md.model_identifier,
            interfaces: md.interfaces.names(),
            run: RunCheck::new(contents),
            guid: (!v3).then_some(md.guid.as_str()),
            instantiation_token: v3.then_some(md.guid.as_str()),
            description: md.description.as_deref(),
            generation_tool: md.generation_tool.as_deref(),
            generation_date_and_time: contents.generation_date_and_time.as_deref(),
            model_version: contents.model_version.as_deref(),
            platforms: &contents.platforms,
            platform_support: contents
                .platforms
                .iter()
                .map(|f| {
                    let native = contents
                        .library
                        .as_ref()
                        .is_some_and(|l| l.foreign_architecture.is_none());
                    PlatformSupport::of(f, md.fmi_version, native)
                })
                .collect(),
            source_files: &contents.source_files,
            capabilities: CapabilitiesInfo::new(md),
            model_exchange: ModelExchangeInfo::new(md),
            default_experiment: md.default_experiment.map(|e| ExperimentInfo {
                start_time: e.start_time,
                stop_time: e.stop_time,
                tolerance: e.tolerance,
                step_size: e.step_size,
            }),
            number_of_variables: md.variables.len(),
            variables: selected
                .iter()
                .map(|v| VariableInfo::new(v, md.fmi_version))
                .collect(),
            clocks: md.clocks.iter().map(ClockInfo::new).collect(),
        }
    }
}

/// The FMI name of a causality (`calculatedParameter`, …; FMI 2.0 §2.2.7, FMI 3.0 §2.4.7.4).
pub fn causality_name(causality: Causality) -> &'static str {
    match causality {
        Causality::Parameter => "parameter",
        Causality::CalculatedParameter => "calculatedParameter",
        Causality::Input => "input",
        Causality::Output => "output",
        Causality::Local => "local",
        Causality::Independent => "independent",
        Causality::StructuralParameter => "structuralParameter",
    }
}

impl<'a> ClockInfo<'a> {
    /// The information on the clock `c`.
    fn new(c: &'a ClockVariable) -> Self {
        ClockInfo {
            name: &c.name,
            value_reference: c.value_reference.0,
            causality: causality_name(c.causality),
        }
    }
}

impl<'a> VariableInfo<'a> {
    /// The information on the variable `v` of an FMU of FMI version `version`.
    fn new(v: &'a ScalarVariable, version: FmiVersion) -> Self {
        let v3 = version == FmiVersion::V3;
        VariableInfo {
            name: &v.name,
            value_reference: v.value_reference.0,
            causality: causality_name(v.causality),
            variability: match v.variability {
                Variability::Constant => "constant",
                Variability::Fixed => "fixed",
                Variability::Tunable => "tunable",
                Variability::Discrete => "discrete",
                Variability::Continuous => "continuous",
            },
            initial: v.initial.map(|i| match i {
                Initial::Exact => "exact",
                Initial::Approx => "approx",
                Initial::Calculated => "calculated",
            }),
            var_type: match v.var_type {
                _ if v.is_enumeration => "Enumeration",
                VarType::Real => "Real",
                VarType::Integer => "Integer",
                VarType::Boolean => "Boolean",
                VarType::String => "String",
                VarType::Binary => "Binary",
            },
            data_type: v3.then(|| {
                if v.is_enumeration {
                    "Enumeration"
                } else {
                    v.data_type.name()
                }
            }),
            array: v.array.as_ref().map(|a| a.array.as_str()),
            dimensions: v.array.as_ref().map(|a| a.dimensions.as_slice()),
            indices: v.array.as_ref().map(|a| a.indices.as_slice()),
            declared_type: v.declared_type.as_deref(),
            unit: v.unit.as_deref(),
            display_unit: v.display_unit.as_deref(),
            start: v.start.as_deref(),
            description: v.description.as_deref(),
            alias: match v.alias {
                Alias::NoAlias => None,
                Alias::Alias => Some("alias"),
                Alias::NegatedAlias => Some("negatedAlias"),
            },
        }
    }
}

/// Reads the FMU archive `path` for its description: `modelDescription.xml` and the list of
/// entries straight from the zip archive, nothing extracted or loaded, FMUs of every interface
/// (at most `fmi::model_description::MAX_DESCRIPTION_SIZE`, 256 MiB, of description).
///
/// # Errors
/// [`Error::NotAnFmu`] for a directory or a `.msim` project; [`Error::Fmi`] when the FMU
/// cannot be read (missing file, not a zip archive, no `modelDescription.xml`, malformed or
/// invalid XML; each names the file).
pub fn read(path: &Path) -> Result<FmuContents> {
    let refused = |problem: String| Error::NotAnFmu {
        path: path.to_path_buf(),
        problem,
    };
    if path.is_dir() {
        let hint = if path.join("modelDescription.xml").is_file() {
            " (an extracted FMU?)"
        } else {
            ""
        };
        return Err(refused(format!(
            "is a directory{hint}; mastersim info reads an FMU archive (.fmu)"
        )));
    }
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("msim"))
    {
        return Err(refused(
            "is a MasterSim project, not an FMU; mastersim info reads one FMU archive (.fmu), \
             such as one of those the project names"
                .to_owned(),
        ));
    }
    Ok(fmi::archive::describe(
        path,
        &fmi::archive::ExtractOptions::default(),
    )?)
}

/// The variables of `variables` to show, in file order: those of a causality in
/// `causalities` (any, when it is empty) whose name equals or glob-matches (`*`, `?`, `[..]`)
/// one of `patterns` (any, when it is empty). A pattern that is no valid glob still selects
/// the variable of exactly that name.
///
/// # Errors
/// [`Error::InvalidPattern`] when a pattern is not a valid glob and no variable has it as its
/// name.
pub fn select<'a>(
    variables: &'a [ScalarVariable],
    patterns: &[String],
    causalities: &[Causality],
) -> Result<Vec<&'a ScalarVariable>> {
    let mut globs = Vec::with_capacity(patterns.len());
    for pattern in patterns {
        match glob::Pattern::new(pattern) {
            Ok(glob) => globs.push(Some(glob)),
            Err(_) if variables.iter().any(|v| v.name == *pattern) => globs.push(None),
            Err(error) => {
                return Err(Error::InvalidPattern {
                    pattern: pattern.clone(),
                    problem: error.to_string(),
                });
            }
        }
    }
    let named = |v: &ScalarVariable| {
        patterns.is_empty()
            || patterns.iter().zip(&globs).any(|(pattern, glob)| {
                v.name == *pattern || glob.as_ref().is_some_and(|g| g.matches(&v.name))
            })
    };
    let of_causality =
        |v: &ScalarVariable| causalities.is_empty() || causalities.contains(&v.causality);
    Ok(variables
        .iter()
        .filter(|v| of_causality(v) && named(v))
        .collect())
}

/// The filters of [`select`] in words, for the heading of the variable table of
/// [`Info::text`] (`causality input, output; name x*`; empty without filters).
pub fn filter_text(patterns: &[String], causalities: &[Causality]) -> String {
    let mut parts = Vec::new();
    if !causalities.is_empty() {
        let names: Vec<&str> = causalities.iter().map(|c| causality_name(*c)).collect();
        parts.push(format!("causality {}", names.join(", ")));
    }
    if !patterns.is_empty() {
        parts.push(format!("name {}", patterns.join(", ")));
    }
    parts.join("; ")
}
