//! MAT v4 result files in the DSRES trajectory layout (`Atrajectory` 1.1, `binTrans`).
//!
//! This is the result format of Dymola and OpenModelica, read by their plot tools, by
//! DyMat, MATLAB, Octave and SciPy. A file is a plain sequence of MATLAB level-4 matrices,
//! each a 20-byte header (type code `M0PT`, rows, columns, imaginary flag, name length)
//! followed by its name and its entries in column-major order:
//!
//! | matrix | type | shape (rows × columns) | content |
//! |---|---|---|---|
//! | `Aclass` | text | 4 × 11 | `Atrajectory`, `1.1`, an empty line, `binTrans` |
//! | `name` | text | longest name × variables | one name per column, `Time` first |
//! | `description` | text | longest text × variables | `<description> [<unit>]` per column |
//! | `dataInfo` | int32 | 4 × variables | matrix `j`, signed column `k`, `0`, `-1` |
//! | `data_1` | double | (1 + parameters) × 2 | start and stop values of the parameters |
//! | `data_2`, … | double | (1 + signals) × time points | one column per time point |
//!
//! All matrices except `Aclass` are stored transposed (`binTrans`): each time point of a
//! data matrix is one contiguous column `(t, v₁, v₂, …)`. That is what lets
//! [`MatWriter`] append a time point with one `write` and then patch the column count of
//! the last header, so that the file is complete after every row. Row 1 of every data
//! matrix is its time axis, so signals start at row 2; `dataInfo` of the abscissa `Time`
//! is `(0, 1, 0, -1)`.
//!
//! Text is padded with spaces (not NULs): DyMat strips trailing whitespace only, and NUL
//! padding would leave `binTrans` unrecognised. Names are unique within a file (the
//! writers check it), which is what name-keyed readers such as DyMat need.
//!
//! Aliases are not stored twice: an alias's `dataInfo` points at the column of the signal
//! (or parameter) it aliases, with a negative column number for a negated alias.
//!
//! Spec: MATLAB level-4 MAT-file format as described in the Wolfram SystemModeler
//! "Simulation Result Files" page (headers, `Aclass`, `dataInfo`); OpenModelica user's guide,
//! "The MATv4 Result File Format"; Otter, "Signal Tables" (2022) §2.2 (DSRES format).

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use crate::{Error, Result};

mod reader;
mod rows;
#[cfg(test)]
mod tests;
mod writer;

pub use reader::read;
pub use rows::MatRows;
pub use writer::{MatOpen, MatState, MatWriter, write_series};

/// MAT v4 type code (`M0PT`) of little-endian 64-bit floating-point numbers.
const TYPE_DOUBLE: i32 = 0;
/// MAT v4 type code of little-endian 32-bit signed integers.
const TYPE_INT32: i32 = 20;
/// MAT v4 type code of a text matrix stored as 8-bit unsigned character codes.
const TYPE_TEXT: i32 = 51;
/// Size of a MAT v4 matrix header without the name (five 32-bit integers), in bytes.
const HEADER_LEN: usize = 20;
/// Name of the abscissa, the first variable of every file.
const TIME_NAME: &str = "Time";
/// Description of the abscissa.
const TIME_DESCRIPTION: &str = "Time [s]";
/// `dataInfo` extrapolation code: the signal is undefined outside its time range.
const UNDEFINED_OUTSIDE: i32 = -1;
/// `dataInfo` interpolation code: linear interpolation.
const LINEAR: i32 = 0;

/// A result variable of a MAT file: its name, unit and description.
///
/// Units: `unit` is written verbatim in brackets at the end of the description
/// (`Prey population [-]`, or just `[m/s]` without description text); MasterSim uses `-`
/// for variables without a unit.
///
/// Spec: Otter, "Signal Tables" (2022) §2.2 (unit at the end of the description).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MatSignal {
    /// Unique name, MasterSim uses `<slave>.<variable>`.
    pub name: String,
    /// Unit, as declared in the modelDescription.
    pub unit: String,
    /// Description text, may be empty.
    pub description: String,
}

impl MatSignal {
    /// Creates a signal from its name, unit and description.
    ///
    /// Spec: Otter, "Signal Tables" (2022) §2.2.
    pub fn new(
        name: impl Into<String>,
        unit: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        MatSignal {
            name: name.into(),
            unit: unit.into(),
            description: description.into(),
        }
    }
}

/// A parameter or constant, stored in `data_1` with its value at the start and at the stop time.
///
/// Units: `start` and `stop` in `signal.unit`.
///
/// Spec: OpenModelica user's guide, "The MATv4 Result File Format" (`data_1`: start and
/// stop values).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MatParameter {
    /// Name, unit and description.
    pub signal: MatSignal,
    /// Value at the start time.
    pub start: f64,
    /// Value at the stop time.
    pub stop: f64,
}

