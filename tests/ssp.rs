//! SSP 1.0 and 2.0 systems (`crates/ssp`) with the own FMUs: the examples of `projects/ssp/`,
//! each against values known by hand (parameter precedence, `prefix`, unit conversion, nested
//! systems, mapping transformations, `.ssm` mappings, parameter sets; for SSP 2.0 the FMI 3.0
//! types and arrays, 2.0 parameter mappings, signal dictionaries, same-document system
//! references), `mastersim convert` round trips, and `.ssp` archives built from example
//! folders. The files that break the letter of SSP in harmless ways are in `ssp/quirks.rs`.

mod quirks;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use mastersim::{Options, Session, Value};
use mastersim_tests::{ResultTable, Run, example_workspace, mastersim_bin, run_mastersim};

/// The example `projects/ssp/<name>.ssd`, next to freshly packed FMUs in `projects/ssp/fmus/`.
fn example(name: &str) -> PathBuf {
    let ssd = example_workspace()
        .join("projects/ssp")
        .join(format!("{name}.ssd"));
    assert!(ssd.is_file(), "missing example '{}'", ssd.display());
    ssd
}

/// Runs `mastersim <args> --working-dir <tmp>/<tag> <system>` and asserts exit code 0.
fn run_ok(system: &Path, tmp: &Path, tag: &str, args: &[&str]) -> Run {
    let run = run_mastersim(system, &tmp.join(tag), args);
    run.assert_success();
    run
}

/// Asserts that every row of column `name` of `values.csv` is `expected`.
fn assert_column(run: &Run, name: &str, expected: f64) {
    let table = ResultTable::read(&run.path("results/values.csv"));
    let values = table.numbers(name);
    assert!(!values.is_empty(), "no rows in values.csv");
    assert!(
        values.iter().all(|v| *v == expected),
        "{name}: expected {expected} in every row, got {values:?}"
    );
}

/// The values of `names` (`<slave>.<variable>`) after initializing the example `name` through
/// the library, with the parameter set `parameter_set`.
fn initial_values(
    name: &str,
    parameter_set: Option<&str>,
    names: &[&str],
    tmp: &Path,
) -> Vec<Value> {
    let options = Options {
        working_dir: Some(tmp.join(format!("{name}-session"))),
        parameter_set: parameter_set.map(str::to_owned),
        ..Options::default()
    };
    let mut session = Session::open(example(name), &options).expect("open the system");
    session.initialize().expect("initialize");
    let values = names
        .iter()
        .map(|n| session.value(n).unwrap_or_else(|e| panic!("{n}: {e}")))
        .collect();
    session.close().expect("close");
    values
}

fn reals(values: &[f64]) -> Vec<Value> {
    values.iter().map(|v| Value::Real(*v)).collect()
}

/// `mastersim convert <system> <msim> <args>`.
fn convert(system: &Path, msim: &Path, args: &[&str]) -> Run {
    let output = Command::new(mastersim_bin())
        .arg("convert")
        .arg(system)
        .arg(msim)
        .args(args)
        .output()
        .expect("mastersim can be started");
    Run {
        output,
        working_dir: msim.with_extension(""),
    }
}

fn values_csv(run: &Run) -> Vec<u8> {
    let path = run.path("results/values.csv");
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read '{}': {e}", path.display()))
}

