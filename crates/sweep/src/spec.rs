//! The sweep file (`.toml`): the base to run, how its cases are made (a grid, a table or
//! Monte Carlo draws), the outputs to collect, and the options of every case. Read into a
//! [`Plan`](crate::Plan) by [`read_sweep_file`].
//!
//! The format is documented in `docs/sweeps.md`; every error names the sweep file (or the case
//! table) and the line.

use std::path::{Path, PathBuf};

use rand::{Rng as _, SeedableRng as _};
use rand_distr::Distribution as _;
use serde::Deserialize;
use toml::Spanned;

use crate::error::{Error, Result};
use crate::files::absolute;
use crate::plan::{Case, ColumnPlace, Plan};

/// The sweep file as written, before its cases are made.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSweep {
    /// The project, SSP system or FMU, relative to the sweep file.
    base: Spanned<String>,
    /// Further `mastersim` options for every case.
    #[serde(default)]
    options: Vec<String>,
    /// Per-case wall-time limit, s.
    wall_time_limit: Option<Spanned<f64>>,
    grid: Option<Spanned<Entries>>,
    table: Option<Spanned<TableSpec>>,
    monte_carlo: Option<Spanned<RawMonteCarlo>>,
    collect: Option<RawCollect>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableSpec {
    file: Spanned<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMonteCarlo {
    seed: u64,
    cases: Spanned<usize>,
    parameters: Spanned<Entries>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCollect {
    #[serde(default)]
    outputs: Vec<String>,
}

/// The keys of a table as written, in their order, with the places of keys and values.
type Entries = indexmap::IndexMap<Spanned<String>, Spanned<toml::Value>>;

/// One distribution of a Monte Carlo parameter.
#[derive(Debug, Clone, Copy)]
enum Distribution {
    /// Uniform on `[low, high)`.
    Uniform(rand_distr::Uniform<f64>),
    /// Normal with mean and standard deviation.
    Normal(rand_distr::Normal<f64>),
}

/// The sweep file's text with line lookups for its byte spans.
struct Source<'a> {
    path: &'a Path,
    text: &'a str,
}

impl Source<'_> {
    /// Where the key `name` is written in the sweep file.
    fn place(&self, name: &Spanned<String>) -> ColumnPlace {
        ColumnPlace {
            path: self.path.to_path_buf(),
            line: self.line(name.span().start),
        }
    }

    /// The 1-based line of byte `offset`.
    fn line(&self, offset: usize) -> usize {
        1 + self.text.as_bytes()[..offset.min(self.text.len())]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
    }

    /// An error at the start of `span`.
    fn error(&self, span: std::ops::Range<usize>, message: impl Into<String>) -> Error {
        Error::sweep_file(self.path, Some(self.line(span.start)), message)
    }
}

/// The default sweep directory of `sweep_file`: its path without the extension, as a
/// project's working directory.
pub fn default_dir(sweep_file: &Path) -> PathBuf {
    sweep_file.with_extension("")
}

