//! Checkpoints and resume of a [`Session`]: writing a checkpoint (periodic, at a stop, or
//! asked for), the one check per run that every slave's serialized FMU state can be restored,
//! and bringing a new session to a checkpoint, from the slaves' serialized states or by
//! replaying the run from the start time. A slave whose serialized state does not restore
//! (when checked, or at the resume) makes the run replay, as one that cannot serialize does.
//!
//! Spec: FMI 2.0.2 §2.1.8 (serialization of FMU states); `docs/checkpoints.md`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use master::project::{ResultFormat, TimeUnit};
use master::{MasterState, Restored};
use output::result_file::ResultTable;

use super::Session;
use crate::checkpoint::{Checkpoint, SlaveStates, Sources, Unrestorable};
use crate::report::Ending;
use crate::results::{Continued, RowsOnDisk};
use crate::{Error, Options, Result};

/// Whether the slaves' serialized FMU states were checked to restore in this run.
#[derive(Debug)]
pub(super) enum StateCheck {
    /// Not yet: the first checkpoint whose slaves all serialize checks them.
    Pending,
    /// Checked, in this process or in the run this one resumes: these slaves' serialized
    /// states do not restore (empty when all do).
    Done(Vec<Unrestorable>),
}

/// The failure of a slave's FMI call without the slave's name in front (the messages that use
/// it name the slave themselves): e.g. "instance 'Part1': fmi2DeSerializeFMUstate returned
/// Error".
fn failure_text(error: &master::Error) -> String {
    match error {
        master::Error::Fmi { source, .. } => source.to_string(),
        other => other.to_string(),
    }
}

/// The slaves whose serialized FMU state cannot be restored, each with the FMI call that
/// failed, as one phrase.
fn unrestorable_text(unrestorable: &[Unrestorable]) -> String {
    let slaves: Vec<String> = unrestorable
        .iter()
        .map(|u| format!("'{}' ({})", u.slave, u.failure))
        .collect();
    match slaves.as_slice() {
        [one] => format!("the serialized FMU state of slave {one} cannot be restored"),
        _ => format!(
            "the serialized FMU states of slaves {} cannot be restored",
            slaves.join(", ")
        ),
    }
}

/// Why a resume replays the run from the start time, for the log.
pub(super) fn replay_reason(unserializable: &[String], unrestorable: &[Unrestorable]) -> String {
    let mut reasons = Vec::new();
    if !unserializable.is_empty() {
        reasons.push(format!(
            "these slaves cannot serialize their state: {}",
            unserializable.join(", ")
        ));
    }
    if !unrestorable.is_empty() {
        reasons.push(unrestorable_text(unrestorable));
    }
    if reasons.is_empty() {
        "the Signal Table or the output filter keeps rows in memory".to_string()
    } else {
        reasons.join("; ")
    }
}

impl Session {
    /// Writes the periodic checkpoint when the supervisor says it is due.
    ///
    /// # Errors
    /// As [`Session::write_checkpoint`].
    pub(super) fn checkpoint_if_due(&mut self) -> Result<()> {
        if self.checkpoints.due.swap(false, Ordering::Relaxed) {
            self.write_checkpoint("periodic")?;
        }
        Ok(())
    }

    /// Writes the checkpoint of the options' path; `why` for the log. A checkpoint that
    /// cannot be written does not end the run (its results are still written): it is logged
    /// as a warning, and the previous checkpoint stays.
    ///
    /// # Errors
    /// Only when a slave could not be put back into its state after the check of its
    /// serialized state ([`Simulation::check_serialized_states`]): the run cannot go on.
    pub(super) fn write_checkpoint(&mut self, why: &str) -> Result<()> {
        let path = self.checkpoints.path.clone();
        match self.checkpoint_now(&path) {
            Ok(Ok(size)) => log::debug!(
                "Checkpoint ({why}) at t={} s: {size} bytes in '{}'",
                self.sim.plan().time_format().show(self.sim.time()),
                path.display()
            ),
            Ok(Err(e)) => log::warn!(
                "the {why} checkpoint at t={} s could not be written: {}",
                self.sim.plan().time_format().show(self.sim.time()),
                e.chain_text()
            ),
            Err(e) => {
                self.failure = Some(Ending::of_error(&e));
                return Err(e);
            }
        }
        Ok(())
    }

