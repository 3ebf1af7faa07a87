//! Parsing tests with hand-written FMI 3.0 descriptions: one with every feature mastersim
//! reads, the defaults and the warnings; one test per kind of error in [`errors`].

use std::path::Path;

use super::super::raw::parse_with_warnings;
use super::{FILE, parse};
use crate::model_description::*;
use crate::{ValueRef, VarType};

/// Every type, arrays with fixed and structural-parameter dimensions, `<Start>` children,
/// aliases, a clock, units through `declaredType`, all capabilities, and unknown attributes.
const FULL_V3: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    fmiVersion="3.0" modelName="Full3" instantiationToken="{tok-3}" description="All of FMI 3"
    generationTool="hand" generationDateAndTime="2024-01-01T00:00:00Z" newRootThing="x">
  <ModelExchange modelIdentifier="me_only" canGetAndSetFMUState="true"/>
  <CoSimulation modelIdentifier="full3" canHandleVariableCommunicationStepSize="true"
      canGetAndSetFMUState="1" canSerializeFMUState="false" providesDirectionalDerivatives="true"
      canBeInstantiatedOnlyOncePerProcess="0" fixedInternalStepSize="1e-3" hasEventMode="true"
      mightReturnEarlyFromDoStep="true" canReturnEarlyAfterIntermediateUpdate="true"
      maxOutputDerivativeOrder="1" providesIntermediateUpdate="true" needsExecutionTool="false"
      recommendedIntermediateInputSmoothness="0" canInterpolateInputs="true"/>
  <ScheduledExecution modelIdentifier="se"/>
  <UnitDefinitions>
    <Unit name="m"><BaseUnit m="1"/><DisplayUnit name="ft" factor="3.280839895"/>
      <DisplayUnit name="mm" factor="1000"/></Unit>
    <Unit name="K"><BaseUnit K="1"/><DisplayUnit name="degC" offset="-273.15"/></Unit>
  </UnitDefinitions>
  <TypeDefinitions>
    <Float64Type name="Position" quantity="Length" unit="m" displayUnit="mm"/>
    <Float32Type name="Temperature" unit="K" displayUnit="degC"/>
    <Int32Type name="Count" min="0"/>
    <EnumerationType name="Mode"><Item name="off" value="0"/><Item name="on" value="1"/></EnumerationType>
    <BooleanType name="Flag"/>
    <StringType name="Label"/>
    <BinaryType name="Blob" mimeType="application/octet-stream"/>
    <ClockType name="Tick" intervalVariability="constant"/>
  </TypeDefinitions>
  <LogCategories><Category name="logEvents" description="events"/></LogCategories>
  <DefaultExperiment startTime="0" stopTime="3" tolerance="1e-6" stepSize="1e-2"/>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    <Float64 name="h" valueReference="1" causality="output" declaredType="Position" start="1"
        initial="exact" description="height" foo="1">
      <Alias name="h_ft" displayUnit="ft" description="height in feet"/>
      <Annotations><Annotation type="x"/></Annotations>
    </Float64>
    <Float32 name="T" valueReference="2" causality="input" declaredType="Temperature" start="293.15" foo="2"/>
    <Int8 name="i8" valueReference="3" causality="input" start="-8"/>
    <UInt8 name="u8" valueReference="4" causality="input" start="8"/>
    <Int16 name="i16" valueReference="5" causality="output"/>
    <UInt16 name="u16" valueReference="6" causality="output"/>
    <Int32 name="count" valueReference="7" causality="output" declaredType="Count"/>
    <UInt32 name="u32" valueReference="8" causality="local" variability="fixed"/>
    <Int64 name="i64" valueReference="9" causality="parameter" variability="tunable" start="-9"/>
    <UInt64 name="u64" valueReference="10" causality="parameter" variability="fixed" start="18446744073709551615"/>
    <Boolean name="on" valueReference="11" causality="input" start="true"/>
    <String name="label" valueReference="12" causality="parameter" variability="fixed"><Start value="hello world"/></String>
    <Binary name="blob" valueReference="13" causality="input"><Start value="0xDEADbeef"/></Binary>
    <Enumeration name="mode" valueReference="14" declaredType="Mode" causality="parameter" variability="tunable" start="1"/>
    <Clock name="tick" valueReference="15" causality="input" declaredType="Tick" intervalVariability="constant"/>
    <UInt32 name="n" valueReference="16" causality="structuralParameter" variability="fixed" start="3"/>
    <Float64 name="x" valueReference="17" causality="output" start="1 2 3&#10;4 5 6">
      <Dimension start="2"/><Dimension valueReference="16"/>
    </Float64>
    <Int32 name="k" valueReference="18" causality="parameter" variability="fixed" start="7">
      <Dimension valueReference="16"/><Alias name="kk"/>
    </Int32>
    <String name="names" valueReference="19" causality="parameter" variability="fixed">
      <Dimension start="2"/><Start value="a"/><Start value="b c"/>
    </String>
    <Binary name="blobs" valueReference="20" causality="parameter" variability="fixed">
      <Dimension start="2"/><Start value="00"/><Start value="FF"/>
    </Binary>
    <Float64 name="empty" valueReference="21"><Dimension start="0"/></Float64>
    <Boolean name="flags" valueReference="22" causality="output"><Dimension start="2"/><Dimension start="2"/></Boolean>
  </ModelVariables>
  <ModelStructure>
    <Output valueReference="1" dependencies=""/>
    <Output valueReference="7" dependencies="3 2 15 21" dependenciesKind="constant constant constant constant"/>
    <Output valueReference="17" dependencies="18"/>
    <Output valueReference="22"/>
    <Output valueReference="15"/>
    <Output valueReference="21" dependencies="1"/>
    <ContinuousStateDerivative valueReference="1"/>
    <InitialUnknown valueReference="7"/>
    <EventIndicator valueReference="1"/>
  </ModelStructure>
