//! Gathering a sweep's results: each case's record (`case.json`), its `log/summary.json` and
//! the requested outputs of its result file, into `sweep.csv` and `sweep.json` in the sweep
//! directory, and optionally a JUnit XML report (one test case per sweep case).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mastersim::report::{CountersJson, SummaryJson};
use output::result_file::{self, SeriesKind};
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};
use serde::Serialize;

use crate::error::Result;
use crate::files::write_atomically;
use crate::plan::Plan;
use crate::spec::number_text;
use crate::status::{CaseRecord, Outcome};

/// The `schema` member of `sweep.json`.
pub const SWEEP_JSON_SCHEMA: &str = "mastersim-sweep";

/// Final value, minimum, maximum and time-weighted mean of one output over a case's result
/// rows, in the variable's unit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct OutputStats {
    /// The value at the last result row.
    #[serde(rename = "final")]
    pub last: f64,
    /// The smallest value.
    pub min: f64,
    /// The largest value.
    pub max: f64,
    /// The mean over time: the trapezoidal integral over the rows divided by their time span
    /// (the value itself for a single row).
    pub mean: f64,
}

impl OutputStats {
    /// The statistics of `values` at the times `time` (equal lengths, at least one value).
    pub fn of(time: &[f64], values: &[f64]) -> Option<OutputStats> {
        let last = *values.last()?;
        let (min, max) = values
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(*v), hi.max(*v))
            });
        let span = time.last()? - time.first()?;
        let mean = if span > 0.0 {
            let area: f64 = time
                .windows(2)
                .zip(values.windows(2))
                .map(|(t, v)| 0.5 * (t[1] - t[0]) * (v[0] + v[1]))
                .sum();
            area / span
        } else {
            last
        };
        Some(OutputStats {
            last,
            min,
            max,
            mean,
        })
    }
}

/// What was found of one case.
#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    /// The case number.
    pub case: usize,
    /// Its readable name ([`Plan::label`]).
    pub label: String,
    /// Its overrides (`name=value`).
    pub overrides: Vec<String>,
    /// How its last attempt ended.
    pub outcome: Outcome,
    /// The exit code of its last attempt.
    pub exit_code: Option<i32>,
    /// Wall time of its attempts since it last started from the beginning, s.
    pub wall_seconds: Option<f64>,
    /// Its attempts (resumed ones included).
    pub attempts: Option<u32>,
    /// The error or the reason of the stop.
    pub message: Option<String>,
    /// The simulated time reached, s (from `summary.json`).
    pub t_reached: Option<f64>,
    /// The run's counters (from `summary.json`).
    pub counters: Option<CountersJson>,
    /// The requested outputs, by name; `None` where the result file lacks the variable.
    pub outputs: BTreeMap<String, Option<OutputStats>>,
}

/// A collected sweep: the plan and what each case left.
#[derive(Debug, Clone, Serialize)]
pub struct Collection {
    /// [`SWEEP_JSON_SCHEMA`].
    pub schema: &'static str,
    /// Version of the `sweep.json` layout, 1.
    pub version: u32,
    /// The sweep's name.
    pub name: String,
    /// The sweep directory.
    pub dir: PathBuf,
    /// The requested outputs, in the order of the sweep file.
    pub output_names: Vec<String>,
    /// One result per case, in case order.
    pub cases: Vec<CaseResult>,
    /// Problems met while collecting (an output a result file lacks, an unreadable summary).
    pub warnings: Vec<String>,
}

impl Collection {
    /// The cases that did not run to their end, in order.
    pub fn unsuccessful(&self) -> impl Iterator<Item = &CaseResult> {
        self.cases.iter().filter(|c| !c.outcome.is_success())
    }

    /// How many cases ended with `outcome`.
    pub fn count(&self, outcome: Outcome) -> usize {
        self.cases.iter().filter(|c| c.outcome == outcome).count()
    }
}

/// Gathers the results of every case of the sweep in `dir` and writes `sweep.csv` and
/// `sweep.json` there.
///
/// # Errors
/// [`Error::Plan`] when `dir` is not a sweep directory; [`Error::Io`] when a report cannot be
/// written. A case without results is reported as `not_run`, not as an error.
pub fn collect(dir: &Path) -> Result<Collection> {
    let plan = Plan::read(dir)?;
    let mut warnings = Vec::new();
    let cases = plan
        .cases
        .iter()
        .map(|case| case_result(&plan, case.index, &mut warnings))
        .collect();
    let collection = Collection {
        schema: SWEEP_JSON_SCHEMA,
        version: 1,
        name: plan.name.clone(),
        dir: plan.dir.clone(),
        output_names: plan.outputs.clone(),
        cases,
        warnings,
    };
    write_sweep_csv(&plan, &collection)?;
    let json = serde_json::to_vec_pretty(&collection).expect("invariant: a collection serializes");
    write_atomically(&plan.dir.join("sweep.json"), &json)?;
    Ok(collection)
}

