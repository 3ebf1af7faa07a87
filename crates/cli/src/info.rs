//! `mastersim info`: what an FMU holds — FMI version, model, generation tool, platforms,
//! co-simulation capabilities, default experiment and variables — as text or JSON.
//!
//! The FMU is read with [`fmi::archive::inspect`]: `modelDescription.xml` and the list of
//! entries come straight from the zip archive; nothing is extracted and no shared library is
//! loaded, so FMUs without binaries for this platform can be inspected too. The capabilities
//! are those the XML declares.
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

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::bail;
use clap::ValueEnum;
use fmi::archive::{self, ExtractOptions, FmuContents};
use fmi::{
    Alias, Causality, ClockVariable, FmiVersion, Initial, ScalarVariable, VarType, Variability,
};
use serde::Serialize;

/// Characters of a variable's description shown in the table; longer ones end in `…` (the
/// JSON output has them in full).
const DESCRIPTION_WIDTH: usize = 60;

/// Arguments of `mastersim info`.
#[derive(clap::Args, Debug, Clone)]
pub struct InfoArgs {
    /// The FMU archive (.fmu), FMI 1.0, 2.0 or 3.0 co-simulation.
    pub fmu: PathBuf,
    /// Show only the variables whose name equals one of these patterns or matches it as a
    /// glob (`*`, `?`, `[..]`) [default: all variables].
    #[arg(value_name = "PATTERN")]
    pub patterns: Vec<String>,
    /// Show only the variables of these causalities; comma separated or repeated. FMI 1.0
    /// variables are shown with FMI 2.0 causalities (an `internal` parameter is a `parameter`).
    #[arg(long, value_name = "CAUSALITY", value_delimiter = ',')]
    pub causality: Vec<CausalityFilter>,
    /// Print the information as one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// A causality on the command line (`--causality`), named as in FMI 2.0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CausalityFilter {
    /// Independent parameters.
    Parameter,
    /// Parameters the FMU computes from other parameters.
    #[value(name = "calculatedParameter", alias = "calculated-parameter")]
    CalculatedParameter,
    /// Inputs.
    Input,
    /// Outputs.
    Output,
    /// Local variables.
    Local,
    /// The independent variable (time).
    Independent,
    /// FMI 3.0 structural parameters (array sizes).
    #[value(name = "structuralParameter", alias = "structural-parameter")]
    StructuralParameter,
}

impl CausalityFilter {
    /// Whether a variable of causality `causality` passes this filter.
    fn matches(self, causality: Causality) -> bool {
        causality
            == match self {
                CausalityFilter::Parameter => Causality::Parameter,
                CausalityFilter::CalculatedParameter => Causality::CalculatedParameter,
                CausalityFilter::Input => Causality::Input,
                CausalityFilter::Output => Causality::Output,
                CausalityFilter::Local => Causality::Local,
                CausalityFilter::Independent => Causality::Independent,
                CausalityFilter::StructuralParameter => Causality::StructuralParameter,
            }
    }
}

/// Runs `mastersim info`: prints what `args.fmu` holds, as text or (`--json`) as JSON.
///
/// # Errors
/// The path is a directory or a `.msim` project; the FMU cannot be read (missing file, not
/// a zip archive, no `modelDescription.xml`, malformed or invalid XML: the errors of
/// [`fmi::archive::inspect`], which name the file); a pattern is not a valid glob and no
/// variable has it as its name.
pub fn run(args: &InfoArgs) -> anyhow::Result<()> {
    let path = &args.fmu;
    if path.is_dir() {
        let hint = if path.join("modelDescription.xml").is_file() {
            " (an extracted FMU?)"
        } else {
            ""
        };
        bail!(
            "'{}' is a directory{hint}; mastersim info reads an FMU archive (.fmu)",
            path.display()
        );
    }
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("msim"))
    {
        bail!(
            "'{}' is a MasterSim project, not an FMU; mastersim info reads one FMU archive \
             (.fmu), such as one of those the project names",
            path.display()
        );
    }
    // `inspect` reads at most `fmi::model_description::MAX_DESCRIPTION_SIZE` (256 MiB) of
    // the description, far above real ones, and refuses a larger one before reading it.
    let contents = archive::inspect(path, &ExtractOptions::default())?;
    let selected = select(&contents.description.variables, args)?;
    let info = Info::new(path, &contents, &selected);
    if args.json {
        say!("{}", serde_json::to_string_pretty(&info)?);
    } else {
        say!("{}", info.text(&filter_text(args)).trim_end());
    }
    Ok(())
}

