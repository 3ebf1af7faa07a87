//! Extracting an `.fmu` (zip) archive into a directory the caller names, and reading what it
//! holds without extracting it ([`inspect`]).
//!
//! An FMU comes from outside, so extraction is defensive: entries that would land outside the
//! target directory (absolute paths, `..`) and symbolic links are refused, and the number of
//! bytes actually written is limited (a zip bomb can lie about sizes in its headers).
//!
//! Spec: FMI 2.0.2 §2.3 (FMU distribution: a zip file), FMI 1.0 §2.1.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::Path;

use crate::{Error, ModelDescription, Result};

/// Limits applied while extracting.
///
/// Spec: none (a safety limit of this crate); the archive format is FMI 2.0.2 §2.3.
#[derive(Debug, Clone)]
pub struct ExtractOptions {
    /// Maximum total uncompressed size in bytes, counted over the bytes actually written
    /// (default 4 GiB).
    pub max_total_size: u64,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions {
            max_total_size: 4 << 30,
        }
    }
}

/// Extracts `fmu` into `target`, creating it; existing files are overwritten.
///
/// Directories are created as needed. Files already in `target` that the archive does not
/// contain are left alone. Whether the archive holds a `modelDescription.xml` is checked later,
/// by [`crate::Fmu::load`].
///
/// A completed extraction leaves a stamp, `target/.mastersim-extracted`, listing the archive's
/// size and modification time and each extracted file's size and modification time. When the
/// stamp matches the archive and every listed file, the earlier extraction is reused and
/// nothing is read or written: unpacking the libraries of large FMUs is most of the run time
/// of short simulations. Any difference (a new archive, a changed or deleted file, an
/// interrupted extraction, which leaves no stamp) extracts again.
///
/// # Errors
/// - [`Error::Io`]: `fmu` cannot be opened, or a file or directory cannot be written;
/// - [`Error::EmptyArchive`]: `fmu` has 0 bytes;
/// - [`Error::Zip`]: `fmu` is not a valid zip archive (no central directory: random bytes, a
///   truncated file);
/// - [`Error::CorruptEntry`]: an entry's header or data is corrupt (bad checksum, bad deflate
///   stream), named by its name in the central directory;
/// - [`Error::UnsafeArchiveEntry`]: an entry has an absolute path, leaves `target` through
///   `..`, or is a symbolic link (nothing after it is extracted);
/// - [`Error::ArchiveTooLarge`]: more than `options.max_total_size` bytes would be written.
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
    // A stale stamp must not survive a failed or interrupted extraction.
    match fs::remove_file(&stamp_path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            return Err(Error::Io {
                path: stamp_path,
                source: e,
            });
        }
        _ => {}
    }
    let mut archive =
        zip::ZipArchive::new(io::BufReader::new(file)).map_err(|source| Error::Zip {
            fmu: fmu.to_owned(),
            source,
        })?;
    create_dir(target)?;

    let mut written = 0u64;
    let mut stamp = format!("{STAMP_HEADER}\n{archive_line}\n");
    for i in 0..archive.len() {
        // The central directory gives the name even when the entry's own header is broken.
        let listed_name = match archive.name_for_index(i) {
            Some(Ok(name)) => name.into_owned(),
            _ => format!("#{}", i + 1),
        };
        let mut entry = archive.by_index(i).map_err(|source| Error::CorruptEntry {
            fmu: fmu.to_owned(),
            entry: listed_name,
            source,
        })?;
        let entry_name = String::from_utf8_lossy(entry.name_raw()).into_owned();
        let refuse = |reason| Error::UnsafeArchiveEntry {
            fmu: fmu.to_owned(),
            entry: entry_name.clone(),
            reason,
        };
        if entry.is_symlink() {
            return Err(refuse("symbolic links are not allowed"));
        }
        if is_absolute_name(&entry_name) {
            return Err(refuse("absolute paths are not allowed"));
        }
        let Some(relative) = entry.enclosed_name() else {
            return Err(refuse("the path leaves the target directory"));
        };
        let destination = target.join(&relative);
        if entry.is_dir() {
            create_dir(&destination)?;
            continue;
        }
        if let Some(parent) = destination.parent() {
            create_dir(parent)?;
        }
        let remaining = options.max_total_size - written;
        let count = write_limited(&mut entry, &destination, remaining).map_err(|e| match e {
            CopyError::Read(source) => Error::CorruptEntry {
                fmu: fmu.to_owned(),
                entry: entry_name.clone(),
                source: source.into(),
            },
            CopyError::Write(source) => Error::Io {
                path: destination.clone(),
                source,
            },
            CopyError::Limit => Error::ArchiveTooLarge {
                fmu: fmu.to_owned(),
                entry: entry_name.clone(),
                limit: options.max_total_size,
            },
        })?;
        written += count;
        let file_metadata = fs::metadata(&destination).map_err(|source| Error::Io {
            path: destination.clone(),
            source,
        })?;
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
    })
}

