//! The raw `.msim` project model and its parser.
//!
//! [`Project`] holds what the file says, with line numbers kept for error messages. Names are
//! not resolved here: that happens when the project is validated into a
//! [`crate::plan::SimulationPlan`].
//!
//! Spec: MasterSim reference §3 (project file), with the fixes listed on [`Project::parse`]
//! (and in `docs/deviations.md`).

mod build;
mod communication;
mod error;
mod fmi_type;
mod isolate;
mod lexer;
mod parser;
mod scene;
#[cfg(test)]
mod tests;
mod units;
mod writer;

use std::fmt;
use std::path::{Path, PathBuf};

pub use error::ProjectError;
pub use fmi_type::{FmiType, FmiTypeDef, SolverSettings};
pub use isolate::IsolateDef;
pub use scene::SceneDef;
pub use units::{NotATimeUnit, TimeUnit};

/// The master algorithm (`MasterMode`): how the slaves of a cycle exchange values within one
/// communication step.
///
/// Spec: MasterSim reference §3.2, §10.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MasterAlgorithm {
    /// `GAUSS_JACOBI`: every slave of a cycle sees the values of the previous communication
    /// point.
    GaussJacobi,
    /// `GAUSS_SEIDEL` (default): the slaves of a cycle run in order and see the values already
    /// updated in this sweep.
    #[default]
    GaussSeidel,
    /// `NEWTON`: Newton iteration over the coupled Real variables of each cycle.
    Newton,
}

impl MasterAlgorithm {
    /// The keyword value in a project file (`GAUSS_JACOBI`, `GAUSS_SEIDEL`, `NEWTON`).
    ///
    /// Spec: MasterSim reference §3.2.
    pub fn keyword(self) -> &'static str {
        match self {
            MasterAlgorithm::GaussJacobi => "GAUSS_JACOBI",
            MasterAlgorithm::GaussSeidel => "GAUSS_SEIDEL",
            MasterAlgorithm::Newton => "NEWTON",
        }
    }

    /// True when every step rolls slaves back whatever the other settings (Newton's
    /// Jacobian), so FMU states must be saved at each communication point.
    ///
    /// Spec: `docs/algorithms.md` (Newton).
    pub fn rolls_back_every_step(self) -> bool {
        match self {
            MasterAlgorithm::Newton => true,
            MasterAlgorithm::GaussJacobi | MasterAlgorithm::GaussSeidel => false,
        }
    }
}

/// Local error control (`ErrorControlMode`).
///
/// Spec: MasterSim reference §3.2, §11.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ErrorControl {
    /// `NONE` (default): no error estimate.
    #[default]
    None,
    /// `CHECK`: estimate and report the local error; never change the step.
    Check,
    /// `ADAPT_STEP` or `STEP_DOUBLING`: Richardson step doubling with step-size adaptation.
    Adapt,
}

impl ErrorControl {
    /// The keyword value in a project file (`NONE`, `CHECK`, `ADAPT_STEP`).
    ///
    /// Spec: MasterSim reference §3.2.
    pub fn keyword(self) -> &'static str {
        match self {
            ErrorControl::None => "NONE",
            ErrorControl::Check => "CHECK",
            ErrorControl::Adapt => "ADAPT_STEP",
        }
    }

    /// True for Richardson step doubling, which repeats every step from saved FMU states and
    /// chooses the next step size.
    ///
    /// Spec: MasterSim reference §11.1.
    pub fn adapts_step(self) -> bool {
        match self {
            ErrorControl::Adapt => true,
            ErrorControl::None | ErrorControl::Check => false,
        }
    }
}

/// How communication points and slave clocks are computed (`timeArithmetic`,
/// `--time-arithmetic`).
///
/// Spec: MasterSim reference §9 and §15.1–15.2 (MasterSim's arithmetic); `docs/algorithms.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeArithmetic {
    /// `EXACT` (default): fixed communication points are `t_0 + n·h` (no drift), so time events
    /// fall on the right step, and a rollback puts each slave back to the time of the state it
    /// restores.
    #[default]
    Exact,
    /// `MASTERSIM`: as MasterSim 0.9.8, so that its counters and results are reproduced. Fixed
    /// steps accumulate `t += h`; every slave keeps its own clock, advanced by its completed
    /// steps and set to the master's current time on rollback.
    MasterSim,
}

