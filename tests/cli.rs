//! Command-line options: both `--opt=value` and `--opt value`, `--test-init`, `--skip-unzip`,
//! `--version`, the default working directory (a bare FMU run's in the current directory), and
//! what a first trial hit (issue 28): mistyped subcommands, files that are no input, negative
//! values, times with floating-point noise, a library of another architecture.

use std::process::Command;

use mastersim_tests::{ResultTable, example_workspace, mastersim_bin, run_mastersim};

fn project() -> std::path::PathBuf {
    example_workspace().join("projects/control_loop_seidel.msim")
}

#[test]
fn option_values_with_and_without_equals_sign() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let status = Command::new(mastersim_bin())
        .arg(format!("--working-dir={}", a.display()))
        .arg("--verbosity-level=0")
        .arg(project())
        .status()
        .expect("runs");
    assert!(status.success());
    let status = Command::new(mastersim_bin())
        .args(["--working-dir"])
        .arg(&b)
        .args(["--verbosity-level", "0"])
        .arg(project())
        .status()
        .expect("runs");
    assert!(status.success());
    assert_eq!(
        std::fs::read(a.join("results/values.csv")).expect("a"),
        std::fs::read(b.join("results/values.csv")).expect("b")
    );
}

#[test]
fn test_init_writes_the_first_row_only() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_mastersim(&project(), &tmp.path().join("wd"), &["-t"]);
    run.assert_success();
    let v = ResultTable::read(&run.path("results/values.csv"));
    assert_eq!(v.rows.len(), 1);
    assert_eq!(v.numbers("Time"), vec![0.0]);
    assert!(
        !run.path("log/summary.txt").exists(),
        "no summary after --test-init"
    );
}

#[test]
fn skip_unzip_reuses_extracted_fmus() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let wd = tmp.path().join("wd");
    run_mastersim(&project(), &wd, &[]).assert_success();
    let first = std::fs::read(wd.join("results/values.csv")).expect("results");
    std::fs::remove_dir_all(wd.join("results")).expect("remove results");
    run_mastersim(&project(), &wd, &["--skip-unzip"]).assert_success();
    assert_eq!(
        std::fs::read(wd.join("results/values.csv")).expect("results"),
        first
    );
    // Without the extracted FMUs, --skip-unzip is an FMU error naming the missing file.
    let other = tmp.path().join("other");
    let run = run_mastersim(&project(), &other, &["--skip-unzip"]);
    assert_eq!(run.code(), 2);
    assert!(
        run.stderr().contains("modelDescription.xml"),
        "{}",
        run.stderr()
    );
}

#[test]
fn version_and_default_working_directory() {
    let out = Command::new(mastersim_bin())
        .arg("-v")
        .output()
        .expect("runs");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains(env!("CARGO_PKG_VERSION")));
    let tmp = tempfile::tempdir().expect("temp dir");
    let copy = tmp.path().join("loop.msim");
    let text = std::fs::read_to_string(project()).expect("project");
    let fmus = example_workspace().join("fmus/packed");
    std::fs::write(
        &copy,
        text.replace("../fmus/packed", &fmus.display().to_string()),
    )
    .expect("write");
    let status = Command::new(mastersim_bin())
        .arg(&copy)
        .arg("--verbosity-level=0")
        .status()
        .expect("runs");
    assert!(status.success());
    assert!(
        tmp.path().join("loop/results/values.csv").is_file(),
        "working directory = project path without extension"
    );
}

#[test]
fn usage_errors_exit_with_two() {
    let out = Command::new(mastersim_bin())
        .arg("--no-such-option")
        .arg(project())
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let out = Command::new(mastersim_bin()).output().expect("runs");
    assert_eq!(out.status.code(), Some(2), "a project file is required");
}

/// First-hour rough edges: a closed stdout, a directory or two projects on the command line,
/// a verbosity out of range. Each gets a clear answer and never a panic.
#[test]
fn rough_edges_of_the_command_line() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;

    let tmp = tempfile::tempdir().expect("temp dir");
    // `mastersim p.msim | head -1`: the reader goes away; the run completes without a panic.
    let mut child = Command::new(mastersim_bin())
        .arg("--working-dir")
        .arg(tmp.path().join("pipe"))
        .arg(project())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("waits");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.code() == Some(0) || out.status.signal() == Some(13),
        "{:?}: {stderr}",
        out.status
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(tmp.path().join("pipe/results/values.csv").is_file());

    let refused = |args: &[&std::ffi::OsStr], expected: &str| {
        let out = Command::new(mastersim_bin())
            .args(args)
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned()
            + &String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("subcommand") && !stderr.contains("panicked"),
            "{stderr}"
        );
    };
    let dir = tmp.path().join("a_folder");
    std::fs::create_dir(&dir).unwrap();
    refused(
        &[dir.as_os_str()],
        "is a directory without SystemStructure.ssd; expected a project file",
    );
    assert!(
        !dir.join("log").exists(),
        "nothing is created inside the directory"
    );
    let p = project();
    refused(&[p.as_os_str(), p.as_os_str()], "one project per run");
    refused(
        &["--verbosity-level".as_ref(), "9".as_ref(), p.as_os_str()],
        "9 is not in 0..=4",
    );
}

