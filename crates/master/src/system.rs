//! The coupled system at run time: slaves with their transfer lists, the coupling vectors, and
//! the operations master algorithms are built from (read outputs, sync, update, save/restore
//! state).
//!
//! Transfer lists are precomputed per slave from the plan, so a transfer touches only that
//! slave's connections, with one batched FMI call per slave and type.
//!
//! **When outputs are read.** A slave's selected outputs fall in two groups. *Coupled* outputs
//! feed at least one connection: they are read after every completed `doStep` (every sweep of
//! an iteration, every error-test half step, every difference-quotient evaluation) and after
//! initialization, and the Real ones are checked for NaN and infinity at each of these reads.
//! The *other* outputs written to the results are read only when a result row is written
//! (after the step that reaches the row's communication point has been accepted, see
//! [`System::refresh_outputs`]) and after initialization; no time is spent on them at steps
//! without a row. Outputs that are neither coupled nor written (excluded by `outputOnly`) are
//! never read.
//!
//! Spec: MasterSim reference §7.2 (global vectors `y_t`, `y_next`, `y_iter`), §7.3 (`sync`,
//! `update`), §12.8 (per-slave counters).

use std::sync::Arc;

use fmi::VarType;

mod links;

use links::{DiscreteLinks, Links, RealLinks, Transfer};

use crate::any_slave::AnySlave;
use crate::index::{GlobalIndex, LocalIndex, SlaveIndex};
use crate::plan::SimulationPlan;
use crate::project::TimeArithmetic;
use crate::slave::{Slave, StateId, StepOutcome};
use crate::statistics::{Counters, SlaveStatistics};
use crate::values::{PerType, TypedValues};
use crate::watchdog::{CallMonitor, SlaveCall};
use crate::{Error, Result};

/// Which of the two saved-state slots of every slave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StateSlot {
    /// States at the start of the current step (`S_iter` in the reference).
    Iter,
    /// Backup used by the Richardson error test (`S_err`).
    Err,
}

/// One slave with everything the algorithms need to move its values.
///
/// The fields one step touches come first (`repr(C)` keeps the order): a step of a slave with
/// Real connections only reads the node's first three cache lines (`align(64)` makes them
/// whole lines) and the few lines of the slave's instance wrapper that follow.
#[repr(C, align(64))]
pub(crate) struct SlaveNode {
    /// Real outputs and inputs.
    pub real: RealLinks,
    /// The slave's own clock, s: its current communication point.
    pub clock: f64,
    /// Index of this slave in the plan.
    index: SlaveIndex,
    /// Multi-rate runs: the communication point this slave steps to at the current instant, s
    /// (set by the scheduler; `None` in single-rate runs, where the master's step applies).
    pub target: Option<f64>,
    /// Wall-clock supervision of this slave's calls, when installed.
    pub monitor: Option<Arc<CallMonitor>>,
    /// Multi-rate runs: the slave does not step at the current instant (parallel Gauss-Jacobi
    /// skips it); only the due slaves are cleared, for the instant.
    pub idle: bool,
    /// MasterSim time arithmetic: the slave's clock (not the master's) is the communication
    /// point, and a rollback sets the clock to the master's current time.
    own_clock: bool,
    /// The slave has no Integer, Boolean or String inputs or coupled outputs, so the per-step
    /// transfers skip those types without touching their lists.
    only_real: bool,
    /// A step completed since the outputs that feed no connection were last read.
    stale: bool,
    pub stats: SlaveStatistics,
    pub slave: AnySlave,
    /// Integer, Boolean, String and Binary outputs and inputs.
    pub discrete: Box<DiscreteLinks>,
    states: [Option<StateId>; 2],
    /// Clock at the time each slot was saved, s.
    state_clocks: [f64; 2],
    /// Names of the Real outputs in cache order, for reporting non-finite values.
    real_names: Vec<String>,
    /// Cache slot of every selected output, per type, by local index.
    slots: PerType<Vec<usize>>,
    /// The outcome of this slave's part of a parallel step, until the serial phase takes it.
    pub pending: Option<Result<StepOutcome>>,
}

impl std::fmt::Debug for SlaveNode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SlaveNode")
            .field("name", &self.stats.name)
            .finish_non_exhaustive()
    }
}

fn slot_index(slot: StateSlot) -> usize {
    match slot {
        StateSlot::Iter => 0,
        StateSlot::Err => 1,
    }
}

