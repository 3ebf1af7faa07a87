//! Checkpoint and resume through the `mastersim` binary: runs killed with SIGKILL at random
//! times and resumed until they complete end byte-identical to an unbroken run, for every
//! master algorithm and both kinds of FMUs (serializing, replayed); SIGTERM and SIGINT stop
//! with a checkpoint; a kill inside the checkpoint write leaves the previous one; an FMU that
//! calls `exit(3)` leaves complete results and a resumable checkpoint; a non-deterministic FMU
//! stops a replay with an error naming it.
//!
//! Each test prints the figures it measured (`--nocapture`).

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mastersim_tests::{Run, example_workspace, mastersim_bin, read_summary};

/// Random kills per project and kind of FMU.
const KILLS: usize = 10;

/// The checkpoint interval of the kill tests, s.
const INTERVAL: &str = "0.05";

/// Result formats compared.
const FORMATS: &str = "csv,mat";

/// A small random number generator (xorshift), seeded from the clock; the seed is printed so
/// a failure can be reproduced by reading it from the output.
struct Random(u64);

impl Random {
    fn new() -> Random {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
            | 1;
        println!("random seed {seed}");
        Random(seed)
    }

    /// A number in [0, 1).
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The own packed FMU `model` with `canSerializeFMUstate` set to `serialize`, written to
/// `dir/<model>.fmu`.
fn fmu_variant(model: &str, serialize: bool, dir: &Path) -> PathBuf {
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

/// `mastersim <args> --working-dir <wd> --result-format csv,mat <project>`, started.
fn start(project: &Path, wd: &Path, args: &[&str], env: &[(&str, &str)]) -> Child {
    Command::new(mastersim_bin())
        .args(args)
        .args(["--verbosity-level", "0", "--result-format", FORMATS])
        .arg("--working-dir")
        .arg(wd)
        .arg(project)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mastersim starts")
}

/// Waits for `child` and returns the run.
fn finish(child: Child, wd: &Path) -> Run {
    Run {
        output: child.wait_with_output().expect("mastersim ends"),
        working_dir: wd.to_path_buf(),
    }
}

/// Runs to the end and returns the run and its wall time, s.
fn run(project: &Path, wd: &Path, args: &[&str], env: &[(&str, &str)]) -> (Run, f64) {
    let started = Instant::now();
    let run = finish(start(project, wd, args, env), wd);
    (run, started.elapsed().as_secs_f64())
}

/// Sends `signal` to `child` after `delay`; returns whether it was still running then.
fn signal_after(child: &mut Child, delay: Duration, signal: &str) -> bool {
    let deadline = Instant::now() + delay;
    while Instant::now() < deadline {
        if child.try_wait().expect("wait").is_some() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill runs");
    status.success()
}

/// The checkpoint of the working directory `wd`.
fn checkpoint(wd: &Path) -> PathBuf {
    wd.join("checkpoint").join("state.bin")
}

/// The result files and the summary's counters (keys without `Time`) of a working
/// directory, for comparing two runs.
fn results(wd: &Path, project: &Path) -> (Vec<u8>, Vec<u8>, Vec<(String, String)>) {
    let name = project.file_stem().expect("name").to_string_lossy();
    let read = |p: PathBuf| std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let summary = read_summary(&wd.join("log").join("summary.txt"))
        .into_iter()
        .filter(|(k, _)| !k.contains("Time"))
        .collect();
    (
        read(wd.join("results").join("values.csv")),
        read(wd.join("results").join(format!("{name}.mat"))),
        summary,
    )
}

/// Asserts that the working directories `a` and `b` hold byte-identical results and equal
/// counters.
fn assert_identical(a: &Path, b: &Path, project: &Path) {
    let (csv_a, mat_a, sum_a) = results(a, project);
    let (csv_b, mat_b, sum_b) = results(b, project);
    assert!(
        csv_a == csv_b,
        "values.csv differs: {} vs {}",
        a.display(),
        b.display()
    );
    assert!(
        mat_a == mat_b,
        "the MAT file differs: {} vs {}",
        a.display(),
        b.display()
    );
    assert_eq!(sum_a, sum_b, "summary.txt counters differ");
    assert!(
        !sum_a.iter().any(|(k, _)| k == "Outcome"),
        "completed: {sum_a:?}"
    );
}

/// Kills a run `KILLS` times at random moments (SIGKILL), resuming after each kill, then
/// resumes until it completes; compares with an unbroken run. Returns what it measured.
fn kill_and_resume(name: &str, serialize: bool, extra: &str, tmp: &Path) -> String {
    let project = project(name, serialize, extra, tmp);
    let reference = tmp.join("reference");
    let (unbroken, seconds) = run(&project, &reference, &[], &[]);
    unbroken.assert_success();
    assert!(
        seconds > 0.2,
        "{name}: the unbroken run takes {seconds:.3} s, too short to be killed at random"
    );
    let wd = tmp.join("killed");
    let mut random = Random::new();
    let (mut kills, mut resumes, mut attempts) = (0, 0, 0);
    loop {
        attempts += 1;
        assert!(attempts < 100, "{name}: the run does not complete");
        let resume = checkpoint(&wd).is_file();
        let mut args = vec!["--checkpoint-interval", INTERVAL];
        if resume {
            args.push("--resume");
            resumes += 1;
        }
        let mut child = start(&project, &wd, &args, &[]);
        if kills < KILLS {
            // A resumed run has only the rest to go: kill within the first tenth of an
            // unbroken run's time, so that every kill hits a running process.
            let delay = Duration::from_secs_f64(0.02 + random.next() * seconds / 10.0);
            if signal_after(&mut child, delay, "-KILL") {
                kills += 1;
                let _ = child.wait();
                continue;
            }
        }
        let run = finish(child, &wd);
        run.assert_success();
        break;
    }
    assert_eq!(kills, KILLS, "{name}: every kill hit a running process");
    assert_identical(&reference, &wd, &project);
    let size = std::fs::metadata(checkpoint(&wd)).map_or(0, |m| m.len());
    format!(
        "{name} ({}): unbroken {seconds:.2} s; {kills} SIGKILLs, {resumes} resumes: values.csv, MAT and counters byte-identical; checkpoint {size} bytes",
        if serialize {
            "serialized FMU states"
        } else {
            "replayed"
        }
    )
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

fn kill_test(index: usize, serialize: bool) {
    let (name, extra) = ALGORITHMS[index];
    let tmp = tempfile::tempdir().expect("temp dir");
    println!("{}", kill_and_resume(name, serialize, extra, tmp.path()));
}

#[test]
fn kill_and_resume_gauss_jacobi_serialized() {
    kill_test(0, true);
}

#[test]
fn kill_and_resume_gauss_jacobi_replayed() {
    kill_test(0, false);
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
    let (unbroken, seconds) = run(&project, &reference, &[], &[]);
    unbroken.assert_success();
    let wd = tmp.path().join("killed");
    let mut child = start(&project, &wd, &["--checkpoint-interval", INTERVAL], &[]);
    assert!(signal_after(
        &mut child,
        Duration::from_secs_f64(seconds * 0.4),
        "-KILL"
    ));
    let _ = child.wait();
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
    std::fs::create_dir_all(dir).expect("dir");
    let fmus = dir.join("fmus");
    let faulty = fmu_variant("Faulty", false, &fmus);
    let part1 = fmu_variant("Part1", false, &fmus);
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
