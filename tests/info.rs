//! `mastersim info <fmu>`: the header, capabilities, default experiment and variable table
//! of the committed FMUs (FMI 2.0 `Prey.fmu`, FMI 1.0 `Oscillator.fmu`) and of FMUs built
//! here (among them an FMI 3.0 description with arrays and a clock); the causality and name
//! filters; the JSON form; and clear refusals (exit code 2) of what is not an FMU.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mastersim_tests::{mastersim_bin, workspace_root};
use serde_json::Value;

mod archives;
mod interfaces;

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
