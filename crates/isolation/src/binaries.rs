//! The helper binaries embedded at build time (`build.rs`), written once to a per-user cache
//! directory: `$XDG_CACHE_HOME/mastersim/helpers/<content hash>/` (or `~/.cache/…`), created
//! atomically (written under a temporary name, then renamed), mode 0755.

use std::io::{self, Write as _};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::sync::Mutex;

use sha2::{Digest, Sha256};

use crate::platform::Platform;

include!(concat!(env!("OUT_DIR"), "/helpers.rs"));

/// The helper binary built for `platform`, if its compiler was there at build time.
pub(crate) fn embedded(platform: Platform) -> Option<&'static [u8]> {
    match platform {
        Platform::Linux64 => HELPER_LINUX64,
        Platform::Linux32 => HELPER_LINUX32,
        Platform::Win64 => HELPER_WIN64,
        Platform::Win32 => HELPER_WIN32,
    }
}

/// The installed helper for `platform`, written on first use in this process.
pub(crate) fn installed(platform: Platform) -> io::Result<PathBuf> {
    static PATHS: Mutex<[Option<PathBuf>; 4]> = Mutex::new([None, None, None, None]);
    let index = Platform::ALL
        .iter()
        .position(|p| *p == platform)
        .unwrap_or(0);
    let mut paths = PATHS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(path) = &paths[index] {
        return Ok(path.clone());
    }
    let bytes = embedded(platform).ok_or_else(|| io::Error::other("helper not built"))?;
    let path = install(platform, bytes)?;
    paths[index] = Some(path.clone());
    Ok(path)
}

fn cache_dir() -> PathBuf {
    let home = std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache"));
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .or(home)
        .unwrap_or_else(|| std::env::temp_dir().join(format!("mastersim-{}", uid())))
}

fn uid() -> u32 {
    // SAFETY: getuid has no preconditions.
    unsafe { libc::getuid() }
}

fn install(platform: Platform, bytes: &[u8]) -> io::Result<PathBuf> {
    let hash = Sha256::digest(bytes);
    let hex: String = hash[..12].iter().map(|b| format!("{b:02x}")).collect();
    let dir = cache_dir().join("mastersim").join("helpers").join(hex);
    let extension = if platform.is_windows() { ".exe" } else { "" };
    let path = dir.join(format!("fmu_host_{platform}{extension}"));
    if std::fs::metadata(&path).is_ok_and(|m| m.len() == bytes.len() as u64) {
        return Ok(path);
    }
    std::fs::create_dir_all(&dir)?;
    let temporary = dir.join(format!(".fmu_host_{platform}.{}.tmp", std::process::id()));
    let mut file = std::fs::File::create(&temporary)?;
    file.write_all(bytes)?;
    file.set_permissions(std::fs::Permissions::from_mode(0o755))?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&temporary, &path)?;
    Ok(path)
}
