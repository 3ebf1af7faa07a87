//! Signal dictionaries: named collections of signals that the connectors of signal dictionary
//! references in any system below the dictionary's own give access to. A dictionary is
//! declared in a system's `SignalDictionaries`, inline or as an `.ssb` file.
//!
//! mastersim treats each entry as one signal of the coupled system: the one connection that
//! writes into it drives every connection that reads from it, as if they were one connection
//! each (`build::connections`).
//!
//! Spec: SSP 2.0 §8 (SSB: `SignalDictionary`, `DictionaryEntry`), §5.3.3 (`SignalDictionaries`),
//! §5.5 (`SignalDictionaryReference`); the same in SSP 1.0.

use std::path::{Path, PathBuf};

use fmi::xml_tree::Node;

use crate::common::{self, Enumeration, Unit};
use crate::error::{Result, SspError};
use crate::types::{self, ConnectorType, Extent};
use crate::xml::Doc;

/// A signal dictionary.
#[derive(Debug, Clone)]
pub(crate) struct Dictionary {
    /// `name` of the SSD's `SignalDictionary` element (unique in its system).
    pub name: String,
    /// The file that declares its entries (an `.ssb` file, or the SSD for inline ones).
    pub file: PathBuf,
    /// Line of the `ssb:SignalDictionary` element that lists the entries (in `file`).
    pub line: usize,
    /// Its entries, in document order.
    pub entries: Vec<Entry>,
    /// Units it declares.
    pub units: Vec<Unit>,
    /// Enumerations it declares.
    pub enumerations: Vec<Enumeration>,
}

/// One signal of a dictionary (`DictionaryEntry`).
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// `name`.
    pub name: String,
    /// Its type (required for an entry).
    pub ty: ConnectorType,
    /// Its array dimensions (none for a scalar).
    pub dimensions: Vec<Extent>,
    /// Line of the element.
    pub line: usize,
}

impl Dictionary {
    /// The entry named `name`.
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }
}

/// Reads an `ssb:SignalDictionary` element (the root of an `.ssb` file, or inline) as the
/// dictionary `name`.
///
/// # Errors
/// An entry without a type, a second entry of one name, malformed units, enumerations or
/// dimensions, unexpected elements.
pub(crate) fn read(doc: &Doc, node: &Node, name: &str) -> Result<Dictionary> {
    doc.version(node, false)?;
    let mut dictionary = Dictionary {
        name: name.to_owned(),
        file: doc.path.clone(),
        line: node.line,
        entries: Vec::new(),
        units: Vec::new(),
        enumerations: Vec::new(),
    };
    for child in doc.children(node) {
        match child.local_name() {
            "DictionaryEntry" => {
                let entry = read_entry(doc, child)?;
                if dictionary.entry(&entry.name).is_some() {
                    return Err(doc.error(child, format!("a second entry named '{}'", entry.name)));
                }
                dictionary.entries.push(entry);
            }
            "Units" => dictionary.units.extend(common::read_units(doc, child)?),
            "Enumerations" => dictionary
                .enumerations
                .extend(common::read_enumerations(doc, child)?),
            "Annotations" | "MetaData" | "Signature" => {}
            other => {
                return Err(doc.error(
                    child,
                    format!("unexpected element '{other}' in SignalDictionary"),
                ));
            }
        }
    }
    Ok(dictionary)
}

fn read_entry(doc: &Doc, node: &Node) -> Result<Entry> {
    let name = doc.required(node, "name")?.to_owned();
    let mut ty = None;
    let mut dimensions = Vec::new();
    for child in doc.children(node) {
        if child.local_name() == "Dimension" {
            dimensions.push(types::read_dimension(doc, child)?);
        } else if let Some(t) = types::read_type(doc, child)? {
            if ty.is_some() {
                return Err(doc.error(child, "a second type element; expected one"));
            }
            ty = Some(t);
        } else if !matches!(child.local_name(), "Annotations" | "Description") {
            return Err(doc.error(
                child,
                format!("unexpected element '{}' in DictionaryEntry", child.name),
            ));
        }
    }
    let ty = ty.ok_or_else(|| {
        doc.error(
            node,
            "the entry has no type element (Real, Float64, Int32, Boolean, …)",
        )
    })?;
    if dimensions.iter().any(|d| !matches!(d, Extent::Size(_))) {
        return Err(doc.error(
            node,
            "a Dimension without 'size': the dimensions of a dictionary entry are fixed sizes",
        ));
    }
    Ok(Entry {
        name,
        ty,
        dimensions,
        line: node.line,
    })
}

/// Reads the signal dictionary file `path` (an `.ssb`), named by the dictionary `name` at
/// `line` of `ssd`.
///
/// # Errors
/// A missing file (at the SSD's element), malformed XML, a root other than
/// `SignalDictionary`, and the errors of [`read`].
pub(crate) fn read_ssb(ssd: &Path, line: usize, path: &Path, name: &str) -> Result<Dictionary> {
    if !path.is_file() {
        return Err(SspError::at(
            ssd,
            line,
            format!("SignalDictionary '{name}'"),
            format!(
                "the signal dictionary (.ssb) file '{}' {}",
                path.display(),
                output::input::why_not_a_file(path)
            ),
        ));
    }
    let doc = Doc::read(path)?;
    let root = doc.root("SignalDictionary")?;
    read(&doc, root, name)
}
