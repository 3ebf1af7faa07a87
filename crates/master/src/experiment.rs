//! The settings a project leaves out, completed from its FMUs' default experiments, and the
//! warnings about step sizes that cannot fit the simulated interval.
//!
//! MasterSim 0.9.8 falls back to its own defaults (one year at 10-minute steps) whatever the
//! FMUs say, and silently. mastersim takes `tStart`, `tEnd` and `hStart` from the
//! `DefaultExperiment` elements (FMI 2.0 §2.2.1, FMI 1.0 §2.2) when every FMU that gives the
//! value agrees, says so at info level, and warns when it has to fall back
//! (`docs/deviations.md`).

use crate::import::ImportedFmus;
use crate::project::{Project, TimeSetting, TimeUnit};

/// Steps of a single-FMU run whose FMU gives no step size: `(tEnd − tStart) / 500`.
pub const SINGLE_FMU_STEPS: u32 = 500;

/// What a setting that neither the project nor the FMUs give becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    /// MasterSim's defaults (tStart 0, tEnd 1 a, hStart 10 min), each with a warning naming
    /// the keyword: a project file that omits them.
    MasterSim,
    /// An FMU run without a project: 0 s to 1 s, and [`SINGLE_FMU_STEPS`] steps over the
    /// interval, stated at info level.
    SingleFmu,
    /// An SSP system, whose `DefaultExperiment` was applied as project lines: what it leaves
    /// out is completed as for [`Fallback::SingleFmu`], with a warning for the stop time.
    System,
}

/// The value of one default-experiment attribute over the project's FMUs.
enum Found {
    /// No FMU gives it.
    None,
    /// Every FMU that gives it gives this value (s), listed by slave.
    Agreed(f64, Vec<String>),
    /// The FMUs disagree: `slave: value` pairs.
    Disagree(String),
}

/// Collects attribute `pick` of the default experiments of the project's FMU slaves.
fn find(
    project: &Project,
    fmus: &ImportedFmus,
    pick: fn(&fmi::model_description::DefaultExperiment) -> Option<f64>,
) -> Found {
    let mut values: Vec<(String, f64)> = Vec::new();
    for def in &project.simulators {
        let Some(fmu) = fmus.get(&def.path) else {
            continue;
        };
        if let Some(v) = fmu.description().default_experiment.as_ref().and_then(pick) {
            values.push((def.name.clone(), v));
        }
    }
    let Some(&(_, first)) = values.first() else {
        return Found::None;
    };
    if values.iter().all(|(_, v)| *v == first) {
        Found::Agreed(first, values.into_iter().map(|(name, _)| name).collect())
    } else {
        let list: Vec<String> = values.iter().map(|(n, v)| format!("{n}: {v} s")).collect();
        Found::Disagree(list.join(", "))
    }
}

/// A time setting in seconds that no line set.
fn seconds(value: f64) -> TimeSetting {
    TimeSetting::new(value, TimeUnit::Second, None)
}