</fmiModelDescription>"#;

/// An FMI 3.0 description with `cs` as CoSimulation attributes and `variables` in
/// `ModelVariables`.
fn v3(cs: &str, variables: &str) -> String {
    format!(
        r#"<fmiModelDescription fmiVersion="3.0" modelName="M" instantiationToken="t">
  <CoSimulation modelIdentifier="m" {cs}/>
  <ModelVariables>{variables}</ModelVariables>
</fmiModelDescription>"#
    )
}

fn v3_vars(variables: &str) -> String {
    v3("", variables)
}

/// Parses and returns the description with its warnings.
fn parse_warn(xml: &str) -> (ModelDescription, Vec<String>) {
    let (result, warnings) = parse_with_warnings(xml, Path::new(FILE));
    (result.unwrap_or_else(|e| panic!("{e}")), warnings)
}

fn names(md: &ModelDescription) -> Vec<&str> {
    md.variables.iter().map(|v| v.name.as_str()).collect()
}

#[test]
fn v3_full_description() {
    let (md, warnings) = parse_warn(FULL_V3);
    assert_eq!(md.fmi_version, FmiVersion::V3);
    assert_eq!(md.model_name, "Full3");
    assert_eq!(md.guid, "{tok-3}");
    assert_eq!(md.description.as_deref(), Some("All of FMI 3"));
    assert_eq!(md.generation_tool.as_deref(), Some("hand"));
    assert_eq!(md.model_identifier, "full3");
    assert_eq!(
        md.capabilities,
        Capabilities {
            can_handle_variable_communication_step_size: true,
            can_interpolate_inputs: false,
            can_get_and_set_fmu_state: true,
            can_serialize_fmu_state: false,
            can_be_instantiated_only_once_per_process: false,
            provides_directional_derivative: true,
            can_run_asynchronuously: false,
            max_output_derivative_order: 1,
            can_reject_steps: false,
            has_event_mode: true,
            might_return_early_from_do_step: true,
            can_return_early_after_intermediate_update: true,
            fixed_internal_step_size: Some(1e-3),
        }
    );
    assert_eq!(
        md.default_experiment,
        Some(DefaultExperiment {
            start_time: Some(0.0),
            stop_time: Some(3.0),
            tolerance: Some(1e-6),
            step_size: Some(1e-2),
        })
    );

    assert_eq!(
        names(&md),
        [
            "time",
            "h",
            "h_ft",
            "T",
            "i8",
            "u8",
            "i16",
            "u16",
            "count",
            "u32",
            "i64",
            "u64",
            "on",
            "label",
            "blob",
            "mode",
            "n",
            "x[1,1]",
            "x[1,2]",
            "x[1,3]",
            "x[2,1]",
            "x[2,2]",
            "x[2,3]",
            "k[1]",
            "k[2]",
            "k[3]",
            "kk[1]",
            "kk[2]",
            "kk[3]",
            "names[1]",
            "names[2]",
            "blobs[1]",
            "blobs[2]",
            "flags[1,1]",
            "flags[1,2]",
            "flags[2,1]",
            "flags[2,2]",
        ]
    );
    for (i, v) in md.variables.iter().enumerate() {
        assert_eq!(v.index, i + 1, "{}", v.name);
        assert_eq!(v.handle, ValueRef(i as u32), "{}", v.name);
        assert_eq!(v.var_type, v.data_type.var_type(), "{}", v.name);
    }
    let var = |name: &str| md.variable_by_name(name).expect(name);

    // Scalars of every type, with the FMI 3.0 variability defaults.
    let types: Vec<(&str, DataType)> = md
        .variables
        .iter()
        .take(17)
        .map(|v| (v.name.as_str(), v.data_type))
        .collect();
    assert_eq!(
        types,
        [
            ("time", DataType::Float64),
            ("h", DataType::Float64),
            ("h_ft", DataType::Float64),
            ("T", DataType::Float32),
            ("i8", DataType::Int8),
            ("u8", DataType::UInt8),
            ("i16", DataType::Int16),
            ("u16", DataType::UInt16),
            ("count", DataType::Int32),
            ("u32", DataType::UInt32),
            ("i64", DataType::Int64),
            ("u64", DataType::UInt64),
            ("on", DataType::Boolean),
            ("label", DataType::String),
            ("blob", DataType::Binary),
            ("mode", DataType::Int64),
            ("n", DataType::UInt32),
        ]
    );
    assert_eq!(var("T").variability, Variability::Continuous);
    assert_eq!(var("T").var_type, VarType::Real);
    assert_eq!(var("i8").variability, Variability::Discrete);
    assert_eq!(var("i8").var_type, VarType::Integer);
    assert_eq!(var("blob").var_type, VarType::Binary);
    assert_eq!(var("on").variability, Variability::Discrete);
    assert_eq!(var("u32").variability, Variability::Fixed);
    assert_eq!(var("n").causality, Causality::StructuralParameter);
    assert_eq!(var("time").causality, Causality::Independent);
    let mode = var("mode");
    assert!(mode.is_enumeration && mode.var_type == VarType::Integer);
    assert_eq!(mode.declared_type.as_deref(), Some("Mode"));
    assert_eq!(mode.variability, Variability::Tunable);
    assert!(!var("count").is_enumeration);

    // Start values as written; Binary in lowercase hexadecimal without prefix.
    assert_eq!(var("i8").start.as_deref(), Some("-8"));
    assert_eq!(var("u64").start.as_deref(), Some("18446744073709551615"));
    assert_eq!(var("on").start.as_deref(), Some("true"));
    assert_eq!(var("label").start.as_deref(), Some("hello world"));
    assert_eq!(var("blob").start.as_deref(), Some("deadbeef"));
    assert_eq!(var("i16").start, None);

    // Units and display units, own or through declaredType; the alias has its own.
    let h = var("h");
    assert_eq!(
        (h.unit.as_deref(), h.display_unit.as_deref()),
        (Some("m"), Some("mm"))
    );
    assert_eq!(
        (h.initial, h.causality, h.description.as_deref()),
        (Some(Initial::Exact), Causality::Output, Some("height"))
    );
    assert_eq!(h.alias, Alias::NoAlias);
    let h_ft = var("h_ft");
    assert_eq!(h_ft.alias, Alias::Alias);
    assert_eq!(h_ft.value_reference, ValueRef(1));
    assert_eq!(h_ft.handle, ValueRef(2));
    assert_eq!(h_ft.unit.as_deref(), Some("m"));
    assert_eq!(h_ft.display_unit.as_deref(), Some("ft"));
    assert_eq!(h_ft.description.as_deref(), Some("height in feet"));
    assert_eq!(h_ft.start.as_deref(), Some("1"));
    let t = var("T");
    assert_eq!(
        (t.unit.as_deref(), t.display_unit.as_deref()),
        (Some("K"), Some("degC"))
    );
    assert_eq!(var("count").unit, None);

    // Arrays: row-major, indices from 1, the array's value reference, one start item each.
    let x: Vec<&ScalarVariable> = md
        .variables
        .iter()
        .filter(|v| v.array.as_ref().is_some_and(|a| a.array == "x"))
        .collect();
    assert_eq!(x.len(), 6);
    for (offset, v) in x.iter().enumerate() {
        let a = v.array.as_ref().unwrap();
        assert_eq!(a.dimensions, [2, 3]);
        assert_eq!(a.offset, offset);
        assert_eq!(a.indices, [offset / 3 + 1, offset % 3 + 1]);
        assert_eq!(a.len(), 6);
        assert_eq!(v.value_reference, ValueRef(17));
        assert_eq!(v.start, Some((offset + 1).to_string()));
        assert_eq!(v.causality, Causality::Output);
    }
    assert_eq!(x[4].name, "x[2,2]");
    // One start value for all elements; aliases of arrays are arrays too.
    for name in ["k[1]", "k[2]", "k[3]", "kk[1]", "kk[3]"] {
        assert_eq!(var(name).start.as_deref(), Some("7"), "{name}");
    }
    let kk = var("kk[2]");
    assert_eq!(kk.alias, Alias::Alias);
    assert_eq!(kk.value_reference, ValueRef(18));
    let a = kk.array.as_ref().unwrap();
    assert_eq!(
        (a.array.as_str(), &a.dimensions, &a.indices, a.offset),
        ("kk", &vec![3], &vec![2], 1)
    );
    assert_eq!(var("names[1]").start.as_deref(), Some("a"));
    assert_eq!(var("names[2]").start.as_deref(), Some("b c"));
    assert_eq!(var("blobs[2]").start.as_deref(), Some("ff"));
    assert_eq!(var("flags[2,1]").array.as_ref().unwrap().offset, 2);
    assert_eq!(var("flags[2,1]").start, None);
    assert!(md.variable_by_name("empty").is_none());

    // Clocks are apart.
    assert_eq!(
        md.clocks,
        [ClockVariable {
            name: "tick".to_owned(),
            value_reference: ValueRef(15),
            causality: Causality::Input,
        }]
    );
    assert!(md.variable_by_name("tick").is_none());

    // Outputs in scalar indices; clocks and empty arrays are left out, as outputs and as
    // dependencies.
    assert_eq!(
        md.outputs,
        [
            OutputDependency {
                index: 2,
                dependencies: Some(vec![]),
            },
            OutputDependency {
                index: 9,
                dependencies: Some(vec![5, 4]),
            },
            OutputDependency {
                index: 18,
                dependencies: Some(vec![24]),
            },
            OutputDependency {
                index: 34,
                dependencies: None,
            },
        ]
    );

    // Unknown attributes: once per element name and attribute, naming the file.
    let unknown: Vec<&String> = warnings.iter().filter(|w| w.contains("'foo'")).collect();
    assert_eq!(unknown.len(), 2, "{warnings:#?}");
    assert!(
        unknown[0].starts_with(&format!(
            "{FILE}: ModelVariables/Float64[2] 'h': attribute 'foo'"
        )),
        "{}",
        unknown[0]
    );
    assert!(unknown[1].contains("Float32[1] 'T'"), "{}", unknown[1]);
    for attribute in ["newRootThing", "canInterpolateInputs"] {
        assert!(
            warnings
                .iter()
                .any(|w| w.contains(&format!("'{attribute}'"))),
            "{attribute}: {warnings:#?}"
        );
    }
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("'empty'") && w.contains("no elements"))
    );
    assert!(
        !warnings
            .iter()
            .any(|w| w.contains("xmlns") || w.contains("Annotation"))
    );
    // The UInt32 structural parameter 'n' sizes two arrays: one warning.
    assert!(
        warnings.iter().any(|w| w.contains(
            "ModelVariables/Float64[3] 'x'/Dimension[2]: sized by ModelVariables/UInt32[2] \
             'n', which FMI 3.0 asks to be a UInt64"
        )),
        "{warnings:#?}"
    );
    // Its ContinuousStateDerivative names 'h', which has no `derivative` attribute: read for
    // co-simulation, one warning that the Model Exchange interface cannot be used.
    assert!(
        warnings.iter().any(|w| w.contains(
            "ModelStructure/ContinuousStateDerivative[1]: the variable with value reference 1 \
             has no 'derivative' attribute"
        ) && w.contains("cannot be run as Model Exchange")),
        "{warnings:#?}"
    );
    assert!(md.model_exchange.is_none());
    assert_eq!(warnings.len(), 7, "{warnings:#?}");
}

