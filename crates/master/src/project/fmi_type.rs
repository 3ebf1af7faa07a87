//! `fmiType` lines: which interface of its FMU a slave runs, and the integrator settings of a
//! Model Exchange slave.
//!
//! ```text
//! fmiType <slave> ModelExchange [solver=CVode|Euler] [relTol=<real>] [absTol=<real>] [maxStep=<time>]
//! fmiType <slave> CoSimulation
//! fmiType <slave> auto [solver=…] [relTol=…] [absTol=…] [maxStep=…]
//! ```
//!
//! `auto` keeps the default choice (co-simulation when the FMU offers it, else Model
//! Exchange) and gives the settings for the case that it is Model Exchange.
//!
//! Spec: mastersim's own keyword (`docs/project-format.md`); the interface names of FMI 2.0.2
//! §2.2.1 and FMPy's `fmi_type`; the solver settings of FMPy's `simulate_fmu`.

use std::path::Path;

use super::{Project, ProjectError, TimeSetting, TimeUnit};
use crate::number::{extract_f64, parse_float};

/// The interface of an FMU that a slave runs.
///
/// Spec: FMI 2.0.2 §2.2.1, FMI 3.0 §2.4.1 (`CoSimulation`, `ModelExchange`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FmiType {
    /// Co-simulation: the FMU steps itself.
    CoSimulation,
    /// Model Exchange: the master integrates the FMU's states.
    ModelExchange,
}

impl FmiType {
    /// The standard's name of the interface (`CoSimulation`, `ModelExchange`).
    pub fn keyword(self) -> &'static str {
        match self {
            FmiType::CoSimulation => "CoSimulation",
            FmiType::ModelExchange => "ModelExchange",
        }
    }

    /// Reads `CoSimulation` / `cs` or `ModelExchange` / `me` (case-insensitive; FMPy's and
    /// the command line's names); `None` for anything else.
    pub fn from_name(name: &str) -> Option<FmiType> {
        match name.to_ascii_lowercase().as_str() {
            "cosimulation" | "cs" => Some(FmiType::CoSimulation),
            "modelexchange" | "me" => Some(FmiType::ModelExchange),
            _ => None,
        }
    }
}

impl From<FmiType> for fmi::Interface {
    fn from(t: FmiType) -> fmi::Interface {
        match t {
            FmiType::CoSimulation => fmi::Interface::CoSimulation,
            FmiType::ModelExchange => fmi::Interface::ModelExchange,
        }
    }
}

impl std::str::FromStr for FmiType {
    type Err = String;

    /// As [`FmiType::from_name`], with a message saying what was expected.
    fn from_str(text: &str) -> Result<FmiType, String> {
        FmiType::from_name(text)
            .ok_or_else(|| format!("'{text}': expected me, cs, ModelExchange or CoSimulation"))
    }
}

/// The integrator settings a project gives a Model Exchange slave; what it leaves out is
/// resolved when the slave is instantiated (`crate::model_exchange::MeOptions`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SolverSettings {
    /// `solver=`: the integration method.
    pub method: Option<solver::Method>,
    /// `relTol=`: relative tolerance (> 0).
    pub rel_tol: Option<f64>,
    /// `absTol=`: absolute tolerance (> 0) before scaling by the states' nominals.
    pub abs_tol: Option<f64>,
    /// `maxStep=`: largest integrator step (> 0).
    pub max_step: Option<TimeSetting>,
}

/// One `fmiType` line.
#[derive(Debug, Clone, PartialEq)]
pub struct FmiTypeDef {
    /// The slave the line is about.
    pub slave: String,
    /// The interface it runs; `None` (`auto`): the default choice.
    pub fmi_type: Option<FmiType>,
    /// Integrator settings (Model Exchange only).
    pub solver: SolverSettings,
    /// 1-based line number in the project file (or the pseudo line of a command-line option).
    pub line: usize,
}

/// What a valid line looks like.
const FORM: &str = "'fmiType <slave> ModelExchange|CoSimulation|auto' followed, for ModelExchange \
     or auto, by any of 'solver=CVode|Euler', 'relTol=<real>', 'absTol=<real>', 'maxStep=<time>'";

/// Reads the `fmiType` line `rest` (after the keyword) at `file`:`line` into `project`
/// ([`parse`], then [`add`]; `replace` for an override).
///
/// # Errors
/// [`ProjectError::BadFmiType`] naming the file, the line and the problem.
pub(super) fn read(
    project: &mut Project,
    file: &Path,
    line: usize,
    rest: &str,
    replace: bool,
) -> Result<(), ProjectError> {
    let def = parse(file, line, rest)?;
    add(project, file, def, replace)
}