/// Reads the sweep file `path` into the plan of its cases, to be laid out in `dir` (default:
/// [`default_dir`]). Case `k` is the same on every machine and every run: grids in row-major
/// order of the keys as written (the last key varies fastest), tables in row order, Monte Carlo
/// draws from a ChaCha8 generator seeded with `seed` on stream `k`.
///
/// # Errors
/// [`Error::SweepFile`] naming the file and line: TOML syntax, an unknown key, a missing
/// `base`, not exactly one of `[grid]`, `[table]` and `[monte_carlo]`, an empty value list,
/// a value that is not a string, number or boolean, a distribution other than `uniform` and
/// `normal` or with bad bounds, a table with no rows or a row with the wrong number of cells;
/// [`Error::Io`] when the file or the table cannot be read.
pub fn read_sweep_file(path: &Path, dir: Option<&Path>) -> Result<Plan> {
    let text = std::fs::read_to_string(path).map_err(Error::io(path))?;
    let source = Source { path, text: &text };
    let raw: RawSweep = toml::from_str(&text).map_err(|e| {
        let line = e.span().map(|s| source.line(s.start));
        Error::sweep_file(path, line, e.message().trim_end().to_owned())
    })?;
    let folder = path.parent().unwrap_or(Path::new(""));
    let base = folder.join(raw.base.get_ref());
    if !base.exists() {
        return Err(source.error(
            raw.base.span(),
            format!(
                "base = \"{}\": '{}' does not exist (a .msim project, an SSP system or an FMU, \
                 relative to the sweep file)",
                raw.base.get_ref(),
                base.display()
            ),
        ));
    }
    let base = absolute(&base)?;
    let (columns, rows, places) = match (&raw.grid, &raw.table, &raw.monte_carlo) {
        (Some(grid), None, None) => grid_cases(&source, grid)?,
        (None, Some(table), None) => table_cases(&source, folder, &table.get_ref().file)?,
        (None, None, Some(mc)) => monte_carlo_cases(&source, mc)?,
        _ => {
            return Err(Error::sweep_file(
                path,
                None,
                "expected exactly one of [grid], [table] and [monte_carlo] to make the cases",
            ));
        }
    };
    if let Some(limit) = &raw.wall_time_limit
        && !(limit.get_ref().is_finite() && *limit.get_ref() > 0.0)
    {
        return Err(source.error(
            limit.span(),
            format!(
                "wall_time_limit = {}: expected a number of seconds > 0",
                limit.get_ref()
            ),
        ));
    }
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "sweep".to_owned());
    let dir = dir.map_or_else(|| default_dir(path), Path::to_path_buf);
    let dir = absolute(&dir)?;
    let cases = rows
        .into_iter()
        .enumerate()
        .map(|(index, values)| Case {
            index,
            base: base.clone(),
            overrides: columns
                .iter()
                .zip(values)
                .filter_map(|(name, value)| value.map(|v| format!("{name}={v}")))
                .collect(),
        })
        .collect();
    let mut plan = Plan::new(
        name,
        absolute(path)?,
        dir,
        columns,
        raw.options,
        raw.wall_time_limit.map(Spanned::into_inner),
        raw.collect.map(|c| c.outputs).unwrap_or_default(),
        cases,
    );
    plan.column_places = places;
    Ok(plan)
}

/// The override names, per case the value of each (`None`: not overridden), and where each
/// name is written.
type Rows = (Vec<String>, Vec<Vec<Option<String>>>, Vec<ColumnPlace>);

