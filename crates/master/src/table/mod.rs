//! Input tables of file-reader slaves: CSV/TSV files whose columns feed FMU inputs.
//!
//! A [`Table`] is read once per file and shared (`Arc`) by the file-reader slaves
//! ([`crate::file_reader::FileReaderSlave`]) that use it. Column 0 is time; every other column
//! is an output whose value reference is its index in [`Table::columns`]. Values are
//! interpolated linearly (Real) or taken as steps (Integer, Boolean) with MasterSim's exact
//! arithmetic.
//!
//! Integers are exact over the whole range of every FMI integer type: a cell is kept as a
//! double, and where the double no longer holds every integer (beyond 2^53 in magnitude) the
//! cell's integer is also kept exactly, as written ([`TableColumn::wide`]). A column that feeds
//! an integer input is checked at load against the input's range
//! ([`Table::check_integer_range`]).
//!
//! Besides MasterSim's format, tables may contain blank lines and full-line `#` comments (before
//! or after the header), and cells may have leading spaces and a leading `+`. Unlike MasterSim,
//! a cell with text after its number, or a non-finite number, is an error.
//!
//! Spec: MasterSim reference §4, §17 (file-reader weaknesses).

use std::path::{Path, PathBuf};

use output::TableProblem;
use output::table::{RawTable, ReadOptions, Separator};

use crate::number::parse_float;
use crate::project::TimeUnit;

/// One variable column of a table.
#[derive(Debug, Clone, PartialEq)]
pub struct TableColumn {
    /// Caption without the unit part.
    pub name: String,
    /// Unit from `[...]`, or `-` when absent (not converted).
    pub unit: String,
    /// One value per row. Two rows may share a time (a jump, see [`Table::real_at`]).
    pub values: Vec<f64>,
    /// The exact integers of the cells beyond 2^53 in magnitude whose integer (the cell's text
    /// truncated toward zero) differs from their double's: `(row, integer)`, rows ascending.
    /// Empty for almost every column; see [`Table::integer_at`].
    pub wide: Vec<(usize, i128)>,
}

/// A parsed CSV/TSV table. Times are in seconds, strictly increasing.
///
/// Shapes: `time.len() >= 1`, `columns.len() >= 1`, `lines.len() == time.len()`, and every
/// `columns[i].values.len() == time.len()`.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The file read.
    pub path: PathBuf,
    /// Time column in s.
    pub time: Vec<f64>,
    /// Variable columns (file columns 1..n); the value reference of column `i` is `i`.
    pub columns: Vec<TableColumn>,
    /// The 1-based line of the file each row comes from (for messages).
    pub lines: Vec<usize>,
}

/// Splits a caption into name and unit: the unit is between the last `[` and the last `]`.
fn split_caption(caption: &str) -> (String, String) {
    const TRIM: [char; 4] = [' ', '\t', '\r', '"'];
    match (caption.rfind('['), caption.rfind(']')) {
        (Some(open), Some(close)) if close > open => (
            caption[..open].trim_matches(TRIM).to_owned(),
            caption[open + 1..close].trim_matches(TRIM).to_owned(),
        ),
        _ => (caption.trim_matches(TRIM).to_owned(), String::new()),
    }
}

/// Reads a cell: surrounding blanks (and quotes) removed, an optional leading `+`, then a
/// complete finite number. Returns the number and its text (without the `+`).
fn parse_cell(text: &str) -> Option<(f64, &str)> {
    let text = text.trim_matches([' ', '\t', '\r', '"']);
    let body = match text.strip_prefix('+') {
        Some(b) if !b.starts_with(['+', '-']) => b,
        _ => text,
    };
    parse_float(body)
        .filter(|v| v.is_finite())
        .map(|v| (v, body))
}

/// Magnitude from which a double no longer holds every integer: 2^53.
const EXACT_DOUBLE_LIMIT: f64 = 9_007_199_254_740_992.0;

