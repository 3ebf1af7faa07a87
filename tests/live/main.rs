//! Real-time pacing and the live view in a browser. These tests measure wall time and drive
//! headless Chromium, so they run on their own, one at a time, after the self-contained suite:
//!
//! ```text
//! cargo test --release -p mastersim-tests --test live -- --test-threads=1
//! ```
//!
//! `.ci/run` installs Chromium and ChromeDriver from the distribution's packages (`chromium`,
//! `chromium-driver`) first; without them the browser tests fail and name the missing file.

mod browser;
mod pacing;
mod replay;
mod stalled;
mod tree;
