//! Shared helpers of the integration tests: building the `mastersim` binary and the own test
//! FMUs from the current source, running projects in temporary working directories, and
//! reading and comparing result files.
//!
//! Nothing here is skipped silently: a missing corpus or a failed build panics with the path or
//! command that failed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The workspace root (the parent of this crate's directory).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// The conformance corpus: `$MASTERSIM_CORPUS`, or `../shared/corpus` next to the workspace.
///
/// # Panics
/// When the directory does not exist, naming the path that was looked for.
pub fn corpus_dir() -> PathBuf {
    let dir = std::env::var_os("MASTERSIM_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("../shared/corpus"));
    assert!(
        dir.is_dir(),
        "the conformance corpus is missing: looked for directory '{}'",
        dir.display()
    );
    dir
}

/// The cargo target directory of this workspace.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"))
}

/// The `mastersim` binary, built once per test process in release mode from the current source.
pub fn mastersim_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = Command::new(cargo)
            .args([
                "build",
                "--release",
                "-p",
                "mastersim-cli",
                "--bin",
                "mastersim",
            ])
            .current_dir(workspace_root())
            .status()
            .expect("cargo can be started");
        assert!(status.success(), "cargo build of mastersim failed");
        let bin = target_dir().join("release").join("mastersim");
        assert!(
            bin.is_file(),
            "mastersim binary not found at '{}'",
            bin.display()
        );
        bin
    })
}

/// A copy of the repository's `projects/` next to `fmus/packed/` holding the own test FMUs,
/// built and packed once per test process from the current source. The bundled projects
/// reference `../fmus/packed/<Model>.fmu`, so they run unchanged from here.
pub fn example_workspace() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = target_dir().join("test-workspace");
        let packed = dir.join("fmus").join("packed");
        fmu_packer::build_and_pack(&workspace_root(), &packed)
            .expect("building and packing the test FMUs");
        copy_dir(&workspace_root().join("projects"), &dir.join("projects"));
        dir
    })
}

/// Runs the bundled project `projects/<name>.msim` against freshly packed FMUs, in a new
/// working directory below `tmp`.
pub fn run_example(name: &str, tmp: &Path) -> Run {
    let project = example_workspace()
        .join("projects")
        .join(format!("{name}.msim"));
    run_mastersim(&project, &tmp.join(name), &[])
}

/// The outcome of one `mastersim` run.
#[derive(Debug)]
pub struct Run {
    /// Process output.
    pub output: Output,
    /// The working directory used.
    pub working_dir: PathBuf,
}

impl Run {
    /// Exit code (`-1` when killed by a signal).
    pub fn code(&self) -> i32 {
        self.output.status.code().unwrap_or(-1)
    }

    /// Standard output as text.
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    /// Standard error as text.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    /// Asserts exit code 0, printing the output otherwise.
    pub fn assert_success(&self) -> &Self {
        assert_eq!(
            self.code(),
            0,
            "mastersim failed\nstdout:\n{}\nstderr:\n{}",
            self.stdout(),
            self.stderr()
        );
        self
    }

    /// A file in the working directory.
    pub fn path(&self, relative: &str) -> PathBuf {
        self.working_dir.join(relative)
    }
}

/// Runs `mastersim <extra args> --working-dir <working_dir> <project>`.
pub fn run_mastersim(project: &Path, working_dir: &Path, extra: &[&str]) -> Run {
    let output = Command::new(mastersim_bin())
        .args(extra)
        .arg("--working-dir")
        .arg(working_dir)
        .arg(project)
        .output()
        .expect("mastersim can be started");
    Run {
        output,
        working_dir: working_dir.to_path_buf(),
    }
}

/// The `key=value` lines of a `summary.txt`.
pub fn read_summary(path: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read '{}': {e}", path.display()));
    text.lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The four counters of `summary.txt` that must match MasterSim exactly.
pub const COUNTERS: [&str; 4] = [
    "MasterAlgorithmSteps",
    "ConvergenceFails",
    "ConvergenceIterLimitExceeded",
    "ErrorTestFails",
];

/// A tab-separated result file: header captions and rows of cells.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultTable {
    /// Column captions as written (`Time [s]`, `Slave.var [unit]`).
    pub header: Vec<String>,
    /// Rows of cells.
    pub rows: Vec<Vec<String>>,
}

