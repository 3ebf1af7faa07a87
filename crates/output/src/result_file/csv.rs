//! Reading CSV result files: mastersim's tab-separated `values.csv` / `strings.csv` and
//! comma- (or semicolon-) separated CSV with optionally quoted fields, such as the FMI
//! cross-check reference files.
//!
//! Spec: MasterSim reference §12.1, §12.2 (tab-separated results); RFC 4180 (quoted
//! fields of comma-separated reference files).

use std::path::Path;
use std::sync::Arc;

use super::{ResultFile, Series, SeriesKind, TextColumn};
use crate::table::{RawTable, ReadOptions};
use crate::{Error, Result, TableProblem};

/// A column while reading: its caption and either all values or the first non-number.
struct ColumnReader {
    name: String,
    unit: String,
    values: Vec<f64>,
    /// Line number and text of the first field that is not a number.
    first_text: Option<(usize, String)>,
}

/// Reads a CSV result file (see [`super::read`] for the rules).
pub(super) fn read(path: &Path) -> Result<ResultFile> {
    let options = ReadOptions {
        separator: None,
        drop_empty_fields: false,
        equal_field_counts: true,
    };
    let table = RawTable::read(path, &options)?;
    let mut captions = table.header.fields.iter();
    let (_, time_unit) = split_caption(captions.next().map_or("", String::as_str));
    let time_unit = if time_unit.is_empty() {
        "s".to_string()
    } else {
        time_unit
    };
    let mut columns: Vec<ColumnReader> = captions
        .map(|caption| {
            let (name, unit) = split_caption(caption);
            ColumnReader {
                name,
                unit,
                values: Vec::with_capacity(table.rows.len()),
                first_text: None,
            }
        })
        .collect();
    let mut time = Vec::with_capacity(table.rows.len());
    for row in table.rows {
        let mut fields = row.fields.into_iter();
        let time_field = fields.next().unwrap_or_default();
        let Some(t) = parse_number(&time_field) else {
            return Err(Error::Table {
                path: path.to_path_buf(),
                line: row.line,
                problem: TableProblem::Time { text: time_field },
            });
        };
        time.push(t);
        for (column, field) in columns.iter_mut().zip(fields) {
            if column.first_text.is_some() {
                continue;
            }
            match parse_number(&field) {
                Some(v) => column.values.push(v),
                None => column.first_text = Some((row.line, field)),
            }
        }
    }
    let time = Arc::new(time);
    let mut file = ResultFile {
        time_unit,
        series: Vec::new(),
        text_columns: Vec::new(),
    };
    for column in columns {
        match column.first_text {
            None => file.series.push(Series {
                name: column.name,
                unit: column.unit,
                time: Arc::clone(&time),
                values: column.values,
                kind: SeriesKind::Variable,
            }),
            Some((line, text)) => file.text_columns.push(TextColumn {
                name: column.name,
                line,
                text,
            }),
        }
    }
    Ok(file)
}

/// Splits a caption `<name> [<unit>]` into name and unit (empty if there is none).
///
/// The unit must be separated by a space, so array elements such as `x[1]` stay names.
pub(crate) fn split_caption(caption: &str) -> (String, String) {
    let caption = caption.trim();
    if let Some(open) = caption.rfind(" [")
        && caption.ends_with(']')
    {
        let name = caption[..open].trim();
        if !name.is_empty() {
            let unit = caption[open + 2..caption.len() - 1].trim();
            return (name.to_string(), unit.to_string());
        }
    }
    (caption.to_string(), String::new())
}

/// Parses a number field (see [`super::read`] for the accepted forms).
pub(crate) fn parse_number(field: &str) -> Option<f64> {
    let field = field.trim();
    if let Ok(v) = field.parse::<f64>() {
        return Some(v);
    }
    match field.to_ascii_lowercase().as_str() {
        "-nan" | "+nan" => Some(f64::NAN),
        "true" => Some(1.0),
        "false" => Some(0.0),
        _ => None,
    }
}
