//! Unit tests: the SSD reader on inline documents, and the build on the repository's own
//! packed FMUs (`fmus/packed/Scale.fmu`: `y = k·u + offset`).

use std::path::{Path, PathBuf};

use super::*;
use crate::build::{Transfer, sanitize};

fn scale_fmu() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fmus/packed/Scale.fmu")
}

/// Writes `ssd` as `SystemStructure.ssd` (plus `files`, and a copy of the packed
/// `Scale.fmu`) into a new temporary folder.
fn folder(ssd: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(SSD_NAME), ssd).unwrap();
    std::fs::copy(scale_fmu(), dir.path().join("Scale.fmu")).unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn ssd(body: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription version="1.0" name="t"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues">
{body}
</ssd:SystemStructureDescription>"#
    )
}

/// Two Scale components A → B with `connection` attributes/children and units.
fn two_scales(out_unit: &str, in_unit: &str, connection: &str) -> String {
    let fmu = "Scale.fmu";
    ssd(&format!(
        r#"<ssd:System name="top"><ssd:Elements>
  <ssd:Component name="A" source="{fmu}"><ssd:Connectors>
    <ssd:Connector name="y" kind="output"><ssc:Real unit="{out_unit}"/></ssd:Connector></ssd:Connectors></ssd:Component>
  <ssd:Component name="B" source="{fmu}"><ssd:Connectors>
    <ssd:Connector name="u" kind="input"><ssc:Real unit="{in_unit}"/></ssd:Connector></ssd:Connectors></ssd:Component>
</ssd:Elements><ssd:Connections>{connection}</ssd:Connections></ssd:System>
<ssd:Units>
  <ssc:Unit name="degC"><ssc:BaseUnit K="1" offset="273.15"/></ssc:Unit>
  <ssc:Unit name="K"><ssc:BaseUnit K="1"/></ssc:Unit>
  <ssc:Unit name="km/h"><ssc:BaseUnit m="1" s="-1" factor="0.2777777777777778"/></ssc:Unit>
  <ssc:Unit name="m/s"><ssc:BaseUnit m="1" s="-1"/></ssc:Unit>
</ssd:Units>"#
    ))
}

fn load_folder(dir: &Path) -> Result<System> {
    load(
        dir,
        &LoadOptions {
            parameter_set: None,
            extract_dir: dir.join("unused"),
            allow_outside_references: false,
            extract: Default::default(),
        },
    )
}

#[test]
fn unit_conversion_keeps_the_offset() {
    let conn =
        r#"<ssd:Connection startElement="A" startConnector="y" endElement="B" endConnector="u"/>"#;
    let dir = folder(&two_scales("degC", "K", conn), &[]);
    let system = load_folder(dir.path()).unwrap();
    let edge = &system.project.graph[0];
    assert_eq!((edge.scale_factor, edge.offset), (1.0, 273.15));
    let dir = folder(&two_scales("km/h", "m/s", conn), &[]);
    let edge = &load_folder(dir.path()).unwrap().project.graph[0];
    assert!((edge.scale_factor - 1.0 / 3.6).abs() < 1e-15 && edge.offset == 0.0);
}

#[test]
fn suppressed_conversion_and_conversion_then_transformation() {
    let conn = r#"<ssd:Connection startElement="A" startConnector="y" endElement="B" endConnector="u" suppressUnitConversion="true"/>"#;
    let dir = folder(&two_scales("degC", "K", conn), &[]);
    let edge = &load_folder(dir.path()).unwrap().project.graph[0];
    assert_eq!((edge.scale_factor, edge.offset), (1.0, 0.0));
    // °C to K first, then 2·x + 1 (SSP 2.0 §4.5.2: the source value is already converted to
    // the target unit): 2·(x + 273.15) + 1.
    let conn = r#"<ssd:Connection startElement="A" startConnector="y" endElement="B" endConnector="u"><ssc:LinearTransformation factor="2" offset="1"/></ssd:Connection>"#;
    let dir = folder(&two_scales("degC", "K", conn), &[]);
    let edge = &load_folder(dir.path()).unwrap().project.graph[0];
    assert_eq!((edge.scale_factor, edge.offset), (2.0, 2.0 * 273.15 + 1.0));
}

#[test]
fn units_of_other_dimensions_are_refused() {
    let conn =
        r#"<ssd:Connection startElement="A" startConnector="y" endElement="B" endConnector="u"/>"#;
    let dir = folder(&two_scales("m/s", "K", conn), &[]);
    let err = load_folder(dir.path()).unwrap_err();
    assert_eq!(err.line, Some(11), "{err}"); // the Connection
    assert!(err.to_string().contains("different dimensions"), "{err}");
    assert!(err.file.ends_with(SSD_NAME), "{err}");
}

