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
