//! Checkpoint and resume through the `mastersim` binary: runs killed with SIGKILL at random
//! times and resumed until they complete end byte-identical to an unbroken run, for every
//! master algorithm and both kinds of FMUs (serializing, replayed); SIGTERM and SIGINT stop
//! with a checkpoint; a kill inside the checkpoint write leaves the previous one; an FMU that
//! calls `exit(3)` leaves complete results and a resumable checkpoint; a non-deterministic FMU
//! stops a replay with an error naming it; a slave whose serialized FMU state does not
//! restore (found at the first checkpoint, or at the resume) is replayed, byte-identically.
//!
//! Each test prints the figures it measured (`--nocapture`).

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mastersim_tests::kill_resume::{
    assert_identical, checkpoint, finish, kill_and_resume, run, signal_after, start, warnings,
};
use mastersim_tests::{example_workspace, read_summary};

/// Random kills per project and kind of FMU.
const KILLS: usize = 10;

/// The checkpoint interval of the kill tests, s.
const INTERVAL: &str = "0.05";

/// The own packed FMU `model` with `canSerializeFMUstate` set to `serialize`, written to
/// `dir/<model>.fmu`.
pub(crate) fn fmu_variant(model: &str, serialize: bool, dir: &Path) -> PathBuf {
    let packed = example_workspace()
        .join("fmus")
        .join("packed")
        .join(format!("{model}.fmu"));
    let bytes = std::fs::read(&packed).expect("own packed FMU");
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("zip");
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).expect("entry");
        let name = entry.name().expect("entry name").into_owned();
        let mut data = Vec::new();
        entry.read_to_end(&mut data).expect("entry data");
        if name == "modelDescription.xml" {
            let text = String::from_utf8(data).expect("UTF-8 XML");
            let to = format!("canSerializeFMUstate=\"{serialize}\"");
            let text = text
                .replace("canSerializeFMUstate=\"true\"", &to)
                .replace("canSerializeFMUstate=\"false\"", &to);
            assert!(text.contains(&to), "{model} declares canSerializeFMUstate");
            data = text.into_bytes();
        }
        writer
            .start_file(name.as_str(), zip::write::SimpleFileOptions::default())
            .expect("zip entry");
        writer.write_all(&data).expect("zip data");
    }
    std::fs::create_dir_all(dir).expect("FMU directory");
    let path = dir.join(format!("{model}.fmu"));
    std::fs::write(&path, writer.finish().expect("zip").into_inner()).expect("write FMU");
    path
}