/// Component bindings, a later binding of the same set on the same element, and bindings of
/// the enclosing systems: later wins on one element, higher levels win over lower ones; a
/// name matching no variable is warned about. Scale: y = k·u + offset.
#[test]
fn ssp_precedence_later_and_higher_bindings_win() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_ok(&example("precedence"), tmp.path(), "wd", &[]);
    // Gain: u = 3 (its .ssv), k = 5 (its later inline binding, not 2), offset = 10 (system).
    assert_column(&run, "Gain.y", 25.0);
    // Inner: u = 1 (its own), offset = 0.25 (system Sub, not 0.5), k = 4 (top, not 3 or 2).
    assert_column(&run, "Inner.y", 4.25);
    assert!(
        run.said()
            .contains("parameter 'Gain.gain' matches no variable of 'Gain'"),
        "{}",
        run.said()
    );
    let values = initial_values(
        "precedence",
        None,
        &[
            "Gain.u",
            "Gain.k",
            "Gain.offset",
            "Inner.u",
            "Inner.k",
            "Inner.offset",
        ],
        tmp.path(),
    );
    assert_eq!(values, reals(&[3.0, 5.0, 10.0, 1.0, 4.0, 0.25]));
}

/// A binding's `prefix` is prepended to the names of its set: a system binding with prefix
/// `Gain1.` reaches `Gain1.k` through the set's bare `k`, one with prefix `Gain2.` reaches
/// `Gain2`; a prefixed name that matches no variable is warned about.
#[test]
fn ssp_prefix_is_prepended_to_the_names_of_the_set() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_ok(&example("prefix"), tmp.path(), "wd", &[]);
    assert_column(&run, "Gain1.y", 8.5);
    assert_column(&run, "Gain2.y", 3.0);
    let said = run.said();
    let warning = "plant.ssv:8: parameter 'Gain1.gain' matches no variable of 'Gain1'";
    assert!(said.contains(warning), "no warning '{warning}' in:\n{said}");
    let values = initial_values(
        "prefix",
        None,
        &[
            "Gain1.u",
            "Gain1.k",
            "Gain1.offset",
            "Gain2.u",
            "Gain2.k",
            "Gain2.offset",
        ],
        tmp.path(),
    );
    assert_eq!(values, reals(&[2.0, 4.0, 0.5, 1.0, 3.0, 0.0]));
}

/// km/h → m/s (factor 1/3.6) and °C → K (offset 273.15) on connections, a linear
/// transformation applied to the value converted to the end connector's unit (SSP §4), and
/// `suppressUnitConversion="true"` passing the value unconverted.
#[test]
fn ssp_units_convert_on_connections_unless_suppressed() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_ok(&example("units"), tmp.path(), "wd", &[]);
    for (column, expected) in [
        ("Car.y", 36.0),
        ("Speed.y", 10.0),
        ("SpeedRaw.y", 36.0),
        ("SpeedShifted.y", 46.0),
        ("Room.y", 20.0),
        ("Kelvin.y", 293.15),
        ("KelvinRaw.y", 20.0),
    ] {
        assert_column(&run, column, expected);
    }
    // Exactly, as set into the inputs: 36·(0.2777777777777778/1) = 10, 10 + 36 = 46,
    // 1·20 + 273.15 = 293.15 in f64.
    let values = initial_values(
        "units",
        None,
        &[
            "Speed.u",
            "SpeedRaw.u",
            "SpeedShifted.u",
            "Kelvin.u",
            "KelvinRaw.u",
        ],
        tmp.path(),
    );
    assert_eq!(values, reals(&[10.0, 36.0, 46.0, 293.15, 20.0]));
}

/// A subsystem connected through its own connectors (with linear transformations on both
/// sides, factor 0.5 then 2) and binding a parameter of its component runs exactly as the
/// same components in one system.
#[test]
fn ssp_nested_system_equals_flat_system() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let nested = run_ok(&example("nested"), tmp.path(), "nested", &[]);
    let flat = run_ok(&example("nested_flat"), tmp.path(), "flat", &[]);
    let table = ResultTable::read(&nested.path("results/values.csv"));
    assert_eq!(table.header, ["Time [s]", "Prey.x [-]", "Predator.y [-]"]);
    assert_eq!(table.rows.len(), 201, "0 to 2 s in steps of 0.01 s");
    assert!(
        values_csv(&nested) == values_csv(&flat),
        "values.csv of the nested system differs from the flat one"
    );
    let gamma = initial_values("nested", None, &["Predator.gamma"], tmp.path());
    assert_eq!(gamma, reals(&[0.5]));
}

