//! Broken and hostile inputs, table-driven: FMU archives, model descriptions, project files,
//! file-reader tables, SSP systems, Model Exchange FMUs that fail at run time and isolated FMUs that crash, one
//! `#[test]` per group. The row harness (sandbox per row, exit code, one-line message naming
//! file and element, no panic, nothing written outside the working directory, results a
//! failed run keeps, strict `awaiting` rows for fixes outside the fmi crate) is in
//! `hostile/rows.rs`.

mod archives;
mod checkpoints;
mod fmi3;
mod isolation;
mod model_descriptions;
mod model_exchange;
mod names;
mod numbers;
mod projects;
pub(crate) mod rows;
mod special_files;
mod ssp;
mod tables;
