//! `mastersim plot`: line charts of result files (CSV or MAT v4) as SVG or PNG.
//!
//! The input is read into a neutral form ([`ResultData`]: per variable a name, a unit, a
//! time axis and values), the variables are selected by glob patterns, and `plotters`
//! draws one line per variable. Text uses DejaVu Sans, embedded in the binary, so charts
//! look the same on every machine (license: `crates/cli/assets/LICENSE-DejaVu.txt`).
//!
//! Spec: MasterSim reference §12.1 (values.csv), §12.2 (strings.csv); FMI cross-check
//! rules (comma-separated reference CSV); MAT v4 result files read by `output::mat`.

mod csv;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use anyhow::{Context, anyhow, bail};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;

/// DejaVu Sans 2.37, registered as the `sans-serif` family of `plotters`.
static DEJAVU_SANS: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

/// Font family name under which the embedded font is registered.
const FONT: &str = "sans-serif";

/// Line colours, cycled per variable (the Tableau 10 palette).
const COLORS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Arguments of `mastersim plot`.
#[derive(clap::Args, Debug, Clone)]
pub struct PlotArgs {
    /// Result file: `.csv` (mastersim's tab-separated values.csv, or comma-separated CSV
    /// with a time column first) or `.mat` (MAT v4 result file).
    pub input: PathBuf,
    /// Chart file, `.svg` or `.png` [default: the input path with extension `.svg`].
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Variables to plot: a name or a glob pattern (`*`, `?`, `[..]`); repeatable
    /// [default: all numeric variables].
    #[arg(long = "var", value_name = "PATTERN")]
    pub vars: Vec<String>,
    /// Chart width in pixels.
    #[arg(long, value_name = "PX", default_value_t = 1024,
          value_parser = clap::value_parser!(u32).range(200..=16384))]
    pub width: u32,
    /// Chart height in pixels.
    #[arg(long, value_name = "PX", default_value_t = 640,
          value_parser = clap::value_parser!(u32).range(150..=16384))]
    pub height: u32,
    /// Chart title [default: the input path].
    #[arg(long)]
    pub title: Option<String>,
}

/// One numeric variable of a result file.
#[derive(Debug, Clone, PartialEq)]
struct Series {
    /// Variable name, e.g. `Part1.x`.
    name: String,
    /// Unit as written in the file (empty if none).
    unit: String,
    /// Time points, in [`ResultData::time_unit`]; may be shared between variables.
    time: Arc<Vec<f64>>,
    /// Values, `values.len() == time.len()` (extra points on either side are ignored).
    values: Vec<f64>,
}

/// A column that is not numeric (a String output), kept for error messages.
#[derive(Debug, Clone, PartialEq)]
struct TextColumn {
    name: String,
    /// Line number of the first field that is not a number.
    line: usize,
    /// That field.
    text: String,
}

/// The contents of a result file, independent of its format.
#[derive(Debug, Clone, PartialEq)]
struct ResultData {
    /// Unit of all time axes (`s` unless the file says otherwise).
    time_unit: String,
    /// Numeric variables, in file order.
    series: Vec<Series>,
    /// Non-numeric columns, in file order.
    text_columns: Vec<TextColumn>,
}

/// Chart file formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Svg,
    Png,
}

/// Runs `mastersim plot`: reads `args.input`, selects variables and writes the chart.
///
/// Prints the path of the chart written.
///
/// # Errors
/// The input file is missing, has an unknown extension or cannot be parsed (CSV errors
/// name the line); a `--var` pattern matches no numeric variable; the file has no
/// numeric variable; the output extension is not `.svg`/`.png`; the chart cannot be
/// drawn or written.
pub fn run(args: &PlotArgs) -> anyhow::Result<()> {
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| args.input.with_extension("svg"));
    let format = output_format(&output)?;
    let data = read_input(&args.input)?;
    let selected = select(&data, &args.vars, &args.input)?;
    let title = args
        .title
        .clone()
        .unwrap_or_else(|| args.input.display().to_string());
    let chart = Chart {
        title: &title,
        x_label: format!("Time [{}]", data.time_unit),
        y_label: y_label(selected.iter().map(|s| s.unit.as_str())),
        series: &selected,
    };
    register_font()?;
    let size = (args.width, args.height);
    match format {
        Format::Svg => draw(SVGBackend::new(&output, size).into_drawing_area(), &chart),
        Format::Png => draw(
            BitMapBackend::new(&output, size).into_drawing_area(),
            &chart,
        ),
    }
    .with_context(|| format!("cannot write chart '{}'", output.display()))?;
    println!("Chart written to '{}'", output.display());
    Ok(())
}

