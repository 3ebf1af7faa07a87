//! SSP rows beyond the base table: the ambiguous variants of the harmless quirks that
//! `tests/ssp/quirks.rs` runs with one warning (a connection between two outputs or two
//! inputs, a unit declared nowhere that a value would have to be converted from, an item name
//! of an enumeration nobody declares, an FMI 1.0 variable without a start value bound as a
//! parameter), what SSP 2.0 adds that mastersim refuses (clocks, single array elements on
//! connections, nested `.ssp` packages, structural parameters), and broken 2.0 content (signal
//! dictionaries, among them a malformed `.ssb` and one outside the system's folder, values out
//! of their width, array values that do not fit). Each row exits 2 with one error line naming
//! the file and the element.

use super::super::rows::{Case, Input, Sandbox, case, replace_once};
use super::{SSD, copy_fmu, patch, system, with_element};

/// The base with `Sink` also declaring its output `y`, and `extra` inserted before
/// `</ssd:Connections>`.
fn with_sink_output<const V2: bool>(s: &Sandbox, extra: &str) -> Input {
    Input::project(system::<V2>(s, |ssd| {
        let ssd = replace_once(
            ssd,
            "<ssd:Connector name=\"u\" kind=\"input\"><ssc:Real unit=\"m/s\"/></ssd:Connector>",
            "<ssd:Connector name=\"u\" kind=\"input\"><ssc:Real unit=\"m/s\"/></ssd:Connector>\n\
             <ssd:Connector name=\"y\" kind=\"output\"><ssc:Real/></ssd:Connector>",
        );
        replace_once(
            &ssd,
            "    </ssd:Connections>",
            &format!("      {extra}\n    </ssd:Connections>"),
        )
    }))
}

/// A component of the own packed FMU `model` named `name`, with `body` (connectors and
/// bindings), inserted before the base's `</ssd:Elements>`.
fn with_component<const V2: bool>(s: &Sandbox, model: &str, name: &str, body: &str) -> Input {
    copy_fmu(s, model);
    with_element::<V2>(
        s,
        &format!(
            "      <ssd:Component name=\"{name}\" source=\"fmus/{model}.fmu\">{body}</ssd:Component>"
        ),
    )
}

/// An inline binding of one parameter `name` with the value element `value`.
fn binding(name: &str, value: &str) -> String {
    format!(
        "<ssd:ParameterBindings><ssd:ParameterBinding><ssd:ParameterValues>\
         <ssv:ParameterSet version=\"1.0\" name=\"p\"><ssv:Parameters>\
         <ssv:Parameter name=\"{name}\">{value}</ssv:Parameter>\
         </ssv:Parameters></ssv:ParameterSet></ssd:ParameterValues></ssd:ParameterBinding>\
         </ssd:ParameterBindings>"
    )
}

/// A signal dictionary `bus` with the entry `speed` (Real in m/s) in the top system.
const DICTIONARY: &str = "    <ssd:SignalDictionaries><ssd:SignalDictionary name=\"bus\">\
     <ssb:SignalDictionary version=\"2.0\" \
     xmlns:ssb=\"http://ssp-standard.org/SSP1/SystemStructureSignalDictionary\">\
     <ssb:DictionaryEntry name=\"speed\"><ssc:Real unit=\"m/s\"/></ssb:DictionaryEntry>\
     </ssb:SignalDictionary></ssd:SignalDictionary></ssd:SignalDictionaries>\n  </ssd:System>";

/// The signal dictionary `bus` declared in the top system from the file `bus.ssb`.
const SSB: &str = "    <ssd:SignalDictionaries><ssd:SignalDictionary name=\"bus\" \
     source=\"bus.ssb\"/></ssd:SignalDictionaries>\n  </ssd:System>";

/// A reference `Bus` to the dictionary `dictionary` with the connector `connector`.
fn reference(dictionary: &str, connector: &str) -> String {
    format!(
        "      <ssd:SignalDictionaryReference name=\"Bus\" dictionary=\"{dictionary}\">\
         <ssd:Connectors><ssd:Connector name=\"{connector}\" kind=\"inout\"/></ssd:Connectors>\
         </ssd:SignalDictionaryReference>"
    )
}

