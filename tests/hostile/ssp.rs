//! SSP systems (docs/ssp.md): broken and hostile `.ssd`, `.ssv` and `.ssm` files and `.ssp`
//! archives, and valid SSP that mastersim refuses on purpose, each for SSP 1.0 and for SSP
//! 2.0 files.
//!
//! Every row starts from one small valid system, [`BASE_SSD`] in a folder of its own
//! (`sys/SystemStructure.ssd`, run as the folder): two `Scale` FMUs (`y = k·u + offset`),
//! `Source` and `Sink`, with `Source.y` (km/h) connected to `Sink.u` (m/s) through a linear
//! transformation, `Source.u` bound from `params.ssv`, and `Sink.k` from an inline parameter
//! set. The table runs twice: with the base as written (SSP 1.0) and with every `version`
//! saying 2.0 ([`base_ssd`], [`base_ssv`]). The row `valid_base_system` runs it unchanged
//! (exit 0), and `valid_base_archive` runs it packed as a `.ssp`: both are positive controls.
//! Each other row changes one thing and must end with exit code 2 and one error line naming
//! the file and the element (or line).
//!
//! The rows cover archives (zip slip, an absolute entry, no `SystemStructure.ssd`, not a zip),
//! missing or malformed referenced files (`.ssv`, `.ssm`, a nested `.ssd`, the FMU), a cycle of
//! nested system files, references to nothing (element, connector, unit, FMU variable,
//! enumeration), type and unit-dimension mismatches, an input driven twice, malformed numbers
//! and XML, an SSP version that is neither 1 nor 2, and the refused elements (signal
//! dictionaries of other formats, non-FMU components, model exchange, remote sources, an
//! unknown `--parameter-set`). The rows of `ssp/ambiguous.rs` add the ambiguous variants of
//! the quirks that `tests/ssp/quirks.rs` accepts, and what SSP 2.0 adds that is refused.

mod ambiguous;

use super::rows::{Case, Input, Sandbox, case, check_table, replace_once, zip_bytes};

/// The valid system every row starts from. Line numbers matter: rows name them.
const BASE_SSD: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription name="base" version="1.0"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues">
  <ssd:System name="Base">
    <ssd:Elements>
      <ssd:Component name="Source" source="fmus/Scale.fmu">
        <ssd:Connectors>
          <ssd:Connector name="y" kind="output"><ssc:Real unit="km/h"/></ssd:Connector>
        </ssd:Connectors>
        <ssd:ParameterBindings>
          <ssd:ParameterBinding source="params.ssv"/>
        </ssd:ParameterBindings>
      </ssd:Component>
      <ssd:Component name="Sink" source="fmus/Scale.fmu">
        <ssd:Connectors>
          <ssd:Connector name="u" kind="input"><ssc:Real unit="m/s"/></ssd:Connector>
        </ssd:Connectors>
        <ssd:ParameterBindings>
          <ssd:ParameterBinding>
            <ssd:ParameterValues>
              <ssv:ParameterSet version="1.0" name="sink">
                <ssv:Parameters>
                  <ssv:Parameter name="k"><ssv:Real value="2"/></ssv:Parameter>
                </ssv:Parameters>
              </ssv:ParameterSet>
            </ssd:ParameterValues>
          </ssd:ParameterBinding>
        </ssd:ParameterBindings>
      </ssd:Component>
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="Source" startConnector="y" endElement="Sink" endConnector="u">
        <ssc:LinearTransformation factor="1" offset="0"/>
      </ssd:Connection>
    </ssd:Connections>
  </ssd:System>
  <ssd:Units>
    <ssc:Unit name="km/h"><ssc:BaseUnit m="1" s="-1" factor="0.2777777777777778"/></ssc:Unit>
    <ssc:Unit name="m/s"><ssc:BaseUnit m="1" s="-1"/></ssc:Unit>
    <ssc:Unit name="K"><ssc:BaseUnit K="1"/></ssc:Unit>
  </ssd:Units>
  <ssd:DefaultExperiment startTime="0" stopTime="1"/>
</ssd:SystemStructureDescription>
"#;

/// The `.ssv` file the base binds to `Source`.
const BASE_SSV: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<ssv:ParameterSet version="1.0" name="source"
    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues">
  <ssv:Parameters>
    <ssv:Parameter name="u"><ssv:Real value="36"/></ssv:Parameter>
  </ssv:Parameters>
</ssv:ParameterSet>
"#;

