#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod csv;
mod error;
mod file;
pub mod filter;
pub mod hex;
pub mod input;
pub mod mat;
pub mod number;
pub mod progress;
pub mod result_file;
pub mod signal_table;
mod signal_type;
pub mod table;
#[cfg(test)]
mod test_support;

pub use csv::{Column, StringsCsvWriter, ValuesCsvWriter};
pub use error::{Error, Result};
pub use error::{JsonProblem, MatProblem, TableProblem};
pub use file::{OpenMode, create_fresh, write_fresh};
pub use filter::{ColumnFilter, KeptRow, RowFilter};
pub use mat::{
    MatAlias, MatFile, MatOpen, MatParameter, MatReadSignal, MatSeries, MatSignal, MatState,
    MatWriter,
};
pub use number::{format_fixed, format_g, write_fixed, write_g, write_g_bytes};
pub use progress::ProgressWriter;
pub use signal_table::{
    AttributeMap, AttributeValue, ParameterValue, SignalLayout, SignalTableWriter, SignalType,
    TableAlias, TableParameter, TableSignal,
};