/// The chart format from the output file's extension.
fn output_format(path: &Path) -> anyhow::Result<Format> {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match extension.as_deref() {
        Some("svg") => Ok(Format::Svg),
        Some("png") => Ok(Format::Png),
        _ => bail!(
            "unknown chart format of '{}': the output file must end in .svg or .png",
            path.display()
        ),
    }
}

/// Reads a result file by its extension (`.csv`, `.mat`).
fn read_input(path: &Path) -> anyhow::Result<ResultData> {
    if !path.is_file() {
        bail!("result file '{}' doesn't exist", path.display());
    }
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match extension.as_deref() {
        Some("csv") => csv::read(path),
        Some("mat") => read_mat(path),
        _ => bail!(
            "unknown result file type '{}': expected a .csv or .mat file",
            path.display()
        ),
    }
}

/// Reads a MAT v4 result file with `output::mat::read`; every variable is numeric.
///
/// The time unit is seconds (what mastersim writes; the reader does not expose the
/// abscissa's unit). Parameters appear with their start and stop values.
fn read_mat(path: &Path) -> anyhow::Result<ResultData> {
    let file = output::mat::read(path)?;
    Ok(ResultData {
        time_unit: "s".to_string(),
        series: file
            .signals
            .into_iter()
            .map(|s| Series {
                name: s.name,
                unit: s.unit,
                time: s.time,
                values: s.values,
            })
            .collect(),
        text_columns: Vec::new(),
    })
}

/// The variables matching any of `patterns` (all numeric ones if there are none), in
/// file order.
///
/// A pattern matches a name equal to it or, if it is a valid glob, matching it.
///
/// # Errors
/// A pattern matches no numeric variable (the message says whether it names a
/// non-numeric column, or lists the variables); the file has no numeric variable.
fn select<'a>(
    data: &'a ResultData,
    patterns: &[String],
    path: &Path,
) -> anyhow::Result<Vec<&'a Series>> {
    if patterns.is_empty() {
        if data.series.is_empty() {
            bail!("'{}' holds no numeric variable", path.display());
        }
        return Ok(data.series.iter().collect());
    }
    let mut chosen = vec![false; data.series.len()];
    for pattern in patterns {
        let glob = glob::Pattern::new(pattern);
        let matches = |name: &str| name == pattern || glob.as_ref().is_ok_and(|g| g.matches(name));
        let mut any = false;
        for (series, chosen) in data.series.iter().zip(&mut chosen) {
            if matches(&series.name) {
                *chosen = true;
                any = true;
            }
        }
        if any {
            continue;
        }
        if let Some(text) = data.text_columns.iter().find(|c| matches(&c.name)) {
            bail!(
                "variable '{}' in '{}' is not numeric (line {}: '{}')",
                text.name,
                path.display(),
                text.line,
                text.text
            );
        }
        if let Err(error) = glob {
            bail!("invalid variable pattern '{pattern}': {error}");
        }
        const SHOWN: usize = 12;
        let names: Vec<&str> = data
            .series
            .iter()
            .take(SHOWN)
            .map(|s| s.name.as_str())
            .collect();
        let more = if data.series.len() > SHOWN {
            ", …"
        } else {
            ""
        };
        bail!(
            "no numeric variable in '{}' matches '{pattern}' (variables: {}{more})",
            path.display(),
            names.join(", ")
        );
    }
    Ok(data
        .series
        .iter()
        .zip(chosen)
        .filter_map(|(s, c)| c.then_some(s))
        .collect())
}