/// What case `k` left in its working directory; [`Outcome::Running`] while a process holds
/// it (its files then belong to an attempt that has not ended).
fn case_result(plan: &Plan, k: usize, warnings: &mut Vec<String>) -> CaseResult {
    let case = &plan.cases[k];
    let case_dir = plan.case_dir(k);
    if let Ok(Some(holder)) = mastersim::WorkingDirLock::holder_of(&case_dir) {
        return CaseResult {
            case: k,
            label: plan.label(case),
            overrides: case.overrides.clone(),
            outcome: Outcome::Running,
            exit_code: None,
            wall_seconds: None,
            attempts: None,
            message: Some(holder),
            t_reached: None,
            counters: None,
            outputs: BTreeMap::new(),
        };
    }
    let record = CaseRecord::read(&case_dir);
    let summary_path = case_dir.join("log").join("summary.json");
    let summary: Option<SummaryJson> =
        std::fs::read(&summary_path)
            .ok()
            .and_then(|bytes| match serde_json::from_slice(&bytes) {
                Ok(s) => Some(s),
                Err(e) => {
                    warnings.push(format!("{}: {e}", summary_path.display()));
                    None
                }
            });
    // A summary of a run that has finished counts only when the record belongs to it.
    let summary = summary.filter(|_| record.is_some());
    let mut outputs = BTreeMap::new();
    if !plan.outputs.is_empty()
        && let Some(summary) = &summary
    {
        read_outputs(plan, k, summary, &mut outputs, warnings);
    }
    CaseResult {
        case: k,
        label: plan.label(case),
        overrides: case.overrides.clone(),
        outcome: record.as_ref().map_or(Outcome::NotRun, |r| r.outcome),
        exit_code: record.as_ref().map(|r| r.exit_code),
        wall_seconds: record.as_ref().map(|r| r.wall_seconds),
        attempts: record.as_ref().map(|r| r.attempts),
        message: record.as_ref().and_then(|r| r.message.clone()),
        t_reached: summary.as_ref().map(|s| s.t_reached),
        counters: summary.as_ref().map(|s| s.counters),
        outputs,
    }
}

/// The statistics of the plan's outputs from the case's result file: `values.csv` when the
/// run wrote one, else its MAT or Signal Table file.
fn read_outputs(
    plan: &Plan,
    k: usize,
    summary: &SummaryJson,
    outputs: &mut BTreeMap<String, Option<OutputStats>>,
    warnings: &mut Vec<String>,
) {
    let rank = |p: &PathBuf| match p.extension().and_then(|e| e.to_str()) {
        Some("csv") if p.file_name().is_some_and(|n| n == "values.csv") => 0,
        Some("mat") => 1,
        Some("json") => 2,
        _ => 3,
    };
    let Some(file) = summary
        .result_files
        .iter()
        .filter(|p| rank(p) < 3)
        .min_by_key(|p| rank(p))
    else {
        warnings.push(format!(
            "case {k}: the run wrote no result file to collect outputs from"
        ));
        return;
    };
    let file = if file.is_absolute() {
        file.clone()
    } else {
        plan.case_dir(k).join(file)
    };
    let results = match result_file::read(&file) {
        Ok(r) => r,
        Err(e) => {
            warnings.push(e.to_string());
            return;
        }
    };
    for name in &plan.outputs {
        let stats = results
            .series
            .iter()
            .find(|s| s.name == *name && s.kind != SeriesKind::Parameter)
            .and_then(|s| OutputStats::of(&s.time, &s.values));
        if stats.is_none() {
            warnings.push(format!(
                "{}: no variable '{name}' to collect",
                file.display()
            ));
        }
        outputs.insert(name.clone(), stats);
    }
}

/// `sweep.csv`: one row per case with its overrides, outcome, wall time, counters and outputs.
fn write_sweep_csv(plan: &Plan, collection: &Collection) -> Result<()> {
    let mut header = plan.header(&[
        "outcome",
        "exit_code",
        "wall_seconds",
        "attempts",
        "t_reached",
        "steps",
        "algorithm_calls",
        "iterations",
        "convergence_fails",
        "error_test_fails",
        "fmu_errors",
    ]);
    for name in &plan.outputs {
        for stat in ["final", "min", "max", "mean"] {
            header.push(format!("{name}.{stat}"));
        }
    }
    header.push("message".to_owned());
    let mut rows = vec![header];
    let num = |x: Option<f64>| x.map(number_text).unwrap_or_default();
    let int = |x: Option<u64>| x.map(|v| v.to_string()).unwrap_or_default();
    for (case, result) in plan.cases.iter().zip(&collection.cases) {
        let mut row = plan.row_start(case);
        let counters = result.counters;
        row.extend([
            result.outcome.name().to_owned(),
            result.exit_code.map(|c| c.to_string()).unwrap_or_default(),
            num(result.wall_seconds),
            result.attempts.map(|a| a.to_string()).unwrap_or_default(),
            num(result.t_reached),
            int(counters.map(|c| c.steps)),
            int(counters.map(|c| c.algorithm_calls)),
            int(counters.map(|c| c.iterations)),
            int(counters.map(|c| c.convergence_fails)),
            int(counters.map(|c| c.error_test_fails)),
            int(counters.map(|c| c.fmu_errors)),
        ]);
        for name in &plan.outputs {
            let stats = result.outputs.get(name).copied().flatten();
            row.extend([
                num(stats.map(|s| s.last)),
                num(stats.map(|s| s.min)),
                num(stats.map(|s| s.max)),
                num(stats.map(|s| s.mean)),
            ]);
        }
        row.push(result.message.clone().unwrap_or_default());
        rows.push(row);
    }
    let text = output::table::to_comma_separated(rows);
    write_atomically(&plan.dir.join("sweep.csv"), text.as_bytes())
}

