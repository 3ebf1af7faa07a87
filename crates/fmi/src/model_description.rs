//! `modelDescription.xml` of FMI 1.0 CS, FMI 2.0 CS and FMI 3.0 CS, as version-neutral data
//! (FMUs of the other interfaces are read too, to describe them:
//! [`ModelDescription::parse_any_interface`]).
//!
//! Parsing uses quick-xml with serde into per-version raw structs, which are then converted
//! into [`ModelDescription`]. All checks that need more than the XML schema (required
//! attributes, the type element of a variable, capability flags) happen in that conversion, so
//! an error can name the variable by index and name.
//!
//! FMI 3.0 descriptions are read without serde, through a small element tree: their variables
//! are differently named sibling elements whose order is their index, arrays expand into one
//! [`ScalarVariable`] per element, and attributes the reader does not know are reported with a
//! warning (through the `log` crate, naming the file) instead of being refused.
//!
//! Spec: FMI 2.0.2 §2.2 (FMU description schema), FMI 1.0 for Co-Simulation §3
//! (`Implementation`/`CoSimulation_*`/`Capabilities`), FMI 1.0 §2.4 (`ModelVariables`),
//! FMI 3.0 §2.4 (FMU description schema).

use std::path::Path;

pub use crate::kinds::{Alias, DataType, FmiVersion, Interface, Interfaces, VarType};
use crate::{Result, ValueRef};

mod raw;

/// The largest `modelDescription.xml` that is read, bytes (256 MiB), from a file or from an
/// FMU archive. Real model descriptions stay far below it (tens of MB for models with
/// hundreds of thousands of variables); a larger one is refused
/// ([`crate::Error::DescriptionTooLarge`]) before it is read, so that a broken or hostile
/// file cannot make the process hold gigabytes.
///
/// Spec: none (a safety limit of this crate).
pub const MAX_DESCRIPTION_SIZE: u64 = 256 << 20;

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
    /// FMI 3.0 structural parameter: a parameter that may size arrays (`causality=
    /// "structuralParameter"`). mastersim fixes array sizes at load, so it never sets one.
    StructuralParameter,
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

/// The `initial` attribute of an FMI 2.0 or 3.0 variable.
///
/// Spec: FMI 2.0.2 §2.2.7 (`initial`), FMI 3.0 §2.4.7.5.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Initial {
    /// The start value is used as given.
    Exact,
    /// The start value is a guess for an iteration.
    Approx,
    /// The FMU computes the value; a start value is not allowed.
    Calculated,
}

/// Where a scalar sits in an FMI 3.0 array variable.
///
/// Elements are stored in row-major order (the last index varies fastest), as FMI 3.0 passes
/// array values flattened.
///
/// Spec: FMI 3.0 §2.4.7.6 (`Dimension`), §2.2.6.2 (serialization of arrays).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrayElement {
    /// The name of the whole array variable (the element's name is `array[i]` / `array[i,j]`).
    pub array: String,
    /// The size of each dimension (the sizes from structural parameters are their start
    /// values).
    pub dimensions: Vec<usize>,
    /// The element's indices, starting at 1; `indices.len() == dimensions.len()`.
    pub indices: Vec<usize>,
    /// The element's position in the flattened array, starting at 0.
    pub offset: usize,
}

impl ArrayElement {
    /// Number of elements of the whole array: the product of the dimensions.
    pub fn len(&self) -> usize {
        self.dimensions.iter().product()
    }

    /// True when a dimension is 0 (such an array has no elements, so no `ArrayElement` of it
    /// exists; provided for completeness).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// An FMI 3.0 `Clock` variable. Clocks are listed apart from [`ScalarVariable`]s: mastersim
/// refuses FMUs that have any (they need clock activation, which it does not implement).
///
/// Spec: FMI 3.0 §2.4.7.5 (`Clock`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockVariable {
    /// Variable name.
    pub name: String,
    /// Value reference.
    pub value_reference: ValueRef,
    /// Causality (`input`, `output` or `local`).
    pub causality: Causality,
}

