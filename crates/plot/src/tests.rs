use std::sync::Arc;

use super::*;

/// A mastersim `values.csv` with two units and a String-free layout.
const VALUES_CSV: &str = "Time [s] \tPart1.x [m] \tPart1.v [m/s] \tPart2.x [m]\n\
                          0\t1\t0\t2\n\
                          0.5\t0.8775825618904\t-0.4794255386042\t2\n\
                          1\t0.54030230586814\t-0.8414709848079\t2\n\
                          1.5\t0.070737201667703\t-0.99749498660405\t2\n";

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write test input");
    path
}

fn args(input: PathBuf) -> PlotArgs {
    PlotArgs {
        input,
        output: None,
        vars: Vec::new(),
        width: 640,
        height: 400,
        title: None,
    }
}

fn error_of(result: anyhow::Result<impl std::fmt::Debug>) -> String {
    format!("{:#}", result.expect_err("an error"))
}

#[test]
fn plots_a_values_csv_into_svg() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let input = write(&dir, "values.csv", VALUES_CSV);
    run(&args(input))?;
    let svg = std::fs::read_to_string(dir.path().join("values.svg"))?;
    assert!(svg.starts_with("<svg"), "{}", &svg[..100.min(svg.len())]);
    assert!(svg.trim_end().ends_with("</svg>"));
    for text in [
        "Time [s]",
        "Value [m, m/s]",
        "Part1.x [m]",
        "Part1.v [m/s]",
        "Part2.x [m]",
    ] {
        assert!(
            svg.contains(&format!("\n{text}\n")),
            "'{text}' missing in the SVG"
        );
    }
    assert!(
        svg.contains("values.csv\n"),
        "the default title is the input path"
    );
    // One line per variable plus its legend sample, in the variable's colour.
    assert_eq!(svg.matches("stroke-width=\"2\" points=").count(), 6);
    for color in ["#1F77B4", "#FF7F0E", "#2CA02C"] {
        assert_eq!(
            svg.matches(&format!("stroke=\"{color}\" stroke-width=\"2\""))
                .count(),
            2
        );
    }
    Ok(())
}

#[test]
fn plots_into_png_with_a_shared_unit() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let input = write(&dir, "values.csv", VALUES_CSV);
    let output = dir.path().join("chart.PNG");
    run(&PlotArgs {
        output: Some(output.clone()),
        vars: vec!["*.x".to_string()],
        title: Some("Positions".to_string()),
        ..args(input)
    })?;
    let png = std::fs::read(&output)?;
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "PNG signature");
    assert!(png.len() > 1000);
    Ok(())
}

#[test]
fn plots_a_comma_separated_reference_with_quoted_captions() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let input = write(
        &dir,
        "BouncingBall_ref.csv",
        "\"time\",\"h\",\"v\"\r\n0,1,0\r\n0.01,0.9995,-0.0981\r\n0.02,0.998,-0.1962\r\n",
    );
    let output = dir.path().join("ref.svg");
    run(&PlotArgs {
        output: Some(output.clone()),
        vars: vec!["h".to_string()],
        ..args(input)
    })?;
    let svg = std::fs::read_to_string(&output)?;
    assert!(svg.contains("\nTime [s]\n"));
    assert!(svg.contains("\nValue\n"), "no units: plain 'Value'");
    assert!(svg.contains("\nh\n"));
    assert!(!svg.contains("\nv\n"), "v was not selected");
    Ok(())
}

#[test]
fn exact_names_and_text_columns() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let input = write(
        &dir,
        "mixed.csv",
        "Time [min] \tA.s \tA.n [-] \tA.x[2] \n0\tfoo\t1\t-nan\n1\tbar\t2\tinf\n\n",
    );
    let data = result_file::read(&input)?;
    // Exact names work even where the glob syntax would read `[2]` as a class.
    let chosen = select(&data, &["A.x[2]".to_string()], &input)?;
    assert_eq!(chosen.len(), 1);
    let message = error_of(select(&data, &["A.s".to_string()], &input));
    assert!(message.contains("'A.s'") && message.contains("not numeric"));
    assert!(message.contains("line 2: 'foo'"), "{message}");
    let message = error_of(select(&data, &["*.s".to_string()], &input));
    assert!(message.contains("'A.s'") && message.contains("not numeric"));
    Ok(())
}

