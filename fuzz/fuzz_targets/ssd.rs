//! Fuzzes the SSP system-structure reader, `ssp::check_ssd`: the XML element tree with line
//! numbers, then the SSD structure (systems, elements, connectors, connections,
//! transformations, inline parameter values and mappings, units, `DefaultExperiment` and the
//! OSP annotations).
//!
//! Any `Err` is a correct answer to bad input; only a panic, crash, hang or out-of-memory is a
//! finding. Input that is not UTF-8 is skipped: the reader rejects it before parsing. Files the
//! SSD refers to (`.ssv`, `.ssm`, nested `.ssd`, FMUs) are not read.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = ssp::check_ssd(text, Path::new("/fuzz/SystemStructure.ssd"));
    }
});
