//! Video recordings of the view (issue 32): the Record button records a running view for 3 s
//! into a WebM file that `ffprobe` reads with at least 30 frames, whose frames show the charts'
//! lines; `mastersim view <MAT>
//! --record out.webm --fps 30 --duration 2` writes a video of exactly the 60 frames it states,
//! whose frames show the charts' lines, and refuses to replace it without `--force`. The
//! scene is recorded too: a recording of the flight example's view has the aircraft's hue where
//! the page drew the aircraft, and none in the scene once the tree hides the aircraft. The
//! videos are kept as `target/live-screenshots/*.webm`, with PNGs of two frames.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use mastersim_tests::live_run::{LiveRun, lotka_volterra};
use mastersim_tests::{example_workspace, run_mastersim, target_dir};
use serde_json::Value;

use crate::browser::{
    CHROMIUM, Driver, Image, click, image, open_waiting_run, pixels, scrub, text, view, wait_page,
};
use crate::scene::{canvas_origin, click_scene_checkbox};

/// Pixels of a video frame (PNG) in the hues of the page's first two line colours, Prey.x
/// (#4e79a7, blue) and Predator.y (#f28e2b, orange); VP8 keeps colour at half resolution, so
/// thin lines keep their hue better than their exact colour.
fn line_pixels(png: &[u8]) -> [usize; 2] {
    let rgb = pixels(png);
    let hue = |test: fn(i32, i32, i32) -> bool| {
        rgb.iter()
            .filter(|p| test(i32::from(p[0]), i32::from(p[1]), i32::from(p[2])))
            .count()
    };
    [
        hue(|r, g, b| b - r > 40 && b - g > 15),
        hue(|r, g, b| r - b > 80 && r - g > 30),
    ]
}

