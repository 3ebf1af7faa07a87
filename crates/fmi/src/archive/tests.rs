//! Tests of archive extraction and inspection.

use super::*;
use std::io::{Cursor, Write};
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
fn refuses_declared_sizes_over_the_limit_before_writing() {
    let tmp = tempfile::tempdir().unwrap();
    let big = vec![0u8; 10_000];
    let fmu = write_fmu(tmp.path(), &build_zip(&[("a.bin", &big), ("b.bin", &big)]));
    let options = ExtractOptions {
        max_total_size: 15_000,
    };
    let err = extract(&fmu, &tmp.path().join("out"), &options).unwrap_err();
    assert!(
        matches!(
            &err,
            Error::ArchiveTooLarge {
                entry: None,
                declared: 20_000,
                limit: 15_000,
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.to_string().contains(
            "test.fmu: its entries declare 20000 bytes (19.5 KiB) of content in all, more than \
             the limit of 15000 bytes (14.6 KiB) on what one archive may extract to; nothing \
             was extracted"
        ),
        "{err}"
    );
    // Nothing was written: no target, no staging directory.
    assert_eq!(listing(tmp.path()), ["test.fmu"]);
    // Exactly at the limit is fine.
    let options = ExtractOptions {
        max_total_size: 20_000,
    };
    extract(&fmu, &tmp.path().join("out2"), &options).unwrap();
    assert_eq!(fs::read(tmp.path().join("out2/b.bin")).unwrap(), big);
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
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
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
        matches!(&err, Error::DescriptionTooLarge { path, limit: 100, declared: true, .. }
            if path.ends_with("test.fmu/modelDescription.xml")),
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

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Replaces every occurrence of `from` in `bytes` by `to` (of the same length).
fn replace_all(bytes: &mut [u8], from: &[u8], to: &[u8]) -> usize {
    assert_eq!(from.len(), to.len());
    let mut count = 0;
    let mut i = 0;
    while i + from.len() <= bytes.len() {
        if &bytes[i..i + from.len()] == from {
            bytes[i..i + from.len()].copy_from_slice(to);
            count += 1;
            i += from.len();
        } else {
            i += 1;
        }
    }
    count
}

/// The position of the central directory record of the entry named `name` (its second
/// occurrence in `bytes`: the first is in the local header).
fn central_record(bytes: &[u8], name: &[u8]) -> usize {
    let hits: Vec<usize> = bytes
        .windows(name.len())
        .enumerate()
        .filter(|(_, w)| *w == name)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(hits.len(), 2, "local header and central record");
    let record = hits[1] - 46;
    assert_eq!(&bytes[record..record + 4], b"PK\x01\x02");
    record
}

fn set_u32(bytes: &mut [u8], at: usize, value: u32) {
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

/// A stored entry whose data is damaged: its checksum no longer matches.
fn zip_with_corrupt_second_entry() -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    writer.start_file("a.txt", stored).unwrap();
    writer.write_all(b"uno").unwrap();
    writer.start_file("d/b.txt", stored).unwrap();
    writer.write_all(&[7u8; 4096]).unwrap();
    let mut bytes = writer.finish().unwrap().into_inner();
    let start = bytes.windows(7).position(|w| w == b"d/b.txt").unwrap() + 7;
    bytes[start + 100] ^= 0xff;
    bytes
}

#[test]
fn a_failed_extraction_leaves_the_earlier_one_and_nothing_of_its_own() {
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("out");
    let fmu = write_fmu(
        tmp.path(),
        &build_zip(&[("a.txt", b"one"), ("d/b.txt", b"two")]),
    );
    extract(&fmu, &target, &ExtractOptions::default()).unwrap();
    fs::write(target.join("mine.txt"), b"the user's").unwrap();
    let fmu = write_fmu(tmp.path(), &zip_with_corrupt_second_entry());
    let err = extract(&fmu, &target, &ExtractOptions::default()).unwrap_err();
    assert!(
        matches!(&err, Error::CorruptEntry { entry, .. } if entry == "d/b.txt"),
        "{err}"
    );
    // 'a.txt' had been extracted (into the staging directory) before 'd/b.txt' failed.
    assert_eq!(fs::read(target.join("a.txt")).unwrap(), b"one");
    assert_eq!(fs::read(target.join("d/b.txt")).unwrap(), b"two");
    assert_eq!(fs::read(target.join("mine.txt")).unwrap(), b"the user's");
    assert_eq!(listing(tmp.path()), ["out", "test.fmu"]);
    assert!(
        target.join(STAMP).is_file(),
        "the earlier extraction keeps its stamp"
    );
    // A fresh target: nothing at all stays.
    let err = extract(&fmu, &tmp.path().join("fresh"), &ExtractOptions::default()).unwrap_err();
    assert!(matches!(err, Error::CorruptEntry { .. }), "{err}");
    assert_eq!(listing(tmp.path()), ["out", "test.fmu"]);
    // A staging directory left by a killed extraction is replaced.
    fs::create_dir_all(tmp.path().join(".out.extracting/old")).unwrap();
    let fmu = write_fmu(tmp.path(), &build_zip(&[("a.txt", b"eins")]));
    extract(&fmu, &target, &ExtractOptions::default()).unwrap();
    assert_eq!(fs::read(target.join("a.txt")).unwrap(), b"eins");
    assert_eq!(listing(tmp.path()), ["out", "test.fmu"]);
    assert_eq!(
        listing(&target),
        [STAMP, "a.txt", "d", "mine.txt"],
        "files the archive does not have stay"
    );
}

#[test]
fn an_entry_inflating_past_its_declared_size_is_corrupt() {
    let mut bytes = build_zip(&[("a.bin", &[0u8; 100_000])]);
    // Declare 1000 bytes in the local header and the central directory.
    let record = central_record(&bytes, b"a.bin");
    set_u32(&mut bytes, record + 24, 1000);
    set_u32(&mut bytes, 22, 1000);
    let tmp = tempfile::tempdir().unwrap();
    let fmu = write_fmu(tmp.path(), &bytes);
    let err = extract(&fmu, &tmp.path().join("out"), &ExtractOptions::default()).unwrap_err();
    assert!(
        matches!(&err, Error::CorruptEntry { entry, .. } if entry == "a.bin"),
        "{err}"
    );
    assert!(
        err.to_string().contains("declared uncompressed size"),
        "{err}"
    );
    assert_eq!(listing(tmp.path()), ["test.fmu"]);
}

#[test]
fn overlapping_entries_are_refused_before_writing() {
    let tmp = tempfile::tempdir().unwrap();
    // 'b.bin' points at the local header and data of 'a.bin'.
    let mut bytes = build_zip(&[("a.bin", &[1u8; 5000]), ("b.bin", &[2u8; 5000])]);
    let record = central_record(&bytes, b"b.bin");
    set_u32(&mut bytes, record + 42, 0);
    let fmu = write_fmu(tmp.path(), &bytes);
    let err = extract(&fmu, &tmp.path().join("out"), &ExtractOptions::default()).unwrap_err();
    assert!(
        matches!(&err, Error::OverlappingEntries { first, second: Some(second), .. }
            if first == "a.bin" && second == "b.bin"),
        "{err}"
    );
    assert!(
        err.to_string().contains(
            "test.fmu: archive entry 'a.bin' overlaps archive entry 'b.bin'; the entries of a \
             valid zip archive never share bytes"
        ),
        "{err}"
    );
    assert_eq!(listing(tmp.path()), ["test.fmu"]);
    let err = inspect(&fmu, &ExtractOptions::default()).unwrap_err();
    assert!(matches!(err, Error::OverlappingEntries { .. }), "{err}");
    // An entry whose data runs into the central directory.
    let mut bytes = build_zip(&[("a.bin", &[1u8; 5000])]);
    let record = central_record(&bytes, b"a.bin");
    let compressed = u32::from_le_bytes(bytes[record + 20..record + 24].try_into().unwrap());
    set_u32(&mut bytes, record + 20, compressed + 10);
    let fmu = write_fmu(tmp.path(), &bytes);
    let err = extract(&fmu, &tmp.path().join("out"), &ExtractOptions::default()).unwrap_err();
    assert!(
        matches!(&err, Error::OverlappingEntries { second: None, .. }),
        "{err}"
    );
    assert!(
        err.to_string().contains("overlaps the central directory"),
        "{err}"
    );
}

#[test]
fn a_name_listed_twice_is_refused_unless_the_content_is_the_same() {
    let tmp = tempfile::tempdir().unwrap();
    // Raw names listed twice (the zip crate itself keeps only the last).
    let mut bytes = build_zip(&[("a.txt", b"one"), ("b.txt", b"four"), ("c.txt", b"x")]);
    assert_eq!(replace_all(&mut bytes, b"b.txt", b"a.txt"), 2);
    let fmu = write_fmu(tmp.path(), &bytes);
    let err = extract(&fmu, &tmp.path().join("out"), &ExtractOptions::default()).unwrap_err();
    assert!(
        matches!(&err, Error::DuplicateEntry { entry, first: 1, second: 2, .. } if entry == "a.txt"),
        "{err}"
    );
    assert!(
        err.to_string().contains(
            "test.fmu: archive entry 'a.txt' is listed twice (entries #1 and #2 of the central \
             directory) with different content (3 and 4 bytes); which one is meant is ambiguous"
        ),
        "{err}"
    );
    assert_eq!(listing(tmp.path()), ["test.fmu"]);
    assert!(matches!(
        inspect(&fmu, &ExtractOptions::default()).unwrap_err(),
        Error::DuplicateEntry { .. }
    ));
    // The same content twice: extracted once.
    let mut bytes = build_zip(&[("a.txt", b"one"), ("b.txt", b"one"), ("c.txt", b"x")]);
    replace_all(&mut bytes, b"b.txt", b"a.txt");
    let fmu = write_fmu(tmp.path(), &bytes);
    extract(&fmu, &tmp.path().join("out"), &ExtractOptions::default()).unwrap();
    assert_eq!(fs::read(tmp.path().join("out/a.txt")).unwrap(), b"one");
    assert_eq!(listing(&tmp.path().join("out")), [STAMP, "a.txt", "c.txt"]);

    // Names that differ but extract to one path ('d\a.txt' is 'd/a.txt').
    for (second, fails) in [(&b"two"[..], true), (&b"one"[..], false)] {
        let mut bytes = build_zip(&[("d/a.txt", b"one"), ("d_a.txt", second)]);
        replace_all(&mut bytes, b"d_a.txt", b"d\\a.txt");
        let fmu = write_fmu(tmp.path(), &bytes);
        let out = tmp.path().join("out2");
        let result = extract(&fmu, &out, &ExtractOptions::default());
        if fails {
            let err = result.unwrap_err();
            assert!(
                matches!(&err, Error::DuplicateEntry { entry, first: 1, second: 2, .. } if entry == "d/a.txt"),
                "{err}"
            );
            assert!(!out.exists());
        } else {
            result.unwrap();
            assert_eq!(fs::read(out.join("d/a.txt")).unwrap(), b"one");
        }
    }
    // A directory and a file of one path.
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    writer
        .add_directory("x/", SimpleFileOptions::default())
        .unwrap();
    writer
        .start_file("x", SimpleFileOptions::default())
        .unwrap();
    writer.write_all(b"file").unwrap();
    let fmu = write_fmu(tmp.path(), &writer.finish().unwrap().into_inner());
    let err = extract(&fmu, &tmp.path().join("out3"), &ExtractOptions::default()).unwrap_err();
    assert!(
        err.to_string()
            .contains("once as a directory and once as a file"),
        "{err}"
    );
}

#[test]
fn a_model_description_declaring_more_than_the_limit_is_not_read() {
    let tmp = tempfile::tempdir().unwrap();
    let mut bytes = build_zip(&[("modelDescription.xml", DESCRIPTION_V2)]);
    let record = central_record(&bytes, b"modelDescription.xml");
    set_u32(&mut bytes, record + 24, 300 << 20);
    set_u32(&mut bytes, 22, 300 << 20);
    let fmu = write_fmu(tmp.path(), &bytes);
    let expected = format!(
        "{}: the archive entry declares 314572800 bytes (300 MiB), more than the limit of \
         268435456 bytes (256 MiB) on a model description, which real ones stay far below; it \
         is not read",
        fmu.join("modelDescription.xml").display()
    );
    let err = extract(&fmu, &tmp.path().join("out"), &ExtractOptions::default()).unwrap_err();
    assert_eq!(err.to_string(), expected);
    assert_eq!(listing(tmp.path()), ["test.fmu"]);
    let err = inspect(&fmu, &ExtractOptions::default()).unwrap_err();
    assert_eq!(err.to_string(), expected);
}
