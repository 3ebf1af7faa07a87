//! Where the files an SSP refers to may be: a component's FMU or nested `.ssd`, a parameter
//! binding's `.ssv`, a parameter mapping's `.ssm`.
//!
//! An SSP is a self-contained package (SSP 2.0 §3, SSP 1.0 §8): references in an `.ssp` archive stay inside
//! the archive, references in a folder (or beside an `.ssd` given alone) stay inside that
//! folder. A `source` of `../…`, an absolute path or a `file:` URI that leads elsewhere would
//! let a system someone sends you read any file of the machine and load and run any FMU on it,
//! so it is refused unless the user allows it ([`crate::LoadOptions::allow_outside_references`],
//! the command line's `--allow-outside-references`). The check is made on the path as written
//! (`..` removed lexically) and, for a file that exists, on its real path, so that a symbolic
//! link inside the folder cannot lead outside either.

use std::cell::RefCell;
use std::path::{Component, Path, PathBuf};

use crate::error::{Result, SspError};

/// The folder references must stay in, or none.
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    /// The folder as given (absolute) and its real path; `None` when references may lead
    /// anywhere.
    root: Option<(PathBuf, PathBuf)>,
    /// What the folder is, for messages: "the archive '…'" or "the folder '…'".
    what: String,
    /// Every file admitted so far, in order (the files a run of the system reads).
    admitted: RefCell<Vec<PathBuf>>,
}

impl Scope {
    /// References confined to `root` (the folder of the SSD: an SSP folder, the folder of an
    /// `.ssd` given alone, or where the `archive` was extracted), unless `outside_allowed`.
    pub fn new(root: &Path, archive: Option<&Path>, outside_allowed: bool) -> Scope {
        let absolute = lexical(&std::path::absolute(root).unwrap_or_else(|_| root.into()));
        let what = match archive {
            Some(archive) => format!("the archive '{}'", archive.display()),
            None => format!("the folder '{}'", absolute.display()),
        };
        let root = (!outside_allowed).then(|| {
            let real = absolute.canonicalize().unwrap_or_else(|_| absolute.clone());
            (absolute, real)
        });
        Scope {
            root,
            what,
            admitted: RefCell::new(Vec::new()),
        }
    }

    /// The files admitted so far, each once, in the order first admitted.
    pub fn admitted(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = Vec::new();
        for path in self.admitted.borrow().iter() {
            if !files.contains(path) {
                files.push(path.clone());
            }
        }
        files
    }

    /// Checks that `path`, resolved from `source="…"` of `element` at `ssd:line`, is inside
    /// the scope, and records it as admitted.
    ///
    /// # Errors
    /// An [`SspError`] naming the element, the source and the folder it must stay in.
    pub fn check(
        &self,
        ssd: &Path,
        line: usize,
        element: &str,
        source: &str,
        path: &Path,
    ) -> Result<()> {
        let Some((absolute, real)) = &self.root else {
            self.admitted.borrow_mut().push(path.to_path_buf());
            return Ok(());
        };
        let written = lexical(&std::path::absolute(path).unwrap_or_else(|_| path.into()));
        let inside = written.starts_with(absolute)
            && written
                .canonicalize()
                .map_or(true, |target| target.starts_with(real));
        if inside {
            self.admitted.borrow_mut().push(path.to_path_buf());
            return Ok(());
        }
        Err(SspError::at(
            ssd,
            line,
            element,
            format!(
                "source=\"{source}\" refers to a file outside the SSP (its files must stay in \
                 {}); give --allow-outside-references to allow references outside it",
                self.what
            ),
        ))
    }
}

/// `path` with `.` components dropped and each `..` taking away the component before it (a
/// `..` at the root stays at the root), without asking the file system.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(part);
                }
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_stay_inside_the_root_unless_allowed() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = tmp.path().join("sys");
        std::fs::create_dir_all(root.join("sub")).expect("dirs");
        std::fs::write(tmp.path().join("secret.ssv"), "x").expect("outside file");
        let scope = Scope::new(&root, None, false);
        let ssd = root.join("SystemStructure.ssd");
        let check = |path: PathBuf| scope.check(&ssd, 3, "ParameterBinding", "s", &path);
        assert!(check(root.join("a.ssv")).is_ok());
        assert!(check(root.join("sub/../b.ssv")).is_ok());
        assert!(check(root.join("a.ssv")).is_ok());
        assert_eq!(
            scope.admitted(),
            [root.join("a.ssv"), root.join("sub/../b.ssv")]
        );
        assert!(check(root.join("../secret.ssv")).is_err());
        assert!(check(root.join("sub/../../secret.ssv")).is_err());
        assert!(check(PathBuf::from("/etc/passwd")).is_err());
        std::os::unix::fs::symlink(tmp.path().join("secret.ssv"), root.join("link.ssv"))
            .expect("symlink");
        let error = check(root.join("link.ssv")).expect_err("the link leads outside");
        assert!(error.to_string().contains("outside the SSP"), "{error}");
        let open = Scope::new(&root, None, true);
        assert!(
            open.check(&ssd, 3, "e", "s", Path::new("/etc/passwd"))
                .is_ok()
        );
    }
}
