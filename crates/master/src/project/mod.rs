//! The raw `.msim` project model and its parser.
//!
//! [`Project`] holds what the file says, with line numbers kept for error messages. Names are
//! not resolved here: that happens when the project is validated into a
//! [`crate::plan::SimulationPlan`].
//!
//! Spec: MasterSim reference §3 (project file), with the fixes listed in `docs/deviations.md`.
//! (CONTRACT STUB: the parser helper fills in parsing.)

use std::path::{Path, PathBuf};

/// A time unit of the IBK unit list.
///
/// Spec: MasterSim reference §3.3.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// Millisecond.
    Millisecond,
    /// Second.
    Second,
    /// Minute (60 s).
    Minute,
    /// Hour (3600 s).
    Hour,
    /// Day (86400 s).
    Day,
    /// Year of 365 days (31 536 000 s).
    Year,
}

/// Master algorithm (`MasterMode`).
///
/// Spec: MasterSim reference §3.2, §10.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MasterMode {
    /// `GAUSS_JACOBI`.
    GaussJacobi,
    /// `GAUSS_SEIDEL` (default).
    #[default]
    GaussSeidel,
    /// `NEWTON`.
    Newton,
}

/// Error control mode (`ErrorControlMode`).
///
/// Spec: MasterSim reference §3.2, §11.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ErrorControlMode {
    /// `NONE` (default).
    #[default]
    None,
    /// `CHECK`: monitor the local error, never change the step.
    Check,
    /// `ADAPT_STEP` or `STEP_DOUBLING`: Richardson step doubling with step-size adaptation.
    AdaptStep,
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
    /// 1-based line number in the project file.
    pub line: usize,
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
    pub master_mode: MasterMode,
    /// `ErrorControlMode` (default none).
    pub error_control_mode: ErrorControlMode,
    /// `maxIterations` (default 1).
    pub max_iterations: u32,
    /// `writeInternalVariables` (default false).
    pub write_internal_variables: bool,
    /// `writeUnconnectedFileReaderVars` (default false).
    pub write_unconnected_file_reader_vars: bool,
    /// `simulator` lines in file order.
    pub simulators: Vec<SimulatorDef>,
    /// `graph` lines in file order.
    pub graph: Vec<GraphEdge>,
    /// `parameter` lines in file order (a later line for the same variable overrides).
    pub parameters: Vec<ParameterDef>,
    /// `outputOnly` patterns with their line numbers.
    pub output_only: Vec<(String, usize)>,
}

impl Project {
    /// Reads and parses a `.msim` file.
    pub fn from_file(path: &Path) -> Result<Project, ProjectError> {
        let _ = path;
        todo!("parser helper")
    }
}

/// An error in a project file. (Filled by the parser helper.)
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProjectError {
    /// Placeholder.
    #[error("todo")]
    Todo,
}
