//! `isolate` lines: which slaves run in a helper process of their own, and with which of the
//! binaries their FMU ships.
//!
//! ```text
//! isolate <slave> [platform=linux64|linux32|win64|win32]
//! ```
//!
//! The platform names are FMI 2.0's folder names under `binaries/`; FMI 3.0's platform tuples
//! (`x86_64-linux`, `x86-linux`, `x86_64-windows`, `x86-windows`) are accepted too. Without
//! `platform=` the slave runs the binary for this machine in a helper, or, when the FMU has
//! none, the first binary a helper can run here.
//!
//! Spec: mastersim's own keyword (`docs/isolation.md`, `docs/project-format.md`); the platform
//! folders of FMI 2.0.2 §2.3 and FMI 3.0 §2.5.1 (platform tuples).

use std::path::Path;

use fmi::isolation::Platform;

use super::{Project, ProjectError};

/// One `isolate` line: slave `slave` runs in a helper process.
#[derive(Debug, Clone, PartialEq)]
pub struct IsolateDef {
    /// The slave the line is about.
    pub slave: String,
    /// `platform=`: the binary of the FMU to run (`None`: this machine's if the FMU ships it,
    /// else the first one a helper can run here).
    pub platform: Option<Platform>,
    /// 1-based line number in the project file (or the pseudo line of a command-line option).
    pub line: usize,
}

/// What a valid line looks like.
const FORM: &str =
    "'isolate <slave>' optionally followed by 'platform=linux64|linux32|win64|win32'";

/// Reads the `isolate` line `rest` (after the keyword) at `file`:`line` into `project`;
/// `replace` for an override (which replaces an earlier line of the same slave).
///
/// # Errors
/// [`ProjectError::BadIsolate`] naming the file, the line
/// and the problem: a malformed line, an unknown platform or setting, an unknown slave, a
/// second line for one slave.
pub(super) fn read(
    project: &mut Project,
    file: &Path,
    line: usize,
    rest: &str,
    replace: bool,
) -> Result<(), ProjectError> {
    let bad = |problem: String| ProjectError::BadIsolate {
        file: file.to_path_buf(),
        line,
        problem,
        expected: FORM,
    };
    let text = super::lexer::strip_comment(rest).trim_end_matches([' ', '\t']);
    let words: Vec<&str> = text.split([' ', '\t']).filter(|w| !w.is_empty()).collect();
    let [slave, settings @ ..] = words.as_slice() else {
        return Err(bad("malformed isolate line".into()));
    };
    let mut platform = None;
    for setting in settings {
        match setting.split_once('=') {
            Some(("platform", name)) => {
                platform = Some(
                    Platform::from_name(name)
                        .ok_or_else(|| bad(format!("'{name}' is not a platform")))?,
                );
            }
            Some((name, _)) => return Err(bad(format!("unknown setting '{name}'"))),
            None => return Err(bad(format!("'{setting}' is not <name>=<value>"))),
        }
    }
    if !project.simulators.iter().any(|s| s.name == *slave) {
        let names: Vec<&str> = project.simulators.iter().map(|s| s.name.as_str()).collect();
        return Err(bad(format!(
            "isolate names unknown slave '{slave}' (slaves: {}); it must follow the slave's simulator line",
            names.join(", ")
        )));
    }
    let def = IsolateDef {
        slave: (*slave).to_owned(),
        platform,
        line,
    };
    match project.isolated.iter().position(|d| d.slave == def.slave) {
        Some(i) if replace => project.isolated[i] = def,
        Some(i) => {
            return Err(bad(format!(
                "isolate for slave '{}' is already given on line {}",
                def.slave, project.isolated[i].line
            )));
        }
        None => project.isolated.push(def),
    }
    Ok(())
}

/// The `isolate` line of `def` as the project writer writes it.
pub(super) fn line_text(def: &IsolateDef) -> String {
    match def.platform {
        Some(platform) => format!("isolate {} platform={}", def.slave, platform.fmi2_folder()),
        None => format!("isolate {}", def.slave),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    const SIMS: &str = "simulator 0 0 A #ff0000 a.fmu\nsimulator 1 0 B #00ff00 b.fmu\n";

    fn parse(text: &str) -> Result<Project, ProjectError> {
        Project::parse(text, Path::new("p.msim"))
    }

    #[test]
    fn lines_are_read_and_written_back() {
        let p = parse(&format!(
            "{SIMS}isolate A # own process\nisolate B platform=x86_64-windows\n"
        ))
        .unwrap();
        assert_eq!(
            p.isolated,
            vec![
                IsolateDef {
                    slave: "A".into(),
                    platform: None,
                    line: 3
                },
                IsolateDef {
                    slave: "B".into(),
                    platform: Some(Platform::Win64),
                    line: 4
                }
            ]
        );
        let written = p.to_text(Path::new("/"), "");
        assert!(
            written.contains("isolate A\nisolate B platform=win64\n"),
            "{written}"
        );
        assert_eq!(parse(&written).unwrap().isolated.len(), 2);
    }

    #[test]
    fn bad_lines_name_file_line_and_problem() {
        for (line, expected) in [
            ("isolate", "malformed isolate line"),
            ("isolate A platform=sparc", "'sparc' is not a platform"),
            ("isolate A timeout=3", "unknown setting 'timeout'"),
            ("isolate A win64", "'win64' is not <name>=<value>"),
            ("isolate C", "unknown slave 'C' (slaves: A, B)"),
        ] {
            let e = parse(&format!("{SIMS}{line}\n")).unwrap_err().to_string();
            assert!(e.starts_with("p.msim:3: "), "{line}: {e}");
            assert!(e.contains(expected), "{line}: {e}");
        }
        let e = parse(&format!("{SIMS}isolate A\nisolate A\n"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("p.msim:4: isolate for slave 'A' is already given on line 3"),
            "{e}"
        );
    }

    #[test]
    fn an_override_replaces_the_line() {
        let mut p = parse(&format!("{SIMS}isolate A\n")).unwrap();
        p.apply_overrides(&["isolate=A platform=linux32".to_owned()], None)
            .unwrap();
        assert_eq!(p.isolated.len(), 1);
        assert_eq!(p.isolated[0].platform, Some(Platform::Linux32));
        let e = p
            .apply_overrides(&["isolate=Z".to_owned()], None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--set isolate=Z") && e.contains("unknown slave 'Z'"),
            "{e}"
        );
    }
}
