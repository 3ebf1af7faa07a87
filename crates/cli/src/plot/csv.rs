//! Reading CSV result files into [`ResultData`]: mastersim's tab-separated `values.csv` /
//! `strings.csv` and comma- (or semicolon-) separated CSV with optionally quoted fields,
//! such as the FMI cross-check reference files.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, bail};

use super::{ResultData, Series, TextColumn};

/// A column while reading: its caption and either all values or the first non-number.
struct ColumnReader {
    name: String,
    unit: String,
    values: Vec<f64>,
    /// Line number and text of the first field that is not a number.
    first_text: Option<(usize, String)>,
}

/// Reads a CSV result file: a header line, then one row per line.
///
/// The separator is a tab if the header holds one, else a comma, else a semicolon. The
/// first column is the time; its unit comes from a caption `Time [<unit>]` (seconds if
/// none). Other captions `<name> [<unit>]` give the variable's name and unit. Columns
/// whose fields are all numbers become [`Series`]; the others (String outputs) become
/// [`TextColumn`]s. Numbers are parsed as Rust `f64` (also `nan`, `inf`), plus `-nan`,
/// `true` (1) and `false` (0).
///
/// # Errors
/// The file cannot be read; it has no header or no data row; a quote is not closed; a
/// row has another field count than the header; a time is not a number. Each row error
/// names the file and the line number.
pub(super) fn read(path: &Path) -> anyhow::Result<ResultData> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read result file '{}'", path.display()))?;
    let mut lines = text.lines().enumerate().map(|(i, line)| (i + 1, line));
    let Some((_, header)) = lines.next() else {
        bail!("'{}' is empty: no header line", path.display());
    };
    let separator = if header.contains('\t') {
        '\t'
    } else if header.contains(',') {
        ','
    } else if header.contains(';') {
        ';'
    } else {
        '\t'
    };
    let captions = split_fields(header, separator)
        .with_context(|| format!("'{}' line 1 (header)", path.display()))?;
    let (_, time_unit) = split_caption(&captions[0]);
    let time_unit = if time_unit.is_empty() {
        "s".to_string()
    } else {
        time_unit
    };
    let mut columns: Vec<ColumnReader> = captions[1..]
        .iter()
        .map(|caption| {
            let (name, unit) = split_caption(caption);
            ColumnReader {
                name,
                unit,
                values: Vec::new(),
                first_text: None,
            }
        })
        .collect();
    let mut time = Vec::new();
    for (number, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let fields = split_fields(line, separator)
            .with_context(|| format!("'{}' line {number}", path.display()))?;
        if fields.len() != captions.len() {
            bail!(
                "'{}' line {number}: {} fields, but the header has {}",
                path.display(),
                fields.len(),
                captions.len()
            );
        }
        let t = parse_number(&fields[0]).with_context(|| {
            format!(
                "'{}' line {number}: time '{}' is not a number",
                path.display(),
                fields[0]
            )
        })?;
        time.push(t);
        for (column, field) in columns.iter_mut().zip(&fields[1..]) {
            if column.first_text.is_some() {
                continue;
            }
            match parse_number(field) {
                Some(v) => column.values.push(v),
                None => column.first_text = Some((number, field.clone())),
            }
        }
    }
    if time.is_empty() {
        bail!("'{}' has a header but no data rows", path.display());
    }
    let time = Arc::new(time);
    let mut data = ResultData {
        time_unit,
        series: Vec::new(),
        text_columns: Vec::new(),
    };
    for column in columns {
        match column.first_text {
            None => data.series.push(Series {
                name: column.name,
                unit: column.unit,
                time: Arc::clone(&time),
                values: column.values,
            }),
            Some((line, text)) => data.text_columns.push(TextColumn {
                name: column.name,
                line,
                text,
            }),
        }
    }
    Ok(data)
}

/// Splits a caption `<name> [<unit>]` into name and unit (empty if there is none).
///
/// The unit must be separated by a space, so array elements such as `x[1]` stay names.
pub(super) fn split_caption(caption: &str) -> (String, String) {
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

/// Splits one line at `separator`; fields may be quoted with `"` (a doubled `""` inside a
/// quoted field is one quote). Fields are trimmed of surrounding spaces.
///
/// # Errors
/// A quoted field is not closed, or text follows its closing quote.
pub(super) fn split_fields(line: &str, separator: char) -> anyhow::Result<Vec<String>> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let mut fields = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while chars.peek().is_some_and(|&c| c == ' ') {
            chars.next();
        }
        let mut field = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            loop {
                match chars.next() {
                    None => bail!("a quoted field is not closed"),
                    Some('"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        field.push('"');
                    }
                    Some('"') => break,
                    Some(c) => field.push(c),
                }
            }
            while chars.peek().is_some_and(|&c| c == ' ') {
                chars.next();
            }
            match chars.next() {
                None => {
                    fields.push(field);
                    return Ok(fields);
                }
                Some(c) if c == separator => fields.push(field),
                Some(c) => bail!("unexpected '{c}' after the quoted field \"{field}\""),
            }
        } else {
            loop {
                match chars.next() {
                    None => {
                        fields.push(field.trim().to_string());
                        return Ok(fields);
                    }
                    Some(c) if c == separator => break,
                    Some(c) => field.push(c),
                }
            }
            fields.push(field.trim().to_string());
        }
    }
}

/// Parses a number field (see [`read`] for the accepted forms).
fn parse_number(field: &str) -> Option<f64> {
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
