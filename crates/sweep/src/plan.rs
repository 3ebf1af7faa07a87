//! The plan of a sweep or batch: every case with its base and overrides, laid out in the sweep
//! directory as `plan.json` (what the case processes read) and `cases.csv` (for people and
//! spreadsheets), one working directory `cases/<k>/` per case.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::files::{absolute, relative, write_atomically};
use crate::status::CaseRecord;

/// The `schema` member of `plan.json`.
pub const PLAN_SCHEMA: &str = "mastersim-sweep-plan";
/// The `version` member of `plan.json`.
pub const PLAN_VERSION: u32 = 1;

/// One run of the sweep: the base with overrides, in its own working directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Case {
    /// The case number k, from 0; its working directory is `cases/<k>/`.
    pub index: usize,
    /// The project, SSP system or FMU (absolute path).
    pub base: PathBuf,
    /// The overrides, each `name=value` in the `--set` syntax (`Prey.alpha=1.1`, `tEnd=10 s`).
    pub overrides: Vec<String>,
}

/// A sweep or batch: its cases and what every case shares.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// [`PLAN_SCHEMA`].
    pub schema: String,
    /// [`PLAN_VERSION`].
    pub version: u32,
    /// The sweep's name (the sweep file's or batch input's stem), used in reports.
    pub name: String,
    /// The sweep file or batch input it was made from (absolute path).
    pub source: PathBuf,
    /// The sweep directory (absolute path).
    pub dir: PathBuf,
    /// The override names, the columns of `cases.csv` after `case` (empty for a batch).
    pub columns: Vec<String>,
    /// Further `mastersim` options given to every case.
    pub options: Vec<String>,
    /// Per-case wall-time limit, s.
    pub wall_time_limit: Option<f64>,
    /// `--checkpoint-interval` of every case, s: how often a running case writes a
    /// checkpoint (a case writes one at SIGTERM or SIGINT in any case). Not part of the
    /// case's [`Plan::command_line`]: it does not change results.
    #[serde(default)]
    pub checkpoint_interval: Option<f64>,
    /// Variables (`slave.variable`) whose final value, minimum, maximum and mean are collected.
    pub outputs: Vec<String>,
    /// The cases, `cases[k].index == k`.
    pub cases: Vec<Case>,
    /// Where each of [`Plan::columns`] is written, in the same order: the sweep file (or its
    /// case table) and the line, for the errors of [`crate::check_overrides`]. Empty for a
    /// batch and for a plan read back from `plan.json` (not part of it).
    #[serde(skip)]
    pub column_places: Vec<ColumnPlace>,
}

/// Where an override name of a sweep is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnPlace {
    /// The sweep file, or the case table of a `[table]` sweep.
    pub path: PathBuf,
    /// 1-based line.
    pub line: usize,
}