/// Messages say what happens: a second run reuses the extraction without talking of
/// overwriting it, and a run without result variables still writes its time column.
#[test]
fn messages_match_what_happens() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let wd = tmp.path().join("wd");
    let verbose = ["--verbosity-level", "3"];
    let first = run_mastersim(&project(), &wd, &verbose);
    first.assert_success();
    assert!(
        first.stdout().contains("extracting '"),
        "{}",
        first.stdout()
    );
    let second = run_mastersim(&project(), &wd, &verbose);
    second.assert_success();
    let out = second.stdout();
    assert!(out.contains("reusing the extraction"), "{out}");
    assert!(
        !out.contains("overwrite") && !out.contains("extracting '"),
        "{out}"
    );

    let run = mastersim_tests::run_example_with(
        "lotka_volterra",
        "outputOnly Nothing.*",
        &[],
        &tmp.path().join("none"),
    );
    run.assert_success();
    let out = run.stdout();
    assert!(!out.contains("will not generate any results"), "{out}");
    assert_eq!(
        out.matches("only the time column").count(),
        1,
        "one warning, naming both causes: {out}"
    );
    assert!(out.contains("no outputOnly pattern matches"), "{out}");
    let values = std::fs::read_to_string(run.path("results/values.csv")).expect("values.csv");
    assert!(values.starts_with("Time [s]\n0\n"), "{values}");
}

/// `mastersim <args>` started in `dir`: exit code and everything it said.
fn run_in(dir: &std::path::Path, args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let out = Command::new(mastersim_bin())
        .current_dir(dir)
        .args(args)
        .output()
        .expect("runs");
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), said)
}

/// The names in `dir`, sorted.
fn listing(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("listing")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Issue 28: a bare FMU run works in `./<model>/` of the current directory, never beside the
/// FMU (which may sit in a source tree); `--working-dir` still wins; a project keeps
/// MasterSim's layout (checked in `version_and_default_working_directory`).
#[test]
fn a_bare_fmu_run_works_in_the_current_directory() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let source = tmp.path().join("src/fmus/packed");
    std::fs::create_dir_all(&source).expect("source tree");
    let fmu = source.join("Prey.fmu");
    std::fs::copy(example_workspace().join("fmus/packed/Prey.fmu"), &fmu).expect("copy");
    let cwd = tmp.path().join("cwd");
    std::fs::create_dir(&cwd).expect("cwd");
    let (code, said) = run_in(&cwd, &[fmu.as_os_str(), "--stop-time=1".as_ref()]);
    assert_eq!(code, Some(0), "{said}");
    assert!(cwd.join("Prey/results/values.csv").is_file(), "{said}");
    assert!(said.contains("Results are in 'Prey/results'"), "{said}");
    assert_eq!(listing(&source), ["Prey.fmu"], "nothing beside the FMU");

    let chosen = tmp.path().join("chosen");
    let (code, said) = run_in(
        &cwd,
        &[
            "--working-dir".as_ref(),
            chosen.as_os_str(),
            fmu.as_os_str(),
            "--stop-time=1".as_ref(),
        ],
    );
    assert_eq!(code, Some(0), "{said}");
    assert!(chosen.join("results/values.csv").is_file(), "{said}");
    assert_eq!(listing(&cwd), ["Prey"], "--working-dir wins");
    assert_eq!(listing(&source), ["Prey.fmu"]);
}