/// The variables `args` selects, in file order: those of a `--causality` given (any, when
/// none is given) whose name equals or glob-matches a pattern (any, when none is given).
///
/// # Errors
/// A pattern is not a valid glob and no variable has it as its name.
fn select<'a>(
    variables: &'a [ScalarVariable],
    args: &InfoArgs,
) -> anyhow::Result<Vec<&'a ScalarVariable>> {
    let mut globs = Vec::with_capacity(args.patterns.len());
    for pattern in &args.patterns {
        match glob::Pattern::new(pattern) {
            Ok(glob) => globs.push(Some(glob)),
            Err(_) if variables.iter().any(|v| v.name == *pattern) => globs.push(None),
            Err(error) => bail!("invalid variable pattern '{pattern}': {error}"),
        }
    }
    let named = |v: &ScalarVariable| {
        args.patterns.is_empty()
            || args.patterns.iter().zip(&globs).any(|(pattern, glob)| {
                v.name == *pattern || glob.as_ref().is_some_and(|g| g.matches(&v.name))
            })
    };
    let of_causality = |v: &ScalarVariable| {
        args.causality.is_empty() || args.causality.iter().any(|c| c.matches(v.causality))
    };
    Ok(variables
        .iter()
        .filter(|v| of_causality(v) && named(v))
        .collect())
}

/// The filters of `args` in words, for the heading of the variable table (empty without
/// filters).
fn filter_text(args: &InfoArgs) -> String {
    let mut parts = Vec::new();
    if !args.causality.is_empty() {
        let names: Vec<&str> = args
            .causality
            .iter()
            .map(|c| causality_filter_name(*c))
            .collect();
        parts.push(format!("causality {}", names.join(", ")));
    }
    if !args.patterns.is_empty() {
        parts.push(format!("name {}", args.patterns.join(", ")));
    }
    parts.join("; ")
}

