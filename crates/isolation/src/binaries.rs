//! The helper binaries embedded at build time (`build.rs`), written once to a per-user cache
//! directory: `$XDG_CACHE_HOME/mastersim/helpers/<content hash>/` (or `~/.cache/…`), created
//! atomically (written under a temporary name, then renamed), mode 0755; and whether each can
//! run here (Wine for the Windows ones).

use std::io::{self, Write as _};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::platform::Platform;

include!(concat!(env!("OUT_DIR"), "/helpers.rs"));

/// The helper binary built for `platform` and its content name (the cache directory's, from
/// its SHA-256), if its compiler was there at build time.
pub(crate) fn embedded(platform: Platform) -> Option<(&'static [u8], &'static str)> {
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
    let (bytes, name) = embedded(platform).ok_or_else(|| io::Error::other("helper not built"))?;
    let path = install(platform, bytes, name)?;
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

fn install(platform: Platform, bytes: &[u8], content_name: &str) -> io::Result<PathBuf> {
    let dir = cache_dir()
        .join("mastersim")
        .join("helpers")
        .join(content_name);
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

/// Whether a helper for `platform` can run here. `Err` says what to install (Debian package
/// names) and why: the helper was not built (its cross compiler was missing when mastersim was
/// built: rebuild after installing it) or Wine is missing for Windows helpers.
pub fn availability(platform: Platform) -> Result<(), String> {
    if embedded(platform).is_none() {
        let package = match platform {
            Platform::Linux64 => "a C compiler (gcc)",
            Platform::Linux32 => "gcc-multilib",
            Platform::Win64 => "gcc-mingw-w64-x86-64",
            Platform::Win32 => "gcc-mingw-w64-i686",
        };
        let wine = match platform {
            Platform::Win64 => " and wine64",
            Platform::Win32 => " and wine32 (after `dpkg --add-architecture i386`)",
            _ => "",
        };
        return Err(format!(
            "this mastersim was built without a {platform} helper; install {package}{wine}, \
             then rebuild mastersim"
        ));
    }
    if platform.is_windows() {
        wine_program().ok_or_else(|| {
            let package = if platform == Platform::Win64 {
                "wine64"
            } else {
                "wine32 (after `dpkg --add-architecture i386`)"
            };
            format!("{platform} FMUs run under Wine, and `wine` is not on PATH; install {package}")
        })?;
        if platform == Platform::Win32 && !wine32_installed() {
            return Err(
                "win32 FMUs need 32-bit Wine, which is not installed; install wine32 (after \
                 `dpkg --add-architecture i386`)"
                    .to_string(),
            );
        }
    }
    Ok(())
}

/// `wine` on PATH.
pub(crate) fn wine_program() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("wine"))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Debian's 32-bit Wine loader (package wine32).
fn wine32_installed() -> bool {
    ["/usr/lib/wine/wine", "/usr/lib/i386-linux-gnu/wine/wine"]
        .iter()
        .any(|p| is_executable(Path::new(p)))
}
