//! The system structure description (`.ssd`): systems, components, signal dictionaries and
//! their references, connectors, connections, parameter bindings, units, enumerations and the
//! default experiment, read into plain structures with the line of every element.
//!
//! Spec: SSP 2.0 §5 (System Structure Description), §4 (common content: units, enumerations,
//! types, transformations, annotations), §8 (signal dictionaries); SSP 1.0 §5, §4; OSP
//! annotations (`osp:FixedStepAlgorithm`, `osp:StepSizeHint`) as libcosim reads them.

mod connectors;

use std::path::{Path, PathBuf};

use fmi::xml_tree::Node;
use master::project::FmiType;

pub(crate) use connectors::{Connection, Connector, End, Role, unknown_end};

use crate::common;
use crate::dictionary::{self, Dictionary};
use crate::error::Result;
use crate::scope::Scope;
use crate::types::ConnectorType;
use crate::values;
use crate::xml::{Doc, Version, describe};

/// The annotation type of the Open Simulation Platform.
const OSP: &str = "com.opensimulationplatform";

/// A parsed `.ssd` file.
#[derive(Debug)]
pub(crate) struct Ssd {
    /// The file.
    pub path: PathBuf,
    /// The top-level system.
    pub system: System,
    /// Units declared at the top level, in systems and in signal dictionaries (all in one
    /// list: names are global).
    pub units: Vec<common::Unit>,
    /// Enumerations declared at the top level and in signal dictionaries.
    pub enumerations: Vec<common::Enumeration>,
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

/// A system: its own connectors, its elements, connections, bindings and signal dictionaries.
#[derive(Debug)]
pub(crate) struct System {
    /// `name`.
    pub name: String,
    /// The SSD file that defines it (another file for a referenced system).
    pub file: PathBuf,
    /// The SSP release of that file.
    pub version: Version,
    /// Line of the element.
    pub line: usize,
    /// Its connectors (the ports of a nested system).
    pub connectors: Vec<Connector>,
    /// Components, nested systems and signal dictionary references, in document order.
    pub elements: Vec<Element>,
    /// Connections, in document order.
    pub connections: Vec<Connection>,
    /// Parameter bindings of the system, in document order.
    pub bindings: Vec<values::Binding>,
    /// For a system referenced by a component (another `.ssd`, or a system of this file by
    /// its `id`): the bindings of that component (with the file that declares them and its
    /// release), which apply above the system's own.
    pub outer_bindings: Option<(PathBuf, Version, Vec<values::Binding>)>,
    /// Its signal dictionaries.
    pub dictionaries: Vec<Dictionary>,
}

/// An element of a system.
#[derive(Debug)]
pub(crate) enum Element {
    /// A component: an FMU.
    Component(Component),
    /// A nested system.
    System(System),
    /// A signal dictionary reference.
    Reference(Reference),
}

impl Element {
    /// The element's name.
    pub fn name(&self) -> &str {
        match self {
            Element::Component(c) => &c.name,
            Element::System(s) => &s.name,
            Element::Reference(r) => &r.name,
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
    /// `implementation`: the interface of the FMU to run; `None` for `any` or none given (the
    /// default choice: co-simulation when the FMU offers it).
    pub implementation: Option<FmiType>,
}

/// A signal dictionary reference: its connectors are entries of the dictionary it names.
#[derive(Debug)]
pub(crate) struct Reference {
    /// `name`.
    pub name: String,
    /// The SSD file that declares it.
    pub file: PathBuf,
    /// Line of the element.
    pub line: usize,
    /// `dictionary`: the name of a dictionary of its system or an enclosing one.
    pub dictionary: String,
    /// Its connectors, each naming an entry.
    pub connectors: Vec<Connector>,
}

impl Ssd {
    /// Reads the `.ssd` file `doc`.
    ///
    /// # Errors
    /// The first element that breaks SSP or that mastersim does not support, with its line.
    pub fn read(doc: &Doc, scope: Scope) -> Result<Ssd> {
        let mut ctx = Ctx {
            units: Vec::new(),
            enumerations: Vec::new(),
            experiment: Experiment::default(),
            stack: vec![(
                std::path::absolute(&doc.path).unwrap_or_else(|_| doc.path.clone()),
                None,
            )],
            depth: 0,
            scope,
        };
        let mut system = read_description(doc, &mut ctx)?;
        undeclared_enumerations(&mut system, &ctx.enumerations);
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
    units: Vec<common::Unit>,
    enumerations: Vec<common::Enumeration>,
    experiment: Experiment,
    /// The system definitions being read, outermost first: a file, and the `id` of a system
    /// in it for a same-document reference (a reference to one of them is a cycle).
    stack: Vec<(PathBuf, Option<String>)>,
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
    let root = doc.root("SystemStructureDescription")?;
    let version = doc.version(root, true)?;
    let mut system = None;
    for child in doc.children(root) {
        match child.local_name() {
            "System" if system.is_none() => {
                system = Some(read_system(doc, child, version, ctx)?);
            }
            "System" => return Err(doc.error(child, "a second top-level System; expected one")),
            "Units" => ctx.units.extend(common::read_units(doc, child)?),
            "Enumerations" => ctx
                .enumerations
                .extend(common::read_enumerations(doc, child)?),
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

fn read_system(doc: &Doc, node: &Node, version: Version, ctx: &mut Ctx) -> Result<System> {
    let name = doc.required(node, "name")?.to_owned();
    if ctx.depth >= MAX_DEPTH {
        return Err(doc
            .error(node, format!("systems nest deeper than {MAX_DEPTH} levels"))
            .unsupported());
    }
    ctx.depth += 1;
    let system = read_system_body(doc, node, name, version, ctx);
    ctx.depth -= 1;
    system
}

fn read_system_body(
    doc: &Doc,
    node: &Node,
    name: String,
    version: Version,
    ctx: &mut Ctx,
) -> Result<System> {
    let mut system = System {
        name,
        file: doc.path.clone(),
        version,
        outer_bindings: None,
        line: node.line,
        connectors: Vec::new(),
        elements: Vec::new(),
        connections: Vec::new(),
        bindings: Vec::new(),
        dictionaries: Vec::new(),
    };
    for child in doc.children(node) {
        match child.local_name() {
            "Connectors" => system.connectors = connectors::read_connectors(doc, child)?,
            "ParameterBindings" => system.bindings = values::read_bindings(doc, child)?,
            "Elements" => read_elements(doc, child, version, &mut system, ctx)?,
            "Connections" => {
                for connection in doc.children(child) {
                    if connection.local_name() != "Connection" {
                        return Err(doc.error(
                            connection,
                            format!("unexpected element '{}' in Connections", connection.name),
                        ));
                    }
                    system
                        .connections
                        .push(connectors::read_connection(doc, connection)?);
                }
            }
            "SignalDictionaries" => read_dictionaries(doc, child, &mut system, ctx)?,
            // OSP files place the default experiment inside the system.
            "DefaultExperiment" if ctx.stack.len() == 1 => {
                read_experiment(doc, child, &mut ctx.experiment)?
            }
            "DefaultExperiment" => {}
            "Units" => ctx.units.extend(common::read_units(doc, child)?),
            "ElementGeometry" | "SystemGeometry" | "GraphicalElements" | "Annotations"
            | "MetaData" | "Signature" => {}
            other => {
                return Err(doc.error(child, format!("unexpected element '{other}' in System")));
            }
        }
    }
    Ok(system)
}

/// Reads the children of `Elements` into `system`.
fn read_elements(
    doc: &Doc,
    elements: &Node,
    version: Version,
    system: &mut System,
    ctx: &mut Ctx,
) -> Result<()> {
    for node in doc.children(elements) {
        let element = match node.local_name() {
            "Component" if node.get("type") == Some("application/x-ssp-definition") => {
                Element::System(read_reference(doc, node, version, ctx)?)
            }
            "Component" => Element::Component(read_component(doc, node)?),
            "System" => Element::System(read_system(doc, node, version, ctx)?),
            "SignalDictionaryReference" => {
                Element::Reference(read_dictionary_reference(doc, node)?)
            }
            other => {
                return Err(doc.error(node, format!("unexpected element '{other}' in Elements")));
            }
        };
        if system.elements.iter().any(|e| e.name() == element.name()) {
            return Err(doc.error(
                node,
                format!(
                    "a second element named '{}' in system '{}'",
                    element.name(),
                    system.name
                ),
            ));
        }
        system.elements.push(element);
    }
    Ok(())
}

/// Reads `SignalDictionaries` into `system`: each dictionary inline or from its `.ssb` file;
/// their units and enumerations go to `ctx`.
fn read_dictionaries(doc: &Doc, node: &Node, system: &mut System, ctx: &mut Ctx) -> Result<()> {
    for d in doc.children(node) {
        if d.local_name() != "SignalDictionary" {
            return Err(doc.error(
                d,
                format!("unexpected element '{}' in SignalDictionaries", d.name),
            ));
        }
        let name = doc.required(d, "name")?;
        match d.get("type") {
            None | Some("application/x-ssp-signal-dictionary") => {}
            Some(other) => {
                return Err(doc
                    .error(
                        d,
                        format!(
                            "type=\"{other}\": only SSP signal dictionaries (.ssb) are supported"
                        ),
                    )
                    .unsupported());
            }
        }
        let dictionary = match (d.get("source"), doc.first(d, "SignalDictionary")) {
            (Some(_), Some(inline)) => {
                return Err(doc.error(
                    inline,
                    "both a source and an inline SignalDictionary; expected one",
                ));
            }
            (Some(source), None) => {
                let base = doc.path.parent().unwrap_or(Path::new("."));
                let path =
                    values::resolve(&doc.path, d.line, &describe(d), (base, &ctx.scope), source)?;
                dictionary::read_ssb(&doc.path, d.line, &path, name)?
            }
            (None, Some(inline)) => dictionary::read(doc, inline, name)?,
            (None, None) => {
                return Err(doc.error(d, "neither a source nor an inline SignalDictionary"));
            }
        };
        if system
            .dictionaries
            .iter()
            .any(|x| x.name == dictionary.name)
        {
            return Err(doc.error(d, format!("a second signal dictionary named '{name}'")));
        }
        ctx.units.extend(dictionary.units.iter().cloned());
        ctx.enumerations
            .extend(dictionary.enumerations.iter().cloned());
        system.dictionaries.push(dictionary);
    }
    Ok(())
}

fn read_dictionary_reference(doc: &Doc, node: &Node) -> Result<Reference> {
    let mut reference = Reference {
        name: doc.required(node, "name")?.to_owned(),
        file: doc.path.clone(),
        line: node.line,
        dictionary: doc.required(node, "dictionary")?.to_owned(),
        connectors: Vec::new(),
    };
    for child in doc.children(node) {
        match child.local_name() {
            "Connectors" => reference.connectors = connectors::read_connectors(doc, child)?,
            "ParameterBindings" => {
                return Err(doc
                    .error(
                        child,
                        "parameter bindings of a signal dictionary reference are not supported",
                    )
                    .unsupported());
            }
            "Annotations" | "ElementGeometry" | "MetaData" | "Signature" => {}
            other => {
                return Err(doc.error(
                    child,
                    format!("unexpected element '{other}' in SignalDictionaryReference"),
                ));
            }
        }
    }
    Ok(reference)
}

/// A component whose source is another system definition
/// (`type="application/x-ssp-definition"`): another `.ssd` file, or a system of this file by
/// its `id` (`source="#id"`). That system runs under the component's name, with the
/// component's bindings applied above the system's own. A definition that refers back to one
/// being read is a cycle.
///
/// Spec: SSP 2.0 §5.4 (`source`: same-document references by fragment), §5.2.3 (bindings of
/// such a component).
fn read_reference(doc: &Doc, node: &Node, version: Version, ctx: &mut Ctx) -> Result<System> {
    let name = doc.required(node, "name")?.to_owned();
    let source = doc.required(node, "source")?;
    let (path, id) = match source.strip_prefix('#') {
        Some(id) => (
            std::path::absolute(&doc.path).unwrap_or_else(|_| doc.path.clone()),
            Some(id.to_owned()),
        ),
        None => {
            let base = doc.path.parent().unwrap_or(Path::new("."));
            let path = values::resolve(
                &doc.path,
                node.line,
                &describe(node),
                (base, &ctx.scope),
                source,
            )?;
            (std::path::absolute(&path).unwrap_or(path), None)
        }
    };
    let key = (path.clone(), id.clone());
    if let Some(first) = ctx.stack.iter().position(|p| *p == key) {
        let chain: Vec<String> = ctx.stack[first..]
            .iter()
            .chain(std::iter::once(&key))
            .map(|(p, id)| {
                let file = p
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                match id {
                    Some(id) => format!("{file}#{id}"),
                    None => file,
                }
            })
            .collect();
        return Err(doc.error(
            node,
            format!("the nested systems form a cycle: {}", chain.join(" -> ")),
        ));
    }
    let mut system = match &id {
        Some(id) => {
            let definition = system_by_id(doc, id).ok_or_else(|| {
                doc.error(
                    node,
                    format!("source=\"#{id}\": no System element of this file has id=\"{id}\""),
                )
            })?;
            ctx.stack.push(key);
            let system = read_system(doc, definition, version, ctx);
            ctx.stack.pop();
            system?
        }
        None => {
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
            ctx.stack.push(key);
            let system = read_description(&inner, ctx);
            ctx.stack.pop();
            system?
        }
    };
    system.name = name;
    system.line = node.line;
    for child in doc.children(node) {
        if child.local_name() == "ParameterBindings" {
            system.outer_bindings = Some((
                doc.path.clone(),
                version,
                values::read_bindings(doc, child)?,
            ));
        }
    }
    Ok(system)
}

/// The `System` element of `doc` whose `id` is `id` (searched without recursion, so that a
/// deeply nested file cannot exhaust the stack).
fn system_by_id<'a>(doc: &'a Doc, id: &str) -> Option<&'a Node> {
    let mut pending = vec![doc.tree.root()];
    while let Some(node) = pending.pop() {
        if node.local_name() == "System" && node.get("id") == Some(id) {
            return Some(node);
        }
        pending.extend(doc.children(node));
    }
    None
}

fn read_component(doc: &Doc, node: &Node) -> Result<Component> {
    let name = doc.required(node, "name")?.to_owned();
    match node.get("type") {
        None | Some("application/x-fmu-sharedlibrary") => {}
        Some("application/x-ssp-package") => {
            return Err(doc
                .error(
                    node,
                    "type=\"application/x-ssp-package\": components that are other SSP archives \
                     are not supported; unpack the archive and refer to its .ssd with \
                     type=\"application/x-ssp-definition\"",
                )
                .unsupported());
        }
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
    let source = node
        .get("source")
        .ok_or_else(|| {
            doc.error(
                node,
                "the component has no source: a component without an implementation cannot run",
            )
            .unsupported()
        })?
        .to_owned();
    let implementation = match node.get("implementation") {
        None | Some("any") => None,
        Some("CoSimulation") => Some(FmiType::CoSimulation),
        Some("ModelExchange") => Some(FmiType::ModelExchange),
        Some(other) => {
            return Err(doc
                .error(
                    node,
                    format!(
                        "implementation=\"{other}\": expected CoSimulation, ModelExchange or any \
                         (ScheduledExecution is not supported)"
                    ),
                )
                .unsupported());
        }
    };
    let mut component = Component {
        name,
        file: doc.path.clone(),
        line: node.line,
        source,
        connectors: Vec::new(),
        bindings: Vec::new(),
        step_size_hint: None,
        implementation,
    };
    for child in doc.children(node) {
        match child.local_name() {
            "Connectors" => component.connectors = connectors::read_connectors(doc, child)?,
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

/// Reads every `Enumeration` connector whose enumeration no file declares as an integer
/// connector of the FMU variable's type, with one warning each: the values then pass as
/// numbers (mappings by item name and item-name parameter values still need the
/// declaration).
fn undeclared_enumerations(system: &mut System, declared: &[common::Enumeration]) {
    let file = system.file.clone();
    let fix = |connectors: &mut [Connector], file: &Path, owner: &str| {
        for k in connectors {
            if let ConnectorType::Enumeration(name) = &k.ty
                && !declared.iter().any(|e| e.name == *name)
            {
                log::warn!(
                    "{}:{}: {owner}Connector '{}': the enumeration '{name}' is not declared in \
                     any Enumerations; read as an integer connector of the FMU variable's type",
                    file.display(),
                    k.line,
                    k.name
                );
                k.ty = ConnectorType::Integer(None);
            }
        }
    };
    fix(&mut system.connectors, &file, "");
    for d in &mut system.dictionaries {
        for e in &mut d.entries {
            if let ConnectorType::Enumeration(name) = &e.ty
                && !declared.iter().any(|x| x.name == *name)
            {
                log::warn!(
                    "{}:{}: DictionaryEntry '{}': the enumeration '{name}' is not declared in any \
                     Enumerations; read as an integer",
                    d.file.display(),
                    e.line,
                    e.name
                );
                e.ty = ConnectorType::Integer(None);
            }
        }
    }
    for element in &mut system.elements {
        match element {
            Element::Component(c) => {
                let owner = format!("Component '{}'/", c.name);
                fix(&mut c.connectors, &c.file, &owner);
            }
            Element::Reference(r) => {
                let owner = format!("SignalDictionaryReference '{}'/", r.name);
                fix(&mut r.connectors, &r.file, &owner);
            }
            Element::System(s) => undeclared_enumerations(s, declared),
        }
    }
}
