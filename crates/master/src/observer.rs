//! How results leave the master: the [`Observer`] interface and the result column layout.
//!
//! The master never writes files. It calls an observer with the column layout once, with a
//! row of values at every scheduled output time, and with the run's counters after every
//! completed communication step. Result files, progress displays and in-memory recorders are
//! observers.
//!
//! Spec: MasterSim reference §12.1–12.3 (what is written and when), §6.8 (which variables are
//! result columns).

use crate::plan::{OutputVariable, SimulationPlan, SlavePlan};
use crate::statistics::Counters;
use crate::values::{OUTPUT_TYPE_ORDER, PerType, TypedValues};

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
    pub fn of(slave: &str, var: &OutputVariable) -> OutputColumn {
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
/// Booleans, Integers and Reals go to `values.csv` in that order; Strings, then Binaries (as
/// hexadecimal text) go to `strings.csv` (MasterSim reference §12.1–12.2). Parameters and
/// constants (only when requested for MAT or Signal Table files) carry the values read after
/// initialization.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OutputLayout {
    /// Start time of the run, s.
    pub t_start: f64,
    /// End time of the run, s.
    pub t_end: f64,
    /// Time-varying result columns per type.
    pub columns: PerType<Vec<OutputColumn>>,
    /// Parameter columns per type.
    pub parameters: PerType<Vec<OutputColumn>>,
    /// Parameter values per type; shapes: `parameter_values.<type>.len()` equals
    /// `parameters.<type>.len()`. A value that could not be read is NaN / 0 / false / empty.
    pub parameter_values: TypedValues,
    /// How times are printed for people ([`SimulationPlan::time_format`]); result files keep
    /// full precision.
    pub time_format: crate::time::TimeFormat,
}

impl OutputLayout {
    /// The layout of `plan`: for each type in [`OUTPUT_TYPE_ORDER`], every slave's written
    /// outputs (and parameters) of that type in slave order, named `<slave>.<variable>`.
    /// Parameter values start zeroed; the master fills them after initialization.
    pub fn new(plan: &SimulationPlan) -> OutputLayout {
        let parameters = columns_of(plan, |s| &s.parameters);
        OutputLayout {
            t_start: plan.settings.t_start,
            t_end: plan.settings.t_end,
            columns: columns_of(plan, |s| &s.outputs),
            parameter_values: TypedValues::zeroed(&parameters.lengths()),
            parameters,
            time_format: plan.time_format(),
        }
    }

    /// Number of result columns per type (the shape of every row).
    pub fn counts(&self) -> PerType<usize> {
        self.columns.lengths()
    }
}

/// The columns of the written variables in `list` of every slave of `plan`.
fn columns_of(
    plan: &SimulationPlan,
    list: impl Fn(&SlavePlan) -> &PerType<Vec<OutputVariable>>,
) -> PerType<Vec<OutputColumn>> {
    let mut columns = PerType::<Vec<OutputColumn>>::default();
    for ty in OUTPUT_TYPE_ORDER {
        for slave in &plan.slaves {
            for var in list(slave).get(ty).iter().filter(|v| v.written) {
                columns.get_mut(ty).push(OutputColumn::of(&slave.name, var));
            }
        }
    }
    columns
}

/// Receives results while a simulation runs.
///
/// All calls come from the thread that drives the simulation (with parallel Gauss-Jacobi a
/// worker thread, hence `Send`), one at a time, in this order: [`Observer::start`] once, then
/// [`Observer::step_completed`] (with [`Observer::slave_steps`] in multi-rate runs) and
/// [`Observer::output`] repeatedly.
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

    /// Called after every completed communication step, before any row for it, with the
    /// run's counters (`counters.t` is the new communication point).
    fn step_completed(&mut self, counters: &Counters) {
        let _ = counters;
    }

    /// Multi-rate runs only: called right after [`Observer::step_completed`] with every
    /// slave's number of `doStep` calls so far (plan order; one entry per slave), since slaves
    /// step at different instants.
    fn slave_steps(&mut self, do_step_calls: &[u64]) {
        let _ = do_step_calls;
    }

    /// The run was rolled back to communication point `t` (s), a restored snapshot: the rows
    /// after `t` are no longer part of it, and the next row follows the one at `t`. Observers
    /// that keep rows drop those after `t` (default: nothing to do).
    fn rewound(&mut self, t: f64) {
        let _ = t;
    }

    /// The run is held (paused or after a single step) at communication point `t` (s);
    /// `values` are the outputs there, in the shapes of [`Observer::output`]. This is not a
    /// result row (none may be due at `t`, e.g. with `hOutputMin` larger than the step):
    /// observers that write files ignore it (default), a live view shows it.
    fn held(&mut self, t: f64, values: &TypedValues) {
        let _ = (t, values);
    }
}

/// Several observers as one: every call goes to each of them, in the order they were added.
/// The first error ends the call (the remaining observers do not see that row).
#[derive(Default)]
pub struct Observers(Vec<Box<dyn Observer>>);

impl std::fmt::Debug for Observers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Observers({})", self.0.len())
    }
}

impl Observers {
    /// Adds `observer` at the end.
    pub fn push(&mut self, observer: Box<dyn Observer>) {
        self.0.push(observer);
    }

    /// Number of observers.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Observer for Observers {
    fn start(&mut self, layout: &OutputLayout) -> Result<(), ObserverError> {
        self.0.iter_mut().try_for_each(|o| o.start(layout))
    }

    fn output(&mut self, t: f64, values: &TypedValues) -> Result<(), ObserverError> {
        self.0.iter_mut().try_for_each(|o| o.output(t, values))
    }

    fn step_completed(&mut self, counters: &Counters) {
        for o in &mut self.0 {
            o.step_completed(counters);
        }
    }

    fn slave_steps(&mut self, do_step_calls: &[u64]) {
        for o in &mut self.0 {
            o.slave_steps(do_step_calls);
        }
    }

    fn rewound(&mut self, t: f64) {
        for o in &mut self.0 {
            o.rewound(t);
        }
    }

    fn held(&mut self, t: f64, values: &TypedValues) {
        for o in &mut self.0 {
            o.held(t, values);
        }
    }
}
