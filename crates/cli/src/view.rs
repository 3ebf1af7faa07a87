//! `mastersim view`: stored results in the browser view of crate `mastersim-live`
//! ([`live::view_file`]; `--live` for a running co-simulation is [`live::serve_run`]).
//!
//! Spec: `docs/live.md`.

use std::path::PathBuf;

use anyhow::Context;
use mastersim::Interrupt;

/// Arguments of `mastersim view`.
#[derive(clap::Args, Debug, Clone)]
pub struct ViewArgs {
    /// Result file: results/<project>.mat, values.csv (mastersim's or a comma-separated CSV
    /// with time first) or results/<project>.json (Signal Table).
    pub input: PathBuf,
    /// Port on 127.0.0.1 (0: a free port).
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    pub port: u16,
    /// A scene to draw beside the charts (a TOML file, docs/live.md "Scenes"), checked
    /// against the result file's variables.
    #[arg(long, value_name = "FILE")]
    pub scene: Option<PathBuf>,
}

/// Runs `mastersim view`: reads the result file, serves it until Ctrl-C.
///
/// # Errors
/// The Ctrl-C handler cannot be installed; the errors of [`live::view_file`].
pub fn run(args: &ViewArgs) -> anyhow::Result<()> {
    let interrupt = Interrupt::install().context("cannot install the Ctrl-C handler")?;
    live::view_file(
        &args.input,
        args.scene.as_deref(),
        args.port,
        &interrupt.flag(),
    )
    .map_err(anyhow::Error::from_boxed)
}
