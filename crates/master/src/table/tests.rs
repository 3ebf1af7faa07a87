//! Unit tests of the file-reader tables and slave.
use std::sync::Arc;

use fmi::ValueRef;

use super::*;
use crate::Error;
use crate::file_reader::FileReaderSlave;
use crate::slave::{Slave, StateId, StepOutcome};
use proptest::prelude::*;

const FILE: &str = "/data/input.tsv";

fn table(text: &str) -> Table {
    Table::parse(text, Path::new(FILE)).unwrap_or_else(|e| panic!("{e}"))
}

/// Expects an error whose message starts with `file:line:` and contains the fragments.
fn error(text: &str, line: usize, fragments: &[&str]) -> TableError {
    let err = Table::parse(text, Path::new(FILE)).expect_err("expected an error");
    let msg = err.to_string();
    assert!(msg.starts_with(&format!("{FILE}:{line}: ")), "{msg}");
    assert!(msg.contains("expected"), "{msg}");
    for f in fragments {
        assert!(msg.contains(f), "'{f}' not in: {msg}");
    }
    err
}

/// The `DifferentVariableTypesFromCSV` example of the reference, §4.4.
const TYPES: &str = "time [s]\tboolvar\tintvar\trealvar [-]\n0\t0\t3\t0\n2\t1\t6\t6\n\
                     4\t1\t6\t6\n5\t1\t6\t4\n5\t0\t4\t4\n7\t0\t2\t1\n";

#[test]
fn reference_example_values() {
    let t = table(TYPES);
    // The two rows at t = 5 are kept: a jump.
    assert_eq!(t.time, vec![0.0, 2.0, 4.0, 5.0, 5.0, 7.0]);
    let (b, i, r) = (0, 1, 2);
    assert_eq!(t.column_index("realvar"), Some(r));
    assert_eq!(t.columns[r].unit, "-");
    assert_eq!(t.columns[b].unit, "-");
    assert_eq!(t.real_at(r, 0.5), Some(1.5));
    assert_eq!(t.real_at(r, 4.5), Some(5.0));
    assert_eq!(t.real_at(r, 5.0), Some(4.0));
    assert_eq!(t.real_at(r, 5.5), Some(3.25));
    assert_eq!(t.boolean_at(b, 4.5), Some(true));
    assert_eq!(t.boolean_at(b, 5.0), Some(false));
    assert_eq!(t.integer_at(i, 4.5), Some(6));
    assert_eq!(t.integer_at(i, 5.0), Some(4));
    // Held constant outside the range; steps at the knots.
    assert_eq!(t.real_at(r, -1.0), Some(0.0));
    assert_eq!(t.real_at(r, 100.0), Some(1.0));
    assert_eq!(t.step_at(i, 0.0), Some(3.0));
    assert_eq!(t.step_at(i, 2.0), Some(6.0));
    assert_eq!(t.step_at(i, 1.999), Some(3.0));
    assert_eq!(t.step_at(i, 7.0), Some(2.0));
    assert_eq!(t.step_at(i, 8.0), Some(2.0));
    assert_eq!(t.real_at(3, 1.0), None);
    assert_eq!(t.step_at(3, 1.0), None);
    let mut broken = t.clone();
    broken.time.clear();
    assert_eq!(broken.real_at(0, 1.0), None);
    assert_eq!(broken.step_at(0, 1.0), None);
}

/// Two rows with one time are a jump: linear interpolation runs to the first row's value, and
/// the second row applies from that time on (MasterSim overwrote the first row instead).
#[test]
fn duplicate_times_form_a_jump() {
    let t = table("time\tx\n0\t0\n0.5\t0\n0.5\t2\n0.5\t3\n1\t1\n");
    assert_eq!(t.time, vec![0.0, 0.5, 0.5, 1.0]);
    assert_eq!(t.real_at(0, 0.4), Some(0.0));
    assert_eq!(t.real_at(0, 0.5), Some(3.0));
    assert_eq!(t.real_at(0, 0.75), Some(2.0));
    assert_eq!(t.step_at(0, 0.4999), Some(0.0));
    assert_eq!(t.step_at(0, 0.5), Some(3.0));
    let held = FileReaderSlave::new("r".into(), Arc::new(t)).with_held_columns(&[0]);
    let mut v = [0.0];
    let mut held = held;
    held.setup_experiment(1e-5, 0.75, 1.0).unwrap();
    held.get_real(&[ValueRef(0)], &mut v).unwrap();
    assert_eq!(v, [3.0], "a held column gives the step value");
}

