//! Binary values as text: lowercase hexadecimal digit pairs, the form in which result files
//! hold FMI 3.0 Binary values (`strings.csv`, Signal Table JSON), and the form of Binary start
//! values in FMI 3.0 model descriptions (`xs:hexBinary`, written in lowercase here).
//!
//! Spec: FMI 3.0 §2.4.7.4 (Binary start values in hexadecimal); `docs/results.md`.
//!
//! # Examples
//! ```
//! let mut text = String::from("old");
//! output::hex::write_hex(b"foo\0", &mut text);
//! assert_eq!(text, "666f6f00");
//! ```

/// The digits, indexed by value.
const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Replaces the contents of `text` with `bytes` in lowercase hexadecimal digit pairs (two
/// digits per byte, no prefix; empty for no bytes). Allocates only when `text` is shorter than
/// twice `bytes.len()` in capacity.
pub fn write_hex(bytes: &[u8], text: &mut String) {
    text.clear();
    text.reserve(2 * bytes.len());
    for &b in bytes {
        text.push(char::from(DIGITS[usize::from(b >> 4)]));
        text.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
}

/// `bytes` in lowercase hexadecimal digit pairs, as a new `String` (see [`write_hex`]).
pub fn to_hex(bytes: &[u8]) -> String {
    let mut text = String::new();
    write_hex(bytes, &mut text);
    text
}

/// Reads bytes written as hexadecimal digit pairs (`xs:hexBinary`, either case), with an
/// optional `0x` prefix (the FMI 3.0 notation of Binary start values); `None` when `text` is
/// not that (an odd number of digits, or a character that is no digit).
pub fn parse_hex(text: &str) -> Option<Vec<u8>> {
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    (0..digits.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(digits.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_as_two_lowercase_digits() {
        let all: Vec<u8> = (0..=255).collect();
        let text = to_hex(&all);
        assert_eq!(text.len(), 512);
        for (b, pair) in all.iter().zip(text.as_bytes().chunks(2)) {
            assert_eq!(pair, format!("{b:02x}").as_bytes());
        }
        assert_eq!(to_hex(&[]), "");
        assert_eq!(to_hex(b"foo"), "666f6f");
    }

    #[test]
    fn parsing_reads_what_writing_wrote() {
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(parse_hex(&to_hex(&all)), Some(all));
        assert_eq!(parse_hex("0x00fF10"), Some(vec![0, 255, 16]));
        assert_eq!(parse_hex(""), Some(vec![]));
        assert_eq!(parse_hex("0"), None);
        assert_eq!(parse_hex("zz"), None);
        assert_eq!(parse_hex("é0"), None);
    }
}
