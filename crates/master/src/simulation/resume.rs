//! The checkpoint side of [`Simulation`]: the master's state at a communication point, the
//! slaves' serialized FMU states, the check that a serialized state can be restored, and
//! putting a new simulation of the same plan back to a checkpoint.
//!
//! Spec: FMI 2.0.2 §2.1.8 (getting, setting and serializing the FMU state), FMI 3.0 §2.2.6
//! (the same for FMI 3.0); `docs/checkpoints.md`.

use super::{Phase, Simulation};
use crate::algorithm::Algorithm;
use crate::checkpoint::{MasterState, NodeState};
use crate::observer::Observer;
use crate::plan::SimulationPlan;
use crate::rows::RowWriter;
use crate::slave::Slave;
use crate::step_control::StepControl;
use crate::system::System;
use crate::{Error, Result};

/// What [`Simulation::deserialize_slaves`] did.
#[derive(Debug)]
pub enum Restored {
    /// Every slave is in its serialized state.
    All,
    /// The slave of plan index `slave` could not restore its serialized state (the FMI call
    /// that failed is in `error`). The slaves before it may have been restored and the
    /// failed one is in an undefined state: the simulation can only be dropped.
    Failed {
        /// Plan index of the slave.
        slave: usize,
        /// The failure, naming the slave and the FMI function.
        error: Error,
    },
}

impl Simulation {
    /// The master's state at the current communication point, for a checkpoint.
    ///
    /// # Errors
    /// [`Error::InvalidPhase`] before the first result row or after the run ended.
    ///
    /// Spec: `docs/checkpoints.md`.
    pub fn snapshot(&self) -> Result<MasterState> {
        if self.phase != Phase::Initialized || !self.rows.is_started() {
            return Err(Error::InvalidPhase {
                call: "snapshot",
                reason: "outside a running simulation",
            });
        }
        Ok(MasterState {
            t: self.t,
            counters: self.sys.counters,
            wall_clock: self.sys.counters.wall_clock_time(),
            control: self.control.snapshot(),
            y_t: self.sys.y_t.clone(),
            slaves: self
                .sys
                .nodes
                .iter()
                .map(|n| NodeState {
                    clock: n.clock,
                    stats: n.stats.clone(),
                })
                .collect(),
            output: self.rows.schedule().clone(),
        })
    }

    /// Every slave's state as bytes ([`Slave::serialize_state`]), in plan order; `None` for
    /// a slave that cannot serialize. Not counted in the statistics.
    ///
    /// # Errors
    /// A failing slave call.
    pub fn serialize_slaves(&mut self) -> Result<Vec<Option<Vec<u8>>>> {
        self.sys
            .nodes
            .iter_mut()
            .map(|n| n.slave.serialize_state())
            .collect()
    }

