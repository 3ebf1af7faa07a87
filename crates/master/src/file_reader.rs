//! File-reader slaves: CSV/TSV tables whose columns feed FMU inputs.
//! (CONTRACT STUB: the parser helper fills it.)
//!
//! Spec: MasterSim reference §4.

use std::path::{Path, PathBuf};

/// One variable column of a table.
#[derive(Debug, Clone, PartialEq)]
pub struct TableColumn {
    /// Caption without the unit part.
    pub name: String,
    /// Unit from `[...]`, or `-` when absent.
    pub unit: String,
    /// One value per row (rows with duplicate times already merged, later row wins).
    pub values: Vec<f64>,
}

/// A parsed CSV/TSV table. Times are in seconds, strictly increasing.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The file read.
    pub path: PathBuf,
    /// Time column in s.
    pub time: Vec<f64>,
    /// Variable columns (file columns 1..n); the value reference of column `i` is `i`.
    pub columns: Vec<TableColumn>,
}

impl Table {
    /// Reads a table file.
    pub fn from_file(path: &Path) -> Result<Table, TableError> {
        let _ = path;
        todo!()
    }
    /// Index of the first column with this caption.
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }
}

/// A table file error. (Filled by the parser helper.)
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TableError {
    /// Placeholder.
    #[error("todo")]
    Todo,
}
