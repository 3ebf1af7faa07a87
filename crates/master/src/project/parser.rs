//! The line parser behind [`Project::parse`].
//!
//! Spec: MasterSim reference §3.1–§3.7, with the fixes listed on [`Project::parse`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::lexer::{Ctx, absolute, normalize, parse_color, strip_comment, tokenize};
use super::{
    ErrorControl, GraphEdge, MasterAlgorithm, NewtonDerivatives, NewtonJacobian, ParameterDef,
    Project, ProjectError, ResultFormat, SimulatorDef, TimeArithmetic, TimeSetting, TimeUnit,
    VariableRef,
};
use crate::number::{extract_f64, extract_i64, extract_u32, parse_float};

/// The general keywords (`<keyword> <value>` lines).
const KEYWORDS: [&str; 22] = [
    "tStart",
    "tEnd",
    "hMax",
    "hMin",
    "hFallBackLimit",
    "hStart",
    "hOutputMin",
    "outputTimeUnit",
    "adjustStepSize",
    "preventOversteppingOfEndTime",
    "absTol",
    "relTol",
    "MasterMode",
    "ErrorControlMode",
    "maxIterations",
    "writeInternalVariables",
    "writeUnconnectedFileReaderVars",
    "timeArithmetic",
    "NewtonJacobian",
    "NewtonDerivatives",
    "resultFormats",
    "outputThreshold",
];

/// The words that start the other line types.
const LINE_TYPES: [&str; 10] = [
    "simulator",
    "graph",
    "parameter",
    "outputOnly",
    "communicationInterval",
    "communicationOffset",
    "communicationTrigger",
    "fmiType",
    "isolate",
    "scene",
];

/// Parses the text of a project file; `path` names the file for errors and relative paths.
pub(super) fn parse(text: &str, path: &Path) -> Result<Project, ProjectError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut project = Project::with_defaults(absolute(path));
    let dir = project
        .path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    // Line of each slave's `simulator` line, by name.
    let mut slave_lines: HashMap<String, usize> = HashMap::new();
    for (index, raw) in text.split('\n').enumerate() {
        let ctx = Ctx {
            file: path,
            line: index + 1,
        };
        let line = raw.trim_matches([' ', '\t', '\r']);
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (word, rest) = match line.find([' ', '\t']) {
            Some(pos) => (&line[..pos], line[pos..].trim_start_matches([' ', '\t'])),
            None => (line, ""),
        };
        match word {
            "simulator" => {
                let sim = parse_simulator(&ctx, rest, &dir)?;
                if let Some(&first_line) = slave_lines.get(&sim.name) {
                    return Err(ProjectError::DuplicateSlave {
                        file: ctx.file(),
                        line: ctx.line,
                        name: sim.name,
                        first_line,
                    });
                }
                slave_lines.insert(sim.name.clone(), sim.line);
                project.simulators.push(sim);
            }
            "graph" => {
                let edge = parse_graph(&ctx, rest)?;
                project.graph.push(edge);
            }
            "parameter" => {
                let param = parse_parameter(&ctx, rest)?;
                if !slave_lines.contains_key(&param.slave) {
                    return Err(ProjectError::UnknownParameterSlave {
                        file: ctx.file(),
                        line: ctx.line,
                        slave: param.slave,
                    });
                }
                project.parameters.push(param);
            }
            "communicationInterval" | "communicationOffset" | "communicationTrigger" => {
                let def = super::communication::parse_communication(&ctx, word, rest)?;
                project.communication.push(def);
            }
            "fmiType" => super::fmi_type::read(&mut project, path, ctx.line, rest, false)?,
            "isolate" => super::isolate::read(&mut project, path, ctx.line, rest, false)?,
            "scene" => super::scene::read(&mut project, path, ctx.line, rest, false)?,
            "outputOnly" => {
                let pattern = strip_comment(rest).trim_end_matches([' ', '\t']);
                if pattern.is_empty() {
                    return Err(missing(&ctx, "outputOnly"));
                }
                project.output_only.push((pattern.to_owned(), ctx.line));
            }
            _ => parse_keyword(&ctx, &mut project, word, rest)?,
        }
    }
    super::communication::check_communication(&project, path, &slave_lines)?;
    Ok(project)
}