impl TimeArithmetic {
    /// The keyword value in a project file (`EXACT`, `MASTERSIM`).
    ///
    /// Spec: `docs/project-format.md`.
    pub fn keyword(self) -> &'static str {
        match self {
            TimeArithmetic::Exact => "EXACT",
            TimeArithmetic::MasterSim => "MASTERSIM",
        }
    }
}

/// When Newton rebuilds its Jacobian (`NewtonJacobian`).
///
/// Spec: `docs/algorithms.md` (Newton).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NewtonJacobian {
    /// `FULL` (default): rebuilt at every iteration (Newton's method).
    #[default]
    Full,
    /// `CHORD`: built at the first iteration of each step and reused (chord method).
    Chord,
}

/// How Newton obtains the partial derivatives of the coupled outputs (`NewtonDerivatives`).
///
/// Spec: `docs/algorithms.md` (Newton), FMI 2.0.2 §2.1.9.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NewtonDerivatives {
    /// `AUTO` (default): `fmi2GetDirectionalDerivative` when every slave of the cycle provides
    /// it, difference quotients otherwise.
    #[default]
    Auto,
    /// `DIFFERENCE_QUOTIENTS`: always difference quotients (rollback and perturbed steps).
    DifferenceQuotients,
}

/// A result file format (`resultFormats`, `--result-format`).
///
/// Spec: MasterSim reference §12.1 (CSV), seeds 000/001 (MAT v4), seed 002 §3.5 (Signal Table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultFormat {
    /// `csv`: MasterSim's `values.csv` and `strings.csv` (the default).
    Csv,
    /// `mat`: a MAT v4 result file `results/<project>.mat` (Dymola/OpenModelica layout).
    Mat,
    /// `json`: a Signal Table `results/<project>.json`.
    Json,
}

/// A `simulator` line.
///
/// Spec: MasterSim reference §3.4.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulatorDef {
    /// The first column ("priority"); read but without effect.
    pub index: i64,
    /// Cycle number; slaves of one cycle iterate together.
    pub cycle: u32,
    /// Slave name, verbatim.
    pub name: String,
    /// Display colour as 0xAARRGGBB (GUI only).
    pub color: u32,
    /// Path as written in the project (quotes removed, backslashes turned into `/`).
    pub path_text: String,
    /// Absolute, normalised path (relative paths are resolved against the project directory).
    pub path: PathBuf,
    /// 1-based line number in the project file.
    pub line: usize,
}

/// A `<slave>.<variable>` reference, split at the first dot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariableRef {
    /// Slave name.
    pub slave: String,
    /// Variable name (may contain further dots).
    pub variable: String,
}

/// A `graph` line: a connection from an output to an input.
///
/// Spec: MasterSim reference §3.5. For Real connections the input receives
/// `offset + scale_factor * output`.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphEdge {
    /// Source (an output, or a file reader column).
    pub output: VariableRef,
    /// Target input.
    pub input: VariableRef,
    /// Additive offset (default 0).
    pub offset: f64,
    /// Scale factor (default 1).
    pub scale_factor: f64,
    /// Value mapping of an Integer or Boolean connection (SSP's mapping transformations);
    /// `None` for every connection a `.msim` file can state.
    pub value_map: Option<ValueMap>,
    /// 1-based line number in the project file.
    pub line: usize,
}

/// A value mapping on an Integer or Boolean connection: a value equal to the source of a pair
/// becomes its target; other values pass unchanged. Booleans are mapped as 0 (false) and 1
/// (true).
///
/// A `.msim` file cannot state one; it comes from the `IntegerMappingTransformation`,
/// `BooleanMappingTransformation` and `EnumerationMappingTransformation` of an SSP system.
///
/// Spec: SSP 1.0 §4 (mapping transformations).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueMap(pub Vec<(i128, i128)>);

impl ValueMap {
    /// The value `value` is mapped to.
    pub fn apply(&self, value: i128) -> i128 {
        self.0
            .iter()
            .find(|(source, _)| *source == value)
            .map_or(value, |(_, target)| *target)
    }
}