    /// Writes a checkpoint of the run at the current communication point to `path`
    /// atomically (see `docs/checkpoints.md`): the master's state, where the result files
    /// stand (they are flushed), the options that decide the result files, the hashes of the
    /// project file and of every slave's file, and every slave's serialized state. A resume
    /// replays the run instead when a slave cannot serialize, when a slave's serialized state
    /// does not restore, or when results are kept in memory. The first checkpoint of a run
    /// whose slaves all serialize checks that their states restore (see
    /// [`Simulation::check_serialized_states`]); a slave whose state does not is named in one
    /// warning, with the FMI function that failed. Returns the file's size, bytes.
    ///
    /// # Errors
    /// [`Error::Master`] before the first result row or after the run ended, when a slave
    /// fails to serialize, or when a slave cannot be put back into its state after the check
    /// (the run must then not go on); [`Error::Io`] or [`Error::Output`] when a file cannot
    /// be read or written.
    ///
    /// Spec: FMI 2.0.2 §2.1.8 (serialization of FMU states); `docs/checkpoints.md`.
    pub fn save_checkpoint(&mut self, path: &Path) -> Result<u64> {
        self.checkpoint_now(path)?
    }

    /// [`Session::save_checkpoint`]: the outer error means the run cannot go on, the inner
    /// one that no checkpoint was written.
    fn checkpoint_now(&mut self, path: &Path) -> Result<Result<u64>> {
        Ok(self.checkpoint()?.and_then(|c| c.write(path)))
    }

    /// The checkpoint of the run at the current communication point (see
    /// [`Session::save_checkpoint`]): the outer error means the run cannot go on, the inner
    /// one that no checkpoint could be taken.
    pub(super) fn checkpoint(&mut self) -> Result<Result<Checkpoint>> {
        let master = match self.sim.snapshot() {
            Ok(master) => master,
            Err(e) => return Ok(Err(e.into())),
        };
        let results = match self.record.lock().files.as_mut() {
            Some(files) => files.checkpoint_state(),
            None => Err(Error::Master(master::Error::InvalidPhase {
                call: "save_checkpoint",
                reason: "without result files",
            })),
        };
        let results = match results {
            Ok(results) => results,
            Err(e) => return Ok(Err(e)),
        };
        let states = match self.sim.serialize_slaves() {
            Ok(states) => states,
            Err(e) => return Ok(Err(e.into())),
        };
        let unserializable: Vec<String> = states
            .iter()
            .zip(&self.sim.plan().slaves)
            .filter(|(s, _)| s.is_none())
            .map(|(_, p)| p.name.clone())
            .collect();
        let all_serialized = unserializable.is_empty() && !results.rows_in_memory;
        if all_serialized {
            self.check_states(&states)?;
        }
        let unrestorable = match &self.checkpoints.state_check {
            StateCheck::Done(list) => list.clone(),
            StateCheck::Pending => Vec::new(),
        };
        let slave_states = if all_serialized && unrestorable.is_empty() {
            SlaveStates::Serialized(states.into_iter().flatten().collect())
        } else {
            SlaveStates::Replay {
                unserializable,
                unrestorable,
            }
        };
        let sources = match self.sources() {
            Ok(sources) => sources.clone(),
            Err(e) => return Ok(Err(e)),
        };
        Ok(Ok(Checkpoint {
            sources,
            settings: self.checkpoints.settings.clone(),
            master,
            results,
            slave_states,
        }))
    }

