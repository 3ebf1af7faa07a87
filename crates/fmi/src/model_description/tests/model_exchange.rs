//! The Model Exchange parts of FMI 2.0 and 3.0 descriptions: the `ModelExchange` element, the
//! continuous states in state-vector order, the number of event indicators, and the errors
//! (read for Model Exchange) or single warnings (read for co-simulation) of ambiguous ones.

use std::path::Path;

use super::super::raw::parse_for_with_warnings;
use super::FILE;
use crate::model_description::*;
use crate::{Error, ValueRef};

/// Parses `xml` for `interface`; the description or error, and the warnings.
fn read(xml: &str, interface: Interface) -> (Result<ModelDescription>, Vec<String>) {
    parse_for_with_warnings(xml, Path::new(FILE), interface)
}

/// Parses `xml` for Model Exchange, which must succeed without warnings.
fn read_me(xml: &str) -> ModelDescription {
    let (result, warnings) = read(xml, Interface::ModelExchange);
    assert!(warnings.is_empty(), "{warnings:?}");
    result.unwrap_or_else(|e| panic!("{e}"))
}

/// The `(state, derivative)` value references of `md`'s continuous states.
fn pairs(md: &ModelDescription) -> Vec<(u32, u32)> {
    md.continuous_states
        .iter()
        .map(|s| (s.state.0, s.derivative.0))
        .collect()
}

/// An FMI 2.0 description with both interfaces, `variables` and `derivatives` (the
/// `Unknown` elements of `ModelStructure/Derivatives`).
fn v2(root: &str, variables: &str, derivatives: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="2.0" modelName="M" guid="{{g}}" {root}>
  <ModelExchange modelIdentifier="m_me" completedIntegratorStepNotNeeded="true"
      canGetAndSetFMUstate="true" providesDirectionalDerivative="true"/>
  <CoSimulation modelIdentifier="m_cs" canHandleVariableCommunicationStepSize="true"/>
  <ModelVariables>{variables}</ModelVariables>
  <ModelStructure><Derivatives>{derivatives}</Derivatives></ModelStructure>
</fmiModelDescription>"#
    )
}

/// Two states `x` (vr 0) and `y` (vr 2) with derivatives `der(x)` (vr 1) and `der(y)` (vr
/// 3), indices 1 to 4.
const V2_VARIABLES: &str = r#"
    <ScalarVariable name="x" valueReference="0" variability="continuous"><Real start="1"/></ScalarVariable>
    <ScalarVariable name="der(x)" valueReference="1" variability="continuous"><Real derivative="1"/></ScalarVariable>
    <ScalarVariable name="y" valueReference="2" variability="continuous"><Real start="2"/></ScalarVariable>
    <ScalarVariable name="der(y)" valueReference="3" variability="continuous"><Real derivative="3"/></ScalarVariable>"#;

#[test]
fn v2_states_in_derivatives_order_and_the_model_exchange_element() {
    let xml = v2(
        r#"numberOfEventIndicators="2""#,
        V2_VARIABLES,
        r#"<Unknown index="4"/><Unknown index="2" dependencies="1"/>"#,
    );
    let md = read_me(&xml);
    assert_eq!(pairs(&md), [(2, 3), (0, 1)]);
    assert_eq!(md.continuous_states[0].state_index, 3);
    assert_eq!(md.continuous_states[0].derivative_index, 4);
    assert_eq!(md.number_of_event_indicators, 2);
    let me = md.model_exchange.as_ref().expect("ModelExchange");
    assert_eq!(me.model_identifier, "m_me");
    assert!(me.completed_integrator_step_not_needed);
    assert!(me.capabilities.can_get_and_set_fmu_state);
    assert!(me.capabilities.provides_directional_derivative);
    assert!(!me.capabilities.can_handle_variable_communication_step_size);
    // The co-simulation side is unchanged, and reading for co-simulation gives the same.
    assert_eq!(md.model_identifier, "m_cs");
    assert!(md.capabilities.can_handle_variable_communication_step_size);
    let (cs, warnings) = read(&xml, Interface::CoSimulation);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(cs.unwrap(), md);
}

#[test]
fn v2_model_exchange_only_is_read_for_model_exchange_and_refused_for_co_simulation() {
    let xml = r#"<?xml version="1.0"?>
<fmiModelDescription fmiVersion="2.0" modelName="M" guid="{g}">
  <ModelExchange modelIdentifier="only_me"/>
  <ModelVariables><ScalarVariable name="t" valueReference="0"><Real/></ScalarVariable></ModelVariables>
</fmiModelDescription>"#;
    let md = read_me(xml);
    assert_eq!(md.model_exchange.unwrap().model_identifier, "only_me");
    assert!(md.continuous_states.is_empty());
    assert_eq!(md.number_of_event_indicators, 0);
    let (cs, _) = read(xml, Interface::CoSimulation);
    assert!(matches!(cs, Err(Error::NoCoSimulation { .. })), "{cs:?}");
}