/// Applies the `--set` override `text` (`<keyword>=<value>` or `<slave>.<variable>=<value>`)
/// to `project` as the line `<keyword> <value>` or `parameter <slave>.<variable> <value>` at
/// the pseudo line `line` (see [`Project::location`]). With `single_slave`, a name that is not a
/// keyword is a variable of that slave, with or without the `<slave>.` prefix. The value is
/// taken verbatim (the shell has already removed quotes): no escapes, no comments.
///
/// # Errors
/// [`ProjectError::Override`] with the message the line would get in the file.
pub(super) fn apply_override(
    project: &mut Project,
    text: &str,
    line: usize,
    single_slave: Option<&str>,
) -> Result<(), ProjectError> {
    let option = format!("--set {text}");
    let wrap = |e: ProjectError| {
        let message = e.to_string();
        let prefix = format!("{option}:{line}: ");
        ProjectError::Override {
            reason: message.strip_prefix(&prefix).unwrap_or(&message).to_owned(),
            option: option.clone(),
        }
    };
    let expected = |reason: &str| ProjectError::Override {
        option: option.clone(),
        reason: format!(
            "{reason}, expected <keyword>=<value> (such as tEnd=10 s) or \
             <slave>.<variable>=<value>"
        ),
    };
    let Some((name, value)) = text.split_once('=') else {
        return Err(expected("no '='"));
    };
    let (name, value) = (
        name.trim_matches([' ', '\t']),
        value.trim_matches([' ', '\t']),
    );
    if name.is_empty() || value.is_empty() {
        return Err(expected("a name and a value are needed"));
    }
    let file = PathBuf::from(&option);
    let ctx = Ctx { file: &file, line };
    if KEYWORDS.contains(&name) {
        return parse_keyword(&ctx, project, name, value).map_err(wrap);
    }
    if name == "fmiType" {
        return super::fmi_type::read(project, &file, line, value, true).map_err(wrap);
    }
    if name == "isolate" {
        return super::isolate::read(project, &file, line, value, true).map_err(wrap);
    }
    if name == "scene" {
        return super::scene::read(project, &file, line, value, true).map_err(wrap);
    }
    let (slave, variable) = match (single_slave, name.split_once('.')) {
        (Some(slave), _) => (
            slave,
            name.strip_prefix(&format!("{slave}.")).unwrap_or(name),
        ),
        (None, Some((slave, variable))) if !slave.is_empty() && !variable.is_empty() => {
            (slave, variable)
        }
        (None, _) => {
            return Err(wrap(ProjectError::UnknownKeyword {
                file: ctx.file(),
                line,
                keyword: name.to_owned(),
                suggestion: suggestion(name),
            }));
        }
    };
    if !project.simulators.iter().any(|s| s.name == slave) {
        let known: Vec<&str> = project.simulators.iter().map(|s| s.name.as_str()).collect();
        return Err(expected(&format!(
            "'{slave}' is neither a keyword nor a slave of the project (slaves: {})",
            known.join(", ")
        )));
    }
    project.parameters.push(ParameterDef {
        slave: slave.to_owned(),
        variable: variable.to_owned(),
        value: value.to_owned(),
        line,
    });
    Ok(())
}

/// A keyword that `word` probably meant: same letters ignoring case, or the longest keyword that
/// `word` starts with (`parameters` → `parameter`).
fn suggestion(word: &str) -> Option<&'static str> {
    let all = || KEYWORDS.iter().chain(LINE_TYPES.iter()).copied();
    if let Some(k) = all().find(|k| k.eq_ignore_ascii_case(word)) {
        return Some(k);
    }
    let lower = word.to_ascii_lowercase();
    all()
        .filter(|k| lower.starts_with(&k.to_ascii_lowercase()))
        .max_by_key(|k| k.len())
}

fn missing(ctx: &Ctx, keyword: &'static str) -> ProjectError {
    ProjectError::MissingValue {
        file: ctx.file(),
        line: ctx.line,
        keyword,
    }
}

