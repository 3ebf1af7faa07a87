//! Replay as a state of the run in headless Chromium (issue 32): scrubbing during a run
//! enters replay in this page and in a second page, which says "replay from another view";
//! the time bar is green while the run computes and blue in replay (pixels counted on
//! screenshots of the bar); dragging it to the right edge continues the run, and the result
//! files equal a plain run's byte for byte. A single step shorter than `hOutputMin` changes
//! the values shown although it writes no row.

use std::path::Path;
use std::time::Duration;

use fantoccini::{Client, Locator};
use mastersim_tests::live_run::{LiveRun, lotka_volterra};
use mastersim_tests::{project_copy, run_mastersim, target_dir};

use crate::browser::{
    Driver, click, colour_pixels, open_waiting_run, scrub, text, view, wait_page,
};

/// The time bar's colours (`--computing`, `--replay` in `crates/live/page/style.css`).
const GREEN: [u8; 3] = [0x00, 0xa6, 0x51];
const BLUE: [u8; 3] = [0x14, 0x63, 0xff];

const WAIT: Duration = Duration::from_secs(20);

/// Green and blue pixels of a screenshot of the time bar, saved as
/// `target/live-screenshots/<name>.png`.
async fn bar_colours(b: &Client, name: &str) -> (usize, usize) {
    let bar = b.find(Locator::Css("#timebar")).await.expect("#timebar");
    let png = bar
        .screenshot()
        .await
        .expect("a screenshot of the time bar");
    let dir = target_dir().join("live-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.png")), &png).unwrap();
    (colour_pixels(&png, GREEN), colour_pixels(&png, BLUE))
}

/// Waits until the page's time bar is mostly `colour` (green or blue), the other nearly
/// absent; returns the counts.
async fn wait_bar(b: &Client, name: &str, green: bool) -> (usize, usize) {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let (g, bl) = bar_colours(b, name).await;
        let (on, off) = if green { (g, bl) } else { (bl, g) };
        if on > 500 && off < 20 {
            println!("{name}: {g} green, {bl} blue pixels on the time bar");
            return (g, bl);
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{name}: the time bar has {g} green and {bl} blue pixels"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The colour of the Resume button's border, as computed (`rgb(r, g, b)`).
async fn resume_colour(b: &Client) -> String {
    b.execute(
        "return getComputedStyle(document.getElementById('resume')).borderTopColor;",
        vec![],
    )
    .await
    .expect("style")
    .as_str()
    .unwrap_or_default()
    .to_owned()
}

fn assert_same_files(live: &Path, plain: &Path, stem: &str) {
    for file in [
        "results/values.csv".to_string(),
        format!("results/{stem}.mat"),
    ] {
        let a = std::fs::read(live.join(&file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let b = std::fs::read(plain.join(&file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(a == b, "{file} differs from the plain run's");
    }
}

#[tokio::test(flavor = "current_thread")]
async fn scrubbing_a_run_enters_replay_in_every_page_and_the_right_edge_continues() {
    let tmp = tempfile::tempdir().unwrap();
    let project = lotka_volterra(tmp.path(), 3.0);
    let stem = project.file_stem().unwrap().to_string_lossy().into_owned();
    let plain = tmp.path().join("plain");
    run_mastersim(&project, &plain, &[]).assert_success();
    let wd = tmp.path().join("live");
    let live = LiveRun::start(&project, &wd, &["--real-time", "1"]);
    let driver = Driver::start();
    let (one, two) = (driver.browser().await, driver.browser().await);
    for b in [&one, &two] {
        b.goto(&live.url).await.expect("the page loads");
        wait_page(b, WAIT, "first row", |s| s["state"] == "waiting").await;
    }
    click(&one, "#start").await;
    for b in [&one, &two] {
        wait_page(b, WAIT, "running", |s| {
            s["state"] == "running" && s["view"]["rows"].as_u64() > Some(30)
        })
        .await;
    }
    wait_bar(&one, "replay-1-running", true).await;
    wait_bar(&two, "replay-2-running", true).await;

    // Scrub in the first page: both pages are in replay, blue, the second says why.
    scrub(&one, 20).await;
    for b in [&one, &two] {
        wait_page(b, WAIT, "replay", |s| {
            s["state"] == "replay" && s["view"]["cursor"] == 20
        })
        .await;
    }
    assert_eq!(text(&one, "#why").await, "replay from this view");
    assert_eq!(text(&two, "#why").await, "replay from another view");
    wait_bar(&one, "replay-1-replay", false).await;
    wait_bar(&two, "replay-2-replay", false).await;
    assert_eq!(resume_colour(&two).await, "rgb(20, 99, 255)");
    let held = live.wait_for(WAIT, |s| s["state"] == "replay");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(live.status()["t"], held["t"], "replay holds the run");

    // The right edge continues the run: green again in both pages.
    let rows = live.status()["rows"].as_u64().unwrap();
    wait_page(&one, WAIT, "all rows", |s| {
        s["view"]["rows"].as_u64() == Some(rows)
    })
    .await;
    scrub(&one, rows - 1).await;
    live.wait_for(WAIT, |s| {
        s["state"] == "running" || s["state"] == "finished"
    });
    for (b, name) in [(&one, "replay-1-continued"), (&two, "replay-2-continued")] {
        wait_page(b, WAIT, "running again", |s| s["state"] == "running").await;
        wait_bar(b, name, true).await;
        assert_eq!(text(b, "#why").await, "");
    }
    one.close().await.unwrap();
    two.close().await.unwrap();
    let (exit, _) = live.finish();
    assert!(exit.success(), "{exit:?}");
    assert_same_files(&wd, &plain, &stem);
    std::fs::remove_file(project).unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn a_single_step_changes_the_shown_values_without_a_row() {
    let tmp = tempfile::tempdir().unwrap();
    // A row every 0.1 s, a communication step of 0.01 s.
    let extra = "tEnd 0.3 s\nhOutputMin 0.1 s\nresultFormats csv,mat\n";
    let project = project_copy("lotka_volterra", "live-step", extra, tmp.path());
    let stem = project.file_stem().unwrap().to_string_lossy().into_owned();
    let plain = tmp.path().join("plain");
    run_mastersim(&project, &plain, &[]).assert_success();
    let wd = tmp.path().join("live");
    let live = LiveRun::start(&project, &wd, &[]);
    let driver = Driver::start();
    let b = driver.browser().await;
    open_waiting_run(&b, &live.url).await;
    let prey = "#values tr[data-name='Prey.x'] td.value";
    let mut shown = text(&b, prey).await;
    for (k, t) in [(1, "0.01"), (2, "0.02")] {
        click(&b, "#step").await;
        wait_page(&b, WAIT, "the stepped point", |s| {
            s["view"]["point"][0]
                .as_f64()
                .is_some_and(|p| (p - 0.01 * f64::from(k)).abs() < 1e-12)
        })
        .await;
        assert_eq!(text(&b, "#cursor-time").await, t);
        let now = text(&b, prey).await;
        assert_ne!(now, shown, "step {k}: Prey.x still shows {shown}");
        assert_eq!(view(&b).await["rows"], 1, "no row was written");
        shown = now;
    }
    click(&b, "#resume").await;
    b.close().await.unwrap();
    let (exit, _) = live.finish();
    assert!(exit.success(), "{exit:?}");
    assert_same_files(&wd, &plain, &stem);
    std::fs::remove_file(project).unwrap();
}