/// A copy of the bundled project `name` in `dir`, its FMUs declaring `serialize` (all of
/// them, or only the first with `mixed`), with `extra` lines appended (later keywords win).
fn project(name: &str, serialize: bool, extra: &str, dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(
        example_workspace()
            .join("projects")
            .join(format!("{name}.msim")),
    )
    .expect("bundled project");
    let fmus = dir.join(if serialize { "serializing" } else { "replayed" });
    let mut out = String::new();
    for line in text.lines() {
        if let Some(start) = line.find("\"../fmus/packed/") {
            let model = line[start + 16..]
                .trim_end_matches('"')
                .trim_end_matches(".fmu");
            let path = fmu_variant(model, serialize, &fmus);
            out.push_str(&line[..start]);
            out.push_str(&format!("\"{}\"", path.display()));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out.push_str(extra);
    out.push('\n');
    std::fs::create_dir_all(dir).expect("project directory");
    let path = dir.join(format!("{name}.msim"));
    std::fs::write(&path, out).expect("write project");
    path
}

/// The bundled projects of the four master algorithms, lengthened so that a run takes about
/// a second; the Gauss-Seidel one iterates.
const ALGORITHMS: [(&str, &str); 4] = [
    ("control_loop_jacobi", "tEnd 30000 s\nhOutputMin 1 s"),
    (
        "control_loop_seidel",
        "tEnd 8000 s\nhOutputMin 1 s\nmaxIterations 5",
    ),
    ("algebraic_loop_newton", "tEnd 40000 s\nhOutputMin 10 s"),
    ("lotka_volterra_adaptive", "tEnd 100000 s\nhOutputMin 10 s"),
];

/// Kills a run of the project of `ALGORITHMS[index]` `KILLS` times at random moments
/// (SIGKILL), resuming after each kill, then resumes until it completes; compares with an
/// unbroken run, and prints what it measured.
fn kill_test(index: usize, serialize: bool) {
    let (name, extra) = ALGORITHMS[index];
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = project(name, serialize, extra, tmp.path());
    let r = kill_and_resume(&project, KILLS, INTERVAL, 0.02, tmp.path());
    println!(
        "{name} ({}): unbroken {:.2} s; {} SIGKILLs, {} resumes: values.csv, MAT and counters byte-identical; checkpoint {} bytes",
        if serialize {
            "serialized FMU states"
        } else {
            "replayed"
        },
        r.unbroken,
        r.kills,
        r.resumes,
        r.checkpoint_size
    );
}

#[test]
fn kill_and_resume_gauss_jacobi_serialized() {
    kill_test(0, true);
}

#[test]
fn kill_and_resume_gauss_jacobi_replayed() {
    kill_test(0, false);
}

/// Kills a run whose three slaves run in helper processes (`isolate` lines;
/// `docs/isolation.md`) 3 times at random moments, resuming after each kill, and compares with
/// an unbroken run: the serialized FMU states come from the helpers.
#[test]
fn kill_and_resume_isolated_slaves() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let extra = "tEnd 10000 s\nhOutputMin 1 s\nisolate Part1\nisolate Part2\nisolate Part3";
    let project = project("control_loop_jacobi", true, extra, tmp.path());
    let r = kill_and_resume(&project, 3, INTERVAL, 0.05, tmp.path());
    println!(
        "control_loop_jacobi, isolated: unbroken {:.2} s; {} SIGKILLs, {} resumes: values.csv, MAT and counters byte-identical; checkpoint {} bytes",
        r.unbroken, r.kills, r.resumes, r.checkpoint_size
    );
}

#[test]
fn kill_and_resume_gauss_seidel_serialized() {
    kill_test(1, true);
}

#[test]
fn kill_and_resume_gauss_seidel_replayed() {
    kill_test(1, false);
}

#[test]
fn kill_and_resume_newton_serialized() {
    kill_test(2, true);
}

#[test]
fn kill_and_resume_newton_replayed() {
    kill_test(2, false);
}

#[test]
fn kill_and_resume_richardson_serialized() {
    kill_test(3, true);
}

#[test]
fn kill_and_resume_richardson_replayed() {
    kill_test(3, false);
}

/// SIGTERM and SIGINT stop the run with a checkpoint at the stop time (exit 143 / 130);
/// `--resume` completes it byte-identically.
#[test]
fn signals_stop_with_a_checkpoint_and_resume_completes() {
    let (name, extra) = ALGORITHMS[0];
    for (signal, code) in [("-TERM", 143), ("-INT", 130)] {
        let tmp = tempfile::tempdir().expect("temp dir");
        let project = project(name, true, extra, tmp.path());
        let reference = tmp.path().join("reference");
        let (unbroken, seconds) = run(&project, &reference, &[], &[]);
        unbroken.assert_success();
        let wd = tmp.path().join("stopped");
        // No periodic checkpoint during the run: only the one at the stop.
        let mut child = start(&project, &wd, &["--checkpoint-interval", "1000"], &[]);
        assert!(
            signal_after(&mut child, Duration::from_secs_f64(seconds * 0.5), signal),
            "the run was still going"
        );
        let stopped = finish(child, &wd);
        assert_eq!(stopped.code(), code, "{}", stopped.stderr());
        let summary = read_summary(&wd.join("log").join("summary.txt"));
        assert_eq!(
            summary.get("Outcome").map(String::as_str),
            Some("Interrupted")
        );
        assert!(checkpoint(&wd).is_file(), "a checkpoint at the stop");
        let (resumed, _) = run(&project, &wd, &["--resume"], &[]);
        resumed.assert_success();
        assert_identical(&reference, &wd, &project);
        println!(
            "{signal}: exit {code}, stopped at {}, resumed byte-identical",
            summary.get("Message").cloned().unwrap_or_default()
        );
    }
}

/// A kill while the checkpoint is being written (the test hook pauses the write halfway)
/// leaves the previous checkpoint, byte for byte, and `--resume` completes from it.
#[test]
fn a_kill_inside_the_checkpoint_write_leaves_the_previous_one() {
    let (name, extra) = ALGORITHMS[0];
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = project(name, true, extra, tmp.path());
    let reference = tmp.path().join("reference");
    let (unbroken, _) = run(&project, &reference, &[], &[]);
    unbroken.assert_success();
    let wd = tmp.path().join("killed");
    // Killed once a checkpoint exists (not after a share of the unbroken run's wall time,
    // which a busy machine stretches or shrinks).
    killed_after_a_checkpoint(&project, &wd, &[]);
    let previous = std::fs::read(checkpoint(&wd)).expect("a checkpoint before the kill");
    // Resume with the pause inside every checkpoint write, and kill during the pause.
    let pause = [(mastersim::checkpoint::WRITE_PAUSE_VARIABLE, "30")];
    let mut child = start(
        &project,
        &wd,
        &["--checkpoint-interval", INTERVAL, "--resume"],
        &pause,
    );
    let tmp_file = checkpoint(&wd).with_extension("tmp");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !tmp_file.is_file() {
        assert!(Instant::now() < deadline, "no checkpoint write started");
        assert!(child.try_wait().expect("wait").is_none(), "the run ended");
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(50));
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    let half = std::fs::metadata(&tmp_file).map_or(0, |m| m.len());
    assert_eq!(
        std::fs::read(checkpoint(&wd)).expect("checkpoint"),
        previous,
        "the previous checkpoint is unchanged"
    );
    let (resumed, _) = run(&project, &wd, &["--resume"], &[]);
    resumed.assert_success();
    assert_identical(&reference, &wd, &project);
    println!(
        "killed inside the write ({half} of {} bytes in the temporary file): previous checkpoint intact, resume byte-identical",
        previous.len()
    );
}

/// The Faulty FMU with `extra` parameter lines, fed by Part1 of the control loop, in a
/// project of `t_end` s with steps of 0.01 s and a row every 0.1 s.
fn faulty_project(dir: &Path, t_end: f64, extra: &str) -> PathBuf {
    faulty_project_serializing(dir, t_end, extra, false)
}

/// [`faulty_project`] with both FMUs declaring `canSerializeFMUstate` = `serialize`.
fn faulty_project_serializing(dir: &Path, t_end: f64, extra: &str, serialize: bool) -> PathBuf {
    std::fs::create_dir_all(dir).expect("dir");
    let fmus = dir.join("fmus");
    let faulty = fmu_variant("Faulty", serialize, &fmus);
    let part1 = fmu_variant("Part1", serialize, &fmus);
    let text = format!(
        "tStart 0 s\ntEnd {t_end} s\nhStart 0.01 s\nhOutputMin 0.1 s\nMasterMode GAUSS_JACOBI\n\
         simulator 0 0 Source #ff0000 \"{}\"\nsimulator 1 1 Faulty #00ff00 \"{}\"\n\
         graph Source.x2 Faulty.u\n{extra}\n",
        part1.display(),
        faulty.display()
    );
    let path = dir.join("faulty.msim");
    std::fs::write(&path, text).expect("write project");
    path
}

/// An FMU that calls `exit(3)` mid-run: the process exits with 3; values.csv and the MAT
/// file hold every completed row, the first included; `summary.txt` names the slave, the
/// function and the code; `--resume` with the fault switched off completes the run.
#[test]
fn an_fmu_calling_exit_leaves_complete_results_and_a_resumable_checkpoint() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let exit_time = 1500.0;
    let project = faulty_project(
        tmp.path(),
        3000.0,
        &format!("parameter Faulty.exitTime {exit_time}"),
    );
    let off = [("FAULTY_FAULTS", "off")];
    let reference = tmp.path().join("reference");
    let (unbroken, _) = run(&project, &reference, &[], &off);
    unbroken.assert_success();
    let wd = tmp.path().join("exited");
    let (exited, _) = run(&project, &wd, &["--checkpoint-interval", "0.01"], &[]);
    assert_eq!(exited.code(), 3, "the FMU's exit code: {}", exited.stderr());
    // Every completed row: the CSV's lines are complete and agree with the MAT file.
    let csv = std::fs::read_to_string(wd.join("results").join("values.csv")).expect("values.csv");
    assert!(csv.ends_with('\n'), "values.csv ends with a complete row");
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert!(rows[0].starts_with("0\t"), "the t0 row is there");
    let last_t: f64 = rows[rows.len() - 1]
        .split('\t')
        .next()
        .and_then(|t| t.parse().ok())
        .expect("a time");
    assert!(
        last_t < exit_time && last_t > exit_time - 0.15,
        "rows up to the exit (last at {last_t} s)"
    );
    let mat = output::mat::read(wd.join("results").join("faulty.mat")).expect("a valid MAT file");
    let time = mat.signal("Faulty.y").expect("Faulty.y").time.clone();
    assert_eq!(time.len(), rows.len(), "the MAT file holds the same rows");
    let summary = read_summary(&wd.join("log").join("summary.txt"));
    assert_eq!(
        summary.get("Outcome").map(String::as_str),
        Some("FmuExited")
    );
    let message = summary.get("Message").cloned().unwrap_or_default();
    for part in ["'Faulty'", "fmi2DoStep", "exit code 3"] {
        assert!(message.contains(part), "{part} in: {message}");
    }
    assert!(checkpoint(&wd).is_file(), "a checkpoint before the exit");
    let (resumed, _) = run(&project, &wd, &["--resume"], &off);
    resumed.assert_success();
    assert_identical(&reference, &wd, &project);
    println!(
        "exit(3) at t={last_t} s: exit code 3, {} rows kept in values.csv and the MAT file; summary: {message}; resume with the fault off: byte-identical",
        rows.len()
    );
}

