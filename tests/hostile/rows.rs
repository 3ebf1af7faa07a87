//! The row harness of the table-driven hostile-input tests in `archives`, `model_descriptions`,
//! `projects` and `tables`. Each row builds its input in a temp directory of its own, runs
//! `mastersim` with the working directory `wd/` inside it, and checks:
//!
//! 1. the exit code (2 for input errors; rows that expect 0 are positive controls that show a
//!    decision, e.g. that an input is legal);
//! 2. stderr is one error line, naming the offending file (`file`) and the element, variable or
//!    line (`at`), and saying what is wrong (`says`);
//! 3. no panic (`panicked` in no output, exit code not 101), no death by a signal, and no run
//!    longer than its limit ([`ROW_LIMIT`], or the row's own): a row still running then is
//!    killed and fails;
//! 4. nothing was written outside the working directory: the temp directory minus `wd/` lists
//!    the same files (recursively, with sizes) before and after, among them the sentinel
//!    folder `sentinel/` beside the project, which every sandbox has and whose file's content
//!    must not change; and the paths a hostile archive aims at (`escape_targets`) do not
//!    exist;
//! 5. for a row with a results check ([`Input::check_results`]), what the working directory
//!    must hold afterwards (the rows a failed run keeps).
//!
//! All rows are listed on stdout (`--nocapture`), failures in the panic message.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use std::time::Duration;

use mastersim_tests::{ResultTable, Run, example_workspace, read_summary, run_mastersim_within};

/// The longest a row may run, unless it says otherwise ([`Input::limit`]).
pub const ROW_LIMIT: Duration = Duration::from_secs(30);

/// The file of the sentinel folder beside the project in every sandbox, and its content.
const SENTINEL: (&str, &str) = ("sentinel/keep.txt", "nothing may touch this file\n");

/// What a row's builder wrote into its sandbox.
pub struct Input {
    /// The project file to run.
    project: PathBuf,
    /// Extra command-line arguments (before `--working-dir`).
    args: Vec<&'static str>,
    /// Paths outside the working directory that a hostile archive aims at.
    escape_targets: Vec<PathBuf>,
    /// The longest the run may take.
    limit: Duration,
    /// What is wrong with the working directory after the run (results a failed run must keep).
    results: Option<fn(&Path) -> Vec<String>>,
}

impl Input {
    /// Runs `project` with no extra arguments.
    pub fn project(project: PathBuf) -> Input {
        Input {
            project,
            args: Vec::new(),
            escape_targets: Vec::new(),
            limit: ROW_LIMIT,
            results: None,
        }
    }

    /// Checks the working directory after the run with `check`, which lists what is wrong
    /// (e.g. the rows a failed run must keep).
    pub fn check_results(mut self, check: fn(&Path) -> Vec<String>) -> Input {
        self.results = Some(check);
        self
    }

    /// Sets the longest the run may take (a row that must end quickly, say).
    pub fn limit(mut self, limit: Duration) -> Input {
        self.limit = limit;
        self
    }

    /// The project file to run.
    pub fn path(&self) -> &Path {
        &self.project
    }

    /// Adds command-line arguments.
    pub fn args(mut self, args: &[&'static str]) -> Input {
        self.args.extend_from_slice(args);
        self
    }

    /// Adds a path that must not exist after the run.
    pub fn must_not_create(mut self, path: PathBuf) -> Input {
        self.escape_targets.push(path);
        self
    }
}

/// One row of a table: a broken input and what `mastersim` must answer.
pub struct Case {
    name: &'static str,
    code: i32,
    file: &'static str,
    at: &'static str,
    says: &'static [&'static str],
    build: fn(&Sandbox) -> Input,
}

/// A row: `name`, expected exit `code`, the fragment naming the `file`, the fragment naming the
/// element or line (`at`), further fragments (`says`), and the input builder.
pub fn case(
    name: &'static str,
    code: i32,
    file: &'static str,
    at: &'static str,
    says: &'static [&'static str],
    build: fn(&Sandbox) -> Input,
) -> Case {
    Case {
        name,
        code,
        file,
        at,
        says,
        build,
    }
}

