//! `mastersim info` on FMUs built here as zips: optional attributes and platforms read without
//! extracting, and clear refusals (exit code 2) of what is not an FMU.

use super::*;

/// An FMI 2.0 model description with the optional root attributes, an enumeration and a
/// long description, and no shared library that would load here.
const DESCRIPTION: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="2.0" modelName="Plant &amp; Co" guid="{42}" version="3.1"
    generationTool="SomeTool 7.2" generationDateAndTime="2024-05-02T10:11:12Z">
  <CoSimulation modelIdentifier="plant" canSerializeFMUstate="true" canGetAndSetFMUstate="true"
      maxOutputDerivativeOrder="2"/>
  <TypeDefinitions>
    <SimpleType name="Mode"><Enumeration><Item name="off"/><Item name="on"/></Enumeration></SimpleType>
  </TypeDefinitions>
  <ModelVariables>
    <ScalarVariable name="mode" valueReference="1" causality="parameter" variability="tunable"
        description="Operating mode">
      <Enumeration declaredType="Mode" start="2"/>
    </ScalarVariable>
    <ScalarVariable name="T" valueReference="1" causality="output"
        description="Temperature of the coolant at the outlet of the second heat exchanger, averaged over the step">
      <Real unit="K"/>
    </ScalarVariable>
    <ScalarVariable name="time" valueReference="2" causality="independent"><Real/></ScalarVariable>
  </ModelVariables>
  <ModelStructure><Outputs><Unknown index="2"/></Outputs></ModelStructure>
</fmiModelDescription>"#;

#[test]
fn platforms_sources_and_optional_attributes_are_read_without_extracting() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let fmu = tmp.path().join("Plant.fmu");
    write_zip(
        &fmu,
        &[
            ("modelDescription.xml", DESCRIPTION.as_bytes()),
            ("binaries/win64/plant.dll", b"MZ"),
            ("binaries/x86_64-linux/plant.so", b"not ELF"),
            ("binaries/darwin64/", b""),
            ("sources/plant.c", b"int x;"),
            ("sources/plant.h", b""),
        ],
    );
    let text = info_ok(&[&fmu]);
    assert_eq!(field(&text, "Model name"), "Plant & Co");
    assert_eq!(field(&text, "Model identifier"), "plant");
    assert_eq!(field(&text, "Generation tool"), "SomeTool 7.2");
    assert_eq!(field(&text, "Generated"), "2024-05-02T10:11:12Z");
    assert_eq!(field(&text, "Model version"), "3.1");
    // An FMI 2.0 FMU: `x86_64-linux` is no FMI 2.0 folder; whether win64 runs depends on Wine.
    let platforms = field(&text, "Platforms");
    assert!(
        platforms.starts_with("darwin64 (no: not a platform mastersim runs), win64 (")
            && platforms.ends_with("x86_64-linux (no: not a platform mastersim runs)"),
        "{platforms}"
    );
    assert_eq!(field(&text, "Sources"), "yes (2 files)");
    assert_eq!(field(&text, "canSerializeFMUstate"), "yes");
    assert_eq!(field(&text, "maxOutputDerivativeOrder"), "2");
    assert!(text.contains("Default experiment: none"), "{text}");
    assert_eq!(
        row(&text, "mode"),
        [
            "mode",
            "parameter",
            "tunable",
            "Enumeration",
            "2",
            "Operating",
            "mode"
        ]
    );
    assert_eq!(
        row(&text, "time")[..4],
        ["time", "independent", "continuous", "Real"]
    );
    // The long description is cut in the table, whole in the JSON.
    let t_row = table_rows(&text)
        .into_iter()
        .find(|l| l.trim_start().starts_with("T "))
        .expect("row of T");
    assert!(
        t_row.ends_with("Temperature of the coolant at the outlet of the second heat…"),
        "{t_row}"
    );
    // Nothing was extracted: the directory holds the archive only.
    let entries: Vec<_> = std::fs::read_dir(tmp.path())
        .expect("read dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(entries, ["Plant.fmu"]);

    let json = info_json(&[fmu.as_os_str(), "--json".as_ref()]);
    assert_eq!(json["generationDateAndTime"], "2024-05-02T10:11:12Z");
    assert_eq!(json["modelVersion"], "3.1");
    assert_eq!(
        json["platforms"],
        serde_json::json!(["darwin64", "win64", "x86_64-linux"])
    );
    assert_eq!(
        json["sourceFiles"],
        serde_json::json!(["sources/plant.c", "sources/plant.h"])
    );
    assert!(json.get("defaultExperiment").is_none(), "{json}");
    assert_eq!(json["variables"][0]["type"], "Enumeration");
    assert_eq!(json["variables"][0]["declaredType"], "Mode");
    assert_eq!(json["variables"][0]["start"], "2");
    assert_eq!(
        json["variables"][1]["description"],
        "Temperature of the coolant at the outlet of the second heat exchanger, averaged over \
         the step"
    );
    assert_eq!(json["variables"][1]["unit"], "K");
}

/// Asserts that `mastersim info <path>` fails with exit code 2 and a one-line error naming
/// `name` and containing `reason`, without a panic and without output on stdout.
fn assert_refused(path: &Path, name: &str, reason: &str) {
    let out = info(&[path]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}: {stderr}", path.display());
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.starts_with("Error: "), "{stderr}");
    assert!(stderr.contains(name), "'{name}' not named: {stderr}");
    assert!(stderr.contains(reason), "'{reason}' not said: {stderr}");
}

#[test]
fn what_is_not_an_fmu_is_refused_with_exit_code_2() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let text = tmp.path().join("x.fmu");
    std::fs::write(&text, "just some text\n").expect("write");
    assert_refused(&text, "x.fmu", "not a valid FMU archive (zip)");

    assert_refused(
        &tmp.path().join("missing.fmu"),
        "missing.fmu",
        "No such file or directory",
    );

    let empty = tmp.path().join("empty.fmu");
    std::fs::write(&empty, "").expect("write");
    assert_refused(&empty, "empty.fmu", "the file is empty");

    let project = workspace_root().join("projects/lotka_volterra.msim");
    assert_refused(
        &project,
        "lotka_volterra.msim",
        "is a MasterSim project, not an FMU",
    );

    let dir = tmp.path().join("extracted");
    std::fs::create_dir(&dir).expect("mkdir");
    std::fs::write(dir.join("modelDescription.xml"), DESCRIPTION).expect("write");
    assert_refused(&dir, "extracted", "is a directory (an extracted FMU?)");

    let no_description = tmp.path().join("nodesc.fmu");
    write_zip(&no_description, &[("binaries/linux64/m.so", b"ELF")]);
    assert_refused(
        &no_description,
        "nodesc.fmu",
        "the archive has no modelDescription.xml",
    );

    let bad_xml = tmp.path().join("badxml.fmu");
    write_zip(
        &bad_xml,
        &[(
            "modelDescription.xml",
            b"<fmiModelDescription fmiVersion=\"2.0\"><oops>",
        )],
    );
    assert_refused(&bad_xml, "badxml.fmu/modelDescription.xml", "malformed XML");

    let model_exchange = tmp.path().join("me.fmu");
    let xml = DESCRIPTION.replace("<CoSimulation", "<ModelExchange");
    write_zip(&model_exchange, &[("modelDescription.xml", xml.as_bytes())]);
    // Issue 28: a Model-Exchange-only FMU is described, not refused (see
    // `fmus_mastersim_cannot_run_are_described`).
    let out = info(&[&model_exchange]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert_eq!(field(&text, "Interfaces"), "Model Exchange");
}
