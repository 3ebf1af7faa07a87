//! FMI 3.0 Reference FMUs v0.0.37 (`corpus/fmi3`) checked by their definitions: Feedthrough
//! (every type through a connection, into every result format; every integer type at its
//! extremes from an input table), Resource (a value read from its `resources/` folder) and
//! Stair (Event Mode: counts the seconds, then asks to end the run). BouncingBall, Dahlquist, Stair and VanDerPol are also compared with OMSimulator's
//! results in `crosscheck.rs`.

use std::path::{Path, PathBuf};

use mastersim::{Options, Session};
use mastersim_tests::{ResultTable, Run, corpus_dir, read_summary, run_mastersim};

/// `corpus/fmi3/<model>/<model>.fmu`, failing with the path when it is missing.
pub(super) fn fmu(model: &str) -> PathBuf {
    let path = corpus_dir()
        .join("fmi3")
        .join(model)
        .join(format!("{model}.fmu"));
    assert!(path.is_file(), "corpus FMU missing: '{}'", path.display());
    path
}

/// Input values of Feedthrough `Source`: each type at an extreme of its range.
const EXTREMES: &[(&str, &str)] = &[
    ("Float32_continuous_input", "0.1"),
    ("Float64_continuous_input", "3.141592653589793"),
    ("Int8_input", "-128"),
    ("UInt8_input", "255"),
    ("Int16_input", "-32768"),
    ("UInt16_input", "65535"),
    ("Int32_input", "-2147483648"),
    ("UInt32_input", "4294967295"),
    ("Int64_input", "-9223372036854775807"),
    ("UInt64_input", "18446744073709551615"),
    ("Boolean_input", "true"),
    ("Enumeration_input", "2"),
    ("Binary_input", "00ff10ab"),
];

/// Two Feedthrough instances, `Source`'s outputs feeding `Sink`'s inputs of the same type, with
/// `Source`'s inputs set to [`EXTREMES`].
pub(super) fn feedthrough_chain(dir: &Path) -> PathBuf {
    let fmu = fmu("Feedthrough");
    let mut project = format!(
        "tEnd 1 s\nhStart 0.25 s\nMasterMode GAUSS_SEIDEL\n\
         simulator 0 0 Source #ff0000 \"{f}\"\nsimulator 1 0 Sink #00ff00 \"{f}\"\n",
        f = fmu.display()
    );
    for (input, value) in EXTREMES {
        project += &format!("parameter Source.{input} {value}\n");
        let output = input.replace("_input", "_output");
        project += &format!("graph Source.{output} Sink.{input}\n");
    }
    let path = dir.join("chain.msim");
    std::fs::write(&path, project).expect("write project");
    path
}

/// Every type passes a connection unchanged, and into values.csv as exact text: Int64 and
/// UInt64 with all their digits.
#[test]
fn fmi3_feedthrough_every_type_through_a_connection() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = feedthrough_chain(tmp.path());
    let run = run_mastersim(
        &project,
        &tmp.path().join("wd"),
        &["--result-format", "csv,mat,json"],
    );
    run.assert_success();
    chain_passes_every_type(&run);

    // Signal Table: exact JSON integers.
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(run.path("results/chain.json")).expect("chain.json"),
    )
    .expect("valid JSON");
    let last_value = |name: &str| json[name]["values"].as_array().expect(name).last().cloned();
    assert_eq!(
        last_value("Sink.UInt64_output").and_then(|v| v.as_u64()),
        Some(u64::MAX)
    );
    assert_eq!(
        last_value("Sink.Int64_output").and_then(|v| v.as_i64()),
        Some(-i64::MAX)
    );

    // MAT v4 holds doubles: the nearest double, as docs/fmi3.md states.
    let mat = output::result_file::read(&run.path("results/chain.mat")).expect("chain.mat");
    let series = |name: &str| {
        mat.series
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("no MAT series '{name}'"))
            .values
            .clone()
    };
    assert_eq!(
        series("Sink.UInt64_output").last().copied(),
        Some(u64::MAX as f64)
    );
    assert_eq!(
        series("Sink.Int32_output").last().copied(),
        Some(f64::from(i32::MIN))
    );
}

