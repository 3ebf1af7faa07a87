//! Extracting an `.fmu` (zip) archive. (CONTRACT STUB: the fmi helper fills it.)

use std::path::Path;

use crate::Result;

/// Limits applied while extracting.
#[derive(Debug, Clone)]
pub struct ExtractOptions {
    /// Maximum total uncompressed size in bytes (default 4 GiB).
    pub max_total_size: u64,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions { max_total_size: 4 << 30 }
    }
}

/// Extracts `fmu` into `target`, creating it; existing files are overwritten.
pub fn extract(fmu: &Path, target: &Path, options: &ExtractOptions) -> Result<()> {
    let _ = (fmu, target, options);
    todo!()
}