/// One `ScalarVariable` (FMI 1.0/2.0), or one scalar of an FMI 3.0 variable: a scalar variable,
/// or one element of an array variable.
///
/// Spec: FMI 2.0.2 §2.2.7, FMI 1.0 §2.4, FMI 3.0 §2.4.7.
#[derive(Debug, Clone, PartialEq)]
pub struct ScalarVariable {
    /// Position in the scalar list, starting at 1. FMI 1.0/2.0: the position in
    /// `ModelVariables` (the index `ModelStructure` uses). FMI 3.0: array variables take one
    /// position per element, so this is not the variable's position in `ModelVariables`.
    pub index: usize,
    /// Variable name. Array elements are named `array[i]` and `array[i,j]`, with indices
    /// starting at 1. FMI requires names to be unique within the FMU; a description that
    /// repeats one is read with a warning, and a reference to such a name is resolved with
    /// [`lookup`].
    pub name: String,
    /// The FMU's value reference: unique per type in FMI 1.0/2.0, unique in the FMU in
    /// FMI 3.0, where all elements of an array share their array's.
    pub value_reference: ValueRef,
    /// The master's handle of this scalar, passed to slaves in place of a value reference.
    /// FMI 1.0/2.0: the value reference itself (so aliases share it). FMI 3.0: `index − 1`,
    /// unique per scalar, because array elements share a value reference.
    pub handle: ValueRef,
    /// The declared data type (FMI 1.0/2.0: Float64, Int32, Boolean or String).
    pub data_type: DataType,
    /// FMI 3.0: where this scalar sits in its array variable; `None` for scalar variables.
    pub array: Option<ArrayElement>,
    /// Optional description text.
    pub description: Option<String>,
    /// Causality (FMI 1.0 values mapped, see [`Causality`]).
    pub causality: Causality,
    /// Variability (FMI 1.0 values mapped, see [`Variability`]).
    pub variability: Variability,
    /// `initial` (FMI 2.0 and 3.0; `None` when absent or for FMI 1.0).
    pub initial: Option<Initial>,
    /// Coupling class: `data_type.var_type()`; `Enumeration` is read as Integer.
    pub var_type: VarType,
    /// True when the type element was `Enumeration`.
    pub is_enumeration: bool,
    /// Start value, as written in the XML (for an FMI 3.0 array element: its own item of the
    /// space-separated list or of the `<Start>` elements; Binary in hexadecimal).
    pub start: Option<String>,
    /// Unit of a Real (FMI 3.0: Float32/Float64) variable: the `unit` attribute, or the unit of
    /// its `declaredType`.
    pub unit: Option<String>,
    /// Display unit of an FMI 3.0 Float32/Float64 variable: the `displayUnit` attribute, or
    /// that of its `declaredType`; for an alias, the alias's own when it gives one. Always
    /// `None` for FMI 1.0/2.0.
    pub display_unit: Option<String>,
    /// The `declaredType` attribute of the type element.
    pub declared_type: Option<String>,
    /// FMI 1.0 alias kind ([`Alias::NoAlias`] for FMI 2.0). FMI 3.0: [`Alias::Alias`] for the
    /// scalars of an `<Alias>` element, which follow those of their variable and share its
    /// value reference, data type and start value.
    pub alias: Alias,
}

impl ScalarVariable {
    /// True when `self` and `other` are one value of the FMU: the same value reference and
    /// coupling class ([`VarType`]), the same element of an FMI 3.0 array, and the same sign
    /// (an FMI 1.0 negated alias reads the negated value). Scalars that share a name are
    /// harmless aliases when this holds, and an ambiguous name otherwise ([`lookup`]).
    ///
    /// Spec: FMI 2.0.2 §2.2.7 (aliases share a value reference), FMI 1.0 §2.4 (`alias`),
    /// FMI 3.0 §2.4.7 (value references unique; array elements share their array's).
    pub fn same_value(&self, other: &ScalarVariable) -> bool {
        let offset = |v: &ScalarVariable| v.array.as_ref().map(|a| a.offset);
        self.value_reference == other.value_reference
            && self.var_type == other.var_type
            && offset(self) == offset(other)
            && (self.alias == Alias::NegatedAlias) == (other.alias == Alias::NegatedAlias)
    }
}