/// The base with the dictionary, the reference `reference` and the connection `connection`.
fn with_dictionary<const V2: bool>(s: &Sandbox, reference: &str, connection: &str) -> Input {
    Input::project(system::<V2>(s, |ssd| {
        let ssd = replace_once(ssd, "  </ssd:System>", DICTIONARY);
        let ssd = replace_once(
            &ssd,
            "    </ssd:Elements>",
            &format!("{reference}\n    </ssd:Elements>"),
        );
        replace_once(
            &ssd,
            "    </ssd:Connections>",
            &format!("      {connection}\n    </ssd:Connections>"),
        )
    }))
}

pub(super) fn cases<const V2: bool>() -> Vec<Case> {
    vec![
        // Ambiguous variants of the quirks.
        case(
            "connection_between_two_outputs",
            2,
            SSD,
            "Connection",
            &["both ends send data", "'Source.y'", "'Sink.y'"],
            |s| {
                with_sink_output::<V2>(
                    s,
                    "<ssd:Connection startElement=\"Sink\" startConnector=\"y\" \
                     endElement=\"Source\" endConnector=\"y\"/>",
                )
            },
        ),
        case(
            "connection_between_two_inputs",
            2,
            SSD,
            "Connection",
            &["both ends receive data", "'Source.u'", "'Sink.u'"],
            |s| {
                Input::project(system::<V2>(s, |ssd| {
                    let ssd = replace_once(
                        ssd,
                        "<ssd:Connector name=\"y\" kind=\"output\"><ssc:Real unit=\"km/h\"/></ssd:Connector>",
                        "<ssd:Connector name=\"y\" kind=\"output\"><ssc:Real unit=\"km/h\"/></ssd:Connector>\n\
                         <ssd:Connector name=\"u\" kind=\"input\"><ssc:Real/></ssd:Connector>",
                    );
                    replace_once(
                        &ssd,
                        "    </ssd:Connections>",
                        "      <ssd:Connection startElement=\"Source\" startConnector=\"u\" \
                         endElement=\"Sink\" endConnector=\"u\"/>\n    </ssd:Connections>",
                    )
                }))
            },
        ),
        case(
            "ssv_unit_declared_nowhere",
            2,
            "sys/params.ssv:5",
            "Parameter 'u'",
            &["furlong/fortnight", "declared nowhere"],
            |s| {
                let input = Input::project(system::<V2>(s, |ssd| {
                    replace_once(
                        ssd,
                        "<ssd:Connector name=\"y\" kind=\"output\"><ssc:Real unit=\"km/h\"/></ssd:Connector>",
                        "<ssd:Connector name=\"y\" kind=\"output\"><ssc:Real unit=\"km/h\"/></ssd:Connector>\n\
                         <ssd:Connector name=\"u\" kind=\"input\"><ssc:Real unit=\"m/s\"/></ssd:Connector>",
                    )
                }));
                let ssv = std::fs::read_to_string(s.dir().join("sys/params.ssv")).expect(".ssv");
                s.write(
                    "sys/params.ssv",
                    replace_once(
                        &ssv,
                        "<ssv:Real value=\"36\"/>",
                        "<ssv:Real value=\"36\" unit=\"furlong/fortnight\"/>",
                    )
                    .as_bytes(),
                );
                input
            },
        ),
        case(
            "enumeration_item_of_an_undeclared_enumeration",
            2,
            SSD,
            "Parameter 'InInteger'",
            &["an Enumeration value for 'InInteger'"],
            |s| {
                let body = format!(
                    "<ssd:Connectors><ssd:Connector name=\"InInteger\" kind=\"input\">\
                     <ssc:Enumeration name=\"Color\"/></ssd:Connector></ssd:Connectors>{}",
                    binding("InInteger", "<ssv:Enumeration value=\"blue\"/>")
                );
                with_component::<V2>(s, "FourVarsFeedThrough", "Flags", &body)
            },
        ),
        case(
            "fmi1_variable_without_start_value_as_parameter",
            2,
            SSD,
            "'Osc.x'",
            &["cannot be set as a parameter", "Output"],
            |s| {
                let body = binding("x", "<ssv:Real value=\"3\"/>");
                with_component::<V2>(s, "Oscillator", "Osc", &body)
            },
        ),
        // What SSP 2.0 adds that mastersim refuses.
        case(
            "clock_connector_refused",
            2,
            SSD,
            "Connector 'u'",
            &["clocks are not supported"],
            patch!(
                "<ssc:Real unit=\"m/s\"/>",
                "<ssc:Clock intervalVariability=\"triggered\"/>"
            ),
        ),
        case(
            "array_element_indices_refused",
            2,
            SSD,
            "Connection",
            &["endIndices=\"1\"", "connect the whole array"],
            patch!(
                "endConnector=\"u\">",
                "endConnector=\"u\" endIndices=\"1\">"
            ),
        ),
        case(
            "ssp_package_component_refused",
            2,
            SSD,
            "Component 'Other'",
            &["application/x-ssp-package", "unpack"],
            |s| {
                s.write("sys/other.ssp", b"not read");
                with_element::<V2>(
                    s,
                    "      <ssd:Component name=\"Other\" source=\"other.ssp\" \
                     type=\"application/x-ssp-package\"/>",
                )
            },
        ),
        case(
            "structural_parameter_binding_refused",
            2,
            SSD,
            "Parameter 'n'",
            &["structural parameter"],
            |s| {
                let body = binding("n", "<ssv:UInt64 value=\"5\"/>");
                with_component::<V2>(s, "AllTypes", "Types", &body)
            },
        ),
        // Broken 2.0 content.
        case(
            "integer_value_beyond_its_width",
            2,
            SSD,
            "Int8",
            &["300", "-128 to 127"],
            patch!("<ssv:Real value=\"2\"/>", "<ssv:Int8 value=\"300\"/>"),
        ),
        case(
            "two_values_for_a_scalar",
            2,
            SSD,
            "Real",
            &["2 values", "no Dimension"],
            patch!("<ssv:Real value=\"2\"/>", "<ssv:Real value=\"2 3\"/>"),
        ),
        case(
            "array_values_for_a_scalar_variable",
            2,
            SSD,
            "Parameter 'k'",
            &["2 values for the scalar variable 'k'"],
            patch!(
                "<ssv:Real value=\"2\"/>",
                "<ssv:Real value=\"2 3\"/><ssc:Dimension size=\"2\"/>"
            ),
        ),
        case(
            "signal_dictionary_not_declared",
            2,
            SSD,
            "SignalDictionaryReference 'Bus'",
            &["signal dictionary 'nobus'"],
            |s| with_dictionary::<V2>(s, &reference("nobus", "speed"), ""),
        ),
        case(
            "signal_dictionary_entry_missing",
            2,
            SSD,
            "Connector 'sped'",
            &["has no entry 'sped'"],
            |s| with_dictionary::<V2>(s, &reference("bus", "sped"), ""),
        ),
        case(
            "signal_driven_twice",
            2,
            SSD,
            "Connection",
            &["'bus.speed (signal dictionary entry)' is already driven"],
            |s| {
                with_dictionary::<V2>(
                    s,
                    &reference("bus", "speed"),
                    "<ssd:Connection startElement=\"Source\" startConnector=\"y\" \
                     endElement=\"Bus\" endConnector=\"speed\"/>\n      \
                     <ssd:Connection startElement=\"Source\" startConnector=\"y\" \
                     endElement=\"Bus\" endConnector=\"speed\"/>",
                )
            },
        ),
        case(
            "ssb_not_well_formed",
            2,
            "sys/bus.ssb",
            "DictionaryEntry",
            &[],
            |s| {
                s.write(
                    "sys/bus.ssb",
                    b"<ssb:SignalDictionary version=\"2.0\" \
                      xmlns:ssb=\"http://ssp-standard.org/SSP1/SystemStructureSignalDictionary\">\n\
                      <ssb:DictionaryEntry name=\"speed\">\n</ssb:SignalDictionary>\n",
                );
                Input::project(system::<V2>(s, |ssd| {
                    replace_once(ssd, "  </ssd:System>", SSB)
                }))
            },
        ),
        case(
            "ssb_outside_is_not_read",
            2,
            SSD,
            "SignalDictionary 'bus'",
            &["refers to a file outside the SSP", "../secret.ssb"],
            |s| {
                s.write("secret.ssb", b"the secret key is 1234\n");
                Input::project(system::<V2>(s, |ssd| {
                    replace_once(
                        ssd,
                        "  </ssd:System>",
                        &SSB.replace("source=\"bus.ssb\"", "source=\"../secret.ssb\""),
                    )
                }))
            },
        ),
        case(
            "ssb_file_missing",
            2,
            SSD,
            "SignalDictionary 'bus'",
            &["bus.ssb", "does not exist"],
            |s| {
                Input::project(system::<V2>(s, |ssd| {
                    replace_once(ssd, "  </ssd:System>", SSB)
                }))
            },
        ),
    ]
}