/// Enumeration, Boolean and Integer mapping transformations on connections of
/// FourVarsFeedThrough (each output is its input), with an Enumeration parameter value.
#[test]
fn ssp_mapping_transformations_map_values() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_ok(&example("mappings"), tmp.path(), "wd", &[]);
    for (column, expected) in [
        // "blue" of Color.
        ("Source.OutInteger", 3.0),
        // blue -> blau (30) of Farbe.
        ("Target.OutInteger", 30.0),
        // 30 -> -7.
        ("Last.OutInteger", -7.0),
        ("Source.OutBool", 1.0),
        // true -> false.
        ("Target.OutBool", 0.0),
    ] {
        assert_column(&run, column, expected);
    }
    let values = initial_values(
        "mappings",
        None,
        &["Target.InInteger", "Target.InBool", "Last.InInteger"],
        tmp.path(),
    );
    assert_eq!(
        values,
        [
            Value::Integer(30),
            Value::Boolean(false),
            Value::Integer(-7)
        ]
    );
}

/// A parameter mapping from a `.ssm` file renames parameters and applies a linear
/// transformation (offset = 0.01·50); an inline mapping does the same (k = 2·1.5 + 1), and a
/// name the mapping does not mention binds as it is.
#[test]
fn ssp_parameter_mapping_renames_and_transforms() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_ok(&example("parameter_mapping"), tmp.path(), "wd", &[]);
    assert_column(&run, "Gain.y", 8.5);
    assert_column(&run, "Trim.y", 4.0);
    let values = initial_values(
        "parameter_mapping",
        None,
        &[
            "Gain.k",
            "Gain.u",
            "Gain.offset",
            "Trim.k",
            "Trim.u",
            "Trim.offset",
        ],
        tmp.path(),
    );
    assert_eq!(values, reals(&[4.0, 2.0, 0.5, 4.0, 1.0, 0.0]));
}

/// Two named parameter sets on one element are alternatives: the first by default (with a
/// later binding of the same set applying too), `--parameter-set fast` the other; an element
/// that binds only another set keeps it; a name no element binds is an error (exit 2).
#[test]
fn ssp_parameter_set_chooses_between_named_sets() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let system = example("parameter_sets");
    let slow = run_ok(&system, tmp.path(), "slow", &[]);
    assert_column(&slow, "Gain.y", 2.5);
    assert_column(&slow, "Other.y", 3.0);
    let fast = run_ok(&system, tmp.path(), "fast", &["--parameter-set", "fast"]);
    assert_column(&fast, "Gain.y", 10.0);
    assert_column(&fast, "Other.y", 3.0);
    let values = initial_values(
        "parameter_sets",
        Some("fast"),
        &["Gain.k", "Gain.offset", "Other.u"],
        tmp.path(),
    );
    assert_eq!(values, reals(&[10.0, 0.0, 3.0]));
    let none = run_mastersim(
        &system,
        &tmp.path().join("none"),
        &["--parameter-set", "none"],
    );
    assert_eq!(none.code(), 2, "{}", none.said());
    assert!(
        none.said()
            .contains("--parameter-set none: no element binds a parameter set of that name"),
        "{}",
        none.said()
    );
}

