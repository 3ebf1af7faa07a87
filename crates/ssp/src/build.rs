//! From a read SSD to the project that runs it: nested systems flattened, connections
//! resolved from FMU output to FMU input with their transformations and unit conversions
//! folded together, parameter bindings applied by SSP's precedence, and the time settings.
//!
//! Spec: SSP 1.0 §5.3.2 (connections through system connectors), §5.3.3 (parameter bindings:
//! later bindings beat earlier ones, higher levels beat lower ones, names matching nothing
//! are ignored), §4.4 (unit conversion), §6–§7.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use fmi::{ModelDescription, ScalarVariable, VarType};
use master::project::{
    Communication, CommunicationDef, GraphEdge, ParameterDef, Project, SimulatorDef, TimeSetting,
    TimeUnit, ValueMap, VariableRef,
};

use crate::error::{ErrorKind, Result, SspError};
use crate::ssd::{self, Component, ConnectorType, Element, End, Kind, Ssd};
use crate::values::{self, Binding, Mapping, ParameterSet, Source, Transformation, Unit, Value};
use crate::{LoadOptions, System};

/// A component with what the build needs of it.
struct Comp<'a> {
    /// The SSD element.
    element: &'a Component,
    /// The system it is in (index into `Builder::systems`).
    system: usize,
    /// Slave name in the project.
    slave: String,
    /// The FMU file.
    fmu: PathBuf,
    /// Its model description.
    description: ModelDescription,
}

/// A system with its place in the hierarchy.
struct Sys<'a> {
    element: &'a ssd::System,
    /// Dotted path of element names from the top-level system (empty for it).
    path: String,
    /// Its components (indices into `Builder::comps`) and nested systems (into `systems`),
    /// by element name.
    children: HashMap<&'a str, Child>,
}

#[derive(Clone, Copy)]
enum Child {
    Comp(usize),
    Sys(usize),
}

/// A connector in the flattened system.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Port {
    /// Connector of component `.0`.
    Comp(usize, String),
    /// Connector of system `.0`.
    Sys(usize, String),
}

/// A connection between two ports.
struct Edge<'a> {
    from: Port,
    to: Port,
    /// The SSD file that declares it.
    file: &'a Path,
    connection: &'a ssd::Connection,
}

/// A value transfer folded along a path of connections.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Transfer {
    /// `scale · x + offset` (Real; identity for the others).
    Linear { scale: f64, offset: f64 },
    /// A value mapping (Integer, Boolean or Enumeration values).
    Map(Vec<(i128, i128)>),
}

impl Transfer {
    pub(crate) const IDENTITY: Transfer = Transfer::Linear {
        scale: 1.0,
        offset: 0.0,
    };

    /// `self` followed by `next`, or `None` when they do not compose (a mapping and a
    /// non-identity linear transformation).
    pub(crate) fn then(&self, next: &Transfer) -> Option<Transfer> {
        match (self, next) {
            (
                Transfer::Linear { scale, offset },
                Transfer::Linear {
                    scale: s2,
                    offset: o2,
                },
            ) => Some(Transfer::Linear {
                scale: s2 * scale,
                offset: s2 * offset + o2,
            }),
            (t, other) | (other, t) if *t == Transfer::IDENTITY => Some(other.clone()),
            (Transfer::Map(first), Transfer::Map(second)) => {
                let apply = |v: i128, map: &[(i128, i128)]| {
                    map.iter().find(|(s, _)| *s == v).map_or(v, |(_, t)| *t)
                };
                let mut composed: Vec<(i128, i128)> =
                    first.iter().map(|&(s, t)| (s, apply(t, second))).collect();
                for &(s, t) in second {
                    if !first.iter().any(|(fs, _)| *fs == s) {
                        composed.push((s, t));
                    }
                }
                Some(Transfer::Map(composed))
            }
            _ => None,
        }
    }
}

struct Builder<'a> {
    ssd: &'a Ssd,
    systems: Vec<Sys<'a>>,
    comps: Vec<Comp<'a>>,
    units: HashMap<String, Unit>,
    not_in_msim: Vec<String>,
}