/// The Modelica Reference FMUs declare aliases, empty dependency lists and CoSimulation
/// flags as in this trimmed copy of BouncingBall (v0.0.37).
#[test]
fn v3_reference_fmu_style() {
    let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="BouncingBall" instantiationToken="{1AE5}">
  <CoSimulation modelIdentifier="BouncingBall" canHandleVariableCommunicationStepSize="true"
      providesIntermediateUpdate="true" mightReturnEarlyFromDoStep="true"
      canReturnEarlyAfterIntermediateUpdate="true" fixedInternalStepSize="1e-3" hasEventMode="true"/>
  <UnitDefinitions><Unit name="m"><BaseUnit m="1"/><DisplayUnit name="ft" factor="3.280839895"/></Unit></UnitDefinitions>
  <TypeDefinitions><Float64Type name="Position" quantity="Position" unit="m"/></TypeDefinitions>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    <Float64 name="h" valueReference="1" causality="output" declaredType="Position" start="1"
        reinit="true" intermediateUpdate="true"><Alias name="h_ft" displayUnit="ft"/></Float64>
    <Float64 name="der(h)" valueReference="2" derivative="1" initial="calculated"/>
    <Float64 name="e" valueReference="6" causality="parameter" variability="tunable" start="0.7" min="0.5" max="1"/>
  </ModelVariables>
  <ModelStructure>
    <Output valueReference="1" dependencies=""/>
    <ContinuousStateDerivative valueReference="2" dependencies="1" dependenciesKind="constant"/>
    <InitialUnknown valueReference="2"/>
    <EventIndicator valueReference="1"/>
  </ModelStructure>
</fmiModelDescription>"#;
    let (md, warnings) = parse_warn(xml);
    assert!(warnings.is_empty(), "{warnings:#?}");
    assert_eq!(names(&md), ["time", "h", "h_ft", "der(h)", "e"]);
    assert_eq!(md.variables[2].display_unit.as_deref(), Some("ft"));
    assert_eq!(md.variables[1].display_unit, None);
    assert_eq!(md.variables[1].unit.as_deref(), Some("m"));
    assert!(md.capabilities.might_return_early_from_do_step);
    assert_eq!(md.capabilities.fixed_internal_step_size, Some(1e-3));
}

