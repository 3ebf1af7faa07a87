//! Shared helpers of the integration tests: building the `mastersim` binary and the own test
//! FMUs from the current source, running projects in temporary working directories, and
//! reading and comparing result files.
//!
//! Nothing here is skipped silently: a missing corpus or a failed build panics with the path or
//! command that failed.

pub mod kill_resume;
pub mod live_run;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// Sends SIGTERM to `child` (with `kill`) and waits for it: a run or sweep stopped so ends
/// with a checkpoint and exit code 143 (128 + 15), which this asserts.
///
/// # Panics
/// When `kill` cannot run or fails, or the child ends otherwise.
pub fn stop_with_sigterm(child: &mut std::process::Child) {
    let sent = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success(), "kill -TERM {}", child.id());
    assert_eq!(
        child.wait().expect("the child ends").code(),
        Some(143),
        "stopped by SIGTERM"
    );
}

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
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"))
}

/// Builds the release `mastersim` binary of the workspace at `workspace` into the target
/// directory `target` and returns its path.
///
/// # Panics
/// When cargo cannot be started, the build fails or the binary is missing afterwards.
pub fn build_mastersim(workspace: &Path, target: &Path) -> PathBuf {
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
        .env("CARGO_TARGET_DIR", target)
        .current_dir(workspace)
        .status()
        .expect("cargo can be started");
    assert!(
        status.success(),
        "cargo build of mastersim in '{}' failed",
        workspace.display()
    );
    let bin = target.join("release").join("mastersim");
    assert!(
        bin.is_file(),
        "mastersim binary not found at '{}'",
        bin.display()
    );
    bin
}

