//! The browser view: `--live` for a running co-simulation, `mastersim view` for stored
//! results. Both serve the page of crate `mastersim-live` on 127.0.0.1 and print its URL.
//!
//! Spec: `docs/live.md`.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use live::{Column, Server, Source, Store};
use mastersim::run::INPUT_ERROR;
use mastersim::{Interrupt, RunEnd, Session, Steering};

/// How often a lingering view looks for Ctrl-C.
const LINGER_POLL: Duration = Duration::from_millis(100);

/// Arguments of `mastersim view`.
#[derive(clap::Args, Debug, Clone)]
pub struct ViewArgs {
    /// Result file: results/<project>.mat, values.csv (mastersim's or a comma-separated CSV
    /// with time first) or results/<project>.json (Signal Table).
    pub input: PathBuf,
    /// Port on 127.0.0.1 (0: a free port).
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    pub port: u16,
}

/// Serves the live view of `session` (named `title`, steered by `steering`) on `port` and
/// prints its URL. A resumed session's view starts with the rows the interrupted run wrote.
///
/// # Errors
/// The server cannot start (port taken), the session refuses the observer, or the rows of a
/// resumed run cannot be read back from its result files.
pub fn serve_run(
    session: &mut Session,
    title: &str,
    steering: &Steering,
    port: u16,
) -> Result<Server, RunEnd> {
    let store = Store::attach(session, title).map_err(|e| RunEnd::input_error(&e))?;
    let source = Source::Live {
        store,
        steering: steering.clone(),
    };
    let server = Server::start(source, port)
        .map_err(|e| RunEnd::failed(INPUT_ERROR, format!("--live: {e}")))?;
    say!("Live view: {}", server.url());
    say!("The run starts when you press Start in the page.");
    Ok(server)
}

/// Keeps `server` open after the run until SIGINT or SIGTERM (at once if one came already).
pub fn linger(server: &Server, interrupt: &Interrupt) {
    if interrupt.flag().load(std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    say!(
        "The run has ended; the live view stays at {} until Ctrl-C.",
        server.url()
    );
    wait_for(interrupt);
}

fn wait_for(interrupt: &Interrupt) {
    let flag = interrupt.flag();
    while !flag.load(std::sync::atomic::Ordering::Relaxed) {
        std::thread::sleep(LINGER_POLL);
    }
}

/// Runs `mastersim view`: reads the result file, serves it until Ctrl-C.
///
/// # Errors
/// The file cannot be read (the message names it and, for text files, the line) or has no
/// numeric variable; the server cannot start.
pub fn run(args: &ViewArgs) -> anyhow::Result<()> {
    let file = output::result_file::read(&args.input)?;
    let table = file.table()?;
    let columns = table
        .names
        .iter()
        .zip(&table.units)
        .zip(table.columns)
        .map(|((name, unit), values)| (Column::new(name, unit), values))
        .collect();
    let title = args.input.file_name().unwrap_or_default().to_string_lossy();
    let store = Store::replay(&title, &table.time, columns);
    let interrupt = Interrupt::install().context("cannot install the Ctrl-C handler")?;
    let server = Server::start(Source::Replay { store }, args.port)?;
    say!("Viewing '{}': {}", args.input.display(), server.url());
    say!("Press Ctrl-C to quit.");
    wait_for(&interrupt);
    Ok(())
}
