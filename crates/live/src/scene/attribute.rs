//! The values of a scene object's attributes: numbers that are constants or result variables
//! (scaled and offset), and colours (a name, `#rrggbb`, or three such numbers).
//!
//! Spec: `docs/live.md` ("Scenes"); the colour names are a subset of CSS Color Level 4's
//! named colours (same sRGB values).

use serde::Serialize;
use toml::{Spanned, Value};

use super::{Columns, Place, SceneError};

/// A numeric attribute: `value = var × scale + offset` at the drawn row, or a constant.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Attribute {
    /// The same number in every row.
    Constant(f64),
    /// A result variable, mapped linearly.
    Variable {
        /// `<slave>.<variable>` as written in the scene (or `time`).
        var: String,
        /// The row column it is read from: 0 the time, `j + 1` the `j`-th result column of
        /// `/api/meta`.
        col: usize,
        /// Factor applied to the variable's value.
        scale: f64,
        /// Added after scaling.
        offset: f64,
    },
}

impl Attribute {
    /// Whether the attribute reads a variable.
    pub fn is_variable(&self) -> bool {
        matches!(self, Attribute::Variable { .. })
    }
}

/// A colour as red, green and blue components, each 0–255 (clamped when drawn).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Colour {
    /// Red, 0–255.
    pub r: Attribute,
    /// Green, 0–255.
    pub g: Attribute,
    /// Blue, 0–255.
    pub b: Attribute,
}

/// The named colours a scene may use (CSS names, sRGB).
const NAMES: [(&str, u32); 22] = [
    ("black", 0x000000),
    ("white", 0xffffff),
    ("grey", 0x808080),
    ("gray", 0x808080),
    ("silver", 0xc0c0c0),
    ("red", 0xff0000),
    ("maroon", 0x800000),
    ("orange", 0xffa500),
    ("yellow", 0xffff00),
    ("olive", 0x808000),
    ("lime", 0x00ff00),
    ("green", 0x008000),
    ("darkgreen", 0x006400),
    ("teal", 0x008080),
    ("cyan", 0x00ffff),
    ("skyblue", 0x87ceeb),
    ("blue", 0x0000ff),
    ("navy", 0x000080),
    ("purple", 0x800080),
    ("magenta", 0xff00ff),
    ("pink", 0xffc0cb),
    ("brown", 0xa52a2a),
];

impl Colour {
    /// The constant colour `0xRRGGBB`.
    pub fn rgb(rgb: u32) -> Colour {
        let c = |shift: u32| Attribute::Constant(f64::from((rgb >> shift) & 0xff));
        Colour {
            r: c(16),
            g: c(8),
            b: c(0),
        }
    }
}

/// A finite number from a TOML integer or float.
pub(super) fn number(value: &Value) -> Option<f64> {
    let x = match value {
        Value::Integer(i) => *i as f64,
        Value::Float(f) => *f,
        _ => return None,
    };
    x.is_finite().then_some(x)
}

/// What a numeric attribute may be, for messages.
const NUMERIC: &str = "a number, a variable name \"<slave>.<variable>\", or \
                       { var = \"<slave>.<variable>\", scale = <number>, offset = <number> }";

/// Reads the numeric attribute `key` of object `id` (true and false read as 1 and 0).
///
/// # Errors
/// Another type, a table with other keys, or a variable that is not a result column.
pub(super) fn numeric(
    place: Place<'_>,
    columns: &Columns<'_>,
    id: &str,
    key: &str,
    value: &Spanned<Value>,
) -> Result<Attribute, SceneError> {
    let bad = |what: String| place.error(&value.span(), format!("object '{id}': {key}: {what}"));
    match value.get_ref() {
        Value::Boolean(b) => Ok(Attribute::Constant(f64::from(u8::from(*b)))),
        Value::String(name) => variable(columns, name, 1.0, 0.0).map_err(bad),
        Value::Table(table) => {
            let mut var = None;
            let (mut scale, mut offset) = (1.0, 0.0);
            for (k, v) in table {
                match (k.as_str(), v, number(v)) {
                    ("var", Value::String(name), _) => var = Some(name),
                    ("scale", _, Some(x)) => scale = x,
                    ("offset", _, Some(x)) => offset = x,
                    _ => return Err(bad(format!("invalid key '{k}', expected {NUMERIC}"))),
                }
            }
            let name =
                var.ok_or_else(|| bad(format!("no 'var' in the table, expected {NUMERIC}")))?;
            variable(columns, name, scale, offset).map_err(bad)
        }
        other => number(other)
            .map(Attribute::Constant)
            .ok_or_else(|| bad(format!("invalid value {other}, expected {NUMERIC}"))),
    }
}

/// The attribute reading variable `name`.
fn variable(
    columns: &Columns<'_>,
    name: &str,
    scale: f64,
    offset: f64,
) -> Result<Attribute, String> {
    match columns.find(name) {
        Some(col) => Ok(Attribute::Variable {
            var: name.to_owned(),
            col,
            scale,
            offset,
        }),
        None => {
            let near = columns.near(name);
            let hint = if near.is_empty() {
                "no result variable of that slave exists; expected a numeric result variable \
                 <slave>.<variable> of the run, or time"
                    .to_owned()
            } else {
                format!(
                    "expected a numeric result variable such as {}",
                    near.join(", ")
                )
            };
            Err(format!(
                "variable '{name}' does not exist in the project's results; {hint}"
            ))
        }
    }
}

/// Reads the `colour` of object `id`: a name, `"#rrggbb"`, or `{ r, g, b }` numeric attributes
/// (0–255).
///
/// # Errors
/// An unknown name, a malformed `#rrggbb`, a table without r, g and b, a bad component.
pub(super) fn colour(
    place: Place<'_>,
    columns: &Columns<'_>,
    id: &str,
    value: &Spanned<Value>,
) -> Result<Colour, SceneError> {
    let expected = "expected a colour name (black, red, blue, …), \"#rrggbb\", or \
                    { r = …, g = …, b = … } with components 0–255";
    let bad = |what: String| {
        place.error(
            &value.span(),
            format!("object '{id}': colour: {what}, {expected}"),
        )
    };
    match value.get_ref() {
        Value::String(text) => {
            let lower = text.to_ascii_lowercase();
            if let Some(hex) = lower.strip_prefix('#') {
                return match u32::from_str_radix(hex, 16) {
                    Ok(rgb) if hex.len() == 6 => Ok(Colour::rgb(rgb)),
                    _ => Err(bad(format!("'{text}' is not #rrggbb"))),
                };
            }
            NAMES
                .iter()
                .find(|(n, _)| *n == lower)
                .map(|(_, rgb)| Colour::rgb(*rgb))
                .ok_or_else(|| bad(format!("unknown colour name '{text}'")))
        }
        Value::Table(table) => {
            let component = |name: &str| -> Result<Attribute, SceneError> {
                let v = table
                    .get(name)
                    .ok_or_else(|| bad(format!("no '{name}' component")))?;
                let spanned = Spanned::new(value.span(), v.clone());
                numeric(place, columns, id, &format!("colour.{name}"), &spanned)
            };
            if let Some(other) = table
                .keys()
                .find(|k| !["r", "g", "b"].contains(&k.as_str()))
            {
                return Err(bad(format!("unknown component '{other}'")));
            }
            Ok(Colour {
                r: component("r")?,
                g: component("g")?,
                b: component("b")?,
            })
        }
        other => Err(bad(format!("invalid value {other}"))),
    }
}
