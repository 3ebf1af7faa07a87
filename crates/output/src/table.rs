//! Reading delimited text tables: a header line and data rows of tab-, comma- or
//! semicolon-separated fields, such as the input tables of file-reader slaves and the result
//! files that `mastersim plot` reads.
//!
//! [`RawTable::read`] and [`RawTable::parse`] split a table into trimmed text fields and keep
//! the 1-based line number of every row; what the fields mean (captions, units, numbers) is up
//! to the caller. The fields are split by the `csv` crate. [`to_comma_separated`] writes rows
//! the other way, as the tables of sweeps (`cases.csv`, `sweep.csv`). The rules:
//!
//! - **Text.** A file's bytes are decoded as UTF-8, invalid sequences replaced by U+FFFD. A
//!   leading byte order mark is skipped.
//! - **Lines.** Lines end at `\n`; `\r` at the end of a line is dropped. Blank lines (only
//!   whitespace) and comment lines (whose first non-blank character is `#`) are skipped
//!   wherever they are, but they count in line numbers. The first remaining line is the
//!   header, the others are data rows; a table has at least one data row.
//! - **Separator.** Either given ([`ReadOptions::separator`]) or told from the header and the
//!   first data row: tab, comma and semicolon are tried in this order, and the first one with
//!   which both lines have the same number (at least 2) of fields is taken. When both lines
//!   have exactly one field with every separator, the table has one column, read as
//!   [`Separator::Tab`]. Otherwise the separator cannot be told
//!   ([`TableProblem::Separator`]).
//! - **Quotes.** With a comma or a semicolon, a field that starts with `"` is quoted: the
//!   separator is text inside it, `""` stands for one `"`, and the next single `"` closes it
//!   (text after the closing quote is appended as is). A `"` elsewhere in a field, also after
//!   leading blanks, is an ordinary character. A quoted field must be closed on its own line:
//!   an unclosed quote is an error at its line ([`TableProblem::UnclosedQuote`]), never a
//!   field that swallows the rest of the file. With a tab, double quotes are ordinary
//!   characters: fields are split at every tab and passed on verbatim (TSV has no quoting, and
//!   mastersim writes `strings.csv` verbatim), so a stray quote cannot swallow anything.
//! - **Fields.** Each field is trimmed of surrounding spaces and tabs (after unquoting, so
//!   blanks inside quotes at the ends of a field go too). Empty fields are kept, so that
//!   columns stay aligned, or dropped ([`ReadOptions::drop_empty_fields`]), so that a run of
//!   separators acts as one (MasterSim's tables). Field counts are checked against the
//!   header only on request ([`ReadOptions::equal_field_counts`]).
//!
//! Spec: MasterSim reference §4.1 (tab and comma flavours, how the flavour is told, empty
//! fields, quotes in the comma flavour); RFC 4180 §2 (quoted fields, doubled quotes); IANA
//! `text/tab-separated-values` (no quoting in TSV).
//!
//! # Examples
//! ```
//! use std::path::Path;
//! use output::table::{RawTable, ReadOptions, Separator};
//!
//! let text = "# reference\n\"time\",\"h [m]\"\r\n0,1\r\n\r\n0.5,\"0,75\"\r\n";
//! let table = RawTable::parse(text, Path::new("ref.csv"), &ReadOptions::default())?;
//! assert_eq!(table.separator, Separator::Comma);
//! assert_eq!(table.header.fields, ["time", "h [m]"]);
//! assert_eq!(table.rows[1].line, 5);
//! assert_eq!(table.rows[1].fields, ["0.5", "0,75"]);
//! # Ok::<(), output::Error>(())
//! ```

use std::path::{Path, PathBuf};

use ::csv::{ByteRecord, QuoteStyle, Reader, ReaderBuilder, Terminator, WriterBuilder};

use crate::{Error, Result, TableProblem};

#[cfg(test)]
mod tests;

/// The character between the fields of a table line.
///
/// Spec: MasterSim reference §4.1 (tab and comma flavours); the semicolon is the comma
/// flavour of spreadsheets that write a decimal comma.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Separator {
    /// `\t`; double quotes are ordinary characters.
    Tab,
    /// `,`; a double quote at the start of a field quotes it (RFC 4180).
    Comma,
    /// `;`; quotes as with [`Separator::Comma`].
    Semicolon,
}

impl Separator {
    /// The separators in the order in which they are tried when none is given; the field
    /// counts of [`TableProblem::Separator`] are in this order.
    pub const ALL: [Separator; 3] = [Separator::Tab, Separator::Comma, Separator::Semicolon];

    /// The separator as a byte.
    fn byte(self) -> u8 {
        match self {
            Separator::Tab => b'\t',
            Separator::Comma => b',',
            Separator::Semicolon => b';',
        }
    }
}

