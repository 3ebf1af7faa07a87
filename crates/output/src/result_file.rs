//! Reading result files into one neutral form, whatever their format: for `mastersim plot`,
//! `mastersim view` and scripts.
//!
//! [`read`] picks the reader by the file's extension:
//!
//! | extension | format | reader |
//! |---|---|---|
//! | `.csv` | mastersim's tab-separated `values.csv` / `strings.csv`, or comma- or semicolon-separated CSV with the time in the first column (such as the FMI cross-check reference files) | [`crate::table`] |
//! | `.mat` | MAT v4 result file in the DSRES trajectory layout (mastersim's, Dymola's, OpenModelica's) | [`crate::mat::read`] |
//! | `.json` | Signal Table as [`SignalTableWriter`](crate::SignalTableWriter) writes it | `serde_json` |
//!
//! Every format becomes a [`ResultFile`]: numeric [`Series`] (each with its own, possibly
//! shared, time axis) and non-numeric [`TextColumn`]s. Parameters and constants, which MAT
//! files (`data_1`) and Signal Tables (`Par`) store once rather than per time point, are
//! [`SeriesKind::Parameter`] series with two points (start and end). [`ResultFile::table`]
//! puts the time-varying variables on one common time axis, as a column-major table.
//!
//! Spec: MasterSim reference §12.1, §12.2 (tab-separated results); RFC 4180 (quoted fields
//! of comma-separated reference files); Otter, "Signal Tables" (2022) §2.2 (DSRES MAT files),
//! §3.2 and §3.5 (Signal Tables on file).
//!
//! # Examples
//! ```
//! use output::result_file::{self, SeriesKind};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("values.csv");
//! std::fs::write(&path, "Time [s] \tP.x [m] \tP.s\n0\t1\ta\n0.5\t0.5\tb\n")?;
//! let file = result_file::read(&path)?;
//! assert_eq!(file.time_unit, "s");
//! assert_eq!((file.series[0].name.as_str(), file.series[0].unit.as_str()), ("P.x", "m"));
//! assert_eq!(file.series[0].kind, SeriesKind::Variable);
//! assert_eq!(file.text_columns[0].name, "P.s");
//!
//! let table = file.table()?;
//! assert_eq!(table.time, [0.0, 0.5]);
//! assert_eq!(table.columns, [vec![1.0, 0.5]]);
//! # Ok(())
//! # }
//! ```

use std::path::Path;
use std::sync::Arc;

use crate::{Error, Result};

pub(crate) mod csv;
mod json;
#[cfg(test)]
mod tests;

/// The contents of a result file, independent of its format.
///
/// Units: every time axis is in `time_unit`.
///
/// Spec: MasterSim reference §12.1, §12.2; Otter, "Signal Tables" (2022) §2.2, §3.5.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultFile {
    /// Unit of all time axes: from a CSV caption `Time [<unit>]` or the Signal Table's
    /// independent variable, `s` (seconds) when the file names none and for MAT files.
    pub time_unit: String,
    /// Numeric variables and parameters, in file order (MAT: the order of the `name`
    /// matrix; Signal Table: member order).
    pub series: Vec<Series>,
    /// Non-numeric columns (String outputs and String parameters), in file order.
    pub text_columns: Vec<TextColumn>,
}

/// One numeric variable or parameter of a result file.
///
/// Booleans are `1.0`/`0.0`; missing values (a Signal Table's `null`) are NaN.
///
/// Units: `time` in [`ResultFile::time_unit`], `values` in `unit`.
/// Shapes: `values.len() == time.len()` for the series [`read`] returns.
///
/// Spec: Otter, "Signal Tables" (2022) §3.2 (Var, Par).
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Name, e.g. `Part1.x`.
    pub name: String,
    /// Unit as written in the file, empty if none.
    pub unit: String,
    /// Time points, shared (the same `Arc`) by the series stored on one time axis.
    pub time: Arc<Vec<f64>>,
    /// One value per time point.
    pub values: Vec<f64>,
    /// Whether the series varies in time or is a parameter stored once.
    pub kind: SeriesKind,
}

