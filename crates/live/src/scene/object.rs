//! The objects of a scene: their kinds, which attributes each kind takes, and how an
//! `[[object]]` table is read.
//!
//! Spec: `docs/live.md` ("Scenes", the table of kinds and attributes).

use std::collections::BTreeMap;

use serde::Serialize;
use toml::{Spanned, Value};

use super::attribute::{self, Attribute, Colour};
use super::{Columns, KeyTable, Place, SceneError};

/// What an object draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A dot of `radius` pixels at (x, y).
    Point,
    /// A segment from (x, y) to (x2, y2).
    Line,
    /// Segments through `points`.
    Polyline,
    /// A circle at (x, y) with `radius` in x world units.
    Circle,
    /// A `width` × `height` rectangle (world units) centred at (x, y), turned by `angle`.
    Rectangle,
    /// An arrow from (x, y), `length` pixels long, pointing at `angle`.
    Arrow,
    /// `text` (and `value`) written at (x, y).
    Text,
    /// The curve of (x, y) over the rows from the first to the cursor's, with a dot at the
    /// cursor's row.
    Trace,
}

/// Kinds by name, with the numeric attributes each takes and which of them are required.
const KINDS: [(&str, Kind, &[&str], &[&str]); 8] = [
    ("point", Kind::Point, &["x", "y"], &["radius"]),
    ("line", Kind::Line, &["x", "y", "x2", "y2"], &[]),
    ("polyline", Kind::Polyline, &[], &[]),
    ("circle", Kind::Circle, &["x", "y", "radius"], &[]),
    (
        "rectangle",
        Kind::Rectangle,
        &["x", "y", "width", "height"],
        &["angle"],
    ),
    ("arrow", Kind::Arrow, &["x", "y", "length"], &["angle"]),
    ("text", Kind::Text, &["x", "y"], &["value", "size"]),
    ("trace", Kind::Trace, &["x", "y"], &[]),
];

/// Numeric attributes every kind takes.
const COMMON: [&str; 2] = ["visible", "line_width"];

/// One object, checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Object {
    /// Unique within the scene (the tree's item id).
    pub id: String,
    /// Shown in the tree (default: the id).
    pub label: String,
    /// What it draws.
    pub kind: Kind,
    /// Its numeric attributes by name (`x`, `y`, `x2`, `y2`, `radius`, `width`, `height`,
    /// `angle` in degrees counter-clockwise, `length` in pixels, `value`, `size` in pixels,
    /// `visible` (drawn when not 0), `line_width` in pixels).
    pub attributes: BTreeMap<String, Attribute>,
    /// A polyline's corners `[x, y]`, world units (empty for the other kinds).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub points: Vec<[Attribute; 2]>,
    /// A text object's text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Decimals of a text object's `value` (default 3).
    pub decimals: u8,
    /// Its colour (default dark grey, `#303030`).
    pub colour: Colour,
    /// Circles and rectangles: filled (`true`) or outlined (default).
    pub fill: bool,
    /// The 1-based line of its `[[object]]` table (not sent).
    #[serde(skip)]
    pub line: usize,
}

/// Reads one `[[object]]` table.
///
/// # Errors
/// No or a bad id, label or kind; a key the kind does not take; a missing required attribute;
/// a bad value; an unknown variable (naming it and the object).
pub(super) fn read(
    place: Place<'_>,
    columns: &Columns<'_>,
    table: &Spanned<KeyTable>,
) -> Result<Object, SceneError> {
    let at = place.line(table.span().start);
    let fields = table.get_ref();
    let text_of = |key: &str| -> Result<Option<String>, SceneError> {
        match fields.get(key) {
            None => Ok(None),
            Some(v) => match v.get_ref() {
                Value::String(s) if !s.trim().is_empty() => Ok(Some(s.clone())),
                _ => Err(place.error(
                    &v.span(),
                    format!("object: invalid {key}, expected a non-empty string"),
                )),
            },
        }
    };
    let id = text_of("id")?.ok_or_else(|| {
        place.error(
            &table.span(),
            "object without an id, expected id = \"<unique name>\"",
        )
    })?;
    let kind_value = fields.get("kind").ok_or_else(|| {
        place.error(
            &table.span(),
            format!("object '{id}': no kind, expected kind = {}", kind_names()),
        )
    })?;
    let (kind, required, optional) = KINDS
        .iter()
        .find(|(name, ..)| Some(*name) == kind_value.get_ref().as_str())
        .map(|(_, k, r, o)| (*k, *r, *o))
        .ok_or_else(|| {
            place.error(
                &kind_value.span(),
                format!(
                    "object '{id}': invalid kind {}, expected {}",
                    kind_value.get_ref(),
                    kind_names()
                ),
            )
        })?;
    let mut object = Object {
        label: text_of("label")?.unwrap_or_else(|| id.clone()),
        text: text_of("text")?,
        id,
        kind,
        attributes: BTreeMap::new(),
        points: Vec::new(),
        decimals: 3,
        colour: Colour::rgb(0x30_30_30),
        fill: false,
        line: at,
    };
    for (key, value) in fields {
        read_key(
            place,
            columns,
            &mut object,
            (required, optional),
            key,
            value,
        )?;
    }
    check_complete(place, table, &object, required)?;
    Ok(object)
}