/// What a variable name refers to among the scalars of an FMU: the answer of [`lookup`].
#[derive(Debug, Clone, PartialEq)]
pub enum NameLookup<'a> {
    /// No scalar has the name.
    Missing,
    /// One scalar has the name, or several that are all one value
    /// ([`ScalarVariable::same_value`]): the first of them.
    Found(&'a ScalarVariable),
    /// Several scalars that are not one value have the name (the description breaks FMI's
    /// rule of unique names, which is read with a warning): all scalars with the name, in
    /// file order.
    Ambiguous(Vec<&'a ScalarVariable>),
}

/// Looks a variable up by name among `variables`, telling a harmless repeated name (aliases
/// of one value: the first is taken) from an ambiguous one. Every lookup of a name a user
/// wrote (a connection, a parameter, a value to read) should use this, and refuse
/// [`NameLookup::Ambiguous`].
///
/// Spec: FMI 2.0.2 §2.2.7 and FMI 3.0 §2.4.7.4 (`name` unique), FMI 1.0 §2.4.
pub fn lookup<'a>(variables: &'a [ScalarVariable], name: &str) -> NameLookup<'a> {
    let mut named = variables.iter().filter(|v| v.name == name);
    let Some(first) = named.next() else {
        return NameLookup::Missing;
    };
    if named.clone().all(|v| v.same_value(first)) {
        return NameLookup::Found(first);
    }
    let mut all = vec![first];
    all.extend(named);
    NameLookup::Ambiguous(all)
}

/// Co-simulation capability flags. Missing attributes are `false` (0 for the integer).
///
/// FMI 1.0 flags come from `Implementation/CoSimulation_StandAlone|CoSimulation_Tool/Capabilities`.
/// Spec: FMI 2.0.2 §4.3.1 (`CoSimulation` attributes), FMI 1.0 CS §3, FMI 3.0 §4.3.1.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Capabilities {
    /// The FMU accepts a different communication step size at each step.
    pub can_handle_variable_communication_step_size: bool,
    /// The FMU can interpolate inputs given with their derivatives (FMI 1.0/2.0; FMI 3.0 has
    /// no such flag: `false`).
    pub can_interpolate_inputs: bool,
    /// `fmi2GetFMUstate`/`fmi2SetFMUstate`/`fmi2FreeFMUstate` work (FMI 2.0; FMI 3.0
    /// `canGetAndSetFMUState`).
    pub can_get_and_set_fmu_state: bool,
    /// FMU states can be serialized (FMI 2.0; FMI 3.0 `canSerializeFMUState`).
    pub can_serialize_fmu_state: bool,
    /// Only one instance may exist per process.
    pub can_be_instantiated_only_once_per_process: bool,
    /// `fmi2GetDirectionalDerivative` works (FMI 2.0; FMI 3.0 `providesDirectionalDerivatives`,
    /// for `fmi3GetDirectionalDerivative`).
    pub provides_directional_derivative: bool,
    /// The FMU can run `doStep` asynchronously (FMI 1.0/2.0; `false` for FMI 3.0).
    pub can_run_asynchronuously: bool,
    /// Highest order of output derivatives the FMU provides.
    pub max_output_derivative_order: u32,
    /// FMI 1.0 only: the FMU can reject a step (`canRejectSteps`).
    pub can_reject_steps: bool,
    /// FMI 3.0: the FMU supports Event Mode in co-simulation (`hasEventMode`).
    pub has_event_mode: bool,
    /// FMI 3.0: the FMU may return early from `fmi3DoStep` when allowed
    /// (`mightReturnEarlyFromDoStep`).
    pub might_return_early_from_do_step: bool,
    /// FMI 3.0: the FMU can return early when the intermediate-update callback asks it to
    /// (`canReturnEarlyAfterIntermediateUpdate`).
    pub can_return_early_after_intermediate_update: bool,
    /// FMI 3.0: the FMU's fixed internal step size in s (`fixedInternalStepSize`), if declared.
    pub fixed_internal_step_size: Option<f64>,
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
    /// Step size, s (FMI 2.0 and 3.0).
    pub step_size: Option<f64>,
}

