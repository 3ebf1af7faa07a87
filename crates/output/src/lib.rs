#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod csv;
pub mod filter;
pub mod mat;
pub mod signal_table;
mod error;
mod file;
pub mod number;
pub mod progress;
pub mod stepstats;
pub mod summary;

pub use csv::{Column, StringsCsvWriter, ValuesCsvWriter};
pub use error::{Error, Result};
pub use number::{format_fixed, format_g, write_fixed, write_g, write_g_bytes};
pub use progress::ProgressWriter;
pub use stepstats::{StepStatsRow, StepStatsWriter};
pub use summary::{SlaveStatistics, Statistics, TimeUnit};
