//! Extracting an `.fmu` (zip) archive into a directory the caller names, and reading what it
//! holds without extracting it ([`inspect`]).
//!
//! An FMU comes from outside, so extraction is defensive. Before anything is written, every
//! entry is checked from the central directory ([`entries`]): symbolic links and entries that
//! would land outside the target directory (absolute paths, `..`) are refused, and so are
//! entries that share bytes of the archive (the overlapping entries of a zip bomb) and a path
//! listed twice with different content; the sizes the entries declare must add up to at most
//! the limit, and `modelDescription.xml` must declare at most
//! [`crate::model_description::MAX_DESCRIPTION_SIZE`]. While extracting, the bytes actually
//! inflated are counted against the same limits (no entry can inflate past its declared size
//! either: the `zip` crate refuses that as corrupt). Entries are extracted into a staging
//! directory beside the target ([`stage`]) and moved into the target only when all of them
//! were written, so a refused or failed extraction leaves nothing of its own behind and the
//! target as it was.
//!
//! Spec: FMI 2.0.2 §2.3 (FMU distribution: a zip file), FMI 1.0 §2.1; PKWARE APPNOTE 6.3.10
//! (the zip format).

use std::fs::{self, File};
use std::io;
use std::path::Path;

use crate::{Error, Result};

mod entries;
mod inspect;
mod stage;

pub use inspect::{FmuContents, LibraryEntry, describe, inspect};

use entries::Listing;
use stage::Stage;

/// Limits applied while extracting.
///
/// Spec: none (a safety limit of this crate); the archive format is FMI 2.0.2 §2.3.
#[derive(Debug, Clone)]
pub struct ExtractOptions {
    /// Maximum total uncompressed size in bytes (default 4 GiB): the sizes the entries
    /// declare must add up to at most this, and the bytes actually inflated are counted
    /// against it too.
    pub max_total_size: u64,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions {
            max_total_size: 4 << 30,
        }
    }
}

/// Name of the model description inside an FMU archive.
const MODEL_DESCRIPTION: &str = "modelDescription.xml";

/// Extracts `fmu` into `target`, creating it; files of the same path are replaced.
///
/// Files already in `target` that the archive does not contain are left alone. Whether the
/// archive holds a `modelDescription.xml` is checked later, by [`crate::Fmu::load`].
///
/// The entries are first extracted into `.<target name>.extracting` beside `target`, then
/// moved into `target`: when extraction is refused or fails, that staging directory is
/// removed and `target` is untouched, so nothing of a refused archive stays on disk and an
/// earlier extraction is not lost. A path the archive lists more than once with the same
/// size and CRC-32 is extracted once, with one warning (through `log`).
///
/// A completed extraction leaves a stamp, `target/.mastersim-extracted`, listing the archive's
/// size and modification time and each extracted file's size and modification time. When the
/// stamp matches the archive and every listed file, the earlier extraction is reused and
/// nothing is read or written: unpacking the libraries of large FMUs is most of the run time
/// of short simulations. Any difference (a new archive, a changed or deleted file, an
/// interrupted extraction, which leaves no stamp) extracts again.
///
/// # Errors
/// - [`Error::Io`]: `fmu` cannot be opened, `target` has no file name, or a file or
///   directory cannot be written;
/// - [`Error::EmptyArchive`]: `fmu` has 0 bytes;
/// - [`Error::Zip`]: `fmu` is not a valid zip archive (no central directory: random bytes, a
///   truncated file);
/// - [`Error::CorruptEntry`]: an entry's header or data is corrupt (bad checksum, bad deflate
///   stream, more data than its declared size), named by its name in the central directory;
/// - [`Error::UnsafeArchiveEntry`]: an entry has an absolute path, leaves `target` through
///   `..`, or is a symbolic link;
/// - [`Error::OverlappingEntries`]: two entries share bytes of the archive;
/// - [`Error::DuplicateEntry`]: two entries extract to one path with different content;
/// - [`Error::ArchiveTooLarge`]: the entries declare, or inflate to, more than
///   `options.max_total_size` bytes;
/// - [`Error::DescriptionTooLarge`]: `modelDescription.xml` declares or inflates to more
///   than [`crate::model_description::MAX_DESCRIPTION_SIZE`] bytes.
///
/// Spec: FMI 2.0.2 §2.3 (structure of the FMU zip file).
pub fn extract(fmu: &Path, target: &Path, options: &ExtractOptions) -> Result<()> {
    let io_error = |source| Error::Io {
        path: fmu.to_owned(),
        source,
    };
    let file = File::open(fmu).map_err(io_error)?;
    let metadata = file.metadata().map_err(io_error)?;
    if metadata.len() == 0 {
        return Err(Error::EmptyArchive {
            fmu: fmu.to_owned(),
        });
    }
    let archive_line = format!("archive {} {}", metadata.len(), mtime_nanos(&metadata));
    let stamp_path = target.join(STAMP);
    if stamp_matches(&stamp_path, &archive_line, target) {
        log::debug!(
            "reusing the extraction of '{}' in '{}'",
            fmu.display(),
            target.display()
        );
        return Ok(());
    }
    log::debug!("extracting '{}' into '{}'", fmu.display(), target.display());
    let mut listing = Listing::read(fmu, io::BufReader::new(file))?;
    listing.check_sizes(fmu, options.max_total_size)?;
    listing.check_overlaps(fmu)?;
    let stage = Stage::create(target)?;
    let files = stage.fill(fmu, &mut listing, options.max_total_size)?;
    // A stale stamp must not survive a move that is interrupted.
    match fs::remove_file(&stamp_path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            return Err(Error::Io {
                path: stamp_path,
                source: e,
            });
        }
        _ => {}
    }
    stage.commit(target)?;
    let mut stamp = format!("{STAMP_HEADER}\n{archive_line}\n");
    for relative in files {
        let path = target.join(&relative);
        let file_metadata = fs::metadata(&path).map_err(|source| Error::Io { path, source })?;
        stamp += &format!(
            "file {} {} {}\n",
            file_metadata.len(),
            mtime_nanos(&file_metadata),
            relative.display()
        );
    }
    fs::write(&stamp_path, stamp).map_err(|source| Error::Io {
        path: stamp_path,
        source,
    })?;
    listing.warn_repeated(fmu);
    Ok(())
}

/// Name of the extraction stamp inside the target directory.
const STAMP: &str = ".mastersim-extracted";
/// First line of a stamp (its format version).
const STAMP_HEADER: &str = "mastersim extraction 1";

/// Modification time in ns since the epoch (0 when the platform has none).
fn mtime_nanos(metadata: &fs::Metadata) -> u128 {
    metadata
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

/// Whether the stamp at `path` describes this archive (`archive_line`) and every file it
/// lists in `target` still has its recorded size and modification time.
fn stamp_matches(path: &Path, archive_line: &str, target: &Path) -> bool {
    let Ok(text) = fs::read_to_string(path) else {
        return false;
    };
    let mut lines = text.lines();
    if lines.next() != Some(STAMP_HEADER) || lines.next() != Some(archive_line) {
        return false;
    }
    lines.all(|line| {
        let mut fields = line.splitn(4, ' ');
        let (Some("file"), Some(size), Some(mtime), Some(name)) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            return false;
        };
        fs::symlink_metadata(target.join(name)).is_ok_and(|m| {
            m.is_file() && size == m.len().to_string() && mtime == mtime_nanos(&m).to_string()
        })
    })
}

#[cfg(test)]
mod tests;
