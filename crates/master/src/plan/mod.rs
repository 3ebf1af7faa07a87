//! Validation of a raw [`Project`] into a [`SimulationPlan`].
//!
//! This is the one place where names are looked up and causality, variability and type are
//! checked. Afterwards everything works with indices ([`crate::index`]): a [`SlaveIndex`] into the
//! slave list, a [`crate::index::GlobalIndex`] into the connection list of one type, and a
//! [`crate::index::LocalIndex`] into a slave's outputs of one type.
//!
//! Spec: MasterSim reference §6.8 (output selection), §7 (connections, mapping, cycles),
//! §8 steps 6.2–6.3 (start values and parameters), §4.3 (file-reader column typing), §5
//! (`ResultsRootDir`). Deliberate departures are listed in `docs/deviations.md`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use fmi::{ScalarVariable, ValueRef, Variability};

use crate::error::name_hint;
use crate::index::{LocalIndex, SlaveIndex};
use crate::project::MasterAlgorithm;
use crate::project::{Project, SimulatorDef};
use crate::settings::Settings;
use crate::slave::SlaveCapabilities;
use crate::table::Table;
use crate::time::TimeFormat;
use crate::values::{OUTPUT_TYPE_ORDER, PerType};
use crate::{Error, Result};

mod graph;
mod initial;
pub(crate) mod lookup;
mod outputs;
mod rates;

pub use rates::{MultiRate, SampleGrid, SlaveClock};

use graph::GraphBuilder;
use initial::initial_values;
use outputs::{apply_output_only, name_ambiguous_columns, select_outputs, select_parameters};

/// What backs a slave.
#[derive(Debug, Clone)]
pub enum SlaveKind {
    /// An instance of an imported FMU.
    Fmu {
        /// The loaded FMU.
        fmu: Arc<fmi::Fmu>,
        /// The `.fmu` file.
        path: PathBuf,
        /// `Some` when the slave runs the FMU's Model Exchange interface, with its integrator
        /// settings; `None` for co-simulation.
        model_exchange: Option<crate::model_exchange::MeOptions>,
        /// Where the slave runs its FMU: in-process, or in a helper process with one
        /// platform's binary (`docs/isolation.md`).
        placement: crate::placement::Placement,
    },
    /// A CSV/TSV table read by a file-reader slave.
    FileReader {
        /// The parsed table.
        table: Arc<Table>,
    },
    /// A slave the caller instantiates itself (tests, embedding), described like an FMU.
    External {
        /// Its variables, as an FMU would declare them.
        variables: Vec<ScalarVariable>,
        /// Its capabilities.
        capabilities: SlaveCapabilities,
    },
}

impl SlaveKind {
    /// The declared variables (`None` for a file reader, whose columns are untyped).
    pub(crate) fn variables(&self) -> Option<&[ScalarVariable]> {
        match self {
            SlaveKind::Fmu { fmu, .. } => Some(&fmu.description().variables),
            SlaveKind::External { variables, .. } => Some(variables),
            SlaveKind::FileReader { .. } => None,
        }
    }

    /// The FMI version of an FMU slave (`None` for the other kinds).
    fn fmi_version(&self) -> Option<fmi::FmiVersion> {
        match self {
            SlaveKind::Fmu { fmu, .. } => Some(fmu.description().fmi_version),
            SlaveKind::FileReader { .. } | SlaveKind::External { .. } => None,
        }
    }

    /// The file the slave was defined from (FMU or table), for messages.
    fn source_file(&self) -> PathBuf {
        match self {
            SlaveKind::Fmu { path, .. } => path.clone(),
            SlaveKind::FileReader { table } => table.path.clone(),
            SlaveKind::External { .. } => PathBuf::from("<external slave>"),
        }
    }

    /// Capabilities relevant for the capability checks of reference §6.6 (`None` for file
    /// readers, which need none).
    fn fmu_capabilities(&self) -> Option<SlaveCapabilities> {
        match self {
            SlaveKind::Fmu { fmu, .. } => {
                let c = fmu.description().capabilities;
                Some(SlaveCapabilities {
                    can_get_and_set_state: c.can_get_and_set_fmu_state,
                    can_handle_variable_step_size: c.can_handle_variable_communication_step_size,
                    provides_directional_derivative: c.provides_directional_derivative,
                    instantiated_only_once_per_process: c.can_be_instantiated_only_once_per_process,
                })
            }
            SlaveKind::External { capabilities, .. } => Some(*capabilities),
            SlaveKind::FileReader { .. } => None,
        }
    }
}

/// A value of one of the coupling classes.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Real (also FMI 3.0 Float32, set rounded to the nearest `f32`).
    Real(f64),
    /// Integer of any width (checked against the variable's range where it is set).
    Integer(i128),
    /// Boolean.
    Boolean(bool),
    /// String.
    String(String),
    /// Binary (FMI 3.0).
    Binary(Vec<u8>),
}

