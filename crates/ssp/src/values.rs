//! Parameter values (`.ssv`), parameter mappings (`.ssm`), and the common elements they share
//! with the SSD: units, enumerations and transformations.
//!
//! Spec: SSP 1.0 §6 (System Structure Parameter Values), §7 (System Structure Parameter
//! Mapping), §4 (common elements: `Units`, `Enumerations`, `LinearTransformation`,
//! `BooleanMappingTransformation`, `IntegerMappingTransformation`,
//! `EnumerationMappingTransformation`), §5.3.3 (`ParameterBindings`).

use std::path::{Path, PathBuf};

use fmi::xml_tree::Node;

use crate::error::{Result, SspError};
use crate::scope::Scope;
use crate::xml::Doc;

/// A unit: `value_SI = factor · value + offset`, with the exponents of the SI base units.
///
/// Spec: SSP 1.0 §4.4 (`ssc:Unit`, `ssc:BaseUnit`), the same model as FMI 2.0 §2.2.2.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Unit {
    /// `name`.
    pub name: String,
    /// Exponents of kg, m, s, A, K, mol, cd, rad.
    pub exponents: [i32; 8],
    /// `factor` (default 1).
    pub factor: f64,
    /// `offset` (default 0).
    pub offset: f64,
}

/// An enumeration: item names with their values.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Enumeration {
    /// `name`.
    pub name: String,
    /// `(name, value)` of each item.
    pub items: Vec<(String, i64)>,
}

/// A transformation on a connection or a mapping entry.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Transformation {
    /// `LinearTransformation`: `factor · x + offset`.
    Linear {
        /// `factor` (default 1).
        factor: f64,
        /// `offset` (default 0).
        offset: f64,
    },
    /// `BooleanMappingTransformation`: source value → target value.
    Boolean(Vec<(bool, bool)>),
    /// `IntegerMappingTransformation`: source value → target value.
    Integer(Vec<(i64, i64)>),
    /// `EnumerationMappingTransformation`: source item name → target item name.
    Enumeration(Vec<(String, String)>),
}

impl Transformation {
    /// The element name in SSP.
    pub fn name(&self) -> &'static str {
        match self {
            Transformation::Linear { .. } => "LinearTransformation",
            Transformation::Boolean(_) => "BooleanMappingTransformation",
            Transformation::Integer(_) => "IntegerMappingTransformation",
            Transformation::Enumeration(_) => "EnumerationMappingTransformation",
        }
    }
}

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
    /// `prefix` (default empty).
    pub prefix: String,
    /// The parameter values.
    pub values: Source<ParameterSet>,
    /// The parameter mapping, if any.
    pub mapping: Option<Source<Mapping>>,
}

/// A parameter value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// `ssv:Real value`.
    Real(f64),
    /// `ssv:Integer value`.
    Integer(i64),
    /// `ssv:Boolean value`.
    Boolean(bool),
    /// `ssv:String value`.
    String(String),
    /// `ssv:Enumeration value`: an item name.
    Enumeration(String),
}

/// One `ssv:Parameter`.
#[derive(Debug, Clone)]
pub(crate) struct Parameter {
    /// `name`.
    pub name: String,
    /// Its value.
    pub value: Value,
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
}