    /// Checks, once per run, that the serialized `states` restore (see
    /// [`Simulation::check_serialized_states`]), and warns about each slave whose state does
    /// not.
    ///
    /// # Errors
    /// A slave that cannot be put back into its state.
    fn check_states(&mut self, states: &[Option<Vec<u8>>]) -> Result<()> {
        if let StateCheck::Done(_) = self.checkpoints.state_check {
            return Ok(());
        }
        let found = self.sim.check_serialized_states(states)?;
        let unrestorable: Vec<Unrestorable> = found
            .iter()
            .zip(&self.sim.plan().slaves)
            .filter_map(|(failure, slave)| {
                Some(Unrestorable {
                    slave: slave.name.clone(),
                    failure: failure_text(failure.as_ref()?),
                })
            })
            .collect();
        if !unrestorable.is_empty() {
            log::warn!(
                "{}; a resume from the checkpoints of this run replays it from the start time",
                unrestorable_text(&unrestorable)
            );
        }
        self.checkpoints.state_check = StateCheck::Done(unrestorable);
        Ok(())
    }

    /// The hashes of every file the run read (computed once).
    pub(super) fn sources(&mut self) -> Result<&Sources> {
        if self.checkpoints.sources.is_none() {
            self.checkpoints.sources = Some(Sources::of(
                self.checkpoints.project_hash.clone(),
                self.checkpoints.input_hashes.clone(),
                self.sim.plan(),
            )?);
        }
        Ok(self
            .checkpoints
            .sources
            .as_ref()
            .expect("invariant: set above"))
    }

    /// Opens the project `project` to continue the run interrupted at the checkpoint
    /// `checkpoint` (written by [`Session::save_checkpoint`] in the same working directory),
    /// and brings it to the checkpoint's communication point; [`Session::run`] then completes
    /// it exactly as the interrupted run would have completed.
    ///
    /// The slaves are instantiated and initialized. When the checkpoint holds every slave's
    /// state, those are restored and the result files are cut back to the checkpoint and
    /// continued. Otherwise, and when a slave cannot restore its serialized state (then all
    /// slaves are freed and instantiated anew first, with a warning naming the slave and the
    /// FMI function), the run is replayed from the start time to the checkpoint without
    /// writing results: every recomputed row is compared with the row already in the result
    /// files, and the first difference stops the resume with an error naming the slave,
    /// column and time (a slave that is not deterministic cannot be resumed by replay).
    ///
    /// # Errors
    /// As [`Session::open`] and [`Session::initialize`]; [`Error::Checkpoint`] when no
    /// checkpoint exists, it is corrupt or truncated, was written in another checkpoint
    /// format, the project file, an FMU archive or a GUID changed since, or the result
    /// formats, output threshold, output selection or time arithmetic differ from the
    /// interrupted run's; [`Error::Resume`] when the replay does not reproduce the
    /// interrupted run.
    ///
    /// Spec: `docs/checkpoints.md` (resume, replay); the block simulator's design
    /// (continuing an interrupted simulation).
    pub fn open_resume(
        project: impl AsRef<Path>,
        options: &Options,
        checkpoint: impl AsRef<Path>,
    ) -> Result<Session> {
        options.validate()?;
        let path = checkpoint.as_ref();
        // Refuse a missing or corrupt checkpoint before extracting anything.
        let checkpoint = Checkpoint::read(path)?;
        let mut session =
            Self::open_unchecked(project.as_ref(), options, Some((path, &checkpoint)))?;
        session.resume(&checkpoint)?;
        Ok(session)
    }

    /// Brings the freshly opened session to `checkpoint` (see [`Session::open_resume`]).
    fn resume(&mut self, checkpoint: &Checkpoint) -> Result<()> {
        let result = self.resume_once(checkpoint);
        if let Err(e) = &result {
            self.failure = Some(Ending::of_error(e));
        }
        result
    }