#[test]
fn v3_pre_release_is_read_with_a_warning() {
    for version in ["3.0-beta.3", "3.0-rc.1"] {
        let xml = v3_vars("").replace(r#"fmiVersion="3.0""#, &format!("fmiVersion=\"{version}\""));
        let (md, warnings) = parse_warn(&xml);
        assert_eq!(md.fmi_version, FmiVersion::V3);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with(FILE) && warnings[0].contains(version),
            "{}",
            warnings[0]
        );
    }
    let (_, warnings) = parse_warn(&v3_vars(""));
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn v3_defaults() {
    let md = parse(&v3_vars(
        r#"<Float32 name="f" valueReference="4"/><Int16 name="i" valueReference="5"/>
           <String name="s" valueReference="6"/>"#,
    ))
    .unwrap();
    assert_eq!(md.capabilities, Capabilities::default());
    assert_eq!(md.default_experiment, None);
    assert!(md.outputs.is_empty() && md.clocks.is_empty());
    let f = &md.variables[0];
    assert_eq!(
        (f.causality, f.variability, f.initial, f.start.as_deref()),
        (Causality::Local, Variability::Continuous, None, None)
    );
    assert_eq!(md.variables[1].variability, Variability::Discrete);
    assert_eq!(md.variables[2].start, None);
}

mod errors;
mod references;

mod properties {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Damaged FMI 3.0 descriptions give an error naming the file, never a panic.
        #[test]
        fn damaged_v3_descriptions_never_panic(
            edits in proptest::collection::vec((0usize..4, any::<prop::sample::Index>(), 0usize..40, "\\PC{0,8}"), 1..6)
        ) {
            let mut text: Vec<char> = FULL_V3.chars().collect();
            for (kind, at, len, insert) in edits {
                let at = at.index(text.len() + 1);
                let end = (at + len).min(text.len());
                match kind {
                    0 => { text.drain(at..end); }
                    1 => { text.splice(at..at, insert.chars()); }
                    2 => { let copy: Vec<char> = text[at..end].to_vec(); text.splice(at..at, copy); }
                    _ => { text.splice(at..end, insert.chars()); }
                }
            }
            let xml: String = text.into_iter().collect();
            let (result, warnings) = parse_with_warnings(&xml, Path::new(FILE));
            if let Err(e) = result {
                prop_assert!(e.to_string().contains(FILE), "error without the file name: {}", e);
            }
            for w in warnings {
                prop_assert!(w.starts_with(FILE), "warning without the file name: {}", w);
            }
        }
    }
}