/// A replay over an FMU whose outputs differ from process to process stops with an error
/// naming the slave and the time.
#[test]
fn a_replay_over_a_non_deterministic_fmu_names_the_slave_and_time() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = faulty_project(tmp.path(), 3000.0, "parameter Faulty.jitterTime 1");
    let wd = tmp.path().join("wd");
    let (first, _) = run(&project, &wd, &["--checkpoint-interval", "0.01"], &[]);
    first.assert_success();
    assert!(checkpoint(&wd).is_file(), "a checkpoint");
    let (resumed, _) = run(&project, &wd, &["--resume"], &[]);
    assert_eq!(resumed.code(), 2, "{}", resumed.stderr());
    let err = resumed.stderr();
    for part in [
        "slave 'Faulty'",
        "not deterministic",
        "at time 1",
        "Faulty.y",
    ] {
        assert!(err.contains(part), "{part} in: {err}");
    }
    println!("{}", err.trim());
}

/// Starts the run of `project` in `wd` with checkpoints every 10 ms, waits (up to 60 s) for
/// its first checkpoint (a file other than the one before) and kills it (SIGKILL).
fn killed_after_a_checkpoint(project: &Path, wd: &Path, args: &[&str]) {
    let before = std::fs::read(checkpoint(wd)).ok();
    let mut all = vec!["--checkpoint-interval", "0.01"];
    all.extend_from_slice(args);
    let mut child = start(project, wd, &all, &[]);
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read(checkpoint(wd)).ok() == before {
        assert!(Instant::now() < deadline, "no checkpoint written");
        assert!(child.try_wait().expect("wait").is_none(), "the run ended");
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(
        signal_after(&mut child, Duration::ZERO, "-KILL"),
        "the run was still going"
    );
    let _ = child.wait();
}

/// The one warning among `lines` that names `slave` and `function`; fails unless there is
/// exactly one warning and it names both.
fn one_warning<'a>(lines: &'a [String], slave: &str, function: &str) -> &'a str {
    assert_eq!(lines.len(), 1, "one warning: {lines:#?}");
    let line = &lines[0];
    for part in [format!("slave '{slave}'"), function.to_string()] {
        assert!(line.contains(&part), "{part} in: {line}");
    }
    line
}