#[test]
fn composed_transfers() {
    let a = Transfer::Linear {
        scale: 2.0,
        offset: 1.0,
    };
    let b = Transfer::Linear {
        scale: 3.0,
        offset: -1.0,
    };
    // b(a(x)) = 3(2x + 1) - 1 = 6x + 2
    assert_eq!(
        a.then(&b),
        Some(Transfer::Linear {
            scale: 6.0,
            offset: 2.0
        })
    );
    let m = Transfer::Map(vec![(1, 2), (2, 3)]);
    let n = Transfer::Map(vec![(2, 20), (5, 50)]);
    // n(m(1)) = 20, n(m(2)) = 3, n(5) = 50
    assert_eq!(
        m.then(&n),
        Some(Transfer::Map(vec![(1, 20), (2, 3), (5, 50)]))
    );
    assert_eq!(m.then(&Transfer::IDENTITY), Some(m.clone()));
    assert_eq!(a.then(&m), None);
}

#[test]
fn slave_names_are_cleaned() {
    assert_eq!(sanitize("DP Controller"), "DP_Controller");
    assert_eq!(sanitize("a.b\"c#d'e"), "a_b_c_d_e");
    assert_eq!(sanitize(""), "_");
}

#[test]
fn the_reader_names_line_and_element() {
    let cases = [
        (
            ssd("<ssd:System name='s'><ssd:Bogus/></ssd:System>"),
            "unexpected element 'Bogus' in System",
        ),
        (
            ssd(
                "<ssd:System name='s'><ssd:SignalDictionaries><ssd:SignalDictionary name='d' type='text/csv'/></ssd:SignalDictionaries></ssd:System>",
            ),
            "only SSP signal dictionaries",
        ),
        (
            ssd(
                "<ssd:System name='s'><ssd:Elements><ssd:Component name='c' source='x.fmu'><ssd:Connectors><ssd:Connector name='b' kind='input'><ssc:Clock/></ssd:Connector></ssd:Connectors></ssd:Component></ssd:Elements></ssd:System>",
            ),
            "clocks are not supported",
        ),
        (
            ssd(
                "<ssd:System name='s'><ssd:Elements><ssd:Component name='c' source='x.fmu'><ssd:Connectors><ssd:Connector name='b' kind='input'><ssc:Real/><ssd:Clock name='tick'/></ssd:Connector></ssd:Connectors></ssd:Component></ssd:Elements></ssd:System>",
            ),
            "associated with the clock 'tick'",
        ),
        (
            ssd(
                "<ssd:System name='s'><ssd:Connections><ssd:Connection startConnector='a' endConnector='b' endIndices='1'/></ssd:Connections></ssd:System>",
            ),
            "endIndices=\"1\"",
        ),
        (
            ssd(
                "<ssd:System name='s'><ssd:Elements><ssd:Component name='c' source='x.ssp' type='application/x-ssp-package'/></ssd:Elements></ssd:System>",
            ),
            "unpack the archive",
        ),
        (
            ssd(
                "<ssd:System name='s'><ssd:Elements><ssd:Component name='c' source='#nowhere' type='application/x-ssp-definition'/></ssd:Elements></ssd:System>",
            ),
            "no System element of this file has id=\"nowhere\"",
        ),
        (
            ssd(
                "<ssd:System name='s' id='me'><ssd:Elements><ssd:Component name='c' source='#me' type='application/x-ssp-definition'/></ssd:Elements></ssd:System>",
            ),
            "cycle: t.ssd#me -> t.ssd#me",
        ),
        (
            ssd(
                "<ssd:System name='s'><ssd:Elements><ssd:Component name='c' source='x.fmu'><ssd:Connectors><ssd:Connector name='b' kind='input'><ssc:Real/><ssc:Dimension size='2' sizeConnector='n'/></ssd:Connector></ssd:Connectors></ssd:Component></ssd:Elements></ssd:System>",
            ),
            "both 'size' and 'sizeConnector'",
        ),
        (
            ssd(
                "<ssd:System name='s'><ssd:Elements><ssd:Component name='c'/></ssd:Elements></ssd:System>",
            ),
            "has no source",
        ),
        (
            ssd(
                "<ssd:System name='s'><ssd:Elements><ssd:Component name='c' source='x.fmu'><ssd:Connectors><ssd:Connector name='b' kind='sideways'/></ssd:Connectors></ssd:Component></ssd:Elements></ssd:System>",
            ),
            "kind=\"sideways\"",
        ),
        (ssd("<ssd:System/>"), "the attribute 'name' is missing"),
        ("<a><b></a>".to_string(), "malformed XML"),
    ];
    for (text, expected) in cases {
        let err = check_ssd(&text, Path::new("t.ssd")).unwrap_err();
        let message = err.to_string();
        assert!(message.starts_with("t.ssd:"), "{message}");
        assert!(message.contains(expected), "{message}");
    }
}

#[test]
fn deep_nesting_is_refused_without_recursing_forever() {
    let depth = 10_000;
    let body = format!(
        "{}{}",
        "<ssd:System name='s'><ssd:Elements>".repeat(depth),
        "</ssd:Elements></ssd:System>".repeat(depth)
    );
    let err = check_ssd(&ssd(&body), Path::new("t.ssd")).unwrap_err();
    assert!(err.to_string().contains("deeper than 64"), "{err}");
}
