//! The entries of an archive, and the checks every archive passes before anything of it is
//! extracted or read: no entry may be a symbolic link or lead outside the target directory,
//! no two entries may share bytes of the archive, and no path may be listed twice with
//! different content.
//!
//! The `zip` crate lists each raw name once (the last record wins), so the central directory
//! is also read here record by record, to see names that it lists more than once.
//!
//! Spec: PKWARE APPNOTE 6.3.10 §4.3.6 (layout: local header and data of each file, then the
//! central directory), §4.3.12 (central directory header), §4.5.3 (Zip64 extended
//! information); FMI 2.0.2 §2.3.

use std::collections::HashMap;
use std::collections::hash_map::Entry as Slot;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::model_description::MAX_DESCRIPTION_SIZE;
use crate::{Error, Result};

use super::MODEL_DESCRIPTION;

/// One entry of the archive (one per raw name, as the `zip` crate lists them).
#[derive(Debug)]
pub(super) struct Entry {
    /// Its position in the `zip` crate's list.
    pub(super) index: usize,
    /// The name as stored (invalid UTF-8 replaced).
    pub(super) name: String,
    /// The relative path it extracts to: `.` dropped, `..` resolved, `\` read as a separator.
    pub(super) path: PathBuf,
    /// True for a directory entry (a name ending in `/`).
    pub(super) is_dir: bool,
    /// The uncompressed size the archive declares, bytes.
    pub(super) size: u64,
    /// When an earlier entry extracts to the same path with the same content: its position
    /// in [`Listing::entries`]. Such an entry is not extracted again.
    pub(super) same_as: Option<usize>,
}

/// The entries of an archive that passed the checks of [`Listing::read`].
pub(super) struct Listing<R> {
    /// The archive, for reading entries.
    pub(super) archive: zip::ZipArchive<R>,
    /// Every entry, in the `zip` crate's order.
    pub(super) entries: Vec<Entry>,
    /// Paths the archive lists more than once with the same content, for one warning.
    pub(super) repeated: Vec<String>,
    /// The start and end of each entry's local header and data, with its position in
    /// `entries`.
    spans: Vec<(u64, u64, usize)>,
}

/// One record of the central directory, read without the `zip` crate.
struct Record {
    /// Its 1-based position in the central directory.
    number: usize,
    /// Where it starts in the archive.
    offset: u64,
    name: Vec<u8>,
    crc32: u32,
    size: u64,
}

impl<R: Read + Seek> Listing<R> {
    /// Reads the central directory of the archive `fmu` (opened as `reader`) and the local
    /// header of every entry, and checks the names; nothing is decompressed. (Overlaps are
    /// checked by [`Listing::check_overlaps`], sizes by [`Listing::check_sizes`].)
    ///
    /// # Errors
    /// [`Error::Zip`] when `fmu` is not a zip archive; [`Error::CorruptEntry`] when an
    /// entry's local header cannot be read; [`Error::UnsafeArchiveEntry`] for a symbolic
    /// link, an absolute path or a path that leaves the target directory;
    /// [`Error::DuplicateEntry`].
    pub(super) fn read(fmu: &Path, reader: R) -> Result<Self> {
        let mut archive = zip::ZipArchive::new(reader).map_err(|source| Error::Zip {
            fmu: fmu.to_owned(),
            source,
        })?;
        let records = central_directory(fmu, archive.central_directory_start())?;
        let number_at: HashMap<u64, usize> = records.iter().map(|r| (r.offset, r.number)).collect();
        let mut entries = Vec::with_capacity(archive.len());
        // (start, end, entry) of each entry's local header and data.
        let mut spans = Vec::with_capacity(archive.len());
        let mut numbers = Vec::with_capacity(archive.len());
        let mut crcs = Vec::with_capacity(archive.len());
        for index in 0..archive.len() {
            // The central directory gives the name even when the entry's own header is broken.
            let listed = match archive.name_for_index(index) {
                Some(Ok(name)) => name.into_owned(),
                _ => format!("#{}", index + 1),
            };
            let corrupt = |source| Error::CorruptEntry {
                fmu: fmu.to_owned(),
                entry: listed.clone(),
                source,
            };
            let file = archive.by_index_raw(index).map_err(corrupt)?;
            let name = String::from_utf8_lossy(file.name_raw()).into_owned();
            let refuse = |reason| Error::UnsafeArchiveEntry {
                fmu: fmu.to_owned(),
                entry: name.clone(),
                reason,
            };
            if file.is_symlink() {
                return Err(refuse("symbolic links are not allowed"));
            }
            if is_absolute_name(&name) {
                return Err(refuse("absolute paths are not allowed"));
            }
            let Some(path) = file.enclosed_name() else {
                return Err(refuse("the path leaves the target directory"));
            };
            let data_start = file
                .data_start()
                .ok_or_else(|| corrupt(zip::result::ZipError::FileNotFound))?;
            let end = data_start
                .checked_add(file.compressed_size())
                .ok_or_else(|| corrupt(zip::result::ZipError::InvalidArchive("size".into())))?;
            spans.push((file.header_start(), end, index));
            numbers.push(number_at.get(&file.central_header_start()).copied());
            crcs.push(file.crc32());
            entries.push(Entry {
                index,
                name,
                path,
                is_dir: file.is_dir(),
                size: file.size(),
                same_as: None,
            });
        }
        let mut repeated = raw_repeats(fmu, &records)?;
        mark_repeats(fmu, &mut entries, &numbers, &crcs, &mut repeated)?;
        spans.sort_unstable();
        Ok(Listing {
            archive,
            entries,
            repeated,
            spans,
        })
    }

