//! Result formats on the bundled projects: Signal Table JSON round-trips to the CSV values,
//! MAT files read back (with mastersim's own reader) equal the CSV, `outputOnly` selects
//! columns, the adaptive-threshold filter keeps its guarantee and reports its compression,
//! `mastersim plot` renders a chart, and a run killed with SIGKILL leaves a readable MAT file.
//! (Independent readers — SciPy, DyMat — are checked in the corpus suite.)

use std::process::Command;

use mastersim_tests::{
    ResultTable, Run, assert_reconstructs, close, killed_long_run, mastersim_bin, parse_number,
    run_example_with,
};
use serde_json::Value;

fn values(run: &Run) -> ResultTable {
    ResultTable::read(&run.path("results/values.csv"))
}

/// The result file `results/<project>.<extension>` of a run (the project is a renamed copy).
fn result_file(run: &Run, extension: &str) -> std::path::PathBuf {
    std::fs::read_dir(run.path("results"))
        .expect("results directory")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|x| x == extension))
        .unwrap_or_else(|| panic!("no .{extension} result file"))
}

/// Caption `name [unit]` → (name, unit).
fn split(caption: &str) -> (&str, &str) {
    match caption.rsplit_once(" [") {
        Some((name, unit)) => (name, unit.trim_end_matches(']')),
        None => (caption, ""),
    }
}

#[test]
fn signal_table_json_round_trips_to_the_csv_values() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_example_with(
        "four_vars",
        "",
        &["--result-format", "csv,json"],
        tmp.path(),
    );
    run.assert_success();
    let text = std::fs::read_to_string(result_file(&run, "json")).expect("read");
    let json: Value = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(json["_class"], "SignalTable");
    let time = &json["time"];
    assert_eq!(
        (&time["_class"], &time["independent"], &time["unit"]),
        (&Value::from("Var"), &Value::from(true), &Value::from("s"))
    );
    let csv = values(&run);
    let times: Vec<f64> = time["values"]
        .as_array()
        .expect("array")
        .iter()
        .map(|v| v.as_f64().expect("number"))
        .collect();
    assert_eq!(times, csv.numbers("Time"));
    for caption in &csv.header[1..] {
        let (name, unit) = split(caption);
        let var = &json[name];
        assert_eq!(var["_class"], "Var", "{name}");
        assert_eq!(var["unit"].as_str().unwrap_or("-"), unit, "{name}");
        let from_json: Vec<f64> = var["values"]
            .as_array()
            .expect("values")
            .iter()
            .map(|v| {
                v.as_f64()
                    .or_else(|| v.as_bool().map(|b| f64::from(u8::from(b))))
                    .expect("number or bool")
            })
            .collect();
        for (a, b) in from_json.iter().zip(csv.numbers(name)) {
            assert!(close(*a, b, 0.0, 1e-13), "{name}: JSON {a}, CSV {b}");
        }
        assert_eq!(from_json.len(), times.len());
    }
    let strings = ResultTable::read(&run.path("results/strings.csv"));
    for caption in &strings.header[1..] {
        let column = strings.column(caption);
        let from_json: Vec<&str> = json[caption.as_str()]["values"]
            .as_array()
            .expect("values")
            .iter()
            .map(|v| v.as_str().expect("string"))
            .collect();
        let from_csv: Vec<&str> = strings.rows.iter().map(|r| r[column].as_str()).collect();
        assert_eq!(from_json, from_csv, "{caption}");
    }
    assert_eq!(json["Generator.VBool"]["variability"], "discrete");
    assert_eq!(json["attributes"]["_class"], "Map");
    assert_eq!(json["attributes"]["experiment"]["stopTime"], 20.0);
    // Parameters are Par entries with a value.
    let par = &json["Generator.terminateTime"];
    assert_eq!(par["_class"], "Par");
    assert!(par["value"].is_number() || par["value"].is_null());
}

#[test]
fn mat_file_reads_back_like_the_csv() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_example_with(
        "lotka_volterra",
        "",
        &["--result-format", "csv,mat"],
        tmp.path(),
    );
    run.assert_success();
    let mat = output::mat::read(result_file(&run, "mat")).expect("readable MAT file");
    let csv = values(&run);
    for caption in &csv.header[1..] {
        let (name, unit) = split(caption);
        let signal = mat
            .signal(name)
            .unwrap_or_else(|| panic!("{name} in the MAT file"));
        assert_eq!(signal.unit, unit);
        for (a, b) in signal.time.iter().zip(csv.numbers("Time")) {
            assert!(close(*a, b, 1e-15, 1e-13), "time {a} vs {b}");
        }
        assert_eq!(signal.time.len(), csv.rows.len());
        for (a, b) in signal.values.iter().zip(csv.numbers(name)) {
            assert!(close(*a, b, 0.0, 1e-13), "{name}: {a} vs {b}");
        }
    }
    let alpha = mat.signal("Prey.alpha").expect("parameters in data_1");
    assert_eq!(alpha.values, vec![1.1, 1.1]);
    assert_eq!(*alpha.time, vec![0.0, 20.0]);
}

#[test]
fn output_only_selects_the_written_variables() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_example_with(
        "control_loop_seidel",
        "outputOnly Part2.* Part3.x?\n",
        &[],
        tmp.path(),
    );
    run.assert_success();
    assert_eq!(
        values(&run).header,
        vec!["Time [s]", "Part2.x3 [-]", "Part3.x4 [-]"]
    );
    let bad = run_example_with(
        "control_loop_seidel",
        "outputOnly Part[\n",
        &[],
        &tmp.path().join("bad"),
    );
    assert_eq!(bad.code(), 2);
    assert!(
        bad.stderr().contains("outputOnly") && bad.stderr().contains("Part["),
        "{}",
        bad.stderr()
    );
}