impl SlaveNode {
    /// Slave name.
    pub fn name(&self) -> &str {
        &self.stats.name
    }

    /// The cache slot of the selected output `local` of type `ty`.
    pub fn slot(&self, ty: VarType, local: LocalIndex) -> usize {
        self.slots.get(ty)[local.0]
    }

    /// Runs `f` on the slave as `call` at `t`, `h` (s), recorded by the call monitor if any.
    fn supervised<R>(
        &mut self,
        call: SlaveCall,
        t: f64,
        h: f64,
        f: impl FnOnce(&mut AnySlave) -> R,
    ) -> R {
        let Some(m) = &self.monitor else {
            return f(&mut self.slave);
        };
        m.begin(self.index.0, call, t, h);
        let result = f(&mut self.slave);
        m.end(self.index.0, call);
        result
    }

    /// `setupExperiment` (supervised): relative tolerance and start/end time in s.
    pub fn setup_experiment(&mut self, rel_tol: f64, t_start: f64, t_end: f64) -> Result<()> {
        self.supervised(SlaveCall::SetupExperiment, t_start, 0.0, |s| {
            s.setup_experiment(rel_tol, t_start, t_end)
        })
    }

    /// `enterInitializationMode` (supervised).
    pub fn enter_initialization_mode(&mut self) -> Result<()> {
        let t = self.clock;
        self.supervised(SlaveCall::EnterInitializationMode, t, 0.0, |s| {
            s.enter_initialization_mode()
        })
    }

    /// `exitInitializationMode` (supervised).
    pub fn exit_initialization_mode(&mut self) -> Result<()> {
        let t = self.clock;
        self.supervised(SlaveCall::ExitInitializationMode, t, 0.0, |s| {
            s.exit_initialization_mode()
        })
    }

    /// `terminate` (supervised).
    pub fn terminate(&mut self) -> Result<()> {
        let t = self.clock;
        self.supervised(SlaveCall::Terminate, t, 0.0, |s| s.terminate())
    }

    /// Fails when a coupled Real output (one that feeds a connection) is NaN or infinite.
    ///
    /// # Errors
    /// [`Error::NonFiniteOutput`] naming the slave, the variable and `t` (s).
    #[inline]
    pub fn check_coupled_outputs(&self, t: f64) -> Result<()> {
        match self
            .real
            .coupled_cache()
            .iter()
            .position(|v| !v.is_finite())
        {
            None => Ok(()),
            Some(slot) => Err(self.non_finite(slot, t)),
        }
    }

    /// The error for the non-finite coupled Real output in cache slot `slot` at `t` (s).
    #[cold]
    fn non_finite(&self, slot: usize, t: f64) -> Error {
        Error::NonFiniteOutput {
            slave: self.name().to_string(),
            variable: self.real_names[slot].clone(),
            t,
            value: *self.real.cached(slot),
        }
    }

    /// Reads the coupled outputs into the cache (one call per type that has any).
    #[inline]
    fn read_coupled_outputs(&mut self) -> Result<()> {
        self.real.read_coupled(&mut self.slave)?;
        if self.only_real {
            return Ok(());
        }
        self.read_coupled_discrete()
    }

    /// The Integer, Boolean and String part of [`SlaveNode::read_coupled_outputs`].
    #[inline(never)]
    fn read_coupled_discrete(&mut self) -> Result<()> {
        let (s, d) = (&mut self.slave, &mut *self.discrete);
        d.integer.read_coupled(s)?;
        d.boolean.read_coupled(s)?;
        d.string.read_coupled(s)?;
        d.binary.read_coupled(s)
    }

    /// Reads the outputs that feed no connection into the cache, if a step completed since
    /// they were last read.
    pub fn refresh_outputs(&mut self) -> Result<()> {
        if !self.stale {
            return Ok(());
        }
        let (s, d) = (&mut self.slave, &mut *self.discrete);
        self.real.read_uncoupled(s)?;
        d.integer.read_uncoupled(s)?;
        d.boolean.read_uncoupled(s)?;
        d.string.read_uncoupled(s)?;
        d.binary.read_uncoupled(s)?;
        self.stale = false;
        Ok(())
    }

    /// Copies this slave's cached coupled outputs into the coupling vectors `target`.
    #[inline]
    pub fn sync(&self, target: &mut TypedValues, real_only: bool) {
        self.real.sync_into(&mut target.real);
        if real_only || self.only_real {
            return;
        }
        self.sync_discrete(target);
    }

