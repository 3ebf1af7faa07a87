//! Reading Signal Table JSON files, as [`SignalTableWriter`](crate::SignalTableWriter)
//! writes them.
//!
//! `serde_json` parses the file into its members, in file order, with the numbers of each
//! `values` array straight into a `Vec<f64>` (no JSON tree). Then the independent variable
//! becomes the time axis and aliases take their target's values. Syntax and type errors
//! carry the parser's line and column; problems found after parsing name the member.
//!
//! Spec: Otter, "Signal Tables" (2022) §3.2 (Var, Par, Map), §3.4 (`null` for missing
//! values), §3.5 (Signal Tables on file, `alias`).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::SeriesKind::{Parameter, Variable};
use super::{ResultFile, Series, TextColumn};
use crate::{Error, JsonProblem as P, Result};

/// Reads a Signal Table JSON file (see [`super::read`] for the mapping).
pub(super) fn read(path: &Path) -> Result<ResultFile> {
    let path_buf = || path.to_path_buf();
    let bytes =
        crate::input::read(path, crate::input::TABLE_LIMIT).map_err(|source| Error::Read {
            path: path_buf(),
            source: source.into(),
        })?;
    let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
    let mut parser = serde_json::Deserializer::from_slice(text);
    let table = Seed(Table::default()).deserialize(&mut parser);
    let table = table.and_then(|table| parser.end().map(|()| table));
    let table = table.map_err(|error| {
        let (line, column) = (error.line(), error.column());
        let suffix = format!(" at line {line} column {column}");
        let message = error.to_string();
        let message = message
            .strip_suffix(&suffix)
            .unwrap_or(&message)
            .to_string();
        let path = path_buf();
        Error::JsonSyntax {
            path,
            line,
            column,
            message,
        }
    })?;
    build(table, &bytes).map_err(|(member, problem)| {
        let path = path_buf();
        Error::JsonFormat {
            path,
            member,
            problem,
        }
    })
}

/// Reads a value with `V`, the (empty) value to fill: the JSON text tells its type and `V`
/// rejects the wrong ones, saying what it expected.
struct Seed<V>(V);

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for Seed<V> {
    type Value = V::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        d.deserialize_any(self.0)
    }
}

/// The table object: `_class` and the members other than `attributes`, in file order.
#[derive(Default)]
struct Table<'a> {
    class: Option<String>,
    members: Vec<(Name<'a>, Member<'a>)>,
}

/// A member's name, borrowed from the file when it has no escapes (see [`line_of`]).
#[derive(Deserialize)]
#[serde(transparent)]
struct Name<'a>(#[serde(borrow)] Cow<'a, str>);

/// A `Var`, `Par` or `Map` (whose entries are skipped once its `_class` is known).
#[derive(Default)]
struct Member<'a> {
    class: Option<String>,
    /// The `values` of a `Var` or the `value` of a `Par`; `None` for aliases and `Map`s.
    content: Option<Values<'a>>,
    unit: String,
    independent: bool,
    alias: Option<String>,
}

/// The elements of a `values` array, or the one `value`.
#[derive(Clone, Default)]
struct Values<'a> {
    /// One per element: numbers, Booleans as 1/0, `null`s and strings as NaN.
    numbers: Vec<f64>,
    /// Whether there is a number or Boolean.
    any_number: bool,
    /// The first string, if any.
    first_text: Option<Cow<'a, str>>,
}

/// Reads the table object into the (empty) table.
impl<'de> Visitor<'de> for Table<'de> {
    type Value = Self;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Signal Table (a JSON object)")
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Self, A::Error> {
        while let Some(name) = map.next_key::<Name>()? {
            match name.0.as_ref() {
                "_class" => self.class = self.class.or(Some(map.next_value()?)),
                "attributes" => _ = map.next_value::<IgnoredAny>()?,
                _ => {
                    let member = map.next_value_seed(Seed(Member::default()))?;
                    self.members.push((name, member));
                }
            }
        }
        Ok(self)
    }
}

/// Reads a member object into the (empty) member.
impl<'de> Visitor<'de> for Member<'de> {
    type Value = Self;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object with \"_class\" \"Var\", \"Par\" or \"Map\"")
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Self, A::Error> {
        let (mut values, mut value) = (None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                _ if self.class.as_deref() == Some("Map") => _ = map.next_value::<IgnoredAny>()?,
                "_class" => self.class = Some(map.next_value()?),
                "values" => values = Some(map.next_value_seed(Seed(Values::default()))?),
                "value" => map.next_value_seed(Seed(value.insert(Values::default())))?,
                "unit" => self.unit = map.next_value()?,
                "independent" => self.independent = map.next_value()?,
                "alias" => self.alias = Some(map.next_value()?),
                _ => _ = map.next_value::<IgnoredAny>()?,
            }
        }
        self.content = match self.class.as_deref() {
            Some("Var") => values,
            Some("Par") => value,
            _ => None,
        };
        Ok(self)
    }
}

/// Reads a `values` array into the (empty) values.
impl<'de> Visitor<'de> for Values<'de> {
    type Value = Self;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of numbers, Booleans, nulls or strings")
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Self, A::Error> {
        while seq.next_element_seed(Seed(&mut self))?.is_some() {}
        Ok(self)
    }
}