/// A `parameter` line.
///
/// Spec: MasterSim reference §3.6.
#[derive(Debug, Clone, PartialEq)]
pub struct ParameterDef {
    /// Slave name.
    pub slave: String,
    /// Variable name.
    pub variable: String,
    /// Value text, unescaped and with enclosing quotes removed; converted when applied.
    pub value: String,
    /// 1-based line number in the project file.
    pub line: usize,
}

/// What a `communicationInterval`, `communicationOffset` or `communicationTrigger` line sets
/// for its slave (multi-rate co-simulation, see `docs/algorithms.md`).
///
/// Spec: mastersim's own keywords (`docs/project-format.md`); the block-scheduling design of
/// sampling intervals, first sample times and triggered blocks.
#[derive(Debug, Clone, PartialEq)]
pub enum Communication {
    /// `communicationInterval <slave> <value> [<unit>]`: the slave's own communication interval
    /// Δt (> 0).
    Interval(TimeSetting),
    /// `communicationOffset <slave> <value> [<unit>]`: the slave's first sample time relative to
    /// tStart (≥ 0).
    Offset(TimeSetting),
    /// `communicationTrigger <slave> <other>`: the slave steps whenever `other` has completed a
    /// step, right after it.
    Trigger(String),
}

impl Communication {
    /// The keyword of the line.
    pub fn keyword(&self) -> &'static str {
        match self {
            Communication::Interval(_) => "communicationInterval",
            Communication::Offset(_) => "communicationOffset",
            Communication::Trigger(_) => "communicationTrigger",
        }
    }
}

/// One `communicationInterval`, `communicationOffset` or `communicationTrigger` line.
#[derive(Debug, Clone, PartialEq)]
pub struct CommunicationDef {
    /// The slave the line is about.
    pub slave: String,
    /// What it sets.
    pub setting: Communication,
    /// 1-based line number in the project file.
    pub line: usize,
}

/// A time setting with the line it came from (`None` when the default is used).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeSetting {
    /// Value in seconds.
    pub seconds: f64,
    /// Value in the unit written in the project.
    pub value: f64,
    /// Unit written in the project.
    pub unit: TimeUnit,
    /// 1-based line number, or `None` for the default.
    pub line: Option<usize>,
}