#[test]
fn plots_a_mat_file_without_its_parameters() -> anyhow::Result<()> {
    use output::mat::{MatParameter, MatSeries, MatSignal, write_series};
    let dir = tempfile::tempdir()?;
    let input = dir.path().join("values.mat");
    let series = |name: &str, unit: &str, time: Vec<f64>, values: Vec<f64>| MatSeries {
        signal: MatSignal::new(name, unit, ""),
        time,
        values,
    };
    write_series(
        &input,
        &[MatParameter {
            signal: MatSignal::new("Part1.k", "N/m", "stiffness"),
            start: 2.0,
            stop: 2.0,
        }],
        &[
            series("Part1.x", "m", vec![0.0, 0.5, 1.0], vec![1.0, 0.5, 0.0]),
            series("Part2.x", "m", vec![0.0, 1.0], vec![0.0, 1.0]),
        ],
        &[],
        0.0,
        1.0,
    )?;
    run(&args(input.clone()))?;
    let svg = std::fs::read_to_string(dir.path().join("values.svg"))?;
    for text in ["Time [s]", "Value [m]", "Part1.x [m]", "Part2.x [m]"] {
        assert!(
            svg.contains(&format!("\n{text}\n")),
            "'{text}' missing in the SVG"
        );
    }
    assert!(
        !svg.contains("Part1.k"),
        "parameters are not drawn by default"
    );
    assert_eq!(svg.matches("stroke-width=\"2\" points=").count(), 4);

    // Globs do not match parameters; the message names the parameter it would have.
    let message = error_of(run(&PlotArgs {
        vars: vec!["*.k".to_string()],
        ..args(input.clone())
    }));
    assert!(
        message.contains("matches '*.k' (variables: Part1.x, Part2.x)")
            && message.contains("parameters are plotted only when named exactly: Part1.k"),
        "{message}"
    );
    // An exact name draws the parameter.
    run(&PlotArgs {
        vars: vec!["Part1.k".to_string(), "Part2.*".to_string()],
        ..args(input)
    })?;
    let svg = std::fs::read_to_string(dir.path().join("values.svg"))?;
    assert!(svg.contains("\nPart1.k [N/m]\n") && svg.contains("\nPart2.x [m]\n"));
    assert!(svg.contains("\nValue [m, N/m]\n"));

    let broken = write(&dir, "broken.mat", "not a MAT file");
    let message = error_of(run(&args(broken)));
    assert!(message.contains("broken.mat"), "{message}");
    Ok(())
}

#[test]
fn plots_a_signal_table() -> anyhow::Result<()> {
    use output::signal_table::{
        AttributeMap, ParameterValue, SignalLayout, SignalTableWriter, SignalType, TableParameter,
        TableSignal,
    };
    let dir = tempfile::tempdir()?;
    let input = dir.path().join("results.json");
    let layout = SignalLayout {
        time_unit: "ms".to_string(),
        signals: vec![
            TableSignal::new("LV.x", SignalType::Real, "-"),
            TableSignal::new("LV.on", SignalType::Boolean, ""),
            TableSignal::new("LV.label", SignalType::String, ""),
        ],
        parameters: vec![TableParameter {
            name: "LV.alpha".to_string(),
            unit: "1/s".to_string(),
            info: String::new(),
            value: ParameterValue::Real(1.1),
        }],
        ..SignalLayout::default()
    };
    let mut table = SignalTableWriter::create(&input, &layout)?;
    for (t, x, on) in [
        (0.0, 10.0, true),
        (5.0, 12.5, false),
        (10.0, f64::NAN, true),
    ] {
        table.push_row(t, &[on], &[], &[x], &["a"])?;
    }
    table.finish(&AttributeMap::new())?;
    run(&args(input.clone()))?;
    let svg = std::fs::read_to_string(dir.path().join("results.svg"))?;
    for text in ["Time [ms]", "Value [-]", "LV.x [-]", "LV.on"] {
        assert!(
            svg.contains(&format!("\n{text}\n")),
            "'{text}' missing in the SVG"
        );
    }
    assert!(!svg.contains("LV.alpha") && !svg.contains("LV.label"));
    let message = error_of(run(&PlotArgs {
        vars: vec!["LV.label".to_string()],
        ..args(input)
    }));
    assert!(
        message.contains("'LV.label'") && message.contains("not numeric (line 1: 'a')"),
        "{message}"
    );
    Ok(())
}

