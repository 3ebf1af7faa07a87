//! `mastersim info <fmu>`: the header, capabilities, default experiment and variable table
//! of the committed FMUs (FMI 2.0 `Prey.fmu`, FMI 1.0 `Oscillator.fmu`) and of FMUs built
//! here (among them an FMI 3.0 description with arrays and a clock); the causality and name
//! filters; the JSON form; and clear refusals (exit code 2) of what is not an FMU.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mastersim_tests::{mastersim_bin, workspace_root};
use serde_json::Value;

/// A committed packed FMU.
fn packed(name: &str) -> PathBuf {
    workspace_root().join("fmus/packed").join(name)
}

/// Runs `mastersim info` with `args`.
fn info<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(mastersim_bin())
        .arg("info")
        .args(args)
        .output()
        .expect("mastersim runs")
}

/// Stdout of a successful `mastersim info` run.
fn info_ok<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> String {
    let out = info(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit {:?}: {stderr}", out.status);
    assert!(stderr.is_empty(), "{stderr}");
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The parsed JSON of a successful `mastersim info --json` run.
fn info_json<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Value {
    let text = info_ok(args);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}

/// The lines of the variable table (without its heading and column header) of a text run,
/// up to the blank line before the next section (the clocks of an FMI 3.0 FMU).
fn table_rows(text: &str) -> Vec<&str> {
    let mut lines = text.lines().skip_while(|l| !l.starts_with("Variables ("));
    lines.next().expect("a variable table");
    let header = lines.next().expect("a column header");
    assert!(
        header.trim_start().starts_with("name"),
        "column header: {header}"
    );
    lines.take_while(|l| !l.is_empty()).collect()
}

/// The table row of variable `name`, split into its whitespace-separated words.
fn row<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    table_rows(text)
        .into_iter()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|words| words.first() == Some(&name))
        .unwrap_or_else(|| panic!("no row for '{name}' in:\n{text}"))
}

/// The names in the variable table, in order.
fn names(text: &str) -> Vec<&str> {
    table_rows(text)
        .into_iter()
        .filter_map(|l| l.split_whitespace().next())
        .collect()
}

/// The value of the `label  value` line of a text run (first match, trimmed).
fn field<'a>(text: &'a str, label: &str) -> &'a str {
    text.lines()
        .map(str::trim_start)
        .find_map(|l| l.strip_prefix(label).filter(|rest| rest.starts_with("  ")))
        .unwrap_or_else(|| panic!("no line '{label}' in:\n{text}"))
        .trim()
}

