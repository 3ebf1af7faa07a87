//! The error type of the `output` crate.

use std::path::PathBuf;

use crate::signal_type::SignalType;

/// Result alias of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong while writing a result or log file, or reading a result file
/// or a delimited text table.
///
/// Spec: mastersim STYLE §4 (one `thiserror` enum per crate, variants with context).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be created (missing directory, permissions, …).
    #[error("cannot create file '{}': {source}", path.display())]
    Create {
        /// The file that was to be created.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// Writing to (or flushing) an open file failed.
    #[error("cannot write to file '{}': {source}", path.display())]
    Write {
        /// The file being written.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// A row did not have one value per column.
    #[error("'{}': row has {found} values, but the file has {expected} columns", path.display())]
    ColumnCount {
        /// The file being written.
        path: PathBuf,
        /// Number of columns declared when the file was created (time column excluded).
        expected: usize,
        /// Number of values passed for the row.
        found: usize,
    },
    /// A verifying writer found different bytes in the file than it would have written, or
    /// an appending writer found the file shorter than expected (`line` 0).
    #[error("'{}' line {line}: {detail}", path.display())]
    Mismatch {
        /// The file compared.
        path: PathBuf,
        /// 1-based line of the first difference (0: the file as a whole).
        line: u64,
        /// The column (`<slave>.<variable>`, with its unit in CSV files) whose value differs,
        /// when one does.
        column: Option<String>,
        /// What differs: the column, the recomputed and the stored value.
        detail: String,
    },
    /// A file could not be opened or read.
    #[error("cannot read file '{}': {source}", path.display())]
    Read {
        /// The file being read.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// A MAT file is not a readable MAT v4 / DSRES result file.
    #[error("'{}', matrix '{matrix}': {problem}", path.display())]
    MatFormat {
        /// The file being read.
        path: PathBuf,
        /// Name of the matrix concerned (`#<n>` counted from 1 when its name is unknown).
        matrix: String,
        /// What is wrong with it.
        problem: MatProblem,
    },
    /// A delimited text table cannot be read as one (see [`crate::table`]).
    #[error("'{}' line {line}: {problem}", path.display())]
    Table {
        /// The file read (for a text, the name it was given).
        path: PathBuf,
        /// 1-based line of the problem; for a missing header or data row, the line after the
        /// last one.
        line: usize,
        /// What is wrong there.
        problem: TableProblem,
    },
    /// A matrix would exceed the 32-bit row or column count of a MAT v4 header.
    #[error("'{}': matrix '{matrix}' would have {rows}×{columns} entries, more than MAT v4 allows", path.display())]
    MatTooLarge {
        /// The file being written.
        path: PathBuf,
        /// Name of the matrix.
        matrix: String,
        /// Rows it would have.
        rows: usize,
        /// Columns it would have.
        columns: usize,
    },
    /// A series passed to a whole-file writer has a different number of times and values.
    #[error("'{}': signal '{name}' has {times} time points but {values} values", path.display())]
    SeriesLength {
        /// The file being written.
        path: PathBuf,
        /// Name of the signal.
        name: String,
        /// Number of time points.
        times: usize,
        /// Number of values.
        values: usize,
    },
    /// An alias refers to a signal or parameter index that does not exist.
    #[error("'{}': alias '{alias}' refers to {} {of}, but there are only {count}", path.display(), target_kind(.parameter))]
    AliasTarget {
        /// The file being written.
        path: PathBuf,
        /// Name of the alias.
        alias: String,
        /// The index it refers to.
        of: usize,
        /// Whether it refers to a parameter (else a signal).
        parameter: bool,
        /// Number of signals (or parameters) there are.
        count: usize,
    },
    /// An alias of a String signal or parameter is marked as negated.
    #[error("'{}': alias '{alias}' of a String is marked as negated", path.display())]
    NegatedStringAlias {
        /// The file being written.
        path: PathBuf,
        /// Name of the alias.
        alias: String,
    },
    /// Two signals, parameters or aliases of one file have the same name (or a reserved one).
    #[error("'{}': the name '{name}' is used twice (or is reserved)", path.display())]
    DuplicateName {
        /// The file being written.
        path: PathBuf,
        /// The name.
        name: String,
    },
    /// A Signal Table row did not have one value per signal of some type.
    #[error("'{}': row has {found} {ty} values, but the table has {expected} {ty} signals", path.display())]
    RowLength {
        /// The file being written.
        path: PathBuf,
        /// The type whose count is wrong.
        ty: SignalType,
        /// Number of signals of that type in the layout.
        expected: usize,
        /// Number of values passed.
        found: usize,
    },
    /// A result file to read does not exist (or is not a file).
    #[error(
        "result file '{}' doesn't exist or is not a file; expected an existing {} file",
        path.display(), ACCEPTED_RESULT_FILES
    )]
    NoResultFile {
        /// The path given.
        path: PathBuf,
    },
    /// A result file to read has an extension that names no format
    /// [`result_file::read`](crate::result_file::read) knows.
    #[error(
        "unknown result file type '{}': expected a {} file",
        path.display(), ACCEPTED_RESULT_FILES
    )]
    ResultFileType {
        /// The path given.
        path: PathBuf,
    },
    /// A JSON result file is not valid JSON, or one of its values has a JSON type that a
    /// Signal Table does not allow there.
    #[error("'{}' line {line} column {column}: {message}", path.display())]
    JsonSyntax {
        /// The file read.
        path: PathBuf,
        /// 1-based line of the problem, as the JSON parser counts.
        line: usize,
        /// 1-based column (in bytes) on that line where the parser found the problem (0 at
        /// the start of a line, such as the end of an empty file); on the first line it
        /// counts from after a byte order mark. mastersim writes the whole table on one
        /// line, so this is where to look.
        column: usize,
        /// The parser's message (what it found and what it expected), without the position.
        message: String,
    },
    /// A JSON result file is valid JSON but not a Signal Table as mastersim writes it.
    #[error("'{}'{}: {problem}", path.display(), in_member(.member))]
    JsonFormat {
        /// The file read.
        path: PathBuf,
        /// Name of the member of the table concerned; `None` for the table as a whole.
        member: Option<String>,
        /// What is wrong.
        problem: JsonProblem,
    },
    /// A result file holds no time-varying numeric variable to put in a table.
    #[error(
        "no numeric variable, expected at least one time-varying numeric variable \
         (parameters and String columns do not count)"
    )]
    NoVariable,
    /// Variables of a result file are not on one common time axis.
    #[error(
        "{} not on the time axis of '{first}' (another time axis, or not one value per time \
         point), expected every variable on that one time axis",
        names_are(others)
    )]
    TimeAxis {
        /// The first variable, whose time axis is the common one.
        first: String,
        /// The variables on another time axis (or with another number of values than
        /// time points), in file order.
        others: Vec<String>,
    },
}