/// The `mastersim` binary, built once per test process in release mode from the current source.
pub fn mastersim_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| build_mastersim(&workspace_root(), &target_dir()))
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
        fmu_packer::copy_ssp_example_fmus(&packed, &dir.join(fmu_packer::SSP_EXAMPLE_DIR))
            .expect("copying the SSP examples' FMUs");
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

    /// The signal that ended the process, if one did.
    pub fn signal(&self) -> Option<i32> {
        std::os::unix::process::ExitStatusExt::signal(&self.output.status)
    }

    /// Standard output as text.
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    /// Standard error as text.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    /// Standard output followed by standard error: everything the run said.
    pub fn said(&self) -> String {
        self.stdout() + &self.stderr()
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

    /// Asserts that standard output holds `fragment`, printing everything said otherwise.
    pub fn assert_stdout_has(&self, fragment: &str) -> &Self {
        assert!(
            self.stdout().contains(fragment),
            "no '{fragment}' on stdout; the run said:\n{}",
            self.said()
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

/// Runs `mastersim <extra args> --working-dir <working_dir> <project>` like [`run_mastersim`],
/// but for at most `limit` of wall time: a run still going then is killed (SIGKILL) and
/// `None` is returned.
pub fn run_mastersim_within(
    project: &Path,
    working_dir: &Path,
    extra: &[&str],
    limit: std::time::Duration,
) -> Option<Run> {
    use std::io::Read as _;
    let mut child = Command::new(mastersim_bin())
        .args(extra)
        .arg("--working-dir")
        .arg(working_dir)
        .arg(project)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("mastersim can be started");
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().expect("piped stdout")));
    let stderr = drain(Box::new(child.stderr.take().expect("piped stderr")));
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("mastersim's status") {
            break Some(status);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    let stdout = stdout.join().expect("stdout reader");
    let stderr = stderr.join().expect("stderr reader");
    status.map(|status| Run {
        output: Output {
            status,
            stdout,
            stderr,
        },
        working_dir: working_dir.to_path_buf(),
    })
}

/// Runs `mastersim <args>` (a subcommand, say) and waits for it; the [`Run`]'s working
/// directory is empty.
pub fn run_args(args: &[&str]) -> Run {
    let output = Command::new(mastersim_bin())
        .args(args)
        .output()
        .expect("mastersim can be started");
    Run {
        output,
        working_dir: PathBuf::new(),
    }
}

/// Writes `dir/long.toml`: a sweep of `n` long Lotka-Volterra cases (`Prey.alpha` = 1.0, 1.1,
/// …; 10⁷ steps of 0.1 ms, a row per simulated second, some seconds each) over the bundled
/// project of [`example_workspace`]; returns its path.
pub fn long_sweep(dir: &Path, n: usize) -> PathBuf {
    let path = dir.join("long.toml");
    let base = example_workspace().join("projects/lotka_volterra.msim");
    let alphas: Vec<String> = (0..n)
        .map(|i| format!("{:.1}", 1.0 + 0.1 * i as f64))
        .collect();
    std::fs::write(
        &path,
        format!(
            "base = {base:?}\n\
             options = [\"--set\", \"tEnd=1000 s\", \"--set\", \"hStart=0.0001 s\", \
             \"--set\", \"hOutputMin=1 s\"]\n\
             [grid]\n\"Prey.alpha\" = [{}]\n",
            alphas.join(", ")
        ),
    )
    .expect("write sweep file");
    path
}

/// Writes `dir/failing.toml`: a sweep of four 2-second cases over the bundled Lotka-Volterra
/// project, the third with the invalid value `fast` for the Real parameter `Prey.alpha`;
/// returns its path.
pub fn failing_sweep(dir: &Path) -> PathBuf {
    let path = dir.join("failing.toml");
    let base = example_workspace().join("projects/lotka_volterra.msim");
    std::fs::write(
        &path,
        format!(
            "base = {base:?}\noptions = [\"--set\", \"tEnd=2 s\"]\n\
             [grid]\n\"Prey.alpha\" = [1.0, 1.1, \"fast\", 1.3]\n"
        ),
    )
    .expect("write sweep file");
    path
}

/// The rows of a comma-separated file such as `cases.csv` or `sweep.csv` (header first), read
/// by `output::table`.
pub fn csv_rows(path: &Path) -> Vec<Vec<String>> {
    let options = output::table::ReadOptions {
        separator: Some(output::table::Separator::Comma),
        drop_empty_fields: false,
        equal_field_counts: true,
    };
    let table = output::table::RawTable::read(path, &options)
        .unwrap_or_else(|e| panic!("cannot read '{}': {e}", path.display()));
    std::iter::once(table.header.fields)
        .chain(table.rows.into_iter().map(|r| r.fields))
        .collect()
}

/// The cells of column `name` in every data row of `rows` (as [`csv_rows`] gives them).
///
/// # Panics
/// When the header has no such column.
pub fn csv_column(rows: &[Vec<String>], name: &str) -> Vec<String> {
    let i = rows[0]
        .iter()
        .position(|c| c == name)
        .unwrap_or_else(|| panic!("no column '{name}' in {:?}", rows[0]));
    rows[1..].iter().map(|r| r[i].clone()).collect()
}

/// The bytes of case `k`'s `results/values.csv` in the sweep directory `dir`.
pub fn case_values_csv(dir: &Path, k: usize) -> Vec<u8> {
    let path = dir.join(format!("cases/{k}/results/values.csv"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read '{}': {e}", path.display()))
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
            // Working directories of earlier runs are not part of the projects (a project's
            // or an `.ssd`'s is its path without the extension).
            if entry.path().with_extension("msim").is_file()
                || entry.path().with_extension("ssd").is_file()
            {
                continue;
            }
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target)
                .unwrap_or_else(|e| panic!("cannot copy to '{}': {e}", target.display()));
        }
    }
}

/// Writes a copy of the bundled project `projects/<name>.msim` with `extra` project lines
/// appended (later keywords win) next to it, so that its FMU paths hold, as
/// `<prefix>-<last component of tmp>.msim`; returns its path.
pub fn project_copy(name: &str, prefix: &str, extra: &str, tmp: &Path) -> PathBuf {
    let projects = example_workspace().join("projects");
    let text =
        std::fs::read_to_string(projects.join(format!("{name}.msim"))).expect("bundled project");
    let tag = tmp
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let copy = projects.join(format!("{prefix}-{tag}.msim"));
    std::fs::write(&copy, text + "\n" + extra).expect("write project copy");
    copy
}

/// Runs a copy of the bundled project `projects/<name>.msim` with `extra` project lines
/// appended (later keywords win), in a new working directory below `tmp`.
pub fn run_example_with(name: &str, extra: &str, args: &[&str], tmp: &Path) -> Run {
    let copy = project_copy(name, name, extra, tmp);
    let run = run_mastersim(&copy, &tmp.join("wd"), args);
    std::fs::remove_file(&copy).expect("remove project copy");
    run
}

/// Starts a long Lotka-Volterra run that writes CSV and MAT rows at every step (0.01 s, up to
/// 10⁶ s), kills it with SIGKILL once it has written a few thousand rows, and returns the MAT
/// file and a copy of `values.csv` holding its complete lines (the CSV is buffered, so it may
/// end inside a line).
pub fn killed_long_run(tmp: &Path) -> (PathBuf, PathBuf) {
    let extra = "tEnd 1000000 s\nhOutputMin 0.01 s\nresultFormats csv mat\n";
    let copy = project_copy("lotka_volterra", "killed", extra, tmp);
    let stem = copy
        .file_stem()
        .expect("a name")
        .to_string_lossy()
        .into_owned();
    let wd = tmp.join("wd");
    let mut child = Command::new(mastersim_bin())
        .args(["--verbosity-level", "0", "--working-dir"])
        .arg(&wd)
        .arg(&copy)
        .spawn()
        .expect("mastersim starts");
    let mat = wd.join(format!("results/{stem}.mat"));
    let started = std::time::Instant::now();
    while std::fs::metadata(&mat).map(|m| m.len()).unwrap_or(0) < 200_000 {
        assert!(started.elapsed().as_secs() < 60, "no MAT rows after 60 s");
        assert!(
            child.try_wait().expect("status").is_none(),
            "the run ended before it was killed"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(150));
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    std::fs::remove_file(&copy).expect("remove project copy");
    let csv = std::fs::read_to_string(wd.join("results/values.csv")).expect("values.csv");
    let complete = &csv[..csv.rfind('\n').map_or(0, |i| i + 1)];
    let csv_copy = tmp.join("values_complete.csv");
    std::fs::write(&csv_copy, complete).expect("write");
    (mat, csv_copy)
}

/// Linear interpolation of `kept` (sorted by time) at `t`.
pub fn interpolate(kept: &[(f64, f64)], t: f64) -> f64 {
    let k = kept.partition_point(|&(tk, _)| tk < t);
    if k < kept.len() && kept[k].0 == t {
        return kept[k].1;
    }
    assert!(k > 0 && k < kept.len(), "t = {t} outside the kept samples");
    let ((t0, v0), (t1, v1)) = (kept[k - 1], kept[k]);
    v0 + (v1 - v0) * ((t - t0) / (t1 - t0))
}

/// Every original sample is reproduced by linear interpolation of the kept ones within
/// `threshold·(|v| + 1e-12)`, plus `slack·|v|` for numbers printed with 14 digits.
pub fn assert_reconstructs(
    name: &str,
    original: &[(f64, f64)],
    kept: &[(f64, f64)],
    threshold: f64,
    slack: f64,
) {
    assert_eq!(
        kept.first().map(|k| k.0),
        original.first().map(|o| o.0),
        "{name}: first sample kept"
    );
    assert_eq!(
        kept.last().map(|k| k.0),
        original.last().map(|o| o.0),
        "{name}: last sample kept"
    );
    for &(t, v) in original {
        let r = interpolate(kept, t);
        let tolerance = threshold * (v.abs() + 1e-12) + slack * v.abs();
        assert!(
            (r - v).abs() <= tolerance,
            "{name} at t={t}: reconstructed {r}, original {v}"
        );
    }
}

/// Leak and memory-error counts of one valgrind memcheck run (bytes, and memcheck errors).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Memcheck {
    /// `definitely lost` bytes.
    pub definitely_lost: u64,
    /// `indirectly lost` bytes.
    pub indirectly_lost: u64,
    /// `possibly lost` bytes.
    pub possibly_lost: u64,
    /// Memory errors (invalid reads and writes, uses of uninitialized values, bad frees).
    pub errors: u64,
}

/// Runs `mastersim <extra> --working-dir <working_dir> <project>` under valgrind memcheck
/// (`--leak-check=full`, with the suppressions of `tests/valgrind.supp`, each explained there)
/// and returns the counts of its summary, after asserting exit code 0.
///
/// # Panics
/// When valgrind cannot be started (naming it), the run fails, or the summary is missing.
pub fn memcheck(project: &Path, working_dir: &Path, extra: &[&str]) -> Memcheck {
    let output = Command::new("valgrind")
        .args([
            "--leak-check=full",
            "--show-leak-kinds=definite,indirect,possible",
            "--num-callers=40",
        ])
        .arg(format!(
            "--suppressions={}",
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("valgrind.supp")
                .display()
        ))
        .arg(mastersim_bin())
        .args(extra)
        .arg("--working-dir")
        .arg(working_dir)
        .arg(project)
        .output()
        .expect("valgrind can be started (install Debian's package 'valgrind')");
    let report = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(0),
        "mastersim under valgrind failed:\n{report}"
    );
    let bytes = |label: &str| -> u64 {
        if report.contains("All heap blocks were freed") {
            return 0;
        }
        let line = report
            .lines()
            .find(|l| l.contains(label))
            .unwrap_or_else(|| panic!("no '{label}' in the valgrind report:\n{report}"));
        let after = &line[line.find(label).expect("found") + label.len()..];
        let number = after
            .split_whitespace()
            .next()
            .unwrap_or("")
            .replace(',', "");
        number
            .parse()
            .unwrap_or_else(|_| panic!("cannot read '{line}'"))
    };
    Memcheck {
        definitely_lost: bytes("definitely lost:"),
        indirectly_lost: bytes("indirectly lost:"),
        possibly_lost: bytes("possibly lost:"),
        errors: {
            let line = report
                .lines()
                .find(|l| l.contains("ERROR SUMMARY:"))
                .unwrap_or_else(|| panic!("no error summary in the valgrind report:\n{report}"));
            let after = &line[line.find("ERROR SUMMARY:").expect("found") + 14..];
            after
                .split_whitespace()
                .next()
                .unwrap_or("")
                .replace(',', "")
                .parse()
                .expect("error count")
        },
    }
}