/// What an FMU archive holds, read by [`inspect`] without extracting it.
///
/// Spec: FMI 2.0.2 §2.3 (structure of the FMU zip file), FMI 1.0 §2.1.
#[derive(Debug, Clone, PartialEq)]
pub struct FmuContents {
    /// The parsed `modelDescription.xml` (capabilities as declared: whether the shared
    /// library exports their functions is only known after loading it, see [`crate::Fmu`]).
    pub description: ModelDescription,
    /// The root element's `generationDateAndTime` as written (ISO 8601, e.g.
    /// `2024-05-02T10:11:12Z`); `None` when absent.
    pub generation_date_and_time: Option<String>,
    /// The root element's `version` (the model's version, not the FMI version) as written;
    /// `None` when absent.
    pub model_version: Option<String>,
    /// Platform folders under `binaries/` (e.g. `linux64`, `win64`, `x86_64-linux`), sorted
    /// and each once; a folder counts when the archive lists it or a file inside it. Empty
    /// when the FMU has no binaries.
    pub platforms: Vec<String>,
    /// Files under `sources/` (archive paths with `/` separators, in archive order); empty
    /// when the FMU comes without sources.
    pub source_files: Vec<String>,
}

/// Name of the model description inside an FMU archive.
const MODEL_DESCRIPTION: &str = "modelDescription.xml";