/// Every example a `.msim` file can state, converted with `mastersim convert` and run, gives
/// `values.csv` byte-identical to running the SSP system itself (also with a parameter set
/// chosen); the settings and the step-size hint are written out.
#[test]
fn ssp_convert_round_trip_gives_identical_results() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let cases: [(&str, &[&str]); 12] = [
        ("precedence", &[]),
        ("prefix", &[]),
        ("units", &[]),
        ("nested", &[]),
        ("nested_flat", &[]),
        ("parameter_mapping", &[]),
        ("parameter_sets", &[]),
        ("parameter_sets", &["--parameter-set", "fast"]),
        ("types_2", &[]),
        ("parameter_mapping_2", &[]),
        ("dictionary_2", &[]),
        ("reuse_2", &[]),
    ];
    for (i, (name, args)) in cases.into_iter().enumerate() {
        let system = example(name);
        let direct = run_ok(&system, tmp.path(), &format!("direct{i}"), args);
        let msim = tmp.path().join(format!("{name}{i}.msim"));
        let converted = convert(&system, &msim, args);
        assert_eq!(converted.code(), 0, "convert {name}: {}", converted.said());
        assert!(
            converted.stdout().contains("Wrote '"),
            "{}",
            converted.said()
        );
        let text = std::fs::read_to_string(&msim).expect("the .msim file");
        for line in ["tEnd", "hStart", "hOutputMin"] {
            assert!(
                text.lines().any(|l| l.starts_with(line)),
                "{name}: no {line} in\n{text}"
            );
        }
        if name == "parameter_sets" {
            assert!(
                text.contains("communicationInterval Other 0.2 s"),
                "{name}: the step-size hint is missing in\n{text}"
            );
        }
        let rerun = run_ok(&msim, tmp.path(), &format!("msim{i}"), &[]);
        assert!(
            values_csv(&rerun) == values_csv(&direct),
            "{name} {args:?}: values.csv of the converted project differs from the SSP run"
        );
    }
}

/// A system with mapping transformations cannot be a `.msim` file: `convert` exits 2, names
/// the SSD line of every mapping connection, and writes nothing.
#[test]
fn ssp_convert_refuses_mapping_transformations_naming_the_line() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let system = example("mappings");
    let ssd = std::fs::read_to_string(&system).expect("SSD");
    let lines: Vec<&str> = ssd.lines().collect();
    let mapped: Vec<usize> = (0..lines.len())
        .filter(|&i| {
            lines[i].contains("<ssd:Connection ")
                && lines
                    .get(i + 1)
                    .is_some_and(|next| next.contains("MappingTransformation"))
        })
        .map(|i| i + 1)
        .collect();
    assert_eq!(mapped.len(), 3, "three mapping connections in the example");
    let msim = tmp.path().join("mappings.msim");
    let run = convert(&system, &msim, &[]);
    assert_eq!(run.code(), 2, "{}", run.said());
    for line in mapped {
        let at = format!("mappings.ssd:{line}: a mapping transformation");
        assert!(run.said().contains(&at), "no '{at}' in:\n{}", run.said());
    }
    assert!(!msim.exists(), "convert wrote '{}'", msim.display());
}

/// Packs the example `name` as a `.ssp` archive: its `.ssd` as `SystemStructure.ssd` at the
/// top level, and every file it refers to (`.ssv`, `.ssm`, `.ssb`, `fmus/<Model>.fmu`) under
/// the same relative name.
fn pack_ssp(name: &str, path: &Path) {
    let ssd = example(name);
    let dir = ssd.parent().expect("projects/ssp");
    let text = std::fs::read_to_string(&ssd).expect("SSD");
    let mut referenced: Vec<String> = text
        .split("source=\"")
        .skip(1)
        .filter_map(|part| part.split('"').next())
        .filter(|s| {
            [".fmu", ".ssv", ".ssm", ".ssb"]
                .iter()
                .any(|e| s.ends_with(e))
        })
        .map(str::to_owned)
        .collect();
    referenced.sort();
    referenced.dedup();
    assert!(
        referenced.iter().any(|r| r.ends_with(".fmu")),
        "the example references no FMU"
    );
    let mut writer = zip::ZipWriter::new(std::fs::File::create(path).expect("create .ssp"));
    let options = zip::write::SimpleFileOptions::default();
    let entries = std::iter::once(("SystemStructure.ssd".to_owned(), text.into_bytes())).chain(
        referenced.into_iter().map(|r| {
            (
                r.clone(),
                std::fs::read(dir.join(&r)).expect("referenced file"),
            )
        }),
    );
    for (name, data) in entries {
        writer
            .start_file(name.as_str(), options)
            .expect("zip entry");
        writer.write_all(&data).expect("zip data");
    }
    writer.finish().expect("zip");
}

