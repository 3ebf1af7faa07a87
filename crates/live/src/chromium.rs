//! Headless Chromium for `mastersim view --record`: found by `--chromium`, by
//! `$MASTERSIM_CHROMIUM` or on `PATH`, started on the page with a profile of its own in a
//! temporary directory, and ended (the directory removed) when dropped.
//!
//! Spec: Chromium's command-line switches (`--headless=new`, `--user-data-dir`,
//! `--window-size`); `docs/live.md` (recording).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The environment variable that names the Chromium program.
pub const CHROMIUM_VAR: &str = "MASTERSIM_CHROMIUM";

/// The names tried on `PATH`, in order.
const NAMES: [&str; 4] = [
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];

/// The browser window, CSS pixels (the page lays the charts out to its width).
const WINDOW: &str = "--window-size=1280,1000";

/// The Chromium program: `explicit` (`--chromium`), else `$MASTERSIM_CHROMIUM`, else the first
/// of `chromium`, `chromium-browser`, `google-chrome`, `google-chrome-stable` on `PATH`.
///
/// # Errors
/// A named program that is not a file, or none found: the message says what to install.
pub(crate) fn find(explicit: Option<&Path>) -> Result<PathBuf, String> {
    let named = explicit
        .map(|p| (p.to_path_buf(), "--chromium"))
        .or_else(|| std::env::var_os(CHROMIUM_VAR).map(|p| (PathBuf::from(p), CHROMIUM_VAR)));
    if let Some((program, by)) = named {
        return if program.is_file() {
            Ok(program)
        } else {
            Err(format!(
                "--record: {by} names '{}', which is not a file",
                program.display()
            ))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .flat_map(|dir| NAMES.map(|name| dir.join(name)))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| {
            format!(
                "--record needs Chromium, and none of {} is on PATH: install it (Debian: \
                 apt-get install chromium) or name the program with --chromium or ${CHROMIUM_VAR}",
                NAMES.join(", ")
            )
        })
}

/// A headless Chromium showing one page; killed, and its temporary directory removed, on
/// drop.
#[derive(Debug)]
pub(crate) struct Browser {
    child: Child,
    dir: PathBuf,
}

impl Browser {
    /// Starts `program` headless on `url`, with a new profile in a temporary directory and
    /// its messages in `chromium.log` there.
    ///
    /// # Errors
    /// The directory or the process cannot be created.
    pub(crate) fn open(program: &Path, url: &str) -> Result<Browser, String> {
        let dir = std::env::temp_dir().join(format!("mastersim-record-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let made = |e: std::io::Error| format!("cannot create '{}': {e}", dir.display());
        std::fs::create_dir_all(dir.join("profile")).map_err(made)?;
        let log = std::fs::File::create(dir.join("chromium.log")).map_err(made)?;
        let child = Command::new(program)
            .args([
                // The page is this server's own, on the loopback interface; the sandbox would
                // refuse to start as root (containers, CI).
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--mute-audio",
                "--disable-background-timer-throttling",
                "--disable-renderer-backgrounding",
                "--disable-backgrounding-occluded-windows",
                "--force-device-scale-factor=1",
                WINDOW,
            ])
            .arg(format!("--user-data-dir={}", dir.join("profile").display()))
            .arg(url)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("cannot start '{}': {e}", program.display()))?;
        Ok(Browser { child, dir })
    }

    /// `Some(why)` once the browser has ended by itself: its exit status and the last lines
    /// it wrote (without its complaints about the missing D-Bus of containers).
    pub(crate) fn ended(&mut self) -> Option<String> {
        let status = self.child.try_wait().ok()??;
        let log = std::fs::read_to_string(self.dir.join("chromium.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().filter(|l| !l.contains("dbus")).collect();
        let tail = lines[lines.len().saturating_sub(8)..].join("\n");
        Some(format!(
            "Chromium ended ({status}); its last messages:\n{tail}"
        ))
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