#[test]
fn prey_shows_header_capabilities_experiment_and_variables() {
    let fmu = packed("Prey.fmu");
    let text = info_ok(&[&fmu]);
    assert_eq!(field(&text, "FMU"), fmu.display().to_string());
    assert_eq!(field(&text, "FMI version"), "2.0");
    assert_eq!(field(&text, "Model name"), "Prey");
    assert_eq!(field(&text, "Model identifier"), "Prey");
    assert_eq!(
        field(&text, "GUID"),
        "{c35f0414-d94e-4703-be0c-f1316c9ba34d}"
    );
    assert_eq!(
        field(&text, "Generation tool"),
        "mastersim test FMUs (fmus/lotka_volterra)"
    );
    assert!(
        field(&text, "Description").starts_with("Prey half of the Lotka-Volterra system"),
        "{text}"
    );
    assert_eq!(field(&text, "Platforms"), "linux64 (in-process)");
    assert_eq!(field(&text, "Sources"), "no");
    // No generationDateAndTime or version in this FMU: no line for them.
    assert!(!text.contains("Generated"), "{text}");
    assert!(!text.contains("Model version"), "{text}");

    assert_eq!(
        field(&text, "canHandleVariableCommunicationStepSize"),
        "yes"
    );
    assert_eq!(field(&text, "canGetAndSetFMUstate"), "yes");
    assert_eq!(field(&text, "canSerializeFMUstate"), "no");
    assert_eq!(field(&text, "providesDirectionalDerivative"), "no");
    assert_eq!(field(&text, "maxOutputDerivativeOrder"), "0");
    assert!(!text.contains("canRejectSteps"), "FMI 1.0 only:\n{text}");

    assert_eq!(field(&text, "startTime"), "0 s");
    assert_eq!(field(&text, "stopTime"), "20 s");
    assert_eq!(field(&text, "stepSize"), "0.01 s");
    assert!(!text.contains("tolerance"), "not in Prey's XML:\n{text}");

    assert!(text.contains("\nVariables (5)\n"), "{text}");
    assert_eq!(names(&text), ["x", "y", "alpha", "beta", "x0"]);
    // name, causality, variability, type, [unit], [start], description words.
    assert_eq!(
        row(&text, "x"),
        ["x", "output", "continuous", "Real", "Prey", "population"]
    );
    assert_eq!(
        row(&text, "y"),
        [
            "y",
            "input",
            "continuous",
            "Real",
            "4",
            "Predator",
            "population"
        ]
    );
    assert_eq!(
        row(&text, "alpha"),
        [
            "alpha",
            "parameter",
            "fixed",
            "Real",
            "1/s",
            "1.1",
            "Prey",
            "growth",
            "rate"
        ]
    );
    assert_eq!(
        row(&text, "beta")[..6],
        ["beta", "parameter", "fixed", "Real", "1/s", "0.4"]
    );
    assert_eq!(
        row(&text, "x0"),
        [
            "x0",
            "parameter",
            "fixed",
            "Real",
            "6",
            "Initial",
            "prey",
            "population"
        ]
    );
    // Aligned columns: every column starts at the same position in each line.
    let rows = table_rows(&text);
    let column = |line: &str, word: &str| line.find(word).expect("word in line");
    let all = text
        .lines()
        .find(|l| l.trim_start().starts_with("name "))
        .expect("header");
    for (word, line) in [
        ("output", rows[0]),
        ("input", rows[1]),
        ("parameter", rows[2]),
    ] {
        assert_eq!(column(line, word), column(all, "causality"), "{text}");
    }
    assert_eq!(column(rows[2], "1/s"), column(all, "unit"), "{text}");
    assert_eq!(column(rows[2], "1.1"), column(all, "start"), "{text}");
    assert_eq!(column(rows[1], "4 "), column(all, "start"), "{text}");
    assert_eq!(
        column(rows[0], "Prey population"),
        column(all, "description"),
        "{text}"
    );
}

