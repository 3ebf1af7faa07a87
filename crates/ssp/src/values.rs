//! Parameter values (`.ssv`), parameter mappings (`.ssm`) and the parameter bindings of an SSD
//! that apply them.
//!
//! A parameter value has a type element: SSP 1.0's `Real`, `Integer`, `Boolean`, `String`,
//! `Enumeration`, and SSP 2.0's `Float64`, `Float32`, `Int8` … `UInt64` and `Binary`; with
//! `Dimension` elements it is an array, its values listed in row-major order.
//!
//! Spec: SSP 2.0 §6 (System Structure Parameter Values), §7 (System Structure Parameter
//! Mapping), §5.2.3 (`ParameterBindings`); SSP 1.0 §6, §7, §5.3.3.

use std::path::{Path, PathBuf};

use fmi::DataType;
use fmi::xml_tree::Node;

use crate::common::{Transformation, Unit, read_transformation, read_units};
use crate::error::{Result, SspError};
use crate::scope::Scope;
use crate::types::{self, Extent};
use crate::xml::Doc;

/// Where a binding's values or mapping come from.
#[derive(Debug)]
pub(crate) enum Source<T> {
    /// A file, relative to the directory of the SSD that names it.
    File(String),
    /// Inline in the SSD.
    Inline(T),
}

/// A `ParameterBinding`.
#[derive(Debug)]
pub(crate) struct Binding {
    /// Line of the element in the SSD.
    pub line: usize,
    /// `prefix` (default empty): prepended to every name of the parameter set.
    pub prefix: String,
    /// The parameter values.
    pub values: Source<ParameterSet>,
    /// The parameter mapping, if any.
    pub mapping: Option<Source<Mapping>>,
}

/// One value of a parameter (one element of an array parameter).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// `Real`, `Float64` or `Float32` (a Float32 rounded to single precision).
    Real(f64),
    /// `Integer`, `Int8` … `UInt64`.
    Integer(i128),
    /// `Boolean`.
    Boolean(bool),
    /// `String`.
    String(String),
    /// `Enumeration`: an item name.
    Enumeration(String),
    /// `Binary`: the bytes of its hexadecimal text.
    Binary(Vec<u8>),
}

/// One `ssv:Parameter`.
#[derive(Debug, Clone)]
pub(crate) struct Parameter {
    /// `name`.
    pub name: String,
    /// Its values: one for a scalar, every element in row-major order for an array.
    pub values: Vec<Value>,
    /// The sizes of its `Dimension`s (empty for a scalar).
    pub dimensions: Vec<u64>,
    /// The name of its type element (`Real`, `Float32`, `Int8`, …), for messages.
    pub type_name: String,
    /// `unit` of a Real value.
    pub unit: Option<String>,
    /// Line of the element.
    pub line: usize,
}

/// A parameter set (`ssv:ParameterSet`).
#[derive(Debug, Clone)]
pub(crate) struct ParameterSet {
    /// `name`.
    pub name: String,
    /// The file it is in (the SSD for inline values).
    pub file: PathBuf,
    /// Its parameters, in document order.
    pub parameters: Vec<Parameter>,
    /// Units it declares.
    pub units: Vec<Unit>,
    /// Whether it is inline in an SSD (else an `.ssv` file of its own).
    pub inline: bool,
}

/// One mapping entry (`ssm:MappingEntry`).
#[derive(Debug, Clone)]
pub(crate) struct MappingEntry {
    /// `source`: the parameter name in the parameter set.
    pub source: String,
    /// `target`: the name it binds to.
    pub target: String,
    /// Its transformation, if any (applied after the unit conversion).
    pub transformation: Option<Transformation>,
    /// `suppressUnitConversion` (SSP 2.0).
    pub suppress_unit_conversion: bool,
    /// Line of the element.
    pub line: usize,
}

/// A parameter mapping (`ssm:ParameterMapping`).
#[derive(Debug, Clone)]
pub(crate) struct Mapping {
    /// The file it is in (the SSD for an inline mapping).
    pub file: PathBuf,
    /// Its entries, in document order.
    pub entries: Vec<MappingEntry>,
}

