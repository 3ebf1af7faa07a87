//! The error type of the `master` crate.
//!
//! Every variant carries its context: the project file and line for project errors; the slave,
//! the FMI function, `t` and `h` for run-time failures.

use std::path::{Path, PathBuf};

use crate::time::Readable;
use fmi::VarType;

pub use crate::project::Location;

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can end a mastersim run with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The project file is invalid.
    #[error(transparent)]
    Project(Box<crate::project::ProjectError>),
    /// A file-reader table is invalid.
    #[error(transparent)]
    Table(Box<crate::table::TableError>),
    /// An FMI call failed.
    #[error("slave '{slave}': {source}")]
    Fmi {
        /// Slave concerned.
        slave: String,
        /// The underlying error.
        source: Box<fmi::Error>,
    },
    /// An FMI 3.0 FMU that declares clocks: clock activation is not implemented, so the FMU
    /// cannot be run correctly.
    #[error(
        "{}: FMU declares {count} clock(s), e.g. {causality:?} clock '{clock}'; mastersim does not support FMI 3.0 clocks (clock activation and scheduled execution), so it cannot run this FMU",
        fmu.display()
    )]
    ClockFmu {
        /// The FMU file.
        fmu: PathBuf,
        /// The first clock's name.
        clock: String,
        /// Its causality.
        causality: fmi::Causality,
        /// How many clocks the FMU declares.
        count: usize,
    },
    /// Importing an FMU (archive, model description, shared library) failed.
    #[error("import of FMU '{}' failed: {source}", fmu.display())]
    Import {
        /// The `.fmu` file.
        fmu: PathBuf,
        /// The underlying error.
        source: Box<fmi::Error>,
    },
    /// Loading an FMU's shared library for the interface its slaves run as failed (a missing
    /// required function, a library that does not load): the slaves cannot be created, so the
    /// run stops at its start time `t` (s), before the first communication step.
    #[error(
        "slave '{slaves}' ({interface}) cannot be created at t={t} s: import of FMU '{}' failed: {source}",
        fmu.display()
    )]
    SlaveImport {
        /// The slaves of the project that use this FMU as `interface`, joined by `', '`.
        slaves: String,
        /// The interface they run as (FMI 2.0 §3/§4, FMI 3.0 §3/§4).
        interface: fmi::Interface,
        /// The start time of the run (s).
        t: f64,
        /// The `.fmu` file.
        fmu: PathBuf,
        /// The underlying error.
        source: Box<fmi::Error>,
    },
    /// Reading or creating a file or directory failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// File or directory concerned.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A `simulator` line names a file that does not exist, or is not a regular file.
    #[error("{at}: simulator '{slave}': file '{}' {problem}", path.display())]
    SlaveFileNotFound {
        /// Where the simulator is defined.
        at: Location,
        /// Slave name.
        slave: String,
        /// The missing file.
        path: PathBuf,
        /// What is wrong with it: "not found", or "is not a regular file (a named pipe)" and
        /// the like.
        problem: String,
    },
    /// A `simulator` line names a file that is neither an FMU nor a CSV/TSV table.
    #[error("{at}: simulator '{slave}': unrecognised file extension of '{}', expected .fmu, .csv or .tsv", path.display())]
    UnsupportedSlaveFile {
        /// Where the simulator is defined.
        at: Location,
        /// Slave name.
        slave: String,
        /// The file.
        path: PathBuf,
    },
    /// An invalid combination or value of project settings.
    #[error("{at}: invalid {keyword}: {reason}")]
    InvalidSetting {
        /// Where the setting is defined (the file alone for defaults).
        at: Location,
        /// Project keyword.
        keyword: &'static str,
        /// What is wrong and what was expected.
        reason: String,
    },
    /// An FMU lacks a capability the chosen master algorithm needs.
    #[error("FMU '{}' (slave '{slave}') does not provide {capability}, which {required_by} requires", fmu.display())]
    MissingCapability {
        /// The FMU file.
        fmu: PathBuf,
        /// A slave using it.
        slave: String,
        /// The capability's attribute name.
        capability: &'static str,
        /// The setting that needs it.
        required_by: &'static str,
    },
    /// A connection or parameter names a slave the project does not define.
    #[error("{at}: unknown slave '{slave}' in '{reference}', expected one of: {known}")]
    UnknownSlave {
        /// The line.
        at: Location,
        /// The unknown name.
        slave: String,
        /// The full reference as written.
        reference: String,
        /// Known slave names, comma separated.
        known: String,
    },
    /// A connection or parameter names a variable the slave does not have.
    #[error("{at}: slave '{slave}' has no variable '{variable}' (in '{}'){hint}", source_file.display())]
    UnknownVariable {
        /// The line.
        at: Location,
        /// Slave name.
        slave: String,
        /// The unknown variable (or column) name.
        variable: String,
        /// FMU or table file searched.
        source_file: Box<Path>,
        /// The closest name (" (did you mean 'x'?)") or some of the names there are, from
        /// [`name_hint`] (boxed: it keeps the error type small).
        hint: Box<str>,
    },
    /// A connection, parameter or other reference names a variable (or file-reader column)
    /// that its slave declares more than once, not all as one value: an FMU that breaks FMI's
    /// rule of unique names is read with a warning, and only a reference to such a name is
    /// refused (`crate::plan` looks every name up through one helper).
    #[error("{}'{slave}.{variable}' is ambiguous: {declared}", located(at))]
    AmbiguousVariable {
        /// The line; `None` for a name given at run time (e.g. to read its value).
        at: Option<Location>,
        /// Slave name.
        slave: String,
        /// The variable (or column) name.
        variable: String,
        /// Who declares it how often, and what to choose from, e.g. `DPController.fmu declares
        /// it twice (value references 20 and 27)`.
        declared: Box<str>,
    },
    /// A connection target that is not an FMU input.
    #[error("{at}: '{reference}' cannot receive a connection: {reason}")]
    InvalidConnectionTarget {
        /// The line.
        at: Location,
        /// The target as written.
        reference: String,
        /// Why (causality, file reader, ...).
        reason: String,
    },
    /// A connection source that is not an output.
    #[error("{at}: '{reference}' cannot be a connection source: {reason}")]
    InvalidConnectionSource {
        /// The line.
        at: Location,
        /// The source as written.
        reference: String,
        /// Why.
        reason: String,
    },
    /// The two ends of a connection have different types.
    #[error(
        "{at}: type mismatch in connection '{output}' ({output_type:?}) -> '{input}' ({input_type:?})"
    )]
    TypeMismatch {
        /// The line.
        at: Location,
        /// Source reference.
        output: String,
        /// Source type.
        output_type: VarType,
        /// Target reference.
        input: String,
        /// Target type.
        input_type: VarType,
    },
    /// A connection from an integer type to one that cannot hold all its values (FMI 3.0
    /// widths; UInt64 into Int32, say).
    #[error(
        "{at}: connection '{output}' ({}) -> '{input}' ({}) could lose data: {} cannot hold every {} value; connect to an input of a wider type",
        output_type.name(), input_type.name(), input_type.name(), output_type.name()
    )]
    LossyConnection {
        /// The line.
        at: Location,
        /// Source reference.
        output: String,
        /// Source data type.
        output_type: fmi::DataType,
        /// Target reference.
        input: String,
        /// Target data type.
        input_type: fmi::DataType,
    },
    /// A whole-array connection whose ends differ in shape (or an array connected to a scalar).
    #[error(
        "{at}: connection {connection}: arrays connect only to arrays of the same shape; connect single elements as 'name[i]'"
    )]
    ArrayShape {
        /// The line.
        at: Location,
        /// Both ends with their shapes, e.g. `'A.y' (an array of shape [3]) -> 'B.u' (a scalar)`.
        connection: String,
    },
    /// A file-reader column connected to inputs of different types.
    #[error(
        "{at}: column '{reference}' is already connected as {first:?}, cannot also connect it as {second:?}"
    )]
    ColumnTypeConflict {
        /// The line.
        at: Location,
        /// The column reference.
        reference: String,
        /// Type of the first connection.
        first: VarType,
        /// Type of this connection.
        second: VarType,
    },
    /// Two connections feed the same input.
    #[error("{at}: input '{input}' is already connected in line {first_line}")]
    DuplicateInput {
        /// The second connection's line.
        at: Location,
        /// The input.
        input: String,
        /// Line of the first connection.
        first_line: usize,
    },
    /// A parameter value that cannot be converted to the variable's type.
    #[error("{at}: parameter '{parameter}': cannot read '{value}' as {expected}")]
    ParameterValue {
        /// The line.
        at: Location,
        /// `<slave>.<variable>`.
        parameter: String,
        /// The value text.
        value: String,
        /// What was expected.
        expected: String,
    },
    /// A parameter line names a variable that may not be set before initialization.
    #[error("{at}: '{slave}.{variable}' cannot be set as a parameter: {reason}")]
    NotSettable {
        /// The line.
        at: Location,
        /// Slave name.
        slave: String,
        /// Variable name.
        variable: String,
        /// Why (causality/variability).
        reason: String,
    },
    /// Setting a start value or parameter failed in the slave.
    #[error("slave '{slave}': setting '{variable}' = '{value}' failed: {source}")]
    SetValue {
        /// Slave name.
        slave: String,
        /// Variable name.
        variable: String,
        /// Value text.
        value: String,
        /// The slave's error.
        source: Box<Error>,
    },
    /// A slave failed during a step in a way the master cannot recover from.
    #[error("slave '{slave}': {function} failed at t={} s with h={} s: {reason}", Readable(*.t), Readable(*.h))]
    StepFailed {
        /// Slave name.
        slave: String,
        /// FMI function (e.g. `doStep`).
        function: &'static str,
        /// Communication point, s.
        t: f64,
        /// Communication step size, s.
        h: f64,
        /// What happened.
        reason: String,
    },
    /// The helper process of an isolated slave failed during a step: the FMU crashed, called
    /// `exit()`, or did not return within the call timeout (`docs/isolation.md`). The message
    /// is that of [`Error::StepFailed`]; the source names the FMI function in progress and
    /// the signal, exit code or timeout.
    #[error("slave '{slave}': {function} failed at t={} s with h={} s: {source}", Readable(*.t), Readable(*.h))]
    HelperFailed {
        /// Slave name.
        slave: String,
        /// FMI function (e.g. `doStep`).
        function: &'static str,
        /// Communication point, s.
        t: f64,
        /// Communication step size, s.
        h: f64,
        /// The `fmi` error ([`fmi::Error::Isolated`]).
        source: Box<fmi::Error>,
    },
    /// A Model Exchange slave failed at time `t`: its integrator, a derivative that is not
    /// finite, an event iteration that did not end, chattering.
    #[error("slave '{slave}' (Model Exchange) failed at t={} s: {reason}", Readable(*.t))]
    ModelExchange {
        /// Slave name.
        slave: String,
        /// Time of the failure, s.
        t: f64,
        /// What happened.
        reason: String,
    },
    /// Reducing the step further would go below `hMin`.
    #[error(
        "step failure at t={} s with h={} s ({cause}): reducing the step would fall below hMin = {} s",
        Readable(*.t), Readable(*.h), Readable(*.h_min)
    )]
    StepTooSmall {
        /// Communication point, s.
        t: f64,
        /// The step that failed, s.
        h: f64,
        /// The minimum step, s.
        h_min: f64,
        /// Why the step failed (which slave rejected it, or non-convergence).
        cause: String,
    },
    /// A coupled output became NaN or infinite.
    #[error("slave '{slave}': output '{variable}' is {value} at t={} s", Readable(*.t))]
    NonFiniteOutput {
        /// Slave name.
        slave: String,
        /// Variable name.
        variable: String,
        /// Communication point, s.
        t: f64,
        /// The value (NaN or ±inf).
        value: f64,
    },
    /// A variable name given at run time (e.g. to read its value) that the project does not
    /// define.
    #[error("no variable '{name}': {reason}")]
    NoSuchVariable {
        /// The name as given.
        name: String,
        /// What is missing and what was expected.
        reason: String,
    },
    /// A variable handle used in a way its variable does not allow: set when it is not an
    /// input no connection drives nor a tunable parameter, read or set as another type, or a
    /// handle of another simulation.
    #[error("variable '{name}': {reason}")]
    VariableAccess {
        /// `<slave>.<variable>`, or what the handle holds when it names nothing here.
        name: String,
        /// Why the access is refused, and what is allowed.
        reason: String,
    },
    /// A call that is not allowed in the simulation's current phase.
    #[error("{call} is not allowed {reason}")]
    InvalidPhase {
        /// The call (e.g. `initialize`).
        call: &'static str,
        /// Why not (e.g. "after initialization").
        reason: &'static str,
    },
    /// A value does not fit the type of the variable it is set into (an integer wider than
    /// its target; the plan refuses connections and start values that could not fit, so a
    /// file-reader column is the usual source).
    #[error("slave '{slave}': value {value} does not fit the {} variable with handle {handle}", data_type.name())]
    ValueRange {
        /// Slave concerned.
        slave: String,
        /// The slave's handle of the variable ([`fmi::ScalarVariable::handle`]).
        handle: u32,
        /// The value, as text.
        value: String,
        /// The variable's data type.
        data_type: fmi::DataType,
    },
    /// A handle that names no variable of the slave (an internal invariant).
    #[error("slave '{slave}' has no variable with handle {handle}")]
    UnknownHandle {
        /// Slave concerned.
        slave: String,
        /// The handle.
        handle: u32,
    },
    /// A slave does not provide a function the master needs.
    #[error("slave '{slave}' does not provide {function}")]
    Unsupported {
        /// Slave concerned.
        slave: String,
        /// The function.
        function: &'static str,
    },
    /// Newton's matrix `I − ∂S/∂y` is singular (the coupled system has no unique solution).
    #[error("Newton: singular Jacobian in cycle {cycle} at t={} s with h={} s", Readable(*.t), Readable(*.h))]
    SingularJacobian {
        /// Cycle index (1-based, as logged).
        cycle: usize,
        /// Communication point, s.
        t: f64,
        /// Communication step size, s.
        h: f64,
    },
    /// A result observer (file writer) failed.
    #[error("writing results failed: {source}")]
    Observer {
        /// The observer's error.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A batched get/set was called with slices of different lengths.
    #[error("slave '{slave}': {function} called with {values} values for {vrs} value references")]
    LengthMismatch {
        /// Slave concerned.
        slave: String,
        /// Function name.
        function: &'static str,
        /// Number of value references.
        vrs: usize,
        /// Number of values.
        values: usize,
    },
    /// A saved state id that the slave does not know.
    #[error("slave '{slave}': unknown saved state #{id}")]
    UnknownState {
        /// Slave concerned.
        slave: String,
        /// The state id.
        id: usize,
    },
}

