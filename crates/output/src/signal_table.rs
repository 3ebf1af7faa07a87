//! Signal Table result files: one JSON object holding every signal of a run.
//!
//! A Signal Table (Otter 2022) is a dictionary of signals keyed by name. On file it is a
//! JSON object whose members are, in this order:
//!
//! - `"_class": "SignalTable"`;
//! - `"time"`: the independent variable, `{"_class": "Var", "values": [...], "unit": "s",
//!   "independent": true}`;
//! - one `Var` per result signal, with its `values` (Booleans as `true`/`false`, Integers as
//!   integers, Reals as the shortest decimal text that reads back to the same `f64`, Strings
//!   as strings; NaN and ±∞ as `null`, the JSON missing value), `unit`, `variability` and
//!   `info` (the description); empty `unit` and `info` are left out;
//! - one `Par` per parameter: `{"_class": "Par", "value": ..., "unit": ..., "info": ...}`;
//! - one member per alias: `{"_class": "Var", "alias": "<stored signal>", ...}` with the
//!   alias's own `unit` and `info` but no values (`Par` for an alias of a parameter). Signal
//!   Tables have no negated aliases, so a negated alias is written as a full `Var` (or `Par`)
//!   with negated values (logical not for Booleans);
//! - `"attributes"`: a `Map` of caller-provided metadata (for instance `experiment` and
//!   `tool` maps, Appendix A).
//!
//! [`SignalTableWriter`] collects the rows in typed column vectors (1 byte per Boolean,
//! 4 per Integer, 8 per Real, one shared pointer per String value, where a String equal to
//! the previous row's shares its text) and streams the JSON text to a buffered file at the
//! end, without building a JSON tree.
//!
//! Spec: Otter, "Signal Tables: An Extensible Exchange Format for Simulation Data" (2022)
//! §3.2 (Var, Par, Map), §3.4 (missing values), §3.5 (Signal Tables on file), Appendix A.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize as _;

pub use crate::signal_type::SignalType;
use crate::{Error, Result};

mod json;
#[cfg(test)]
mod tests;

/// Member names of the table object that signals cannot use.
const RESERVED: [&str; 3] = ["_class", "time", "attributes"];

/// How a signal varies in time, written as its `variability` attribute.
///
/// Spec: Otter, "Signal Tables" (2022) Appendix A (`variability` of a Var).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Variability {
    /// Changes continuously (`"continuous"`, the default).
    #[default]
    Continuous,
    /// Changes only at events (`"discrete"`).
    Discrete,
    /// Defined only at clock ticks (`"clocked"`).
    Clocked,
    /// A clock (`"clock"`).
    Clock,
    /// A parameter changed during the simulation (`"tunable"`).
    Tunable,
}

impl Variability {
    /// The attribute value: `continuous`, `discrete`, `clocked`, `clock` or `tunable`.
    ///
    /// Spec: Otter, "Signal Tables" (2022) Appendix A.
    pub fn as_str(self) -> &'static str {
        match self {
            Variability::Continuous => "continuous",
            Variability::Discrete => "discrete",
            Variability::Clocked => "clocked",
            Variability::Clock => "clock",
            Variability::Tunable => "tunable",
        }
    }
}

/// A time-varying result signal (a `Var` with values).
///
/// Units: `unit` is written verbatim (left out when empty).
///
/// Spec: Otter, "Signal Tables" (2022) §3.2 and Appendix A (Var attributes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSignal {
    /// Unique name (the member key), MasterSim uses `<slave>.<variable>`.
    pub name: String,
    /// Value type; selects which slice of [`SignalTableWriter::push_row`] feeds it.
    pub ty: SignalType,
    /// Unit as declared in the modelDescription, may be empty.
    pub unit: String,
    /// Description (`info`), may be empty.
    pub info: String,
    /// `variability` attribute.
    pub variability: Variability,
}

impl TableSignal {
    /// A continuous signal without description.
    ///
    /// Spec: Otter, "Signal Tables" (2022) Appendix A.
    pub fn new(name: impl Into<String>, ty: SignalType, unit: impl Into<String>) -> Self {
        TableSignal {
            name: name.into(),
            ty,
            unit: unit.into(),
            info: String::new(),
            variability: Variability::Continuous,
        }
    }
}

