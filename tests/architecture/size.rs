//! The size limits of the house (issue 29): the binary's own code (`crates/cli/src`, `plot`
//! being a crate of its own) at most 800 lines; `Session` at most 12 fields; no function of
//! the library (`crates/mastersim`) longer than 100 lines.
//!
//! Function lengths come from a small scanner, not from `syn` (whose spans carry no lines
//! here): comments, string and character literals are blanked out, then every `fn` with a
//! body is measured from the line of `fn` to the line of its closing brace. Test code is left
//! out: `#[cfg(test)]` modules and files named `tests.rs`.

use std::path::{Path, PathBuf};

/// The `.rs` files under `dir`, recursively, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list '{}': {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read '{}': {e}", path.display()))
}

/// `text` with comments and the contents of string and character literals replaced by
/// blanks (line breaks kept), so that only code braces remain.
fn code_only(text: &str) -> Vec<char> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = chars.clone();
    let blank = |out: &mut Vec<char>, from: usize, to: usize| {
        for c in &mut out[from..to.min(chars.len())] {
            if *c != '\n' {
                *c = ' ';
            }
        }
    };
    let mut i = 0;
    while i < chars.len() {
        let rest = &chars[i..];
        let end = if rest.starts_with(&['/', '/']) {
            i + rest.iter().position(|&c| c == '\n').unwrap_or(rest.len())
        } else if rest.starts_with(&['/', '*']) {
            block_comment_end(&chars, i)
        } else if rest[0] == 'r' && raw_string_start(rest).is_some() && !ident_before(&chars, i) {
            let hashes = raw_string_start(rest).unwrap_or(0);
            raw_string_end(&chars, i + 2 + hashes, hashes)
        } else if rest[0] == '"' {
            string_end(&chars, i + 1)
        } else if rest[0] == '\'' {
            char_literal_end(rest).map_or(i + 1, |n| i + n)
        } else {
            i += 1;
            continue;
        };
        blank(&mut out, i, end);
        i = end.max(i + 1);
    }
    out
}