/// The filter on a Lotka-Volterra and a Math003-like control loop, both with a row at every
/// step: the compression ratio is reported, and each filtered signal (CSV rows and MAT
/// per-variable samples) reconstructs the unfiltered one within the threshold.
#[test]
fn output_filter_keeps_its_guarantee_and_reports_compression() {
    const THRESHOLD: f64 = 1e-3;
    for (project, dense) in [
        ("lotka_volterra", "hOutputMin 0.01 s\n"),
        ("control_loop_seidel", ""),
    ] {
        let tmp = tempfile::tempdir().expect("temp dir");
        let full = run_example_with(
            project,
            dense,
            &["--result-format", "csv,mat"],
            &tmp.path().join("full"),
        );
        full.assert_success();
        let filtered = run_example_with(
            project,
            &format!("{dense}outputThreshold {THRESHOLD}\n"),
            &["--result-format", "csv,mat"],
            &tmp.path().join("filtered"),
        );
        filtered.assert_success();
        let (a, b) = (values(&full), values(&filtered));
        let report = filtered
            .stdout()
            .lines()
            .find(|l| l.starts_with("Output filter: kept"))
            .map(str::to_string)
            .expect("ratio reported");
        let numbers: Vec<f64> = report
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter_map(|w| w.parse().ok())
            .collect();
        assert_eq!(
            (numbers[0] as usize, numbers[1] as usize),
            (b.rows.len(), a.rows.len()),
            "{report}"
        );
        assert!(
            numbers[2] < 0.5,
            "{project}: compression ratio {} ({report})",
            numbers[2]
        );
        let (ta, tb) = (a.numbers("Time"), b.numbers("Time"));
        for caption in &a.header[1..] {
            let name = split(caption).0;
            let original: Vec<(f64, f64)> = ta.iter().copied().zip(a.numbers(name)).collect();
            let kept: Vec<(f64, f64)> = tb.iter().copied().zip(b.numbers(name)).collect();
            assert_reconstructs(
                &format!("{project} CSV {name}"),
                &original,
                &kept,
                THRESHOLD,
                2e-13,
            );
        }
        let mat = |run: &Run| output::mat::read(result_file(run, "mat")).expect("MAT");
        let (ma, mb) = (mat(&full), mat(&filtered));
        let mut kept_samples = 0;
        for signal in ma.signals.iter().filter(|s| s.time.len() > 2) {
            let original: Vec<(f64, f64)> = signal
                .time
                .iter()
                .copied()
                .zip(signal.values.iter().copied())
                .collect();
            let f = mb.signal(&signal.name).expect("filtered signal");
            let kept: Vec<(f64, f64)> = f
                .time
                .iter()
                .copied()
                .zip(f.values.iter().copied())
                .collect();
            assert!(
                kept.len() < original.len(),
                "{project} MAT {}: nothing dropped",
                signal.name
            );
            kept_samples += kept.len();
            assert_reconstructs(
                &format!("{project} MAT {}", signal.name),
                &original,
                &kept,
                THRESHOLD,
                0.0,
            );
        }
        assert!(kept_samples > 0);
        assert!(
            filtered.stdout().contains("Output filter (MAT): kept"),
            "MAT compression reported"
        );
    }
}

#[test]
fn plot_renders_a_bundled_example_to_svg() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = run_example_with("lotka_volterra", "", &[], tmp.path());
    run.assert_success();
    let svg = tmp.path().join("chart.svg");
    let out = Command::new(mastersim_bin())
        .arg("plot")
        .arg(run.path("results/values.csv"))
        .arg("-o")
        .arg(&svg)
        .output()
        .expect("plot runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&svg).expect("SVG written");
    assert!(
        text.starts_with("<svg") || text.contains("<svg"),
        "an SVG document"
    );
    for label in ["Time [s]", "Prey.x", "Predator.y", "[-]", "<polyline"] {
        assert!(text.contains(label), "'{label}' in the chart");
    }
    let png = tmp.path().join("chart.png");
    let status = Command::new(mastersim_bin())
        .arg("plot")
        .arg(run.path("results/values.csv"))
        .arg("-o")
        .arg(&png)
        .arg("--var")
        .arg("Prey.*")
        .status()
        .expect("runs");
    assert!(status.success());
    assert_eq!(
        &std::fs::read(&png).expect("PNG")[..8],
        b"\x89PNG\r\n\x1a\n"
    );
}

/// A run killed with SIGKILL keeps a MAT file with every row written so far: at least the rows
/// the buffered CSV holds, equal to them, time points increasing.
#[test]
fn killed_run_keeps_every_written_row() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (mat_path, csv_path) = killed_long_run(tmp.path());
    let mat = output::mat::read(&mat_path).expect("the MAT file of a killed run is readable");
    let csv = ResultTable::read(&csv_path);
    let x = mat.signal("Prey.x").expect("Prey.x");
    assert!(
        x.time.len() >= csv.rows.len(),
        "{} MAT rows, {} CSV rows",
        x.time.len(),
        csv.rows.len()
    );
    assert!(x.time.len() > 1000, "a few thousand rows before the kill");
    assert!(
        x.time.windows(2).all(|w| w[1] > w[0]),
        "increasing time points"
    );
    for (r, row) in csv.rows.iter().enumerate() {
        assert!(close(x.time[r], parse_number(&row[0]), 0.0, 1e-13));
        assert!(close(x.values[r], parse_number(&row[1]), 0.0, 1e-13));
    }
}
