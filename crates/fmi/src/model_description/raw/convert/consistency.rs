//! Checks across variables, run after every `ScalarVariable` was converted on its own: names
//! that several variables share, and FMI 1.0 aliases and their base variables.
//!
//! Names should be unique, but real exporters repeat one now and then (e.g. an FMI 1.0 FMU
//! that declares `iepsi` under two value references). That is not refused: every variable is
//! kept, and the repeated name is reported with a warning naming the variables, their types
//! and value references. A name whose variables are all one value (same value reference,
//! type and sign: [`ScalarVariable::same_value`]) is a harmless alias; otherwise only a
//! *reference* to the name is ambiguous, and the master refuses that reference
//! ([`crate::model_description::lookup`]). FMI 3.0 names follow the same rule (in `v3`).
//!
//! Value references are unique per base type only (Real, Integer/Enumeration, Boolean,
//! String), so a Real and an Integer may share one: that is not checked, it is legal. In FMI 2.0
//! an Integer and an Enumeration share the Integer value-reference space, so two such variables
//! with the same value reference are aliases of one value; they are accepted, whatever their
//! `declaredType` (the value is an `fmi2Integer` either way). In FMI 1.0 an alias is explicit
//! (`alias="alias"` or `"negatedAlias"`) and names no base variable: the base is the non-alias
//! variable with the same value reference and base type. When no variable of the alias's type
//! is one, but a variable of another type has the value reference, the alias is refused (its
//! type contradicts the description). When no variable at all is one, the alias is read through
//! its value reference as it is, with a warning: nothing contradicts it.
//!
//! Spec: FMI 2.0.2 §2.2.7 (`name` unique, `valueReference` unique per base type), FMI 1.0 §2.4
//! (`alias`, `valueReference`).

use std::collections::HashMap;

use super::Ctx;
use crate::error::alias_keyword;
use crate::model_description::{Alias, ScalarVariable, VarType};
use crate::{Error, Result};

/// `ScalarVariable #k 'name'`, the way every variable error names its element.
fn element(v: &ScalarVariable) -> String {
    format!("ScalarVariable #{} '{}'", v.index, v.name)
}

/// The scalars of `variables` grouped by name, for the names that more than one scalar has,
/// in the order of each name's first scalar.
pub(in crate::model_description::raw) fn repeated_names<'v, T>(
    variables: impl IntoIterator<Item = (&'v str, T)>,
) -> Vec<(&'v str, Vec<T>)> {
    let mut groups: Vec<(&str, Vec<T>)> = Vec::new();
    let mut position: HashMap<&str, usize> = HashMap::new();
    for (name, item) in variables {
        let k = *position.entry(name).or_insert_with(|| {
            groups.push((name, Vec::new()));
            groups.len() - 1
        });
        groups[k].1.push(item);
    }
    groups.retain(|(_, items)| items.len() > 1);
    groups
}