    fn resume_once(&mut self, checkpoint: &Checkpoint) -> Result<()> {
        self.sim.initialize().map_err(Error::Initialization)?;
        let master = &checkpoint.master;
        match &checkpoint.slave_states {
            SlaveStates::Serialized(states) => match self.sim.deserialize_slaves(states)? {
                Restored::All => {
                    log::info!(
                        "Resuming at t={} s from the slaves' serialized states",
                        self.sim.plan().time_format().show(master.t)
                    );
                    self.checkpoints.state_check = StateCheck::Done(Vec::new());
                    self.create_result_files(Continued::Resume(checkpoint.results.clone()))?;
                    self.sim.resume(master, &[], &mut self.observers)?;
                }
                Restored::Failed { slave, error } => {
                    let failed = Unrestorable {
                        slave: self.sim.plan().slaves[slave].name.clone(),
                        failure: failure_text(&error),
                    };
                    let logging = self.setup.fmu_logging;
                    self.sim
                        .instantiate_again(|plan| master::instantiate(plan, logging))?;
                    self.sim.initialize().map_err(Error::Initialization)?;
                    self.checkpoints.state_check = StateCheck::Done(vec![failed]);
                    self.replay_from_start(checkpoint, &[])?;
                }
            },
            SlaveStates::Replay {
                unserializable,
                unrestorable,
            } => {
                if !unrestorable.is_empty() {
                    self.checkpoints.state_check = StateCheck::Done(unrestorable.clone());
                }
                self.replay_from_start(checkpoint, unserializable)?;
            }
        }
        self.stage.initialized = true;
        self.checkpoints.resumed_at = Some(master.t);
        Ok(())
    }

    /// Replays the initialized run from the start time to `checkpoint` (see
    /// [`Session::replay`]), saying why: the slaves `unserializable` cannot serialize, those
    /// of the state check do not restore.
    fn replay_from_start(
        &mut self,
        checkpoint: &Checkpoint,
        unserializable: &[String],
    ) -> Result<()> {
        let master = &checkpoint.master;
        let unrestorable = match &self.checkpoints.state_check {
            StateCheck::Done(list) => list.as_slice(),
            StateCheck::Pending => &[],
        };
        log::warn!(
            "Resuming at t={} s by replaying the run from the start time, because {}",
            self.sim.plan().time_format().show(master.t),
            replay_reason(unserializable, unrestorable)
        );
        let started = std::time::Instant::now();
        self.create_result_files(Continued::Replay(checkpoint.results.clone()))?;
        self.replay(master).map_err(replay_error)?;
        log::info!(
            "Replay to t={} s ({} steps) took {:.3} s",
            self.sim.plan().time_format().show(master.t),
            master.counters.steps,
            started.elapsed().as_secs_f64()
        );
        Ok(())
    }

    /// Recomputes the run up to the checkpoint's step, comparing rows with the result files,
    /// then continues the files and takes over the checkpoint's statistics.
    fn replay(&mut self, master: &MasterState) -> Result<()> {
        self.sim.start_output(&mut self.observers)?;
        while self.sim.counters().steps < master.counters.steps {
            let report = self.sim.step(&mut self.observers)?;
            if report.ended.is_some() {
                return Err(Error::Resume(format!(
                    "the replay ended at t={} s, before the checkpoint at t={} s",
                    report.t, master.t
                )));
            }
        }
        if let Some(files) = self.record.lock().files.as_mut() {
            files.end_replay()?;
        }
        if let Some(difference) = master.difference(&self.sim.snapshot()?) {
            return Err(Error::Resume(format!(
                "the replay reached step {} at t={} s, but {difference}; a slave is not \
                 deterministic",
                master.counters.steps,
                self.sim.time()
            )));
        }
        self.sim.restore_statistics(master);
        Ok(())
    }
}

impl Session {
    /// The MAT file of this run when it is written row by row (`resultFormats` with `mat`,
    /// without the output filter): it holds every result row from the moment the row is
    /// written, each value exactly, time in s (the whole run's rows for a resumed run, the
    /// interrupted run's first). `None` when the run writes no such file.
    ///
    /// Spec: `docs/live.md` (what the server keeps in memory).
    pub fn streaming_mat(&self) -> Option<PathBuf> {
        let results = &self.setup.results;
        (results.formats.contains(&ResultFormat::Mat) && results.threshold.is_none()).then(|| {
            self.setup
                .working_dir
                .join("results")
                .join(format!("{}.mat", self.setup.project_name))
        })
    }

