//! The result pipeline of the library, without the command-line program: which formats are
//! written, `outputOnly`, the output filter, the writer thread, `log/progress.txt` and
//! `log/stepstats.tsv`. Every run also records its rows in memory ([`Recorder`]), the reference
//! the files are checked against.

use std::path::{Path, PathBuf};

use mastersim::{Options, Recorder, ResultFormat, Results, Session, Statistics};

/// The bundled Lotka-Volterra project (Prey, Predator; 0–20 s, h = 0.01 s, rows every 0.1 s),
/// written into `dir` with the `extra` project lines, so that it finds the committed FMUs.
fn lotka_volterra(dir: &Path, extra: &str) -> PathBuf {
    let projects = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../projects");
    let text = std::fs::read_to_string(projects.join("lotka_volterra.msim")).expect("project");
    let packed = projects.join("../fmus/packed");
    let text = text.replace("../fmus/packed", &packed.display().to_string());
    let path = dir.join("lv.msim");
    std::fs::write(&path, format!("{text}\n{extra}\n")).expect("write project");
    path
}

/// Runs `project` with `options` (working directory `dir/wd`); returns the rows the observer
/// saw and the statistics.
fn run(dir: &Path, project: &Path, options: Options) -> (Results, Statistics) {
    let options = Options {
        working_dir: Some(dir.join("wd")),
        ..options
    };
    let mut session = Session::open(project, &options).expect("open");
    let recorder = Recorder::new();
    session
        .add_observer(Box::new(recorder.clone()))
        .expect("observer");
    session.run().expect("run");
    let stats = session.finish().expect("finish");
    (recorder.results(), stats)
}

/// A tab-separated result file: the header captions and the rows of numbers (empty fields
/// dropped).
fn read_table(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read '{}': {e}", path.display()));
    let mut lines = text.lines();
    let header = lines
        .next()
        .expect("a header")
        .split('\t')
        .map(|c| c.trim().to_string())
        .collect();
    let rows = lines
        .map(|l| {
            // stepstats.tsv ends its lines with a tab.
            l.split('\t')
                .filter(|c| !c.trim().is_empty())
                .map(|c| c.trim().parse().expect("a number"))
                .collect()
        })
        .collect();
    (header, rows)
}

#[test]
fn formats_come_from_the_project_unless_the_options_choose() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let results = |dir: &Path| {
        let mut names: Vec<String> = std::fs::read_dir(dir.join("wd/results"))
            .expect("results/")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    /// Name, project lines, formats option, files expected in `results/`.
    type Case<'a> = (&'a str, &'a str, Option<Vec<ResultFormat>>, &'a [&'a str]);
    let cases: [Case; 4] = [
        ("default", "", None, &["values.csv"]),
        (
            "project",
            "resultFormats mat json",
            None,
            &["lv.json", "lv.mat"],
        ),
        (
            "option",
            "resultFormats mat",
            Some(vec![ResultFormat::Csv, ResultFormat::Json]),
            &["lv.json", "values.csv"],
        ),
        ("none", "", Some(vec![]), &[]),
    ];
    for (name, extra, formats, expected) in cases {
        let dir = tmp.path().join(name);
        std::fs::create_dir_all(&dir).expect("dir");
        let project = lotka_volterra(&dir, extra);
        let options = Options {
            result_formats: formats,
            ..Options::default()
        };
        run(&dir, &project, options);
        assert_eq!(results(&dir), expected, "{name}");
        for log in ["progress.txt", "summary.txt"] {
            assert!(dir.join("wd/log").join(log).is_file(), "{name}: {log}");
        }
    }
}

#[test]
fn output_only_selects_the_written_columns() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = lotka_volterra(tmp.path(), "outputOnly Prey.*");
    let options = Options {
        result_formats: Some(vec![ResultFormat::Csv, ResultFormat::Mat]),
        ..Options::default()
    };
    let (results, _) = run(tmp.path(), &project, options);
    assert_eq!(results.names(), ["Prey.x"]);
    let (header, rows) = read_table(&tmp.path().join("wd/results/values.csv"));
    assert_eq!(header, ["Time [s]", "Prey.x [-]"]);
    assert_eq!(rows.len(), 201);
    let mat = output::mat::read(tmp.path().join("wd/results/lv.mat")).expect("MAT file");
    assert!(mat.signal("Prey.x").is_some() && mat.signal("Predator.y").is_none());
}