#[test]
fn patterns_select_in_file_order() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let input = write(&dir, "values.csv", VALUES_CSV);
    let data = result_file::read(&input)?;
    let names = |patterns: &[&str]| -> anyhow::Result<Vec<String>> {
        let patterns: Vec<String> = patterns.iter().map(|p| p.to_string()).collect();
        Ok(select(&data, &patterns, &input)?
            .iter()
            .map(|s| s.name.clone())
            .collect())
    };
    assert_eq!(names(&[])?, ["Part1.x", "Part1.v", "Part2.x"]);
    assert_eq!(
        names(&["Part2.*", "Part1.?"])?,
        ["Part1.x", "Part1.v", "Part2.x"]
    );
    assert_eq!(names(&["*.x", "Part1.x"])?, ["Part1.x", "Part2.x"]);
    assert_eq!(names(&["Part[1].v"])?, ["Part1.v"]);
    let message = error_of(names(&["*.x", "Part3.*"]));
    assert!(message.contains("matches 'Part3.*'"), "{message}");
    assert!(
        message.contains("variables: Part1.x, Part1.v, Part2.x"),
        "{message}"
    );
    let message = error_of(names(&["Part[1"]));
    assert!(
        message.contains("invalid variable pattern 'Part[1'"),
        "{message}"
    );
    Ok(())
}

#[test]
fn unit_labels() {
    assert_eq!(y_label(["m/s", "m/s"].into_iter()), "Value [m/s]");
    assert_eq!(y_label(["m", "m/s", "m"].into_iter()), "Value [m, m/s]");
    assert_eq!(y_label(["m", ""].into_iter()), "Value [m, -]");
    assert_eq!(y_label(["-", "-"].into_iter()), "Value [-]");
    assert_eq!(y_label(["", ""].into_iter()), "Value");
    let series = |unit: &str| Series {
        name: "P.x".to_string(),
        unit: unit.to_string(),
        time: Arc::new(Vec::new()),
        values: Vec::new(),
        kind: SeriesKind::Variable,
    };
    assert_eq!(legend_label(&series("K")), "P.x [K]");
    assert_eq!(legend_label(&series("")), "P.x");
}

#[test]
fn ranges_and_segments() {
    assert_eq!(axis_range([2.0, 2.0].into_iter(), 0.05), (1.8, 2.2));
    assert_eq!(axis_range([0.0].into_iter(), 0.05), (-1.0, 1.0));
    assert_eq!(axis_range([f64::NAN].into_iter(), 0.05), (0.0, 1.0));
    assert_eq!(
        axis_range([0.0, f64::INFINITY, 10.0].into_iter(), 0.1),
        (-1.0, 11.0)
    );
    let limit = f64::MAX / 4.0;
    assert_eq!(
        axis_range([-f64::MAX, f64::MAX].into_iter(), 0.05),
        (-limit, limit)
    );
    assert_eq!(axis_range([f64::MAX].into_iter(), 0.05), (-limit, limit));
    let series = Series {
        name: "x".into(),
        unit: String::new(),
        time: Arc::new(vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]),
        values: vec![f64::NAN, 1.0, 2.0, f64::NAN, f64::NAN, 5.0],
        kind: SeriesKind::Variable,
    };
    assert_eq!(
        segments(&series),
        [vec![(1.0, 1.0), (2.0, 2.0)], vec![(5.0, 5.0)]]
    );
}