/// Another name for a signal or parameter that is stored once (an FMU alias variable).
///
/// A plain alias has the same values as its target; a negated alias the negated values.
/// The alias keeps its own name, unit and description.
///
/// Shapes: `of` indexes the writer's signals (or series), or its parameters when
/// `parameter` is true.
///
/// Spec: OpenModelica user's guide, "The MATv4 Result File Format" (`dataInfo(i,2)`,
/// negative for negated aliases); FMI 1.0 `alias`/`negatedAlias`, FMI 2.0 §2.2.7 (same value
/// reference and type).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MatAlias {
    /// Unique name of the alias.
    pub name: String,
    /// Unit, as declared in the modelDescription.
    pub unit: String,
    /// Description text, may be empty.
    pub description: String,
    /// Index of the aliased signal (or parameter, see `parameter`).
    pub of: usize,
    /// The alias holds the negated values of its target.
    pub negated: bool,
    /// `of` indexes the parameters rather than the signals.
    pub parameter: bool,
}

/// A signal with its own time points, for [`write_series`].
///
/// Units: `time` in seconds, `values` in `signal.unit`.
/// Shapes: `values.len() == time.len()`.
///
/// Spec: Otter, "Signal Tables" (2022) §2.2 (data matrices with different time axes).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MatSeries {
    /// Name, unit and description.
    pub signal: MatSignal,
    /// Time points (s).
    pub time: Vec<f64>,
    /// One value per time point.
    pub values: Vec<f64>,
}

/// The variables of a MAT result file, as returned by [`read`].
///
/// Spec: Otter, "Signal Tables" (2022) §2.2.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MatFile {
    /// Every variable except the abscissa, in the order of the file's `name` matrix.
    pub signals: Vec<MatReadSignal>,
}

impl MatFile {
    /// The first signal called `name`, if any.
    ///
    /// Spec: Otter, "Signal Tables" (2022) §2.2.
    pub fn signal(&self, name: &str) -> Option<&MatReadSignal> {
        self.signals.iter().find(|s| s.name == name)
    }
}

/// One variable read from a MAT file, with its time axis.
///
/// Units: `time` in the file's abscissa unit (seconds for mastersim files), `values` in
/// `unit`.
/// Shapes: `values.len() == time.len()`.
///
/// Spec: Otter, "Signal Tables" (2022) §2.2.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MatReadSignal {
    /// Name, with trailing padding removed.
    pub name: String,
    /// Description without the trailing `[unit]` (and the spaces before it).
    pub description: String,
    /// Text inside the brackets that end the description, `""` when it does not end with
    /// `[…]`.
    pub unit: String,
    /// Time axis of the data matrix the variable is stored in, shared by all its variables.
    /// Parameters stored as start/stop values have the two times `(tStart, tStop)`.
    pub time: Arc<Vec<f64>>,
    /// Values, already negated for negated aliases.
    pub values: Vec<f64>,
    /// Stored in `data_1`: a parameter or constant (or an alias of one) with only its
    /// values at the start and the stop time.
    pub parameter: bool,
}

/// One entry of the `name`, `description` and `dataInfo` matrices.
struct Variable<'a> {
    name: &'a str,
    description: String,
    data_info: [i32; 4],
}

/// The `description` text of a variable: `<description> [<unit>]`, or `[<unit>]`.
fn described(description: &str, unit: &str) -> String {
    if description.is_empty() {
        format!("[{unit}]")
    } else {
        format!("{description} [{unit}]")
    }
}

/// Splits a stored description into text and unit (see [`MatReadSignal::unit`]).
fn split_unit(text: &str) -> (String, String) {
    if let Some(inner) = text.strip_suffix(']')
        && let Some(open) = inner.rfind('[')
    {
        let description = inner[..open].trim_end();
        return (description.to_string(), inner[open + 1..].to_string());
    }
    (text.to_string(), String::new())
}

/// `rows` and `columns` as MAT v4 dimensions of `matrix`, or [`Error::MatTooLarge`].
fn dimension(path: &Path, matrix: &str, rows: usize, columns: usize) -> Result<(i32, i32)> {
    match (i32::try_from(rows), i32::try_from(columns)) {
        (Ok(r), Ok(c)) => Ok((r, c)),
        _ => Err(Error::MatTooLarge {
            path: path.to_path_buf(),
            matrix: matrix.to_string(),
            rows,
            columns,
        }),
    }
}

/// Appends a MAT v4 matrix header: type, rows, columns, no imaginary part, name with NUL.
fn put_header(out: &mut Vec<u8>, type_code: i32, mrows: i32, ncols: i32, name: &str) {
    let namlen = i32::try_from(name.len() + 1).expect("invariant: matrix names are short");
    for field in [type_code, mrows, ncols, 0, namlen] {
        out.extend_from_slice(&field.to_le_bytes());
    }
    out.extend_from_slice(name.as_bytes());
    out.push(0);
}

