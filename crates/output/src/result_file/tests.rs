use std::path::PathBuf;

use super::csv::split_caption;
use super::*;
use crate::TableProblem;
use crate::mat::{MatParameter, MatSeries, MatSignal, write_series};

mod json;

/// A mastersim `values.csv` with two units.
const VALUES_CSV: &str = "Time [s] \tPart1.x [m] \tPart1.v [m/s] \tPart2.x [m]\n\
                          0\t1\t0\t2\n\
                          0.5\t0.8775825618904\t-0.4794255386042\t2\n\
                          1\t0.54030230586814\t-0.8414709848079\t2\n";

fn temp() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write test input");
    path
}

/// Name, unit and kind of every series of `file`, in order.
fn kinds(file: &ResultFile) -> Vec<(&str, &str, SeriesKind)> {
    file.series
        .iter()
        .map(|s| (s.name.as_str(), s.unit.as_str(), s.kind))
        .collect()
}

fn message(result: Result<impl std::fmt::Debug>) -> String {
    result.expect_err("an error").to_string()
}

fn variable(name: &str, time: &Arc<Vec<f64>>, values: Vec<f64>) -> Series {
    Series {
        name: name.to_string(),
        unit: "m".to_string(),
        time: Arc::clone(time),
        values,
        kind: SeriesKind::Variable,
    }
}

#[test]
fn reads_a_values_csv() -> Result<()> {
    let dir = temp();
    let file = read(&write(&dir, "values.csv", VALUES_CSV))?;
    assert_eq!(file.time_unit, "s");
    let names = kinds(&file);
    assert_eq!(
        names,
        [
            ("Part1.x", "m", SeriesKind::Variable),
            ("Part1.v", "m/s", SeriesKind::Variable),
            ("Part2.x", "m", SeriesKind::Variable)
        ]
    );
    assert!(Arc::ptr_eq(&file.series[0].time, &file.series[2].time));
    assert_eq!(*file.series[0].time, [0.0, 0.5, 1.0]);
    assert_eq!(
        file.series[1].values,
        [0.0, -0.4794255386042, -0.8414709848079]
    );
    assert!(file.text_columns.is_empty());
    // The extension is matched in any case.
    let upper = write(&dir, "VALUES.CSV", VALUES_CSV);
    assert_eq!(read(&upper)?, file);
    Ok(())
}

#[test]
fn reads_units_strings_and_the_time_unit() -> Result<()> {
    let dir = temp();
    let input = write(
        &dir,
        "mixed.csv",
        "Time [min] \tA.s \tA.n [-] \tA.x[2] \n0\tfoo\t1\t-nan\n1\tbar\t2\tinf\n\n",
    );
    let file = read(&input)?;
    assert_eq!(file.time_unit, "min");
    let names: Vec<_> = file
        .series
        .iter()
        .map(|s| (s.name.as_str(), s.unit.as_str()))
        .collect();
    assert_eq!(names, [("A.n", "-"), ("A.x[2]", "")]);
    assert_eq!(*file.series[0].time, [0.0, 1.0]);
    assert!(file.series[1].values[0].is_nan());
    assert_eq!(file.series[1].values[1], f64::INFINITY);
    assert_eq!(
        file.text_columns,
        [TextColumn {
            name: "A.s".to_string(),
            line: 2,
            text: "foo".to_string()
        }]
    );
    Ok(())
}

#[test]
fn reads_semicolon_csv_with_comments_quotes_and_empty_fields() -> Result<()> {
    let dir = temp();
    let input = write(
        &dir,
        "export.csv",
        "\u{feff}# exported\n\"time [ms]\";\"x; y [m]\";note\n0;1;\n\n# pause\n5;2;\"a \"\"b\"\"\"\n",
    );
    let file = read(&input)?;
    assert_eq!(file.time_unit, "ms");
    assert_eq!(file.series.len(), 1);
    assert_eq!(file.series[0].name, "x; y");
    assert_eq!(*file.series[0].time, [0.0, 5.0]);
    assert_eq!(file.series[0].values, [1.0, 2.0]);
    assert_eq!(
        file.text_columns,
        [TextColumn {
            name: "note".to_string(),
            line: 3,
            text: String::new()
        }]
    );
    Ok(())
}

