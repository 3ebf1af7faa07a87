//! FMI 3.0: broken model descriptions and archives, FMUs mastersim refuses on purpose, and
//! project lines that cannot work with FMI 3.0 types and arrays (docs/fmi3.md).
//!
//! Most rows start from the own `AllTypes.fmu` (FMI 3.0 CS, `fmus/all_types`): one input and
//! one output of every type (`int8_in` #5, `int8_out` #6, … `uint64_in` #19, `binary_in` #25
//! with a `<Start value="0001ff7f80"/>`, …), the Float64 arrays `u` #40 and `y` #41 of shape
//! [3], the Int32 arrays `m_in` #42 and `m_out` #43 of shape [2,2], the UInt64 structural
//! parameter `n` #50 (start 3) and the Float64 output `ramp` #51 whose `<Dimension
//! valueReference="50"/>` makes it an array of `n` elements. The fifth Float64 element is
//! `ramp`, the third UInt64 `n`, so errors name them `ModelVariables/Float64[5] 'ramp'` and
//! `ModelVariables/UInt64[3] 'n'`.
//!
//! Model descriptions (`AllTypes.fmu` with a patched `modelDescription.xml`, one slave): a
//! missing `instantiationToken` or `valueReference`, an unknown `causality`, `fmiVersion`
//! `4.0`, a `Dimension` whose `valueReference` names no variable, a Float64, a structural
//! parameter without a start value, an input, an output, a local, a parameter or a discrete
//! structural parameter, a `clocks` attribute that lists an input, nothing, or no value
//! reference at all (and one that lists a clock, which is refused as a clock), a negative
//! `Dimension` size, two start values for an
//! array of three, a Binary start that is not hexadecimal, a value reference used twice, a
//! variable element FMI 3.0 does not have (`Real`), `hasEventMode="maybe"`, no
//! `CoSimulation` element, and unclosed XML. The rows `prerelease_version_accepted` and
//! `scalar_named_like_an_array_element_is_read` are positive controls: `fmiVersion=
//! "3.0-beta.3"` is read as FMI 3.0, and a scalar named like an array element (`u[1]`) is
//! kept (each with a warning), and the runs end with exit code 0; so does
//! `structural_parameter_without_variability_is_read` (read as fixed, with a warning).
//!
//! Refused FMUs: a `Clock` variable in `AllTypes.fmu` (error naming the FMU and the clock); a
//! hand-written FMI 3.0 FMU of a model description alone, with an input clock, which shows
//! that clocks are refused before any library is looked for; `AllTypes.fmu` with its library
//! under FMI 2.0's `binaries/linux64/` instead of `binaries/x86_64-linux/` (error naming the
//! path looked for and the platforms the FMU has), and the hand-written FMU without clocks,
//! which has no `binaries` folder at all.
//!
//! Projects (two slaves of `AllTypes.fmu`, `Source` and `Sink`, lines 1–5; each row appends
//! from line 6, so errors name `bad.msim:6:`): integer connections that could lose data
//! (UInt64 → Int32, Int8 → UInt8), whole-array connections of different shapes and of an
//! array and a scalar, a `parameter` line for the structural parameter `n`, integer
//! parameters outside their type's range (Int8 300, UInt64 -1), a Binary parameter that is
//! not hexadecimal, and a connection to the element `u[7]` of an array of three. The row
//! `valid_base_project` is the positive control: widening integer connections, whole arrays
//! of equal shape, an array element to a scalar, and parameters at the ends of their ranges
//! run with exit code 0.

use super::rows::{
    Case, Input, Sandbox, case, check_table, fmu_entries, fmu_project, patched_entries,
    replace_once,
};

/// Removes the first ` <attribute>="…"` from `xml`.
fn remove_attribute(xml: &str, attribute: &str) -> String {
    let key = format!(" {attribute}=\"");
    let start = xml.find(&key).expect("attribute present");
    let value_start = start + key.len();
    let end = value_start + xml[value_start..].find('"').expect("closing quote") + 1;
    format!("{}{}", &xml[..start], &xml[end..])
}

