//! Reading Signal Table JSON files, as [`SignalTableWriter`](crate::SignalTableWriter)
//! writes them.
//!
//! The file is parsed in one pass by `serde_json` into typed members (numbers straight into
//! `Vec<f64>`, no JSON tree), then checked and resolved: the independent variable becomes
//! the time axis, aliases take their target's values. The reader counts the bytes the
//! parser has consumed, so that problems found after parsing (and the first string of a
//! text column) still have a line and a column.
//!
//! Spec: Otter, "Signal Tables" (2022) §3.2 (Var, Par, Map), §3.4 (`null` for missing
//! values), §3.5 (Signal Tables on file, `alias`).

use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::{ResultFile, Series, SeriesKind, TextColumn};
use crate::{Error, JsonProblem, Result};

/// A UTF-8 byte order mark, skipped before parsing.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// Reads a Signal Table JSON file (see [`super::read`] for the mapping).
pub(super) fn read(path: &Path) -> Result<ResultFile> {
    let bytes = std::fs::read(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let skipped = if bytes.starts_with(BOM) { BOM.len() } else { 0 };
    let consumed = Cell::new(0);
    let mut deserializer = serde_json::Deserializer::from_reader(Tracked {
        rest: &bytes[skipped..],
        consumed: &consumed,
    });
    let parsed = TableSeed { pos: &consumed }
        .deserialize(&mut deserializer)
        .and_then(|table| deserializer.end().map(|()| table));
    let text = Text {
        path,
        bytes: &bytes,
        skipped,
    };
    match parsed {
        Ok(table) => text.build(table),
        Err(error) => Err(text.syntax_error(&error, consumed.get())),
    }
}

/// A reader of bytes in memory that counts the bytes handed out, so that the visitors know
/// where the parser is.
struct Tracked<'a> {
    rest: &'a [u8],
    consumed: &'a Cell<usize>,
}

impl Read for Tracked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.rest.read(buf)?;
        self.consumed.set(self.consumed.get() + n);
        Ok(n)
    }
}

/// The values of a `Var` (or the value of a `Par`, as one element).
#[derive(Debug, Clone)]
enum Content {
    /// Numbers, Booleans (1/0) and `null`s (NaN).
    Numbers(Vec<f64>),
    /// Strings (and `null`s).
    Strings {
        /// The first string.
        first: String,
        /// Byte offset just after it.
        offset: usize,
        /// Number of elements.
        count: usize,
    },
    /// Strings and numbers; byte offset just after the first element that conflicts.
    Mixed(usize),
}

impl Content {
    /// Number of elements.
    fn len(&self) -> usize {
        match self {
            Content::Numbers(values) => values.len(),
            Content::Strings { count, .. } => *count,
            Content::Mixed(_) => 0,
        }
    }
}

/// One member of the table object, except `_class` and `attributes`.
#[derive(Debug)]
struct Member {
    name: String,
    /// Byte offset just after its name.
    offset: usize,
    class: Option<String>,
    /// `values`: the content of a `Var`.
    values: Option<Content>,
    /// `value`: the content of a `Par`.
    value: Option<Content>,
    unit: String,
    independent: bool,
    alias: Option<String>,
}

impl Member {
    /// The content of a `Var` (`values`) or a `Par` (`value`); `None` for other classes.
    fn content(&self) -> Option<&Content> {
        match self.class.as_deref() {
            Some("Var") => self.values.as_ref(),
            Some("Par") => self.value.as_ref(),
            _ => None,
        }
    }

    /// The content, to take it (see [`Member::content`]).
    fn content_mut(&mut self) -> &mut Option<Content> {
        match self.class.as_deref() {
            Some("Par") => &mut self.value,
            _ => &mut self.values,
        }
    }
}

/// The table object as parsed.
#[derive(Debug)]
struct Parsed {
    /// The `_class` member and the byte offset just after its name.
    class: Option<(String, usize)>,
    members: Vec<Member>,
}

/// Seed of the table object.
struct TableSeed<'a> {
    pos: &'a Cell<usize>,
}

impl<'de> DeserializeSeed<'de> for TableSeed<'_> {
    type Value = Parsed;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Parsed, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TableSeed<'_> {
    type Value = Parsed;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Signal Table (a JSON object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Parsed, A::Error> {
        let mut parsed = Parsed {
            class: None,
            members: Vec::new(),
        };
        while let Some(name) = map.next_key::<String>()? {
            let offset = self.pos.get();
            match name.as_str() {
                "_class" => {
                    let class = map.next_value_seed(StrField {
                        field: "_class",
                        member: None,
                    })?;
                    parsed.class.get_or_insert((class, offset));
                }
                "attributes" => {
                    map.next_value::<IgnoredAny>()?;
                }
                _ => {
                    let member = map.next_value_seed(MemberSeed {
                        pos: self.pos,
                        name: &name,
                    })?;
                    parsed.members.push(Member { offset, ..member });
                }
            }
        }
        Ok(parsed)
    }
}