#[test]
fn a_missing_model_exchange_interface_names_what_the_fmu_offers() {
    let xml =
        super::v2_vars(r#"<ScalarVariable name="x" valueReference="0"><Real/></ScalarVariable>"#);
    let (result, _) = read(&xml, Interface::ModelExchange);
    let error = result.unwrap_err();
    assert!(matches!(error, Error::InterfaceMissing { .. }), "{error}");
    let text = error.to_string();
    assert!(
        text.contains(FILE) && text.contains("no Model Exchange interface"),
        "{text}"
    );
    assert!(text.contains("offers Co-Simulation"), "{text}");
}

#[test]
fn fmi1_model_exchange_is_refused_by_name() {
    let xml = r#"<?xml version="1.0"?>
<fmiModelDescription fmiVersion="1.0" modelName="M" modelIdentifier="m" guid="{g}">
  <ModelVariables><ScalarVariable name="x" valueReference="0"><Real/></ScalarVariable></ModelVariables>
</fmiModelDescription>"#;
    let (result, _) = read(xml, Interface::ModelExchange);
    let error = result.unwrap_err();
    assert!(matches!(error, Error::Fmi1ModelExchange { .. }), "{error}");
    assert!(
        error.to_string().contains("FMI 1.0 Model Exchange"),
        "{error}"
    );
}

/// Each ambiguous FMI 2.0 structure: the element named in the error, and the one warning
/// when read for co-simulation (whose reading does not need it).
#[test]
fn v2_ambiguous_states_are_errors_for_model_exchange_and_one_warning_otherwise() {
    let integer_state = r#"
    <ScalarVariable name="n" valueReference="0"><Integer/></ScalarVariable>
    <ScalarVariable name="der(n)" valueReference="1"><Real derivative="1"/></ScalarVariable>"#;
    let cases = [
        (
            V2_VARIABLES,
            r#"<Unknown index="9"/>"#,
            "Unknown #1",
            "names no variable",
        ),
        (
            V2_VARIABLES,
            r#"<Unknown index="1"/>"#,
            "Unknown #1",
            "no 'derivative' attribute",
        ),
        (
            V2_VARIABLES,
            r#"<Unknown index="2"/><Unknown index="2"/>"#,
            "Unknown #2",
            "a second derivative of state 'x'",
        ),
        (
            integer_state,
            r#"<Unknown index="2"/>"#,
            "Unknown #1",
            "not a Real",
        ),
    ];
    for (variables, derivatives, element, what) in cases {
        let xml = v2("", variables, derivatives);
        let (result, _) = read(&xml, Interface::ModelExchange);
        let error = result.expect_err(derivatives);
        assert!(matches!(error, Error::ModelStructure { .. }), "{error}");
        let text = error.to_string();
        assert!(text.contains(FILE), "{text}");
        assert!(
            text.contains(&format!("ModelStructure/Derivatives/{element}")),
            "{text}"
        );
        assert!(text.contains(what), "{text}");

        let (result, warnings) = read(&xml, Interface::CoSimulation);
        let md = result.unwrap_or_else(|e| panic!("{e}"));
        assert!(md.model_exchange.is_none() && md.continuous_states.is_empty());
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].starts_with(FILE), "{warnings:?}");
        assert!(warnings[0].contains(what), "{warnings:?}");
        assert!(
            warnings[0].contains("cannot be run as Model Exchange"),
            "{warnings:?}"
        );
    }
    // A derivative attribute that names no variable.
    let dangling = r#"
    <ScalarVariable name="x" valueReference="0"><Real/></ScalarVariable>
    <ScalarVariable name="der(x)" valueReference="1"><Real derivative="7"/></ScalarVariable>"#;
    let (result, _) = read(
        &v2("", dangling, r#"<Unknown index="2"/>"#),
        Interface::ModelExchange,
    );
    let text = result.unwrap_err().to_string();
    assert!(
        text.contains("'derivative' is '7', which names no variable"),
        "{text}"
    );
    // A number of event indicators that is not one.
    let xml = v2(r#"numberOfEventIndicators="two""#, V2_VARIABLES, "");
    let (result, _) = read(&xml, Interface::ModelExchange);
    let text = result.unwrap_err().to_string();
    assert!(
        text.contains("numberOfEventIndicators") && text.contains("two"),
        "{text}"
    );
}

/// A state whose derivative is not declared continuous (the FMI 2.0 Reference FMU
/// BouncingBall's `g`) is read with one warning.
#[test]
fn v2_a_derivative_that_is_not_continuous_is_one_warning() {
    let variables = r#"
    <ScalarVariable name="v" valueReference="0" variability="continuous"><Real/></ScalarVariable>
    <ScalarVariable name="g" valueReference="1" causality="parameter" variability="fixed"><Real start="-9.81" derivative="1"/></ScalarVariable>"#;
    let (result, warnings) = read(
        &v2("", variables, r#"<Unknown index="2"/>"#),
        Interface::ModelExchange,
    );
    let md = result.unwrap();
    assert_eq!(pairs(&md), [(0, 1)]);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("ModelStructure/Derivatives/Unknown #1: the derivative 'g'"),
        "{warnings:?}"
    );
}

/// An FMI 3.0 description with both interfaces, `variables` and `structure`.
fn v3(variables: &str, structure: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="M" instantiationToken="{{t}}">
  <ModelExchange modelIdentifier="m_me" needsCompletedIntegratorStep="true"
      canSerializeFMUState="true" providesEvaluateDiscreteStates="false"/>
  <CoSimulation modelIdentifier="m_cs"/>
  <ModelVariables>{variables}</ModelVariables>
  <ModelStructure>{structure}</ModelStructure>
</fmiModelDescription>"#
    )
}