#[test]
fn reads_a_comma_separated_reference_with_booleans() -> Result<()> {
    let dir = temp();
    let input = write(
        &dir,
        "BouncingBall_ref.csv",
        "\"time\",\"h\",\"on\"\r\n0,1,true\r\n0.01,0.9995,FALSE\r\n",
    );
    let file = read(&input)?;
    assert_eq!(file.time_unit, "s", "no unit in the caption: seconds");
    assert_eq!(file.series[0].name, "h");
    assert_eq!(file.series[1].values, [1.0, 0.0]);
    Ok(())
}

#[test]
fn captions() {
    assert_eq!(split_caption("Time [s] "), ("Time".into(), "s".into()));
    assert_eq!(split_caption("P.v [m/s]"), ("P.v".into(), "m/s".into()));
    assert_eq!(split_caption("x[1]"), ("x[1]".into(), String::new()));
    assert_eq!(split_caption("x[1] [m]"), ("x[1]".into(), "m".into()));
    assert_eq!(split_caption(" [m]"), ("[m]".into(), String::new()));
}

#[test]
fn csv_errors_name_the_file_and_the_line() {
    let dir = temp();
    let bad_time = write(&dir, "bad_time.csv", "Time [s] \tx [m]\n0\t1\nzero\t2\n");
    let error = read(&bad_time).expect_err("time is not a number");
    assert!(matches!(
        &error,
        Error::Table { line: 3, problem: TableProblem::Time { text }, .. } if text == "zero"
    ));
    let text = error.to_string();
    assert!(text.contains("bad_time.csv' line 3: time 'zero' is not a number, expected a number"));

    let short_row = write(&dir, "short.csv", "Time [s] \tx [m]\n0\t1\n1\n");
    let text = message(read(&short_row));
    assert!(
        text.contains("short.csv' line 3: 1 fields, but the header has 2"),
        "{text}"
    );

    let quote = write(&dir, "quote.csv", "\"time\",\"x\"\n0,\"1\n");
    let text = message(read(&quote));
    assert!(
        text.contains("quote.csv' line 2") && text.contains("not closed"),
        "{text}"
    );

    let empty = write(&dir, "empty.csv", "");
    assert!(message(read(&empty)).contains("no header line"));
    let header_only = write(&dir, "header.csv", "Time [s] \tx [m]\n");
    assert!(message(read(&header_only)).contains("no data rows"));
}

#[test]
fn missing_files_and_unknown_types_list_the_accepted_extensions() {
    let dir = temp();
    let missing = dir.path().join("missing.csv");
    let error = read(&missing).expect_err("missing");
    assert!(matches!(error, Error::NoResultFile { .. }));
    assert_eq!(
        error.to_string(),
        format!(
            "result file '{}' doesn't exist or is not a file; expected an existing .csv, .mat \
             or .json file",
            missing.display()
        )
    );
    // A directory is no result file either.
    assert!(matches!(read(dir.path()), Err(Error::NoResultFile { .. })));

    for name in ["values.txt", "values"] {
        let path = write(&dir, name, VALUES_CSV);
        let error = read(&path).expect_err("unknown type");
        assert!(matches!(error, Error::ResultFileType { .. }));
        assert_eq!(
            error.to_string(),
            format!(
                "unknown result file type '{}': expected a .csv, .mat or .json file",
                path.display()
            )
        );
    }
}

#[test]
fn mat_parameters_are_told_apart() -> Result<()> {
    let dir = temp();
    let path = dir.path().join("values.mat");
    let series = |name: &str, time: Vec<f64>, values: Vec<f64>| MatSeries {
        signal: MatSignal::new(name, "m", ""),
        time,
        values,
    };
    write_series(
        &path,
        &[MatParameter {
            signal: MatSignal::new("Part1.k", "N/m", "stiffness"),
            start: 2.0,
            stop: 2.0,
        }],
        &[
            series("Part1.x", vec![0.0, 0.5, 1.0], vec![1.0, 0.5, 0.0]),
            series("Part2.x", vec![0.0, 1.0], vec![0.0, 1.0]),
        ],
        &[],
        0.0,
        1.0,
    )?;
    let file = read(&path)?;
    assert_eq!(file.time_unit, "s");
    let names = kinds(&file);
    assert_eq!(
        names,
        [
            ("Part1.x", "m", SeriesKind::Variable),
            ("Part2.x", "m", SeriesKind::Variable),
            ("Part1.k", "N/m", SeriesKind::Parameter)
        ]
    );
    assert_eq!(*file.series[2].time, [0.0, 1.0]);
    assert_eq!(file.series[2].values, [2.0, 2.0]);
    assert!(file.text_columns.is_empty());

    // The output filter gave the two variables their own time axes.
    let error = file.table().expect_err("two time axes");
    assert!(matches!(
        &error,
        Error::TimeAxis { first, others } if first == "Part1.x" && others == &["Part2.x"]
    ));
    assert!(
        error
            .to_string()
            .starts_with("'Part2.x' is not on the time axis of 'Part1.x'"),
        "{error}"
    );

    let broken = write(&dir, "broken.mat", "not a MAT file");
    assert!(matches!(read(&broken), Err(Error::MatFormat { .. })));
    Ok(())
}

