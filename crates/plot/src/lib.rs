//! `mastersim plot` (crate `mastersim-plot`): line charts of result files (CSV, MAT v4 or Signal Table JSON) as SVG
//! or PNG.
//!
//! The input is read by `output::result_file` into a neutral form (per variable a name, a
//! unit, a time axis and values), the variables are selected by glob patterns, and
//! `plotters` draws one line per variable. Text uses DejaVu Sans, embedded in the binary, so
//! charts look the same on every machine (license: `crates/plot/assets/LICENSE-DejaVu.txt`).
//!
//! The legend stands in its own box right of the chart, so it never covers a curve. Texts
//! too long for their room (title, axis descriptions, legend labels) are shortened with `…`
//! in the middle; tick labels carry the decimals their step needs and never read `-0`.
//!
//! Parameters and constants, which MAT files (`data_1`) and Signal Tables (`Par`) store once
//! with a start and an end value, are not drawn by default, nor matched by glob patterns: a
//! flat line per parameter would crowd the chart. A `--var` equal to a parameter's name draws
//! it (over the start and end time).
//!
//! Spec: MasterSim reference §12.1 (values.csv), §12.2 (strings.csv); FMI cross-check
//! rules (comma-separated reference CSV); MAT v4 and Signal Table result files as read by
//! `output::result_file`.

#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{Context, anyhow, bail};
use output::result_file::{self, ResultFile, Series, SeriesKind};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;
use plotters::style::text_anchor::{HPos, Pos, VPos};

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
    let (output, _) = plot(args)?;
    // A closed stdout (`mastersim plot … | head`) is not an error: the chart is written.
    use std::io::Write as _;
    let _ = writeln!(std::io::stdout(), "Chart written to '{}'", output.display());
    Ok(())
}

/// Draws the chart of `args` (see [`run`]); returns the chart file's path and where the
/// chart's parts are in the image.
fn plot(args: &PlotArgs) -> anyhow::Result<(PathBuf, Layout)> {
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
    let layout = match format {
        Format::Svg => draw(SVGBackend::new(&output, size).into_drawing_area(), &chart),
        Format::Png => draw(
            BitMapBackend::new(&output, size).into_drawing_area(),
            &chart,
        ),
    }
    .with_context(|| format!("cannot write chart '{}'", output.display()))?;
    Ok((output, layout))
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

/// A rectangle of pixels: columns `left..right`, rows `top..bottom` of the image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Area {
    left: i32,
    top: i32,
    right: i32,
    bottom: i32,
}

/// Where [`draw`] put the parts of a chart, in pixels of the image.
#[derive(Debug)]
struct Layout {
    /// The title as drawn: shortened with `…` to fit the image width.
    #[cfg_attr(not(test), allow(dead_code, reason = "read by the tests"))]
    title: String,
    /// The plotting area: the rectangle inside the axes that holds the curves.
    #[cfg_attr(not(test), allow(dead_code, reason = "read by the tests"))]
    plot: Area,
    /// The legend box, right of the chart (outside the plotting area and its axes).
    legend: Area,
    /// The legend's entries, in series order.
    entries: Vec<LegendEntry>,
    /// `… and N more`, listed last when the legend cannot hold every variable.
    more: Option<String>,
}

/// One entry of the legend.
#[derive(Debug)]
struct LegendEntry {
    /// The label as drawn: shortened with `…` to fit the legend's width.
    label: String,
    /// The line sample, from its left to its right end, 2 px wide.
    sample: [(i32, i32); 2],
}

