//! Number readers with the semantics of the C/C++ routines MasterSim 0.9.8 relies on.
//!
//! MasterSim reads numbers in two different ways, and the difference is visible to users:
//!
//! * a **prefix float reader** (the `fast_float` library, behind `IBK::string2val<double>`) for
//!   tolerances, graph offsets and scale factors, file-reader cells and Real parameters. It takes
//!   no leading whitespace and no leading `+`, and stops at the first character that cannot
//!   continue the number: [`parse_float_prefix`], and its whole-text variant [`parse_float`];
//! * **C++ stream extraction** (`std::istream >> x` with the classic locale, as in libstdc++) for
//!   quantities such as `10 s` and for integers. It skips leading whitespace, accepts a `+`, and
//!   also stops at the first character that cannot continue the number, which is why `10s` reads
//!   as 10 followed by the unit `s`: [`extract_f64`], [`extract_u32`], [`extract_i32`],
//!   [`extract_i64`].
//!
//! All readers return the value and the unread rest of the text, so that callers decide whether
//! trailing text is allowed. They never panic.
//!
//! Spec: MasterSim reference §3.2 (reals), §3.3 (quantities), §15.4 (parsing helpers).

/// Reads a floating-point number at the start of `s`, as `fast_float::from_chars` does.
///
/// Accepted form: an optional `-`, then digits with an optional decimal point (at least one digit
/// before or after the point), then an optional exponent `e`/`E` with an optional sign and at
/// least one digit. An exponent without digits is not consumed (`1e` reads 1 and leaves `e`).
/// Also accepted, case-insensitively and after an optional `-`: `inf`, `infinity`, `nan` and
/// `nan(<letters, digits, _>)`, giving ±∞ and NaN as `strtod` does.
///
/// Not accepted (returns `None`): leading whitespace, a leading `+`, hexadecimal floats, text
/// without any digit. Out-of-range values become ±∞ or (±)0, like the correctly rounded
/// conversion they are.
///
/// Returns the value (correctly rounded) and the rest of `s` after the number.
///
/// Spec: MasterSim reference §3.2 (float reader), §15.4; the `fast_float` library's
/// `from_chars` with the general format.
pub fn parse_float_prefix(s: &str) -> Option<(f64, &str)> {
    let bytes = s.as_bytes();
    let mut i = 0;
    let negative = bytes.first() == Some(&b'-');
    if negative {
        i = 1;
    }
    if let Some(len) = inf_nan_len(&bytes[i..]) {
        let lower = s[i..i + 3].to_ascii_lowercase();
        let magnitude = if lower == "nan" {
            f64::NAN
        } else {
            f64::INFINITY
        };
        let value = if negative { -magnitude } else { magnitude };
        return Some((value, &s[i + len..]));
    }
    let int_digits = count_digits(&bytes[i..]);
    i += int_digits;
    let mut frac_digits = 0;
    if bytes.get(i) == Some(&b'.') {
        frac_digits = count_digits(&bytes[i + 1..]);
        i += 1 + frac_digits;
    }
    if int_digits + frac_digits == 0 {
        return None;
    }
    i += exponent_len(&bytes[i..]);
    let value = s[..i].parse::<f64>().ok()?;
    Some((value, &s[i..]))
}

/// Reads a floating-point number that must span the whole of `s` (see [`parse_float_prefix`]).
///
/// This is the strict form used where MasterSim silently ignored trailing garbage
/// (`absTol 1e-6abc`); mastersim rejects such text instead.
///
/// Spec: MasterSim reference §3.2 (float reader), with the trailing-garbage fix.
pub fn parse_float(s: &str) -> Option<f64> {
    match parse_float_prefix(s) {
        Some((value, "")) => Some(value),
        _ => None,
    }
}