/// A row whose input is one slave of `AllTypes.fmu` with its XML patched by `patch`.
macro_rules! all_types {
    ($patch:expr) => {
        |s| fmu_project(s, &patched_entries("AllTypes", $patch), 1)
    };
}

/// `AllTypes.fmu` with an extra variable element `variable` at the end of `ModelVariables`.
fn with_variable(xml: &str, variable: &str) -> String {
    replace_once(
        xml,
        "</ModelVariables>",
        &format!("{variable}\n  </ModelVariables>"),
    )
}

/// A hand-written FMI 3.0 co-simulation FMU: a model description alone, no binaries, with
/// one Float64 output and the extra variable elements `more`.
fn bare_fmu(more: &str) -> Vec<(String, Vec<u8>)> {
    let xml = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <fmiModelDescription fmiVersion=\"3.0\" modelName=\"Bare\" \
         instantiationToken=\"{{7d1c3a52-5f0e-4b8e-9d7e-3c1f2a4b5c6d}}\">\n\
         <CoSimulation modelIdentifier=\"Bare\"/>\n\
         <ModelVariables>\n\
         <Float64 name=\"time\" valueReference=\"0\" causality=\"independent\"/>\n\
         <Float64 name=\"y\" valueReference=\"1\" causality=\"output\"/>\n\
         {more}\
         </ModelVariables>\n\
         <ModelStructure><Output valueReference=\"1\"/></ModelStructure>\n\
         </fmiModelDescription>\n"
    );
    vec![("modelDescription.xml".to_owned(), xml.into_bytes())]
}

/// Lines 1–5 of every project row: two slaves of `AllTypes.fmu`.
fn base(s: &Sandbox) -> String {
    s.copy_fmu("AllTypes");
    "tStart 0 s\n\
     tEnd 1 s\n\
     hStart 0.1 s\n\
     simulator 0 0 Source #447cb4 \"fmus/AllTypes.fmu\"\n\
     simulator 1 1 Sink #c38200 \"fmus/AllTypes.fmu\"\n"
        .to_owned()
}

/// The base project with `extra` from line 6 on.
fn with(s: &Sandbox, extra: &str) -> Input {
    s.project(&(base(s) + extra + "\n"))
}

/// A row that appends `$extra` to the base project.
macro_rules! extra {
    ($extra:expr) => {
        |s| with(s, $extra)
    };
}

const MD: &str = "wd/fmus/bad/modelDescription.xml";
const AT6: &str = "bad.msim:6:";

