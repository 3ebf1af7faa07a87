//! Checks across variables, run after every `ScalarVariable` was converted on its own: names
//! are unique, and every FMI 1.0 alias has a base variable of its own type.
//!
//! Value references are unique per base type only (Real, Integer/Enumeration, Boolean,
//! String), so a Real and an Integer may share one: that is not checked, it is legal. In FMI 2.0
//! an Integer and an Enumeration share the Integer value-reference space, so two such variables
//! with the same value reference are aliases of one value; they are accepted, whatever their
//! `declaredType` (the value is an `fmi2Integer` either way). In FMI 1.0 an alias is explicit
//! (`alias="alias"` or `"negatedAlias"`) and names no base variable: the base is the non-alias
//! variable with the same value reference and base type, and it must exist.
//!
//! Spec: FMI 2.0.2 §2.2.7 (`name` unique, `valueReference` unique per base type), FMI 1.0 §2.4
//! (`alias`, `valueReference`).

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use super::Ctx;
use crate::model_description::{Alias, ScalarVariable, VarType};
use crate::{Error, Result};

/// `ScalarVariable #k 'name'`, the way every variable error names its element.
fn element(v: &ScalarVariable) -> String {
    format!("ScalarVariable #{} '{}'", v.index, v.name)
}

impl Ctx<'_> {
    /// Refuses a variable whose name an earlier variable already has.
    pub(super) fn check_unique_names(&self, variables: &[ScalarVariable]) -> Result<()> {
        let mut seen: HashMap<&str, usize> = HashMap::with_capacity(variables.len());
        for v in variables {
            match seen.entry(v.name.as_str()) {
                Entry::Occupied(first) => {
                    return Err(Error::DuplicateVariableName {
                        path: self.path.to_owned(),
                        element: element(v),
                        first: *first.get(),
                    });
                }
                Entry::Vacant(slot) => {
                    slot.insert(v.index);
                }
            }
        }
        Ok(())
    }

    /// FMI 1.0: every `alias`/`negatedAlias` variable needs a `noAlias` variable with the same
    /// value reference and base type (Enumeration counts as Integer).
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
            return Err(match other {
                Some(base) => Error::AliasTypeMismatch {
                    path: self.path.to_owned(),
                    element: element(v),
                    alias: v.alias,
                    var_type: v.var_type,
                    value_reference: vr,
                    base: element(base),
                    base_type: base.var_type,
                },
                None => Error::AliasWithoutBase {
                    path: self.path.to_owned(),
                    element: element(v),
                    alias: v.alias,
                    var_type: v.var_type,
                    value_reference: vr,
                },
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::model_description::{Alias, ModelDescription, VarType};
    use crate::{Error, Result};

    fn parse(xml: &str) -> Result<ModelDescription> {
        ModelDescription::parse(xml, Path::new("modelDescription.xml"))
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
    fn v1_alias_without_any_base_is_refused() {
        let xml = v1(&format!(
            r#"{X_REAL_1}
            <ScalarVariable name="b" valueReference="7" alias="negatedAlias"><Boolean/></ScalarVariable>"#
        ));
        let err = parse(&xml).unwrap_err();
        assert_eq!(
            err.to_string(),
            "modelDescription.xml: ScalarVariable #2 'b': alias=\"negatedAlias\" of value \
             reference 7, but no non-alias Boolean variable has this value reference"
        );
        // Two aliases of each other, neither a base.
        let xml = v1(
            r#"<ScalarVariable name="a" valueReference="3" alias="alias"><Real/></ScalarVariable>
               <ScalarVariable name="b" valueReference="3" alias="alias"><Real/></ScalarVariable>"#,
        );
        assert!(matches!(
            parse(&xml).unwrap_err(),
            Error::AliasWithoutBase { .. }
        ));
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
    fn duplicate_names_are_refused_in_both_versions() {
        let duplicate = format!(
            r#"{X_REAL_1}
            <ScalarVariable name="u" valueReference="2"><Real/></ScalarVariable>
            <ScalarVariable name="x" valueReference="3"><Real/></ScalarVariable>"#
        );
        for xml in [v1(&duplicate), v2(&duplicate)] {
            let err = parse(&xml).unwrap_err();
            assert_eq!(
                err.to_string(),
                "modelDescription.xml: ScalarVariable #3 'x': name already used by \
                 ScalarVariable #1"
            );
        }
    }
}
