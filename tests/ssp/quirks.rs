//! SSP files that break the letter of the standard in harmless ways, as files from public test
//! suites do (issue 28): each runs with exactly one warning, which names the file, the line
//! and what was assumed, and gives the values the author meant. The ambiguous variants of the
//! same quirks are refused; they are rows of `hostile/ssp.rs`.
//!
//! Each system is written into a folder of its own with copies of the own packed FMUs
//! (`Scale`: `y = k·u + offset`; `FourVarsFeedThrough`: each output equals its input;
//! `Oscillator`: FMI 1.0, `x(0) = x0`).

use std::path::{Path, PathBuf};

use mastersim_tests::{ResultTable, Run, run_mastersim};

use crate::hostile::rows::{fmu_entries, packed_fmu, zip_bytes};

const HEAD: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription name="quirk" version="1.0"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues">
"#;

const TAIL: &str = r#"  <ssd:Units>
    <ssc:Unit name="km/h"><ssc:BaseUnit m="1" s="-1" factor="0.2777777777777778"/></ssc:Unit>
    <ssc:Unit name="m/s"><ssc:BaseUnit m="1" s="-1"/></ssc:Unit>
  </ssd:Units>
  <ssd:DefaultExperiment startTime="0" stopTime="1"/>
</ssd:SystemStructureDescription>
"#;

/// An inline parameter set binding `name` to the Real `value`.
fn bind_real(name: &str, value: &str) -> String {
    format!(
        r#"<ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>
          <ssv:ParameterSet version="1.0" name="set"><ssv:Parameters>
            <ssv:Parameter name="{name}"><ssv:Real value="{value}"/></ssv:Parameter>
          </ssv:Parameters></ssv:ParameterSet>
        </ssd:ParameterValues></ssd:ParameterBinding></ssd:ParameterBindings>"#
    )
}

/// A system `Source` (Scale, `u` = 36) → `Sink` (Scale): `source` and `sink` are their
/// connectors, `connection` the connection.
fn two_scales(source: &str, sink: &str, connection: &str) -> String {
    format!(
        r#"{HEAD}  <ssd:System name="S">
    <ssd:Elements>
      <ssd:Component name="Source" source="fmus/Scale.fmu">
        <ssd:Connectors>{source}</ssd:Connectors>
        {}
      </ssd:Component>
      <ssd:Component name="Sink" source="fmus/Scale.fmu">
        <ssd:Connectors>{sink}</ssd:Connectors>
      </ssd:Component>
    </ssd:Elements>
    <ssd:Connections>
      {connection}
    </ssd:Connections>
  </ssd:System>
{TAIL}"#,
        bind_real("u", "36")
    )
}

/// Writes `ssd` as `SystemStructure.ssd` into `tmp/name/`, with `files` and copies of the
/// packed FMUs `fmus` in `fmus/`; returns the folder.
fn folder(tmp: &Path, name: &str, ssd: &str, files: &[(&str, &[u8])], fmus: &[&str]) -> PathBuf {
    let dir = tmp.join(name);
    std::fs::create_dir_all(dir.join("fmus")).expect("folder");
    std::fs::write(dir.join("SystemStructure.ssd"), ssd).expect("SSD");
    for (file, bytes) in files {
        std::fs::write(dir.join(file), bytes).expect("file");
    }
    for fmu in fmus {
        std::fs::write(dir.join(format!("fmus/{fmu}.fmu")), packed_fmu(fmu)).expect("FMU");
    }
    dir
}

/// The line (1-based) of the first line of `text` that holds `fragment`.
fn line_of(text: &str, fragment: &str) -> usize {
    1 + text
        .lines()
        .position(|l| l.contains(fragment))
        .unwrap_or_else(|| panic!("no '{fragment}' in:\n{text}"))
}

/// Runs the folder `dir` and asserts exit code 0; returns the run and its warnings.
fn run_folder(dir: &Path) -> (Run, Vec<String>) {
    let run = run_mastersim(dir, &dir.with_extension("wd"), &[]);
    run.assert_success();
    let warnings = run
        .said()
        .lines()
        .filter(|l| l.starts_with("Warning:"))
        .map(str::to_owned)
        .collect();
    (run, warnings)
}

/// Runs the folder `dir`, asserts exit code 0 and exactly one warning, which holds every one
/// of `fragments`.
fn run_with_one_warning(dir: &Path, fragments: &[&str]) -> Run {
    let (run, warnings) = run_folder(dir);
    assert_eq!(
        warnings.len(),
        1,
        "expected one warning, got:\n{}",
        run.said()
    );
    for fragment in fragments {
        assert!(
            warnings[0].contains(fragment),
            "the warning lacks '{fragment}': {}",
            warnings[0]
        );
    }
    run
}