/// One output of `ModelStructure/Outputs` (FMI 2.0), or one `ModelStructure/Output` (FMI 3.0).
///
/// FMI 3.0 names outputs and their dependencies by value reference; they are mapped to the
/// scalar index of the first scalar with that value reference. For an array that is its first
/// element, so the dependencies of an array stand for all of its elements. Clocks and arrays
/// with a dimension of size 0 have no scalar index: such outputs are not listed, and such
/// dependencies are left out.
///
/// Spec: FMI 2.0.2 §2.2.8, FMI 3.0 §2.4.8.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputDependency {
    /// 1-based index into `ModelVariables` (FMI 3.0: into [`ModelDescription::variables`]).
    pub index: usize,
    /// 1-based indices of the variables the output depends on; `None` when the attribute is
    /// absent (depends on everything).
    pub dependencies: Option<Vec<usize>>,
}

/// A parsed `modelDescription.xml`, version-neutral.
///
/// Spec: FMI 2.0.2 §2.2.1 (`fmiModelDescription`), FMI 1.0 §2.2, FMI 3.0 §2.4.1.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelDescription {
    /// FMI version.
    pub fmi_version: FmiVersion,
    /// `modelName`.
    pub model_name: String,
    /// `guid` (FMI 1.0/2.0) or `instantiationToken` (FMI 3.0), passed back to the FMU at
    /// instantiation.
    pub guid: String,
    /// `description`.
    pub description: Option<String>,
    /// `generationTool`.
    pub generation_tool: Option<String>,
    /// Model identifier of the co-simulation interface: the shared library's base name and, for
    /// FMI 1.0, the prefix of every function symbol. (A description read to describe an FMU
    /// without co-simulation, [`ModelDescription::parse_any_interface`], has that of its
    /// Model Exchange or Scheduled Execution interface.)
    pub model_identifier: String,
    /// The interfaces the FMU offers.
    pub interfaces: Interfaces,
    /// Co-simulation capabilities (all off without a co-simulation interface).
    pub capabilities: Capabilities,
    /// `DefaultExperiment`, if present.
    pub default_experiment: Option<DefaultExperiment>,
    /// All scalar variables in file order (`variables[i].index == i + 1`); FMI 3.0 array
    /// variables contribute one entry per element, in row-major order.
    pub variables: Vec<ScalarVariable>,
    /// FMI 3.0 `Clock` variables (empty for FMI 1.0/2.0); see [`ClockVariable`].
    pub clocks: Vec<ClockVariable>,
    /// `ModelStructure/Outputs` (FMI 2.0) or `ModelStructure/Output` (FMI 3.0, see
    /// [`OutputDependency`]); empty for FMI 1.0.
    pub outputs: Vec<OutputDependency>,
    /// The `ModelExchange` element, when the FMU offers Model Exchange (FMI 2.0 and 3.0) and
    /// its model structure can be used to run it; `None` otherwise (FMI 1.0 always, and with
    /// a warning when the ME parts are ambiguous in a description read for co-simulation).
    pub model_exchange: Option<ModelExchange>,
    /// Number of event indicators: FMI 2.0 the root attribute `numberOfEventIndicators`, FMI
    /// 3.0 the number of scalars of the `ModelStructure/EventIndicator` elements (arrays
    /// expanded); 0 for FMI 1.0 and when the description reads none.
    pub number_of_event_indicators: usize,
    /// The continuous states in state-vector order (FMI 2.0 `ModelStructure/Derivatives`,
    /// FMI 3.0 `ModelStructure/ContinuousStateDerivative`, arrays expanded element by
    /// element); empty for FMI 1.0.
    pub continuous_states: Vec<ContinuousState>,
}

