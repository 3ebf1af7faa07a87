//! The platform table of `docs/isolation.md`: every cross-check FMU of the corpus that ships
//! binaries for several platforms (20-sim, OpenModelica and the Reference FMUs 0.0.1, FMI 2.0;
//! the Reference FMUs 0.0.37, FMI 3.0) runs from each of its `linux32`, `win64` and `win32`
//! binaries in a helper process (an `isolate` line with `platform=`), and its results are
//! compared with its reference by the same check and within the same bounds as its `linux64`
//! run (`crosscheck.rs`; FMI 3.0 Feedthrough and Resource, which have no reference, by their
//! definitions in `fmi3.rs`). A platform that `mastersim info` says cannot run here must be
//! refused with a message that says what to install. The table in `docs/isolation.md` must hold
//! exactly the measured rows and results, so that it cannot drift.
//!
//! The platforms each FMU ships are read from its archive (`binaries/<folder>/` holding a
//! library). Runs that take thousands of communication steps are compared over the first part
//! of their reference (the `compared` column): a Windows helper under Wine answers by polling,
//! and each step costs a round trip. The pairs run in parallel threads.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use mastersim_tests::{Run, corpus_dir, run_args, run_mastersim};

/// A set of FMUs from one tool, in one directory of the corpus.
struct Set {
    /// Directory below the corpus root that holds a directory per model.
    dir: &'static str,
    /// FMI version as the table shows it.
    fmi: &'static str,
    /// The exporting tool as the table shows it.
    tool: &'static str,
}

const TWENTY_SIM: Set = Set {
    dir: "crosscheck/fmi2/20sim/4.6.4.8004",
    fmi: "2.0",
    tool: "20-sim 4.6",
};
const OPENMODELICA: Set = Set {
    dir: "crosscheck/fmi2/OpenModelica/v1.11.0",
    fmi: "2.0",
    tool: "OpenModelica 1.11",
};
const REFERENCE_001: Set = Set {
    dir: "crosscheck/fmi2/TestFMUs-0.0.1",
    fmi: "2.0",
    tool: "Reference FMUs 0.0.1",
};
const REFERENCE_0037: Set = Set {
    dir: "fmi3",
    fmi: "3.0",
    tool: "Reference FMUs 0.0.37",
};

/// One FMU of the table.
struct Fmu {
    set: Set,
    /// Model name (directory and file stem, slave name).
    model: &'static str,
    /// Stop time (s) of the runs on other platforms; `None`: the reference's stop time.
    stop: Option<f64>,
}

impl Fmu {
    /// Directory below the corpus root.
    fn dir(&self) -> String {
        format!("{}/{}", self.set.dir, self.model)
    }

    fn archive(&self) -> PathBuf {
        let path = corpus_dir()
            .join(self.dir())
            .join(format!("{}.fmu", self.model));
        assert!(path.is_file(), "corpus FMU missing: '{}'", path.display());
        path
    }

    fn is_fmi3(&self) -> bool {
        self.set.fmi == "3.0"
    }
}

/// Every FMU of the table, in its order.
const FMUS: &[Fmu] = &[
    fmu(TWENTY_SIM, "Threetank", None),
    fmu(TWENTY_SIM, "TorsionBar", Some(2.0)),
    fmu(OPENMODELICA, "FmuExportCrossCompile", None),
    fmu(OPENMODELICA, "RoomHeating_OM_RH", None),
    fmu(OPENMODELICA, "WaterTank_Control", None),
    fmu(OPENMODELICA, "WaterTank_TestSingleWaterTank", None),
    fmu(REFERENCE_001, "BouncingBall", Some(1.0)),
    fmu(REFERENCE_001, "Dahlquist", Some(2.0)),
    fmu(REFERENCE_001, "Feedthrough", None),
    fmu(REFERENCE_001, "Resource", None),
    fmu(REFERENCE_001, "Stair", Some(3.0)),
    fmu(REFERENCE_001, "VanDerPol", Some(2.0)),
    fmu(REFERENCE_0037, "BouncingBall", Some(1.0)),
    fmu(REFERENCE_0037, "Dahlquist", Some(2.0)),
    fmu(REFERENCE_0037, "Feedthrough", None),
    fmu(REFERENCE_0037, "Resource", None),
    fmu(REFERENCE_0037, "Stair", None),
    fmu(REFERENCE_0037, "VanDerPol", Some(2.0)),
];