/// The base system in the SSP release `V2` (2.0) or 1.0: for SSP 2.0 the root and the inline
/// parameter set say `version="2.0"`.
fn base_ssd<const V2: bool>() -> String {
    if V2 {
        BASE_SSD
            .replace(
                "name=\"base\" version=\"1.0\"",
                "name=\"base\" version=\"2.0\"",
            )
            .replace(
                "ParameterSet version=\"1.0\"",
                "ParameterSet version=\"2.0\"",
            )
    } else {
        BASE_SSD.to_owned()
    }
}

/// The base `.ssv` file in the SSP release `V2` (2.0) or 1.0.
fn base_ssv<const V2: bool>() -> String {
    if V2 {
        BASE_SSV.replace(
            "ParameterSet version=\"1.0\"",
            "ParameterSet version=\"2.0\"",
        )
    } else {
        BASE_SSV.to_owned()
    }
}

/// The version the base says: `"2.0"` or `"1.0"`.
fn version<const V2: bool>() -> &'static str {
    if V2 { "2.0" } else { "1.0" }
}

/// Copies the own packed FMU `model` into the folder of the system, `sys/fmus/<model>.fmu`.
fn copy_fmu(s: &Sandbox, model: &str) {
    s.write(
        &format!("sys/fmus/{model}.fmu"),
        &super::rows::packed_fmu(model),
    );
}

/// Copies `Scale.fmu` into `sys/fmus/` and writes `sys/SystemStructure.ssd` (the base passed through `patch`)
/// and `sys/params.ssv`; returns the folder.
fn system<const V2: bool>(s: &Sandbox, patch: impl Fn(&str) -> String) -> std::path::PathBuf {
    copy_fmu(s, "Scale");
    let ssd = patch(&base_ssd::<V2>());
    s.write("sys/SystemStructure.ssd", ssd.as_bytes());
    s.write("sys/params.ssv", base_ssv::<V2>().as_bytes());
    s.dir().join("sys")
}

/// A row that runs the base folder with `from` replaced by `to` (once) in its SSD.
macro_rules! patch {
    ($from:expr, $to:expr) => {
        |s| Input::project(system::<V2>(s, |ssd| replace_once(ssd, $from, $to)))
    };
}
use patch;

/// The base system packed as `sys.ssp` (SSD and `.ssv` at the top, the FMU in `resources/`)
/// with the extra `entries`.
fn archive<const V2: bool>(s: &Sandbox, entries: &[(&str, &[u8])]) -> Input {
    assert_eq!(BASE_SSD.matches("fmus/Scale.fmu").count(), 2);
    let ssd = base_ssd::<V2>().replace("fmus/Scale.fmu", "resources/Scale.fmu");
    let mut all = vec![
        ("SystemStructure.ssd".to_owned(), ssd.into_bytes()),
        ("params.ssv".to_owned(), base_ssv::<V2>().into_bytes()),
        (
            "resources/Scale.fmu".to_owned(),
            super::rows::packed_fmu("Scale"),
        ),
    ];
    all.extend(entries.iter().map(|(n, b)| ((*n).to_owned(), b.to_vec())));
    Input::project(s.write("sys.ssp", &zip_bytes(&all)))
}

/// An unsupported or broken element inserted before the base's `</ssd:Elements>`.
fn with_element<const V2: bool>(s: &Sandbox, element: &str) -> Input {
    Input::project(system::<V2>(s, |ssd| {
        replace_once(
            ssd,
            "    </ssd:Elements>",
            &format!("{element}\n    </ssd:Elements>"),
        )
    }))
}

/// Another connection inserted before the base's `</ssd:Connections>`.
fn with_connection<const V2: bool>(s: &Sandbox, connection: &str) -> Input {
    Input::project(system::<V2>(s, |ssd| {
        replace_once(
            ssd,
            "    </ssd:Connections>",
            &format!("      {connection}\n    </ssd:Connections>"),
        )
    }))
}

const SSD: &str = "sys/SystemStructure.ssd";