/// Whether a [`Series`] is a time-varying variable or a parameter.
///
/// Spec: OpenModelica user's guide, "The MATv4 Result File Format" (`data_1`); Otter,
/// "Signal Tables" (2022) §3.2 (Par).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SeriesKind {
    /// A value per time point: every CSV column, MAT variables outside `data_1`, Signal
    /// Table `Var`s.
    Variable,
    /// A parameter or constant, stored with its start and end value only: MAT variables in
    /// `data_1` (time = start and stop time), Signal Table `Par`s (time = first and last
    /// time point, or the single one, or none for an empty table).
    Parameter,
}

/// A column that is not numeric (a String output or parameter).
///
/// Spec: MasterSim reference §12.2 (strings.csv).
#[derive(Debug, Clone, PartialEq)]
pub struct TextColumn {
    /// Name, e.g. `Part1.label`.
    pub name: String,
    /// 1-based line of the first field that is not a number (JSON: of its first string, or
    /// of the member's name when that string has escape sequences).
    pub line: usize,
    /// That field.
    pub text: String,
}

/// The time-varying numeric variables of a result file on one common time axis.
///
/// Units: `time` in the file's [`ResultFile::time_unit`]; `columns[i]` in `units[i]`.
/// Shapes: `names.len() == units.len() == columns.len()`, column-major: every
/// `columns[i].len() == time.len()`.
///
/// Spec: MasterSim reference §12.1 (one row per output time).
#[derive(Debug, Clone, PartialEq)]
pub struct ResultTable {
    /// The common time axis.
    pub time: Vec<f64>,
    /// Variable names, in file order.
    pub names: Vec<String>,
    /// Their units, empty where none.
    pub units: Vec<String>,
    /// One column of values per variable.
    pub columns: Vec<Vec<f64>>,
}

/// Reads the result file at `path`; the extension (any case) chooses the format: `.csv`,
/// `.mat` or `.json` (see the [module documentation](self)).
///
/// - **CSV**: a header line, then one row per line, split by [`crate::table`] (separator
///   tab, comma or semicolon, told from the header and the first data row; quoted fields
///   with a comma or semicolon; blank and `#` comment lines skipped; empty fields kept). The
///   first column is the time, with its unit from a caption `Time [<unit>]`. Other captions
///   `<name> [<unit>]` give name and unit (a unit needs the space, so `x[1]` is a name).
///   Columns whose fields are all numbers are [`Series`], the others [`TextColumn`]s.
///   Numbers are Rust `f64` text (also `nan`, `inf`), plus `-nan`, `true` (1), `false` (0).
///   All series share one time axis.
/// - **MAT**: every variable of [`crate::mat::read`], aliases resolved; those in `data_1`
///   are [`SeriesKind::Parameter`]. Variables of one data matrix share a time axis.
/// - **JSON**: the independent `Var` (`"independent": true`, mastersim's `time`) is the time
///   axis, shared by every `Var`; its unit is the time unit. `Var`s with numbers,
///   Booleans and `null`s are series; `Var`s with strings are text columns; `Par`s are
///   parameters (Strings: text columns); aliases take the values of their target, with
///   their own unit. `Map`s (`attributes`) are skipped.
///
/// Units: as stored; time in `time_unit`.
///
/// # Errors
/// Every error names the file. [`Error::NoResultFile`] if `path` is not an existing file,
/// [`Error::ResultFileType`] for another extension (both list the accepted ones);
/// [`Error::Read`] if the file cannot be read. CSV: [`Error::Table`] with the line, for
/// the problems of [`RawTable::read`](crate::table::RawTable::read) (no header or data row,
/// separator, unclosed quote, field count) and [`TableProblem::Time`](crate::TableProblem)
/// for a time that is not a number. MAT: [`Error::MatFormat`] naming the matrix.
/// JSON: [`Error::JsonSyntax`] with the parser's line and column for invalid JSON or a
/// value of the wrong JSON type; [`Error::JsonFormat`] naming the member (if any) and the
/// [`JsonProblem`](crate::JsonProblem) for the rest: no `"_class": "SignalTable"`, a member
/// that is no `Var`, `Par` or `Map`, a duplicate member, values that mix strings with
/// numbers, no or two independent variables, a value count that differs from the time
/// points, an alias without target or in a cycle of aliases.
///
/// Spec: see the [module documentation](self).
pub fn read(path: &Path) -> Result<ResultFile> {
    if !path.is_file() {
        return Err(Error::NoResultFile {
            path: path.to_path_buf(),
        });
    }
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match extension.as_deref() {
        Some("csv") => csv::read(path),
        Some("mat") => read_mat(path),
        Some("json") => json::read(path),
        _ => Err(Error::ResultFileType {
            path: path.to_path_buf(),
        }),
    }
}

