//! Slaves in helper processes (`--isolate`, `isolate` lines; `docs/isolation.md`) through the
//! `mastersim` binary: every bundled project gives byte-identical `values.csv` isolated and
//! in-process; a run whose isolated FMU segfaults keeps its results and checkpoint and resumes
//! to the results of an unbroken run; a helper does not outlive a master killed with SIGKILL;
//! `mastersim info` says how each platform of an FMU runs here.
//!
//! Each test prints what it measured (`--nocapture`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mastersim_tests::kill_resume::{assert_identical, run};
use mastersim_tests::{example_workspace, mastersim_bin, run_args, run_mastersim, workspace_root};

/// The bundled projects (the repository's `projects/*.msim`), sorted, as run from the
/// example workspace (which other tests also write projects into).
fn bundled_projects() -> Vec<PathBuf> {
    let source = workspace_root().join("projects");
    let mut projects: Vec<PathBuf> = std::fs::read_dir(&source)
        .unwrap_or_else(|e| panic!("{}: {e}", source.display()))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "msim"))
        .map(|p| {
            let name = p.file_name().expect("a file name").to_owned();
            example_workspace().join("projects").join(name)
        })
        .collect();
    projects.sort();
    assert!(projects.len() >= 10, "bundled projects: {projects:?}");
    projects
}

#[test]
fn bundled_projects_are_byte_identical_isolated() {
    let tmp = tempfile::tempdir().expect("temp dir");
    for project in bundled_projects() {
        let name = project.file_stem().expect("name").to_string_lossy();
        let wd = |kind: &str| tmp.path().join(format!("{name}-{kind}"));
        let started = Instant::now();
        run_mastersim(&project, &wd("in-process"), &[]).assert_success();
        let in_process = started.elapsed();
        let started = Instant::now();
        run_mastersim(&project, &wd("isolated"), &["--isolate"]).assert_success();
        let isolated = started.elapsed();
        let read = |w: PathBuf| {
            let path = w.join("results").join("values.csv");
            std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        };
        assert!(
            read(wd("in-process")) == read(wd("isolated")),
            "{name}: values.csv differs isolated"
        );
        println!(
            "{name}: values.csv byte-identical isolated ({:.0} ms in-process, {:.0} ms isolated)",
            in_process.as_secs_f64() * 1e3,
            isolated.as_secs_f64() * 1e3
        );
    }
}

/// The project of Faulty (`F`, isolated, `segfaultTime` 0.95 s, slow steps from 0.3 to 0.6 s
/// so that periodic checkpoints fall before the crash) feeding Scale (`S`), 0 to 2 s by 0.1 s.
fn crashing_project(dir: &Path) -> PathBuf {
    let packed = example_workspace().join("fmus").join("packed");
    let text = format!(
        "tStart 0 s\ntEnd 2 s\nhStart 0.1 s\nhOutputMin 0.1 s\nMasterMode GAUSS_SEIDEL\n\
         ErrorControlMode NONE\nmaxIterations 1\n\
         simulator 0 0 F #ff0000 \"{}\"\nsimulator 1 0 S #00ff00 \"{}\"\ngraph F.y S.u\n\
         parameter F.segfaultTime 0.95\nparameter F.slowTime 0.3\nparameter F.slowUntil 0.6\n\
         isolate F\n",
        packed.join("Faulty.fmu").display(),
        packed.join("Scale.fmu").display()
    );
    let path = dir.join("crash.msim");
    std::fs::write(&path, text).expect("write project");
    path
}