/// The result file extensions that [`result_file::read`](crate::result_file::read) accepts,
/// for messages.
const ACCEPTED_RESULT_FILES: &str = ".csv, .mat or .json";

/// `'a' is` or `'a', 'b' and 2 more are`, for [`Error::TimeAxis`].
fn names_are(names: &[String]) -> String {
    const SHOWN: usize = 5;
    let quoted: Vec<String> = names.iter().take(SHOWN).map(|n| format!("'{n}'")).collect();
    let list = quoted.join(", ");
    match names.len() {
        1 => format!("{list} is"),
        n if n > SHOWN => format!("{list} and {} more are", n - SHOWN),
        _ => format!("{list} are"),
    }
}

/// `parameter` or `signal`, for [`Error::AliasTarget`].
fn target_kind(parameter: &bool) -> &'static str {
    if *parameter { "parameter" } else { "signal" }
}

/// What is wrong with a matrix of a MAT file (see [`Error::MatFormat`]).
///
/// Spec: MATLAB level-4 MAT-file matrix header (type `M0PT`, mrows, ncols, imagf, namlen);
/// DSRES layout as in Otter, "Signal Tables" (2022) §2.2.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MatProblem {
    /// The file ends inside the matrix.
    #[error("the file ends after {available} of the {needed} bytes that start at offset {offset}")]
    Truncated {
        /// Byte offset where the missing part starts.
        offset: u64,
        /// Bytes needed from there.
        needed: u64,
        /// Bytes left in the file from there.
        available: u64,
    },
    /// The type code is not a MAT v4 full matrix of a known number format.
    #[error("unsupported type code {code} (only IEEE full real or text matrices are read)")]
    UnknownType {
        /// The type field as read (little-endian).
        code: i32,
    },
    /// The matrix has an imaginary part.
    #[error("complex matrices are not supported")]
    Imaginary,
    /// Row or column count is negative.
    #[error("negative size {mrows}×{ncols}")]
    NegativeSize {
        /// Row count as read.
        mrows: i32,
        /// Column count as read.
        ncols: i32,
    },
    /// The name length is zero or negative.
    #[error("invalid name length {namlen}")]
    NameLength {
        /// Name length as read (including the terminating NUL).
        namlen: i32,
    },
    /// A matrix the layout requires is absent.
    #[error("missing")]
    Missing,
    /// `Aclass` does not announce a DSRES trajectory 1.1 in `binTrans` or `binNormal` layout.
    #[error(
        "not an 'Atrajectory' 1.1 result file in binTrans or binNormal layout (found '{class}')"
    )]
    NotTrajectory {
        /// The lines of `Aclass`, joined by `|`.
        class: String,
    },
    /// The matrix has a shape the layout does not allow.
    #[error("unexpected shape {mrows}×{ncols}")]
    Shape {
        /// Row count.
        mrows: usize,
        /// Column count.
        ncols: usize,
    },
    /// The matrix describes a different number of variables than `dataInfo`.
    #[error("describes {found} variables, but 'dataInfo' describes {expected}")]
    Count {
        /// Number of variables in `dataInfo`.
        expected: usize,
        /// Number of entries found.
        found: usize,
    },
    /// A text matrix holds a value that is not a character code 0..=255.
    #[error("{value} is not a character code")]
    NotText {
        /// The value found.
        value: f64,
    },
    /// An integer matrix entry is not an integer.
    #[error("{value} is not an integer")]
    NotInteger {
        /// The value found.
        value: f64,
    },
    /// `dataInfo` points a variable to a data matrix or column that does not exist.
    #[error(
        "variable '{variable}' refers to column {column} of 'data_{data}', which does not exist"
    )]
    BadReference {
        /// Name of the variable.
        variable: String,
        /// The data matrix number (`j` of `data_j`).
        data: i64,
        /// The signed column number.
        column: i64,
    },
}

