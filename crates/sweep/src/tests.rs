//! Unit tests of the pure parts: case generation, the array specification, quoting, the job
//! script's signals, reading `squeue` and the record of submissions, outcomes of exit codes,
//! output statistics, paths and the JUnit writer.

use std::path::Path;

use crate::collect::{CaseResult, Collection, OutputStats, write_junit};
use crate::files::absolute;
use crate::queue::{Submission, parse_squeue};
use crate::slurm::{SlurmOptions, array_spec, job_script, shell_quote};
use crate::{Outcome, Plan, read_sweep_file};

/// Writes `text` as `sweep.toml` next to an empty `base.msim` in `dir` and reads the plan.
fn plan(dir: &Path, text: &str) -> crate::Result<Plan> {
    std::fs::write(dir.join("base.msim"), "").expect("write base");
    let path = dir.join("sweep.toml");
    std::fs::write(&path, format!("base = \"base.msim\"\n{text}")).expect("write sweep");
    read_sweep_file(&path, None)
}

fn overrides(plan: &Plan) -> Vec<Vec<String>> {
    plan.cases.iter().map(|c| c.overrides.clone()).collect()
}

#[test]
fn grid_is_row_major_in_the_order_written() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let plan = plan(
        tmp.path(),
        "[grid]\nb = [1, 2.5, true]\na = [\"x y\", 1e-7]\n",
    )
    .expect("plan");
    assert_eq!(plan.columns, ["b", "a"]);
    assert_eq!(
        overrides(&plan),
        [
            ["b=1", "a=x y"],
            ["b=1", "a=1e-7"],
            ["b=2.5", "a=x y"],
            ["b=2.5", "a=1e-7"],
            ["b=true", "a=x y"],
            ["b=true", "a=1e-7"],
        ]
    );
    assert_eq!(plan.dir, tmp.path().join("sweep"));
    assert!(plan.cases.iter().enumerate().all(|(k, c)| c.index == k));
}

#[test]
fn monte_carlo_case_k_depends_only_on_the_seed_and_k() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let text = |seed: u64, cases: usize| {
        format!(
            "[monte_carlo]\nseed = {seed}\ncases = {cases}\nparameters = {{ u = {{ uniform = [2, 3] }}, \
             n = {{ normal = [10, 0] }} }}\n"
        )
    };
    let ten = overrides(&plan(tmp.path(), &text(7, 10)).expect("plan"));
    let three = overrides(&plan(tmp.path(), &text(7, 3)).expect("plan"));
    let other = overrides(&plan(tmp.path(), &text(8, 3)).expect("plan"));
    assert_eq!(ten[..3], three[..]);
    assert_ne!(other, three);
    for case in &ten {
        let u: f64 = case[0]
            .strip_prefix("u=")
            .expect("u")
            .parse()
            .expect("a number");
        assert!((2.0..3.0).contains(&u), "{u}");
        assert_eq!(
            case[1], "n=10.0",
            "a normal draw with deviation 0 is the mean"
        );
    }
    let distinct: std::collections::BTreeSet<&String> = ten.iter().map(|c| &c[0]).collect();
    assert_eq!(distinct.len(), 10);
}

#[test]
fn sweep_file_errors_name_the_line() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let message = |text: &str| plan(tmp.path(), text).expect_err("an error").to_string();
    assert!(message("[grid]\nx = 3\n").contains("sweep.toml:3: [grid] \"x\": expected a list"));
    assert!(message("[grid]\nx = [[1]]\n").contains("sweep.toml:3: [grid] \"x\": [1] is not"));
    assert!(
        message("[monte_carlo]\nseed = 1\ncases = 0\nparameters = { x = { uniform = [0, 1] } }\n")
            .contains("sweep.toml:4: [monte_carlo] cases = 0")
    );
    assert!(
        message("[monte_carlo]\nseed = 1\ncases = 2\nparameters = { x = { beta = [0, 1] } }\n")
            .contains("unknown distribution 'beta'")
    );
    assert!(
        message("[monte_carlo]\nseed = 1\ncases = 2\nparameters = { x = { normal = [0, -1] } }\n")
            .contains("expected a standard deviation ≥ 0")
    );
    assert!(
        message("wall_time_limit = -1\n[grid]\nx = [1]\n")
            .contains("sweep.toml:2: wall_time_limit = -1")
    );
    assert!(message("[grid\n").contains("sweep.toml:2:"));
}

#[test]
fn array_specs_compress_runs() {
    assert_eq!(array_spec(&[0, 1, 2, 3], None), "0-3");
    assert_eq!(
        array_spec(&[0, 2, 3, 4, 7, 9, 10], Some(4)),
        "0,2-4,7,9-10%4"
    );
    assert_eq!(array_spec(&[5], None), "5");
}

#[test]
fn shell_quoting_survives_blanks_and_quotes() {
    assert_eq!(shell_quote("/usr/bin/mastersim"), "/usr/bin/mastersim");
    assert_eq!(shell_quote("/a b/c"), "'/a b/c'");
    assert_eq!(shell_quote("it's"), r"'it'\''s'");
    assert_eq!(shell_quote(""), "''");
}

#[test]
fn output_statistics_use_the_trapezoidal_mean() {
    let stats = OutputStats::of(&[0.0, 1.0, 3.0], &[0.0, 2.0, 2.0]).expect("stats");
    assert_eq!(
        stats,
        OutputStats {
            last: 2.0,
            min: 0.0,
            max: 2.0,
            mean: (1.0 + 4.0) / 3.0
        }
    );
    assert_eq!(OutputStats::of(&[5.0], &[7.0]).expect("stats").mean, 7.0);
    assert!(OutputStats::of(&[], &[]).is_none());
}

