//! Runs killed and resumed: `mastersim` processes started with checkpoints, killed at random
//! moments (SIGKILL) drawn from a seeded generator, resumed until they complete, and compared
//! with an unbroken run byte for byte. Used by the self-contained checkpoint tests and the
//! corpus suite's resume test over real FMUs.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::{Run, mastersim_bin, read_summary};

/// Result formats of every run here: both are compared.
pub const FORMATS: &str = "csv,mat";

/// Environment variable that fixes the seed of [`Random::new`] (to repeat a failed run).
pub const SEED_VARIABLE: &str = "MASTERSIM_TEST_SEED";

/// A small random number generator (xorshift), seeded from [`SEED_VARIABLE`] or else from
/// the clock. The seed is printed, so that a failure can be repeated with the same draws.
#[derive(Debug)]
pub struct Random(u64);

impl Random {
    /// A generator with a printed seed.
    ///
    /// # Panics
    /// When [`SEED_VARIABLE`] is set but not a number.
    pub fn new() -> Random {
        let seed = match std::env::var(SEED_VARIABLE) {
            Ok(text) => text
                .parse::<u64>()
                .unwrap_or_else(|_| panic!("{SEED_VARIABLE}={text}: expected a number")),
            Err(_) => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64),
        } | 1;
        println!("random seed {seed} (repeat the draws with {SEED_VARIABLE}={seed})");
        Random(seed)
    }

    /// A number in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

impl Default for Random {
    fn default() -> Random {
        Random::new()
    }
}

/// `mastersim <args> --verbosity-level 0 --result-format csv,mat --working-dir <wd>
/// <project>`, started with `env` added to its environment.
pub fn start(project: &Path, wd: &Path, args: &[&str], env: &[(&str, &str)]) -> Child {
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
pub fn finish(child: Child, wd: &Path) -> Run {
    Run {
        output: child.wait_with_output().expect("mastersim ends"),
        working_dir: wd.to_path_buf(),
    }
}

/// Runs to the end and returns the run and its wall time, s.
pub fn run(project: &Path, wd: &Path, args: &[&str], env: &[(&str, &str)]) -> (Run, f64) {
    let started = Instant::now();
    let run = finish(start(project, wd, args, env), wd);
    (run, started.elapsed().as_secs_f64())
}

/// Sends `signal` to `child` after `delay`; returns whether it was still running then.
pub fn signal_after(child: &mut Child, delay: Duration, signal: &str) -> bool {
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
pub fn checkpoint(wd: &Path) -> PathBuf {
    wd.join("checkpoint").join("state.bin")
}

/// The warnings of the last run in the working directory `wd`, as `log/screenlog.txt`
/// records them (whatever the console's verbosity).
pub fn warnings(wd: &Path) -> Vec<String> {
    let log = wd.join("log").join("screenlog.txt");
    std::fs::read_to_string(&log)
        .unwrap_or_else(|e| panic!("{}: {e}", log.display()))
        .lines()
        .filter(|l| l.contains("[Warning ]"))
        .map(str::to_owned)
        .collect()
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

/// Asserts that the working directories `a` and `b` hold byte-identical results
/// (`values.csv` and the MAT file) and equal counters, of a completed run.
pub fn assert_identical(a: &Path, b: &Path, project: &Path) {
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

/// What [`kill_and_resume`] did.
#[derive(Debug)]
pub struct KillReport {
    /// Wall time of the unbroken run, s.
    pub unbroken: f64,
    /// Runs killed.
    pub kills: usize,
    /// Runs started with `--resume`.
    pub resumes: usize,
    /// The warnings of every run in order (the killed ones, then the one that completed).
    pub warnings: Vec<Vec<String>>,
    /// Size of the last checkpoint, bytes.
    pub checkpoint_size: u64,
}

/// One round of [`kill_and_resume`] in the working directory `wd`: up to `kills` SIGKILLs at
/// random moments of runs timed `seconds` unbroken, each followed by `--resume`, until a run
/// completes.
fn kill_round(
    project: &Path,
    wd: &Path,
    kills: usize,
    interval: &str,
    min_delay: f64,
    seconds: f64,
    random: &mut Random,
) -> KillReport {
    let name = project.display();
    let mut report = KillReport {
        unbroken: seconds,
        kills: 0,
        resumes: 0,
        warnings: Vec::new(),
        checkpoint_size: 0,
    };
    for attempt in 1.. {
        assert!(attempt < 100, "{name}: the run does not complete");
        let mut args = vec!["--checkpoint-interval", interval];
        if checkpoint(wd).is_file() {
            args.push("--resume");
            report.resumes += 1;
        }
        let mut child = start(project, wd, &args, &[]);
        if report.kills < kills {
            let share = seconds / (2.0 * kills as f64).max(10.0);
            let delay = Duration::from_secs_f64(min_delay + random.uniform() * share);
            if signal_after(&mut child, delay, "-KILL") {
                report.kills += 1;
                let _ = child.wait();
                report.warnings.push(warnings(wd));
                continue;
            }
        }
        finish(child, wd).assert_success();
        report.warnings.push(warnings(wd));
        break;
    }
    report
}

/// Runs `project` unbroken into `tmp/reference`, then in `tmp/killed-<round>` with a checkpoint every
/// `interval` seconds of wall time, killed (SIGKILL) `kills` times at random moments and
/// resumed after each kill, then resumed until it completes; asserts that the results are
/// byte-identical to the unbroken run's.
///
/// A kill falls `min_delay` s plus a random part of `1 / max(2 kills, 10)` of the unbroken run's
/// wall time after the start of a process: the kills together take at most half of the run (plus
/// the minimum delays), so that the kills hit a running process even when the machine's load
/// changes between the unbroken run and the killed ones (at least half of them must).
///
/// # Panics
/// When the unbroken run fails or is too short to be killed, more than half of the kills
/// miss, the resumed run fails, or the results differ.
pub fn kill_and_resume(
    project: &Path,
    kills: usize,
    interval: &str,
    min_delay: f64,
    tmp: &Path,
) -> KillReport {
    let name = project.display();
    let reference = tmp.join("reference");
    let (unbroken, seconds) = run(project, &reference, &[], &[]);
    unbroken.assert_success();
    assert!(
        seconds > 0.2,
        "{name}: the unbroken run takes {seconds:.3} s, too short to be killed at random"
    );
    let mut random = Random::new();
    let mut timed = seconds;
    let mut round = 1;
    let (wd, report) = loop {
        let wd = tmp.join(format!("killed-{round}"));
        let report = kill_round(project, &wd, kills, interval, min_delay, timed, &mut random);
        // A kill misses when a resumed run completes first: the machine's load may fall after
        // the unbroken run was timed (other tests end), and the runs then go faster than it
        // did. Then the unbroken run is timed again and the kills start over, twice at most.
        if report.kills * 2 >= kills || round == 3 {
            break (wd, report);
        }
        let (again, seconds) = run(project, &tmp.join(format!("timing-{round}")), &[], &[]);
        again.assert_success();
        timed = timed.min(seconds);
        round += 1;
    };
    assert!(
        report.kills * 2 >= kills,
        "{name}: only {} of {kills} kills hit a running process, in each of {round} rounds",
        report.kills
    );
    let mut report = KillReport {
        unbroken: seconds,
        ..report
    };
    assert_identical(&reference, &wd, project);
    report.checkpoint_size = std::fs::metadata(checkpoint(&wd)).map_or(0, |m| m.len());
    report
}
