//! Checkpoint files: everything a resumed run needs to continue an interrupted one, written
//! atomically and checked before use.
//!
//! A checkpoint holds the master's state ([`MasterState`]), where the result files stand
//! (`ResultsState`), a SHA-256 hash of the project file and of every slave's file (FMU
//! archive or table) with the FMU's GUID, and either every slave's serialized state or the
//! names of the slaves that cannot serialize (the resumed run then replays from the start
//! time).
//!
//! On disk (all integers little-endian):
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `MSIMCKPT` |
//! | 4 | format number ([`FORMAT`]) |
//! | 2 + n | length and UTF-8 text of the writing mastersim's version |
//! | 8 | length of the body |
//! | body | the checkpoint (`Checkpoint`), encoded with `postcard` |
//! | 32 | SHA-256 of the body |
//!
//! The file is written to `<name>.tmp` in the same directory, synced to the disk, renamed
//! over the previous checkpoint, and the directory is synced: a process killed at any moment
//! leaves either the previous or the new checkpoint, both complete.
//!
//! Spec: `docs/checkpoints.md`.

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use master::MasterState;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use crate::results::ResultsState;
use crate::{Error, Result};

/// The checkpoint format this mastersim writes and reads.
pub const FORMAT: u32 = 1;

/// The first bytes of every checkpoint file.
const MAGIC: &[u8; 8] = b"MSIMCKPT";

/// Length of the SHA-256 trailer.
const HASH_LEN: usize = 32;

/// Test hook: when this environment variable holds a number of seconds, writing a checkpoint
/// pauses that long after half of the temporary file is written, so that a test can kill the
/// process inside the write.
pub const WRITE_PAUSE_VARIABLE: &str = "MASTERSIM_TEST_CHECKPOINT_WRITE_PAUSE";

/// A file a run depends on and its SHA-256 hash.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct FileHash {
    /// The file.
    pub path: PathBuf,
    /// SHA-256 of its content.
    pub sha256: [u8; 32],
}

impl FileHash {
    /// Hashes the file at `path`.
    pub fn of(path: &Path) -> Result<FileHash> {
        let bytes = std::fs::read(path).map_err(|source| Error::Io {
            action: "read",
            path: path.to_path_buf(),
            source,
        })?;
        Ok(FileHash {
            path: path.to_path_buf(),
            sha256: Sha256::digest(&bytes).into(),
        })
    }

    /// The hash of the file together with the command-line options that change what it
    /// means (`--set`, `--input`), so that a checkpoint is resumed only under the same ones.
    /// Without options the hash is the file's own.
    pub fn with_options(self, options: &[String]) -> FileHash {
        if options.is_empty() {
            return self;
        }
        let mut hasher = Sha256::new();
        hasher.update(self.sha256);
        for option in options {
            hasher.update(option.as_bytes());
            hasher.update([0]);
        }
        FileHash {
            path: self.path,
            sha256: hasher.finalize().into(),
        }
    }
}

/// What backs one slave: its file (FMU archive or table) and, for an FMU, its GUID.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct SlaveSource {
    /// Slave name.
    pub name: String,
    /// The FMU archive or table file, when the slave has one.
    pub file: Option<FileHash>,
    /// The FMU's GUID (empty for other slaves).
    pub guid: String,
}

/// The slaves' side of a checkpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum SlaveStates {
    /// Every slave's serialized state, in project order.
    Serialized(Vec<Vec<u8>>),
    /// A resume replays the run from the start time, because of these slaves (those that
    /// cannot serialize) or, when empty, because result rows are kept in memory.
    Replay {
        /// The slaves that cannot serialize.
        slaves: Vec<String>,
    },
}

/// Everything a checkpoint holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Checkpoint {
    /// The project file.
    pub project: FileHash,
    /// Every slave's file and GUID, in project order.
    pub slaves: Vec<SlaveSource>,
    /// The master's state.
    pub master: MasterState,
    /// Where the result files stand.
    pub results: ResultsState,
    /// The slaves' states, or why a resume replays.
    pub slave_states: SlaveStates,
}

/// The refusal of the checkpoint at `path`.
fn refuse(path: &Path, problem: impl Into<String>) -> Error {
    Error::Checkpoint {
        path: path.to_path_buf(),
        problem: problem.into(),
    }
}

