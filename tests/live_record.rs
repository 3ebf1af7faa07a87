//! `mastersim view --record` and `POST /api/recording` without a browser: the upload is
//! refused by a view not started for a recording (409), for a body of another type (415) and
//! for a body that is no WebM file; a WebM upload is written to the target, complete, under its
//! name only; the page's error ends the command with that message and writes nothing; a
//! missing Chromium is named with what to install. The pages here are a stand-in program
//! that only waits (`--chromium`), so that the test sends the upload itself; the real page in
//! headless Chromium is tested in `tests/live/record.rs`.

use std::path::{Path, PathBuf};
use std::process::Command;

use mastersim_tests::live_run::{LiveRun, Response};

/// A comma-separated result file with time first: three rows of one variable.
fn results(dir: &Path) -> PathBuf {
    let csv = dir.join("results.csv");
    std::fs::write(&csv, "time,Prey.x\n0,1\n0.5,1.5\n1,2\n").unwrap();
    csv
}

/// A stand-in for Chromium that waits (and is ended by mastersim).
fn waiting_browser(dir: &Path) -> PathBuf {
    let program = dir.join("browser.sh");
    std::fs::write(&program, "#!/bin/sh\nexec sleep 60\n").unwrap();
    let made = Command::new("chmod").arg("+x").arg(&program).status();
    assert!(
        made.is_ok_and(|s| s.success()),
        "chmod {}",
        program.display()
    );
    program
}

/// `POST /api/recording` with `content_type` and `body`, as the page sends it.
fn upload(view: &LiveRun, content_type: &str, body: &str) -> Response {
    let origin = format!("http://{}", view.host());
    view.raw(
        "POST",
        &format!("/api/recording?token={}", view.token),
        &view.host(),
        &[("Content-Type", content_type), ("Origin", &origin)],
        body,
    )
}

/// `mastersim view <csv> --record <target> --chromium <waiting browser>`.
fn record(dir: &Path, target: &Path) -> LiveRun {
    let csv = results(dir);
    let browser = waiting_browser(dir);
    let args = [
        "view".as_ref(),
        csv.as_os_str(),
        "--record".as_ref(),
        target.as_os_str(),
        "--chromium".as_ref(),
        browser.as_os_str(),
    ];
    LiveRun::spawn(&args, dir)
}

#[test]
fn a_plain_view_refuses_uploads() {
    let tmp = tempfile::tempdir().unwrap();
    let csv = results(tmp.path());
    let view = LiveRun::spawn(&["view".as_ref(), csv.as_os_str()], tmp.path());
    let r = upload(&view, "video/webm", "\u{1a}E\u{7e3}");
    assert_eq!(r.code, 409, "{}", r.body);
    assert!(
        r.json()["error"].as_str().unwrap().contains("--record"),
        "{}",
        r.body
    );
}

#[test]
fn a_webm_upload_is_written_to_the_target() {
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("out.webm");
    let mut view = record(tmp.path(), &target);
    let r = upload(&view, "text/plain", "hello");
    assert_eq!(r.code, 415, "{}", r.body);
    // The EBML header's ID (1A 45 DF A3), then anything: written as sent.
    let video = "\u{1a}E\u{7e3} a stand-in for a video";
    let r = upload(&view, "video/webm", video);
    assert_eq!(r.code, 200, "{}", r.body);
    assert_eq!(r.json()["bytes"], video.len());
    let (exit, said) = view.interrupt();
    assert!(exit.success(), "{exit:?}: {said}");
    assert_eq!(std::fs::read(&target).unwrap(), video.as_bytes());
    let names: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("webm"))
        .collect();
    assert_eq!(names, ["out.webm"], "no temporary file is left");
}

#[test]
fn a_failed_recording_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("out.webm");
    // Not a WebM file: refused, and the command ends with the reason.
    let mut view = record(tmp.path(), &target);
    let r = upload(&view, "video/webm", "<html>");
    assert_eq!(r.code, 500, "{}", r.body);
    assert!(
        r.json()["error"]
            .as_str()
            .unwrap()
            .contains("not a WebM file"),
        "{}",
        r.body
    );
    let (exit, _) = view.interrupt();
    assert!(!exit.success());
    // The page's own error.
    let mut view = record(tmp.path(), &target);
    let r = upload(
        &view,
        "application/json",
        r#"{"error": "no VideoEncoder here"}"#,
    );
    assert_eq!(r.code, 200, "{}", r.body);
    let (exit, _) = view.interrupt();
    assert!(!exit.success());
    assert!(
        !target.exists(),
        "a failed recording wrote {}",
        target.display()
    );
    assert_eq!(
        std::fs::read_dir(tmp.path())
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .contains("webm")
            })
            .count(),
        0,
        "no temporary file is left"
    );

    // No Chromium: named, with what to install.
    let csv = results(tmp.path());
    let output = Command::new(mastersim_tests::mastersim_bin())
        .arg("view")
        .arg(&csv)
        .arg("--record")
        .arg(&target)
        .env("PATH", tmp.path())
        .env_remove("MASTERSIM_CHROMIUM")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        said.contains("apt-get install chromium") && said.contains("--chromium"),
        "{said}"
    );
}