#[test]
fn a_constant_or_nan_signal_still_plots() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let input = write(
        &dir,
        "values.csv",
        "Time [s] \tc [K] \tn [K]\n0\t293.15\tnan\n1\t293.15\tnan\n",
    );
    run(&args(input))?;
    let svg = std::fs::read_to_string(dir.path().join("values.svg"))?;
    assert!(svg.contains("Value [K]") && svg.contains("n [K]"));
    Ok(())
}

#[test]
fn errors_are_clear() {
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = dir.path().join("missing.csv");
    assert!(error_of(run(&args(missing))).contains("doesn't exist"));

    let txt = write(&dir, "values.txt", VALUES_CSV);
    assert!(error_of(run(&args(txt))).contains("expected a .csv, .mat or .json file"));

    let input = write(&dir, "values.csv", VALUES_CSV);
    let message = error_of(run(&PlotArgs {
        output: Some(dir.path().join("chart.pdf")),
        ..args(input.clone())
    }));
    assert!(message.contains(".svg or .png"), "{message}");

    let message = error_of(run(&PlotArgs {
        vars: vec!["nothing".to_string()],
        ..args(input)
    }));
    assert!(message.contains("matches 'nothing'"), "{message}");

    let bad_time = write(&dir, "bad_time.csv", "Time [s] \tx [m]\n0\t1\nzero\t2\n");
    let message = error_of(run(&args(bad_time)));
    assert!(
        message.contains("line 3: time 'zero' is not a number"),
        "{message}"
    );

    let strings = write(&dir, "strings.csv", "Time [s] \tA.s\n0\tfoo\n");
    assert!(error_of(run(&args(strings))).contains("holds no numeric variable"));

    let parameters = write(
        &dir,
        "parameters.json",
        r#"{"_class": "SignalTable",
            "time": {"_class": "Var", "values": [0, 1], "independent": true},
            "k": {"_class": "Par", "value": 3}}"#,
    );
    let message = error_of(run(&args(parameters)));
    assert!(
        message.ends_with(
            "holds no numeric variable, only parameters (k); name them with --var to plot them"
        ),
        "{message}"
    );
    let bad_json = write(
        &dir,
        "bad.json",
        "{\"_class\": \"SignalTable\",\n\"time\": [}",
    );
    let message = error_of(run(&args(bad_json)));
    assert!(message.contains("bad.json' line 2 column 9"), "{message}");

    let no_dir = dir.path().join("no").join("chart.svg");
    let message = error_of(run(&PlotArgs {
        output: Some(no_dir),
        ..args(dir.path().join("values.csv"))
    }));
    assert!(message.contains("cannot write chart"), "{message}");
    assert!(!dir.path().join("bad_time.svg").exists());
}

/// A pixel's column and row.
type Pixel = (i32, i32);

/// A decoded PNG image, 8 bits per channel.
struct Image {
    width: i32,
    height: i32,
    channels: usize,
    data: Vec<u8>,
}

