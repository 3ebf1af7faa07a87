//! The view as the `mastersim` binary starts it: for a running session (`--live`), waiting
//! for Start and kept open after the run until Ctrl-C, and for a stored result file
//! (`mastersim view`). Each prints its URL on stdout.
//!
//! Spec: `docs/live.md`.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use master::OutputLayout;
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
    let store = Store::replay(&title, &table.time, columns).with_scene(scene);
    let server = Server::start(Source::Replay { store }, port)?;
    say(&format!("Viewing '{}': {}", input.display(), server.url()));
    say("Press Ctrl-C to quit.");
    wait_for(stop);
    Ok(())
}