/// Model descriptions, and FMUs refused before or while loading.
fn model_description_cases() -> Vec<Case> {
    vec![
        case(
            "missing_instantiation_token",
            2,
            MD,
            "fmiModelDescription: missing attribute 'instantiationToken'",
            &[],
            all_types!(|x| remove_attribute(x, "instantiationToken")),
        ),
        case(
            "missing_value_reference",
            2,
            MD,
            "ModelVariables/Int8[1] 'int8_in'",
            &["missing attribute 'valueReference'"],
            all_types!(|x| replace_once(
                x,
                "name=\"int8_in\" valueReference=\"5\"",
                "name=\"int8_in\""
            )),
        ),
        case(
            "unknown_causality",
            2,
            MD,
            "ModelVariables/Int8[1] 'int8_in'",
            &[
                "invalid value 'sideways' of attribute 'causality'",
                "local, independent or structuralParameter",
            ],
            all_types!(|x| replace_once(
                x,
                "name=\"int8_in\" valueReference=\"5\" causality=\"input\"",
                "name=\"int8_in\" valueReference=\"5\" causality=\"sideways\""
            )),
        ),
        case(
            "unsupported_fmi_version_4",
            2,
            MD,
            "fmiVersion '4.0' is not supported",
            &["supported: 1.0, 2.0 and 3.0"],
            all_types!(|x| replace_once(x, "fmiVersion=\"3.0\"", "fmiVersion=\"4.0\"")),
        ),
        case(
            // Decided in docs/fmi3.md: a pre-release is read as 3.0, with a warning.
            "prerelease_version_accepted",
            0,
            "",
            "",
            &[],
            all_types!(|x| replace_once(x, "fmiVersion=\"3.0\"", "fmiVersion=\"3.0-beta.3\"")),
        ),
        case(
            "dimension_reference_to_nothing",
            2,
            MD,
            "ModelVariables/Float64[5] 'ramp'/Dimension[1]",
            &["valueReference 99 names no variable"],
            all_types!(|x| replace_once(
                x,
                "<Dimension valueReference=\"50\"/>",
                "<Dimension valueReference=\"99\"/>"
            )),
        ),
        case(
            "dimension_reference_to_float64",
            2,
            MD,
            "ModelVariables/Float64[5] 'ramp'/Dimension[1]",
            &[
                "valueReference 3 names ModelVariables/Float64[1] 'float64_in'",
                "is not of an integer type",
            ],
            all_types!(|x| replace_once(
                x,
                "<Dimension valueReference=\"50\"/>",
                "<Dimension valueReference=\"3\"/>"
            )),
        ),
        case(
            "dimension_parameter_without_start",
            2,
            MD,
            "ModelVariables/Float64[5] 'ramp'/Dimension[1]",
            &[
                "valueReference 50 names ModelVariables/UInt64[3] 'n'",
                "has no start value",
            ],
            all_types!(|x| replace_once(
                x,
                "variability=\"fixed\" start=\"3\"",
                "variability=\"fixed\""
            )),
        ),
        case(
            "dimension_reference_to_an_input",
            2,
            MD,
            "ModelVariables/Float64[5] 'ramp'/Dimension[1]",
            &[
                "valueReference 19 names ModelVariables/UInt64[1] 'uint64_in', which is an input: \
                 its value may change during the run",
                "the size of a dimension is the start value of a scalar integer \
                 structuralParameter or constant",
            ],
            all_types!(|x| replace_once(
                x,
                "<Dimension valueReference=\"50\"/>",
                "<Dimension valueReference=\"19\"/>"
            )),
        ),
        case(
            "dimension_reference_to_an_output",
            2,
            MD,
            "ModelVariables/Float64[5] 'ramp'/Dimension[1]",
            &[
                "names ModelVariables/UInt64[2] 'uint64_out', which is an output, computed by the FMU",
            ],
            all_types!(|x| replace_once(
                x,
                "<Dimension valueReference=\"50\"/>",
                "<Dimension valueReference=\"20\"/>"
            )),
        ),
        case(
            "dimension_reference_to_a_local",
            2,
            MD,
            "ModelVariables/Float64[5] 'ramp'/Dimension[1]",
            &["names ModelVariables/UInt64[3] 'n', which is a local variable, computed by the FMU"],
            all_types!(|x| replace_once(
                x,
                "causality=\"structuralParameter\" variability=\"fixed\" start=\"3\"",
                "causality=\"local\" variability=\"fixed\" start=\"3\""
            )),
        ),
        case(
            "dimension_reference_to_a_parameter",
            2,
            MD,
            "ModelVariables/Float64[5] 'ramp'/Dimension[1]",
            &[
                "names ModelVariables/UInt64[3] 'n', which is a parameter, not a \
                 structuralParameter: it may be set without the array changing its size",
            ],
            all_types!(|x| replace_once(
                x,
                "causality=\"structuralParameter\" variability=\"fixed\" start=\"3\"",
                "causality=\"parameter\" variability=\"fixed\" start=\"3\""
            )),
        ),
        case(
            "dimension_reference_to_a_discrete_structural_parameter",
            2,
            MD,
            "ModelVariables/Float64[5] 'ramp'/Dimension[1]",
            &[
                "which is a structuralParameter of variability discrete or continuous (FMI 3.0 \
               allows fixed or tunable)",
            ],
            all_types!(|x| replace_once(
                x,
                "causality=\"structuralParameter\" variability=\"fixed\" start=\"3\"",
                "causality=\"structuralParameter\" variability=\"discrete\" start=\"3\""
            )),
        ),
        case(
            // Read with a warning, as fixed.
            "structural_parameter_without_variability_is_read",
            0,
            "",
            "",
            &[],
            all_types!(|x| replace_once(
                x,
                "causality=\"structuralParameter\" variability=\"fixed\" start=\"3\"",
                "causality=\"structuralParameter\" start=\"3\""
            )),
        ),
        case(
            "clocks_attribute_names_an_input",
            2,
            MD,
            "ModelVariables/Float64[5] 'ramp': attribute 'clocks' lists valueReference 5",
            &[
                "which names ModelVariables/Int8[1] 'int8_in', not a Clock; it must list Clock variables",
            ],
            all_types!(|x| replace_once(
                x,
                "name=\"ramp\" valueReference=\"51\"",
                "name=\"ramp\" valueReference=\"51\" clocks=\"5\""
            )),
        ),
        case(
            "clocks_attribute_names_nothing",
            2,
            MD,
            "ModelVariables/Float64[5] 'ramp': attribute 'clocks' lists valueReference 99",
            &["which names no variable"],
            all_types!(|x| replace_once(
                x,
                "name=\"ramp\" valueReference=\"51\"",
                "name=\"ramp\" valueReference=\"51\" clocks=\"99\""
            )),
        ),
        case(
            "clocks_attribute_not_value_references",
            2,
            MD,
            "ModelVariables/Float64[5] 'ramp': invalid value 'tick' of attribute 'clocks'",
            &["value references of Clock variables"],
            all_types!(|x| replace_once(
                x,
                "name=\"ramp\" valueReference=\"51\"",
                "name=\"ramp\" valueReference=\"51\" clocks=\"tick\""
            )),
        ),
        case(
            // A `clocks` attribute that names a clock passes; the clock itself is refused.
            "clocks_attribute_names_a_clock",
            2,
            "bad.fmu",
            "Output clock 'tick'",
            &["does not support FMI 3.0 clocks"],
            all_types!(|x| with_variable(
                &replace_once(
                    x,
                    "name=\"ramp\" valueReference=\"51\"",
                    "name=\"ramp\" valueReference=\"51\" clocks=\"70\""
                ),
                "<Clock name=\"tick\" valueReference=\"70\" causality=\"output\" \
                 intervalVariability=\"triggered\"/>"
            )),
        ),
        case(
            "negative_dimension_size",
            2,
            MD,
            "ModelVariables/Float64[3] 'u'/Dimension[1]",
            &["size '-3' is not a non-negative integer"],
            all_types!(|x| replace_once(
                x,
                "start=\"1 -2.5 3.25\">\n      <Dimension start=\"3\"/>",
                "start=\"1 -2.5 3.25\">\n      <Dimension start=\"-3\"/>"
            )),
        ),
        case(
            "wrong_number_of_array_starts",
            2,
            MD,
            "ModelVariables/Float64[3] 'u'",
            &[
                "2 start values for 3 elements",
                "one per element, or one for all",
            ],
            all_types!(|x| replace_once(x, "start=\"1 -2.5 3.25\"", "start=\"1 -2.5\"")),
        ),
        case(
            "binary_start_not_hex",
            2,
            MD,
            "ModelVariables/Binary[1] 'binary_in'/Start[1]",
            &["invalid value '0xzz' of attribute 'value'", "hexadecimal"],
            all_types!(|x| replace_once(
                x,
                "<Start value=\"0001ff7f80\"/>",
                "<Start value=\"0xzz\"/>"
            )),
        ),
        case(
            "duplicate_value_reference",
            2,
            MD,
            "ModelVariables/Int8[2] 'int8_out'",
            &["valueReference 5 already used by ModelVariables/Int8[1] 'int8_in'"],
            all_types!(|x| replace_once(
                x,
                "name=\"int8_out\" valueReference=\"6\"",
                "name=\"int8_out\" valueReference=\"5\""
            )),
        ),
        // A repeated name is a warning, as in FMI 1.0 and 2.0; only a reference to it is
        // refused (`tests/model_quirks.rs`).
        case(
            "scalar_named_like_an_array_element_is_read",
            0,
            "",
            "",
            &[],
            all_types!(|x| with_variable(
                x,
                "<Float64 name=\"u[1]\" valueReference=\"70\" causality=\"local\"/>"
            )),
        ),
        case(
            "fmi2_variable_element",
            2,
            MD,
            "ModelVariables/Real[1]",
            &["not an FMI 3.0 variable element"],
            all_types!(|x| with_variable(
                x,
                "<Real name=\"old\" valueReference=\"70\" causality=\"local\"/>"
            )),
        ),
        case(
            "invalid_boolean_capability",
            2,
            MD,
            "CoSimulation:",
            &[
                "invalid value 'maybe' of attribute 'hasEventMode'",
                "true, false, 1 or 0",
            ],
            all_types!(|x| replace_once(x, "hasEventMode=\"false\"", "hasEventMode=\"maybe\"")),
        ),
        // Model Exchange only (issue 30: run as Model Exchange), but the library has only the
        // co-simulation functions: refused when it is loaded.
        case(
            "model_exchange_only",
            2,
            "wd/fmus/bad/binaries/x86_64-linux/AllTypes.so",
            "import of FMU",
            &["missing required function 'fmi3EnterContinuousTimeMode'"],
            all_types!(|x| replace_once(x, "<CoSimulation", "<ModelExchange")),
        ),
        case(
            "malformed_xml",
            2,
            MD,
            "malformed XML at byte",
            &["ModelVariables"],
            all_types!(|x| replace_once(x, "</ModelVariables>", "")),
        ),
        case(
            "clock_variable",
            2,
            "bad.fmu",
            "Output clock 'tick'",
            &["FMU declares 1 clock(s)", "does not support FMI 3.0 clocks"],
            all_types!(|x| with_variable(
                x,
                "<Clock name=\"tick\" valueReference=\"70\" causality=\"output\" \
                 intervalVariability=\"triggered\"/>"
            )),
        ),
        case(
            // No binaries at all: the clock is refused before a library is looked for.
            "input_clock_refused_before_loading",
            2,
            "bad.fmu",
            "Input clock 'trigger'",
            &["does not support FMI 3.0 clocks"],
            |s| {
                let clock = "<Clock name=\"trigger\" valueReference=\"2\" causality=\"input\" \
                             intervalVariability=\"triggered\"/>\n";
                fmu_project(s, &bare_fmu(clock), 1)
            },
        ),
        case(
            "library_only_for_linux64",
            2,
            "bad.fmu",
            "binaries/x86_64-linux/AllTypes.so: shared library not found",
            &["the FMU only has binaries for: linux64"],
            |s| {
                let entries: Vec<_> = fmu_entries("AllTypes")
                    .into_iter()
                    .map(|(name, bytes)| {
                        let moved = name.replace("binaries/x86_64-linux/", "binaries/linux64/");
                        (moved, bytes)
                    })
                    .collect();
                assert!(
                    entries
                        .iter()
                        .any(|(n, _)| n == "binaries/linux64/AllTypes.so"),
                    "AllTypes.fmu has binaries/x86_64-linux/AllTypes.so"
                );
                fmu_project(s, &entries, 1)
            },
        ),
        case(
            "no_binaries_folder",
            2,
            "bad.fmu",
            "binaries/x86_64-linux/Bare.so: shared library not found",
            &["the FMU has no 'binaries' folder"],
            |s| fmu_project(s, &bare_fmu(""), 1),
        ),
    ]
}

