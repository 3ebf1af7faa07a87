//! The check of a sweep's overrides against its base, before any case starts: an override that
//! names no variable (`Prey.alpah`) would otherwise make every case fail, one after another.

use std::path::Path;

use crate::command::set_options;
use crate::error::{Error, Result};
use crate::plan::Plan;

/// Checks every override name of `plan` against its base without running anything: the base
/// is read with one override of each name (the first case's value that sets it) and the
/// `--set` options of the sweep, its FMUs are read and the plan validated
/// ([`mastersim::check`], in a temporary directory). When that fails, the base alone and then
/// each override alone are checked, to name the culprit. A plan without overrides (a batch)
/// passes at once.
///
/// # Errors
/// [`Error::SweepFile`] naming the sweep file (or case table) and the line where the bad
/// override name is written, with the library's message (for a misspelt variable, its
/// did-you-mean hint); naming the sweep file alone when the base cannot run with the sweep's
/// options, or when only the overrides together fail.
pub fn check_overrides(plan: &Plan) -> Result<()> {
    let Some(first) = plan.cases.first() else {
        return Ok(());
    };
    let samples: Vec<(usize, &String)> = plan
        .columns
        .iter()
        .enumerate()
        .filter_map(|(i, name)| {
            let prefix = format!("{name}=");
            plan.cases
                .iter()
                .flat_map(|c| &c.overrides)
                .find(|o| o.starts_with(&prefix))
                .map(|o| (i, o))
        })
        .collect();
    if samples.is_empty() {
        return Ok(());
    }
    let fixed = set_options(&plan.options);
    let check = |extra: &[&String]| {
        let mut overrides = fixed.clone();
        overrides.extend(extra.iter().map(|o| (*o).clone()));
        let options = mastersim::Options {
            overrides,
            console_progress: false,
            ..mastersim::Options::default()
        };
        mastersim::check(&first.base, &options).map_err(|e| e.chain_text())
    };
    let all: Vec<&String> = samples.iter().map(|(_, o)| *o).collect();
    let Err(together) = check(&all) else {
        return Ok(());
    };
    if let Err(message) = check(&[]) {
        return Err(base_error(plan, &first.base, &message));
    }
    for (i, text) in &samples {
        if let Err(message) = check(&[text]) {
            let name = &plan.columns[*i];
            let (path, line) = plan
                .column_places
                .get(*i)
                .map_or((plan.source.clone(), None), |p| {
                    (p.path.clone(), Some(p.line))
                });
            return Err(Error::sweep_file(
                path,
                line,
                format!(
                    "override '{name}' ({text}) cannot be applied to the base, so every case would fail: {message}"
                ),
            ));
        }
    }
    Err(Error::sweep_file(
        &plan.source,
        None,
        format!("the overrides cannot be applied to the base together: {together}"),
    ))
}

/// The error of a base that cannot run with the sweep's own options.
fn base_error(plan: &Plan, base: &Path, message: &str) -> Error {
    Error::sweep_file(
        &plan.source,
        None,
        format!(
            "the base '{}' cannot run with the sweep's options, so every case would fail: \
             {message}",
            base.display()
        ),
    )
}
