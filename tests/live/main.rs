//! Real-time pacing and the live view in a browser. These tests measure wall time and drive
//! headless Chromium, so they run on their own, one at a time, after the self-contained suite:
//!
//! ```text
//! cargo test --release -p mastersim-tests --test live -- --test-threads=1
//! ```
//!
//! `.ci/run` installs Chromium, ChromeDriver and ffmpeg from the distribution's packages
//! (`chromium`, `chromium-driver`, `ffmpeg`) first; without them the browser tests fail and name
//! what is missing (the recording tests read the videos with ffmpeg's `ffprobe`).

mod browser;
mod doc_image;
mod pacing;
mod record;
mod replay;
mod scene;
mod stalled;
mod tree;