/// Asserts that every row of column `name` of `values.csv` is within 1e-12 of `expected`.
fn assert_column(run: &Run, name: &str, expected: f64) {
    let values = ResultTable::read(&run.path("results/values.csv")).numbers(name);
    assert!(
        !values.is_empty() && values.iter().all(|v| (v - expected).abs() <= 1e-12),
        "{name}: expected {expected} in every row, got {values:?}"
    );
}

/// A connector with `unit=""` has no unit: the value passes unconverted into the m/s input.
#[test]
fn ssp_quirk_empty_unit_is_no_unit() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let ssd = two_scales(
        r#"<ssd:Connector name="y" kind="output"><ssc:Real unit=""/></ssd:Connector>"#,
        r#"<ssd:Connector name="u" kind="input"><ssc:Real unit="m/s"/></ssd:Connector>"#,
        r#"<ssd:Connection startElement="Source" startConnector="y" endElement="Sink" endConnector="u"/>"#,
    );
    let dir = folder(tmp.path(), "unit", &ssd, &[], &["Scale"]);
    let at = format!("SystemStructure.ssd:{}: Real", line_of(&ssd, "unit=\"\""));
    let run = run_with_one_warning(&dir, &[&at, "unit=\"\" names no unit", "without a unit"]);
    assert_column(&run, "Sink.y", 36.0);
}

/// A connection written from the input to the output runs from the output to the input.
#[test]
fn ssp_quirk_connection_written_from_input_to_output() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let connection = r#"<ssd:Connection startElement="Sink" startConnector="u" endElement="Source" endConnector="y"/>"#;
    let ssd = two_scales(
        r#"<ssd:Connector name="y" kind="output"><ssc:Real unit="km/h"/></ssd:Connector>"#,
        r#"<ssd:Connector name="u" kind="input"><ssc:Real unit="m/s"/></ssd:Connector>"#,
        connection,
    );
    let dir = folder(tmp.path(), "reversed", &ssd, &[], &["Scale"]);
    let at = format!(
        "SystemStructure.ssd:{}: Connection",
        line_of(&ssd, connection)
    );
    let run = run_with_one_warning(
        &dir,
        &[
            &at,
            "written from 'Sink.u' to 'Source.y'",
            "flows from 'Source.y' to 'Sink.u'",
        ],
    );
    // 36 km/h into the m/s input.
    assert_column(&run, "Sink.y", 36.0 * 0.2777777777777778);
}

/// An Enumeration connector whose enumeration no file declares is read as an integer
/// connector: the integer passes as it is.
#[test]
fn ssp_quirk_undeclared_enumeration_is_an_integer() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let ssd = format!(
        r#"{HEAD}  <ssd:System name="S">
    <ssd:Elements>
      <ssd:Component name="Source" source="fmus/FourVarsFeedThrough.fmu">
        <ssd:Connectors>
          <ssd:Connector name="OutInteger" kind="output"><ssc:Integer/></ssd:Connector>
          <ssd:Connector name="OutReal" kind="output"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
        <ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>
          <ssv:ParameterSet version="1.0" name="set"><ssv:Parameters>
            <ssv:Parameter name="InInteger"><ssv:Integer value="3"/></ssv:Parameter>
            <ssv:Parameter name="InReal"><ssv:Real value="1.5"/></ssv:Parameter>
          </ssv:Parameters></ssv:ParameterSet>
        </ssd:ParameterValues></ssd:ParameterBinding></ssd:ParameterBindings>
      </ssd:Component>
      <ssd:Component name="Target" source="fmus/FourVarsFeedThrough.fmu">
        <ssd:Connectors>
          <ssd:Connector name="InInteger" kind="input"><ssc:Enumeration name="Color"/></ssd:Connector>
          <ssd:Connector name="InReal" kind="input"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
      </ssd:Component>
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="Source" startConnector="OutInteger" endElement="Target" endConnector="InInteger"/>
      <ssd:Connection startElement="Source" startConnector="OutReal" endElement="Target" endConnector="InReal"/>
    </ssd:Connections>
  </ssd:System>
{TAIL}"#
    );
    let dir = folder(
        tmp.path(),
        "enumeration",
        &ssd,
        &[],
        &["FourVarsFeedThrough"],
    );
    let at = format!(
        "SystemStructure.ssd:{}: Component 'Target'/Connector 'InInteger'",
        line_of(&ssd, "name=\"Color\"")
    );
    let run = run_with_one_warning(
        &dir,
        &[
            &at,
            "enumeration 'Color' is not declared",
            "integer connector",
        ],
    );
    assert_column(&run, "Target.OutInteger", 3.0);
    assert_column(&run, "Target.OutReal", 1.5);
}

