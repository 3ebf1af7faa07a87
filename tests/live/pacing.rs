//! `--real-time`: a paced run meets its deadlines (total time, median and p99 deviation of the
//! communication points), a faster factor shortens it accordingly, an unpaced run never
//! sleeps, and a deliberately slow FMU produces counted overruns without drift afterwards.

use std::path::{Path, PathBuf};
use std::time::Instant;

use mastersim_tests::{example_workspace, read_summary, run_mastersim};

/// A project in the bundled projects' folder: `body` below a 10 ms fixed step from 0 to
/// `t_end` s; returns its path.
fn project(name: &str, t_end: f64, body: &str) -> PathBuf {
    let path = example_workspace()
        .join("projects")
        .join(format!("pacing-{name}.msim"));
    let text = format!(
        "tStart 0 s\ntEnd {t_end} s\nhStart 0.01 s\nhOutputMin 0.01 s\n\
         MasterMode GAUSS_SEIDEL\nErrorControlMode NONE\nmaxIterations 1\n{body}"
    );
    std::fs::write(&path, text).expect("write project");
    path
}

/// Lotka-Volterra with a 10 ms communication step, 4 s long.
fn four_seconds() -> PathBuf {
    project(
        "lv",
        4.0,
        "simulator 0 0 Prey #ff8c00 \"../fmus/packed/Prey.fmu\"\n\
         simulator 1 0 Predator #008000 \"../fmus/packed/Predator.fmu\"\n\
         graph Predator.y Prey.y\ngraph Prey.x Predator.x\n",
    )
}

/// The `RealTime…` figures of a run's summary: (stepping wall time = simulated time / total
/// factor, s; rolling factor; overruns; largest overrun, s; deviation median, s; p99, s).
struct Figures {
    stepping: f64,
    rolling: f64,
    overruns: u64,
    max_overrun: f64,
    median: f64,
    p99: f64,
}

fn figures(wd: &Path, t_end: f64) -> Figures {
    let s = read_summary(&wd.join("log/summary.txt"));
    let f = |k: &str| -> f64 {
        s.get(k)
            .unwrap_or_else(|| panic!("{k} missing in summary.txt: {s:?}"))
            .parse()
            .unwrap()
    };
    Figures {
        stepping: t_end / f("RealTimeFactor"),
        rolling: f("RealTimeRollingFactor"),
        overruns: f("RealTimeOverruns") as u64,
        max_overrun: f("RealTimeMaxOverrun"),
        median: f("RealTimeDeviationMedian"),
        p99: f("RealTimeDeviationP99"),
    }
}

/// Runs `project` with `args`; returns the process's wall time, s.
fn timed(project: &Path, wd: &Path, args: &[&str]) -> f64 {
    let started = Instant::now();
    run_mastersim(project, wd, args).assert_success();
    started.elapsed().as_secs_f64()
}

#[test]
fn paced_runs_meet_their_deadlines() {
    let tmp = tempfile::tempdir().unwrap();
    let project = four_seconds();

    let wall = timed(&project, &tmp.path().join("x1"), &["--real-time"]);
    let f = figures(&tmp.path().join("x1"), 4.0);
    println!(
        "factor 1: stepping {:.4} s (process {wall:.3} s), deviation median {:.3} ms, p99 {:.3} ms, \
         {} overruns, rolling factor {:.4}",
        f.stepping,
        f.median * 1e3,
        f.p99 * 1e3,
        f.overruns,
        f.rolling
    );
    assert!(
        (f.stepping - 4.0).abs() <= 0.02 * 4.0,
        "stepping took {} s",
        f.stepping
    );
    assert!(
        wall >= 4.0,
        "a 4 s run at factor 1 cannot end after {wall} s"
    );
    assert!(f.median <= 1e-3, "median deviation {} s", f.median);
    assert!(f.p99 <= 20e-3, "p99 deviation {} s", f.p99);
    // The progress line (every 2 s when not on a terminal) carries the figures.
    let log = std::fs::read_to_string(tmp.path().join("x1/log/screenlog.txt")).unwrap();
    assert!(
        log.lines()
            .any(|l| l.contains("real time ×") && l.contains("overruns")),
        "no progress line with the pacing figures:\n{log}"
    );

    let wall4 = timed(&project, &tmp.path().join("x4"), &["--real-time", "4"]);
    let f4 = figures(&tmp.path().join("x4"), 4.0);
    println!(
        "factor 4: stepping {:.4} s (process {wall4:.3} s), deviation median {:.3} ms, p99 {:.3} ms",
        f4.stepping,
        f4.median * 1e3,
        f4.p99 * 1e3
    );
    assert!(
        (f4.stepping - 1.0).abs() <= 0.02,
        "stepping took {} s",
        f4.stepping
    );
    assert!(wall4 >= 1.0);

    let unpaced = timed(&project, &tmp.path().join("free"), &[]);
    println!(
        "unpaced: process {unpaced:.3} s ({:.1} % of the paced run)",
        100.0 * unpaced / wall
    );
    assert!(unpaced < 0.1 * wall, "an unpaced run took {unpaced} s");
    let s = read_summary(&tmp.path().join("free/log/summary.txt"));
    assert!(
        !s.contains_key("RealTimeFactor"),
        "an unpaced run reports no pacing"
    );
    std::fs::remove_file(project).unwrap();
}

#[test]
fn a_slow_fmu_overruns_without_drift_afterwards() {
    let tmp = tempfile::tempdir().unwrap();
    // Faulty sleeps 50 ms in every step that ends in [1 s, 1.5 s): 50 steps of 10 ms that
    // each run 40 ms late; the run goes on for 1.5 s after the window.
    let project = project(
        "slow",
        3.0,
        "simulator 0 0 Faulty #000000 \"../fmus/packed/Faulty.fmu\"\n\
         parameter Faulty.slowTime 1\nparameter Faulty.slowUntil 1.5\n",
    );
    let wall = timed(&project, &tmp.path().join("slow"), &["--real-time"]);
    let f = figures(&tmp.path().join("slow"), 3.0);
    println!(
        "slow FMU: {} overruns, largest {:.1} ms, stepping {:.3} s (process {wall:.3} s), \
         rolling factor after the window {:.4}, deviation median {:.3} ms",
        f.overruns,
        f.max_overrun * 1e3,
        f.stepping,
        f.rolling,
        f.median * 1e3
    );
    assert!((45..=55).contains(&f.overruns), "{} overruns", f.overruns);
    assert!((0.035..0.1).contains(&f.max_overrun), "{}", f.max_overrun);
    // Each slow step costs its own lateness once: 3 s plus 50 × 40 ms, no catch-up.
    let expected = 3.0 + 50.0 * 0.04;
    assert!(
        (f.stepping - expected).abs() < 0.05 * expected,
        "stepping {} s",
        f.stepping
    );
    // The last 500 ms (well after the window) run at factor 1: no catch-up burst, no drift.
    assert!(
        (f.rolling - 1.0).abs() < 0.02,
        "rolling factor {}",
        f.rolling
    );
    assert!(f.median <= 1e-3, "median deviation {} s", f.median);
    // 50 overruns within 2.5 s of wall time: at most one warning per second.
    let log = std::fs::read_to_string(tmp.path().join("slow/log/screenlog.txt")).unwrap();
    let warnings = log
        .lines()
        .filter(|l| l.contains("after its deadline"))
        .count();
    println!("{warnings} overrun warnings");
    assert!((1..=3).contains(&warnings), "{warnings} warnings:\n{log}");
    std::fs::remove_file(project).unwrap();
}
