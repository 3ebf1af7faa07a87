//! Parsing tests with hand-written FMI 1.0 and 2.0 descriptions; FMI 3.0 in [`v3`].

use std::path::Path;

use super::*;
use crate::Error;

const FILE: &str = "modelDescription.xml";

fn parse(xml: &str) -> Result<ModelDescription> {
    ModelDescription::parse(xml, Path::new(FILE))
}

fn parse_err(xml: &str) -> Error {
    match parse(xml) {
        Ok(md) => panic!("expected an error, parsed {md:?}"),
        Err(e) => e,
    }
}

/// An FMI 2.0 description with `body` inside the root and `cs` as CoSimulation attributes.
fn v2(cs: &str, body: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="2.0" modelName="M" guid="{{abc}}">
  <CoSimulation modelIdentifier="m" {cs}/>
  {body}
</fmiModelDescription>"#
    )
}

fn v2_vars(variables: &str) -> String {
    v2("", &format!("<ModelVariables>{variables}</ModelVariables>"))
}

const FULL_V2: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="2.0" modelName="Full" guid="{1234}" description="A test"
    generationTool="hand" numberOfEventIndicators="0">
  <ModelExchange modelIdentifier="me_only_id" canGetAndSetFMUstate="true"/>
  <CoSimulation modelIdentifier="full" canHandleVariableCommunicationStepSize="true"
      canInterpolateInputs="false" maxOutputDerivativeOrder="2" canGetAndSetFMUstate="true"
      canSerializeFMUstate="true" providesDirectionalDerivative="true"
      canBeInstantiatedOnlyOncePerProcess="true" canRunAsynchronuously="false"
      canNotUseMemoryManagementFunctions="true">
    <SourceFiles><File name="a.c"/></SourceFiles>
  </CoSimulation>
  <UnitDefinitions><Unit name="m"><BaseUnit m="1"/></Unit></UnitDefinitions>
  <TypeDefinitions>
    <SimpleType name="Position"><Real quantity="Position" unit="m"/></SimpleType>
    <SimpleType name="Mode"><Enumeration><Item name="a" value="1"/></Enumeration></SimpleType>
  </TypeDefinitions>
  <LogCategories><Category name="logAll"/></LogCategories>
  <DefaultExperiment startTime="0.5" stopTime="10" tolerance="1e-6" stepSize="0.01"/>
  <ModelVariables>
    <!-- index 1 -->
    <ScalarVariable name="h" valueReference="0" causality="output" variability="continuous"
        initial="exact" description="height">
      <Real start="1" declaredType="Position"/>
    </ScalarVariable>
    <ScalarVariable name="v" valueReference="1" causality="output">
      <Real start="0" declaredType="Position" unit="km"/>
      <Annotations><Tool name="x"/></Annotations>
    </ScalarVariable>
    <ScalarVariable name="n" valueReference="1" causality="parameter" variability="fixed" initial="exact">
      <Integer start="3"/>
    </ScalarVariable>
    <ScalarVariable name="on" valueReference="2" causality="input" variability="discrete">
      <Boolean start="true"/>
    </ScalarVariable>
    <ScalarVariable name="label" valueReference="3" causality="calculatedParameter" variability="tunable"
        initial="approx">
      <String start="hello"/>
    </ScalarVariable>
    <ScalarVariable name="mode" valueReference="4" causality="local" variability="constant">
      <Enumeration declaredType="Mode" start="1"/>
    </ScalarVariable>
    <ScalarVariable name="time" valueReference="5" causality="independent">
      <Real/>
    </ScalarVariable>
  </ModelVariables>
  <ModelStructure>
    <Outputs>
      <Unknown index="1" dependencies="4 3"/>
      <Unknown index="2"/>
    </Outputs>
    <InitialUnknowns><Unknown index="1"/></InitialUnknowns>
  </ModelStructure>
</fmiModelDescription>"#;