impl Image {
    fn read(path: &Path) -> anyhow::Result<Image> {
        let mut reader = png::Decoder::new(std::fs::File::open(path)?).read_info()?;
        let mut data = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut data)?;
        assert_eq!(info.bit_depth, png::BitDepth::Eight);
        let channels = match info.color_type {
            png::ColorType::Rgb => 3,
            png::ColorType::Rgba => 4,
            other => panic!("unexpected PNG colour type {other:?}"),
        };
        Ok(Image {
            width: i32::try_from(info.width)?,
            height: i32::try_from(info.height)?,
            channels,
            data,
        })
    }

    fn rgb(&self, x: i32, y: i32) -> RGBColor {
        let at = (y as usize * self.width as usize + x as usize) * self.channels;
        RGBColor(self.data[at], self.data[at + 1], self.data[at + 2])
    }

    /// The positions of the pixels of `color`.
    fn pixels_of(&self, color: RGBColor) -> Vec<(i32, i32)> {
        let mut found = Vec::new();
        for y in 0..self.height {
            for x in 0..self.width {
                if self.rgb(x, y) == color {
                    found.push((x, y));
                }
            }
        }
        found
    }

    /// The pixels darker than light grey (text, axes) within `area`.
    fn dark_in(&self, area: Area) -> Vec<(i32, i32)> {
        let mut found = Vec::new();
        for y in area.top.max(0)..area.bottom.min(self.height) {
            for x in area.left.max(0)..area.right.min(self.width) {
                let RGBColor(r, g, b) = self.rgb(x, y);
                if u32::from(r) + u32::from(g) + u32::from(b) < 3 * 160 {
                    found.push((x, y));
                }
            }
        }
        found
    }
}

impl Area {
    fn contains(&self, (x, y): (i32, i32)) -> bool {
        (self.left..self.right).contains(&x) && (self.top..self.bottom).contains(&y)
    }

    fn intersects(&self, other: &Area) -> bool {
        self.left < other.right
            && other.left < self.right
            && self.top < other.bottom
            && other.top < self.bottom
    }

    fn grown(&self, by: i32) -> Area {
        Area {
            left: self.left - by,
            top: self.top - by,
            right: self.right + by,
            bottom: self.bottom + by,
        }
    }
}

/// The bounding box of `pixels`, as an [`Area`].
fn bounding_box(pixels: &[(i32, i32)]) -> Area {
    let xs = || pixels.iter().map(|p| p.0);
    let ys = || pixels.iter().map(|p| p.1);
    Area {
        left: xs().min().expect("pixels"),
        top: ys().min().expect("pixels"),
        right: xs().max().expect("pixels") + 1,
        bottom: ys().max().expect("pixels") + 1,
    }
}

/// The texts of an SVG chart's `<text>` elements.
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let start = t.find('>')? + 1;
            let end = t.find("</text>")?;
            Some(t[start..end].trim().to_string())
        })
        .collect()
}

/// `values.csv` with `n` sines of amplitude 1 over 0..10 s, of different periods and phases:
/// together their curves cross the whole plotting area.
fn sines_csv(n: usize, name: impl Fn(usize) -> String) -> String {
    let mut text = "Time [s]".to_string();
    for k in 0..n {
        text.push_str(&format!(" \t{} [V]", name(k)));
    }
    text.push('\n');
    for i in 0..=2000 {
        let t = f64::from(i) * 0.005;
        text.push_str(&format!("{t}"));
        for k in 0..n {
            let period = 1.5 + 0.37 * k as f64;
            let phase = 0.9 * k as f64;
            let v = (std::f64::consts::TAU * t / period + phase).sin();
            text.push_str(&format!("\t{v}"));
        }
        text.push('\n');
    }
    text
}

