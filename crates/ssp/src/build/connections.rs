//! The connections of the flattened system: each SSD connection between two connectors (of
//! components, of systems, or of signal dictionary references, whose connectors all stand for
//! one signal of their dictionary), oriented the way data flows, then followed back from
//! every FMU input to the FMU output that drives it, their transfers folded into one `graph`
//! edge.
//!
//! Spec: SSP 2.0 §5.3.2 (connections: `start` and `end` do not say which way data flows, the
//! connectors' kinds do; an input is driven at most once), §5.3.3 and §5.5 (signal
//! dictionaries and their references); SSP 1.0 §5.3.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use master::project::{GraphEdge, Project, ValueMap, VariableRef};

use crate::error::{Result, SspError};
use crate::ssd::{self, End, Role};

use super::transfer::Transfer;
use super::{Builder, Child};

/// A connector in the flattened system.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Port {
    /// Connector of component `.0`.
    Comp(usize, String),
    /// Connector of system `.0`.
    Sys(usize, String),
    /// Entry `.1` of the signal dictionary `.0` (its system and its position there): every
    /// reference's connector of that name is this one port.
    Signal((usize, usize), String),
}

/// A connection between two ports, in the direction data flows.
struct Edge<'a> {
    from: Port,
    to: Port,
    /// The SSD file that declares it.
    file: &'a Path,
    connection: &'a ssd::Connection,
}

/// An FMU input connected to a connector that no connection drives.
pub(super) struct Undriven {
    /// The component of the input.
    comp: usize,
    /// The input.
    input: String,
    /// The connector nothing drives, for the message.
    through: String,
    /// The SSD file and line of the connection to the input.
    file: PathBuf,
    line: usize,
}

/// One end of a connection, resolved: its port, its connector and whether it is a connector
/// of the system itself.
type Resolved = (Port, ssd::Connector, bool);

impl<'a> Builder<'a> {
    /// The port of connection end `end` in system `system`.
    fn port(
        &self,
        system: usize,
        end: &End,
        connection: &ssd::Connection,
        what: &str,
    ) -> Result<Resolved> {
        let sys = &self.systems[system];
        let unknown = || ssd::unknown_end(&sys.element.file, connection, end, what);
        let find = |connectors: &[ssd::Connector]| {
            connectors
                .iter()
                .find(|k| k.name == end.connector)
                .cloned()
                .ok_or_else(unknown)
        };
        let Some(name) = &end.element else {
            let k = find(&sys.element.connectors)?;
            return Ok((Port::Sys(system, end.connector.clone()), k, true));
        };
        let child = sys.children.get(name.as_str()).copied().ok_or_else(|| {
            SspError::at(
                &sys.element.file,
                connection.line,
                "Connection",
                format!(
                    "the {what} element '{name}' does not exist in system '{}'",
                    sys.element.name
                ),
            )
        })?;
        Ok(match child {
            Child::Comp(c) => (
                Port::Comp(c, end.connector.clone()),
                find(&self.comps[c].element.connectors)?,
                false,
            ),
            Child::Sys(s) => (
                Port::Sys(s, end.connector.clone()),
                find(&self.systems[s].element.connectors)?,
                false,
            ),
            Child::Ref(r) => (
                Port::Signal(self.refs[r].dictionary, end.connector.clone()),
                find(&self.refs[r].connectors)?,
                false,
            ),
        })
    }

    /// Connection `c` of system `s`, oriented the way data flows, with its transfer. A
    /// connection written from the receiving end to the sending one is turned round, with a
    /// warning.
    ///
    /// # Errors
    /// Unknown ends; two ends that both send or both receive (two outputs, two inputs): the
    /// direction is then ambiguous; and the errors of the transfer.
    fn edge(&self, s: usize, c: &'a ssd::Connection) -> Result<(Edge<'a>, Transfer)> {
        let file = self.systems[s].element.file.as_path();
        let (a, ka, own_a) = self.port(s, &c.start, c, "start")?;
        let (b, kb, own_b) = self.port(s, &c.end, c, "end")?;
        let (ra, rb) = (ka.kind.role(own_a), kb.kind.role(own_b));
        let both = |what: &str| {
            SspError::at(
                file,
                c.line,
                "Connection",
                format!(
                    "both ends {what}: '{}' and '{}' (kinds {:?} and {:?}), so the direction of \
                     the data is ambiguous",
                    self.port_name(&a),
                    self.port_name(&b),
                    ka.kind,
                    kb.kind
                ),
            )
        };
        let reversed = match (ra, rb) {
            (Role::Source, Role::Source) => return Err(both("send data")),
            (Role::Sink, Role::Sink) => return Err(both("receive data")),
            (Role::Sink, _) | (_, Role::Source) => true,
            _ => false,
        };
        let (from, to, from_k, to_k) = if reversed {
            log::warn!(
                "{}:{}: Connection: written from '{}' to '{}'; the data flows from '{}' to '{}', \
                 as the connectors' kinds say",
                file.display(),
                c.line,
                self.port_name(&a),
                self.port_name(&b),
                self.port_name(&b),
                self.port_name(&a)
            );
            (b, a, kb, ka)
        } else {
            (a, b, ka, kb)
        };
        let transfer = self.transfer(file, c, &from_k, &to_k)?;
        let edge = Edge {
            from,
            to,
            file,
            connection: c,
        };
        Ok((edge, transfer))
    }