/// The value of a parameter.
///
/// Spec: Otter, "Signal Tables" (2022) §3.2 (Par `value` of any type).
#[derive(Debug, Clone, PartialEq)]
pub enum ParameterValue {
    /// A Boolean parameter.
    Boolean(bool),
    /// An Integer parameter (every width up to 128 bits, written exactly).
    Integer(i128),
    /// A Real parameter (`null` on file when not finite).
    Real(f64),
    /// A String parameter.
    String(String),
}

/// A parameter or constant (a `Par`), written once.
///
/// Units: `value` in `unit` (written verbatim, left out when empty).
///
/// Spec: Otter, "Signal Tables" (2022) §3.2 and Appendix A (Par attributes).
#[derive(Debug, Clone, PartialEq)]
pub struct TableParameter {
    /// Unique name (the member key).
    pub name: String,
    /// Unit, may be empty.
    pub unit: String,
    /// Description (`info`), may be empty.
    pub info: String,
    /// The value.
    pub value: ParameterValue,
}

/// Another name of a stored signal or parameter (an FMU alias variable).
///
/// Shapes: `of` indexes [`SignalLayout::signals`], or [`SignalLayout::parameters`] when
/// `parameter` is true.
///
/// Spec: Otter, "Signal Tables" (2022) §3.5 (`alias` key; no negated aliases on file).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TableAlias {
    /// Unique name (the member key).
    pub name: String,
    /// Unit, may be empty.
    pub unit: String,
    /// Description (`info`), may be empty.
    pub info: String,
    /// Index of the aliased signal (or parameter).
    pub of: usize,
    /// The alias holds the negated values (written out in full).
    pub negated: bool,
    /// `of` indexes the parameters rather than the signals.
    pub parameter: bool,
}

/// Everything a Signal Table file holds besides the rows: its signals, parameters and aliases.
///
/// Members are written in the order time, `signals`, `parameters`, `aliases`.
///
/// Units: `time_unit` is the unit of the times passed to
/// [`SignalTableWriter::push_row`] (default `s`).
///
/// Spec: Otter, "Signal Tables" (2022) §3.5.
#[derive(Debug, Clone, PartialEq)]
pub struct SignalLayout {
    /// Unit of the independent variable `time`.
    pub time_unit: String,
    /// Result signals, in member order; each type's signals take their values from the
    /// matching slice of `push_row`, in this order.
    pub signals: Vec<TableSignal>,
    /// Parameters and constants.
    pub parameters: Vec<TableParameter>,
    /// Aliases of signals and parameters.
    pub aliases: Vec<TableAlias>,
}

impl Default for SignalLayout {
    fn default() -> Self {
        SignalLayout {
            time_unit: "s".to_string(),
            signals: Vec::new(),
            parameters: Vec::new(),
            aliases: Vec::new(),
        }
    }
}

/// A value of the `attributes` map.
///
/// Spec: Otter, "Signal Tables" (2022) §3.2 (Map) and Appendix A (table attributes).
#[derive(Debug, Clone, PartialEq)]
pub enum AttributeValue {
    /// JSON `true`/`false`.
    Boolean(bool),
    /// JSON integer.
    Integer(i64),
    /// JSON number (`null` when not finite).
    Real(f64),
    /// JSON string.
    String(String),
    /// A nested `Map` object.
    Map(AttributeMap),
}

impl From<bool> for AttributeValue {
    fn from(value: bool) -> Self {
        AttributeValue::Boolean(value)
    }
}

impl From<i32> for AttributeValue {
    fn from(value: i32) -> Self {
        AttributeValue::Integer(value.into())
    }
}

impl From<i64> for AttributeValue {
    fn from(value: i64) -> Self {
        AttributeValue::Integer(value)
    }
}

impl From<f64> for AttributeValue {
    fn from(value: f64) -> Self {
        AttributeValue::Real(value)
    }
}

impl From<&str> for AttributeValue {
    fn from(value: &str) -> Self {
        AttributeValue::String(value.to_string())
    }
}

impl From<String> for AttributeValue {
    fn from(value: String) -> Self {
        AttributeValue::String(value)
    }
}