/// Parses a `<keyword> <value>` line into `project`.
fn parse_keyword(
    ctx: &Ctx,
    project: &mut Project,
    word: &str,
    rest: &str,
) -> Result<(), ProjectError> {
    let Some(keyword) = KEYWORDS.iter().copied().find(|k| *k == word) else {
        return Err(ProjectError::UnknownKeyword {
            file: ctx.file(),
            line: ctx.line,
            keyword: word.to_owned(),
            suggestion: suggestion(word),
        });
    };
    let value = strip_comment(rest).trim_end_matches([' ', '\t']);
    if value.is_empty() {
        return Err(missing(ctx, keyword));
    }
    project.keyword_lines.insert(keyword, ctx.line);
    match keyword {
        "tStart" => project.t_start = quantity(ctx, keyword, value)?,
        "tEnd" => project.t_end = quantity(ctx, keyword, value)?,
        "hMax" => project.h_max = quantity(ctx, keyword, value)?,
        "hMin" => project.h_min = quantity(ctx, keyword, value)?,
        "hFallBackLimit" => project.h_fallback_limit = quantity(ctx, keyword, value)?,
        "hStart" => project.h_start = quantity(ctx, keyword, value)?,
        "hOutputMin" => project.h_output_min = quantity(ctx, keyword, value)?,
        "outputTimeUnit" => {
            let word = single_word(ctx, keyword, value)?;
            project.output_time_unit = time_unit(ctx, keyword, word)?;
        }
        "adjustStepSize" => project.adjust_step_size = boolean(ctx, keyword, value)?,
        "preventOversteppingOfEndTime" => {
            project.prevent_overstepping_of_end_time = boolean(ctx, keyword, value)?;
        }
        "absTol" => project.abs_tol = real(ctx, keyword, value)?,
        "relTol" => project.rel_tol = real(ctx, keyword, value)?,
        "MasterMode" => {
            project.master_algorithm = match single_word(ctx, keyword, value)? {
                "GAUSS_JACOBI" => MasterAlgorithm::GaussJacobi,
                "GAUSS_SEIDEL" => MasterAlgorithm::GaussSeidel,
                "NEWTON" => MasterAlgorithm::Newton,
                other => {
                    return Err(bad_enum(
                        ctx,
                        keyword,
                        other,
                        "GAUSS_JACOBI, GAUSS_SEIDEL, NEWTON",
                    ));
                }
            };
        }
        "ErrorControlMode" => {
            project.error_control = match single_word(ctx, keyword, value)? {
                "NONE" => ErrorControl::None,
                "CHECK" => ErrorControl::Check,
                "ADAPT_STEP" | "STEP_DOUBLING" => ErrorControl::Adapt,
                other => {
                    return Err(bad_enum(
                        ctx,
                        keyword,
                        other,
                        "NONE, CHECK, ADAPT_STEP, STEP_DOUBLING",
                    ));
                }
            };
        }
        "maxIterations" => {
            let word = single_word(ctx, keyword, value)?;
            project.max_iterations = match extract_u32(word) {
                Some((n, "")) => n,
                _ => {
                    return Err(ProjectError::BadNumber {
                        file: ctx.file(),
                        line: ctx.line,
                        keyword,
                        value: word.to_owned(),
                        expected: "an unsigned integer such as 5",
                    });
                }
            };
        }
        "writeInternalVariables" => {
            project.write_internal_variables = boolean(ctx, keyword, value)?
        }
        "writeUnconnectedFileReaderVars" => {
            project.write_unconnected_file_reader_vars = boolean(ctx, keyword, value)?;
        }
        "NewtonJacobian" => {
            project.newton_jacobian = match single_word(ctx, keyword, value)? {
                "FULL" => NewtonJacobian::Full,
                "CHORD" => NewtonJacobian::Chord,
                other => return Err(bad_enum(ctx, keyword, other, "FULL, CHORD")),
            };
        }
        "NewtonDerivatives" => {
            project.newton_derivatives = match single_word(ctx, keyword, value)? {
                "AUTO" => NewtonDerivatives::Auto,
                "DIFFERENCE_QUOTIENTS" => NewtonDerivatives::DifferenceQuotients,
                other => return Err(bad_enum(ctx, keyword, other, "AUTO, DIFFERENCE_QUOTIENTS")),
            };
        }
        "resultFormats" => {
            let mut formats = Vec::new();
            for word in value.split([' ', '\t', ',']).filter(|w| !w.is_empty()) {
                let format = match word {
                    "csv" => ResultFormat::Csv,
                    "mat" => ResultFormat::Mat,
                    "json" => ResultFormat::Json,
                    other => return Err(bad_enum(ctx, keyword, other, "a list of csv, mat, json")),
                };
                if !formats.contains(&format) {
                    formats.push(format);
                }
            }
            project.result_formats = formats;
        }
        "outputThreshold" => {
            let threshold = real(ctx, keyword, value)?;
            if !(threshold.is_finite() && threshold > 0.0) {
                return Err(ProjectError::BadNumber {
                    file: ctx.file(),
                    line: ctx.line,
                    keyword,
                    value: value.to_owned(),
                    expected: "a relative threshold > 0 such as 1e-3",
                });
            }
            project.output_threshold = Some(threshold);
        }
        "timeArithmetic" => {
            project.time_arithmetic = match single_word(ctx, keyword, value)? {
                "MASTERSIM" => TimeArithmetic::MasterSim,
                "EXACT" => TimeArithmetic::Exact,
                other => return Err(bad_enum(ctx, keyword, other, "MASTERSIM, EXACT")),
            };
        }
        _ => unreachable!("invariant: every entry of KEYWORDS is handled"),
    }
    Ok(())
}

