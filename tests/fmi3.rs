//! FMI 3.0 with the own test FMUs (`fmus/`, docs/fmi3.md): the FMI 3.0 twins of Prey and
//! Predator against the FMI 2.0 originals under every master algorithm, every type and arrays
//! through connections into every result format, and the `noSetFMUStatePriorToCurrentPoint`
//! flag a rollback needs.

use std::path::{Path, PathBuf};

use mastersim::{Options, Session};
use mastersim_tests::{ResultTable, Run, example_workspace, run_mastersim};

/// The Lotka–Volterra pair under one master algorithm, with `Prey<suffix>.fmu` and
/// `Predator<suffix>.fmu` ("" for FMI 2.0, "3" for the FMI 3.0 twins).
fn lotka_volterra(dir: &Path, settings: &str, suffix: &str) -> PathBuf {
    let packed = example_workspace().join("fmus/packed");
    let project = format!(
        "tStart 0 s\ntEnd 20 s\nhStart 0.01 s\nhOutputMin 0.1 s\n{settings}\n\
         simulator 0 0 Prey #ff8c00 \"{}\"\nsimulator 1 0 Predator #008000 \"{}\"\n\
         graph Predator.y Prey.y\ngraph Prey.x Predator.x\n",
        packed.join(format!("Prey{suffix}.fmu")).display(),
        packed.join(format!("Predator{suffix}.fmu")).display(),
    );
    let path = dir.join(format!("lv{suffix}.msim"));
    std::fs::write(&path, project).expect("write project");
    path
}

/// Runs the pair with FMI 2.0 and FMI 3.0 FMUs under `settings`, in working directories below
/// `tmp`; returns both runs after checking that their `values.csv` are byte-identical.
fn twin(tmp: &Path, name: &str, settings: &str) -> [Run; 2] {
    let runs = ["", "3"].map(|suffix| {
        let project = lotka_volterra(tmp, settings, suffix);
        let run = run_mastersim(&project, &tmp.join(format!("wd{suffix}")), &[]);
        run.assert_success();
        run
    });
    let csv = |run: &Run| std::fs::read(run.path("results/values.csv")).expect("values.csv");
    assert!(
        csv(&runs[0]) == csv(&runs[1]),
        "{name}: values.csv of the FMI 3.0 twins differs from the FMI 2.0 one"
    );
    runs
}

#[test]
fn fmi3_twin_equals_fmi2_under_gauss_jacobi() {
    let tmp = tempfile::tempdir().expect("temp dir");
    twin(
        tmp.path(),
        "Gauss-Jacobi",
        "MasterMode GAUSS_JACOBI\nmaxIterations 1",
    );
}

#[test]
fn fmi3_twin_equals_fmi2_under_gauss_seidel_with_iteration() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let [fmi2, fmi3] = twin(
        tmp.path(),
        "Gauss-Seidel with iteration",
        "MasterMode GAUSS_SEIDEL\nmaxIterations 5\nrelTol 1e-9\nabsTol 1e-12",
    );
    let counters = |run: &Run| summary_json(run)["counters"].clone();
    assert_eq!(counters(&fmi2)["iterations"], counters(&fmi3)["iterations"]);
}

#[test]
fn fmi3_twin_equals_fmi2_under_newton() {
    let tmp = tempfile::tempdir().expect("temp dir");
    twin(
        tmp.path(),
        "Newton",
        "MasterMode NEWTON\nmaxIterations 5\nrelTol 1e-9\nabsTol 1e-12",
    );
}

/// Richardson error control rolls every slave back to its saved FMU state and steps twice with
/// half the step: identical results show that a rollback restores an FMI 3.0 FMU's state.
#[test]
fn fmi3_twin_equals_fmi2_under_richardson() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let [fmi2, fmi3] = twin(
        tmp.path(),
        "Richardson",
        "MasterMode GAUSS_SEIDEL\nmaxIterations 1\nErrorControlMode ADAPT_STEP\n\
         adjustStepSize yes\nhMax 1 s\nhMin 1e-8 s\nabsTol 1e-6\nrelTol 1e-6",
    );
    let (a, b) = (summary_json(&fmi2), summary_json(&fmi3));
    assert_eq!(a["counters"], b["counters"]);
    for slave in 0..2 {
        assert_eq!(
            a["slaves"][slave]["set_state"]["calls"],
            b["slaves"][slave]["set_state"]["calls"]
        );
    }
    assert!(
        b["slaves"][0]["set_state"]["calls"].as_u64() > Some(0),
        "the run restored FMU states: {}",
        b["slaves"][0]
    );
}

