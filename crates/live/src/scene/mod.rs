//! Scenes: the 2-D drawing the live view shows beside its charts, declared in a TOML file
//! that the project names (`scene <path>`) or `--scene` gives.
//!
//! A scene has a frame (the world rectangle shown, or an automatic fit) and objects (point,
//! line, polyline, circle, rectangle, arrow, text, and an XY trace drawn up to the cursor).
//! Each numeric attribute is a constant or a result variable `"<slave>.<variable>"` (the
//! names of the result files and of `/api/meta`), optionally scaled and offset. [`Scene::load`]
//! reads a file and checks every name against the run's result columns, so that a bad scene
//! fails before the run starts with the file, the line and what was expected. The checked
//! scene is what the page receives (`/api/meta`, member `scene`), every variable replaced by
//! its column in the rows.
//!
//! Spec: the block simulator's visualization (seed design: blocks place graphics objects in
//! the main view, configured by display parameters); TOML 1.0; `docs/live.md` ("Scenes").

mod attribute;
mod object;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use toml::Spanned;

pub use attribute::{Attribute, Colour};
pub use object::{Kind, Object};

/// The keys of one table of the file, each with its place in the text.
type KeyTable = BTreeMap<String, Spanned<toml::Value>>;

/// The file as TOML gives it: the `[frame]` table and the `[[object]]` tables.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScene {
    #[serde(default)]
    frame: Option<Spanned<KeyTable>>,
    #[serde(default, rename = "object")]
    objects: Vec<Spanned<KeyTable>>,
}

/// A scene, checked against the result columns of a run and ready for the page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scene {
    /// The file it was read from (not sent to the page).
    #[serde(skip)]
    pub file: PathBuf,
    /// The world rectangle shown.
    pub frame: Frame,
    /// The objects, drawn in file order (later ones on top).
    pub objects: Vec<Object>,
}

/// The world rectangle the canvas shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Frame {
    /// The x range shown, in world units (`None`: fitted to what the objects draw).
    pub x: Option<[f64; 2]>,
    /// The y range shown (`None`: fitted).
    pub y: Option<[f64; 2]>,
    /// `true`: one world unit is as long on x as on y (`aspect = "equal"`); `false`: each
    /// axis fills the canvas (`"free"`, the default).
    pub equal: bool,
    /// The canvas height, CSS pixels (default 320).
    pub height: f64,
}

/// Why a scene cannot be used; the message names the file, the line and what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}:{line}: {problem}", file.display())]
pub struct SceneError {
    /// The scene file.
    pub file: PathBuf,
    /// 1-based line (0 when the file could not be read at all).
    pub line: usize,
    /// What is wrong and what was expected.
    pub problem: String,
}

/// Where a value stands in the file, for errors: the file, its text and the value's span.
#[derive(Debug, Clone, Copy)]
struct Place<'a> {
    file: &'a Path,
    text: &'a str,
}

impl Place<'_> {
    /// The 1-based line of byte offset `at`.
    fn line(&self, at: usize) -> usize {
        let at = at.min(self.text.len());
        self.text.as_bytes()[..at]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    }

    /// An error at `span` saying `problem`.
    fn error(&self, span: &Range<usize>, problem: impl Into<String>) -> SceneError {
        SceneError {
            file: self.file.to_path_buf(),
            line: self.line(span.start),
            problem: problem.into(),
        }
    }
}

/// The names of the run's numeric result columns in the order of `/api/meta`, which scene
/// variables resolve to (`time` is the row's time, column 0).
#[derive(Debug)]
pub(crate) struct Columns<'a>(&'a [String]);

impl Columns<'_> {
    /// The row column of `name`: 0 for `time`, `j + 1` for the `j`-th result column.
    fn find(&self, name: &str) -> Option<usize> {
        if name == "time" {
            return Some(0);
        }
        self.0.iter().position(|c| c == name).map(|j| j + 1)
    }

    /// Up to three result columns of the same slave as `name`, for "did you mean" hints.
    fn near(&self, name: &str) -> Vec<&str> {
        let slave = name.split_once('.').map_or(name, |(s, _)| s);
        let prefix = format!("{slave}.");
        self.0
            .iter()
            .filter(|c| c.starts_with(&prefix))
            .take(3)
            .map(String::as_str)
            .collect()
    }
}