/// Reads a MAT v4 result file with [`crate::mat::read`]; every variable is numeric.
///
/// The time unit is seconds (what mastersim writes; the reader does not expose the
/// abscissa's unit).
fn read_mat(path: &Path) -> Result<ResultFile> {
    let file = crate::mat::read(path)?;
    Ok(ResultFile {
        time_unit: "s".to_string(),
        series: file
            .signals
            .into_iter()
            .map(|s| Series {
                name: s.name,
                unit: s.unit,
                time: s.time,
                values: s.values,
                kind: if s.parameter {
                    SeriesKind::Parameter
                } else {
                    SeriesKind::Variable
                },
            })
            .collect(),
        text_columns: Vec::new(),
    })
}

impl ResultFile {
    /// The [`SeriesKind::Variable`] series on one common time axis, as a column-major table;
    /// parameters and text columns are left out.
    ///
    /// The common axis is the time axis of the first variable. Another variable is on it
    /// when its time is the same `Arc` or holds equal values (NaN equal to NaN), and it has
    /// one value per time point.
    ///
    /// Units: `time` in [`ResultFile::time_unit`], columns in their units.
    /// Shapes: one column per variable, each `time.len()` long (see [`ResultTable`]).
    ///
    /// # Errors
    /// [`Error::NoVariable`] when there is no variable; [`Error::TimeAxis`] naming every
    /// variable on another time axis (or with another number of values than time points),
    /// as MAT files written after the output filter have. The errors do not name the file,
    /// which a `ResultFile` does not know.
    ///
    /// Spec: MasterSim reference §12.1 (one row per output time).
    pub fn table(&self) -> Result<ResultTable> {
        let mut variables = self
            .series
            .iter()
            .filter(|s| s.kind == SeriesKind::Variable);
        let first = variables.next().ok_or(Error::NoVariable)?;
        let time = &first.time;
        let same_time = |s: &Series| {
            Arc::ptr_eq(&s.time, time)
                || (s.time.len() == time.len()
                    && s.time
                        .iter()
                        .zip(time.iter())
                        .all(|(a, b)| a == b || (a.is_nan() && b.is_nan())))
        };
        let others: Vec<String> = std::iter::once(first)
            .chain(variables.clone())
            .filter(|s| !same_time(s) || s.values.len() != time.len())
            .map(|s| s.name.clone())
            .collect();
        if !others.is_empty() {
            return Err(Error::TimeAxis {
                first: first.name.clone(),
                others,
            });
        }
        let count = 1 + variables.clone().count();
        let mut table = ResultTable {
            time: time.to_vec(),
            names: Vec::with_capacity(count),
            units: Vec::with_capacity(count),
            columns: Vec::with_capacity(count),
        };
        for s in std::iter::once(first).chain(variables) {
            table.names.push(s.name.clone());
            table.units.push(s.unit.clone());
            table.columns.push(s.values.clone());
        }
        Ok(table)
    }
}
