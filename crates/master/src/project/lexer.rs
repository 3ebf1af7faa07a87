//! Line-level helpers of the project parser: the quote-aware tokenizer, comment removal, colours
//! and path normalisation.
//!
//! Spec: MasterSim reference §3.1, §3.4, §15.4.

use std::path::{Component, Path, PathBuf};

/// Splits `text` at spaces and tabs outside double quotes; quotes stay inside the tokens.
///
/// Returns `None` when a double quote is never closed.
pub(super) fn tokenize(text: &str) -> Option<Vec<&str>> {
    let mut tokens = Vec::new();
    let mut start = None;
    let mut in_quotes = false;
    for (i, c) in text.char_indices() {
        if c == '"' {
            in_quotes = !in_quotes;
        }
        let separator = !in_quotes && (c == ' ' || c == '\t');
        match (separator, start) {
            (true, Some(s)) => {
                tokens.push(&text[s..i]);
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if in_quotes {
        return None;
    }
    if let Some(s) = start {
        tokens.push(&text[s..]);
    }
    Some(tokens)
}

/// Removes a trailing comment: a `#` outside double quotes that starts `text` or follows a space
/// or tab ends the value. `text` is expected to start right after whitespace.
///
/// This fixes MasterSim, which has only full-line comments, so that `adjustStepSize yes # x` no
/// longer silently reads as false.
pub(super) fn strip_comment(text: &str) -> &str {
    let mut in_quotes = false;
    let mut after_blank = true;
    for (i, c) in text.char_indices() {
        match c {
            '"' => in_quotes = !in_quotes,
            '#' if !in_quotes && after_blank => return &text[..i],
            _ => {}
        }
        after_blank = c == ' ' || c == '\t';
    }
    text
}

/// Parses a colour as `0xAARRGGBB`: `#rrggbb` (opaque), `#aarrggbb`, or a decimal `u32`.
///
/// Spec: MasterSim reference §3.4 (`<color>`).
pub(super) fn parse_color(text: &str) -> Option<u32> {
    if let Some(hex) = text.strip_prefix('#') {
        if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let value = u32::from_str_radix(hex, 16).ok()?;
        return match hex.len() {
            6 => Some(0xff00_0000 | value),
            8 => Some(value),
            _ => None,
        };
    }
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Removes `.` and `..` segments without touching the file system (`..` at the root stays at
/// the root; leading `..` of a relative path are kept).
pub(super) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Makes `path` absolute (against the current directory) and normalised, without requiring it
/// to exist.
pub(super) fn absolute(path: &Path) -> PathBuf {
    normalize(&std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// File and line of the line being parsed, for errors.
pub(super) struct Ctx<'a> {
    pub(super) file: &'a Path,
    pub(super) line: usize,
}

impl Ctx<'_> {
    pub(super) fn file(&self) -> PathBuf {
        self.file.to_path_buf()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenizer_keeps_quotes_and_groups_spaces() {
        assert_eq!(
            tokenize(" 0\t0  A #fff \"a b/c.fmu\" "),
            Some(vec!["0", "0", "A", "#fff", "\"a b/c.fmu\""])
        );
        assert_eq!(tokenize("x\"a b\"y z"), Some(vec!["x\"a b\"y", "z"]));
        assert_eq!(tokenize(""), Some(vec![]));
        assert_eq!(tokenize("a \"b"), None);
    }

    #[test]
    fn comments_need_whitespace_before_and_no_quotes() {
        assert_eq!(strip_comment("yes # x"), "yes ");
        assert_eq!(strip_comment("#x"), "");
        assert_eq!(strip_comment("a#b"), "a#b");
        assert_eq!(strip_comment("\"a # b\" # c"), "\"a # b\" ");
        assert_eq!(strip_comment("a\t#b"), "a\t");
    }

    #[test]
    fn colours() {
        assert_eq!(parse_color("#447cb4"), Some(0xff44_7cb4));
        assert_eq!(parse_color("#FFC38200"), Some(0xffc3_8200));
        assert_eq!(parse_color("#00ff0000"), Some(0x00ff_0000));
        assert_eq!(parse_color("4286611584"), Some(4_286_611_584));
        for bad in [
            "#12345", "#1234567", "#ggg000", "red", "", "#", "-1", "+5", "#+12345",
        ] {
            assert_eq!(parse_color(bad), None, "{bad}");
        }
    }

    #[test]
    fn normalisation_is_lexical() {
        assert_eq!(
            normalize(Path::new("/a/b/../c/./d.fmu")),
            PathBuf::from("/a/c/d.fmu")
        );
        assert_eq!(normalize(Path::new("/../x")), PathBuf::from("/x"));
        assert_eq!(normalize(Path::new("../x/../y")), PathBuf::from("../y"));
        assert!(absolute(Path::new("p.msim")).is_absolute());
    }
}