/// Issue 14: the legend stands outside the plotting area, so no curve ever runs under it —
/// checked on the pixels of a PNG whose curves fill the plotting area.
#[test]
fn the_legend_never_covers_a_curve() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let n = 6;
    let input = write(
        &dir,
        "values.csv",
        &sines_csv(n, |k| format!("Generator{k}.u")),
    );
    let output = dir.path().join("sines.png");
    let (_, layout) = plot(&PlotArgs {
        output: Some(output.clone()),
        width: 800,
        height: 480,
        ..args(input)
    })?;
    let image = Image::read(&output)?;
    assert_eq!((image.width, image.height), (800, 480));
    let (plot, legend) = (layout.plot, layout.legend);
    let whole = Area {
        left: 0,
        top: 0,
        right: image.width,
        bottom: image.height,
    };
    assert!(!legend.intersects(&plot), "{legend:?} overlaps {plot:?}");
    assert!(legend.left >= plot.right, "the legend is right of the plot");
    assert!(
        legend.left >= 0 && legend.right <= whole.right && legend.bottom <= whole.bottom,
        "{legend:?} inside the image"
    );
    assert_eq!(layout.entries.len(), n);
    assert!(layout.more.is_none());

    // The frame drawn is the legend box of the layout.
    let frame = image.pixels_of(LEGEND_FRAME);
    assert_eq!(bounding_box(&frame), legend, "the legend frame's pixels");
    let (w, h) = (legend.right - legend.left, legend.bottom - legend.top);
    assert_eq!(frame.len(), 2 * (w + h) as usize - 4, "a closed 1 px frame");
    // The legend's labels are drawn inside the box.
    assert!(!image.dark_in(legend).is_empty(), "legend text");

    for (k, entry) in layout.entries.iter().enumerate() {
        let curve = image.pixels_of(COLORS[k]);
        let [(x0, y), (x1, _)] = entry.sample;
        let sample = Area {
            left: x0,
            top: y - 1,
            right: x1 + 1,
            bottom: y + 2,
        }
        .grown(1);
        assert!(legend.contains((sample.left, sample.top)));
        // Every pixel of the curve's colour outside the plotting area is its legend sample.
        let (stray, in_sample): (Vec<Pixel>, Vec<Pixel>) = curve
            .iter()
            .copied()
            .filter(|&p| !plot.grown(2).contains(p))
            .partition(|&p| !sample.contains(p));
        assert!(
            stray.is_empty(),
            "curve {k}: {} pixels outside the plot, e.g. {:?}",
            stray.len(),
            &stray[..stray.len().min(5)]
        );
        assert!(in_sample.len() >= 40, "the legend sample of curve {k}");
        assert!(
            curve.iter().filter(|&&p| legend.contains(p)).count() == in_sample.len(),
            "curve {k} enters the legend only as its sample"
        );
        // Each curve spans the plotting area from left to right and top to bottom.
        let extent = bounding_box(
            &curve
                .iter()
                .copied()
                .filter(|&p| plot.grown(2).contains(p))
                .collect::<Vec<_>>(),
        );
        assert!(
            extent.left <= plot.left + 2 && extent.right >= plot.right - 2,
            "{extent:?}"
        );
        assert!(
            extent.top <= plot.top + (plot.bottom - plot.top) / 10
                && extent.bottom >= plot.bottom - (plot.bottom - plot.top) / 10,
            "{extent:?} in {plot:?}"
        );
    }
    // Where a legend inside the plot would stand, in either upper corner, curves run.
    let any_curve_in =
        |area: Area| (0..n).any(|k| image.pixels_of(COLORS[k]).iter().any(|&p| area.contains(p)));
    for corner in [
        Area {
            left: plot.right - w,
            top: plot.top,
            right: plot.right,
            bottom: plot.top + h,
        },
        Area {
            left: plot.left,
            top: plot.top,
            right: plot.left + w,
            bottom: plot.top + h,
        },
    ] {
        assert!(any_curve_in(corner), "curves fill {corner:?}");
    }
    Ok(())
}

