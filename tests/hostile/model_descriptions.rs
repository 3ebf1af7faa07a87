//! Model descriptions: a patched `modelDescription.xml` in an otherwise valid own FMU
//! (`Gain.fmu`, FMI 2.0: variables #1 u, #2 y, #3 k, #4 offset, #5 amplitude, #6 omega;
//! `Oscillator.fmu`, FMI 1.0: #1 x (Real, vr 1) … #8 steps (Integer, vr 8), #9 positive
//! (Boolean, vr 9)).
//!
//! Shared value references, as decided here and implemented in the fmi crate's model-description
//! conversion (`consistency.rs`): value references are unique per base type only, so a Real and
//! an Integer may share one (the own FourVars-style FMUs rely on it). In FMI 1.0 an
//! `alias`/`negatedAlias` variable needs a non-alias base variable of the *same* type with its
//! value reference; when the only variable with that value reference has another type, the error
//! names both (when no variable has it, the alias is read with a warning). In FMI 2.0, Integer and Enumeration share the Integer value-reference space, so an
//! Integer and an Enumeration with one value reference are aliases of one `fmi2Integer` value:
//! legal and accepted whatever their declared types (row `v2_integer_and_enumeration_share_a_vr`
//! runs with exit code 0).

use super::rows::{
    Case, case, check_table, fmu_entries, fmu_project, patched_entries, replace_once,
};

/// Removes the first ` <attribute>="…"` from `xml`.
fn remove_attribute(xml: &str, attribute: &str) -> String {
    let key = format!(" {attribute}=\"");
    let start = xml.find(&key).expect("attribute present");
    let value_start = start + key.len();
    let end = value_start + xml[value_start..].find('"').expect("closing quote") + 1;
    format!("{}{}", &xml[..start], &xml[end..])
}

/// A row whose input is `Gain.fmu` with its XML patched by `patch`.
macro_rules! gain {
    ($patch:expr) => {
        |s| fmu_project(s, &patched_entries("Gain", $patch), 1)
    };
}

/// A row whose input is `Oscillator.fmu` (FMI 1.0) with its XML patched by `patch`.
macro_rules! oscillator {
    ($patch:expr) => {
        |s| fmu_project(s, &patched_entries("Oscillator", $patch), 1)
    };
}

const MD: &str = "wd/fmus/bad/modelDescription.xml";