/// A value the master sets before initialization: a start value or a project parameter.
///
/// Spec: MasterSim reference §8 steps 6.2–6.3.
#[derive(Debug, Clone, PartialEq)]
pub struct InitialValue {
    /// Variable name.
    pub variable: String,
    /// Its handle ([`fmi::ScalarVariable::handle`]).
    pub vr: ValueRef,
    /// The value, already converted to the variable's type.
    pub value: Value,
}

/// Another name of a result variable: a variable with the same type and value reference.
///
/// Spec: FMI 2.0.2 §2.2.7 (aliases share a value reference), FMI 1.0 §2.4 (`alias`).
#[derive(Debug, Clone, PartialEq)]
pub struct VariableAlias {
    /// Variable name.
    pub name: String,
    /// Unit (`-` when none).
    pub unit: String,
    /// Description from the model description, if any.
    pub description: Option<String>,
    /// An FMI 1.0 negated alias: its value is the negated stored value.
    pub negated: bool,
}

/// One variable read from a slave and written to the result files.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputVariable {
    /// Value reference in the slave.
    pub vr: ValueRef,
    /// Variable name (for a file reader: the column caption).
    pub name: String,
    /// Unit (`-` when none; always `-` for non-Real types).
    pub unit: String,
    /// Description from the model description, if any.
    pub description: Option<String>,
    /// Variability (file-reader columns: continuous for Real, discrete otherwise).
    pub variability: Variability,
    /// An FMI 1.0 negated alias: its value is the negated value the slave returns.
    pub negated: bool,
    /// Other variables with the same type and value reference.
    pub aliases: Vec<VariableAlias>,
    /// Written to the result files (`outputOnly` may exclude it; it is still read, e.g. to
    /// feed connections).
    pub written: bool,
}

/// One slave of the plan.
#[derive(Debug, Clone)]
pub struct SlavePlan {
    /// Slave name.
    pub name: String,
    /// Cycle number from the project.
    pub cycle: u32,
    /// What backs it.
    pub kind: SlaveKind,
    /// Variables read after every step and written to the results, per type, in output order.
    pub outputs: PerType<Vec<OutputVariable>>,
    /// Parameters and constants (not among the outputs), read once after initialization for
    /// the parameter sections of MAT and Signal Table files; empty unless
    /// [`PlanOptions::collect_parameters`] is set.
    pub parameters: PerType<Vec<OutputVariable>>,
    /// Start values then parameters, in the order they are set.
    pub initial_values: Vec<InitialValue>,
    /// File readers only: columns whose Real values are held constant between table rows
    /// because they feed a discrete Real input (all other Real columns are interpolated
    /// linearly).
    pub held_columns: Vec<usize>,
}

/// One connection of the typed graph.
///
/// Its position in [`SimulationPlan::connections`] (per type) is its global index.
#[derive(Debug, Clone, PartialEq)]
pub struct Connection {
    /// Source slave.
    pub output_slave: SlaveIndex,
    /// Position of the source in the source slave's output list of this type.
    pub output_local: LocalIndex,
    /// Target slave.
    pub input_slave: SlaveIndex,
    /// Value reference of the target input.
    pub input_vr: ValueRef,
    /// Additive offset (Real only).
    pub offset: f64,
    /// Scale factor (Real only).
    pub scale_factor: f64,
    /// Value mapping (Integer and Boolean only; SSP mapping transformations).
    pub value_map: Option<crate::project::ValueMap>,
    /// `slave.variable` of the source, for messages.
    pub output_name: String,
    /// `slave.variable` of the target, for messages.
    pub input_name: String,
}

/// A variable found by name ([`SimulationPlan::variable`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamedVariable {
    /// Its slave.
    pub slave: SlaveIndex,
    /// Its value reference (for a file reader: the column index).
    pub vr: ValueRef,
    /// Its type.
    pub var_type: fmi::VarType,
    /// An FMI 1.0 negated alias: its value is the negated value stored under `vr`.
    pub negated: bool,
}

/// A variable sharing its type and value reference with an already selected output.
///
/// Spec: MasterSim reference §6.8 (synonyms, `synonymous_variables.txt`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Synonym {
    /// File name of the FMU.
    pub fmu_file: String,
    /// Name used in the result files.
    pub output_name: String,
    /// The synonymous variable.
    pub synonym: String,
}