/// `log/summary.json` of a run.
fn summary_json(run: &Run) -> serde_json::Value {
    serde_json::from_str(
        &std::fs::read_to_string(run.path("log/summary.json")).expect("summary.json"),
    )
    .expect("valid JSON")
}

/// Two AllTypes instances: every scalar output of `Source` feeds the input of the same type of
/// `Sink`, the array `y` feeds `u` whole, and one element of the 2×2 matrix feeds another.
fn all_types_chain(dir: &Path, settings: &str) -> PathBuf {
    let fmu = example_workspace().join("fmus/packed/AllTypes.fmu");
    let mut project = format!(
        "tEnd 1 s\nhStart 0.25 s\n{settings}\n\
         simulator 0 0 Source #ff0000 \"{f}\"\nsimulator 1 0 Sink #00ff00 \"{f}\"\n",
        f = fmu.display()
    );
    for ty in [
        "float32",
        "float64",
        "int8",
        "uint8",
        "int16",
        "uint16",
        "int32",
        "uint32",
        "int64",
        "uint64",
        "boolean",
        "string",
        "binary",
        "enum",
        "int64_min",
        "int64_minus_max",
    ] {
        project += &format!("graph Source.{ty}_out Sink.{ty}_in\n");
    }
    project += "graph Source.y Sink.u\ngraph Source.m_out[1,2] Sink.m_in[2,1]\n";
    let path = dir.join("all_types.msim");
    std::fs::write(&path, project).expect("write project");
    path
}

/// The last row's value of column `name` in a CSV result table.
fn last_cell(table: &ResultTable, name: &str) -> String {
    let column = table
        .header
        .iter()
        .position(|c| c.split(" [").next() == Some(name))
        .unwrap_or_else(|| panic!("no column '{name}' in {:?}", table.header));
    table.rows[table.rows.len() - 1][column].clone()
}

/// Int64 ±9,223,372,036,854,775,807 (and its minimum) and UInt64 18,446,744,073,709,551,615
/// pass a connection into values.csv and the Signal Table unchanged; MAT holds the nearest
/// doubles (docs/fmi3.md). Array elements and whole arrays connect.
#[test]
fn fmi3_all_types_through_connections_into_every_format() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = all_types_chain(tmp.path(), "MasterMode GAUSS_SEIDEL");
    let run = run_mastersim(
        &project,
        &tmp.path().join("wd"),
        &["--result-format", "csv,mat,json"],
    );
    run.assert_success();
    let table = ResultTable::read(&run.path("results/values.csv"));
    for (name, expected) in [
        ("Sink.int64_out", "9223372036854775807"),
        ("Sink.int64_minus_max_out", "-9223372036854775807"),
        ("Sink.int64_min_out", "-9223372036854775808"),
        ("Sink.uint64_out", "18446744073709551615"),
        ("Sink.uint32_out", "4294967295"),
        ("Sink.int8_out", "-128"),
        ("Sink.uint8_out", "255"),
        ("Sink.boolean_out", "1"),
        ("Sink.enum_out", "1000"),
        // Float32 0.1 widened exactly to f64, written with %.14g.
        ("Sink.float32_out", "0.10000000149012"),
        ("Sink.y[1]", "1"),
        ("Sink.y[2]", "-2.5"),
        ("Sink.y[3]", "3.25"),
        ("Sink.m_out[1,1]", "11"),
        ("Sink.m_out[1,2]", "12"),
        ("Sink.m_out[2,1]", "12"),
        ("Sink.m_out[2,2]", "22"),
    ] {
        assert_eq!(last_cell(&table, name), expected, "{name} in values.csv");
    }

    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(run.path("results/all_types.json")).expect("all_types.json"),
    )
    .expect("valid JSON");
    let last = |name: &str| {
        json[name]["values"]
            .as_array()
            .unwrap_or_else(|| panic!("no signal '{name}'"))
            .last()
            .cloned()
            .expect("a value")
    };
    assert_eq!(last("Sink.uint64_out").as_u64(), Some(u64::MAX));
    assert_eq!(last("Sink.int64_out").as_i64(), Some(i64::MAX));
    assert_eq!(last("Sink.int64_min_out").as_i64(), Some(i64::MIN));

    let mat = output::result_file::read(&run.path("results/all_types.mat")).expect("MAT file");
    let mat_last = |name: &str| {
        mat.series
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("no MAT series '{name}'"))
            .values
            .last()
            .copied()
    };
    assert_eq!(mat_last("Sink.uint64_out"), Some(u64::MAX as f64));
    assert_eq!(mat_last("Sink.int64_min_out"), Some(i64::MIN as f64));
    assert_eq!(mat_last("Sink.int32_out"), Some(f64::from(i32::MIN)));
}

