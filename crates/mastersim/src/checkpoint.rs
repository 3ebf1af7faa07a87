//! Checkpoint files: everything a resumed run needs to continue an interrupted one, written
//! atomically and checked before use.
//!
//! A checkpoint holds the master's state ([`MasterState`]), where the result files stand
//! (`ResultsState`), the options that decide what the result files hold (`RunSettings`), a
//! SHA-256 hash of the project file and of every slave's file (FMU archive or table) with the
//! FMU's GUID, and either every slave's serialized state or the names of the slaves that
//! cannot serialize or whose serialized state cannot be restored (the resumed run then
//! replays from the start time).
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

use master::project::ResultFormat;
use master::{SimulationPlan, SlaveKind, TimeArithmetic};

use crate::results::ResultsState;
use crate::{Error, Result};

/// The checkpoint format this mastersim writes and reads.
pub const FORMAT: u32 = 3;

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
    /// Hashes the file at `path`, reading it in pieces (an FMU archive may be large).
    ///
    /// # Errors
    /// [`Error::Io`] naming the file when it cannot be read.
    pub fn of(path: &Path) -> Result<FileHash> {
        let mut hasher = Sha256::new();
        let mut hash = || -> std::io::Result<()> {
            use std::io::Read as _;
            let mut file = File::open(path)?;
            let mut buffer = vec![0u8; 1 << 16];
            loop {
                match file.read(&mut buffer)? {
                    0 => return Ok(()),
                    n => hasher.update(&buffer[..n]),
                }
            }
        };
        hash().map_err(|source| Error::Io {
            action: "read",
            path: path.to_path_buf(),
            source,
        })?;
        Ok(FileHash {
            path: path.to_path_buf(),
            sha256: hasher.finalize().into(),
        })
    }

    /// The hash of `text`, standing for the file `path` (a project built in code, which has
    /// no file).
    pub fn of_text(path: &Path, text: &str) -> FileHash {
        FileHash {
            path: path.to_path_buf(),
            sha256: Sha256::digest(text.as_bytes()).into(),
        }
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

/// Everything a run read that decides its results: the project file (with the options that
/// change what it means), the other files it was read from (an SSP system's nested `.ssd`,
/// `.ssv` and `.ssm` files), and every slave's file and GUID. A resume must find them all
/// unchanged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Sources {
    /// The project file.
    pub project: FileHash,
    /// The other files the project was read from, in the order they were read.
    pub inputs: Vec<FileHash>,
    /// Every slave's file and GUID, in project order.
    pub slaves: Vec<SlaveSource>,
}

