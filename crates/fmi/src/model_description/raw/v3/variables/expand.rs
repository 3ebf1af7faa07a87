//! Array expansion: the scalars of one variable or alias, one per element in row-major
//! order, with their names, indices, handles and start values; and the small parsers of sizes
//! and Binary start values.
//!
//! Spec: FMI 3.0 §2.4.7.6 (`Dimension`, serialization of array values in row-major order).

use crate::ValueRef;
use crate::model_description::{ArrayElement, ScalarVariable};

/// The start values of a variable's scalars.
pub(super) enum Starts {
    /// No start value.
    None,
    /// One value for every element.
    All(String),
    /// One value per element, in row-major order.
    Each(Vec<String>),
}

impl Starts {
    /// The start value of the element at `offset`.
    fn get(&self, offset: usize) -> Option<String> {
        match self {
            Starts::None => None,
            Starts::All(value) => Some(value.clone()),
            Starts::Each(values) => values.get(offset).cloned(),
        }
    }
}

/// The scalars built so far, with the variable or alias each came from (for error messages).
#[derive(Default)]
pub(super) struct Expansion {
    pub(super) scalars: Vec<ScalarVariable>,
    /// For each scalar, its position in `owners`.
    pub(super) owner_of: Vec<usize>,
    /// The element of each variable, alias and clock, e.g. `ModelVariables/Float64[1] 'h'`.
    pub(super) owners: Vec<String>,
}

/// The value of an array size: a non-negative integer that fits in `usize`.
pub(super) fn size(text: &str) -> Option<usize> {
    text.trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| usize::try_from(n).ok())
}

/// A Binary start value in lowercase hexadecimal without prefix, or `None` when it is not
/// hexadecimal bytes.
pub(super) fn hex(text: &str) -> Option<String> {
    let text = text.trim();
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    (digits.len().is_multiple_of(2) && digits.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| digits.to_ascii_lowercase())
}

/// The name of an array element: `name[i]` or `name[i,j,…]` with `indices` from 1.
fn element_name(name: &str, indices: &[usize]) -> String {
    let mut text = String::with_capacity(name.len() + 2 + 4 * indices.len());
    text.push_str(name);
    text.push('[');
    for (k, i) in indices.iter().enumerate() {
        if k > 0 {
            text.push(',');
        }
        text.push_str(&i.to_string());
    }
    text.push(']');
    text
}

/// Appends the scalars of one variable or alias named `name` (the last owner of
/// `expansion`): one copy of `template` per element of `dimensions`, in row-major order, with
/// name, index, handle, array position and start value filled in.
pub(super) fn expand(
    expansion: &mut Expansion,
    template: &ScalarVariable,
    name: &str,
    dimensions: &[usize],
    starts: &Starts,
) {
    let owner = expansion.owners.len() - 1;
    let push = |expansion: &mut Expansion, name: String, array, offset| {
        let index = expansion.scalars.len() + 1;
        let mut scalar = template.clone();
        scalar.index = index;
        scalar.handle = ValueRef(u32::try_from(index - 1).unwrap_or(u32::MAX));
        scalar.name = name;
        scalar.array = array;
        scalar.start = starts.get(offset);
        expansion.scalars.push(scalar);
        expansion.owner_of.push(owner);
    };
    if dimensions.is_empty() {
        push(expansion, name.to_owned(), None, 0);
        return;
    }
    if dimensions.contains(&0) {
        return;
    }
    let len: usize = dimensions.iter().product();
    let mut indices = vec![1usize; dimensions.len()];
    for offset in 0..len {
        let array = ArrayElement {
            array: name.to_owned(),
            dimensions: dimensions.to_vec(),
            indices: indices.clone(),
            offset,
        };
        push(expansion, element_name(name, &indices), Some(array), offset);
        // Next index, last one fastest.
        for (i, &d) in indices.iter_mut().zip(dimensions).rev() {
            if *i < d {
                *i += 1;
                break;
            }
            *i = 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_values_are_normalized() {
        assert_eq!(hex("666F6f").as_deref(), Some("666f6f"));
        assert_eq!(hex(" 0xA0 ").as_deref(), Some("a0"));
        assert_eq!(hex("0X").as_deref(), Some(""));
        assert_eq!(hex("").as_deref(), Some(""));
        for bad in ["abc", "zz", "0x0g", "12 34", "0xx1"] {
            assert_eq!(hex(bad), None, "{bad}");
        }
    }

    #[test]
    fn sizes_and_element_names() {
        assert_eq!(size(" 3 "), Some(3));
        assert_eq!(size("0"), Some(0));
        assert_eq!(size("-1"), None);
        assert_eq!(size("2.5"), None);
        assert_eq!(size(""), None);
        assert_eq!(element_name("x", &[2]), "x[2]");
        assert_eq!(element_name("x", &[1, 12, 3]), "x[1,12,3]");
    }
}
