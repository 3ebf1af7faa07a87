//! The view as the `mastersim` binary starts it: for a running session (`--live`), waiting
//! for Start and kept open after the run until Ctrl-C, and for a stored result file
//! (`mastersim view`). Each prints its URL on stdout.
//!
//! Spec: `docs/live.md`.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mastersim::master::OutputLayout;
use mastersim::{Session, Steering};

use crate::scene::Scene;
use crate::{Column, Server, Source, Store};

/// How often a lingering view looks for Ctrl-C.
const LINGER_POLL: Duration = Duration::from_millis(100);

/// Prints a line to stdout; a closed stdout is not an error.
fn say(text: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stdout(), "{text}");
}

/// The scene of the run of `session`: the file `given` (`--scene`), else the one the
/// project's `scene` line names, read and checked against the run's numeric result columns
/// (the columns of `/api/meta`). `None` when neither names one. Only the live view draws the
/// scene: a run without it (`live` false) logs a bad scene as one warning and goes on without.
///
/// # Errors
/// With `live`: the message of [`crate::scene::SceneError`] (file, line, what was expected),
/// prefixed with `--scene` or the project's `scene` line.
pub fn run_scene(
    session: &Session,
    given: Option<&Path>,
    live: bool,
) -> Result<Option<Scene>, String> {
    let (file, named_by) = match (given, &session.project().scene) {
        (Some(file), _) => (file.to_path_buf(), "--scene".to_owned()),
        (None, Some(def)) => (
            def.path.clone(),
            format!("{}:{}: scene", session.project().path.display(), def.line),
        ),
        (None, None) => return Ok(None),
    };
    let c = OutputLayout::new(session.plan()).columns;
    let names: Vec<String> = [&c.boolean, &c.integer, &c.real]
        .into_iter()
        .flatten()
        .map(|c| c.name.clone())
        .collect();
    let scene = match Scene::load(&file, &names) {
        Ok(scene) => scene,
        Err(e) if live => return Err(format!("{named_by}: {e}")),
        Err(e) => {
            log::warn!("{named_by}: {e}; only the live view draws the scene: this run goes on");
            return Ok(None);
        }
    };
    log::info!(
        "Scene '{}': {} object(s)",
        file.display(),
        scene.objects.len()
    );
    Ok(Some(scene))
}

/// Serves the live view of `session` (named `title`, steered by `steering`, drawing `scene`
/// from [`run_scene`]) on `port` of 127.0.0.1 (0: a free port) and prints its URL. A resumed
/// session's view starts with the rows the interrupted run wrote.
///
/// # Errors
/// A message: the session refuses the observer, or the rows of a resumed run cannot be read
/// back from its result files (the library's error with its causes), or the server cannot
/// start (`--live: …`, the port is taken).
pub fn serve_run(
    session: &mut Session,
    title: &str,
    steering: &Steering,
    scene: Option<Scene>,
    port: u16,
) -> Result<Server, String> {
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
    let scene = match scene {
        Some(file) => Some(Scene::load(file, &table.names).map_err(|e| format!("--scene: {e}"))?),
        None => None,
    };
    let store = Store::replay(&title, &table.time, columns).with_scene(scene);
    let server = Server::start(Source::Replay { store }, port)?;
    say(&format!("Viewing '{}': {}", input.display(), server.url()));
    say("Press Ctrl-C to quit.");
    wait_for(stop);
    Ok(())
}
