//! `mastersim view`: stored results and a scene in the browser ([`live::view_file`], docs/live.md).

use std::path::PathBuf;

use anyhow::Context;
use mastersim::Interrupt;

/// Arguments of `mastersim view`.
#[derive(clap::Args, Debug, Clone)]
pub struct ViewArgs {
    /// Result file: <project>.mat, values.csv or a CSV with time first, or <project>.json.
    pub input: PathBuf,
    /// Port on 127.0.0.1 (0: a free port).
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    pub port: u16,
    /// A scene (TOML) to draw beside the charts, checked against the file's variables.
    #[arg(long, value_name = "FILE")]
    pub scene: Option<PathBuf>,
}

/// Runs `mastersim view`: reads the result file, serves it until Ctrl-C.
///
/// # Errors
/// The Ctrl-C handler cannot be installed; the errors of [`live::view_file`].
pub fn run(args: &ViewArgs) -> anyhow::Result<()> {
    let interrupt = Interrupt::install().context("cannot install the Ctrl-C handler")?;
    let (scene, stop) = (args.scene.as_deref(), interrupt.flag());
    live::view_file(&args.input, scene, args.port, &stop).map_err(anyhow::Error::from_boxed)
}