const fn fmu(set: Set, model: &'static str, stop: Option<f64>) -> Fmu {
    Fmu { set, model, stop }
}

/// The platforms of the table: FMI 2.0 folder name, FMI 3.0 folder name.
const PLATFORMS: [(&str, &str); 3] = [
    ("linux32", "x86-linux"),
    ("win64", "x86_64-windows"),
    ("win32", "x86-windows"),
];

/// What a pair (FMU, platform) gave.
#[derive(Debug, Clone, PartialEq)]
enum Verdict {
    /// Within the bounds of the linux64 run, with the largest absolute deviation.
    Matches(f64),
    /// Refused before running, with the reason (what to install).
    CannotRun(String),
    /// Out of bounds or failed, with the first line of the reason.
    Fails(String),
}

/// One row of the table: the key cells, the compared span and the verdict.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    model: String,
    fmi: String,
    tool: String,
    platform: String,
    compared: String,
    verdict: Verdict,
}

/// The FMI 2.0 names of the table's platforms that `fmu` ships a library for.
fn shipped(fmu: &Fmu) -> Vec<&'static str> {
    let file = std::fs::File::open(fmu.archive()).expect("open the FMU");
    let archive = zip::ZipArchive::new(file).expect("the FMU is a zip archive");
    let names: Vec<String> = archive
        .file_names()
        .map(|name| name.expect("an entry name").into_owned())
        .collect();
    PLATFORMS
        .iter()
        .filter(|(fmi2, fmi3)| {
            let folder = if fmu.is_fmi3() { fmi3 } else { fmi2 };
            let prefix = format!("binaries/{folder}/");
            names.iter().any(|name| {
                name.strip_prefix(&prefix)
                    .is_some_and(|file| file.ends_with(".so") || file.ends_with(".dll"))
            })
        })
        .map(|(fmi2, _)| *fmi2)
        .collect()
}

/// `mastersim info --json`'s verdict per platform folder: `Err(reason)` when it cannot run.
fn support(fmu: &Fmu) -> BTreeMap<String, Result<(), String>> {
    let archive = fmu.archive();
    let run = run_args(&["info", "--json", &archive.to_string_lossy()]);
    assert_eq!(run.code(), 0, "mastersim info: {}", run.stderr());
    let info: serde_json::Value = serde_json::from_str(&run.stdout()).expect("info --json");
    let entries = info["platformSupport"].as_array().expect("platformSupport");
    entries
        .iter()
        .map(|entry| {
            let how = entry["how"].as_str().unwrap_or_default();
            let verdict = if entry["runs"].as_bool() == Some(true) {
                Ok(())
            } else {
                Err(how.strip_prefix("no: ").unwrap_or(how).to_string())
            };
            (
                entry["platform"].as_str().unwrap_or_default().to_string(),
                verdict,
            )
        })
        .collect()
}

/// What the runs of `fmu` on other platforms compare, as the table's `compared` column shows
/// it: a span of the reference, all of it, or (no reference) the FMU's definition.
fn compared(fmu: &Fmu) -> String {
    match (
        fmu.stop,
        fmu.is_fmi3() && matches!(fmu.model, "Feedthrough" | "Resource"),
    ) {
        (_, true) => "definition".to_string(),
        (Some(stop), false) => format!("0–{stop} s"),
        (None, false) => "whole reference".to_string(),
    }
}

/// Runs `fmu` from its `platform` binary in a helper process and compares the results as its
/// linux64 run is compared; panics when they are out of bounds.
fn run_isolated(fmu: &Fmu, platform: &str, tmp: &Path) -> f64 {
    let isolate = |slave: &str| format!("isolate={slave} platform={platform}");
    match (fmu.set.fmi, fmu.model) {
        ("3.0", "Feedthrough") => {
            let project = super::fmi3::feedthrough_chain(tmp);
            let (source, sink) = (isolate("Source"), isolate("Sink"));
            let run = run_mastersim(
                &project,
                &tmp.join("wd"),
                &["--set", &source, "--set", &sink],
            );
            run.assert_success();
            super::fmi3::chain_passes_every_type(&run);
            0.0
        }
        ("3.0", "Resource") => {
            let run = run_mastersim(&fmu.archive(), &tmp.join("wd"), &["--platform", platform]);
            run.assert_success();
            super::fmi3::resource_reads_a(&run);
            0.0
        }
        _ => super::crosscheck::compare(
            &fmu.dir(),
            fmu.model,
            &["--set", &isolate(fmu.model)],
            fmu.stop,
        ),
    }
}

