//! Fuzzes the `modelDescription.xml` parser, `fmi::ModelDescription::parse`.
//!
//! Any `Err` is a correct answer to bad input; only a panic, crash, hang or out-of-memory is a
//! finding. Input that is not UTF-8 is skipped here (the archive target reaches the byte-level
//! decoding through `ModelDescription::from_file`).
#![no_main]

use std::path::Path;

use fmi::ModelDescription;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(xml) = std::str::from_utf8(data) {
        let _ = ModelDescription::parse(xml, Path::new("/fuzz/modelDescription.xml"));
    }
});