    /// Checks that the serialized states `states` (plan order, as
    /// [`Simulation::serialize_slaves`] returned them) can be restored: for every slave with
    /// a state, saves its current state in memory (`fmi2GetFMUstate`), deserializes the bytes
    /// into a new FMU state and sets it ([`Slave::deserialize_state`]), then sets the saved
    /// state again and frees it. So the slaves end in the state they had, whatever the check
    /// found, and the run goes on unchanged. Not counted in the statistics.
    ///
    /// Returns, per slave, the failure of the check (naming the FMI function that failed;
    /// a failing `fmi2GetFMUstate` too, as the check cannot be made safely then), `None`
    /// where the state restores or the slave has none.
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] when `states` does not have one entry per slave; a failing
    /// `fmi2SetFMUstate` or `fmi2FreeFMUstate` of the state saved in memory: the slave may
    /// then not be in its state any more, and the run must not go on.
    ///
    /// Spec: FMI 2.0.2 §2.1.3 (after `fmi2Error`, a state saved before may be set again),
    /// §2.1.8.
    pub fn check_serialized_states(
        &mut self,
        states: &[Option<Vec<u8>>],
    ) -> Result<Vec<Option<Error>>> {
        self.check_state_count(states.len(), "serialized states")?;
        let mut found = Vec::with_capacity(states.len());
        for (node, bytes) in self.sys.nodes.iter_mut().zip(states) {
            let Some(bytes) = bytes else {
                found.push(None);
                continue;
            };
            // Without a state saved in memory to go back to, the check would lose the
            // slave's state: a slave that cannot save one counts as not restoring.
            let saved = match node.slave.get_state(None) {
                Ok(saved) => saved,
                Err(e) => {
                    found.push(Some(e));
                    continue;
                }
            };
            let check = node.slave.deserialize_state(bytes);
            let restored = node.slave.set_state(saved);
            let freed = node.slave.free_state(saved);
            restored?;
            freed?;
            found.push(check.err());
        }
        Ok(found)
    }

    /// Restores every slave of an initialized simulation (before its first row) from
    /// `states` (plan order, as [`Simulation::serialize_slaves`] returned them in an earlier
    /// process), stopping at the first slave that cannot restore its state. Afterwards
    /// [`Simulation::resume`] (with no slave states) puts the master's state back.
    ///
    /// # Errors
    /// [`Error::InvalidPhase`] unless initialized and before the first row;
    /// [`Error::InvalidSetting`] when `states` does not have one entry per slave. A slave that
    /// cannot restore its state is no error here but [`Restored::Failed`].
    ///
    /// Spec: FMI 2.0.2 §2.1.8 (`fmi2DeSerializeFMUstate`, `fmi2SetFMUstate`).
    pub fn deserialize_slaves(&mut self, states: &[Vec<u8>]) -> Result<Restored> {
        self.check_resumable()?;
        self.check_state_count(states.len(), "serialized states")?;
        for (slave, (node, bytes)) in self.sys.nodes.iter_mut().zip(states).enumerate() {
            if let Err(error) = node.slave.deserialize_state(bytes) {
                return Ok(Restored::Failed { slave, error });
            }
        }
        Ok(Restored::All)
    }

    /// Puts an initialized simulation of the same plan into `state`, taken by
    /// [`Simulation::snapshot`] in an earlier process: restores every slave from
    /// `slave_states` (plan order, as [`Simulation::serialize_slaves`] returned them; empty
    /// when the slaves are already there, e.g. after [`Simulation::deserialize_slaves`] or a
    /// replay), then the master's state, and hands the layout to `observer` without writing a
    /// row.
    ///
    /// # Errors
    /// [`Error::InvalidPhase`] unless initialized and before the first row;
    /// [`Error::InvalidSetting`] when `state` or `slave_states` does not fit the plan; a slave
    /// that cannot restore its state; an observer's error.
    ///
    /// Spec: `docs/checkpoints.md` (resume).
    pub fn resume(
        &mut self,
        state: &MasterState,
        slave_states: &[Vec<u8>],
        observer: &mut dyn Observer,
    ) -> Result<()> {
        self.check_resumable()?;
        self.check_state_count(state.slaves.len(), "master's state")?;
        if !slave_states.is_empty() {
            self.check_state_count(slave_states.len(), "serialized states")?;
        }
        for (node, bytes) in self.sys.nodes.iter_mut().zip(slave_states) {
            node.slave.deserialize_state(bytes)?;
        }
        self.sys.transfer_outputs(state.t, true)?;
        self.restore(state);
        self.rows
            .resume(&self.plan, &mut self.sys, observer, &state.output)
    }

    /// Puts this running simulation back into `state`, taken by [`Simulation::snapshot`]
    /// earlier in the same run (or in a run of the same plan): restores every slave from
    /// `slave_states` (plan order, as [`Simulation::serialize_slaves`] returned them), then the
    /// master's state (time, step control, coupling values, clocks, counters, the output
    /// schedule). A run that had ended goes on again. The observers get no new layout: the
    /// caller cuts back what it recorded after the snapshot.
    ///
    /// # Errors
    /// [`Error::InvalidPhase`] before the first result row; [`Error::InvalidSetting`] when
    /// `state` or `slave_states` does not fit the plan; a slave that cannot restore its state
    /// (the simulation can then only be dropped).
    ///
    /// Spec: FMI 2.0.2 §2.1.8 (`fmi2DeSerializeFMUstate`, `fmi2SetFMUstate`);
    /// `docs/checkpoints.md` (snapshots).
    pub fn rewind(&mut self, state: &MasterState, slave_states: &[Vec<u8>]) -> Result<()> {
        if matches!(self.phase, Phase::Instantiated) || !self.rows.is_started() {
            return Err(Error::InvalidPhase {
                call: "rewind",
                reason: "before the first result row",
            });
        }
        self.check_state_count(state.slaves.len(), "master's state")?;
        self.check_state_count(slave_states.len(), "serialized states")?;
        for (node, bytes) in self.sys.nodes.iter_mut().zip(slave_states) {
            node.slave.deserialize_state(bytes)?;
        }
        self.phase = Phase::Initialized;
        self.algorithm = Algorithm::new(&self.plan, &self.sys);
        self.sys.transfer_outputs(state.t, true)?;
        self.restore(state);
        self.rows.rewind(&state.output);
        Ok(())
    }

    /// Frees every slave and makes the simulation new, as [`Simulation::new`] leaves it
    /// (start time, nothing initialized, no counters), with the slaves that `instantiate`
    /// makes from the plan (e.g. [`crate::instantiate`]). A resume whose serialized states
    /// could not be restored replays the run from fresh instances this way. The old slaves
    /// are terminated (a failure is only logged: a slave that failed to restore its state may
    /// be in an error state) and freed, with their FMU states, before `instantiate` is called
    /// (an FMU may allow one instance per process only). The pause and stop flags, the
    /// number of threads and the call monitor stay.
    ///
    /// # Errors
    /// The error of `instantiate`; [`Error::InvalidSetting`] when it makes another number of
    /// slaves than the plan has. The simulation then has no slaves and can only be dropped.
    ///
    /// Spec: FMI 2.0.2 §2.1.5 (`fmi2FreeInstance`, `fmi2Instantiate`).
    pub fn instantiate_again(
        &mut self,
        instantiate: impl FnOnce(&SimulationPlan) -> Result<Vec<crate::AnySlave>>,
    ) -> Result<()> {
        if let Err(e) = self.terminate() {
            log::debug!("terminating the slaves before instantiating them anew: {e}");
        }
        let monitor = self.sys.nodes.first().and_then(|n| n.monitor.clone());
        self.workers = None;
        self.sys.nodes.clear();
        let slaves = instantiate(&self.plan)?;
        super::check_slave_count(&self.plan, slaves.len())?;
        let plan = &self.plan;
        self.sys = System::new(plan, slaves);
        self.algorithm = Algorithm::new(plan, &self.sys);
        self.control = StepControl::new(plan);
        self.rows = RowWriter::new(plan, &self.sys);
        self.t = plan.settings.t_start;
        self.phase = Phase::Instantiated;
        self.do_step_calls = super::new_do_step_calls(plan);
        if let Some(monitor) = monitor {
            self.set_call_monitor(monitor);
        }
        Ok(())
    }

    /// Checks that the simulation is initialized and has written no row yet.
    fn check_resumable(&self) -> Result<()> {
        if self.phase != Phase::Initialized || self.rows.is_started() {
            return Err(Error::InvalidPhase {
                call: "resume",
                reason: "other than right after initialization",
            });
        }
        Ok(())
    }

    /// Checks that `count` entries of `what` in a checkpoint fit the plan's slaves.
    fn check_state_count(&self, count: usize, what: &str) -> Result<()> {
        let n = self.sys.nodes.len();
        if count == n {
            return Ok(());
        }
        Err(Error::InvalidSetting {
            at: crate::error::Location {
                file: self.plan.project_path.clone(),
                line: None,
            },
            keyword: "checkpoint",
            reason: format!(
                "the checkpoint holds the {what} of {count} slaves, the project has {n} slaves"
            ),
        })
    }

    /// Restores the master's state from `state` (see [`Simulation::resume`]).
    fn restore(&mut self, state: &MasterState) {
        self.t = state.t;
        self.control.restore(&state.control);
        self.sys.y_t.clone_from(&state.y_t);
        self.sys.y_next.clone_from(&state.y_t);
        for (node, s) in self.sys.nodes.iter_mut().zip(&state.slaves) {
            node.clock = s.clock;
        }
        self.restore_statistics(state);
    }

    /// Replaces the counters, timers and per-slave statistics by those of `state`; the wall
    /// clock continues from the time elapsed there. A replayed run takes over the interrupted
    /// run's statistics this way, so that `summary.txt` counts the whole run once.
    pub fn restore_statistics(&mut self, state: &MasterState) {
        let started = std::time::Instant::now().checked_sub(std::time::Duration::from_secs_f64(
            state.wall_clock.max(0.0),
        ));
        self.sys.counters = state.counters;
        self.sys.counters.started = started.or_else(|| Some(std::time::Instant::now()));
        for (node, s) in self.sys.nodes.iter_mut().zip(&state.slaves) {
            node.stats.clone_from(&s.stats);
        }
        if !self.do_step_calls.is_empty() {
            for (calls, node) in self.do_step_calls.iter_mut().zip(&self.sys.nodes) {
                *calls = node.stats.do_step.count;
            }
        }
    }
}
