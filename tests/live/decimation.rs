//! Min/max decimation per pixel column in headless Chromium (issue 32): a chart of 10⁶ rows
//! draws as a line inside its envelope (pixels of the line colour and of the translucent band
//! counted on a screenshot), and the time of one redraw is printed: a full one (the
//! decimation rebuilt), one from the decimation, and one of a tenth of the run (the shared
//! time window). The times are reported, not asserted (`docs/live.md` has the figures).

use std::time::Duration;

use mastersim_tests::live_run::LiveRun;
use mastersim_tests::{example_workspace, run_mastersim, target_dir};

use crate::browser::{Driver, colour_pixels, pixels, wait_page};

/// Prey.x's line colour, and its band: the colour at 25 % over the chart's white.
const LINE: [u8; 3] = [0x4e, 0x79, 0xa7];
const BAND: [u8; 3] = [0xd3, 0xdd, 0xe9];

#[tokio::test(flavor = "current_thread")]
async fn a_million_rows_draw_as_a_line_in_its_envelope() {
    let tmp = tempfile::tempdir().unwrap();
    let project = example_workspace().join("projects/lotka_volterra.msim");
    let wd = tmp.path().join("wd");
    run_mastersim(&project, &wd, &["--result-format", "mat"]).assert_success();
    let mat = wd.join("results/lotka_volterra.mat");
    let server = LiveRun::spawn(&["view".as_ref(), mat.as_os_str()], &wd);
    let driver = Driver::start();
    let b = driver.browser().await;
    b.goto(&server.url).await.expect("the page loads");
    wait_page(&b, Duration::from_secs(10), "the rows", |s| {
        s["view"]["rows"].as_u64() > Some(0)
    })
    .await;
    let times = b
        .execute_async(include_str!("draw_million.js"), vec![])
        .await
        .expect("the draw measurement");
    assert!(times["error"].is_null(), "{times}");
    println!("redraw of all charts with 10^6 rows each (ms, median of 5): {times}");
    let charts = b
        .find(fantoccini::Locator::Css("#charts"))
        .await
        .expect("#charts");
    let png = charts.screenshot().await.expect("a screenshot of #charts");
    let dir = target_dir().join("live-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("million-rows.png"), &png).unwrap();
    let line = colour_pixels(&png, LINE);
    let band = pixels(&png)
        .iter()
        .filter(|p| p.iter().zip(BAND).all(|(a, b)| a.abs_diff(b) <= 6))
        .count();
    println!("10^6 rows: {line} line pixels, {band} envelope pixels");
    assert!(line > 500, "the line: {line} pixels");
    assert!(band > 5000, "the envelope: {band} pixels");
    b.close().await.unwrap();
}