/// Reads `key` = `value` of `object`, whose kind takes the numeric attributes `taken`
/// (required, optional).
fn read_key(
    place: Place<'_>,
    columns: &Columns<'_>,
    object: &mut Object,
    taken: (&[&str], &[&str]),
    key: &str,
    value: &Spanned<Value>,
) -> Result<(), SceneError> {
    let id = object.id.as_str();
    let kind = object.kind;
    match key {
        "id" | "label" | "kind" => {}
        "text" if kind == Kind::Text => {}
        "colour" | "color" => object.colour = attribute::colour(place, columns, id, value)?,
        "fill" if matches!(kind, Kind::Circle | Kind::Rectangle) => {
            object.fill = value.get_ref().as_bool().ok_or_else(|| {
                place.error(
                    &value.span(),
                    format!("object '{id}': fill: expected true or false"),
                )
            })?;
        }
        "decimals" if kind == Kind::Text => {
            object.decimals = value
                .get_ref()
                .as_integer()
                .and_then(|d| u8::try_from(d).ok())
                .filter(|d| *d <= 15)
                .ok_or_else(|| {
                    place.error(
                        &value.span(),
                        format!("object '{id}': decimals: expected a whole number from 0 to 15"),
                    )
                })?;
        }
        "points" if kind == Kind::Polyline => object.points = points(place, columns, id, value)?,
        _ if taken.0.contains(&key) || taken.1.contains(&key) || COMMON.contains(&key) => {
            let attribute = attribute::numeric(place, columns, id, key, value)?;
            object.attributes.insert(key.to_owned(), attribute);
        }
        _ => {
            let mut keys: Vec<&str> = vec!["id", "label", "kind", "colour"];
            keys.extend(taken.0.iter().chain(taken.1).chain(&COMMON));
            keys.extend(match kind {
                Kind::Text => &["text", "decimals"][..],
                Kind::Circle | Kind::Rectangle => &["fill"],
                Kind::Polyline => &["points"],
                _ => &[],
            });
            return Err(place.error(
                &value.span(),
                format!(
                    "object '{id}': a {} takes no '{key}', expected one of {}",
                    kind_name(kind),
                    keys.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// Checks that `object` has every attribute its kind requires.
fn check_complete(
    place: Place<'_>,
    table: &Spanned<KeyTable>,
    object: &Object,
    required: &[&str],
) -> Result<(), SceneError> {
    let missing = |what: &str| {
        place.error(
            &table.span(),
            format!(
                "object '{}': a {} needs {what}",
                object.id,
                kind_name(object.kind)
            ),
        )
    };
    if let Some(key) = required
        .iter()
        .find(|k| !object.attributes.contains_key(**k))
    {
        return Err(missing(&format!(
            "'{key}' (all of: {})",
            required.join(", ")
        )));
    }
    match object.kind {
        Kind::Text if object.text.is_none() => Err(missing("text = \"…\"")),
        Kind::Polyline if object.points.len() < 2 => Err(missing(
            "points = [[x, y], [x, y], …] with at least two points",
        )),
        Kind::Trace if !object.attributes.values().any(Attribute::is_variable) => Err(missing(
            "a variable for x or y (a trace of constants is a single point)",
        )),
        _ => Ok(()),
    }
}

/// Reads a polyline's `points`: an array of `[x, y]` pairs of numeric attributes.
fn points(
    place: Place<'_>,
    columns: &Columns<'_>,
    id: &str,
    value: &Spanned<Value>,
) -> Result<Vec<[Attribute; 2]>, SceneError> {
    let bad = || {
        place.error(
            &value.span(),
            format!("object '{id}': points: expected [[x, y], [x, y], …]"),
        )
    };
    let items = value.get_ref().as_array().ok_or_else(bad)?;
    items
        .iter()
        .map(|pair| match pair.as_array().map(Vec::as_slice) {
            Some([x, y]) => {
                let read = |key: &str, v: &Value| {
                    attribute::numeric(
                        place,
                        columns,
                        id,
                        key,
                        &Spanned::new(value.span(), v.clone()),
                    )
                };
                Ok([read("points x", x)?, read("points y", y)?])
            }
            _ => Err(bad()),
        })
        .collect()
}

fn kind_name(kind: Kind) -> &'static str {
    KINDS.iter().find(|k| k.1 == kind).map_or("?", |k| k.0)
}

fn kind_names() -> String {
    let names: Vec<String> = KINDS.iter().map(|k| format!("\"{}\"", k.0)).collect();
    names.join(", ")
}
