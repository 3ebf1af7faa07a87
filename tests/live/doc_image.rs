//! The picture of the live view in the user docs (`docs/live-view.png`, shown by `README.md`
//! and `docs/live.md`) is made by this test, from the current page: the bundled flight example
//! run at twice real time with `--live`, the Aircraft panel docked, paused about 1.2 s into the
//! run, in a 1400 × 900 headless Chromium window. The test checks the picture (its size, the
//! aircraft drawn in the scene, the tree and the panel on screen, under 300 KB) and writes it
//! as `target/live-screenshots/live-view.png`; copying it over `docs/live-view.png` updates the
//! docs:
//!
//! ```text
//! cargo test --release -p mastersim-tests --test live -- --test-threads=1 the_doc_image
//! cp target/live-screenshots/live-view.png docs/live-view.png
//! ```

use std::time::Duration;

use fantoccini::Client;
use mastersim_tests::example_workspace;
use mastersim_tests::live_run::LiveRun;
use serde_json::json;

use crate::browser::{Driver, click, image, open_waiting_run, view, wait_page};
use crate::scene::aircraft_pixels;

/// The picture's size, CSS px (the device scale factor is 1).
const WIDTH: u32 = 1400;
const HEIGHT: u32 = 900;

/// The largest picture the docs should carry, bytes.
const MAX_BYTES: usize = 300 * 1024;

/// Resizes the browser window so that the page's viewport is `width` × `height` CSS px.
async fn set_viewport(b: &Client, width: u32, height: u32) {
    let inner = || async {
        let v = b
            .execute("return [window.innerWidth, window.innerHeight];", vec![])
            .await
            .expect("the viewport's size");
        (v[0].as_u64().unwrap(), v[1].as_u64().unwrap())
    };
    let (w, h) = b.get_window_size().await.expect("the window's size");
    let (iw, ih) = inner().await;
    let outer =
        |size: u32, window: u64, viewport: u64| (u64::from(size) + window - viewport) as u32;
    b.set_window_size(outer(width, w, iw), outer(height, h, ih))
        .await
        .expect("the window resized");
    let got = inner().await;
    assert_eq!(
        got,
        (u64::from(width), u64::from(height)),
        "the viewport's size"
    );
}

/// The bounding box of the element `css` in the viewport: [left, top, right, bottom], CSS px.
async fn rect(b: &Client, css: &str) -> Vec<f64> {
    let r = b
        .execute(
            "const r = document.querySelector(arguments[0]).getBoundingClientRect(); \
             return [r.left, r.top, r.right, r.bottom];",
            vec![json!(css)],
        )
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"));
    r.as_array()
        .expect("four numbers")
        .iter()
        .map(|v| v.as_f64().expect("a number"))
        .collect()
}

#[tokio::test(flavor = "current_thread")]
async fn the_doc_image_of_the_live_view() {
    let tmp = tempfile::tempdir().unwrap();
    let project = example_workspace().join("projects/flight_navigation_multirate.msim");
    let live = LiveRun::start(&project, &tmp.path().join("wd"), &["--real-time", "2"]);
    let driver = Driver::start();
    let b = driver.browser().await;
    set_viewport(&b, WIDTH, HEIGHT).await;
    open_waiting_run(&b, &live.url).await;
    click(&b, ".panel-button[data-slave='Aircraft']").await;
    click(&b, "#start").await;
    live.wait_for(Duration::from_secs(30), |s| s["t"].as_f64() >= Some(1.2));
    click(&b, "#pause").await;
    wait_page(&b, Duration::from_secs(5), "paused", |s| {
        s["state"] == "paused"
    })
    .await;
    let rows = live.status()["rows"].as_u64().unwrap();
    wait_page(&b, Duration::from_secs(5), "every row drawn", |s| {
        s["view"]["rows"].as_u64() == Some(rows)
            && s["view"]["scene"]["objects"]["aircraft"]["drawn"] == true
    })
    .await;
    let v = view(&b).await;
    assert_eq!(v["panels"], json!(["Aircraft"]), "the docked panels");

    // On screen: the tree at the left, the scene, the panel at the right.
    let (tree, scene, panel) = (
        rect(&b, "#tree").await,
        rect(&b, "#scene").await,
        rect(&b, ".slave-panel[data-slave='Aircraft']").await,
    );
    let width = f64::from(WIDTH);
    assert!(tree[2] < scene[0], "tree {tree:?}, scene {scene:?}");
    assert!(
        scene[2] < panel[0] && panel[2] <= width,
        "scene {scene:?}, panel {panel:?}"
    );
    assert!(
        scene[3] <= f64::from(HEIGHT),
        "the scene {scene:?} below the window"
    );
    let found = aircraft_pixels(&b, "live-view").await;
    let path = mastersim_tests::target_dir().join("live-screenshots/live-view.png");
    let png = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let picture = image(&png);
    println!(
        "{}: {} × {} px, {} bytes, paused at t = {} s (row {rows}), {found} aircraft pixels",
        path.display(),
        picture.width,
        picture.height(),
        png.len(),
        v["scene"]["t"]
    );
    assert_eq!(
        (picture.width, picture.height()),
        (WIDTH as usize, HEIGHT as usize)
    );
    assert!(found >= 60, "{found} aircraft pixels");
    assert!(png.len() <= MAX_BYTES, "{} bytes", png.len());
    let different = picture
        .pixels
        .iter()
        .filter(|p| **p != picture.pixels[0])
        .count();
    assert!(
        different * 10 > picture.pixels.len(),
        "{different} pixels differ from the first"
    );
    b.close().await.unwrap();
    live.command("resume");
    let (status, _) = live.finish();
    assert!(status.success(), "{status}");
}