fn cases<const V2: bool>() -> Vec<Case> {
    vec![
        case("valid_base_system", 0, "", "", &[], |s| {
            Input::project(system::<V2>(s, str::to_owned))
        }),
        case("valid_base_archive", 0, "", "", &[], |s| {
            archive::<V2>(s, &[])
        }),
        // Archives.
        case(
            "zip_slip_in_archive",
            2,
            "sys.ssp",
            "../",
            &["leaves the target directory"],
            |s| {
                let target = s.outside().join(s.unique_name("ssp-slip"));
                let name = format!("../../{}", target.file_name().unwrap().to_string_lossy());
                let name: &'static str = Box::leak(name.into_boxed_str());
                archive::<V2>(s, &[(name, b"escaped")]).must_not_create(target)
            },
        ),
        case(
            "absolute_path_in_archive",
            2,
            "sys.ssp",
            "/tmp/",
            &["absolute"],
            |s| {
                let target = std::env::temp_dir().join(s.unique_name("ssp-absolute"));
                let name: &'static str =
                    Box::leak(target.to_string_lossy().into_owned().into_boxed_str());
                archive::<V2>(s, &[(name, b"escaped")]).must_not_create(target)
            },
        ),
        case(
            "archive_without_ssd",
            2,
            "sys.ssp",
            "SystemStructure.ssd",
            &["holds no"],
            |s| {
                let entries = vec![("params.ssv".to_owned(), base_ssv::<V2>().into_bytes())];
                Input::project(s.write("sys.ssp", &zip_bytes(&entries)))
            },
        ),
        case("archive_not_a_zip", 2, "sys.ssp", "zip", &[], |s| {
            Input::project(s.write("sys.ssp", b"<ssd:SystemStructureDescription/>"))
        }),
        // Referenced files.
        case(
            "missing_ssv",
            2,
            SSD,
            "ParameterBinding",
            &["params.ssv", "does not exist"],
            |s| {
                let dir = system::<V2>(s, str::to_owned);
                std::fs::remove_file(dir.join("params.ssv")).expect("remove .ssv");
                Input::project(dir)
            },
        ),
        case(
            "malformed_ssv",
            2,
            "sys/params.ssv:6",
            "malformed XML",
            &["</ssv:Parameters>"],
            |s| {
                let dir = system::<V2>(s, str::to_owned);
                s.write(
                    "sys/params.ssv",
                    replace_once(&base_ssv::<V2>(), "</ssv:Parameters>", "</ssv:Parameter>")
                        .as_bytes(),
                );
                Input::project(dir)
            },
        ),
        case(
            "missing_ssm",
            2,
            SSD,
            "ParameterBinding/ParameterMapping",
            &["gain.ssm", "does not exist"],
            patch!(
                "<ssd:ParameterBinding source=\"params.ssv\"/>",
                "<ssd:ParameterBinding source=\"params.ssv\">\
                 <ssd:ParameterMapping source=\"gain.ssm\"/></ssd:ParameterBinding>"
            ),
        ),
        case(
            "missing_fmu",
            2,
            SSD,
            "Component 'Sink'",
            &["Missing.fmu"],
            patch!(
                "name=\"Sink\" source=\"fmus/Scale.fmu\"",
                "name=\"Sink\" source=\"fmus/Missing.fmu\""
            ),
        ),
        case(
            "missing_nested_ssd",
            2,
            SSD,
            "Component 'Sub'",
            &["sub.ssd", "does not exist"],
            |s| {
                with_element::<V2>(
                    s,
                    "      <ssd:Component name=\"Sub\" source=\"sub.ssd\" \
                     type=\"application/x-ssp-definition\"/>",
                )
            },
        ),
        case(
            "cycle_of_nested_system_files",
            2,
            "sys/",
            "Component 'Back'",
            &["cycle"],
            |s| {
                let input = with_element::<V2>(
                    s,
                    "      <ssd:Component name=\"Sub\" source=\"sub.ssd\" \
                     type=\"application/x-ssp-definition\"/>",
                );
                s.write(
                    "sys/sub.ssd",
                    br#"<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription name="sub" version="1.0"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription">
  <ssd:System name="Sub">
    <ssd:Elements>
      <ssd:Component name="Back" source="SystemStructure.ssd" type="application/x-ssp-definition"/>
    </ssd:Elements>
  </ssd:System>
</ssd:SystemStructureDescription>
"#,
                );
                input
            },
        ),
        // References to nothing.
        case(
            "connection_to_unknown_connector",
            2,
            SSD,
            "Connection",
            &["'Sink.v'", "does not exist"],
            patch!("endConnector=\"u\"", "endConnector=\"v\""),
        ),
        case(
            "connection_to_unknown_element",
            2,
            SSD,
            "Connection",
            &["Drain"],
            patch!("endElement=\"Sink\"", "endElement=\"Drain\""),
        ),
        case(
            "connector_names_no_fmu_variable",
            2,
            SSD,
            "Connector 'w'",
            &["Scale"],
            patch!(
                "<ssd:Connector name=\"u\" kind=\"input\"><ssc:Real unit=\"m/s\"/></ssd:Connector>",
                "<ssd:Connector name=\"u\" kind=\"input\"><ssc:Real unit=\"m/s\"/></ssd:Connector>\n\
                 <ssd:Connector name=\"w\" kind=\"input\"><ssc:Real/></ssd:Connector>"
            ),
        ),
        case(
            "unknown_unit",
            2,
            SSD,
            "Connector 'u'",
            &["furlong/fortnight"],
            patch!("unit=\"m/s\"", "unit=\"furlong/fortnight\""),
        ),
        case(
            "unknown_parameter_set",
            2,
            "--parameter-set",
            "nosuchset",
            &[],
            |s| {
                Input::project(system::<V2>(s, str::to_owned))
                    .args(&["--parameter-set", "nosuchset"])
            },
        ),
        // Types and units.
        case(
            "connector_type_differs_from_fmu_variable",
            2,
            SSD,
            "Connector 'u'",
            &["Integer", "Float64"],
            patch!("<ssc:Real unit=\"m/s\"/>", "<ssc:Integer/>"),
        ),
        case(
            "connection_between_different_types",
            2,
            SSD,
            "Connection",
            &["Real", "Boolean"],
            |s| {
                copy_fmu(s, "FourVarsFeedThrough");
                let flags = "      <ssd:Component name=\"Flags\" source=\"fmus/FourVarsFeedThrough.fmu\">\n\
                 <ssd:Connectors><ssd:Connector name=\"InBool\" kind=\"input\"><ssc:Boolean/>\
                 </ssd:Connector></ssd:Connectors></ssd:Component>";
                let connection = "<ssd:Connection startElement=\"Source\" startConnector=\"y\" \
                                  endElement=\"Flags\" endConnector=\"InBool\"/>";
                Input::project(system::<V2>(s, |ssd| {
                    let ssd = replace_once(
                        ssd,
                        "    </ssd:Elements>",
                        &format!("{flags}\n    </ssd:Elements>"),
                    );
                    replace_once(
                        &ssd,
                        "    </ssd:Connections>",
                        &format!("      {connection}\n    </ssd:Connections>"),
                    )
                }))
            },
        ),
        case(
            "unit_dimensions_differ",
            2,
            SSD,
            "Connection",
            &["km/h", "K"],
            patch!("unit=\"m/s\"", "unit=\"K\""),
        ),
        case(
            "parameter_value_of_the_wrong_type",
            2,
            SSD,
            "Parameter 'k'",
            &["Boolean"],
            patch!("<ssv:Real value=\"2\"/>", "<ssv:Boolean value=\"true\"/>"),
        ),
        case(
            "input_driven_twice",
            2,
            SSD,
            "Connection",
            &["'Sink.u'"],
            |s| {
                with_connection::<V2>(
                    s,
                    "<ssd:Connection startElement=\"Source\" startConnector=\"y\" \
                     endElement=\"Sink\" endConnector=\"u\"/>",
                )
            },
        ),
        // Malformed text.
        case(
            "malformed_xml",
            2,
            "sys/SystemStructure.ssd:8",
            "malformed XML",
            &[],
            patch!("    <ssd:Elements>\n", "    <ssd:Elements\n"),
        ),
        case(
            "factor_not_a_number",
            2,
            SSD,
            "LinearTransformation",
            &["factor", "abc"],
            patch!("factor=\"1\"", "factor=\"abc\""),
        ),
        case(
            "negative_base_step",
            2,
            SSD,
            "FixedStepAlgorithm",
            &["expected > 0"],
            patch!(
                "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"1\"/>",
                "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"1\"><ssd:Annotations>\
                 <ssc:Annotation type=\"com.opensimulationplatform\"><osp:Algorithm \
                 xmlns:osp=\"http://opensimulationplatform.com/SSP/OSPAnnotations\">\
                 <osp:FixedStepAlgorithm baseStepSize=\"-0.1\"/></osp:Algorithm>\
                 </ssc:Annotation></ssd:Annotations></ssd:DefaultExperiment>"
            ),
        ),
        case(
            "unsupported_ssp_version",
            2,
            SSD,
            "SystemStructureDescription",
            &["version=\"3.0\"", "only SSP 1.0 and 2.0"],
            |s| {
                Input::project(system::<V2>(s, |ssd| {
                    let from = format!("name=\"base\" version=\"{}\"", version::<V2>());
                    replace_once(ssd, &from, "name=\"base\" version=\"3.0\"")
                }))
            },
        ),
        case(
            "duplicate_element_name",
            2,
            SSD,
            "'Sink'",
            &["second"],
            |s| {
                with_element::<V2>(
                    s,
                    "      <ssd:Component name=\"Sink\" source=\"fmus/Scale.fmu\"/>",
                )
            },
        ),
        // Refused on purpose.
        case(
            "signal_dictionary_of_another_format_refused",
            2,
            SSD,
            "SignalDictionary 'd'",
            &["text/csv", "only SSP signal dictionaries"],
            patch!(
                "  </ssd:System>",
                "    <ssd:SignalDictionaries><ssd:SignalDictionary name=\"d\" type=\"text/csv\" \
                 source=\"d.csv\"/></ssd:SignalDictionaries>\n  </ssd:System>"
            ),
        ),
        case(
            "binary_connector_on_a_real_variable",
            2,
            SSD,
            "Connector 'u'",
            &["Binary", "Float64"],
            patch!("<ssc:Real unit=\"m/s\"/>", "<ssc:Binary/>"),
        ),
        case(
            "non_fmu_component_refused",
            2,
            SSD,
            "Component 'Table'",
            &["text/csv"],
            |s| {
                with_element::<V2>(
                    s,
                    "      <ssd:Component name=\"Table\" source=\"table.csv\" type=\"text/csv\"/>",
                )
            },
        ),
        case(
            "model_exchange_of_a_co_simulation_fmu_refused",
            2,
            SSD,
            "slave 'Sink'",
            &["has no ModelExchange interface"],
            patch!(
                "name=\"Sink\" source=\"fmus/Scale.fmu\"",
                "name=\"Sink\" source=\"fmus/Scale.fmu\" implementation=\"ModelExchange\""
            ),
        ),
        case(
            "remote_parameter_source_refused",
            2,
            SSD,
            "ParameterBinding",
            &["http://example.com/params.ssv", "only local files"],
            patch!(
                "source=\"params.ssv\"",
                "source=\"http://example.com/params.ssv\""
            ),
        ),
    ]
}