impl Ctx<'_> {
    /// Warns about a name that several scalars share: `declared` describes each of them (its
    /// element, type and value reference), `ambiguous` tells whether they are different values.
    pub(in crate::model_description::raw) fn warn_repeated_name(
        &self,
        name: &str,
        declared: &[String],
        ambiguous: bool,
    ) {
        let consequence = if ambiguous {
            format!(
                "all are kept, and a connection, parameter or other reference to '{name}' is \
                 refused as ambiguous"
            )
        } else {
            format!("they are one value (an alias), which '{name}' refers to")
        };
        self.warn(format!(
            "variable name '{name}' is declared {} times: {}; FMI requires unique names, so \
             {consequence}",
            declared.len(),
            declared.join(", ")
        ));
    }

    /// Warns about every name that several variables share (FMI 1.0 and 2.0): the variables
    /// are all kept.
    pub(super) fn warn_repeated_names(&self, variables: &[ScalarVariable]) {
        for (name, group) in repeated_names(variables.iter().map(|v| (v.name.as_str(), v))) {
            let declared: Vec<String> = group
                .iter()
                .map(|v| {
                    let negated = if v.alias == Alias::NegatedAlias {
                        ", negatedAlias"
                    } else {
                        ""
                    };
                    format!(
                        "ScalarVariable #{} ({:?}, value reference {}{negated})",
                        v.index, v.var_type, v.value_reference.0
                    )
                })
                .collect();
            let ambiguous = group.iter().any(|v| !v.same_value(group[0]));
            self.warn_repeated_name(name, &declared, ambiguous);
        }
    }

    /// FMI 1.0: every `alias`/`negatedAlias` variable needs a `noAlias` variable with the same
    /// value reference and base type (Enumeration counts as Integer). Refused when a variable of
    /// another type has the value reference; when no variable has it as a non-alias, a warning.
    pub(super) fn check_alias_bases(&self, variables: &[ScalarVariable]) -> Result<()> {
        let mut bases: HashMap<(u32, VarType), &ScalarVariable> = HashMap::new();
        let mut by_reference: HashMap<u32, Vec<&ScalarVariable>> = HashMap::new();
        for v in variables {
            let vr = v.value_reference.0;
            if v.alias == Alias::NoAlias {
                bases.entry((vr, v.var_type)).or_insert(v);
            }
            by_reference.entry(vr).or_default().push(v);
        }
        for v in variables.iter().filter(|v| v.alias != Alias::NoAlias) {
            let vr = v.value_reference.0;
            if bases.contains_key(&(vr, v.var_type)) {
                continue;
            }
            let others = by_reference.get(&vr).map(Vec::as_slice).unwrap_or_default();
            // Prefer a non-alias variable of another type: the likeliest intended base.
            let other = others
                .iter()
                .filter(|o| o.var_type != v.var_type)
                .min_by_key(|o| o.alias != Alias::NoAlias);
            match other {
                Some(base) => {
                    return Err(Error::AliasTypeMismatch {
                        path: self.path.to_owned(),
                        element: element(v),
                        alias: v.alias,
                        var_type: v.var_type,
                        value_reference: vr,
                        base: element(base),
                        base_type: base.var_type,
                    });
                }
                None => self.warn(format!(
                    "{}: alias=\"{}\" of value reference {vr}, but no non-alias {:?} variable \
                     has this value reference; read through its value reference as it is \
                     (FMI 1.0 asks for a base variable)",
                    element(v),
                    alias_keyword(v.alias),
                    v.var_type
                )),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::model_description::raw::parse_with_warnings;
    use crate::model_description::{Alias, ModelDescription, NameLookup, VarType};
    use crate::{Error, Result};

    fn parse(xml: &str) -> Result<ModelDescription> {
        ModelDescription::parse(xml, Path::new("modelDescription.xml"))
    }

    /// Parses a description that must be read, and returns it with its warnings.
    fn parse_warn(xml: &str) -> (ModelDescription, Vec<String>) {
        let (result, warnings) = parse_with_warnings(xml, Path::new("modelDescription.xml"));
        (result.unwrap_or_else(|e| panic!("{e}")), warnings)
    }

    fn v1(variables: &str) -> String {
        format!(
            r#"<fmiModelDescription fmiVersion="1.0" modelName="M" modelIdentifier="m" guid="g">
              <ModelVariables>{variables}</ModelVariables>
              <Implementation><CoSimulation_StandAlone/></Implementation>
            </fmiModelDescription>"#
        )
    }

    fn v2(variables: &str) -> String {
        format!(
            r#"<fmiModelDescription fmiVersion="2.0" modelName="M" guid="g">
              <CoSimulation modelIdentifier="m"/>
              <ModelVariables>{variables}</ModelVariables>
            </fmiModelDescription>"#
        )
    }

    const X_REAL_1: &str =
        r#"<ScalarVariable name="x" valueReference="1"><Real/></ScalarVariable>"#;

    #[test]
    fn v1_alias_of_a_base_of_the_same_type_is_accepted() {
        let xml = v1(&format!(
            r#"{X_REAL_1}
            <ScalarVariable name="y" valueReference="1" alias="negatedAlias"><Real/></ScalarVariable>
            <ScalarVariable name="n" valueReference="1"><Integer/></ScalarVariable>
            <ScalarVariable name="e" valueReference="1" alias="alias"><Enumeration/></ScalarVariable>"#
        ));
        let md = parse(&xml).unwrap();
        assert_eq!(md.variables[1].alias, Alias::NegatedAlias);
        assert_eq!(md.variables[3].var_type, VarType::Integer);
    }

    #[test]
    fn v1_alias_whose_value_reference_has_another_type_names_both_variables() {
        let xml = v1(&format!(
            r#"{X_REAL_1}
            <ScalarVariable name="steps" valueReference="1" alias="alias"><Integer/></ScalarVariable>"#
        ));
        let err = parse(&xml).unwrap_err();
        assert!(
            matches!(
                &err,
                Error::AliasTypeMismatch { element, base, var_type: VarType::Integer,
                    base_type: VarType::Real, value_reference: 1, .. }
                    if element == "ScalarVariable #2 'steps'" && base == "ScalarVariable #1 'x'"
            ),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "modelDescription.xml: ScalarVariable #2 'steps' (Integer): alias=\"alias\" of value \
             reference 1, but ScalarVariable #1 'x' with this value reference is Real; an alias \
             needs a non-alias base variable of the same type"
        );
    }

    #[test]
    fn v1_alias_without_any_base_is_read_with_a_warning() {
        let xml = v1(&format!(
            r#"{X_REAL_1}
            <ScalarVariable name="b" valueReference="7" alias="negatedAlias"><Boolean/></ScalarVariable>"#
        ));
        let (md, warnings) = parse_warn(&xml);
        assert_eq!(md.variables[1].alias, Alias::NegatedAlias);
        assert_eq!(md.variables[1].value_reference.0, 7);
        assert_eq!(
            warnings,
            [
                "modelDescription.xml: ScalarVariable #2 'b': alias=\"negatedAlias\" of value \
              reference 7, but no non-alias Boolean variable has this value reference; read \
              through its value reference as it is (FMI 1.0 asks for a base variable)"
            ]
        );
        // Two aliases of each other, neither a base: one warning each.
        let xml = v1(
            r#"<ScalarVariable name="a" valueReference="3" alias="alias"><Real/></ScalarVariable>
               <ScalarVariable name="b" valueReference="3" alias="alias"><Real/></ScalarVariable>"#,
        );
        let (md, warnings) = parse_warn(&xml);
        assert_eq!(md.variables.len(), 2);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings[1].contains("ScalarVariable #2 'b'"),
            "{warnings:?}"
        );
    }

    #[test]
    fn v2_shared_value_references_across_types_are_legal() {
        // Real and Integer have separate spaces; Integer and Enumeration share one (aliases).
        let xml = v2(&format!(
            r#"{X_REAL_1}
            <ScalarVariable name="n" valueReference="1"><Integer/></ScalarVariable>
            <ScalarVariable name="mode" valueReference="1"><Enumeration declaredType="Mode"/></ScalarVariable>
            <ScalarVariable name="s" valueReference="1"><String/></ScalarVariable>"#
        ));
        let md = parse(&xml).unwrap();
        assert_eq!(md.variables.len(), 4);
        assert!(md.variables[2].is_enumeration);
    }

    #[test]
    fn duplicate_names_are_read_with_a_warning_in_both_versions() {
        let duplicate = format!(
            r#"{X_REAL_1}
            <ScalarVariable name="u" valueReference="2"><Real/></ScalarVariable>
            <ScalarVariable name="x" valueReference="3"><Real/></ScalarVariable>"#
        );
        for xml in [v1(&duplicate), v2(&duplicate)] {
            let (md, warnings) = parse_warn(&xml);
            // Both variables are kept, in file order.
            let named: Vec<u32> = md
                .variables_named("x")
                .map(|v| v.value_reference.0)
                .collect();
            assert_eq!(named, [1, 3]);
            assert_eq!(md.variable_by_name("x").map(|v| v.index), Some(1));
            assert_eq!(
                warnings,
                [
                    "modelDescription.xml: variable name 'x' is declared 2 times: ScalarVariable \
                  #1 (Real, value reference 1), ScalarVariable #3 (Real, value reference 3); FMI \
                  requires unique names, so all are kept, and a connection, parameter or other \
                  reference to 'x' is refused as ambiguous"
                ]
            );
            let NameLookup::Ambiguous(all) = md.lookup("x") else {
                panic!("'x' must be ambiguous: {:?}", md.lookup("x"));
            };
            assert_eq!(all.iter().map(|v| v.index).collect::<Vec<_>>(), [1, 3]);
            assert!(matches!(md.lookup("u"), NameLookup::Found(v) if v.index == 2));
            assert_eq!(md.lookup("nope"), NameLookup::Missing);
        }
    }

    #[test]
    fn duplicate_names_of_one_value_are_harmless_aliases() {
        // Same value reference and type: one value under a repeated name (still a warning).
        let xml = v2(&format!(
            r#"{X_REAL_1}
            <ScalarVariable name="x" valueReference="1" causality="output"><Real/></ScalarVariable>"#
        ));
        let (md, warnings) = parse_warn(&xml);
        assert_eq!(md.variables.len(), 2);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].ends_with("they are one value (an alias), which 'x' refers to"),
            "{warnings:?}"
        );
        assert!(matches!(md.lookup("x"), NameLookup::Found(v) if v.index == 1));
        // The same value reference in another type's space, or a negated alias, is another
        // value: ambiguous.
        for other in [
            r#"<ScalarVariable name="x" valueReference="1"><Integer/></ScalarVariable>"#,
            r#"<ScalarVariable name="x" valueReference="1" alias="negatedAlias"><Real/></ScalarVariable>"#,
        ] {
            let (md, warnings) = parse_warn(&v1(&format!("{X_REAL_1}{other}")));
            assert!(matches!(md.lookup("x"), NameLookup::Ambiguous(all) if all.len() == 2));
            assert!(warnings[0].contains("refused as ambiguous"), "{warnings:?}");
        }
        let (_, warnings) = parse_warn(&v1(&format!(
            r#"{X_REAL_1}<ScalarVariable name="x" valueReference="1" alias="negatedAlias"><Real/></ScalarVariable>"#
        )));
        assert!(
            warnings[0].contains("ScalarVariable #2 (Real, value reference 1, negatedAlias)"),
            "{warnings:?}"
        );
    }
}