/// One mapping entry (`ssm:MappingEntry`).
#[derive(Debug, Clone)]
pub(crate) struct MappingEntry {
    /// `source`: the parameter name in the parameter set.
    pub source: String,
    /// `target`: the name it binds to.
    pub target: String,
    /// Its transformation, if any.
    pub transformation: Option<Transformation>,
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

/// Reads a `Units` element.
pub(crate) fn read_units(doc: &Doc, node: &Node) -> Result<Vec<Unit>> {
    let mut units = Vec::new();
    for u in doc.all(node, "Unit") {
        let name = doc.required(u, "name")?.to_owned();
        let base = doc
            .first(u, "BaseUnit")
            .ok_or_else(|| doc.error(u, "the element 'BaseUnit' is missing"))?;
        let mut exponents = [0i32; 8];
        for (i, key) in ["kg", "m", "s", "A", "K", "mol", "cd", "rad"]
            .iter()
            .enumerate()
        {
            exponents[i] = match doc.integer(base, key)? {
                Some(e) => i32::try_from(e)
                    .map_err(|_| doc.error(base, format!("{key}={e} is out of range")))?,
                None => 0,
            };
        }
        let factor = doc.number(base, "factor")?.unwrap_or(1.0);
        if factor == 0.0 {
            return Err(doc.error(base, "factor=0: a unit needs a non-zero factor"));
        }
        units.push(Unit {
            name,
            exponents,
            factor,
            offset: doc.number(base, "offset")?.unwrap_or(0.0),
        });
    }
    Ok(units)
}

/// Reads an `Enumerations` element.
pub(crate) fn read_enumerations(doc: &Doc, node: &Node) -> Result<Vec<Enumeration>> {
    let mut enumerations = Vec::new();
    for e in doc.all(node, "Enumeration") {
        let mut items: Vec<(String, i64)> = Vec::new();
        for item in doc.all(e, "Item") {
            let name = doc.required(item, "name")?.to_owned();
            let value = doc
                .integer(item, "value")?
                .ok_or_else(|| doc.error(item, "the attribute 'value' is missing"))?;
            if items.iter().any(|(n, _)| *n == name) {
                return Err(doc.error(item, format!("a second item named '{name}'")));
            }
            items.push((name, value));
        }
        enumerations.push(Enumeration {
            name: doc.required(e, "name")?.to_owned(),
            items,
        });
    }
    Ok(enumerations)
}

/// Reads a transformation element.
pub(crate) fn read_transformation(doc: &Doc, node: &Node) -> Result<Transformation> {
    let entries: Vec<&Node> = doc.all(node, "MapEntry").collect();
    Ok(match node.local_name() {
        "LinearTransformation" => Transformation::Linear {
            factor: doc.number(node, "factor")?.unwrap_or(1.0),
            offset: doc.number(node, "offset")?.unwrap_or(0.0),
        },
        "BooleanMappingTransformation" => Transformation::Boolean(
            entries
                .iter()
                .map(|e| {
                    let get = |k| {
                        doc.boolean(e, k)?
                            .ok_or_else(|| doc.error(e, format!("the attribute '{k}' is missing")))
                    };
                    Ok((get("source")?, get("target")?))
                })
                .collect::<Result<_>>()?,
        ),
        "IntegerMappingTransformation" => Transformation::Integer(
            entries
                .iter()
                .map(|e| {
                    let get = |k| {
                        doc.integer(e, k)?
                            .ok_or_else(|| doc.error(e, format!("the attribute '{k}' is missing")))
                    };
                    Ok((get("source")?, get("target")?))
                })
                .collect::<Result<_>>()?,
        ),
        "EnumerationMappingTransformation" => Transformation::Enumeration(
            entries
                .iter()
                .map(|e| {
                    Ok((
                        doc.required(e, "source")?.to_owned(),
                        doc.required(e, "target")?.to_owned(),
                    ))
                })
                .collect::<Result<_>>()?,
        ),
        other => {
            return Err(doc.error(
                node,
                format!(
                    "unexpected element '{other}'; expected LinearTransformation or a \
                     Boolean, Integer or Enumeration MappingTransformation"
                ),
            ));
        }
    })
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
pub(crate) fn read_parameter_set(doc: &Doc, node: &Node) -> Result<ParameterSet> {
    let mut set = ParameterSet {
        name: node.get("name").unwrap_or_default().to_owned(),
        file: doc.path.clone(),
        parameters: Vec::new(),
        units: Vec::new(),
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

fn read_parameter(doc: &Doc, node: &Node) -> Result<Parameter> {
    let name = doc.required(node, "name")?.to_owned();
    let typed = doc
        .children(node)
        .find(|c| !matches!(c.local_name(), "Annotations" | "Description"))
        .ok_or_else(|| {
            doc.error(
                node,
                "the parameter has no value element (Real, Integer, …)",
            )
        })?;
    let value = match typed.local_name() {
        "Real" => Value::Real(
            doc.number(typed, "value")?
                .ok_or_else(|| doc.error(typed, "the attribute 'value' is missing"))?,
        ),
        "Integer" => Value::Integer(
            doc.integer(typed, "value")?
                .ok_or_else(|| doc.error(typed, "the attribute 'value' is missing"))?,
        ),
        "Boolean" => Value::Boolean(
            doc.boolean(typed, "value")?
                .ok_or_else(|| doc.error(typed, "the attribute 'value' is missing"))?,
        ),
        "String" => Value::String(doc.required(typed, "value")?.to_owned()),
        "Enumeration" => Value::Enumeration(doc.required(typed, "value")?.to_owned()),
        "Binary" => {
            return Err(doc
                .error(typed, "Binary parameter values are not supported")
                .unsupported());
        }
        other => {
            return Err(doc.error(
                typed,
                format!("unexpected element '{other}'; expected Real, Integer, Boolean, String or Enumeration"),
            ));
        }
    };
    Ok(Parameter {
        name,
        unit: typed.owned("unit"),
        value,
        line: typed.line,
    })
}

/// Reads an `ssm:ParameterMapping` element.
pub(crate) fn read_mapping(doc: &Doc, node: &Node) -> Result<Mapping> {
    let mut entries = Vec::new();
    for e in doc.children(node) {
        match e.local_name() {
            "MappingEntry" => {
                let mut transformation = None;
                for t in doc.children(e) {
                    if !matches!(t.local_name(), "Annotations" | "Description") {
                        transformation = Some(read_transformation(doc, t)?);
                    }
                }
                entries.push(MappingEntry {
                    source: doc.required(e, "source")?.to_owned(),
                    target: doc.required(e, "target")?.to_owned(),
                    transformation,
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
    read_parameter_set(&doc, root)
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