#[test]
fn v2_full_description() {
    let md = parse(FULL_V2).unwrap();
    assert_eq!(md.fmi_version, FmiVersion::V2);
    assert_eq!(md.model_name, "Full");
    assert_eq!(md.guid, "{1234}");
    assert_eq!(md.description.as_deref(), Some("A test"));
    assert_eq!(md.generation_tool.as_deref(), Some("hand"));
    assert_eq!(
        md.model_identifier, "full",
        "the CoSimulation identifier, not ModelExchange's"
    );
    assert_eq!(
        md.capabilities,
        Capabilities {
            can_handle_variable_communication_step_size: true,
            can_interpolate_inputs: false,
            can_get_and_set_fmu_state: true,
            can_serialize_fmu_state: true,
            can_be_instantiated_only_once_per_process: true,
            provides_directional_derivative: true,
            can_run_asynchronuously: false,
            max_output_derivative_order: 2,
            can_reject_steps: false,
            ..Capabilities::default()
        }
    );
    assert_eq!(
        md.default_experiment,
        Some(DefaultExperiment {
            start_time: Some(0.5),
            stop_time: Some(10.0),
            tolerance: Some(1e-6),
            step_size: Some(0.01),
        })
    );
    assert_eq!(md.variables.len(), 7);
    for (i, v) in md.variables.iter().enumerate() {
        assert_eq!(v.index, i + 1);
    }

    let h = md.variable_by_name("h").unwrap();
    assert_eq!(h.value_reference, ValueRef(0));
    assert_eq!(h.causality, Causality::Output);
    assert_eq!(h.variability, Variability::Continuous);
    assert_eq!(h.initial, Some(Initial::Exact));
    assert_eq!(h.var_type, VarType::Real);
    assert_eq!(h.start.as_deref(), Some("1"));
    assert_eq!(h.unit.as_deref(), Some("m"), "unit from the declared type");
    assert_eq!(h.declared_type.as_deref(), Some("Position"));
    assert_eq!(h.description.as_deref(), Some("height"));
    assert_eq!(h.alias, Alias::NoAlias);

    let v = md.variable_by_name("v").unwrap();
    assert_eq!(
        v.unit.as_deref(),
        Some("km"),
        "own unit wins over the declared type"
    );
    assert_eq!(
        v.variability,
        Variability::Continuous,
        "default variability"
    );
    assert_eq!(v.initial, None);

    let n = md.variable_by_name("n").unwrap();
    assert_eq!(
        (n.causality, n.variability, n.var_type),
        (Causality::Parameter, Variability::Fixed, VarType::Integer)
    );
    assert_eq!(n.unit, None);

    let on = md.variable_by_name("on").unwrap();
    assert_eq!(
        (on.causality, on.variability, on.var_type),
        (Causality::Input, Variability::Discrete, VarType::Boolean)
    );

    let label = md.variable_by_name("label").unwrap();
    assert_eq!(
        (
            label.causality,
            label.variability,
            label.var_type,
            label.initial
        ),
        (
            Causality::CalculatedParameter,
            Variability::Tunable,
            VarType::String,
            Some(Initial::Approx)
        )
    );
    assert_eq!(label.start.as_deref(), Some("hello"));

    let mode = md.variable_by_name("mode").unwrap();
    assert_eq!(
        (mode.var_type, mode.is_enumeration),
        (VarType::Integer, true)
    );
    assert_eq!(
        (mode.causality, mode.variability),
        (Causality::Local, Variability::Constant)
    );
    assert_eq!(mode.declared_type.as_deref(), Some("Mode"));
    assert_eq!(mode.unit, None);

    let time = md.variable_by_name("time").unwrap();
    assert_eq!(time.causality, Causality::Independent);
    assert_eq!(time.start, None);

    assert_eq!(
        md.outputs,
        vec![
            OutputDependency {
                index: 1,
                dependencies: Some(vec![4, 3])
            },
            OutputDependency {
                index: 2,
                dependencies: None
            },
        ]
    );
}

#[test]
fn v2_defaults_and_empty_dependencies() {
    let xml = v2(
        "",
        r#"<ModelVariables>
             <ScalarVariable name="x" valueReference="7"><Real/></ScalarVariable>
           </ModelVariables>
           <ModelStructure><Outputs><Unknown index="1" dependencies=""/></Outputs></ModelStructure>"#,
    );
    let md = parse(&xml).unwrap();
    assert_eq!(md.capabilities, Capabilities::default());
    assert_eq!(md.default_experiment, None);
    let x = &md.variables[0];
    assert_eq!(
        (x.causality, x.variability),
        (Causality::Local, Variability::Continuous)
    );
    assert_eq!(
        md.outputs,
        vec![OutputDependency {
            index: 1,
            dependencies: Some(vec![])
        }]
    );
}