/// What is wrong with a delimited text table (see [`Error::Table`]).
///
/// Spec: MasterSim reference §4.1 (table flavours and how the separator is told); RFC 4180
/// §2 (quoted fields).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TableProblem {
    /// The text has no line that is neither blank nor a `#` comment.
    #[error(
        "no header line, expected a header line before the end of the file (blank lines and \
         '#' comment lines do not count)"
    )]
    NoHeader,
    /// No data row follows the header.
    #[error("no data rows, expected at least one data row after the header of line {header_line}")]
    NoData {
        /// 1-based line of the header.
        header_line: usize,
    },
    /// Every field of the header is empty, and empty fields are dropped.
    #[error("the header has no non-empty field, expected at least one caption")]
    EmptyHeader,
    /// No separator gives the header and the first data row the same number (≥ 2) of fields.
    ///
    /// The counts are per separator in the order tab, comma, semicolon.
    #[error(
        "cannot tell the field separator: the header has {} tab-, {} comma- and {} \
         semicolon-separated fields, line {row_line} has {}, {} and {}; expected both lines to \
         have the same number (at least 2) of fields with one of these separators",
        header[0], header[1], header[2], row[0], row[1], row[2]
    )]
    Separator {
        /// Field counts of the header with a tab, a comma and a semicolon as separator.
        header: [usize; 3],
        /// 1-based line of the first data row.
        row_line: usize,
        /// Field counts of the first data row with a tab, a comma and a semicolon.
        row: [usize; 3],
    },
    /// A field opens a double quote that its line does not close.
    #[error(
        "a quoted field is not closed on this line, expected a closing '\"' before the end of \
         the line (quoted fields cannot span lines)"
    )]
    UnclosedQuote,
    /// A time field of a result table is not a number.
    #[error("time '{text}' is not a number, expected a number in the first column")]
    Time {
        /// The field.
        text: String,
    },
    /// A data row has another number of fields than the header.
    #[error("{found} fields, but the header has {expected}; expected one field per column")]
    FieldCount {
        /// Number of fields in the row.
        found: usize,
        /// Number of fields in the header.
        expected: usize,
    },
    /// A value field of a result table is not a number.
    #[error("'{text}' in column '{column}' is not a number, expected a number")]
    Value {
        /// The column's caption without its unit.
        column: String,
        /// The field.
        text: String,
    },
    /// A column asked for has no caption in the header.
    #[error("the header has no column '{name}', expected a caption '{name} [<unit>]'")]
    MissingColumn {
        /// The name asked for.
        name: String,
    },
    /// Rows asked for are not complete in the file yet: its writer has not passed them to the
    /// operating system (a last line without its newline does not count).
    #[error(
        "the file holds {rows} complete data rows, expected at least {needed}; the rest is not \
         written yet"
    )]
    Unwritten {
        /// Complete data rows in the file.
        rows: usize,
        /// Data rows needed.
        needed: usize,
    },
}

