//! FMI 3.0 references between variables that must name the right kind of variable: the
//! `valueReference` of a `Dimension` (a structural parameter or a constant) and the `clocks`
//! attribute (Clock variables).

use super::super::{FILE, parse_err};
use super::{names, parse_warn, v3_vars};
use crate::Error;

/// An array `x` whose one dimension names `target` (value reference 2).
fn sized_by(target: &str) -> String {
    v3_vars(&format!(
        r#"{target}
           <Float64 name="x" valueReference="1"><Dimension valueReference="2"/></Float64>"#
    ))
}

#[test]
fn a_dimension_must_name_a_structural_parameter_or_a_constant() {
    for (target, kind, problem) in [
        (
            r#"<UInt64 name="n" valueReference="2" causality="input" start="3"/>"#,
            "UInt64",
            "is an input: its value may change during the run",
        ),
        (
            r#"<Int32 name="n" valueReference="2" causality="output" start="3"/>"#,
            "Int32",
            "is an output, computed by the FMU",
        ),
        (
            r#"<UInt64 name="n" valueReference="2" start="3"/>"#,
            "UInt64",
            "is a local variable, computed by the FMU",
        ),
        (
            r#"<UInt64 name="n" valueReference="2" causality="parameter" variability="fixed" start="3"/>"#,
            "UInt64",
            "is a parameter, not a structuralParameter: it may be set without the array \
             changing its size",
        ),
        (
            r#"<UInt64 name="n" valueReference="2" causality="calculatedParameter" variability="fixed"/>"#,
            "UInt64",
            "is a calculatedParameter, computed by the FMU",
        ),
        (
            r#"<UInt64 name="n" valueReference="2" causality="structuralParameter" variability="discrete" start="3"/>"#,
            "UInt64",
            "is a structuralParameter of variability discrete or continuous",
        ),
    ] {
        let err = parse_err(&sized_by(target));
        assert!(
            matches!(&err, Error::DimensionTarget { element, value_reference: 2, problem: p, .. }
                if element == "ModelVariables/Float64[1] 'x'/Dimension[1]" && p.starts_with(problem)),
            "{target}: {err:?}"
        );
        let text = err.to_string();
        assert!(
            text.starts_with(&format!(
                "{FILE}: ModelVariables/Float64[1] 'x'/Dimension[1]: valueReference 2 names \
                 ModelVariables/{kind}[1] 'n', which {problem}"
            )),
            "{text}"
        );
    }
    // A float (not an integer) and a missing value reference are refused as before.
    let err = parse_err(&sized_by(
        r#"<Float64 name="n" valueReference="2" causality="structuralParameter" variability="fixed" start="3"/>"#,
    ));
    assert!(
        matches!(
            err,
            Error::DimensionTarget {
                problem: "is not of an integer type",
                ..
            }
        ),
        "{err:?}"
    );
    // An invalid causality of the target is reported on the target.
    let err = parse_err(&sized_by(
        r#"<UInt64 name="n" valueReference="2" causality="sideways" start="3"/>"#,
    ));
    assert!(
        matches!(&err, Error::InvalidAttribute { element, attribute: "causality", .. }
            if element == "ModelVariables/UInt64[1] 'n'"),
        "{err:?}"
    );
}

#[test]
fn constants_and_fixed_or_tunable_structural_parameters_size_arrays() {
    for (target, warning) in [
        (
            r#"<UInt64 name="n" valueReference="2" causality="structuralParameter" variability="fixed" start="3"/>"#,
            None,
        ),
        (
            r#"<UInt64 name="n" valueReference="2" causality="structuralParameter" variability="tunable" start="3"/>"#,
            None,
        ),
        (
            r#"<UInt64 name="n" valueReference="2" causality="output" variability="constant" start="3"/>"#,
            None,
        ),
        (
            r#"<UInt64 name="n" valueReference="2" causality="structuralParameter" start="3"/>"#,
            Some(
                "structuralParameter without 'variability' (FMI 3.0 asks for fixed or tunable); read as fixed",
            ),
        ),
        (
            r#"<Int16 name="n" valueReference="2" causality="structuralParameter" variability="fixed" start="3"/>"#,
            Some("sized by ModelVariables/Int16[1] 'n', which FMI 3.0 asks to be a UInt64"),
        ),
    ] {
        let (description, warnings) = parse_warn(&sized_by(target));
        assert_eq!(
            names(&description),
            ["n", "x[1]", "x[2]", "x[3]"],
            "{target}"
        );
        match warning {
            None => assert!(warnings.is_empty(), "{target}: {warnings:#?}"),
            Some(warning) => {
                assert_eq!(warnings.len(), 1, "{target}: {warnings:#?}");
                assert!(warnings[0].contains(warning), "{warnings:#?}");
            }
        }
    }
}

#[test]
fn clocks_must_name_clock_variables() {
    let clocked = |clocks: &str| {
        v3_vars(&format!(
            r#"<Clock name="tick" valueReference="5" causality="input"/>
               <Int32 name="n" valueReference="6" causality="input" start="0"/>
               <Float64 name="y" valueReference="7" causality="output" variability="discrete" clocks="{clocks}"/>"#
        ))
    };
    let (description, warnings) = parse_warn(&clocked("5"));
    assert_eq!(description.clocks.len(), 1);
    assert!(warnings.is_empty(), "{warnings:#?}");
    let y = "ModelVariables/Float64[1] 'y'";
    let err = parse_err(&clocked("5 6"));
    assert!(
        matches!(&err, Error::ClockReference { element, value_reference: 6, target: Some(t), .. }
            if element == y && t == "ModelVariables/Int32[1] 'n'"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "{FILE}: {y}: attribute 'clocks' lists valueReference 6, which names \
             ModelVariables/Int32[1] 'n', not a Clock; it must list Clock variables"
        )
    );
    let err = parse_err(&clocked("99"));
    assert!(
        matches!(
            &err,
            Error::ClockReference {
                value_reference: 99,
                target: None,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .contains("lists valueReference 99, which names no variable"),
        "{err}"
    );
    let err = parse_err(&clocked("5 tick"));
    assert!(
        matches!(&err, Error::InvalidAttribute { attribute: "clocks", value, .. } if value == "5 tick"),
        "{err:?}"
    );
}