/// Runs `program` (ffprobe or ffmpeg) with `args`; fails naming Debian's package when it is
/// missing, and with its messages when it fails.
fn ffmpeg_tool(program: &str, args: &[&str]) -> String {
    let output = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run {program} ({e}): install Debian's ffmpeg package (apt-get install ffmpeg)")
        });
    assert!(
        output.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// The frames of the first video stream of `video`, counted by decoding them (the command
/// docs/live.md gives).
fn ffprobe_frames(video: &Path) -> u64 {
    let path = video.to_string_lossy();
    let count = ffmpeg_tool(
        "ffprobe",
        &[
            "-v",
            "error",
            "-count_frames",
            "-select_streams",
            "v:0",
            "-show_entries",
            "stream=nb_read_frames",
            "-of",
            "csv=p=0",
            &path,
        ],
    );
    count
        .parse()
        .unwrap_or_else(|_| panic!("ffprobe counted '{count}' frames in {path}"))
}

/// Frame `index` (from 0) of `video` as a PNG, saved as `target/live-screenshots/<name>.png`.
fn frame_png(video: &Path, index: u64, name: &str) -> Vec<u8> {
    let dir = target_dir().join("live-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join(format!("{name}.png"));
    let select = format!("select=eq(n\\,{index})");
    ffmpeg_tool(
        "ffmpeg",
        &[
            "-v",
            "error",
            "-y",
            "-i",
            &video.to_string_lossy(),
            "-vf",
            &select,
            "-frames:v",
            "1",
            &png.to_string_lossy(),
        ],
    );
    std::fs::read(&png).unwrap_or_else(|e| panic!("{}: {e}", png.display()))
}

/// Keeps `video` as `target/live-screenshots/<name>.webm`.
fn keep(video: &Path, name: &str) -> PathBuf {
    let dir = target_dir().join("live-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    let kept = dir.join(format!("{name}.webm"));
    std::fs::copy(video, &kept).unwrap_or_else(|e| panic!("{}: {e}", video.display()));
    kept
}

/// `window.mastersimView.recording`.
async fn recording(b: &fantoccini::Client) -> Value {
    view(b).await["recording"].clone()
}

/// The bytes of the page's last recording (the blob at `mastersimView.recording.url`).
async fn recorded_bytes(b: &fantoccini::Client) -> Vec<u8> {
    let encoded = b
        .execute_async(
            "const done = arguments[arguments.length - 1]; \
             fetch(window.mastersimView.recording.url).then((r) => r.blob()).then((blob) => { \
               const reader = new FileReader(); \
               reader.onload = () => done(reader.result.split(',')[1]); \
               reader.readAsDataURL(blob); \
             }).catch((e) => done('failed: ' + e));",
            vec![],
        )
        .await
        .expect("the recording's bytes");
    let encoded = encoded.as_str().expect("base64 text");
    base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .unwrap_or_else(|e| panic!("not base64 ({e}): {}", &encoded[..encoded.len().min(200)]))
}

#[tokio::test(flavor = "current_thread")]
async fn the_record_button_records_three_seconds_of_a_run() {
    ffmpeg_tool("ffprobe", &["-version"]);
    let tmp = tempfile::tempdir().unwrap();
    let project = lotka_volterra(tmp.path(), 8.0);
    let live = LiveRun::start(&project, &tmp.path().join("live"), &["--real-time", "2"]);
    let driver = Driver::start();
    let b = driver.browser().await;
    open_waiting_run(&b, &live.url).await;
    click(&b, "#start").await;
    click(&b, "#record").await;
    let began = Instant::now();
    assert_eq!(recording(&b).await["state"], "recording");
    tokio::time::sleep(Duration::from_millis(3000)).await;
    // The button says it records, with a running clock.
    let label = text(&b, "#record").await;
    assert!(
        label.starts_with("■ Stop 0:02") || label.starts_with("■ Stop 0:03"),
        "the button reads '{label}' after 3 s of recording"
    );
    click(&b, "#record").await;
    let recorded = began.elapsed();
    wait_page(&b, Duration::from_secs(10), "the recording", |s| {
        s["view"]["recording"]["state"] == "done"
    })
    .await;
    assert_eq!(text(&b, "#record").await, "● Record");
    let bytes = recorded_bytes(&b).await;
    let video = tmp.path().join("button.webm");
    std::fs::write(&video, &bytes).unwrap();
    let frames = ffprobe_frames(&video);
    let kept = keep(&video, "record-button");
    println!(
        "Record for {recorded:?}: {} bytes, {frames} frames (ffprobe), {}",
        bytes.len(),
        kept.display()
    );
    assert!(frames >= 30, "{frames} frames in {}", kept.display());
    let [blue, orange] = line_pixels(&frame_png(&video, frames - 1, "record-button-last"));
    println!("its last frame: {blue} blue, {orange} orange line pixels");
    assert!(
        blue > 300 && orange > 300,
        "{blue} blue and {orange} orange line pixels"
    );
    assert!(bytes.len() > 20_000, "{} bytes", bytes.len());
    assert_eq!(
        recording(&b).await["size"].as_u64(),
        Some(bytes.len() as u64)
    );
    b.close().await.unwrap();
    let (exit, _) = live.finish();
    assert!(exit.success(), "{exit:?}");
}

/// The bundled Lotka-Volterra project run as it is, with its MAT file; returns the file.
fn bundled_mat(dir: &Path) -> PathBuf {
    let project = example_workspace().join("projects/lotka_volterra.msim");
    let wd = dir.join("wd");
    run_mastersim(&project, &wd, &["--result-format", "csv,mat"]).assert_success();
    wd.join("results/lotka_volterra.mat")
}

#[test]
fn view_record_writes_the_frames_it_states() {
    ffmpeg_tool("ffprobe", &["-version"]);
    assert!(
        Path::new(CHROMIUM).is_file(),
        "{CHROMIUM} is missing: install Debian's chromium package"
    );
    let tmp = tempfile::tempdir().unwrap();
    let mat = bundled_mat(tmp.path());
    let video = tmp.path().join("out.webm");
    let record = || {
        let began = Instant::now();
        let output = Command::new(mastersim_tests::mastersim_bin())
            .arg("view")
            .arg(&mat)
            .arg("--record")
            .arg(&video)
            .args(["--fps", "30", "--duration", "2"])
            .stdin(Stdio::null())
            .output()
            .expect("mastersim runs");
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        (output.status, said, began.elapsed())
    };
    let (status, said, took) = record();
    assert!(status.success(), "{status:?}: {said}");
    assert!(said.contains(": 60 frames (30 fps, 2 s)"), "{said}");
    let frames = ffprobe_frames(&video);
    let kept = keep(&video, "view-record");
    println!(
        "view --record took {took:?}; ffprobe counts {frames} frames: {}",
        kept.display()
    );
    assert_eq!(frames, 60, "{}", kept.display());
    let size = ffmpeg_tool(
        "ffprobe",
        &[
            "-v",
            "error",
            "-select_streams",
            "v:0",
            "-show_entries",
            "stream=width,height",
            "-of",
            "csv=p=0",
            &video.to_string_lossy(),
        ],
    );
    println!("{size} pixels");

    // The frames show both chart lines, and the cursor moves: the first and last differ.
    let first = frame_png(&video, 0, "view-record-first");
    let last = frame_png(&video, 59, "view-record-last");
    let [blue, orange] = line_pixels(&last);
    println!("the last frame: {blue} blue, {orange} orange line pixels");
    assert!(
        blue > 800 && orange > 800,
        "the last frame has {blue} blue and {orange} orange line pixels"
    );
    assert_ne!(
        first, last,
        "the first and last frames are the same picture"
    );

    // The video is not replaced without --force (refused before Chromium starts).
    let before = std::fs::read(&video).unwrap();
    let (status, said, _) = record();
    assert!(
        !status.success() && said.contains("--force"),
        "{status:?}: {said}"
    );
    assert_eq!(
        std::fs::read(&video).unwrap(),
        before,
        "the video was changed"
    );
}

/// Whether a video pixel has the aircraft's hue (#447cb4): blue well above red and green, and
/// green darker than in the sky-blue flight path (#87ceeb), whose thin line VP8 lightens.
fn aircraft_hue(r: i32, g: i32, b: i32) -> bool {
    b - r > 60 && b - g > 30 && g < 170
}

/// A page point (x, y), CSS px, as the video pixel it was recorded at (`recording.box`).
fn video_pixel(frame_box: &Value, (x, y): (f64, f64)) -> (i64, i64) {
    let n = |k: &str| {
        frame_box[k]
            .as_f64()
            .unwrap_or_else(|| panic!("box.{k}: {frame_box}"))
    };
    (
        ((x - n("x0")) * n("scale")).round() as i64,
        ((n("strip") + y - n("y0")) * n("scale")).round() as i64,
    )
}

/// Records the view with the Record button: at least 10 frames as it is, then the aircraft's
/// checkbox in the tree is unchecked and at least 10 more frames follow. Returns the video
/// (`scene.webm` in `dir`, kept as `target/live-screenshots/record-scene.webm`) and the
/// recording's status, whose frame count ffprobe confirms.
async fn record_hiding_the_aircraft(b: &fantoccini::Client, dir: &Path) -> (PathBuf, Value) {
    let frames_after =
        |n: u64| move |s: &Value| s["view"]["recording"]["frames"].as_u64() >= Some(n);
    click(b, "#record").await;
    wait_page(b, Duration::from_secs(20), "10 frames", frames_after(10)).await;
    click_scene_checkbox(b, Some("aircraft"), false).await;
    let at_hide = recording(b).await["frames"].as_u64().unwrap();
    wait_page(
        b,
        Duration::from_secs(20),
        "10 more frames",
        frames_after(at_hide + 10),
    )
    .await;
    click(b, "#record").await;
    wait_page(b, Duration::from_secs(20), "the recording", |s| {
        s["view"]["recording"]["state"] == "done"
    })
    .await;
    let status = recording(b).await;
    let video = dir.join("scene.webm");
    std::fs::write(&video, recorded_bytes(b).await).unwrap();
    let kept = keep(&video, "record-scene");
    let frames = ffprobe_frames(&video);
    println!(
        "{frames} frames (ffprobe), the aircraft hidden after {at_hide}: {}",
        kept.display()
    );
    assert_eq!(frames, status["frames"].as_u64().unwrap(), "{status}");
    (video, status)
}

/// The scene is part of the recording: the Record button records the flight example's view
/// (`mastersim view <MAT> --scene <scene file>`, the cursor at row 150); the video's first
/// frame has the aircraft's hue at the place the page drew the aircraft, mapped through the
/// recording's frame box; then the aircraft's checkbox in the tree is unchecked while the
/// recording goes on, and the last frame has no pixel of that hue in the scene's area.
#[tokio::test(flavor = "current_thread")]
async fn the_recording_holds_the_scene() {
    ffmpeg_tool("ffprobe", &["-version"]);
    let tmp = tempfile::tempdir().unwrap();
    let projects = example_workspace().join("projects");
    let wd = tmp.path().join("wd");
    let project = projects.join("flight_navigation_multirate.msim");
    run_mastersim(&project, &wd, &["--result-format", "csv,mat"]).assert_success();
    let mat = wd.join("results/flight_navigation_multirate.mat");
    let scene = projects.join("flight_navigation_multirate.scene.toml");
    let rows = output::mat::read(&mat).expect("the MAT file").signals[0]
        .time
        .len() as u64;
    let args = [
        "view".as_ref(),
        mat.as_os_str(),
        "--scene".as_ref(),
        scene.as_os_str(),
    ];
    let server = LiveRun::spawn(&args, &wd);
    let driver = Driver::start();
    let b = driver.browser().await;
    b.goto(&server.url).await.expect("the page loads");
    wait_page(&b, Duration::from_secs(10), "all rows and the scene", |s| {
        s["view"]["rows"].as_u64() == Some(rows) && s["view"]["scene"]["frame"].is_object()
    })
    .await;
    scrub(&b, 150).await;
    wait_page(&b, Duration::from_secs(5), "the scene at row 150", |s| {
        s["view"]["scene"]["row"] == 150
            && s["view"]["scene"]["objects"]["aircraft"]["drawn"] == true
    })
    .await;
    let shown = view(&b).await["scene"].clone();
    let origin = canvas_origin(&b).await;

    let (video, status) = record_hiding_the_aircraft(&b, tmp.path()).await;
    let frames = status["frames"].as_u64().unwrap();
    // Where the page drew the aircraft and the scene canvas, in video pixels.
    let frame_box = &status["box"];
    let aircraft = &shown["objects"]["aircraft"]["px"];
    let centre = (
        origin.0 + aircraft["x"].as_f64().unwrap(),
        origin.1 + aircraft["y"].as_f64().unwrap(),
    );
    let (cx, cy) = video_pixel(frame_box, centre);
    let size = |k: &str| shown["frame"][k].as_f64().unwrap();
    let top_left = video_pixel(frame_box, origin);
    let bottom_right = video_pixel(
        frame_box,
        (origin.0 + size("width"), origin.1 + size("height")),
    );
    let first = image(&frame_png(&video, 0, "record-scene-first"));
    let last = image(&frame_png(&video, frames - 1, "record-scene-last"));
    assert_eq!(
        (first.width as u64, first.height() as u64),
        (
            frame_box["width"].as_u64().unwrap(),
            frame_box["height"].as_u64().unwrap()
        ),
        "the frame's size is the recording's box: {frame_box}"
    );
    let near = |img: &Image| img.count_in((cx - 3, cy - 3), (cx + 3, cy + 3), aircraft_hue);
    let in_scene = |img: &Image| img.count_in(top_left, bottom_right, aircraft_hue);
    let (shown_near, shown_scene) = (near(&first), in_scene(&first));
    let (hidden_near, hidden_scene) = (near(&last), in_scene(&last));
    println!(
        "the scene at video pixels {top_left:?}–{bottom_right:?}, the aircraft at ({cx}, {cy}); \
         aircraft-hue pixels: first frame {shown_near} of 49 near it, {shown_scene} in the scene; \
         last frame (hidden) {hidden_near} near it, {hidden_scene} in the scene"
    );
    assert!(
        shown_near >= 30,
        "{shown_near} aircraft pixels near ({cx}, {cy}) in the first frame"
    );
    assert!(shown_scene >= shown_near, "{shown_scene} in the scene");
    assert_eq!(
        hidden_scene, 0,
        "the hidden aircraft's hue in the last frame's scene"
    );
    b.close().await.unwrap();
}
