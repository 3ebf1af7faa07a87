//! In-memory snapshots of a [`Session`]: the bytes a checkpoint file would hold
//! ([`Session::snapshot`]), and the session rolled back to them in place
//! ([`Session::restore`]): FMU states, the master's time and counters, and the result files
//! cut back to the snapshot's row, so that the run continues as it did from there.
//!
//! Spec: FMI 2.0.2 §2.1.8 (serializing FMU states); `docs/checkpoints.md` (snapshots).

use std::path::PathBuf;

use master::Observer as _;

use super::Session;
use super::resume::replay_reason;
use crate::checkpoint::{Checkpoint, SlaveStates};
use crate::report::Ending;
use crate::results::Continued;
use crate::{Error, Result};

impl Session {
    /// The whole session at the current communication point as bytes: exactly what
    /// [`Session::save_checkpoint`] would write to its file (the master's state, where the
    /// result files stand, the run's settings and sources, every slave's serialized FMU
    /// state). The result files are flushed first. [`Session::restore`] brings this session
    /// back to it; [`Session::open_resume`] continues from it once written to a file.
    ///
    /// # Errors
    /// [`Error::Master`] before the first result row or after the run ended, or when a slave
    /// fails to serialize or cannot be put back into its state after the one check that
    /// serialized states restore (the run then cannot go on); [`Error::Io`] or
    /// [`Error::Output`] when a result file cannot be flushed or measured.
    ///
    /// Spec: FMI 2.0.2 §2.1.8; `docs/checkpoints.md`.
    pub fn snapshot(&mut self) -> Result<Vec<u8>> {
        let checkpoint = match self.checkpoint() {
            Ok(checkpoint) => checkpoint?,
            Err(e) => {
                self.failure = Some(Ending::of_error(&e));
                return Err(e);
            }
        };
        checkpoint.to_bytes(&PathBuf::from("snapshot"))
    }

    /// Rolls this session back to `snapshot` ([`Session::snapshot`] of this session, or of a
    /// session of the same project and settings): every slave's FMU state, the master's time,
    /// step size and counters, and the result files, cut back to the snapshot's last row and
    /// continued from there, so that running on gives the same files, byte for byte, as a run
    /// that never went past the snapshot. A run that had ended goes on again. Values set since
    /// ([`Session::set`]) are those of the snapshot again (they are part of the FMU states).
    /// Observers added by the caller are not told: they see the rows after the snapshot's
    /// again, from its communication point on.
    ///
    /// # Errors
    /// [`Error::Checkpoint`] when the bytes are no snapshot (truncated, corrupt, another
    /// format), were taken of another project, FMU or result settings, or hold no serialized
    /// FMU states (a slave that cannot serialize, a slave whose state does not restore, or
    /// rows held in memory by the Signal Table or the output filter: such a session cannot be
    /// restored in place; the message says which); [`Error::Master`] before initialization or
    /// when a slave cannot restore its state (the session can then only be finished);
    /// [`Error::Io`] or [`Error::Output`] when a result file cannot be cut back.
    ///
    /// Spec: FMI 2.0.2 §2.1.8 (`fmi2DeSerializeFMUstate`); `docs/checkpoints.md`.
    pub fn restore(&mut self, snapshot: &[u8]) -> Result<()> {
        let name = PathBuf::from(format!("snapshot of {} bytes", snapshot.len()));
        let checkpoint = Checkpoint::from_bytes(snapshot, &name)?;
        let sources = self.sources()?.clone();
        checkpoint.sources.check(&name, &sources)?;
        checkpoint
            .settings
            .check(&name, &self.checkpoints.settings)?;
        let states = match &checkpoint.slave_states {
            SlaveStates::Serialized(states) => states,
            SlaveStates::Replay {
                unserializable,
                unrestorable,
            } => {
                return Err(Error::Checkpoint {
                    path: name,
                    problem: format!(
                        "it holds no serialized FMU states, because {}: a live session cannot \
                         be restored from it (written to a file, open_resume replays the run \
                         to it)",
                        replay_reason(unserializable, unrestorable)
                    ),
                });
            }
        };
        if !self.stage.initialized {
            return Err(Error::Master(master::Error::InvalidPhase {
                call: "restore",
                reason: "before initialization",
            }));
        }
        let result = self.rewind(&checkpoint, states);
        match &result {
            Ok(()) => self.failure = None,
            Err(e) => self.failure = Some(Ending::of_error(e)),
        }
        result
    }

    /// Completes the result files, rolls the simulation back to `checkpoint` and continues
    /// the files from where it stood.
    fn rewind(&mut self, checkpoint: &Checkpoint, states: &[Vec<u8>]) -> Result<()> {
        self.record.finish_files()?;
        self.sim.rewind(&checkpoint.master, states)?;
        self.observers.rewound(self.sim.time());
        self.create_result_files(Continued::Resume(checkpoint.results.clone()))?;
        self.record
            .start(self.sim.layout())
            .map_err(|source| master::Error::Observer { source })?;
        Ok(())
    }
}