/// Parses the rest of an `fmiType` line (after the keyword) at `file`:`line`.
///
/// # Errors
/// [`ProjectError::BadFmiType`] naming the file, the line and the problem.
fn parse(file: &Path, line: usize, rest: &str) -> Result<FmiTypeDef, ProjectError> {
    let bad = |problem: String| ProjectError::BadFmiType {
        file: file.to_path_buf(),
        line,
        problem,
        expected: FORM,
    };
    let text = super::lexer::strip_comment(rest).trim_end_matches([' ', '\t']);
    let words: Vec<&str> = text.split([' ', '\t']).filter(|w| !w.is_empty()).collect();
    let [slave, interface, settings @ ..] = words.as_slice() else {
        return Err(bad("malformed fmiType line".into()));
    };
    let fmi_type = match *interface {
        "auto" => None,
        name => Some(
            FmiType::from_name(name).ok_or_else(|| bad(format!("'{name}' is not an FMI type")))?,
        ),
    };
    if fmi_type == Some(FmiType::CoSimulation) && !settings.is_empty() {
        return Err(bad(format!(
            "solver settings ('{}') apply to ModelExchange only",
            settings.join(" ")
        )));
    }
    let mut solver = SolverSettings::default();
    for setting in settings {
        let Some((name, value)) = setting.split_once('=') else {
            return Err(bad(format!("'{setting}' is not <name>=<value>")));
        };
        let positive = |value: &str| {
            parse_float(value)
                .filter(|v| v.is_finite() && *v > 0.0)
                .ok_or_else(|| {
                    bad(format!(
                        "{name} '{value}' is not a number greater than zero"
                    ))
                })
        };
        match name {
            "solver" => {
                solver.method = Some(value.parse().map_err(|_| {
                    bad(format!(
                        "'{value}' is not a solver, expected CVode or Euler"
                    ))
                })?);
            }
            "relTol" => solver.rel_tol = Some(positive(value)?),
            "absTol" => solver.abs_tol = Some(positive(value)?),
            "maxStep" => solver.max_step = Some(max_step(value, line).map_err(bad)?),
            _ => return Err(bad(format!("unknown setting '{name}'"))),
        }
    }
    Ok(FmiTypeDef {
        slave: (*slave).to_owned(),
        fmi_type,
        solver,
        line,
    })
}

/// `maxStep=<number>[<unit>]` (default unit s; the unit follows the number directly).
fn max_step(value: &str, line: usize) -> Result<TimeSetting, String> {
    let (number, unit) = extract_f64(value).ok_or_else(|| format!("invalid maxStep '{value}'"))?;
    let unit = if unit.is_empty() {
        TimeUnit::Second
    } else {
        TimeUnit::from_name(unit)
            .ok_or_else(|| format!("'{unit}' is not a time unit in maxStep"))?
    };
    let setting = TimeSetting::new(number, unit, Some(line));
    if !(setting.seconds.is_finite() && setting.seconds > 0.0) {
        return Err(format!("maxStep '{value}' is not greater than zero"));
    }
    Ok(setting)
}

/// Adds `def` to `project`: its slave must exist (known `slaves`), and a slave has one
/// `fmiType` line in a file; an override (`replace`) replaces the earlier line instead.
///
/// # Errors
/// [`ProjectError::BadFmiType`] for an unknown slave or a second line for one slave.
fn add(
    project: &mut Project,
    file: &Path,
    def: FmiTypeDef,
    replace: bool,
) -> Result<(), ProjectError> {
    let bad = |problem: String| ProjectError::BadFmiType {
        file: file.to_path_buf(),
        line: def.line,
        problem,
        expected: FORM,
    };
    if !project.simulators.iter().any(|s| s.name == def.slave) {
        let names: Vec<&str> = project.simulators.iter().map(|s| s.name.as_str()).collect();
        return Err(bad(format!(
            "fmiType names unknown slave '{}' (slaves: {}); it must follow the slave's simulator line",
            def.slave,
            names.join(", ")
        )));
    }
    match project.fmi_types.iter().position(|d| d.slave == def.slave) {
        Some(i) if replace => project.fmi_types[i] = def,
        Some(i) => {
            return Err(bad(format!(
                "fmiType for slave '{}' is already given on line {}",
                def.slave, project.fmi_types[i].line
            )));
        }
        None => project.fmi_types.push(def),
    }
    Ok(())
}