impl From<AttributeMap> for AttributeValue {
    fn from(value: AttributeMap) -> Self {
        AttributeValue::Map(value)
    }
}

/// Ordered key/value pairs written as a `Map` object (`{"_class": "Map", ...}`).
///
/// Keys are unique: setting an existing key replaces its value in place. A key `_class`
/// is not written (the object's own `_class` is).
///
/// Spec: Otter, "Signal Tables" (2022) §3.2 (Map) and Appendix A (`experiment`, `tool`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AttributeMap {
    entries: Vec<(String, AttributeValue)>,
}

impl AttributeMap {
    /// An empty map.
    ///
    /// Spec: Otter, "Signal Tables" (2022) §3.2.
    pub fn new() -> Self {
        AttributeMap::default()
    }

    /// Sets `key` to `value` (replacing an earlier value) and returns the map, for chaining.
    ///
    /// Spec: Otter, "Signal Tables" (2022) §3.2.
    pub fn with(mut self, key: impl Into<String>, value: impl Into<AttributeValue>) -> Self {
        self.insert(key, value);
        self
    }

    /// Sets `key` to `value`; an existing key keeps its position.
    ///
    /// Spec: Otter, "Signal Tables" (2022) §3.2.
    pub fn insert(&mut self, key: impl Into<String>, value: impl Into<AttributeValue>) {
        let (key, value) = (key.into(), value.into());
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => self.entries.push((key, value)),
        }
    }

    /// The value of `key`, if set.
    ///
    /// Spec: Otter, "Signal Tables" (2022) §3.2.
    pub fn get(&self, key: &str) -> Option<&AttributeValue> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// All entries in insertion order.
    ///
    /// Spec: Otter, "Signal Tables" (2022) §3.2.
    pub fn entries(&self) -> &[(String, AttributeValue)] {
        &self.entries
    }
}

/// Writer of a Signal Table JSON file: collects rows, writes the file in [`finish`](Self::finish).
///
/// Memory per row: 8 bytes for the time, plus 1 per Boolean, 16 per Integer, 8 per Real and
/// 16 per String signal (a shared pointer; the text is stored once per change of value).
///
/// Spec: Otter, "Signal Tables" (2022) §3.5.
#[derive(Debug)]
pub struct SignalTableWriter {
    path: PathBuf,
    out: BufWriter<File>,
    data: TableData,
}

/// The layout and the rows collected so far.
#[derive(Debug)]
struct TableData {
    layout: SignalLayout,
    /// Position of each signal among the signals of its type.
    slot: Vec<usize>,
    /// Number of signals per type, indexed by [`SignalType::index`].
    counts: [usize; 4],
    time: Vec<f64>,
    booleans: Vec<bool>,
    integers: Vec<i128>,
    reals: Vec<f64>,
    strings: Vec<Arc<str>>,
}

