//! FMU archives: entries that try to leave the working directory, zip bombs (one large entry,
//! many small ones, overlapping entries, central directory records sharing one local header,
//! an entry larger than it declares, in an FMU and in an SSP archive), names listed twice,
//! corrupt and empty files, missing parts, libraries that do not load or lack functions, and
//! a second instance of a once-per-process FMU. Most start from a copy of the own `Gain.fmu`
//! (FMI 2.0) or `Oscillator.fmu` (FMI 1.0).
//!
//! Size limits: the bomb rows run with `--max-fmu-size 1` (1 MiB). An archive whose entries
//! declare more in all is refused before anything is written; entries that share bytes are
//! refused as such; an entry that inflates past the size it declares is corrupt. The test
//! `a_refused_archive_leaves_nothing_and_keeps_the_earlier_extraction` checks what is on disk
//! afterwards.

pub(super) mod raw_zip;

use raw_zip::RawZip;

use super::rows::{
    Case, Input, Sandbox, case, check_table, fmu_entries, fmu_project, fmu_project_text,
    packed_fmu, patched_entries, repeated_part, replace_once, zip_bytes,
};

/// `Gain.fmu`'s entries, stored, followed by what `more` adds.
fn gain_and(more: impl FnOnce(&mut RawZip)) -> Vec<u8> {
    let mut zip = RawZip::default();
    for (name, bytes) in fmu_entries("Gain") {
        zip.stored(&name, &bytes);
    }
    more(&mut zip);
    zip.finish()
}

/// The bytes of `Gain.fmu`'s `modelDescription.xml`.
pub(super) fn gain_description() -> Vec<u8> {
    fmu_entries("Gain")
        .into_iter()
        .find(|(name, _)| name == "modelDescription.xml")
        .expect("Gain has a model description")
        .1
}

/// A project of one slave of `bad.fmu`: `Gain.fmu`'s entries and what `more` adds.
fn gain_with(s: &Sandbox, more: impl FnOnce(&mut RawZip)) -> Input {
    raw_fmu_project(s, &gain_and(more))
}

/// A minimal SSP system of one `Gain` component, packed as `sys.ssp` with `Gain.fmu` in
/// `resources/` and what `more` adds.
fn ssp_with(s: &Sandbox, more: impl FnOnce(&mut RawZip)) -> Input {
    let ssd = r#"<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription name="one" version="1.0"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription">
  <ssd:System name="One">
    <ssd:Elements>
      <ssd:Component name="G" source="resources/Gain.fmu"/>
    </ssd:Elements>
  </ssd:System>
  <ssd:DefaultExperiment startTime="0" stopTime="1"/>
</ssd:SystemStructureDescription>
"#;
    let mut zip = RawZip::default();
    zip.stored("SystemStructure.ssd", ssd.as_bytes());
    zip.stored("resources/Gain.fmu", &packed_fmu("Gain"));
    more(&mut zip);
    Input::project(s.write("sys.ssp", &zip.finish()))
}

/// 64 entries of 32 KiB of zeros each: 2 MiB in all, a few KiB in the archive.
fn many_small(zip: &mut RawZip) {
    let zeros = vec![0u8; 32 << 10];
    for k in 0..64 {
        zip.deflated_declaring(&format!("resources/small/{k:02}.bin"), &zeros, zeros.len());
    }
}

/// `Gain.fmu` with one extra entry named exactly `name` placed first. The zip writer may
/// normalise names, so the entry is written under a placeholder of the same length whose two
/// copies (local header, central directory) are then overwritten byte for byte.
fn gain_with_raw_entry(name: &str) -> Vec<u8> {
    let placeholder = "q".repeat(name.len());
    let mut entries = vec![(placeholder.clone(), b"evil".to_vec())];
    entries.extend(fmu_entries("Gain"));
    let mut bytes = zip_bytes(&entries);
    let positions: Vec<usize> = bytes
        .windows(placeholder.len())
        .enumerate()
        .filter(|(_, w)| *w == placeholder.as_bytes())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(
        positions.len(),
        2,
        "placeholder in local header and directory"
    );
    for at in positions {
        bytes[at..at + name.len()].copy_from_slice(name.as_bytes());
    }
    bytes
}

