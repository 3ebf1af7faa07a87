//! Connectors and connections of an SSD: kinds, types and dimensions of connectors, the ends
//! and transformation of a connection, and which way data flows through one.
//!
//! Spec: SSP 2.0 §5.2.1 (`Connector`), §5.3.2 (`Connection`, allowed connections); SSP 1.0
//! §5.3.

use std::path::Path;

use fmi::xml_tree::Node;

use crate::common::{self, Transformation};
use crate::error::{Result, SspError};
use crate::types::{self, ConnectorType, Extent};
use crate::xml::Doc;

/// Connector kinds (SSP 2.0 adds `structuralParameter`, `constant` and `local`).
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
    /// `structuralParameter` (SSP 2.0).
    StructuralParameter,
    /// `constant` (SSP 2.0).
    Constant,
    /// `local` (SSP 2.0): as an output when connected.
    Local,
    /// `inout`.
    Inout,
    /// `unspecified`.
    Unspecified,
}

/// Which way a connector lets data flow on a connection inside the system that holds the
/// connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// Data flows out of it (an element's output, a system's own input seen from inside).
    Source,
    /// Data flows into it.
    Sink,
    /// Either way (`inout`, `unspecified`): the other end decides.
    Either,
}

impl Kind {
    /// The role of a connector of this kind: of an element of the system (`own` false) or of
    /// the system itself (`own` true), whose kinds read the other way round from inside.
    ///
    /// Spec: SSP 2.0 §5.3.2 (table of allowed connections).
    pub fn role(self, own: bool) -> Role {
        let source = match self {
            Kind::Output | Kind::CalculatedParameter | Kind::Constant | Kind::Local => !own,
            Kind::Input | Kind::Parameter | Kind::StructuralParameter => own,
            Kind::Inout | Kind::Unspecified => return Role::Either,
        };
        if source { Role::Source } else { Role::Sink }
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
    /// Its array dimensions (none for a scalar connector).
    pub dimensions: Vec<Extent>,
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
    /// The end written first (`start…`; SSP does not make it the source).
    pub start: End,
    /// The end written second (`end…`).
    pub end: End,
    /// Its transformation, if any.
    pub transformation: Option<Transformation>,
    /// `suppressUnitConversion`.
    pub suppress_unit_conversion: bool,
    /// Line of the element.
    pub line: usize,
}

/// Reads a `Connectors` element.
///
/// # Errors
/// Unknown kinds or elements, a second connector of one name, a clock type or a connector
/// associated with a clock (refused).
pub(crate) fn read_connectors(doc: &Doc, node: &Node) -> Result<Vec<Connector>> {
    let mut connectors: Vec<Connector> = Vec::new();
    for c in doc.children(node) {
        if c.local_name() != "Connector" {
            return Err(doc.error(c, format!("unexpected element '{}' in Connectors", c.name)));
        }
        let connector = read_connector(doc, c)?;
        if connectors.iter().any(|k| k.name == connector.name) {
            return Err(doc.error(c, format!("a second connector named '{}'", connector.name)));
        }
        connectors.push(connector);
    }
    Ok(connectors)
}

fn read_connector(doc: &Doc, c: &Node) -> Result<Connector> {
    let name = doc.required(c, "name")?.to_owned();
    let kind = match doc.required(c, "kind")? {
        "input" => Kind::Input,
        "output" => Kind::Output,
        "parameter" => Kind::Parameter,
        "calculatedParameter" => Kind::CalculatedParameter,
        "structuralParameter" => Kind::StructuralParameter,
        "constant" => Kind::Constant,
        "local" => Kind::Local,
        "inout" => Kind::Inout,
        "unspecified" => Kind::Unspecified,
        other => {
            return Err(doc.error(
                c,
                format!(
                    "kind=\"{other}\": expected input, output, parameter, calculatedParameter, \
                     structuralParameter, constant, local, inout or unspecified"
                ),
            ));
        }
    };
    let mut ty = None;
    let mut dimensions = Vec::new();
    for t in doc.children(c) {
        match t.local_name() {
            "ConnectorGeometry" | "Annotations" | "Description" => continue,
            "Dimension" => dimensions.push(types::read_dimension(doc, t)?),
            "Clock" if t.get("name").is_none() => {
                return Err(doc
                    .error(
                        c,
                        "type Clock: clocks are not supported (mastersim has no clock \
                         activation; see docs/fmi3.md)",
                    )
                    .unsupported());
            }
            // A Clock element with a name associates the connector with a clock.
            "Clock" => {
                return Err(doc
                    .error(
                        c,
                        format!(
                            "the connector is associated with the clock '{}': clocked \
                             connectors are not supported (mastersim has no clock activation)",
                            t.get("name").unwrap_or_default()
                        ),
                    )
                    .unsupported());
            }
            _ => match types::read_type(doc, t)? {
                Some(_) if ty.is_some() => {
                    return Err(doc.error(t, "a second type element; expected at most one"));
                }
                Some(found) => ty = Some(found),
                None => {
                    return Err(doc.error(
                        t,
                        format!("unexpected element '{}' in Connector", t.local_name()),
                    ));
                }
            },
        }
    }
    Ok(Connector {
        name,
        kind,
        ty: ty.unwrap_or(ConnectorType::Unknown),
        dimensions,
        line: c.line,
    })
}

/// Reads a `Connection` element.
///
/// An empty `startElement` or `endElement` is read as absent (the system's own connector),
/// with a warning.
///
/// # Errors
/// A missing connector name, a second transformation, `startIndices`/`endIndices` (refused:
/// SSP does not say whether indices count from 0 or 1), malformed attributes.
pub(crate) fn read_connection(doc: &Doc, node: &Node) -> Result<Connection> {
    for indices in ["startIndices", "endIndices"] {
        if let Some(value) = node.get(indices) {
            return Err(doc
                .error(
                    node,
                    format!(
                        "{indices}=\"{value}\": connections of single array elements are not \
                         supported (SSP does not say whether indices count from 0 or 1); \
                         connect the whole array"
                    ),
                )
                .unsupported());
        }
    }
    let end = |element: &str, connector: &str| -> Result<End> {
        let element = match node.get(element) {
            Some(e) if e.trim().is_empty() => {
                log::warn!(
                    "{}:{}: Connection: {element}=\"{e}\" names no element; read as a connector \
                     of the system itself",
                    doc.path.display(),
                    node.line
                );
                None
            }
            other => other.map(str::to_owned),
        };
        Ok(End {
            element,
            connector: doc.required(node, connector)?.to_owned(),
        })
    };
    let mut transformation = None;
    for child in doc.children(node) {
        match child.local_name() {
            "ConnectionGeometry" | "Annotations" | "Description" => {}
            _ => {
                if transformation.is_some() {
                    return Err(doc.error(child, "a second transformation; expected at most one"));
                }
                transformation = Some(common::read_transformation(doc, child)?);
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