impl SignalTableWriter {
    /// Checks `layout` and creates (truncates) the file at `path`; nothing is written yet.
    ///
    /// # Errors
    /// Checked before the file is created: [`Error::DuplicateName`] if two members would
    /// have the same key (or a signal is called `time`, `attributes` or `_class`),
    /// [`Error::AliasTarget`] if an alias refers to a missing signal or parameter,
    /// [`Error::NegatedStringAlias`] for a negated alias of a String. Then
    /// [`Error::Create`] if the file cannot be created.
    ///
    /// Spec: Otter, "Signal Tables" (2022) §3.5.
    pub fn create(path: impl AsRef<Path>, layout: &SignalLayout) -> Result<Self> {
        let path = path.as_ref();
        check_layout(path, layout)?;
        let mut counts = [0; 4];
        let slot = layout
            .signals
            .iter()
            .map(|s| {
                let count = &mut counts[s.ty.index()];
                *count += 1;
                *count - 1
            })
            .collect();
        let file = File::create(path).map_err(|source| Error::Create {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(SignalTableWriter {
            path: path.to_path_buf(),
            out: BufWriter::with_capacity(256 * 1024, file),
            data: TableData {
                layout: layout.clone(),
                slot,
                counts,
                time: Vec::new(),
                booleans: Vec::new(),
                integers: Vec::new(),
                reals: Vec::new(),
                strings: Vec::new(),
            },
        })
    }

    /// Appends one row: the time and the values of every signal, by type.
    ///
    /// Units: `time` in the layout's `time_unit`; values in their signals' units.
    /// Shapes: each slice holds one value per signal of its type, in layout order
    /// (`reals.len()` equals the number of Real signals, and so on).
    ///
    /// # Errors
    /// [`Error::RowLength`] (nothing is stored) if a slice has the wrong length.
    ///
    /// Spec: Otter, "Signal Tables" (2022) §3.2 (`values` per independent variable).
    pub fn push_row<S: AsRef<str>>(
        &mut self,
        time: f64,
        booleans: &[bool],
        integers: &[i128],
        reals: &[f64],
        strings: &[S],
    ) -> Result<()> {
        let found = [booleans.len(), integers.len(), reals.len(), strings.len()];
        let types = [
            SignalType::Boolean,
            SignalType::Integer,
            SignalType::Real,
            SignalType::String,
        ];
        let data = &mut self.data;
        for ((ty, expected), found) in types.into_iter().zip(data.counts).zip(found) {
            if expected != found {
                return Err(Error::RowLength {
                    path: self.path.clone(),
                    ty,
                    expected,
                    found,
                });
            }
        }
        data.time.push(time);
        data.booleans.extend_from_slice(booleans);
        data.integers.extend_from_slice(integers);
        data.reals.extend_from_slice(reals);
        // A String equal to the previous row's shares its text.
        let previous = data.strings.len().checked_sub(strings.len());
        for (j, s) in strings.iter().enumerate() {
            let s = s.as_ref();
            let value = match previous.map(|p| &data.strings[p + j]) {
                Some(last) if **last == *s => Arc::clone(last),
                _ => Arc::from(s),
            };
            data.strings.push(value);
        }
        Ok(())
    }

    /// Number of rows pushed so far.
    ///
    /// Spec: Otter, "Signal Tables" (2022) §3.2.
    pub fn rows(&self) -> usize {
        self.data.time.len()
    }

    /// Path of the file being written.
    ///
    /// Spec: Otter, "Signal Tables" (2022) §3.5.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the whole table, with `attributes` as its `attributes` map, and closes the file.
    ///
    /// # Errors
    /// [`Error::Write`] if writing or flushing fails.
    ///
    /// Spec: Otter, "Signal Tables" (2022) §3.5 and Appendix A (table attributes).
    pub fn finish(mut self, attributes: &AttributeMap) -> Result<()> {
        let table = json::Table {
            w: &self.data,
            attributes,
        };
        let out = &mut self.out;
        table
            .serialize(&mut serde_json::Serializer::new(&mut *out))
            .map_err(std::io::Error::from)
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush())
            .map_err(|source| Error::Write {
                path: self.path.clone(),
                source,
            })
    }
}

/// Checks names and alias targets of `layout`.
fn check_layout(path: &Path, layout: &SignalLayout) -> Result<()> {
    let mut seen: HashSet<&str> = RESERVED.into_iter().collect();
    let names = (layout.signals.iter().map(|s| &s.name))
        .chain(layout.parameters.iter().map(|p| &p.name))
        .chain(layout.aliases.iter().map(|a| &a.name));
    for name in names {
        if !seen.insert(name) {
            return Err(Error::DuplicateName {
                path: path.to_path_buf(),
                name: name.clone(),
            });
        }
    }
    for a in &layout.aliases {
        let (count, is_string) = if a.parameter {
            let target = layout.parameters.get(a.of);
            let is_string = matches!(target.map(|p| &p.value), Some(ParameterValue::String(_)));
            (layout.parameters.len(), is_string)
        } else {
            let target = layout.signals.get(a.of);
            let is_string = target.is_some_and(|s| s.ty == SignalType::String);
            (layout.signals.len(), is_string)
        };
        if a.of >= count {
            return Err(Error::AliasTarget {
                path: path.to_path_buf(),
                alias: a.name.clone(),
                of: a.of,
                parameter: a.parameter,
                count,
            });
        }
        if a.negated && is_string {
            return Err(Error::NegatedStringAlias {
                path: path.to_path_buf(),
                alias: a.name.clone(),
            });
        }
    }
    Ok(())
}