/// A TOML value as the text of an override: strings as they are, numbers in their shortest
/// exact form, booleans as `true`/`false`.
fn value_text(value: &toml::Value) -> Option<String> {
    match value {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(number_text(*f)),
        toml::Value::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The shortest text that reads back as `x` exactly (`1.1`, `1e-7`, `2.0`).
pub(crate) fn number_text(x: f64) -> String {
    format!("{x:?}")
}

/// The cartesian product of the grid's value lists, the last key varying fastest.
fn grid_cases(source: &Source<'_>, grid: &Spanned<Entries>) -> Result<Rows> {
    let mut columns = Vec::new();
    let mut places = Vec::new();
    let mut lists: Vec<Vec<String>> = Vec::new();
    for (name, value) in grid.get_ref() {
        let what = format!("[grid] \"{}\"", name.get_ref());
        let toml::Value::Array(items) = value.get_ref() else {
            return Err(source.error(
                value.span(),
                format!("{what}: expected a list of values, e.g. [1.0, 1.1]"),
            ));
        };
        if items.is_empty() {
            return Err(source.error(value.span(), format!("{what}: the list of values is empty")));
        }
        let texts = items
            .iter()
            .map(|v| {
                value_text(v).ok_or_else(|| {
                    source.error(
                        value.span(),
                        format!("{what}: {v} is not a string, number or boolean"),
                    )
                })
            })
            .collect::<Result<Vec<_>>>()?;
        columns.push(name.get_ref().clone());
        places.push(source.place(name));
        lists.push(texts);
    }
    if columns.is_empty() {
        return Err(source.error(grid.span(), "[grid] names no override"));
    }
    let count: usize = lists.iter().map(Vec::len).product();
    let rows = (0..count)
        .map(|k| {
            let mut rest = k;
            let mut row = vec![None; lists.len()];
            for (slot, list) in row.iter_mut().zip(&lists).rev() {
                *slot = Some(list[rest % list.len()].clone());
                rest /= list.len();
            }
            row
        })
        .collect();
    Ok((columns, rows, places))
}

/// One case per row of the table `file` (comma-, tab- or semicolon-separated, read by
/// `output::table`), one override per column; empty cells override nothing.
fn table_cases(source: &Source<'_>, folder: &Path, file: &Spanned<String>) -> Result<Rows> {
    let path = folder.join(file.get_ref());
    if !path.is_file() {
        return Err(source.error(
            file.span(),
            format!(
                "[table] file = \"{}\": '{}' does not exist",
                file.get_ref(),
                path.display()
            ),
        ));
    }
    let options = output::table::ReadOptions {
        separator: None,
        drop_empty_fields: false,
        equal_field_counts: true,
    };
    let table = output::table::RawTable::read(&path, &options).map_err(|e| match e {
        output::Error::Table { line, problem, .. } => {
            Error::sweep_file(&path, Some(line), problem.to_string())
        }
        other => Error::sweep_file(&path, None, other.to_string()),
    })?;
    let header_line = table.header.line;
    let columns = table.header.fields;
    if let Some(i) = columns.iter().position(String::is_empty) {
        return Err(Error::sweep_file(
            &path,
            Some(table.header.line),
            format!(
                "column {} has no name; expected an override name such as Prey.alpha or tEnd",
                i + 1
            ),
        ));
    }
    let rows = table
        .rows
        .into_iter()
        .map(|row| {
            row.fields
                .into_iter()
                .map(|cell| (!cell.is_empty()).then_some(cell))
                .collect()
        })
        .collect();
    let places = columns
        .iter()
        .map(|_| ColumnPlace {
            path: path.clone(),
            line: header_line,
        })
        .collect();
    Ok((columns, rows, places))
}

/// `cases` draws of the parameters' distributions. Case `k` draws from a ChaCha8 generator
/// seeded with `seed` on stream `k`, the parameters in the order written, so that it does not
/// depend on how many cases there are or which ran before.
fn monte_carlo_cases(source: &Source<'_>, mc: &Spanned<RawMonteCarlo>) -> Result<Rows> {
    let span = mc.span();
    let mc = mc.get_ref();
    if *mc.cases.get_ref() == 0 {
        return Err(source.error(
            mc.cases.span(),
            "[monte_carlo] cases = 0: expected at least 1",
        ));
    }
    let mut columns = Vec::new();
    let mut places = Vec::new();
    let mut distributions = Vec::new();
    for (name, spec) in mc.parameters.get_ref() {
        columns.push(name.get_ref().clone());
        places.push(source.place(name));
        distributions.push(distribution(spec.get_ref()).map_err(|message| {
            source.error(
                spec.span(),
                format!("[monte_carlo] \"{}\": {message}", name.get_ref()),
            )
        })?);
    }
    if columns.is_empty() {
        return Err(source.error(span, "[monte_carlo] parameters names no override"));
    }
    let rows = (0..*mc.cases.get_ref())
        .map(|k| {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(mc.seed);
            rng.set_stream(k as u64);
            distributions
                .iter()
                .map(|d| {
                    let x = match d {
                        Distribution::Uniform(u) => rng.sample(u),
                        Distribution::Normal(n) => n.sample(&mut rng),
                    };
                    Some(number_text(x))
                })
                .collect()
        })
        .collect();
    Ok((columns, rows, places))
}

/// Reads `{ uniform = [low, high] }` or `{ normal = [mean, standard deviation] }`.
fn distribution(spec: &toml::Value) -> Result<Distribution, String> {
    const EXPECTED: &str =
        "expected { uniform = [low, high] } or { normal = [mean, standard deviation] }";
    let toml::Value::Table(table) = spec else {
        return Err(EXPECTED.to_owned());
    };
    let [(kind, toml::Value::Array(bounds))] = table.iter().collect::<Vec<_>>()[..] else {
        return Err(EXPECTED.to_owned());
    };
    let numbers: Vec<f64> = bounds
        .iter()
        .filter_map(|v| match v {
            toml::Value::Float(f) => Some(*f),
            toml::Value::Integer(i) => Some(*i as f64),
            _ => None,
        })
        .filter(|x| x.is_finite())
        .collect();
    let [a, b] = numbers[..] else {
        return Err(format!("{kind}: expected two finite numbers; {EXPECTED}"));
    };
    match kind.as_str() {
        "uniform" if a < b => rand_distr::Uniform::new(a, b)
            .map(Distribution::Uniform)
            .map_err(|e| format!("uniform = [{a}, {b}]: {e}")),
        "uniform" => Err(format!("uniform = [{a}, {b}]: expected low < high")),
        "normal" if b >= 0.0 => rand_distr::Normal::new(a, b)
            .map(Distribution::Normal)
            .map_err(|e| format!("normal = [{a}, {b}]: {e}")),
        "normal" => Err(format!(
            "normal = [{a}, {b}]: expected a standard deviation ≥ 0"
        )),
        other => Err(format!("unknown distribution '{other}'; {EXPECTED}")),
    }
}
