//! Replay as a state of the run, over HTTP against a running `mastersim --live`: `seek`
//! enters replay at a row (a running run pauses), every client sees the state, the row and the
//! view that started it in `/api/status`; a seek to the last computed row or Resume leaves
//! replay and the run goes on without a gap or a repeated row (the result files equal a plain
//! run's, byte for byte); seeks that do not fit get 400 or 409. A single step shorter than
//! `hOutputMin` shows the values of its communication point in the status (`point`). The
//! browser side is in `tests/live/browser_replay.rs`.

use std::path::Path;
use std::time::Duration;

use mastersim_tests::live_run::{LiveRun, lotka_volterra};
use mastersim_tests::{project_copy, run_mastersim};
use serde_json::Value;

const WAIT: Duration = Duration::from_secs(30);

fn rows(s: &Value) -> u64 {
    s["rows"].as_u64().expect("rows")
}

/// Sends a `seek` to `row` from `view`; returns the answer's code and body.
fn seek(live: &LiveRun, row: i64, view: &str) -> (u16, String) {
    let r = live.control(&format!(
        r#"{{"command":"seek","row":{row},"view":"{view}"}}"#
    ));
    (r.code, r.body)
}

/// `values.csv` and the MAT file of both runs are byte-identical.
fn assert_same_files(steered: &Path, plain: &Path, stem: &str) {
    for f in [
        "results/values.csv".to_string(),
        format!("results/{stem}.mat"),
    ] {
        let a = std::fs::read(steered.join(&f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        let b = std::fs::read(plain.join(&f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert!(a == b, "{f} differs from the plain run's");
    }
}

#[test]
fn seek_enters_replay_and_leaving_it_continues_without_a_gap() {
    let tmp = tempfile::tempdir().unwrap();
    let project = lotka_volterra(tmp.path(), 3.0);
    let stem = project.file_stem().unwrap().to_string_lossy().into_owned();
    let plain = tmp.path().join("plain");
    run_mastersim(&project, &plain, &[]).assert_success();
    let wd = tmp.path().join("steered");
    let live = LiveRun::start(&project, &wd, &["--real-time", "2"]);
    live.wait_for(WAIT, |s| rows(s) == 1);

    // Not before Start, and never a row that is not a row number.
    let (code, body) = seek(&live, 0, "a");
    assert_eq!(code, 409, "{body}");
    assert!(
        body.contains("cannot seek while waiting for Start"),
        "{body}"
    );
    for (bad, says) in [
        (r#"{"command":"seek"}"#, "seek without 'row'"),
        (r#"{"command":"seek","row":-1}"#, "seek to row -1"),
        (r#"{"command":"seek","row":1.5}"#, "seek to row 1.5"),
        (r#"{"command":"seek","row":"7"}"#, r#"seek to row \"7\""#),
    ] {
        let r = live.control(bad);
        assert_eq!(r.code, 400, "{bad}: {}", r.body);
        assert!(r.body.contains(says), "{bad}: {}", r.body);
    }

    // A running run: seek enters replay, the run is held, every client sees who started it.
    live.command("start");
    live.wait_for(WAIT, |s| rows(s) > 20);
    let (code, body) = seek(&live, 5, "a");
    assert_eq!(code, 200, "{body}");
    let s = live.wait_for(WAIT, |s| s["state"] == "replay");
    assert_eq!(
        (s["replay"]["row"].as_u64(), s["by"].as_str()),
        (Some(5), Some("a"))
    );
    std::thread::sleep(Duration::from_millis(300));
    let held = live.status();
    assert_eq!(rows(&held), rows(&live.status()), "replay holds the run");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(rows(&held), rows(&live.status()), "replay holds the run");
    let last = rows(&held) - 1;
    let (code, body) = seek(&live, i64::try_from(last).unwrap() + 1, "a");
    assert_eq!(code, 409, "{body}");
    assert!(
        body.contains(&format!("the last computed row is {last}")),
        "{body}"
    );
    let (code, body) = seek(&live, 3, "b");
    assert_eq!(code, 200, "{body}");
    let s = live.status();
    assert_eq!(
        (
            s["state"].as_str(),
            s["replay"]["row"].as_u64(),
            s["by"].as_str()
        ),
        (Some("replay"), Some(3), Some("b"))
    );

    // The right edge leaves replay and the run computes on.
    let (code, body) = seek(&live, i64::try_from(last).unwrap(), "b");
    assert_eq!(code, 200, "{body}");
    let s = live.wait_for(WAIT, |s| rows(s) > last + 5);
    assert_eq!(s["state"], "running");
    assert!(s["replay"].is_null() && s["by"].is_null(), "{s}");

    // Paused by one view, replay from another, and Resume leaves replay.
    live.command("pause");
    let s = live.wait_for(WAIT, |s| s["state"] == "paused");
    assert!(s["by"].is_null(), "a command without a view: {s}");
    assert_eq!(seek(&live, 2, "b").0, 200);
    let s = live.status();
    assert_eq!(
        (s["state"].as_str(), s["by"].as_str()),
        (Some("replay"), Some("b"))
    );
    live.command("resume");
    let s = live.wait_for(WAIT, |s| s["state"] == "running");
    assert!(s["replay"].is_null(), "{s}");

    // A single step in replay leaves it: one step, then paused.
    assert_eq!(seek(&live, 1, "a").0, 200);
    live.wait_for(WAIT, |s| s["state"] == "replay");
    std::thread::sleep(Duration::from_millis(200));
    let before = rows(&live.status());
    live.command("step");
    let s = live.wait_for(WAIT, |s| rows(s) == before + 1);
    assert_eq!(s["state"], "paused", "{s}");
    live.command("resume");

    let (exit, _) = live.finish();
    assert!(exit.success(), "{exit:?}");
    assert_same_files(&wd, &plain, &stem);
    std::fs::remove_file(&project).unwrap();
}

#[test]
fn a_seek_after_the_end_is_409() {
    let tmp = tempfile::tempdir().unwrap();
    let project = lotka_volterra(tmp.path(), 0.2);
    let live = LiveRun::start(&project, &tmp.path().join("wd"), &[]);
    live.command("start");
    live.wait_for(WAIT, |s| s["state"] == "finished");
    let (code, body) = seek(&live, 3, "a");
    assert_eq!(code, 409, "{body}");
    assert!(body.contains("the run has finished"), "{body}");
    let (exit, _) = live.finish();
    assert!(exit.success(), "{exit:?}");
    std::fs::remove_file(&project).unwrap();
}

#[test]
fn a_single_step_shows_its_communication_point_without_a_row() {
    let tmp = tempfile::tempdir().unwrap();
    // A row every 0.1 s, a step of 0.01 s: single steps write no row.
    let extra = "tEnd 0.5 s\nhOutputMin 0.1 s\nresultFormats csv,mat\n";
    let project = project_copy("lotka_volterra", "live-step", extra, tmp.path());
    let stem = project.file_stem().unwrap().to_string_lossy().into_owned();
    let plain = tmp.path().join("plain");
    run_mastersim(&project, &plain, &[]).assert_success();
    let wd = tmp.path().join("steered");
    let live = LiveRun::start(&project, &wd, &[]);
    live.wait_for(WAIT, |s| rows(s) == 1);
    let first = live.get("rows?from=0&to=1").json()["rows"][0].clone();
    let mut before = first.clone();
    for k in 1..=3u32 {
        live.command("step");
        let s = live.wait_for(WAIT, |s| {
            s["point"][0]
                .as_f64()
                .is_some_and(|t| (t - 0.01 * f64::from(k)).abs() < 1e-12)
        });
        assert_eq!((s["state"].as_str(), rows(&s)), (Some("paused"), 1), "{s}");
        let point = &s["point"];
        assert_eq!(
            point.as_array().unwrap().len(),
            first.as_array().unwrap().len()
        );
        assert_ne!(
            point[1],
            before[1],
            "the values at t = {} s: {s}",
            0.01 * f64::from(k)
        );
        before = point.clone();
    }
    live.command("resume");
    let (exit, _) = live.finish();
    assert!(exit.success(), "{exit:?}");
    assert_same_files(&wd, &plain, &stem);
    std::fs::remove_file(&project).unwrap();
}