/// A platform `mastersim info` says cannot run here: a run must be refused before it starts,
/// with `reason` (which says what to install).
fn refused(fmu: &Fmu, platform: &str, reason: &str, tmp: &Path) -> Verdict {
    let run: Run = run_mastersim(&fmu.archive(), &tmp.join("wd"), &["--platform", platform]);
    let said = run.stderr();
    if run.code() != 2 || !said.contains(reason) || !reason.contains("install ") {
        return Verdict::Fails(format!(
            "expected a refusal (exit code 2) saying '{reason}', got exit code {}: {said}",
            run.code()
        ));
    }
    Verdict::CannotRun(reason.to_string())
}

/// Measures one pair.
fn measure(fmu: &Fmu, platform: &str, support: &Result<(), String>) -> Verdict {
    let tmp = tempfile::tempdir().expect("temp dir");
    if let Err(reason) = support {
        return refused(fmu, platform, reason, tmp.path());
    }
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_isolated(fmu, platform, tmp.path())
    }));
    match outcome {
        Ok(deviation) => Verdict::Matches(deviation),
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Verdict::Fails(message)
        }
    }
}

/// Every pair of the table, measured by `threads` worker threads.
fn measure_all(threads: usize) -> Vec<Row> {
    let mut jobs = Vec::new();
    for fmu in FMUS {
        let support = support(fmu);
        for platform in shipped(fmu) {
            let folder = PLATFORMS
                .iter()
                .find(|(fmi2, _)| *fmi2 == platform)
                .map(|(fmi2, fmi3)| if fmu.is_fmi3() { *fmi3 } else { *fmi2 })
                .expect("a platform of the table");
            let verdict = support
                .get(folder)
                .cloned()
                .unwrap_or_else(|| panic!("{}: info lists no {folder}", fmu.model));
            jobs.push((fmu, platform, verdict));
        }
    }
    // Windows helpers first: they take longest.
    jobs.sort_by_key(|(_, platform, _)| !platform.starts_with("win64"));
    let queue = std::sync::Mutex::new(jobs.into_iter());
    let rows = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let next = queue.lock().expect("queue").next();
                    let Some((fmu, platform, support)) = next else {
                        break;
                    };
                    let started = Instant::now();
                    let verdict = measure(fmu, platform, &support);
                    eprintln!(
                        "{} (FMI {}) {platform}: {verdict:?} in {:.1} s",
                        fmu.model,
                        fmu.set.fmi,
                        started.elapsed().as_secs_f64()
                    );
                    rows.lock().expect("rows").push(Row {
                        model: fmu.model.to_string(),
                        fmi: fmu.set.fmi.to_string(),
                        tool: fmu.set.tool.to_string(),
                        platform: platform.to_string(),
                        compared: compared(fmu),
                        verdict,
                    });
                }
            });
        }
    });
    rows.into_inner().expect("rows")
}

/// A deviation as the table shows it: `0`, or two significant digits (`6.1e-2`).
fn deviation_text(deviation: f64) -> String {
    if deviation == 0.0 {
        "0".to_string()
    } else {
        format!("{deviation:.1e}")
    }
}

