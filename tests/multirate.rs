//! Multi-rate co-simulation (`communicationInterval`, `communicationOffset`,
//! `communicationTrigger`): equal rates change nothing, communication points are exact integer
//! ticks, step counts follow the documented rule, held values, sampled control, non-harmonic
//! rates, triggers, and the bundled flight example against its reference. The FMUs are built
//! from the current source (`example_workspace`).

use std::path::{Path, PathBuf};

use mastersim::{Options, RunOutcome, Session, Statistics};
use mastersim_tests::example_workspace;

/// Options with the working directory `wd` (and `log/stepstats.tsv` when `step_statistics`).
fn options(wd: &Path, step_statistics: bool) -> Options {
    Options {
        working_dir: Some(wd.to_path_buf()),
        step_statistics,
        ..Options::default()
    }
}

/// Writes `text` as `projects/<name>.msim` of the example workspace (so that the bundled
/// projects' relative FMU paths work) and returns its path.
fn write_project(name: &str, text: &str) -> PathBuf {
    let path = example_workspace()
        .join("projects")
        .join(format!("{name}.msim"));
    std::fs::write(&path, text).expect("write project");
    path
}

/// Runs `project` to the end in working directory `wd`; returns the statistics.
fn run(project: &Path, wd: &Path, step_statistics: bool) -> Statistics {
    let mut session = Session::open(project, &options(wd, step_statistics))
        .unwrap_or_else(|e| panic!("open {}: {e}", project.display()));
    assert_eq!(session.run().expect("run"), RunOutcome::Completed);
    session.finish().expect("finish")
}

/// The counters that do not depend on the wall clock: run-wide and every slave's call counts.
fn counts(stats: &Statistics) -> Vec<u64> {
    let c = &stats.counters;
    let mut counts = vec![
        c.steps,
        c.algorithm_calls,
        c.iterations,
        c.iteration_limit_exceeded,
        c.convergence_fails,
        c.error_test_fails,
        c.fmu_errors,
    ];
    for s in &stats.slaves {
        counts.extend([s.do_step.count, s.get_state.count, s.set_state.count]);
    }
    counts
}

/// The lines of `summary.txt` without times.
fn summary_counters(wd: &Path) -> Vec<String> {
    std::fs::read_to_string(wd.join("log/summary.txt"))
        .expect("summary.txt")
        .lines()
        .filter(|l| !l.contains("Time") && !l.contains("doStep") && !l.contains("State ="))
        .map(str::to_string)
        .collect()
}

/// The bundled project `name` with a `communicationInterval` equal to its `hStart` for every
/// slave gives byte-identical `values.csv`, identical counters and the same `summary.txt`
/// counters; `multirate` says whether the multi-rate scheduler runs it (fixed steps) or the
/// lines restate the master's schedule of a variable-step project.
fn assert_equal_rates_change_nothing(name: &str, multirate: bool) {
    let workspace = example_workspace();
    let text = std::fs::read_to_string(workspace.join(format!("projects/{name}.msim")))
        .expect("bundled project");
    let h_start = text
        .lines()
        .find_map(|l| l.strip_prefix("hStart"))
        .expect("hStart line")
        .trim();
    let mut with_lines = text.clone();
    for line in text.lines().filter(|l| l.starts_with("simulator")) {
        let slave = line.split_whitespace().nth(3).expect("slave name");
        with_lines.push_str(&format!("communicationInterval {slave} {h_start}\n"));
    }
    let equal = write_project(&format!("{name}_equal_rates"), &with_lines);
    let tmp = tempfile::tempdir().expect("temp dir");
    let (single, multi) = (tmp.path().join("single"), tmp.path().join("multi"));

    let session = Session::open(&equal, &options(&multi, false)).expect("open");
    assert_eq!(session.plan().multirate.is_some(), multirate, "{name}");
    drop(session);

    let single_stats = run(&workspace.join(format!("projects/{name}.msim")), &single, false);
    let multi_stats = run(&equal, &multi, false);
    assert!(single_stats.counters.steps >= 100, "{name}: steps taken");
    assert_eq!(counts(&single_stats), counts(&multi_stats), "{name}: counters");
    assert_eq!(
        summary_counters(&single),
        summary_counters(&multi),
        "{name}: summary.txt counters"
    );
    let values = |wd: &Path| std::fs::read(wd.join("results/values.csv")).expect("values.csv");
    assert!(
        values(&single) == values(&multi),
        "{name}: values.csv differs with equal communication intervals"
    );
}

#[test]
fn equal_rates_gauss_jacobi() {
    assert_equal_rates_change_nothing("control_loop_jacobi", true);
}

#[test]
fn equal_rates_gauss_seidel() {
    assert_equal_rates_change_nothing("control_loop_seidel", true);
}

#[test]
fn equal_rates_newton() {
    assert_equal_rates_change_nothing("algebraic_loop_newton", true);
}

#[test]
fn equal_rates_richardson() {
    assert_equal_rates_change_nothing("lotka_volterra_adaptive", false);
}
