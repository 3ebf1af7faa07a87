//! Test support: FMU archives unpacked into temporary directories, the corpus location, and a
//! thin FMI 2.0 driver over the raw protocol (what crate fmi's proxies do, reduced to what the
//! tests need).
#![allow(dead_code)]

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use isolation::protocol::*;
use isolation::{Error, Helper, Launch, Platform};

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The conformance corpus: `$MASTERSIM_CORPUS`, or `../shared/corpus` next to the workspace.
pub fn corpus(relative: &str) -> PathBuf {
    let dir = std::env::var_os("MASTERSIM_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("../shared/corpus"));
    let path = dir.join(relative);
    assert!(
        path.exists(),
        "corpus file missing: looked for '{}'",
        path.display()
    );
    path
}

/// Unpacks an FMU archive into a new temporary directory.
pub fn extract(fmu: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary directory");
    extract_to(fmu, dir.path());
    dir
}

/// Unpacks an FMU archive into `dir`.
pub fn extract_to(fmu: &Path, dir: &Path) {
    let file = std::fs::File::open(fmu).unwrap_or_else(|e| panic!("{}: {e}", fmu.display()));
    let mut archive = zip::ZipArchive::new(file).expect("an FMU is a zip archive");
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).expect("zip entry");
        let Some(name) = entry.enclosed_name() else {
            continue;
        };
        let target = dir.join(name);
        if entry.is_dir() {
            std::fs::create_dir_all(&target).expect("directory");
            continue;
        }
        std::fs::create_dir_all(target.parent().unwrap()).expect("directory");
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).expect("zip read");
        std::fs::write(&target, bytes).expect("write");
    }
}

/// The shared library of `model` for `platform` in an unpacked FMU of `fmi_version`.
pub fn library(dir: &Path, model: &str, platform: Platform, fmi_version: u32) -> PathBuf {
    let folder = if fmi_version == 2 {
        platform.fmi2_folder()
    } else {
        platform.fmi3_folder()
    };
    let path = dir
        .join("binaries")
        .join(folder)
        .join(format!("{model}.{}", platform.library_extension()));
    assert!(path.is_file(), "FMU binary missing: '{}'", path.display());
    path
}

/// Launches a helper for `library`.
pub fn launch(
    platform: Platform,
    library: &Path,
    fmi_version: u32,
    timeout: Option<Duration>,
) -> Helper {
    Helper::launch(&Launch {
        platform,
        library,
        fmi_version,
        call_timeout: timeout,
    })
    .unwrap_or_else(|e| panic!("launch {platform} helper for {}: {e}", library.display()))
}

/// Sends one call written by `write` and returns its status (outputs are not read).
pub fn call(
    helper: &mut Helper,
    id: u32,
    write: impl FnOnce(&mut isolation::Request<'_>),
) -> Result<i32, Error> {
    let mut request = helper.request();
    request.call(id);
    write(&mut request);
    let mut response = helper.round_trip()?;
    let status = response.status()?;
    if status >= 3 {
        eprintln!(
            "{} answered {status}: {:?}",
            function_name(id),
            response.log_records()
        );
    }
    Ok(status)
}

/// FMI 2.0: instantiate as co-simulation, setup from 0, enter and exit initialization mode.
pub fn fmi2_start(helper: &mut Helper, guid: &str, resources: &Path) -> Result<(), Error> {
    let uri = helper.helper_file_uri(resources);
    let status = call(helper, FN_FMI2_INSTANTIATE, |r| {
        r.string(Some(b"isolated"))
            .i32(1)
            .string(Some(guid.as_bytes()));
        r.string(Some(uri.as_bytes())).i32(0).i32(0);
    })?;
    assert_eq!(status, 0, "fmi2Instantiate");
    let status = call(helper, FN_FMI2_SETUP_EXPERIMENT, |r| {
        r.i32(0).f64(0.0).f64(0.0).i32(0).f64(0.0);
    })?;
    assert_eq!(status, 0, "fmi2SetupExperiment");
    assert_eq!(call(helper, FN_FMI2_ENTER_INITIALIZATION_MODE, |_| {})?, 0);
    assert_eq!(call(helper, FN_FMI2_EXIT_INITIALIZATION_MODE, |_| {})?, 0);
    Ok(())
}

/// FMI 2.0 fmi2SetReal.
pub fn set_real(helper: &mut Helper, vrs: &[u32], values: &[f64]) -> Result<i32, Error> {
    call(helper, FN_FMI2_SET_REAL, |r| {
        r.u32s(vrs).f64s(values);
    })
}

/// FMI 2.0 fmi2GetReal.
pub fn get_real(helper: &mut Helper, vrs: &[u32]) -> Result<Vec<f64>, Error> {
    helper.request().call(FN_FMI2_GET_REAL).u32s(vrs);
    let mut response = helper.round_trip()?;
    assert_eq!(response.status()?, 0, "fmi2GetReal");
    let mut values = vec![0.0; vrs.len()];
    response.array_into(&mut values)?;
    Ok(values)
}

/// FMI 2.0 fmi2DoStep from `t` by `h` seconds.
pub fn do_step(helper: &mut Helper, t: f64, h: f64) -> Result<i32, Error> {
    call(helper, FN_FMI2_DO_STEP, |r| {
        r.f64(t).f64(h).i32(1);
    })
}

/// Whether process `pid` is gone or a zombie.
pub fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

/// Waits up to `limit` for process `pid` to be gone.
pub fn wait_gone(pid: u32, limit: Duration) -> bool {
    let start = std::time::Instant::now();
    while start.elapsed() < limit {
        if gone(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    gone(pid)
}

/// The body of an owner test: when `$MSIM_ISOLATION_OWNER` names a file, launches a helper
/// with `make` (given that file's directory for the FMU), writes its pid into that file and
/// waits to be killed; otherwise does nothing.
pub fn owner_process(make: impl FnOnce(&Path) -> Helper) {
    let Some(pid_file) = std::env::var_os("MSIM_ISOLATION_OWNER").map(PathBuf::from) else {
        return;
    };
    let helper = make(pid_file.parent().unwrap());
    std::fs::write(pid_file, helper.pid().to_string()).unwrap();
    std::thread::sleep(Duration::from_secs(60));
}

/// Runs the owner test `owner_test` of this test binary as a child process, SIGKILLs it once
/// its helper runs, and checks that the helper is gone within 5 s.
pub fn helper_dies_with_its_owner(owner_test: &str) {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("helper.pid");
    let mut owner = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", owner_test, "--test-threads=1"])
        .env("MSIM_ISOLATION_OWNER", &pid_file)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    let pid = loop {
        if let Ok(text) = std::fs::read_to_string(&pid_file)
            && let Ok(pid) = text.parse::<u32>()
        {
            break pid;
        }
        assert!(
            owner.try_wait().unwrap().is_none(),
            "the owner process ended early"
        );
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no helper pid from the owner"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    assert!(!gone(pid), "the helper runs");
    owner.kill().unwrap(); // SIGKILL: no destructor runs in the owner
    owner.wait().unwrap();
    assert!(
        wait_gone(pid, Duration::from_secs(5)),
        "helper {pid} outlived its master"
    );
}