/// The y axis label: `Value [<unit>]` when all variables share one unit, `Value [<u1>,
/// <u2>, …]` otherwise (`-` standing for "no unit"), plain `Value` when none has a unit.
fn y_label<'a>(units: impl Iterator<Item = &'a str>) -> String {
    let mut distinct: Vec<&str> = Vec::new();
    let mut any_unit = false;
    for unit in units {
        any_unit |= !unit.is_empty();
        let unit = if unit.is_empty() { "-" } else { unit };
        if !distinct.contains(&unit) {
            distinct.push(unit);
        }
    }
    if any_unit {
        format!("Value [{}]", distinct.join(", "))
    } else {
        "Value".to_string()
    }
}

/// The legend entry of a variable: `name [unit]`, or `name` without a unit.
fn legend_label(series: &Series) -> String {
    if series.unit.is_empty() {
        series.name.clone()
    } else {
        format!("{} [{}]", series.name, series.unit)
    }
}

/// Registers the embedded font (once per process).
fn register_font() -> anyhow::Result<()> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        plotters::style::register_font(FONT, FontStyle::Normal, DEJAVU_SANS).is_ok()
    });
    if ok {
        Ok(())
    } else {
        Err(anyhow!("the embedded font DejaVuSans.ttf is invalid"))
    }
}

/// What to draw.
struct Chart<'a> {
    title: &'a str,
    x_label: String,
    y_label: String,
    series: &'a [&'a Series],
}

/// The range `[lo, hi]` of the finite values, padded by `pad` of its span; a single value
/// gets ±10 % of itself (±1 for zero); no finite value gives `[0, 1]`. The range is
/// clipped to ±`f64::MAX`/4.
fn axis_range(values: impl Iterator<Item = f64>, pad: f64) -> (f64, f64) {
    // Beyond ±f64::MAX/4 the span overflows and plotters would not find ticks.
    const LIMIT: f64 = f64::MAX / 4.0;
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    let (lo, hi) = if lo > hi {
        (0.0, 1.0)
    } else if lo == hi {
        let d = if lo == 0.0 { 1.0 } else { 0.1 * lo.abs() };
        (lo - d, hi + d)
    } else {
        let d = pad * (hi - lo);
        (lo - d, hi + d)
    };
    let (lo, hi) = (lo.max(-LIMIT), hi.min(LIMIT));
    if lo < hi { (lo, hi) } else { (-LIMIT, LIMIT) }
}

/// Runs of consecutive points with finite time and value (lines break at NaN and ±∞).
fn segments(series: &Series) -> Vec<Vec<(f64, f64)>> {
    let mut runs = vec![Vec::new()];
    for (&t, &v) in series.time.iter().zip(&series.values) {
        if t.is_finite() && v.is_finite() {
            runs.last_mut()
                .expect("invariant: runs is never empty")
                .push((t, v));
        } else if runs.last().is_some_and(|r| !r.is_empty()) {
            runs.push(Vec::new());
        }
    }
    runs
}

/// Draws `chart` onto `root` and writes it out.
fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, chart: &Chart) -> anyhow::Result<()> {
    fn err(e: impl std::fmt::Display) -> anyhow::Error {
        anyhow!("{e}")
    }
    root.fill(&WHITE).map_err(err)?;
    let series = chart.series;
    let (x0, x1) = axis_range(series.iter().flat_map(|s| s.time.iter().copied()), 0.0);
    let (y0, y1) = axis_range(series.iter().flat_map(|s| s.values.iter().copied()), 0.05);
    let mut cartesian = ChartBuilder::on(&root)
        .caption(chart.title, (FONT, 26))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(80)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    cartesian
        .configure_mesh()
        .x_desc(chart.x_label.as_str())
        .y_desc(chart.y_label.as_str())
        .label_style((FONT, 16))
        .axis_desc_style((FONT, 19))
        .light_line_style(RGBColor(242, 242, 242))
        .draw()
        .map_err(err)?;
    for (i, s) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let style = color.stroke_width(2);
        for (k, run) in segments(s).into_iter().enumerate() {
            let drawn = cartesian
                .draw_series(LineSeries::new(run, style))
                .map_err(err)?;
            if k == 0 {
                drawn
                    .label(legend_label(s))
                    .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], style));
            }
        }
    }
    cartesian
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(160, 160, 160))
        .label_font((FONT, 16))
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

#[cfg(test)]
mod tests;