/// The command-line name of a causality filter.
fn causality_filter_name(filter: CausalityFilter) -> &'static str {
    match filter {
        CausalityFilter::Parameter => "parameter",
        CausalityFilter::CalculatedParameter => "calculatedParameter",
        CausalityFilter::Input => "input",
        CausalityFilter::Output => "output",
        CausalityFilter::Local => "local",
        CausalityFilter::Independent => "independent",
        CausalityFilter::StructuralParameter => "structuralParameter",
    }
}

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
    /// of the function names).
    pub model_identifier: &'a str,
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
    /// `sourceFiles`: the files under `sources/` (archive paths; empty when the FMU comes
    /// without sources).
    pub source_files: &'a [String],
    /// `capabilities`: the co-simulation capability flags the XML declares.
    pub capabilities: CapabilitiesInfo,
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
    /// The capabilities of `md` that its FMI version defines.
    fn new(md: &fmi::ModelDescription) -> Self {
        use Capability::{Count, Flag, Seconds};
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

    /// The `attribute  value` rows of the text form.
    fn rows(&self) -> Vec<Vec<String>> {
        self.0
            .iter()
            .map(|(name, value)| {
                let value = match *value {
                    Capability::Flag(true) => "yes".to_owned(),
                    Capability::Flag(false) => "no".to_owned(),
                    Capability::Count(n) => n.to_string(),
                    Capability::Seconds(h) => format!("{} s", number(h)),
                };
                vec![(*name).to_owned(), value]
            })
            .collect()
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
    fn new(path: &Path, contents: &'a FmuContents, selected: &[&'a ScalarVariable]) -> Self {
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
            guid: (!v3).then_some(md.guid.as_str()),
            instantiation_token: v3.then_some(md.guid.as_str()),
            description: md.description.as_deref(),
            generation_tool: md.generation_tool.as_deref(),
            generation_date_and_time: contents.generation_date_and_time.as_deref(),
            model_version: contents.model_version.as_deref(),
            platforms: &contents.platforms,
            source_files: &contents.source_files,
            capabilities: CapabilitiesInfo::new(md),
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

    /// The information as text: a header of `label  value` lines, the capabilities, the
    /// default experiment and the variable table (`filters`: the filters in words, for its
    /// heading).
    fn text(&self, filters: &str) -> String {
        let mut out = String::new();
        let platforms = if self.platforms.is_empty() {
            "none (no binaries/ folder)".to_owned()
        } else {
            self.platforms.join(", ")
        };
        let sources = match self.source_files.len() {
            0 => "no".to_owned(),
            1 => "yes (1 file)".to_owned(),
            n => format!("yes ({n} files)"),
        };
        let header = [
            ("FMU", Some(self.fmu.as_str())),
            ("FMI version", Some(self.fmi_version)),
            ("Model name", Some(self.model_name)),
            ("Model identifier", Some(self.model_identifier)),
            ("Description", self.description),
            ("Generation tool", self.generation_tool),
            ("Generated", self.generation_date_and_time),
            ("Model version", self.model_version),
            ("GUID", self.guid),
            ("Instantiation token", self.instantiation_token),
            ("Platforms", Some(platforms.as_str())),
            ("Sources", Some(sources.as_str())),
        ];
        let rows: Vec<Vec<String>> = header
            .iter()
            .filter_map(|(label, value)| Some(vec![(*label).to_owned(), one_line((*value)?)]))
            .collect();
        write_table(&mut out, "", &rows);

        let rows = self.capabilities.rows();
        out.push_str("\nCo-simulation capabilities\n");
        write_table(&mut out, "  ", &rows);

        match &self.default_experiment {
            None => out.push_str("\nDefault experiment: none\n"),
            Some(e) => {
                out.push_str("\nDefault experiment\n");
                let rows: Vec<Vec<String>> = [
                    ("startTime", e.start_time, " s"),
                    ("stopTime", e.stop_time, " s"),
                    ("tolerance", e.tolerance, ""),
                    ("stepSize", e.step_size, " s"),
                ]
                .iter()
                .filter_map(|(name, value, unit)| {
                    Some(vec![
                        (*name).to_owned(),
                        format!("{}{unit}", number((*value)?)),
                    ])
                })
                .collect();
                write_table(&mut out, "  ", &rows);
            }
        }

        let total = self.number_of_variables;
        if filters.is_empty() {
            let _ = writeln!(out, "\nVariables ({total})");
        } else {
            let shown = self.variables.len();
            let _ = writeln!(out, "\nVariables ({shown} of {total}; {filters})");
        }
        if self.variables.is_empty() {
            out.push_str("  (none)\n");
        } else {
            self.variable_table(&mut out);
        }
        if !self.clocks.is_empty() {
            let _ = writeln!(
                out,
                "\nClocks ({}; mastersim cannot simulate FMUs with clocks)",
                self.clocks.len()
            );
            let mut rows = vec![
                ["name", "causality", "valueReference"]
                    .map(str::to_owned)
                    .to_vec(),
            ];
            rows.extend(self.clocks.iter().map(|c| {
                vec![
                    c.name.to_owned(),
                    c.causality.to_owned(),
                    c.value_reference.to_string(),
                ]
            }));
            write_table(&mut out, "  ", &rows);
        }
        out
    }

    /// Writes the table of [`Info::variables`] to `out`.
    fn variable_table(&self, out: &mut String) {
        let mut rows = vec![
            [
                "name",
                "causality",
                "variability",
                "type",
                "unit",
                "start",
                "description",
            ]
            .map(str::to_owned)
            .to_vec(),
        ];
        rows.extend(self.variables.iter().map(|v| {
            vec![
                v.name.to_owned(),
                v.causality.to_owned(),
                v.variability.to_owned(),
                v.data_type.unwrap_or(v.var_type).to_owned(),
                v.unit.map(one_line).unwrap_or_default(),
                v.start.map(one_line).unwrap_or_default(),
                v.description.map(truncated).unwrap_or_default(),
            ]
        }));
        write_table(out, "  ", &rows);
    }
}

/// The FMI name of a causality.
fn causality_name(causality: Causality) -> &'static str {
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

/// Writes `rows` as left-aligned columns two spaces apart, each line starting with
/// `indent`; widths count characters, trailing blanks are dropped.
fn write_table(out: &mut String, indent: &str, rows: &[Vec<String>]) {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            rows.iter()
                .filter_map(|row| row.get(i))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in rows {
        let mut line = indent.to_owned();
        for (cell, width) in row.iter().zip(&widths) {
            let _ = write!(line, "{cell:width$}  ");
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

/// `text` on one line: line breaks and tabs become spaces.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// `text` on one line and at most [`DESCRIPTION_WIDTH`] characters long (the last one `…`
/// when cut).
fn truncated(text: &str) -> String {
    let text = one_line(text);
    if text.chars().count() <= DESCRIPTION_WIDTH {
        return text;
    }
    let mut cut: String = text.chars().take(DESCRIPTION_WIDTH - 1).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
}

/// A number as the shortest text that reads back to it: plain decimals for magnitudes
/// from 1e-4 to 1e15, otherwise with an exponent (`1e-6`).
fn number(value: f64) -> String {
    let magnitude = value.abs();
    if value == 0.0 || (1e-4..1e15).contains(&magnitude) || !value.is_finite() {
        value.to_string()
    } else {
        format!("{value:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_naturally() {
        assert_eq!(number(0.0), "0");
        assert_eq!(number(20.0), "20");
        assert_eq!(number(0.01), "0.01");
        assert_eq!(number(1e-6), "1e-6");
        assert_eq!(number(-2.5e20), "-2.5e20");
    }

    #[test]
    fn descriptions_are_cut_on_one_line() {
        assert_eq!(truncated("a\tb\nc"), "a b c");
        let long = "word ".repeat(20);
        let cut = truncated(&long);
        assert_eq!(cut.chars().count(), DESCRIPTION_WIDTH);
        assert!(cut.ends_with("word…"), "{cut}");
    }

    #[test]
    fn tables_align_by_characters() {
        let mut out = String::new();
        let rows = vec![
            vec!["ä".to_owned(), "x".to_owned(), String::new()],
            vec!["abc".to_owned(), "y".to_owned(), "z".to_owned()],
        ];
        write_table(&mut out, "  ", &rows);
        assert_eq!(out, "  ä    x\n  abc  y  z\n");
    }
}