/// A project of one slave of `bad.fmu` written from raw archive bytes.
fn raw_fmu_project(sandbox: &Sandbox, bytes: &[u8]) -> Input {
    sandbox.write("bad.fmu", bytes);
    sandbox.project(&fmu_project_text(1))
}

/// Gain's entries with the library moved or renamed.
fn gain_with_library_at(path: &str) -> Vec<(String, Vec<u8>)> {
    fmu_entries("Gain")
        .into_iter()
        .map(|(name, bytes)| match name.ends_with(".so") {
            true => (path.to_owned(), bytes),
            false => (name, bytes),
        })
        .collect()
}

/// The compiled library of an own FMU.
fn library_of(model: &str) -> Vec<u8> {
    fmu_entries(model)
        .into_iter()
        .find(|(name, _)| name.ends_with(".so"))
        .expect("own FMU has a linux64 library")
        .1
}

fn cases() -> Vec<Case> {
    vec![
        case(
            "parent_dir_entry",
            2,
            "bad.fmu",
            "refusing archive entry '../../../../hostile-",
            &["the path leaves the target directory"],
            |s| {
                // From wd/fmus/bad, four '..' reach the parent of the sandbox.
                let name = format!("../../../../{}", s.unique_name("dotdot"));
                let target = s.outside().join(s.unique_name("dotdot"));
                raw_fmu_project(s, &gain_with_raw_entry(&name)).must_not_create(target)
            },
        ),
        case(
            "absolute_entry",
            2,
            "bad.fmu",
            "refusing archive entry '/",
            &["absolute paths are not allowed"],
            |s| {
                let target = s.outside().join(s.unique_name("absolute"));
                let name = target.to_str().expect("UTF-8 temp path").to_owned();
                raw_fmu_project(s, &gain_with_raw_entry(&name)).must_not_create(target)
            },
        ),
        case(
            // The file exists: the harness checks that its content is unchanged.
            "absolute_entry_aimed_at_the_sentinel",
            2,
            "bad.fmu",
            "refusing archive entry '/",
            &["sentinel/keep.txt'", "absolute paths are not allowed"],
            |s| {
                let target = s.sentinel().join("keep.txt");
                assert!(target.is_file(), "the sandbox has its sentinel");
                let name = target.to_str().expect("UTF-8 temp path").to_owned();
                raw_fmu_project(s, &gain_with_raw_entry(&name))
            },
        ),
        case(
            "symlink_entry_then_write_through_it",
            2,
            "bad.fmu",
            "refusing archive entry 'escape'",
            &["symbolic links are not allowed"],
            |s| {
                let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
                let options = zip::write::SimpleFileOptions::default();
                let outside = s.outside();
                writer
                    .add_symlink("escape", outside.to_str().expect("UTF-8"), options)
                    .expect("symlink entry");
                writer
                    .start_file(format!("escape/{}", s.unique_name("symlink")), options)
                    .expect("entry through the link");
                std::io::Write::write_all(&mut writer, b"evil").expect("data");
                for (name, bytes) in fmu_entries("Gain") {
                    writer.start_file(name, options).expect("entry");
                    std::io::Write::write_all(&mut writer, &bytes).expect("data");
                }
                let bytes = writer.finish().expect("zip").into_inner();
                raw_fmu_project(s, &bytes).must_not_create(outside.join(s.unique_name("symlink")))
            },
        ),
        case(
            "one_entry_over_max_fmu_size",
            2,
            "bad.fmu",
            "its entries declare",
            &[
                "more than the limit of 1048576 bytes (1 MiB) on what one archive may extract to",
                "nothing was extracted",
            ],
            |s| {
                // 4 MiB of zeros deflate to a few KiB; the limit is 1 MiB.
                let mut entries = fmu_entries("Gain");
                entries.push(("resources/bomb.bin".to_owned(), vec![0u8; 4 << 20]));
                fmu_project(s, &entries, 1).args(&["--max-fmu-size", "1"])
            },
        ),
        case(
            "many_small_entries_over_max_fmu_size",
            2,
            "bad.fmu",
            "its entries declare",
            &[
                "more than the limit of 1048576 bytes (1 MiB)",
                "nothing was extracted",
            ],
            |s| gain_with(s, many_small).args(&["--max-fmu-size", "1"]),
        ),
        case(
            // 16 entries of 1 MiB each, one kernel in the archive (Fifield's construction):
            // the declared sizes are true and add up to 16 MiB.
            "overlapping_entries_bomb_over_max_fmu_size",
            2,
            "bad.fmu",
            "its entries declare",
            &[
                "more than the limit of 1048576 bytes (1 MiB)",
                "nothing was extracted",
            ],
            |s| {
                gain_with(s, |z| {
                    z.overlapping("resources/bomb/", 16, 1 << 20);
                })
                .args(&["--max-fmu-size", "1"])
            },
        ),
        case(
            // Within every limit, still refused: entries that share bytes.
            "overlapping_entries_within_the_limit",
            2,
            "bad.fmu",
            "archive entry 'resources/bomb/000.bin' overlaps archive entry 'resources/bomb/001.bin'",
            &["the entries of a valid zip archive never share bytes"],
            |s| {
                gain_with(s, |z| {
                    z.overlapping("resources/bomb/", 4, 64 << 10);
                })
            },
        ),
        case(
            "central_directory_records_share_one_local_header",
            2,
            "bad.fmu",
            "overlaps archive entry",
            &["never share bytes"],
            |s| {
                gain_with(s, |z| {
                    z.shared_header(
                        "resources/a.bin",
                        &["resources/b.bin", "resources/c.bin"],
                        &[7u8; 4096],
                    );
                })
            },
        ),
        case(
            "entry_larger_than_it_declares",
            2,
            "bad.fmu",
            "archive entry 'resources/liar.bin' is corrupt",
            &["larger than its declared uncompressed size"],
            |s| {
                gain_with(s, |z| {
                    z.deflated_declaring("resources/liar.bin", &[0u8; 1 << 20], 1000);
                })
            },
        ),
        case(
            // The one-component system runs: the rows below fail for their bombs alone.
            "ssp_archive_without_bomb_runs",
            0,
            "",
            "",
            &[],
            |s| ssp_with(s, |_| {}),
        ),
        case(
            "ssp_archive_overlapping_entries",
            2,
            "sys.ssp",
            "overlaps archive entry",
            &["never share bytes"],
            |s| {
                ssp_with(s, |z| {
                    z.overlapping("bomb/", 16, 1 << 20);
                })
            },
        ),
        case(
            "ssp_archive_many_small_entries_over_max_fmu_size",
            2,
            "sys.ssp",
            "its entries declare",
            &[
                "more than the limit of 1048576 bytes (1 MiB)",
                "nothing was extracted",
            ],
            |s| ssp_with(s, many_small).args(&["--max-fmu-size", "1"]),
        ),
        case(
            "two_model_descriptions_with_different_content",
            2,
            "bad.fmu",
            "archive entry 'modelDescription.xml' is listed twice (entries #2 and #3 of the central directory)",
            &["with different content", "which one is meant is ambiguous"],
            |s| {
                let other = patched_entries("Gain", |x| {
                    x.replacen("modelName=\"Gain\"", "modelName=\"Other\"", 1)
                });
                let (_, xml) = other
                    .into_iter()
                    .find(|(n, _)| n == "modelDescription.xml")
                    .expect("description");
                gain_with(s, |z| {
                    z.stored("modelDescription.xml", &xml);
                })
            },
        ),
        case(
            "model_description_and_dot_slash_model_description",
            2,
            "bad.fmu",
            "archive entry 'modelDescription.xml' is listed twice",
            &["with different content"],
            |s| {
                gain_with(s, |z| {
                    z.stored("./modelDescription.xml", b"<fmiModelDescription/>");
                })
            },
        ),
        case(
            // The same bytes twice: extracted once, with a warning (checked in
            // `identical_duplicates_give_one_warning`).
            "two_identical_model_descriptions_run",
            0,
            "",
            "",
            &[],
            |s| {
                let xml = gain_description();
                gain_with(s, |z| {
                    z.stored("modelDescription.xml", &xml);
                })
            },
        ),
        case(
            "two_libraries_of_one_path",
            2,
            "bad.fmu",
            "archive entry 'binaries/linux64/Gain.so' is listed twice",
            &["with different content", "which one is meant is ambiguous"],
            |s| {
                gain_with(s, |z| {
                    z.stored("binaries/linux64/Gain.so", &library_of("Oscillator"));
                })
            },
        ),
        case(
            "random_bytes",
            2,
            "bad.fmu",
            "not a valid FMU archive (zip)",
            &["invalid Zip archive"],
            |s| {
                // Deterministic pseudo-random bytes (xorshift), no zip signature in them.
                let mut x = 0x2545_f491_4f6c_dd1d_u64;
                let bytes: Vec<u8> = (0..4096)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        (x >> 24) as u8
                    })
                    .collect();
                raw_fmu_project(s, &bytes)
            },
        ),
        case(
            "truncated_real_fmu",
            2,
            "bad.fmu",
            "not a valid FMU archive (zip)",
            &["invalid Zip archive"],
            |s| {
                let bytes = packed_fmu("Gain");
                raw_fmu_project(s, &bytes[..bytes.len() / 2])
            },
        ),
        case(
            "corrupt_library_data",
            2,
            "bad.fmu",
            "archive entry 'binaries/linux64/Gain.so' is corrupt",
            &[],
            |s| {
                let mut bytes = zip_bytes(&fmu_entries("Gain"));
                let name = b"binaries/linux64/Gain.so";
                let start = bytes
                    .windows(name.len())
                    .position(|w| w == name)
                    .expect("local header of the library")
                    + name.len();
                for b in &mut bytes[start + 2000..start + 2064] {
                    *b ^= 0x5a;
                }
                raw_fmu_project(s, &bytes)
            },
        ),
        case(
            "empty_file",
            2,
            "bad.fmu",
            "the file is empty (0 bytes)",
            &["expected an FMU archive (zip)"],
            |s| raw_fmu_project(s, b""),
        ),
        case(
            "missing_model_description",
            2,
            "bad.fmu",
            "modelDescription.xml",
            &["missing modelDescription.xml"],
            |s| {
                let mut entries = fmu_entries("Gain");
                entries.retain(|(name, _)| name != "modelDescription.xml");
                fmu_project(s, &entries, 1)
            },
        ),
        // No linux64 binary: the win64 one is tried in a helper under Wine where Wine is
        // installed (this "library" is not a Windows DLL, so it does not load), else the FMU is
        // refused with what to install. Either way exit 2 naming the FMU and its win64 binary.
        case(
            "only_windows_and_mac_binaries",
            2,
            "bad.fmu",
            "win64",
            &["binaries"],
            |s| {
                let mut entries = gain_with_library_at("binaries/win64/Gain.dll");
                entries.push(("binaries/darwin64/Gain.dylib".to_owned(), b"x".to_vec()));
                fmu_project(s, &entries, 1)
            },
        ),
        case(
            "no_binaries_folder",
            2,
            "bad.fmu",
            "binaries/linux64/Gain.so",
            &["the FMU has no 'binaries' folder"],
            |s| {
                let mut entries = fmu_entries("Gain");
                entries.retain(|(name, _)| !name.starts_with("binaries/"));
                fmu_project(s, &entries, 1)
            },
        ),
        case(
            "garbage_library",
            2,
            "bad.fmu",
            "binaries/linux64/Gain.so",
            &[
                "cannot load shared library",
                "invalid ELF header",
                "maybe missing dependencies, check with ldd",
            ],
            |s| {
                let mut entries = fmu_entries("Gain");
                for (name, bytes) in &mut entries {
                    if name.ends_with(".so") {
                        *bytes = b"this is not an ELF shared object".repeat(64);
                    }
                }
                fmu_project(s, &entries, 1)
            },
        ),
        case(
            "fmi2_description_with_fmi1_library",
            2,
            "bad.fmu",
            "binaries/linux64/Gain.so",
            &["missing required function 'fmi2"],
            |s| {
                // The FMI 1.0 Oscillator exports only `Oscillator_fmi…` symbols.
                let mut entries = gain_with_library_at("binaries/linux64/Gain.so");
                for (name, bytes) in &mut entries {
                    if name.ends_with(".so") {
                        *bytes = library_of("Oscillator");
                    }
                }
                fmu_project(s, &entries, 1)
            },
        ),
        case(
            "fmi1_library_under_another_model_identifier",
            2,
            "bad.fmu",
            "binaries/linux64/Other.so",
            &["missing required function 'Other_fmi"],
            |s| {
                // FMI 1.0 symbols carry the model identifier: `Other_fmiDoStep` does not exist.
                let mut entries = patched_entries("Oscillator", |xml| {
                    replace_once(
                        xml,
                        "modelIdentifier=\"Oscillator\"",
                        "modelIdentifier=\"Other\"",
                    )
                });
                for (name, _) in &mut entries {
                    if name.ends_with(".so") {
                        *name = "binaries/linux64/Other.so".to_owned();
                    }
                }
                fmu_project(s, &entries, 1)
            },
        ),
        case(
            "second_instance_of_once_per_process_fmu",
            2,
            "fmus/bad",
            "instance 'S2'",
            &["may only be instantiated once per process"],
            |s| {
                let entries = patched_entries("Gain", |xml| {
                    replace_once(
                        xml,
                        "canBeInstantiatedOnlyOncePerProcess=\"false\"",
                        "canBeInstantiatedOnlyOncePerProcess=\"true\"",
                    )
                });
                fmu_project(s, &entries, 2)
            },
        ),
        case(
            "once_per_process_fmu_with_one_instance_runs",
            0,
            "",
            "",
            &[],
            |s| {
                let entries = patched_entries("Gain", |xml| {
                    replace_once(
                        xml,
                        "canBeInstantiatedOnlyOncePerProcess=\"false\"",
                        "canBeInstantiatedOnlyOncePerProcess=\"true\"",
                    )
                });
                fmu_project(s, &entries, 1)
            },
        ),
        case(
            "fmu_path_is_a_directory",
            2,
            "bad.msim:4:",
            "'S1'",
            &["dir.fmu"],
            |s| {
                std::fs::create_dir_all(s.dir().join("dir.fmu")).expect("mkdir");
                s.project(&fmu_project_text(1).replace("bad.fmu", "dir.fmu"))
            },
        ),
    ]
}

