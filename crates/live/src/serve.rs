//! The view as the `mastersim` binary starts it: for a running session (`--live`), waiting
//! for Start and kept open after the run until Ctrl-C, and for a stored result file
//! (`mastersim view`). Each prints its URL on stdout.
//!
//! Spec: `docs/live.md`.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mastersim::{Session, Steering};

use crate::{Column, Server, Source, Store};

/// How often a lingering view looks for Ctrl-C.
const LINGER_POLL: Duration = Duration::from_millis(100);

/// Prints a line to stdout; a closed stdout is not an error.
fn say(text: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stdout(), "{text}");
}

/// Serves the live view of `session` (named `title`, steered by `steering`) on `port` of
/// 127.0.0.1 (0: a free port) and prints its URL. A resumed session's view starts with the
/// rows the interrupted run wrote.
///
/// # Errors
/// A message: the session refuses the observer, or the rows of a resumed run cannot be read
/// back from its result files (the library's error with its causes), or the server cannot
/// start (`--live: …`, the port is taken).
pub fn serve_run(
    session: &mut Session,
    title: &str,
    steering: &Steering,
    port: u16,
) -> Result<Server, String> {
    let store = Store::attach(session, title).map_err(|e| e.chain_text())?;
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
/// comma-separated CSV with time first, Signal Table `.json`), serves it on `port` and prints
/// its URL, until `stop` is raised (Ctrl-C).
///
/// # Errors
/// The file cannot be read (the message names it and, for text files, the line) or has no
/// numeric variable; the server cannot start.
pub fn view_file(
    input: &Path,
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
    let store = Store::replay(&title, &table.time, columns);
    let server = Server::start(Source::Replay { store }, port)?;
    say(&format!("Viewing '{}': {}", input.display(), server.url()));
    say("Press Ctrl-C to quit.");
    wait_for(stop);
    Ok(())
}