/// A slave whose serialized FMU state does not restore (Faulty with `stateFault` 1, as
/// MasterSim's IBK FMUs, and 2) is found by the check at the first checkpoint, with one
/// warning naming the slave and the FMI function; its checkpoints replay, and the resumed
/// run ends byte-identical to an unbroken one.
#[test]
fn a_slave_whose_serialized_state_does_not_restore_is_replayed() {
    for (fault, function) in [(1, "fmi2DeSerializeFMUstate"), (2, "fmi2SetFMUstate")] {
        let tmp = tempfile::tempdir().expect("temp dir");
        let extra = format!("parameter Faulty.stateFault {fault}");
        let project = faulty_project_serializing(tmp.path(), 3000.0, &extra, true);
        let reference = tmp.path().join("reference");
        run(&project, &reference, &[], &[]).0.assert_success();
        let wd = tmp.path().join("killed");
        killed_after_a_checkpoint(&project, &wd, &[]);
        let checked = one_warning(&warnings(&wd), "Faulty", function).to_owned();
        assert!(!checked.contains("'Source'"), "Part1 restores: {checked}");
        let (resumed, _) = run(&project, &wd, &["--resume"], &[]);
        resumed.assert_success();
        let replayed = one_warning(&warnings(&wd), "Faulty", function).to_owned();
        assert!(replayed.contains("by replaying the run"), "{replayed}");
        assert_identical(&reference, &wd, &project);
        println!("stateFault {fault}: checked: {checked}\nresumed: {replayed}\nbyte-identical");
    }
}

