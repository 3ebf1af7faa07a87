//! The live view over HTTP, without a browser: the listener is on 127.0.0.1 only, requests
//! need the token and the server's own host and origin, steering (single steps, pauses,
//! pacing on and off) leaves the result files byte-identical to a plain run, and
//! `mastersim view` serves stored results exactly. The browser tests are in `tests/live/`.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use mastersim_tests::live_run::{LiveRun, lotka_volterra};
use mastersim_tests::{close, run_mastersim};

/// The result files of a finished run in `wd` that must not depend on steering.
fn result_files(wd: &Path, project: &Path) -> Vec<(String, Vec<u8>)> {
    let stem = project.file_stem().unwrap().to_string_lossy();
    [
        "results/values.csv".to_string(),
        format!("results/{stem}.mat"),
    ]
    .into_iter()
    .map(|f| {
        let bytes = std::fs::read(wd.join(&f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        (f, bytes)
    })
    .collect()
}

fn assert_same_results(steered: &Path, plain: &Path, project: &Path) {
    for ((name, a), (_, b)) in result_files(steered, project)
        .into_iter()
        .zip(result_files(plain, project))
    {
        assert!(a == b, "{name} differs from the plain run's");
    }
}

#[test]
fn the_listener_is_on_loopback_only() {
    let tmp = tempfile::tempdir().unwrap();
    let project = lotka_volterra(tmp.path(), 1.0);
    let live = LiveRun::start(&project, &tmp.path().join("wd"), &[]);
    assert!(live.url.starts_with("http://127.0.0.1:"), "{}", live.url);
    // /proc/net/tcp lists listening sockets (state 0A) as hex address:port; 127.0.0.1 is
    // 0100007F. No other IPv4 socket and no IPv6 socket listens on the port.
    let port = format!("{:04X}", live.port);
    let listening = |table: &str| -> Vec<String> {
        std::fs::read_to_string(table)
            .unwrap_or_default()
            .lines()
            .skip(1)
            .filter_map(|l| {
                let fields: Vec<&str> = l.split_whitespace().collect();
                let local = fields.get(1)?;
                (fields.get(3) == Some(&"0A") && local.ends_with(&format!(":{port}")))
                    .then(|| local.to_string())
            })
            .collect()
    };
    assert_eq!(listening("/proc/net/tcp"), vec![format!("0100007F:{port}")]);
    assert!(listening("/proc/net/tcp6").is_empty());
    assert_eq!(live.status()["state"], "waiting");
}

#[test]
fn requests_need_the_token_and_the_own_host_and_origin() {
    let tmp = tempfile::tempdir().unwrap();
    let project = lotka_volterra(tmp.path(), 1.0);
    let live = LiveRun::start(&project, &tmp.path().join("wd"), &[]);
    let host = live.host();
    let pause = r#"{"command":"pause"}"#;
    let json = ("Content-Type", "application/json");
    let own = format!("http://{host}");
    let with_token = format!("/api/control?token={}", live.token);
    let wrong_token = format!("/api/control?token={}", "0".repeat(32));
    let refused = [
        ("no token", "/api/control", host.as_str(), own.as_str()),
        ("wrong token", wrong_token.as_str(), &host, &own),
        ("foreign Origin", &with_token, &host, "http://evil.example"),
        ("null Origin", &with_token, &host, "null"),
        ("other port", &with_token, &host, "http://127.0.0.1:1"),
        ("foreign Host", &with_token, "evil.example", &own),
        ("rebinding Host", &with_token, "evil.example:80", &own),
    ];
    for (what, path, host, origin) in refused {
        let r = live.raw("POST", path, host, &[json, ("Origin", origin)], pause);
        assert_eq!(r.code, 403, "{what}: {}", r.body);
    }
    for (what, path) in [
        ("meta without token", "/api/meta"),
        ("stream without token", "/api/stream"),
        ("rows without token", "/api/rows?from=0&to=1"),
    ] {
        assert_eq!(live.raw("GET", path, &host, &[], "").code, 403, "{what}");
    }
    assert_eq!(live.raw("GET", "/", "evil.example", &[], "").code, 403);
    // Nothing refused changed the run; the own page and a proper command work.
    assert_eq!(live.status()["state"], "waiting");
    assert_eq!(
        live.get("meta").json()["time_decimals"],
        2,
        "the grid of 0.01 s steps"
    );
    // Issue 28: pause before Start is 409, as docs/live.md says, with a JSON error; a body
    // without a Content-Type is read as JSON; another declared type is 415 with a JSON error.
    let r = live.raw("POST", &with_token, &host, &[], pause);
    assert_eq!(r.code, 409, "{}", r.body);
    assert!(
        r.json()["error"].as_str().unwrap().contains("pause"),
        "{}",
        r.body
    );
    let text = ("Content-Type", "text/plain");
    let r = live.raw("POST", &with_token, &host, &[text], pause);
    assert_eq!(r.code, 415, "{}", r.body);
    assert!(r.json()["error"].as_str().unwrap().contains("text/plain"));
    assert_eq!(live.status()["state"], "waiting");
    assert_eq!(live.raw("GET", "/", &host, &[], "").code, 200);
    assert_eq!(
        live.raw("GET", "/", &format!("localhost:{}", live.port), &[], "")
            .code,
        200
    );
    let r = live.raw(
        "POST",
        &with_token,
        &host,
        &[json, ("Origin", &own)],
        r#"{"command":"start"}"#,
    );
    assert_eq!(r.code, 200, "{}", r.body);
    let r = live.control(r#"{"command":"real_time","factor":-1}"#);
    assert_eq!(r.code, 400, "{}", r.body);
    assert!(r.json()["error"].as_str().unwrap().contains("factor"));
    let r = live.control(r#"{"command":"rewind"}"#);
    assert_eq!(r.code, 400, "{}", r.body);
    let (exit, _) = live.finish();
    assert!(exit.success(), "{exit:?}");
}

#[test]
fn steering_leaves_the_results_byte_identical() {
    let tmp = tempfile::tempdir().unwrap();
    let project = lotka_volterra(tmp.path(), 2.0);
    let plain = tmp.path().join("plain");
    run_mastersim(&project, &plain, &[]).assert_success();

    let wd = tmp.path().join("steered");
    let live = LiveRun::start(&project, &wd, &[]);
    let rows = |s: &serde_json::Value| s["rows"].as_u64().unwrap();
    let t = |s: &serde_json::Value| s["t"].as_f64().unwrap();
    // Single steps from the waiting state: exactly one communication step (0.01 s) and one
    // row each. (Initialization writes the first row.)
    let before = live.wait_for(Duration::from_secs(30), |s| s["rows"] == 1);
    assert_eq!((t(&before), rows(&before)), (0.0, 1));
    for k in 1..=3u32 {
        live.command("step");
        let s = live.wait_for(Duration::from_secs(10), |s| {
            rows(s) == rows(&before) + u64::from(k)
        });
        assert_eq!(s["state"], "paused");
        assert!((t(&s) - 0.01 * f64::from(k)).abs() < 1e-12, "{s}");
    }
    let r = live.control(r#"{"command":"real_time","factor":10}"#);
    assert_eq!(r.code, 200, "{}", r.body);
    live.command("resume");
    live.wait_for(Duration::from_secs(30), |s| t(s) >= 0.2);
    live.command("pause");
    let paused = live.wait_for(Duration::from_secs(10), |s| s["state"] == "paused");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(t(&live.status()), t(&paused), "a pause holds the time");
    live.command("step");
    live.command("step");
    live.command("resume");
    live.wait_for(Duration::from_secs(30), |s| t(s) >= 0.5);
    live.command("pause");
    let r = live.control(r#"{"command":"real_time","factor":null}"#);
    assert_eq!(r.code, 200, "{}", r.body);
    live.command("resume");
    let (exit, _) = live.finish();
    assert!(exit.success(), "{exit:?}");
    assert_same_results(&wd, &plain, &project);
    let summary = mastersim_tests::read_summary(&wd.join("log/summary.txt"));
    assert!(summary.contains_key("RealTimeFactor"), "{summary:?}");

    // A paced run without the live view: the same files again.
    let paced = tmp.path().join("paced");
    run_mastersim(&project, &paced, &["--real-time", "40"]).assert_success();
    assert_same_results(&paced, &plain, &project);
    let summary = mastersim_tests::read_summary(&paced.join("log/summary.txt"));
    for key in [
        "RealTimeFactor",
        "RealTimeRollingFactor",
        "RealTimeOverruns",
        "RealTimeMaxOverrun",
    ] {
        assert!(summary.contains_key(key), "{key} missing: {summary:?}");
    }
    let plain_summary = mastersim_tests::read_summary(&plain.join("log/summary.txt"));
    assert!(!plain_summary.keys().any(|k| k.starts_with("RealTime")));
    std::fs::remove_file(&project).unwrap();
}

#[test]
fn a_reconnecting_page_resumes_where_it_left_off() {
    let tmp = tempfile::tempdir().unwrap();
    let project = lotka_volterra(tmp.path(), 1.0);
    let live = LiveRun::start(&project, &tmp.path().join("wd"), &[]);
    live.command("start");
    live.wait_for(Duration::from_secs(30), |s| s["state"] == "finished");
    let first = live.first_rows_event(None);
    assert_eq!(first["from"], 0);
    let all = live.get("rows?from=0&to=101").json();
    // A browser that saw 40 rows reconnects with Last-Event-ID 40: the stream goes on at row
    // 40 with the same rows.
    let resumed = live.first_rows_event(Some(40));
    assert_eq!(resumed["from"], 40);
    assert_eq!(resumed["rows"][0], all["rows"][40]);
    assert_eq!(resumed["rows"].as_array().unwrap().len(), 101 - 40);
    std::fs::remove_file(&project).unwrap();
}

#[test]
fn a_stop_from_the_view_ends_the_run_with_results_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let project = lotka_volterra(tmp.path(), 1000.0);
    let wd = tmp.path().join("wd");
    let live = LiveRun::start(&project, &wd, &[]);
    live.command("start");
    live.wait_for(Duration::from_secs(30), |s| {
        s["rows"].as_u64().unwrap() > 100
    });
    live.command("stop");
    let (exit, _) = live.finish();
    assert!(exit.success(), "{exit:?}");
    let summary = mastersim_tests::read_summary(&wd.join("log/summary.txt"));
    assert_eq!(summary["Outcome"], "Interrupted");
    assert!(summary["Message"].contains("live view"), "{summary:?}");
    std::fs::remove_file(&project).unwrap();
}

#[test]
fn view_serves_stored_results_exactly() {
    let tmp = tempfile::tempdir().unwrap();
    let project = lotka_volterra(tmp.path(), 1.0);
    let wd = tmp.path().join("wd");
    run_mastersim(&project, &wd, &["--result-format", "csv,mat,json"]).assert_success();
    let stem = project.file_stem().unwrap().to_string_lossy().into_owned();
    let mat = output::mat::read(wd.join(format!("results/{stem}.mat"))).unwrap();
    let prey = mat.signals.iter().find(|s| s.name == "Prey.x").unwrap();
    for file in [
        format!("results/{stem}.mat"),
        "results/values.csv".to_string(),
        format!("results/{stem}.json"),
    ] {
        let path = wd.join(&file);
        let live = LiveRun::spawn(&["view".as_ref(), path.as_os_str()], &wd);
        let meta = live.get("meta").json();
        assert_eq!(meta["mode"], "replay", "{file}");
        // Issue 28: the page prints times to the precision of the stored grid (0.01 s).
        assert_eq!(meta["time_decimals"], 2, "{file}");
        let names: Vec<&str> = meta["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["Prey.x", "Predator.y"], "{file}");
        // Stored results list their slaves in the order of their first columns.
        assert_eq!(
            meta["slaves"],
            serde_json::json!(["Prey", "Predator"]),
            "{file}"
        );
        let status = live.status();
        assert_eq!(status["state"], "finished");
        assert_eq!(
            status["rows"].as_u64().unwrap() as usize,
            prey.time.len(),
            "{file}"
        );
        let rows = live
            .get(&format!("rows?from=0&to={}", prey.time.len()))
            .json();
        for (i, row) in rows["rows"].as_array().unwrap().iter().enumerate() {
            let row: Vec<f64> = row
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            if file.ends_with(".csv") {
                // The CSV holds 14 significant digits; the binary formats are exact.
                assert!(close(row[0], prey.time[i], 1e-15, 1e-12), "{file} row {i}");
                assert!(
                    close(row[1], prey.values[i], 1e-15, 1e-12),
                    "{file} row {i}"
                );
            } else {
                assert_eq!(row[0].to_bits(), prey.time[i].to_bits(), "{file} row {i}");
                assert_eq!(row[1].to_bits(), prey.values[i].to_bits(), "{file} row {i}");
            }
        }
        let r = live.control(r#"{"command":"start"}"#);
        assert_eq!(r.code, 409, "{file}: {}", r.body);
    }
    std::fs::remove_file(&project).unwrap();
}

/// A live run that writes its MAT file keeps only a window of rows in memory (1,000 to 2,000
/// rows here, set by `MASTERSIM_LIVE_WINDOW`, as the status's `rows_in_memory` shows); a page
/// that connects after the end still gets all 5,001 rows, through `/api/rows` and the event
/// stream from row 0, each value bit for bit as in the MAT file.
#[test]
fn a_late_page_gets_the_rows_older_than_the_window_from_the_mat_file() {
    let tmp = tempfile::tempdir().unwrap();
    let project = lotka_volterra(tmp.path(), 50.0);
    let wd = tmp.path().join("wd");
    let window = [("MASTERSIM_LIVE_WINDOW", "1000")];
    let live = LiveRun::start_with_env(&project, &wd, &[], &window);
    live.command("start");
    let status = live.wait_for(Duration::from_secs(60), |s| s["state"] == "finished");
    let stem = project.file_stem().unwrap().to_string_lossy().into_owned();
    let mat = output::mat::read(wd.join(format!("results/{stem}.mat"))).unwrap();
    let columns: Vec<_> = ["Prey.x", "Predator.y"]
        .iter()
        .map(|name| mat.signals.iter().find(|s| s.name == *name).unwrap())
        .collect();
    let n = columns[0].time.len();
    assert_eq!(n, 5001);
    assert_eq!(status["rows"].as_u64().unwrap() as usize, n);
    let in_memory = status["rows_in_memory"].as_u64().unwrap();
    assert!((1000..2000).contains(&in_memory), "{status}");
    let same = |row: &serde_json::Value, i: usize, what: &str| {
        let row: Vec<u64> = row
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap().to_bits())
            .collect();
        let expected = [
            columns[0].time[i].to_bits(),
            columns[0].values[i].to_bits(),
            columns[1].values[i].to_bits(),
        ];
        assert_eq!(row, expected, "{what}, row {i}");
    };
    let rows = live.get(&format!("rows?from=0&to={n}")).json();
    let rows = rows["rows"].as_array().unwrap();
    assert_eq!(rows.len(), n);
    for (i, row) in rows.iter().enumerate() {
        same(row, i, "/api/rows");
    }
    let streamed = live.first_rows_event(Some(0));
    assert_eq!(streamed["from"], 0);
    for (i, row) in streamed["rows"].as_array().unwrap().iter().enumerate() {
        same(row, i, "the event stream");
    }
    let (exit, _) = live.finish();
    assert!(exit.success(), "{exit:?}");
    std::fs::remove_file(&project).unwrap();
}

/// The window of the tests of a live run with `values.csv` and no MAT file, rows.
const CSV_WINDOW: &str = "64";

/// Issue 32: a live run that writes `values.csv` and no MAT file keeps only a window of rows in
/// memory too: 64 to 128 rows here, plus the rows the CSV writer thread has not passed to the
/// operating system yet (at most four batches of about 4,096 values). A page that connects
/// after the end gets all 50,001 rows with times strictly increasing: the rows older than the
/// window read back from `values.csv` (time in minutes there) equal to its numbers, the newer
/// ones the exact values, which the file holds to 14 significant digits.
#[test]
fn a_late_page_gets_the_rows_older_than_the_window_from_values_csv() {
    let tmp = tempfile::tempdir().unwrap();
    let extra = "tEnd 500 s\nhOutputMin 0.01 s\noutputTimeUnit min\nresultFormats csv\n";
    let project = mastersim_tests::project_copy("lotka_volterra", "live", extra, tmp.path());
    let wd = tmp.path().join("wd");
    let window = [("MASTERSIM_LIVE_WINDOW", CSV_WINDOW)];
    let live = LiveRun::start_with_env(&project, &wd, &[], &window);
    let rows = assert_late_page_gets_csv_rows(&live, &wd, 60.0);
    assert_eq!(rows, 50_001);
    let (exit, _) = live.finish();
    assert!(exit.success(), "{exit:?}");
    std::fs::remove_file(&project).unwrap();
}

/// `--resume --live` with `values.csv` and no MAT file: the rows of the interrupted run, read
/// back from `values.csv` at the start, count as on disk, so the window stays as small as in
/// an unbroken run and a late page gets every row of the whole run from the file.
#[test]
fn a_resumed_live_run_reads_the_interrupted_rows_back_from_values_csv() {
    let tmp = tempfile::tempdir().unwrap();
    let extra = "tEnd 1000 s\nhOutputMin 0.01 s\nresultFormats csv\n";
    let project = mastersim_tests::project_copy("lotka_volterra", "live", extra, tmp.path());
    let wd = tmp.path().join("wd");
    // At 100 times real time, stopped by SIGTERM once values.csv holds some 300 kB (several
    // thousand rows): a checkpoint at the stop.
    let mut child = std::process::Command::new(mastersim_tests::mastersim_bin())
        .arg(&project)
        .args(["--real-time", "100", "--checkpoint-interval", "0.05"])
        .arg("--working-dir")
        .arg(&wd)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("mastersim starts");
    let csv_len = || std::fs::metadata(wd.join("results/values.csv")).map_or(0, |m| m.len());
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while csv_len() < 300_000 {
        assert!(
            std::time::Instant::now() < deadline,
            "values.csv stays short"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    mastersim_tests::stop_with_sigterm(&mut child);
    let window = [("MASTERSIM_LIVE_WINDOW", CSV_WINDOW)];
    let live = LiveRun::start_with_env(&project, &wd, &["--resume"], &window);
    let before = live.status()["rows"].as_u64().unwrap();
    println!("{before} rows of the interrupted run");
    assert!(
        (5000..90_000).contains(&before),
        "{before} rows before the resumed run"
    );
    let rows = assert_late_page_gets_csv_rows(&live, &wd, 1.0);
    assert_eq!(rows, 100_001);
    let (exit, _) = live.finish();
    assert!(exit.success(), "{exit:?}");
    std::fs::remove_file(&project).unwrap();
}

/// Starts the waiting live run `live` (working directory `wd`, a window of [`CSV_WINDOW`]
/// rows, `values.csv` and no MAT file) and checks, while it runs, that the server holds at
/// most twice the window and four batches of the CSV writer; once it has finished, that
/// `/api/rows` and the event stream give every row (see [`assert_rows_match`]; `values.csv`
/// times times `to_seconds` are seconds). Returns the number of rows.
fn assert_late_page_gets_csv_rows(live: &LiveRun, wd: &Path, to_seconds: f64) -> usize {
    live.command("start");
    let mut most_in_memory = 0;
    let status = loop {
        let status = live.status();
        most_in_memory = most_in_memory.max(status["rows_in_memory"].as_u64().unwrap());
        if status["state"] == "finished" {
            break status;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let results: Vec<_> = std::fs::read_dir(wd.join("results"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!results.iter().any(|f| f.ends_with(".mat")), "{results:?}");
    // The run reports "finished" when its last step is done; the CSV writer thread may still
    // be writing the last rows then.
    let n = status["rows"].as_u64().unwrap() as usize;
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let file = loop {
        let found = match output::result_file::read(&wd.join("results/values.csv")) {
            Ok(file) if file.series[0].time.len() == n => break file,
            Ok(file) => format!("{} rows", file.series[0].time.len()),
            Err(e) => e.to_string(),
        };
        assert!(
            std::time::Instant::now() < deadline,
            "values.csv after 30 s: {found}, expected {n} rows"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let meta = live.get("meta").json();
    let names: Vec<&str> = meta["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    let csv: Vec<&output::result_file::Series> = names
        .iter()
        .map(|name| file.series.iter().find(|s| s.name == *name).unwrap())
        .collect();
    let window: u64 = CSV_WINDOW.parse().unwrap();
    let batch_rows = 4096_u64.div_ceil(names.len() as u64 + 3);
    let bound = 2 * window + 4 * batch_rows + 1;
    assert!(
        most_in_memory <= bound,
        "{most_in_memory} rows in memory, more than {bound}"
    );
    let from_file = n - status["rows_in_memory"].as_u64().unwrap() as usize;
    assert!(from_file >= n - bound as usize, "{status}");
    println!(
        "{n} rows; at most {most_in_memory} in memory (bound {bound}); 0..{from_file} read back"
    );
    let check = |rows: &[Value], first: usize, what: &str| {
        assert_rows_match(rows, first, from_file, &csv, to_seconds, what);
    };
    let rows = live.get(&format!("rows?from=0&to={n}")).json();
    let rows = rows["rows"].as_array().unwrap();
    assert_eq!(rows.len(), n);
    check(rows, 0, "/api/rows");
    // The stream skips a backlog of more than 50,000 rows: start it 20,000 rows before the
    // end, among the rows read back.
    let first = n - 20_000;
    assert!(first + 2000 < from_file, "{first} {from_file}");
    let streamed = live.first_rows_event(Some(first));
    assert_eq!(streamed["from"], first);
    check(
        streamed["rows"].as_array().unwrap(),
        first,
        "the event stream",
    );
    n
}

/// Checks `rows` (the rows from `first` on, as the live view serves them): times strictly
/// increasing; the rows before `from_file` equal to those of `csv` (the series of `values.csv`
/// in the page's column order, its times times `to_seconds`), the others within its 14 digits.
fn assert_rows_match(
    rows: &[Value],
    first: usize,
    from_file: usize,
    csv: &[&output::result_file::Series],
    to_seconds: f64,
    what: &str,
) {
    for (k, row) in rows.iter().enumerate() {
        let i = first + k;
        let row: Vec<f64> = row
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let mut expected = vec![csv[0].time[i] * to_seconds];
        expected.extend(csv.iter().map(|s| s.values[i]));
        if i < from_file {
            assert_eq!(row, expected, "{what}, row {i}: read back from values.csv");
        } else {
            for (a, b) in row.iter().zip(&expected) {
                assert!(
                    close(*a, *b, 1e-15, 1e-12),
                    "{what}, row {i}: {row:?} {expected:?}"
                );
            }
        }
        if k > 0 {
            let before = rows[k - 1][0].as_f64().unwrap();
            assert!(
                row[0] > before,
                "{what}, row {i}: time {} after {before}",
                row[0]
            );
        }
    }
}

/// Bad ranges and positions sent to a running `mastersim --live` are answered with 400 and a
/// JSON error naming the parameter; the server thread survives them (the reversed range
/// `from=50&to=10` used to panic it) and the run ends normally.
#[test]
fn bad_requests_get_400_with_json_and_the_view_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let project = lotka_volterra(tmp.path(), 1.0);
    let live = LiveRun::start(&project, &tmp.path().join("wd"), &[]);
    live.command("start");
    live.wait_for(Duration::from_secs(30), |s| s["state"] == "finished");
    for (query, says) in [
        (
            "rows?from=50&to=10",
            "parameters from=50 and to=10 are reversed",
        ),
        (
            "rows?from=-1&to=10",
            "parameter 'from' is '-1'; expected a row number",
        ),
        ("rows?from=0&to=1e3", "parameter 'to' is '1e3'"),
        ("rows?from=0", "parameter 'to' is missing"),
        ("stream?from=-3", "parameter 'from' is '-3'"),
    ] {
        let r = live.get(query);
        assert_eq!(r.code, 400, "{query}: {}", r.body);
        let error = r.json()["error"].as_str().unwrap().to_string();
        assert!(error.contains(says), "{query}: {error}");
        // The server still answers, with the rows there are.
        let rows = live.get("rows?from=50&to=1000000").json();
        assert_eq!(rows["from"], 50);
        assert_eq!(rows["rows"].as_array().unwrap().len(), 101 - 50);
    }
    let r = live.control(r#"{"command": 7}"#);
    assert_eq!(r.code, 400, "{}", r.body);
    assert!(r.json()["error"].as_str().unwrap().contains("command"));
    let (exit, _) = live.finish();
    assert!(exit.success(), "{exit:?}");
    std::fs::remove_file(&project).unwrap();
}