    /// Resolves all connections into graph edges between FMU connectors.
    pub(super) fn connections(&mut self, project: &mut Project) -> Result<()> {
        let mut edges: Vec<(Edge<'a>, Transfer)> = Vec::new();
        for s in 0..self.systems.len() {
            for c in &self.systems[s].element.connections {
                edges.push(self.edge(s, c)?);
            }
        }
        let mut driven: HashMap<&Port, usize> = HashMap::new();
        for (i, (edge, _)) in edges.iter().enumerate() {
            if let Some(first) = driven.insert(&edge.to, i) {
                return Err(SspError::at(
                    edge.file,
                    edge.connection.line,
                    "Connection",
                    format!(
                        "'{}' is already driven by the connection on line {}",
                        self.port_name(&edge.to),
                        edges[first].0.connection.line
                    ),
                ));
            }
        }
        for (edge, transfer) in &edges {
            if let Port::Comp(input, input_name) = &edge.to {
                let graph = self.follow(edge, transfer, &edges, &driven, *input, input_name)?;
                project.graph.extend(graph);
            }
        }
        Ok(())
    }

    /// Walks back from the FMU input `input.input_name`, which `edge` drives, through system
    /// connectors and dictionary signals to the FMU output that drives it: the graph edge of
    /// that path, or `None` when a connector on the way is driven by nothing.
    fn follow(
        &mut self,
        edge: &Edge<'a>,
        transfer: &Transfer,
        edges: &[(Edge<'a>, Transfer)],
        driven: &HashMap<&Port, usize>,
        input: usize,
        input_name: &str,
    ) -> Result<Option<GraphEdge>> {
        let mut from = &edge.from;
        let mut total = transfer.clone();
        let mut seen: HashSet<&Port> = HashSet::new();
        let mut at = (edge.file, edge.connection.line);
        loop {
            if let Port::Comp(output, output_name) = from {
                return Ok(Some(self.graph_edge(
                    edge,
                    total,
                    (*output, output_name),
                    (input, input_name),
                )));
            }
            if !seen.insert(from) {
                return Err(SspError::at(
                    at.0,
                    at.1,
                    "Connection",
                    format!(
                        "the connections through '{}' form a loop",
                        self.port_name(from)
                    ),
                ));
            }
            let Some(&i) = driven.get(from) else {
                self.undriven.push(Undriven {
                    comp: input,
                    input: input_name.to_owned(),
                    through: self.port_name(from),
                    file: edge.file.to_path_buf(),
                    line: edge.connection.line,
                });
                return Ok(None);
            };
            let (previous, t) = &edges[i];
            total = t.then(&total).ok_or_else(|| {
                SspError::at(
                    previous.file,
                    previous.connection.line,
                    "Connection",
                    "a mapping transformation and a linear transformation or unit conversion \
                     on one path of connections do not combine",
                )
                .unsupported()
            })?;
            at = (previous.file, previous.connection.line);
            from = &previous.from;
        }
    }

    /// The graph edge from `output` to `input` with the folded transfer `total`; a value
    /// mapping is noted as something a `.msim` file cannot state.
    fn graph_edge(
        &mut self,
        edge: &Edge<'a>,
        total: Transfer,
        (output, output_name): (usize, &str),
        (input, input_name): (usize, &str),
    ) -> GraphEdge {
        let (offset, scale_factor, value_map) = match total {
            Transfer::Linear { scale, offset } => (offset, scale, None),
            Transfer::Map(pairs) => (0.0, 1.0, Some(ValueMap(pairs))),
        };
        if value_map.is_some() {
            self.not_in_msim.push(format!(
                "{}:{}: a mapping transformation ('{}.{}' -> '{}.{}'): a .msim graph line holds \
                 only offset and scale",
                edge.file.display(),
                edge.connection.line,
                self.comps[output].slave,
                output_name,
                self.comps[input].slave,
                input_name
            ));
        }
        GraphEdge {
            output: VariableRef {
                slave: self.comps[output].slave.clone(),
                variable: output_name.to_owned(),
            },
            input: VariableRef {
                slave: self.comps[input].slave.clone(),
                variable: input_name.to_owned(),
            },
            offset,
            scale_factor,
            value_map,
            line: edge.connection.line,
        }
    }

    /// Reports the FMU inputs connected to a connector that no connection drives: an input
    /// that a parameter binding sets keeps that value (an info line); any other keeps its
    /// start value (a warning).
    pub(super) fn report_undriven(&self, project: &Project) {
        for u in &self.undriven {
            let slave = &self.comps[u.comp].slave;
            let bound = project
                .parameters
                .iter()
                .any(|p| p.slave == *slave && p.variable == u.input);
            if bound {
                log::info!(
                    "{}:{}: input '{slave}.{}' is connected to '{}', which no connection drives; \
                     it keeps the value its parameter binding sets",
                    u.file.display(),
                    u.line,
                    u.input,
                    u.through
                );
            } else {
                log::warn!(
                    "{}:{}: input '{slave}.{}' is connected to '{}', which nothing drives; the \
                     input keeps its start value",
                    u.file.display(),
                    u.line,
                    u.input,
                    u.through
                );
            }
        }
    }

    /// `Sys.Comp.connector` of a port, for messages.
    fn port_name(&self, port: &Port) -> String {
        match port {
            Port::Comp(c, k) => {
                let path = &self.systems[self.comps[*c].system].path;
                let name = &self.comps[*c].element.name;
                if path.is_empty() {
                    format!("{name}.{k}")
                } else {
                    format!("{path}.{name}.{k}")
                }
            }
            Port::Sys(s, k) => {
                let path = &self.systems[*s].path;
                if path.is_empty() {
                    format!("{k} (system connector)")
                } else {
                    format!("{path}.{k}")
                }
            }
            Port::Signal((s, d), k) => {
                let dictionary = &self.systems[*s].element.dictionaries[*d].name;
                format!("{dictionary}.{k} (signal dictionary entry)")
            }
        }
    }
}
