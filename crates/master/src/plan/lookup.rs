//! The one lookup of a variable by a name the user wrote: a `graph` line, a `parameter` line
//! (or `--set`), an `--input` column, a value read at run time.
//!
//! FMI requires variable names to be unique, but real FMUs repeat one now and then; the fmi
//! crate reads such an FMU with a warning and keeps every variable. A name whose variables are
//! all one value (an alias under a repeated name: same value reference, type and sign) finds
//! the first of them. A name of different values is refused here, naming the value references
//! to choose from; the FMU itself is not refused, only the reference. A file-reader table with
//! a caption used twice is treated the same way.
//!
//! Spec: FMI 2.0.2 §2.2.7 and FMI 3.0 §2.4.7.4 (`name` unique), FMI 1.0 §2.4.

use std::path::Path;

use fmi::ScalarVariable;
use fmi::model_description::{NameLookup, lookup};

use crate::error::Location;
use crate::table::Table;
use crate::{Error, Result};

/// The variable named `variable` of the slave `slave` among its `variables` (declared in
/// `source_file`): `None` when no variable has the name (each caller reports that with hints
/// of its own); the first of them when all variables with the name are one value.
///
/// # Errors
/// [`Error::AmbiguousVariable`], located by `at`, when variables of different values have the
/// name.
pub(crate) fn find_variable<'a>(
    variables: &'a [ScalarVariable],
    slave: &str,
    variable: &str,
    source_file: &Path,
    at: impl FnOnce() -> Option<Location>,
) -> Result<Option<&'a ScalarVariable>> {
    match lookup(variables, variable) {
        NameLookup::Missing => Ok(None),
        NameLookup::Found(v) => Ok(Some(v)),
        NameLookup::Ambiguous(all) => Err(Error::AmbiguousVariable {
            at: at(),
            slave: slave.to_owned(),
            variable: variable.to_owned(),
            declared: format!(
                "{} declares it {} ({})",
                file_name(source_file),
                times(all.len()),
                choices(&all)
            )
            .into(),
        }),
    }
}

/// The column captioned `column` of the file reader `slave`'s `table` (its index among the
/// table's value columns), `None` when there is none.
///
/// # Errors
/// [`Error::AmbiguousVariable`], located by `at`, when several columns have the caption.
pub(crate) fn find_column(
    table: &Table,
    slave: &str,
    column: &str,
    at: impl FnOnce() -> Option<Location>,
) -> Result<Option<usize>> {
    let mut found = table
        .columns
        .iter()
        .enumerate()
        .filter(|(_, c)| c.name == column)
        .map(|(i, _)| i);
    let Some(first) = found.next() else {
        return Ok(None);
    };
    let others: Vec<usize> = found.collect();
    if others.is_empty() {
        return Ok(Some(first));
    }
    // File columns count from 1, and the first is the time.
    let numbers: Vec<String> = std::iter::once(first)
        .chain(others)
        .map(|i| (i + 2).to_string())
        .collect();
    Err(Error::AmbiguousVariable {
        at: at(),
        slave: slave.to_owned(),
        variable: column.to_owned(),
        declared: format!(
            "{} has {} columns with this caption (columns {})",
            file_name(&table.path),
            numbers.len(),
            and_list(&numbers)
        )
        .into(),
    })
}

/// The file name of `path`, for messages.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// `twice`, `3 times`, ….
fn times(n: usize) -> String {
    match n {
        2 => "twice".to_owned(),
        n => format!("{n} times"),
    }
}

/// The distinct values among `all` (scalars with one name), e.g. `value references 20 and 27`,
/// with the type when the values differ in type, and `negated` for an FMI 1.0 negated alias.
fn choices(all: &[&ScalarVariable]) -> String {
    let mut distinct: Vec<&ScalarVariable> = Vec::new();
    for v in all {
        if !distinct.iter().any(|d| d.same_value(v)) {
            distinct.push(v);
        }
    }
    let typed = distinct.iter().any(|v| v.var_type != distinct[0].var_type);
    let items: Vec<String> = distinct
        .iter()
        .map(|v| {
            let mut notes = Vec::new();
            if typed {
                notes.push(format!("{:?}", v.var_type));
            }
            if let Some(element) = &v.array {
                notes.push(format!(
                    "element {} of array '{}'",
                    element.offset + 1,
                    element.array
                ));
            }
            if v.alias == fmi::Alias::NegatedAlias {
                notes.push("negated".to_owned());
            }
            if notes.is_empty() {
                v.value_reference.0.to_string()
            } else {
                format!("{} ({})", v.value_reference.0, notes.join(", "))
            }
        })
        .collect();
    let noun = if items.len() == 1 {
        "value reference"
    } else {
        "value references"
    };
    format!("{noun} {}", and_list(&items))
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use fmi::{Alias, Causality, DataType, ScalarVariable, ValueRef, VarType, Variability};

    use super::{and_list, find_variable};
    use crate::Error;
    use crate::error::Location;

    fn real(index: usize, name: &str, vr: u32) -> ScalarVariable {
        ScalarVariable {
            index,
            name: name.to_owned(),
            value_reference: ValueRef(vr),
            handle: ValueRef(vr),
            data_type: DataType::Float64,
            array: None,
            description: None,
            causality: Causality::Local,
            variability: Variability::Continuous,
            initial: None,
            var_type: VarType::Real,
            is_enumeration: false,
            start: None,
            unit: None,
            display_unit: None,
            declared_type: None,
            alias: Alias::NoAlias,
        }
    }

    fn at() -> Option<Location> {
        Some(Location {
            file: "bad.msim".into(),
            line: Some(7),
        })
    }

    #[test]
    fn ambiguous_names_are_refused_with_the_value_references() {
        let variables = [
            real(1, "iepsi", 20),
            real(2, "x", 1),
            real(3, "iepsi", 27),
            real(4, "x", 1),
        ];
        let fmu = Path::new("/fmus/DPController.fmu");
        let err = find_variable(&variables, "Ctrl", "iepsi", fmu, at).unwrap_err();
        assert!(matches!(err, Error::AmbiguousVariable { .. }), "{err:?}");
        assert_eq!(
            err.to_string(),
            "bad.msim:7: 'Ctrl.iepsi' is ambiguous: DPController.fmu declares it twice (value \
             references 20 and 27)"
        );
        // One value under a repeated name: the first; a missing name: none.
        let found = find_variable(&variables, "Ctrl", "x", fmu, at).unwrap();
        assert_eq!(found.map(|v| v.index), Some(2));
        assert!(
            find_variable(&variables, "Ctrl", "y", fmu, at)
                .unwrap()
                .is_none()
        );
        // Without a location; the same value reference as another type, and negated.
        let mut integer = real(5, "iepsi", 20);
        integer.var_type = VarType::Integer;
        let mut negated = real(6, "iepsi", 27);
        negated.alias = Alias::NegatedAlias;
        let variables = [real(1, "iepsi", 20), integer, negated];
        let err = find_variable(&variables, "Ctrl", "iepsi", fmu, || None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "'Ctrl.iepsi' is ambiguous: DPController.fmu declares it 3 times (value references \
             20 (Real), 20 (Integer) and 27 (Real, negated))"
        );
    }

    #[test]
    fn lists_read_naturally() {
        let items = |n: usize| (1..=n).map(|i| i.to_string()).collect::<Vec<_>>();
        assert_eq!(and_list(&items(1)), "1");
        assert_eq!(and_list(&items(2)), "1 and 2");
        assert_eq!(and_list(&items(3)), "1, 2 and 3");
    }
}