/// Reads a `ParameterBindings` element of the SSD.
pub(crate) fn read_bindings(doc: &Doc, node: &Node) -> Result<Vec<Binding>> {
    let mut bindings = Vec::new();
    for b in doc.children(node) {
        if b.local_name() != "ParameterBinding" {
            return Err(doc.error(
                b,
                format!("unexpected element '{}' in ParameterBindings", b.name),
            ));
        }
        match b.get("type") {
            None | Some("application/x-ssp-parameter-set") => {}
            Some(other) => {
                return Err(doc
                    .error(
                        b,
                        format!("type=\"{other}\": only SSP parameter sets (.ssv) are supported"),
                    )
                    .unsupported());
            }
        }
        if let Some(base) = b.get("sourceBase")
            && base != "SSD"
        {
            return Err(doc
                .error(
                    b,
                    format!(
                        "sourceBase=\"{base}\": only sources relative to the SSD are supported"
                    ),
                )
                .unsupported());
        }
        let inline = doc.first(b, "ParameterValues");
        let values = match (b.get("source"), inline) {
            (Some(_), Some(v)) => {
                return Err(doc.error(v, "both a source and inline ParameterValues; expected one"));
            }
            (Some(source), None) => Source::File(source.to_owned()),
            (None, Some(v)) => {
                let set = doc
                    .first(v, "ParameterSet")
                    .ok_or_else(|| doc.error(v, "the element 'ParameterSet' is missing"))?;
                Source::Inline(read_parameter_set(doc, set)?)
            }
            (None, None) => {
                return Err(doc.error(b, "neither a source nor inline ParameterValues"));
            }
        };
        let mapping = match doc.first(b, "ParameterMapping") {
            None => None,
            Some(m) => Some(match (m.get("source"), doc.first(m, "ParameterMapping")) {
                (Some(source), _) => {
                    match m.get("type") {
                        None | Some("application/x-ssp-parameter-mapping") => {}
                        Some(other) => {
                            return Err(doc
                                .error(m, format!("type=\"{other}\": only SSP parameter mappings (.ssm) are supported"))
                                .unsupported());
                        }
                    }
                    Source::File(source.to_owned())
                }
                (None, Some(inner)) => Source::Inline(read_mapping(doc, inner)?),
                (None, None) => {
                    return Err(doc.error(m, "neither a source nor an inline ParameterMapping"));
                }
            }),
        };
        bindings.push(Binding {
            line: b.line,
            prefix: b.get("prefix").unwrap_or_default().to_owned(),
            values,
            mapping,
        });
    }
    Ok(bindings)
}

/// Reads an `ssv:ParameterSet` element.
///
/// # Errors
/// Unknown elements, malformed parameters ([`read_parameter`]), a version other than 1.x or
/// 2.x.
pub(crate) fn read_parameter_set(doc: &Doc, node: &Node) -> Result<ParameterSet> {
    doc.version(node, false)?;
    let mut set = ParameterSet {
        name: node.get("name").unwrap_or_default().to_owned(),
        file: doc.path.clone(),
        parameters: Vec::new(),
        units: Vec::new(),
        inline: true,
    };
    for child in doc.children(node) {
        match child.local_name() {
            "Parameters" => {
                for p in doc.children(child) {
                    if p.local_name() != "Parameter" {
                        return Err(
                            doc.error(p, format!("unexpected element '{}' in Parameters", p.name))
                        );
                    }
                    set.parameters.push(read_parameter(doc, p)?);
                }
            }
            "Units" => set.units.extend(read_units(doc, child)?),
            "Enumerations" | "Annotations" | "MetaData" | "Signature" => {}
            other => {
                return Err(doc.error(
                    child,
                    format!("unexpected element '{other}' in ParameterSet"),
                ));
            }
        }
    }
    Ok(set)
}