/// A parsed `.msim` project.
///
/// Field defaults are those of MasterSim 0.9.8 (reference §3.2).
#[derive(Debug, Clone, PartialEq)]
pub struct Project {
    /// Absolute path of the project file.
    pub path: PathBuf,
    /// `tStart` (default 0 a).
    pub t_start: TimeSetting,
    /// `tEnd` (default 1 a).
    pub t_end: TimeSetting,
    /// `hMax` (default 30 min).
    pub h_max: TimeSetting,
    /// `hMin` (default 1e-5 s).
    pub h_min: TimeSetting,
    /// `hFallBackLimit` (default 1e-3 s).
    pub h_fallback_limit: TimeSetting,
    /// `hStart` (default 10 min; 0 means `(tEnd - tStart)/1000`).
    pub h_start: TimeSetting,
    /// `hOutputMin` (default 10 min).
    pub h_output_min: TimeSetting,
    /// `outputTimeUnit` (default s).
    pub output_time_unit: TimeUnit,
    /// `adjustStepSize` (default false).
    pub adjust_step_size: bool,
    /// `preventOversteppingOfEndTime` (default true).
    pub prevent_overstepping_of_end_time: bool,
    /// `absTol` (default 1e-6).
    pub abs_tol: f64,
    /// `relTol` (default 1e-5).
    pub rel_tol: f64,
    /// `MasterMode` (default Gauss-Seidel).
    pub master_algorithm: MasterAlgorithm,
    /// `ErrorControlMode` (default none).
    pub error_control: ErrorControl,
    /// `maxIterations` (default 1).
    pub max_iterations: u32,
    /// `writeInternalVariables` (default false).
    pub write_internal_variables: bool,
    /// `writeUnconnectedFileReaderVars` (default false).
    pub write_unconnected_file_reader_vars: bool,
    /// `timeArithmetic` (default exact, see [`TimeArithmetic`]).
    pub time_arithmetic: TimeArithmetic,
    /// `NewtonJacobian` (default rebuilt at every iteration).
    pub newton_jacobian: NewtonJacobian,
    /// `NewtonDerivatives` (default automatic).
    pub newton_derivatives: NewtonDerivatives,
    /// Line of the last occurrence of each keyword line (for messages about settings).
    pub keyword_lines: std::collections::BTreeMap<&'static str, usize>,
    /// `simulator` lines in file order.
    pub simulators: Vec<SimulatorDef>,
    /// `graph` lines in file order.
    pub graph: Vec<GraphEdge>,
    /// `parameter` lines in file order (a later line for the same variable overrides).
    pub parameters: Vec<ParameterDef>,
    /// `communicationInterval`, `communicationOffset` and `communicationTrigger` lines in file
    /// order (at most one of each keyword per slave; names checked against the `simulator`
    /// lines, trigger cycles refused).
    pub communication: Vec<CommunicationDef>,
    /// `fmiType` lines in file order (at most one per slave, after its `simulator` line): the
    /// interface each named slave runs and its integrator settings.
    pub fmi_types: Vec<FmiTypeDef>,
    /// `isolate` lines in file order (at most one per slave, after its `simulator` line): the
    /// slaves that run in a helper process, and the platform of the binary each runs.
    pub isolated: Vec<IsolateDef>,
    /// The `scene` line: the scene file the live view draws (`None`: no scene).
    pub scene: Option<SceneDef>,
    /// `outputOnly` patterns with their line numbers (each line may hold several
    /// whitespace-separated glob patterns over `slave.variable`).
    pub output_only: Vec<(String, usize)>,
    /// `resultFormats` (default: CSV only).
    pub result_formats: Vec<ResultFormat>,
    /// `outputThreshold`: relative threshold of the adaptive output filter (default: off).
    pub output_threshold: Option<f64>,
    /// Command-line options that stand in for lines of the file (`--set …`, `--input …`), in
    /// the order applied. The `i`-th has the pseudo line number [`COMMAND_LINE`]` - i`, so that
    /// messages about what it set name the option ([`Project::location`]).
    pub command_line: Vec<String>,
}

/// A place in a project: the file and its 1-based line, or the command-line option that stands
/// in for a line (as `file`, without a line; see [`Project::location`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// Project file, or the option (`--set tEnd=10 s`).
    pub file: PathBuf,
    /// 1-based line number; `None` for a default setting that has no line, and for an option.
    pub line: Option<usize>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}", self.file.display(), line),
            None => write!(f, "{}", self.file.display()),
        }
    }
}

/// The pseudo line number of the first command-line option in [`Project::command_line`];
/// later options count down from it. Far above any real line of a file.
pub const COMMAND_LINE: usize = usize::MAX;

impl TimeSetting {
    /// A setting of `value` in `unit`; `seconds` is computed with [`TimeUnit::to_seconds`].
    ///
    /// `line` is the 1-based project line, or `None` for a default.
    pub fn new(value: f64, unit: TimeUnit, line: Option<usize>) -> TimeSetting {
        TimeSetting {
            seconds: unit.to_seconds(value),
            value,
            unit,
            line,
        }
    }
}

