//! The live view in headless Chromium, driven through ChromeDriver (WebDriver): the page
//! updates while the run goes on, pause holds the time, one step advances one communication
//! step, scrubbing back shows the recorded values exactly, reaching the right edge resumes the
//! run to its end, and the result files equal those of a plain run. The live view of a resumed
//! run (`--resume --live`) shows the whole run, its first row first. `mastersim view` replays a
//! finished run's MAT and CSV files. Screenshots go to `target/live-screenshots/` and are
//! checked for content: not blank, and lines drawn in the plot colours.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use mastersim_tests::live_run::{LiveRun, lotka_volterra};
use mastersim_tests::{example_workspace, run_mastersim, target_dir};
use serde_json::{Value, json};

pub(crate) const CHROMIUM: &str = "/usr/bin/chromium";
pub(crate) const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// The first two colours of the page's palette (Tableau 10): Prey.x and Predator.y.
const LINE_COLOURS: [[u8; 3]; 2] = [[0x4e, 0x79, 0xa7], [0xf2, 0x8e, 0x2b]];

/// A ChromeDriver process on a free port, ended on drop.
pub(crate) struct Driver {
    process: Child,
    port: u16,
}

impl Driver {
    pub(crate) fn start() -> Driver {
        for file in [CHROMIUM, CHROMEDRIVER] {
            assert!(
                Path::new(file).is_file(),
                "{file} is missing: install Debian's chromium and chromium-driver packages \
                 (.ci/run does: apt-get install chromium chromium-driver)"
            );
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let process = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver can be started");
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "chromedriver did not listen on {port}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Driver { process, port }
    }

    /// A new headless Chromium session.
    pub(crate) async fn browser(&self) -> Client {
        let profile = tempfile::tempdir().expect("profile dir").keep();
        let capabilities = json!({
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-quic", "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--window-size=1280,1300",
                    "--force-device-scale-factor=1",
                    format!("--user-data-dir={}", profile.display()),
                ]
            }
        });
        let serde_json::Value::Object(capabilities) = capabilities else {
            unreachable!()
        };
        ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(capabilities)
            .connect(&format!("http://127.0.0.1:{}", self.port))
            .await
            .expect("a Chromium session")
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// The text of the element `css`.
pub(crate) async fn text(b: &Client, css: &str) -> String {
    b.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .text()
        .await
        .expect("text")
}

/// Clicks the element `css`, as a user does.
pub(crate) async fn click(b: &Client, css: &str) {
    b.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("click {css}: {e}"));
}

/// `window.mastersimView` (rows received, cursor row, following).
pub(crate) async fn view(b: &Client) -> Value {
    b.execute("return window.mastersimView;", vec![])
        .await
        .expect("mastersimView")
}

/// Opens the page of a live run that has not been started and waits (up to 10 s) until it
/// shows the initial row and the `waiting` state.
pub(crate) async fn open_waiting_run(b: &Client, url: &str) {
    b.goto(url).await.expect("the page loads");
    wait_page(b, Duration::from_secs(10), "first row", |s| {
        s["view"]["rows"] == 1 && s["state"] == "waiting"
    })
    .await;
}