/// The checks of [`fmi3_feedthrough_every_type_through_a_connection`] on a run of
/// [`feedthrough_chain`]: `Sink`'s outputs at the last row of values.csv are [`EXTREMES`] as exact
/// text, and its Binary output in strings.csv is their bytes as hexadecimal text.
pub(super) fn chain_passes_every_type(run: &Run) {
    let table = ResultTable::read(&run.path("results/values.csv"));
    let last = table.rows.len() - 1;
    let cell = |name: &str| {
        let column = table
            .header
            .iter()
            .position(|c| c.split(" [").next() == Some(name))
            .unwrap_or_else(|| panic!("no column '{name}' in {:?}", table.header));
        table.rows[last][column].clone()
    };
    for (output, expected) in [
        ("Sink.Int8_output", "-128"),
        ("Sink.UInt8_output", "255"),
        ("Sink.Int16_output", "-32768"),
        ("Sink.UInt16_output", "65535"),
        ("Sink.Int32_output", "-2147483648"),
        ("Sink.UInt32_output", "4294967295"),
        ("Sink.Int64_output", "-9223372036854775807"),
        ("Sink.UInt64_output", "18446744073709551615"),
        ("Sink.Boolean_output", "1"),
        ("Sink.Enumeration_output", "2"),
        // Float32 0.1 widened exactly, then written with %.14g.
        ("Sink.Float32_continuous_output", "0.10000000149012"),
        ("Sink.Float64_continuous_output", "3.1415926535898"),
    ] {
        assert_eq!(cell(output), expected, "{output} in values.csv");
    }

    // Binary values as lowercase hexadecimal text in strings.csv.
    let strings = ResultTable::read(&run.path("results/strings.csv"));
    let binary = strings.column("Sink.Binary_output");
    assert_eq!(strings.rows[strings.rows.len() - 1][binary], "00ff10ab");
}

/// The library reads Binary values back: the bytes set into `Source` arrive in `Sink`
/// unchanged, NUL byte included (the result files hold them as hexadecimal text).
#[test]
fn fmi3_feedthrough_copies_binary_values() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = feedthrough_chain(tmp.path());
    let options = Options {
        working_dir: Some(tmp.path().join("wd")),
        ..Options::default()
    };
    let mut session = Session::open(&project, &options).expect("open");
    session.run().expect("run");
    assert_eq!(
        session.value("Sink.Binary_output").expect("value"),
        master::Value::Binary(vec![0x00, 0xff, 0x10, 0xab])
    );
    assert_eq!(
        session.value("Sink.UInt64_output").expect("value"),
        master::Value::Integer(i128::from(u64::MAX))
    );
}

/// The integer inputs of Feedthrough and the extremes of their types: the minimum at 0 s, the
/// maximum at 1 s (the UInt64 also in scientific notation), small values at 2 s.
const TABLE_EXTREMES: &[(&str, [&str; 3])] = &[
    ("Int8_input", ["-128", "127", "-1"]),
    ("UInt8_input", ["0", "255", "1"]),
    ("Int16_input", ["-32768", "32767", "-2"]),
    ("UInt16_input", ["0", "65535", "2"]),
    ("Int32_input", ["-2147483648", "2147483647", "-3"]),
    ("UInt32_input", ["0", "4294967295", "3"]),
    (
        "Int64_input",
        ["-9223372036854775808", "9223372036854775807", "-4"],
    ),
    (
        "UInt64_input",
        ["0", "1.8446744073709551615e19", "9007199254740993"],
    ),
    ("Enumeration_input", ["1", "2", "1"]),
];

/// Feedthrough (FMI 3.0) fed from a table holding the extremes of every integer type: every
/// integer input and output in values.csv equals the table exactly, at every row, and
/// strings.csv holds `Binary_output` as `666f6f` ("foo", the start value of `Binary_input`),
/// as in the Reference FMUs' own published results.
#[test]
fn fmi3_feedthrough_integers_from_a_table_are_exact() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut table = String::from("time [s]");
    for (input, _) in TABLE_EXTREMES {
        table += &format!("\t{input}");
    }
    for row in 0..3 {
        table += &format!("\n{row}");
        for (_, values) in TABLE_EXTREMES {
            table += &format!("\t{}", values[row]);
        }
    }
    std::fs::write(tmp.path().join("extremes.tsv"), table + "\n").expect("write table");
    let mut project = format!(
        "tEnd 2 s\nhStart 0.5 s\nhOutputMin 0.5 s\nMasterMode GAUSS_SEIDEL\n\
         writeInternalVariables yes\n\
         simulator 0 0 Table #ff0000 \"extremes.tsv\"\n\
         simulator 1 0 Feedthrough #00ff00 \"{}\"\n",
        fmu("Feedthrough").display()
    );
    for (input, _) in TABLE_EXTREMES {
        project += &format!("graph Table.{input} Feedthrough.{input}\n");
    }
    let path = tmp.path().join("extremes.msim");
    std::fs::write(&path, project).expect("write project");
    let run = run_mastersim(&path, &tmp.path().join("wd"), &[]);
    run.assert_success();

    let values = ResultTable::read(&run.path("results/values.csv"));
    let times = values.numbers("Time");
    assert_eq!(times, [0.0, 0.5, 1.0, 1.5, 2.0]);
    for (input, cells) in TABLE_EXTREMES {
        let output = input.replace("_input", "_output");
        for (row, &t) in times.iter().enumerate() {
            let cell = cells[t.floor() as usize];
            let expected: i128 = cell.parse().unwrap_or(i128::from(u64::MAX));
            for name in [input.to_string(), output.clone()] {
                let column = values.column(&format!("Feedthrough.{name}"));
                assert_eq!(
                    values.rows[row][column],
                    expected.to_string(),
                    "Feedthrough.{name} at t = {t}"
                );
            }
        }
    }
    let strings = ResultTable::read(&run.path("results/strings.csv"));
    let binary = strings.column("Feedthrough.Binary_output");
    assert_eq!(strings.rows.len(), 5);
    for row in &strings.rows {
        assert_eq!(row[binary], "666f6f", "Binary_output in strings.csv");
    }
}

