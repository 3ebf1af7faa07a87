//! The system structure description (`.ssd`): systems, components, connectors, connections,
//! parameter bindings, units, enumerations and the default experiment, read into plain
//! structures with the line of every element.
//!
//! Spec: SSP 1.0 §5 (System Structure Description), §4 (common elements: units,
//! enumerations, transformations, annotations); OSP annotations (`osp:FixedStepAlgorithm`,
//! `osp:StepSizeHint`) as libcosim reads them.

use std::path::{Path, PathBuf};

use fmi::xml_tree::Node;

use crate::error::{Result, SspError};
use crate::scope::Scope;
use crate::values::{self, Transformation};
use crate::xml::{Doc, describe};

/// The annotation type of the Open Simulation Platform.
const OSP: &str = "com.opensimulationplatform";

/// A parsed `.ssd` file.
#[derive(Debug)]
pub(crate) struct Ssd {
    /// The file.
    pub path: PathBuf,
    /// The top-level system.
    pub system: System,
    /// Units declared at the top level and in systems (all in one list: names are global).
    pub units: Vec<values::Unit>,
    /// Enumerations declared at the top level.
    pub enumerations: Vec<values::Enumeration>,
    /// `DefaultExperiment` (top level, or inside the system as OSP files place it).
    pub experiment: Experiment,
    /// Where the files it refers to may be.
    pub scope: Scope,
}

/// What `DefaultExperiment` says.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Experiment {
    /// `startTime` (s) and its line.
    pub start: Option<(f64, usize)>,
    /// `stopTime` (s) and its line.
    pub stop: Option<(f64, usize)>,
    /// `osp:FixedStepAlgorithm baseStepSize` (s) and its line.
    pub base_step: Option<(f64, usize)>,
}

/// A system: its own connectors, its elements, connections and bindings.
#[derive(Debug)]
pub(crate) struct System {
    /// `name`.
    pub name: String,
    /// The SSD file that defines it (another file for a referenced system).
    pub file: PathBuf,
    /// Line of the element.
    pub line: usize,
    /// Its connectors (the ports of a nested system).
    pub connectors: Vec<Connector>,
    /// Components and nested systems, in document order.
    pub elements: Vec<Element>,
    /// Connections, in document order.
    pub connections: Vec<Connection>,
    /// Parameter bindings of the system, in document order.
    pub bindings: Vec<values::Binding>,
    /// For a system referenced by a component of another SSD: the bindings of that
    /// component (with the file that declares them), which apply above the system's own.
    pub outer_bindings: Option<(PathBuf, Vec<values::Binding>)>,
}

/// An element of a system.
#[derive(Debug)]
pub(crate) enum Element {
    /// A component: an FMU.
    Component(Component),
    /// A nested system.
    System(System),
}

impl Element {
    /// The element's name.
    pub fn name(&self) -> &str {
        match self {
            Element::Component(c) => &c.name,
            Element::System(s) => &s.name,
        }
    }
}

/// A component (an FMU).
#[derive(Debug)]
pub(crate) struct Component {
    /// `name`.
    pub name: String,
    /// The SSD file that declares it.
    pub file: PathBuf,
    /// Line of the element.
    pub line: usize,
    /// `source`: the FMU, relative to the SSD's directory.
    pub source: String,
    /// Its declared connectors.
    pub connectors: Vec<Connector>,
    /// Its parameter bindings, in document order.
    pub bindings: Vec<values::Binding>,
    /// `osp:StepSizeHint value` (s) and its line.
    pub step_size_hint: Option<(f64, usize)>,
}

/// Connector kinds of SSP 1.0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `input`.
    Input,
    /// `output`.
    Output,
    /// `parameter`.
    Parameter,
    /// `calculatedParameter`.
    CalculatedParameter,
    /// `inout`.
    Inout,
    /// `unspecified`.
    Unspecified,
}

