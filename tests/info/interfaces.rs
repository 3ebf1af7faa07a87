//! `mastersim info` on FMI 3.0 descriptions (arrays, data types, clocks) and on FMUs whose
//! interfaces mastersim cannot run or runs as Model Exchange.

use super::*;

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