    /// The Integer, Boolean and String part of [`SlaveNode::sync`].
    #[inline(never)]
    fn sync_discrete(&self, target: &mut TypedValues) {
        let d = &*self.discrete;
        d.integer.sync_into(&mut target.integer);
        d.boolean.sync_into(&mut target.boolean);
        d.string.sync_into(&mut target.string);
        d.binary.sync_into(&mut target.binary);
    }

    /// Sets this slave's inputs from the coupling vectors `source`; Reals become
    /// `offset + scale_factor * value`.
    #[inline]
    pub fn update(&mut self, source: &TypedValues, real_only: bool) -> Result<()> {
        self.real.update_from(&mut self.slave, &source.real)?;
        if real_only || self.only_real {
            return Ok(());
        }
        self.update_discrete(source)
    }

    /// The Integer, Boolean and String part of [`SlaveNode::update`] (kept out of the Real
    /// path, which most slaves take alone).
    #[inline(never)]
    fn update_discrete(&mut self, source: &TypedValues) -> Result<()> {
        let (s, d) = (&mut self.slave, &mut *self.discrete);
        d.integer.update_from(s, &source.integer)?;
        d.boolean.update_from(s, &source.boolean)?;
        d.string.update_from(s, &source.string)?;
        d.binary.update_from(s, &source.binary)
    }

    /// Advances the slave by `h` (s) from the master's communication point `t` (s) — or, with
    /// MasterSim time arithmetic, from the slave's own clock; in a multi-rate run from its own
    /// last communication point to its [`SlaveNode::target`] — counting the call; on completion
    /// the clock advances and the coupled outputs are read and checked.
    ///
    /// Spec: MasterSim reference §15.2 (slave communication point); `docs/algorithms.md`
    /// (multi-rate schedule).
    #[inline]
    pub fn do_step(&mut self, t: f64, h: f64) -> Result<StepOutcome> {
        let (start, h) = match self.target {
            Some(target) => (self.clock, target - self.clock),
            None if self.own_clock => (self.clock, h),
            None => (t, h),
        };
        let started = self.stats.do_step.start();
        let outcome = if self.monitor.is_none() {
            self.slave.do_step(start, h)
        } else {
            self.supervised(SlaveCall::DoStep, start, h, |s| s.do_step(start, h))
        };
        self.stats.do_step.stop(started);
        let outcome = outcome?;
        if outcome == StepOutcome::Completed {
            self.clock = self.target.unwrap_or(start + h);
            self.stale = true;
            self.read_coupled_outputs()?;
            self.check_coupled_outputs(self.clock)?;
        }
        Ok(outcome)
    }

    /// Saves the slave state into `slot`, updating an existing saved state in place.
    pub fn save_state(&mut self, slot: StateSlot) -> Result<()> {
        let started = self.stats.get_state.start();
        let i = slot_index(slot);
        let (existing, clock) = (self.states[i], self.clock);
        let id = self.supervised(SlaveCall::GetState, clock, 0.0, |s| s.get_state(existing));
        self.stats.get_state.stop(started);
        self.states[i] = Some(id?);
        self.state_clocks[i] = self.clock;
        Ok(())
    }

    /// Restores the state saved in `slot`. The clock goes back to the time the state was saved,
    /// or, with MasterSim time arithmetic, to the master's current time `t` (s).
    ///
    /// # Panics
    /// If nothing was saved in `slot` (an internal invariant of the algorithms).
    pub fn restore_state(&mut self, slot: StateSlot, t: f64) -> Result<()> {
        let i = slot_index(slot);
        let id = self.states[i].expect("invariant: state saved before rollback");
        let started = self.stats.set_state.start();
        let result = self.supervised(SlaveCall::SetState, t, 0.0, |s| s.set_state(id));
        self.stats.set_state.stop(started);
        self.clock = if self.own_clock {
            t
        } else {
            self.state_clocks[i]
        };
        self.stale = true;
        result
    }

    /// Swaps the two saved-state slots.
    pub fn swap_state_slots(&mut self) {
        self.states.swap(0, 1);
        self.state_clocks.swap(0, 1);
    }

    /// Frees every saved state.
    pub fn free_states(&mut self) -> Result<()> {
        for slot in &mut self.states {
            if let Some(id) = slot.take() {
                self.slave.free_state(id)?;
            }
        }
        Ok(())
    }
}