impl Sources {
    /// The sources of a run of `plan`: `project` and `inputs` as hashed when they were read,
    /// and the hash of every slave's file (FMU archive or table) now.
    ///
    /// # Errors
    /// [`Error::Io`] naming a slave's file that cannot be read.
    pub fn of(project: FileHash, inputs: Vec<FileHash>, plan: &SimulationPlan) -> Result<Sources> {
        let slaves = plan
            .slaves
            .iter()
            .map(|s| {
                let (file, guid) = match &s.kind {
                    SlaveKind::Fmu { fmu, path, .. } => {
                        (Some(FileHash::of(path)?), fmu.description().guid.clone())
                    }
                    SlaveKind::FileReader { table } => {
                        (Some(FileHash::of(&table.path)?), String::new())
                    }
                    SlaveKind::External { .. } => (None, String::new()),
                };
                Ok(SlaveSource {
                    name: s.name.clone(),
                    file,
                    guid,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Sources {
            project,
            inputs,
            slaves,
        })
    }

    /// Checks that these sources (of the checkpoint at `path`) are those of `current` (the
    /// same project, opened now): the project file, the other files it was read from, and
    /// the slaves' files and GUIDs.
    ///
    /// # Errors
    /// [`Error::Checkpoint`] naming what changed.
    pub fn check(&self, path: &Path, current: &Sources) -> Result<()> {
        let (project, slaves) = (&current.project, &current.slaves);
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
        let changed_input = self
            .inputs
            .iter()
            .zip(&current.inputs)
            .find(|(was, now)| was != now)
            .map(|(_, now)| now.path.clone())
            .or_else(|| {
                let (was, now) = (&self.inputs, &current.inputs);
                (was.len() != now.len()).then(|| {
                    now.get(was.len())
                        .or(was.get(now.len()))
                        .map_or_else(PathBuf::new, |f| f.path.clone())
                })
            });
        if let Some(file) = changed_input {
            return Err(refuse(
                path,
                format!(
                    "the file '{}', which the project '{}' is read from, changed since the \
                     checkpoint was written (or the project reads other files now); a resumed \
                     run must read the same files (start the run again instead)",
                    file.display(),
                    project.path.display()
                ),
            ));
        }
        if self.slaves.len() != slaves.len() {
            let names = |list: &[SlaveSource]| {
                list.iter()
                    .map(|s| s.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return Err(refuse(
                path,
                format!(
                    "the project's slaves changed: the checkpoint holds {} slaves ({}), the \
                     project now {} ({})",
                    self.slaves.len(),
                    names(&self.slaves),
                    slaves.len(),
                    names(slaves)
                ),
            ));
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

/// A slave whose serialized FMU state cannot be restored, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Unrestorable {
    /// Slave name.
    pub slave: String,
    /// What failed, naming the FMI function (e.g. "instance 'Part1':
    /// fmi2DeSerializeFMUstate returned Error").
    pub failure: String,
}

/// The slaves' side of a checkpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum SlaveStates {
    /// Every slave's serialized state, in project order.
    Serialized(Vec<Vec<u8>>),
    /// A resume replays the run from the start time, because of these slaves or, when both
    /// lists are empty, because result rows are kept in memory.
    Replay {
        /// The slaves that cannot serialize their state.
        unserializable: Vec<String>,
        /// The slaves whose serialized state does not restore (`fmi2DeSerializeFMUstate` or
        /// `fmi2SetFMUstate` failed when it was tried).
        unrestorable: Vec<Unrestorable>,
    },
}

/// The options of a run that decide what its result files hold and how its time advances,
/// which a resumed run must share: otherwise the files it continues would mix two kinds of
/// results (a MAT file left at the kill, a filter applied to half of the rows).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RunSettings {
    /// The result formats written, in order (`resultFormats`, `--result-format`), by their
    /// keywords.
    pub result_formats: Vec<String>,
    /// The relative threshold of the output filter (`outputThreshold`,
    /// `--output-threshold`), when on.
    pub output_threshold: Option<f64>,
    /// The output selection: the `outputOnly` patterns, in order.
    pub output_only: Vec<String>,
    /// The time arithmetic (`timeArithmetic`, `--time-arithmetic`), by its keyword.
    pub time_arithmetic: String,
}

/// The keyword of a result format, as `--result-format` and `resultFormats` take it.
fn format_keyword(format: ResultFormat) -> &'static str {
    match format {
        ResultFormat::Csv => "csv",
        ResultFormat::Mat => "mat",
        ResultFormat::Json => "json",
    }
}

impl RunSettings {
    /// The settings of a run that writes `formats` with the output filter `threshold`
    /// (relative), selects its outputs by the `outputOnly` patterns `output_only` (texts with
    /// their line numbers) and steps with `arithmetic`.
    pub fn new(
        formats: &[ResultFormat],
        threshold: Option<f64>,
        output_only: &[(String, usize)],
        arithmetic: TimeArithmetic,
    ) -> RunSettings {
        RunSettings {
            result_formats: formats.iter().map(|f| format_keyword(*f).into()).collect(),
            output_threshold: threshold,
            output_only: output_only.iter().map(|(text, _)| text.clone()).collect(),
            time_arithmetic: arithmetic.keyword().to_ascii_lowercase(),
        }
    }

    /// Checks that these settings (of the checkpoint at `path`) are those of `current` (the
    /// resumed run's).
    ///
    /// # Errors
    /// [`Error::Checkpoint`] naming the first option that differs and both values.
    pub fn check(&self, path: &Path, current: &RunSettings) -> Result<()> {
        let list = |items: &[String], separator: &str, none: &str| {
            if items.is_empty() {
                none.to_string()
            } else {
                items.join(separator)
            }
        };
        let threshold = |t: Option<f64>| t.map_or_else(|| "off".to_string(), |t| t.to_string());
        let options = [
            (
                "result formats (--result-format, resultFormats)",
                list(&self.result_formats, ",", "none"),
                list(&current.result_formats, ",", "none"),
            ),
            (
                "output threshold (--output-threshold, outputThreshold)",
                threshold(self.output_threshold),
                threshold(current.output_threshold),
            ),
            (
                "output selection (outputOnly)",
                list(&self.output_only, " ", "every output"),
                list(&current.output_only, " ", "every output"),
            ),
            (
                "time arithmetic (--time-arithmetic, timeArithmetic)",
                self.time_arithmetic.clone(),
                current.time_arithmetic.clone(),
            ),
        ];
        match options.into_iter().find(|(_, was, now)| was != now) {
            None => Ok(()),
            Some((option, was, now)) => Err(refuse(
                path,
                format!(
                    "different {option}: the interrupted run used '{was}', this resume asks \
                     for '{now}'; a resumed run continues the interrupted run's result files, \
                     so it must use its options (resume with '{was}', or start the run again)"
                ),
            )),
        }
    }
}

/// Everything a checkpoint holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Checkpoint {
    /// The files the run read, hashed.
    pub sources: Sources,
    /// The options that decide the result files and the time steps.
    pub settings: RunSettings,
    /// The master's state.
    pub master: MasterState,
    /// Where the result files stand.
    pub results: ResultsState,
    /// The slaves' states, or why a resume replays.
    pub slave_states: SlaveStates,
}

/// The largest checkpoint file read, bytes (4 GiB): far beyond the master's state and the
/// serialized states of real FMUs, and a bound on what a file given as a checkpoint can make
/// a resume allocate.
pub const MAX_CHECKPOINT_SIZE: u64 = 4 << 30;

/// `O_NONBLOCK` of Linux: opening a FIFO for reading does not wait for a writer.
const O_NONBLOCK: i32 = 0o4000;

/// The bytes of the checkpoint file at `path`: a regular file of at most
/// [`MAX_CHECKPOINT_SIZE`] bytes. It is opened without waiting (a FIFO would otherwise block
/// the open), and a device, a FIFO or a directory is refused before anything is read.
fn read_limited(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let cannot = |e: std::io::Error| refuse(path, format!("cannot read it: {e}"));
    let mut file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(O_NONBLOCK)
        .open(path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(refuse(
                path,
                "no checkpoint exists (run with --checkpoint-interval first; the checkpoint \
                 is written to <working dir>/checkpoint/)",
            ));
        }
        Err(e) => return Err(cannot(e)),
    };
    let metadata = file.metadata().map_err(cannot)?;
    if !metadata.is_file() {
        return Err(refuse(
            path,
            "not a regular file (a checkpoint is a file that mastersim wrote)",
        ));
    }
    let too_large = |len: u64| {
        refuse(
            path,
            format!("the file has {len} bytes, larger than the 4 GiB a checkpoint may have"),
        )
    };
    if metadata.len() > MAX_CHECKPOINT_SIZE {
        return Err(too_large(metadata.len()));
    }
    let mut bytes = Vec::new();
    // The file may have grown since: never read more than the limit.
    (&mut file)
        .take(MAX_CHECKPOINT_SIZE + 1)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > MAX_CHECKPOINT_SIZE {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
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
        let bytes = self.to_bytes(path)?;
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
        Checkpoint::from_bytes(&read_limited(path)?, path)
    }

    /// The checkpoint as the bytes of its file (see the module documentation); `path` names
    /// it in errors.
    ///
    /// # Errors
    /// [`Error::Checkpoint`] when it cannot be encoded.
    pub fn to_bytes(&self, path: &Path) -> Result<Vec<u8>> {
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
        Ok(bytes)
    }

    /// Decodes and checks the bytes of a checkpoint file; `path` names it in errors (the file,
    /// or what stands for bytes held in memory).
    ///
    /// # Errors
    /// [`Error::Checkpoint`] when the bytes are not a checkpoint, are truncated or corrupt
    /// (length or hash), or were written in another format.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<Checkpoint> {
        let mut rest = bytes;
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(path: &str, byte: u8) -> FileHash {
        FileHash {
            path: path.into(),
            sha256: [byte; 32],
        }
    }

    fn slave(name: &str) -> SlaveSource {
        SlaveSource {
            name: name.into(),
            file: Some(hash(&format!("{name}.fmu"), 1)),
            guid: "{g}".into(),
        }
    }

    fn sources(inputs: Vec<FileHash>, slaves: Vec<SlaveSource>) -> Sources {
        Sources {
            project: hash("sys/SystemStructure.ssd", 0),
            inputs,
            slaves,
        }
    }

    /// The sources of a checkpoint against `current`: the refusal's text, if any.
    fn check(was: Sources, current: &Sources) -> Option<String> {
        was.check(Path::new("state.bin"), current)
            .err()
            .map(|e| e.to_string())
    }

    #[test]
    fn refusals_name_the_changed_file_and_the_slave_sets() {
        let base = || sources(vec![hash("a.ssv", 2)], vec![slave("A"), slave("B")]);
        assert_eq!(check(base(), &base()), None);
        let other_ssv = sources(vec![hash("a.ssv", 3)], vec![slave("A"), slave("B")]);
        let text = check(base(), &other_ssv).expect("refused");
        assert!(
            text.contains("the file 'a.ssv', which the project"),
            "{text}"
        );
        let more_inputs = sources(
            vec![hash("a.ssv", 2), hash("b.ssm", 4)],
            vec![slave("A"), slave("B")],
        );
        let text = check(base(), &more_inputs).expect("refused");
        assert!(text.contains("'b.ssm'"), "{text}");
        let three = sources(
            vec![hash("a.ssv", 2)],
            vec![slave("A"), slave("B"), slave("C")],
        );
        let text = check(base(), &three).expect("refused");
        assert!(
            text.contains("holds 2 slaves (A, B), the project now 3 (A, B, C)"),
            "{text}"
        );
    }
}