/// The message of a reference that leads outside the system's folder.
const OUTSIDE: &str = "refers to a file outside the SSP";

/// References that lead outside the folder or archive: the base with one `source` changed,
/// each aiming at a file that exists outside (a copy of the FMU, the sentinel file, a `.ssv`
/// with a secret that no message may echo). Positive controls: the same with
/// `--allow-outside-references`, and a `..` that stays inside.
fn outside_cases<const V2: bool>() -> Vec<Case> {
    /// A `.ssv` beside the system's folder, holding a secret in place of XML.
    fn secret(s: &Sandbox) {
        s.write("secret.ssv", b"the secret key is 1234\n");
    }
    vec![
        case(
            "fmu_in_the_parent_folder",
            2,
            SSD,
            "Component 'Source'",
            &[
                OUTSIDE,
                "source=\"../Scale.fmu\"",
                "--allow-outside-references",
            ],
            |s| {
                s.write("Scale.fmu", &super::rows::packed_fmu("Scale"));
                Input::project(system::<V2>(s, |ssd| {
                    ssd.replacen("source=\"fmus/Scale.fmu\"", "source=\"../Scale.fmu\"", 1)
                }))
            },
        ),
        case(
            "fmu_by_absolute_path",
            2,
            SSD,
            "Component 'Sink'",
            &[OUTSIDE],
            |s| {
                let fmu = s.write("elsewhere/Scale.fmu", &super::rows::packed_fmu("Scale"));
                let to = format!("name=\"Sink\" source=\"{}\"", fmu.display());
                Input::project(system::<V2>(s, |ssd| {
                    replace_once(ssd, "name=\"Sink\" source=\"fmus/Scale.fmu\"", &to)
                }))
            },
        ),
        case(
            "fmu_by_file_uri",
            2,
            SSD,
            "Component 'Sink'",
            &[OUTSIDE, "file:///"],
            |s| {
                let fmu = s.write("elsewhere/Scale.fmu", &super::rows::packed_fmu("Scale"));
                let to = format!("name=\"Sink\" source=\"file://{}\"", fmu.display());
                Input::project(system::<V2>(s, |ssd| {
                    replace_once(ssd, "name=\"Sink\" source=\"fmus/Scale.fmu\"", &to)
                }))
            },
        ),
        case(
            "parameter_values_outside_are_not_read",
            2,
            SSD,
            "ParameterBinding",
            &[OUTSIDE, "../secret.ssv"],
            |s| {
                secret(s);
                Input::project(system::<V2>(s, |ssd| {
                    replace_once(ssd, "source=\"params.ssv\"", "source=\"../secret.ssv\"")
                }))
            },
        ),
        case(
            "parameter_values_from_the_sentinel",
            2,
            SSD,
            "ParameterBinding",
            &[OUTSIDE],
            patch!(
                "source=\"params.ssv\"",
                "source=\"file:../sentinel/keep.txt\""
            ),
        ),
        case(
            "parameter_values_from_etc_passwd",
            2,
            SSD,
            "ParameterBinding",
            &[OUTSIDE, "file:///etc/passwd"],
            patch!("source=\"params.ssv\"", "source=\"file:///etc/passwd\""),
        ),
        case(
            "parameter_mapping_outside",
            2,
            SSD,
            "ParameterBinding/ParameterMapping",
            &[OUTSIDE, "../../sentinel/x.ssm"],
            patch!(
                "<ssd:ParameterBinding source=\"params.ssv\"/>",
                "<ssd:ParameterBinding source=\"params.ssv\"><ssd:ParameterMapping \
                 source=\"../../sentinel/x.ssm\"/></ssd:ParameterBinding>"
            ),
        ),
        case(
            "nested_system_outside",
            2,
            SSD,
            "Component 'Sub'",
            &[OUTSIDE, "../other.ssd"],
            |s| {
                s.write("other.ssd", base_ssd::<V2>().as_bytes());
                with_element::<V2>(
                    s,
                    "      <ssd:Component name=\"Sub\" source=\"../other.ssd\" \
                     type=\"application/x-ssp-definition\"/>",
                )
            },
        ),
        case(
            "symbolic_link_leading_outside",
            2,
            SSD,
            "ParameterBinding",
            &[OUTSIDE, "link.ssv"],
            |s| {
                secret(s);
                let input = patch!("source=\"params.ssv\"", "source=\"link.ssv\"")(s);
                std::os::unix::fs::symlink(
                    s.dir().join("secret.ssv"),
                    s.dir().join("sys/link.ssv"),
                )
                .expect("symlink");
                input
            },
        ),
        case(
            "archive_reference_outside",
            2,
            "SystemStructure.ssd:",
            "Component 'Source'",
            &[OUTSIDE],
            |s| {
                s.write("Scale.fmu", &super::rows::packed_fmu("Scale"));
                let input = archive::<V2>(s, &[]);
                let text = base_ssd::<V2>()
                    .replace("fmus/Scale.fmu", "resources/Scale.fmu")
                    .replacen("resources/Scale.fmu", "../../Scale.fmu", 1);
                let mut entries = vec![
                    ("SystemStructure.ssd".to_owned(), text.into_bytes()),
                    ("params.ssv".to_owned(), base_ssv::<V2>().into_bytes()),
                ];
                entries.push((
                    "resources/Scale.fmu".to_owned(),
                    super::rows::packed_fmu("Scale"),
                ));
                s.write("sys.ssp", &zip_bytes(&entries));
                input
            },
        ),
        case("outside_allowed_by_the_option", 0, "", "", &[], |s| {
            s.write("Scale.fmu", &super::rows::packed_fmu("Scale"));
            Input::project(system::<V2>(s, |ssd| {
                ssd.replacen("source=\"fmus/Scale.fmu\"", "source=\"../Scale.fmu\"", 1)
            }))
            .args(&["--allow-outside-references"])
        }),
        case(
            "dot_dot_that_stays_inside",
            0,
            "",
            "",
            &[],
            patch!("source=\"params.ssv\"", "source=\"fmus/../params.ssv\""),
        ),
    ]
}

#[test]
fn hostile_ssp_systems() {
    check_table("ssp", cases::<false>());
}

#[test]
fn hostile_ssp2_systems() {
    check_table("ssp2", cases::<true>());
}

#[test]
fn hostile_ssp_references() {
    check_table("ssp_references", outside_cases::<false>());
}

#[test]
fn hostile_ssp2_references() {
    check_table("ssp2_references", outside_cases::<true>());
}

#[test]
fn hostile_ssp_ambiguous_and_refused() {
    check_table("ssp_ambiguous", ambiguous::cases::<false>());
}

#[test]
fn hostile_ssp2_ambiguous_and_refused() {
    check_table("ssp2_ambiguous", ambiguous::cases::<true>());
}