#[test]
fn causality_filter_keeps_the_named_causalities() {
    let fmu = packed("Prey.fmu");
    let text = info_ok(&[
        fmu.as_os_str(),
        "--causality".as_ref(),
        "parameter".as_ref(),
    ]);
    assert_eq!(names(&text), ["alpha", "beta", "x0"]);
    assert!(
        text.contains("\nVariables (3 of 5; causality parameter)\n"),
        "{text}"
    );
    // Comma separated and repeated give the same.
    let comma = info_ok(&[fmu.as_os_str(), "--causality=input,output".as_ref()]);
    assert_eq!(names(&comma), ["x", "y"]);
    let repeated = info_ok(&[
        fmu.as_os_str(),
        "--causality".as_ref(),
        "output".as_ref(),
        "--causality".as_ref(),
        "input".as_ref(),
    ]);
    assert_eq!(names(&repeated), ["x", "y"]);
    // A causality no variable has: an empty table, not an error.
    let none = info_ok(&[fmu.as_os_str(), "--causality=calculatedParameter".as_ref()]);
    assert!(none.contains("Variables (0 of 5; causality calculatedParameter)\n  (none)"));
    // An unknown causality is a usage error listing the possible values.
    let out = info(&[fmu.as_os_str(), "--causality=state".as_ref()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("calculatedParameter"), "{stderr}");
}

#[test]
fn name_glob_filters_alone_and_with_causality() {
    let fmu = packed("Prey.fmu");
    let text = info_ok(&[fmu.as_os_str(), "x*".as_ref()]);
    assert_eq!(names(&text), ["x", "x0"]);
    assert!(text.contains("\nVariables (2 of 5; name x*)\n"), "{text}");
    let text = info_ok(&[fmu.as_os_str(), "?eta".as_ref(), "alpha".as_ref()]);
    assert_eq!(names(&text), ["alpha", "beta"]);
    let text = info_ok(&[
        fmu.as_os_str(),
        "x*".as_ref(),
        "--causality=parameter".as_ref(),
    ]);
    assert_eq!(names(&text), ["x0"]);
    assert_eq!(
        row(&text, "x0")[..6],
        ["x0", "parameter", "fixed", "Real", "6", "Initial"]
    );
    let text = info_ok(&[fmu.as_os_str(), "z*".as_ref()]);
    assert!(
        text.contains("Variables (0 of 5; name z*)\n  (none)"),
        "{text}"
    );
    // An invalid glob that is no variable's name is an error.
    let out = info(&[fmu.as_os_str(), "a[".as_ref()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("invalid variable pattern 'a['"), "{stderr}");
}

#[test]
fn json_holds_the_same_information() {
    let fmu = packed("Prey.fmu");
    let json = info_json(&[fmu.as_os_str(), "--json".as_ref()]);
    assert_eq!(json["fmu"], fmu.display().to_string());
    assert_eq!(json["fmiVersion"], "2.0");
    assert_eq!(json["modelName"], "Prey");
    assert_eq!(json["modelIdentifier"], "Prey");
    assert_eq!(json["guid"], "{c35f0414-d94e-4703-be0c-f1316c9ba34d}");
    assert_eq!(
        json["generationTool"],
        "mastersim test FMUs (fmus/lotka_volterra)"
    );
    assert!(
        json["description"]
            .as_str()
            .expect("description")
            .ends_with("predator population y as input")
    );
    assert!(json.get("generationDateAndTime").is_none(), "{json}");
    assert_eq!(json["platforms"], serde_json::json!(["linux64"]));
    assert_eq!(json["sourceFiles"], serde_json::json!([]));
    assert_eq!(
        json["capabilities"],
        serde_json::json!({
            "canHandleVariableCommunicationStepSize": true,
            "canInterpolateInputs": false,
            "maxOutputDerivativeOrder": 0,
            "canRunAsynchronuously": false,
            "canBeInstantiatedOnlyOncePerProcess": false,
            "canGetAndSetFMUstate": true,
            "canSerializeFMUstate": false,
            "providesDirectionalDerivative": false,
        })
    );
    assert_eq!(
        json["defaultExperiment"],
        serde_json::json!({"startTime": 0.0, "stopTime": 20.0, "stepSize": 0.01})
    );
    assert_eq!(json["numberOfVariables"], 5);
    let variables = json["variables"].as_array().expect("variables");
    assert_eq!(variables.len(), 5);
    assert_eq!(
        variables[2],
        serde_json::json!({
            "name": "alpha",
            "valueReference": 3,
            "causality": "parameter",
            "variability": "fixed",
            "initial": "exact",
            "type": "Real",
            "unit": "1/s",
            "start": "1.1",
            "description": "Prey growth rate",
        })
    );
    assert_eq!(
        variables[0],
        serde_json::json!({
            "name": "x",
            "valueReference": 1,
            "causality": "output",
            "variability": "continuous",
            "initial": "calculated",
            "type": "Real",
            "description": "Prey population",
        })
    );
    // The filters apply to the JSON too; numberOfVariables still counts all.
    let json = info_json(&[
        fmu.as_os_str(),
        "--json".as_ref(),
        "--causality=parameter".as_ref(),
        "*a".as_ref(),
    ]);
    assert_eq!(json["numberOfVariables"], 5);
    let names: Vec<&str> = json["variables"]
        .as_array()
        .expect("variables")
        .iter()
        .map(|v| v["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["alpha", "beta"]);
}

#[test]
fn fmi1_oscillator_is_shown_with_mapped_causalities() {
    let fmu = packed("Oscillator.fmu");
    let text = info_ok(&[&fmu]);
    assert_eq!(field(&text, "FMI version"), "1.0");
    assert_eq!(field(&text, "Model name"), "Oscillator");
    assert_eq!(
        field(&text, "GUID"),
        "{73fbd0da-ca5b-484e-b5b1-de9e903234aa}"
    );
    assert_eq!(field(&text, "Platforms"), "linux64 (in-process)");
    assert_eq!(
        field(&text, "canHandleVariableCommunicationStepSize"),
        "yes"
    );
    assert_eq!(field(&text, "canRejectSteps"), "no");
    assert!(
        !text.contains("canGetAndSetFMUstate"),
        "FMI 2.0 only:\n{text}"
    );
    assert_eq!(field(&text, "startTime"), "0 s");
    assert_eq!(field(&text, "stopTime"), "10 s");
    assert_eq!(field(&text, "tolerance"), "1e-6");
    assert!(!text.contains("stepSize"), "{text}");
    assert!(text.contains("\nVariables (11)\n"), "{text}");
    // internal + variability="parameter" is a fixed parameter.
    assert_eq!(
        row(&text, "omega")[..6],
        ["omega", "parameter", "fixed", "Real", "rad/s", "2"]
    );
    assert_eq!(
        row(&text, "x")[..5],
        ["x", "output", "continuous", "Real", "m"]
    );
    assert_eq!(
        row(&text, "steps"),
        [
            "steps",
            "output",
            "discrete",
            "Integer",
            "Number",
            "of",
            "completed",
            "steps",
            "since",
            "initialization"
        ]
    );
    assert_eq!(
        row(&text, "positive")[..4],
        ["positive", "output", "discrete", "Boolean"]
    );
    assert_eq!(
        row(&text, "label")[..5],
        ["label", "parameter", "fixed", "String", "oscillator"]
    );
    let text = info_ok(&[fmu.as_os_str(), "--causality=parameter".as_ref()]);
    assert_eq!(names(&text), ["omega", "m", "x0", "v0", "label"]);

    let json = info_json(&[fmu.as_os_str(), "--json".as_ref()]);
    assert_eq!(json["fmiVersion"], "1.0");
    assert_eq!(json["capabilities"]["canRejectSteps"], false);
    assert!(json["capabilities"].get("canGetAndSetFMUstate").is_none());
    assert_eq!(
        json["defaultExperiment"],
        serde_json::json!({"startTime": 0.0, "stopTime": 10.0, "tolerance": 1e-6})
    );
    assert_eq!(json["variables"][9]["name"], "label");
    assert_eq!(json["variables"][9]["type"], "String");
    assert_eq!(json["variables"][9]["start"], "oscillator");
    assert!(json["variables"][9].get("initial").is_none());
}

/// Writes a zip with these (name, contents) entries to `path`.
fn write_zip(path: &Path, entries: &[(&str, &[u8])]) {
    let file = std::fs::File::create(path).expect("create zip");
    let mut zip = zip::ZipWriter::new(file);
    let options = zip::write::SimpleFileOptions::default();
    for (name, contents) in entries {
        if name.ends_with('/') {
            zip.add_directory(*name, options).expect("directory entry");
        } else {
            zip.start_file(*name, options).expect("file entry");
            zip.write_all(contents).expect("entry data");
        }
    }
    zip.finish().expect("finish zip");
}

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

/// An FMI 3.0 model description with arrays (a fixed and a structural-parameter dimension),
/// FMI 3.0 data types, a Binary start, an enumeration and a clock. `info` never loads the
/// library, so the zip needs no binaries.
const DESCRIPTION_V3: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="Arrays" instantiationToken="{3-3}"
    generationTool="hand">
  <CoSimulation modelIdentifier="arrays" canGetAndSetFMUState="true" hasEventMode="true"
      mightReturnEarlyFromDoStep="true" fixedInternalStepSize="0.5"/>
  <UnitDefinitions>
    <Unit name="m"><BaseUnit m="1"/><DisplayUnit name="mm" factor="1000"/></Unit>
  </UnitDefinitions>
  <TypeDefinitions>
    <Float64Type name="Length" unit="m" displayUnit="mm"/>
    <EnumerationType name="Mode"><Item name="off" value="0"/><Item name="on" value="1"/></EnumerationType>
  </TypeDefinitions>
  <DefaultExperiment stopTime="2" stepSize="0.5"/>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent"/>
    <UInt64 name="n" valueReference="1" causality="structuralParameter" variability="fixed" start="2"/>
    <Float64 name="pos" valueReference="2" causality="output" declaredType="Length"
        start="1 2 3 4" description="Positions">
      <Dimension start="2"/><Dimension valueReference="1"/>
    </Float64>
    <UInt8 name="code" valueReference="3" causality="input" start="7"/>
    <Binary name="blob" valueReference="4" causality="parameter" variability="fixed">
      <Start value="0xCAFE"/>
    </Binary>
    <Enumeration name="mode" valueReference="5" declaredType="Mode" causality="parameter"
        variability="tunable" start="1"/>
    <Clock name="tick" valueReference="6" causality="input"/>
  </ModelVariables>
  <ModelStructure><Output valueReference="2"/></ModelStructure>
</fmiModelDescription>"#;

#[test]
fn fmi3_arrays_data_types_and_clocks_are_shown() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let fmu = tmp.path().join("Arrays.fmu");
    write_zip(
        &fmu,
        &[
            ("modelDescription.xml", DESCRIPTION_V3.as_bytes()),
            ("binaries/x86_64-linux/arrays.so", b"not ELF"),
        ],
    );
    let text = info_ok(&[&fmu]);
    assert_eq!(field(&text, "FMI version"), "3.0");
    assert_eq!(field(&text, "Instantiation token"), "{3-3}");
    assert!(!text.contains("GUID"), "{text}");
    assert_eq!(field(&text, "Platforms"), "x86_64-linux (in-process)");
    assert_eq!(field(&text, "canGetAndSetFMUState"), "yes");
    assert_eq!(field(&text, "hasEventMode"), "yes");
    assert_eq!(field(&text, "mightReturnEarlyFromDoStep"), "yes");
    assert_eq!(field(&text, "canReturnEarlyAfterIntermediateUpdate"), "no");
    assert_eq!(field(&text, "fixedInternalStepSize"), "0.5 s");
    assert!(
        !text.contains("canInterpolateInputs"),
        "not in FMI 3.0:\n{text}"
    );
    assert!(
        !text.contains("canGetAndSetFMUstate"),
        "FMI 2.0 spelling:\n{text}"
    );

    // One row per scalar: the 2×2 array `pos` is four rows, row-major.
    assert!(text.contains("\nVariables (9)\n"), "{text}");
    assert_eq!(
        names(&text),
        [
            "time", "n", "pos[1,1]", "pos[1,2]", "pos[2,1]", "pos[2,2]", "code", "blob", "mode"
        ]
    );
    assert_eq!(
        row(&text, "pos[2,1]"),
        [
            "pos[2,1]",
            "output",
            "continuous",
            "Float64",
            "m",
            "3",
            "Positions"
        ]
    );
    assert_eq!(
        row(&text, "n"),
        ["n", "structuralParameter", "fixed", "UInt64", "2"]
    );
    assert_eq!(
        row(&text, "code"),
        ["code", "input", "discrete", "UInt8", "7"]
    );
    assert_eq!(
        row(&text, "blob"),
        ["blob", "parameter", "fixed", "Binary", "cafe"]
    );
    assert_eq!(
        row(&text, "mode"),
        ["mode", "parameter", "tunable", "Enumeration", "1"]
    );
    // Clocks are listed apart, with the refusal.
    let clocks = text
        .split("\nClocks (1; mastersim cannot simulate FMUs with clocks)\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no clock table in:\n{text}"));
    let words: Vec<&str> = clocks
        .lines()
        .nth(1)
        .expect("a clock row")
        .split_whitespace()
        .collect();
    assert_eq!(words, ["tick", "input", "6"]);

    let json = info_json(&[fmu.as_os_str(), "--json".as_ref()]);
    assert_eq!(json["fmiVersion"], "3.0");
    assert_eq!(json["instantiationToken"], "{3-3}");
    assert!(json.get("guid").is_none(), "{json}");
    assert_eq!(
        json["capabilities"],
        serde_json::json!({
            "canHandleVariableCommunicationStepSize": false,
            "maxOutputDerivativeOrder": 0,
            "canBeInstantiatedOnlyOncePerProcess": false,
            "canGetAndSetFMUState": true,
            "canSerializeFMUState": false,
            "providesDirectionalDerivatives": false,
            "hasEventMode": true,
            "mightReturnEarlyFromDoStep": true,
            "canReturnEarlyAfterIntermediateUpdate": false,
            "fixedInternalStepSize": 0.5,
        })
    );
    assert_eq!(json["numberOfVariables"], 9);
    assert_eq!(
        json["variables"][3],
        serde_json::json!({
            "name": "pos[1,2]",
            "valueReference": 2,
            "causality": "output",
            "variability": "continuous",
            "type": "Real",
            "dataType": "Float64",
            "array": "pos",
            "dimensions": [2, 2],
            "indices": [1, 2],
            "declaredType": "Length",
            "unit": "m",
            "displayUnit": "mm",
            "start": "2",
            "description": "Positions",
        })
    );
    assert_eq!(json["variables"][6]["dataType"], "UInt8");
    assert_eq!(json["variables"][6]["type"], "Integer");
    assert!(json["variables"][6].get("array").is_none());
    assert_eq!(json["variables"][7]["type"], "Binary");
    assert_eq!(json["variables"][8]["dataType"], "Enumeration");
    assert_eq!(
        json["clocks"],
        serde_json::json!([{"name": "tick", "valueReference": 6, "causality": "input"}])
    );

    // The new causality filter.
    let json = info_json(&[
        fmu.as_os_str(),
        "--json".as_ref(),
        "--causality=structuralParameter".as_ref(),
    ]);
    let names: Vec<&str> = json["variables"]
        .as_array()
        .expect("variables")
        .iter()
        .map(|v| v["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["n"]);
}

/// Issue 28: `info` describes every FMU it can read, whatever mastersim can run: a
/// Model-Exchange-only FMI 2.0 FMU and a Scheduled-Execution-only FMI 3.0 FMU (the own Prey
/// and Prey3 with their `CoSimulation` element renamed) print their description, name their
/// interfaces and say what a run would refuse, with exit code 0. Since issue 30 the Model
/// Exchange FMU runs as far as loading, which finds its library without the Model Exchange
/// functions; the Scheduled Execution one is refused naming the interface it offers.
#[test]
fn fmus_mastersim_cannot_run_are_described() {
    use crate::hostile::rows::{patched_entries, zip_bytes};
    let tmp = tempfile::tempdir().expect("temp dir");
    let renamed = |model: &str, element: &str| {
        let entries = patched_entries(model, |xml| {
            xml.replace("<CoSimulation", &format!("<{element}"))
                .replace("</CoSimulation>", &format!("</{element}>"))
        });
        let path = tmp.path().join(format!("{model}_{element}.fmu"));
        std::fs::write(&path, zip_bytes(&entries)).expect("write FMU");
        path
    };
    // Issue 30: a Model Exchange FMU runs; this one's library has no Model Exchange functions,
    // which only loading it finds.
    let cases = [
        (
            "Prey",
            "ModelExchange",
            "Model Exchange",
            "2.0",
            "yes",
            "missing required function 'fmi2",
        ),
        (
            "Prey3",
            "ScheduledExecution",
            "Scheduled Execution",
            "3.0",
            "no: the FMU offers only Scheduled Execution; mastersim runs Co-Simulation and (FMI \
             2.0, 3.0) Model Exchange FMUs",
            "offers neither co-simulation nor Model Exchange (it offers Scheduled Execution)",
        ),
    ];
    for (model, element, interface, version, runs, refusal) in cases {
        let fmu = renamed(model, element);
        let out = info(&[&fmu]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{model}: {stderr}");
        assert_eq!(field(&text, "FMI version"), version);
        assert_eq!(field(&text, "Interfaces"), interface);
        assert_eq!(field(&text, "Model identifier"), model);
        assert_eq!(field(&text, "Runs in mastersim"), runs);
        assert!(names(&text).contains(&"alpha"), "{text}");
        let json = info_json(&[fmu.as_os_str(), "--json".as_ref()]);
        assert_eq!(json["interfaces"], serde_json::json!([interface]));
        assert_eq!(json["run"]["runs"], runs == "yes");

        let run = Command::new(mastersim_bin())
            .arg("--working-dir")
            .arg(tmp.path().join(format!("run_{model}")))
            .arg(&fmu)
            .output()
            .expect("mastersim runs");
        let said = String::from_utf8_lossy(&run.stdout).into_owned()
            + &String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{said}");
        assert!(said.contains(refusal), "{said}");
        assert!(!said.contains("offers only Model Exchange"), "{said}");
    }
}

/// Issue 30: the Model Exchange interface is shown apart from co-simulation, with its own
/// model identifier, the number of continuous states and event indicators and its flags; a
/// description without one shows none (the own Prey with a `ModelExchange` element added).
#[test]
fn the_model_exchange_interface_is_shown() {
    use crate::hostile::rows::{patched_entries, zip_bytes};
    let tmp = tempfile::tempdir().expect("temp dir");
    let entries = patched_entries("Prey", |xml| {
        xml.replace(
            r#"numberOfEventIndicators="0""#,
            r#"numberOfEventIndicators="3""#,
        )
        .replace(
            "<CoSimulation",
            r#"<ModelExchange modelIdentifier="PreyME" canGetAndSetFMUstate="true"/>
  <CoSimulation"#,
        )
    });
    let fmu = tmp.path().join("PreyBoth.fmu");
    std::fs::write(&fmu, zip_bytes(&entries)).expect("write FMU");
    let text = info_ok(&[&fmu]);
    assert_eq!(field(&text, "Interfaces"), "Co-Simulation, Model Exchange");
    assert_eq!(field(&text, "Model identifier"), "Prey");
    let block = text
        .split("\nModel Exchange\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no Model Exchange block in:\n{text}"));
    assert_eq!(field(block, "modelIdentifier"), "PreyME");
    assert_eq!(field(block, "continuous states"), "0");
    assert_eq!(field(block, "event indicators"), "3");
    assert_eq!(field(block, "canGetAndSetFMUstate"), "yes");
    assert_eq!(field(block, "completedIntegratorStepNotNeeded"), "no");
    let json = info_json(&[fmu.as_os_str(), "--json".as_ref()]);
    let me = &json["modelExchange"];
    assert_eq!(me["modelIdentifier"], "PreyME");
    assert_eq!(me["numberOfContinuousStates"], 0);
    assert_eq!(me["numberOfEventIndicators"], 3);
    assert_eq!(me["capabilities"]["canGetAndSetFMUstate"], true);
    assert_eq!(json["modelIdentifier"], "Prey");

    // Without a ModelExchange element: no block, no member.
    let text = info_ok(&[packed("Prey.fmu")]);
    assert!(!text.contains("\nModel Exchange\n"), "{text}");
    let json = info_json(&[packed("Prey.fmu").as_os_str(), "--json".as_ref()]);
    assert!(json.get("modelExchange").is_none(), "{json}");
}