/// Waits up to `timeout` for `done` on the page's state.
pub(crate) async fn wait_page(
    b: &Client,
    timeout: Duration,
    what: &str,
    done: impl Fn(&Value) -> bool,
) {
    let deadline = Instant::now() + timeout;
    loop {
        let v = view(b).await;
        let state = text(b, "#state").await;
        if done(&json!({"view": v, "state": state})) {
            return;
        }
        assert!(Instant::now() < deadline, "{what}: page state {v} {state}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Moves the time bar to row `index` as a user's drag does (the `input` event).
pub(crate) async fn scrub(b: &Client, index: u64) {
    b.execute(
        "const bar = document.getElementById('timebar'); bar.value = String(arguments[0]); \
         bar.dispatchEvent(new Event('input', {bubbles: true})); \
         bar.dispatchEvent(new Event('change', {bubbles: true}));",
        vec![json!(index)],
    )
    .await
    .expect("scrub");
}

/// A time as the page shows it, parsed; the page prints times to the precision of the run's
/// time grid (issue 28), here steps of 0.01 s: at most two decimals.
fn grid_time(text: &str) -> f64 {
    let decimals = text.split_once('.').map_or(0, |(_, d)| d.len());
    assert!(decimals <= 2, "time '{text}' beyond the grid's precision");
    text.parse().unwrap_or_else(|_| panic!("time '{text}'"))
}

/// Whether the time `shown` on the page is the recorded time `t` to the grid's precision.
fn same_time(shown: f64, t: f64) -> bool {
    (shown - t).abs() <= 1e-9 * t.abs().max(1.0)
}

/// The cursor row as the page shows it: its time and the value cells, parsed.
async fn shown_row(b: &Client) -> (f64, Vec<f64>) {
    let t = grid_time(&text(b, "#cursor-time").await);
    let mut values = Vec::new();
    for name in ["Prey.x", "Predator.y"] {
        let v = text(b, &format!("#values tr[data-name='{name}'] td.value")).await;
        values.push(v.parse().unwrap_or_else(|_| panic!("{name} shows '{v}'")));
    }
    (t, values)
}

/// Saves a screenshot of the page as `target/live-screenshots/<name>.png` and checks it: not
/// blank, and each chart line colour drawn on at least `min_line_pixels` pixels.
async fn screenshot(b: &Client, name: &str, min_line_pixels: usize) -> PathBuf {
    let png = b.screenshot().await.expect("screenshot");
    let dir = target_dir().join("live-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.png"));
    std::fs::write(&path, &png).unwrap();
    let rgb = pixels(&png);
    let background = rgb[0];
    let different = rgb.iter().filter(|p| **p != background).count();
    assert!(
        different * 20 > rgb.len(),
        "{}: blank ({different} of {} pixels differ from the background)",
        path.display(),
        rgb.len()
    );
    for colour in LINE_COLOURS {
        let near = colour_pixels(&png, colour);
        assert!(
            near >= min_line_pixels,
            "{}: only {near} pixels of line colour {colour:?}",
            path.display()
        );
    }
    println!("screenshot {} checked", path.display());
    path
}

/// The pixels of a PNG image, as RGB.
pub(crate) fn pixels(png: &[u8]) -> Vec<[u8; 3]> {
    image(png).pixels
}

/// A decoded RGB image: its width and its pixels, row by row.
pub(crate) struct Image {
    pub(crate) width: usize,
    pub(crate) pixels: Vec<[u8; 3]>,
}

impl Image {
    /// The image's height in pixels.
    pub(crate) fn height(&self) -> usize {
        self.pixels.len() / self.width
    }

    /// The pixels of the rectangle of columns `x0..=x1` and rows `y0..=y1` (clipped to the
    /// image) for which `test(r, g, b)` holds.
    pub(crate) fn count_in(
        &self,
        (x0, y0): (i64, i64),
        (x1, y1): (i64, i64),
        test: impl Fn(i32, i32, i32) -> bool,
    ) -> usize {
        let (w, h) = (self.width as i64, self.height() as i64);
        let mut found = 0;
        for y in y0.max(0)..=y1.min(h - 1) {
            for x in x0.max(0)..=x1.min(w - 1) {
                let [r, g, b] = self.pixels[(y * w + x) as usize].map(i32::from);
                found += usize::from(test(r, g, b));
            }
        }
        found
    }
}

/// A PNG image decoded to RGB.
pub(crate) fn image(png: &[u8]) -> Image {
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut data = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut data).expect("PNG data");
    let channels = info.color_type.samples();
    let pixels = data[..info.buffer_size()]
        .chunks_exact(channels)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    Image {
        width: info.width as usize,
        pixels,
    }
}

/// The number of pixels of a PNG image within 24 per channel of `colour`.
pub(crate) fn colour_pixels(png: &[u8], colour: [u8; 3]) -> usize {
    pixels(png)
        .iter()
        .filter(|p| p.iter().zip(colour).all(|(a, b)| a.abs_diff(b) <= 24))
        .count()
}

/// The rows of the MAT file: time and the two columns, as recorded.
fn recorded(mat: &Path) -> (Vec<f64>, Vec<Vec<f64>>) {
    let file = output::mat::read(mat).expect("the MAT file");
    let column = |name: &str| {
        file.signals
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("{name} in {}", mat.display()))
    };
    let prey = column("Prey.x");
    let predator = column("Predator.y");
    (
        prey.time.to_vec(),
        vec![prey.values.clone(), predator.values.clone()],
    )
}