#[test]
fn v2_patch_versions_are_accepted() {
    let xml = v2_vars("").replace(r#"fmiVersion="2.0""#, r#"fmiVersion="2.0.4""#);
    assert_eq!(parse(&xml).unwrap().fmi_version, FmiVersion::V2);
}

const FULL_V1: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="1.0" modelName="Old" modelIdentifier="old" guid="g-1"
    numberOfContinuousStates="0" numberOfEventIndicators="0">
  <TypeDefinitions>
    <Type name="Force"><RealType quantity="Force" unit="N"/></Type>
    <Type name="Kind"><EnumerationType><Item name="a"/></EnumerationType></Type>
  </TypeDefinitions>
  <DefaultExperiment startTime="0" stopTime="2" tolerance="1e-4"/>
  <ModelVariables>
    <ScalarVariable name="f" valueReference="0" variability="continuous" causality="input">
      <Real start="0" declaredType="Force"/>
    </ScalarVariable>
    <ScalarVariable name="fOut" valueReference="0" causality="output" alias="alias">
      <Real declaredType="Force"/>
      <DirectDependency><Name>f</Name></DirectDependency>
    </ScalarVariable>
    <ScalarVariable name="fNeg" valueReference="0" causality="output" alias="negatedAlias">
      <Real/>
    </ScalarVariable>
    <ScalarVariable name="mass" valueReference="1" variability="parameter" causality="input">
      <Real start="10"/>
    </ScalarVariable>
    <ScalarVariable name="k" valueReference="2" variability="parameter" causality="internal">
      <Real start="3"/>
    </ScalarVariable>
    <ScalarVariable name="tmp" valueReference="3" causality="none" variability="discrete">
      <Integer/>
    </ScalarVariable>
    <ScalarVariable name="kind" valueReference="4" variability="constant">
      <Enumeration declaredType="Kind" start="1"/>
    </ScalarVariable>
    <ScalarVariable name="flag" valueReference="0" causality="input"><Boolean start="true"/></ScalarVariable>
    <ScalarVariable name="text" valueReference="0" causality="input"><String start=""/></ScalarVariable>
  </ModelVariables>
  <Implementation>
    <CoSimulation_StandAlone>
      <Capabilities canHandleVariableCommunicationStepSize="true" canHandleEvents="true"
          canRejectSteps="true" canInterpolateInputs="true" maxOutputDerivativeOrder="1"
          canRunAsynchronuously="false" canSignalEvents="false"
          canBeInstantiatedOnlyOncePerProcess="true" canNotUseMemoryManagementFunctions="false"/>
    </CoSimulation_StandAlone>
  </Implementation>
</fmiModelDescription>"#;

#[test]
fn v1_full_description() {
    let md = parse(FULL_V1).unwrap();
    assert_eq!(md.fmi_version, FmiVersion::V1);
    assert_eq!(md.model_identifier, "old");
    assert_eq!(md.guid, "g-1");
    assert_eq!(
        md.capabilities,
        Capabilities {
            can_handle_variable_communication_step_size: true,
            can_interpolate_inputs: true,
            can_get_and_set_fmu_state: false,
            can_serialize_fmu_state: false,
            can_be_instantiated_only_once_per_process: true,
            provides_directional_derivative: false,
            can_run_asynchronuously: false,
            max_output_derivative_order: 1,
            can_reject_steps: true,
            ..Capabilities::default()
        }
    );
    assert_eq!(md.default_experiment.unwrap().stop_time, Some(2.0));
    assert!(md.outputs.is_empty());

    let f = md.variable_by_name("f").unwrap();
    assert_eq!(
        (f.causality, f.variability, f.alias),
        (Causality::Input, Variability::Continuous, Alias::NoAlias)
    );
    assert_eq!(
        f.unit.as_deref(),
        Some("N"),
        "unit of the FMI 1.0 Type/RealType"
    );
    assert_eq!(f.initial, None);

    let f_out = md.variable_by_name("fOut").unwrap();
    assert_eq!(
        (f_out.causality, f_out.alias),
        (Causality::Output, Alias::Alias)
    );
    assert_eq!(
        md.variable_by_name("fNeg").unwrap().alias,
        Alias::NegatedAlias
    );

    let mass = md.variable_by_name("mass").unwrap();
    assert_eq!(
        (mass.causality, mass.variability),
        (Causality::Parameter, Variability::Fixed)
    );
    let k = md.variable_by_name("k").unwrap();
    assert_eq!(
        (k.causality, k.variability),
        (Causality::Parameter, Variability::Fixed)
    );

    let tmp = md.variable_by_name("tmp").unwrap();
    assert_eq!(
        (tmp.causality, tmp.variability, tmp.var_type),
        (Causality::Local, Variability::Discrete, VarType::Integer)
    );

    let kind = md.variable_by_name("kind").unwrap();
    assert_eq!(
        (kind.causality, kind.var_type, kind.is_enumeration),
        (Causality::Local, VarType::Integer, true)
    );
    assert_eq!(kind.variability, Variability::Constant);

    assert_eq!(
        md.variable_by_name("flag").unwrap().var_type,
        VarType::Boolean
    );
    let text = md.variable_by_name("text").unwrap();
    assert_eq!(
        (text.var_type, text.start.as_deref()),
        (VarType::String, Some(""))
    );
}

#[test]
fn v1_tool_coupling_and_missing_capabilities() {
    let xml = r#"<fmiModelDescription fmiVersion="1.0" modelName="T" modelIdentifier="t" guid="g">
      <ModelVariables/>
      <Implementation>
        <CoSimulation_Tool>
          <Capabilities canHandleVariableCommunicationStepSize="true"/>
          <Model entryPoint="fmu://x" type="application/x-tool"/>
        </CoSimulation_Tool>
      </Implementation>
    </fmiModelDescription>"#;
    let md = parse(xml).unwrap();
    assert!(md.capabilities.can_handle_variable_communication_step_size);
    assert!(md.variables.is_empty());

    let xml = r#"<fmiModelDescription fmiVersion="1.0" modelName="T" modelIdentifier="t" guid="g">
      <ModelVariables/>
      <Implementation><CoSimulation_StandAlone/></Implementation>
    </fmiModelDescription>"#;
    assert_eq!(parse(xml).unwrap().capabilities, Capabilities::default());
}

// ----- errors -----------------------------------------------------------------------------

#[test]
fn wrong_root_element() {
    let err = parse_err(r#"<modelDescription fmiVersion="2.0"/>"#);
    assert!(
        matches!(&err, Error::WrongRootElement { found, .. } if found == "modelDescription"),
        "{err}"
    );
    assert!(err.to_string().contains("fmiModelDescription"), "{err}");
}

#[test]
fn missing_root_attributes() {
    let err = parse_err(r#"<fmiModelDescription modelName="M" guid="g"/>"#);
    assert!(
        matches!(
            err,
            Error::MissingAttribute {
                attribute: "fmiVersion",
                ..
            }
        ),
        "{err}"
    );
    let err = parse_err(&v2_vars("").replace(r#"modelName="M""#, ""));
    assert!(
        matches!(
            err,
            Error::MissingAttribute {
                attribute: "modelName",
                ..
            }
        ),
        "{err}"
    );
    let err = parse_err(&v2_vars("").replace(r#"guid="{abc}""#, ""));
    assert_eq!(
        err.to_string(),
        "modelDescription.xml: fmiModelDescription: missing attribute 'guid'"
    );
}

#[test]
fn missing_model_identifier() {
    let err = parse_err(&v2_vars("").replace(r#"modelIdentifier="m""#, ""));
    assert_eq!(
        err.to_string(),
        "modelDescription.xml: CoSimulation: missing attribute 'modelIdentifier'"
    );
    let err = parse_err(&FULL_V1.replace(r#"modelIdentifier="old""#, ""));
    assert!(
        matches!(&err, Error::MissingAttribute { element, attribute: "modelIdentifier", .. }
        if element == "fmiModelDescription"),
        "{err}"
    );
}

/// Found by the `model_description` fuzz target (minimized with `cargo fuzz tmin`; the first
/// crash had `modelIdentifier="RoomHea\x0e\0ting_OM_RH"`): an empty identifier was accepted. With
/// `/` it was worse: `Fmu::load` joins `binaries/linux64/<modelIdentifier>.so`, so
/// `modelIdentifier="/usr/lib/x86_64-linux-gnu/libz"` or `"../../../x"` made it `dlopen` a
/// library outside the FMU and run its constructors.
#[test]
fn model_identifier_must_be_a_file_name_stem() {
    const MINIMIZED: &str = "<fmiModelDescription\nfmiVersion=\"2.0\" modelName=\"\"guid=\"0\">\n\
        <CoSimulation\n modelIdentifier=\"\"/><ModelVariables></ModelVariables>\
        </fmiModelDescription>";
    let err = parse_err(MINIMIZED);
    assert_eq!(
        err.to_string(),
        "modelDescription.xml: CoSimulation: invalid value '' of attribute 'modelIdentifier' \
         (expected a C identifier such as 'A_B_C' (it names the shared library, so no path))"
    );
    for bad in [
        "/usr/lib/x86_64-linux-gnu/libz",
        "../../../../tmp/evil",
        "sub/m",
        "..\\evil",
        "RoomHea\u{e}\u{0}ting_OM_RH",
    ] {
        let xml = v2_vars("").replace(
            r#"modelIdentifier="m""#,
            &format!("modelIdentifier=\"{bad}\""),
        );
        let err = parse_err(&xml);
        assert!(
            matches!(&err, Error::InvalidAttribute { element, attribute: "modelIdentifier", value, .. }
                if element == "CoSimulation" && value == bad),
            "{bad:?}: {err}"
        );
        let err = parse_err(&FULL_V1.replacen(
            r#"modelIdentifier="old""#,
            &format!("modelIdentifier=\"{bad}\""),
            1,
        ));
        assert!(
            matches!(&err, Error::InvalidAttribute { element, attribute: "modelIdentifier", .. }
                if element == "fmiModelDescription"),
            "{bad:?}: {err}"
        );
    }
    // Identifiers that are not strict C names but are harmless file-name stems still load.
    for good in ["m", "Model_1", "Modelica.Blocks", "a-b"] {
        let xml = v2_vars("").replace(
            r#"modelIdentifier="m""#,
            &format!("modelIdentifier=\"{good}\""),
        );
        assert_eq!(parse(&xml).unwrap().model_identifier, good);
    }
}

#[test]
fn unsupported_version() {
    let err = parse_err(&v2_vars("").replace(r#"fmiVersion="2.0""#, r#"fmiVersion="4.0""#));
    assert!(
        matches!(&err, Error::UnsupportedVersion { version, .. } if version == "4.0"),
        "{err}"
    );
    let text = err.to_string();
    assert!(
        text.contains("4.0") && text.contains("1.0, 2.0 and 3.0"),
        "{text}"
    );
    let err = parse_err(&v2_vars("").replace(r#"fmiVersion="2.0""#, r#"fmiVersion="2.01""#));
    assert!(matches!(err, Error::UnsupportedVersion { .. }), "{err}");
}

#[test]
fn bad_boolean_names_element_attribute_and_value() {
    let err = parse_err(&v2(r#"canGetAndSetFMUstate="yes""#, "<ModelVariables/>"));
    assert!(
        matches!(&err, Error::InvalidAttribute { attribute: "canGetAndSetFMUstate", value, .. } if value == "yes")
    );
    let text = err.to_string();
    assert!(
        text.contains("CoSimulation") && text.contains("'yes'") && text.contains("true or false"),
        "{text}"
    );
    // XML schema booleans "1"/"0" are refused too: only true/false.
    let err = parse_err(&v2(
        r#"canHandleVariableCommunicationStepSize="1""#,
        "<ModelVariables/>",
    ));
    assert!(matches!(err, Error::InvalidAttribute { .. }), "{err}");
    let err = parse_err(&FULL_V1.replace(r#"canRejectSteps="true""#, r#"canRejectSteps="TRUE""#));
    assert!(
        matches!(&err, Error::InvalidAttribute { element, attribute: "canRejectSteps", .. }
            if element == "CoSimulation_StandAlone/Capabilities"),
        "{err}"
    );
}

#[test]
fn no_co_simulation() {
    let xml = r#"<fmiModelDescription fmiVersion="2.0" modelName="M" guid="g">
        <ModelExchange modelIdentifier="m"/><ModelVariables/></fmiModelDescription>"#;
    let err = parse_err(xml);
    assert!(
        matches!(
            err,
            Error::NoCoSimulation {
                version: FmiVersion::V2,
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("no 'CoSimulation' element: the FMU offers only Model Exchange"),
        "{err}"
    );
    // Read to describe it, the same FMU is its Model Exchange interface.
    let md = ModelDescription::parse_any_interface(xml, Path::new(FILE)).expect("describes");
    assert_eq!(md.model_identifier, "m");
    assert_eq!(md.interfaces.names(), ["Model Exchange"]);
    assert_eq!(md.capabilities, Capabilities::default());

    let xml = r#"<fmiModelDescription fmiVersion="1.0" modelName="M" modelIdentifier="m" guid="g">
        <ModelVariables/></fmiModelDescription>"#;
    let err = parse_err(xml);
    assert!(
        matches!(
            err,
            Error::NoCoSimulation {
                version: FmiVersion::V1,
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("FMI 1.0 Model Exchange FMU (no 'Implementation' element)"),
        "{err}"
    );
    let md = ModelDescription::parse_any_interface(xml, Path::new(FILE)).expect("describes");
    assert_eq!(
        (md.model_identifier.as_str(), md.interfaces.describe()),
        ("m", "Model Exchange".into())
    );

    let xml = r#"<fmiModelDescription fmiVersion="1.0" modelName="M" modelIdentifier="m" guid="g">
        <ModelVariables/><Implementation/></fmiModelDescription>"#;
    let err = parse_err(xml);
    assert!(matches!(err, Error::MissingElement { .. }), "{err}");
}

#[test]
fn missing_model_variables() {
    let err = parse_err(&v2("", ""));
    assert!(
        matches!(
            err,
            Error::MissingElement {
                element: "ModelVariables",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn variable_missing_attributes_name_index_and_file() {
    let xml = v2_vars(
        r#"<ScalarVariable name="a" valueReference="1"><Real/></ScalarVariable>
           <ScalarVariable name="b" valueReference="2"><Real/></ScalarVariable>
           <ScalarVariable name="x"><Real/></ScalarVariable>"#,
    );
    let err = parse_err(&xml);
    assert_eq!(
        err.to_string(),
        "modelDescription.xml: ScalarVariable #3 'x': missing attribute 'valueReference'"
    );

    let err = parse_err(&v2_vars(
        r#"<ScalarVariable valueReference="1"><Real/></ScalarVariable>"#,
    ));
    assert_eq!(
        err.to_string(),
        "modelDescription.xml: ScalarVariable #1: missing attribute 'name'"
    );
}

#[test]
fn variable_invalid_attribute_values() {
    let err = parse_err(&v2_vars(
        r#"<ScalarVariable name="x" valueReference="-1"><Real/></ScalarVariable>"#,
    ));
    assert!(
        matches!(
            err,
            Error::InvalidAttribute {
                attribute: "valueReference",
                ..
            }
        ),
        "{err}"
    );

    let err = parse_err(&v2_vars(
        r#"<ScalarVariable name="x" valueReference="1" causality="foo"><Real/></ScalarVariable>"#,
    ));
    let text = err.to_string();
    assert!(text.starts_with("modelDescription.xml: ScalarVariable #1 'x': invalid value 'foo' of attribute 'causality'"), "{text}");

    let err = parse_err(&v2_vars(
        r#"<ScalarVariable name="x" valueReference="1" variability="parameter"><Real/></ScalarVariable>"#,
    ));
    assert!(
        matches!(
            err,
            Error::InvalidAttribute {
                attribute: "variability",
                ..
            }
        ),
        "{err}"
    );

    let err = parse_err(&v2_vars(
        r#"<ScalarVariable name="x" valueReference="1" initial="guess"><Real/></ScalarVariable>"#,
    ));
    assert!(
        matches!(
            err,
            Error::InvalidAttribute {
                attribute: "initial",
                ..
            }
        ),
        "{err}"
    );

    let err = parse_err(&FULL_V1.replace(r#"alias="negatedAlias""#, r#"alias="negated""#));
    assert!(
        matches!(
            err,
            Error::InvalidAttribute {
                attribute: "alias",
                ..
            }
        ),
        "{err}"
    );
    let err = parse_err(&FULL_V1.replace(r#"causality="none""#, r#"causality="local""#));
    assert!(
        matches!(
            err,
            Error::InvalidAttribute {
                attribute: "causality",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn variable_needs_exactly_one_type_element() {
    let err = parse_err(&v2_vars(
        r#"<ScalarVariable name="x" valueReference="1"><Annotations/></ScalarVariable>"#,
    ));
    assert!(
        matches!(&err, Error::TypeElement { found, .. } if found.is_empty()),
        "{err}"
    );
    assert!(
        err.to_string().contains("ScalarVariable #1 'x'") && err.to_string().contains("found none")
    );

    let err = parse_err(&v2_vars(
        r#"<ScalarVariable name="x" valueReference="1"><Real/><Integer/></ScalarVariable>"#,
    ));
    assert!(
        matches!(&err, Error::TypeElement { found, .. } if found == &["Real", "Integer"]),
        "{err}"
    );
}

#[test]
fn start_values_are_not_required() {
    let md = parse(&v2_vars(
        r#"<ScalarVariable name="u" valueReference="1" causality="input"><Real/></ScalarVariable>"#,
    ))
    .unwrap();
    assert_eq!(md.variables[0].start, None);
}

#[test]
fn invalid_numbers() {
    let err = parse_err(&v2(r#"maxOutputDerivativeOrder="-2""#, "<ModelVariables/>"));
    assert!(
        matches!(
            err,
            Error::InvalidAttribute {
                attribute: "maxOutputDerivativeOrder",
                ..
            }
        ),
        "{err}"
    );
    let err = parse_err(&v2(
        "",
        r#"<ModelVariables><ScalarVariable name="x" valueReference="x"><Real/></ScalarVariable></ModelVariables>"#,
    ));
    assert!(
        matches!(
            err,
            Error::InvalidAttribute {
                attribute: "valueReference",
                ..
            }
        ),
        "{err}"
    );
}

/// Parses a description that must be read, and returns it with its warnings.
fn parse_warn(xml: &str) -> (ModelDescription, Vec<String>) {
    let (result, warnings) = raw::parse_with_warnings(xml, Path::new(FILE));
    (result.unwrap_or_else(|e| panic!("{e}")), warnings)
}

#[test]
fn default_experiment_values_that_are_not_numbers_are_ignored_with_a_warning() {
    let body = r#"<DefaultExperiment startTime="0" stopTime="ten" stepSize=""/><ModelVariables/>"#;
    let v1 = format!(
        r#"<fmiModelDescription fmiVersion="1.0" modelName="M" modelIdentifier="m" guid="g">
          {body}<Implementation><CoSimulation_StandAlone/></Implementation>
        </fmiModelDescription>"#
    );
    for xml in [v2("", body), v1] {
        let (md, warnings) = parse_warn(&xml);
        assert_eq!(
            md.default_experiment,
            Some(DefaultExperiment {
                start_time: Some(0.0),
                ..DefaultExperiment::default()
            })
        );
        assert_eq!(
            warnings,
            [
                "modelDescription.xml: DefaultExperiment: invalid value 'ten' of attribute \
                 'stopTime' (expected a real number); ignored, as if the FMU gave none (a default \
                 experiment only suggests settings)",
                "modelDescription.xml: DefaultExperiment: invalid value '' of attribute \
                 'stepSize' (expected a real number); ignored, as if the FMU gave none (a default \
                 experiment only suggests settings)"
            ]
        );
    }
}

#[test]
fn model_structure_indices_that_name_no_variable_are_ignored_with_a_warning() {
    let xml = v2(
        "",
        r#"<ModelVariables>
             <ScalarVariable name="x" valueReference="1" causality="output"><Real/></ScalarVariable>
             <ScalarVariable name="y" valueReference="2" causality="output"><Real/></ScalarVariable>
           </ModelVariables>
           <ModelStructure><Outputs>
             <Unknown index="0"/><Unknown index="2" dependencies="1 3"/><Unknown index="1" dependencies="2"/>
           </Outputs></ModelStructure>"#,
    );
    let (md, warnings) = parse_warn(&xml);
    // The entry with index 0 (a 0-based exporter) is dropped; the dependency on #3 drops its
    // list (depends on everything); the valid entry stays as it is.
    assert_eq!(
        md.outputs,
        [
            OutputDependency {
                index: 2,
                dependencies: None
            },
            OutputDependency {
                index: 1,
                dependencies: Some(vec![2])
            }
        ]
    );
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings[0].starts_with(
            "modelDescription.xml: ModelStructure/Outputs/Unknown #1: invalid value '0' of \
             attribute 'index' (expected an index into ModelVariables (1-based), there are 2 \
             variables); the entry is ignored"
        ),
        "{warnings:?}"
    );
    assert!(
        warnings[1].contains("Unknown #2: invalid value '3' of attribute 'dependencies'")
            && warnings[1].contains("its dependency list is ignored"),
        "{warnings:?}"
    );
    // A missing index is still an error.
    let err = parse_err(&v2(
        "",
        r#"<ModelVariables/><ModelStructure><Outputs><Unknown/></Outputs></ModelStructure>"#,
    ));
    assert!(
        matches!(
            err,
            Error::MissingAttribute {
                attribute: "index",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn malformed_xml_reports_file_and_position() {
    let xml =
        "<fmiModelDescription fmiVersion=\"2.0\">\n  <ModelVariables>\n</fmiModelDescription>";
    let err = parse_err(xml);
    let Error::Xml {
        path,
        position,
        message,
    } = &err
    else {
        panic!("unexpected error: {err}")
    };
    assert_eq!(path, Path::new(FILE));
    assert!(position.is_some(), "{err}");
    assert!(!message.is_empty());
    assert!(
        err.to_string()
            .starts_with("modelDescription.xml: malformed XML at byte "),
        "{err}"
    );

    let err = parse_err("<fmiModelDescription fmiVersion=\"2.0\"><ModelVariables>");
    assert!(matches!(err, Error::Xml { .. }), "{err}");
    let err = parse_err("<fmiModelDescription fmiVersion=\"2.0 />");
    assert!(matches!(err, Error::Xml { .. }), "{err}");
    let err = parse_err("");
    assert!(matches!(err, Error::Xml { .. }), "{err}");
}

#[test]
fn from_file_decodes_latin1_and_reports_io() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join(FILE);
    let xml = v2_vars(
        r#"<ScalarVariable name="T" valueReference="1" description="°C"><Real/></ScalarVariable>"#,
    )
    .replace("UTF-8", "ISO-8859-1");
    let latin1: Vec<u8> = xml
        .chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap())
        .collect();
    std::fs::write(&path, latin1).unwrap();
    let md = ModelDescription::from_file(&path).unwrap();
    assert_eq!(md.variables[0].description.as_deref(), Some("°C"));

    // Not UTF-8 and not declared Latin-1.
    let mut bytes = v2_vars("").into_bytes();
    bytes.extend_from_slice(b"<!-- \xff -->");
    std::fs::write(&path, bytes).unwrap();
    let err = ModelDescription::from_file(&path).unwrap_err();
    assert!(matches!(err, Error::Xml { .. }), "{err}");

    // UTF-8 with BOM.
    std::fs::write(&path, format!("\u{feff}{}", v2_vars(""))).unwrap();
    ModelDescription::from_file(&path).unwrap();

    let err = ModelDescription::from_file(&tmp.path().join("missing.xml")).unwrap_err();
    assert!(matches!(err, Error::Io { .. }), "{err}");
}

/// Property tests: generated descriptions parse back to what was generated, and damaged ones
/// give an error or a description, never a panic.
mod properties {
    use proptest::prelude::*;

    use super::*;

    /// One generated variable: type, causality, value reference, start value, description.
    #[derive(Debug, Clone)]
    struct Generated {
        ty: VarType,
        causality: Causality,
        vr: u32,
        start: String,
        description: String,
    }

    fn generated() -> impl Strategy<Value = Generated> {
        let ty = prop_oneof![
            Just(VarType::Real),
            Just(VarType::Integer),
            Just(VarType::Boolean),
            Just(VarType::String)
        ];
        let causality = prop_oneof![
            Just(Causality::Parameter),
            Just(Causality::Input),
            Just(Causality::Output),
            Just(Causality::Local)
        ];
        (ty, causality, any::<i32>(), "[ -~äöü€]{0,12}").prop_map(
            |(ty, causality, n, description)| {
                let start = match ty {
                    VarType::Real => format!("{}", f64::from(n) / 7.0),
                    VarType::Integer => n.to_string(),
                    VarType::Boolean => (n % 2 == 0).to_string(),
                    VarType::String | VarType::Binary => format!("s{n}&<>\"'"),
                };
                Generated {
                    ty,
                    causality,
                    vr: 0,
                    start,
                    description,
                }
            },
        )
    }

    /// Escapes text for an XML attribute value.
    fn escape(text: &str) -> String {
        text.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
            .replace('\'', "&apos;")
    }

    /// The FMI 2.0 description of `variables` (named `v<index>`, value references as given).
    fn description(variables: &[Generated]) -> String {
        let mut body = String::new();
        for (i, v) in variables.iter().enumerate() {
            let (causality, variability) = match v.causality {
                Causality::Parameter => ("parameter", "fixed"),
                Causality::Input => ("input", "discrete"),
                Causality::Output => ("output", "discrete"),
                _ => ("local", "discrete"),
            };
            let variability = if v.ty == VarType::Real && variability == "discrete" {
                "continuous"
            } else {
                variability
            };
            let start = if matches!(v.causality, Causality::Parameter | Causality::Input) {
                format!(" start=\"{}\"", escape(&v.start))
            } else {
                String::new()
            };
            let element = match v.ty {
                VarType::Real => "Real",
                VarType::Integer => "Integer",
                VarType::Boolean => "Boolean",
                VarType::String | VarType::Binary => "String",
            };
            body += &format!(
                "<ScalarVariable name=\"v{i}\" valueReference=\"{}\" causality=\"{causality}\" \
                 variability=\"{variability}\" description=\"{}\"><{element}{start}/></ScalarVariable>\n",
                v.vr,
                escape(&v.description)
            );
        }
        v2_vars(&body)
    }

    proptest! {
        #[test]
        fn generated_descriptions_parse_back(mut variables in proptest::collection::vec(generated(), 0..24)) {
            for (i, v) in variables.iter_mut().enumerate() {
                v.vr = 3 * i as u32 + 1;
            }
            let md = parse(&description(&variables)).unwrap_or_else(|e| panic!("{e}"));
            prop_assert_eq!(md.variables.len(), variables.len());
            for (i, (parsed, v)) in md.variables.iter().zip(&variables).enumerate() {
                prop_assert_eq!(&parsed.name, &format!("v{i}"));
                prop_assert_eq!(parsed.index, i + 1);
                prop_assert_eq!(parsed.value_reference, ValueRef(v.vr));
                prop_assert_eq!(parsed.var_type, v.ty);
                prop_assert_eq!(parsed.causality, v.causality);
                prop_assert_eq!(parsed.description.as_deref().unwrap_or(""), v.description.as_str());
                if matches!(v.causality, Causality::Parameter | Causality::Input) {
                    prop_assert_eq!(parsed.start.as_deref(), Some(v.start.as_str()));
                }
            }
        }

        #[test]
        fn damaged_descriptions_never_panic(
            edits in proptest::collection::vec((0usize..4, any::<prop::sample::Index>(), 0usize..40, "\\PC{0,8}"), 1..6)
        ) {
            let mut text: Vec<char> = FULL_V2.chars().collect();
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
            if let Err(e) = parse(&xml) {
                prop_assert!(e.to_string().contains(FILE), "error without the file name: {}", e);
            }
        }
    }
}

mod files;
mod model_exchange;
mod v3;