/// String and Binary values are copied through connections (Binary is in no result file; the
/// library reads it back).
#[test]
fn fmi3_string_and_binary_values_are_copied() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = all_types_chain(tmp.path(), "MasterMode GAUSS_SEIDEL");
    let options = Options {
        working_dir: Some(tmp.path().join("wd")),
        ..Options::default()
    };
    let mut session = Session::open(&project, &options).expect("open");
    session.run().expect("run");
    for name in ["string", "binary"] {
        let source = session.value(&format!("Source.{name}_in")).expect("value");
        let sink = session.value(&format!("Sink.{name}_out")).expect("value");
        assert_eq!(source, sink, "{name}");
        match sink {
            master::Value::String(s) => assert!(!s.is_empty()),
            master::Value::Binary(b) => assert!(b.contains(&0), "a NUL byte survives: {b:?}"),
            other => panic!("unexpected {other:?}"),
        }
    }
}

/// `noSetFMUStatePriorToCurrentPoint` is false while the master may roll back (Gauss-Seidel
/// with iteration saves FMU states before every step) and true when it never does (one
/// Gauss-Jacobi pass). AllTypes reports the flag of its last `fmi3DoStep` as an output.
#[test]
fn fmi3_no_set_fmu_state_prior_is_false_when_rollback_is_possible() {
    for (settings, expected) in [
        ("MasterMode GAUSS_SEIDEL\nmaxIterations 3", "0"),
        ("MasterMode GAUSS_JACOBI\nmaxIterations 1", "1"),
    ] {
        let tmp = tempfile::tempdir().expect("temp dir");
        let project = all_types_chain(tmp.path(), settings);
        let run = run_mastersim(&project, &tmp.path().join("wd"), &[]);
        run.assert_success();
        let table = ResultTable::read(&run.path("results/values.csv"));
        assert_eq!(
            last_cell(&table, "Sink.noSetFMUStatePriorToCurrentPoint"),
            expected,
            "{settings}"
        );
    }
}

/// The value of column `name` at the row whose time is `t` (within 1e-9).
fn at(table: &ResultTable, name: &str, t: f64) -> f64 {
    let times = table.numbers("Time");
    let row = times
        .iter()
        .position(|&x| (x - t).abs() < 1e-9)
        .unwrap_or_else(|| panic!("no row at t={t}"));
    table.numbers(name)[row]
}

/// Ticker in Event Mode (its default experiment: 0 to 2 s in steps of 0.1 s): a time event every
/// 0.5 s, handled through `fmi3EnterEventMode`/`fmi3UpdateDiscreteStates`, so the count rises at
/// 0.5, 1.0, 1.5 and 2.0 exactly.
#[test]
fn fmi3_event_mode_counts_time_events() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let fmu = example_workspace().join("fmus/packed/Ticker.fmu");
    let run = run_mastersim(&fmu, &tmp.path().join("wd"), &[]);
    run.assert_success();
    let table = ResultTable::read(&run.path("results/values.csv"));
    let counts: Vec<f64> = (1..=20)
        .map(|n| at(&table, "Ticker.count", f64::from(n) * 0.1))
        .collect();
    let expected = [
        0., 0., 0., 0., 1., 1., 1., 1., 1., 2., 2., 2., 2., 2., 3., 3., 3., 3., 3., 4.,
    ];
    assert_eq!(counts, expected);
    assert_eq!(at(&table, "Ticker.handled_at", 2.0), 2.0);
}