/// The coupled system: slaves in project order, cycles, the coupling vectors and the run's
/// counters.
#[derive(Debug)]
pub(crate) struct System {
    pub nodes: Vec<SlaveNode>,
    /// Slaves per non-empty cycle, in ascending cycle number.
    pub cycles: Vec<Vec<SlaveIndex>>,
    /// Coupled values at the current communication point.
    pub y_t: TypedValues,
    /// Candidate values at the next communication point.
    pub y_next: TypedValues,
    /// Previous iterate.
    pub y_iter: TypedValues,
    /// Run-wide counters and timers.
    pub counters: Counters,
}

/// The local indices of the outputs that feed connections in `connections`, per slave (of
/// `slaves` slaves).
fn coupled_locals(connections: &[crate::plan::Connection], slaves: usize) -> Vec<Vec<LocalIndex>> {
    let mut coupled = vec![Vec::new(); slaves];
    for c in connections {
        coupled[c.output_slave.0].push(c.output_local);
    }
    coupled
}

/// Adds the connections of one non-Real type to the links `links` of their slaves.
fn connect<T: Transfer>(
    nodes: &mut [SlaveNode],
    connections: &[crate::plan::Connection],
    ty: VarType,
    links: impl Fn(&mut DiscreteLinks) -> &mut Links<T>,
) {
    for (global, c) in connections.iter().enumerate() {
        let out = &mut nodes[c.output_slave.0];
        let slot = out.slot(ty, c.output_local);
        links(&mut out.discrete).add_output(GlobalIndex(global), slot);
        let inputs = links(&mut nodes[c.input_slave.0].discrete);
        inputs.add_input(GlobalIndex(global), c.input_vr);
        if let Some(map) = &c.value_map {
            inputs.maps.push((inputs.input_vrs.len() - 1, map.clone()));
        }
    }
}

impl System {
    /// Builds the transfer lists of every slave from `plan`; `slaves` are in plan order.
    pub fn new(plan: &SimulationPlan, slaves: Vec<AnySlave>) -> System {
        let c = &plan.connections;
        let n = plan.slaves.len();
        let coupled = PerType {
            real: coupled_locals(&c.real, n),
            integer: coupled_locals(&c.integer, n),
            boolean: coupled_locals(&c.boolean, n),
            string: coupled_locals(&c.string, n),
            binary: coupled_locals(&c.binary, n),
        };
        // The Real links are built here and packed into the nodes at the end.
        let mut real_links = Vec::with_capacity(n);
        let mut nodes: Vec<SlaveNode> = plan
            .slaves
            .iter()
            .zip(slaves)
            .enumerate()
            .map(|(index, (p, slave))| {
                let o = &p.outputs;
                let (real, real_slots) = Links::outputs(&o.real, &coupled.real[index]);
                let (integer, integer_slots) = Links::outputs(&o.integer, &coupled.integer[index]);
                let (boolean, boolean_slots) = Links::outputs(&o.boolean, &coupled.boolean[index]);
                let (string, string_slots) = Links::outputs(&o.string, &coupled.string[index]);
                let (binary, binary_slots) = Links::outputs(&o.binary, &coupled.binary[index]);
                let mut real_names = vec![String::new(); real.output_vrs.len()];
                for (l, var) in o.real.iter().enumerate() {
                    if let Some(name) = real_names.get_mut(real_slots[l]) {
                        name.clone_from(&var.name);
                    }
                }
                real_links.push(real);
                SlaveNode {
                    real: RealLinks::default(),
                    clock: plan.settings.t_start,
                    target: None,
                    monitor: None,
                    index: SlaveIndex(index),
                    idle: plan.multirate.is_some(),
                    own_clock: plan.settings.time_arithmetic == TimeArithmetic::MasterSim,
                    only_real: false,
                    stale: true,
                    stats: SlaveStatistics {
                        name: p.name.clone(),
                        ..Default::default()
                    },
                    slave,
                    discrete: Box::new(DiscreteLinks {
                        integer,
                        boolean,
                        string,
                        binary,
                    }),
                    states: [None, None],
                    state_clocks: [plan.settings.t_start; 2],
                    real_names,
                    slots: PerType {
                        real: real_slots,
                        integer: integer_slots,
                        boolean: boolean_slots,
                        string: string_slots,
                        binary: binary_slots,
                    },
                    pending: None,
                }
            })
            .collect();
        for (global, c) in c.real.iter().enumerate() {
            let slot = nodes[c.output_slave.0].slot(VarType::Real, c.output_local);
            real_links[c.output_slave.0].add_output(GlobalIndex(global), slot);
            let inputs = &mut real_links[c.input_slave.0];
            inputs.add_input(GlobalIndex(global), c.input_vr);
            inputs.transforms.push((c.offset, c.scale_factor));
        }
        // All packed before any builder is freed, so that the blocks come one after the other.
        let packed: Vec<RealLinks> = real_links.iter().map(RealLinks::pack).collect();
        for (node, real) in nodes.iter_mut().zip(packed) {
            node.real = real;
        }
        drop(real_links);
        connect(&mut nodes, &c.integer, VarType::Integer, |d| &mut d.integer);
        connect(&mut nodes, &c.boolean, VarType::Boolean, |d| &mut d.boolean);
        connect(&mut nodes, &c.string, VarType::String, |d| &mut d.string);
        connect(&mut nodes, &c.binary, VarType::Binary, |d| &mut d.binary);
        for node in &mut nodes {
            let d = &node.discrete;
            node.only_real = d.integer.idle_per_step()
                && d.boolean.idle_per_step()
                && d.string.idle_per_step()
                && d.binary.idle_per_step();
        }
        let lengths = plan.connection_counts();
        System {
            nodes,
            cycles: plan.cycles.clone(),
            y_t: TypedValues::zeroed(&lengths),
            y_next: TypedValues::zeroed(&lengths),
            y_iter: TypedValues::zeroed(&lengths),
            counters: Counters::new(plan.settings.t_start),
        }
    }