/// Seed of one member (a `Var`, `Par` or `Map` object).
struct MemberSeed<'a> {
    pos: &'a Cell<usize>,
    name: &'a str,
}

impl<'de> DeserializeSeed<'de> for MemberSeed<'_> {
    type Value = Member;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Member, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for MemberSeed<'_> {
    type Value = Member;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "an object with \"_class\" \"Var\", \"Par\" or \"Map\" as member '{}'",
            self.name
        )
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Member, A::Error> {
        let mut member = Member {
            name: self.name.to_string(),
            offset: 0,
            class: None,
            values: None,
            value: None,
            unit: String::new(),
            independent: false,
            alias: None,
        };
        let member_name = Some(self.name);
        while let Some(key) = map.next_key::<String>()? {
            let str_field = |field| StrField {
                field,
                member: member_name,
            };
            // The entries of a Map are arbitrary.
            if member.class.as_deref() == Some("Map") {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            match key.as_str() {
                "_class" => member.class = Some(map.next_value_seed(str_field("_class"))?),
                "unit" => member.unit = map.next_value_seed(str_field("unit"))?,
                "alias" => member.alias = Some(map.next_value_seed(str_field("alias"))?),
                "independent" => {
                    member.independent = map.next_value_seed(BoolField {
                        field: "independent",
                        member: self.name,
                    })?;
                }
                "values" => {
                    let values = ValuesSeed {
                        pos: self.pos,
                        member: self.name,
                    };
                    member.values = Some(map.next_value_seed(values)?);
                }
                "value" => {
                    let mut elements = Elements::default();
                    map.next_value_seed(Element {
                        pos: self.pos,
                        member: self.name,
                        field: "value",
                        elements: &mut elements,
                    })?;
                    member.value = Some(elements.finish());
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(member)
    }
}

/// Seed of a string member or field.
struct StrField<'a> {
    field: &'static str,
    /// `None` for a member of the table itself.
    member: Option<&'a str>,
}

impl<'de> DeserializeSeed<'de> for StrField<'_> {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for StrField<'_> {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.member {
            Some(member) => write!(f, "a string as \"{}\" of member '{member}'", self.field),
            None => write!(f, "a string as \"{}\" of the table", self.field),
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_string())
    }
}

/// Seed of a Boolean field.
struct BoolField<'a> {
    field: &'static str,
    member: &'a str,
}

impl<'de> DeserializeSeed<'de> for BoolField<'_> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<bool, D::Error> {
        deserializer.deserialize_bool(self)
    }
}

impl<'de> Visitor<'de> for BoolField<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "true or false as \"{}\" of member '{}'",
            self.field, self.member
        )
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<bool, E> {
        Ok(v)
    }
}

/// Seed of the `values` array of a `Var`.
struct ValuesSeed<'a> {
    pos: &'a Cell<usize>,
    member: &'a str,
}

impl<'de> DeserializeSeed<'de> for ValuesSeed<'_> {
    type Value = Content;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Content, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ValuesSeed<'_> {
    type Value = Content;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "an array as \"values\" of member '{}'", self.member)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content, A::Error> {
        let mut elements = Elements::default();
        if let Some(size) = seq.size_hint() {
            elements.numbers.reserve(size);
        }
        while seq
            .next_element_seed(Element {
                pos: self.pos,
                member: self.member,
                field: "values",
                elements: &mut elements,
            })?
            .is_some()
        {}
        Ok(elements.finish())
    }
}

/// The elements of a `values` array (or a `value`) while parsing.
#[derive(Debug, Default)]
struct Elements {
    /// One entry per number, Boolean or `null`.
    numbers: Vec<f64>,
    /// A number or Boolean (not only `null`s) was seen.
    any_number: bool,
    /// The first string and the offset just after it.
    first_string: Option<(String, usize)>,
    /// Number of elements.
    count: usize,
    /// Offset just after the first element that mixed strings with numbers.
    mixed: Option<usize>,
}

impl Elements {
    /// Adds a number (`null`: `None`).
    fn number(&mut self, value: Option<f64>, pos: usize) {
        self.count += 1;
        if let Some(v) = value {
            self.any_number = true;
            if self.first_string.is_some() {
                self.mixed.get_or_insert(pos);
            }
            self.numbers.push(v);
        } else {
            self.numbers.push(f64::NAN);
        }
    }

    /// Adds a string.
    fn string(&mut self, text: &str, pos: usize) {
        self.count += 1;
        if self.any_number {
            self.mixed.get_or_insert(pos);
        }
        if self.first_string.is_none() {
            self.first_string = Some((text.to_string(), pos));
        }
    }