/// A `.ssp` archive built from an example (with its `.ssv` and `.ssm` files) runs and gives
/// the example's `values.csv`, also after `convert`.
#[test]
fn ssp_archive_runs_like_its_folder() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let archive = tmp.path().join("parameter_mapping.ssp");
    pack_ssp("parameter_mapping", &archive);
    let folder = run_ok(&example("parameter_mapping"), tmp.path(), "folder", &[]);
    let zipped = run_ok(&archive, tmp.path(), "archive", &[]);
    assert!(
        values_csv(&zipped) == values_csv(&folder),
        "values.csv of the archive differs from the folder's"
    );
    assert_column(&zipped, "Gain.y", 8.5);
    let msim = tmp.path().join("from_archive.msim");
    let converted = convert(&archive, &msim, &[]);
    assert_eq!(converted.code(), 0, "{}", converted.said());
    let rerun = run_ok(&msim, tmp.path(), "msim", &[]);
    assert!(
        values_csv(&rerun) == values_csv(&folder),
        "values.csv of the archive's .msim differs from the folder's"
    );
}

/// Asserts that every cell of column `name` of the result file `file` (`values.csv`,
/// `strings.csv`) is the text `expected`.
fn assert_cells(run: &Run, file: &str, name: &str, expected: &str) {
    let table = ResultTable::read(&run.path(&format!("results/{file}")));
    let c = table.column(name);
    let cells: Vec<&str> = table.rows.iter().map(|r| r[c].as_str()).collect();
    assert!(
        !cells.is_empty() && cells.iter().all(|v| *v == expected),
        "{name}: expected '{expected}' in every row, got {cells:?}"
    );
}

/// SSP 2.0 types for FMI 3.0 variables: every type of AllTypes from A to B, bound on A from an
/// SSP 2.0 `.ssv` with the matching type elements (a Float32 value rounded to single
/// precision, 64-bit integers exact, a Binary value in hexadecimal, an Enumeration item, a
/// Float64[3] and an Int32[2][2] array), and the array connectors connected as whole arrays.
#[test]
fn ssp2_types_couple_every_fmi3_type() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_ok(&example("types_2"), tmp.path(), "wd", &[]);
    let single = f64::from(1.1f32);
    for (column, expected) in [
        ("B.float32_out", single),
        ("B.float64_out", 2.5),
        ("B.int8_out", -5.0),
        ("B.uint8_out", 200.0),
        ("B.int16_out", -30000.0),
        ("B.uint16_out", 60000.0),
        ("B.int32_out", -2e9),
        ("B.uint32_out", 4e9),
        ("B.boolean_out", 0.0),
        ("B.enum_out", -1.0),
        ("B.y[1]", 4.0),
        ("B.y[2]", 5.5),
        ("B.y[3]", -6.0),
        ("B.m_out[1,1]", 1.0),
        ("B.m_out[1,2]", 2.0),
        ("B.m_out[2,1]", 3.0),
        ("B.m_out[2,2]", 4.0),
    ] {
        let table = ResultTable::read(&run.path("results/values.csv"));
        let values = table.numbers(column);
        assert!(
            !values.is_empty()
                && values
                    .iter()
                    .all(|v| (v - expected).abs() <= 1e-12 * expected.abs()),
            "{column}: expected {expected}, got {values:?}"
        );
    }
    // 64-bit integers are written exactly (no f64 in between).
    assert_cells(&run, "values.csv", "B.int64_out", "-9000000000000000000");
    assert_cells(&run, "values.csv", "B.uint64_out", "18000000000000000000");
    assert_cells(&run, "strings.csv", "B.string_out", "Grüße aus SSP 2.0");
    let values = initial_values(
        "types_2",
        None,
        &[
            "B.float32_out",
            "B.uint64_out",
            "B.binary_out",
            "A.n",
            "B.y[2]",
        ],
        tmp.path(),
    );
    assert_eq!(
        values,
        [
            Value::Real(single),
            Value::Integer(18_000_000_000_000_000_000),
            Value::Binary(vec![0xca, 0xfe, 0x00, 0xff]),
            Value::Integer(3),
            Value::Real(5.5),
        ]
    );
}