/// `startElement=""` names the system itself: the subsystem's input drives its component.
#[test]
fn ssp_quirk_empty_start_element_is_the_system() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let inner = r#"<ssd:Connection startElement="" startConnector="in" endElement="Gain" endConnector="u"/>"#;
    let ssd = format!(
        r#"{HEAD}  <ssd:System name="S">
    <ssd:Elements>
      <ssd:Component name="Source" source="fmus/Scale.fmu">
        <ssd:Connectors><ssd:Connector name="y" kind="output"><ssc:Real/></ssd:Connector></ssd:Connectors>
        {}
      </ssd:Component>
      <ssd:System name="Sub">
        <ssd:Connectors><ssd:Connector name="in" kind="input"><ssc:Real/></ssd:Connector></ssd:Connectors>
        <ssd:Elements>
          <ssd:Component name="Gain" source="fmus/Scale.fmu">
            <ssd:Connectors><ssd:Connector name="u" kind="input"><ssc:Real/></ssd:Connector></ssd:Connectors>
          </ssd:Component>
        </ssd:Elements>
        <ssd:Connections>
          {inner}
        </ssd:Connections>
      </ssd:System>
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="Source" startConnector="y" endElement="Sub" endConnector="in"/>
    </ssd:Connections>
  </ssd:System>
{TAIL}"#,
        bind_real("u", "36")
    );
    let dir = folder(tmp.path(), "start", &ssd, &[], &["Scale"]);
    let at = format!("SystemStructure.ssd:{}: Connection", line_of(&ssd, inner));
    let run = run_with_one_warning(
        &dir,
        &[
            &at,
            "startElement=\"\" names no element",
            "of the system itself",
        ],
    );
    assert_column(&run, "Gain.y", 36.0);
}

/// A unit that an `.ssv` file uses without declaring it is taken from the SSD's declaration:
/// 72 km/h bound to an input in m/s gives 20 m/s, passed on to the sink.
#[test]
fn ssp_quirk_ssv_unit_not_declared_in_the_file() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let ssv = r#"<?xml version="1.0" encoding="UTF-8"?>
<ssv:ParameterSet version="1.0" name="source"
    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues">
  <ssv:Parameters>
    <ssv:Parameter name="u"><ssv:Real value="72" unit="km/h"/></ssv:Parameter>
  </ssv:Parameters>
</ssv:ParameterSet>
"#;
    let ssd = format!(
        r#"{HEAD}  <ssd:System name="S">
    <ssd:Elements>
      <ssd:Component name="Source" source="fmus/Scale.fmu">
        <ssd:Connectors>
          <ssd:Connector name="u" kind="input"><ssc:Real unit="m/s"/></ssd:Connector>
          <ssd:Connector name="y" kind="output"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
        <ssd:ParameterBindings><ssd:ParameterBinding source="source.ssv"/></ssd:ParameterBindings>
      </ssd:Component>
      <ssd:Component name="Sink" source="fmus/Scale.fmu">
        <ssd:Connectors><ssd:Connector name="u" kind="input"><ssc:Real/></ssd:Connector></ssd:Connectors>
      </ssd:Component>
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="Source" startConnector="y" endElement="Sink" endConnector="u"/>
    </ssd:Connections>
  </ssd:System>
{TAIL}"#
    );
    let dir = folder(
        tmp.path(),
        "ssv_unit",
        &ssd,
        &[("source.ssv", ssv.as_bytes())],
        &["Scale"],
    );
    let at = format!("source.ssv:{}: parameter 'u'", line_of(ssv, "km/h"));
    let run = run_with_one_warning(
        &dir,
        &[
            &at,
            "'km/h' is not declared in this file's Units",
            "the SSD's declaration",
        ],
    );
    assert_column(&run, "Sink.y", 72.0 * 0.2777777777777778);
}

/// An FMI 1.0 variable that is neither a parameter nor an input but has a fixed start value
/// (here the Oscillator's `x0` declared as an internal continuous variable) is set before
/// initialization, as FMI 1.0 allows: `x(0)` = the bound 3.
#[test]
fn ssp_quirk_fmi1_variable_with_start_value_set_as_parameter() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let ssd = format!(
        r#"{HEAD}  <ssd:System name="S">
    <ssd:Elements>
      <ssd:Component name="Osc" source="fmus/Oscillator.fmu">
        <ssd:Connectors><ssd:Connector name="x" kind="output"><ssc:Real/></ssd:Connector></ssd:Connectors>
        {}
      </ssd:Component>
      <ssd:Component name="Probe" source="fmus/Scale.fmu">
        <ssd:Connectors><ssd:Connector name="u" kind="input"><ssc:Real/></ssd:Connector></ssd:Connectors>
      </ssd:Component>
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="Osc" startConnector="x" endElement="Probe" endConnector="u"/>
    </ssd:Connections>
  </ssd:System>
{TAIL}"#,
        bind_real("x0", "3")
    );
    let dir = folder(tmp.path(), "fmi1", &ssd, &[], &["Scale"]);
    std::fs::write(
        dir.join("fmus/Oscillator.fmu"),
        oscillator_with_internal_x0(),
    )
    .expect("FMU");
    let at = format!(
        "SystemStructure.ssd:{}: parameter 'x0'",
        line_of(&ssd, "name=\"x0\"")
    );
    let run = run_with_one_warning(
        &dir,
        &[
            &at,
            "FMI 1.0 FMU 'Osc'",
            "has a start value",
            "set before initialization",
        ],
    );
    let table = ResultTable::read(&run.path("results/values.csv"));
    assert_eq!(table.numbers("Osc.x")[0], 3.0, "x(0) = x0");
    assert_eq!(table.numbers("Probe.y")[0], 3.0, "x(0) passed on");
}

