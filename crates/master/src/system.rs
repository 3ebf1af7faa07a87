//! The coupled system at run time: slaves with their transfer lists, the coupling vectors, and
//! the operations master algorithms are built from (cache, sync, update, save/restore state).
//!
//! Transfer lists are precomputed per slave from the plan, so a transfer touches only that
//! slave's connections, with one batched FMI call per slave and type.
//!
//! Spec: MasterSim reference §7.2 (global vectors `y_t`, `y_next`, `y_iter`), §7.3 (`sync`,
//! `update`), §12.8 (per-slave counters).

use std::sync::Arc;

use fmi::ValueRef;
use smallvec::SmallVec;

use crate::plan::SimulationPlan;
use crate::project::TimeArithmetic;
use crate::slave::{Slave, StateId, StepOutcome};
use crate::timer::Timer;
use crate::values::TypedValues;
use crate::watchdog::{CallMonitor, SlaveCall};
use crate::{Error, Result};

/// Per-slave call statistics.
///
/// Spec: MasterSim reference §12.8 (per-slave counts).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SlaveStatistics {
    /// Slave name.
    pub name: String,
    /// `doStep` calls.
    pub do_step: Timer,
    /// State captures.
    pub get_state: Timer,
    /// State restorations (rollbacks).
    pub set_state: Timer,
}

/// Which of the two saved-state slots of every slave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StateSlot {
    /// States at the start of the current step (`S_iter` in the reference).
    Iter,
    /// Backup used by the Richardson error test (`S_err`).
    Err,
}

/// A slave-local list, stored inside its node up to two entries (most slaves have few
/// connections), so that a slave's transfer data sits together in memory.
type Local<T> = SmallVec<[T; 2]>;

/// Everything one slave moves in values of one FMI type: its outputs (value references, the
/// values read after the last completed step, where they go in the coupling vectors) and its
/// inputs (value references, where each comes from, the values handed to the set call).
#[derive(Debug, Clone, Default)]
pub(crate) struct Links<T> {
    /// Value references of the outputs, in local order.
    output_vrs: Local<ValueRef>,
    /// Outputs read after the last completed step (what result rows show), by local index.
    pub cache: Local<T>,
    /// `(global, local)`: copy `cache[local]` into the coupling vector at `global`.
    sync: Local<(usize, usize)>,
    /// Value references of the connected inputs.
    input_vrs: Local<ValueRef>,
    /// Global index of the connection feeding each input.
    sources: Local<usize>,
    /// `(offset, scale_factor)` per input (Real only; empty for the other types).
    transforms: Local<(f64, f64)>,
    /// The input values of the next set call, one per input.
    buffer: Local<T>,
}

impl<T: Clone + Default> Links<T> {
    /// The outputs `vrs`, with a zeroed cache.
    fn outputs(vrs: impl Iterator<Item = ValueRef>) -> Self {
        let output_vrs: Local<ValueRef> = vrs.collect();
        Links {
            cache: smallvec::smallvec![T::default(); output_vrs.len()],
            output_vrs,
            ..Links::default()
        }
    }

    /// Adds connection `global` of this type, whose output is `cache[local]`.
    fn add_output(&mut self, global: usize, local: usize) {
        self.sync.push((global, local));
    }

    /// Adds connection `global` of this type feeding the input `vr`.
    fn add_input(&mut self, global: usize, vr: ValueRef) {
        self.input_vrs.push(vr);
        self.sources.push(global);
        self.buffer.push(T::default());
    }

    /// No outputs, inputs or connections.
    fn is_empty(&self) -> bool {
        self.output_vrs.is_empty() && self.input_vrs.is_empty() && self.sync.is_empty()
    }

    /// Copies the cached outputs into the coupling vector `target` (one entry per connection).
    fn sync_into(&self, target: &mut [T]) {
        for &(g, l) in &self.sync {
            target[g].clone_from(&self.cache[l]);
        }
    }

    /// Fills the input buffer from the coupling vector `source`; returns false when this type
    /// has no inputs.
    fn gather(&mut self, source: &[T]) -> bool {
        for (b, &g) in self.buffer.iter_mut().zip(&self.sources) {
            b.clone_from(&source[g]);
        }
        !self.input_vrs.is_empty()
    }
}