#[test]
fn tables_hold_the_variables_on_the_common_time_axis() -> Result<()> {
    let time = Arc::new(vec![0.0, 0.5, 1.0]);
    let copy = Arc::new(vec![0.0, 0.5, 1.0]);
    let file = ResultFile {
        time_unit: "ms".to_string(),
        series: vec![
            Series {
                kind: SeriesKind::Parameter,
                time: Arc::new(vec![0.0, 1.0]),
                values: vec![3.0, 3.0],
                ..variable("k", &time, Vec::new())
            },
            variable("x", &time, vec![1.0, 2.0, 3.0]),
            Series {
                unit: String::new(),
                ..variable("y", &copy, vec![-1.0, f64::NAN, -3.0])
            },
        ],
        text_columns: vec![TextColumn {
            name: "s".to_string(),
            line: 2,
            text: "a".to_string(),
        }],
    };
    let table = file.table()?;
    assert_eq!(table.time, *time);
    assert_eq!(table.names, ["x", "y"]);
    assert_eq!(table.units, ["m", ""]);
    assert_eq!(table.columns.len(), 2);
    assert_eq!(table.columns[0], [1.0, 2.0, 3.0]);
    assert!(table.columns[1][1].is_nan());
    assert!(table.columns.iter().all(|c| c.len() == table.time.len()));

    // NaN times compare equal to NaN times.
    let nan_time = Arc::new(vec![0.0, f64::NAN]);
    let nan_copy = Arc::new(vec![0.0, f64::NAN]);
    let file = ResultFile {
        time_unit: "s".to_string(),
        series: vec![
            variable("a", &nan_time, vec![1.0, 2.0]),
            variable("b", &nan_copy, vec![3.0, 4.0]),
        ],
        text_columns: Vec::new(),
    };
    assert_eq!(file.table()?.names, ["a", "b"]);
    Ok(())
}

#[test]
fn table_errors_name_the_variables() {
    let time = Arc::new(vec![0.0, 1.0]);
    let other = Arc::new(vec![0.0, 2.0]);
    let longer = Arc::new(vec![0.0, 1.0, 2.0]);
    let file = |series: Vec<Series>| ResultFile {
        time_unit: "s".to_string(),
        series,
        text_columns: Vec::new(),
    };

    let only_parameters = file(vec![Series {
        kind: SeriesKind::Parameter,
        ..variable("k", &time, vec![1.0, 1.0])
    }]);
    let error = only_parameters.table().expect_err("no variable");
    assert!(matches!(error, Error::NoVariable));
    assert_eq!(
        error.to_string(),
        "no numeric variable, expected at least one time-varying numeric variable \
         (parameters and String columns do not count)"
    );
    assert!(matches!(file(Vec::new()).table(), Err(Error::NoVariable)));

    let mixed = file(vec![
        variable("a", &time, vec![1.0, 2.0]),
        variable("b", &other, vec![1.0, 2.0]),
        variable("c", &time, vec![1.0]),
        variable("d", &longer, vec![1.0, 2.0, 3.0]),
    ]);
    let error = mixed.table().expect_err("other axes");
    assert!(matches!(
        &error,
        Error::TimeAxis { first, others } if first == "a" && others == &["b", "c", "d"]
    ));
    assert_eq!(
        error.to_string(),
        "'b', 'c', 'd' are not on the time axis of 'a' (another time axis, or not one value \
         per time point), expected every variable on that one time axis"
    );

    let many = file(
        std::iter::once(variable("a", &time, vec![1.0, 2.0]))
            .chain((0..8).map(|i| variable(&format!("v{i}"), &other, vec![0.0, 0.0])))
            .collect(),
    );
    let text = message(many.table());
    assert!(
        text.starts_with("'v0', 'v1', 'v2', 'v3', 'v4' and 3 more are not on"),
        "{text}"
    );
}
