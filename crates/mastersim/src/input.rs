//! What a run reads: a MasterSim project, one FMU on its own, or an SSP system, told apart by
//! the path. Anything else is refused here, before a working directory is created or locked,
//! so that a mistyped command (`mastersim README.md`) leaves nothing behind.
//!
//! Spec: MasterSim reference §2 (the project file on the command line), §5 (working
//! directory); SSP 1.0 §8 (`.ssp` and `.ssd`); FMI 2.0.2 §2.3 (`.fmu`).

use std::path::Path;

use crate::{Error, Result};

/// The kind of input a run reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// A MasterSim project (`.msim`).
    Project,
    /// One FMU run on its own (`.fmu`), as a one-slave project.
    Fmu,
    /// An SSP system: an `.ssp` archive, an `.ssd` file (an SSP folder is read as its
    /// `SystemStructure.ssd`, see [`crate::run_input`]).
    Ssp,
}

impl InputKind {
    /// The kind of the input file `path` by its extension (any case): `.msim`, `.fmu`, `.ssp`
    /// or `.ssd`; `None` for any other name.
    pub fn by_extension(path: &Path) -> Option<InputKind> {
        let extension = path.extension()?.to_string_lossy().to_ascii_lowercase();
        match extension.as_str() {
            "msim" => Some(InputKind::Project),
            "fmu" => Some(InputKind::Fmu),
            "ssp" | "ssd" => Some(InputKind::Ssp),
            _ => None,
        }
    }

    /// Checks the run input `path` (as [`crate::run_input`] returns it) without creating
    /// anything: it must be an existing regular file of a known kind.
    ///
    /// # Errors
    /// [`Error::ProjectIsDirectory`] for a directory (without `SystemStructure.ssd`),
    /// [`Error::ProjectNotFound`] when nothing is there, [`Error::ProjectNotAFile`] for a
    /// named pipe, a device or a socket, [`Error::UnknownInput`] for a file of another
    /// extension (a Markdown file, a CSV table).
    pub fn check(path: &Path) -> Result<InputKind> {
        if path.is_dir() {
            return Err(Error::ProjectIsDirectory {
                path: path.to_path_buf(),
            });
        }
        if !path.is_file() {
            if path.exists() {
                return Err(Error::ProjectNotAFile {
                    path: path.to_path_buf(),
                    problem: output::input::why_not_a_file(path),
                });
            }
            return Err(Error::ProjectNotFound {
                path: path.to_path_buf(),
            });
        }
        InputKind::by_extension(path).ok_or_else(|| Error::UnknownInput {
            path: path.to_path_buf(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_extension_in_any_case() {
        let kind = |name: &str| InputKind::by_extension(Path::new(name));
        assert_eq!(kind("a/b.msim"), Some(InputKind::Project));
        assert_eq!(kind("Prey.FMU"), Some(InputKind::Fmu));
        assert_eq!(kind("s.ssp"), Some(InputKind::Ssp));
        assert_eq!(kind("SystemStructure.SSD"), Some(InputKind::Ssp));
        assert_eq!(kind("README.md"), None);
        assert_eq!(kind("project"), None);
    }

    #[test]
    fn check_refuses_what_is_not_an_input() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let readme = dir.path().join("README.md");
        std::fs::write(&readme, "# notes\n")?;
        let project = dir.path().join("p.msim");
        std::fs::write(&project, "tEnd 1 s\n")?;
        assert!(matches!(
            InputKind::check(&readme),
            Err(Error::UnknownInput { .. })
        ));
        assert!(matches!(
            InputKind::check(&dir.path().join("none.msim")),
            Err(Error::ProjectNotFound { .. })
        ));
        assert!(matches!(
            InputKind::check(dir.path()),
            Err(Error::ProjectIsDirectory { .. })
        ));
        assert_eq!(InputKind::check(&project).ok(), Some(InputKind::Project));
        let names: Vec<_> = std::fs::read_dir(dir.path())?.collect();
        assert_eq!(names.len(), 2, "nothing was created");
        Ok(())
    }
}