impl Plan {
    /// A plan of `cases` (whose indices must be 0, 1, …).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        name: String,
        source: PathBuf,
        dir: PathBuf,
        columns: Vec<String>,
        options: Vec<String>,
        wall_time_limit: Option<f64>,
        outputs: Vec<String>,
        cases: Vec<Case>,
    ) -> Plan {
        Plan {
            schema: PLAN_SCHEMA.to_owned(),
            version: PLAN_VERSION,
            name,
            source,
            dir,
            columns,
            options,
            wall_time_limit,
            checkpoint_interval: None,
            outputs,
            cases,
            column_places: Vec::new(),
        }
    }

    /// The plan file of the sweep directory `dir`.
    pub fn plan_path(dir: &Path) -> PathBuf {
        dir.join("plan.json")
    }

    /// The working directory of case `k`: `<dir>/cases/<k>`.
    pub fn case_dir(&self, k: usize) -> PathBuf {
        self.dir.join("cases").join(k.to_string())
    }

    /// Case `k`.
    ///
    /// # Errors
    /// [`Error::NoSuchCase`] when the plan has no case `k`.
    pub fn case(&self, k: usize) -> Result<&Case> {
        self.cases.get(k).ok_or(Error::NoSuchCase {
            case: k,
            count: self.cases.len(),
        })
    }

    /// A readable name of case `k`: `case 3: Prey.alpha=1.1, tEnd=10 s` for a sweep, the
    /// project's path (relative to the batch input's folder where possible) for a batch.
    pub fn label(&self, case: &Case) -> String {
        if self.columns.is_empty() {
            let folder = if self.source.is_dir() {
                self.source.as_path()
            } else {
                self.source.parent().unwrap_or(Path::new(""))
            };
            format!(
                "case {}: {}",
                case.index,
                relative(&case.base, folder).display()
            )
        } else {
            format!("case {}: {}", case.index, case.overrides.join(", "))
        }
    }

    /// What decides the results of `case`: its base, overrides and the plan's options. A
    /// rerun skips a case whose record has the same key (wherever the sweep directory is).
    pub fn case_key(&self, case: &Case) -> Vec<String> {
        std::iter::once(case.base.display().to_string())
            .chain(case.overrides.iter().cloned())
            .chain(self.options.iter().cloned())
            .collect()
    }

    /// Creates the sweep directory and every case's working directory, and writes
    /// `plan.json` and `cases.csv`.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file or directory that cannot be written.
    pub fn lay_out(&self) -> Result<()> {
        for case in &self.cases {
            let dir = self.case_dir(case.index);
            std::fs::create_dir_all(&dir).map_err(Error::io(&dir))?;
        }
        let json = serde_json::to_vec_pretty(self).expect("invariant: a plan serializes");
        write_atomically(&Plan::plan_path(&self.dir), &json)?;
        self.write_cases_csv()
    }

    /// `cases.csv`: `case` and one column per override name (`project` for a batch), one row
    /// per case; a case that does not override a name has an empty cell.
    fn write_cases_csv(&self) -> Result<()> {
        let mut rows = vec![self.header(&[])];
        rows.extend(self.cases.iter().map(|case| self.row_start(case)));
        let text = output::table::to_comma_separated(rows);
        write_atomically(&self.dir.join("cases.csv"), text.as_bytes())
    }

    /// The first columns of `cases.csv` and `sweep.csv`: `case`, then the override names
    /// (`project` for a batch), then `more`.
    pub(crate) fn header(&self, more: &[&str]) -> Vec<String> {
        let mut header = vec!["case".to_owned()];
        if self.columns.is_empty() {
            header.push("project".to_owned());
        } else {
            header.extend(self.columns.iter().cloned());
        }
        header.extend(more.iter().map(|m| (*m).to_owned()));
        header
    }

    /// The cells of `case` under [`Plan::header`]: its number, then its value of each
    /// override (empty where it has none), or its project for a batch.
    pub(crate) fn row_start(&self, case: &Case) -> Vec<String> {
        let mut row = vec![case.index.to_string()];
        if self.columns.is_empty() {
            row.push(case.base.display().to_string());
        } else {
            row.extend(self.columns.iter().map(|c| {
                case.overrides
                    .iter()
                    .find_map(|o| o.strip_prefix(c.as_str())?.strip_prefix('='))
                    .unwrap_or("")
                    .to_owned()
            }));
        }
        row
    }

    /// Reads the plan of the sweep directory `dir`.
    ///
    /// # Errors
    /// [`Error::Plan`] when `dir` holds no `plan.json` (not a sweep directory) or one that is
    /// not a plan of this version.
    pub fn read(dir: &Path) -> Result<Plan> {
        let path = Plan::plan_path(dir);
        let bytes = std::fs::read(&path).map_err(|e| Error::Plan {
            path: path.clone(),
            message: format!(
                "{e}; expected a sweep directory laid out by `mastersim sweep run` or `mastersim batch`"
            ),
        })?;
        let plan: Plan = serde_json::from_slice(&bytes).map_err(|e| Error::Plan {
            path: path.clone(),
            message: format!("not a sweep plan: {e}"),
        })?;
        if plan.schema != PLAN_SCHEMA || plan.version != PLAN_VERSION {
            return Err(Error::Plan {
                path,
                message: format!(
                    "schema {} version {}, expected {PLAN_SCHEMA} version {PLAN_VERSION}",
                    plan.schema, plan.version
                ),
            });
        }
        Ok(plan)
    }

    /// The cases still to run: those without a record of a successful run with the same
    /// [`Plan::case_key`] in their working directory.
    pub fn pending(&self) -> Vec<usize> {
        self.cases
            .iter()
            .filter(|case| !self.is_done(case))
            .map(|case| case.index)
            .collect()
    }

    /// Whether `case` has run to its end (completed, or ended by a slave's terminate request)
    /// with the key it has now.
    pub fn is_done(&self, case: &Case) -> bool {
        CaseRecord::read(&self.case_dir(case.index))
            .is_some_and(|r| r.outcome.is_success() && r.key == self.case_key(case))
    }
}

/// The plan of a batch: every project of `input`, which is a directory (its `.msim`, `.ssp`,
/// `.ssd` and `.fmu` files and its folders that hold a `SystemStructure.ssd`, sorted by name)
/// or a list file (one path per line, relative to the list file; blank lines and lines
/// starting with `#` are skipped). The sweep directory is `dir`, by default
/// `<directory>/batch` or the list file's path without its extension. Every case runs its
/// project as it is, with `options`.
///
/// # Errors
/// [`Error::Batch`] when the input names nothing runnable or a listed path does not exist
/// (naming the line); [`Error::Io`] when it cannot be read.
pub fn batch_plan(input: &Path, dir: Option<&Path>, options: Vec<String>) -> Result<Plan> {
    let input = absolute(input)?;
    let projects = if input.is_dir() {
        let mut found = Vec::new();
        for entry in std::fs::read_dir(&input).map_err(Error::io(&input))? {
            let path = entry.map_err(Error::io(&input))?.path();
            let runnable = if path.is_dir() {
                path.join("SystemStructure.ssd").is_file()
            } else {
                path.extension().is_some_and(|e| {
                    ["msim", "ssp", "ssd", "fmu"]
                        .iter()
                        .any(|x| e.eq_ignore_ascii_case(x))
                })
            };
            if runnable {
                found.push(path);
            }
        }
        found.sort();
        found
    } else {
        let text = std::fs::read_to_string(&input).map_err(Error::io(&input))?;
        let folder = input.parent().unwrap_or(Path::new(""));
        let mut found = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let path = absolute(&folder.join(line))?;
            if !path.exists() {
                return Err(Error::Batch {
                    path: input.clone(),
                    message: format!("line {}: '{}' does not exist", i + 1, path.display()),
                });
            }
            found.push(path);
        }
        found
    };
    if projects.is_empty() {
        return Err(Error::Batch {
            path: input,
            message: "names no project: expected .msim, .ssp, .ssd or .fmu files (a directory) \
                      or one path per line (a list file)"
                .to_owned(),
        });
    }
    let dir = match dir {
        Some(d) => absolute(d)?,
        None if input.is_dir() => input.join("batch"),
        None => input.with_extension(""),
    };
    let name = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "batch".to_owned());
    let cases = projects
        .into_iter()
        .enumerate()
        .map(|(index, base)| Case {
            index,
            base,
            overrides: Vec::new(),
        })
        .collect();
    Ok(Plan::new(
        name,
        input,
        dir,
        Vec::new(),
        options,
        None,
        Vec::new(),
        cases,
    ))
}
