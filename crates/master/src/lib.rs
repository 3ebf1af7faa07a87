#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod error;
pub mod file_reader;
pub mod number;
pub mod project;
pub mod slave;

pub use error::{Error, Result};
