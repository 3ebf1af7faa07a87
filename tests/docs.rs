//! The user-facing documentation stands on its own: `README.md`, every crate's and FMU's
//! README and everything in `docs/` cite MasterSim 0.9.8 or the FMI standard, never files a
//! user does not have (the measured MasterSim reference, the style guide, the design seeds).

use std::path::{Path, PathBuf};

use mastersim_tests::workspace_root;

/// Texts that point into files outside the repository.
const FORBIDDEN: [&str; 5] = [
    "reference §",
    "STYLE.md",
    "shared/seeds",
    "mastersim-reference",
    "shared/docs",
];

/// The user-facing documents: README.md files (outside target/ and fuzz output) and docs/.
fn documents() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir)
            .expect("readable directory")
            .flatten()
        {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if !name.starts_with('.') && name != "target" {
                    walk(&path, out);
                }
            } else if name == "README.md" || path.parent().is_some_and(|p| p.ends_with("docs")) {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&workspace_root(), &mut files);
    files.sort();
    files
}

#[test]
fn user_docs_cite_no_files_users_do_not_have() {
    let documents = documents();
    let root = workspace_root();
    for needed in [
        "README.md",
        "docs/deviations.md",
        "crates/mastersim/README.md",
    ] {
        assert!(
            documents.contains(&root.join(needed)),
            "{needed} is not among the checked documents"
        );
    }
    let mut found = Vec::new();
    for path in &documents {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue; // a binary file in docs/ (the screenshot)
        };
        for (n, line) in text.lines().enumerate() {
            let lower = line.to_lowercase();
            for forbidden in FORBIDDEN {
                if lower.contains(&forbidden.to_lowercase()) {
                    found.push(format!("{}:{}: {line}", path.display(), n + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "user docs cite files users do not have:\n{}",
        found.join("\n")
    );
}
