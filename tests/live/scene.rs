//! The scene of the bundled flight example in headless Chromium: the project's `scene` line
//! gives a `--live` run its scene, which follows the cursor. At three scrubbed rows the
//! aircraft is drawn at (time, `Aircraft.h`) of that row, exactly as the MAT file holds it, at
//! the canvas pixel the frame maps it to (within a pixel), and the screenshot has the
//! aircraft's colour there. The tree the user clicks hides it: its checkbox in the tree's
//! `Scene` group takes the aircraft's pixels to 0 and a second click brings them back; the
//! group's own checkbox hides and shows every object of the scene.

use std::time::Duration;

use fantoccini::Client;
use mastersim_tests::live_run::LiveRun;
use mastersim_tests::{example_workspace, target_dir};
use serde_json::{Value, json};

use crate::browser::{Driver, click, image, scrub, text, view, wait_page};

/// The aircraft's colour in `projects/flight_navigation_multirate.scene.toml` (#447cb4).
pub(crate) const AIRCRAFT: [u8; 3] = [0x44, 0x7c, 0xb4];

/// The number of objects in the bundled flight scene.
const OBJECTS: usize = 7;

/// The frame of the bundled scene: x (time, s) and y (altitude, m) ranges.
const FRAME_X: [f64; 2] = [-0.5, 10.5];
const FRAME_Y: [f64; 2] = [-1.5, 13.5];

/// The canvas pixel of world point (x, y) in the drawn frame (`scene.frame.plot`).
pub(crate) fn expected_pixel(frame: &Value, x: f64, y: f64) -> (f64, f64) {
    let plot = &frame["plot"];
    let n = |v: &Value| v.as_f64().expect("a number");
    let (left, top) = (n(&plot["left"]), n(&plot["top"]));
    let (width, height) = (n(&plot["width"]), n(&plot["height"]));
    (
        left + (x - FRAME_X[0]) / (FRAME_X[1] - FRAME_X[0]) * width,
        top + (FRAME_Y[1] - y) / (FRAME_Y[1] - FRAME_Y[0]) * height,
    )
}

/// The position of the scene canvas' top left corner in the page, CSS px.
pub(crate) async fn canvas_origin(b: &Client) -> (f64, f64) {
    let r = b
        .execute(
            "const r = document.getElementById('scene').getBoundingClientRect(); \
             return [r.left + window.scrollX, r.top + window.scrollY];",
            vec![],
        )
        .await
        .expect("the scene canvas");
    (r[0].as_f64().unwrap(), r[1].as_f64().unwrap())
}

/// The pixels within 24 per channel of the aircraft's colour, within 6 px of page point
/// (x, y), on a fresh screenshot (the page is not scrolled; the device scale factor is 1),
/// saved as `target/live-screenshots/<name>.png`.
pub(crate) async fn aircraft_pixels_at(b: &Client, (x, y): (f64, f64), name: &str) -> usize {
    let png = b.screenshot().await.expect("screenshot");
    let dir = target_dir().join("live-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.png")), &png).unwrap();
    let (cx, cy) = (x.round() as i64, y.round() as i64);
    image(&png).count_in((cx - 6, cy - 6), (cx + 6, cy + 6), |r, g, b| {
        [r, g, b]
            .iter()
            .zip(AIRCRAFT)
            .all(|(a, c)| a.abs_diff(i32::from(c)) <= 24)
    })
}

/// The tree's checkbox of scene object `item`, or the `Scene` group's own for `None`.
fn scene_checkbox(item: Option<&str>) -> String {
    match item {
        Some(id) => format!("#tree input.tree-item-toggle[data-group='scene'][data-item='{id}']"),
        None => "#tree input.tree-group-toggle[data-group='scene']".to_owned(),
    }
}

/// Clicks the tree's checkbox of scene object `item` (the `Scene` group's for `None`) as a
/// user does, then waits up to 5 s until the scene shows that object (every object for
/// `None`) as `drawn`, and checks that the checkbox reads `drawn` too.
pub(crate) async fn click_scene_checkbox(b: &Client, item: Option<&str>, drawn: bool) {
    let css = scene_checkbox(item);
    click(b, &css).await;
    let what = format!("{css} clicked: drawn {drawn}");
    wait_page(b, Duration::from_secs(5), &what, |s| {
        let objects = &s["view"]["scene"]["objects"];
        match item {
            Some(id) => objects[id]["drawn"] == drawn,
            None => objects
                .as_object()
                .is_some_and(|o| o.len() == OBJECTS && o.values().all(|v| v["drawn"] == drawn)),
        }
    })
    .await;
    let checked = b
        .execute(
            "return document.querySelector(arguments[0]).checked;",
            vec![json!(css)],
        )
        .await
        .expect("the checkbox");
    assert_eq!(checked, json!(drawn), "{css} after the click");
}

/// The aircraft's pixels on a fresh screenshot at the place the scene last mapped its
/// anchor to (drawn or not), saved as `target/live-screenshots/<name>.png`.
pub(crate) async fn aircraft_pixels(b: &Client, name: &str) -> usize {
    let scene = view(b).await["scene"].clone();
    let aircraft = &scene["objects"]["aircraft"];
    let world = |k: &str| {
        aircraft["world"][k]
            .as_f64()
            .expect("the aircraft's anchor")
    };
    let (px, py) = expected_pixel(&scene["frame"], world("x"), world("y"));
    let origin = canvas_origin(b).await;
    let scrolled = b
        .execute("return [window.scrollX, window.scrollY];", vec![])
        .await
        .unwrap();
    assert_eq!(scrolled, json!([0, 0]), "the page scrolled");
    aircraft_pixels_at(b, (origin.0 + px, origin.1 + py), name).await
}