/// Reads one `ssv:Parameter`: its type element, its `Dimension`s and its values.
///
/// # Errors
/// No or two type elements, a value that is not of the element's type (a number out of the
/// range of its width, say), a `Dimension` without `size`, as many values as the dimensions
/// do not give.
fn read_parameter(doc: &Doc, node: &Node) -> Result<Parameter> {
    let name = doc.required(node, "name")?.to_owned();
    let mut typed = None;
    let mut dimensions = Vec::new();
    for c in doc.children(node) {
        match c.local_name() {
            "Annotations" | "Description" => {}
            "Dimension" => match types::read_dimension(doc, c)? {
                Extent::Size(n) => dimensions.push(n),
                _ => {
                    return Err(doc.error(
                        c,
                        "a Dimension of a parameter value needs 'size' (a fixed number)",
                    ));
                }
            },
            _ if typed.is_some() => {
                return Err(doc.error(c, "a second value element; expected one"));
            }
            _ => typed = Some(c),
        }
    }
    let typed = typed.ok_or_else(|| {
        doc.error(
            node,
            "the parameter has no value element (Real, Integer, …)",
        )
    })?;
    let type_name = typed.local_name().to_owned();
    let texts = value_texts(doc, typed)?;
    let values = texts
        .iter()
        .map(|text| parse_value(doc, typed, text))
        .collect::<Result<Vec<Value>>>()?;
    let expected = dimensions
        .iter()
        .try_fold(1u64, |n, d| n.checked_mul(*d))
        .unwrap_or(u64::MAX);
    if values.len() as u64 != expected {
        let what = if dimensions.is_empty() {
            "one value (there is no Dimension)".to_owned()
        } else {
            format!("{expected} (the product of the Dimension sizes)")
        };
        return Err(doc.error(typed, format!("{} values; expected {what}", values.len())));
    }
    Ok(Parameter {
        name,
        unit: typed.owned("unit"),
        type_name,
        values,
        dimensions,
        line: typed.line,
    })
}

/// The value texts of a type element: the `value` attribute (a blank-separated list for
/// numbers and booleans), or for String, Enumeration and Binary the `value` attribute or the
/// `Value` children, one text each.
fn value_texts(doc: &Doc, typed: &Node) -> Result<Vec<String>> {
    let listed = matches!(typed.local_name(), "String" | "Enumeration" | "Binary");
    let children: Vec<String> = doc
        .all(typed, "Value")
        .map(|v| doc.required(v, "value").map(str::to_owned))
        .collect::<Result<_>>()?;
    match (typed.get("value"), children.is_empty()) {
        (Some(_), false) => Err(doc.error(
            typed,
            "both a 'value' attribute and Value elements; expected one of them",
        )),
        (Some(v), true) if listed => Ok(vec![v.to_owned()]),
        (Some(v), true) => Ok(v.split_whitespace().map(str::to_owned).collect()),
        (None, false) if listed => Ok(children),
        _ => Err(doc.error(typed, "the attribute 'value' is missing")),
    }
}

/// One value of the type element `typed`.
fn parse_value(doc: &Doc, typed: &Node, text: &str) -> Result<Value> {
    let local = typed.local_name();
    let wrong = |what: &str| doc.error(typed, format!("value \"{text}\" is not {what}"));
    Ok(match local {
        "Real" | "Float64" | "Float32" => {
            let x = text
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| wrong("a finite number"))?;
            if local == "Float32" {
                let single = x as f32;
                if !single.is_finite() {
                    return Err(wrong("a finite Float32 number"));
                }
                Value::Real(f64::from(single))
            } else {
                Value::Real(x)
            }
        }
        "Boolean" => Value::Boolean(match text.trim() {
            "true" | "1" => true,
            "false" | "0" => false,
            _ => return Err(wrong("a boolean (true, false, 1 or 0)")),
        }),
        "String" => Value::String(text.to_owned()),
        "Enumeration" => Value::Enumeration(text.to_owned()),
        "Binary" => Value::Binary(
            output::hex::parse_hex(text.trim()).ok_or_else(|| wrong("hexadecimal digit pairs"))?,
        ),
        _ => {
            let width = match local {
                "Integer" => DataType::Int32,
                other => types::width(other)
                    .filter(|w| w.integer_range().is_some())
                    .ok_or_else(|| {
                        doc.error(
                            typed,
                            format!(
                                "unexpected element '{other}'; expected Real, Float64, Float32, \
                                 Integer, Int8 … UInt64, Boolean, String, Enumeration or Binary"
                            ),
                        )
                    })?,
            };
            let (min, max) = width.integer_range().unwrap_or((0, 0));
            let value = text
                .trim()
                .parse::<i128>()
                .ok()
                .filter(|v| (min..=max).contains(v))
                .ok_or_else(|| wrong(&format!("an {local} ({min} to {max})")))?;
            Value::Integer(value)
        }
    })
}

