//! Array expansion: the scalars of one variable or alias, one per element in row-major
//! order, with their names, indices, handles and start values; and the small parsers of sizes
//! and Binary start values.
//!
//! Spec: FMI 3.0 §2.4.7.6 (`Dimension`, serialization of array values in row-major order).

use crate::ValueRef;
use crate::model_description::{ArrayElement, ScalarVariable};

/// The most scalars an FMI 3.0 FMU may expand into: variables, array elements and aliases
/// together.
pub(super) const MAX_SCALARS: usize = 1_000_000;

/// The most dimensions of one array.
pub(super) const MAX_DIMENSIONS: usize = 32;

/// The most memory the scalars may take, bytes (estimated by [`scalar_bytes`]): a long
/// description or start value is copied into every element of its array.
pub(super) const MAX_BYTES: usize = 1 << 30;

/// [`MAX_SCALARS`] in words, for [`crate::Error::ArrayTooLarge`].
pub(super) const SCALARS_LIMIT: &str = "1000000 scalars per FMU";

/// [`MAX_DIMENSIONS`] in words.
pub(super) const DIMENSIONS_LIMIT: &str = "32 dimensions per array";

/// [`MAX_BYTES`] in words.
pub(super) const BYTES_LIMIT: &str = "1 GiB of scalars per FMU";

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
    /// The length of the longest start value, bytes.
    fn longest(&self) -> usize {
        match self {
            Starts::None => 0,
            Starts::All(value) => value.len(),
            Starts::Each(values) => values.iter().map(String::len).max().unwrap_or(0),
        }
    }

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
    /// Estimated memory of the scalars so far, bytes.
    bytes: usize,
}

impl Expansion {
    /// Makes room for `count` more scalars of about `bytes_each` bytes each; `Err` holds the
    /// limit this would exceed (in words).
    pub(super) fn admit(&mut self, count: usize, bytes_each: usize) -> Result<(), &'static str> {
        self.scalars
            .len()
            .checked_add(count)
            .filter(|&n| n <= MAX_SCALARS)
            .ok_or(SCALARS_LIMIT)?;
        self.bytes = count
            .checked_mul(bytes_each)
            .and_then(|b| b.checked_add(self.bytes))
            .filter(|&b| b <= MAX_BYTES)
            .ok_or(BYTES_LIMIT)?;
        Ok(())
    }
}

/// Roughly the memory one scalar of `template` takes, bytes, when it is an element of an
/// array named `name` with `rank` dimensions (0 for a scalar variable): the struct, its
/// strings, its name and its [`ArrayElement`].
pub(super) fn scalar_bytes(
    template: &ScalarVariable,
    name: &str,
    rank: usize,
    starts: &Starts,
) -> usize {
    let strings: usize = [
        &template.description,
        &template.unit,
        &template.display_unit,
        &template.declared_type,
    ]
    .iter()
    .map(|s| s.as_ref().map_or(0, String::len))
    .sum();
    let index_digits = 21 * rank; // up to 20 digits and a comma per index
    let array = if rank == 0 {
        0
    } else {
        std::mem::size_of::<ArrayElement>() + name.len() + 2 * 8 * rank
    };
    std::mem::size_of::<ScalarVariable>()
        + strings
        + starts.longest()
        + name.len()
        + 2
        + index_digits
        + array
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
    fn limits_in_words_match_the_constants() {
        assert_eq!(SCALARS_LIMIT, format!("{MAX_SCALARS} scalars per FMU"));
        assert_eq!(
            DIMENSIONS_LIMIT,
            format!("{MAX_DIMENSIONS} dimensions per array")
        );
        assert_eq!(
            BYTES_LIMIT,
            format!("{} GiB of scalars per FMU", MAX_BYTES >> 30)
        );
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