/// Margin around the chart, px.
const MARGIN: i32 = 16;
/// Font size of the title, px.
const TITLE_SIZE: u32 = 26;
/// Font size of tick labels and legend entries, px.
const LABEL_SIZE: u32 = 16;
/// Font size of the axis descriptions, px.
const DESC_SIZE: u32 = 19;
/// Height of the x axis' label area (ticks, tick labels, description), px.
const X_LABEL_AREA: i32 = 48;
/// Most tick labels per axis (the default of `plotters`); small charts get fewer.
const TICKS: usize = 11;
/// Least room per y tick label, px (the label's height and a gap).
const Y_TICK_ROOM: i32 = 22;
/// Least gap between two x tick labels, px.
const X_TICK_GAP: i32 = 12;
/// Space above the plotting area, for half the topmost y tick label, px.
const CHART_TOP: i32 = 10;
/// Space right of the plotting area, for half the rightmost x tick label, px.
const CHART_RIGHT: i32 = 12;
/// Space between the chart and the legend box, px.
const LEGEND_GAP: i32 = 16;
/// Padding inside the legend box, px.
const LEGEND_PAD: i32 = 8;
/// Length of an entry's line sample, px.
const SAMPLE_LENGTH: i32 = 24;
/// Height of a legend entry, px.
const LEGEND_ROW: i32 = 22;
/// Largest share of the image width the legend box takes: longer labels are shortened.
const LEGEND_SHARE: f64 = 0.3;
/// The legend box's frame: a colour no curve, text (grey) or grid line has.
const LEGEND_FRAME: RGBColor = RGBColor(150, 150, 170);

/// `text`, or, when it is wider than `max_width` px as measured by `width_of`, as much of
/// its start and end as fits around a `…` in the middle (just `…` when nothing fits).
fn fit(
    text: &str,
    max_width: i32,
    width_of: impl Fn(&str) -> anyhow::Result<i32>,
) -> anyhow::Result<String> {
    if width_of(text)? <= max_width {
        return Ok(text.to_string());
    }
    let chars: Vec<char> = text.chars().collect();
    let shortened = |keep: usize| -> String {
        let head = keep.div_ceil(2);
        let tail = keep - head;
        let mut s: String = chars[..head].iter().collect();
        s.push('…');
        s.extend(&chars[chars.len() - tail..]);
        s
    };
    // The most characters kept that fit: `fits` fits, `fits + 1 ..` do not (or are untried).
    let (mut fits, mut too_many) = (0, chars.len());
    while too_many - fits > 1 {
        let keep = usize::midpoint(fits, too_many);
        if width_of(&shortened(keep))? <= max_width {
            fits = keep;
        } else {
            too_many = keep;
        }
    }
    Ok(shortened(fits))
}

/// How the tick labels of one axis are written: all with the decimals the tick step needs,
/// in scientific notation (one exponent for the axis) when the ticks are ≥ 10⁶ or < 10⁻³ in
/// magnitude. A tick at zero is `0`, never `-0`.
#[derive(Debug, Clone, PartialEq)]
struct TickFormat {
    /// Most tick labels: the axis is drawn with this many at most.
    count: usize,
    /// The tick values, as `plotters` places them for an axis of at most `count` labels.
    ticks: Vec<f64>,
    /// Distance between neighbouring ticks (the axis span when there is only one).
    step: f64,
    /// The exponent of scientific notation, if used.
    exponent: Option<i32>,
}

impl TickFormat {
    /// The tick labels of the axis `lo..hi` (finite, `lo < hi`) with at most `count` ticks
    /// (at least 2).
    fn new(lo: f64, hi: f64, count: usize) -> TickFormat {
        use plotters::coord::ranged1d::Ranged;
        use plotters::coord::types::RangedCoordf64;
        let count = count.max(2);
        let ticks = RangedCoordf64::from(lo..hi).key_points(count);
        let step = match ticks[..] {
            [a, b, ..] => b - a,
            _ => hi - lo,
        };
        let magnitude = ticks.iter().fold(0.0_f64, |m, t| m.max(t.abs()));
        let exponent = (magnitude >= 1e6 || (magnitude > 0.0 && magnitude < 1e-3))
            .then(|| magnitude.log10().floor() as i32);
        TickFormat {
            count,
            ticks,
            step,
            exponent,
        }
    }