/// Reads an `ssm:ParameterMapping` element.
///
/// # Errors
/// Unknown elements, entries without `source` or `target`, malformed transformations, a
/// version other than 1.x or 2.x.
pub(crate) fn read_mapping(doc: &Doc, node: &Node) -> Result<Mapping> {
    doc.version(node, false)?;
    let mut entries = Vec::new();
    for e in doc.children(node) {
        match e.local_name() {
            "MappingEntry" => {
                let mut transformation = None;
                for t in doc.children(e) {
                    if !matches!(t.local_name(), "Annotations" | "Description") {
                        if transformation.is_some() {
                            return Err(
                                doc.error(t, "a second transformation; expected at most one")
                            );
                        }
                        transformation = Some(read_transformation(doc, t)?);
                    }
                }
                entries.push(MappingEntry {
                    source: doc.required(e, "source")?.to_owned(),
                    target: doc.required(e, "target")?.to_owned(),
                    transformation,
                    suppress_unit_conversion: doc
                        .boolean(e, "suppressUnitConversion")?
                        .unwrap_or(false),
                    line: e.line,
                });
            }
            "Annotations" | "MetaData" | "Signature" => {}
            other => {
                return Err(doc.error(
                    e,
                    format!("unexpected element '{other}' in ParameterMapping"),
                ));
            }
        }
    }
    Ok(Mapping {
        file: doc.path.clone(),
        entries,
    })
}

/// The file the `source` attribute of `element` (at `line` of `ssd`) names, relative to
/// `base` (the directory of the SSD that names it): a relative or absolute path, or a `file:`
/// URI; `%20` reads as a blank. It must lie within `scope` ([`Scope`]).
///
/// # Errors
/// For a URI with a scheme other than `file:` (only local files are read), and for a file
/// outside the scope.
pub(crate) fn resolve(
    ssd: &Path,
    line: usize,
    element: &str,
    (base, scope): (&Path, &Scope),
    source: &str,
) -> Result<PathBuf> {
    let path = match source.split_once(':') {
        Some((scheme, rest))
            if scheme.len() > 1 && scheme.chars().all(|c| c.is_ascii_alphabetic()) =>
        {
            if !scheme.eq_ignore_ascii_case("file") {
                return Err(SspError::at(
                    ssd,
                    line,
                    element,
                    format!("source=\"{source}\": only local files are supported, not URIs"),
                )
                .unsupported());
            }
            rest.trim_start_matches("//").to_owned()
        }
        _ => source.to_owned(),
    };
    let path = PathBuf::from(path.replace("%20", " "));
    let path = if path.is_absolute() {
        path
    } else {
        base.join(path)
    };
    scope.check(ssd, line, element, source, &path)?;
    Ok(path)
}

/// Reads the parameter set file `path` (a `.ssv`), named from the SSD's `line`.
pub(crate) fn read_ssv(ssd: &Path, line: usize, path: &Path) -> Result<ParameterSet> {
    let doc = read_referenced(
        ssd,
        line,
        "ParameterBinding",
        path,
        "parameter values (.ssv)",
    )?;
    let root = doc.root("ParameterSet")?;
    let mut set = read_parameter_set(&doc, root)?;
    set.inline = false;
    Ok(set)
}

/// Reads the parameter mapping file `path` (a `.ssm`), named from the SSD's `line`.
pub(crate) fn read_ssm(ssd: &Path, line: usize, path: &Path) -> Result<Mapping> {
    let doc = read_referenced(
        ssd,
        line,
        "ParameterBinding/ParameterMapping",
        path,
        "parameter mapping (.ssm)",
    )?;
    let root = doc.root("ParameterMapping")?;
    read_mapping(&doc, root)
}

/// Reads a file a binding refers to; a missing file is an error at the binding's `element`.
fn read_referenced(ssd: &Path, line: usize, element: &str, path: &Path, what: &str) -> Result<Doc> {
    if !path.is_file() {
        return Err(SspError::at(
            ssd,
            line,
            element,
            format!(
                "the {what} file '{}' {}",
                path.display(),
                output::input::why_not_a_file(path)
            ),
        ));
    }
    Doc::read(path)
}