/// The sandbox of a test outside the tables: `dir`, with the sentinel folder written.
pub fn sandbox(dir: &Path, case: &'static str) -> Sandbox {
    let sandbox = Sandbox {
        dir: dir.to_path_buf(),
        case,
    };
    sandbox.write(SENTINEL.0, SENTINEL.1.as_bytes());
    sandbox
}

/// The temp directory of one row: inputs go here, next to the working directory `wd/`.
pub struct Sandbox {
    dir: PathBuf,
    case: &'static str,
}

impl Sandbox {
    /// The sandbox directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes a file below the sandbox, creating directories.
    pub fn write(&self, relative: &str, bytes: &[u8]) -> PathBuf {
        let path = self.dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create input directory");
        }
        std::fs::write(&path, bytes)
            .unwrap_or_else(|e| panic!("cannot write '{}': {e}", path.display()));
        path
    }

    /// Copies the own packed FMU `fmus/packed/<model>.fmu` to `fmus/<model>.fmu`.
    pub fn copy_fmu(&self, model: &str) -> PathBuf {
        self.write(&format!("fmus/{model}.fmu"), &packed_fmu(model))
    }

    /// Writes `bad.msim` and returns it as the input to run.
    pub fn project(&self, text: &str) -> Input {
        self.project_bytes(text.as_bytes())
    }

    /// Writes `bad.msim` from raw bytes (for encodings) and returns it as the input to run.
    pub fn project_bytes(&self, bytes: &[u8]) -> Input {
        Input::project(self.write("bad.msim", bytes))
    }

    /// A file name unique to this process and row, for paths a hostile archive aims at.
    pub fn unique_name(&self, what: &str) -> String {
        format!("hostile-{}-{}-{what}.txt", std::process::id(), self.case)
    }

    /// The sentinel folder beside the project: a row may aim at it, nothing may change it.
    pub fn sentinel(&self) -> PathBuf {
        self.dir.join("sentinel")
    }

    /// The parent of the sandbox: outside everything this row owns.
    pub fn outside(&self) -> PathBuf {
        self.dir
            .parent()
            .expect("the temp dir has a parent")
            .to_path_buf()
    }
}

/// The bytes of an own packed FMU, built from the current source.
pub fn packed_fmu(model: &str) -> Vec<u8> {
    let path = example_workspace()
        .join("fmus")
        .join("packed")
        .join(format!("{model}.fmu"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read '{}': {e}", path.display()))
}

/// The entries (name, contents) of an own packed FMU, in archive order.
pub fn fmu_entries(model: &str) -> Vec<(String, Vec<u8>)> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(packed_fmu(model)))
        .expect("own FMU is a zip archive");
    (0..archive.len())
        .map(|i| {
            let mut entry = archive.by_index(i).expect("own FMU entry");
            let mut bytes = Vec::new();
            entry.read_to_end(&mut bytes).expect("own FMU entry data");
            let name = entry.name().expect("own FMU entry name").into_owned();
            (name, bytes)
        })
        .collect()
}

/// A deflated zip archive of `entries`.
pub fn zip_bytes(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    for (name, bytes) in entries {
        writer
            .start_file(name.as_str(), options)
            .expect("zip entry");
        writer.write_all(bytes).expect("zip data");
    }
    writer.finish().expect("zip finished").into_inner()
}

/// The entries of the own FMU `model` with its `modelDescription.xml` passed through `patch`.
/// Panics when the patch changes nothing, so a row cannot silently test the valid file.
pub fn patched_entries(model: &str, patch: impl Fn(&str) -> String) -> Vec<(String, Vec<u8>)> {
    let mut entries = fmu_entries(model);
    let (_, xml) = entries
        .iter_mut()
        .find(|(name, _)| name == "modelDescription.xml")
        .expect("own FMU has a modelDescription.xml");
    let text = String::from_utf8(xml.clone()).expect("own XML is UTF-8");
    let patched = patch(&text);
    assert_ne!(patched, text, "the patch of {model}'s XML changed nothing");
    *xml = patched.into_bytes();
    entries
}