/// The integer of a cell whose number `value` was read from `text`: `value` truncated toward
/// zero (saturating at the `i128` range), except beyond 2^53 in magnitude, where the truncation
/// of the decimal number as written is taken exactly (`None` when it does not fit an `i128`,
/// then out of the range of every integer input).
///
/// Spec: MasterSim reference §4.4 (Integer: the step value truncated toward zero).
fn cell_integer(value: f64, text: &str) -> Option<i128> {
    if value.abs() < EXACT_DOUBLE_LIMIT {
        Some(value as i128)
    } else {
        truncate_decimal(text)
    }
}

/// The decimal number `text` (an optional `-`, digits with an optional decimal point, an
/// optional exponent: the form [`parse_float`] accepts, without `inf` and `nan`) truncated
/// toward zero, exactly; `None` when the result does not fit an `i128` or `text` has another
/// form.
fn truncate_decimal(text: &str) -> Option<i128> {
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(k) => (&text[..k], text[k + 1..].parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if !(whole.bytes().chain(fraction.bytes())).all(|b| b.is_ascii_digit()) {
        return None;
    }
    // The digits before the decimal point once the exponent has moved it.
    let digits: Vec<u8> = whole.bytes().chain(fraction.bytes()).collect();
    let point = i64::try_from(whole.len()).ok()?.checked_add(exponent)?;
    let mut magnitude: i128 = 0;
    for k in 0..point.max(0) {
        let digit = usize::try_from(k)
            .ok()
            .and_then(|k| digits.get(k))
            .map_or(0, |d| i128::from(d - b'0'));
        magnitude = magnitude.checked_mul(10)?.checked_add(digit)?;
    }
    Some(if negative { -magnitude } else { magnitude })
}

impl TableColumn {
    /// Appends the cell `(value, text)` as the next row.
    fn push(&mut self, (value, text): (f64, &str)) {
        let row = self.values.len();
        self.values.push(value);
        let integer =
            cell_integer(value, text).unwrap_or(if value < 0.0 { i128::MIN } else { i128::MAX });
        if integer != value as i128 {
            self.wide.push((row, integer));
        }
    }

    /// The integer of row `row` (see [`Table::integer_at`]); `row < values.len()`.
    fn integer(&self, row: usize) -> i128 {
        if self.wide.is_empty() {
            return self.values[row] as i128;
        }
        match self.wide.binary_search_by_key(&row, |&(r, _)| r) {
            Ok(k) => self.wide[k].1,
            Err(_) => self.values[row] as i128,
        }
    }
}

impl Table {
    /// Reads a table file (see [`Table::parse`]).
    ///
    /// Invalid UTF-8 is replaced (captions with legacy encodings still load).
    ///
    /// # Errors
    /// [`TableError::Io`] when the file cannot be read, and any error of [`Table::parse`].
    ///
    /// Spec: MasterSim reference §4.
    pub fn from_file(path: &Path) -> Result<Table, TableError> {
        let bytes = output::input::read(path, output::input::TABLE_LIMIT).map_err(|source| {
            TableError::Io {
                path: path.to_path_buf(),
                source: source.into(),
            }
        })?;
        Table::parse(&String::from_utf8_lossy(&bytes), path)
    }

    /// Parses the text of a table file; `path` names it in errors.
    ///
    /// The text is split by the workspace's one table reader ([`output::table`]), with empty
    /// fields dropped. The header and the first data row decide the flavour: tab-separated when
    /// both have the same number (≥ 2) of non-empty tab-separated fields, otherwise
    /// comma-separated (a field may be quoted, RFC 4180) under the same condition; semicolons
    /// are not a MasterSim flavour. Captions are `name [unit]`; column 0 is time, in
    /// `s` when it has no unit, converted to s with [`TimeUnit::to_seconds`]. Times must not
    /// decrease; two rows with the same time form a jump (a third row with that time replaces
    /// the second). MasterSim instead let the later row overwrite the earlier one.
    /// Blank lines and lines starting with `#` are skipped (an extension of MasterSim).
    ///
    /// # Errors
    /// [`TableError::NoData`] without a header and a data row, [`TableError::UnknownFlavour`],
    /// [`TableError::UnclosedQuote`], [`TableError::NotATimeUnit`], [`TableError::ColumnCount`],
    /// [`TableError::BadCell`], [`TableError::NotIncreasing`]; each names the file and line.
    ///
    /// Spec: MasterSim reference §4.1, §4.2, §4.4 (duplicate times), §17.
    ///
    /// # Examples
    /// ```
    /// use std::path::Path;
    /// use master::table::Table;
    ///
    /// let table = Table::parse("time [min]\tT [C]\n0\t10\n1\t20\n", Path::new("t.tsv"))?;
    /// assert_eq!(table.time, [0.0, 60.0]);
    /// assert_eq!(table.real_at(0, 15.0), Some(12.5));
    /// assert_eq!(table.step_at(0, 15.0), Some(10.0));
    /// # Ok::<(), master::table::TableError>(())
    /// ```
    pub fn parse(text: &str, path: &Path) -> Result<Table, TableError> {
        let read = |separator| {
            let options = ReadOptions {
                separator: Some(separator),
                drop_empty_fields: true,
                equal_field_counts: false,
            };
            RawTable::parse(text, path, &options).map_err(|e| TableError::from_read(e, path))
        };
        // MasterSim's two flavours: tab, then comma (double quotes group characters there).
        let counts = |t: &RawTable| (t.header.fields.len(), t.rows[0].fields.len());
        let tab = read(Separator::Tab)?;
        let (tab_header, tab_row) = counts(&tab);
        let raw = if tab_header >= 2 && tab_header == tab_row {
            tab
        } else {
            let comma = read(Separator::Comma)?;
            let (comma_header, comma_row) = counts(&comma);
            if comma_header >= 2 && comma_header == comma_row {
                comma
            } else {
                return Err(TableError::UnknownFlavour {
                    path: path.to_path_buf(),
                    line: tab.header.line,
                    header: (tab_header, comma_header),
                    row_line: tab.rows[0].line,
                    row: (tab_row, comma_row),
                });
            }
        };
        let header_line = raw.header.line;
        let captions: Vec<(String, String)> =
            raw.header.fields.iter().map(|c| split_caption(c)).collect();
        let time_unit = match captions[0].1.as_str() {
            "" => TimeUnit::Second,
            unit => TimeUnit::from_name(unit).ok_or_else(|| TableError::NotATimeUnit {
                path: path.to_path_buf(),
                line: header_line,
                unit: unit.to_owned(),
            })?,
        };
        let mut table = Table {
            path: path.to_path_buf(),
            time: Vec::new(),
            columns: captions[1..]
                .iter()
                .map(|(name, unit)| TableColumn {
                    name: name.clone(),
                    unit: if unit.is_empty() {
                        "-".into()
                    } else {
                        unit.clone()
                    },
                    values: Vec::new(),
                    wide: Vec::new(),
                })
                .collect(),
            lines: Vec::new(),
        };
        let mut last_line = 0;
        for row in &raw.rows {
            let (line, cells) = (row.line, &row.fields);
            if cells.len() != captions.len() {
                return Err(TableError::ColumnCount {
                    path: path.to_path_buf(),
                    line,
                    found: cells.len(),
                    expected: captions.len(),
                });
            }
            let mut row = Vec::with_capacity(cells.len());
            for (column, cell) in cells.iter().enumerate() {
                row.push(parse_cell(cell).ok_or_else(|| TableError::BadCell {
                    path: path.to_path_buf(),
                    line,
                    column: column + 1,
                    caption: captions[column].0.clone(),
                    text: cell.clone(),
                })?);
            }
            let t = time_unit.to_seconds(row[0].0);
            let n = table.time.len();
            match table.time.last() {
                // A third row at the same time replaces the second: a jump has two sides only.
                Some(&prev) if t == prev && n >= 2 && table.time[n - 2] == prev => {
                    for (col, &cell) in table.columns.iter_mut().zip(&row[1..]) {
                        col.values.pop();
                        if col.wide.last().is_some_and(|&(r, _)| r == n - 1) {
                            col.wide.pop();
                        }
                        col.push(cell);
                    }
                    *table.lines.last_mut().expect("invariant: one line per row") = line;
                }
                Some(&prev) if t < prev => {
                    return Err(TableError::NotIncreasing {
                        path: path.to_path_buf(),
                        line,
                        time: t,
                        previous: prev,
                        previous_line: last_line,
                    });
                }
                _ => {
                    table.time.push(t);
                    table.lines.push(line);
                    for (col, &cell) in table.columns.iter_mut().zip(&row[1..]) {
                        col.push(cell);
                    }
                }
            }
            last_line = line;
        }
        Ok(table)
    }

    /// Index of the first column with this caption.
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// The values of `column` when it exists and matches the (non-empty) time column in length
    /// (a parsed table always does; hand-built ones might not).
    fn column_values(&self, column: usize) -> Option<&[f64]> {
        let values = &self.columns.get(column)?.values;
        (!values.is_empty() && values.len() == self.time.len()).then_some(values.as_slice())
    }

    /// Number of rows with time `<= t`: the row in effect at `t` is the one before this index
    /// (right-continuous at a jump). O(log n).
    pub fn rows_up_to(&self, t: f64) -> usize {
        self.time.partition_point(|x| *x <= t)
    }

    /// [`Table::rows_up_to`] for a time `t` near the one that gave `hint`: O(1) when `t` is in
    /// the same or the next interval (a reader stepping forward), O(log n) otherwise.
    pub fn rows_up_to_near(&self, t: f64, hint: usize) -> usize {
        let x = &self.time;
        let fits = |k: usize| (k == 0 || x[k - 1] <= t) && (k == x.len() || t < x[k]);
        if hint <= x.len() && fits(hint) {
            hint
        } else if hint < x.len() && fits(hint + 1) {
            hint + 1
        } else {
            self.rows_up_to(t)
        }
    }

    /// Linearly interpolated value of `column` at time `t` (s); `None` for an unknown column
    /// (or a column whose length differs from [`Table::time`]).
    ///
    /// Held constant at the first/last value outside the time range. Inside, for the interval
    /// with `x_i <= t < x_{i+1}`, computes `a = (t - x_i)/(x_{i+1} - x_i)` and returns
    /// `y_i*(1 - a) + y_{i+1}*a` (MasterSim's exact arithmetic). Two rows with the same time
    /// form a jump: the interval before it ends at the first row's value, and from that time on
    /// the second row applies. O(log n).
    ///
    /// Spec: MasterSim reference §4.4 (Real), §16 (the manual's jump semantics).
    pub fn real_at(&self, column: usize, t: f64) -> Option<f64> {
        self.real_at_rows(column, t, self.rows_up_to(t))
    }

    /// [`Table::real_at`] with `rows` = [`Table::rows_up_to`]`(t)` already known.
    pub fn real_at_rows(&self, column: usize, t: f64, rows: usize) -> Option<f64> {
        let y = self.column_values(column)?;
        let x = &self.time;
        let n = x.len();
        let k = rows;
        if k == 0 {
            return Some(y[0]);
        }
        if k == n {
            return Some(y[n - 1]);
        }
        let i = k - 1;
        let a = (t - x[i]) / (x[i + 1] - x[i]);
        Some(y[i] * (1.0 - a) + y[i + 1] * a)
    }

    /// Step value of `column` at time `t` (s); `None` as for [`Table::real_at`].
    ///
    /// The value of the last row with time `<= t` (the later row at a jump), and `y_0` before
    /// the first row. This equals MasterSim's rule: `y_0` for `t <= x_0`, `y_last` for
    /// `t > x_last`, `y_{i+1}` when `t == x_{i+1}`, otherwise `y_i`. O(log n).
    ///
    /// Spec: MasterSim reference §4.4 (step value).
    pub fn step_at(&self, column: usize, t: f64) -> Option<f64> {
        self.step_at_rows(column, self.rows_up_to(t))
    }

    /// [`Table::step_at`] with `rows` = [`Table::rows_up_to`]`(t)` already known.
    pub fn step_at_rows(&self, column: usize, rows: usize) -> Option<f64> {
        let y = self.column_values(column)?;
        Some(y[rows.max(1) - 1])
    }

    /// Integer value of `column` at `t` (s): the step value truncated toward zero, exact over
    /// the whole `i64` and `u64` ranges.
    ///
    /// Up to 2^53 in magnitude this is the cell's double truncated toward zero, as MasterSim
    /// computes it; beyond, where a double no longer holds every integer, the cell's decimal
    /// text truncated toward zero, exactly ([`TableColumn::wide`]). A cell beyond the `i128`
    /// range gives `i128::MAX` or `i128::MIN` (outside every FMI integer type, so refused at load
    /// by [`Table::check_integer_range`]).
    ///
    /// Spec: MasterSim reference §4.4 (Integer; MasterSim's `(int)` cast is undefined outside
    /// the `int` range).
    ///
    /// # Examples
    /// ```
    /// use std::path::Path;
    /// use master::table::Table;
    ///
    /// let text = "time\tn\n0\t18446744073709551615\n1\t-2.7\n";
    /// let table = Table::parse(text, Path::new("t.tsv"))?;
    /// assert_eq!(table.integer_at(0, 0.0), Some(i128::from(u64::MAX)));
    /// assert_eq!(table.integer_at(0, 1.0), Some(-2));
    /// # Ok::<(), master::table::TableError>(())
    /// ```
    pub fn integer_at(&self, column: usize, t: f64) -> Option<i128> {
        self.integer_at_rows(column, self.rows_up_to(t))
    }

    /// [`Table::integer_at`] with `rows` = [`Table::rows_up_to`]`(t)` already known.
    pub fn integer_at_rows(&self, column: usize, rows: usize) -> Option<i128> {
        self.column_values(column)?;
        Some(self.columns[column].integer(rows.max(1) - 1))
    }

    /// Checks that every integer of `column` (see [`Table::integer_at`]), after `map`, lies in
    /// `min..=max`, the range of the integer input `input` (of type `type_name`) it feeds.
    ///
    /// # Errors
    /// [`TableError::IntegerRange`] naming the file, the line and the column of the first value
    /// out of range; [`TableError::NoSuchColumn`] for an unknown column.
    ///
    /// Spec: `docs/fmi3.md` (file readers feeding integer inputs).
    pub fn check_integer_range(
        &self,
        column: usize,
        (min, max): (i128, i128),
        map: impl Fn(i128) -> i128,
        input: &str,
        type_name: &str,
    ) -> Result<(), TableError> {
        let col = self.columns.get(column).ok_or(TableError::NoSuchColumn {
            path: self.path.clone(),
            column: column as u32,
            count: self.columns.len(),
        })?;
        for row in 0..col.values.len() {
            let value = map(col.integer(row));
            if value < min || value > max {
                return Err(TableError::IntegerRange(Box::new(IntegerOutOfRange {
                    path: self.path.clone(),
                    line: self.lines.get(row).copied().unwrap_or(0),
                    column: column + 2,
                    caption: col.name.clone(),
                    value,
                    input: input.to_owned(),
                    type_name: type_name.to_owned(),
                    min,
                    max,
                })));
            }
        }
        Ok(())
    }

    /// Boolean value of `column` at `t` (s): the step value is non-zero.
    ///
    /// Spec: MasterSim reference §4.4 (Boolean).
    pub fn boolean_at(&self, column: usize, t: f64) -> Option<bool> {
        self.boolean_at_rows(column, self.rows_up_to(t))
    }

    /// [`Table::boolean_at`] with `rows` = [`Table::rows_up_to`]`(t)` already known.
    pub fn boolean_at_rows(&self, column: usize, rows: usize) -> Option<bool> {
        self.step_at_rows(column, rows).map(|v| v != 0.0)
    }
}

/// A table integer that does not fit the integer input its column feeds
/// ([`TableError::IntegerRange`]).
#[derive(Debug, thiserror::Error)]
#[error(
    "{path}:{line}: column {column} ('{caption}'): {value} does not fit the {type_name} \
     input '{input}', expected an integer from {min} to {max}"
)]
pub struct IntegerOutOfRange {
    /// The file.
    pub path: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// 1-based column of the file (1 is time).
    pub column: usize,
    /// Caption of the column.
    pub caption: String,
    /// The integer of the cell (after a value mapping, if the connection has one).
    pub value: i128,
    /// The input, `<slave>.<variable>`.
    pub input: String,
    /// The input's data type (`Int8`, `UInt64`, FMI 2.0 `Integer`, …).
    pub type_name: String,
    /// Smallest value of the type.
    pub min: i128,
    /// Largest value of the type.
    pub max: i128,
}

