//! `modelDescription.xml` of FMI 1.0 CS and FMI 2.0 CS, as version-neutral data.
//!
//! Parsing uses quick-xml with serde into per-version raw structs, which are then converted
//! into [`ModelDescription`]. All checks that need more than the XML schema (required
//! attributes, the type element of a variable, capability flags) happen in that conversion, so
//! an error can name the variable by index and name.
//!
//! Spec: FMI 2.0.2 §2.2 (FMU description schema), FMI 1.0 for Co-Simulation §3
//! (`Implementation`/`CoSimulation_*`/`Capabilities`), FMI 1.0 §2.4 (`ModelVariables`).

use std::path::Path;

pub use crate::kinds::{Alias, FmiVersion, VarType};
use crate::{Result, ValueRef};

mod raw;

/// Causality of a variable, with FMI 1.0 values mapped onto the FMI 2.0 set.
///
/// FMI 1.0 mapping: `input` → [`Causality::Input`], but [`Causality::Parameter`] when
/// `variability="parameter"`; `output` → [`Causality::Output`]; `internal` → [`Causality::Local`],
/// but [`Causality::Parameter`] when `variability="parameter"`; `none` → [`Causality::Local`].
/// Spec: FMI 2.0.2 §2.2.7 (`causality`), FMI 1.0 §2.4.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Causality {
    /// Independent parameter, settable before initialization (and, if tunable, later).
    Parameter,
    /// Parameter computed by the FMU from other parameters.
    CalculatedParameter,
    /// Input, set by the environment.
    Input,
    /// Output, computed by the FMU.
    Output,
    /// Local variable (the default in FMI 2.0).
    Local,
    /// The independent variable (time).
    Independent,
}

/// Variability of a variable. FMI 1.0 `parameter` maps to [`Variability::Fixed`].
///
/// Spec: FMI 2.0.2 §2.2.7 (`variability`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variability {
    /// Never changes.
    Constant,
    /// Fixed after initialization.
    Fixed,
    /// Changes only at event instants chosen by the environment (tunable parameter).
    Tunable,
    /// Changes only at events.
    Discrete,
    /// Changes continuously (Real only). The default.
    Continuous,
}

/// The `initial` attribute of an FMI 2.0 variable.
///
/// Spec: FMI 2.0.2 §2.2.7 (`initial`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Initial {
    /// The start value is used as given.
    Exact,
    /// The start value is a guess for an iteration.
    Approx,
    /// The FMU computes the value; a start value is not allowed.
    Calculated,
}

/// One `ScalarVariable`.
///
/// Spec: FMI 2.0.2 §2.2.7, FMI 1.0 §2.4.
#[derive(Debug, Clone, PartialEq)]
pub struct ScalarVariable {
    /// Position in `ModelVariables`, starting at 1 (the index `ModelStructure` uses).
    pub index: usize,
    /// Variable name, unique within the FMU.
    pub name: String,
    /// Value reference, unique per type.
    pub value_reference: ValueRef,
    /// Optional description text.
    pub description: Option<String>,
    /// Causality (FMI 1.0 values mapped, see [`Causality`]).
    pub causality: Causality,
    /// Variability (FMI 1.0 values mapped, see [`Variability`]).
    pub variability: Variability,
    /// `initial` (FMI 2.0 only; `None` when absent or for FMI 1.0).
    pub initial: Option<Initial>,
    /// Data type; `Enumeration` is read as Integer.
    pub var_type: VarType,
    /// True when the type element was `Enumeration`.
    pub is_enumeration: bool,
    /// Start value, as written in the XML.
    pub start: Option<String>,
    /// Unit of a Real variable: the `unit` attribute, or the unit of its `declaredType`.
    pub unit: Option<String>,
    /// The `declaredType` attribute of the type element.
    pub declared_type: Option<String>,
    /// FMI 1.0 alias kind ([`Alias::NoAlias`] for FMI 2.0).
    pub alias: Alias,
}

/// Co-simulation capability flags. Missing attributes are `false` (0 for the integer).
///
/// FMI 1.0 flags come from `Implementation/CoSimulation_StandAlone|CoSimulation_Tool/Capabilities`.
/// Spec: FMI 2.0.2 §4.3.1 (`CoSimulation` attributes), FMI 1.0 CS §3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Capabilities {
    /// The FMU accepts a different communication step size at each step.
    pub can_handle_variable_communication_step_size: bool,
    /// The FMU can interpolate inputs given with their derivatives.
    pub can_interpolate_inputs: bool,
    /// `fmi2GetFMUstate`/`fmi2SetFMUstate`/`fmi2FreeFMUstate` work (FMI 2.0 only).
    pub can_get_and_set_fmu_state: bool,
    /// FMU states can be serialized (FMI 2.0 only).
    pub can_serialize_fmu_state: bool,
    /// Only one instance may exist per process.
    pub can_be_instantiated_only_once_per_process: bool,
    /// `fmi2GetDirectionalDerivative` works (FMI 2.0 only).
    pub provides_directional_derivative: bool,
    /// The FMU can run `doStep` asynchronously.
    pub can_run_asynchronuously: bool,
    /// Highest order of output derivatives the FMU provides.
    pub max_output_derivative_order: u32,
    /// FMI 1.0 only: the FMU can reject a step (`canRejectSteps`).
    pub can_reject_steps: bool,
}