/// How [`RawTable::read`] and [`RawTable::parse`] split a table.
///
/// The default tells the separator from the header and the first data row, keeps empty
/// fields and accepts rows of any length.
///
/// Spec: MasterSim reference §4.1 (MasterSim drops empty fields; RFC 4180 keeps them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReadOptions {
    /// The separator, or `None` to tell it from the header and the first data row (see the
    /// [module documentation](self)).
    pub separator: Option<Separator>,
    /// Drop fields that are empty after trimming, so that a run of separators acts as one;
    /// otherwise keep them, so that the columns stay aligned.
    pub drop_empty_fields: bool,
    /// Reject a data row whose field count differs from the header's
    /// ([`TableProblem::FieldCount`]).
    pub equal_field_counts: bool,
}

/// One line of a table, split into fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// 1-based line number in the file (blank and comment lines counted).
    pub line: usize,
    /// The fields, trimmed and unquoted (see the [module documentation](self)).
    pub fields: Vec<String>,
}

/// A table split into text fields: a header and its data rows.
///
/// Shapes: `header.fields.len() >= 1`, `rows.len() >= 1`; with
/// [`ReadOptions::equal_field_counts`] every row has `header.fields.len()` fields.
///
/// Spec: MasterSim reference §4.1; RFC 4180 §2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawTable {
    /// The file read (for a text, the name it was given).
    pub path: PathBuf,
    /// The separator given or told.
    pub separator: Separator,
    /// The header line.
    pub header: Row,
    /// The data rows, in file order.
    pub rows: Vec<Row>,
}

impl RawTable {
    /// Reads the table file at `path` (see [`RawTable::parse`]); invalid UTF-8 is replaced
    /// by U+FFFD, so that captions in legacy encodings still load.
    ///
    /// # Errors
    /// [`Error::Read`] when the file cannot be read, and every error of [`RawTable::parse`].
    ///
    /// Spec: MasterSim reference §4.1.
    pub fn read(path: &Path, options: &ReadOptions) -> Result<RawTable> {
        let bytes =
            crate::input::read(path, crate::input::TABLE_LIMIT).map_err(|source| Error::Read {
                path: path.to_path_buf(),
                source: source.into(),
            })?;
        RawTable::parse(&String::from_utf8_lossy(&bytes), path, options)
    }

    /// Splits the text of a table; `path` only names it in errors and in
    /// [`RawTable::path`]. The rules are those of the [module documentation](self).
    ///
    /// # Errors
    /// [`Error::Table`] naming the file and the 1-based line, with the problem:
    /// [`TableProblem::NoHeader`], [`TableProblem::NoData`], [`TableProblem::EmptyHeader`],
    /// [`TableProblem::Separator`] (only when the separator is told),
    /// [`TableProblem::UnclosedQuote`], or [`TableProblem::FieldCount`] (only with
    /// [`ReadOptions::equal_field_counts`]).
    ///
    /// Spec: MasterSim reference §4.1; RFC 4180 §2.
    pub fn parse(text: &str, path: &Path, options: &ReadOptions) -> Result<RawTable> {
        let error = |line, problem| Error::Table {
            path: path.to_path_buf(),
            line,
            problem,
        };
        let lines = DataLines::new(text);
        let separator = match options.separator {
            Some(separator) => separator,
            None => detect(&lines, path, options)?,
        };
        // Every data line ends in `\n` and none is empty, so each is one record, unless a quote
        // is not closed on its line, which is an error: the records pair in order with the
        // line numbers. (The `csv` reader's record positions would not do on the original
        // text: a record's position is where the previous record ended, before any skipped
        // lines and before the `\n` of a `\r\n`.)
        let mut header: Option<Row> = None;
        let mut rows = Vec::with_capacity(lines.numbers.len().saturating_sub(1));
        for (record, &line) in reader(&lines.text, separator)
            .byte_records()
            .zip(&lines.numbers)
        {
            let record = record.map_err(|e| read_error(path, e))?;
            if record.iter().any(|f| f.contains(&b'\n')) {
                return Err(error(line, TableProblem::UnclosedQuote));
            }
            let fields = fields(&record, options.drop_empty_fields);
            match &header {
                None if fields.is_empty() => {
                    return Err(error(line, TableProblem::EmptyHeader));
                }
                None => header = Some(Row { line, fields }),
                Some(h) if options.equal_field_counts && fields.len() != h.fields.len() => {
                    return Err(error(
                        line,
                        TableProblem::FieldCount {
                            found: fields.len(),
                            expected: h.fields.len(),
                        },
                    ));
                }
                Some(_) => rows.push(Row { line, fields }),
            }
        }
        let header = header.ok_or_else(|| error(lines.end, TableProblem::NoHeader))?;
        if rows.is_empty() {
            return Err(error(
                lines.end,
                TableProblem::NoData {
                    header_line: header.line,
                },
            ));
        }
        Ok(RawTable {
            path: path.to_path_buf(),
            separator,
            header,
            rows,
        })
    }
}

