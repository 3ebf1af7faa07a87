//! Extraction into a staging directory beside the target, moved into the target only when
//! every entry was written: a refused or failed extraction leaves the target as it was (an
//! earlier extraction in it included) and nothing of its own behind.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::model_description::MAX_DESCRIPTION_SIZE;
use crate::{Error, Result};

use super::MODEL_DESCRIPTION;
use super::entries::Listing;

/// A staging directory; dropping it removes it with everything still in it.
pub(super) struct Stage {
    dir: PathBuf,
}

impl Stage {
    /// Creates the staging directory of `target`: `.<name>.extracting` beside it. One left
    /// by a killed extraction is removed first.
    ///
    /// # Errors
    /// [`Error::Io`] when `target` has no file name or the directory cannot be made.
    pub(super) fn create(target: &Path) -> Result<Stage> {
        let Some(name) = target.file_name() else {
            return Err(Error::Io {
                path: target.to_owned(),
                source: io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "the target directory of an extraction needs a name",
                ),
            });
        };
        let dir = target.with_file_name(format!(".{}.extracting", name.to_string_lossy()));
        if fs::symlink_metadata(&dir).is_ok() {
            remove(&dir)?;
        }
        create_dir(&dir)?;
        Ok(Stage { dir })
    }

    /// Extracts every entry of `listing` (except repeats) into the staging directory,
    /// counting the bytes inflated against `limit` (and those of `modelDescription.xml`
    /// against [`MAX_DESCRIPTION_SIZE`]); returns the relative paths of the files written,
    /// in archive order.
    ///
    /// # Errors
    /// [`Error::CorruptEntry`] when an entry cannot be decompressed (its checksum or size
    /// does not match); [`Error::ArchiveTooLarge`] or [`Error::DescriptionTooLarge`] when the
    /// bytes inflated pass a limit; [`Error::Io`] when a file cannot be written.
    pub(super) fn fill<R: Read + io::Seek>(
        &self,
        fmu: &Path,
        listing: &mut Listing<R>,
        limit: u64,
    ) -> Result<Vec<PathBuf>> {
        let declared = listing.declared_total();
        let mut inflated = 0u64;
        let mut files = Vec::new();
        for entry in &listing.entries {
            let destination = self.dir.join(&entry.path);
            if entry.is_dir {
                create_dir(&destination)?;
                continue;
            }
            if entry.same_as.is_some() {
                continue;
            }
            if let Some(parent) = destination.parent() {
                create_dir(parent)?;
            }
            let is_description = entry.path == Path::new(MODEL_DESCRIPTION);
            let remaining = limit.saturating_sub(inflated);
            let cap = if is_description {
                remaining.min(MAX_DESCRIPTION_SIZE)
            } else {
                remaining
            };
            let corrupt = |source| Error::CorruptEntry {
                fmu: fmu.to_owned(),
                entry: entry.name.clone(),
                source,
            };
            let mut file = listing.archive.by_index(entry.index).map_err(corrupt)?;
            let count = write_limited(&mut file, &destination, cap).map_err(|e| match e {
                CopyError::Read(source) => corrupt(source.into()),
                CopyError::Write(source) => Error::Io {
                    path: destination.clone(),
                    source,
                },
                CopyError::Limit if is_description && cap < remaining => {
                    Error::DescriptionTooLarge {
                        path: fmu.join(MODEL_DESCRIPTION),
                        size: None,
                        declared: false,
                        limit: MAX_DESCRIPTION_SIZE,
                    }
                }
                CopyError::Limit => Error::ArchiveTooLarge {
                    fmu: fmu.to_owned(),
                    entry: Some(entry.name.clone()),
                    declared,
                    limit,
                },
            })?;
            inflated += count;
            files.push(entry.path.clone());
        }
        Ok(files)
    }

    /// Moves what was extracted into `target` (created when missing): directories are
    /// merged, files replace files of the same path; other files in `target` stay.
    ///
    /// # Errors
    /// [`Error::Io`] when a directory cannot be made or a file not moved (e.g. a directory
    /// stands where the archive has a file).
    pub(super) fn commit(self, target: &Path) -> Result<()> {
        create_dir(target)?;
        merge(&self.dir, target)
        // Dropping `self` removes the emptied staging directory.
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        if let Err(e) = fs::remove_dir_all(&self.dir)
            && e.kind() != io::ErrorKind::NotFound
        {
            log::warn!("cannot remove '{}': {e}", self.dir.display());
        }
    }
}

/// Moves the contents of `from` into `to`, directory by directory.
fn merge(from: &Path, to: &Path) -> Result<()> {
    let io_error = |path: &Path| {
        let path = path.to_owned();
        move |source| Error::Io { path, source }
    };
    for item in fs::read_dir(from).map_err(io_error(from))? {
        let item = item.map_err(io_error(from))?;
        let source = item.path();
        let destination = to.join(item.file_name());
        if item.file_type().map_err(io_error(&source))?.is_dir() {
            create_dir(&destination)?;
            merge(&source, &destination)?;
        } else {
            fs::rename(&source, &destination).map_err(io_error(&destination))?;
        }
    }
    Ok(())
}

/// `fs::create_dir_all`, with the path in the error.
pub(super) fn create_dir(dir: &Path) -> Result<()> {
    fs::create_dir_all(dir).map_err(|source| Error::Io {
        path: dir.to_owned(),
        source,
    })
}

/// Removes `path`, a file or a directory tree.
fn remove(path: &Path) -> Result<()> {
    let removed = match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => fs::remove_dir_all(path),
        _ => fs::remove_file(path),
    };
    removed.map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })
}

enum CopyError {
    Read(io::Error),
    Write(io::Error),
    Limit,
}

/// Copies `reader` into a new file at `destination`; fails as soon as more than `limit` bytes
/// would be written. Returns the number of bytes written.
fn write_limited(reader: &mut impl Read, destination: &Path, limit: u64) -> Result<u64, CopyError> {
    let mut out = File::create(destination).map_err(CopyError::Write)?;
    let mut buffer = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        let n = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CopyError::Read(e)),
        };
        total += n as u64;
        if total > limit {
            return Err(CopyError::Limit);
        }
        out.write_all(&buffer[..n]).map_err(CopyError::Write)?;
    }
    out.flush().map_err(CopyError::Write)?;
    Ok(total)
}
