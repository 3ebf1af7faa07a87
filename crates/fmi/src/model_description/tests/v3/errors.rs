//! FMI 3.0 errors: one test per kind, each checking the variant, the element it names and the
//! message (which always starts with the file name).

use super::super::{FILE, parse, parse_err};
use super::{names, parse_warn, v3, v3_vars};
use crate::Error;
use crate::model_description::{FmiVersion, NameLookup};

/// Asserts that the error message names the file and contains each of `parts`.
fn assert_message(err: &Error, parts: &[&str]) {
    let text = err.to_string();
    assert!(text.starts_with(&format!("{FILE}: ")), "{text}");
    for part in parts {
        assert!(text.contains(part), "'{part}' not in: {text}");
    }
}

#[test]
fn v3_missing_instantiation_token() {
    let err = parse_err(&v3_vars("").replace(r#" instantiationToken="t""#, ""));
    assert!(
        matches!(&err, Error::MissingAttribute { element, attribute: "instantiationToken", .. }
            if element == "fmiModelDescription"),
        "{err:?}"
    );
    assert_message(&err, &["missing attribute 'instantiationToken'"]);
}

#[test]
fn v3_missing_value_reference_and_name() {
    let err = parse_err(&v3_vars(
        r#"<Float64 name="a" valueReference="0"/><Float64 name="x" description="no vr"/>"#,
    ));
    assert!(
        matches!(&err, Error::MissingAttribute { element, attribute: "valueReference", .. }
            if element == "ModelVariables/Float64[2] 'x'"),
        "{err:?}"
    );
    let err = parse_err(&v3_vars(r#"<Int8 valueReference="0"/>"#));
    assert_message(&err, &["ModelVariables/Int8[1]: missing attribute 'name'"]);
    let err = parse_err(&v3_vars(r#"<Int8 name="i" valueReference="-1"/>"#));
    assert_message(&err, &["'i'", "valueReference", "'-1'"]);
}

#[test]
fn v3_bad_keywords() {
    let err = parse_err(&v3_vars(
        r#"<Float64 name="x" valueReference="1" causality="state"/>"#,
    ));
    assert!(
        matches!(&err, Error::InvalidAttribute { attribute: "causality", value, .. } if value == "state"),
        "{err:?}"
    );
    assert_message(
        &err,
        &["ModelVariables/Float64[1] 'x'", "structuralParameter"],
    );
    let err = parse_err(&v3_vars(
        r#"<Clock name="c" valueReference="1" variability="sometimes"/>"#,
    ));
    assert!(
        matches!(
            &err,
            Error::InvalidAttribute {
                attribute: "variability",
                ..
            }
        ),
        "{err:?}"
    );
    let err = parse_err(&v3_vars(
        r#"<Boolean name="b" valueReference="1" initial="maybe"/>"#,
    ));
    assert!(
        matches!(
            &err,
            Error::InvalidAttribute {
                attribute: "initial",
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn v3_dimension_reference_to_nothing() {
    let err = parse_err(&v3_vars(
        r#"<Float64 name="x" valueReference="1"><Dimension start="2"/><Dimension valueReference="7"/></Float64>"#,
    ));
    assert!(
        matches!(&err, Error::DimensionReference { element, value_reference: 7, .. }
            if element == "ModelVariables/Float64[1] 'x'/Dimension[2]"),
        "{err:?}"
    );
    assert_message(&err, &["valueReference 7 names no variable"]);
}

#[test]
fn v3_dimension_reference_to_a_float() {
    let err = parse_err(&v3_vars(
        r#"<Float64 name="p" valueReference="2" causality="structuralParameter" variability="fixed" start="3"/>
           <Float64 name="x" valueReference="1"><Dimension valueReference="2"/></Float64>"#,
    ));
    assert!(
        matches!(&err, Error::DimensionTarget { element, target, problem, value_reference: 2, .. }
            if element == "ModelVariables/Float64[2] 'x'/Dimension[1]"
                && target == "ModelVariables/Float64[1] 'p'"
                && problem.contains("integer")),
        "{err:?}"
    );
    assert_message(
        &err,
        &["names ModelVariables/Float64[1] 'p', which is not of an integer type"],
    );
    // An enumeration is not an integer size either; nor is an integer array.
    let err = parse_err(&v3_vars(
        r#"<Enumeration name="e" valueReference="2" declaredType="E" start="1"/>
           <Float64 name="x" valueReference="1"><Dimension valueReference="2"/></Float64>"#,
    ));
    assert!(matches!(err, Error::DimensionTarget { .. }), "{err:?}");
    let err = parse_err(&v3_vars(
        r#"<Float64 name="x" valueReference="1"><Dimension valueReference="2"/></Float64>
           <Int32 name="n" valueReference="2" start="1 1"><Dimension start="2"/></Int32>"#,
    ));
    assert!(
        matches!(
            &err,
            Error::DimensionTarget {
                problem: "is an array",
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn v3_dimension_reference_to_a_variable_without_start() {
    // The structural parameter may come after the array.
    let err = parse_err(&v3_vars(
        r#"<Float64 name="x" valueReference="1"><Dimension valueReference="2"/></Float64>
           <UInt64 name="n" valueReference="2" causality="structuralParameter"/>"#,
    ));
    assert!(
        matches!(&err, Error::DimensionTarget { target, problem: "has no start value", .. }
            if target == "ModelVariables/UInt64[1] 'n'"),
        "{err:?}"
    );
    let ok = parse(&v3_vars(
        r#"<Float64 name="x" valueReference="1"><Dimension valueReference="2"/></Float64>
           <UInt64 name="n" valueReference="2" causality="structuralParameter" start="2"/>"#,
    ))
    .unwrap();
    assert_eq!(names(&ok), ["x[1]", "x[2]", "n"]);
}

#[test]
fn v3_dimension_sizes_must_be_non_negative_integers() {
    let err = parse_err(&v3_vars(
        r#"<Float64 name="x" valueReference="1"><Dimension start="-1"/></Float64>"#,
    ));
    assert!(
        matches!(&err, Error::InvalidDimensionSize { value, from: None, .. } if value == "-1"),
        "{err:?}"
    );
    assert_message(
        &err,
        &["ModelVariables/Float64[1] 'x'/Dimension[1]: size '-1' is not a non-negative integer"],
    );
    let err = parse_err(&v3_vars(
        r#"<UInt64 name="n" valueReference="2" causality="structuralParameter" variability="fixed" start="-2"/>
           <Float64 name="x" valueReference="1"><Dimension valueReference="2"/></Float64>"#,
    ));
    assert_message(
        &err,
        &["size '-2' (the start value of ModelVariables/UInt64[1] 'n')"],
    );
    let err = parse_err(&v3_vars(
        r#"<Float64 name="x" valueReference="1"><Dimension start="two"/></Float64>"#,
    ));
    assert!(matches!(err, Error::InvalidDimensionSize { .. }), "{err:?}");
    let err = parse_err(&v3_vars(
        r#"<Float64 name="x" valueReference="1"><Dimension/></Float64>"#,
    ));
    assert!(
        matches!(
            &err,
            Error::MissingAttribute {
                attribute: "start or valueReference",
                ..
            }
        ),
        "{err:?}"
    );
    let err = parse_err(&v3_vars(
        r#"<Float64 name="x" valueReference="1"><Dimension start="2" valueReference="1"/></Float64>"#,
    ));
    assert!(
        matches!(
            &err,
            Error::InvalidAttribute {
                attribute: "valueReference",
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn v3_huge_arrays_are_refused_without_allocating() {
    for dimensions in [
        r#"<Dimension start="4294967296"/>"#,
        r#"<Dimension start="18446744073709551615"/><Dimension start="18446744073709551615"/>"#,
        r#"<Dimension start="1000"/><Dimension start="1001"/>"#,
    ] {
        let err = parse_err(&v3_vars(&format!(
            r#"<Float64 name="x" valueReference="1">{dimensions}</Float64>"#
        )));
        assert!(
            matches!(&err, Error::ArrayTooLarge { limit, element, .. }
                if limit.starts_with("1000000 scalars") && element == "ModelVariables/Float64[1] 'x'"),
            "{err:?}"
        );
        assert_message(
            &err,
            &["too large; mastersim handles at most 1000000 scalars per FMU"],
        );
    }
    // Aliases count too, and name themselves.
    let err = parse_err(&v3_vars(
        r#"<Float64 name="x" valueReference="1"><Dimension start="600000"/><Alias name="y"/></Float64>"#,
    ));
    assert!(
        matches!(&err, Error::ArrayTooLarge { element, .. }
            if element == "ModelVariables/Float64[1] 'x'/Alias[1] 'y'"),
        "{err:?}"
    );
    // At most 32 dimensions, even of size 1.
    let err = parse_err(&v3_vars(&format!(
        r#"<Float64 name="x" valueReference="1">{}</Float64>"#,
        r#"<Dimension start="1"/>"#.repeat(33)
    )));
    assert_message(&err, &["32 dimensions per array"]);
    // A long description is copied into every element: memory is bounded too.
    let err = parse_err(&v3_vars(&format!(
        r#"<Float64 name="x" valueReference="1" description="{}"><Dimension start="600000"/></Float64>"#,
        "d".repeat(2000)
    )));
    assert_message(&err, &["1 GiB of scalars per FMU"]);
}

#[test]
fn v3_wrong_number_of_start_values() {
    let err = parse_err(&v3_vars(
        r#"<Float64 name="x" valueReference="1" start="1 2"><Dimension start="3"/></Float64>"#,
    ));
    assert!(
        matches!(&err, Error::StartCount { expected: 3, found: 2, element, .. }
            if element == "ModelVariables/Float64[1] 'x'"),
        "{err:?}"
    );
    assert_message(&err, &["2 start values for 3 elements"]);
    let err = parse_err(&v3_vars(
        r#"<String name="s" valueReference="1"><Dimension start="3"/><Start value="a"/><Start value="b"/></String>"#,
    ));
    assert!(
        matches!(
            err,
            Error::StartCount {
                expected: 3,
                found: 2,
                ..
            }
        ),
        "{err:?}"
    );
    // A scalar has exactly one.
    let err = parse_err(&v3_vars(
        r#"<Int32 name="i" valueReference="1" start="1 2"/>"#,
    ));
    assert_message(&err, &["2 start values for 1 element "]);
}

#[test]
fn v3_bad_binary_start() {
    for bad in ["xyz", "abc", "0x0g"] {
        let err = parse_err(&v3_vars(&format!(
            r#"<Binary name="b" valueReference="1"><Start value="{bad}"/></Binary>"#
        )));
        assert!(
            matches!(&err, Error::InvalidAttribute { element, attribute: "value", value, .. }
                if element == "ModelVariables/Binary[1] 'b'/Start[1]" && value == bad),
            "{err:?}"
        );
        assert_message(&err, &["hexadecimal"]);
    }
}

#[test]
fn v3_duplicate_value_reference_names_both_variables() {
    let err = parse_err(&v3_vars(
        r#"<Float64 name="a" valueReference="1"/><Int32 name="n" valueReference="2"/>
           <Clock name="c" valueReference="1"/>"#,
    ));
    assert!(
        matches!(&err, Error::DuplicateValueReference { element, first, value_reference: 1, .. }
            if element == "ModelVariables/Clock[1] 'c'" && first == "ModelVariables/Float64[1] 'a'"),
        "{err:?}"
    );
    assert_message(&err, &["valueReference 1 already used by"]);
}

#[test]
fn v3_duplicate_names_across_arrays_aliases_and_clocks_are_warnings() {
    let (md, warnings) = parse_warn(&v3_vars(
        r#"<Float64 name="x" valueReference="1"><Dimension start="2"/></Float64>
           <Float64 name="x[2]" valueReference="2"/>"#,
    ));
    assert_eq!(names(&md), ["x[1]", "x[2]", "x[2]"]);
    assert_eq!(
        warnings,
        [
            "modelDescription.xml: variable name 'x[2]' is declared 2 times: \
             ModelVariables/Float64[1] 'x' (Float64, value reference 1), \
             ModelVariables/Float64[2] 'x[2]' (Float64, value reference 2); FMI requires unique \
             names, so all are kept, and a connection, parameter or other reference to 'x[2]' \
             is refused as ambiguous"
        ]
    );
    assert!(matches!(md.lookup("x[2]"), NameLookup::Ambiguous(all) if all.len() == 2));
    let (md, warnings) = parse_warn(&v3_vars(
        r#"<Float64 name="x" valueReference="1"><Alias name="y"/></Float64>
           <Clock name="y" valueReference="2"/>"#,
    ));
    assert_eq!(md.clocks.len(), 1);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains(
            "ModelVariables/Float64[1] 'x'/Alias[1] 'y' (Float64, value reference 1), \
             ModelVariables/Clock[1] 'y' (Clock, value reference 2)"
        ) && warnings[0].contains("refused as ambiguous"),
        "{warnings:?}"
    );
    // An alias named like its own variable is the same value: harmless, still a warning.
    let (md, warnings) = parse_warn(&v3_vars(
        r#"<Float64 name="x" valueReference="1"><Alias name="x"/></Float64>"#,
    ));
    assert!(matches!(md.lookup("x"), NameLookup::Found(v) if v.index == 1));
    assert!(
        warnings[0].ends_with("they are one value (an alias), which 'x' refers to"),
        "{warnings:?}"
    );
}

#[test]
fn v3_bad_capabilities() {
    let err = parse_err(&v3(r#"hasEventMode="yes""#, ""));
    assert!(
        matches!(&err, Error::InvalidAttribute { element, attribute: "hasEventMode", value, .. }
            if element == "CoSimulation" && value == "yes"),
        "{err:?}"
    );
    assert_message(&err, &["true, false, 1 or 0"]);
    for step in ["0", "-1", "inf", "NaN", "fast"] {
        let err = parse_err(&v3(&format!(r#"fixedInternalStepSize="{step}""#), ""));
        assert!(
            matches!(
                &err,
                Error::InvalidAttribute {
                    attribute: "fixedInternalStepSize",
                    ..
                }
            ),
            "{step}: {err:?}"
        );
    }
    let err = parse_err(&v3(r#"maxOutputDerivativeOrder="-1""#, ""));
    assert!(matches!(err, Error::InvalidAttribute { .. }), "{err:?}");
    let err =
        parse_err(&v3_vars("").replace(r#"modelIdentifier="m""#, r#"modelIdentifier="../m""#));
    assert!(
        matches!(
            &err,
            Error::InvalidAttribute {
                attribute: "modelIdentifier",
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn v3_unsupported_versions() {
    for version in ["4.0", "3.1", "3.0.x", "3"] {
        let err = parse_err(
            &v3_vars("").replace(r#"fmiVersion="3.0""#, &format!("fmiVersion=\"{version}\"")),
        );
        assert!(
            matches!(&err, Error::UnsupportedVersion { version: v, .. } if v == version),
            "{err:?}"
        );
        assert_message(&err, &["1.0, 2.0 and 3.0"]);
    }
}

#[test]
fn v3_no_co_simulation() {
    let xml = r#"<fmiModelDescription fmiVersion="3.0" modelName="M" instantiationToken="t">
        <ModelExchange modelIdentifier="m"/><ModelVariables/></fmiModelDescription>"#;
    let err = parse_err(xml);
    assert!(
        matches!(
            err,
            Error::NoCoSimulation {
                version: FmiVersion::V3,
                ..
            }
        ),
        "{err:?}"
    );
    let xml = r#"<fmiModelDescription fmiVersion="3.0" modelName="M" instantiationToken="t">
        <CoSimulation modelIdentifier="m"/></fmiModelDescription>"#;
    assert!(matches!(
        parse_err(xml),
        Error::MissingElement {
            element: "ModelVariables",
            ..
        }
    ));
}

/// Issue 28: an FMU that offers only Scheduled Execution is refused naming that interface,
/// not as "Model-Exchange-only"; read to describe it, it is its Scheduled Execution interface.
#[test]
fn v3_without_co_simulation_names_the_interfaces_it_has() {
    let only = |elements: &str| {
        format!(
            r#"<fmiModelDescription fmiVersion="3.0" modelName="M" instantiationToken="t">
            {elements}<ModelVariables/></fmiModelDescription>"#
        )
    };
    let se = only(r#"<ScheduledExecution modelIdentifier="se"/>"#);
    let err = parse_err(&se);
    assert_message(&err, &["the FMU offers only Scheduled Execution"]);
    assert!(!err.to_string().contains("Model Exchange"), "{err}");
    let md = crate::ModelDescription::parse_any_interface(&se, std::path::Path::new(FILE))
        .expect("describes");
    assert_eq!(md.model_identifier, "se");
    assert_eq!(md.interfaces.names(), ["Scheduled Execution"]);

    let both =
        only(r#"<ModelExchange modelIdentifier="me"/><ScheduledExecution modelIdentifier="se"/>"#);
    assert_message(
        &parse_err(&both),
        &["the FMU offers only Model Exchange and Scheduled Execution"],
    );
    let md = crate::ModelDescription::parse_any_interface(&both, std::path::Path::new(FILE))
        .expect("describes");
    assert_eq!(md.model_identifier, "me");

    let none = only("");
    assert_message(&parse_err(&none), &["no other interface either"]);
    assert!(
        crate::ModelDescription::parse_any_interface(&none, std::path::Path::new(FILE)).is_err()
    );
    // With Co-Simulation, the others are listed too.
    let all = only(
        r#"<CoSimulation modelIdentifier="cs"/><ModelExchange modelIdentifier="me"/><ScheduledExecution modelIdentifier="se"/>"#,
    );
    let md = parse(&all).expect("parses");
    assert_eq!(md.model_identifier, "cs");
    assert_eq!(
        md.interfaces.describe(),
        "Co-Simulation, Model Exchange and Scheduled Execution"
    );
}

#[test]
fn v3_unknown_variable_element() {
    let err = parse_err(&v3_vars(
        r#"<Float64 name="a" valueReference="1"/><ScalarVariable name="b" valueReference="2"><Real/></ScalarVariable>"#,
    ));
    assert!(
        matches!(&err, Error::UnknownVariableElement { element, .. }
            if element == "ModelVariables/ScalarVariable[1]"),
        "{err:?}"
    );
    assert_message(&err, &["not an FMI 3.0 variable element"]);
}

#[test]
fn v3_model_structure_references_that_name_no_variable_are_warnings() {
    let body = r#"<Float64 name="a" valueReference="1"/></ModelVariables>
        <ModelStructure><Output valueReference="1" dependencies="1 9"/>
          <Output valueReference="7"/><InitialUnknown valueReference="1"/></ModelStructure>
        <ModelVariables>"#;
    let (md, warnings) = parse_warn(&v3_vars(body));
    assert_eq!(
        md.outputs,
        [crate::model_description::OutputDependency {
            index: 1,
            dependencies: None
        }]
    );
    assert_eq!(
        warnings,
        [
            "modelDescription.xml: ModelStructure/Output[1]: invalid value '9' of attribute \
             'dependencies' (expected the value reference of a variable in ModelVariables); its \
             dependency list is ignored, as if it depended on every variable (mastersim does not \
             need ModelStructure to run the FMU)",
            "modelDescription.xml: ModelStructure/Output[2]: invalid value '7' of attribute \
             'valueReference' (expected the value reference of a variable in ModelVariables); \
             the entry is ignored (mastersim does not need ModelStructure to run the FMU)"
        ]
    );
    // A missing value reference is still an error.
    let body = r#"<Float64 name="a" valueReference="1"/></ModelVariables>
        <ModelStructure><Output dependencies="1"/></ModelStructure><ModelVariables>"#;
    assert!(matches!(
        parse_err(&v3_vars(body)),
        Error::MissingAttribute {
            attribute: "valueReference",
            ..
        }
    ));
}

#[test]
fn v3_definitions_are_checked() {
    let xml = v3_vars("").replace(
        "<ModelVariables>",
        r#"<UnitDefinitions><Unit name="m"><DisplayUnit name="km" factor="x"/></Unit></UnitDefinitions><ModelVariables>"#,
    );
    let err = parse_err(&xml);
    assert!(
        matches!(&err, Error::InvalidAttribute { element, attribute: "factor", .. }
            if element == "UnitDefinitions/Unit[1] 'm'/DisplayUnit[1]"),
        "{err:?}"
    );
    let xml = v3_vars("").replace(
        "<ModelVariables>",
        r#"<TypeDefinitions><Float64Type unit="m"/></TypeDefinitions><ModelVariables>"#,
    );
    assert_message(
        &parse_err(&xml),
        &["TypeDefinitions/Float64Type[1]: missing attribute 'name'"],
    );
    // An undefined declaredType and an unknown display unit are warnings only.
    let (md, warnings) = parse_warn(&v3_vars(
        r#"<Float64 name="a" valueReference="1" declaredType="Nope" unit="m" displayUnit="furlong"/>"#,
    ));
    assert_eq!(md.variables[0].display_unit.as_deref(), Some("furlong"));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("declaredType 'Nope'"), "{warnings:?}");
}