impl Checkpoint {
    /// Writes the checkpoint atomically to `path` (see the module documentation); returns the
    /// file's size, bytes.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file or directory that cannot be written or synced.
    pub fn write(&self, path: &Path) -> Result<u64> {
        let body = postcard::to_stdvec(self).map_err(|e| refuse(path, e.to_string()))?;
        let version = env!("CARGO_PKG_VERSION").as_bytes();
        let mut bytes = Vec::with_capacity(body.len() + 64);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&FORMAT.to_le_bytes());
        bytes.extend_from_slice(&(version.len() as u16).to_le_bytes());
        bytes.extend_from_slice(version);
        bytes.extend_from_slice(&(body.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&body);
        bytes.extend_from_slice(&Sha256::digest(&body));
        let dir = path.parent().unwrap_or(Path::new("."));
        let io = |action, path: &Path| {
            let path = path.to_path_buf();
            move |source| Error::Io {
                action,
                path,
                source,
            }
        };
        std::fs::create_dir_all(dir).map_err(io("create", dir))?;
        let tmp = path.with_extension("tmp");
        let mut file = File::create(&tmp).map_err(io("create", &tmp))?;
        let half = bytes.len() / 2;
        file.write_all(&bytes[..half]).map_err(io("write", &tmp))?;
        if let Some(pause) = std::env::var(WRITE_PAUSE_VARIABLE)
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s > 0.0)
        {
            file.sync_all().map_err(io("sync", &tmp))?;
            std::thread::sleep(std::time::Duration::from_secs_f64(pause));
        }
        file.write_all(&bytes[half..]).map_err(io("write", &tmp))?;
        file.sync_all().map_err(io("sync", &tmp))?;
        drop(file);
        std::fs::rename(&tmp, path).map_err(io("rename", &tmp))?;
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(io("sync", dir))?;
        Ok(bytes.len() as u64)
    }

    /// Reads and checks the checkpoint at `path`.
    ///
    /// # Errors
    /// [`Error::Checkpoint`] when the file does not exist, is not a checkpoint, is truncated
    /// or corrupt (length or hash), or was written in another format.
    pub fn read(path: &Path) -> Result<Checkpoint> {
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(refuse(
                    path,
                    "no checkpoint exists (run with --checkpoint-interval first; the \
                     checkpoint is written to <working dir>/checkpoint/)",
                ));
            }
            Err(e) => return Err(refuse(path, format!("cannot read it: {e}"))),
        };
        let mut rest = bytes.as_slice();
        let mut take = |n: usize, what: &str| -> Result<&[u8]> {
            if rest.len() < n {
                return Err(refuse(
                    path,
                    format!(
                        "the file is truncated ({} bytes, it ends in the {what})",
                        bytes.len()
                    ),
                ));
            }
            let (head, tail) = rest.split_at(n);
            rest = tail;
            Ok(head)
        };
        if take(MAGIC.len(), "magic number")? != MAGIC {
            return Err(refuse(
                path,
                "not a mastersim checkpoint (wrong magic number)",
            ));
        }
        let format = u32::from_le_bytes(take(4, "header")?.try_into().unwrap_or_default());
        let version_len =
            u16::from_le_bytes(take(2, "header")?.try_into().unwrap_or_default()) as usize;
        let version = String::from_utf8_lossy(take(version_len, "header")?).into_owned();
        if format != FORMAT {
            return Err(refuse(
                path,
                format!(
                    "it was written by mastersim {version} in checkpoint format {format}; this \
                     mastersim ({}) reads format {FORMAT} only. Finish the run with mastersim \
                     {version}, or start it again",
                    env!("CARGO_PKG_VERSION")
                ),
            ));
        }
        let body_len = u64::from_le_bytes(take(8, "header")?.try_into().unwrap_or_default());
        let body_len = usize::try_from(body_len).unwrap_or(usize::MAX);
        let body = take(body_len, "body")?;
        let hash = take(HASH_LEN, "hash")?;
        if hash != Sha256::digest(body).as_slice() {
            return Err(refuse(
                path,
                "the file is corrupt (its SHA-256 hash does not match)",
            ));
        }
        if !rest.is_empty() {
            return Err(refuse(
                path,
                format!("the file is corrupt ({} bytes after its end)", rest.len()),
            ));
        }
        postcard::from_bytes(body).map_err(|e| {
            refuse(
                path,
                format!("the file is corrupt (its content cannot be decoded: {e})"),
            )
        })
    }

    /// Checks that the project file and the slaves' files and GUIDs are those of
    /// `current` (the same project, opened now).
    ///
    /// # Errors
    /// [`Error::Checkpoint`] naming what changed.
    pub fn check_sources(
        &self,
        path: &Path,
        project: &FileHash,
        slaves: &[SlaveSource],
    ) -> Result<()> {
        if self.project.sha256 != project.sha256 {
            return Err(refuse(
                path,
                format!(
                    "the project file '{}' or its --set and --input options changed since the \
                     checkpoint was written; a resumed run must use the same project and \
                     options (start the run again instead)",
                    project.path.display()
                ),
            ));
        }
        if self.slaves.len() != slaves.len() {
            return Err(refuse(path, "the project's slaves changed"));
        }
        for (was, now) in self.slaves.iter().zip(slaves) {
            let file = now
                .file
                .as_ref()
                .map_or(String::new(), |f| format!(" ('{}')", f.path.display()));
            let changed = |what: &str| {
                refuse(
                    path,
                    format!(
                        "the {what} of slave '{}'{file} changed since the checkpoint was \
                         written; a resumed run must use the same FMUs",
                        now.name
                    ),
                )
            };
            if was.name != now.name {
                return Err(changed("name"));
            }
            if was.guid != now.guid {
                return Err(changed("GUID"));
            }
            if was.file.as_ref().map(|f| f.sha256) != now.file.as_ref().map(|f| f.sha256) {
                return Err(changed(if now.guid.is_empty() {
                    "file"
                } else {
                    "FMU archive"
                }));
            }
        }
        Ok(())
    }
}