    /// The label of the tick at `value`.
    fn label(&self, value: f64) -> String {
        // A tick at zero may come out of the tick arithmetic as ±1e-17 or -0.0.
        let value = if value.abs() < self.step.abs() * 1e-6 {
            0.0
        } else {
            value
        };
        let scale = self.exponent.map_or(1.0, |e| 10f64.powi(e));
        let step = self.step.abs() / scale;
        // Steps are 1, 2 or 5 × 10^k: -k decimals (the nudge absorbs rounding of the step).
        let decimals = if step.is_finite() && step > 0.0 {
            (-(step.log10() + 1e-9).floor()).clamp(0.0, 15.0) as usize
        } else {
            6
        };
        let mut text = format!("{:.decimals$}", value / scale);
        if text.starts_with('-') && text[1..].chars().all(|c| c == '0' || c == '.') {
            text.remove(0);
        }
        match self.exponent {
            Some(_) if value == 0.0 => "0".to_string(),
            Some(e) => format!("{text}e{e}"),
            None => text,
        }
    }
}

/// Draws `chart` onto `root`, writes it out and returns where its parts are.
///
/// The title runs across the image, the legend box stands right of the chart, top-aligned
/// with the plotting area: it never covers a curve. Title, axis descriptions and legend
/// labels too long for their room are shortened with `…` in the middle; a legend with more
/// entries than fit the height ends in `… and N more`.
fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, chart: &Chart) -> anyhow::Result<Layout> {
    fn err(e: impl std::fmt::Display) -> anyhow::Error {
        anyhow!("{e}")
    }
    root.fill(&WHITE).map_err(err)?;
    let font = |size: u32| TextStyle::from((FONT, size).into_font());
    let (title_style, label_style, desc_style) =
        (font(TITLE_SIZE), font(LABEL_SIZE), font(DESC_SIZE));
    let width_of = |text: &str, style: &TextStyle| -> anyhow::Result<i32> {
        let (w, _) = root.estimate_text_size(text, style).map_err(err)?;
        Ok(i32::try_from(w).unwrap_or(i32::MAX))
    };
    let image_width = i32::try_from(root.dim_in_pixel().0)?;

    let title = fit(chart.title, image_width - 2 * MARGIN, |t| {
        width_of(t, &title_style)
    })?;
    let body = root
        .margin(MARGIN, MARGIN, MARGIN, MARGIN)
        .titled(&title, title_style.clone())
        .map_err(err)?;
    let (body_x, body_y) = body.get_pixel_range();

    // The legend's width comes first: the chart takes the rest.
    let series = chart.series;
    let plot_top = body_y.start + CHART_TOP;
    let rows = ((body_y.end - plot_top - 2 * LEGEND_PAD) / LEGEND_ROW).max(1);
    let rows = usize::try_from(rows).unwrap_or(1);
    let shown = if series.len() <= rows {
        series.len()
    } else {
        rows - 1
    };
    let text_room = (f64::from(image_width) * LEGEND_SHARE) as i32 - SAMPLE_LENGTH - 3 * LEGEND_PAD;
    let mut labels = Vec::with_capacity(shown);
    for s in &series[..shown] {
        labels.push(fit(&legend_label(s), text_room, |t| {
            width_of(t, &label_style)
        })?);
    }
    let more = (shown < series.len()).then(|| format!("… and {} more", series.len() - shown));
    let mut text_width = 0;
    for label in labels.iter().chain(&more) {
        text_width = text_width.max(width_of(label, &label_style)?);
    }
    let legend_width = 3 * LEGEND_PAD + SAMPLE_LENGTH + text_width;
    let chart_width = (body_x.end - body_x.start - legend_width - LEGEND_GAP).max(1);
    let (chart_area, _) = body.split_horizontally(chart_width);

    let (x0, x1) = axis_range(series.iter().flat_map(|s| s.time.iter().copied()), 0.0);
    let (y0, y1) = axis_range(series.iter().flat_map(|s| s.values.iter().copied()), 0.05);
    // As many ticks as fit the plotting area (up to TICKS), which is about this large.
    let widest = |ticks: &TickFormat| -> anyhow::Result<i32> {
        let mut widest = 0;
        for &tick in &ticks.ticks {
            widest = widest.max(width_of(&ticks.label(tick), &label_style)?);
        }
        Ok(widest)
    };
    let plot_height = body_y.end - plot_top - X_LABEL_AREA;
    let y_count = usize::try_from(plot_height / Y_TICK_ROOM).unwrap_or(0);
    let y_ticks = TickFormat::new(y0, y1, y_count.min(TICKS));
    let y_label_area = widest(&y_ticks)? + DESC_SIZE as i32 + 22;
    let plot_width = chart_width - y_label_area - CHART_RIGHT;
    let x_ticks = TickFormat::new(x0, x1, TICKS);
    let x_count = usize::try_from(plot_width / (widest(&x_ticks)? + X_TICK_GAP)).unwrap_or(0);
    let x_ticks = TickFormat::new(x0, x1, x_count.min(TICKS));
    let x_desc = fit(&chart.x_label, plot_width, |t| width_of(t, &desc_style))?;
    let y_desc = fit(&chart.y_label, plot_height, |t| width_of(t, &desc_style))?;
    let mut cartesian = ChartBuilder::on(&chart_area)
        .margin_top(CHART_TOP)
        .margin_right(CHART_RIGHT)
        .x_label_area_size(X_LABEL_AREA)
        .y_label_area_size(y_label_area)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(err)?;
    let x_label = |v: &f64| x_ticks.label(*v);
    let y_label = |v: &f64| y_ticks.label(*v);
    cartesian
        .configure_mesh()
        .x_labels(x_ticks.count)
        .y_labels(y_ticks.count)
        .x_label_formatter(&x_label)
        .y_label_formatter(&y_label)
        .x_desc(x_desc)
        .y_desc(y_desc)
        .label_style(label_style.clone())
        .axis_desc_style(desc_style)
        .light_line_style(RGBColor(242, 242, 242))
        .draw()
        .map_err(err)?;
    for (i, s) in series.iter().enumerate() {
        let style = COLORS[i % COLORS.len()].stroke_width(2);
        for run in segments(s) {
            cartesian
                .draw_series(LineSeries::new(run, style))
                .map_err(err)?;
        }
    }
    let (plot_x, plot_y) = cartesian.plotting_area().get_pixel_range();
    let plot = Area {
        left: plot_x.start,
        top: plot_y.start,
        right: plot_x.end,
        bottom: plot_y.end,
    };

    let rows = i32::try_from(labels.len() + usize::from(more.is_some()))?;
    let legend = Area {
        left: body_x.end - legend_width,
        top: plot.top,
        right: body_x.end,
        bottom: plot.top + 2 * LEGEND_PAD + rows * LEGEND_ROW,
    };
    let entries: Vec<LegendEntry> = labels
        .into_iter()
        .zip(0..)
        .map(|(label, row)| {
            let x = legend.left + LEGEND_PAD;
            let y = legend.top + LEGEND_PAD + row * LEGEND_ROW + LEGEND_ROW / 2;
            LegendEntry {
                label,
                sample: [(x, y), (x + SAMPLE_LENGTH, y)],
            }
        })
        .collect();
    let layout = Layout {
        title,
        plot,
        legend,
        entries,
        more,
    };
    draw_legend(&root, &layout, &label_style).map_err(err)?;
    root.present().map_err(err)?;
    Ok(layout)
}

/// Draws the legend box of `layout` onto `root`.
fn draw_legend<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    layout: &Layout,
    style: &TextStyle,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let box_ = layout.legend;
    let corners = [(box_.left, box_.top), (box_.right - 1, box_.bottom - 1)];
    root.draw(&Rectangle::new(corners, WHITE.filled()))?;
    root.draw(&Rectangle::new(corners, LEGEND_FRAME.stroke_width(1)))?;
    let text = style.pos(Pos::new(HPos::Left, VPos::Center));
    for (i, entry) in layout.entries.iter().enumerate() {
        let line = COLORS[i % COLORS.len()].stroke_width(2);
        let [_, (x1, y)] = entry.sample;
        root.draw(&PathElement::new(entry.sample, line))?;
        root.draw(&Text::new(
            entry.label.as_str(),
            (x1 + LEGEND_PAD, y),
            text.clone(),
        ))?;
    }
    if let Some(more) = &layout.more {
        let y = box_.bottom - LEGEND_PAD - LEGEND_ROW / 2;
        root.draw(&Text::new(
            more.as_str(),
            (box_.left + LEGEND_PAD, y),
            text.color(&RGBColor(96, 96, 96)),
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