/// The `ModelExchange` element of a model description.
///
/// Spec: FMI 2.0.2 §3.3.1 (`ModelExchange` attributes), FMI 3.0 §3.3.1.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelExchange {
    /// `modelIdentifier`: the shared library's base name for Model Exchange (may differ from
    /// that of `CoSimulation`).
    pub model_identifier: String,
    /// The flags this element shares with co-simulation (`canGetAndSetFMUstate`,
    /// `canSerializeFMUstate`, `providesDirectionalDerivative(s)`,
    /// `canBeInstantiatedOnlyOncePerProcess`); the co-simulation-only flags are off.
    pub capabilities: Capabilities,
    /// FMI 2.0 `completedIntegratorStepNotNeeded`; FMI 3.0 the negation of
    /// `needsCompletedIntegratorStep`: the master may skip `completedIntegratorStep`.
    pub completed_integrator_step_not_needed: bool,
}

/// One continuous state of a Model Exchange FMU and its derivative.
///
/// Spec: FMI 2.0.2 §2.2.8 (`ModelStructure/Derivatives`, attribute `derivative`), FMI 3.0
/// §2.4.8 (`ContinuousStateDerivative`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContinuousState {
    /// Value reference of the state variable (for an FMI 3.0 array: of the whole array).
    pub state: ValueRef,
    /// Value reference of its derivative.
    pub derivative: ValueRef,
    /// 1-based index of the state's scalar in [`ModelDescription::variables`].
    pub state_index: usize,
    /// 1-based index of the derivative's scalar in [`ModelDescription::variables`].
    pub derivative_index: usize,
}

impl ModelDescription {
    /// Reads and parses a `modelDescription.xml` file.
    ///
    /// The file must be UTF-8 (a BOM is skipped); a file that is not valid UTF-8 but declares
    /// `encoding="ISO-8859-1"` is decoded as Latin-1. It must be a regular file (a link to
    /// one is followed) of at most [`MAX_DESCRIPTION_SIZE`] bytes: its size is checked before
    /// it is read, and reading stops past the limit (for a file that grows meanwhile).
    ///
    /// # Errors
    /// [`crate::Error::Io`] when the file cannot be read, [`crate::Error::NotAFile`] for a
    /// device, pipe, socket or directory, [`crate::Error::DescriptionTooLarge`] beyond the
    /// limit, [`crate::Error::Xml`] when it cannot be decoded; otherwise as
    /// [`ModelDescription::parse`].
    ///
    /// Spec: FMI 2.0.2 §2.2 (file `modelDescription.xml`, UTF-8 encoded), FMI 1.0 §2.2.
    pub fn from_file(path: &Path) -> Result<Self> {
        let bytes = read_limited(path, MAX_DESCRIPTION_SIZE)?;
        Self::from_bytes(bytes, path).map(|(description, _)| description)
    }

    /// Reads and parses a `modelDescription.xml` file to run the FMU through `interface`:
    /// for [`Interface::CoSimulation`] as [`ModelDescription::from_file`]; for
    /// [`Interface::ModelExchange`] an FMU without `CoSimulation` is read too, and one
    /// without a usable Model Exchange interface is refused.
    ///
    /// # Errors
    /// As [`ModelDescription::from_file`]; for Model Exchange instead of
    /// [`crate::Error::NoCoSimulation`]: [`crate::Error::InterfaceMissing`] (no
    /// `ModelExchange` element; the message names the interfaces offered),
    /// [`crate::Error::ModelStructure`] (ambiguous states or event indicators, naming the
    /// element), [`crate::Error::Fmi1ModelExchange`] (an FMI 1.0 file).
    ///
    /// Spec: FMI 2.0.2 §3.3.1, FMI 3.0 §3.3.1 (`ModelExchange`).
    pub fn from_file_for(path: &Path, interface: Interface) -> Result<Self> {
        let accept = match interface {
            Interface::CoSimulation => raw::Accept::CoSimulation,
            Interface::ModelExchange => raw::Accept::ModelExchange,
        };
        let bytes = read_limited(path, MAX_DESCRIPTION_SIZE)?;
        let text = raw::decode_text(bytes, path)?;
        raw::parse(&text, path, accept)
    }

