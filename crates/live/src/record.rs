//! Video recordings of the view: where `mastersim view <results> --record out.webm` writes
//! the WebM file that the page renders and uploads (`POST /api/recording`), and that upload.
//!
//! The file is written under a temporary name in the target's directory and renamed when
//! complete, so that a failed or interrupted upload never leaves a truncated video under the
//! target's name; an existing target is refused unless the user allowed overwriting it
//! (`--force`), both when the command starts and again at the rename.
//!
//! Spec: `docs/live.md` (recording); WebM is Matroska's profile for the web (the page writes
//! it: `page/webm.js`).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use axum::body::Body;
use axum::http::StatusCode;
use futures_util::StreamExt as _;

/// Where a recording goes, and how it ended.
#[derive(Debug)]
pub struct Recording {
    target: PathBuf,
    force: bool,
    outcome: Mutex<Option<Result<u64, String>>>,
}

impl Recording {
    /// A recording to be written to `target` (a `.webm` file); `force` allows replacing an
    /// existing file.
    ///
    /// # Errors
    /// `target` exists and `force` is not set, or its directory does not exist (the message
    /// names the path).
    pub fn new(target: &Path, force: bool) -> Result<Recording, String> {
        check_target(target, force)?;
        Ok(Recording {
            target: target.to_path_buf(),
            force,
            outcome: Mutex::new(None),
        })
    }

    /// The file the video goes to.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// `None` while no upload has ended; then the bytes written, or why nothing was written
    /// (the page's own error, or the file's).
    pub fn outcome(&self) -> Option<Result<u64, String>> {
        self.outcome
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn finish(&self, outcome: Result<u64, String>) {
        let mut slot = self.outcome.lock().unwrap_or_else(PoisonError::into_inner);
        slot.get_or_insert(outcome);
    }

    /// Receives the page's upload (`POST /api/recording`), declared as `content_type`: a
    /// WebM file (`video/webm`), written to the target; or the page's error
    /// (`application/json`, `{"error": "…"}`), which ends the recording with that message.
    /// Returns the bytes written (0 for an error).
    ///
    /// # Errors
    /// The HTTP status and message of the answer: 409 when the recording has ended already,
    /// 415 for another type, 500 when the body is not a WebM file or cannot be written (which
    /// ends the recording too).
    pub(crate) async fn receive(
        &self,
        content_type: &str,
        body: Body,
    ) -> Result<u64, (StatusCode, String)> {
        if self.outcome().is_some() {
            return Err((
                StatusCode::CONFLICT,
                "the recording has ended already".into(),
            ));
        }
        let essence = content_type.split(';').next().unwrap_or_default().trim();
        match essence.to_ascii_lowercase().as_str() {
            "video/webm" => {
                let written = write(self, body).await;
                self.finish(written.clone());
                written.map_err(|message| (StatusCode::INTERNAL_SERVER_ERROR, message))
            }
            "application/json" => {
                let text = axum::body::to_bytes(body, 64 * 1024)
                    .await
                    .unwrap_or_default();
                let error = serde_json::from_slice::<serde_json::Value>(&text)
                    .ok()
                    .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(str::to_owned))
                    .unwrap_or_else(|| String::from_utf8_lossy(&text).into_owned());
                self.finish(Err(format!("the page could not record: {error}")));
                Ok(0)
            }
            _ => Err((
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!(
                    "the body is declared as '{content_type}'; expected the video \
                     (Content-Type video/webm) or the page's error (application/json: \
                     {{\"error\": \"…\"}})"
                ),
            )),
        }
    }
}

/// Refuses an existing `target` without `force`, and a target whose directory is missing.
fn check_target(target: &Path, force: bool) -> Result<(), String> {
    if target.exists() && !force {
        return Err(format!(
            "--record: '{}' exists; choose another file or pass --force to replace it",
            target.display()
        ));
    }
    let dir = parent(target);
    if !dir.is_dir() {
        return Err(format!(
            "--record: the directory '{}' of '{}' does not exist",
            dir.display(),
            target.display()
        ));
    }
    Ok(())
}

fn parent(target: &Path) -> &Path {
    match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// Writes `body` to a temporary file beside the target, then renames it to the target;
/// returns the bytes written. On error the temporary file is removed.
async fn write(recording: &Recording, body: Body) -> Result<u64, String> {
    let target = &recording.target;
    let name = target.file_name().unwrap_or_default().to_string_lossy();
    let part = parent(target).join(format!(".{name}.{}.part", std::process::id()));
    let written = copy(body, &part).await.and_then(|bytes| {
        check_target(target, recording.force)?;
        std::fs::rename(&part, target).map_err(|e| {
            format!(
                "cannot rename '{}' to '{}': {e}",
                part.display(),
                target.display()
            )
        })?;
        Ok(bytes)
    });
    if written.is_err() {
        let _ = std::fs::remove_file(&part);
    }
    written
}

/// The first bytes of every WebM (EBML) file: the ID of the EBML header.
const EBML_MAGIC: [u8; 4] = [0x1A, 0x45, 0xDF, 0xA3];

/// Copies the request body into the new file `path`, synced to disk; returns its length.
/// A body that does not start as a WebM file does is refused.
async fn copy(body: Body, path: &Path) -> Result<u64, String> {
    let failed = |e: &dyn std::fmt::Display| format!("cannot write '{}': {e}", path.display());
    let mut file = std::fs::File::create_new(path).map_err(|e| failed(&e))?;
    let mut head = Vec::with_capacity(EBML_MAGIC.len());
    let mut bytes = 0u64;
    let mut stream = body.into_data_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| format!("the upload broke off: {e}"))?;
        let missing = EBML_MAGIC.len() - head.len();
        head.extend_from_slice(&chunk[..missing.min(chunk.len())]);
        if !EBML_MAGIC.starts_with(&head) {
            return Err(format!(
                "the upload is not a WebM file: it starts with {head:02X?}, not with the EBML \
                 header's ID {EBML_MAGIC:02X?}"
            ));
        }
        file.write_all(&chunk).map_err(|e| failed(&e))?;
        bytes += chunk.len() as u64;
    }
    if head.len() < EBML_MAGIC.len() {
        return Err(format!("the upload is not a WebM file: {bytes} bytes"));
    }
    file.sync_all().map_err(|e| failed(&e))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_existing_target_needs_force() {
        let dir = std::env::temp_dir().join(format!("record-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("out.webm");
        std::fs::write(&target, b"old").unwrap();
        let refused = Recording::new(&target, false).unwrap_err();
        assert!(
            refused.contains("--force") && refused.contains("out.webm"),
            "{refused}"
        );
        assert!(Recording::new(&target, true).is_ok());
        let missing = Recording::new(&dir.join("no/such/dir/out.webm"), true).unwrap_err();
        assert!(missing.contains("does not exist"), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