/// What is wrong with a JSON result file that parses as JSON (see [`Error::JsonFormat`],
/// which names the member concerned, if any).
///
/// Spec: Otter, "Signal Tables" (2022) §3.2 (Var, Par, Map), §3.5 (Signal Tables on file).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JsonProblem {
    /// The table has no `"_class": "SignalTable"` member.
    #[error(
        "{}, expected \"_class\": \"SignalTable\" (a Signal Table)",
        found_class("the table", .class)
    )]
    NotSignalTable {
        /// The `_class` found, if any.
        class: Option<String>,
    },
    /// The member is not a `Var`, `Par` or `Map`.
    #[error("{}, expected \"Var\", \"Par\" or \"Map\"", found_class("it", .class))]
    Class {
        /// Its `_class`, if any.
        class: Option<String>,
    },
    /// The member's name is also that of an earlier member.
    #[error("appears twice, expected unique member names")]
    DuplicateMember,
    /// The member is a `Var` with neither `values` nor `alias`, or a `Par` with neither
    /// `value` nor `alias`.
    #[error("a {class} without \"{field}\", expected \"{field}\" or \"alias\"")]
    NoValues {
        /// `Var` or `Par`.
        class: &'static str,
        /// `values` or `value`.
        field: &'static str,
    },
    /// The `values` of the member mix strings with numbers or Booleans.
    #[error(
        "\"values\" mix strings with numbers, expected either numbers, Booleans and nulls, or \
         strings and nulls"
    )]
    MixedValues,
    /// No `Var` is marked `"independent": true`.
    #[error(
        "no independent variable, expected a Var with \"independent\": true (mastersim writes \
         \"time\")"
    )]
    NoIndependent,
    /// The member is a second `Var` marked `"independent": true`.
    #[error("a second independent variable after '{first}', expected one")]
    TwoIndependent {
        /// The first one, in file order.
        first: String,
    },
    /// The member, the independent variable, holds strings.
    #[error("the independent variable holds strings, expected numbers")]
    TextTime,
    /// The member is a `Var` with another number of values than the independent variable.
    #[error(
        "{found} values, but the independent variable '{independent}' has {expected}; \
         expected one value per time point"
    )]
    ValueCount {
        /// Number of values it has.
        found: usize,
        /// Name of the independent variable.
        independent: String,
        /// Number of time points.
        expected: usize,
    },
    /// The member is an alias of a name that is no member of its class.
    #[error("an alias of '{target}', which is no {class}; expected the name of a {class}")]
    AliasTarget {
        /// The name it refers to.
        target: String,
        /// `Var` or `Par`, the alias's class.
        class: &'static str,
    },
    /// Following the aliases from the member leads round in a cycle.
    #[error(
        "its aliases {} form a cycle, expected a chain of aliases that ends at a {class} with \
         values",
        arrows(.cycle)
    )]
    AliasCycle {
        /// The names in the cycle, in alias order, the first repeated at the end.
        cycle: Vec<String>,
        /// `Var` or `Par`, the aliases' class.
        class: &'static str,
    },
}

/// ` member '<name>'`, or nothing for `None`, for [`Error::JsonFormat`].
fn in_member(member: &Option<String>) -> String {
    member
        .as_ref()
        .map_or_else(String::new, |m| format!(" member '{m}'"))
}

/// `'a' -> 'b' -> 'a'`, for [`JsonProblem::AliasCycle`].
fn arrows(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    quoted.join(" -> ")
}

/// `<what> has "_class" "<class>"`, or `<what> has no "_class"`, for [`JsonProblem`].
fn found_class(what: &str, class: &Option<String>) -> String {
    match class {
        Some(class) => format!("{what} has \"_class\" \"{class}\""),
        None => format!("{what} has no \"_class\""),
    }
}