    /// Reads and parses a `modelDescription.xml` file whatever interfaces it offers, as
    /// [`ModelDescription::parse_any_interface`]: to decide which interface to run an FMU
    /// through (see [`ModelDescription::interfaces`]).
    ///
    /// # Errors
    /// As [`ModelDescription::from_file`], except [`crate::Error::NoCoSimulation`] (only for
    /// an FMU without any interface).
    pub fn from_file_any_interface(path: &Path) -> Result<Self> {
        let bytes = read_limited(path, MAX_DESCRIPTION_SIZE)?;
        Self::from_bytes_any_interface(bytes, path).map(|(description, _)| description)
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

    /// As [`ModelDescription::from_bytes`], but with [`ModelDescription::parse_any_interface`]:
    /// to describe an FMU, whatever interfaces it offers.
    ///
    /// # Errors
    /// As [`ModelDescription::parse_any_interface`].
    pub fn from_bytes_any_interface(bytes: Vec<u8>, path: &Path) -> Result<(Self, String)> {
        let text = raw::decode_text(bytes, path)?;
        let description = raw::parse(&text, path, raw::Accept::AnyInterface)?;
        Ok((description, text))
    }

    /// Parses a description to describe the FMU (`mastersim info`), not to run it: as
    /// [`ModelDescription::parse`], but an FMU without a co-simulation interface is read too,
    /// with the model identifier of its Model Exchange (else Scheduled Execution) interface,
    /// all capabilities off, and [`ModelDescription::interfaces`] saying what it offers.
    ///
    /// # Errors
    /// As [`ModelDescription::parse`]; [`crate::Error::NoCoSimulation`] only for an FMU that
    /// declares no interface at all.
    ///
    /// Spec: FMI 3.0 §2.4.1, FMI 2.0.2 §2.2.1 (the interface elements), §3.3.1
    /// (`ModelExchange`).
    pub fn parse_any_interface(xml: &str, path: &Path) -> Result<Self> {
        raw::parse(xml, path, raw::Accept::AnyInterface)
    }

    /// Parses the text of a `modelDescription.xml`; `path` is only used in error messages.
    ///
    /// Start values are kept as written and not required here: which variables need one is the
    /// caller's decision.
    ///
    /// # Errors
    /// - [`crate::Error::Xml`]: malformed XML (with the byte position when known);
    /// - [`crate::Error::WrongRootElement`]: the root is not `fmiModelDescription`;
    /// - [`crate::Error::UnsupportedVersion`]: `fmiVersion` is not `1.0`, `2.0[.x]` or
    ///   `3.0[.x]` (an FMI 3.0 pre-release such as `3.0-beta.3` is read as 3.0, with a
    ///   warning);
    /// - [`crate::Error::NoCoSimulation`]: no co-simulation interface (the message names the
    ///   interfaces the FMU offers: Model Exchange, Scheduled Execution);
    /// - [`crate::Error::MissingElement`], [`crate::Error::MissingAttribute`],
    ///   [`crate::Error::InvalidAttribute`], [`crate::Error::TypeElement`]: a required element or
    ///   attribute is missing or invalid; variables are named by index and name;
    /// - [`crate::Error::AliasTypeMismatch`] (FMI 1.0): an alias variable has no non-alias
    ///   variable of its type with its value reference, but one of another type has it.
    ///   (Value references are unique per base type only; FMI 2.0 Integer and Enumeration
    ///   variables sharing one are aliases and accepted.)
    /// - FMI 3.0 only: [`crate::Error::UnknownVariableElement`] (a child of `ModelVariables`
    ///   that is not a variable), [`crate::Error::DuplicateValueReference`],
    ///   [`crate::Error::DimensionReference`], [`crate::Error::DimensionTarget`] and
    ///   [`crate::Error::InvalidDimensionSize`] (an array size that cannot be found: the
    ///   `Dimension` names no variable, or one that is not a scalar integer constant or
    ///   structural parameter of variability fixed or tunable, or has no valid start value),
    ///   [`crate::Error::ClockReference`] (a `clocks` attribute that lists a non-clock),
    ///   [`crate::Error::ArrayTooLarge`] (more than 1 000 000 scalars),
    ///   [`crate::Error::StartCount`] (start values neither one per element nor one for all).
    ///   Elements are named by path, e.g. `ModelVariables/Float64[3] 'x'` (the third
    ///   `Float64`).
    ///
    /// Rules of FMI that real exporters break without making the model ambiguous or unsafe to
    /// run are logged as warnings naming the file and the element, and the file is read
    /// (`docs/deviations.md`, "Model descriptions"): a variable name used more than once
    /// (all variables are kept; see [`lookup`] and [`ModelDescription::variables_named`]), a
    /// `DefaultExperiment` value that is not a number (left out), a `ModelStructure` entry
    /// that names no variable (left out, or its dependency list dropped), and (FMI 1.0) an
    /// alias without a base variable, when no variable of another type has its value
    /// reference either (read through its value reference). FMI 3.0 problems that do not stop reading are warnings too:
    /// attributes outside FMI 3.0 (once per element name and attribute), a pre-release
    /// version, an undefined or mismatched `declaredType`, a display unit its unit does not
    /// define, an array with a dimension of size 0, an array sized by a structural parameter
    /// that is not a UInt64 or has no `variability`.
    ///
    /// Spec: FMI 2.0.2 §2.2.1 (`fmiModelDescription`), §2.2.7 (`ModelVariables`), §2.2.8
    /// (`ModelStructure`), §4.3.1 (`CoSimulation`); FMI 1.0 §2.2–§2.4, FMI 1.0 CS §3
    /// (`Implementation`); FMI 3.0 §2.4 and §4.3.1.
    pub fn parse(xml: &str, path: &Path) -> Result<Self> {
        raw::parse(xml, path, raw::Accept::CoSimulation)
    }

    /// The first variable with this exact name (whether or not the name is ambiguous: see
    /// [`ModelDescription::lookup`]).
    pub fn variable_by_name(&self, name: &str) -> Option<&ScalarVariable> {
        self.variables.iter().find(|v| v.name == name)
    }

    /// Every variable with this exact name, in file order: one for a valid description, more
    /// when the description repeats the name (read with a warning).
    pub fn variables_named<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Iterator<Item = &'a ScalarVariable> + 'a {
        self.variables.iter().filter(move |v| v.name == name)
    }

    /// The variable `name` refers to, or why none: see [`lookup`].
    pub fn lookup(&self, name: &str) -> NameLookup<'_> {
        lookup(&self.variables, name)
    }
}

/// The bytes of the regular file `path`, refused beyond `limit` bytes: by its size before
/// reading, and by what was read (for a file that grows while it is read); see
/// [`output::input::read`].
fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>> {
    use output::input::InputError;
    output::input::read(path, limit).map_err(|e| match e {
        InputError::NotAFile { kind } => crate::Error::NotAFile {
            path: path.to_owned(),
            kind,
        },
        InputError::TooLarge { size, .. } => crate::Error::DescriptionTooLarge {
            path: path.to_owned(),
            size,
            declared: false,
            limit,
        },
        other => crate::Error::Io {
            path: path.to_owned(),
            source: other.into(),
        },
    })
}

#[cfg(test)]
mod tests;