#[test]
fn absolute_paths_resolve_dots() {
    assert_eq!(
        absolute(Path::new("/a/b/../c/./d")).expect("path"),
        Path::new("/a/c/d")
    );
}

#[test]
fn junit_escapes_messages_and_counts_failures() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let case = |k: usize, outcome: Outcome, message: Option<&str>| CaseResult {
        case: k,
        label: format!("case {k}: x=<{k}>"),
        overrides: vec![format!("x=<{k}>")],
        outcome,
        exit_code: Some(0),
        wall_seconds: Some(0.25),
        attempts: Some(1),
        message: message.map(str::to_owned),
        t_reached: None,
        counters: None,
        outputs: Default::default(),
    };
    let collection = Collection {
        schema: crate::SWEEP_JSON_SCHEMA,
        version: 1,
        name: "s&p".to_owned(),
        dir: tmp.path().to_path_buf(),
        output_names: Vec::new(),
        cases: vec![
            case(0, Outcome::Completed, None),
            case(1, Outcome::Failed, Some("a \"bad\" <value> & more")),
            case(2, Outcome::NotRun, None),
        ],
        warnings: Vec::new(),
    };
    let path = tmp.path().join("r.xml");
    write_junit(&collection, &path).expect("report");
    let xml = std::fs::read_to_string(&path).expect("read");
    assert!(xml.contains(r#"<testsuite name="s&amp;p" tests="3" failures="1" errors="1" time="0.750" skipped="0">"#), "{xml}");
    assert!(
        xml.contains(r#"<testcase name="case 0: x=&lt;0&gt;" classname="s&amp;p" time="0.250"/>"#),
        "{xml}"
    );
    assert!(
        xml.contains(r#"message="a &quot;bad&quot; &lt;value&gt; &amp; more" type="failed""#),
        "{xml}"
    );
    assert!(
        xml.contains(r#"<error message="the case has not run" type="not_run">"#),
        "{xml}"
    );
}

#[test]
fn the_job_script_asks_for_the_warning_signal_and_requeueing() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let plan = plan(tmp.path(), "[grid]\nx = [1, 2, 3]\n").expect("plan");
    let options = SlurmOptions {
        exe: "/opt/my tools/mastersim".into(),
        max_parallel: Some(2),
        partition: None,
        time: None,
        signal_margin: 90,
        extra: vec!["--account=p42".to_owned()],
    };
    let script = job_script(&plan, &[0, 2], &options);
    for line in [
        "#SBATCH --array=0,2%2",
        "#SBATCH --requeue",
        "#SBATCH --signal=B:USR1@90",
        "#SBATCH --account=p42",
        "exec '/opt/my tools/mastersim' sweep case ",
    ] {
        assert!(script.contains(line), "no '{line}' in:\n{script}");
    }
    assert!(
        script
            .trim_end()
            .ends_with("\"$SLURM_ARRAY_TASK_ID\" --slurm-requeue")
    );
    assert!(
        !script.contains("TERM"),
        "SIGTERM is a cancel, never asked for:\n{script}"
    );
}

#[test]
fn squeue_lines_of_other_jobs_and_cases_are_left_out() {
    let jobs = [
        Submission {
            job: "41".to_owned(),
            array: "0-3".to_owned(),
        },
        Submission {
            job: "57".to_owned(),
            array: "1".to_owned(),
        },
    ];
    let text = "41|0|RUNNING\n41|2|PENDING\n99|1|RUNNING\n57|1|COMPLETING\n41|N/A|PENDING\n\
                41|7|PENDING\ngarbage\n";
    let tasks = parse_squeue(text, &jobs, 4);
    let seen: Vec<(usize, &str, &str)> = tasks
        .iter()
        .map(|t| (t.case, t.task.as_str(), t.state.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            (0, "41_0", "RUNNING"),
            (2, "41_2", "PENDING"),
            (1, "57_1", "COMPLETING")
        ]
    );
}

#[test]
fn submissions_are_recorded_and_a_broken_record_is_refused() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    assert!(crate::slurm::submissions(dir).expect("none yet").is_empty());
    for (job, array) in [("7", "0-4"), ("9", "2")] {
        let submission = Submission {
            job: job.to_owned(),
            array: array.to_owned(),
        };
        crate::queue::record_submission(dir, submission).expect("recorded");
    }
    let jobs = crate::slurm::submissions(dir).expect("readable");
    assert_eq!(
        jobs.iter().map(|s| s.job.as_str()).collect::<Vec<_>>(),
        ["7", "9"]
    );
    std::fs::write(crate::slurm::jobs_path(dir), "{\"jobs\": 3}").expect("write");
    let error = crate::slurm::submissions(dir)
        .expect_err("broken")
        .to_string();
    assert!(
        error.contains("jobs.json") && error.contains("not a list of Slurm jobs"),
        "{error}"
    );
}

#[test]
fn exit_codes_map_to_outcomes() {
    assert_eq!(Outcome::from_exit_code(0, None), Outcome::Completed);
    assert_eq!(
        Outcome::from_exit_code(0, Some("Terminated")),
        Outcome::Terminated
    );
    for code in [130, 138, 143] {
        assert_eq!(Outcome::from_exit_code(code, None), Outcome::Interrupted);
    }
    assert_eq!(Outcome::from_exit_code(124, None), Outcome::TimedOut);
    assert_eq!(Outcome::from_exit_code(1, None), Outcome::Failed);
    assert_eq!(Outcome::Requeued.name(), "requeued");
    assert_eq!(Outcome::Running.name(), "running");
    assert!(Outcome::Requeued.is_unfinished() && !Outcome::Requeued.is_success());
    assert!(!Outcome::Failed.is_unfinished());
}