/// A table file error.
///
/// Messages name the file and, where relevant, the 1-based line and column, and say what was
/// expected.
///
/// Spec: MasterSim reference §4 (the errors MasterSim reports, with clearer wording).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TableError {
    /// The file could not be read.
    #[error("cannot read table file '{path}': {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A double quote of a comma-separated table that its line does not close.
    #[error(
        "{path}:{line}: a quoted field is not closed, expected a closing '\"' on the same line"
    )]
    UnclosedQuote {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
    },
    /// No header line or no data row.
    #[error("{path}: no data, expected a header line followed by at least one data row")]
    NoData {
        /// The file.
        path: PathBuf,
    },
    /// Neither tab nor comma separation gives matching column counts.
    #[error(
        "{path}:{line}: cannot tell the column separator (header: {} tab- / {} comma-separated \
         fields, line {row_line}: {} / {}), expected the header and the first data row to have \
         the same number (at least 2) of tab- or comma-separated fields",
        header.0, header.1, row.0, row.1
    )]
    UnknownFlavour {
        /// The file.
        path: PathBuf,
        /// 1-based line of the header.
        line: usize,
        /// Field counts of the header when split at tabs and at commas.
        header: (usize, usize),
        /// 1-based line of the first data row.
        row_line: usize,
        /// Field counts of the first data row when split at tabs and at commas.
        row: (usize, usize),
    },
    /// The time column's unit is not a time unit.
    #[error(
        "{path}:{line}: time column unit '{unit}' is not a time unit, expected one of ms, s, min, h, d, a"
    )]
    NotATimeUnit {
        /// The file.
        path: PathBuf,
        /// 1-based line of the header.
        line: usize,
        /// The unit found.
        unit: String,
    },
    /// A data row with a different number of fields than the header.
    #[error("{path}:{line}: {found} field(s) in this row, expected {expected} as in the header")]
    ColumnCount {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// Number of fields found.
        found: usize,
        /// Number of header captions.
        expected: usize,
    },
    /// A cell that is not a complete finite number.
    #[error(
        "{path}:{line}: column {column} ('{caption}'): '{text}' is not a number, expected a finite \
         number such as 1.5e-3 and nothing after it"
    )]
    BadCell {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column (1 is time).
        column: usize,
        /// Caption of the column.
        caption: String,
        /// The cell text.
        text: String,
    },
    /// A time smaller than the previous row's.
    #[error(
        "{path}:{line}: time {time} s is before {previous} s of line {previous_line}, expected \
         increasing times"
    )]
    NotIncreasing {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// The time of this row in s.
        time: f64,
        /// The time of the previous row in s.
        previous: f64,
        /// 1-based line of the previous row.
        previous_line: usize,
    },
    /// An integer that does not fit the integer input its column feeds (boxed: the variant
    /// would make every `Result` of a table large).
    #[error("{0}")]
    IntegerRange(Box<IntegerOutOfRange>),
    /// A value reference that is not a column index of the table.
    #[error("{path}: no column with value reference {column}, expected 0..{count}")]
    NoSuchColumn {
        /// The file.
        path: PathBuf,
        /// The value reference used.
        column: u32,
        /// Number of variable columns.
        count: usize,
    },
}

impl TableError {
    /// The error of the table reader for the file `path`.
    fn from_read(e: output::Error, path: &Path) -> TableError {
        match e {
            output::Error::Table {
                line,
                problem: TableProblem::UnclosedQuote,
                ..
            } => TableError::UnclosedQuote {
                path: path.to_path_buf(),
                line,
            },
            output::Error::Read { source, .. } => TableError::Io {
                path: path.to_path_buf(),
                source,
            },
            _ => TableError::NoData {
                path: path.to_path_buf(),
            },
        }
    }
}

#[cfg(test)]
mod tests;