/// EarlyReturn returns from the step (0.3, 0.4) at its event, t = 0.35 s; mastersim continues
/// the step from there (docs/fmi3.md), so the rate switches exactly at 0.35:
/// x(0.4) = 0.35·1 + 0.05·2 = 0.45 and x(1.0) = 0.35 + 0.65·2 = 1.65.
#[test]
fn fmi3_early_return_continues_from_the_event() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let fmu = example_workspace().join("fmus/packed/EarlyReturn.fmu");
    let run = run_mastersim(&fmu, &tmp.path().join("wd"), &[]);
    run.assert_success();
    let table = ResultTable::read(&run.path("results/values.csv"));
    assert!((at(&table, "EarlyReturn.x", 0.3) - 0.3).abs() < 1e-12);
    assert!((at(&table, "EarlyReturn.x", 0.4) - 0.45).abs() < 1e-12);
    assert!((at(&table, "EarlyReturn.x", 1.0) - 1.65).abs() < 1e-12);
    assert_eq!(at(&table, "EarlyReturn.switched_at", 1.0), 0.35);
    assert_eq!(at(&table, "EarlyReturn.switched", 0.3), 0.0);
    assert_eq!(at(&table, "EarlyReturn.switched", 0.4), 1.0);
}

/// The integer inputs of AllTypes fed from a table, with the extremes of every type at 0 s
/// (minimum) and 1 s (maximum; the UInt64 in scientific notation) and small values at 2 s.
const INTEGER_TABLE: &[(&str, [&str; 3])] = &[
    ("int8", ["-128", "127", "-1"]),
    ("uint8", ["0", "255", "1"]),
    ("int16", ["-32768", "32767", "-2"]),
    ("uint16", ["0", "65535", "2"]),
    ("int32", ["-2147483648", "2147483647", "-3"]),
    ("uint32", ["0", "4294967295", "3"]),
    (
        "int64",
        ["-9223372036854775808", "9223372036854775807", "-4"],
    ),
    (
        "uint64",
        ["0", "1.8446744073709551615e19", "9007199254740993"],
    ),
    (
        "int64_min",
        ["-9223372036854775807", "9223372036854775806", "0"],
    ),
    (
        "int64_minus_max",
        ["9223372036854775807", "-9223372036854775808", "5"],
    ),
    ("enum", ["-1", "1000", "0"]),
];

/// Writes `extremes.tsv` (the rows of [`INTEGER_TABLE`], `edit` applied to its text) and a
/// project feeding its columns to AllTypes' integer inputs; returns the project.
fn integer_table_project(dir: &Path, edit: impl Fn(String) -> String) -> PathBuf {
    let mut table = String::from("time [s]");
    for (name, _) in INTEGER_TABLE {
        table += &format!("\t{name}");
    }
    for row in 0..3 {
        table += &format!("\n{row}");
        for (_, values) in INTEGER_TABLE {
            table += &format!("\t{}", values[row]);
        }
    }
    std::fs::write(dir.join("extremes.tsv"), edit(table + "\n")).expect("write table");
    let fmu = example_workspace().join("fmus/packed/AllTypes.fmu");
    let mut project = format!(
        "tEnd 2 s\nhStart 0.5 s\nhOutputMin 0.5 s\nMasterMode GAUSS_SEIDEL\n\
         simulator 0 0 Table #ff0000 \"extremes.tsv\"\nsimulator 1 0 Sink #00ff00 \"{}\"\n",
        fmu.display()
    );
    for (name, _) in INTEGER_TABLE {
        project += &format!("graph Table.{name} Sink.{name}_in\n");
    }
    let path = dir.join("extremes.msim");
    std::fs::write(&path, project).expect("write project");
    path
}