/// Project lines with two slaves of `AllTypes.fmu`.
fn project_cases() -> Vec<Case> {
    vec![
        case(
            // Widening integer connections, whole arrays of equal shape, an element of an
            // array, and parameters at the ends of their ranges are all allowed.
            "valid_base_project",
            0,
            "",
            "",
            &[],
            extra!(
                "graph Source.int8_out Sink.int16_in\n\
                 graph Source.uint32_out Sink.int64_in\n\
                 graph Source.enum_out Sink.enum_in\n\
                 graph Source.y Sink.u\n\
                 graph Source.m_out Sink.m_in\n\
                 graph Source.ramp[3] Sink.float32_in\n\
                 parameter Source.int8_in -128\n\
                 parameter Source.uint64_in 18446744073709551615\n\
                 parameter Source.binary_in 0x0a1B2c"
            ),
        ),
        case(
            "lossy_uint64_to_int32",
            2,
            AT6,
            "connection 'Source.uint64_out' (UInt64) -> 'Sink.int32_in' (Int32) could lose data",
            &["Int32 cannot hold every UInt64 value"],
            extra!("graph Source.uint64_out Sink.int32_in"),
        ),
        case(
            "lossy_int8_to_uint8",
            2,
            AT6,
            "connection 'Source.int8_out' (Int8) -> 'Sink.uint8_in' (UInt8) could lose data",
            &["UInt8 cannot hold every Int8 value"],
            extra!("graph Source.int8_out Sink.uint8_in"),
        ),
        case(
            "arrays_of_different_shapes",
            2,
            AT6,
            "connection 'Source.m_out' (an array of shape [2,2]) -> 'Sink.u' (an array of shape [3])",
            &[
                "arrays connect only to arrays of the same shape",
                "'name[i]'",
            ],
            extra!("graph Source.m_out Sink.u"),
        ),
        case(
            "array_to_scalar",
            2,
            AT6,
            "connection 'Source.y' (an array of shape [3]) -> 'Sink.float64_in' (a scalar)",
            &["arrays connect only to arrays of the same shape"],
            extra!("graph Source.y Sink.float64_in"),
        ),
        case(
            "parameter_for_structural_parameter",
            2,
            AT6,
            "'Sink.n' cannot be set as a parameter",
            &["it is a structural parameter"],
            extra!("parameter Sink.n 4"),
        ),
        case(
            "int8_parameter_out_of_range",
            2,
            AT6,
            "parameter 'Sink.int8_in'",
            &["cannot read '300'", "Int8 (-128 to 127)"],
            extra!("parameter Sink.int8_in 300"),
        ),
        case(
            "uint64_parameter_negative",
            2,
            AT6,
            "parameter 'Sink.uint64_in'",
            &["cannot read '-1'", "UInt64 (0 to 18446744073709551615)"],
            extra!("parameter Sink.uint64_in -1"),
        ),
        case(
            "binary_parameter_not_hex",
            2,
            AT6,
            "parameter 'Sink.binary_in'",
            &["cannot read '0xzz'", "hexadecimal digit pairs"],
            extra!("parameter Sink.binary_in 0xzz"),
        ),
        case(
            "graph_to_array_element_out_of_range",
            2,
            AT6,
            "slave 'Sink' has no variable 'u[7]'",
            &["did you mean 'u[1]'?"],
            extra!("graph Source.float64_out Sink.u[7]"),
        ),
    ]
}

#[test]
fn hostile_fmi3_model_descriptions() {
    check_table("fmi3 model descriptions", model_description_cases());
}

#[test]
fn hostile_fmi3_projects() {
    check_table("fmi3 projects", project_cases());
}