/// A validated project: settings, slaves, typed connections and cycles, all by index.
#[derive(Debug, Clone)]
pub struct SimulationPlan {
    /// The project file.
    pub project_path: PathBuf,
    /// Validated settings.
    pub settings: Settings,
    /// Slaves in project order.
    pub slaves: Vec<SlavePlan>,
    /// Non-empty cycles in ascending cycle number; slaves in project order.
    pub cycles: Vec<Vec<SlaveIndex>>,
    /// Connections per type, in `graph` line order.
    pub connections: PerType<Vec<Connection>>,
    /// Synonymous variables found while selecting outputs.
    pub synonyms: Vec<Synonym>,
    /// Directories created for slaves that declare a `ResultsRootDir` parameter.
    pub slave_directories: Vec<PathBuf>,
    /// The multi-rate schedule, when the project gives slaves clocks of their own
    /// (`communicationInterval`, `communicationOffset`, `communicationTrigger`); `None` when
    /// every slave follows the master's step.
    pub multirate: Option<MultiRate>,
}

/// Options of [`SimulationPlan::build`].
#[derive(Debug, Clone)]
pub struct PlanOptions {
    /// Working directory; `ResultsRootDir` parameters point to `<working_dir>/slaves/<slave>`.
    pub working_dir: PathBuf,
    /// Select parameters and constants for the results (MAT, Signal Table).
    pub collect_parameters: bool,
}

impl SimulationPlan {
    /// How the times of this run are printed for people ([`TimeFormat`]): to the precision of
    /// the grid of [`Settings::grid_values`], with multi-rate clocks also every slave's first
    /// sample and interval.
    pub fn time_format(&self) -> TimeFormat {
        let mut values = self.settings.grid_values();
        if let Some(multirate) = &self.multirate {
            for clock in &multirate.clocks {
                if let SlaveClock::Periodic(grid) = clock {
                    values.extend([grid.first, grid.interval]);
                }
            }
        }
        TimeFormat::for_grid(values)
    }

