//! `mastersim plot`: line charts of result files (CSV, MAT v4 or Signal Table JSON) as SVG
//! or PNG.
//!
//! The input is read by `output::result_file` into a neutral form (per variable a name, a
//! unit, a time axis and values), the variables are selected by glob patterns, and
//! `plotters` draws one line per variable. Text uses DejaVu Sans, embedded in the binary, so
//! charts look the same on every machine (license: `crates/cli/assets/LICENSE-DejaVu.txt`).
//!
//! Parameters and constants, which MAT files (`data_1`) and Signal Tables (`Par`) store once
//! with a start and an end value, are not drawn by default, nor matched by glob patterns: a
//! flat line per parameter would crowd the chart. A `--var` equal to a parameter's name draws
//! it (over the start and end time).
//!
//! Spec: MasterSim reference §12.1 (values.csv), §12.2 (strings.csv); FMI cross-check
//! rules (comma-separated reference CSV); MAT v4 and Signal Table result files as read by
//! `output::result_file`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{Context, anyhow, bail};
use output::result_file::{self, ResultFile, Series, SeriesKind};
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
    /// with a time column first), `.mat` (MAT v4 result file) or `.json` (Signal Table).
    pub input: PathBuf,
    /// Chart file, `.svg` or `.png` [default: the input path with extension `.svg`].
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Variables to plot: a name or a glob pattern (`*`, `?`, `[..]`); repeatable
    /// [default: all numeric variables]. Parameters (stored once in MAT and JSON files)
    /// are drawn only when named exactly, never by a glob.
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
/// The input file is missing, has an unknown extension or cannot be parsed (CSV and JSON
/// errors name the line); a `--var` pattern matches no numeric variable; the file has no
/// numeric variable; the output extension is not `.svg`/`.png`; the chart cannot be
/// drawn or written.
pub fn run(args: &PlotArgs) -> anyhow::Result<()> {
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| args.input.with_extension("svg"));
    let format = output_format(&output)?;
    let data = result_file::read(&args.input)?;
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
    say!("Chart written to '{}'", output.display());
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

/// The series matching any of `patterns` (all numeric variables if there are none), in
/// file order.
///
/// A pattern matches a variable whose name equals it or, if it is a valid glob, matches
/// it; it matches a parameter ([`SeriesKind::Parameter`]) only by equal name.
///
/// # Errors
/// A pattern matches no numeric series (the message says whether it names a non-numeric
/// column, lists the variables, and names the parameters the glob would have matched); the
/// file has no numeric variable.
fn select<'a>(
    data: &'a ResultFile,
    patterns: &[String],
    path: &Path,
) -> anyhow::Result<Vec<&'a Series>> {
    const SHOWN: usize = 12;
    let list = |names: &mut dyn Iterator<Item = &'a str>| {
        let names: Vec<&str> = names.take(SHOWN + 1).collect();
        let more = if names.len() > SHOWN { ", …" } else { "" };
        format!("{}{more}", names[..names.len().min(SHOWN)].join(", "))
    };
    let variables = || {
        data.series
            .iter()
            .filter(|s| s.kind == SeriesKind::Variable)
    };
    if patterns.is_empty() {
        if variables().next().is_some() {
            return Ok(variables().collect());
        }
        let mut parameters = data.series.iter().map(|s| s.name.as_str());
        if data.series.is_empty() {
            bail!("'{}' holds no numeric variable", path.display());
        }
        bail!(
            "'{}' holds no numeric variable, only parameters ({}); name them with --var to \
             plot them",
            path.display(),
            list(&mut parameters)
        );
    }
    let mut chosen = vec![false; data.series.len()];
    for pattern in patterns {
        let glob = glob::Pattern::new(pattern);
        let globbed = |name: &str| glob.as_ref().is_ok_and(|g| g.matches(name));
        let matches =
            |s: &Series| s.name == *pattern || (s.kind == SeriesKind::Variable && globbed(&s.name));
        let mut any = false;
        for (series, chosen) in data.series.iter().zip(&mut chosen) {
            if matches(series) {
                *chosen = true;
                any = true;
            }
        }
        if any {
            continue;
        }
        if let Some(text) = data
            .text_columns
            .iter()
            .find(|c| c.name == *pattern || globbed(&c.name))
        {
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
        let mut parameters = data
            .series
            .iter()
            .filter(|s| s.kind == SeriesKind::Parameter && globbed(&s.name))
            .map(|s| s.name.as_str())
            .peekable();
        let hint = if parameters.peek().is_some() {
            format!(
                "; parameters are plotted only when named exactly: {}",
                list(&mut parameters)
            )
        } else {
            String::new()
        };
        bail!(
            "no numeric variable in '{}' matches '{pattern}' (variables: {}){hint}",
            path.display(),
            list(&mut variables().map(|s| s.name.as_str()))
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