/// Appends a transposed text matrix: one space-padded string per column.
fn put_text_columns(out: &mut Vec<u8>, path: &Path, name: &str, strings: &[&str]) -> Result<()> {
    let width = strings.iter().map(|s| s.len()).max().unwrap_or(0);
    let (mrows, ncols) = dimension(path, name, width, strings.len())?;
    put_header(out, TYPE_TEXT, mrows, ncols, name);
    for s in strings {
        out.extend_from_slice(s.as_bytes());
        out.resize(out.len() + width - s.len(), b' ');
    }
    Ok(())
}

/// Appends `Aclass`: four space-padded lines, not transposed (column-major characters).
fn put_aclass(out: &mut Vec<u8>) {
    const LINES: [&[u8]; 4] = [b"Atrajectory", b"1.1", b"", b"binTrans"];
    const WIDTH: usize = 11;
    put_header(out, TYPE_TEXT, LINES.len() as i32, WIDTH as i32, "Aclass");
    for column in 0..WIDTH {
        for line in LINES {
            out.push(line.get(column).copied().unwrap_or(b' '));
        }
    }
}

/// Where a writer stores its signals: `(matrix j, column k)` of signal `i`.
type Locate<'a> = &'a dyn Fn(usize) -> (i32, i32);

/// The bytes of `Aclass`, `name`, `description`, `dataInfo` and `data_1`.
///
/// Variables are ordered `Time`, signals, parameters, aliases. Checks that names are
/// unique and alias targets exist.
fn leading_matrices(
    path: &Path,
    parameters: &[MatParameter],
    signals: &[&MatSignal],
    locate: Locate<'_>,
    aliases: &[MatAlias],
    t_start: f64,
    t_stop: f64,
) -> Result<Vec<u8>> {
    let (data_1_rows, _) = dimension(path, "data_1", parameters.len() + 1, 2)?;
    let count = 1 + signals.len() + parameters.len() + aliases.len();
    let mut variables = Vec::with_capacity(count);
    variables.push(Variable {
        name: TIME_NAME,
        description: TIME_DESCRIPTION.to_string(),
        data_info: [0, 1, LINEAR, UNDEFINED_OUTSIDE],
    });
    for (i, s) in signals.iter().enumerate() {
        let (j, k) = locate(i);
        variables.push(Variable {
            name: &s.name,
            description: described(&s.description, &s.unit),
            data_info: [j, k, LINEAR, UNDEFINED_OUTSIDE],
        });
    }
    // `data_1_rows` fits an i32, so do all parameter rows 2..=data_1_rows.
    let parameter_row = |i: usize| i as i32 + 2;
    for (i, p) in parameters.iter().enumerate() {
        variables.push(Variable {
            name: &p.signal.name,
            description: described(&p.signal.description, &p.signal.unit),
            data_info: [1, parameter_row(i), LINEAR, UNDEFINED_OUTSIDE],
        });
    }
    for a in aliases {
        let count = if a.parameter {
            parameters.len()
        } else {
            signals.len()
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
        let (j, k) = if a.parameter {
            (1, parameter_row(a.of))
        } else {
            locate(a.of)
        };
        variables.push(Variable {
            name: &a.name,
            description: described(&a.description, &a.unit),
            data_info: [j, if a.negated { -k } else { k }, LINEAR, UNDEFINED_OUTSIDE],
        });
    }
    let mut seen = HashSet::with_capacity(variables.len());
    for v in &variables {
        if !seen.insert(v.name) {
            return Err(Error::DuplicateName {
                path: path.to_path_buf(),
                name: v.name.to_string(),
            });
        }
    }

    let mut out = Vec::with_capacity(256 + 64 * variables.len() + 16 * parameters.len());
    put_aclass(&mut out);
    let names: Vec<&str> = variables.iter().map(|v| v.name).collect();
    put_text_columns(&mut out, path, "name", &names)?;
    let descriptions: Vec<&str> = variables.iter().map(|v| v.description.as_str()).collect();
    put_text_columns(&mut out, path, "description", &descriptions)?;
    let (_, ncols) = dimension(path, "dataInfo", 4, variables.len())?;
    put_header(&mut out, TYPE_INT32, 4, ncols, "dataInfo");
    for v in &variables {
        for field in v.data_info {
            out.extend_from_slice(&field.to_le_bytes());
        }
    }
    put_header(&mut out, TYPE_DOUBLE, data_1_rows, 2, "data_1");
    let starts = parameters.iter().map(|p| p.start);
    let stops = parameters.iter().map(|p| p.stop);
    for value in std::iter::once(t_start)
        .chain(starts)
        .chain(std::iter::once(t_stop))
        .chain(stops)
    {
        out.extend_from_slice(&value.to_le_bytes());
    }
    Ok(out)
}