/// Adds one element of a `values` array, or the `value` of a `Par`, to the values.
impl<'de> Visitor<'de> for &mut Values<'de> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number, Boolean, null or string")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.visit_f64(f64::from(u8::from(v)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.visit_f64(v as f64)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.visit_f64(v as f64)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        self.any_number = true;
        self.numbers.push(v);
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.numbers.push(f64::NAN);
        Ok(())
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<(), E> {
        self.first_text.get_or_insert(Cow::Borrowed(v));
        self.visit_unit()
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.first_text.get_or_insert_with(|| v.to_string().into());
        self.visit_unit()
    }
}

/// Checks the parsed table and turns it into a [`ResultFile`]; `bytes` is the file, for the
/// lines of text columns. Errors name the member concerned, if any.
fn build(table: Table, bytes: &[u8]) -> Result<ResultFile, (Option<String>, P)> {
    if table.class.as_deref() != Some("SignalTable") {
        return Err((None, P::NotSignalTable { class: table.class }));
    }
    let mut members = table.members;
    let names: Vec<String> = members.iter().map(|(name, _)| name.0.to_string()).collect();
    let at = |i: usize| Some(names[i].clone());
    let mut index = HashMap::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        if index.insert(name.as_str(), i).is_some() {
            return Err((at(i), P::DuplicateMember));
        }
        let class = members[i].1.class.clone();
        if !matches!(class.as_deref(), Some("Var" | "Par" | "Map")) {
            return Err((at(i), P::Class { class }));
        }
    }

    let is_time = |m: &Member| m.independent && m.class.as_deref() == Some("Var");
    let mut independent = (0..names.len()).filter(|&i| is_time(&members[i].1));
    let time = independent.next().ok_or((None, P::NoIndependent))?;
    if let Some(second) = independent.next() {
        let first = names[time].clone();
        return Err((at(second), P::TwoIndependent { first }));
    }
    let (class, field) = ("Var", "values");
    let time_points = match &members[time].1.content {
        None => return Err((at(time), P::NoValues { class, field })),
        Some(v) if v.first_text.is_some() && !v.any_number => return Err((at(time), P::TextTime)),
        Some(v) => v.numbers.len(), // Mixed values are reported below.
    };

    // Checks the content of every Var and Par, and gives each alias a copy of the content
    // at the end of its chain of aliases.
    for i in 0..names.len() {
        let (class, field) = match members[i].1.class.as_deref() {
            Some("Var") => ("Var", "values"),
            Some("Par") => ("Par", "value"),
            _ => continue, // A `Map`.
        };
        if let Some(content) = &members[i].1.content {
            if content.any_number && content.first_text.is_some() {
                return Err((at(i), P::MixedValues));
            }
            let (found, expected, independent) = (content.numbers.len(), time_points, &names[time]);
            if class == "Var" && found != expected {
                let independent = independent.clone();
                let problem = P::ValueCount {
                    found,
                    independent,
                    expected,
                };
                return Err((at(i), problem));
            }
            continue;
        }
        let mut chain = vec![i];
        let content = loop {
            let last = chain[chain.len() - 1];
            let target = match (&members[last].1.content, &members[last].1.alias) {
                (Some(content), _) => break content.clone(),
                (None, Some(target)) => target,
                (None, None) => return Err((at(last), P::NoValues { class, field })),
            };
            let next = index.get(target.as_str()).copied();
            let Some(next) = next.filter(|&n| members[n].1.class.as_deref() == Some(class)) else {
                let target = target.clone();
                return Err((at(last), P::AliasTarget { target, class }));
            };
            if let Some(start) = chain.iter().position(|&c| c == next) {
                chain.push(next);
                let cycle = chain[start..].iter().map(|&c| names[c].clone()).collect();
                return Err((at(i), P::AliasCycle { cycle, class }));
            }
            chain.push(next);
        };
        members[i].1.content = Some(content);
    }

    let time_values = Arc::new(members[time].1.content.take().unwrap_or_default().numbers);
    let parameter_time = Arc::new(match time_values.as_slice() {
        [] => Vec::new(),
        [t] => vec![*t],
        [first, .., last] => vec![*first, *last],
    });
    let mut file = ResultFile {
        time_unit: match members[time].1.unit.as_str() {
            "" => "s".to_string(),
            unit => unit.to_string(),
        },
        series: Vec::new(),
        text_columns: Vec::new(),
    };
    for (name, (Name(key), m)) in names.into_iter().zip(members) {
        // Skips `Map`s and the independent variable, whose content was taken.
        let Some(content) = m.content else { continue };
        if let Some(text) = content.first_text {
            let line = line_of(bytes, &text).or_else(|| line_of(bytes, &key));
            let (line, text) = (line.unwrap_or(1), text.into_owned());
            file.text_columns.push(TextColumn { name, line, text });
            continue;
        }
        let (time, values, kind) = if m.class.as_deref() == Some("Par") {
            let value = content.numbers.first().copied().unwrap_or(f64::NAN);
            let values = vec![value; parameter_time.len()];
            (Arc::clone(&parameter_time), values, Parameter)
        } else {
            (Arc::clone(&time_values), content.numbers, Variable)
        };
        let unit = m.unit;
        file.series.push(Series {
            name,
            unit,
            time,
            values,
            kind,
        });
    }
    Ok(file)
}

/// The 1-based line of `text` in `bytes` if it lies in them: a string the parser borrowed
/// from the file because it has no escapes, not a copy.
fn line_of(bytes: &[u8], text: &str) -> Option<usize> {
    let offset = (text.as_ptr() as usize).checked_sub(bytes.as_ptr() as usize)?;
    let before = bytes.get(..offset).filter(|_| offset < bytes.len())?;
    Some(1 + before.iter().filter(|&&b| b == b'\n').count())
}
