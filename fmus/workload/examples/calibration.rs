//! How long one Busy step with the default `workMicros` takes on this machine: the best and
//! the median of 400 runs of the spin loop (wall time, µs), and the iterations per µs.
//!
//! Run: `cargo run --release -p fmu-workload --example calibration` (README, "Calibration").
//! A measurement, not a test: it reads a clock and asserts nothing.

use std::hint::black_box;
use std::time::Instant;

use fmu_workload::{DEFAULT_WORK_MICROS, SPIN_SEED, iterations, spin};

fn main() {
    let n = iterations(DEFAULT_WORK_MICROS);
    let mut times: Vec<f64> = (0..400)
        .map(|_| {
            let start = Instant::now();
            black_box(spin(black_box(n), SPIN_SEED));
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(f64::total_cmp);
    println!(
        "workMicros = {DEFAULT_WORK_MICROS}: {n} iterations, best {:.0} µs, median {:.0} µs \
         ({:.0} iterations/µs at best)",
        times[0],
        times[times.len() / 2],
        n as f64 / times[0]
    );
}