#[test]
fn interpolation_uses_the_exact_formula() {
    let t = table("t\tv\n0.1\t0.3\n0.7\t1.9\n");
    let tt = 0.45;
    let a = (tt - 0.1) / (0.7 - 0.1);
    assert_eq!(t.real_at(0, tt), Some(0.3 * (1.0 - a) + 1.9 * a));
    let single = table("t,v\n3,4\n");
    assert_eq!(single.real_at(0, -5.0), Some(4.0));
    assert_eq!(single.step_at(0, 9.0), Some(4.0));
}

#[test]
fn integer_truncates_toward_zero() {
    let t = table("t\tv\n0\t-2.7\n1\t2.7\n");
    assert_eq!(t.integer_at(0, 0.0), Some(-2));
    assert_eq!(t.integer_at(0, 1.0), Some(2));
    assert_eq!(t.boolean_at(0, 0.5), Some(true));
}

/// Integers keep every digit over the whole `i64` and `u64` ranges (a double holds only 53
/// bits), in any notation; beyond 2^53 the decimal text is truncated toward zero exactly.
#[test]
fn integers_are_exact_over_the_64_bit_ranges() {
    let text = "time\tu64\ti64\tsci\tfrac\n\
                0\t18446744073709551615\t-9223372036854775808\t1.8446744073709551615e19\t+9007199254740993.9\n\
                1\t9007199254740993\t9223372036854775807\t-9.223372036854775807E18\t\"0.5\"\n\
                2\t0\t-1\t2e3\t-9007199254740993.5\n";
    let t = table(text);
    let column = |name: &str| t.column_index(name).expect(name);
    let at = |name: &str, time: f64| t.integer_at(column(name), time).expect("a value");
    assert_eq!(at("u64", 0.0), i128::from(u64::MAX));
    assert_eq!(at("u64", 1.0), 9_007_199_254_740_993);
    assert_eq!(at("u64", 2.0), 0);
    assert_eq!(at("i64", 0.0), i128::from(i64::MIN));
    assert_eq!(at("i64", 1.0), i128::from(i64::MAX));
    assert_eq!(at("i64", 2.5), -1);
    assert_eq!(at("sci", 0.0), i128::from(u64::MAX));
    assert_eq!(at("sci", 1.0), -i128::from(i64::MAX));
    assert_eq!(at("sci", 2.0), 2000);
    assert_eq!(at("frac", 0.0), 9_007_199_254_740_993);
    assert_eq!(at("frac", 1.0), 0);
    assert_eq!(at("frac", 2.0), -9_007_199_254_740_993);
    // The double of the same cell is what Real inputs see.
    assert_eq!(t.step_at(column("u64"), 0.0), Some(u64::MAX as f64));
    // Only the cells a double cannot hold are kept a second time.
    assert_eq!(t.columns[column("u64")].wide.len(), 2);
    assert_eq!(t.columns[column("sci")].wide.len(), 2);
}

/// A third row at the time of a jump replaces the second, its exact integer too; a cell beyond
/// the `i128` range saturates, so that every input refuses it.
#[test]
fn jump_replacement_and_huge_cells_keep_exact_integers() {
    let t = table(
        "t\tv\n0\t1\n1\t9223372036854775807\n1\t2\n1\t18446744073709551615\n2\t1e60\n3\t-1e60\n",
    );
    assert_eq!(t.time, [0.0, 1.0, 1.0, 2.0, 3.0]);
    assert_eq!(t.lines, [2, 3, 5, 6, 7]);
    assert_eq!(t.integer_at(0, 1.0), Some(i128::from(u64::MAX)));
    assert_eq!(t.integer_at(0, 2.0), Some(i128::MAX));
    assert_eq!(t.integer_at(0, 3.0), Some(i128::MIN));
    assert_eq!(
        t.columns[0].wide,
        [(1, i128::from(i64::MAX)), (2, i128::from(u64::MAX))]
    );
}

/// The range check names the file, the line, the column and the input, and applies a
/// connection's value mapping first.
#[test]
fn integer_range_errors_name_file_line_and_column() {
    let t = table("# extremes\ntime\ta\tb\n0\t1\t-128\n1\t2\t255\n2\t3\t4\n");
    let i8_range = (i128::from(i8::MIN), i128::from(i8::MAX));
    assert!(
        t.check_integer_range(0, i8_range, |v| v, "S.u", "Int8")
            .is_ok()
    );
    let err = t
        .check_integer_range(1, i8_range, |v| v, "S.u", "Int8")
        .expect_err("255 does not fit an Int8");
    let msg = err.to_string();
    assert!(
        msg.starts_with(&format!(
            "{FILE}:4: column 3 ('b'): 255 does not fit the Int8 input 'S.u'"
        )),
        "{msg}"
    );
    assert!(
        msg.contains("expected an integer from -128 to 127"),
        "{msg}"
    );
    // Mapped first: 255 becomes 0 and fits.
    assert!(
        t.check_integer_range(1, i8_range, |v| if v == 255 { 0 } else { v }, "S.u", "Int8")
            .is_ok()
    );
    let u8_range = (0, i128::from(u8::MAX));
    let err = t
        .check_integer_range(1, u8_range, |v| v, "S.u", "UInt8")
        .expect_err("-128 does not fit a UInt8");
    assert!(
        err.to_string().starts_with(&format!("{FILE}:3: column 3")),
        "{err}"
    );
    assert!(matches!(
        t.check_integer_range(7, u8_range, |v| v, "S.u", "UInt8"),
        Err(TableError::NoSuchColumn { column: 7, .. })
    ));
}

