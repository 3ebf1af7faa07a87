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
