//! Corpus conformance suite: runs mastersim on the real FMUs and projects of
//! `../shared/corpus` (see its README) and compares with the reference results.
//!
//! Run with `cargo test --release -p mastersim-tests --test corpus`. Every test fails, naming
//! the path it looked for, when the corpus is missing.

mod crosscheck;
mod first_hour;
mod fmi1;
mod fmi3;
mod isolation;
mod leaks;
mod mastersim;
mod model_exchange;
mod model_quirks;
mod platforms;
mod readers;
mod resume;
mod ssp;
mod ssp_schema;
mod sweeps;
