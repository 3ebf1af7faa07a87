//! The view as the `mastersim` binary starts it: for a running session (`--live`), waiting
//! for Start and kept open after the run until Ctrl-C, and for a stored result file
//! (`mastersim view`), served until Ctrl-C or, with `--record`, rendered to a video by
//! headless Chromium. Each prints its URL on stdout.
//!
//! Spec: `docs/live.md`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use master::OutputLayout;
use mastersim::{Session, Steering};

use crate::chromium::{Browser, find};
use crate::record::Recording;
use crate::scene::Scene;
use crate::{Column, Server, Source, Store};

/// Arguments of `mastersim view`.
#[derive(clap::Args, Debug, Clone)]
pub struct ViewArgs {
    /// Result file: results/<project>.mat, values.csv (mastersim's or a comma-separated CSV
    /// with time first) or results/<project>.json (Signal Table).
    pub input: PathBuf,
    /// Port on 127.0.0.1 (0: a free port).
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    pub port: u16,
    /// A scene (TOML) to draw beside the charts, checked against the file's variables
    /// (`docs/live.md`, "Scenes").
    #[arg(long, value_name = "FILE")]
    pub scene: Option<PathBuf>,
    /// Render a replay of the whole run to this WebM video in headless Chromium, then end
    /// (the cursor moves from the first to the last row at a constant pace in simulated time).
    #[arg(long, value_name = "FILE.webm")]
    pub record: Option<PathBuf>,
    /// Frames per second of the video (with --record).
    #[arg(long, value_name = "FPS", default_value_t = 30, requires = "record",
          value_parser = clap::value_parser!(u32).range(1..=120))]
    pub fps: u32,
    /// Length of the video in seconds (with --record); it holds round(fps × duration) frames.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, requires = "record",
          value_parser = duration)]
    pub duration: f64,
    /// Replace the --record file if it exists.
    #[arg(long, requires = "record")]
    pub force: bool,
    /// The Chromium program for --record (default: $MASTERSIM_CHROMIUM, else chromium,
    /// chromium-browser, google-chrome or google-chrome-stable on PATH).
    #[arg(long, value_name = "PROGRAM", requires = "record")]
    pub chromium: Option<PathBuf>,
}

/// Most seconds of video `--record` renders.
const MAX_DURATION: f64 = 3600.0;

/// `--duration`: seconds, > 0 and at most [`MAX_DURATION`].
fn duration(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(d) if d > 0.0 && d <= MAX_DURATION => Ok(d),
        _ => Err(format!(
            "'{text}' is not a duration; expected seconds, a number > 0 and <= {MAX_DURATION}"
        )),
    }
}

/// `mastersim view`: serves the result file until `stop` is raised ([`view_file`]), or with
/// `--record` renders it to a video ([`record_file`]).
///
/// # Errors
/// Those of [`view_file`] and [`record_file`].
pub fn view(
    args: &ViewArgs,
    stop: &AtomicBool,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    match &args.record {
        None => view_file(&args.input, args.scene.as_deref(), args.port, stop),
        Some(target) => record_file(args, target, stop),
    }
}

/// How often a lingering view looks for Ctrl-C.
const LINGER_POLL: Duration = Duration::from_millis(100);

/// Prints a line to stdout; a closed stdout is not an error.
fn say(text: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stdout(), "{text}");
}

/// The scene the project of `session` names (`scene` line), read and checked against the
/// run's numeric result columns (the columns of `/api/meta`); `None` without a `scene` line.
///
/// # Errors
/// The message of [`crate::scene::SceneError`] (file, line, what was expected), prefixed with
/// the project's `scene` line.
fn project_scene(session: &Session) -> Result<Option<Scene>, String> {
    let Some(def) = &session.project().scene else {
        return Ok(None);
    };
    let c = OutputLayout::new(session.plan()).columns;
    let names: Vec<String> = [&c.boolean, &c.integer, &c.real]
        .into_iter()
        .flatten()
        .map(|c| c.name.clone())
        .collect();
    let scene = Scene::load(&def.path, &names).map_err(|e| {
        let project = session.project().path.display();
        format!("{project}:{}: scene: {e}", def.line)
    })?;
    log::info!(
        "Scene '{}': {} object(s)",
        def.path.display(),
        scene.objects.len()
    );
    Ok(Some(scene))
}

/// Serves the live view of `session` (named `title`, steered by `steering`, drawing the scene
/// its project names) on `port` of 127.0.0.1 (0: a free port) and prints its URL. A resumed
/// session's view starts with the rows the interrupted run wrote.
///
/// # Errors
/// A message: the project's scene is bad (naming the `scene` line, the scene file, its line
/// and what was expected), the session refuses the observer, or the rows of a resumed run
/// cannot be read back from its result files (the library's error with its causes), or the
/// server cannot start (`--live: …`, the port is taken).
pub fn serve_run(
    session: &mut Session,
    title: &str,
    steering: &Steering,
    port: u16,
) -> Result<Server, String> {
    let scene = project_scene(session)?;
    let store = Store::attach(session, title)
        .map_err(|e| e.chain_text())?
        .with_scene(scene);
    let source = Source::Live {
        store,
        steering: steering.clone(),
    };
    let server = Server::start(source, port).map_err(|e| format!("--live: {e}"))?;
    say(&format!("Live view: {}", server.url()));
    say("The run starts when you press Start in the page.");
    Ok(server)
}