/// A scalar state `s` (vr 3), an array state `x[2]` (vr 1), their derivatives (vr 4 and 2)
/// and event indicators `z[3]` (vr 5) and `w` (vr 6).
const V3_VARIABLES: &str = r#"
    <Float64 name="x" valueReference="1" variability="continuous" start="1 2"><Dimension start="2"/></Float64>
    <Float64 name="der(x)" valueReference="2" variability="continuous" derivative="1"><Dimension start="2"/></Float64>
    <Float64 name="s" valueReference="3" variability="continuous" start="0"><Alias name="s_alias"/></Float64>
    <Float64 name="der(s)" valueReference="4" variability="continuous" derivative="3"/>
    <Float64 name="z" valueReference="5" variability="continuous"><Dimension start="3"/></Float64>
    <Float64 name="w" valueReference="6" variability="continuous"/>"#;

#[test]
fn v3_states_arrays_expanded_and_event_indicators_counted() {
    let md = read_me(&v3(
        V3_VARIABLES,
        r#"<ContinuousStateDerivative valueReference="4"/>
           <ContinuousStateDerivative valueReference="2"/>
           <EventIndicator valueReference="5"/><EventIndicator valueReference="6"/>"#,
    ));
    assert_eq!(pairs(&md), [(3, 4), (1, 2), (1, 2)]);
    let indices: Vec<(usize, usize)> = md
        .continuous_states
        .iter()
        .map(|s| (s.state_index, s.derivative_index))
        .collect();
    assert_eq!(indices, [(5, 7), (1, 3), (2, 4)]);
    assert_eq!(md.number_of_event_indicators, 4);
    let me = md.model_exchange.unwrap();
    assert_eq!(me.model_identifier, "m_me");
    assert!(!me.completed_integrator_step_not_needed);
    assert!(me.capabilities.can_serialize_fmu_state);
    assert_eq!(md.continuous_states[0].state, ValueRef(3));
}

#[test]
fn v3_ambiguous_structures_are_errors_for_model_exchange_and_one_warning_otherwise() {
    let cases = [
        (
            r#"<ContinuousStateDerivative valueReference="1"/>"#,
            "ModelStructure/ContinuousStateDerivative[1]",
            "no 'derivative' attribute",
        ),
        (
            r#"<ContinuousStateDerivative valueReference="4"/><ContinuousStateDerivative valueReference="4"/>"#,
            "ModelStructure/ContinuousStateDerivative[2]",
            "a second derivative of state 's'",
        ),
        (
            r#"<EventIndicator valueReference="6"/><EventIndicator valueReference="99"/>"#,
            "ModelStructure/EventIndicator[2]",
            "'valueReference' is '99', which names no variable",
        ),
    ];
    for (structure, element, what) in cases {
        let xml = v3(V3_VARIABLES, structure);
        let (result, _) = read(&xml, Interface::ModelExchange);
        let text = result.expect_err(structure).to_string();
        assert!(text.contains(FILE) && text.contains(element), "{text}");
        assert!(text.contains(what), "{text}");
        let (result, warnings) = read(&xml, Interface::CoSimulation);
        assert!(result.unwrap().model_exchange.is_none());
        let ours: Vec<_> = warnings.iter().filter(|w| w.contains(what)).collect();
        assert_eq!(ours.len(), 1, "{warnings:?}");
        assert!(
            ours[0].contains("cannot be run as Model Exchange"),
            "{warnings:?}"
        );
    }
    // An array state whose derivative has another size.
    let variables = r#"
    <Float64 name="x" valueReference="1"><Dimension start="3"/></Float64>
    <Float64 name="der(x)" valueReference="2" derivative="1"><Dimension start="2"/></Float64>"#;
    let xml = v3(
        variables,
        r#"<ContinuousStateDerivative valueReference="2"/>"#,
    );
    let (result, _) = read(&xml, Interface::ModelExchange);
    let text = result.unwrap_err().to_string();
    assert!(
        text.contains("the derivative has 2 elements but its state"),
        "{text}"
    );
}