/// The lines of a table text that are neither blank nor comments.
struct DataLines {
    /// Those lines, each without `\r` at its end and followed by one `\n`.
    text: String,
    /// Their 1-based line numbers in the original text, in order.
    numbers: Vec<usize>,
    /// 1-based number of the line after the last line of the original text.
    end: usize,
}

impl DataLines {
    /// Collects the data lines of `text`, after a byte order mark.
    fn new(text: &str) -> DataLines {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut lines = DataLines {
            text: String::with_capacity(text.len() + 1),
            numbers: Vec::new(),
            end: 1,
        };
        for (index, line) in text.lines().enumerate() {
            lines.end = index + 2;
            let line = line.trim_end_matches('\r');
            let content = line.trim_start();
            if content.is_empty() || content.starts_with('#') {
                continue;
            }
            lines.text.push_str(line);
            lines.text.push('\n');
            lines.numbers.push(index + 1);
        }
        lines
    }
}

/// A `csv` reader of `text` that splits at `separator` and ends records at `\n` only; double
/// quotes are special unless the separator is a tab.
fn reader(text: &str, separator: Separator) -> Reader<&[u8]> {
    ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(separator.byte())
        .quoting(separator != Separator::Tab)
        .terminator(Terminator::Any(b'\n'))
        .from_reader(text.as_bytes())
}

/// `rows` as comma-separated text, one line per row, each ending in `\n`; a field is quoted
/// only when it must be (it holds a comma, a double quote or a line break; `"` doubled), so
/// that [`RawTable::parse`] reads the fields back (trimmed of surrounding blanks).
///
/// Shapes: any number of rows of any lengths.
///
/// Spec: RFC 4180 §2.
pub fn to_comma_separated<R, F>(rows: R) -> String
where
    R: IntoIterator,
    R::Item: IntoIterator<Item = F>,
    F: AsRef<str>,
{
    let mut writer = WriterBuilder::new()
        .flexible(true)
        .quote_style(QuoteStyle::Necessary)
        .terminator(Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    for row in rows {
        let fields: Vec<F> = row.into_iter().collect();
        writer
            .write_record(fields.iter().map(|f| f.as_ref().as_bytes()))
            .expect("invariant: writing into memory cannot fail");
    }
    let bytes = writer
        .into_inner()
        .expect("invariant: flushing into memory cannot fail");
    String::from_utf8(bytes).expect("invariant: the fields were UTF-8")
}

/// The `csv` reader's error as [`Error::Read`]; reading from memory cannot fail, but the
/// reader's interface says it might.
fn read_error(path: &Path, error: ::csv::Error) -> Error {
    Error::Read {
        path: path.to_path_buf(),
        source: error.into(),
    }
}

/// Whether a raw field is empty after trimming.
fn is_blank(field: &[u8]) -> bool {
    field.iter().all(|b| matches!(b, b' ' | b'\t'))
}

/// The fields of a record, trimmed of spaces and tabs; blank ones left out on request.
fn fields(record: &ByteRecord, drop_empty: bool) -> Vec<String> {
    record
        .iter()
        .filter(|f| !(drop_empty && is_blank(f)))
        .map(|f| {
            String::from_utf8_lossy(f)
                .trim_matches([' ', '\t'])
                .to_owned()
        })
        .collect()
}

/// Tells the separator from the first two data lines (see the module documentation).
fn detect(lines: &DataLines, path: &Path, options: &ReadOptions) -> Result<Separator> {
    let error = |line, problem| Error::Table {
        path: path.to_path_buf(),
        line,
        problem,
    };
    let mut texts = lines.text.lines().zip(&lines.numbers);
    let Some((header, &header_line)) = texts.next() else {
        return Err(error(lines.end, TableProblem::NoHeader));
    };
    let Some((row, &row_line)) = texts.next() else {
        return Err(error(lines.end, TableProblem::NoData { header_line }));
    };
    let count = |line: &str, separator: Separator| -> Result<usize> {
        let mut record = ByteRecord::new();
        reader(line, separator)
            .read_byte_record(&mut record)
            .map_err(|e| read_error(path, e))?;
        Ok(record
            .iter()
            .filter(|f| !(options.drop_empty_fields && is_blank(f)))
            .count())
    };
    let (mut header_counts, mut row_counts) = ([0; 3], [0; 3]);
    for (i, separator) in Separator::ALL.into_iter().enumerate() {
        header_counts[i] = count(header, separator)?;
        row_counts[i] = count(row, separator)?;
        if header_counts[i] >= 2 && header_counts[i] == row_counts[i] {
            return Ok(separator);
        }
    }
    if header_counts == [1; 3] && row_counts == [1; 3] {
        return Ok(Separator::Tab);
    }
    Err(error(
        header_line,
        TableProblem::Separator {
            header: header_counts,
            row_line,
            row: row_counts,
        },
    ))
}