/// Every integer input fed from a table receives the table's value exactly, over the whole
/// range of its type (Int8 … UInt64 and an enumeration), into values.csv and the Signal Table;
/// the Binary output is in strings.csv and the Signal Table as lowercase hexadecimal text.
#[test]
fn fmi3_table_integers_reach_every_integer_input_exactly() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = integer_table_project(tmp.path(), |t| t);
    let run = run_mastersim(
        &project,
        &tmp.path().join("wd"),
        &["--result-format", "csv,json"],
    );
    run.assert_success();
    let table = ResultTable::read(&run.path("results/values.csv"));
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(run.path("results/extremes.json")).expect("extremes.json"),
    )
    .expect("valid JSON");
    let times = table.numbers("Time");
    for (name, values) in INTEGER_TABLE {
        let column = table.column(&format!("Sink.{name}_out"));
        let signal = json[format!("Sink.{name}_out")]["values"]
            .as_array()
            .unwrap_or_else(|| panic!("no signal Sink.{name}_out"));
        for (row, &t) in times.iter().enumerate() {
            // The value of the last table row at or before t (a step), as an exact integer.
            let written = values[t.floor().min(2.0) as usize];
            let expected: i128 = match written.parse() {
                Ok(exact) => exact,
                Err(_) => i128::from(u64::MAX), // 1.8446744073709551615e19
            };
            assert_eq!(
                table.rows[row][column],
                expected.to_string(),
                "Sink.{name}_out at t = {t} in values.csv"
            );
            assert_eq!(
                signal[row].to_string(),
                expected.to_string(),
                "Sink.{name}_out at t = {t} in the Signal Table"
            );
        }
    }
    let strings = ResultTable::read(&run.path("results/strings.csv"));
    let binary = strings.column("Sink.binary_out");
    assert!(
        strings.rows.iter().all(|r| r[binary] == "0001ff7f80"),
        "binary_out in strings.csv: {:?}",
        strings.rows
    );
    assert_eq!(json["Sink.binary_out"]["values"][0], "0001ff7f80");
}

/// A table value outside the range of the input it feeds is an error at load that names the
/// table, the line and the column; nothing runs.
#[test]
fn fmi3_table_integer_out_of_range_is_refused_at_load() {
    for (from, to, line, column, input) in [
        ("\t127\t", "\t128\t", 3, 2, "Sink.int8_in (Int8"),
        ("\t-32768\t", "\t-32769\t", 2, 4, "Sink.int16_in (Int16"),
        (
            "\t1.8446744073709551615e19\t",
            "\t18446744073709551616\t",
            3,
            9,
            "Sink.uint64_in (UInt64",
        ),
    ] {
        let tmp = tempfile::tempdir().expect("temp dir");
        let project = integer_table_project(tmp.path(), |t| t.replacen(from, to, 1));
        let run = run_mastersim(&project, &tmp.path().join("wd"), &[]);
        assert_eq!(run.code(), 2, "{}", run.said());
        let said = run.said();
        let input = input.split(' ').next().expect("the input's name");
        let value = to.trim();
        assert!(
            said.contains(&format!("extremes.tsv:{line}: column {column} (")),
            "{said}"
        );
        assert!(
            said.contains(&format!("{value} does not fit the")) && said.contains(input),
            "{said}"
        );
        assert!(
            !run.path("results/values.csv").exists(),
            "no result rows after a refused table"
        );
    }
}

/// Issue 28: an FMU that declares `hasEventMode="true"` but returns NULL from
/// `fmi3InstantiateCoSimulation` when Event Mode is asked for (a published Reference FMU does
/// this; here the own Prey3 with the attribute patched, whose code refuses Event Mode) is
/// instantiated again without Event Mode, with ONE warning that says so and what the FMU
/// logged, and its results are those of the unpatched FMU.
#[test]
fn fmi3_a_refused_event_mode_is_instantiated_without_it() {
    use crate::hostile::rows::{patched_entries, replace_once, zip_bytes};
    let tmp = tempfile::tempdir().expect("temp dir");
    let entries = patched_entries("Prey3", |xml| {
        replace_once(xml, "hasEventMode=\"false\"", "hasEventMode=\"true\"")
    });
    let lying = tmp.path().join("Prey3.fmu");
    std::fs::write(&lying, zip_bytes(&entries)).expect("write FMU");
    let honest = example_workspace().join("fmus/packed/Prey3.fmu");
    let args = ["--stop-time", "1"];
    let plain = run_mastersim(&honest, &tmp.path().join("honest"), &args);
    plain.assert_success();
    let run = run_mastersim(&lying, &tmp.path().join("lying"), &args);
    run.assert_success();
    let said = run.said();
    let warnings: Vec<&str> = said
        .lines()
        .filter(|l| l.contains("eventModeUsed"))
        .collect();
    assert_eq!(warnings.len(), 1, "one warning:\n{said}");
    assert!(
        warnings[0].contains("returned NULL with eventModeUsed = true although the FMU declares")
            && warnings[0].contains("instantiated without Event Mode"),
        "{said}"
    );
    assert_eq!(
        std::fs::read(run.path("results/values.csv")).expect("values"),
        std::fs::read(plain.path("results/values.csv")).expect("values"),
        "the same results as the honest FMU"
    );
}
