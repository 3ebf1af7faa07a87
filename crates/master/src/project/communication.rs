//! The multi-rate lines (`communicationInterval`, `communicationOffset`,
//! `communicationTrigger`): read one line, and check them all against the `simulator` lines.
//!
//! Spec: mastersim's own keywords (`docs/project-format.md`).

use std::collections::HashMap;
use std::path::Path;

use super::lexer::strip_comment;
use super::parser::Ctx;
use super::{Communication, CommunicationDef, Project, ProjectError, TimeSetting, TimeUnit};
use crate::number::extract_f64;

/// The form of each multi-rate line, for messages.
fn communication_form(keyword: &str) -> &'static str {
    match keyword {
        "communicationInterval" => {
            "'communicationInterval <slave> <interval> [<unit>]' with an interval > 0 such as '10 ms'"
        }
        "communicationOffset" => {
            "'communicationOffset <slave> <offset> [<unit>]' with an offset >= 0 such as '5 ms'"
        }
        _ => "'communicationTrigger <slave> <other slave>'",
    }
}

/// `communicationInterval|communicationOffset <slave> <value> [<unit>]` or
/// `communicationTrigger <slave> <other>`; values are checked for range here, names in
/// [`check_communication`].
pub(super) fn parse_communication(
    ctx: &Ctx,
    keyword: &str,
    rest: &str,
) -> Result<CommunicationDef, ProjectError> {
    let bad = |problem: String| ProjectError::BadCommunication {
        file: ctx.file(),
        line: ctx.line,
        problem,
        expected: communication_form(keyword).to_owned(),
    };
    let text = strip_comment(rest).trim_end_matches([' ', '\t']);
    let words: Vec<&str> = text.split([' ', '\t']).filter(|w| !w.is_empty()).collect();
    let setting = match (keyword, words.as_slice()) {
        ("communicationTrigger", [_, other]) => Communication::Trigger((*other).to_owned()),
        ("communicationInterval" | "communicationOffset", [_, value, unit @ ..])
            if unit.len() <= 1 =>
        {
            // The unit may follow the number directly ('10ms'), as for the time keywords.
            let (number, attached) = extract_f64(value)
                .filter(|(_, rest)| rest.is_empty() || unit.is_empty())
                .ok_or_else(|| bad(format!("invalid {keyword} value '{value}'")))?;
            let unit = match unit
                .first()
                .copied()
                .or(Some(attached).filter(|u| !u.is_empty()))
            {
                Some(name) => TimeUnit::from_name(name)
                    .ok_or_else(|| bad(format!("'{name}' is not a time unit in {keyword}")))?,
                None => TimeUnit::Second,
            };
            let setting = TimeSetting::new(number, unit, Some(ctx.line));
            if keyword == "communicationInterval" {
                if !(setting.seconds.is_finite() && setting.seconds > 0.0) {
                    return Err(bad(format!("{keyword} '{value}' is not greater than zero")));
                }
                Communication::Interval(setting)
            } else {
                if !(setting.seconds.is_finite() && setting.seconds >= 0.0) {
                    return Err(bad(format!("{keyword} '{value}' is negative")));
                }
                Communication::Offset(setting)
            }
        }
        _ => return Err(bad(format!("malformed {keyword} line"))),
    };
    Ok(CommunicationDef {
        slave: words[0].to_owned(),
        setting,
        line: ctx.line,
    })
}

/// Checks the multi-rate lines against the `simulator` lines (`slave_lines`: line of each
/// slave): known slaves, one line per slave and keyword, no trigger together with an interval
/// or offset, no trigger cycle.
pub(super) fn check_communication(
    project: &Project,
    path: &Path,
    slave_lines: &HashMap<String, usize>,
) -> Result<(), ProjectError> {
    let error = |def: &CommunicationDef, problem: String| ProjectError::BadCommunication {
        file: path.to_path_buf(),
        line: def.line,
        problem,
        expected: communication_form(def.setting.keyword()).to_owned(),
    };
    let known = |def: &CommunicationDef, name: &str| {
        if slave_lines.contains_key(name) {
            Ok(())
        } else {
            let mut names: Vec<&str> = slave_lines.keys().map(String::as_str).collect();
            names.sort_unstable();
            Err(error(
                def,
                format!(
                    "{} names unknown slave '{name}' (slaves: {})",
                    def.setting.keyword(),
                    names.join(", ")
                ),
            ))
        }
    };
    for (i, def) in project.communication.iter().enumerate() {
        known(def, &def.slave)?;
        if let Communication::Trigger(other) = &def.setting {
            known(def, other)?;
        }
        for earlier in &project.communication[..i] {
            if earlier.slave != def.slave {
                continue;
            }
            let keyword = def.setting.keyword();
            if earlier.setting.keyword() == keyword {
                return Err(error(
                    def,
                    format!(
                        "{keyword} for slave '{}' is already given on line {}",
                        def.slave, earlier.line
                    ),
                ));
            }
            let trigger = matches!(def.setting, Communication::Trigger(_))
                || matches!(earlier.setting, Communication::Trigger(_));
            if trigger {
                return Err(error(
                    def,
                    format!(
                        "slave '{}' has a communicationTrigger and a {} (line {}): a triggered slave has no clock of its own",
                        def.slave,
                        if matches!(def.setting, Communication::Trigger(_)) {
                            earlier.setting.keyword()
                        } else {
                            keyword
                        },
                        earlier.line
                    ),
                ));
            }
        }
    }
    // Trigger cycles: follow each slave's trigger chain.
    let trigger_of = |slave: &str| {
        project.communication.iter().find_map(|d| match &d.setting {
            Communication::Trigger(other) if d.slave == slave => Some((other.as_str(), d)),
            _ => None,
        })
    };
    for def in &project.communication {
        let Communication::Trigger(_) = def.setting else {
            continue;
        };
        let mut chain = vec![def.slave.as_str()];
        let mut current = def.slave.as_str();
        while let Some((next, _)) = trigger_of(current) {
            if next == def.slave {
                chain.push(next);
                return Err(error(
                    def,
                    format!(
                        "communicationTrigger lines form a cycle: {}",
                        chain.join(" -> ")
                    ),
                ));
            }
            if chain.contains(&next) {
                break; // a cycle that does not pass through this slave: reported for its own line
            }
            chain.push(next);
            current = next;
        }
    }
    Ok(())
}