/// Reads a `double` as `std::istream >> double` does with the classic locale (libstdc++).
///
/// Skips leading C whitespace (space, `\t`, `\n`, `\v`, `\f`, `\r`), then reads an optional `+`
/// or `-`, digits with an optional decimal point and, only after at least one mantissa digit, an
/// exponent marker `e`/`E` with an optional sign and digits. The collected text must be a complete
/// number, so `1e`, `1e+`, `.` and `-` fail (as the stream sets `failbit`). `inf`, `nan` and hex
/// floats fail too. A value that overflows to ±∞ fails (libstdc++ sets `failbit`); underflow
/// gives 0 or a subnormal value.
///
/// Returns the value and the rest of `s` after the number, e.g. `"10s"` gives `(10.0, "s")`.
///
/// Spec: MasterSim reference §3.3 (quantities read by stream extraction), §15.4; libstdc++
/// `num_get::do_get(double&)`.
pub fn extract_f64(s: &str) -> Option<(f64, &str)> {
    let start = skip_c_whitespace(s);
    let bytes = &s.as_bytes()[start..];
    let mut i = usize::from(matches!(bytes.first(), Some(b'+' | b'-')));
    let int_digits = count_digits(&bytes[i..]);
    i += int_digits;
    let mut frac_digits = 0;
    if bytes.get(i) == Some(&b'.') {
        frac_digits = count_digits(&bytes[i + 1..]);
        i += 1 + frac_digits;
    }
    if int_digits + frac_digits == 0 {
        return None;
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        // The stream takes the marker (and a sign right after it) even when no digit follows;
        // the conversion of the collected text then fails.
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp_digits = count_digits(&bytes[i..]);
        if exp_digits == 0 {
            return None;
        }
        i += exp_digits;
    }
    let text = &s[start..start + i];
    let value = text.parse::<f64>().ok()?;
    if value.is_infinite() {
        return None;
    }
    Some((value, &s[start + i..]))
}

/// Reads an `unsigned int` as `std::istream >> unsigned` does (libstdc++), without its wrap-around.
///
/// Skips leading C whitespace, accepts an optional `+`, then decimal digits. Fails on a value
/// above `u32::MAX` (the stream sets `failbit`) and, unlike libstdc++ (which reads `-1` as
/// 4294967295), on any minus sign.
///
/// Returns the value and the rest of `s` after the digits (`"2x"` gives `(2, "x")`).
///
/// Spec: MasterSim reference §3.2 (`maxIterations`), §3.4 (cycle); libstdc++
/// `num_get::do_get(unsigned&)`.
pub fn extract_u32(s: &str) -> Option<(u32, &str)> {
    let (negative, digits, rest) = split_integer(s)?;
    if negative {
        return None;
    }
    Some((digits.parse::<u32>().ok()?, rest))
}

/// Reads an `int` as `std::istream >> int` does (libstdc++).
///
/// Skips leading C whitespace, accepts an optional `+` or `-`, then decimal digits. Fails when the
/// value does not fit an `i32` (the stream sets `failbit`). `"12.5"` gives `(12, ".5")`.
///
/// Spec: MasterSim reference §3.6 (Integer parameters); libstdc++ `num_get::do_get(long&)`
/// narrowed to `int`.
pub fn extract_i32(s: &str) -> Option<(i32, &str)> {
    let (value, rest) = extract_i64(s)?;
    Some((i32::try_from(value).ok()?, rest))
}

/// Reads a 64-bit signed integer with the rules of [`extract_i32`].
///
/// Spec: as [`extract_i32`], with the range of `i64`.
pub fn extract_i64(s: &str) -> Option<(i64, &str)> {
    let (negative, digits, rest) = split_integer(s)?;
    // Parse with the sign attached so that i64::MIN is representable.
    let value = if negative {
        format!("-{digits}").parse::<i64>().ok()?
    } else {
        digits.parse::<i64>().ok()?
    };
    Some((value, rest))
}

/// Splits `<ws><sign><digits><rest>`; `None` when there is no digit.
fn split_integer(s: &str) -> Option<(bool, &str, &str)> {
    let start = skip_c_whitespace(s);
    let t = &s[start..];
    let (negative, unsigned) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let n = count_digits(unsigned.as_bytes());
    if n == 0 {
        return None;
    }
    Some((negative, &unsigned[..n], &unsigned[n..]))
}