/// The `fmiType` line of `def` as the project writer writes it.
pub(super) fn line_text(def: &FmiTypeDef, time: impl Fn(&TimeSetting) -> String) -> String {
    let keyword = def.fmi_type.map_or("auto", FmiType::keyword);
    let mut s = format!("fmiType {} {keyword}", def.slave);
    let settings = &def.solver;
    if let Some(method) = settings.method {
        s.push_str(&format!(" solver={method}"));
    }
    if let Some(v) = settings.rel_tol {
        s.push_str(&format!(" relTol={v}"));
    }
    if let Some(v) = settings.abs_tol {
        s.push_str(&format!(" absTol={v}"));
    }
    if let Some(t) = &settings.max_step {
        s.push_str(&format!(" maxStep={}", time(t).replace(' ', "")));
    }
    s
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
        let text = format!(
            "{SIMS}fmiType A me solver=euler relTol=1e-8 absTol=1e-10 maxStep=5ms # c\n\
             fmiType B CoSimulation\n"
        );
        let p = parse(&text).unwrap();
        assert_eq!(p.fmi_types.len(), 2);
        let a = &p.fmi_types[0];
        assert_eq!(
            (a.slave.as_str(), a.fmi_type, a.line),
            ("A", Some(FmiType::ModelExchange), 3)
        );
        assert_eq!(a.solver.method, Some(solver::Method::Euler));
        assert_eq!(
            (a.solver.rel_tol, a.solver.abs_tol),
            (Some(1e-8), Some(1e-10))
        );
        assert_eq!(a.solver.max_step.map(|t| t.seconds), Some(0.005));
        assert_eq!(p.fmi_types[1].fmi_type, Some(FmiType::CoSimulation));
        let written = p.to_text(Path::new("/"), "");
        assert!(
            written.contains(
                "fmiType A ModelExchange solver=Euler relTol=0.00000001 absTol=0.0000000001 maxStep=5ms\n"
            ),
            "{written}"
        );
        let again = parse(&written).unwrap();
        let b = &again.fmi_types[0].solver;
        assert_eq!(
            (b.method, b.rel_tol, b.abs_tol),
            (a.solver.method, a.solver.rel_tol, a.solver.abs_tol)
        );
        assert_eq!(b.max_step.map(|t| t.seconds), Some(0.005));
        assert_eq!(again.fmi_types[1].fmi_type, Some(FmiType::CoSimulation));
    }

    #[test]
    fn bad_lines_name_file_line_and_problem() {
        for (line, expected) in [
            ("fmiType A", "malformed fmiType line"),
            ("fmiType A Scheduled", "'Scheduled' is not an FMI type"),
            ("fmiType A cs relTol=1e-6", "apply to ModelExchange only"),
            ("fmiType A me solver=rk4", "'rk4' is not a solver"),
            (
                "fmiType A me relTol=0",
                "relTol '0' is not a number greater than zero",
            ),
            ("fmiType A me absTol=x", "absTol 'x' is not a number"),
            (
                "fmiType A me maxStep=2 parsec",
                "'parsec' is not <name>=<value>",
            ),
            (
                "fmiType A me maxStep=-1s",
                "maxStep '-1s' is not greater than zero",
            ),
            ("fmiType A me order=5", "unknown setting 'order'"),
            ("fmiType C me", "unknown slave 'C' (slaves: A, B)"),
        ] {
            let e = parse(&format!("{SIMS}{line}\n")).unwrap_err().to_string();
            assert!(e.starts_with("p.msim:3: "), "{line}: {e}");
            assert!(e.contains(expected), "{line}: {e}");
        }
        let e = parse(&format!("{SIMS}fmiType A me\nfmiType A cs\n"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("p.msim:4: fmiType for slave 'A' is already given on line 3"),
            "{e}"
        );
    }

    #[test]
    fn an_override_replaces_the_line() {
        let mut p = parse(&format!("{SIMS}fmiType A me\n")).unwrap();
        p.apply_overrides(&["fmiType=A auto relTol=1e-9".to_owned()], None)
            .unwrap();
        assert_eq!(p.fmi_types.len(), 1);
        assert_eq!(p.fmi_types[0].fmi_type, None);
        assert_eq!(p.fmi_types[0].solver.rel_tol, Some(1e-9));
        let e = p
            .apply_overrides(&["fmiType=Z me".to_owned()], None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--set fmiType=Z me") && e.contains("unknown slave 'Z'"),
            "{e}"
        );
    }
}
