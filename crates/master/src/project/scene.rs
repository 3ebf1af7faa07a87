//! The `scene` line: the scene file the live view draws for this project.
//!
//! ```text
//! scene <path>
//! ```
//!
//! The path (in double quotes when it holds spaces) is relative to the project file's
//! directory. At most one `scene` line per project. The scene file itself (its TOML format,
//! its objects and their variables) is read and checked by the live view, before the run
//! starts (`docs/live.md`, "Scenes").
//!
//! Spec: mastersim's own keyword (`docs/project-format.md`); MasterSim 0.9.8 has none.

use std::path::{Path, PathBuf};

use super::lexer::{normalize, strip_comment, tokenize};
use super::{Project, ProjectError};

/// The `scene` line of a project.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneDef {
    /// The scene file, resolved against the project file's directory (also for `--set
    /// scene=<path>`).
    pub path: PathBuf,
    /// 1-based line number in the project file (or the pseudo line of a command-line option).
    pub line: usize,
}

/// What a valid line looks like.
const FORM: &str = "'scene <path of a .toml scene file>' (in double quotes when it holds spaces)";

/// Reads the `scene` line `rest` (after the keyword) at `file`:`line` into `project`;
/// `replace` for an override (which replaces the file's line).
///
/// # Errors
/// [`ProjectError::BadScene`] naming the file, the line and the problem: no path, more than
/// one word, a second `scene` line.
pub(super) fn read(
    project: &mut Project,
    file: &Path,
    line: usize,
    rest: &str,
    replace: bool,
) -> Result<(), ProjectError> {
    let bad = |problem: String| ProjectError::BadScene {
        file: file.to_path_buf(),
        line,
        problem,
        expected: FORM,
    };
    let text = strip_comment(rest).trim_end_matches([' ', '\t']);
    let words = tokenize(text).ok_or_else(|| bad("unterminated double quote".into()))?;
    let path_text = match words.as_slice() {
        [path] => path.trim_matches('"').replace('\\', "/"),
        [] => return Err(bad("the scene line names no file".into())),
        [_, more, ..] => return Err(bad(format!("unexpected '{more}' after the path"))),
    };
    if path_text.trim().is_empty() {
        return Err(bad("the scene line names no file".into()));
    }
    if let (Some(first), false) = (&project.scene, replace) {
        return Err(bad(format!(
            "a scene is already named on line {}",
            first.line
        )));
    }
    let dir = project.path.parent().unwrap_or(Path::new(""));
    project.scene = Some(SceneDef {
        path: normalize(&dir.join(path_text)),
        line,
    });
    Ok(())
}

/// The `scene` line of `def` as the project writer writes it into a file in `dir` (relative
/// to `dir` when the scene file lies below it, else absolute).
pub(super) fn line_text(def: &SceneDef, dir: &Path) -> String {
    let path = def.path.strip_prefix(dir).unwrap_or(&def.path);
    format!("scene \"{}\"", path.display())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    const SIMS: &str = "simulator 0 0 A #ff0000 a.fmu\n";

    fn parse(text: &str) -> Result<Project, ProjectError> {
        Project::parse(text, Path::new("/p/q.msim"))
    }

    #[test]
    fn the_path_is_relative_to_the_project_and_written_back() {
        let p = parse(&format!("{SIMS}scene \"views/my scene.toml\" # drawn\n")).unwrap();
        let def = p.scene.clone().unwrap();
        assert_eq!(
            (def.path.as_path(), def.line),
            (Path::new("/p/views/my scene.toml"), 2)
        );
        let written = p.to_text(Path::new("/p"), "");
        assert!(
            written.contains("scene \"views/my scene.toml\"\n"),
            "{written}"
        );
        assert_eq!(
            Project::parse(&written, Path::new("/p/q.msim"))
                .unwrap()
                .scene
                .unwrap()
                .path,
            def.path
        );
    }

    #[test]
    fn bad_lines_name_file_line_and_problem() {
        for (line, expected) in [
            ("scene", "names no file"),
            ("scene \"\"", "names no file"),
            ("scene a.toml b.toml", "unexpected 'b.toml' after the path"),
            ("scene \"a.toml", "unterminated double quote"),
        ] {
            let e = parse(&format!("{SIMS}{line}\n")).unwrap_err().to_string();
            assert!(e.starts_with("/p/q.msim:2: "), "{line}: {e}");
            assert!(e.contains(expected), "{line}: {e}");
        }
        let e = parse(&format!("{SIMS}scene a.toml\nscene b.toml\n"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("/p/q.msim:3: a scene is already named on line 2"),
            "{e}"
        );
    }
}