/// Reads `modelDescription.xml` and the list of entries straight from the archive `fmu`:
/// nothing is extracted to disk and no shared library is loaded.
///
/// Entry names written with `\` separators (some Windows tools) are read as `/`. Only
/// `modelDescription.xml` is decompressed, and at most `options.max_total_size` bytes of it;
/// the rest of the archive is known from its central directory alone. Errors about the
/// model description name it as `<fmu>/modelDescription.xml`.
///
/// # Errors
/// - [`Error::Io`]: `fmu` cannot be opened or is a directory, or the archive has no
///   `modelDescription.xml` at its root (kind [`io::ErrorKind::NotFound`]);
/// - [`Error::EmptyArchive`]: `fmu` has 0 bytes;
/// - [`Error::Zip`]: `fmu` is not a valid zip archive;
/// - [`Error::CorruptEntry`]: `modelDescription.xml` cannot be decompressed (bad checksum, bad
///   deflate stream);
/// - [`Error::UnsafeArchiveEntry`]: `modelDescription.xml` is a symbolic link;
/// - [`Error::ArchiveTooLarge`]: `modelDescription.xml` has more than
///   `options.max_total_size` bytes;
/// - the decoding and parse errors of [`ModelDescription::from_file`].
///
/// Spec: FMI 2.0.2 §2.3 (FMU layout: `modelDescription.xml`, `binaries/<platform>/`,
/// `sources/`), §2.2.1 (`generationDateAndTime`, `version`); FMI 1.0 §2.1, §2.2.
pub fn inspect(fmu: &Path, options: &ExtractOptions) -> Result<FmuContents> {
    let io_error = |source| Error::Io {
        path: fmu.to_owned(),
        source,
    };
    let file = File::open(fmu).map_err(io_error)?;
    let metadata = file.metadata().map_err(io_error)?;
    if metadata.is_dir() {
        return Err(io_error(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory, expected an FMU archive (zip)",
        )));
    }
    if metadata.len() == 0 {
        return Err(Error::EmptyArchive {
            fmu: fmu.to_owned(),
        });
    }
    let mut archive =
        zip::ZipArchive::new(io::BufReader::new(file)).map_err(|source| Error::Zip {
            fmu: fmu.to_owned(),
            source,
        })?;
    let mut platforms = std::collections::BTreeSet::new();
    let mut source_files = Vec::new();
    let mut description_index = None;
    for (i, raw_name) in archive.file_names_raw().enumerate() {
        let name = String::from_utf8_lossy(raw_name).replace('\\', "/");
        let is_dir = name.ends_with('/');
        let parts: Vec<&str> = name
            .split('/')
            .filter(|p| !p.is_empty() && *p != ".")
            .collect();
        match parts.as_slice() {
            [MODEL_DESCRIPTION] if !is_dir => description_index = Some(i),
            ["binaries", platform, rest @ ..]
                if (is_dir || !rest.is_empty()) && *platform != ".." =>
            {
                platforms.insert((*platform).to_owned());
            }
            ["sources", _, ..] if !is_dir => source_files.push(parts.join("/")),
            _ => {}
        }
    }
    let Some(index) = description_index else {
        return Err(io_error(io::Error::new(
            io::ErrorKind::NotFound,
            "the archive has no modelDescription.xml at its root; is this an FMU?",
        )));
    };
    let corrupt = |source| Error::CorruptEntry {
        fmu: fmu.to_owned(),
        entry: MODEL_DESCRIPTION.to_owned(),
        source,
    };
    let mut entry = archive.by_index(index).map_err(corrupt)?;
    if entry.is_symlink() {
        return Err(Error::UnsafeArchiveEntry {
            fmu: fmu.to_owned(),
            entry: MODEL_DESCRIPTION.to_owned(),
            reason: "symbolic links are not allowed",
        });
    }
    let limit = options.max_total_size;
    let mut bytes = Vec::new();
    (&mut entry)
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| corrupt(e.into()))?;
    if bytes.len() as u64 > limit {
        return Err(Error::ArchiveTooLarge {
            fmu: fmu.to_owned(),
            entry: MODEL_DESCRIPTION.to_owned(),
            limit,
        });
    }
    let path = fmu.join(MODEL_DESCRIPTION);
    let (description, text) = ModelDescription::from_bytes(bytes, &path)?;
    let root_attribute = |name: &str| root_attribute(&text, name);
    Ok(FmuContents {
        description,
        generation_date_and_time: root_attribute("generationDateAndTime"),
        model_version: root_attribute("version"),
        platforms: platforms.into_iter().collect(),
        source_files,
    })
}

/// The attribute `name` of the root element of the well-formed document `xml`, unescaped.
fn root_attribute(xml: &str, name: &str) -> Option<String> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(xml);
    loop {
        match reader.read_event().ok()? {
            Event::Start(e) | Event::Empty(e) => {
                let attribute = e.try_get_attribute(name).ok()??;
                return attribute
                    .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                    .ok()
                    .map(std::borrow::Cow::into_owned);
            }
            Event::Eof => return None,
            _ => {}
        }
    }
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

/// True for `/x`, `\\x` and `C:x`-style names (zip's `enclosed_name` would quietly make
/// them relative; an FMU has no business containing them).
fn is_absolute_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    matches!(bytes.first(), Some(b'/' | b'\\'))
        || (bytes.len() >= 2 && bytes[1] == b':' && bytes[0].is_ascii_alphabetic())
}