    /// The node of slave `s`.
    pub fn node(&self, s: SlaveIndex) -> &SlaveNode {
        &self.nodes[s.0]
    }

    /// The node of slave `s`, mutable.
    pub fn node_mut(&mut self, s: SlaveIndex) -> &mut SlaveNode {
        &mut self.nodes[s.0]
    }

    /// Reads every slave's coupled outputs (with `all`, every selected output) and copies the
    /// coupled ones into `y_t` (initialization); `t` (s) is the time the NaN check reports.
    pub fn transfer_outputs(&mut self, t: f64, all: bool) -> Result<()> {
        for node in &mut self.nodes {
            node.read_coupled_outputs()?;
            node.check_coupled_outputs(t)?;
            if all {
                node.stale = true;
                node.refresh_outputs()?;
            }
            node.sync(&mut self.y_t, false);
        }
        Ok(())
    }

    /// Reads the outputs that feed no connection of every slave that stepped since they were
    /// last read, so that every cached output is current (before a result row).
    pub fn refresh_outputs(&mut self) -> Result<()> {
        self.nodes
            .iter_mut()
            .try_for_each(SlaveNode::refresh_outputs)
    }

    /// Saves the state of every slave into `slot`.
    pub fn save_states(&mut self, slot: StateSlot) -> Result<()> {
        self.nodes.iter_mut().try_for_each(|n| n.save_state(slot))
    }

    /// Saves the state of every slave in the current cycles into `slot` (in a multi-rate run, the
    /// slaves due at the instant).
    pub fn save_cycle_states(&mut self, slot: StateSlot) -> Result<()> {
        for cycle in &self.cycles {
            for &s in cycle {
                self.nodes[s.0].save_state(slot)?;
            }
        }
        Ok(())
    }

    /// Restores every slave from `slot`; `t` is the master's current time (s).
    pub fn restore_states(&mut self, slot: StateSlot, t: f64) -> Result<()> {
        self.nodes
            .iter_mut()
            .try_for_each(|n| n.restore_state(slot, t))
    }

    /// Restores the slaves of one cycle from `slot`; `t` is the master's current time (s).
    pub fn restore_cycle(&mut self, cycle: usize, slot: StateSlot, t: f64) -> Result<()> {
        for &s in &self.cycles[cycle] {
            self.nodes[s.0].restore_state(slot, t)?;
        }
        Ok(())
    }

    /// Swaps the two saved-state slots of every slave.
    pub fn swap_state_slots(&mut self) {
        self.nodes.iter_mut().for_each(SlaveNode::swap_state_slots);
    }

    /// Every slave's call statistics, in project order.
    pub fn slave_statistics(&self) -> Vec<SlaveStatistics> {
        self.nodes
            .iter()
            .map(|n| SlaveStatistics {
                integrator: n.slave.integrator_statistics(),
                ..n.stats.clone()
            })
            .collect()
    }
}