/// Completes the time settings that `project` does not set (no line and no `--set`) from
/// the default experiments of its FMUs: `tStart` from `startTime`, `tEnd` from `stopTime`,
/// `hStart` from `stepSize`. A value is taken when every FMU that gives it agrees, with an
/// info message; otherwise `fallback` decides (a warning naming the keyword for
/// [`Fallback::MasterSim`]). `hMax` keeps MasterSim's default (30 min); when
/// `adjustStepSize` uses it without a line, a warning says so. A single-FMU run without
/// `hOutputMin` writes a row at every communication point (`hOutputMin = hStart`). Then warns
/// when `hStart`, `hMax` with `adjustStepSize`, or `hOutputMin` exceeds `tEnd − tStart`.
///
/// `fmus` must hold the project's imported FMUs (table slaves have no default experiment).
///
/// Spec: FMI 2.0.2 §2.2.1 (`DefaultExperiment`), FMI 1.0 §2.2; `docs/deviations.md`.
pub fn complete_settings(project: &mut Project, fmus: &ImportedFmus, fallback: Fallback) {
    let single = fallback != Fallback::MasterSim;
    let say_taken = |keyword: &str, value: f64, from: &[String]| {
        log::info!(
            "{keyword} = {value} s, from the default experiment of {}",
            from.iter()
                .map(|s| format!("'{s}'"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    };
    let fall_back = |keyword: &str, default: &TimeSetting, found: &Found| {
        let why = match found {
            Found::Disagree(list) => format!("the FMUs' default experiments disagree ({list})"),
            _ => "no FMU's default experiment gives a value for it".to_string(),
        };
        log::warn!(
            "{keyword} is not set and {why}: using MasterSim's default {keyword} = {} {}; \
             set it in the project or with --set {keyword}=<value>",
            default.value,
            default.unit.name()
        );
    };
    if project.t_start.line.is_none() {
        match find(project, fmus, |e| e.start_time) {
            Found::Agreed(v, from) => {
                say_taken("tStart", v, &from);
                project.t_start = seconds(v);
            }
            // MasterSim's default (0) is everybody's: no warning unless the FMUs disagree.
            found @ Found::Disagree(_) => fall_back("tStart", &project.t_start, &found),
            Found::None if single => project.t_start = seconds(0.0),
            Found::None => {}
        }
    }
    let mut interval_defaulted = false;
    if project.t_end.line.is_none() {
        match find(project, fmus, |e| e.stop_time) {
            Found::Agreed(v, from) => {
                say_taken("tEnd", v, &from);
                project.t_end = seconds(v);
            }
            // One FMU cannot disagree with itself: only a system's FMUs can.
            found @ (Found::None | Found::Disagree(_)) if single => {
                project.t_end = seconds(project.t_start.seconds + 1.0);
                interval_defaulted = true;
                if fallback == Fallback::System {
                    let why = match found {
                        Found::Disagree(list) => {
                            format!("the FMUs' default experiments disagree ({list})")
                        }
                        _ => "no FMU's default experiment gives one".to_owned(),
                    };
                    log::warn!(
                        "the system sets no stop time (DefaultExperiment stopTime) and {why}: \
                         running to tEnd = tStart + 1 s = {} s; set it with --stop-time or \
                         --set tEnd=<value>",
                        project.t_end.seconds
                    );
                }
            }
            found => fall_back("tEnd", &project.t_end, &found),
        }
    }
    if project.h_start.line.is_none() {
        match find(project, fmus, |e| e.step_size) {
            Found::Agreed(v, from) => {
                say_taken("hStart", v, &from);
                project.h_start = seconds(v);
            }
            Found::None | Found::Disagree(_) if single => {
                let h =
                    (project.t_end.seconds - project.t_start.seconds) / f64::from(SINGLE_FMU_STEPS);
                log::info!(
                    "{}running {} s to {} s in {SINGLE_FMU_STEPS} steps of {h} s \
                     (--start-time, --stop-time and --step-size change this)",
                    match (fallback, interval_defaulted) {
                        (Fallback::System, _) => {
                            "The system gives no step size, nor its FMUs one they agree on: "
                        }
                        (_, true) => "The FMU gives no default experiment: ",
                        (_, false) => "The FMU gives no step size: ",
                    },
                    project.t_start.seconds,
                    project.t_end.seconds
                );
                project.h_start = seconds(h);
            }
            found => fall_back("hStart", &project.h_start, &found),
        }
    }
    if single && project.h_output_min.line.is_none() && project.h_start.seconds > 0.0 {
        // A row at every communication point, as other tools do for one FMU.
        project.h_output_min = project.h_start;
        project.h_output_min.line = None;
    }
    if project.adjust_step_size && project.h_max.line.is_none() {
        fall_back("hMax", &project.h_max, &Found::None);
    }
    warn_about_step_sizes(project);
}

/// Warns when `hStart`, `hMax` with `adjustStepSize`, or `hOutputMin` is larger than
/// `tEnd − tStart`: a single step, no limit on steps, or no rows between start and end.
fn warn_about_step_sizes(project: &Project) {
    let interval = project.t_end.seconds - project.t_start.seconds;
    if interval.is_nan() || interval <= 0.0 {
        return; // refused with an error when the settings are validated
    }
    let check = |keyword: &str, h: &TimeSetting, consequence: &str| {
        if h.seconds > interval {
            log::warn!(
                "{}: {keyword} = {} {} is larger than tEnd - tStart = {interval} s: {consequence}",
                project.location(h.line),
                h.value,
                h.unit.name()
            );
        }
    };
    check(
        "hStart",
        &project.h_start,
        "a single step covers the whole run",
    );
    if project.adjust_step_size {
        check("hMax", &project.h_max, "it does not limit the step size");
    }
    check(
        "hOutputMin",
        &project.h_output_min,
        "the results hold only the rows at the start and the end",
    );
}