fn create_dir(dir: &Path) -> Result<()> {
    fs::create_dir_all(dir).map_err(|source| Error::Io {
        path: dir.to_owned(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;
    use std::path::PathBuf;
    use zip::write::SimpleFileOptions;

    /// Builds a zip in memory from (name, contents) pairs.
    fn build_zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = SimpleFileOptions::default();
        for (name, contents) in entries {
            if name.ends_with('/') {
                writer.add_directory(*name, options).unwrap();
            } else {
                writer.start_file(*name, options).unwrap();
                writer.write_all(contents).unwrap();
            }
        }
        writer.finish().unwrap().into_inner()
    }

    fn write_fmu(dir: &Path, bytes: &[u8]) -> PathBuf {
        let path = dir.join("test.fmu");
        fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn an_unchanged_extraction_is_reused_and_a_changed_one_redone() {
        let tmp = tempfile::tempdir().unwrap();
        let fmu = write_fmu(
            tmp.path(),
            &build_zip(&[("a.txt", b"one"), ("d/b.txt", b"two")]),
        );
        let target = tmp.path().join("out");
        extract(&fmu, &target, &ExtractOptions::default()).unwrap();
        assert!(target.join(STAMP).is_file());
        // Reused: a file changed behind the stamp's back with the same size and time would
        // stay; here the file is deleted, which the stamp notices.
        fs::remove_file(target.join("d/b.txt")).unwrap();
        extract(&fmu, &target, &ExtractOptions::default()).unwrap();
        assert_eq!(fs::read(target.join("d/b.txt")).unwrap(), b"two");
        // Unchanged: nothing is written (the file's time stays).
        let before = fs::metadata(target.join("a.txt"))
            .unwrap()
            .modified()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        extract(&fmu, &target, &ExtractOptions::default()).unwrap();
        assert_eq!(
            fs::metadata(target.join("a.txt"))
                .unwrap()
                .modified()
                .unwrap(),
            before
        );
        // Edited extracted file: extracted again.
        fs::write(target.join("a.txt"), b"edited by hand").unwrap();
        extract(&fmu, &target, &ExtractOptions::default()).unwrap();
        assert_eq!(fs::read(target.join("a.txt")).unwrap(), b"one");
        // A new archive: extracted again.
        std::thread::sleep(std::time::Duration::from_millis(20));
        let fmu = write_fmu(
            tmp.path(),
            &build_zip(&[("a.txt", b"uno"), ("d/b.txt", b"two")]),
        );
        extract(&fmu, &target, &ExtractOptions::default()).unwrap();
        assert_eq!(fs::read(target.join("a.txt")).unwrap(), b"uno");
    }

    #[test]
    fn extracts_files_and_directories_and_overwrites() {
        let tmp = tempfile::tempdir().unwrap();
        let fmu = write_fmu(
            tmp.path(),
            &build_zip(&[
                ("modelDescription.xml", b"<fmiModelDescription/>"),
                ("binaries/", b""),
                ("binaries/linux64/m.so", b"ELF?"),
                ("resources/data/table.txt", b"1 2 3"),
            ]),
        );
        let target = tmp.path().join("out");
        fs::create_dir_all(&target).unwrap();
        fs::write(target.join("modelDescription.xml"), b"old").unwrap();
        extract(&fmu, &target, &ExtractOptions::default()).unwrap();
        assert_eq!(
            fs::read(target.join("modelDescription.xml")).unwrap(),
            b"<fmiModelDescription/>"
        );
        assert_eq!(
            fs::read(target.join("binaries/linux64/m.so")).unwrap(),
            b"ELF?"
        );
        assert_eq!(
            fs::read(target.join("resources/data/table.txt")).unwrap(),
            b"1 2 3"
        );
    }

    /// Writes a raw zip whose single entry has exactly `name` (the writer API may normalise).
    fn zip_with_raw_name(name: &str) -> Vec<u8> {
        let placeholder = "x".repeat(name.len());
        let mut bytes = build_zip(&[(placeholder.as_str(), b"evil")]);
        let (from, to) = (placeholder.as_bytes(), name.as_bytes());
        let mut i = 0;
        while i + from.len() <= bytes.len() {
            if &bytes[i..i + from.len()] == from {
                bytes[i..i + from.len()].copy_from_slice(to);
                i += from.len();
            } else {
                i += 1;
            }
        }
        bytes
    }

    #[test]
    fn refuses_parent_dir_entry() {
        let tmp = tempfile::tempdir().unwrap();
        let fmu = write_fmu(tmp.path(), &zip_with_raw_name("../evil.txt"));
        let target = tmp.path().join("out");
        let err = extract(&fmu, &target, &ExtractOptions::default()).unwrap_err();
        assert!(
            matches!(&err, Error::UnsafeArchiveEntry { entry, .. } if entry == "../evil.txt"),
            "{err}"
        );
        assert!(err.to_string().contains("test.fmu"), "{err}");
        assert!(!tmp.path().join("evil.txt").exists());
    }

    #[test]
    fn refuses_absolute_entry() {
        let tmp = tempfile::tempdir().unwrap();
        let fmu = write_fmu(tmp.path(), &zip_with_raw_name("/tmp/evil.txt"));
        let err = extract(&fmu, &tmp.path().join("out"), &ExtractOptions::default()).unwrap_err();
        assert!(
            matches!(&err, Error::UnsafeArchiveEntry { entry, .. } if entry == "/tmp/evil.txt"),
            "{err}"
        );
        let fmu = write_fmu(tmp.path(), &zip_with_raw_name("C:/evil.txt"));
        let err = extract(&fmu, &tmp.path().join("out"), &ExtractOptions::default()).unwrap_err();
        assert!(matches!(err, Error::UnsafeArchiveEntry { .. }), "{err}");
    }

    #[test]
    fn refuses_symlink_entry() {
        let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
        writer
            .add_symlink("link", "/etc/passwd", SimpleFileOptions::default())
            .unwrap();
        let bytes = writer.finish().unwrap().into_inner();
        let tmp = tempfile::tempdir().unwrap();
        let fmu = write_fmu(tmp.path(), &bytes);
        let err = extract(&fmu, &tmp.path().join("out"), &ExtractOptions::default()).unwrap_err();
        assert!(
            matches!(&err, Error::UnsafeArchiveEntry { entry, .. } if entry == "link"),
            "{err}"
        );
        assert!(err.to_string().contains("symbolic link"), "{err}");
    }

    #[test]
    fn enforces_size_limit_on_written_bytes() {
        let tmp = tempfile::tempdir().unwrap();
        let big = vec![0u8; 10_000];
        let fmu = write_fmu(tmp.path(), &build_zip(&[("a.bin", &big), ("b.bin", &big)]));
        let options = ExtractOptions {
            max_total_size: 15_000,
        };
        let err = extract(&fmu, &tmp.path().join("out"), &options).unwrap_err();
        assert!(
            matches!(&err, Error::ArchiveTooLarge { entry, limit: 15_000, .. } if entry == "b.bin"),
            "{err}"
        );
        // Exactly at the limit is fine.
        let options = ExtractOptions {
            max_total_size: 20_000,
        };
        extract(&fmu, &tmp.path().join("out2"), &options).unwrap();
    }

    #[test]
    fn corrupt_archive_names_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let fmu = write_fmu(tmp.path(), b"this is not a zip file at all");
        let err = extract(&fmu, &tmp.path().join("out"), &ExtractOptions::default()).unwrap_err();
        assert!(matches!(err, Error::Zip { .. }), "{err}");
        assert!(err.to_string().contains("test.fmu"), "{err}");
    }

    #[test]
    fn empty_file_is_named_as_such() {
        let tmp = tempfile::tempdir().unwrap();
        let fmu = write_fmu(tmp.path(), b"");
        let err = extract(&fmu, &tmp.path().join("out"), &ExtractOptions::default()).unwrap_err();
        assert!(matches!(err, Error::EmptyArchive { .. }), "{err}");
        assert!(
            err.to_string().contains("test.fmu: the file is empty"),
            "{err}"
        );
        assert!(!tmp.path().join("out").exists());
    }

    #[test]
    fn corrupt_entry_data_names_the_entry() {
        let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let stored =
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
        writer.start_file("data.bin", stored).unwrap();
        writer.write_all(&[7u8; 4096]).unwrap();
        let mut bytes = writer.finish().unwrap().into_inner();
        // Flip one byte inside the stored data of 'data.bin': the checksum no longer matches.
        let start = bytes
            .windows(8)
            .position(|w| w == b"data.bin")
            .expect("local header name")
            + 8;
        bytes[start + 100] ^= 0xff;
        let tmp = tempfile::tempdir().unwrap();
        let fmu = write_fmu(tmp.path(), &bytes);
        let err = extract(&fmu, &tmp.path().join("out"), &ExtractOptions::default()).unwrap_err();
        assert!(
            matches!(&err, Error::CorruptEntry { entry, .. } if entry == "data.bin"),
            "{err}"
        );
        assert!(
            err.to_string()
                .contains("test.fmu: archive entry 'data.bin' is corrupt"),
            "{err}"
        );
    }

    const DESCRIPTION_V2: &[u8] = br#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="2.0" modelName="M" guid="{1}" version="1.2.3"
    generationDateAndTime="2024-05-02T10:11:12Z" generationTool="T &amp; U">
  <CoSimulation modelIdentifier="M" canGetAndSetFMUstate="true"/>
  <ModelVariables>
    <ScalarVariable name="x" valueReference="1" causality="output"><Real/></ScalarVariable>
  </ModelVariables>
  <ModelStructure><Outputs><Unknown index="1"/></Outputs></ModelStructure>
</fmiModelDescription>"#;

    #[test]
    fn inspect_reads_the_description_and_lists_platforms_and_sources() {
        let tmp = tempfile::tempdir().unwrap();
        let fmu = write_fmu(
            tmp.path(),
            &build_zip(&[
                ("modelDescription.xml", DESCRIPTION_V2),
                ("binaries/", b""),
                ("binaries/win64/", b""),
                ("binaries/linux64/M.so", b"ELF?"),
                ("binaries\\darwin64\\M.dylib", b"Mach-O?"),
                ("binaries/x86_64-linux/M.so", b"ELF?"),
                ("binaries/README.txt", b"not a platform"),
                ("sources/", b""),
                ("sources/m.c", b"int x;"),
                ("sources/include/m.h", b""),
                ("documentation/index.html", b""),
            ]),
        );
        let contents = inspect(&fmu, &ExtractOptions::default()).unwrap();
        assert_eq!(contents.description.model_name, "M");
        assert!(contents.description.capabilities.can_get_and_set_fmu_state);
        assert_eq!(
            contents.description.generation_tool.as_deref(),
            Some("T & U")
        );
        assert_eq!(
            contents.generation_date_and_time.as_deref(),
            Some("2024-05-02T10:11:12Z")
        );
        assert_eq!(contents.model_version.as_deref(), Some("1.2.3"));
        assert_eq!(
            contents.platforms,
            ["darwin64", "linux64", "win64", "x86_64-linux"]
        );
        assert_eq!(
            contents.source_files,
            ["sources/m.c", "sources/include/m.h"]
        );
        // Nothing was extracted next to the archive.
        let mut names: Vec<_> = fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names, ["test.fmu"]);
    }

    #[test]
    fn inspect_without_binaries_sources_or_optional_attributes() {
        let tmp = tempfile::tempdir().unwrap();
        let xml = String::from_utf8(DESCRIPTION_V2.to_vec())
            .unwrap()
            .replace(r#" version="1.2.3""#, "")
            .replace(r#"generationDateAndTime="2024-05-02T10:11:12Z""#, "");
        let mut bom = b"\xEF\xBB\xBF".to_vec();
        bom.extend_from_slice(xml.as_bytes());
        let fmu = write_fmu(tmp.path(), &build_zip(&[("modelDescription.xml", &bom)]));
        let contents = inspect(&fmu, &ExtractOptions::default()).unwrap();
        assert_eq!(contents.generation_date_and_time, None);
        assert_eq!(contents.model_version, None);
        assert!(contents.platforms.is_empty());
        assert!(contents.source_files.is_empty());
    }

    #[test]
    fn inspect_errors_name_the_archive() {
        let tmp = tempfile::tempdir().unwrap();
        let options = ExtractOptions::default();
        // Not a zip.
        let fmu = write_fmu(tmp.path(), b"just text");
        let err = inspect(&fmu, &options).unwrap_err();
        assert!(matches!(err, Error::Zip { .. }), "{err}");
        assert!(err.to_string().contains("test.fmu"), "{err}");
        // Empty.
        let fmu = write_fmu(tmp.path(), b"");
        let err = inspect(&fmu, &options).unwrap_err();
        assert!(matches!(err, Error::EmptyArchive { .. }), "{err}");
        // Missing.
        let err = inspect(&tmp.path().join("nope.fmu"), &options).unwrap_err();
        assert!(matches!(err, Error::Io { .. }), "{err}");
        assert!(err.to_string().contains("nope.fmu"), "{err}");
        // A directory.
        let err = inspect(tmp.path(), &options).unwrap_err();
        assert!(err.to_string().contains("is a directory"), "{err}");
        // No modelDescription.xml at the root (one in a folder does not count).
        let fmu = write_fmu(
            tmp.path(),
            &build_zip(&[("M/modelDescription.xml", DESCRIPTION_V2)]),
        );
        let err = inspect(&fmu, &options).unwrap_err();
        assert!(
            matches!(&err, Error::Io { source, .. } if source.kind() == io::ErrorKind::NotFound),
            "{err}"
        );
        assert!(
            err.to_string()
                .contains("test.fmu: the archive has no modelDescription.xml"),
            "{err}"
        );
        // Bad XML: named as the entry inside the archive, with the byte position.
        let fmu = write_fmu(
            tmp.path(),
            &build_zip(&[("modelDescription.xml", b"<fmiModelDescription fmiVersion=")]),
        );
        let err = inspect(&fmu, &options).unwrap_err();
        assert!(matches!(err, Error::Xml { .. }), "{err}");
        assert!(
            err.to_string()
                .contains("test.fmu/modelDescription.xml: malformed XML"),
            "{err}"
        );
        // Not UTF-8 and not declared Latin-1.
        let fmu = write_fmu(
            tmp.path(),
            &build_zip(&[("modelDescription.xml", b"<a b=\"\xff\"/>")]),
        );
        let err = inspect(&fmu, &options).unwrap_err();
        assert!(err.to_string().contains("not valid UTF-8"), "{err}");
    }

    #[test]
    fn inspect_limits_the_bytes_read_and_decodes_latin1() {
        let tmp = tempfile::tempdir().unwrap();
        let fmu = write_fmu(
            tmp.path(),
            &build_zip(&[("modelDescription.xml", DESCRIPTION_V2)]),
        );
        let options = ExtractOptions {
            max_total_size: 100,
        };
        let err = inspect(&fmu, &options).unwrap_err();
        assert!(
            matches!(&err, Error::ArchiveTooLarge { entry, limit: 100, .. } if entry == "modelDescription.xml"),
            "{err}"
        );
        let options = ExtractOptions {
            max_total_size: DESCRIPTION_V2.len() as u64,
        };
        inspect(&fmu, &options).unwrap();
        // Latin-1, as declared: 'é' is one byte.
        let xml = String::from_utf8(DESCRIPTION_V2.to_vec())
            .unwrap()
            .replace("UTF-8", "ISO-8859-1")
            .replace(r#"modelName="M""#, "modelName=\"M\u{e9}\"");
        let bytes: Vec<u8> = xml.chars().map(|c| c as u8).collect();
        let fmu = write_fmu(tmp.path(), &build_zip(&[("modelDescription.xml", &bytes)]));
        let contents = inspect(&fmu, &ExtractOptions::default()).unwrap();
        assert_eq!(contents.description.model_name, "M\u{e9}");
    }

    #[test]
    fn missing_archive_is_io_error() {
        let tmp = tempfile::tempdir().unwrap();
        let err = extract(
            &tmp.path().join("nope.fmu"),
            &tmp.path().join("out"),
            &ExtractOptions::default(),
        )
        .unwrap_err();
        assert!(matches!(err, Error::Io { .. }), "{err}");
    }
}