/// Issue 14: long titles and legend labels are shortened with `…` to fit; the title's
/// pixels stay inside the image's margins, the labels' inside the legend box.
#[test]
fn long_titles_and_labels_fit_the_image() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let long_name = format!("Plant.{}.temperature", "subsystem".repeat(12));
    let input = write(
        &dir,
        "values.csv",
        &sines_csv(2, |k| {
            if k == 0 {
                long_name.clone()
            } else {
                "Plant.p".to_string()
            }
        }),
    );
    let title = format!(
        "Start of the title {} end of the title",
        "and a lot more words ".repeat(10)
    );
    let output = dir.path().join("long.png");
    let (_, layout) = plot(&PlotArgs {
        output: Some(output.clone()),
        title: Some(title.clone()),
        ..args(input.clone())
    })?;
    let image = Image::read(&output)?;
    assert!(layout.title.contains('…'), "{}", layout.title);
    assert!(layout.title.starts_with("Start of the"), "{}", layout.title);
    assert!(layout.title.ends_with("of the title"), "{}", layout.title);
    let title_band = Area {
        left: 0,
        top: 0,
        right: image.width,
        bottom: layout.plot.top - CHART_TOP,
    };
    let title_pixels = image.dark_in(title_band);
    assert!(title_pixels.len() > 500, "the title is drawn");
    let drawn = bounding_box(&title_pixels);
    assert!(
        drawn.left >= MARGIN - 2 && drawn.right <= image.width - MARGIN + 2,
        "the title's pixels {drawn:?} stay inside the margins of a {} px image",
        image.width
    );
    assert!(
        drawn.right - drawn.left > image.width / 2,
        "and use the room"
    );

    let label = &layout.entries[0].label;
    assert!(
        label.contains('…') && label.starts_with("Plant.sub"),
        "{label}"
    );
    assert!(label.ends_with("ature [V]"), "{label}");
    assert_eq!(layout.entries[1].label, "Plant.p [V]");
    let legend = layout.legend;
    assert_eq!(bounding_box(&image.pixels_of(LEGEND_FRAME)), legend);
    assert!(legend.right <= image.width - MARGIN + 1);
    assert!(!legend.intersects(&layout.plot));
    let right_of_legend = Area {
        left: legend.right,
        top: legend.top,
        right: image.width,
        bottom: legend.bottom,
    };
    assert_eq!(
        image.dark_in(right_of_legend),
        [],
        "no text beyond the legend"
    );
    let text_width = bounding_box(&image.dark_in(legend.grown(-2))).right;
    assert!(text_width < legend.right - 2);

    // The SVG shows the same shortened texts.
    let svg_path = dir.path().join("long.svg");
    plot(&PlotArgs {
        output: Some(svg_path.clone()),
        title: Some(title.clone()),
        ..args(input)
    })?;
    let texts = svg_texts(&std::fs::read_to_string(&svg_path)?);
    assert!(texts.contains(&layout.title), "{texts:?}");
    assert!(texts.contains(label), "{texts:?}");
    assert!(!texts.contains(&title));
    Ok(())
}

/// True when `label` is a negative zero (`-0`, `-0.00`, `-0e3`).
fn is_negative_zero(label: &str) -> bool {
    label.strip_prefix('-').is_some_and(|rest| {
        let mantissa = rest.split('e').next().unwrap_or(rest);
        mantissa.chars().all(|c| c == '0' || c == '.')
    })
}