fn ident_before(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// The end (exclusive) of the block comment starting at `i` (nested comments counted).
fn block_comment_end(chars: &[char], mut i: usize) -> usize {
    let mut depth = 0;
    while i + 1 < chars.len() {
        if chars[i] == '/' && chars[i + 1] == '*' {
            depth += 1;
            i += 2;
        } else if chars[i] == '*' && chars[i + 1] == '/' {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    chars.len()
}

/// For `r"…"`, `r#"…"#`, `br"…"`-style starts at `rest` (`r` first): the number of `#`.
fn raw_string_start(rest: &[char]) -> Option<usize> {
    let hashes = rest[1..].iter().take_while(|&&c| c == '#').count();
    (rest.get(1 + hashes) == Some(&'"')).then_some(hashes)
}

/// The end (exclusive) of a raw string whose contents start at `i`, closed by `"` and
/// `hashes` times `#`.
fn raw_string_end(chars: &[char], mut i: usize, hashes: usize) -> usize {
    while i < chars.len() {
        if chars[i] == '"'
            && chars[i + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == '#')
                .count()
                == hashes
        {
            return i + 1 + hashes;
        }
        i += 1;
    }
    chars.len()
}

/// The end (exclusive) of a string whose contents start at `i`.
fn string_end(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    chars.len()
}

/// The length of the character literal at `rest` (`'x'`, `'\n'`, `'\u{..}'`), or `None`
/// for a lifetime or label.
fn char_literal_end(rest: &[char]) -> Option<usize> {
    if rest.get(1) == Some(&'\\') {
        let close = rest[2..].iter().position(|&c| c == '\'')?;
        return Some(close + 3);
    }
    (rest.get(2) == Some(&'\'')).then_some(3)
}

/// The index of the brace that closes the one at `open`.
fn closing(code: &[char], open: usize) -> usize {
    let mut depth = 0;
    for (i, &c) in code.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    code.len()
}

fn line_of(code: &[char], i: usize) -> usize {
    code[..i].iter().filter(|&&c| c == '\n').count() + 1
}

/// The spans (index of `{` to index of `}`) of the `#[cfg(test)]` modules of `code`.
fn test_modules(code: &[char]) -> Vec<(usize, usize)> {
    let text: String = code.iter().collect();
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("#[cfg(test)]") {
        let start = from + at;
        let after = &text[start..];
        // The item the attribute belongs to: a module with a body, else nothing to skip.
        let semi = after.find(';').unwrap_or(usize::MAX);
        if let Some(brace) = after.find('{')
            && brace < semi
            && after[..brace].contains("mod ")
        {
            let open = text[..start + brace].chars().count();
            spans.push((open, closing(code, open)));
        }
        from = start + 1;
    }
    spans
}

/// Every function with a body in `text` that is longer than `limit` lines, as
/// `name (lines)`, test modules left out.
fn long_functions(text: &str, limit: usize) -> Vec<String> {
    let code = code_only(text);
    let tests = test_modules(&code);
    let mut long = Vec::new();
    let mut i = 0;
    while i + 3 < code.len() {
        let is_fn = code[i..].starts_with(&['f', 'n', ' '])
            && (i == 0 || !(code[i - 1].is_alphanumeric() || code[i - 1] == '_'));
        if !is_fn || tests.iter().any(|&(a, b)| a <= i && i <= b) {
            i += 1;
            continue;
        }
        let name: String = code[i + 3..]
            .iter()
            .take_while(|c| c.is_alphanumeric() || **c == '_')
            .collect();
        let body = code[i..].iter().position(|&c| c == '{' || c == ';');
        match body.map(|n| i + n) {
            Some(open) if code[open] == '{' => {
                let close = closing(&code, open);
                let lines = line_of(&code, close) - line_of(&code, i) + 1;
                if lines > limit {
                    long.push(format!(
                        "{name} ({lines} lines, line {})",
                        line_of(&code, i)
                    ));
                }
                i = open + 1;
            }
            _ => i += 3,
        }
    }
    long
}

#[test]
fn the_scanner_measures_functions() {
    let text = "fn a() {\n let s = \"}\"; let c = '{';\n // }\n}\nfn b<'x>(v: &'x str) -> usize {\n\n\n\n v.len() }\n#[cfg(test)]\nmod tests {\n fn c() {\n\n\n\n\n }\n}\ntrait T { fn d(&self); }\n";
    assert!(
        long_functions(text, 5).is_empty(),
        "{:?}",
        long_functions(text, 5)
    );
    assert_eq!(long_functions(text, 4), ["b (5 lines, line 5)"]);
    assert_eq!(
        long_functions(text, 3),
        ["a (4 lines, line 1)", "b (5 lines, line 5)"]
    );
}

/// The binary's own code, `crates/cli/src` (`plot` is crate `mastersim-plot`), is at most
/// 800 lines: run logic belongs in the library.
#[test]
fn the_binary_is_at_most_800_lines() {
    let src = mastersim_tests::workspace_root().join("crates/cli/src");
    let files = rust_files(&src);
    let mut counts = Vec::new();
    let mut total = 0;
    for file in files
        .iter()
        .filter(|f| !f.components().any(|c| c.as_os_str() == "plot"))
    {
        let lines = read(file).lines().count();
        total += lines;
        counts.push(format!("{}: {lines}", file.display()));
    }
    assert!(
        total <= 800,
        "crates/cli/src holds {total} lines: {counts:?}"
    );
}

/// `Session` has at most 12 fields: what a session holds is grouped by concept.
#[test]
fn the_session_has_at_most_12_fields() {
    let path = mastersim_tests::workspace_root().join("crates/mastersim/src/session.rs");
    let file = syn::parse_file(&read(&path)).expect("session.rs parses");
    let fields = file
        .items
        .iter()
        .find_map(|item| match item {
            syn::Item::Struct(s) if s.ident == "Session" => Some(s.fields.len()),
            _ => None,
        })
        .expect("struct Session in crates/mastersim/src/session.rs");
    assert!(
        fields <= 12,
        "Session has {fields} fields, at most 12 expected"
    );
}

/// No function of the library, `crates/mastersim`, is longer than 100 lines (test code left
/// out).
#[test]
fn no_function_of_the_library_is_over_100_lines() {
    let src = mastersim_tests::workspace_root().join("crates/mastersim/src");
    let mut long = Vec::new();
    for file in rust_files(&src) {
        if file.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        for function in long_functions(&read(&file), 100) {
            long.push(format!("{}: {function}", file.display()));
        }
    }
    assert!(long.is_empty(), "functions over 100 lines: {long:#?}");
}