impl ResultTable {
    /// Reads a MasterSim result file (`values.csv`/`strings.csv`: tab separated, captions
    /// prefixed by a space).
    pub fn read(path: &Path) -> ResultTable {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("cannot read '{}': {e}", path.display()));
        let mut lines = text.lines();
        let header = lines
            .next()
            .unwrap_or_default()
            .split('\t')
            .map(|c| c.trim().to_string())
            .collect();
        let rows = lines
            .filter(|l| !l.is_empty())
            .map(|l| l.split('\t').map(str::to_string).collect())
            .collect();
        ResultTable { header, rows }
    }

    /// Index of the column whose caption starts with `name` followed by a space or the end.
    pub fn column(&self, name: &str) -> usize {
        self.header
            .iter()
            .position(|c| c == name || c.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no column '{name}' in {:?}", self.header))
    }

    /// The numeric values of a column.
    pub fn numbers(&self, name: &str) -> Vec<f64> {
        let c = self.column(name);
        self.rows.iter().map(|r| parse_number(&r[c])).collect()
    }
}

/// Parses a result cell as a number.
///
/// # Panics
/// When the cell is not a number.
pub fn parse_number(cell: &str) -> f64 {
    cell.trim()
        .parse::<f64>()
        .unwrap_or_else(|_| panic!("'{cell}' is not a number"))
}

/// True when `a` and `b` agree within `abs + rel·|b|`.
pub fn close(a: f64, b: f64, abs: f64, rel: f64) -> bool {
    (a - b).abs() <= abs + rel * b.abs() || (a.is_nan() && b.is_nan())
}

/// Compares two result tables: same header, same number of rows, numeric cells within
/// `abs + rel·|reference|`, other cells equal. Returns a readable list of differences (empty
/// when they agree; at most 20 are listed).
pub fn compare_tables(
    actual: &ResultTable,
    reference: &ResultTable,
    abs: f64,
    rel: f64,
) -> Vec<String> {
    let mut diffs = Vec::new();
    if actual.header != reference.header {
        diffs.push(format!(
            "header differs:\n  actual:    {:?}\n  reference: {:?}",
            actual.header, reference.header
        ));
        return diffs;
    }
    if actual.rows.len() != reference.rows.len() {
        diffs.push(format!(
            "{} rows, reference has {}",
            actual.rows.len(),
            reference.rows.len()
        ));
    }
    for (i, (a, r)) in actual.rows.iter().zip(&reference.rows).enumerate() {
        if a.len() != r.len() {
            diffs.push(format!(
                "row {}: {} cells, reference has {}",
                i + 1,
                a.len(),
                r.len()
            ));
            continue;
        }
        for (j, (x, y)) in a.iter().zip(r).enumerate() {
            let same = match (x.trim().parse::<f64>(), y.trim().parse::<f64>()) {
                (Ok(p), Ok(q)) => close(p, q, abs, rel),
                _ => x == y,
            };
            if !same {
                diffs.push(format!(
                    "row {} column '{}': {x} vs reference {y}",
                    i + 1,
                    reference.header[j]
                ));
            }
        }
        if diffs.len() >= 20 {
            diffs.push("...".into());
            break;
        }
    }
    diffs
}

/// Copies a directory tree (used to place own projects next to freshly packed FMUs).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("cannot create '{}': {e}", to.display()));
    for entry in
        std::fs::read_dir(from).unwrap_or_else(|e| panic!("cannot read '{}': {e}", from.display()))
    {
        let entry = entry.expect("directory entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            // Working directories of earlier runs are not part of the projects.
            if entry.path().with_extension("msim").is_file() {
                continue;
            }
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target)
                .unwrap_or_else(|e| panic!("cannot copy to '{}': {e}", target.display()));
        }
    }
}