fn cases() -> Vec<Case> {
    vec![
        case(
            "malformed_xml",
            2,
            MD,
            "malformed XML at byte",
            &["expected `</ModelVariables>`"],
            gain!(|x| replace_once(x, "</ModelVariables>", "")),
        ),
        case(
            "empty_model_description",
            2,
            MD,
            "malformed XML",
            &["the document has no root element"],
            gain!(|_| String::new()),
        ),
        case(
            "not_utf8",
            2,
            MD,
            "malformed XML at byte",
            &["not valid UTF-8"],
            |s| {
                let mut entries = fmu_entries("Gain");
                for (name, bytes) in &mut entries {
                    if name == "modelDescription.xml" {
                        let at = bytes.windows(4).position(|w| w == b"Gain").expect("name");
                        bytes[at] = 0xff;
                    }
                }
                fmu_project(s, &entries, 1)
            },
        ),
        case(
            "entity_expansion_bomb",
            2,
            MD,
            "malformed XML",
            &["lol4"],
            gain!(|x| {
                let doctype = "<!DOCTYPE fmiModelDescription [\n\
                    <!ENTITY lol \"lollollollollollollollollollol\">\n\
                    <!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n\
                    <!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">\n\
                    <!ENTITY lol4 \"&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;\">\n\
                    ]>\n<fmiModelDescription";
                replace_once(x, "<fmiModelDescription", doctype).replacen(
                    "description=\"Static",
                    "description=\"&lol4; Static",
                    1,
                )
            }),
        ),
        case(
            "wrong_root_element",
            2,
            MD,
            "expected root element 'fmiModelDescription', found 'fmuDescription'",
            &[],
            gain!(|x| x.replace("fmiModelDescription", "fmuDescription")),
        ),
        case(
            "missing_fmi_version",
            2,
            MD,
            "fmiModelDescription: missing attribute 'fmiVersion'",
            &[],
            gain!(|x| remove_attribute(x, "fmiVersion")),
        ),
        case(
            "missing_guid",
            2,
            MD,
            "fmiModelDescription: missing attribute 'guid'",
            &[],
            gain!(|x| remove_attribute(x, "guid")),
        ),
        case(
            "missing_model_name",
            2,
            MD,
            "fmiModelDescription: missing attribute 'modelName'",
            &[],
            gain!(|x| remove_attribute(x, "modelName")),
        ),
        case(
            "unsupported_fmi_version_4_of_an_fmi2_file",
            2,
            MD,
            "fmiVersion '4.0' is not supported",
            &["supported: 1.0, 2.0 and 3.0"],
            gain!(|x| replace_once(x, "fmiVersion=\"2.0\"", "fmiVersion=\"4.0\"")),
        ),
        case(
            "variable_without_value_reference",
            2,
            MD,
            "ScalarVariable #3 'k'",
            &["missing attribute 'valueReference'"],
            gain!(|x| replace_once(x, "name=\"k\" valueReference=\"3\"", "name=\"k\"")),
        ),
        case(
            "variable_without_name",
            2,
            MD,
            "ScalarVariable #3:",
            &["missing attribute 'name'"],
            gain!(|x| replace_once(x, "name=\"k\" valueReference=\"3\"", "valueReference=\"3\"")),
        ),
        case(
            "negative_value_reference",
            2,
            MD,
            "ScalarVariable #3 'k'",
            &[
                "invalid value '-3' of attribute 'valueReference'",
                "unsigned 32-bit integer",
            ],
            gain!(|x| replace_once(x, "valueReference=\"3\"", "valueReference=\"-3\"")),
        ),
        case(
            "unknown_causality",
            2,
            MD,
            "ScalarVariable #1 'u'",
            &[
                "invalid value 'sideways' of attribute 'causality'",
                "parameter, calculatedParameter, input, output, local or independent",
            ],
            gain!(|x| replace_once(x, "causality=\"input\"", "causality=\"sideways\"")),
        ),
        case(
            "bad_boolean_capability",
            2,
            MD,
            "CoSimulation:",
            &[
                "invalid value 'yes' of attribute 'canGetAndSetFMUstate'",
                "true or false",
            ],
            gain!(|x| replace_once(
                x,
                "canGetAndSetFMUstate=\"true\"",
                "canGetAndSetFMUstate=\"yes\""
            )),
        ),
        // A default experiment only suggests settings: a value that is not a number is ignored
        // with a warning (`tests/model_quirks.rs` checks the warning).
        case(
            "default_experiment_value_not_a_number_is_ignored",
            0,
            "",
            "",
            &[],
            gain!(|x| replace_once(x, "stepSize=\"0.1\"", "stepSize=\"fast\"")),
        ),
        case(
            "missing_co_simulation",
            2,
            MD,
            "no 'CoSimulation' element",
            &["Model-Exchange-only FMUs are not supported"],
            gain!(|x| replace_once(x, "<CoSimulation", "<ModelExchange")),
        ),
        case(
            "fmi1_without_implementation",
            2,
            MD,
            "FMI 1.0 Model Exchange FMU",
            &["no 'Implementation' element"],
            oscillator!(|x| {
                let start = x.find("<Implementation>").expect("Implementation");
                let end = x.find("</Implementation>").expect("end") + "</Implementation>".len();
                format!("{}{}", &x[..start], &x[end..])
            }),
        ),
        case(
            "missing_model_variables",
            2,
            MD,
            "fmiModelDescription: missing element 'ModelVariables'",
            &[],
            gain!(|x| x.replace("ModelVariables>", "ModelVariablez>")),
        ),
        case(
            "variable_without_type_element",
            2,
            MD,
            "ScalarVariable #3 'k'",
            &["expected exactly one type element", "found none"],
            gain!(|x| replace_once(x, "<Real start=\"1\"/>", "")),
        ),
        case(
            "variable_with_two_type_elements",
            2,
            MD,
            "ScalarVariable #3 'k'",
            &["expected exactly one type element", "found Real, Integer"],
            gain!(|x| replace_once(x, "<Real start=\"1\"/>", "<Real start=\"1\"/><Integer/>")),
        ),
        // A repeated variable name is a warning; only a reference to it is refused
        // (`tests/model_quirks.rs`).
        case(
            "duplicate_variable_name_is_read",
            0,
            "",
            "",
            &[],
            gain!(|x| replace_once(x, "name=\"offset\"", "name=\"k\"")),
        ),
        // mastersim does not need ModelStructure: an entry naming no variable is ignored.
        case(
            "output_dependency_out_of_range_is_ignored",
            0,
            "",
            "",
            &[],
            gain!(|x| replace_once(
                x,
                "<Unknown index=\"2\" dependencies=\"1\"/>",
                "<Unknown index=\"99\" dependencies=\"1\"/>"
            )),
        ),
        case(
            "fmi1_alias_of_a_variable_of_another_type",
            2,
            MD,
            "ScalarVariable #8 'steps' (Integer)",
            &[
                "alias=\"alias\" of value reference 1",
                "ScalarVariable #1 'x' with this value reference is Real",
            ],
            oscillator!(|x| replace_once(
                x,
                "name=\"steps\" valueReference=\"8\"",
                "name=\"steps\" valueReference=\"1\" alias=\"alias\""
            )),
        ),
        // An alias without any base variable is read through its value reference, which the
        // FMU serves (a warning; `tests/model_quirks.rs`).
        case(
            "fmi1_alias_without_base_is_read",
            0,
            "",
            "",
            &[],
            oscillator!(|x| replace_once(
                x,
                "name=\"positive\" valueReference=\"9\"",
                "name=\"positive\" valueReference=\"9\" alias=\"negatedAlias\""
            )),
        ),
        case(
            "v2_integer_and_enumeration_share_a_vr",
            0,
            "",
            "",
            &[],
            |s| {
                // FourVars' VInteger has value reference 2; an Enumeration alias of it is legal.
                let entries = patched_entries("FourVars", |x| {
                    replace_once(
                        x,
                        "</ModelVariables>",
                        "<ScalarVariable name=\"mode\" valueReference=\"2\" causality=\"output\" \
                         variability=\"discrete\" initial=\"calculated\">\
                         <Enumeration declaredType=\"Mode\"/></ScalarVariable></ModelVariables>",
                    )
                    .replacen(
                        "<ModelVariables>",
                        "<TypeDefinitions><SimpleType name=\"Mode\"><Enumeration>\
                         <Item name=\"a\" value=\"1\"/></Enumeration></SimpleType>\
                         </TypeDefinitions><ModelVariables>",
                        1,
                    )
                });
                fmu_project(s, &entries, 1)
            },
        ),
    ]
}

#[test]
fn hostile_model_descriptions() {
    check_table("model descriptions", cases());
}
