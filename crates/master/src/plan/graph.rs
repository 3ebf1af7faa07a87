//! Resolving `graph` lines into typed connections.
//!
//! Spec: MasterSim reference §7.1 (resolution), §4.3 (file-reader column typing).

use std::collections::{BTreeMap, HashMap};

use fmi::{Causality, ValueRef, VarType, Variability};

use super::lookup::{find_column, find_variable};
use super::{Connection, OutputVariable, SlaveKind, SlavePlan};
use crate::error::{Location, name_hint};
use crate::index::{LocalIndex, SlaveIndex};
use crate::project::{GraphEdge, Project, VariableRef};
use crate::values::PerType;
use crate::{Error, Result};

/// Resolves `graph` lines into typed connections (reference §7.1, §4.3).
pub(super) struct GraphBuilder<'a> {
    project: &'a Project,
    slaves: &'a mut Vec<SlavePlan>,
    connections: PerType<Vec<Connection>>,
    /// Type of each file-reader column once connected, per slave (empty for FMU slaves).
    column_types: Vec<Vec<Option<VarType>>>,
    /// First line connecting each (slave, type, value reference) input.
    connected_inputs: BTreeMap<(usize, VarType, u32), usize>,
    /// Index of each slave by name.
    index: HashMap<String, usize>,
}