/// The tree the user clicks: the aircraft's checkbox hides the aircraft and shows it again,
/// the `Scene` group's checkbox hides and shows every object; the screenshots show it.
async fn tree_hides_the_scene(b: &Client) {
    // The aircraft's checkbox in the tree hides the aircraft and shows it again.
    click_scene_checkbox(b, Some("aircraft"), false).await;
    let hidden = aircraft_pixels(b, "scene-flight-hidden").await;
    click_scene_checkbox(b, Some("aircraft"), true).await;
    let shown = aircraft_pixels(b, "scene-flight-shown-again").await;
    println!("the aircraft's checkbox: {hidden} pixels unchecked, {shown} checked again");
    assert_eq!(hidden, 0, "the aircraft is drawn while unchecked");
    assert!(
        shown >= 60,
        "{shown} aircraft pixels after checking it again"
    );
    // The scene group's checkbox hides and shows every object.
    click_scene_checkbox(b, None, false).await;
    let tree = view(b).await["tree"]["groups"]["scene"].clone();
    assert_eq!(
        tree.as_array().map(Vec::len),
        Some(OBJECTS),
        "hidden: {tree}"
    );
    let hidden = aircraft_pixels(b, "scene-flight-group-hidden").await;
    click_scene_checkbox(b, None, true).await;
    let shown = aircraft_pixels(b, "scene-flight-group-shown").await;
    println!("the Scene group's checkbox: {hidden} aircraft pixels unchecked, {shown} checked");
    assert_eq!(
        hidden, 0,
        "the aircraft is drawn while the scene group is unchecked"
    );
    assert!(
        shown >= 60,
        "{shown} aircraft pixels after checking the group again"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn the_flight_scene_follows_the_cursor() {
    let tmp = tempfile::tempdir().unwrap();
    let project = example_workspace().join("projects/flight_navigation_multirate.msim");
    let wd = tmp.path().join("wd");
    let run = LiveRun::start(&project, &wd, &["--result-format", "csv,mat"]);
    let driver = Driver::start();
    let b = driver.browser().await;
    b.goto(&run.url).await.expect("the page loads");
    wait_page(&b, Duration::from_secs(10), "the scene", |s| {
        s["view"]["scene"]["frame"].is_object()
    })
    .await;
    run.command("start");
    run.wait_for(Duration::from_secs(60), |s| s["state"] == "finished");
    let mat = output::mat::read(&wd.join("results/flight_navigation_multirate.mat"))
        .expect("the MAT file");
    let h = mat
        .signals
        .iter()
        .find(|s| s.name == "Aircraft.h")
        .expect("Aircraft.h in the MAT file");
    let rows = h.time.len() as u64;
    wait_page(&b, Duration::from_secs(10), "all rows", |s| {
        s["view"]["rows"].as_u64() == Some(rows)
    })
    .await;
    // The tree shows the scene's group with every object, labelled.
    let labels = b
        .execute(
            "return [...document.querySelectorAll(arguments[0])] \
               .map((i) => i.closest('label').textContent);",
            vec![json!("#tree input.tree-item-toggle[data-group='scene']")],
        )
        .await
        .unwrap();
    let labels: Vec<&str> = labels
        .as_array()
        .expect("the labels")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(labels.len(), OBJECTS, "{labels:?}");
    assert!(labels.contains(&"Aircraft"), "{labels:?}");
    let origin = canvas_origin(&b).await;
    for row in [150, 20, 800] {
        scrub(&b, row).await;
        wait_page(&b, Duration::from_secs(5), "the scene at the cursor", |s| {
            s["view"]["scene"]["row"].as_u64() == Some(row)
        })
        .await;
        let i = row as usize;
        let shown: f64 = text(&b, "#values tr[data-name='Aircraft.h'] td.value")
            .await
            .parse()
            .expect("a number");
        assert_eq!(
            shown.to_bits(),
            h.values[i].to_bits(),
            "row {row}: the values table"
        );
        let scene = view(&b).await["scene"].clone();
        let aircraft = &scene["objects"]["aircraft"];
        assert_eq!(aircraft["drawn"], true, "row {row}: {aircraft}");
        let world = (
            aircraft["world"]["x"].as_f64().unwrap(),
            aircraft["world"]["y"].as_f64().unwrap(),
        );
        assert_eq!(
            (world.0.to_bits(), world.1.to_bits()),
            (h.time[i].to_bits(), h.values[i].to_bits()),
            "row {row}: the aircraft is drawn at (time, Aircraft.h) of the row"
        );
        let (px, py) = expected_pixel(&scene["frame"], world.0, world.1);
        let drawn = (
            aircraft["px"]["x"].as_f64().unwrap(),
            aircraft["px"]["y"].as_f64().unwrap(),
        );
        assert!(
            (drawn.0 - px).abs() <= 1.0 && (drawn.1 - py).abs() <= 1.0,
            "row {row}: drawn at {drawn:?}, expected ({px}, {py})"
        );
        let at = (origin.0 + px, origin.1 + py);
        let found = aircraft_pixels_at(&b, at, &format!("scene-flight-row-{row}")).await;
        assert!(
            found >= 60,
            "row {row}: {found} aircraft pixels near {at:?}"
        );
        println!(
            "row {row}: t = {} s, h = {} m, aircraft at ({:.1}, {:.1}) px, {found} pixels",
            world.0, world.1, drawn.0, drawn.1
        );
    }
    tree_hides_the_scene(&b).await;
    b.close().await.unwrap();
    let (status, _) = run.finish();
    assert!(status.success(), "{status}");
}