#[test]
fn hostile_fmu_archives() {
    check_table("archives", cases());
}

/// Each cause of an error chain is printed once. Today `fmi::Error` and `master::Error::Import`
/// include their source in their message *and* return it from `source()`, and the CLI prints
/// the chain with `{:#}`, so every cause appears two or three times on the line.
#[test]
fn error_chain_is_printed_once() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let fmu = tmp.path().join("bad.fmu");
    std::fs::write(&fmu, b"not a zip").expect("write");
    let project = tmp.path().join("bad.msim");
    std::fs::write(&project, fmu_project_text(1)).expect("write");
    let run = mastersim_tests::run_mastersim(&project, &tmp.path().join("wd"), &[]);
    let stderr = run.stderr();
    assert_eq!(run.code(), 2, "{stderr}");
    assert_eq!(repeated_part(&stderr), None, "{stderr}");
}

/// The overlapping-entry bomb of the rows is a real one: read through its central directory,
/// every entry inflates to the size it declares, with a matching CRC-32, while the archive
/// holds the kernel once.
#[test]
fn the_overlapping_bomb_inflates_to_its_declared_sizes() {
    use std::io::Read as _;
    let mut zip = RawZip::default();
    zip.overlapping("bomb/", 16, 1 << 20);
    let bytes = zip.finish();
    assert!(bytes.len() < 8 << 10, "{} bytes", bytes.len());
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a zip archive");
    assert_eq!(archive.len(), 16);
    let mut inflated = 0u64;
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).expect("entry");
        let declared = entry.size();
        let mut data = Vec::new();
        // The zip crate checks the CRC-32 at the end of the data.
        entry
            .read_to_end(&mut data)
            .expect("inflates with a valid CRC-32");
        assert_eq!(data.len() as u64, declared, "entry {i}");
        assert!(
            data.ends_with(&[0u8; 1 << 20]),
            "entry {i} ends with the kernel"
        );
        inflated += declared;
    }
    assert!(inflated > 16 << 20, "{inflated}");
}