/// Byte offset of the first character that is not C whitespace.
fn skip_c_whitespace(s: &str) -> usize {
    s.bytes()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))
        .unwrap_or(s.len())
}

/// Number of leading ASCII digits.
fn count_digits(bytes: &[u8]) -> usize {
    bytes.iter().take_while(|b| b.is_ascii_digit()).count()
}

/// Length of a complete exponent (`e`, optional sign, at least one digit), or 0.
fn exponent_len(bytes: &[u8]) -> usize {
    if !matches!(bytes.first(), Some(b'e' | b'E')) {
        return 0;
    }
    let sign = usize::from(matches!(bytes.get(1), Some(b'+' | b'-')));
    let digits = count_digits(&bytes[1 + sign..]);
    if digits == 0 { 0 } else { 1 + sign + digits }
}

/// Length of an `inf`, `infinity`, `nan` or `nan(...)` word at the start, if any.
fn inf_nan_len(bytes: &[u8]) -> Option<usize> {
    let starts =
        |word: &[u8]| bytes.len() >= word.len() && bytes[..word.len()].eq_ignore_ascii_case(word);
    if starts(b"nan") {
        if bytes.get(3) == Some(&b'(') {
            let inner = bytes[4..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
            if bytes.get(4 + inner) == Some(&b')') {
                return Some(4 + inner + 1);
            }
        }
        return Some(3);
    }
    if starts(b"infinity") {
        return Some(8);
    }
    if starts(b"inf") {
        return Some(3);
    }
    None
}

/// C++ `std::min(a, b)`: `b < a ? b : a`, so a NaN in `b` yields `a`.
///
/// Spec: MasterSim reference §11.1 (the argument order MasterSim's step-size update relies on).
pub fn cpp_min(a: f64, b: f64) -> f64 {
    if b < a { b } else { a }
}

/// C++ `std::max(a, b)`: `a < b ? b : a`, so a NaN in `b` yields `a`.
///
/// Spec: MasterSim reference §11.1.
pub fn cpp_max(a: f64, b: f64) -> f64 {
    if a < b { b } else { a }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn float_prefix_accepts_fast_float_forms() {
        assert_eq!(parse_float_prefix("1e-6abc"), Some((1e-6, "abc")));
        assert_eq!(parse_float_prefix("-2.5"), Some((-2.5, "")));
        assert_eq!(parse_float_prefix(".5x"), Some((0.5, "x")));
        assert_eq!(parse_float_prefix("3."), Some((3.0, "")));
        assert_eq!(parse_float_prefix("1e"), Some((1.0, "e")));
        assert_eq!(parse_float_prefix("1e+"), Some((1.0, "e+")));
        assert_eq!(parse_float_prefix("1E+3 s"), Some((1000.0, " s")));
        assert_eq!(parse_float_prefix("1.5.3"), Some((1.5, ".3")));
        assert_eq!(parse_float_prefix("0x10"), Some((0.0, "x10")));
        assert_eq!(parse_float_prefix("1e400"), Some((f64::INFINITY, "")));
    }

    #[test]
    fn float_prefix_rejects_plus_whitespace_and_empty() {
        assert_eq!(parse_float_prefix("+1"), None);
        assert_eq!(parse_float_prefix(" 1"), None);
        assert_eq!(parse_float_prefix(""), None);
        assert_eq!(parse_float_prefix("-"), None);
        assert_eq!(parse_float_prefix("."), None);
        assert_eq!(parse_float_prefix("e5"), None);
        assert_eq!(parse_float_prefix("abc"), None);
    }

    #[test]
    fn float_prefix_inf_and_nan() {
        assert_eq!(parse_float_prefix("inf"), Some((f64::INFINITY, "")));
        assert_eq!(
            parse_float_prefix("-Infinity!"),
            Some((f64::NEG_INFINITY, "!"))
        );
        assert_eq!(parse_float_prefix("INFx"), Some((f64::INFINITY, "x")));
        let (v, rest) = parse_float_prefix("NaN(0x1f)z").unwrap();
        assert!(v.is_nan());
        assert_eq!(rest, "z");
        let (v, rest) = parse_float_prefix("nan(").unwrap();
        assert!(v.is_nan());
        assert_eq!(rest, "(");
        assert_eq!(parse_float_prefix("+inf"), None);
    }

    #[test]
    fn parse_float_requires_the_whole_text() {
        assert_eq!(parse_float("1e-6"), Some(1e-6));
        assert_eq!(parse_float("1e-6abc"), None);
        assert_eq!(parse_float("1 "), None);
    }

    #[test]
    fn stream_double_extraction() {
        assert_eq!(extract_f64("10s"), Some((10.0, "s")));
        assert_eq!(extract_f64("  +2.5 min"), Some((2.5, " min")));
        assert_eq!(extract_f64("\t-1e-05 s"), Some((-1e-5, " s")));
        assert_eq!(extract_f64("1.5.3"), Some((1.5, ".3")));
        assert_eq!(extract_f64("1e5e3"), Some((1e5, "e3")));
        assert_eq!(extract_f64("2ms"), Some((2.0, "ms")));
        assert_eq!(extract_f64("1e"), None);
        assert_eq!(extract_f64("1e+ s"), None);
        assert_eq!(extract_f64("."), None);
        assert_eq!(extract_f64("+"), None);
        assert_eq!(extract_f64("inf"), None);
        assert_eq!(extract_f64("nan"), None);
        assert_eq!(extract_f64("1e999"), None);
        assert_eq!(extract_f64("1e-999"), Some((0.0, "")));
        assert_eq!(extract_f64(""), None);
    }

    #[test]
    fn stream_integer_extraction() {
        assert_eq!(extract_u32(" 12 "), Some((12, " ")));
        assert_eq!(extract_u32("+7x"), Some((7, "x")));
        assert_eq!(extract_u32("-1"), None);
        assert_eq!(extract_u32("4294967295"), Some((u32::MAX, "")));
        assert_eq!(extract_u32("4294967296"), None);
        assert_eq!(extract_u32("x"), None);
        assert_eq!(extract_i32("-12.5"), Some((-12, ".5")));
        assert_eq!(extract_i32("2147483648"), None);
        assert_eq!(extract_i32("-2147483648"), Some((i32::MIN, "")));
        assert_eq!(extract_i64("-9223372036854775808"), Some((i64::MIN, "")));
        assert_eq!(extract_i64("9223372036854775808"), None);
        assert_eq!(extract_i64("-"), None);
    }

    proptest! {
        #[test]
        fn rust_formatted_floats_round_trip(v in any::<f64>().prop_filter("finite", |v| v.is_finite())) {
            let display = v.to_string();
            prop_assert_eq!(parse_float(&display), Some(v));
            prop_assert_eq!(extract_f64(&display), Some((v, "")));
            let exp = format!("{v:e}");
            prop_assert_eq!(parse_float(&exp), Some(v));
            let with_unit = format!(" {exp}s");
            prop_assert_eq!(extract_f64(&with_unit), Some((v, "s")));
        }

        #[test]
        fn integers_round_trip(v in any::<i32>(), u in any::<u32>()) {
            let signed = format!(" {v} rest");
            prop_assert_eq!(extract_i32(&signed), Some((v, " rest")));
            let unsigned = u.to_string();
            prop_assert_eq!(extract_u32(&unsigned), Some((u, "")));
        }

        #[test]
        fn readers_never_panic_and_rest_is_a_suffix(s in "\\PC{0,20}") {
            if let Some((_, rest)) = parse_float_prefix(&s) {
                prop_assert!(s.ends_with(rest));
            }
            if let Some((_, rest)) = extract_f64(&s) {
                prop_assert!(s.ends_with(rest));
            }
            let _ = extract_u32(&s);
            let _ = extract_i64(&s);
        }
    }
}
