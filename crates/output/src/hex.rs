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
}