#[test]
fn tab_flavour_header_units_and_time_conversion() {
    let t = table("Time [h] \tPrey.x [---] \tT [C]\tplain\n0\t1\t2\t3\n1.5\t4\t5\t6\t\n");
    assert_eq!(t.time, vec![0.0, 5400.0]);
    let names: Vec<_> = t
        .columns
        .iter()
        .map(|c| (c.name.as_str(), c.unit.as_str()))
        .collect();
    assert_eq!(names, vec![("Prey.x", "---"), ("T", "C"), ("plain", "-")]);
    assert_eq!(t.columns[2].values, vec![3.0, 6.0]);
    assert_eq!(t.path, PathBuf::from(FILE));
}

#[test]
fn comma_flavour_with_quotes() {
    let t = table("\"Time [min]\",\"Prey.x [---]\",\"a, b\"\n\"0\",\"10\",\"1\"\n0.5,9.5,2\r\n");
    assert_eq!(t.time, vec![0.0, 30.0]);
    assert_eq!(t.columns[0].name, "Prey.x");
    assert_eq!(t.columns[1].name, "a, b");
    assert_eq!(t.columns[1].unit, "-");
    assert_eq!(t.columns[0].values, vec![10.0, 9.5]);
}

#[test]
fn extensions_blank_comment_plus_space_crlf_bom() {
    let t = table(
        "\u{feff}# exported data\r\n\r\ntime\tv\r\n# first row\r\n 0\t +1.5\r\n\r\n1\t-2e0 \r\n",
    );
    assert_eq!(t.time, vec![0.0, 1.0]);
    assert_eq!(t.columns[0].values, vec![1.5, -2.0]);
}

#[test]
fn errors_name_file_line_and_expectation() {
    assert!(matches!(
        Table::parse("time\tv\n", Path::new(FILE)),
        Err(TableError::NoData { .. })
    ));
    let e = Table::parse("", Path::new(FILE)).unwrap_err();
    assert!(e.to_string().starts_with(FILE) && e.to_string().contains("expected a header"));
    error("time v\n0 1\n", 1, &["column separator", "line 2"]);
    error("time\tv\n0\t1\t2\n", 1, &["column separator"]);
    error(
        "t [m]\tv\n0\t1\n",
        1,
        &["'m' is not a time unit", "ms, s, min"],
    );
    error(
        "t\tv\tw\n0\t1\t2\n1\t\t2\n",
        3,
        &["2 field(s)", "expected 3"],
    );
    error(
        "t\tv\n0\t1\n1\t1x\n",
        3,
        &["column 2 ('v')", "'1x'", "number"],
    );
    error("t\tv\n0\t1\n1\t++1\n", 3, &["'++1'"]);
    error("t\tv\n0\t1\n1\tinf\n", 3, &["'inf'", "finite"]);
    error("t,v\n0,1\nx,2\n", 3, &["column 1 ('t')", "'x'"]);
    error(
        "t\tv\n0\t1\n2\t1\n1\t1\n",
        4,
        &["time 1 s is before 2 s of line 3"],
    );
}

#[test]
fn from_file_reads_and_reports_io_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.csv");
    std::fs::write(&path, b"t [s],T [\xb0C]\n0,1\n").unwrap();
    let t = Table::from_file(&path).unwrap();
    assert_eq!(t.columns[0].name, "T");
    let err = Table::from_file(&dir.path().join("none.tsv")).unwrap_err();
    assert!(matches!(err, TableError::Io { .. }));
    assert!(err.to_string().contains("none.tsv"));
}

