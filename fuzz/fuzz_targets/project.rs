//! Fuzzes the `.msim` project parser, `master::project::Project::parse`.
//!
//! Any `Err` is a correct answer to bad input; only a panic, crash, hang or out-of-memory is a
//! finding. Input that is not UTF-8 is skipped: `Project::from_file` rejects it before parsing.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use master::project::Project;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = Project::parse(text, Path::new("/fuzz/project.msim"));
    }
});