/// Writes a JUnit XML report of `collection` to `path`: one `testsuite` named after the
/// sweep, one `testcase` per case (named by its label, timed by its wall time). A failed or
/// timed-out case has a `failure`, an interrupted, requeued, running or never-run case an
/// `error`, each with the message. The layout follows the JUnit schema that Jenkins and
/// GitLab read (`junit-10.xsd`).
///
/// # Errors
/// [`Error::Io`] naming `path`.
pub fn write_junit(collection: &Collection, path: &Path) -> Result<()> {
    let count = |kind| {
        collection
            .cases
            .iter()
            .filter(|c| junit_kind(c.outcome) == Some(kind))
            .count()
    };
    let (failures, errors) = (count("failure"), count("error"));
    let time: f64 = collection.cases.iter().filter_map(|c| c.wall_seconds).sum();
    let tests = collection.cases.len().to_string();
    let failures = failures.to_string();
    let errors = errors.to_string();
    let time = format!("{time:.3}");
    let mut xml = quick_xml::Writer::new_with_indent(Vec::new(), b' ', 2);
    let write = |xml: &mut quick_xml::Writer<Vec<u8>>, event: Event<'_>| {
        xml.write_event(event)
            .expect("invariant: writing XML into memory cannot fail");
    };
    write(
        &mut xml,
        Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)),
    );
    let totals = [
        ("tests", tests.as_str()),
        ("failures", failures.as_str()),
        ("errors", errors.as_str()),
        ("time", time.as_str()),
    ];
    write(
        &mut xml,
        Event::Start(
            BytesStart::new("testsuites").with_attributes(
                [("name", collection.name.as_str())]
                    .into_iter()
                    .chain(totals),
            ),
        ),
    );
    write(
        &mut xml,
        Event::Start(
            BytesStart::new("testsuite").with_attributes(
                [("name", collection.name.as_str())]
                    .into_iter()
                    .chain(totals)
                    .chain([("skipped", "0")]),
            ),
        ),
    );
    for case in &collection.cases {
        let time = format!("{:.3}", case.wall_seconds.unwrap_or(0.0));
        let testcase = BytesStart::new("testcase").with_attributes([
            ("name", case.label.as_str()),
            ("classname", collection.name.as_str()),
            ("time", time.as_str()),
        ]);
        match junit_kind(case.outcome) {
            None => write(&mut xml, Event::Empty(testcase)),
            Some(kind) => {
                let message = case.message.clone().unwrap_or_else(|| match case.outcome {
                    Outcome::NotRun => "the case has not run".to_owned(),
                    other => other.name().replace('_', " "),
                });
                write(&mut xml, Event::Start(testcase));
                write(
                    &mut xml,
                    Event::Start(BytesStart::new(kind).with_attributes([
                        ("message", message.as_str()),
                        ("type", case.outcome.name()),
                    ])),
                );
                let detail = format!(
                    "{}\nexit code: {}\nworking directory: {}",
                    message,
                    case.exit_code
                        .map_or_else(|| "none".to_owned(), |c| c.to_string()),
                    collection
                        .dir
                        .join("cases")
                        .join(case.case.to_string())
                        .display()
                );
                write(&mut xml, Event::Text(BytesText::new(&detail)));
                write(&mut xml, Event::End(BytesEnd::new(kind)));
                write(&mut xml, Event::End(BytesEnd::new("testcase")));
            }
        }
    }
    write(&mut xml, Event::End(BytesEnd::new("testsuite")));
    write(&mut xml, Event::End(BytesEnd::new("testsuites")));
    let mut bytes = xml.into_inner();
    bytes.push(b'\n');
    write_atomically(path, &bytes)
}

/// The JUnit element of a case that did not run to its end: `failure` for a failed or
/// timed-out case, `error` for an interrupted, requeued, running or never-run one; `None` for
/// success.
fn junit_kind(outcome: Outcome) -> Option<&'static str> {
    match outcome {
        Outcome::Failed | Outcome::TimedOut => Some("failure"),
        Outcome::Interrupted | Outcome::Requeued | Outcome::Running | Outcome::NotRun => {
            Some("error")
        }
        Outcome::Completed | Outcome::Terminated => None,
    }
}