fn bad_enum(ctx: &Ctx, keyword: &'static str, value: &str, expected: &'static str) -> ProjectError {
    ProjectError::BadEnum {
        file: ctx.file(),
        line: ctx.line,
        keyword,
        value: value.to_owned(),
        expected,
    }
}

/// The value when it is a single word; extra words are an error.
fn single_word<'v>(
    ctx: &Ctx,
    keyword: &'static str,
    value: &'v str,
) -> Result<&'v str, ProjectError> {
    match value.find([' ', '\t']) {
        None => Ok(value),
        Some(pos) => Err(ProjectError::TrailingText {
            file: ctx.file(),
            line: ctx.line,
            keyword,
            text: value[pos..].trim_start_matches([' ', '\t']).to_owned(),
        }),
    }
}

fn time_unit(ctx: &Ctx, keyword: &'static str, unit: &str) -> Result<TimeUnit, ProjectError> {
    TimeUnit::from_name(unit).ok_or_else(|| ProjectError::NotATimeUnit {
        file: ctx.file(),
        line: ctx.line,
        keyword,
        unit: unit.to_owned(),
    })
}

/// `<number> <unit>`, the number read by stream extraction (so `10s` works).
fn quantity(ctx: &Ctx, keyword: &'static str, value: &str) -> Result<TimeSetting, ProjectError> {
    let bad = || ProjectError::BadQuantity {
        file: ctx.file(),
        line: ctx.line,
        keyword,
        value: value.to_owned(),
    };
    let (number, rest) = extract_f64(value).ok_or_else(bad)?;
    let rest = rest.trim_start_matches([' ', '\t']);
    if rest.is_empty() {
        return Err(bad());
    }
    let unit = single_word(ctx, keyword, rest)?;
    let unit = time_unit(ctx, keyword, unit)?;
    Ok(TimeSetting::new(number, unit, Some(ctx.line)))
}

fn boolean(ctx: &Ctx, keyword: &'static str, value: &str) -> Result<bool, ProjectError> {
    match single_word(ctx, keyword, value)? {
        "true" | "yes" | "1" => Ok(true),
        "false" | "no" | "0" => Ok(false),
        other => Err(ProjectError::BadBoolean {
            file: ctx.file(),
            line: ctx.line,
            keyword,
            value: other.to_owned(),
        }),
    }
}

fn real(ctx: &Ctx, keyword: &'static str, value: &str) -> Result<f64, ProjectError> {
    let word = single_word(ctx, keyword, value)?;
    parse_float(word).ok_or_else(|| ProjectError::BadNumber {
        file: ctx.file(),
        line: ctx.line,
        keyword,
        value: word.to_owned(),
        expected: "a number such as 1e-6 (no leading '+', nothing after it)",
    })
}

fn tokens_of<'t>(ctx: &Ctx, text: &'t str) -> Result<Vec<&'t str>, ProjectError> {
    tokenize(text).ok_or_else(|| ProjectError::UnterminatedQuote {
        file: ctx.file(),
        line: ctx.line,
    })
}

/// `simulator <index> <cycle> <name> <color> <path> [# comment]`.
fn parse_simulator(ctx: &Ctx, rest: &str, dir: &Path) -> Result<SimulatorDef, ProjectError> {
    let tokens = tokens_of(ctx, rest)?;
    // Only a token after the five fields can start a comment: the colour itself starts with '#'.
    let found = tokens
        .iter()
        .skip(5)
        .position(|t| t.starts_with('#'))
        .map_or(tokens.len(), |p| p + 5);
    if found != 5 {
        return Err(ProjectError::BadSimulator {
            file: ctx.file(),
            line: ctx.line,
            found,
        });
    }
    let field = |field: &'static str, value: &str, expected: &'static str| {
        ProjectError::BadSimulatorField {
            file: ctx.file(),
            line: ctx.line,
            field,
            value: value.to_owned(),
            expected,
        }
    };
    let index = match extract_i64(tokens[0]) {
        Some((i, "")) => i,
        _ => return Err(field("index", tokens[0], "an integer")),
    };
    let cycle = match extract_u32(tokens[1]) {
        Some((c, "")) => c,
        _ => return Err(field("cycle", tokens[1], "an unsigned integer")),
    };
    let name = tokens[2];
    if name.contains(['.', '"', ' ', '\t']) {
        return Err(field(
            "name",
            name,
            "a name without dots, spaces or quotes (graph lines refer to '<name>.<variable>')",
        ));
    }
    let color = parse_color(tokens[3]).ok_or_else(|| ProjectError::BadColor {
        file: ctx.file(),
        line: ctx.line,
        value: tokens[3].to_owned(),
    })?;
    let path_text = tokens[4]
        .trim_matches('"')
        .trim_matches([' ', '\t'])
        .replace('\\', "/");
    if path_text.is_empty() {
        return Err(field(
            "path",
            tokens[4],
            "the path of an .fmu, .csv or .tsv file",
        ));
    }
    let path = normalize(&dir.join(&path_text));
    Ok(SimulatorDef {
        index,
        cycle,
        name: name.to_owned(),
        color,
        path_text,
        path,
        line: ctx.line,
    })
}

