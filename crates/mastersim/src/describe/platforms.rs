//! The platforms an FMU ships binaries for, and how this installation runs each: in-process,
//! in a helper process, in a helper process under Wine, or not (and what to install).
//!
//! Spec: FMI 2.0.2 §2.3 and FMI 3.0 §2.5.1 (platform folders under `binaries/`);
//! `docs/isolation.md` (helpers, automatic isolation).

use master::isolation::{self, Platform};

use serde::Serialize;

/// One platform folder under `binaries/`, and whether and how this installation runs its
/// binary.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlatformSupport {
    /// `platform`: the folder name as the FMU writes it (`linux64`, `x86_64-windows`, …).
    pub platform: String,
    /// `runs`: whether this installation can run the binary.
    pub runs: bool,
    /// `how`: `in-process`, `helper process`, `helper process under Wine`, or why not (what
    /// to install, or that the platform is unknown).
    pub how: String,
}

impl PlatformSupport {
    /// How `folder` (a folder under `binaries/` of an FMU of FMI version `version`: FMI 2.0
    /// folder names for FMI 1.0 and 2.0, platform tuples for FMI 3.0) runs here;
    /// `native_library` tells whether the FMU's library for this machine is in the archive and
    /// built for it.
    pub fn of(folder: &str, version: fmi::FmiVersion, native_library: bool) -> PlatformSupport {
        let platform = Platform::ALL.into_iter().find(|p| match version {
            fmi::FmiVersion::V3 => p.fmi3_folder() == folder,
            _ => p.fmi2_folder() == folder,
        });
        let (runs, how) = match platform {
            None => (false, "no: not a platform mastersim runs".to_owned()),
            Some(p) if p == Platform::native() && native_library => (true, "in-process".into()),
            Some(p) if p == Platform::native() => (
                false,
                "no: its library for this machine is missing or built for another architecture"
                    .into(),
            ),
            Some(p) => match isolation::availability(p) {
                Ok(()) if p.is_windows() => (true, "helper process under Wine".into()),
                Ok(()) => (true, "helper process".into()),
                Err(what) => (false, format!("no: {what}")),
            },
        };
        PlatformSupport {
            platform: folder.to_owned(),
            runs,
            how,
        }
    }
}