/// The type of a connector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ConnectorType {
    /// `ssc:Real`, with its `unit` if any.
    Real(Option<String>),
    /// `ssc:Integer`.
    Integer,
    /// `ssc:Boolean`.
    Boolean,
    /// `ssc:String`.
    String,
    /// `ssc:Enumeration name`.
    Enumeration(String),
    /// No type element: the FMU variable's type applies.
    Unknown,
}

impl ConnectorType {
    /// The type's name in SSP.
    pub fn name(&self) -> &'static str {
        match self {
            ConnectorType::Real(_) => "Real",
            ConnectorType::Integer => "Integer",
            ConnectorType::Boolean => "Boolean",
            ConnectorType::String => "String",
            ConnectorType::Enumeration(_) => "Enumeration",
            ConnectorType::Unknown => "untyped",
        }
    }
}

/// A connector.
#[derive(Debug, Clone)]
pub(crate) struct Connector {
    /// `name`.
    pub name: String,
    /// `kind`.
    pub kind: Kind,
    /// Its type.
    pub ty: ConnectorType,
    /// Line of the element.
    pub line: usize,
}

/// One end of a connection: the connector `connector` of element `element` (`None`: of the
/// system itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct End {
    /// `startElement`/`endElement`.
    pub element: Option<String>,
    /// `startConnector`/`endConnector`.
    pub connector: String,
}

/// A connection.
#[derive(Debug, Clone)]
pub(crate) struct Connection {
    /// The source end.
    pub start: End,
    /// The target end.
    pub end: End,
    /// Its transformation, if any.
    pub transformation: Option<Transformation>,
    /// `suppressUnitConversion`.
    pub suppress_unit_conversion: bool,
    /// Line of the element.
    pub line: usize,
}

impl Ssd {
    /// Reads the `.ssd` file `doc`.
    ///
    /// # Errors
    /// The first element that breaks SSP 1.0 or that mastersim does not support, with its
    /// line.
    pub fn read(doc: &Doc, scope: Scope) -> Result<Ssd> {
        let mut ctx = Ctx {
            units: Vec::new(),
            enumerations: Vec::new(),
            experiment: Experiment::default(),
            stack: vec![std::path::absolute(&doc.path).unwrap_or_else(|_| doc.path.clone())],
            depth: 0,
            scope,
        };
        let system = read_description(doc, &mut ctx)?;
        Ok(Ssd {
            path: doc.path.clone(),
            system,
            units: ctx.units,
            enumerations: ctx.enumerations,
            experiment: ctx.experiment,
            scope: ctx.scope,
        })
    }
}

/// What reading an SSD (and the SSDs it refers to) collects besides the systems.
struct Ctx {
    units: Vec<values::Unit>,
    enumerations: Vec<values::Enumeration>,
    experiment: Experiment,
    /// The SSD files being read, outermost first (a file referring to one of them is a cycle).
    stack: Vec<PathBuf>,
    /// Nesting depth of systems.
    depth: usize,
    /// Where referenced files may be.
    scope: Scope,
}

/// Deepest nesting of systems read.
pub(crate) const MAX_DEPTH: usize = 64;

/// Reads the `SystemStructureDescription` of `doc` and returns its system; units,
/// enumerations and the default experiment go to `ctx`.
fn read_description(doc: &Doc, ctx: &mut Ctx) -> Result<System> {
    {
        let root = doc.root("SystemStructureDescription")?;
        match root.get("version") {
            Some("1.0") => {}
            Some(v) if v.starts_with("1.") => log::warn!(
                "{}:{}: SSP version '{v}' is read as SSP 1.0",
                doc.path.display(),
                root.line
            ),
            Some(v) => {
                return Err(doc
                    .error(root, format!("version=\"{v}\": only SSP 1.0 is supported"))
                    .unsupported());
            }
            None => return Err(doc.error(root, "the attribute 'version' is missing")),
        }
        let mut system = None;
        for child in doc.children(root) {
            match child.local_name() {
                "System" if system.is_none() => system = Some(read_system(doc, child, ctx)?),
                "System" => return Err(doc.error(child, "a second top-level System; expected one")),
                "Units" => ctx.units.extend(values::read_units(doc, child)?),
                "Enumerations" => ctx
                    .enumerations
                    .extend(values::read_enumerations(doc, child)?),
                // A referenced SSD's experiment is not the run's.
                "DefaultExperiment" if ctx.stack.len() == 1 => {
                    read_experiment(doc, child, &mut ctx.experiment)?
                }
                "DefaultExperiment" => {}
                "MetaData" | "Signature" | "Annotations" => {}
                other => {
                    return Err(doc.error(
                        child,
                        format!("unexpected element '{other}' in SystemStructureDescription"),
                    ));
                }
            }
        }
        system.ok_or_else(|| doc.error(root, "no System element"))
    }
}

