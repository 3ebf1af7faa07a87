//! Rough throughput of `%.14g` formatting and of `values.csv` rows.
//!
//! Run with `cargo run --release -p mastersim-output --example write_g_throughput`.
//! Prints nanoseconds per formatted value for several kinds of values.

use std::hint::black_box;
use std::time::Instant;

use output::number::write_g_bytes;
use output::{Column, ValuesCsvWriter, write_g};

/// Deterministic pseudo-random numbers in [0, 1) (xorshift64*).
fn uniform(state: &mut u64) -> f64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
}

/// Nanoseconds per value (best of five) for formatting `values` into reused line buffers,
/// as `(String, Vec<u8>)`.
fn ns_per_value(values: &[f64]) -> (f64, f64) {
    let mut line = String::with_capacity(64 * 1024);
    let mut bytes = Vec::with_capacity(64 * 1024);
    let (mut best_string, mut best_bytes) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..5 {
        let start = Instant::now();
        for chunk in values.chunks(1000) {
            line.clear();
            for &v in chunk {
                line.push('\t');
                write_g(&mut line, black_box(v), 14);
            }
            black_box(&line);
        }
        best_string = best_string.min(start.elapsed().as_nanos() as f64 / values.len() as f64);
        let start = Instant::now();
        for chunk in values.chunks(1000) {
            bytes.clear();
            for &v in chunk {
                bytes.push(b'\t');
                write_g_bytes(&mut bytes, black_box(v), 14);
            }
            black_box(&bytes);
        }
        best_bytes = best_bytes.min(start.elapsed().as_nanos() as f64 / values.len() as f64);
    }
    (best_string, best_bytes)
}

/// Prints one result line.
fn report(label: &str, values: &[f64]) {
    let (string, bytes) = ns_per_value(values);
    println!("{label:<20}: {string:6.1} ns/value (String), {bytes:6.1} ns/value (Vec<u8>)");
}

fn main() -> Result<(), output::Error> {
    const N: usize = 1_000_000;
    let mut state = 0x1234_5678_9ABC_DEF1u64;
    let states: Vec<f64> = (0..N)
        .map(|_| (uniform(&mut state) - 0.5) * 10f64.powi((uniform(&mut state) * 8.0) as i32 - 4))
        .collect();
    let times: Vec<f64> = (0..N).map(|k| k as f64 * 0.001).collect();
    let flags: Vec<f64> = (0..N).map(|k| (k % 7) as f64).collect();
    let tiny: Vec<f64> = states.iter().map(|v| v * 1e-12).collect();
    report("reals 1e-4..1e3", &states);
    report("time grid k*0.001", &times);
    report("integers/booleans", &flags);
    report("tiny (slow path)", &tiny);

    let dir = std::env::temp_dir().join(format!("mastersim-output-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|source| output::Error::Create {
        path: dir.clone(),
        source,
    })?;
    let columns: Vec<Column> = (0..10)
        .map(|i| Column::new(format!("S.x{i}"), "-"))
        .collect();
    let mut writer = ValuesCsvWriter::create(dir.join("values.csv"), "s", &columns)?;
    let start = Instant::now();
    let rows = N / 10;
    for (r, row) in states.chunks(10).take(rows).enumerate() {
        writer.write_row(times[r], row)?;
    }
    writer.flush()?;
    let ns = start.elapsed().as_nanos() as f64 / (rows * 11) as f64;
    println!("values.csv rows      : {ns:6.1} ns/value (10 columns + time, file I/O included)");
    drop(writer);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
