//! The scene of the bundled flight example in headless Chromium: the project's `scene` line
//! gives a `--live` run its scene, which follows the cursor. At three scrubbed rows the
//! aircraft is drawn at (time, `Aircraft.h`) of that row, exactly as the MAT file holds it, at
//! the canvas pixel the frame maps it to (within a pixel), and the screenshot has the
//! aircraft's colour there. Hidden through its tree group, the aircraft is not drawn.

use std::time::Duration;

use fantoccini::Client;
use mastersim_tests::live_run::LiveRun;
use mastersim_tests::{example_workspace, target_dir};
use serde_json::{Value, json};

use crate::browser::{Driver, scrub, text, view, wait_page};

/// The aircraft's colour in `projects/flight_navigation_multirate.scene.toml` (#447cb4).
const AIRCRAFT: [u8; 3] = [0x44, 0x7c, 0xb4];

/// The frame of the bundled scene: x (time, s) and y (altitude, m) ranges.
const FRAME_X: [f64; 2] = [-0.5, 10.5];
const FRAME_Y: [f64; 2] = [-1.5, 13.5];

/// The canvas pixel of world point (x, y) in the drawn frame (`scene.frame.plot`).
fn expected_pixel(frame: &Value, x: f64, y: f64) -> (f64, f64) {
    let plot = &frame["plot"];
    let n = |v: &Value| v.as_f64().expect("a number");
    let (left, top) = (n(&plot["left"]), n(&plot["top"]));
    let (width, height) = (n(&plot["width"]), n(&plot["height"]));
    (
        left + (x - FRAME_X[0]) / (FRAME_X[1] - FRAME_X[0]) * width,
        top + (FRAME_Y[1] - y) / (FRAME_Y[1] - FRAME_Y[0]) * height,
    )
}

/// The page position of the scene canvas' top left corner, CSS px.
async fn canvas_origin(b: &Client) -> (f64, f64) {
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
async fn aircraft_pixels_at(b: &Client, (x, y): (f64, f64), name: &str) -> usize {
    let png = b.screenshot().await.expect("screenshot");
    let dir = target_dir().join("live-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.png")), &png).unwrap();
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut data = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut data).expect("PNG data");
    let channels = info.color_type.samples();
    let (width, height) = (info.width as i64, info.height as i64);
    let (cx, cy) = (x.round() as i64, y.round() as i64);
    let mut found = 0;
    for py in (cy - 6).max(0)..=(cy + 6).min(height - 1) {
        for px in (cx - 6).max(0)..=(cx + 6).min(width - 1) {
            let at = ((py * width + px) as usize) * channels;
            let near = data[at..at + 3]
                .iter()
                .zip(AIRCRAFT)
                .all(|(a, b)| a.abs_diff(b) <= 24);
            found += usize::from(near);
        }
    }
    found
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
    // The tree group of the contract with the tree: every object, labelled.
    let group = b
        .execute(
            "const g = (window.msimTreeGroups || []).find((g) => g.id === 'scene'); \
             return g ? g.items : null;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(group.as_array().map(Vec::len), Some(7), "{group}");
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
    // Hidden from the tree, the aircraft is not drawn; shown again, it is.
    let set_visible = "const g = window.msimTreeGroups.find((g) => g.id === 'scene'); \
                       g.setVisible('aircraft', arguments[0]);";
    b.execute(set_visible, vec![json!(false)]).await.unwrap();
    wait_page(&b, Duration::from_secs(5), "the aircraft hidden", |s| {
        s["view"]["scene"]["objects"]["aircraft"]["drawn"] == false
    })
    .await;
    let scene = view(&b).await["scene"].clone();
    let aircraft = &scene["objects"]["aircraft"];
    let (x, y) = (
        aircraft["world"]["x"].as_f64().unwrap(),
        aircraft["world"]["y"].as_f64().unwrap(),
    );
    let (px, py) = expected_pixel(&scene["frame"], x, y);
    let at = (origin.0 + px, origin.1 + py);
    assert_eq!(
        aircraft_pixels_at(&b, at, "scene-flight-hidden").await,
        0,
        "hidden aircraft drawn"
    );
    b.execute(set_visible, vec![json!(true)]).await.unwrap();
    b.close().await.unwrap();
    let (status, _) = run.finish();
    assert!(status.success(), "{status}");
}