    /// What the elements are.
    fn finish(self) -> Content {
        match (self.mixed, self.first_string) {
            (Some(offset), _) => Content::Mixed(offset),
            (None, Some((first, offset))) => Content::Strings {
                first,
                offset,
                count: self.count,
            },
            (None, None) => Content::Numbers(self.numbers),
        }
    }
}

/// Seed of one element of `values`, or of a `value`.
struct Element<'a> {
    pos: &'a Cell<usize>,
    member: &'a str,
    field: &'static str,
    elements: &'a mut Elements,
}

impl<'de> DeserializeSeed<'de> for Element<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Element<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "a number, Boolean, null or string in \"{}\" of member '{}'",
            self.field, self.member
        )
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.elements
            .number(Some(if v { 1.0 } else { 0.0 }), self.pos.get());
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.elements.number(Some(v as f64), self.pos.get());
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.elements.number(Some(v as f64), self.pos.get());
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        self.elements.number(Some(v), self.pos.get());
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.elements.number(None, self.pos.get());
        Ok(())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.elements.string(v, self.pos.get());
        Ok(())
    }
}

/// The file's text, for positions and errors.
struct Text<'a> {
    path: &'a Path,
    bytes: &'a [u8],
    /// Length of the byte order mark skipped before parsing (0 or 3).
    skipped: usize,
}