impl Scene {
    /// Reads the scene file `file` and checks it against `columns`, the names of the run's
    /// numeric result columns in the order of `/api/meta` (`<slave>.<variable>`).
    ///
    /// # Errors
    /// [`SceneError`] naming the file and the line: the file cannot be read, is not TOML, has
    /// an unknown table or key, a value of the wrong type or out of range, an object without
    /// an id or with an id used twice, an unknown kind, a missing required attribute, or a
    /// variable that is not a result column of the run (naming the variable and the object).
    pub fn load(file: &Path, columns: &[String]) -> Result<Scene, SceneError> {
        let text = std::fs::read_to_string(file).map_err(|e| SceneError {
            file: file.to_path_buf(),
            line: 0,
            problem: format!("cannot read the scene file: {e}"),
        })?;
        Scene::parse(&text, file, columns)
    }

    /// Parses the scene `text` (read from `file`, named in errors) against `columns`, as
    /// [`Scene::load`].
    ///
    /// # Errors
    /// As [`Scene::load`].
    pub fn parse(text: &str, file: &Path, columns: &[String]) -> Result<Scene, SceneError> {
        let place = Place { file, text };
        let raw: RawScene = toml::from_str(text).map_err(|e| {
            let span = e.span().unwrap_or(0..0);
            let message = e.message().trim_end().replace('\n', "; ");
            place.error(
                &span,
                format!(
                    "{message} (expected a TOML scene: an optional [frame] table and \
                     [[object]] tables)"
                ),
            )
        })?;
        let frame = match &raw.frame {
            Some(table) => frame(place, table)?,
            None => Frame::default(),
        };
        let columns = Columns(columns);
        let mut objects: Vec<Object> = Vec::with_capacity(raw.objects.len());
        for table in &raw.objects {
            let object = object::read(place, &columns, table)?;
            if let Some(first) = objects.iter().find(|o| o.id == object.id) {
                return Err(place.error(
                    &table.span(),
                    format!(
                        "object id '{}' is already used on line {}; expected a unique id",
                        object.id, first.line
                    ),
                ));
            }
            objects.push(object);
        }
        if objects.is_empty() {
            log::warn!(
                "{}: the scene has no [[object]] table; it draws an empty frame",
                file.display()
            );
        }
        Ok(Scene {
            file: file.to_path_buf(),
            frame,
            objects,
        })
    }
}

impl Default for Frame {
    fn default() -> Frame {
        Frame {
            x: None,
            y: None,
            equal: false,
            height: 320.0,
        }
    }
}

/// Reads the `[frame]` table.
fn frame(place: Place<'_>, table: &Spanned<KeyTable>) -> Result<Frame, SceneError> {
    let mut frame = Frame::default();
    for (key, value) in table.get_ref() {
        match key.as_str() {
            "x" => frame.x = axis(place, "x", value)?,
            "y" => frame.y = axis(place, "y", value)?,
            "aspect" => {
                frame.equal = match value.get_ref().as_str() {
                    Some("equal") => true,
                    Some("free") => false,
                    _ => {
                        return Err(place.error(
                            &value.span(),
                            "frame: invalid aspect, expected \"equal\" or \"free\"",
                        ));
                    }
                }
            }
            "height" => {
                frame.height = attribute::number(value.get_ref())
                    .filter(|h| (40.0..=4000.0).contains(h))
                    .ok_or_else(|| {
                        place.error(
                            &value.span(),
                            "frame: invalid height, expected a number of CSS pixels from 40 to 4000",
                        )
                    })?;
            }
            other => {
                return Err(place.error(
                    &value.span(),
                    format!("frame: unknown key '{other}', expected x, y, aspect or height"),
                ));
            }
        }
    }
    Ok(frame)
}

/// Reads a frame axis: `[min, max]` or `"auto"`.
fn axis(
    place: Place<'_>,
    name: &str,
    value: &Spanned<toml::Value>,
) -> Result<Option<[f64; 2]>, SceneError> {
    let bad = || {
        place.error(
            &value.span(),
            format!(
                "frame: invalid {name}, expected [min, max] (two different finite numbers) or \"auto\""
            ),
        )
    };
    match value.get_ref() {
        toml::Value::String(s) if s == "auto" => Ok(None),
        toml::Value::Array(items) => match items.as_slice() {
            [a, b] => {
                let (a, b) = (
                    attribute::number(a).ok_or_else(bad)?,
                    attribute::number(b).ok_or_else(bad)?,
                );
                if a == b {
                    return Err(bad());
                }
                Ok(Some([a, b]))
            }
            _ => Err(bad()),
        },
        _ => Err(bad()),
    }
}