/// Reads `DefaultExperiment` into `experiment`.
fn read_experiment(doc: &Doc, node: &Node, experiment: &mut Experiment) -> Result<()> {
    if let Some(v) = doc.number(node, "startTime")? {
        experiment.start = Some((v, node.line));
    }
    if let Some(v) = doc.number(node, "stopTime")? {
        experiment.stop = Some((v, node.line));
    }
    for annotation in osp_annotations(doc, node) {
        for algorithm in doc.all(annotation, "Algorithm") {
            for fixed in doc.all(algorithm, "FixedStepAlgorithm") {
                let h = doc
                    .number(fixed, "baseStepSize")?
                    .ok_or_else(|| doc.error(fixed, "the attribute 'baseStepSize' is missing"))?;
                if h <= 0.0 {
                    return Err(doc.error(fixed, format!("baseStepSize={h}: expected > 0 s")));
                }
                experiment.base_step = Some((h, fixed.line));
            }
        }
    }
    Ok(())
}

/// The `Annotation` children of `node`'s `Annotations` with the OSP type.
fn osp_annotations<'a>(doc: &'a Doc, node: &'a Node) -> impl Iterator<Item = &'a Node> + 'a {
    doc.all(node, "Annotations")
        .flat_map(move |a| doc.all(a, "Annotation"))
        .filter(|a| a.get("type") == Some(OSP))
}

fn read_system(doc: &Doc, node: &Node, ctx: &mut Ctx) -> Result<System> {
    let name = doc.required(node, "name")?.to_owned();
    if ctx.depth >= MAX_DEPTH {
        return Err(doc
            .error(node, format!("systems nest deeper than {MAX_DEPTH} levels"))
            .unsupported());
    }
    ctx.depth += 1;
    let system = read_system_body(doc, node, name, ctx);
    ctx.depth -= 1;
    system
}

fn read_system_body(doc: &Doc, node: &Node, name: String, ctx: &mut Ctx) -> Result<System> {
    let mut system = System {
        name,
        file: doc.path.clone(),
        outer_bindings: None,
        line: node.line,
        connectors: Vec::new(),
        elements: Vec::new(),
        connections: Vec::new(),
        bindings: Vec::new(),
    };
    for child in doc.children(node) {
        match child.local_name() {
            "Connectors" => system.connectors = read_connectors(doc, child)?,
            "ParameterBindings" => system.bindings = values::read_bindings(doc, child)?,
            "Elements" => {
                for element in doc.children(child) {
                    let element = match element.local_name() {
                        "Component"
                            if element.get("type") == Some("application/x-ssp-definition") =>
                        {
                            Element::System(read_reference(doc, element, ctx)?)
                        }
                        "Component" => Element::Component(read_component(doc, element)?),
                        "System" => Element::System(read_system(doc, element, ctx)?),
                        "SignalDictionaryReference" => {
                            return Err(doc
                                .error(element, "signal dictionaries are not supported")
                                .unsupported());
                        }
                        other => {
                            return Err(doc.error(
                                element,
                                format!("unexpected element '{other}' in Elements"),
                            ));
                        }
                    };
                    if system.elements.iter().any(|e| e.name() == element.name()) {
                        return Err(doc.error(
                            element_node(doc, child, element.name()).unwrap_or(child),
                            format!(
                                "a second element named '{}' in system '{}'",
                                element.name(),
                                system.name
                            ),
                        ));
                    }
                    system.elements.push(element);
                }
            }
            "Connections" => {
                for connection in doc.children(child) {
                    if connection.local_name() != "Connection" {
                        return Err(doc.error(
                            connection,
                            format!("unexpected element '{}' in Connections", connection.name),
                        ));
                    }
                    system.connections.push(read_connection(doc, connection)?);
                }
            }
            "SignalDictionaries" => {
                return Err(doc
                    .error(child, "signal dictionaries are not supported")
                    .unsupported());
            }
            // OSP files place the default experiment inside the system.
            "DefaultExperiment" if ctx.stack.len() == 1 => {
                read_experiment(doc, child, &mut ctx.experiment)?
            }
            "DefaultExperiment" => {}
            "Units" => ctx.units.extend(values::read_units(doc, child)?),
            "ElementGeometry" | "SystemGeometry" | "GraphicalElements" | "Annotations"
            | "MetaData" | "Signature" => {}
            other => {
                return Err(doc.error(child, format!("unexpected element '{other}' in System")));
            }
        }
    }
    Ok(system)
}