#[test]
fn slave_clock_getters_and_states() {
    let mut s = FileReaderSlave::new("reader".into(), Arc::new(table(TYPES)));
    assert_eq!(s.name(), "reader");
    let caps = s.capabilities();
    assert!(caps.can_get_and_set_state && caps.can_handle_variable_step_size);
    s.setup_experiment(1e-5, 4.5, 10.0).unwrap();
    s.enter_initialization_mode().unwrap();
    s.exit_initialization_mode().unwrap();
    let vrs = [ValueRef(2), ValueRef(0)];
    let mut reals = [0.0; 2];
    s.get_real(&vrs, &mut reals).unwrap();
    // boolvar read as Real: 1 at t = 4 and 1 just before the jump at t = 5.
    assert_eq!(reals, [5.0, 1.0]);
    let saved = s.get_state(None).unwrap();
    assert_eq!(s.do_step(4.5, 0.5).unwrap(), StepOutcome::Completed);
    assert_eq!(s.time(), 5.0);
    let mut ints = [0; 2];
    s.get_integer(&[ValueRef(1), ValueRef(2)], &mut ints)
        .unwrap();
    assert_eq!(ints, [4, 4]);
    let mut bools = [true];
    s.get_boolean(&[ValueRef(0)], &mut bools).unwrap();
    assert_eq!(bools, [false]);
    let mut strings = vec!["x".to_owned()];
    s.get_string(&[ValueRef(2)], &mut strings).unwrap();
    assert_eq!(strings, vec![String::new()]);
    s.set_real(&[ValueRef(0)], &[1.0]).unwrap();
    s.set_integer(&[], &[]).unwrap();
    s.set_boolean(&[ValueRef(9)], &[true]).unwrap();
    s.set_string(&[ValueRef(0)], &["a".to_owned()]).unwrap();

    let later = s.get_state(None).unwrap();
    s.set_state(saved).unwrap();
    assert_eq!(s.time(), 4.5);
    s.do_step(4.5, 1.0).unwrap();
    assert_eq!(s.get_state(Some(saved)).unwrap(), saved);
    s.set_state(later).unwrap();
    assert_eq!(s.time(), 5.0);
    s.set_state(saved).unwrap();
    assert_eq!(s.time(), 5.5);
    s.free_state(saved).unwrap();
    assert!(matches!(
        s.set_state(saved),
        Err(Error::UnknownState { id: 0, .. })
    ));
    assert!(matches!(
        s.free_state(StateId(7)),
        Err(Error::UnknownState { id: 7, .. })
    ));
    assert!(s.get_state(Some(saved)).is_err());
    s.terminate().unwrap();
}

#[test]
fn slave_errors() {
    let mut s = FileReaderSlave::new("r".into(), Arc::new(table(TYPES)));
    let mut one = [0.0];
    let err = s
        .get_real(&[ValueRef(0), ValueRef(1)], &mut one)
        .unwrap_err();
    assert!(matches!(
        err,
        Error::LengthMismatch {
            function: "get_real",
            vrs: 2,
            values: 1,
            ..
        }
    ));
    assert!(s.set_integer(&[ValueRef(0)], &[]).is_err());
    let err = s.get_real(&[ValueRef(3)], &mut one).unwrap_err();
    assert!(matches!(
        err,
        Error::Table(e) if matches!(*e, TableError::NoSuchColumn { column: 3, count: 3, .. })
    ));
    assert!(s.get_string(&[ValueRef(5)], &mut [String::new()]).is_err());
}

proptest! {
    #[test]
    fn parser_never_panics(text in "[0-9a-z \t,.\"#\\[\\]+\n-]{0,80}") {
        let _ = Table::parse(&text, Path::new("p.csv"));
    }

    #[test]
    fn interpolation_stays_between_neighbours(
        ys in proptest::collection::vec(-1e6f64..1e6, 2..8),
        frac in 0.0f64..1.0,
    ) {
        let body: String = ys.iter().enumerate().map(|(i, y)| format!("{i}\t{y}\n")).collect();
        let t = table(&format!("t\tv\n{body}"));
        let x = frac * (ys.len() - 1) as f64;
        let v = t.real_at(0, x).unwrap();
        let i = (x.floor() as usize).min(ys.len() - 2);
        let (lo, hi) = (ys[i].min(ys[i + 1]), ys[i].max(ys[i + 1]));
        prop_assert!(v >= lo - 1e-6 && v <= hi + 1e-6);
    }
}

proptest! {
    /// The hinted search agrees with the binary search wherever the reader goes.
    #[test]
    fn hinted_row_search_agrees(times in proptest::collection::vec(-5.0f64..5.0, 1..30), probes in proptest::collection::vec(-6.0f64..6.0, 1..40)) {
        let mut sorted = times;
        sorted.sort_by(f64::total_cmp);
        let text: String = std::iter::once("time [s]\tx\n".to_string())
            .chain(sorted.iter().map(|t| format!("{t}\t1\n")))
            .collect();
        let table = Table::parse(&text, Path::new("t.tsv")).expect("valid table");
        let mut rows = table.rows_up_to(0.0);
        for t in probes {
            rows = table.rows_up_to_near(t, rows);
            prop_assert_eq!(rows, table.rows_up_to(t));
        }
    }
}
