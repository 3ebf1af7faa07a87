//! How results leave the master: the [`Observer`] interface.
//!
//! The master never writes files. It calls an observer with the column layout once, with a
//! row of values at every scheduled output time, and after every completed communication step.
//! The command-line program adapts this to the `output` crate's writers; tests collect rows in
//! memory.
//!
//! Spec: MasterSim reference §12.1–12.3 (what is written and when).

use crate::values::{PerType, TypedValues};

/// The error type observers return.
pub type ObserverError = Box<dyn std::error::Error + Send + Sync>;

/// One result column.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputColumn {
    /// `<slave>.<variable>`.
    pub name: String,
    /// Unit (`-` when none).
    pub unit: String,
    /// Description from the model description, if any.
    pub description: Option<String>,
    /// Variability of the variable.
    pub variability: fmi::Variability,
    /// An FMI 1.0 negated alias: the variable's value is the negated column value.
    pub negated: bool,
    /// Other names of the same value (`<slave>.<variable>`), each possibly negated.
    pub aliases: Vec<ColumnAlias>,
}

/// Another name of a result column's value (an FMU alias variable).
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnAlias {
    /// `<slave>.<variable>`.
    pub name: String,
    /// Unit (`-` when none).
    pub unit: String,
    /// Description, if any.
    pub description: Option<String>,
    /// The alias's value is the negated column value.
    pub negated: bool,
}

impl OutputColumn {
    /// The column of `var` of slave `slave`.
    pub fn of(slave: &str, var: &crate::plan::OutputVariable) -> OutputColumn {
        OutputColumn {
            name: format!("{slave}.{}", var.name),
            unit: var.unit.clone(),
            description: var.description.clone(),
            variability: var.variability,
            negated: var.negated,
            aliases: var
                .aliases
                .iter()
                .map(|a| ColumnAlias {
                    name: format!("{slave}.{}", a.name),
                    unit: a.unit.clone(),
                    description: a.description.clone(),
                    negated: a.negated,
                })
                .collect(),
        }
    }
}

/// The result columns and the parameters written once.
///
/// Booleans, Integers and Reals go to `values.csv` in that order; Strings go to `strings.csv`
/// (MasterSim reference §12.1–12.2). Parameters and constants (only when requested for MAT or
/// Signal Table files) carry the values read after initialization.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OutputLayout {
    /// Time-varying result columns per type.
    pub columns: PerType<Vec<OutputColumn>>,
    /// Parameter columns per type.
    pub parameters: PerType<Vec<OutputColumn>>,
    /// Parameter values per type; shapes: `parameter_values.<type>.len()` equals
    /// `parameters.<type>.len()`. A value that could not be read is NaN / 0 / false / empty.
    pub parameter_values: TypedValues,
}

/// Progress information after a completed communication step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepInfo {
    /// The new communication point, s.
    pub t: f64,
    /// The step size just completed, s.
    pub h: f64,
    /// End time of the run, s.
    pub t_end: f64,
    /// Number of completed steps.
    pub steps: u64,
    /// Master-algorithm calls so far (error-test half steps included).
    pub algorithm_calls: u64,
    /// Failed error tests so far.
    pub error_test_fails: u64,
    /// Step reductions after non-convergence or rejected steps so far.
    pub convergence_fails: u64,
    /// Cycle sweeps so far.
    pub iterations: u64,
    /// Iteration-limit returns so far.
    pub iteration_limit_exceeded: u64,
    /// Steps rejected by slaves so far.
    pub fmu_errors: u64,
    /// Last accepted error norms (Richardson value norm, slope norm); 1 before any test.
    pub error_norms: (f64, f64),
    /// Wall time inside master-algorithm steps so far, s.
    pub algorithm_time: f64,
    /// Wall time in error tests so far, s.
    pub error_test_time: f64,
    /// Wall time spent handing rows to the observer so far, s.
    pub output_time: f64,
}

/// Receives results while a simulation runs.
///
/// All calls come from the thread that drives the simulation (with parallel Gauss-Jacobi a
/// worker thread, hence `Send`), one at a time, in this order: [`Observer::start`] once, then
/// [`Observer::output`] and [`Observer::step_completed`] repeatedly.
pub trait Observer: Send {
    /// Called once before the first row with the column layout.
    ///
    /// # Errors
    /// Any error ends the run with [`crate::Error::Observer`].
    fn start(&mut self, layout: &OutputLayout) -> Result<(), ObserverError>;

    /// A result row at communication point `t` (s). Shapes: `values.<type>.len()` equals the
    /// number of columns of that type in the layout.
    ///
    /// # Errors
    /// Any error ends the run with [`crate::Error::Observer`].
    fn output(&mut self, t: f64, values: &TypedValues) -> Result<(), ObserverError>;

    /// Called after every completed communication step, before any row for it.
    fn step_completed(&mut self, info: &StepInfo) {
        let _ = info;
    }
}