/// The second child of `elements` named `name` (for the message about a repeated name).
fn element_node<'a>(doc: &'a Doc, elements: &'a Node, name: &str) -> Option<&'a Node> {
    doc.children(elements)
        .filter(|e| e.get("name") == Some(name))
        .nth(1)
}

/// A component whose source is another `.ssd` (`type="application/x-ssp-definition"`): that
/// file's system, under the component's name, with the component's bindings applied above
/// the system's own. A file that refers back to one being read is a cycle.
fn read_reference(doc: &Doc, node: &Node, ctx: &mut Ctx) -> Result<System> {
    let name = doc.required(node, "name")?.to_owned();
    let source = doc.required(node, "source")?;
    let base = doc.path.parent().unwrap_or(Path::new("."));
    let path = values::resolve(
        &doc.path,
        node.line,
        &describe(node),
        (base, &ctx.scope),
        source,
    )?;
    let path = std::path::absolute(&path).unwrap_or(path);
    if let Some(first) = ctx.stack.iter().position(|p| *p == path) {
        let chain: Vec<String> = ctx.stack[first..]
            .iter()
            .chain(std::iter::once(&path))
            .map(|p| {
                p.file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
            })
            .collect();
        return Err(doc.error(
            node,
            format!("the nested systems form a cycle: {}", chain.join(" -> ")),
        ));
    }
    if !path.is_file() {
        return Err(doc.error(
            node,
            format!(
                "the system file '{}' {}",
                path.display(),
                output::input::why_not_a_file(&path)
            ),
        ));
    }
    let inner = Doc::read(&path)?;
    ctx.stack.push(path);
    let system = read_description(&inner, ctx);
    ctx.stack.pop();
    let mut system = system?;
    system.name = name;
    system.line = node.line;
    for child in doc.children(node) {
        if child.local_name() == "ParameterBindings" {
            system.outer_bindings = Some((doc.path.clone(), values::read_bindings(doc, child)?));
        }
    }
    Ok(system)
}

fn read_component(doc: &Doc, node: &Node) -> Result<Component> {
    let name = doc.required(node, "name")?.to_owned();
    let source = doc.required(node, "source")?.to_owned();
    match node.get("type") {
        None | Some("application/x-fmu-sharedlibrary") => {}
        Some(other) => {
            return Err(doc
                .error(
                    node,
                    format!(
                        "type=\"{other}\": only FMU components \
                         (application/x-fmu-sharedlibrary) are supported"
                    ),
                )
                .unsupported());
        }
    }
    match node.get("implementation") {
        None | Some("any") | Some("CoSimulation") => {}
        Some(other) => {
            return Err(doc
                .error(
                    node,
                    format!("implementation=\"{other}\": only co-simulation is supported"),
                )
                .unsupported());
        }
    }
    let mut component = Component {
        name,
        file: doc.path.clone(),
        line: node.line,
        source,
        connectors: Vec::new(),
        bindings: Vec::new(),
        step_size_hint: None,
    };
    for child in doc.children(node) {
        match child.local_name() {
            "Connectors" => component.connectors = read_connectors(doc, child)?,
            "ParameterBindings" => component.bindings = values::read_bindings(doc, child)?,
            "Annotations" | "ElementGeometry" | "MetaData" | "Signature" => {}
            other => {
                return Err(doc.error(child, format!("unexpected element '{other}' in Component")));
            }
        }
    }
    for annotation in osp_annotations(doc, node) {
        for hint in doc.all(annotation, "StepSizeHint") {
            let h = doc
                .number(hint, "value")?
                .ok_or_else(|| doc.error(hint, "the attribute 'value' is missing"))?;
            if h <= 0.0 {
                return Err(doc.error(hint, format!("value={h}: expected > 0 s")));
            }
            component.step_size_hint = Some((h, hint.line));
        }
    }
    Ok(component)
}