    /// Refuses entries whose local header and data share bytes with another entry's, or
    /// reach into the central directory.
    ///
    /// # Errors
    /// [`Error::OverlappingEntries`].
    pub(super) fn check_overlaps(&self, fmu: &Path) -> Result<()> {
        let overlap = |first: usize, second: Option<usize>| Error::OverlappingEntries {
            fmu: fmu.to_owned(),
            first: self.entries[first].name.clone(),
            second: second.map(|s| self.entries[s].name.clone()),
        };
        for pair in self.spans.windows(2) {
            let ((_, end, first), (start, _, second)) = (pair[0], pair[1]);
            if end > start {
                return Err(overlap(first, Some(second)));
            }
        }
        match self.spans.last() {
            Some(&(_, end, last)) if end > self.archive.central_directory_start() => {
                Err(overlap(last, None))
            }
            _ => Ok(()),
        }
    }
}

impl<R> Listing<R> {
    /// The root `modelDescription.xml`, if the archive has one.
    pub(super) fn description(&self) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| !e.is_dir && e.same_as.is_none() && e.path == Path::new(MODEL_DESCRIPTION))
    }

    /// The uncompressed sizes of the entries to extract, added up, bytes (saturating).
    pub(super) fn declared_total(&self) -> u64 {
        self.entries
            .iter()
            .filter(|e| !e.is_dir && e.same_as.is_none())
            .fold(0u64, |sum, e| sum.saturating_add(e.size))
    }

    /// Refuses a `modelDescription.xml` that declares more than `description_limit` bytes.
    ///
    /// # Errors
    /// [`Error::DescriptionTooLarge`].
    pub(super) fn check_description_size(&self, fmu: &Path, description_limit: u64) -> Result<()> {
        match self.description() {
            Some(entry) if entry.size > description_limit => Err(Error::DescriptionTooLarge {
                path: fmu.join(MODEL_DESCRIPTION),
                size: Some(entry.size),
                declared: true,
                limit: description_limit,
            }),
            _ => Ok(()),
        }
    }

    /// Refuses an archive whose `modelDescription.xml` declares more than
    /// [`MAX_DESCRIPTION_SIZE`] bytes, or whose entries declare more than `limit` bytes in all.
    ///
    /// # Errors
    /// [`Error::DescriptionTooLarge`], [`Error::ArchiveTooLarge`] (with no entry).
    pub(super) fn check_sizes(&self, fmu: &Path, limit: u64) -> Result<()> {
        self.check_description_size(fmu, MAX_DESCRIPTION_SIZE)?;
        let declared = self.declared_total();
        if declared > limit {
            return Err(Error::ArchiveTooLarge {
                fmu: fmu.to_owned(),
                entry: None,
                declared,
                limit,
            });
        }
        Ok(())
    }

    /// Logs one warning naming the paths listed more than once with the same content.
    pub(super) fn warn_repeated(&self, fmu: &Path) {
        let Some(first) = self.repeated.first() else {
            return;
        };
        let what = match self.repeated.len() {
            1 => format!("entry '{first}' twice"),
            n => format!(
                "{n} entries more than once ('{}')",
                self.repeated.join("', '")
            ),
        };
        log::warn!(
            "{}: the archive lists {what} with the same size and CRC-32; extracted once",
            fmu.display()
        );
    }
}

/// True for `/x`, `\\x` and `C:x`-style names (zip's `enclosed_name` would quietly make
/// them relative; an FMU has no business containing them).
fn is_absolute_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    matches!(bytes.first(), Some(b'/' | b'\\'))
        || (bytes.len() >= 2 && bytes[1] == b':' && bytes[0].is_ascii_alphabetic())
}

/// Raw names the central directory lists more than once (the `zip` crate keeps the last):
/// the same size and CRC-32 each time is harmless (the names are returned), anything else
/// ambiguous.
fn raw_repeats(fmu: &Path, records: &[Record]) -> Result<Vec<String>> {
    let mut first: HashMap<&[u8], &Record> = HashMap::new();
    let mut repeated = Vec::new();
    for record in records {
        match first.entry(&record.name) {
            Slot::Vacant(slot) => {
                slot.insert(record);
            }
            Slot::Occupied(earlier) => {
                let earlier = *earlier.get();
                let name = String::from_utf8_lossy(&record.name).into_owned();
                if (earlier.size, earlier.crc32) != (record.size, record.crc32) {
                    return Err(Error::DuplicateEntry {
                        fmu: fmu.to_owned(),
                        entry: name,
                        first: earlier.number,
                        second: record.number,
                        reason: differ(earlier.size, record.size),
                    });
                }
                if !record.name.ends_with(b"/") && !repeated.contains(&name) {
                    repeated.push(name);
                }
            }
        }
    }
    Ok(repeated)
}