/// One slave with everything the algorithms need to move its values.
///
/// The fields one step touches come first (`repr(C)` keeps the order), so that a step of a
/// slave with few connections reads a few adjacent cache lines of its node.
#[repr(C)]
pub(crate) struct SlaveNode {
    pub slave: Box<dyn Slave>,
    /// Real outputs and inputs.
    pub real: Links<f64>,
    /// The slave's own clock, s: its current communication point.
    pub clock: f64,
    /// Wall-clock supervision of this slave's calls, when installed.
    pub monitor: Option<Arc<CallMonitor>>,
    /// MasterSim time arithmetic: the slave's clock (not the master's) is the communication
    /// point, and a rollback sets the clock to the master's current time.
    own_clock: bool,
    /// The slave has no Integer, Boolean or String inputs, outputs or connections, so the
    /// per-step transfers skip those types without touching their lists.
    only_real: bool,
    pub stats: SlaveStatistics,
    /// Integer outputs and inputs.
    pub integer: Links<i32>,
    /// Boolean outputs and inputs.
    pub boolean: Links<bool>,
    /// String outputs and inputs.
    pub string: Links<String>,
    states: [Option<StateId>; 2],
    /// Clock at the time each slot was saved, s.
    state_clocks: [f64; 2],
    /// Names of the Real outputs (by local index), for reporting non-finite values.
    real_names: Vec<String>,
    /// Index of this slave in the plan.
    index: usize,
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

