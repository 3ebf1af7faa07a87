//! Validation of a raw [`Project`] into a [`SimulationPlan`].
//!
//! This is the one place where names are looked up and causality, variability and type are
//! checked. Afterwards everything works with indices: [`SlaveIndex`] into the slave list, and a
//! per-type position ("global index") into the connection list of that type.
//!
//! Spec: MasterSim reference §6.8 (output selection), §7 (connections, mapping, cycles),
//! §8 steps 6.2–6.3 (start values and parameters), §4.3 (file-reader column typing), §5
//! (`ResultsRootDir`). Deliberate departures are listed in `docs/deviations.md`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use fmi::{Causality, Initial, ScalarVariable, ValueRef, VarType, Variability};

use crate::error::Location;
use crate::file_reader::Table;
use crate::project::{GraphEdge, Project, SimulatorDef, VariableRef};
use crate::settings::{ErrorControl, MasterAlgorithm, Settings};
use crate::slave::SlaveCapabilities;
use crate::values::{OUTPUT_TYPE_ORDER, PerType};
use crate::{Error, Result};

/// Index of a slave in [`SimulationPlan::slaves`] (project order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SlaveIndex(pub usize);

/// What backs a slave.
#[derive(Debug, Clone)]
pub enum SlaveKind {
    /// An instance of an imported FMU.
    Fmu {
        /// The loaded FMU.
        fmu: Arc<fmi::Fmu>,
        /// The `.fmu` file.
        path: PathBuf,
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
    fn variables(&self) -> Option<&[ScalarVariable]> {
        match self {
            SlaveKind::Fmu { fmu, .. } => Some(&fmu.description().variables),
            SlaveKind::External { variables, .. } => Some(variables),
            SlaveKind::FileReader { .. } => None,
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

/// A value of one of the four types.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Real.
    Real(f64),
    /// Integer.
    Integer(i32),
    /// Boolean.
    Boolean(bool),
    /// String.
    String(String),
}

/// A value the master sets before initialization: a start value or a project parameter.
///
/// Spec: MasterSim reference §8 steps 6.2–6.3.
#[derive(Debug, Clone, PartialEq)]
pub struct InitialValue {
    /// Variable name.
    pub variable: String,
    /// Its value reference.
    pub vr: ValueRef,
    /// The value, already converted to the variable's type.
    pub value: Value,
}

/// One variable written to the result files.
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
    pub output_local: usize,
    /// Target slave.
    pub input_slave: SlaveIndex,
    /// Value reference of the target input.
    pub input_vr: ValueRef,
    /// Additive offset (Real only).
    pub offset: f64,
    /// Scale factor (Real only).
    pub scale_factor: f64,
    /// `slave.variable` of the source, for messages.
    pub output_name: String,
    /// `slave.variable` of the target, for messages.
    pub input_name: String,
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
}

/// Options of [`SimulationPlan::build`].
#[derive(Debug, Clone)]
pub struct PlanOptions {
    /// Working directory; `ResultsRootDir` parameters point to `<working_dir>/slaves/<slave>`.
    pub working_dir: PathBuf,
}

impl SimulationPlan {
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
        let mut slaves = Vec::with_capacity(project.simulators.len());
        let mut synonyms = Vec::new();
        for def in &project.simulators {
            let kind = kind_of(def)?;
            let mut outputs = PerType::default();
            if let SlaveKind::Fmu { .. } | SlaveKind::External { .. } = kind {
                let fmu_file = file_name(&kind.source_file());
                let found = select_outputs(
                    kind.variables().unwrap_or_default(),
                    project.write_internal_variables,
                    &fmu_file,
                );
                outputs = found.0;
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
        if connections.real.is_empty() {
            log::warn!(
                "No real variables in connection graph. This may be an error since FMUs won't communicate with each other."
            );
        }

        let slave_directories = initial_values(project, options, &mut slaves)?;

        let max_cycle = slaves.iter().map(|s| s.cycle).max().unwrap_or(0);
        let mut cycles: Vec<Vec<SlaveIndex>> = vec![vec![]; max_cycle as usize + 1];
        for (i, s) in slaves.iter().enumerate() {
            cycles[s.cycle as usize].push(SlaveIndex(i));
        }
        cycles.retain(|c| !c.is_empty());

        Ok(SimulationPlan {
            project_path: project.path.clone(),
            settings,
            slaves,
            cycles,
            connections,
            synonyms,
            slave_directories,
        })
    }

    /// Number of connections per type (the lengths of the master's coupling vectors).
    pub fn connection_counts(&self) -> PerType<usize> {
        PerType {
            real: self.connections.real.len(),
            integer: self.connections.integer.len(),
            boolean: self.connections.boolean.len(),
            string: self.connections.string.len(),
        }
    }

    /// The result columns: for each type in [`OUTPUT_TYPE_ORDER`], every slave's outputs of that
    /// type in slave order, named `<slave>.<variable>`.
    pub fn output_columns(&self) -> PerType<Vec<crate::observer::OutputColumn>> {
        let mut columns = PerType::<Vec<crate::observer::OutputColumn>>::default();
        for ty in OUTPUT_TYPE_ORDER {
            for slave in &self.slaves {
                for var in slave.outputs.get(ty) {
                    columns.get_mut(ty).push(crate::observer::OutputColumn {
                        name: format!("{}.{}", slave.name, var.name),
                        unit: var.unit.clone(),
                        description: var.description.clone(),
                    });
                }
            }
        }
        columns
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Output selection of one FMU (reference §6.8): outputs first, then (with
/// `write_internal_variables`) all other variables, each (type, value reference) once.
fn select_outputs(
    variables: &[ScalarVariable],
    write_internal_variables: bool,
    fmu_file: &str,
) -> (PerType<Vec<OutputVariable>>, Vec<Synonym>) {
    let mut outputs = PerType::<Vec<OutputVariable>>::default();
    let mut synonyms = Vec::new();
    let mut add = |v: &ScalarVariable, outputs: &mut PerType<Vec<OutputVariable>>| {
        let list = outputs.get_mut(v.var_type);
        if let Some(existing) = list.iter().find(|o| o.vr == v.value_reference) {
            log::warn!(
                "Variable '{}' [{:?}] has valueReference {} which is already selected for output (variable '{}').",
                v.name,
                v.var_type,
                v.value_reference.0,
                existing.name
            );
            synonyms.push(Synonym {
                fmu_file: fmu_file.to_string(),
                output_name: existing.name.clone(),
                synonym: v.name.clone(),
            });
            return;
        }
        let unit = match (v.var_type, v.unit.as_deref()) {
            (VarType::Real, Some(u)) if !u.is_empty() => u.to_string(),
            _ => "-".to_string(),
        };
        list.push(OutputVariable {
            vr: v.value_reference,
            name: v.name.clone(),
            unit,
            description: v.description.clone(),
        });
    };
    for v in variables
        .iter()
        .filter(|v| v.causality == Causality::Output)
    {
        add(v, &mut outputs);
    }
    if write_internal_variables {
        for v in variables
            .iter()
            .filter(|v| v.causality != Causality::Output)
        {
            add(v, &mut outputs);
        }
    }
    (outputs, synonyms)
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
            let required_by = if settings.algorithm == MasterAlgorithm::Newton {
                "MasterMode NEWTON (rollback for the Jacobian)"
            } else if settings.error_control == ErrorControl::Adapt {
                "ErrorControlMode ADAPT_STEP (rollback after a failed error test)"
            } else {
                "iteration with maxIterations > 1 (rollback between iterations)"
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

/// Resolves `graph` lines into typed connections (reference §7.1, §4.3).
struct GraphBuilder<'a> {
    project: &'a Project,
    slaves: &'a mut Vec<SlavePlan>,
    connections: PerType<Vec<Connection>>,
    /// Type of each file-reader column once connected, per slave (empty for FMU slaves).
    column_types: Vec<Vec<Option<VarType>>>,
    /// First line connecting each (slave, type, value reference) input.
    connected_inputs: BTreeMap<(usize, VarType, u32), usize>,
}

impl<'a> GraphBuilder<'a> {
    fn new(project: &'a Project, slaves: &'a mut Vec<SlavePlan>) -> Self {
        let column_types = slaves
            .iter()
            .map(|s| match &s.kind {
                SlaveKind::FileReader { table } => vec![None; table.columns.len()],
                _ => vec![],
            })
            .collect();
        GraphBuilder {
            project,
            slaves,
            connections: PerType::default(),
            column_types,
            connected_inputs: BTreeMap::new(),
        }
    }

    fn at(&self, line: usize) -> Location {
        Location {
            file: self.project.path.clone(),
            line: Some(line),
        }
    }

    fn find_slave(&self, r: &VariableRef, line: usize) -> Result<usize> {
        self.slaves
            .iter()
            .position(|s| s.name == r.slave)
            .ok_or_else(|| Error::UnknownSlave {
                at: self.at(line),
                slave: r.slave.clone(),
                reference: format!("{}.{}", r.slave, r.variable),
                known: self
                    .slaves
                    .iter()
                    .map(|s| s.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }

    fn connect(&mut self, edge: &GraphEdge) -> Result<()> {
        let line = edge.line;
        let input_text = format!("{}.{}", edge.input.slave, edge.input.variable);
        let output_text = format!("{}.{}", edge.output.slave, edge.output.variable);

        // Input side: an FMU input.
        let in_slave = self.find_slave(&edge.input, line)?;
        let Some(variables) = self.slaves[in_slave].kind.variables() else {
            return Err(Error::InvalidConnectionTarget {
                at: self.at(line),
                reference: input_text,
                reason: "a file reader slave has no inputs".into(),
            });
        };
        let input = variables
            .iter()
            .find(|v| v.name == edge.input.variable)
            .ok_or_else(|| Error::UnknownVariable {
                at: self.at(line),
                slave: edge.input.slave.clone(),
                variable: edge.input.variable.clone(),
                source_file: self.slaves[in_slave].kind.source_file(),
            })?;
        if input.causality != Causality::Input {
            return Err(Error::InvalidConnectionTarget {
                at: self.at(line),
                reference: input_text,
                reason: format!("its causality is {:?}, expected Input", input.causality),
            });
        }
        let ty = input.var_type;
        // A table column feeding a discrete Real input is held between rows, not interpolated.
        let hold = ty == VarType::Real && input.variability != Variability::Continuous;
        let input_vr = input.value_reference;
        if let Some(&first_line) = self.connected_inputs.get(&(in_slave, ty, input_vr.0)) {
            return Err(Error::DuplicateInput {
                at: self.at(line),
                input: input_text,
                first_line,
            });
        }

        // Output side: an FMU output, or a file-reader column typed by this connection.
        let out_slave = self.find_slave(&edge.output, line)?;
        let output_local = match &self.slaves[out_slave].kind {
            SlaveKind::FileReader { table } => {
                let column = table.column_index(&edge.output.variable).ok_or_else(|| {
                    Error::UnknownVariable {
                        at: self.at(line),
                        slave: edge.output.slave.clone(),
                        variable: edge.output.variable.clone(),
                        source_file: table.path.clone(),
                    }
                })?;
                let local = self.type_column(out_slave, column, ty, line, &output_text)?;
                let held = &mut self.slaves[out_slave].held_columns;
                if hold && !held.contains(&column) {
                    held.push(column);
                }
                local
            }
            kind => {
                let variables = kind.variables().unwrap_or_default();
                let output = variables
                    .iter()
                    .find(|v| v.name == edge.output.variable)
                    .ok_or_else(|| Error::UnknownVariable {
                        at: self.at(line),
                        slave: edge.output.slave.clone(),
                        variable: edge.output.variable.clone(),
                        source_file: kind.source_file(),
                    })?;
                if output.var_type != ty {
                    return Err(Error::TypeMismatch {
                        at: self.at(line),
                        output: output_text,
                        output_type: output.var_type,
                        input: input_text,
                        input_type: ty,
                    });
                }
                if output.causality == Causality::Input {
                    return Err(Error::InvalidConnectionSource {
                        at: self.at(line),
                        reference: output_text,
                        reason: "it is an input, expected an output".into(),
                    });
                }
                let vr = output.value_reference;
                self.slaves[out_slave].outputs.get(ty).iter().position(|o| o.vr == vr).ok_or_else(|| {
                    Error::InvalidConnectionSource {
                        at: self.at(line),
                        reference: output_text.clone(),
                        reason: format!(
                            "its causality is {:?}, expected Output (or set writeInternalVariables yes)",
                            output.causality
                        ),
                    }
                })?
            }
        };

        self.connected_inputs
            .insert((in_slave, ty, input_vr.0), line);
        let list = self.connections.get_mut(ty);
        log::info!(
            "{} \t'{}' -> '{}'    ({:?})",
            list.len(),
            output_text,
            input_text,
            ty
        );
        let (offset, scale_factor) = if ty == VarType::Real {
            (edge.offset, edge.scale_factor)
        } else {
            (0.0, 1.0)
        };
        list.push(Connection {
            output_slave: SlaveIndex(out_slave),
            output_local,
            input_slave: SlaveIndex(in_slave),
            input_vr,
            offset,
            scale_factor,
            output_name: output_text,
            input_name: input_text,
        });
        Ok(())
    }

    /// Gives file-reader column `column` the type `ty` (reference §4.3) and returns its
    /// position in the reader's output list of that type.
    fn type_column(
        &mut self,
        slave: usize,
        column: usize,
        ty: VarType,
        line: usize,
        reference: &str,
    ) -> Result<usize> {
        let vr = ValueRef(column as u32);
        match self.column_types[slave][column] {
            Some(existing) if existing != ty => Err(Error::ColumnTypeConflict {
                at: self.at(line),
                reference: reference.to_string(),
                first: existing,
                second: ty,
            }),
            Some(_) => Ok(self.slaves[slave]
                .outputs
                .get(ty)
                .iter()
                .position(|o| o.vr == vr)
                .expect("invariant: a typed column is in its type's output list")),
            None => {
                self.column_types[slave][column] = Some(ty);
                Ok(self.push_column(slave, column, ty))
            }
        }
    }

    fn push_column(&mut self, slave: usize, column: usize, ty: VarType) -> usize {
        let SlaveKind::FileReader { table } = &self.slaves[slave].kind else {
            unreachable!("invariant: only file readers have columns")
        };
        let col = &table.columns[column];
        let unit = if ty == VarType::Real && !col.unit.is_empty() {
            col.unit.clone()
        } else {
            "-".to_string()
        };
        let output = OutputVariable {
            vr: ValueRef(column as u32),
            name: col.name.clone(),
            unit,
            description: None,
        };
        let list = self.slaves[slave].outputs.get_mut(ty);
        list.push(output);
        list.len() - 1
    }

    /// Types the still unconnected file-reader columns as Real when requested, then returns
    /// the connections.
    fn finish(mut self, write_unconnected_file_reader_vars: bool) -> PerType<Vec<Connection>> {
        if write_unconnected_file_reader_vars {
            for slave in 0..self.slaves.len() {
                for column in 0..self.column_types[slave].len() {
                    if self.column_types[slave][column].is_none() {
                        self.column_types[slave][column] = Some(VarType::Real);
                        self.push_column(slave, column, VarType::Real);
                        log::info!(
                            "Assuming type 'Real' for unconnected variable '{}.{}'",
                            self.slaves[slave].name,
                            self.slaves[slave]
                                .outputs
                                .real
                                .last()
                                .map(|o| o.name.as_str())
                                .unwrap_or_default()
                        );
                    }
                }
            }
        }
        self.connections
    }
}

/// Whether the master may set `v` before initialization, and if not, why.
///
/// Spec: FMI 2.0.2 §2.2.7 (which variables may be set in which state); constants and
/// calculated variables are never set.
fn settable(v: &ScalarVariable) -> std::result::Result<(), String> {
    if v.variability == Variability::Constant {
        return Err("it is a constant".into());
    }
    if v.initial == Some(Initial::Calculated) {
        return Err("the FMU calculates it (initial=\"calculated\")".into());
    }
    match v.causality {
        Causality::Parameter | Causality::Input => Ok(()),
        _ if matches!(v.initial, Some(Initial::Exact | Initial::Approx)) => Ok(()),
        other => Err(format!(
            "its causality is {other:?}, expected Parameter or Input"
        )),
    }
}

/// Converts a value text to the type of `v`. `None` when it cannot be read.
fn convert(v: &ScalarVariable, text: &str) -> Option<Value> {
    let t = text.trim();
    match v.var_type {
        VarType::Real => t.parse::<f64>().ok().map(Value::Real),
        VarType::Integer => t.parse::<i32>().ok().map(Value::Integer),
        VarType::Boolean => match t {
            "true" | "1" => Some(Value::Boolean(true)),
            "false" | "0" => Some(Value::Boolean(false)),
            _ => None,
        },
        VarType::String => Some(Value::String(text.to_string())),
    }
}

fn type_description(ty: VarType) -> &'static str {
    match ty {
        VarType::Real => "a Real number",
        VarType::Integer => "an Integer",
        VarType::Boolean => "a Boolean (true, false, 1 or 0)",
        VarType::String => "a String",
    }
}

/// Collects start values and project parameters of every FMU-backed slave (reference §8
/// steps 6.2–6.3) and adds `ResultsRootDir` parameters (reference §5). Returns the slave
/// directories that must exist.
fn initial_values(
    project: &Project,
    options: &PlanOptions,
    slaves: &mut [SlavePlan],
) -> Result<Vec<PathBuf>> {
    let mut directories = Vec::new();
    for slave in slaves.iter_mut() {
        let Some(variables) = slave.kind.variables() else {
            for p in project.parameters.iter().filter(|p| p.slave == slave.name) {
                log::warn!(
                    "{}:{}: parameter '{}.{}' ignored: file reader slaves have no parameters",
                    project.path.display(),
                    p.line,
                    p.slave,
                    p.variable
                );
            }
            continue;
        };
        let mut values = Vec::new();
        for v in variables {
            if !matches!(v.causality, Causality::Input | Causality::Parameter)
                || settable(v).is_err()
            {
                continue;
            }
            let Some(start) = &v.start else { continue };
            match convert(v, start) {
                Some(value) => values.push(InitialValue {
                    variable: v.name.clone(),
                    vr: v.value_reference,
                    value,
                }),
                None => log::warn!(
                    "slave '{}': start value '{}' of '{}' is not {}; not set",
                    slave.name,
                    start,
                    v.name,
                    type_description(v.var_type)
                ),
            }
        }
        // Parameters are applied sorted by variable name; a later line overrides an earlier one.
        let mut params: BTreeMap<&str, &crate::project::ParameterDef> = BTreeMap::new();
        for p in project.parameters.iter().filter(|p| p.slave == slave.name) {
            params.insert(&p.variable, p);
        }
        let results_root = variables.iter().find(|v| {
            v.name == "ResultsRootDir"
                && v.causality == Causality::Parameter
                && v.var_type == VarType::String
        });
        if let Some(v) = results_root
            && !params.contains_key("ResultsRootDir")
        {
            let dir = options.working_dir.join("slaves").join(&slave.name);
            log::info!("{}.ResultsRootDir = {}", slave.name, dir.display());
            values.push(InitialValue {
                variable: v.name.clone(),
                vr: v.value_reference,
                value: Value::String(dir.to_string_lossy().into_owned()),
            });
            directories.push(dir);
        }
        for p in params.values() {
            let at = Location {
                file: project.path.clone(),
                line: Some(p.line),
            };
            let v = variables
                .iter()
                .find(|v| v.name == p.variable)
                .ok_or_else(|| Error::UnknownVariable {
                    at: at.clone(),
                    slave: p.slave.clone(),
                    variable: p.variable.clone(),
                    source_file: slave.kind.source_file(),
                })?;
            settable(v).map_err(|reason| Error::NotSettable {
                at: at.clone(),
                slave: p.slave.clone(),
                variable: p.variable.clone(),
                reason,
            })?;
            let value = convert(v, &p.value).ok_or_else(|| Error::ParameterValue {
                at,
                parameter: format!("{}.{}", p.slave, p.variable),
                value: p.value.clone(),
                expected: type_description(v.var_type),
            })?;
            values.push(InitialValue {
                variable: v.name.clone(),
                vr: v.value_reference,
                value,
            });
        }
        slave.initial_values = values;
    }
    Ok(directories)
}