/// How two entries with the same path but a different size or CRC-32 differ.
fn differ(first: u64, second: u64) -> String {
    if first == second {
        format!("with different content (both {first} bytes, different CRC-32)")
    } else {
        format!("with different content ({first} and {second} bytes)")
    }
}

/// Marks entries with different names that extract to the same path (`a/./b` and `a/b`,
/// `a\b` and `a/b`): the same size and CRC-32 makes a later one a repeat, which is not
/// extracted again (its path is added to `repeated`); anything else is ambiguous.
/// `numbers` and `crcs` are the entries' central-directory positions and CRC-32s.
fn mark_repeats(
    fmu: &Path,
    entries: &mut [Entry],
    numbers: &[Option<usize>],
    crcs: &[u32],
    repeated: &mut Vec<String>,
) -> Result<()> {
    let mut first: HashMap<PathBuf, usize> = HashMap::new();
    for i in 0..entries.len() {
        let Some(&k) = first.get(&entries[i].path) else {
            first.insert(entries[i].path.clone(), i);
            continue;
        };
        let (earlier, later) = (&entries[k], &entries[i]);
        let reason = if earlier.is_dir != later.is_dir {
            Some("once as a directory and once as a file".to_owned())
        } else if !later.is_dir && (earlier.size, crcs[k]) != (later.size, crcs[i]) {
            Some(differ(earlier.size, later.size))
        } else {
            None
        };
        let path = later.path.to_string_lossy().into_owned();
        if let Some(reason) = reason {
            return Err(Error::DuplicateEntry {
                fmu: fmu.to_owned(),
                entry: path,
                first: numbers[k].unwrap_or(earlier.index + 1),
                second: numbers[i].unwrap_or(later.index + 1),
                reason,
            });
        }
        if !later.is_dir && !repeated.contains(&path) {
            repeated.push(path);
        }
        entries[i].same_as = Some(k);
    }
    Ok(())
}

/// Signature of a central directory header.
const CENTRAL_HEADER: u32 = 0x0201_4b50;

/// Every record of the central directory of `fmu`, which starts at `start`, read until the
/// next signature is not a central directory header's.
///
/// # Errors
/// [`Error::Io`] when the file cannot be read.
fn central_directory(fmu: &Path, start: u64) -> Result<Vec<Record>> {
    let io_error = |source| Error::Io {
        path: fmu.to_owned(),
        source,
    };
    let mut reader = BufReader::new(File::open(fmu).map_err(io_error)?);
    let length = reader.seek(SeekFrom::End(0)).map_err(io_error)?;
    reader.seek(SeekFrom::Start(start)).map_err(io_error)?;
    let mut records = Vec::new();
    let mut offset = start;
    while offset.saturating_add(46) <= length {
        let mut fixed = [0u8; 46];
        reader.read_exact(&mut fixed).map_err(io_error)?;
        let u16_at = |i: usize| usize::from(u16::from_le_bytes([fixed[i], fixed[i + 1]]));
        let u32_at =
            |i: usize| u32::from_le_bytes([fixed[i], fixed[i + 1], fixed[i + 2], fixed[i + 3]]);
        if u32_at(0) != CENTRAL_HEADER {
            break;
        }
        let (name_length, extra_length, comment_length) = (u16_at(28), u16_at(30), u16_at(32));
        let mut name = vec![0u8; name_length];
        let mut extra = vec![0u8; extra_length];
        reader.read_exact(&mut name).map_err(io_error)?;
        reader.read_exact(&mut extra).map_err(io_error)?;
        reader
            .seek(SeekFrom::Current(comment_length as i64))
            .map_err(io_error)?;
        let mut size = u64::from(u32_at(24));
        if size == u64::from(u32::MAX) {
            size = zip64_size(&extra).unwrap_or(size);
        }
        records.push(Record {
            number: records.len() + 1,
            offset,
            name,
            crc32: u32_at(16),
            size,
        });
        offset += (46 + name_length + extra_length + comment_length) as u64;
    }
    Ok(records)
}

/// The uncompressed size in the Zip64 extended information extra field (id 1) of `extra`;
/// it is the field's first value when the header's own size is `0xFFFFFFFF`.
fn zip64_size(extra: &[u8]) -> Option<u64> {
    let mut rest = extra;
    while rest.len() >= 4 {
        let id = u16::from_le_bytes([rest[0], rest[1]]);
        let length = usize::from(u16::from_le_bytes([rest[2], rest[3]]));
        let data = rest.get(4..4 + length)?;
        if id == 1 {
            return Some(u64::from_le_bytes(data.get(..8)?.try_into().ok()?));
        }
        rest = &rest[4 + length..];
    }
    None
}