    /// Validates `project`. `kind_of` supplies what backs each `simulator` line (an imported FMU,
    /// a loaded table, or an external slave).
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] and [`Error::MissingCapability`] for settings; for connections
    /// [`Error::UnknownSlave`], [`Error::UnknownVariable`], [`Error::InvalidConnectionTarget`],
    /// [`Error::InvalidConnectionSource`], [`Error::TypeMismatch`],
    /// [`Error::ColumnTypeConflict`], [`Error::DuplicateInput`]; for parameters
    /// [`Error::ParameterValue`], [`Error::NotSettable`]; and whatever `kind_of` returns.
    pub fn build(
        project: &Project,
        options: &PlanOptions,
        mut kind_of: impl FnMut(&SimulatorDef) -> Result<SlaveKind>,
    ) -> Result<SimulationPlan> {
        let settings = Settings::from_project(project)?;
        if project.simulators.is_empty() {
            return Err(Error::InvalidSetting {
                at: project.location(None),
                keyword: "project",
                reason: "no 'simulator' line: a project needs at least one slave".into(),
            });
        }
        let mut slaves = Vec::with_capacity(project.simulators.len());
        let mut synonyms = Vec::new();
        for def in &project.simulators {
            let kind = kind_of(def)?;
            let mut outputs = PerType::default();
            let mut parameters = PerType::default();
            if let SlaveKind::Fmu { .. } | SlaveKind::External { .. } = kind {
                let fmu_file = file_name(&kind.source_file());
                let found = select_outputs(
                    kind.variables().unwrap_or_default(),
                    project.write_internal_variables,
                    &fmu_file,
                );
                outputs = found.0;
                if options.collect_parameters {
                    parameters = select_parameters(kind.variables().unwrap_or_default(), &outputs);
                }
                // Synonyms are reported once per FMU file, as MasterSim does.
                if !slaves
                    .iter()
                    .any(|s: &SlavePlan| file_name(&s.kind.source_file()) == fmu_file)
                {
                    synonyms.extend(found.1);
                }
            }
            slaves.push(SlavePlan {
                name: def.name.clone(),
                cycle: def.cycle,
                kind,
                outputs,
                parameters,
                initial_values: vec![],
                held_columns: vec![],
            });
        }
        check_capabilities(&settings, project, &slaves)?;

        let mut builder = GraphBuilder::new(project, &mut slaves);
        for edge in &project.graph {
            builder.connect(edge)?;
        }
        let connections = builder.finish(project.write_unconnected_file_reader_vars);
        apply_output_only(project, &mut slaves)?;
        name_ambiguous_columns(&mut slaves);
        // (One slave alone has nobody to communicate with: no warning.)
        if connections.real.is_empty() && slaves.len() > 1 {
            log::warn!(
                "No real variables in connection graph. This may be an error since FMUs won't communicate with each other."
            );
        }

        let slave_directories = initial_values(project, options, &mut slaves)?;

        // Grouped by cycle number in ascending order; the numbers themselves may be anything
        // up to 2^32 - 1 (only their order counts), so nothing is sized by them.
        let mut by_cycle: std::collections::BTreeMap<u32, Vec<SlaveIndex>> = Default::default();
        for (i, s) in slaves.iter().enumerate() {
            by_cycle.entry(s.cycle).or_default().push(SlaveIndex(i));
        }
        let cycles: Vec<Vec<SlaveIndex>> = by_cycle.into_values().collect();
        let multirate = rates::resolve(project, &settings, &slaves, &cycles, &connections)?;

        Ok(SimulationPlan {
            project_path: project.path.clone(),
            settings,
            slaves,
            cycles,
            connections,
            synonyms,
            slave_directories,
            multirate,
        })
    }

    /// The variable (or file-reader column) named `name`, written `<slave>.<variable>` (split at
    /// the first dot): its slave, value reference and type. A file-reader column reads as Real
    /// unless a connection typed it otherwise.
    ///
    /// # Errors
    /// [`Error::NoSuchVariable`] when the name has no dot, names no slave, or the slave has no
    /// such variable or column; [`Error::AmbiguousVariable`] when its FMU declares the name more
    /// than once, not as one value (or its table has two columns with the caption).
    pub fn variable(&self, name: &str) -> Result<NamedVariable> {
        let missing = |reason: String| Error::NoSuchVariable {
            name: name.to_string(),
            reason,
        };
        let (slave_name, variable) = name
            .split_once('.')
            .ok_or_else(|| missing("expected <slave>.<variable>".into()))?;
        let slave = self
            .slaves
            .iter()
            .position(|s| s.name == slave_name)
            .ok_or_else(|| {
                let known: Vec<&str> = self.slaves.iter().map(|s| s.name.as_str()).collect();
                missing(format!(
                    "no slave '{slave_name}', expected one of: {}",
                    known.join(", ")
                ))
            })?;
        let plan = &self.slaves[slave];
        let found = match &plan.kind {
            SlaveKind::FileReader { table } => {
                lookup::find_column(table, slave_name, variable, || None)?.map(|column| {
                    let var_type = OUTPUT_TYPE_ORDER
                        .into_iter()
                        .find(|&ty| {
                            plan.outputs
                                .get(ty)
                                .iter()
                                .any(|o| o.vr.0 as usize == column)
                        })
                        .unwrap_or(fmi::VarType::Real);
                    NamedVariable {
                        slave: SlaveIndex(slave),
                        vr: ValueRef(column as u32),
                        var_type,
                        negated: false,
                    }
                })
            }
            kind => lookup::find_variable(
                kind.variables().unwrap_or_default(),
                slave_name,
                variable,
                &kind.source_file(),
                || None,
            )?
            .map(|v| NamedVariable {
                slave: SlaveIndex(slave),
                vr: v.handle,
                var_type: v.var_type,
                negated: v.alias == fmi::Alias::NegatedAlias,
            }),
        };
        found.ok_or_else(|| {
            let hint = match &plan.kind {
                SlaveKind::FileReader { table } => {
                    name_hint(variable, table.columns.iter().map(|c| c.name.as_str()))
                }
                kind => name_hint(
                    variable,
                    kind.variables()
                        .unwrap_or_default()
                        .iter()
                        .map(|v| v.name.as_str()),
                ),
            };
            missing(format!(
                "slave '{slave_name}' has no variable '{variable}' (in '{}'){hint}",
                plan.kind.source_file().display()
            ))
        })
    }

    /// Number of connections per type (the lengths of the master's coupling vectors).
    pub fn connection_counts(&self) -> PerType<usize> {
        self.connections.lengths()
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The capability checks of reference §6.6, applied to every FMU-backed slave.
fn check_capabilities(settings: &Settings, project: &Project, slaves: &[SlavePlan]) -> Result<()> {
    for slave in slaves {
        let Some(caps) = slave.kind.fmu_capabilities() else {
            continue;
        };
        let fmu = slave.kind.source_file();
        if settings.adjust_step_size && !caps.can_handle_variable_step_size {
            return Err(Error::MissingCapability {
                fmu,
                slave: slave.name.clone(),
                capability: "canHandleVariableCommunicationStepSize",
                required_by: "adjustStepSize",
            });
        }
        if settings.needs_states() && !caps.can_get_and_set_state {
            let required_by = match settings.algorithm {
                MasterAlgorithm::Newton => "MasterMode NEWTON (rollback for the Jacobian)",
                _ if settings.error_control.adapts_step() => {
                    "ErrorControlMode ADAPT_STEP (rollback after a failed error test)"
                }
                _ => "iteration with maxIterations > 1 (rollback between iterations)",
            };
            return Err(Error::MissingCapability {
                fmu,
                slave: slave.name.clone(),
                capability: "canGetAndSetFMUstate",
                required_by,
            });
        }
    }
    let _ = project;
    Ok(())
}