impl<'a> GraphBuilder<'a> {
    pub(super) fn new(project: &'a Project, slaves: &'a mut Vec<SlavePlan>) -> Self {
        let column_types = slaves
            .iter()
            .map(|s| match &s.kind {
                SlaveKind::FileReader { table } => vec![None; table.columns.len()],
                _ => vec![],
            })
            .collect();
        let index = slaves
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name.clone(), i))
            .collect();
        GraphBuilder {
            project,
            index,
            slaves,
            connections: PerType::default(),
            column_types,
            connected_inputs: BTreeMap::new(),
        }
    }

    fn at(&self, line: usize) -> Location {
        self.project.location(Some(line))
    }

    fn find_slave(&self, r: &VariableRef, line: usize) -> Result<usize> {
        self.index
            .get(&r.slave)
            .copied()
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

    /// Resolves one `graph` line: a connection of two scalars, or of two FMI 3.0 arrays of
    /// equal shape, which becomes one connection per element (in row-major order).
    pub(super) fn connect(&mut self, edge: &GraphEdge) -> Result<()> {
        match self.array_edges(edge)? {
            Some(edges) => edges.iter().try_for_each(|e| self.connect_scalar(e)),
            None => self.connect_scalar(edge),
        }
    }

    /// The element connections of a whole-array connection, `None` when `edge` does not name
    /// an array at both ends. An array connected to a scalar, or arrays of different shapes,
    /// are errors naming both ends.
    fn array_edges(&self, edge: &GraphEdge) -> Result<Option<Vec<GraphEdge>>> {
        let shape = |r: &VariableRef| -> Option<(Vec<usize>, Vec<String>)> {
            let variables = self.slaves[*self.index.get(&r.slave)?].kind.variables()?;
            if variables.iter().any(|v| v.name == r.variable) {
                return None;
            }
            let elements: Vec<&fmi::ScalarVariable> = variables
                .iter()
                .filter(|v| v.array.as_ref().is_some_and(|a| a.array == r.variable))
                .collect();
            let first = elements.first()?.array.as_ref()?;
            Some((
                first.dimensions.clone(),
                elements.iter().map(|v| v.name.clone()).collect(),
            ))
        };
        let (output, input) = (shape(&edge.output), shape(&edge.input));
        match (output, input) {
            (None, None) => Ok(None),
            (Some((out_dims, out_names)), Some((in_dims, in_names))) if out_dims == in_dims => {
                Ok(Some(
                    out_names
                        .into_iter()
                        .zip(in_names)
                        .map(|(o, i)| GraphEdge {
                            output: VariableRef {
                                slave: edge.output.slave.clone(),
                                variable: o,
                            },
                            input: VariableRef {
                                slave: edge.input.slave.clone(),
                                variable: i,
                            },
                            ..edge.clone()
                        })
                        .collect(),
                ))
            }
            (output, input) => {
                let describe = |shape: Option<(Vec<usize>, Vec<String>)>| match shape {
                    Some((dims, _)) => format!(
                        "an array of shape [{}]",
                        dims.iter()
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                            .join(",")
                    ),
                    None => "a scalar".to_string(),
                };
                Err(Error::ArrayShape {
                    at: self.at(edge.line),
                    connection: format!(
                        "'{}.{}' ({}) -> '{}.{}' ({})",
                        edge.output.slave,
                        edge.output.variable,
                        describe(output),
                        edge.input.slave,
                        edge.input.variable,
                        describe(input)
                    ),
                })
            }
        }
    }

    fn connect_scalar(&mut self, edge: &GraphEdge) -> Result<()> {
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
        let input = find_variable(
            variables,
            &edge.input.slave,
            &edge.input.variable,
            &self.slaves[in_slave].kind.source_file(),
            || Some(self.at(line)),
        )?
        .ok_or_else(|| Error::UnknownVariable {
            at: self.at(line),
            slave: edge.input.slave.clone(),
            variable: edge.input.variable.clone(),
            source_file: self.slaves[in_slave].kind.source_file().into(),
            hint: name_hint(
                &edge.input.variable,
                variables
                    .iter()
                    .filter(|v| v.causality == Causality::Input)
                    .map(|v| v.name.as_str()),
            ),
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
        let input_vr = input.handle;
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
                let column = find_column(table, &edge.output.slave, &edge.output.variable, || {
                    Some(self.at(line))
                })?
                .ok_or_else(|| Error::UnknownVariable {
                    at: self.at(line),
                    slave: edge.output.slave.clone(),
                    variable: edge.output.variable.clone(),
                    source_file: table.path.clone().into(),
                    hint: name_hint(
                        &edge.output.variable,
                        table.columns.iter().map(|c| c.name.as_str()),
                    ),
                })?;
                // Every integer of the column must fit the input it feeds (docs/fmi3.md).
                if let Some(range) = input.data_type.integer_range() {
                    let map = edge.value_map.as_ref();
                    table.check_integer_range(
                        column,
                        range,
                        |v| map.map_or(v, |m| m.apply(v)),
                        &input_text,
                        input.data_type.name(),
                    )?;
                }
                let local = self.type_column(out_slave, column, ty, line, &output_text)?;
                let held = &mut self.slaves[out_slave].held_columns;
                if hold && !held.contains(&column) {
                    held.push(column);
                }
                local
            }
            kind => {
                let variables = kind.variables().unwrap_or_default();
                let output = find_variable(
                    variables,
                    &edge.output.slave,
                    &edge.output.variable,
                    &kind.source_file(),
                    || Some(self.at(line)),
                )?
                .ok_or_else(|| Error::UnknownVariable {
                    at: self.at(line),
                    slave: edge.output.slave.clone(),
                    variable: edge.output.variable.clone(),
                    source_file: kind.source_file().into(),
                    hint: name_hint(
                        &edge.output.variable,
                        variables
                            .iter()
                            .filter(|v| v.causality == Causality::Output)
                            .map(|v| v.name.as_str()),
                    ),
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
                if let (Some((out_min, out_max)), Some((in_min, in_max))) = (
                    output.data_type.integer_range(),
                    input.data_type.integer_range(),
                ) && (out_min < in_min || out_max > in_max)
                {
                    return Err(Error::LossyConnection {
                        at: self.at(line),
                        output: output_text,
                        output_type: output.data_type,
                        input: input_text,
                        input_type: input.data_type,
                    });
                }
                if output.causality == Causality::Input {
                    return Err(Error::InvalidConnectionSource {
                        at: self.at(line),
                        reference: output_text,
                        reason: "it is an input, expected an output".into(),
                    });
                }
                let vr = output.handle;
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
        if edge.value_map.is_some() && !matches!(ty, VarType::Integer | VarType::Boolean) {
            return Err(Error::InvalidConnectionTarget {
                at: self.at(line),
                reference: input_text,
                reason: format!(
                    "a value mapping applies to Integer and Boolean connections, not {ty:?}"
                ),
            });
        }
        list.push(Connection {
            output_slave: SlaveIndex(out_slave),
            output_local: LocalIndex(output_local),
            input_slave: SlaveIndex(in_slave),
            input_vr,
            offset,
            scale_factor,
            value_map: edge.value_map.clone(),
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
            variability: if ty == VarType::Real {
                Variability::Continuous
            } else {
                Variability::Discrete
            },
            negated: false,
            aliases: Vec::new(),
            written: true,
        };
        let list = self.slaves[slave].outputs.get_mut(ty);
        list.push(output);
        list.len() - 1
    }

    /// Types the still unconnected file-reader columns as Real when requested, then returns
    /// the connections.
    pub(super) fn finish(
        mut self,
        write_unconnected_file_reader_vars: bool,
    ) -> PerType<Vec<Connection>> {
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