fn read_connectors(doc: &Doc, node: &Node) -> Result<Vec<Connector>> {
    let mut connectors: Vec<Connector> = Vec::new();
    for c in doc.children(node) {
        if c.local_name() != "Connector" {
            return Err(doc.error(c, format!("unexpected element '{}' in Connectors", c.name)));
        }
        let name = doc.required(c, "name")?.to_owned();
        let kind = match doc.required(c, "kind")? {
            "input" => Kind::Input,
            "output" => Kind::Output,
            "parameter" => Kind::Parameter,
            "calculatedParameter" => Kind::CalculatedParameter,
            "inout" => Kind::Inout,
            "unspecified" => Kind::Unspecified,
            other => {
                return Err(doc.error(
                    c,
                    format!(
                        "kind=\"{other}\": expected input, output, parameter, \
                         calculatedParameter, inout or unspecified"
                    ),
                ));
            }
        };
        let mut ty = ConnectorType::Unknown;
        for t in doc.children(c) {
            ty = match t.local_name() {
                "Real" => ConnectorType::Real(t.owned("unit")),
                "Integer" => ConnectorType::Integer,
                "Boolean" => ConnectorType::Boolean,
                "String" => ConnectorType::String,
                "Enumeration" => ConnectorType::Enumeration(doc.required(t, "name")?.to_owned()),
                "Binary" => {
                    return Err(doc
                        .error(c, "type Binary: Binary connectors are not supported")
                        .unsupported());
                }
                "ConnectorGeometry" | "Annotations" | "Description" => continue,
                other => {
                    return Err(doc.error(t, format!("unexpected element '{other}' in Connector")));
                }
            };
        }
        if connectors.iter().any(|k| k.name == name) {
            return Err(doc.error(c, format!("a second connector named '{name}'")));
        }
        connectors.push(Connector {
            name,
            kind,
            ty,
            line: c.line,
        });
    }
    Ok(connectors)
}

fn read_connection(doc: &Doc, node: &Node) -> Result<Connection> {
    let end = |element: &str, connector: &str| -> Result<End> {
        Ok(End {
            element: node.owned(element),
            connector: doc.required(node, connector)?.to_owned(),
        })
    };
    let mut transformation = None;
    for child in doc.children(node) {
        match child.local_name() {
            "ConnectionGeometry" | "Annotations" => {}
            _ => {
                if transformation.is_some() {
                    return Err(doc.error(child, "a second transformation; expected at most one"));
                }
                transformation = Some(values::read_transformation(doc, child)?);
            }
        }
    }
    Ok(Connection {
        start: end("startElement", "startConnector")?,
        end: end("endElement", "endConnector")?,
        transformation,
        suppress_unit_conversion: doc
            .boolean(node, "suppressUnitConversion")?
            .unwrap_or(false),
        line: node.line,
    })
}

/// The error for a connection end that names nothing.
pub(crate) fn unknown_end(file: &Path, connection: &Connection, end: &End, what: &str) -> SspError {
    let element = match &end.element {
        Some(e) => format!("'{e}.{}'", end.connector),
        None => format!("'{}' of the system", end.connector),
    };
    SspError::at(
        file,
        connection.line,
        "Connection",
        format!("the {what} connector {element} does not exist"),
    )
}