impl From<crate::project::ProjectError> for Error {
    fn from(e: crate::project::ProjectError) -> Self {
        Error::Project(Box::new(e))
    }
}

impl From<crate::table::TableError> for Error {
    fn from(e: crate::table::TableError) -> Self {
        Error::Table(Box::new(e))
    }
}

/// `file:line: ` for a located error, nothing otherwise.
fn located(at: &Option<Location>) -> String {
    at.as_ref().map(|at| format!("{at}: ")).unwrap_or_default()
}

/// What to say after an unknown `name` among `known` names: the closest one when it is close
/// (at most a third of the letters differ, ignoring case; a swap of two letters counts once),
/// as ` (did you mean 'x'?)`, otherwise `; it has: a, b, c` (the first ten, and how many
/// there are in all), or nothing when there are none.
pub fn name_hint<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Box<str> {
    let known: Vec<&str> = known.into_iter().collect();
    let lower = name.to_lowercase();
    let limit = (name.chars().count() / 3).max(1);
    let closest = known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(&lower, &k.to_lowercase()), *k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d);
    if let Some((_, k)) = closest {
        return format!(" (did you mean '{k}'?)").into();
    }
    match known.len() {
        0 => "".into(),
        n if n <= 10 => format!("; it has: {}", known.join(", ")).into(),
        n => format!("; it has {n}, among them: {}, …", known[..10].join(", ")).into(),
    }
}

#[cfg(test)]
mod tests {
    use super::name_hint;

    #[test]
    fn hints_name_the_closest_or_list_the_names() {
        let known = ["alpha", "beta", "gamma", "delta"];
        assert_eq!(&*name_hint("alpah", known), " (did you mean 'alpha'?)");
        assert_eq!(&*name_hint("GAMMA", known), " (did you mean 'gamma'?)");
        assert_eq!(
            &*name_hint("x", known),
            "; it has: alpha, beta, gamma, delta"
        );
        assert_eq!(&*name_hint("x", []), "");
        let many: Vec<String> = (0..25).map(|i| format!("v{i:02}")).collect();
        let hint = name_hint("speed", many.iter().map(String::as_str));
        assert!(
            hint.starts_with("; it has 25, among them: v00, v01"),
            "{hint}"
        );
        assert!(hint.ends_with("v09, …"), "{hint}");
    }
}