/// The `DefaultExperiment` element, all fields optional. Times in seconds.
///
/// Spec: FMI 2.0.2 §2.2.5, FMI 1.0 §2.2.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DefaultExperiment {
    /// Start time, s.
    pub start_time: Option<f64>,
    /// Stop time, s.
    pub stop_time: Option<f64>,
    /// Relative tolerance.
    pub tolerance: Option<f64>,
    /// Step size, s (FMI 2.0 only).
    pub step_size: Option<f64>,
}

/// One output of `ModelStructure/Outputs` (FMI 2.0 only).
///
/// Spec: FMI 2.0.2 §2.2.8.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputDependency {
    /// 1-based index into `ModelVariables`.
    pub index: usize,
    /// 1-based indices of the variables the output depends on; `None` when the attribute is
    /// absent (depends on everything).
    pub dependencies: Option<Vec<usize>>,
}

/// A parsed `modelDescription.xml`, version-neutral.
///
/// Spec: FMI 2.0.2 §2.2.1 (`fmiModelDescription`), FMI 1.0 §2.2.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelDescription {
    /// FMI version.
    pub fmi_version: FmiVersion,
    /// `modelName`.
    pub model_name: String,
    /// `guid`, passed back to the FMU at instantiation.
    pub guid: String,
    /// `description`.
    pub description: Option<String>,
    /// `generationTool`.
    pub generation_tool: Option<String>,
    /// Model identifier of the co-simulation interface: the shared library's base name and, for
    /// FMI 1.0, the prefix of every function symbol.
    pub model_identifier: String,
    /// Co-simulation capabilities.
    pub capabilities: Capabilities,
    /// `DefaultExperiment`, if present.
    pub default_experiment: Option<DefaultExperiment>,
    /// All scalar variables in file order (`variables[i].index == i + 1`).
    pub variables: Vec<ScalarVariable>,
    /// `ModelStructure/Outputs` (FMI 2.0; empty for FMI 1.0).
    pub outputs: Vec<OutputDependency>,
}

impl ModelDescription {
    /// Reads and parses a `modelDescription.xml` file.
    ///
    /// The file must be UTF-8 (a BOM is skipped); a file that is not valid UTF-8 but declares
    /// `encoding="ISO-8859-1"` is decoded as Latin-1.
    ///
    /// # Errors
    /// [`crate::Error::Io`] when the file cannot be read, [`crate::Error::Xml`] when it cannot be
    /// decoded; otherwise as [`ModelDescription::parse`].
    ///
    /// Spec: FMI 2.0.2 §2.2 (file `modelDescription.xml`, UTF-8 encoded), FMI 1.0 §2.2.
    pub fn from_file(path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path).map_err(|source| crate::Error::Io {
            path: path.to_owned(),
            source,
        })?;
        Self::from_bytes(bytes, path).map(|(description, _)| description)
    }

    /// Decodes and parses the bytes of a `modelDescription.xml` (read from a file or straight
    /// from an FMU archive), decoded as [`ModelDescription::from_file`] does; `path` is only
    /// used in error messages. Returns the description and the decoded text.
    ///
    /// # Errors
    /// [`crate::Error::Xml`] when the bytes cannot be decoded; otherwise as
    /// [`ModelDescription::parse`].
    ///
    /// Spec: FMI 2.0.2 §2.2 (UTF-8 encoded), FMI 1.0 §2.2.
    pub fn from_bytes(bytes: Vec<u8>, path: &Path) -> Result<(Self, String)> {
        let text = raw::decode_text(bytes, path)?;
        let description = Self::parse(&text, path)?;
        Ok((description, text))
    }

    /// Parses the text of a `modelDescription.xml`; `path` is only used in error messages.
    ///
    /// Start values are kept as written and not required here: which variables need one is the
    /// caller's decision.
    ///
    /// # Errors
    /// - [`crate::Error::Xml`]: malformed XML (with the byte position when known);
    /// - [`crate::Error::WrongRootElement`]: the root is not `fmiModelDescription`;
    /// - [`crate::Error::UnsupportedVersion`]: `fmiVersion` is neither `1.0` nor `2.0[.x]`;
    /// - [`crate::Error::NoCoSimulation`]: no co-simulation interface (Model Exchange only);
    /// - [`crate::Error::MissingElement`], [`crate::Error::MissingAttribute`],
    ///   [`crate::Error::InvalidAttribute`], [`crate::Error::TypeElement`]: a required element or
    ///   attribute is missing or invalid; variables are named by index and name;
    /// - [`crate::Error::DuplicateVariableName`]: two variables have the same name;
    /// - [`crate::Error::AliasWithoutBase`], [`crate::Error::AliasTypeMismatch`] (FMI 1.0): an
    ///   alias variable has no non-alias variable of its type with its value reference. (Value
    ///   references are unique per base type only; FMI 2.0 Integer and Enumeration variables
    ///   sharing one are aliases and accepted.)
    ///
    /// Spec: FMI 2.0.2 §2.2.1 (`fmiModelDescription`), §2.2.7 (`ModelVariables`), §2.2.8
    /// (`ModelStructure`), §4.3.1 (`CoSimulation`); FMI 1.0 §2.2–§2.4, FMI 1.0 CS §3
    /// (`Implementation`).
    pub fn parse(xml: &str, path: &Path) -> Result<Self> {
        raw::parse(xml, path)
    }

    /// The first variable with this exact name.
    pub fn variable_by_name(&self, name: &str) -> Option<&ScalarVariable> {
        self.variables.iter().find(|v| v.name == name)
    }
}

#[cfg(test)]
mod tests;