/// The rows of the platform table in `docs/isolation.md`, with the line of each: the table is
/// the first one after the heading `## Platforms of the corpus's FMUs`, its columns FMU, FMI,
/// tool, platform, compared, result, largest deviation, and a free-text note.
fn documented() -> Vec<(usize, Row)> {
    let path = mastersim_tests::workspace_root().join("docs/isolation.md");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read '{}': {e}", path.display()));
    let heading = "## Platforms of the corpus's FMUs";
    let start = text
        .lines()
        .position(|l| l == heading)
        .unwrap_or_else(|| panic!("{}: no heading '{heading}'", path.display()));
    let cell = |c: &str| c.trim().trim_matches('`').to_string();
    text.lines()
        .enumerate()
        .skip(start)
        .skip_while(|(_, l)| !l.starts_with('|'))
        .take_while(|(_, l)| l.starts_with('|'))
        .skip(2)
        .map(|(k, line)| {
            let cells: Vec<String> = line.trim_matches('|').split('|').map(cell).collect();
            assert!(
                cells.len() == 8,
                "docs/isolation.md line {}: 8 cells expected, found {}",
                k + 1,
                cells.len()
            );
            let verdict = match (cells[5].as_str(), cells[6].as_str()) {
                ("matches", deviation) => Verdict::Matches(
                    deviation
                        .parse()
                        .unwrap_or_else(|_| panic!("line {}: deviation '{deviation}'", k + 1)),
                ),
                ("cannot run here", _) => Verdict::CannotRun(cells[7].clone()),
                ("fails", _) => Verdict::Fails(cells[7].clone()),
                (other, _) => panic!("docs/isolation.md line {}: result '{other}'", k + 1),
            };
            let row = Row {
                model: cells[0].clone(),
                fmi: cells[1].clone(),
                tool: cells[2].clone(),
                platform: cells[3].clone(),
                compared: cells[4].clone(),
                verdict,
            };
            (k + 1, row)
        })
        .collect()
}

/// Whether a documented row states what was measured: the same result; for a match the same
/// deviation to two digits; for a refusal a note that names the package to install.
fn agrees(documented: &Row, measured: &Row) -> bool {
    let same_key = (&documented.model, &documented.fmi, &documented.tool)
        == (&measured.model, &measured.fmi, &measured.tool)
        && (&documented.platform, &documented.compared) == (&measured.platform, &measured.compared);
    same_key
        && match (&documented.verdict, &measured.verdict) {
            (Verdict::Matches(a), Verdict::Matches(b)) => deviation_text(*a) == deviation_text(*b),
            (Verdict::CannotRun(note), Verdict::CannotRun(reason)) => reason
                .split("install ")
                .nth(1)
                .and_then(|rest| rest.split_whitespace().next())
                .is_some_and(|package| note.contains(package)),
            (Verdict::Fails(_), Verdict::Fails(_)) => true,
            _ => false,
        }
}

/// A measured row as a line of the documented table (printed when the table differs).
fn table_line(row: &Row) -> String {
    let (result, deviation, note) = match &row.verdict {
        Verdict::Matches(d) => ("matches", deviation_text(*d), String::new()),
        Verdict::CannotRun(reason) => ("cannot run here", "—".to_string(), reason.clone()),
        Verdict::Fails(reason) => (
            "fails",
            "—".to_string(),
            reason.lines().next().unwrap_or_default().to_string(),
        ),
    };
    format!(
        "| {} | {} | {} | {} | {} | {result} | {deviation} | {note} |",
        row.model, row.fmi, row.tool, row.platform, row.compared
    )
}

#[test]
fn platform_table_of_the_docs_holds() {
    let started = Instant::now();
    let mut measured = measure_all(2);
    let order = |row: &Row| {
        let fmu = FMUS
            .iter()
            .position(|f| f.model == row.model && f.set.fmi == row.fmi)
            .unwrap_or(usize::MAX);
        let platform = PLATFORMS.iter().position(|(p, _)| *p == row.platform);
        (fmu, platform)
    };
    measured.sort_by_key(order);
    eprintln!(
        "{} pairs in {:.1} s",
        measured.len(),
        started.elapsed().as_secs_f64()
    );
    let table: Vec<String> = measured.iter().map(table_line).collect();
    eprintln!("the measured table:\n{}", table.join("\n"));
    let documented = documented();
    let mut problems = Vec::new();
    for row in &measured {
        match documented.iter().find(|(_, d)| agrees(d, row)) {
            Some(_) => {}
            None => problems.push(format!("measured, not documented so: {}", table_line(row))),
        }
    }
    for (line, row) in &documented {
        if !measured.iter().any(|m| agrees(row, m)) {
            problems.push(format!(
                "docs/isolation.md line {line} not measured: {row:?}"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "the platform table of docs/isolation.md differs from this run (the measured table is \
         above):\n{}",
        problems.join("\n")
    );
    assert_eq!(
        measured.len(),
        documented.len(),
        "one documented row per pair"
    );
}
