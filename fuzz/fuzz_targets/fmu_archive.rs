//! Fuzzes opening an FMU: `fmi::archive::extract` and then, when extraction succeeds,
//! `fmi::Fmu::load` on the extracted directory.
//!
//! Any `Err` is a correct answer to bad input. Findings are panics, crashes, hangs,
//! out-of-memory, and anything written outside the extraction directory: after every input the
//! target checks that
//! - each directory on the way from the per-process sandbox down to the extraction directory
//!   holds only the one entry this target created there (so `..` escapes of up to
//!   [`NESTING`] + 1 levels are caught);
//! - nothing inside the extraction directory is a symbolic link.
//!
//! The sandbox is `$TMPDIR/mastersim-fuzz-archive-<pid>/`; sandboxes of processes that no longer
//! exist are removed when a new process starts. `max_total_size` is 16 MiB, so a zip bomb costs
//! little.
//!
//! `Fmu::load` ends in `dlopen` of `binaries/linux64/<modelIdentifier>.so`. Garbage there fails in
//! the loader's header check, which is fine to exercise; but the dynamic loader is not meant to
//! survive hostile ELF files and running a library's constructors is not what this target tests,
//! so when any extracted file starts with the ELF magic the target only parses the extracted
//! `modelDescription.xml` (`ModelDescription::from_file`) instead of calling `Fmu::load`.
#![no_main]

use std::ffi::OsString;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use fmi::archive::{ExtractOptions, extract};
use fmi::{Fmu, ModelDescription};
use libfuzzer_sys::fuzz_target;

/// Prefix of the per-process sandbox directory under `$TMPDIR`.
const SANDBOX_PREFIX: &str = "mastersim-fuzz-archive-";
/// Number of directories between the sandbox and the extraction directory.
const NESTING: usize = 4;
/// Extraction limit: bytes actually written per input.
const MAX_TOTAL_SIZE: u64 = 16 << 20;

/// Fixed paths of this process's sandbox.
struct Sandbox {
    /// `$TMPDIR/mastersim-fuzz-archive-<pid>`.
    root: PathBuf,
    /// The chain `root/d0/d1/…`, deepest last; the input file and `out/` live in the deepest.
    levels: Vec<PathBuf>,
    /// The fuzz input, written as a file (`extract` takes a path).
    input: PathBuf,
    /// The extraction directory, created by `extract` and removed after each input.
    out: PathBuf,
}

fn sandbox() -> &'static Sandbox {
    static SANDBOX: OnceLock<Sandbox> = OnceLock::new();
    SANDBOX.get_or_init(|| {
        let tmp = std::env::temp_dir();
        remove_stale_sandboxes(&tmp);
        let root = tmp.join(format!("{SANDBOX_PREFIX}{}", std::process::id()));
        if root.exists() {
            fs::remove_dir_all(&root).expect("invariant: can clear this process's sandbox");
        }
        let mut levels = Vec::with_capacity(NESTING);
        let mut dir = root.clone();
        for i in 0..NESTING {
            dir = dir.join(format!("d{i}"));
            levels.push(dir.clone());
        }
        fs::create_dir_all(&dir).expect("invariant: can create the sandbox");
        Sandbox {
            root,
            input: dir.join("input.fmu"),
            out: dir.join("out"),
            levels,
        }
    })
}

/// Removes sandboxes left by fuzzing processes that have ended (crashed or stopped).
fn remove_stale_sandboxes(tmp: &Path) {
    let Ok(entries) = fs::read_dir(tmp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(SANDBOX_PREFIX)) else {
            continue;
        };
        if pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists() {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// Names of the entries of `dir`, sorted.
fn entries(dir: &Path) -> Vec<OsString> {
    let mut names: Vec<OsString> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("invariant: readable directory entry").file_name())
        .collect();
    names.sort();
    names
}

/// Panics when a directory of the sandbox holds anything this target did not create.
fn assert_nothing_escaped(sandbox: &Sandbox) {
    let mut parent = &sandbox.root;
    for level in &sandbox.levels {
        let expected = vec![level.file_name().expect("invariant: named level").to_owned()];
        assert_eq!(
            entries(parent),
            expected,
            "the archive wrote outside its target directory, into {}",
            parent.display()
        );
        parent = level;
    }
    let deepest = entries(parent);
    assert!(
        deepest
            .iter()
            .all(|n| n.as_os_str() == "input.fmu" || n.as_os_str() == "out"),
        "the archive wrote outside its target directory, into {}: {deepest:?}",
        parent.display()
    );
}

/// Walks the extraction directory: panics on a symbolic link, and says whether any regular file
/// starts with the ELF magic.
fn check_extracted(dir: &Path) -> bool {
    let mut has_elf = false;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(list) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in list.flatten() {
            let path = entry.path();
            let kind = fs::symlink_metadata(&path)
                .unwrap_or_else(|e| panic!("cannot stat {}: {e}", path.display()))
                .file_type();
            assert!(
                !kind.is_symlink(),
                "extraction created a symbolic link: {}",
                path.display()
            );
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() && !has_elf {
                let mut magic = [0u8; 4];
                has_elf = fs::File::open(&path)
                    .and_then(|mut f| f.read_exact(&mut magic))
                    .is_ok()
                    && magic == *b"\x7fELF";
            }
        }
    }
    has_elf
}

fuzz_target!(|data: &[u8]| {
    let sandbox = sandbox();
    fs::write(&sandbox.input, data).expect("invariant: can write the input file");
    let options = ExtractOptions {
        max_total_size: MAX_TOTAL_SIZE,
    };
    let extracted = extract(&sandbox.input, &sandbox.out, &options);
    assert_nothing_escaped(sandbox);
    if sandbox.out.exists() {
        let has_elf = check_extracted(&sandbox.out);
        if extracted.is_ok() {
            if has_elf {
                let _ = ModelDescription::from_file(&sandbox.out.join("modelDescription.xml"));
            } else {
                let _ = Fmu::load(&sandbox.out);
            }
        }
        assert_nothing_escaped(sandbox);
        fs::remove_dir_all(&sandbox.out).expect("invariant: can remove the extraction directory");
    }
    fs::remove_file(&sandbox.input).expect("invariant: can remove the input file");
});