impl Text<'_> {
    /// 1-based line and column (in bytes) of the last byte before `offset` (counted from the
    /// start of the text that was parsed), as the JSON parser counts: the column of the last
    /// character read when the problem was found (at least 1).
    fn position(&self, offset: usize) -> (usize, usize) {
        let offset = (self.skipped + offset).min(self.bytes.len());
        let before = &self.bytes[..offset];
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        let start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        (line, (offset - start).max(1))
    }

    /// [`Error::JsonFormat`] at `offset`.
    fn error(&self, offset: usize, problem: JsonProblem) -> Error {
        let (line, column) = self.position(offset);
        Error::JsonFormat {
            path: self.path.to_path_buf(),
            line,
            column,
            problem,
        }
    }

    /// The parser's error as [`JsonProblem::Syntax`], at its position (or at `consumed`
    /// when it has none).
    fn syntax_error(&self, error: &serde_json::Error, consumed: usize) -> Error {
        let (line, column) = (error.line(), error.column());
        let mut message = error.to_string();
        if line == 0 {
            return self.error(consumed, JsonProblem::Syntax { message });
        }
        let suffix = format!(" at line {line} column {column}");
        if message.ends_with(&suffix) {
            message.truncate(message.len() - suffix.len());
        }
        // The parser counts from after the byte order mark.
        let column = if line == 1 {
            column + self.skipped
        } else {
            column
        };
        Error::JsonFormat {
            path: self.path.to_path_buf(),
            line,
            column,
            problem: JsonProblem::Syntax { message },
        }
    }

    /// Checks the parsed table and turns it into a [`ResultFile`].
    fn build(&self, parsed: Parsed) -> Result<ResultFile> {
        match &parsed.class {
            Some((class, _)) if class == "SignalTable" => {}
            other => {
                let (class, offset) = other.clone().map_or((None, 0), |(c, o)| (Some(c), o));
                return Err(self.error(offset, JsonProblem::NotSignalTable { class }));
            }
        }
        let mut members = parsed.members;
        let mut seen = HashSet::with_capacity(members.len());
        for m in &members {
            if !seen.insert(m.name.as_str()) {
                let member = m.name.clone();
                return Err(self.error(m.offset, JsonProblem::DuplicateMember { member }));
            }
            if !matches!(m.class.as_deref(), Some("Var" | "Par" | "Map")) {
                let problem = JsonProblem::Class {
                    member: m.name.clone(),
                    class: m.class.clone(),
                };
                return Err(self.error(m.offset, problem));
            }
        }
        let independent = self.independent(&members)?;
        let time_unit = match members[independent].unit.as_str() {
            "" => "s".to_string(),
            unit => unit.to_string(),
        };
        let owners = self.owners(&members, independent)?;
        // The last member that takes each member's content: it may move it, others copy it.
        let mut last_user = vec![usize::MAX; members.len()];
        for (i, owner) in owners.iter().enumerate() {
            if let Some(owner) = *owner {
                last_user[owner] = i;
            }
        }
        let time = if last_user[independent] == independent {
            members[independent].values.take()
        } else {
            members[independent].values.clone()
        };
        let Some(Content::Numbers(time)) = time else {
            unreachable!("invariant: `independent` checked the time values");
        };
        let time = Arc::new(time);
        let parameter_time = Arc::new(match time.as_slice() {
            [] => Vec::new(),
            [t] => vec![*t],
            [first, .., last] => vec![*first, *last],
        });
        let mut file = ResultFile {
            time_unit,
            series: Vec::new(),
            text_columns: Vec::new(),
        };
        for i in 0..members.len() {
            let Some(owner) = owners[i] else { continue };
            if i == independent {
                continue;
            }
            let content = if last_user[owner] == i {
                members[owner].content_mut().take()
            } else {
                members[owner].content().cloned()
            }
            .expect("invariant: `owners` points to members with content");
            let m = &members[i];
            let parameter = m.class.as_deref() == Some("Par");
            match content {
                Content::Numbers(values) if parameter => file.series.push(Series {
                    name: m.name.clone(),
                    unit: m.unit.clone(),
                    time: Arc::clone(&parameter_time),
                    // A `value` is one element.
                    values: vec![values.first().copied().unwrap_or(f64::NAN); parameter_time.len()],
                    kind: SeriesKind::Parameter,
                }),
                Content::Numbers(values) => file.series.push(Series {
                    name: m.name.clone(),
                    unit: m.unit.clone(),
                    time: Arc::clone(&time),
                    values,
                    kind: SeriesKind::Variable,
                }),
                Content::Strings { first, offset, .. } => file.text_columns.push(TextColumn {
                    name: m.name.clone(),
                    line: self.position(offset).0,
                    text: first,
                }),
                Content::Mixed(_) => unreachable!("invariant: `owners` rejects mixed values"),
            }
        }
        Ok(file)
    }

    /// The index of the independent variable, after checking that there is one and that it
    /// holds numbers.
    fn independent(&self, members: &[Member]) -> Result<usize> {
        let mut found: Option<usize> = None;
        for (i, m) in members.iter().enumerate() {
            if !(m.independent && m.class.as_deref() == Some("Var")) {
                continue;
            }
            if let Some(first) = found {
                let problem = JsonProblem::TwoIndependent {
                    first: members[first].name.clone(),
                    second: m.name.clone(),
                };
                return Err(self.error(m.offset, problem));
            }
            found = Some(i);
        }
        let Some(i) = found else {
            return Err(self.error(0, JsonProblem::NoIndependent));
        };
        let m = &members[i];
        let member = m.name.clone();
        match &m.values {
            Some(Content::Numbers(_)) => Ok(i),
            Some(Content::Strings { offset, .. }) => {
                Err(self.error(*offset, JsonProblem::TextTime { member }))
            }
            Some(Content::Mixed(offset)) => {
                Err(self.error(*offset, JsonProblem::MixedValues { member }))
            }
            None => {
                let problem = JsonProblem::NoValues {
                    member,
                    class: "Var",
                    field: "values",
                };
                Err(self.error(m.offset, problem))
            }
        }
    }

    /// For each member, the index of the member whose content it shows: itself, or the
    /// target of its (chain of) aliases; `None` for `Map`s. Checks mixed values and, for
    /// `Var`s, the value count against the `time_points` of the independent variable
    /// `independent`.
    fn owners(&self, members: &[Member], independent: usize) -> Result<Vec<Option<usize>>> {
        let index: HashMap<&str, usize> = members
            .iter()
            .enumerate()
            .map(|(i, m)| (m.name.as_str(), i))
            .collect();
        let time = &members[independent];
        let time_points = time.content().map_or(0, Content::len);
        let mut owners = Vec::with_capacity(members.len());
        for m in members {
            let (class, field) = match m.class.as_deref() {
                Some("Var") => ("Var", "values"),
                Some("Par") => ("Par", "value"),
                _ => {
                    owners.push(None);
                    continue;
                }
            };
            let mut owner = m;
            let mut steps = 0;
            while owner.content().is_none() {
                let Some(target) = &owner.alias else {
                    let problem = JsonProblem::NoValues {
                        member: owner.name.clone(),
                        class,
                        field,
                    };
                    return Err(self.error(owner.offset, problem));
                };
                match index.get(target.as_str()) {
                    Some(&next) if members[next].class == m.class && steps < members.len() => {
                        owner = &members[next];
                        steps += 1;
                    }
                    _ => {
                        let problem = JsonProblem::AliasTarget {
                            member: owner.name.clone(),
                            target: target.clone(),
                            class,
                        };
                        return Err(self.error(owner.offset, problem));
                    }
                }
            }
            match owner.content() {
                Some(Content::Mixed(offset)) => {
                    let member = owner.name.clone();
                    return Err(self.error(*offset, JsonProblem::MixedValues { member }));
                }
                Some(content) if class == "Var" && content.len() != time_points => {
                    let problem = JsonProblem::ValueCount {
                        member: owner.name.clone(),
                        found: content.len(),
                        independent: time.name.clone(),
                        expected: time_points,
                    };
                    return Err(self.error(owner.offset, problem));
                }
                _ => owners.push(Some(index[owner.name.as_str()])),
            }
        }
        Ok(owners)
    }
}
