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
//!
//! Sizes and kinds of file (`size_cases`): a model description is read only up to 256 MiB
//! (`fmi::model_description::MAX_DESCRIPTION_SIZE`, far above real ones), and only from a
//! regular file. The rows give a 300 MiB description in the archive (a few hundred KiB
//! deflated), one that inflates past the size it declares, and with `--skip-unzip` an
//! extracted one of 1.2 GB (a sparse file), a named pipe and `/dev/zero`; `mastersim info`
//! on the 300 MiB one is `info_refuses_a_huge_model_description`.

use std::time::Duration;

use super::archives::gain_description;
use super::archives::raw_zip::RawZip;
use super::rows::{
    Case, Input, Sandbox, case, check_table, fmu_entries, fmu_project, fmu_project_text,
    patched_entries, replace_once, zip_bytes,
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
        // Model Exchange only (issue 30: run as Model Exchange), but the library has only the
        // co-simulation functions: refused when it is loaded.
        case(
            "missing_co_simulation",
            2,
            "wd/fmus/bad/binaries/linux64/Gain.so",
            "import of FMU",
            &["missing required function 'fmi2SetTime'"],
            gain!(|x| replace_once(x, "<CoSimulation", "<ModelExchange")),
        ),
        case(
            "fmi1_without_implementation",
            2,
            MD,
            "FMI 1.0 Model Exchange is not supported",
            &["mastersim runs FMI 2.0 and 3.0 Model Exchange FMUs"],
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

/// Gain's model description with whitespace inside the root element that makes it
/// `size` bytes long (a valid document of that size).
fn gain_description_of_size(size: usize) -> Vec<u8> {
    let xml = String::from_utf8(gain_description()).expect("UTF-8");
    let end = xml.rfind("</fmiModelDescription>").expect("root end");
    let mut bytes = Vec::with_capacity(size);
    bytes.extend_from_slice(&xml.as_bytes()[..end]);
    bytes.resize(size - (xml.len() - end), b' ');
    bytes.extend_from_slice(&xml.as_bytes()[end..]);
    bytes
}

/// `bad.fmu`: Gain with its model description replaced by `description` (deflated,
/// declaring `declared` bytes), then the other entries stored.
fn gain_with_description(description: &[u8], declared: usize) -> Vec<u8> {
    let mut zip = RawZip::default();
    zip.deflated_declaring("modelDescription.xml", description, declared);
    for (name, bytes) in fmu_entries("Gain") {
        if name != "modelDescription.xml" {
            zip.stored(&name, &bytes);
        }
    }
    zip.finish()
}

/// Gain extracted by hand into `wd/fmus/bad` (as an earlier run would have), with
/// `modelDescription.xml` made by `description` in its place, run with `--skip-unzip`.
fn extracted_gain(s: &Sandbox, description: impl FnOnce(&std::path::Path)) -> Input {
    let entries = fmu_entries("Gain");
    for (name, bytes) in entries.iter().filter(|(n, _)| n != "modelDescription.xml") {
        s.write(&format!("wd/fmus/bad/{name}"), bytes);
    }
    description(&s.dir().join("wd/fmus/bad/modelDescription.xml"));
    s.write("bad.fmu", &zip_bytes(&entries));
    s.project(&fmu_project_text(1)).args(&["--skip-unzip"])
}

/// 300 MiB, more than the 256 MiB limit.
const HUGE: usize = 300 << 20;

fn size_cases() -> Vec<Case> {
    vec![
        case(
            "huge_model_description_in_archive",
            2,
            "bad.fmu/modelDescription.xml",
            "the archive entry declares 314572800 bytes (300 MiB)",
            &[
                "more than the limit of 268435456 bytes (256 MiB) on a model description",
                "it is not read",
            ],
            |s| {
                let fmu = gain_with_description(&gain_description_of_size(HUGE), HUGE);
                s.write("bad.fmu", &fmu);
                s.project(&fmu_project_text(1))
            },
        ),
        case(
            "model_description_larger_than_it_declares",
            2,
            "bad.fmu",
            "archive entry 'modelDescription.xml' is corrupt",
            &["larger than its declared uncompressed size"],
            |s| {
                let xml = gain_description_of_size(1 << 20);
                s.write("bad.fmu", &gain_with_description(&xml, 4096));
                s.project(&fmu_project_text(1))
            },
        ),
        case(
            "huge_extracted_model_description_with_skip_unzip",
            2,
            "wd/fmus/bad/modelDescription.xml",
            "1200000000 bytes (1.1 GiB), more than the limit of 268435456 bytes (256 MiB) on a \
             model description",
            &["it is not read"],
            |s| {
                extracted_gain(s, |path| {
                    // Sparse: a valid start, then a hole; no 1.2 GB are written.
                    let file = std::fs::File::create(path).expect("create");
                    std::io::Write::write_all(&mut &file, &gain_description_of_size(4096))
                        .expect("write");
                    file.set_len(1_200_000_000).expect("set_len");
                })
            },
        ),
        case(
            // Opening a pipe without a writer would wait for ever.
            "extracted_model_description_is_a_named_pipe",
            2,
            "wd/fmus/bad/modelDescription.xml",
            "not a regular file (a named pipe)",
            &["a model description must be a file"],
            |s| {
                extracted_gain(s, |path| {
                    let made = std::process::Command::new("mkfifo")
                        .arg(path)
                        .status()
                        .expect("mkfifo");
                    assert!(made.success());
                })
                .limit(Duration::from_secs(10))
            },
        ),
        case(
            "extracted_model_description_is_dev_zero",
            2,
            "wd/fmus/bad/modelDescription.xml",
            "not a regular file (a character device)",
            &["a model description must be a file"],
            |s| {
                extracted_gain(s, |path| {
                    std::os::unix::fs::symlink("/dev/zero", path).expect("symlink");
                })
                .limit(Duration::from_secs(10))
            },
        ),
    ]
}

#[test]
fn hostile_model_description_sizes() {
    check_table("model description sizes", size_cases());
}

/// `mastersim info` reads the model description straight from the archive: a 300 MiB one is
/// refused from its declared size, before anything is decompressed.
#[test]
fn info_refuses_a_huge_model_description() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let fmu = tmp.path().join("bad.fmu");
    std::fs::write(
        &fmu,
        gain_with_description(&gain_description_of_size(HUGE), HUGE),
    )
    .expect("write");
    let started = std::time::Instant::now();
    let run = mastersim_tests::run_args(&["info", fmu.to_str().expect("UTF-8")]);
    let elapsed = started.elapsed();
    let stderr = run.stderr();
    assert_eq!(run.code(), 2, "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}: the archive entry declares 314572800 bytes (300 MiB), more than the limit of \
             268435456 bytes (256 MiB) on a model description",
            fmu.join("modelDescription.xml").display()
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    // The same FMU at the limit's side: 1 MiB of description is read and shown.
    std::fs::write(
        &fmu,
        gain_with_description(&gain_description_of_size(1 << 20), 1 << 20),
    )
    .expect("write");
    let run = mastersim_tests::run_args(&["info", fmu.to_str().expect("UTF-8")]);
    assert_eq!(run.code(), 0, "{}", run.said());
    assert!(run.stdout().contains("Gain"), "{}", run.stdout());
}
