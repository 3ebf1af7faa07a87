//! `mastersim view`: stored results in the browser view of crate `mastersim-live`, served
//! until Ctrl-C or rendered to a video with `--record` ([`live::view`]; `--live` for a
//! running co-simulation is [`live::serve_run`]).
//!
//! Spec: `docs/live.md`.

use anyhow::Context;
use mastersim::Interrupt;

/// Runs `mastersim view`.
///
/// # Errors
/// The Ctrl-C handler cannot be installed; the errors of [`live::view`].
pub fn run(args: &live::ViewArgs) -> anyhow::Result<()> {
    let interrupt = Interrupt::install().context("cannot install the Ctrl-C handler")?;
    live::view(args, &interrupt.flag()).map_err(anyhow::Error::from_boxed)
}
