//! Fuzzes the `modelDescription.xml` parser, `fmi::ModelDescription::parse`.
//!
//! Any `Err` is a correct answer to bad input. Findings are panics, crashes, hangs,
//! out-of-memory, and a description that parses with a `modelIdentifier` that is not a plain
//! file-name stem: `Fmu::load` opens `binaries/<platform>/<modelIdentifier>.so`, so a `/` (or
//! `\`, or NUL) in it would load a library from outside the FMU. Input that is not UTF-8 is
//! skipped here (the archive target reaches the byte-level decoding through
//! `ModelDescription::from_file`).
#![no_main]

use std::path::Path;

use fmi::ModelDescription;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(xml) = std::str::from_utf8(data)
        && let Ok(md) = ModelDescription::parse(xml, Path::new("/fuzz/modelDescription.xml"))
    {
        let id = &md.model_identifier;
        assert!(
            !id.is_empty() && !id.contains(['/', '\\', '\0']),
            "accepted modelIdentifier {id:?}, which is not a file-name stem"
        );
    }
});