#[tokio::test(flavor = "current_thread")]
async fn the_live_view_steers_and_scrubs_a_run() {
    let tmp = tempfile::tempdir().unwrap();
    let project = lotka_volterra(tmp.path(), 6.0);
    let plain = tmp.path().join("plain");
    run_mastersim(&project, &plain, &[]).assert_success();
    let wd = tmp.path().join("live");
    let live = LiveRun::start(&project, &wd, &["--real-time", "1"]);
    let driver = Driver::start();
    let b = driver.browser().await;
    open_waiting_run(&b, &live.url).await;

    // Start; for 2.5 s, the page never lags the server by more than 1 s.
    click(&b, "#start").await;
    let mut server: Vec<(Instant, u64)> = Vec::new();
    let mut worst = Duration::ZERO;
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(2500) {
        server.push((Instant::now(), live.status()["rows"].as_u64().unwrap()));
        let shown = view(&b).await["rows"].as_u64().unwrap();
        let now = Instant::now();
        // The oldest server count the page has not reached yet tells the lag.
        if let Some((at, _)) = server.iter().find(|(_, rows)| *rows > shown) {
            worst = worst.max(now - *at);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    println!("page lag behind the server: at most {worst:?}");
    assert!(worst < Duration::from_secs(1), "the page lagged {worst:?}");
    assert_eq!(text(&b, "#state").await, "running");
    screenshot(&b, "live-running", 100).await;

    // Pause: the simulated time stays fixed for 2 s, on the server and in the page.
    click(&b, "#pause").await;
    wait_page(&b, Duration::from_secs(5), "paused", |s| {
        s["state"] == "paused"
    })
    .await;
    let held = live.status()["t"].as_f64().unwrap();
    let held_text = text(&b, "#sim-time").await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(live.status()["t"].as_f64().unwrap(), held);
    assert_eq!(text(&b, "#sim-time").await, held_text);
    let shown_held = grid_time(&held_text);
    assert!(same_time(shown_held, held), "{shown_held} vs {held}");

    // One step: exactly one communication step (0.01 s) and one row.
    let rows_before = live.status()["rows"].as_u64().unwrap();
    click(&b, "#step").await;
    let stepped = live.wait_for(Duration::from_secs(5), |s| {
        s["rows"].as_u64() == Some(rows_before + 1)
    });
    let t_step = stepped["t"].as_f64().unwrap();
    assert!((t_step - held - 0.01).abs() < 1e-12, "{held} → {t_step}");
    wait_page(&b, Duration::from_secs(2), "the stepped row", |s| {
        s["view"]["rows"].as_u64() == Some(rows_before + 1)
    })
    .await;
    let shown = grid_time(&text(&b, "#sim-time").await);
    assert!(same_time(shown, t_step), "{shown} vs {t_step}");

    // Scrub back and forth: each position shows its recorded row; the run stays paused.
    let last = rows_before; // index of the newest row
    let mut seen = Vec::new();
    for index in [last / 2, 3, last - 10, 0, last / 3] {
        scrub(&b, index).await;
        wait_page(&b, Duration::from_secs(2), "scrub", |s| {
            s["view"]["cursor"].as_u64() == Some(index) && s["view"]["follow"] == false
        })
        .await;
        seen.push((index, shown_row(&b).await));
    }
    assert_eq!(live.status()["state"], "replay");
    assert_eq!(live.status()["t"].as_f64().unwrap(), t_step);
    screenshot(&b, "live-scrubbed", 100).await;

    // Faster for the rest: the factor field, with real time on (the checkbox reflects it).
    let factor = b.find(Locator::Css("#factor")).await.unwrap();
    factor.clear().await.unwrap();
    factor.send_keys("4\n").await.unwrap();
    live.wait_for(Duration::from_secs(5), |s| s["real_time"] == 4.0);

    // The right edge resumes; the run completes.
    scrub(&b, last).await;
    live.wait_for(Duration::from_secs(5), |s| s["state"] == "running");
    wait_page(&b, Duration::from_secs(30), "the end", |s| {
        s["state"] == "finished" && s["view"]["follow"] == true
    })
    .await;
    let rows = live.status()["rows"].as_u64().unwrap();
    wait_page(&b, Duration::from_secs(5), "all rows", |s| {
        s["view"]["rows"].as_u64() == Some(rows)
    })
    .await;
    screenshot(&b, "live-finished", 300).await;

    // Hiding a signal takes its line out of the chart.
    let orange = |png: &[u8]| colour_pixels(png, LINE_COLOURS[1]);
    let shown = orange(&b.screenshot().await.unwrap());
    click(&b, ".signal-toggle[data-name='Predator.y']").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let hidden = orange(&b.screenshot().await.unwrap());
    println!("Predator.y pixels: {shown} shown, {hidden} hidden");
    assert!(hidden * 4 < shown, "{shown} → {hidden}");

    // What the page showed while scrubbing is what the MAT file recorded: the values bit for
    // bit, the time to the grid's precision.
    let stem = project.file_stem().unwrap().to_string_lossy().into_owned();
    let (time, columns) = recorded(&wd.join(format!("results/{stem}.mat")));
    for (index, (t, values)) in &seen {
        let i = *index as usize;
        assert!(same_time(*t, time[i]), "row {i} time: {t} vs {}", time[i]);
        for (c, v) in values.iter().enumerate() {
            assert_eq!(v.to_bits(), columns[c][i].to_bits(), "row {i} column {c}");
        }
    }
    b.close().await.unwrap();
    let (exit, _) = live.finish();
    assert!(exit.success(), "{exit:?}");
    for file in [
        "results/values.csv".to_string(),
        format!("results/{stem}.mat"),
    ] {
        let a = std::fs::read(wd.join(&file)).unwrap();
        let b = std::fs::read(plain.join(&file)).unwrap();
        assert!(a == b, "{file} differs from the plain run's");
    }
    println!("result files byte-identical to the plain run");
    std::fs::remove_file(project).unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn view_replays_stored_results() {
    let tmp = tempfile::tempdir().unwrap();
    // The bundled project as it is, with MAT results besides the CSV.
    let project = example_workspace().join("projects/lotka_volterra.msim");
    let wd = tmp.path().join("wd");
    run_mastersim(&project, &wd, &["--result-format", "csv,mat"]).assert_success();
    let mat = wd.join("results/lotka_volterra.mat");
    let (time, columns) = recorded(&mat);
    let driver = Driver::start();
    for file in [mat.clone(), wd.join("results/values.csv")] {
        let kind = file.extension().unwrap().to_string_lossy().into_owned();
        let server = LiveRun::spawn(&["view".as_ref(), file.as_os_str()], &wd);
        let b = driver.browser().await;
        b.goto(&server.url).await.expect("the page loads");
        wait_page(&b, Duration::from_secs(10), "all rows", |s| {
            s["view"]["rows"].as_u64() == Some(time.len() as u64)
        })
        .await;
        assert_eq!(text(&b, "#state").await, "replay");
        let controls = b.find(Locator::Css("#controls")).await.unwrap();
        assert!(
            !controls.is_displayed().await.unwrap(),
            "no run controls in a replay"
        );
        for index in [time.len() as u64 / 2, 7, 0, time.len() as u64 - 1] {
            scrub(&b, index).await;
            wait_page(&b, Duration::from_secs(2), "scrub", |s| {
                s["view"]["cursor"].as_u64() == Some(index)
            })
            .await;
            let (t, values) = shown_row(&b).await;
            let i = index as usize;
            let exact = |a: f64, b: f64| {
                if kind == "mat" {
                    a.to_bits() == b.to_bits()
                } else {
                    // values.csv holds 14 significant digits.
                    (a - b).abs() <= 1e-12 * b.abs().max(1e-300)
                }
            };
            assert!(
                same_time(t, time[i]),
                "{kind} row {i}: t {t} vs {}",
                time[i]
            );
            for (c, v) in values.iter().enumerate() {
                assert!(exact(*v, columns[c][i]), "{kind} row {i} column {c}: {v}");
            }
        }
        scrub(&b, time.len() as u64 / 3).await;
        screenshot(&b, &format!("view-{kind}"), 300).await;
        b.close().await.unwrap();
    }
}

/// `--resume --live`: the page holds the rows the interrupted run wrote before the resumed
/// run steps, so its first row is the run's first row; scrubbed rows before and after the
/// checkpoint are those of a plain run, bit for bit, and the resumed run's files equal the
/// plain run's.
#[tokio::test(flavor = "current_thread")]
async fn the_live_view_of_a_resumed_run_shows_the_whole_run() {
    let tmp = tempfile::tempdir().unwrap();
    let project = lotka_volterra(tmp.path(), 6.0);
    let plain = tmp.path().join("plain");
    run_mastersim(&project, &plain, &[]).assert_success();
    let stem = project.file_stem().unwrap().to_string_lossy().into_owned();
    let (time, columns) = recorded(&plain.join(format!("results/{stem}.mat")));

    // Interrupted by SIGTERM about a second into a run at twice real time: a checkpoint at the
    // stop.
    let wd = tmp.path().join("resumed");
    let mut child = Command::new(mastersim_tests::mastersim_bin())
        .arg(&project)
        .args([
            "--real-time",
            "2",
            "--checkpoint-interval",
            "0.05",
            "--working-dir",
        ])
        .arg(&wd)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("mastersim starts");
    std::thread::sleep(Duration::from_millis(1000));
    mastersim_tests::stop_with_sigterm(&mut child);

    let live = LiveRun::start(&project, &wd, &["--resume"]);
    let before = live.status()["rows"].as_u64().unwrap();
    assert!(
        before > 10 && (before as usize) < time.len() - 10,
        "{before} rows before the resumed run steps, of {}",
        time.len()
    );
    let driver = Driver::start();
    let b = driver.browser().await;
    b.goto(&live.url).await.expect("the page loads");
    wait_page(
        &b,
        Duration::from_secs(10),
        "the rows of the interrupted run",
        |s| s["view"]["rows"].as_u64() == Some(before) && s["state"] == "waiting",
    )
    .await;
    let last = before - 1;
    let mut seen = Vec::new();
    for index in [0, last / 2, last] {
        scrub(&b, index).await;
        wait_page(&b, Duration::from_secs(2), "scrub", |s| {
            s["view"]["cursor"].as_u64() == Some(index)
        })
        .await;
        seen.push((index, shown_row(&b).await));
    }
    screenshot(&b, "live-resumed-waiting", 100).await;

    // Start: the resumed run completes; the page ends with every row of the plain run.
    click(&b, "#start").await;
    wait_page(&b, Duration::from_secs(30), "the end", |s| {
        s["state"] == "finished"
    })
    .await;
    wait_page(&b, Duration::from_secs(5), "all rows", |s| {
        s["view"]["rows"].as_u64() == Some(time.len() as u64)
    })
    .await;
    for index in [last + 1, time.len() as u64 - 1] {
        scrub(&b, index).await;
        wait_page(&b, Duration::from_secs(2), "scrub", |s| {
            s["view"]["cursor"].as_u64() == Some(index)
        })
        .await;
        seen.push((index, shown_row(&b).await));
    }
    for (index, (t, values)) in &seen {
        let i = *index as usize;
        assert!(
            same_time(*t, time[i]),
            "row {i} time: shown {t}, recorded {}",
            time[i]
        );
        for (c, v) in values.iter().enumerate() {
            assert_eq!(v.to_bits(), columns[c][i].to_bits(), "row {i} column {c}");
        }
    }
    println!(
        "resumed at row {before} of {}: the page's first row is t = {} (the run's first), \
         rows {:?} equal the plain run's bit for bit",
        time.len(),
        seen[0].1.0,
        seen.iter().map(|(i, _)| *i).collect::<Vec<_>>()
    );
    b.close().await.unwrap();
    let (exit, _) = live.finish();
    assert!(exit.success(), "{exit:?}");
    for file in [
        "results/values.csv".to_string(),
        format!("results/{stem}.mat"),
    ] {
        let a = std::fs::read(wd.join(&file)).unwrap();
        let b = std::fs::read(plain.join(&file)).unwrap();
        assert!(a == b, "{file} differs from the plain run's");
    }
    std::fs::remove_file(project).unwrap();
}