/// Keeps `server` open after the run until `stop` is raised (Ctrl-C; at once if it is).
pub fn linger(server: &Server, stop: &AtomicBool) {
    if stop.load(Ordering::Relaxed) {
        return;
    }
    say(&format!(
        "The run has ended; the live view stays at {} until Ctrl-C.",
        server.url()
    ));
    wait_for(stop);
}

/// Waits until `stop` is raised.
fn wait_for(stop: &AtomicBool) {
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(LINGER_POLL);
    }
}

/// `mastersim view`: reads the result file `input` (results `.mat`, `values.csv` or a
/// comma-separated CSV with time first, Signal Table `.json`) and the scene file `scene`
/// (`--scene`, checked against the file's columns), serves them on `port` and prints the
/// URL, until `stop` is raised (Ctrl-C).
///
/// # Errors
/// The file cannot be read (the message names it and, for text files, the line) or has no
/// numeric variable; the scene is bad ([`crate::scene::SceneError`]: file, line, what was
/// expected); the server cannot start.
pub fn view_file(
    input: &Path,
    scene: Option<&Path>,
    port: u16,
    stop: &AtomicBool,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let store = stored(input, scene)?;
    let server = Server::start(Source::Replay { store }, port)?;
    say(&format!("Viewing '{}': {}", input.display(), server.url()));
    say("Press Ctrl-C to quit.");
    wait_for(stop);
    Ok(())
}

/// The rows of the result file `input`, for a replay, with the scene file `scene` checked
/// against its columns.
fn stored(
    input: &Path,
    scene: Option<&Path>,
) -> Result<Store, Box<dyn std::error::Error + Send + Sync>> {
    let file = output::result_file::read(input)?;
    let table = file.table()?;
    let columns = table
        .names
        .iter()
        .zip(&table.units)
        .zip(table.columns)
        .map(|((name, unit), values)| (Column::new(name, unit), values))
        .collect();
    let title = input.file_name().unwrap_or_default().to_string_lossy();
    let scene = scene
        .map(|file| Scene::load(file, &table.names))
        .transpose()
        .map_err(|e| format!("--scene: {e}"))?;
    Ok(Store::replay(&title, &table.time, columns).with_scene(scene))
}

/// `mastersim view <results> --record <target>` (`args.input`, the options in `args`):
/// serves the result file and opens the page in headless Chromium in record mode
/// (`?record=1&fps=…&duration=…`). The page renders round(fps × duration) frames, each at a
/// fixed cursor position moving from the first to the last row, encodes them (VP8) and
/// uploads the WebM file; the server writes it to the target (a temporary file renamed when
/// complete). Prints the frame count asked for, then the file written.
///
/// # Errors
/// The target exists (without `--force`) or its directory does not; no Chromium; the result
/// file cannot be read; the page could not record (its message), Chromium ended before the
/// video arrived (its last messages), no video after a time limit that grows with the frame
/// count, or Ctrl-C; the file cannot be written.
pub fn record_file(
    args: &ViewArgs,
    target: &Path,
    stop: &AtomicBool,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let recording = Arc::new(Recording::new(target, args.force)?);
    let program = find(args.chromium.as_deref())?;
    let store = stored(&args.input, args.scene.as_deref())?;
    let frames = (f64::from(args.fps) * args.duration).round().max(1.0);
    let server = Server::start_recording(Source::Replay { store }, args.port, recording.clone())?;
    say(&format!(
        "Recording '{}' to '{}': {frames} frames ({} fps, {} s)",
        args.input.display(),
        target.display(),
        args.fps,
        args.duration,
    ));
    say(&format!(
        "Rendering in headless Chromium ({}) from {}",
        program.display(),
        server.url()
    ));
    let url = format!(
        "{}&record=1&fps={}&duration={}",
        server.url(),
        args.fps,
        args.duration
    );
    let mut browser = Browser::open(&program, &url)?;
    // Chromium's start and the page's load, then at least 2 frames a second (a busy 2-core
    // machine renders 3 to 10).
    let limit = Duration::from_secs(60) + Duration::from_millis(500) * frames as u32;
    let bytes = wait_for_video(&recording, &mut browser, stop, limit)?;
    drop(browser);
    say(&format!(
        "Wrote '{}': {frames} frames, {bytes} bytes",
        target.display()
    ));
    Ok(())
}

/// Waits until the page's upload has ended, Chromium ends, `stop` is raised or `limit` has
/// passed; returns the bytes written.
fn wait_for_video(
    recording: &Recording,
    browser: &mut Browser,
    stop: &AtomicBool,
    limit: Duration,
) -> Result<u64, String> {
    let began = Instant::now();
    loop {
        if let Some(outcome) = recording.outcome() {
            return outcome.map_err(|e| format!("--record: {e}"));
        }
        if let Some(why) = browser.ended() {
            return Err(format!("--record: no video: {why}"));
        }
        if stop.load(Ordering::Relaxed) {
            return Err("--record: interrupted; nothing was written".into());
        }
        if began.elapsed() > limit {
            return Err(format!(
                "--record: no video from the page after {} s; nothing was written",
                limit.as_secs()
            ));
        }
        std::thread::sleep(LINGER_POLL);
    }
}