    /// Runs `f` on the slave as `call` at `t`, `h` (s), recorded by the call monitor if any.
    fn supervised<R>(
        &mut self,
        call: SlaveCall,
        t: f64,
        h: f64,
        f: impl FnOnce(&mut dyn Slave) -> R,
    ) -> R {
        if let Some(m) = &self.monitor {
            m.begin(self.index, call, t, h);
        }
        let result = f(self.slave.as_mut());
        if let Some(m) = &self.monitor {
            m.end(self.index, call);
        }
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
    pub fn check_coupled_outputs(&self, t: f64) -> Result<()> {
        for &(_, l) in &self.real.sync {
            let value = self.real.cache[l];
            if !value.is_finite() {
                return Err(Error::NonFiniteOutput {
                    slave: self.name().to_string(),
                    variable: self.real_names[l].clone(),
                    t,
                    value,
                });
            }
        }
        Ok(())
    }

    /// Reads all selected outputs into the cache (one call per type).
    pub fn cache_outputs(&mut self) -> Result<()> {
        let s = &mut self.slave;
        if !self.real.output_vrs.is_empty() {
            s.get_real(&self.real.output_vrs, &mut self.real.cache)?;
        }
        if self.only_real {
            return Ok(());
        }
        if !self.integer.output_vrs.is_empty() {
            s.get_integer(&self.integer.output_vrs, &mut self.integer.cache)?;
        }
        if !self.boolean.output_vrs.is_empty() {
            s.get_boolean(&self.boolean.output_vrs, &mut self.boolean.cache)?;
        }
        if !self.string.output_vrs.is_empty() {
            s.get_string(&self.string.output_vrs, &mut self.string.cache)?;
        }
        Ok(())
    }

    /// Copies this slave's cached outputs into the coupling vectors `target`.
    pub fn sync(&self, target: &mut TypedValues, real_only: bool) {
        self.real.sync_into(&mut target.real);
        if real_only || self.only_real {
            return;
        }
        self.integer.sync_into(&mut target.integer);
        self.boolean.sync_into(&mut target.boolean);
        self.string.sync_into(&mut target.string);
    }

    /// Sets this slave's inputs from the coupling vectors `source`; Reals become
    /// `offset + scale_factor * value`.
    pub fn update(&mut self, source: &TypedValues, real_only: bool) -> Result<()> {
        let real = &mut self.real;
        if !real.input_vrs.is_empty() {
            for ((b, &g), &(offset, scale)) in real
                .buffer
                .iter_mut()
                .zip(&real.sources)
                .zip(&real.transforms)
            {
                *b = offset + scale * source.real[g];
            }
            self.slave.set_real(&real.input_vrs, &real.buffer)?;
        }
        if real_only || self.only_real {
            return Ok(());
        }
        if self.integer.gather(&source.integer) {
            self.slave
                .set_integer(&self.integer.input_vrs, &self.integer.buffer)?;
        }
        if self.boolean.gather(&source.boolean) {
            self.slave
                .set_boolean(&self.boolean.input_vrs, &self.boolean.buffer)?;
        }
        if self.string.gather(&source.string) {
            self.slave
                .set_string(&self.string.input_vrs, &self.string.buffer)?;
        }
        Ok(())
    }

    /// Advances the slave by `h` (s) from the master's communication point `t` (s) — or, with
    /// MasterSim time arithmetic, from the slave's own clock — counting the call; on completion
    /// the clock advances and the outputs are cached.
    ///
    /// Spec: MasterSim reference §15.2 (slave communication point).
    pub fn do_step(&mut self, t: f64, h: f64) -> Result<StepOutcome> {
        let start = if self.own_clock { self.clock } else { t };
        let started = self.stats.do_step.start();
        let outcome = self.supervised(SlaveCall::DoStep, start, h, |s| s.do_step(start, h));
        self.stats.do_step.stop(started);
        let outcome = outcome?;
        if outcome == StepOutcome::Completed {
            self.clock = start + h;
            self.cache_outputs()?;
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

/// Adds the connections of one non-Real type to the links `links` of their slaves.
fn connect<T: Clone + Default>(
    nodes: &mut [SlaveNode],
    connections: &[crate::plan::Connection],
    links: impl Fn(&mut SlaveNode) -> &mut Links<T>,
) {
    for (global, c) in connections.iter().enumerate() {
        links(&mut nodes[c.output_slave.0]).add_output(global, c.output_local);
        links(&mut nodes[c.input_slave.0]).add_input(global, c.input_vr);
    }
}

/// Least summed `doStep` time per step (s) for which Gauss-Jacobi steps slaves in parallel.
pub(crate) const PARALLEL_MIN_STEP_COST: f64 = 10e-6;

/// Least mean `doStep` time per slave (s) for which Gauss-Jacobi steps slaves in parallel.
/// A slave stepped on another core leaves its data (the instance's memory, its outputs) in
/// that core's cache, and the serial transfer phase pulls it back: some hundred ns per slave
/// on the machines measured (`docs/performance.md`). Many cheap slaves therefore run faster
/// on one thread.
pub(crate) const PARALLEL_MIN_SLAVE_COST: f64 = 1e-6;

/// Counters kept by the algorithms.
///
/// Spec: MasterSim reference §12.8.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Calls of the master algorithm's step (including error-test half steps).
    pub algorithm_calls: u64,
    /// Sweeps over cycles (one per cycle per iteration).
    pub iterations: u64,
    /// Returns with "iteration limit exceeded".
    pub iteration_limit_exceeded: u64,
    /// Steps rejected by a slave (Discard or Error).
    pub fmu_errors: u64,
}

/// The coupled system: slaves in project order, cycles, and the coupling vectors.
#[derive(Debug)]
pub(crate) struct System {
    pub nodes: Vec<SlaveNode>,
    /// Slave indices per non-empty cycle.
    pub cycles: Vec<Vec<usize>>,
    /// Coupled values at the current communication point.
    pub y_t: TypedValues,
    /// Candidate values at the next communication point.
    pub y_next: TypedValues,
    /// Previous iterate.
    pub y_iter: TypedValues,
    pub counters: Counters,
    /// Newton's data, when the master algorithm is Newton.
    pub newton: Option<Box<crate::algorithm::newton::Newton>>,
    /// Step the slaves of Gauss-Jacobi in parallel (more than one thread allowed and the
    /// slaves' `doStep` calls costly enough; see [`System::update_parallel_choice`]). Only
    /// acted on inside the worker pool.
    pub parallel: bool,
}

impl System {
    /// Builds the transfer lists of every slave from `plan`; `slaves` are in plan order.
    pub fn new(plan: &SimulationPlan, slaves: Vec<Box<dyn Slave>>) -> System {
        let mut nodes: Vec<SlaveNode> = plan
            .slaves
            .iter()
            .zip(slaves)
            .enumerate()
            .map(|(index, (p, slave))| SlaveNode {
                slave,
                real: Links::outputs(p.outputs.real.iter().map(|o| o.vr)),
                clock: plan.settings.t_start,
                monitor: None,
                own_clock: plan.settings.time_arithmetic == TimeArithmetic::MasterSim,
                only_real: false,
                stats: SlaveStatistics {
                    name: p.name.clone(),
                    ..Default::default()
                },
                integer: Links::outputs(p.outputs.integer.iter().map(|o| o.vr)),
                boolean: Links::outputs(p.outputs.boolean.iter().map(|o| o.vr)),
                string: Links::outputs(p.outputs.string.iter().map(|o| o.vr)),
                states: [None, None],
                state_clocks: [plan.settings.t_start; 2],
                real_names: p.outputs.real.iter().map(|o| o.name.clone()).collect(),
                index,
                pending: None,
            })
            .collect();
        let c = &plan.connections;
        for (global, c) in c.real.iter().enumerate() {
            nodes[c.output_slave.0]
                .real
                .add_output(global, c.output_local);
            let inputs = &mut nodes[c.input_slave.0].real;
            inputs.add_input(global, c.input_vr);
            inputs.transforms.push((c.offset, c.scale_factor));
        }
        connect(&mut nodes, &c.integer, |n| &mut n.integer);
        connect(&mut nodes, &c.boolean, |n| &mut n.boolean);
        connect(&mut nodes, &c.string, |n| &mut n.string);
        for node in &mut nodes {
            node.only_real =
                node.integer.is_empty() && node.boolean.is_empty() && node.string.is_empty();
        }
        let lengths = plan.connection_counts();
        System {
            nodes,
            cycles: plan
                .cycles
                .iter()
                .map(|c| c.iter().map(|s| s.0).collect())
                .collect(),
            y_t: TypedValues::zeroed(&lengths),
            y_next: TypedValues::zeroed(&lengths),
            y_iter: TypedValues::zeroed(&lengths),
            counters: Counters::default(),
            newton: None,
            parallel: false,
        }
    }

    /// Decides whether Gauss-Jacobi steps its slaves in parallel on `threads` worker threads:
    /// only with more than one thread and slave, and only when the slaves' `doStep` calls
    /// together take at least [`PARALLEL_MIN_STEP_COST`] per step (mean of the sampled call
    /// times), and the mean per slave at least [`PARALLEL_MIN_SLAVE_COST`], so that cheap
    /// slaves are not slowed down by the cost of handing work to other threads. Results are
    /// the same either way.
    pub fn update_parallel_choice(&mut self, threads: usize) {
        let cost: f64 = self
            .nodes
            .iter()
            .map(|n| {
                let timer = &n.stats.do_step;
                if timer.count == 0 {
                    0.0
                } else {
                    timer.seconds() / timer.count as f64
                }
            })
            .sum();
        let n = self.nodes.len();
        let parallel = threads > 1
            && n > 1
            && cost >= PARALLEL_MIN_STEP_COST
            && cost / n as f64 >= PARALLEL_MIN_SLAVE_COST;
        if parallel != self.parallel {
            log::info!(
                "Gauss-Jacobi: {} stepping ({n} slaves, {:.1} µs of doStep per step, {threads} threads)",
                if parallel { "parallel" } else { "serial" },
                cost * 1e6,
            );
        }
        self.parallel = parallel;
    }

    /// Saves the state of every slave into `slot`.
    pub fn save_states(&mut self, slot: StateSlot) -> Result<()> {
        self.nodes.iter_mut().try_for_each(|n| n.save_state(slot))
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
            self.nodes[s].restore_state(slot, t)?;
        }
        Ok(())
    }

    /// Swaps the two saved-state slots of every slave.
    pub fn swap_state_slots(&mut self) {
        self.nodes.iter_mut().for_each(SlaveNode::swap_state_slots);
    }
}