/// Issue 28: a mistyped subcommand gets the subcommand by edit distance; a file that is no
/// project, FMU or SSP system is refused before anything is created (no `README/` left
/// behind), with a hint where it looks like another subcommand's input; a negative number is
/// a value, judged by its option (no "use '-- -5'" tip).
#[test]
fn mistyped_commands_and_inputs_are_refused_before_anything_is_created() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    std::fs::write(dir.join("README.md"), "# notes\n").expect("write");
    std::fs::write(dir.join("x.csv"), "time,x\n0,1\n").expect("write");
    std::fs::write(dir.join("s.toml"), "base = \"p.msim\"\n").expect("write");
    let before = listing(dir);
    let refused = [
        (
            &["veiw", "x.csv"][..],
            "'veiw' is not a subcommand (did you mean 'view'?)",
        ),
        (&["plto"], "(did you mean 'plot'?)"),
        (
            &["README.md"],
            "'README.md' is not a project: expected a MasterSim project (.msim), an FMU (.fmu)",
        ),
        (&["x.csv"], "results are shown with `mastersim view <file>`"),
        (
            &["s.toml"],
            "a sweep file runs with `mastersim sweep run <file>`",
        ),
    ];
    for (args, expected) in refused {
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
        let (code, said) = run_in(dir, &args);
        assert_eq!(code, Some(2), "{args:?}: {said}");
        assert!(said.contains(expected), "{args:?}: {said}");
        assert!(!said.contains("follows the project"), "{args:?}: {said}");
        assert_eq!(listing(dir), before, "{args:?} created nothing");
    }

    let fmu = example_workspace().join("fmus/packed/Prey.fmu");
    let wd = dir.join("negative");
    let (code, said) = run_in(
        dir,
        &[
            fmu.as_os_str(),
            "--working-dir".as_ref(),
            wd.as_os_str(),
            "--stop-time".as_ref(),
            "-5".as_ref(),
        ],
    );
    assert_eq!(code, Some(2), "{said}");
    assert!(
        said.contains("tEnd = -5 s must be greater than tStart"),
        "{said}"
    );
    assert!(!said.contains("-- -5"), "{said}");
}

/// Issue 28: times people read are printed to the precision of the time grid: a run at
/// 0.1 s steps that a slave ends after 17 steps says `t = 1.7 s`, not
/// `t = 1.7000000000000002 s`, on the console, in the log and in `summary.txt`.
#[test]
fn times_are_printed_to_the_precision_of_the_grid() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = example_workspace().join("projects/four_vars.msim");
    let run = run_mastersim(
        &project,
        &tmp.path().join("wd"),
        &[
            "--set",
            "hStart=0.1 s",
            "--set",
            "hOutputMin=0.1 s",
            "--set",
            "Generator.terminateTime=1.75",
        ],
    );
    run.assert_success();
    let said = run.said();
    assert!(
        said.contains("Simulation ended at t = 1.7 s on request of slave 'Generator'"),
        "{said}"
    );
    let log = std::fs::read_to_string(run.path("log/screenlog.txt")).expect("screenlog");
    let summary = std::fs::read_to_string(run.path("log/summary.txt")).expect("summary");
    for text in [&said, &log, &summary] {
        assert!(
            text.contains("t=1.7 s") || text.contains("t = 1.7 s"),
            "{text}"
        );
        assert!(!text.contains("1.70000"), "{text}");
    }
}

/// Issue 28: a shared library built for another architecture (here the own Prey FMU with the
/// ELF header's `e_machine` set to AArch64) is refused naming that architecture, not with
/// dlopen's "No such file or directory"; `info` says the same.
#[test]
fn a_library_of_another_architecture_is_named() {
    use crate::hostile::rows::{fmu_entries, zip_bytes};
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut entries = fmu_entries("Prey");
    let (_, library) = entries
        .iter_mut()
        .find(|(name, _)| name == "binaries/linux64/Prey.so")
        .expect("Prey has a linux64 library");
    assert_eq!(&library[..4], b"\x7fELF");
    library[18..20].copy_from_slice(&183u16.to_le_bytes());
    let fmu = tmp.path().join("Prey.fmu");
    std::fs::write(&fmu, zip_bytes(&entries)).expect("write FMU");
    let run = run_mastersim(&fmu, &tmp.path().join("wd"), &[]);
    assert_eq!(run.code(), 2, "{}", run.said());
    let said = run.said();
    assert!(
        said.contains("the shared library is built for AArch64 (64-bit ARM)"),
        "{said}"
    );
    assert!(!said.contains("No such file or directory"), "{said}");
    let (code, info) = run_in(tmp.path(), &["info".as_ref(), fmu.as_os_str()]);
    assert_eq!(code, Some(0), "{info}");
    assert!(
        info.contains("no: binaries/linux64/Prey.so is built for AArch64 (64-bit ARM)"),
        "{info}"
    );
}