    /// `values.csv` of this run when every result row goes into it (`resultFormats` with
    /// `csv`, without the output filter): the rows in the order the observers get them (for a
    /// resumed run, the interrupted run's first), numbers with 14 significant digits, time in
    /// the output time unit. `None` when the run writes no such file.
    ///
    /// Spec: `docs/live.md` (what the server keeps in memory).
    pub fn streaming_csv(&self) -> Option<StreamingCsv> {
        let results = &self.setup.results;
        (results.formats.contains(&ResultFormat::Csv) && results.threshold.is_none()).then(|| {
            StreamingCsv {
                path: self.setup.working_dir.join("results").join("values.csv"),
                time_unit: self.sim.settings().output_time_unit,
                on_disk: results.csv_on_disk.clone(),
            }
        })
    }

    /// The result rows of the interrupted run that a resumed session continues, read back
    /// from its result files as they stand after the resume (cut back to the checkpoint): the
    /// MAT file when it is written row by row (exact values), else `values.csv` (14
    /// significant digits). Time in seconds; the columns are the file's numeric variables
    /// (Booleans as 0/1), named as in the result layout. `None` for a session that was not
    /// resumed, and for one whose rows are only in memory (the Signal Table alone, or the MAT
    /// file with the output filter, both written at the end).
    ///
    /// A live view shows these rows before those the resumed run computes (`docs/live.md`).
    ///
    /// # Errors
    /// [`Error::Output`] naming the result file when it cannot be read; the writers' errors
    /// when the files cannot be flushed first.
    ///
    /// Spec: `docs/checkpoints.md` (result files of a resumed run).
    pub fn resumed_rows(&mut self) -> Result<Option<ResultTable>> {
        let Some(t) = self.checkpoints.resumed_at else {
            return Ok(None);
        };
        if let Some(files) = self.record.lock().files.as_mut() {
            files.flush()?;
        }
        let (path, unit) = if let Some(mat) = self.streaming_mat() {
            (mat, TimeUnit::Second)
        } else if self.setup.results.formats.contains(&ResultFormat::Csv) {
            (
                self.setup.working_dir.join("results").join("values.csv"),
                self.sim.settings().output_time_unit,
            )
        } else {
            log::info!(
                "The rows of the interrupted run up to t={t} s are in no result file to \
                     read back: the Signal Table and the MAT file with the output filter are \
                     written at the end"
            );
            return Ok(None);
        };
        let mut table = output::result_file::read(&path)?
            .table()
            .map_err(|e| Error::Resume(format!("'{}': {e}", path.display())))?;
        for t in &mut table.time {
            *t = unit.to_seconds(*t);
        }
        Ok(Some(table))
    }
}

/// A run's `values.csv` while it is written ([`Session::streaming_csv`]).
#[derive(Debug, Clone)]
pub struct StreamingCsv {
    /// The file, `<working directory>/results/values.csv`.
    pub path: PathBuf,
    /// The unit of its time column (`outputTimeUnit`).
    pub time_unit: TimeUnit,
    /// How many of its data rows are complete in the file.
    pub on_disk: Arc<RowsOnDisk>,
}

/// The error of a replay: a recomputed row that differs from the result files names the
/// slave (a slave that is not deterministic).
fn replay_error(e: Error) -> Error {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&e);
    while let Some(cause) = source {
        let mismatch = match cause.downcast_ref::<Error>() {
            Some(Error::Output(inner)) => Some(inner),
            _ => cause.downcast_ref::<output::Error>(),
        };
        if let Some(
            cause @ output::Error::Mismatch {
                column: Some(column),
                ..
            },
        ) = mismatch
        {
            let slave = column.split('.').next().unwrap_or(column);
            return Error::Resume(format!(
                "slave '{slave}' did not recompute the results of the interrupted run, so it is \
                 not deterministic and the run cannot be resumed by replay: {cause}"
            ));
        }
        source = cause.source();
    }
    match e {
        Error::Resume(_) => e,
        other => Error::Resume(other.chain_text()),
    }
}