/// Resource reads the first character of `resources/y.txt` ('a' = 97): this works only when
/// `resourcePath` is a native path ending in '/'. It runs to the stop time of its default
/// experiment, 1 s.
#[test]
fn fmi3_resource_reads_its_resource_folder() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_mastersim(&fmu("Resource"), &tmp.path().join("wd"), &[]);
    run.assert_success();
    resource_reads_a(&run);
}

/// The checks of [`fmi3_resource_reads_its_resource_folder`] on a run of Resource alone.
pub(super) fn resource_reads_a(run: &Run) {
    let table = ResultTable::read(&run.path("results/values.csv"));
    assert!(
        table.numbers("Resource.y").iter().all(|&y| y == 97.0),
        "y is 'a' throughout"
    );
    assert_eq!(table.numbers("Time").last().copied(), Some(1.0));
}

/// Feedthrough alone runs to the stop time of its default experiment (2 s), its outputs equal
/// to its inputs' start values (all zero, the enumeration 1).
#[test]
fn fmi3_feedthrough_runs_alone_to_its_stop_time() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_mastersim(&fmu("Feedthrough"), &tmp.path().join("wd"), &[]);
    run.assert_success();
    let table = ResultTable::read(&run.path("results/values.csv"));
    assert_eq!(table.numbers("Time").last().copied(), Some(2.0));
    assert!(
        table
            .numbers("Feedthrough.Int64_output")
            .iter()
            .all(|&v| v == 0.0)
    );
    assert!(
        table
            .numbers("Feedthrough.Enumeration_output")
            .iter()
            .all(|&v| v == 1.0)
    );
}

/// Stair in Event Mode counts 1, 2, … at the whole seconds (its own default experiment: 0 to
/// 10 s in steps of 0.2 s), asks to end the run when the counter reaches 10 at t = 9 s, and the
/// run ends there with exit code 0 and the request in the summary.
#[test]
fn fmi3_stair_counts_every_second_and_ends_on_its_request() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_mastersim(&fmu("Stair"), &tmp.path().join("wd"), &[]);
    run.assert_success();
    let table = ResultTable::read(&run.path("results/values.csv"));
    let times = table.numbers("Time");
    let counter = table.numbers("Stair.counter");
    for (t, c) in times.iter().zip(&counter) {
        assert_eq!(*c, (t + 1e-9).floor() + 1.0, "counter at t={t}");
    }
    assert_eq!(times.last().copied(), Some(9.0), "ends at t = 9 s");
    assert_eq!(counter.last().copied(), Some(10.0));
    let summary = read_summary(&run.path("log/summary.txt"));
    assert_eq!(summary["Outcome"], "Terminated");
    assert_eq!(
        summary["Message"],
        "slave 'Stair' requested the end of the simulation at t=9 s"
    );
}

/// valgrind memcheck over an FMI 3.0 run: two Feedthrough instances (every type, Binary and
/// String buffers), Gauss-Seidel with iteration (FMU states saved, restored and freed), every
/// result format. No byte may be lost and memcheck may report no error.
#[test]
fn fmi3_run_has_no_leaks() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let chain = feedthrough_chain(tmp.path());
    let project = tmp.path().join("iterated.msim");
    let text = std::fs::read_to_string(&chain).expect("chain project");
    std::fs::write(&project, format!("maxIterations 3\n{text}")).expect("write project");
    let counts = mastersim_tests::memcheck(
        &project,
        &tmp.path().join("wd"),
        &["--result-format", "csv,mat,json"],
    );
    println!("FMI 3.0 run: {counts:?}");
    assert_eq!(
        counts,
        mastersim_tests::Memcheck {
            definitely_lost: 0,
            indirectly_lost: 0,
            possibly_lost: 0,
            errors: 0,
        }
    );
}