/// A slave whose serialized FMU state restores in the process that wrote it only (Faulty
/// with `stateFault` 3) passes the check, so the checkpoint holds the serialized states; the
/// resume fails to restore it, instantiates the slaves anew and replays, with one warning
/// naming the slave and the FMI function. The resumed run's checkpoints replay (a second kill
/// and resume says why); the results are byte-identical to an unbroken run.
#[test]
fn a_serialized_state_that_fails_at_the_resume_falls_back_to_replay() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project =
        faulty_project_serializing(tmp.path(), 3000.0, "parameter Faulty.stateFault 3", true);
    let reference = tmp.path().join("reference");
    run(&project, &reference, &[], &[]).0.assert_success();
    let wd = tmp.path().join("killed");
    killed_after_a_checkpoint(&project, &wd, &[]);
    assert_eq!(warnings(&wd), Vec::<String>::new(), "the check passes");
    killed_after_a_checkpoint(&project, &wd, &["--resume"]);
    let fallback = one_warning(&warnings(&wd), "Faulty", "fmi2DeSerializeFMUstate").to_owned();
    assert!(fallback.contains("by replaying the run"), "{fallback}");
    let (resumed, _) = run(&project, &wd, &["--resume"], &[]);
    resumed.assert_success();
    let again = one_warning(&warnings(&wd), "Faulty", "fmi2DeSerializeFMUstate").to_owned();
    assert!(again.contains("by replaying the run"), "{again}");
    assert_identical(&reference, &wd, &project);
    println!("at the resume: {fallback}\nresumed again: {again}\nbyte-identical");
}
