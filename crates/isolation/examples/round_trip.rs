//! Micro-benchmark of the isolated slave-step: the round trip of one message that carries
//! `fmi2SetReal`, `fmi2DoStep` and `fmi2GetReal` (what crate fmi's proxies send per
//! communication step), over a chain of 10 Reference FMU Feedthroughs (FMI 2.0, 0.0.1, from the
//! conformance corpus), each in its own linux64 helper (more helpers than processors: the two
//! sides hand the processor over through futexes); and the bare round trip (ECHO of 8 bytes)
//! with one helper (both sides spin first).
//!
//! Run: `cargo run --release -p mastersim-isolation --example round_trip [STEPS]`
//! (corpus at `$MASTERSIM_CORPUS` or `../shared/corpus`; STEPS default 20000). Prints the
//! median, 10th and 90th percentile per round trip in microseconds.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Instant;

use common::*;
use isolation::Platform;
use isolation::protocol::*;

const SLAVES: usize = 10;
const GUID: &str = "{8c4e810f-3df3-4a00-8276-176fa3c9f004}";
const REAL_IN: u32 = 2;
const REAL_OUT: u32 = 3;

fn main() {
    let steps: usize = std::env::args()
        .nth(1)
        .map_or(20_000, |s| s.parse().expect("STEPS"));
    let fmu = corpus("crosscheck/fmi2/TestFMUs-0.0.1/Feedthrough/Feedthrough.fmu");
    let dir = extract(&fmu);
    let library = library(dir.path(), "Feedthrough", Platform::Linux64, 2);
    let mut chain: Vec<_> = (0..SLAVES)
        .map(|_| {
            let mut helper = launch(Platform::Linux64, &library, 2, None);
            fmi2_start(&mut helper, GUID, &dir.path().join("resources")).expect("start");
            helper
        })
        .collect();
    let h = 1e-3;
    let mut samples = Vec::with_capacity(steps * SLAVES);
    for k in 0..steps {
        let t = k as f64 * h;
        let mut value = t;
        for helper in &mut chain {
            let start = Instant::now();
            let mut request = helper.request();
            request
                .call(FN_FMI2_SET_REAL)
                .u32s(&[REAL_IN])
                .f64s(&[value]);
            request.call(FN_FMI2_DO_STEP).f64(t).f64(h).i32(1);
            request.call(FN_FMI2_GET_REAL).u32s(&[REAL_OUT]);
            let mut response = helper.round_trip().expect("round trip");
            for _ in 0..3 {
                assert_eq!(response.status().expect("status"), 0);
            }
            let mut out = [0.0];
            response.array_into(&mut out).expect("output");
            samples.push(start.elapsed().as_secs_f64() * 1e6);
            value = out[0];
        }
        assert_eq!(value, t, "the chain passes its input through");
    }
    report("slave-step (set, doStep, get), chain of 10", &mut samples);

    // One helper left: fewer helpers than processors, so both sides spin before they sleep.
    chain.truncate(1);
    let helper = &mut chain[0];
    let mut samples = Vec::with_capacity(steps);
    for _ in 0..steps {
        let start = Instant::now();
        helper.request().call(FN_ECHO).bytes(&[0; 8]);
        let mut response = helper.round_trip().expect("round trip");
        assert_eq!(response.status().expect("status"), 0);
        samples.push(start.elapsed().as_secs_f64() * 1e6);
    }
    report("bare round trip (ECHO), one helper", &mut samples);
}

fn report(what: &str, samples: &mut [f64]) {
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q) as usize];
    println!(
        "{what}: median {:.2} µs, p10 {:.2} µs, p90 {:.2} µs ({} round trips)",
        at(0.5),
        at(0.1),
        at(0.9),
        samples.len()
    );
}