#[test]
fn a_crashed_isolated_run_resumes_to_the_unbroken_results() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = crashing_project(tmp.path());
    let wd = tmp.path().join("crashed");
    let started = Instant::now();
    let (crashed, _) = run(&project, &wd, &["--checkpoint-interval", "0.02"], &[]);
    assert_eq!(crashed.code(), 1, "stderr: {}", crashed.stderr());
    assert!(
        crashed
            .stderr()
            .contains("killed by SIGSEGV (signal 11) in fmi2DoStep"),
        "{}",
        crashed.stderr()
    );
    let checkpoint = wd.join("checkpoint").join("state.bin");
    assert!(checkpoint.is_file(), "no checkpoint before the crash");
    // The same project with the faults switched off (the Faulty FMU's switch), resumed.
    let off = [("FAULTY_FAULTS", "off")];
    let (resumed, _) = run(&project, &wd, &["--resume"], &off);
    resumed.assert_success();
    let reference = tmp.path().join("reference");
    run(&project, &reference, &[], &off).0.assert_success();
    assert_identical(&reference, &wd, &project);
    println!(
        "segfault in an isolated slave: exit 1, checkpoint kept; resumed with the fault off: \
         values.csv, MAT and counters byte-identical to an unbroken run ({:.2} s in all)",
        started.elapsed().as_secs_f64()
    );
}

/// The processes whose parent is `parent`, from `/proc/*/stat`: (pid, start time in clock
/// ticks since boot), which names a process uniquely even when its pid is reused.
fn children_of(parent: u32) -> Vec<(u32, u64)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Some((ppid, start)) = stat(pid)
            && ppid == parent
        {
            found.push((pid, start));
        }
    }
    found
}

/// Parent pid and start time of `pid` (fields 4 and 22 of `/proc/<pid>/stat`), `None` when it
/// no longer exists or is a zombie.
fn stat(pid: u32) -> Option<(u32, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces; the fields after it do not.
    let rest = &text[text.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split(' ').collect();
    if fields.first() == Some(&"Z") {
        return None;
    }
    Some((fields.get(1)?.parse().ok()?, fields.get(19)?.parse().ok()?))
}

#[test]
fn no_helper_outlives_a_master_killed_with_sigkill() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = example_workspace()
        .join("projects")
        .join("lotka_volterra.msim");
    let mut master = Command::new(mastersim_bin())
        .args(["--verbosity-level", "0", "--isolate", "--set", "tEnd=1e9 s"])
        .arg("--working-dir")
        .arg(tmp.path().join("wd"))
        .arg(&project)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("mastersim starts");
    let started = Instant::now();
    let helpers = loop {
        let helpers = children_of(master.id());
        if helpers.len() == 2 {
            break helpers;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no two helper processes after 30 s: {helpers:?}"
        );
        assert!(
            master.try_wait().expect("status").is_none(),
            "the run ended"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    std::thread::sleep(Duration::from_millis(200));
    master.kill().expect("SIGKILL");
    master.wait().expect("reaped");
    let killed = Instant::now();
    let alive = || -> Vec<u32> {
        helpers
            .iter()
            .filter(|(pid, start)| stat(*pid).is_some_and(|(_, s)| s == *start))
            .map(|(pid, _)| *pid)
            .collect()
    };
    while !alive().is_empty() && killed.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        alive().is_empty(),
        "helpers {:?} still run 5 s after the master was killed",
        alive()
    );
    println!(
        "2 helpers (pids {:?}) gone {:.0} ms after SIGKILL of the master",
        helpers.iter().map(|(p, _)| p).collect::<Vec<_>>(),
        killed.elapsed().as_secs_f64() * 1e3
    );
}

#[test]
fn info_says_how_each_platform_runs() {
    let fmu = example_workspace()
        .join("fmus")
        .join("packed")
        .join("Faulty.fmu");
    let run = run_args(&["info", &fmu.to_string_lossy(), "--json"]);
    run.assert_success();
    let info: serde_json::Value = serde_json::from_str(&run.stdout()).expect("JSON");
    assert_eq!(
        info["platformSupport"],
        serde_json::json!([{"platform": "linux64", "runs": true, "how": "in-process"}]),
        "{info}"
    );
    let text = run_args(&["info", &fmu.to_string_lossy()]);
    text.assert_success()
        .assert_stdout_has("Platforms")
        .assert_stdout_has("linux64 (in-process)");
}
