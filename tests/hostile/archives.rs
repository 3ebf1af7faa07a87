//! FMU archives: entries that try to leave the working directory, a zip bomb, corrupt and empty
//! files, missing parts, libraries that do not load or lack functions, and a second instance
//! of a once-per-process FMU. Most start from a copy of the own `Gain.fmu` (FMI 2.0) or
//! `Oscillator.fmu` (FMI 1.0).

use super::rows::{
    Case, Input, Sandbox, case, check_table, fmu_entries, fmu_project, fmu_project_text,
    packed_fmu, patched_entries, repeated_part, replace_once, zip_bytes,
};

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
            "zip_bomb_over_max_fmu_size",
            2,
            "bad.fmu",
            "(at entry 'resources/bomb.bin')",
            &["extracted content exceeds the limit of 1048576 bytes"],
            |s| {
                // 4 MiB of zeros deflate to a few KiB; the limit is 1 MiB.
                let mut entries = fmu_entries("Gain");
                entries.push(("resources/bomb.bin".to_owned(), vec![0u8; 4 << 20]));
                fmu_project(s, &entries, 1).args(&["--max-fmu-size", "1"])
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
        case(
            "only_windows_and_mac_binaries",
            2,
            "bad.fmu",
            "binaries/linux64/Gain.so",
            &[
                "shared library not found",
                "only has binaries for: darwin64, win64",
            ],
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
