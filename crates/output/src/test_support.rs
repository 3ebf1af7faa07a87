//! Helpers shared by the unit tests of several modules.

/// Pseudo-random finite `f64`s of every magnitude (xorshift over the bit patterns), after
/// the awkward ones.
pub(crate) fn reals(count: usize) -> Vec<f64> {
    let mut values = vec![
        0.0,
        -0.0,
        0.1,
        1.0 / 3.0,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        f64::MIN,
        f64::EPSILON,
        123_456_789_012_345_680.0,
    ];
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    while values.len() < count {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let v = f64::from_bits(state);
        if v.is_finite() {
            values.push(v);
        }
    }
    values
}

/// A Signal Table alias `name` of member `of` with unit `u` and info `alias <name>`.
pub(crate) fn table_alias(
    name: &str,
    of: usize,
    negated: bool,
    parameter: bool,
) -> crate::signal_table::TableAlias {
    crate::signal_table::TableAlias {
        name: name.to_string(),
        unit: "u".to_string(),
        info: format!("alias {name}"),
        of,
        negated,
        parameter,
    }
}