/// The own Oscillator FMU (FMI 1.0) with `x0` declared as `causality="internal"
/// variability="continuous"` with a fixed start value, as FMI 1.0 exporters write state
/// start values; the model itself accepts `x0` before initialization either way.
fn oscillator_with_internal_x0() -> Vec<u8> {
    let entries: Vec<(String, Vec<u8>)> = fmu_entries("Oscillator")
        .into_iter()
        .map(|(name, bytes)| {
            if name != "modelDescription.xml" {
                return (name, bytes);
            }
            let text = String::from_utf8(bytes).expect("UTF-8 model description");
            let from = r#"<ScalarVariable name="x0" valueReference="6" description="Initial position" variability="parameter" causality="internal">
      <Real start="1" unit="m"/>"#;
            let to = r#"<ScalarVariable name="x0" valueReference="6" description="Initial position" variability="continuous" causality="internal">
      <Real start="1" fixed="true" unit="m"/>"#;
            assert!(text.contains(from), "the Oscillator's x0 changed");
            (name, text.replace(from, to).into_bytes())
        })
        .collect();
    zip_bytes(&entries)
}

/// An FMU input connected to a subsystem's input connector that no connection drives, but
/// that a binding of the enclosing system sets (`Sub.in` = 5), takes the bound value: no
/// warning that it keeps its start value, an info line saying where its value comes from. The
/// connector feeds two inputs; the binding sets both.
#[test]
fn ssp_input_set_by_a_binding_through_a_system_connector_is_driven_by_it() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let inner = r#"<ssd:Connection startConnector="in" endElement="Gain" endConnector="u"/>"#;
    let ssd = format!(
        r#"{HEAD}  <ssd:System name="S">
    {}
    <ssd:Elements>
      <ssd:Component name="Source" source="fmus/Scale.fmu">
        <ssd:Connectors><ssd:Connector name="y" kind="output"><ssc:Real/></ssd:Connector></ssd:Connectors>
      </ssd:Component>
      <ssd:Component name="Probe" source="fmus/Scale.fmu">
        <ssd:Connectors><ssd:Connector name="u" kind="input"><ssc:Real/></ssd:Connector></ssd:Connectors>
      </ssd:Component>
      <ssd:System name="Sub">
        <ssd:Connectors><ssd:Connector name="in" kind="input"><ssc:Real/></ssd:Connector></ssd:Connectors>
        <ssd:Elements>
          <ssd:Component name="Gain" source="fmus/Scale.fmu">
            <ssd:Connectors><ssd:Connector name="u" kind="input"><ssc:Real/></ssd:Connector></ssd:Connectors>
          </ssd:Component>
          <ssd:Component name="Gain2" source="fmus/Scale.fmu">
            <ssd:Connectors><ssd:Connector name="u" kind="input"><ssc:Real/></ssd:Connector></ssd:Connectors>
          </ssd:Component>
        </ssd:Elements>
        <ssd:Connections>
          {inner}
          <ssd:Connection startConnector="in" endElement="Gain2" endConnector="u"/>
        </ssd:Connections>
      </ssd:System>
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="Source" startConnector="y" endElement="Probe" endConnector="u"/>
    </ssd:Connections>
  </ssd:System>
{TAIL}"#,
        bind_real("Sub.in", "5")
    );
    let dir = folder(tmp.path(), "bound", &ssd, &[], &["Scale"]);
    let (run, warnings) = run_folder(&dir);
    assert!(warnings.is_empty(), "{}", run.said());
    let info = format!(
        "SystemStructure.ssd:{}: input 'Gain.u' is connected to 'Sub.in', which no connection \
         drives; it keeps the value its parameter binding sets",
        line_of(&ssd, inner)
    );
    assert!(
        run.said().contains(&info),
        "no '{info}' in:\n{}",
        run.said()
    );
    assert_column(&run, "Gain.y", 5.0);
    assert_column(&run, "Gain2.y", 5.0);
}
