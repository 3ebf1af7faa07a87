//! The type of a connector or signal dictionary entry, and the array dimensions of connectors,
//! dictionary entries and parameter values: the type choice and dimension sequence that the
//! SSD, SSV and SSB formats share.
//!
//! SSP 1.0 knows `Real`, `Integer`, `Boolean`, `String`, `Enumeration` and `Binary`; SSP 2.0
//! adds one element per FMI 3.0 type (`Float64`, `Float32`, `Int8` … `UInt64`), `Clock`, and
//! `Dimension`. They are read in files of either version.
//!
//! Spec: SSP 2.0 §4.5.1 (type choice), §4.5.3 (dimensions), §5.2.1 (connectors); SSP 1.0 §4.

use fmi::xml_tree::Node;
use fmi::{DataType, VarType};

use crate::error::Result;
use crate::xml::Doc;

/// The type of a connector or dictionary entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ConnectorType {
    /// `Real` (`width` `None`), `Float64` or `Float32`, with its `unit` if any.
    Real {
        /// `unit`.
        unit: Option<String>,
        /// The width the element states (`Float64`, `Float32`); `None` for `Real`, which an
        /// FMU variable of either width matches (an SSP 1.0 file has no other word for it).
        width: Option<DataType>,
    },
    /// `Integer` (`None`, which any integer width of an FMU matches) or `Int8` … `UInt64`.
    Integer(Option<DataType>),
    /// `Boolean`.
    Boolean,
    /// `String`.
    String,
    /// `Enumeration name`.
    Enumeration(String),
    /// `Binary` (FMI 3.0 Binary variables).
    Binary,
    /// No type element: the FMU variable's type applies.
    Unknown,
}

impl ConnectorType {
    /// The type's name in SSP.
    pub fn name(&self) -> &'static str {
        match self {
            ConnectorType::Real { width: None, .. } => "Real",
            ConnectorType::Integer(None) => "Integer",
            ConnectorType::Real { width: Some(w), .. } | ConnectorType::Integer(Some(w)) => {
                w.name()
            }
            ConnectorType::Boolean => "Boolean",
            ConnectorType::String => "String",
            ConnectorType::Enumeration(_) => "Enumeration",
            ConnectorType::Binary => "Binary",
            ConnectorType::Unknown => "untyped",
        }
    }

    /// The coupling class of the type (`None` when untyped).
    pub fn class(&self) -> Option<VarType> {
        Some(match self {
            ConnectorType::Real { .. } => VarType::Real,
            ConnectorType::Integer(_) | ConnectorType::Enumeration(_) => VarType::Integer,
            ConnectorType::Boolean => VarType::Boolean,
            ConnectorType::String => VarType::String,
            ConnectorType::Binary => VarType::Binary,
            ConnectorType::Unknown => return None,
        })
    }

    /// The unit of a Real type.
    pub fn unit(&self) -> Option<&str> {
        match self {
            ConnectorType::Real { unit, .. } => unit.as_deref(),
            _ => None,
        }
    }

    /// Whether an FMU variable of type `data_type` has this type: the same class, and the
    /// same width where the element states one.
    pub fn matches(&self, data_type: DataType) -> bool {
        match self {
            ConnectorType::Real { width: Some(w), .. } | ConnectorType::Integer(Some(w)) => {
                *w == data_type
            }
            other => other.class().is_none_or(|c| c == data_type.var_type()),
        }
    }
}

/// The FMI 3.0 data type an SSP 2.0 type element names (`Float64` … `UInt64`), for the
/// elements that state a width.
pub(crate) fn width(name: &str) -> Option<DataType> {
    Some(match name {
        "Float64" => DataType::Float64,
        "Float32" => DataType::Float32,
        "Int8" => DataType::Int8,
        "UInt8" => DataType::UInt8,
        "Int16" => DataType::Int16,
        "UInt16" => DataType::UInt16,
        "Int32" => DataType::Int32,
        "UInt32" => DataType::UInt32,
        "Int64" => DataType::Int64,
        "UInt64" => DataType::UInt64,
        _ => return None,
    })
}

/// Reads `node` as a type element; `None` when it is not one.
///
/// A `unit=""` (written by tools for "no unit") is read as no unit, with a warning.
///
/// # Errors
/// A `Clock` type, refused: mastersim has no clock activation (see `docs/fmi3.md`); an
/// `Enumeration` without `name`.
pub(crate) fn read_type(doc: &Doc, node: &Node) -> Result<Option<ConnectorType>> {
    let local = node.local_name();
    let real = |w: Option<DataType>| -> ConnectorType {
        let unit = match node.get("unit") {
            Some(u) if u.trim().is_empty() => {
                log::warn!(
                    "{}:{}: {local}: unit=\"{u}\" names no unit; read as a {local} without a unit",
                    doc.path.display(),
                    node.line,
                );
                None
            }
            other => other.map(str::to_owned),
        };
        ConnectorType::Real { unit, width: w }
    };
    Ok(Some(match local {
        "Real" => real(None),
        "Float64" | "Float32" => real(width(local)),
        "Integer" => ConnectorType::Integer(None),
        "Boolean" => ConnectorType::Boolean,
        "String" => ConnectorType::String,
        "Enumeration" => ConnectorType::Enumeration(doc.required(node, "name")?.to_owned()),
        "Binary" => ConnectorType::Binary,
        "Clock" => {
            return Err(doc
                .error(
                    node,
                    "type Clock: clocks are not supported (mastersim has no clock activation; \
                     see docs/fmi3.md)",
                )
                .unsupported());
        }
        other => match width(other) {
            Some(w) => ConnectorType::Integer(Some(w)),
            None => return Ok(None),
        },
    }))
}

/// The size of one array dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Extent {
    /// `size`: a fixed number of elements.
    Size(u64),
    /// `sizeConnector`: the value of another connector (a structural parameter or constant).
    Connector(String),
    /// Neither: left to the component.
    Open,
}

/// Reads a `Dimension` element.
///
/// # Errors
/// Both `size` and `sizeConnector`, or a `size` that is not a whole number.
pub(crate) fn read_dimension(doc: &Doc, node: &Node) -> Result<Extent> {
    match (node.get("size"), node.get("sizeConnector")) {
        (Some(_), Some(_)) => Err(doc.error(
            node,
            "both 'size' and 'sizeConnector'; expected at most one of them",
        )),
        (Some(size), None) => size
            .trim()
            .parse::<u64>()
            .map(Extent::Size)
            .map_err(|_| doc.error(node, format!("size=\"{size}\" is not a whole number"))),
        (None, Some(connector)) => Ok(Extent::Connector(connector.to_owned())),
        (None, None) => Ok(Extent::Open),
    }
}