impl Project {
    /// A project for `path` with MasterSim 0.9.8's defaults and no simulators, connections or
    /// parameters.
    ///
    /// `path` is stored as given. The defaults are documented on each field.
    ///
    /// Spec: MasterSim reference §3.2 (defaults).
    pub fn with_defaults(path: PathBuf) -> Project {
        Project {
            path,
            t_start: TimeSetting::new(0.0, TimeUnit::Year, None),
            t_end: TimeSetting::new(1.0, TimeUnit::Year, None),
            h_max: TimeSetting::new(30.0, TimeUnit::Minute, None),
            h_min: TimeSetting::new(1e-5, TimeUnit::Second, None),
            h_fallback_limit: TimeSetting::new(1e-3, TimeUnit::Second, None),
            h_start: TimeSetting::new(10.0, TimeUnit::Minute, None),
            h_output_min: TimeSetting::new(10.0, TimeUnit::Minute, None),
            output_time_unit: TimeUnit::Second,
            adjust_step_size: false,
            prevent_overstepping_of_end_time: true,
            abs_tol: 1e-6,
            rel_tol: 1e-5,
            master_algorithm: MasterAlgorithm::GaussSeidel,
            error_control: ErrorControl::None,
            max_iterations: 1,
            write_internal_variables: false,
            write_unconnected_file_reader_vars: false,
            time_arithmetic: TimeArithmetic::Exact,
            newton_jacobian: NewtonJacobian::Full,
            newton_derivatives: NewtonDerivatives::Auto,
            keyword_lines: std::collections::BTreeMap::new(),
            simulators: Vec::new(),
            graph: Vec::new(),
            parameters: Vec::new(),
            communication: Vec::new(),
            fmi_types: Vec::new(),
            isolated: Vec::new(),
            scene: None,
            output_only: Vec::new(),
            result_formats: vec![ResultFormat::Csv],
            output_threshold: None,
            command_line: Vec::new(),
        }
    }

    /// Where line `line` of the project came from: the file and line, the file alone for
    /// `None` (a default), or the command-line option for a pseudo line of
    /// [`Project::command_line`] (as the `file`, without a line).
    pub fn location(&self, line: Option<usize>) -> Location {
        let option = line
            .and_then(|line| COMMAND_LINE.checked_sub(line))
            .and_then(|i| self.command_line.get(i));
        match option {
            Some(option) => Location {
                file: PathBuf::from(option),
                line: None,
            },
            None => Location {
                file: self.path.clone(),
                line,
            },
        }
    }

    /// Records the command-line option `option` in [`Project::command_line`] and returns its
    /// pseudo line number.
    pub fn add_command_line(&mut self, option: String) -> usize {
        self.command_line.push(option);
        COMMAND_LINE - (self.command_line.len() - 1)
    }

    /// Applies `--set` overrides in order, each as if it were one more line at the end of the
    /// file: `<keyword>=<value>` as `<keyword> <value>` (a later value wins, as for a repeated
    /// keyword) and `<slave>.<variable>=<value>` as a `parameter` line (values verbatim: no
    /// quotes, escapes or comments). With `single_slave` (a run of one FMU), a name that is not
    /// a keyword is a variable of that slave, with or without the `<slave>.` prefix.
    ///
    /// Each is recorded in [`Project::command_line`], so that later errors about what it set
    /// name the option.
    ///
    /// # Errors
    /// [`ProjectError::Override`] naming the option, with the message the same line would get
    /// in the file (a misspelt keyword gets a suggestion), or when a parameter names a slave
    /// the project does not define.
    ///
    /// Spec: `docs/project-format.md` (overrides).
    pub fn apply_overrides(
        &mut self,
        overrides: &[String],
        single_slave: Option<&str>,
    ) -> Result<(), ProjectError> {
        for text in overrides {
            let line = self.add_command_line(format!("--set {text}"));
            parser::apply_override(self, text, line, single_slave)?;
        }
        Ok(())
    }

    /// The project of one FMU run on its own (`mastersim model.fmu`): one slave, named after
    /// the file (characters other than letters, digits, `_` and `-` become `_`), and MasterSim's
    /// default settings, which the caller completes from the FMU's default experiment.
    ///
    /// `fmu` becomes [`Project::path`] (absolute); the run's working directory is chosen by
    /// the caller (`mastersim` runs a bare FMU in `./<model>/`, never beside the FMU).
    pub fn for_fmu(fmu: &Path) -> Project {
        let mut project = Project::with_defaults(lexer::absolute(fmu));
        let name: String = fmu
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        project.simulators.push(SimulatorDef {
            index: 0,
            cycle: 0,
            name: if name.is_empty() { "fmu".into() } else { name },
            color: 0xff44_7cb4,
            path_text: fmu.to_string_lossy().into_owned(),
            path: project.path.clone(),
            line: 1,
        });
        project
    }

