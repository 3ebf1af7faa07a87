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
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt as _;

use crate::http::{AppState, refuse};

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

/// `POST /api/recording`: the body is the WebM file (`Content-Type: video/webm`), written to
/// the recording's target; or `{"error": "…"}` (`application/json`) when the page could not
/// record, which ends the recording with that message. 409 when the server was not started
/// for a recording, or the recording has ended already; 415 for another body type.
pub(crate) async fn upload(State(state): State<AppState>, headers: HeaderMap, body: Body) -> Response {
    let Some(recording) = state.recording() else {
        return refuse(
            StatusCode::CONFLICT,
            "no recording was asked for: this view was not started by `mastersim view <results> \
             --record <file.webm>` (the Record button downloads its video in the browser)",
        );
    };
    if recording.outcome().is_some() {
        return refuse(StatusCode::CONFLICT, "the recording has ended already");
    }
    let kind = headers
        .get(header::CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).to_ascii_lowercase())
        .unwrap_or_default();
    let essence = kind.split(';').next().unwrap_or_default().trim().to_owned();
    match essence.as_str() {
        "video/webm" => match write(recording, body).await {
            Ok(bytes) => {
                recording.finish(Ok(bytes));
                axum::Json(serde_json::json!({ "bytes": bytes })).into_response()
            }
            Err(message) => {
                recording.finish(Err(message.clone()));
                refuse(StatusCode::INTERNAL_SERVER_ERROR, message)
            }
        },
        "application/json" => {
            let text = axum::body::to_bytes(body, 64 * 1024).await.unwrap_or_default();
            let error = serde_json::from_slice::<serde_json::Value>(&text)
                .ok()
                .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(str::to_owned))
                .unwrap_or_else(|| String::from_utf8_lossy(&text).into_owned());
            recording.finish(Err(format!("the page could not record: {error}")));
            axum::Json(serde_json::json!({ "bytes": 0 })).into_response()
        }
        _ => refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!(
                "the body is declared as '{kind}'; expected the video (Content-Type \
                 video/webm) or the page's error (application/json: {{\"error\": \"…\"}})"
            ),
        ),
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

/// Copies the request body into the new file `path`, synced to disk; returns its length.
async fn copy(body: Body, path: &Path) -> Result<u64, String> {
    let failed = |e: &dyn std::fmt::Display| format!("cannot write '{}': {e}", path.display());
    let mut file = std::fs::File::create_new(path).map_err(|e| failed(&e))?;
    let mut bytes = 0u64;
    let mut stream = body.into_data_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| format!("the upload broke off: {e}"))?;
        file.write_all(&chunk).map_err(|e| failed(&e))?;
        bytes += chunk.len() as u64;
    }
    if bytes == 0 {
        return Err("the page uploaded an empty video".into());
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
        assert!(refused.contains("--force") && refused.contains("out.webm"), "{refused}");
        assert!(Recording::new(&target, true).is_ok());
        let missing = Recording::new(&dir.join("no/such/dir/out.webm"), true).unwrap_err();
        assert!(missing.contains("does not exist"), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