/// `graph <out> <in> [<offset> <scale> [<width> <color>]] [# comment]`.
fn parse_graph(ctx: &Ctx, rest: &str) -> Result<GraphEdge, ProjectError> {
    let tokens = tokens_of(ctx, rest)?;
    // The sixth field is a colour and may start with '#' followed by a hex digit; elsewhere a
    // token starting with '#' starts a comment.
    let is_color = |t: &str| t.as_bytes().get(1).is_some_and(u8::is_ascii_hexdigit);
    let found = tokens
        .iter()
        .enumerate()
        .position(|(i, t)| t.starts_with('#') && !(i == 5 && is_color(t)))
        .unwrap_or(tokens.len());
    if !matches!(found, 2 | 4 | 6) {
        return Err(ProjectError::BadGraph {
            file: ctx.file(),
            line: ctx.line,
            found,
        });
    }
    let number = |field: &'static str, text: &str| {
        parse_float(text).ok_or_else(|| ProjectError::BadGraphNumber {
            file: ctx.file(),
            line: ctx.line,
            field,
            value: text.to_owned(),
        })
    };
    let mut edge = GraphEdge {
        output: variable_ref(ctx, tokens[0])?,
        input: variable_ref(ctx, tokens[1])?,
        offset: 0.0,
        scale_factor: 1.0,
        value_map: None,
        line: ctx.line,
    };
    if found >= 4 {
        edge.offset = number("offset", tokens[2])?;
        edge.scale_factor = number("scale factor", tokens[3])?;
    }
    if found == 6 {
        // Line width and colour are for the GUI only: validated, then dropped.
        number("line width", tokens[4])?;
        parse_color(tokens[5]).ok_or_else(|| ProjectError::BadColor {
            file: ctx.file(),
            line: ctx.line,
            value: tokens[5].to_owned(),
        })?;
    }
    Ok(edge)
}

/// A graph connector: surrounding quotes removed, split at the first dot.
fn variable_ref(ctx: &Ctx, token: &str) -> Result<VariableRef, ProjectError> {
    let text = token.trim_matches('"');
    let parts = text
        .split_once('.')
        .map(|(s, v)| (s.trim_matches([' ', '\t']), v.trim_matches([' ', '\t'])));
    match parts {
        Some((slave, variable)) if !slave.is_empty() && !variable.is_empty() => Ok(VariableRef {
            slave: slave.to_owned(),
            variable: variable.to_owned(),
        }),
        _ => Err(ProjectError::BadVariableRef {
            file: ctx.file(),
            line: ctx.line,
            text: token.to_owned(),
        }),
    }
}

/// `parameter <slave>.<variable> <value> [# comment]`.
fn parse_parameter(ctx: &Ctx, rest: &str) -> Result<ParameterDef, ProjectError> {
    let bad = || ProjectError::BadParameter {
        file: ctx.file(),
        line: ctx.line,
    };
    let pos = rest.find([' ', '\t']).ok_or_else(bad)?;
    let flat_name = &rest[..pos];
    let value = strip_comment(rest[pos..].trim_start_matches([' ', '\t']));
    let value = value.trim_matches([' ', '\t']);
    if value.is_empty() {
        return Err(bad());
    }
    // MasterSim's two replace-all passes, in this order (so `\\n` also becomes a newline).
    let value = value.replace("\\\\", "\\").replace("\\n", "\n");
    let value = match value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
        Some(inner) if value.len() > 1 => inner.to_owned(),
        _ => value,
    };
    match flat_name.split_once('.') {
        Some((slave, variable)) if !slave.is_empty() && !variable.is_empty() => Ok(ParameterDef {
            slave: slave.to_owned(),
            variable: variable.to_owned(),
            value,
            line: ctx.line,
        }),
        _ => Err(ProjectError::BadParameterName {
            file: ctx.file(),
            line: ctx.line,
            name: flat_name.to_owned(),
        }),
    }
}