/// Issue 14: no tick label reads `-0` or `-0.0`; labels are distinct and name their tick.
#[test]
fn tick_labels_never_read_minus_zero() -> anyhow::Result<()> {
    assert!(is_negative_zero("-0.0") && is_negative_zero("-0") && !is_negative_zero("-0.5"));
    for (lo, hi) in [
        (-1.0, 1.0),
        (-1.1, 1.1),
        (-0.0, 1.0),
        (-0.3, 0.7),
        (-1.05, 1.05),
        (-3e-7, 3e-7),
        (-2.5e6, 2.5e6),
        (0.0, 10.0),
        (-1000.0, 50.0),
        (1.0e6, 1.0e6 + 1.0),
        (-f64::MAX / 4.0, f64::MAX / 4.0),
    ] {
        let format = TickFormat::new(lo, hi, TICKS);
        let labels: Vec<String> = format.ticks.iter().map(|&t| format.label(t)).collect();
        assert!(labels.len() >= 2, "{lo}..{hi}: {labels:?}");
        for (label, &tick) in labels.iter().zip(&format.ticks) {
            assert!(!is_negative_zero(label), "{lo}..{hi}: {labels:?}");
            let value: f64 = label.parse()?;
            assert!(
                (value - tick).abs() <= format.step.abs() * 1e-6,
                "{lo}..{hi}: '{label}' for {tick}"
            );
        }
        let mut distinct = labels.clone();
        distinct.dedup();
        assert_eq!(distinct, labels, "{lo}..{hi}");
    }
    let format = TickFormat::new(-1.0, 1.0, TICKS);
    assert_eq!(format.label(-0.0), "0.0");
    assert_eq!(format.label(-1e-17), "0.0");
    assert_eq!(format.label(-0.4), "-0.4");
    assert_eq!(TickFormat::new(0.0, 100.0, TICKS).label(40.0), "40");
    assert_eq!(TickFormat::new(0.0, 5e6, TICKS).label(-0.0), "0");
    assert_eq!(TickFormat::new(0.0, 5e6, TICKS).label(2e6), "2.0e6");
    assert_eq!(TickFormat::new(0.0, 3e-4, TICKS).label(1e-4), "1.0e-4");

    // Drawn: axes around zero in time and value, and an axis starting at -0 (time) with a
    // constant -0 (value).
    let dir = tempfile::tempdir()?;
    let mut around_zero = "Time [s] \tx [m]\n".to_string();
    let mut from_minus_zero = "Time [s] \tx [m]\n-0.0\t-0.0\n".to_string();
    for i in 0..=40 {
        let t = -1.0 + f64::from(i) * 0.05;
        around_zero.push_str(&format!("{t}\t{}\n", -t * 1.05));
        if i > 0 {
            from_minus_zero.push_str(&format!("{}\t-0.0\n", f64::from(i) * 0.025));
        }
    }
    for (name, csv) in [("around.csv", around_zero), ("minus.csv", from_minus_zero)] {
        let input = write(&dir, name, &csv);
        let output = dir.path().join(name).with_extension("svg");
        run(&args(input))?;
        let texts = svg_texts(&std::fs::read_to_string(&output)?);
        assert!(texts.iter().any(|t| t == "0.0"), "{name}: {texts:?}");
        assert!(texts.iter().any(|t| t == "-1.0"), "{name}: {texts:?}");
        assert!(
            !texts.iter().any(|t| is_negative_zero(t)),
            "{name}: {texts:?}"
        );
    }
    Ok(())
}

#[test]
fn fit_keeps_both_ends() -> anyhow::Result<()> {
    let width = |text: &str| Ok(10 * i32::try_from(text.chars().count())?);
    assert_eq!(fit("abcdefghij", 100, width)?, "abcdefghij");
    assert_eq!(fit("abcdefghij", 99, width)?, "abcd…ghij");
    assert_eq!(fit("abcdefghij", 55, width)?, "ab…ij");
    assert_eq!(fit("äöüßäöüß", 45, width)?, "äö…ß");
    assert_eq!(fit("abcdefghij", 5, width)?, "…");
    Ok(())
}

/// Many variables: the legend lists as many as fit and says how many more there are.
#[test]
fn a_full_legend_says_how_many_more() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let input = write(&dir, "values.csv", &sines_csv(40, |k| format!("S.x{k}")));
    let output = dir.path().join("many.png");
    let (_, layout) = plot(&PlotArgs {
        output: Some(output.clone()),
        ..args(input)
    })?;
    let shown = layout.entries.len();
    assert!((5..40).contains(&shown), "{shown}");
    assert_eq!(layout.more, Some(format!("… and {} more", 40 - shown)));
    let image = Image::read(&output)?;
    assert_eq!(bounding_box(&image.pixels_of(LEGEND_FRAME)), layout.legend);
    assert!(layout.legend.bottom <= image.height - MARGIN);
    Ok(())
}