/// Replaces the only occurrence of `from` in `text`; panics when it is not there exactly once.
pub fn replace_once(text: &str, from: &str, to: &str) -> String {
    assert_eq!(text.matches(from).count(), 1, "'{from}' once in the input");
    text.replacen(from, to, 1)
}

/// Writes `bad.fmu` from `entries` and a project with `instances` slaves `S1`, `S2`, … of it.
pub fn fmu_project(sandbox: &Sandbox, entries: &[(String, Vec<u8>)], instances: usize) -> Input {
    sandbox.write("bad.fmu", &zip_bytes(entries));
    sandbox.project(&fmu_project_text(instances))
}

/// The project of [`fmu_project`]: line 4 onwards are the `simulator` lines.
pub fn fmu_project_text(instances: usize) -> String {
    let mut text = String::from("tStart 0 s\ntEnd 1 s\nhStart 0.1 s\n");
    for i in 1..=instances {
        text += &format!("simulator {} 0 S{i} #ff0000 \"bad.fmu\"\n", i - 1);
    }
    text
}

/// Files and directories below `dir`, except `dir/wd`, with their kind and size.
fn listing(dir: &Path) -> BTreeMap<PathBuf, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let relative = path.strip_prefix(root).expect("below root").to_path_buf();
            if relative == Path::new("wd") {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).expect("metadata");
            let kind = if meta.is_symlink() {
                "symlink".to_owned()
            } else if meta.is_dir() {
                "dir".to_owned()
            } else {
                format!("file {} bytes", meta.len())
            };
            out.insert(relative, kind);
            if meta.is_dir() {
                walk(root, &path, out);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// What went wrong with one row (empty: it behaved as required).
fn problems(
    case: &Case,
    run: Option<&Run>,
    sandbox: &Sandbox,
    input: &Input,
    before: &BTreeMap<PathBuf, String>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(run) = run else {
        problems.push(format!("still running after {:?}; killed", input.limit));
        return problems;
    };
    let (stdout, stderr) = (run.stdout(), run.stderr());
    if let Some(signal) = run.signal() {
        problems.push(format!("ended by signal {signal}"));
    }
    if run.code() != case.code {
        problems.push(format!("exit code {}, expected {}", run.code(), case.code));
    }
    if run.code() == 101 || stdout.contains("panicked") || stderr.contains("panicked") {
        problems.push("panicked".to_owned());
    }
    if case.code != 0 {
        let lines = stderr.lines().filter(|l| !l.trim().is_empty()).count();
        if lines != 1 {
            problems.push(format!("{lines} stderr lines, expected one error line"));
        }
        for fragment in [case.file, case.at].iter().chain(case.says) {
            if !stderr.contains(fragment) {
                problems.push(format!("message lacks {fragment:?}"));
            }
        }
    }
    if stdout.contains(SENTINEL.1.trim()) || stderr.contains(SENTINEL.1.trim()) {
        problems.push("the output echoes the sentinel file's content".to_owned());
    }
    if stdout.contains("secret key") || stderr.contains("secret key") {
        problems.push("the output echoes a secret of a file outside".to_owned());
    }
    if let Some(check) = input.results {
        problems.extend(check(&run.working_dir));
    }
    let sentinel = std::fs::read_to_string(sandbox.dir().join(SENTINEL.0)).unwrap_or_default();
    if sentinel != SENTINEL.1 {
        problems.push(format!("the sentinel file now reads {sentinel:?}"));
    }
    let after = listing(sandbox.dir());
    if &after != before {
        let added: Vec<_> = after.keys().filter(|k| !before.contains_key(*k)).collect();
        let changed: Vec<_> = before
            .iter()
            .filter(|(k, v)| after.get(*k) != Some(v))
            .map(|(k, _)| k)
            .collect();
        problems.push(format!(
            "written outside the working directory: added {added:?}, changed or removed {changed:?}"
        ));
    }
    for target in &input.escape_targets {
        if std::fs::symlink_metadata(target).is_ok() {
            problems.push(format!(
                "escaped the working directory: '{}' exists",
                target.display()
            ));
            // Best effort, so one failure does not leave the file behind for the next run.
            let _ = std::fs::remove_file(target);
        }
    }
    problems
}

/// Runs every row of one group and panics with a readable summary of the rows that failed.
pub fn check_table(group: &str, cases: Vec<Case>) {
    let mut failures = Vec::new();
    let mut summary = Vec::new();
    let mut names = BTreeSet::new();
    for case in &cases {
        assert!(
            names.insert(case.name),
            "duplicate row name '{}'",
            case.name
        );
        let tmp = tempfile::tempdir().expect("temp dir");
        let sandbox = sandbox(tmp.path(), case.name);
        let input = (case.build)(&sandbox);
        let before = listing(sandbox.dir());
        let run = run_mastersim_within(
            &input.project,
            &sandbox.dir().join("wd"),
            &input.args,
            input.limit,
        );
        let found = problems(case, run.as_ref(), &sandbox, &input, &before);
        let stderr = run.as_ref().map(Run::stderr).unwrap_or_default();
        let row = format!(
            "{group}/{} -> exit {}: {}",
            case.name,
            run.as_ref().map_or(-1, Run::code),
            stderr.lines().next().unwrap_or("")
        );
        if found.is_empty() {
            summary.push(row);
        } else {
            failures.push(format!(
                "{row}\n    problems: {}\n    stderr: {}",
                found.join("; "),
                stderr.trim_end().replace('\n', "\n            ")
            ));
        }
    }
    println!("{}", summary.join("\n"));
    assert!(
        failures.is_empty(),
        "{} of {} {group} rows failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// The first `": "`-separated message part of `line` (longer than 20 characters, with a space:
/// not a bare path, which may rightly be named at two levels) that appears twice: an error
/// whose display includes its source, printed again as the next cause of the chain.
pub fn repeated_part(line: &str) -> Option<&str> {
    let parts: Vec<&str> = line.split(": ").collect();
    parts
        .iter()
        .enumerate()
        .find(|(i, p)| p.len() > 20 && p.contains(' ') && parts[i + 1..].contains(p))
        .map(|(_, p)| *p)
}

/// What is wrong with the results a run that ended early kept in `wd`: `values.csv` must hold
/// exactly the rows of 0, 0.1, …, `last_row` × 0.1 s with `column` = `exact(t)` within `tolerance`,
/// and `summary.txt` must say `Outcome=<outcome>`.
pub fn kept_rows(
    wd: &Path,
    last_row: u32,
    column: &str,
    exact: impl Fn(f64) -> f64,
    tolerance: f64,
    outcome: &str,
) -> Vec<String> {
    let values = wd.join("results").join("values.csv");
    if !values.is_file() {
        return vec![format!("no '{}'", values.display())];
    }
    let mut problems = Vec::new();
    let table = ResultTable::read(&values);
    let time = table.numbers("Time");
    let expected: Vec<f64> = (0..=last_row).map(|k| f64::from(k) * 0.1).collect();
    let same_times = time.len() == expected.len()
        && time
            .iter()
            .zip(&expected)
            .all(|(a, b)| (a - b).abs() < 1e-12);
    if !same_times {
        problems.push(format!(
            "values.csv times {time:?}, expected 0 to {} s",
            f64::from(last_row) * 0.1
        ));
    }
    for (t, value) in time.iter().zip(table.numbers(column)) {
        if (value - exact(*t)).abs() > tolerance {
            problems.push(format!(
                "{column} at t={t}: {value}, expected {}",
                exact(*t)
            ));
        }
    }
    let summary = read_summary(&wd.join("log").join("summary.txt"));
    if summary.get("Outcome").map(String::as_str) != Some(outcome) {
        problems.push(format!("summary.txt Outcome {:?}", summary.get("Outcome")));
    }
    problems
}