    /// Reads and parses a `.msim` file (see [`Project::parse`]).
    ///
    /// # Errors
    /// [`ProjectError::Io`] when the file cannot be read, [`ProjectError::InvalidUtf8`] when it
    /// is not UTF-8, and any error of [`Project::parse`].
    ///
    /// Spec: MasterSim reference §3.
    pub fn from_file(path: &Path) -> Result<Project, ProjectError> {
        let bytes = output::input::read(path, output::input::PROJECT_LIMIT).map_err(|source| {
            ProjectError::Io {
                path: path.to_path_buf(),
                source: source.into(),
            }
        })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            let valid = e.utf8_error().valid_up_to();
            let line = 1 + e.as_bytes()[..valid]
                .iter()
                .filter(|b| **b == b'\n')
                .count();
            ProjectError::InvalidUtf8 {
                file: path.to_path_buf(),
                line,
            }
        })?;
        Project::parse(&text, path)
    }

    /// Parses the text of a `.msim` file.
    ///
    /// `path` is the project file's path: errors name it as given, [`Project::path`] is its
    /// absolute, normalised form, and relative simulator paths are resolved against its
    /// directory (the files need not exist). All times are stored in their unit and in s.
    ///
    /// Line handling follows MasterSim: lines are trimmed of spaces, tabs and `\r` (CRLF works),
    /// blank lines and lines starting with `#` are skipped, the first word selects the line type
    /// (`simulator`, `graph`, `parameter`, `outputOnly` or a keyword), and a repeated keyword
    /// keeps the last value. Fixes of MasterSim's behaviour:
    /// * a UTF-8 byte-order mark is skipped;
    /// * the first word must match a line type or keyword as a whole word (`parameters` is an
    ///   error suggesting `parameter`, where MasterSim reads it as a broken `parameter` line);
    /// * trailing comments: on keyword, `outputOnly`, `simulator` and `graph` lines and in
    ///   parameter values, a `#` outside double quotes that follows whitespace starts a comment.
    ///   Exceptions are the colour fields, which start with `#`: a `simulator` comment can only
    ///   start after the five fields, and the sixth `graph` field is always a colour. A string
    ///   parameter value containing ` #` must therefore be quoted;
    /// * booleans accept only `true`/`yes`/`1` and `false`/`no`/`0`; anything else is an error
    ///   instead of false;
    /// * numbers must be complete (`absTol 1e-6abc`, a cycle `1x` or a graph offset `0.5x` are
    ///   errors), and extra words after a value or unit are errors;
    /// * time settings only accept the time units `ms`, `s`, `min`, `h`, `d`, `a`;
    /// * the simulator index must be an integer, slave names must be unique and contain no dot,
    ///   whitespace or quote;
    /// * `outputOnly` keeps its whole pattern text (MasterSim cut it to start with `Only`);
    /// * an unterminated double quote on a `simulator` or `graph` line is an error;
    /// * the multi-rate lines (`communicationInterval`, `communicationOffset`,
    ///   `communicationTrigger`, mastersim's own) must name slaves of `simulator` lines, give an
    ///   interval > 0 and an offset ≥ 0 (unit optional, default s), appear at most once per
    ///   slave and keyword, not combine a trigger with an interval or offset, and not form a
    ///   trigger cycle.
    ///
    /// # Errors
    /// The first invalid line gives a [`ProjectError`] naming the file, the line and what was
    /// expected.
    ///
    /// Spec: MasterSim reference §3.1–§3.7, §16, §17.
    ///
    /// # Examples
    /// ```
    /// use std::path::Path;
    /// use master::project::{MasterAlgorithm, Project};
    ///
    /// let text = "tEnd 10s # ten seconds\nMasterMode NEWTON\n\
    ///             simulator 0 0 A #447cb4 \"fmus/a b.fmu\"\n";
    /// let project = Project::parse(text, Path::new("/work/demo.msim"))?;
    /// assert_eq!(project.t_end.seconds, 10.0);
    /// assert_eq!(project.master_algorithm, MasterAlgorithm::Newton);
    /// assert_eq!(project.simulators[0].path, Path::new("/work/fmus/a b.fmu"));
    /// # Ok::<(), master::project::ProjectError>(())
    /// ```
    pub fn parse(text: &str, path: &Path) -> Result<Project, ProjectError> {
        parser::parse(text, path)
    }
}
