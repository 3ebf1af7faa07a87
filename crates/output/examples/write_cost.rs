//! Cost of writing result rows, per row and column, for `values.csv`, MAT and Signal Tables.
//!
//! Run with `cargo run --release -p mastersim-output --example write_cost`.
//!
//! For 10, 100 and 1000 columns (three quarters smooth Reals, one quarter Integers), rows are
//! written into a temporary directory; the time of the row loop (plus the final flush for
//! CSV and the final JSON serialization for Signal Tables, without `fsync`) is divided by
//! rows × columns. Each figure is the median of five repetitions.

use std::error::Error;
use std::time::Instant;

use output::signal_table::{SignalLayout, SignalTableWriter, SignalType, TableSignal};
use output::{AttributeMap, Column, MatSignal, MatWriter, ValuesCsvWriter};

/// Repetitions per measurement; the median is reported.
const REPETITIONS: usize = 5;
/// Values (rows × columns) written per measurement.
const VALUES_PER_RUN: usize = 2_000_000;
/// Distinct rows generated up front and cycled through (keeps value generation out of the timing).
const POOL_ROWS: usize = 64;

/// Column `c` is an Integer when `c % 4 == 3`, else a smooth Real.
fn is_integer(c: usize) -> bool {
    c % 4 == 3
}

/// Rows of realistic values: sines of different frequency, amplitude and offset, and
/// integer-valued step signals.
fn value_pool(columns: usize) -> Vec<Vec<f64>> {
    (0..POOL_ROWS)
        .map(|r| {
            let t = r as f64 * 0.01;
            (0..columns)
                .map(|c| {
                    let phase = c as f64 * 0.37;
                    if is_integer(c) {
                        (10.0 * (t + phase).sin()).round()
                    } else {
                        293.15 + (c % 13) as f64 * (t * (1.0 + c as f64 * 0.1) + phase).sin()
                    }
                })
                .collect()
        })
        .collect()
}

/// The median of `samples` (sorted in place).
fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Nanoseconds per value of `run`, which writes `rows` rows and returns its own duration.
fn measure(
    rows: usize,
    columns: usize,
    mut run: impl FnMut(usize) -> Result<f64, Box<dyn Error>>,
) -> Result<f64, Box<dyn Error>> {
    let mut samples = Vec::with_capacity(REPETITIONS);
    for repetition in 0..REPETITIONS {
        let seconds = run(repetition)?;
        samples.push(seconds * 1e9 / (rows * columns) as f64);
    }
    Ok(median(&mut samples))
}

fn main() -> Result<(), Box<dyn Error>> {
    let dir = tempfile::tempdir()?;
    println!("ns per written value (row × column), median of {REPETITIONS} runs, no fsync");
    println!(
        "{:>7} {:>8} {:>10} {:>10} {:>12}",
        "columns", "rows", "CSV", "MAT", "SignalTable"
    );
    for columns in [10, 100, 1000] {
        let rows = VALUES_PER_RUN / columns;
        let pool = value_pool(columns);
        let time = |r: usize| r as f64 * 1e-3;

        let csv_columns: Vec<Column> = (0..columns)
            .map(|c| Column::new(format!("Slave{}.x{c}", c / 10), "-"))
            .collect();
        let csv = measure(rows, columns, |rep| {
            let path = dir.path().join(format!("values{columns}_{rep}.csv"));
            let mut w = ValuesCsvWriter::create(&path, "s", &csv_columns)?;
            let start = Instant::now();
            for r in 0..rows {
                w.write_row(time(r), &pool[r % POOL_ROWS])?;
            }
            w.flush()?;
            let elapsed = start.elapsed().as_secs_f64();
            drop(w);
            std::fs::remove_file(&path)?;
            Ok(elapsed)
        })?;

        let mat_signals: Vec<MatSignal> = (0..columns)
            .map(|c| MatSignal::new(format!("Slave{}.x{c}", c / 10), "-", ""))
            .collect();
        let mat = measure(rows, columns, |rep| {
            let path = dir.path().join(format!("results{columns}_{rep}.mat"));
            let mut w = MatWriter::create(&path, &[], &mat_signals, &[], 0.0, time(rows))?;
            let start = Instant::now();
            for r in 0..rows {
                w.write_row(time(r), &pool[r % POOL_ROWS])?;
            }
            let elapsed = start.elapsed().as_secs_f64();
            drop(w);
            std::fs::remove_file(&path)?;
            Ok(elapsed)
        })?;

        let layout = SignalLayout {
            signals: (0..columns)
                .map(|c| {
                    let ty = if is_integer(c) {
                        SignalType::Integer
                    } else {
                        SignalType::Real
                    };
                    TableSignal::new(format!("Slave{}.x{c}", c / 10), ty, "-")
                })
                .collect(),
            ..SignalLayout::default()
        };
        // The same values, split by type as a caller of `push_row` would hold them.
        let typed: Vec<(Vec<i128>, Vec<f64>)> = pool
            .iter()
            .map(|row| {
                let integers = (0..columns)
                    .filter(|&c| is_integer(c))
                    .map(|c| row[c] as i128)
                    .collect();
                let reals = (0..columns)
                    .filter(|&c| !is_integer(c))
                    .map(|c| row[c])
                    .collect();
                (integers, reals)
            })
            .collect();
        let json = measure(rows, columns, |rep| {
            let path = dir.path().join(format!("table{columns}_{rep}.json"));
            let mut w = SignalTableWriter::create(&path, &layout)?;
            let start = Instant::now();
            for r in 0..rows {
                let (integers, reals) = &typed[r % POOL_ROWS];
                w.push_row(time(r), &[], integers, reals, &[] as &[&str])?;
            }
            w.finish(&AttributeMap::new())?;
            let elapsed = start.elapsed().as_secs_f64();
            std::fs::remove_file(&path)?;
            Ok(elapsed)
        })?;

        println!("{columns:>7} {rows:>8} {csv:>10.1} {mat:>10.1} {json:>12.1}");
    }
    Ok(())
}
