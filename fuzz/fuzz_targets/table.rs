//! Fuzzes the CSV/TSV table reader, `master::table::Table::parse`.
//!
//! Any `Err` is a correct answer to bad input; only a panic, crash, hang or out-of-memory is a
//! finding. Bytes are decoded the way `Table::from_file` does (lossy UTF-8). A table that parses
//! is also sampled, as a file-reader slave would: interpolated and step values of every column
//! at, between and outside the table's times.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use master::table::Table;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(table) = Table::parse(&text, Path::new("/fuzz/table.tsv")) else {
        return;
    };
    let mut times: Vec<f64> = Vec::with_capacity(2 * table.time.len() + 4);
    for pair in table.time.windows(2) {
        times.push(pair[0]);
        times.push(0.5 * (pair[0] + pair[1]));
    }
    if let (Some(&first), Some(&last)) = (table.time.first(), table.time.last()) {
        times.extend([first - 1.0, last, last + 1.0, f64::NAN]);
    }
    for column in 0..table.columns.len() + 1 {
        for &t in &times {
            let _ = table.real_at(column, t);
            let _ = table.step_at(column, t);
        }
    }
});