/// Builds the project of `ssd` (see the crate documentation).
pub(crate) fn build(ssd: &Ssd, options: &LoadOptions) -> Result<System> {
    let mut b = Builder {
        ssd,
        systems: Vec::new(),
        comps: Vec::new(),
        units: HashMap::new(),
        not_in_msim: Vec::new(),
    };
    for unit in &ssd.units {
        b.add_unit(unit);
    }
    b.collect(&ssd.system, String::new())?;
    b.name_slaves();
    let mut project = Project::with_defaults(ssd.path.clone());
    b.settings(&mut project);
    for comp in &b.comps {
        project.simulators.push(SimulatorDef {
            index: project.simulators.len() as i64,
            cycle: 0,
            name: comp.slave.clone(),
            color: 0xff44_7cb4,
            path_text: comp.fmu.to_string_lossy().into_owned(),
            path: comp.fmu.clone(),
            line: comp.element.line,
        });
        if let Some((h, line)) = comp.element.step_size_hint {
            project.communication.push(CommunicationDef {
                slave: comp.slave.clone(),
                setting: Communication::Interval(TimeSetting::new(h, TimeUnit::Second, Some(line))),
                line,
            });
        }
    }
    b.connections(&mut project)?;
    b.parameters(&mut project, options)?;
    Ok(System {
        project,
        not_in_msim: b.not_in_msim,
        files: Vec::new(),
    })
}

/// A slave name the `.msim` format accepts: blanks, dots, quotes and `#` become `_`.
pub(crate) fn sanitize(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_whitespace() || matches!(c, '.' | '"' | '\'' | '#') {
                '_'
            } else {
                c
            }
        })
        .collect();
    if s.is_empty() { "_".into() } else { s }
}

impl<'a> Builder<'a> {
    fn add_unit(&mut self, unit: &Unit) {
        self.units
            .entry(unit.name.clone())
            .or_insert_with(|| unit.clone());
    }

    fn error(
        &self,
        file: &Path,
        line: usize,
        element: impl Into<String>,
        message: impl Into<String>,
    ) -> SspError {
        SspError::at(file, line, element, message)
    }

    /// Walks the systems depth first, reading every component's FMU.
    fn collect(&mut self, system: &'a ssd::System, path: String) -> Result<usize> {
        let index = self.systems.len();
        self.systems.push(Sys {
            element: system,
            path: path.clone(),
            children: HashMap::new(),
        });
        for element in &system.elements {
            let child = match element {
                Element::Component(c) => {
                    let fmu = values::resolve(
                        &c.file,
                        c.line,
                        &format!("Component '{}'", c.name),
                        (c.file.parent().unwrap_or(Path::new(".")), &self.ssd.scope),
                        &c.source,
                    )?;
                    if !fmu.is_file() {
                        return Err(self.error(
                            &c.file,
                            c.line,
                            format!("Component '{}'", c.name),
                            format!(
                                "the FMU '{}' {}",
                                fmu.display(),
                                output::input::why_not_a_file(&fmu)
                            ),
                        ));
                    }
                    let description =
                        fmi::archive::inspect(&fmu, &fmi::archive::ExtractOptions::default())
                            .map_err(|e| {
                                self.error(
                                    &c.file,
                                    c.line,
                                    format!("Component '{}'", c.name),
                                    format!("cannot read the FMU: {e}"),
                                )
                            })?
                            .description;
                    self.check_connectors(c, &description)?;
                    self.comps.push(Comp {
                        element: c,
                        system: index,
                        slave: String::new(),
                        fmu,
                        description,
                    });
                    Child::Comp(self.comps.len() - 1)
                }
                Element::System(s) => {
                    let sub = if path.is_empty() {
                        s.name.clone()
                    } else {
                        format!("{path}.{}", s.name)
                    };
                    Child::Sys(self.collect(s, sub)?)
                }
            };
            self.systems[index].children.insert(element.name(), child);
        }
        Ok(index)
    }

    /// Checks each declared connector of `c` against its FMU: the variable exists, once, and
    /// has the connector's type. A unit the SSD does not declare is an error.
    fn check_connectors(&self, c: &Component, description: &ModelDescription) -> Result<()> {
        for k in &c.connectors {
            let element = format!("Component '{}'/Connector '{}'", c.name, k.name);
            let variable = find_variable(description, &k.name).ok_or_else(|| {
                self.error(
                    &c.file,
                    k.line,
                    element.clone(),
                    format!("the FMU '{}' has no variable '{}'", c.source, k.name),
                )
            })?;
            let expected = match &k.ty {
                ConnectorType::Real(unit) => {
                    if let Some(unit) = unit {
                        self.unit(&c.file, unit, k.line, &element)?;
                    }
                    Some(VarType::Real)
                }
                ConnectorType::Integer | ConnectorType::Enumeration(_) => Some(VarType::Integer),
                ConnectorType::Boolean => Some(VarType::Boolean),
                ConnectorType::String => Some(VarType::String),
                ConnectorType::Unknown => None,
            };
            if let Some(expected) = expected
                && variable.var_type != expected
            {
                return Err(self.error(
                    &c.file,
                    k.line,
                    element,
                    format!(
                        "the connector is {} but the FMU's variable '{}' is {:?}",
                        k.ty.name(),
                        k.name,
                        variable.var_type
                    ),
                ));
            }
            if let ConnectorType::Enumeration(name) = &k.ty {
                self.enumeration(&c.file, name, k.line, &element)?;
            }
        }
        Ok(())
    }