/// SSP 2.0 parameter mappings: only the listed parameters apply (`k` = 99 of the set does
/// not), a linear transformation applies after the unit conversion (km/h to the connector's
/// m/s), and `suppressUnitConversion` on an entry skips the conversion.
#[test]
fn ssp2_parameter_mapping_applies_only_listed_parameters_after_conversion() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_ok(&example("parameter_mapping_2"), tmp.path(), "wd", &[]);
    assert_column(&run, "Raw.y", 36.0);
    let values = initial_values(
        "parameter_mapping_2",
        None,
        &["Gain.k", "Gain.u", "Gain.offset", "Raw.k", "Raw.u"],
        tmp.path(),
    );
    // 72 · 0.2777777777777778 in f64.
    assert_eq!(
        values,
        reals(&[4.0, 72.0 * 0.2777777777777778, 0.5, 1.0, 36.0])
    );
    let gain = ResultTable::read(&run.path("results/values.csv")).numbers("Gain.y");
    assert!(gain.iter().all(|y| (y - 80.5).abs() < 1e-12), "{gain:?}");
}

/// A signal dictionary from an `.ssb` file: the car's output written into the entry through a
/// reference in the top system, read through a reference in a subsystem (found in the
/// enclosing system), converted from km/h to the entry's m/s and back.
#[test]
fn ssp2_signal_dictionary_entry_is_one_signal() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_ok(&example("dictionary_2"), tmp.path(), "wd", &[]);
    assert_column(&run, "Car.y", 36.0);
    assert_column(&run, "Meter.y", 10.0);
    let display = ResultTable::read(&run.path("results/values.csv")).numbers("Display.y");
    assert!(
        display.iter().all(|y| (y - 36.0).abs() < 1e-12),
        "{display:?}"
    );
    let archive = tmp.path().join("dictionary_2.ssp");
    pack_ssp("dictionary_2", &archive);
    let zipped = run_ok(&archive, tmp.path(), "archive", &[]);
    assert!(
        values_csv(&zipped) == values_csv(&run),
        "values.csv of the archive differs from the folder's"
    );
}

/// A subsystem with an `id` instantiated a second time by a component with `source="#id"`,
/// whose binding beats the definition's.
#[test]
fn ssp2_same_document_reference_instantiates_a_system_again() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_ok(&example("reuse_2"), tmp.path(), "wd", &[]);
    assert_column(&run, "Source.y", 3.0);
    assert_column(&run, "Stage1_Gain.y", 6.0);
    assert_column(&run, "Stage2_Gain.y", 30.0);
}

/// Integer mappings on an Enumeration connection and on a UInt64 connection with the largest
/// UInt64 as source value, and a Boolean mapping, between FMI 3.0 FMUs; `convert` refuses
/// them (a `.msim` file has no value maps).
#[test]
fn ssp2_mappings_on_fmi3_integers_and_enumerations() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_ok(&example("mappings_2"), tmp.path(), "wd", &[]);
    assert_column(&run, "B.enum_out", 1000.0);
    assert_column(&run, "B.uint64_out", 7.0);
    assert_column(&run, "B.boolean_out", 0.0);
    let converted = convert(&example("mappings_2"), &tmp.path().join("m.msim"), &[]);
    assert_eq!(converted.code(), 2, "{}", converted.said());
    assert!(
        converted.said().matches("a mapping transformation").count() == 3,
        "{}",
        converted.said()
    );
}