/// Issue 29: the typed output selection replaces the project's `outputOnly` lines, and the
/// typed stop time and step size apply as the project's `tEnd` and `hStart`.
#[test]
fn typed_options_select_outputs_and_set_the_times() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = lotka_volterra(tmp.path(), "outputOnly Prey.*");
    let options = Options {
        output_only: Some(vec!["Predator.*".to_owned()]),
        stop_time: Some(2.0),
        step_size: Some(0.1),
        ..Options::default()
    };
    let (results, stats) = run(tmp.path(), &project, options);
    assert_eq!(results.names(), ["Predator.y"]);
    let (header, rows) = read_table(&tmp.path().join("wd/results/values.csv"));
    assert_eq!(header, ["Time [s]", "Predator.y [-]"]);
    assert_eq!(rows.len(), 21, "rows every 0.1 s up to 2 s");
    assert!(
        (stats.counters.t - 2.0).abs() < 1e-12,
        "t = {}",
        stats.counters.t
    );
}

#[test]
fn the_output_filter_keeps_its_guarantee() {
    const THRESHOLD: f64 = 1e-3;
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = lotka_volterra(tmp.path(), "hOutputMin 0.01 s");
    let options = Options {
        output_threshold: Some(THRESHOLD),
        ..Options::default()
    };
    let (all, _) = run(tmp.path(), &project, options);
    let (header, kept) = read_table(&tmp.path().join("wd/results/values.csv"));
    assert_eq!(all.time().len(), 2001, "the observer sees every row");
    assert!(
        kept.len() < all.time().len() / 4,
        "{} of {} rows kept",
        kept.len(),
        all.time().len()
    );
    assert_eq!(kept[0][0], 0.0);
    assert_eq!(kept[kept.len() - 1][0], 20.0);
    // Every row the filter dropped lies on the line between the kept rows around it.
    for (c, caption) in header.iter().enumerate().skip(1) {
        let name = caption.split(" [").next().expect("name");
        let values = all.column(name).expect("column");
        for (&t, &v) in all.time().iter().zip(values) {
            let k = kept.partition_point(|r| r[0] < t);
            if k < kept.len() && (kept[k][0] - t).abs() < 1e-9 {
                continue;
            }
            let (a, b) = (&kept[k - 1], &kept[k]);
            let interpolated = a[c] + (b[c] - a[c]) * (t - a[0]) / (b[0] - a[0]);
            // The threshold's guarantee, plus the 14 digits of the CSV text.
            let bound = THRESHOLD * (v.abs() + f64::EPSILON) + 1e-12 * v.abs().max(1.0);
            assert!(
                (interpolated - v).abs() <= bound,
                "{name} at t={t}: {interpolated} vs {v}"
            );
        }
    }
}

#[test]
fn the_writer_thread_writes_every_row() {
    let tmp = tempfile::tempdir().expect("temp dir");
    // 20,001 rows: many hand-overs to the writer thread.
    let project = lotka_volterra(tmp.path(), "hStart 0.001 s\nhOutputMin 0.001 s");
    let (all, stats) = run(tmp.path(), &project, Options::default());
    assert_eq!(stats.counters.steps, 20_000);
    let (header, rows) = read_table(&tmp.path().join("wd/results/values.csv"));
    assert_eq!(rows.len(), all.time().len());
    assert_eq!(rows.len(), 20_001);
    for (c, caption) in header.iter().enumerate().skip(1) {
        let name = caption.split(" [").next().expect("name");
        let values = all.column(name).expect("column");
        for (row, (&t, &v)) in rows.iter().zip(all.time().iter().zip(values)) {
            assert!((row[0] - t).abs() <= 1e-13 * t.max(1.0), "time {t}");
            assert!(
                (row[c] - v).abs() <= 1e-13 * v.abs().max(1.0),
                "{name} at {t}"
            );
        }
    }
}

#[test]
fn progress_and_step_statistics_follow_the_run() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = lotka_volterra(tmp.path(), "");
    let options = Options {
        step_statistics: true,
        ..Options::default()
    };
    let (all, stats) = run(tmp.path(), &project, options);
    let log = tmp.path().join("wd/log");
    let progress = std::fs::read_to_string(log.join("progress.txt")).expect("progress.txt");
    let lines: Vec<&str> = progress.lines().collect();
    // A header, then one line per row after the first (t = 0 is not a progress line).
    assert_eq!(lines.len(), 1 + all.time().len() - 1, "{}", lines[0]);
    let last: Vec<&str> = lines[lines.len() - 1].split_whitespace().collect();
    assert_eq!((last[0], last[2]), ("20", "1e+02"), "{last:?}");

    let (header, rows) = read_table(&log.join("stepstats.tsv"));
    assert_eq!(rows.len() as u64, stats.counters.steps);
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name}: {header:?}"))
    };
    let last = &rows[rows.len() - 1];
    assert_eq!(last[column("Time [s]")], 20.0);
    assert_eq!(last[column("Steps")] as u64, stats.counters.steps);
    assert_eq!(
        last[column("AlgorithmCalls")] as u64,
        stats.counters.algorithm_calls
    );
    assert_eq!(last[column("Iterations")] as u64, stats.counters.iterations);
    for (k, row) in rows.iter().enumerate() {
        assert_eq!(row[column("Steps")] as usize, k + 1);
    }
}