    fn unit(&self, file: &Path, name: &str, line: usize, element: &str) -> Result<&Unit> {
        self.units.get(name).ok_or_else(|| {
            self.error(
                file,
                line,
                element,
                format!("the unit '{name}' is not declared in the SSD's Units"),
            )
        })
    }

    fn enumeration(
        &self,
        file: &Path,
        name: &str,
        line: usize,
        element: &str,
    ) -> Result<&values::Enumeration> {
        self.ssd
            .enumerations
            .iter()
            .find(|e| e.name == name)
            .ok_or_else(|| {
                self.error(
                    file,
                    line,
                    element,
                    format!("the enumeration '{name}' is not declared in the SSD's Enumerations"),
                )
            })
    }

    /// Gives every component a unique slave name: its own name made valid, prefixed by its
    /// system path where two would clash.
    fn name_slaves(&mut self) {
        let base: Vec<String> = self
            .comps
            .iter()
            .map(|c| sanitize(&c.element.name))
            .collect();
        let mut taken: HashSet<String> = HashSet::new();
        for i in 0..self.comps.len() {
            let clashes = base.iter().filter(|b| **b == base[i]).count() > 1;
            let path = &self.systems[self.comps[i].system].path;
            let mut name = if clashes && !path.is_empty() {
                sanitize(&format!("{path}.{}", self.comps[i].element.name))
            } else {
                base[i].clone()
            };
            let stem = name.clone();
            let mut n = 2;
            while !taken.insert(name.clone()) {
                name = format!("{stem}_{n}");
                n += 1;
            }
            if name != self.comps[i].element.name {
                log::warn!(
                    "{}:{}: component '{}' runs as slave '{name}' (slave names hold no blanks, \
                     dots, quotes or '#' and are unique)",
                    self.comps[i].element.file.display(),
                    self.comps[i].element.line,
                    self.comps[i].element.name
                );
            }
            self.comps[i].slave = name;
        }
    }

    /// Start and stop time from `DefaultExperiment`, the communication step from
    /// `osp:FixedStepAlgorithm`; a row per communication point.
    fn settings(&self, project: &mut Project) {
        let e = &self.ssd.experiment;
        if let Some((t, line)) = e.start {
            project.t_start = TimeSetting::new(t, TimeUnit::Second, Some(line));
        }
        if let Some((t, line)) = e.stop {
            project.t_end = TimeSetting::new(t, TimeUnit::Second, Some(line));
        }
        if let Some((h, line)) = e.base_step {
            project.h_start = TimeSetting::new(h, TimeUnit::Second, Some(line));
            project.h_output_min = TimeSetting::new(h, TimeUnit::Second, Some(line));
        }
    }

    /// The port of connection end `end` in system `system`.
    fn port(
        &self,
        system: usize,
        end: &End,
        connection: &ssd::Connection,
        what: &str,
    ) -> Result<(Port, &'a ssd::Connector)> {
        let sys = &self.systems[system];
        let unknown = || ssd::unknown_end(&sys.element.file, connection, end, what);
        match &end.element {
            None => {
                let k = sys
                    .element
                    .connectors
                    .iter()
                    .find(|k| k.name == end.connector)
                    .ok_or_else(unknown)?;
                Ok((Port::Sys(system, end.connector.clone()), k))
            }
            Some(name) => {
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
                let (port, connectors) = match child {
                    Child::Comp(c) => (
                        Port::Comp(c, end.connector.clone()),
                        &self.comps[c].element.connectors[..],
                    ),
                    Child::Sys(s) => (
                        Port::Sys(s, end.connector.clone()),
                        &self.systems[s].element.connectors[..],
                    ),
                };
                let k = connectors
                    .iter()
                    .find(|k| k.name == end.connector)
                    .ok_or_else(unknown)?;
                Ok((port, k))
            }
        }
    }