/// Every file below `dir` with its content, for comparing directory trees.
fn tree(dir: &std::path::Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                todo.push(path);
            } else {
                let bytes = std::fs::read(&path).expect("read");
                out.push((path.strip_prefix(dir).expect("below").to_path_buf(), bytes));
            }
        }
    }
    out.sort();
    out
}

/// A refused archive leaves nothing of itself in `<wd>/fmus`, and an earlier extraction of
/// the same FMU name stays as it was: refused before writing (sizes, overlaps, a name twice)
/// or after extracting part of it (an entry larger than it declares).
#[test]
fn a_refused_archive_leaves_nothing_and_keeps_the_earlier_extraction() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = tmp.path().join("bad.msim");
    std::fs::write(&project, fmu_project_text(1)).expect("write");
    let fmu = tmp.path().join("bad.fmu");
    let bombs: Vec<(&str, Vec<u8>, &[&str])> = vec![
        ("sizes", gain_and(many_small), &["--max-fmu-size", "1"]),
        (
            "overlaps",
            gain_and(|z| {
                z.overlapping("resources/bomb/", 4, 64 << 10);
            }),
            &[],
        ),
        (
            "a name twice",
            gain_and(|z| {
                z.stored("binaries/linux64/Gain.so", b"not the library");
            }),
            &[],
        ),
        (
            "a lying entry after the others",
            gain_and(|z| {
                z.deflated_declaring("resources/liar.bin", &[0u8; 1 << 20], 1000);
            }),
            &[],
        ),
    ];
    let wd = tmp.path().join("wd");
    std::fs::write(&fmu, packed_fmu("Gain")).expect("write");
    mastersim_tests::run_mastersim(&project, &wd, &[]).assert_success();
    let extracted = wd.join("fmus/bad");
    let before = tree(&extracted);
    assert!(
        before.iter().any(|(p, _)| p.ends_with("Gain.so")),
        "{before:?}"
    );
    for (what, bytes, args) in &bombs {
        std::fs::write(&fmu, bytes).expect("write");
        let run = mastersim_tests::run_mastersim(&project, &wd, args);
        assert_eq!(run.code(), 2, "{what}: {}", run.said());
        assert!(
            tree(&extracted) == before,
            "{what}: the earlier extraction changed"
        );
        let names: Vec<_> = std::fs::read_dir(wd.join("fmus"))
            .expect("fmus")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, ["bad"], "{what}: something was left beside it");
        // In a fresh working directory: no file at all in fmus/.
        let fresh = tmp.path().join("fresh");
        let run = mastersim_tests::run_mastersim(&project, &fresh, args);
        assert_eq!(run.code(), 2, "{what}: {}", run.said());
        assert!(tree(&fresh.join("fmus")).is_empty(), "{what}");
        std::fs::remove_dir_all(&fresh).expect("remove");
    }
}

/// A path listed twice with the same content is extracted once, with one warning naming the
/// archive and the entry.
#[test]
fn identical_duplicates_give_one_warning() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let project = tmp.path().join("bad.msim");
    std::fs::write(&project, fmu_project_text(1)).expect("write");
    let xml = gain_description();
    std::fs::write(
        tmp.path().join("bad.fmu"),
        gain_and(|z| {
            z.stored("modelDescription.xml", &xml);
        }),
    )
    .expect("write");
    let run = mastersim_tests::run_mastersim(&project, &tmp.path().join("wd"), &[]);
    run.assert_success();
    let warning = "bad.fmu: the archive lists entry 'modelDescription.xml' twice with the same \
                   size and CRC-32; extracted once";
    assert_eq!(run.said().matches(warning).count(), 1, "{}", run.said());
}
