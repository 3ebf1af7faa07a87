//! The platforms an FMU ships binaries for, and whether a helper for each can run here.
//!
//! Folder names: FMI 2.0 `binaries/<linux64|linux32|win64|win32>` (FMI 2.0.2 §2.5), FMI 3.0
//! `binaries/<x86_64-linux|x86-linux|x86_64-windows|x86-windows>` (FMI 3.0 §2.5.1.4).

use std::fmt;
use std::path::Path;

/// A platform an FMU ships binaries for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Platform {
    /// x86-64 Linux (`linux64`, `x86_64-linux`).
    Linux64,
    /// 32-bit x86 Linux (`linux32`, `x86-linux`).
    Linux32,
    /// x86-64 Windows (`win64`, `x86_64-windows`), run under Wine.
    Win64,
    /// 32-bit x86 Windows (`win32`, `x86-windows`), run under Wine.
    Win32,
}

impl Platform {
    /// Every platform, native first.
    pub const ALL: [Platform; 4] = [
        Platform::Linux64,
        Platform::Linux32,
        Platform::Win64,
        Platform::Win32,
    ];

    /// The platform of this process (mastersim runs on x86-64 Linux).
    pub fn native() -> Platform {
        Platform::Linux64
    }

    /// The platform named by an FMI 2.0 folder name (`linux64`, `linux32`, `win64`, `win32`)
    /// or an FMI 3.0 one (`x86_64-linux`, `x86-linux`, `x86_64-windows`, `x86-windows`).
    pub fn from_name(name: &str) -> Option<Platform> {
        Platform::ALL
            .into_iter()
            .find(|p| p.fmi2_folder() == name || p.fmi3_folder() == name)
    }

    /// The FMI 2.0 folder name under `binaries/`.
    pub fn fmi2_folder(self) -> &'static str {
        match self {
            Platform::Linux64 => "linux64",
            Platform::Linux32 => "linux32",
            Platform::Win64 => "win64",
            Platform::Win32 => "win32",
        }
    }

    /// The FMI 3.0 folder name under `binaries/`.
    pub fn fmi3_folder(self) -> &'static str {
        match self {
            Platform::Linux64 => "x86_64-linux",
            Platform::Linux32 => "x86-linux",
            Platform::Win64 => "x86_64-windows",
            Platform::Win32 => "x86-windows",
        }
    }

    /// The extension of a shared library, without the dot: `so` or `dll`.
    pub fn library_extension(self) -> &'static str {
        if self.is_windows() { "dll" } else { "so" }
    }

    /// Whether the platform is Windows (its helper runs under Wine).
    pub fn is_windows(self) -> bool {
        matches!(self, Platform::Win64 | Platform::Win32)
    }

    /// A path of this machine as this platform's helper sees it: `Z:\dev\shm\…` for Windows
    /// (Wine maps the Linux root to drive Z:), unchanged for Linux.
    pub(crate) fn path_for_helper(self, path: &Path) -> String {
        let text = path.to_string_lossy();
        if self.is_windows() {
            format!("Z:{}", text.replace('/', "\\"))
        } else {
            text.into_owned()
        }
    }
}

impl fmt::Display for Platform {
    /// The FMI 2.0 folder name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.fmi2_folder())
    }
}
