//! The common content of every SSP file format: units, enumerations and the transformations
//! of connections and parameter mappings.
//!
//! Spec: SSP 2.0 §4.4 (`Enumerations`, `Units`), §4.5.2 (transformation choice); SSP 1.0 §4.

use fmi::xml_tree::Node;

use crate::error::Result;
use crate::xml::Doc;

/// A unit: `value_SI = factor · value + offset`, with the exponents of the SI base units.
///
/// Spec: SSP 2.0 §4.4.2 (`ssc:Unit`, `ssc:BaseUnit`), the same model as FMI 3.0 §2.4.3 and
/// FMI 2.0 §2.2.2.
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
    /// `IntegerMappingTransformation`: source value → target value (any integer width, up to
    /// UInt64).
    Integer(Vec<(i128, i128)>),
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
                        doc.generic_integer(e, k)?
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