    /// Resolves all connections into graph edges between FMU connectors.
    fn connections(&mut self, project: &mut Project) -> Result<()> {
        let mut edges: Vec<(Edge<'a>, Transfer)> = Vec::new();
        for s in 0..self.systems.len() {
            for c in &self.systems[s].element.connections {
                let (from, from_k) = self.port(s, &c.start, c, "start")?;
                let (to, to_k) = self.port(s, &c.end, c, "end")?;
                // An FMU's input cannot drive a connection, nor its output receive one.
                let wrong_way = match (&from, &to) {
                    (Port::Comp(..), _) if matches!(from_k.kind, Kind::Input | Kind::Parameter) => {
                        Some((&from_k.name, "start", "an input or parameter"))
                    }
                    (_, Port::Comp(..))
                        if matches!(to_k.kind, Kind::Output | Kind::CalculatedParameter) =>
                    {
                        Some((&to_k.name, "end", "an output"))
                    }
                    _ => None,
                };
                let file = &self.systems[s].element.file;
                if let Some((name, end, kind)) = wrong_way {
                    return Err(self.error(
                        file,
                        c.line,
                        "Connection",
                        format!("the {end} connector '{name}' is {kind} of its component"),
                    ));
                }
                let transfer = self.transfer(file, c, from_k, to_k)?;
                edges.push((
                    Edge {
                        from,
                        to,
                        file,
                        connection: c,
                    },
                    transfer,
                ));
            }
        }
        let mut driven: HashMap<&Port, usize> = HashMap::new();
        for (i, (edge, _)) in edges.iter().enumerate() {
            if let Some(first) = driven.insert(&edge.to, i) {
                return Err(self.error(
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
            let Port::Comp(input, input_name) = &edge.to else {
                continue;
            };
            // Walk back through system connectors to the FMU that drives this input.
            let mut from = &edge.from;
            let mut total = transfer.clone();
            let mut seen: HashSet<&Port> = HashSet::new();
            let mut at = (edge.file, edge.connection.line);
            loop {
                match from {
                    Port::Comp(output, output_name) => {
                        let value_map = match &total {
                            Transfer::Map(pairs) => Some(ValueMap(pairs.clone())),
                            Transfer::Linear { .. } => None,
                        };
                        let (offset, scale_factor) = match total {
                            Transfer::Linear { scale, offset } => (offset, scale),
                            Transfer::Map(_) => (0.0, 1.0),
                        };
                        if value_map.is_some() {
                            self.not_in_msim.push(format!(
                                "{}:{}: a mapping transformation ('{}.{}' -> '{}.{}'): a .msim \
                                 graph line holds only offset and scale",
                                edge.file.display(),
                                edge.connection.line,
                                self.comps[*output].slave,
                                output_name,
                                self.comps[*input].slave,
                                input_name
                            ));
                        }
                        project.graph.push(GraphEdge {
                            output: VariableRef {
                                slave: self.comps[*output].slave.clone(),
                                variable: output_name.clone(),
                            },
                            input: VariableRef {
                                slave: self.comps[*input].slave.clone(),
                                variable: input_name.clone(),
                            },
                            offset,
                            scale_factor,
                            value_map,
                            line: edge.connection.line,
                        });
                        break;
                    }
                    Port::Sys(..) => {
                        if !seen.insert(from) {
                            return Err(self.error(
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
                            log::warn!(
                                "{}:{}: input '{}.{}' is connected to '{}', which nothing drives; \
                                 the input keeps its start value",
                                edge.file.display(),
                                edge.connection.line,
                                self.comps[*input].slave,
                                input_name,
                                self.port_name(from)
                            );
                            break;
                        };
                        let (previous, t) = &edges[i];
                        total = t.then(&total).ok_or_else(|| {
                            self.error(
                                previous.file,
                                previous.connection.line,
                                "Connection",
                                "a mapping transformation and a linear transformation or unit \
                                 conversion on one path of connections do not combine",
                            )
                            .unsupported()
                        })?;
                        at = (previous.file, previous.connection.line);
                        from = &previous.from;
                    }
                }
            }
        }
        Ok(())
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
                    format!("{} (system connector)", k)
                } else {
                    format!("{path}.{k}")
                }
            }
        }
    }

    /// The transfer of one connection: its transformation, then the unit conversion from the
    /// start connector's unit to the end connector's.
    fn transfer(
        &self,
        file: &Path,
        c: &ssd::Connection,
        from: &ssd::Connector,
        to: &ssd::Connector,
    ) -> Result<Transfer> {
        let mismatch = || {
            self.error(
                file,
                c.line,
                "Connection",
                format!(
                    "type mismatch: '{}' is {} and '{}' is {}",
                    from.name,
                    from.ty.name(),
                    to.name,
                    to.ty.name()
                ),
            )
        };
        let same_class = matches!(
            (&from.ty, &to.ty),
            (ConnectorType::Unknown, _)
                | (_, ConnectorType::Unknown)
                | (ConnectorType::Real(_), ConnectorType::Real(_))
                | (ConnectorType::Integer, ConnectorType::Integer)
                | (ConnectorType::Boolean, ConnectorType::Boolean)
                | (ConnectorType::String, ConnectorType::String)
                | (ConnectorType::Enumeration(_), ConnectorType::Enumeration(_))
        );
        if !same_class {
            return Err(mismatch());
        }
        let wrong = |expected: &str| {
            self.error(
                file,
                c.line,
                "Connection",
                format!(
                    "a {} needs {expected} connectors; '{}' is {} and '{}' is {}",
                    c.transformation.as_ref().map_or("", Transformation::name),
                    from.name,
                    from.ty.name(),
                    to.name,
                    to.ty.name()
                ),
            )
        };
        let transfer = match &c.transformation {
            None => Transfer::IDENTITY,
            Some(Transformation::Linear { factor, offset }) => {
                if !matches!(from.ty, ConnectorType::Real(_) | ConnectorType::Unknown) {
                    return Err(wrong("Real"));
                }
                Transfer::Linear {
                    scale: *factor,
                    offset: *offset,
                }
            }
            Some(Transformation::Boolean(pairs)) => {
                if !matches!(from.ty, ConnectorType::Boolean) {
                    return Err(wrong("Boolean"));
                }
                Transfer::Map(
                    pairs
                        .iter()
                        .map(|&(s, t)| (i128::from(s), i128::from(t)))
                        .collect(),
                )
            }
            Some(Transformation::Integer(pairs)) => {
                if !matches!(from.ty, ConnectorType::Integer) {
                    return Err(wrong("Integer"));
                }
                Transfer::Map(
                    pairs
                        .iter()
                        .map(|&(s, t)| (i128::from(s), i128::from(t)))
                        .collect(),
                )
            }
            Some(Transformation::Enumeration(pairs)) => {
                let (ConnectorType::Enumeration(source), ConnectorType::Enumeration(target)) =
                    (&from.ty, &to.ty)
                else {
                    return Err(wrong("Enumeration"));
                };
                let source = self.enumeration(file, source, c.line, "Connection")?;
                let target = self.enumeration(file, target, c.line, "Connection")?;
                let value = |e: &values::Enumeration, item: &str| {
                    e.items
                        .iter()
                        .find(|(n, _)| n == item)
                        .map(|(_, v)| i128::from(*v))
                        .ok_or_else(|| {
                            self.error(
                                file,
                                c.line,
                                "EnumerationMappingTransformation",
                                format!("the enumeration '{}' has no item '{item}'", e.name),
                            )
                        })
                };
                Transfer::Map(
                    pairs
                        .iter()
                        .map(|(s, t)| Ok((value(source, s)?, value(target, t)?)))
                        .collect::<Result<_>>()?,
                )
            }
        };
        let conversion = match (&from.ty, &to.ty) {
            (ConnectorType::Real(Some(a)), ConnectorType::Real(Some(b)))
                if !c.suppress_unit_conversion =>
            {
                self.conversion(file, a, b, c.line, "Connection")?
            }
            _ => Transfer::IDENTITY,
        };
        Ok(transfer
            .then(&conversion)
            .expect("invariant: linear transfers compose"))
    }

    /// The conversion of a value in unit `from` to unit `to`.
    fn conversion(
        &self,
        file: &Path,
        from: &str,
        to: &str,
        line: usize,
        element: &str,
    ) -> Result<Transfer> {
        if from == to {
            return Ok(Transfer::IDENTITY);
        }
        let (a, b) = (
            self.unit(file, from, line, element)?,
            self.unit(file, to, line, element)?,
        );
        if a.exponents != b.exponents {
            return Err(self.error(
                file,
                line,
                element,
                format!("the units '{from}' and '{to}' have different dimensions; no conversion between them exists"),
            ));
        }
        // SI value: factor · x + offset, in both units.
        Ok(Transfer::Linear {
            scale: a.factor / b.factor,
            offset: (a.offset - b.offset) / b.factor,
        })
    }

    /// Applies every parameter binding, innermost first, so that later bindings of an element
    /// and bindings of enclosing systems win.
    fn parameters(&mut self, project: &mut Project, options: &LoadOptions) -> Result<()> {
        let mut assignments: Vec<Assignment> = Vec::new();
        let mut used_set = false;
        // Components first (the lowest level), then systems from the innermost out.
        for c in 0..self.comps.len() {
            let element = self.comps[c].element;
            used_set |= self.apply_bindings(
                &element.file,
                &element.bindings,
                Target::Comp(c),
                options,
                &mut assignments,
            )?;
        }
        for s in (0..self.systems.len()).rev() {
            let system = self.systems[s].element;
            used_set |= self.apply_bindings(
                &system.file,
                &system.bindings,
                Target::Sys(s),
                options,
                &mut assignments,
            )?;
            if let Some((file, bindings)) = &system.outer_bindings {
                used_set |=
                    self.apply_bindings(file, bindings, Target::Sys(s), options, &mut assignments)?;
            }
        }
        if let Some(name) = &options.parameter_set
            && !used_set
        {
            return Err(SspError::file(
                ErrorKind::Invalid,
                &self.ssd.path,
                format!("--parameter-set {name}: no element binds a parameter set of that name"),
            ));
        }
        // The last assignment of a variable wins; keep its place in the order.
        let mut last: HashMap<(usize, &str), usize> = HashMap::new();
        for (i, a) in assignments.iter().enumerate() {
            last.insert((a.comp, a.variable.as_str()), i);
        }
        for (i, a) in assignments.iter().enumerate() {
            if last[&(a.comp, a.variable.as_str())] != i {
                log::debug!(
                    "{}:{}: the value of '{}.{}' is overridden by a later or higher binding",
                    a.file.display(),
                    a.line,
                    self.comps[a.comp].slave,
                    a.variable
                );
                continue;
            }
            project.parameters.push(ParameterDef {
                slave: self.comps[a.comp].slave.clone(),
                variable: a.variable.clone(),
                value: a.value.clone(),
                line: a.ssd_line,
            });
        }
        Ok(())
    }

    /// Applies the bindings of one element (those of the selected parameter set, see
    /// [`LoadOptions::parameter_set`]); returns whether the selected set was among them.
    fn apply_bindings(
        &self,
        file: &Path,
        bindings: &'a [Binding],
        target: Target,
        options: &LoadOptions,
        out: &mut Vec<Assignment>,
    ) -> Result<bool> {
        let base = file.parent().unwrap_or(Path::new("."));
        let mut loaded: Vec<Loaded<'_>> = Vec::new();
        for b in bindings {
            let set = match &b.values {
                Source::Inline(set) => Cow::Borrowed(set),
                Source::File(source) => {
                    let scope = (base, &self.ssd.scope);
                    let path = values::resolve(file, b.line, "ParameterBinding", scope, source)?;
                    Cow::Owned(values::read_ssv(file, b.line, &path)?)
                }
            };
            let mapping = match &b.mapping {
                None => None,
                Some(Source::Inline(m)) => Some(Cow::Borrowed(m)),
                Some(Source::File(source)) => {
                    let path = values::resolve(
                        file,
                        b.line,
                        "ParameterBinding/ParameterMapping",
                        (base, &self.ssd.scope),
                        source,
                    )?;
                    Some(Cow::Owned(values::read_ssm(file, b.line, &path)?))
                }
            };
            loaded.push((b, set, mapping));
        }
        // Parameter sets: bindings of differently named sets on one element are alternatives.
        let names: Vec<&str> = {
            let mut names: Vec<&str> = Vec::new();
            for (_, set, _) in &loaded {
                if !names.contains(&set.name.as_str()) {
                    names.push(set.name.as_str());
                }
            }
            names
        };
        let selected = options
            .parameter_set
            .as_deref()
            .filter(|n| names.contains(n));
        let chosen = selected.or(names.first().copied());
        if names.len() > 1 && selected.is_none() {
            log::info!(
                "{}: {} binds the parameter sets {}; using '{}' (--parameter-set chooses another)",
                file.display(),
                self.target_name(target),
                names
                    .iter()
                    .map(|n| format!("'{n}'"))
                    .collect::<Vec<_>>()
                    .join(", "),
                chosen.unwrap_or_default()
            );
        }
        for (b, set, mapping) in &loaded {
            if Some(set.name.as_str()) != chosen {
                continue;
            }
            for p in &set.parameters {
                let Some(name) = p.name.strip_prefix(b.prefix.as_str()) else {
                    log::warn!(
                        "{}:{}: parameter '{}' does not start with the binding's prefix '{}'; ignored",
                        set.file.display(),
                        p.line,
                        p.name,
                        b.prefix
                    );
                    continue;
                };
                let mut value = p.value.clone();
                let mut targets: Vec<String> = vec![name.to_owned()];
                if let Some(m) = mapping {
                    let entries: Vec<&values::MappingEntry> =
                        m.entries.iter().filter(|e| e.source == name).collect();
                    if !entries.is_empty() {
                        targets = entries.iter().map(|e| e.target.clone()).collect();
                        // One transformation per source (the first entry's).
                        if let Some(t) = entries.iter().find_map(|e| e.transformation.as_ref()) {
                            value = map_value(&value, t).ok_or_else(|| {
                                SspError::at(
                                    &m.file,
                                    entries[0].line,
                                    "MappingEntry",
                                    format!(
                                        "a {} does not apply to the value of '{}'",
                                        t.name(),
                                        p.name
                                    ),
                                )
                            })?;
                        }
                    }
                }
                for target_name in targets {
                    self.bind(target, &target_name, &value, p, set, b, out)?;
                }
            }
        }
        Ok(selected.is_some())
    }

    fn target_name(&self, target: Target) -> String {
        match target {
            Target::Comp(c) => format!("component '{}'", self.comps[c].element.name),
            Target::Sys(s) => format!("system '{}'", self.systems[s].element.name),
        }
    }

    /// Binds `value` to the variable `name` relative to `target`.
    #[allow(clippy::too_many_arguments)]
    fn bind(
        &self,
        target: Target,
        name: &str,
        value: &Value,
        p: &values::Parameter,
        set: &ParameterSet,
        b: &Binding,
        out: &mut Vec<Assignment>,
    ) -> Result<()> {
        let comp = match target {
            Target::Comp(c) => Some((c, name.to_owned())),
            Target::Sys(s) => self.resolve_in_system(s, name),
        };
        let Some((c, variable)) = comp else {
            log::warn!(
                "{}:{}: parameter '{}' matches nothing in {}; ignored",
                set.file.display(),
                p.line,
                p.name,
                self.target_name(target)
            );
            return Ok(());
        };
        let comp = &self.comps[c];
        let Some(v) = find_variable(&comp.description, &variable) else {
            log::warn!(
                "{}:{}: parameter '{}' matches no variable of '{}' ({}); ignored",
                set.file.display(),
                p.line,
                p.name,
                comp.element.name,
                comp.element.source
            );
            return Ok(());
        };
        let connector = comp.element.connectors.iter().find(|k| k.name == variable);
        let text = self.value_text(value, p, set, v, connector)?;
        out.push(Assignment {
            comp: c,
            variable,
            value: text,
            file: set.file.clone(),
            line: p.line,
            ssd_line: b.line,
        });
        Ok(())
    }

    /// The component and variable a name bound at system `s` reaches: `Element.rest`
    /// descends into the element (the longest matching element name first); a connector of
    /// the system follows its connections to the components' connectors.
    fn resolve_in_system(&self, s: usize, name: &str) -> Option<(usize, String)> {
        let sys = &self.systems[s];
        let mut best: Option<(usize, &str, Child)> = None;
        for (element, child) in &sys.children {
            if let Some(rest) = name.strip_prefix(element).and_then(|r| r.strip_prefix('.'))
                && best.is_none_or(|(len, _, _)| element.len() > len)
            {
                best = Some((element.len(), rest, *child));
            }
        }
        if let Some((_, rest, child)) = best {
            return match child {
                Child::Comp(c) => Some((c, rest.to_owned())),
                Child::Sys(inner) => self.resolve_in_system(inner, rest),
            };
        }
        // A parameter connector of the system: follow its connections one level down.
        if sys.element.connectors.iter().any(|k| k.name == name) {
            for c in &sys.element.connections {
                if c.start.element.is_none()
                    && c.start.connector == name
                    && let Some(e) = &c.end.element
                {
                    return self.resolve_in_system(s, &format!("{e}.{}", c.end.connector));
                }
            }
        }
        None
    }

    /// The `parameter` value text of `value` for variable `v`: Reals converted from the
    /// parameter's unit to the connector's (or the variable's), enumeration items to their
    /// values.
    fn value_text(
        &self,
        value: &Value,
        p: &values::Parameter,
        set: &ParameterSet,
        v: &ScalarVariable,
        connector: Option<&ssd::Connector>,
    ) -> Result<String> {
        let mismatch = |ty: &str| {
            SspError::at(
                &set.file,
                p.line,
                format!("Parameter '{}'", p.name),
                format!(
                    "a {ty} value for the {:?} variable '{}'",
                    v.var_type, v.name
                ),
            )
        };
        Ok(match value {
            Value::Real(x) => {
                if v.var_type != VarType::Real {
                    return Err(mismatch("Real"));
                }
                let target_unit = match connector.map(|k| &k.ty) {
                    Some(ConnectorType::Real(Some(u))) => Some(u.clone()),
                    _ => v.unit.clone(),
                };
                let x = match (&p.unit, target_unit) {
                    (Some(from), Some(to)) if *from != to => {
                        let known = |name: &str| {
                            self.units.contains_key(name)
                                || set.units.iter().any(|u| u.name == name)
                        };
                        if !known(from) || !known(&to) {
                            return Err(SspError::at(
                                &set.file,
                                p.line,
                                format!("Parameter '{}'", p.name),
                                format!(
                                    "cannot convert from unit '{from}' to '{to}': a unit is not declared"
                                ),
                            ));
                        }
                        let lookup = |name: &str| {
                            self.units
                                .get(name)
                                .cloned()
                                .or_else(|| set.units.iter().find(|u| u.name == name).cloned())
                        };
                        let (a, b) = (
                            lookup(from).expect("checked"),
                            lookup(&to).expect("checked"),
                        );
                        if a.exponents != b.exponents {
                            return Err(SspError::at(
                                &set.file,
                                p.line,
                                format!("Parameter '{}'", p.name),
                                format!("the units '{from}' and '{to}' have different dimensions"),
                            ));
                        }
                        (a.factor * x + a.offset - b.offset) / b.factor
                    }
                    _ => *x,
                };
                format!("{x:?}")
            }
            Value::Integer(i) => {
                if v.var_type != VarType::Integer {
                    return Err(mismatch("Integer"));
                }
                i.to_string()
            }
            Value::Boolean(flag) => {
                if v.var_type != VarType::Boolean {
                    return Err(mismatch("Boolean"));
                }
                flag.to_string()
            }
            Value::String(s) => {
                if v.var_type != VarType::String {
                    return Err(mismatch("String"));
                }
                s.clone()
            }
            Value::Enumeration(item) => {
                let Some(ConnectorType::Enumeration(e)) = connector.map(|k| &k.ty) else {
                    return Err(SspError::at(
                        &set.file,
                        p.line,
                        format!("Parameter '{}'", p.name),
                        format!(
                            "an Enumeration value for '{}', which has no Enumeration connector naming its type",
                            v.name
                        ),
                    ));
                };
                let e = self.enumeration(&set.file, e, p.line, "Parameter")?;
                let value = e
                    .items
                    .iter()
                    .find(|(n, _)| n == item)
                    .map(|(_, v)| *v)
                    .ok_or_else(|| {
                        SspError::at(
                            &set.file,
                            p.line,
                            format!("Parameter '{}'", p.name),
                            format!("the enumeration '{}' has no item '{item}'", e.name),
                        )
                    })?;
                value.to_string()
            }
        })
    }
}

/// A binding with its parameter set and mapping, read from the SSD or from their files.
type Loaded<'b> = (&'b Binding, Cow<'b, ParameterSet>, Option<Cow<'b, Mapping>>);

/// Where bindings apply.
#[derive(Clone, Copy)]
enum Target {
    Comp(usize),
    Sys(usize),
}

/// One bound value.
struct Assignment {
    comp: usize,
    variable: String,
    value: String,
    /// The `.ssv` (or SSD) and line of the value.
    file: PathBuf,
    line: usize,
    /// The line of the binding in the SSD.
    ssd_line: usize,
}

/// A parameter value through a mapping entry's transformation; `None` when it does not apply.
fn map_value(value: &Value, t: &Transformation) -> Option<Value> {
    Some(match (value, t) {
        (Value::Real(x), Transformation::Linear { factor, offset }) => {
            Value::Real(factor * x + offset)
        }
        (Value::Integer(i), Transformation::Integer(pairs)) => {
            Value::Integer(pairs.iter().find(|(s, _)| s == i).map_or(*i, |(_, t)| *t))
        }
        (Value::Boolean(b), Transformation::Boolean(pairs)) => {
            Value::Boolean(pairs.iter().find(|(s, _)| s == b).map_or(*b, |(_, t)| *t))
        }
        (Value::Enumeration(item), Transformation::Enumeration(pairs)) => Value::Enumeration(
            pairs
                .iter()
                .find(|(s, _)| s == item)
                .map_or_else(|| item.clone(), |(_, t)| t.clone()),
        ),
        _ => return None,
    })
}

/// The variable named `name` (the first, when an FMU repeats a name).
fn find_variable<'d>(description: &'d ModelDescription, name: &str) -> Option<&'d ScalarVariable> {
    description.variables.iter().find(|v| v.name == name)
}
