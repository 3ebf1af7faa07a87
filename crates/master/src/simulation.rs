//! The stepping driver: owns the master time, initializes the slaves, and advances the coupled
//! system one communication step at a time, handing result rows and counters to an observer.
//!
//! [`Simulation::step`] takes exactly one communication step; [`Simulation::run_until`] and
//! [`Simulation::run`] repeat it. All three go through the same code, so stepping N times gives
//! the same results and counters as running. What one step involves is split over the modules
//! it uses: [`crate::step_control`] (step size, rollback, error control), [`crate::algorithm`]
//! (the master algorithm), [`crate::rows`] (result rows).
//!
//! Spec: MasterSim reference §8 (initialization), §9 (time-stepping driver), §12.3 (output
//! schedule), §12.8 (counters). Departures: drift-free fixed steps ([`crate::time::FixedGrid`]),
//! outputs re-read after `exitInitializationMode`, the corrected CHECK mode, and a clear error
//! where MasterSim would roll back without saved states (`docs/deviations.md`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::algorithm::Algorithm;
use crate::any_slave::AnySlave;
use crate::observer::{Observer, OutputLayout};
use crate::plan::{SimulationPlan, Value};
use crate::rows::RowWriter;
use crate::settings::Settings;
use crate::slave::Slave;
use crate::statistics::{Counters, Statistics};
use crate::step_control::{StepControl, Stepped};
use crate::system::System;
use crate::workers::Workers;
use crate::{Error, Result};

mod access;
mod resume;

pub use access::Variable;
pub use resume::Restored;

/// Steps between re-evaluations of whether Gauss-Jacobi steps slaves in parallel.
const PARALLEL_CHOICE_STEPS: u64 = 64;

/// How a run ended without error.
#[derive(Debug, Clone, PartialEq)]
pub enum RunOutcome {
    /// The end time was reached.
    Completed,
    /// A slave asked to end the simulation (FMI 2.0 terminate request) at communication point
    /// `t` (s); results up to `t` are complete.
    Terminated {
        /// The slave that asked.
        slave: String,
        /// Last completed communication point, s.
        t: f64,
    },
    /// The stop flag was raised; the run ended at communication point `t` (s).
    Interrupted {
        /// Last completed communication point, s.
        t: f64,
    },
}

/// What a call of [`Simulation::step`] (or [`Simulation::run_until`]) did.
#[derive(Debug, Clone, PartialEq)]
pub struct StepReport {
    /// The communication point after the call, s.
    pub t: f64,
    /// The communication step size of the last step taken, s (0 when the call took none).
    pub h: f64,
    /// `Some` once the run has ended (with this call or before): how it ended. The last row
    /// has then been written, and further calls take no step.
    pub ended: Option<RunOutcome>,
}

/// Where a simulation is in its life.
#[derive(Debug, Clone, PartialEq)]
enum Phase {
    /// Slaves instantiated, not initialized.
    Instantiated,
    /// Initialized; stepping may go on.
    Initialized,
    /// The run has ended.
    Ended(RunOutcome),
}

/// What the stepping code inside or outside the worker pool returns.
enum Advanced {
    /// The call is done.
    Done(StepReport),
    /// Parallel stepping was chosen and the worker pool must be started first (nothing was
    /// stepped yet).
    NeedWorkers,
}

/// A simulation in progress: the coupled system plus the master clock.
#[derive(Debug)]
pub struct Simulation {
    plan: SimulationPlan,
    sys: System,
    algorithm: Algorithm,
    control: StepControl,
    rows: RowWriter,
    /// Current communication point, s.
    t: f64,
    phase: Phase,
    /// Threads allowed for parallel Gauss-Jacobi ([`Simulation::set_threads`]), at least 1.
    threads: usize,
    /// The worker threads, started when parallel stepping is first chosen.
    workers: Option<Workers>,
    stop: Option<Arc<AtomicBool>>,
    /// Flags that make [`Simulation::run_until`] return at the next communication point.
    pause: Vec<Arc<AtomicBool>>,
    /// Multi-rate runs: every slave's `doStep` calls so far, for [`Observer::slave_steps`]
    /// (empty in single-rate runs).
    do_step_calls: Vec<u64>,
}

impl Simulation {
    /// Creates the simulation from a plan and its slaves (in plan order, e.g. from
    /// [`crate::instantiate`]).
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] when the number of slaves differs from the plan.
    pub fn new(plan: SimulationPlan, slaves: Vec<AnySlave>) -> Result<Simulation> {
        check_slave_count(&plan, slaves.len())?;
        let sys = System::new(&plan, slaves);
        Ok(Simulation {
            algorithm: Algorithm::new(&plan, &sys),
            control: StepControl::new(&plan),
            rows: RowWriter::new(&plan, &sys),
            t: plan.settings.t_start,
            phase: Phase::Instantiated,
            threads: 1,
            workers: None,
            stop: None,
            pause: Vec::new(),
            do_step_calls: new_do_step_calls(&plan),
            sys,
            plan,
        })
    }

    /// The plan this simulation runs.
    pub fn plan(&self) -> &SimulationPlan {
        &self.plan
    }

    /// The validated settings.
    pub fn settings(&self) -> &Settings {
        &self.plan.settings
    }

    /// The result column layout (parameter values are filled when the first row is written).
    pub fn layout(&self) -> &OutputLayout {
        self.rows.layout()
    }

    /// The current communication point, s.
    pub fn time(&self) -> f64 {
        self.t
    }

    /// How the run ended, once it has.
    pub fn outcome(&self) -> Option<&RunOutcome> {
        match &self.phase {
            Phase::Ended(outcome) => Some(outcome),
            Phase::Instantiated | Phase::Initialized => None,
        }
    }

    /// Installs a flag that, once set, ends [`Simulation::run`] and [`Simulation::run_until`]
    /// at the next communication point with [`RunOutcome::Interrupted`].
    pub fn set_stop_flag(&mut self, flag: Arc<AtomicBool>) {
        self.stop = Some(flag);
    }

    /// Installs flags that, once one is set, make [`Simulation::run_until`] return at the next
    /// communication point without ending the run (the caller may then write a checkpoint,
    /// stop with [`Simulation::interrupt`], or go on). [`Simulation::run`] ignores them.
    pub fn set_pause_flags(&mut self, flags: Vec<Arc<AtomicBool>>) {
        self.pause = flags;
    }

    /// Ends the run at the current communication point with [`RunOutcome::Interrupted`],
    /// writing the last row unless it was written (nothing when the run has ended already).
    ///
    /// # Errors
    /// [`Error::Observer`] when the observer fails; a failing slave call.
    pub fn interrupt(&mut self, observer: &mut dyn Observer) -> Result<()> {
        match self.phase {
            Phase::Initialized if self.rows.is_started() => {
                self.end(observer, RunOutcome::Interrupted { t: self.t })
            }
            _ => Ok(()),
        }
    }

    /// Hands the outputs at the current communication point to [`Observer::held`] (a run held
    /// by a pause or a single step shows them even where no result row is due); nothing before
    /// the first row or after the end.
    ///
    /// # Errors
    /// A failing slave call when the outputs are read.
    pub fn show_held(&mut self, observer: &mut dyn Observer) -> Result<()> {
        match self.phase {
            Phase::Initialized if self.rows.is_started() => {
                self.rows.show_held(&mut self.sys, observer, self.t)
            }
            _ => Ok(()),
        }
    }

    /// Installs a call monitor that records every slave's `doStep`, state and initialization
    /// calls, so that a watchdog can detect a hanging call (see [`crate::watchdog`]).
    pub fn set_call_monitor(&mut self, monitor: Arc<crate::watchdog::CallMonitor>) {
        for node in &mut self.sys.nodes {
            node.monitor = Some(monitor.clone());
        }
    }

    /// Sets the number of threads that may step the slaves of Gauss-Jacobi (default 1). With
    /// more than one, and a Gauss-Jacobi project of at least two slaves, stepping starts a pool
    /// of `threads` worker threads once the slaves' `doStep` calls prove costly enough (see
    /// `docs/performance.md`); the steps then run in that pool (the calling thread waits) and
    /// each step's slaves run in parallel. A cheap project never starts a thread. The results
    /// do not depend on the number of threads.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = if self.algorithm.can_step_in_parallel(&self.sys) {
            threads.max(1)
        } else {
            1
        };
    }

    /// Initializes all slaves.
    ///
    /// Order: `setupExperiment` for every slave; start values and parameters; enter
    /// initialization mode (FMI 1.0: `fmiInitializeSlave`, so values set before it take effect);
    /// three Gauss-Jacobi passes of reading coupled outputs and setting inputs; exit
    /// initialization mode; finally every selected output is read, so the first result row
    /// shows the initialized values.
    ///
    /// # Errors
    /// [`Error::InvalidPhase`] when called twice; any failing slave call ([`Error::Fmi`],
    /// [`Error::SetValue`]).
    ///
    /// Spec: MasterSim reference §8 step 6, FMI 1.0 CS §4.1, FMI 2.0.2 §4.2.1.
    pub fn initialize(&mut self) -> Result<()> {
        if self.phase != Phase::Instantiated {
            return Err(Error::InvalidPhase {
                call: "initialize",
                reason: "after initialization",
            });
        }
        let s = &self.plan.settings;
        log::info!("Setting up experiment (calling setupExperiment() in slaves)");
        for node in &mut self.sys.nodes {
            node.setup_experiment(s.rel_tol, s.t_start, s.t_end)?;
        }
        log::info!("Initial conditions (parameters, input values, initial condition iteration)");
        for (node, plan) in self.sys.nodes.iter_mut().zip(&self.plan.slaves) {
            for iv in &plan.initial_values {
                set_value(&mut node.slave, iv).map_err(|e| Error::SetValue {
                    slave: plan.name.clone(),
                    variable: iv.variable.clone(),
                    value: value_text(&iv.value),
                    source: Box::new(e),
                })?;
            }
        }
        for node in &mut self.sys.nodes {
            node.enter_initialization_mode()?;
        }
        for pass in 1..=3 {
            self.sys.transfer_outputs(self.t, false)?;
            for node in &mut self.sys.nodes {
                node.update(&self.sys.y_t, false)?;
            }
            log::debug!(
                "initial condition pass {pass}: real = {:?}",
                self.sys.y_t.real
            );
        }
        for node in &mut self.sys.nodes {
            node.exit_initialization_mode()?;
        }
        self.sys.transfer_outputs(self.t, true)?;
        self.phase = Phase::Initialized;
        Ok(())
    }

    /// Starts the result output if it has not started: initializes the slaves if that has not
    /// happened, sends the layout and the row at the start time to `observer`, and proposes
    /// the first step. The wall clock of the statistics starts here.
    ///
    /// # Errors
    /// As [`Simulation::initialize`]; [`Error::Observer`] when the observer fails.
    pub fn start_output(&mut self, observer: &mut dyn Observer) -> Result<()> {
        if self.phase == Phase::Instantiated {
            self.initialize()?;
        }
        if self.rows.is_started() {
            return Ok(());
        }
        self.rows
            .start(&self.plan, &mut self.sys, observer, self.t)?;
        if !self.control.propose(self.t, &self.plan.settings) {
            self.end(observer, RunOutcome::Completed)?;
        }
        Ok(())
    }

    /// Takes exactly one communication step (after starting the output, see
    /// [`Simulation::start_output`], if needed) and returns the new communication point. A
    /// step that cannot be taken as proposed is retried with a smaller step size or checked by
    /// the error control first; the report gives the step size finally taken. After the last
    /// step the report says how the run ended; further calls take no step.
    ///
    /// # Errors
    /// [`Error::StepTooSmall`], [`Error::StepFailed`], [`Error::Observer`], or a failing slave
    /// call. Rows written before the error stay written.
    ///
    /// Spec: MasterSim reference §9 (one iteration of `simulate`).
    pub fn step(&mut self, observer: &mut dyn Observer) -> Result<StepReport> {
        self.start_output(observer)?;
        loop {
            let advanced = match self.workers.take() {
                Some(workers) => {
                    let advanced = workers.install(|| self.advance(observer, true));
                    self.workers = Some(workers);
                    advanced
                }
                None => self.advance(observer, false),
            }?;
            match advanced {
                Advanced::Done(report) => return Ok(report),
                Advanced::NeedWorkers => self.start_workers()?,
            }
        }
    }

    /// Steps until the communication point reaches `t` (s) or passes it (steps are not
    /// shortened to hit `t`), the run ends (end time, a slave's terminate request, the stop
    /// flag), or a pause flag is set ([`Simulation::set_pause_flags`]; the run goes on with
    /// the next call). Returns the report of the last step.
    ///
    /// # Errors
    /// As [`Simulation::step`].
    pub fn run_until(&mut self, t: f64, observer: &mut dyn Observer) -> Result<StepReport> {
        self.run_to(t, true, observer)
    }

    /// [`Simulation::run_until`], returning early at a pause flag when `pausable`.
    fn run_to(
        &mut self,
        t: f64,
        pausable: bool,
        observer: &mut dyn Observer,
    ) -> Result<StepReport> {
        self.start_output(observer)?;
        loop {
            let advanced = match self.workers.take() {
                Some(workers) => {
                    let advanced =
                        workers.install(|| self.advance_until(t, pausable, observer, true));
                    self.workers = Some(workers);
                    advanced
                }
                None => self.advance_until(t, pausable, observer, false),
            }?;
            match advanced {
                Advanced::Done(report) => return Ok(report),
                Advanced::NeedWorkers => self.start_workers()?,
            }
        }
    }

    /// Runs from the current communication point to the end, writing scheduled rows and the
    /// final row.
    ///
    /// # Errors
    /// As [`Simulation::step`].
    ///
    /// Spec: MasterSim reference §9 (`simulate`).
    pub fn run(&mut self, observer: &mut dyn Observer) -> Result<RunOutcome> {
        let report = self.run_to(f64::INFINITY, false, observer)?;
        Ok(report
            .ended
            .expect("invariant: a run to infinity ends the simulation"))
    }

    /// Starts the worker pool of parallel Gauss-Jacobi.
    fn start_workers(&mut self) -> Result<()> {
        let threads = self.threads;
        let workers = Workers::start(threads).map_err(|e| Error::InvalidSetting {
            at: crate::error::Location {
                file: self.plan.project_path.clone(),
                line: None,
            },
            keyword: "threads",
            reason: format!("cannot start {threads} worker threads: {e}"),
        })?;
        log::info!("Gauss-Jacobi steps slaves on up to {threads} threads.");
        self.workers = Some(workers);
        Ok(())
    }

    /// The report of a call that takes no further step.
    fn report(&self) -> StepReport {
        StepReport {
            t: self.t,
            h: 0.0,
            ended: self.outcome().cloned(),
        }
    }

    /// Repeats [`Simulation::advance`] until the communication point reaches `t_target` (s) or
    /// the run ends; checks the stop flag before each step.
    fn advance_until(
        &mut self,
        t_target: f64,
        pausable: bool,
        observer: &mut dyn Observer,
        in_pool: bool,
    ) -> Result<Advanced> {
        let mut last = self.report();
        while last.ended.is_none() && self.t < t_target {
            if pausable && self.pause.iter().any(|f| f.load(Ordering::Relaxed)) {
                return Ok(Advanced::Done(self.report()));
            }
            if self
                .stop
                .as_ref()
                .is_some_and(|f| f.load(Ordering::Relaxed))
            {
                self.end(observer, RunOutcome::Interrupted { t: self.t })?;
                return Ok(Advanced::Done(self.report()));
            }
            match self.advance(observer, in_pool)? {
                Advanced::Done(report) => last = report,
                Advanced::NeedWorkers => return Ok(Advanced::NeedWorkers),
            }
        }
        Ok(Advanced::Done(last))
    }

    /// One communication step; `in_pool` when it runs inside the worker pool. Returns
    /// [`Advanced::NeedWorkers`] (before stepping) when parallel stepping is chosen outside
    /// the pool.
    fn advance(&mut self, observer: &mut dyn Observer, in_pool: bool) -> Result<Advanced> {
        if matches!(self.phase, Phase::Ended(_)) {
            return Ok(Advanced::Done(self.report()));
        }
        if self.threads > 1
            && self
                .sys
                .counters
                .steps
                .is_multiple_of(PARALLEL_CHOICE_STEPS)
            && self.algorithm.choose_parallel(&self.sys, self.threads)
            && !in_pool
        {
            return Ok(Advanced::NeedWorkers);
        }
        let s = &self.plan.settings;
        match self
            .control
            .step(self.t, &mut self.algorithm, &mut self.sys, s)?
        {
            Stepped::Terminated { slave } => {
                let slave = self.sys.node(slave).name().to_string();
                log::info!(
                    "Slave '{slave}' requested to end the simulation at t={} s.",
                    self.plan.time_format().show(self.t)
                );
                self.end(observer, RunOutcome::Terminated { slave, t: self.t })?;
                Ok(Advanced::Done(self.report()))
            }
            Stepped::Accepted { t, h } => {
                self.t = t;
                let counters = &mut self.sys.counters;
                counters.t = t;
                counters.h = h;
                counters.steps += 1;
                log::trace!("MASTER: step = {}, t = {t}, h = {h}", counters.steps);
                observer.step_completed(&self.sys.counters);
                if !self.do_step_calls.is_empty() {
                    for (calls, node) in self.do_step_calls.iter_mut().zip(&self.sys.nodes) {
                        *calls = node.stats.do_step.count;
                    }
                    observer.slave_steps(&self.do_step_calls);
                }
                if self.control.propose(t, &self.plan.settings) {
                    self.rows.write_if_due(&mut self.sys, observer, t)?;
                } else {
                    self.end(observer, RunOutcome::Completed)?;
                }
                Ok(Advanced::Done(StepReport {
                    t,
                    h,
                    ended: self.outcome().cloned(),
                }))
            }
        }
    }

    /// Ends the run with `outcome`: writes the last row unless it was written already.
    fn end(&mut self, observer: &mut dyn Observer, outcome: RunOutcome) -> Result<()> {
        self.phase = Phase::Ended(outcome);
        self.rows.write_final(&mut self.sys, observer, self.t)
    }

    /// The run-wide counters and timers so far.
    pub fn counters(&self) -> &Counters {
        &self.sys.counters
    }

    /// The statistics so far: the counters and every slave's call statistics.
    pub fn statistics(&self) -> Statistics {
        Statistics {
            counters: self.sys.counters,
            slaves: self.sys.slave_statistics(),
        }
    }

    /// Frees all saved states and terminates every slave. Slaves are freed when the simulation
    /// is dropped.
    ///
    /// # Errors
    /// The first failing call; the remaining slaves are still terminated.
    pub fn terminate(&mut self) -> Result<()> {
        let mut first_error = None;
        for node in &mut self.sys.nodes {
            let result = node.free_states().and_then(|()| node.terminate());
            if let Err(e) = result {
                log::warn!("terminating slave '{}' failed: {e}", node.name());
                first_error.get_or_insert(e);
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

/// Checks that `given` slaves fit the plan's `simulator` lines.
///
/// # Errors
/// [`Error::InvalidSetting`] naming both numbers.
fn check_slave_count(plan: &SimulationPlan, given: usize) -> Result<()> {
    if given == plan.slaves.len() {
        return Ok(());
    }
    Err(Error::InvalidSetting {
        at: crate::error::Location {
            file: plan.project_path.clone(),
            line: None,
        },
        keyword: "simulator",
        reason: format!(
            "{given} slaves given for {} simulator lines",
            plan.slaves.len()
        ),
    })
}

/// The `doStep` counts of a new run: one per slave in multi-rate runs, none otherwise.
fn new_do_step_calls(plan: &SimulationPlan) -> Vec<u64> {
    if plan.multirate.is_some() {
        vec![0; plan.slaves.len()]
    } else {
        Vec::new()
    }
}

fn set_value(slave: &mut AnySlave, iv: &crate::plan::InitialValue) -> Result<()> {
    let vrs = [iv.vr];
    match &iv.value {
        Value::Real(v) => slave.set_real(&vrs, &[*v]),
        Value::Integer(v) => slave.set_integer(&vrs, &[*v]),
        Value::Boolean(v) => slave.set_boolean(&vrs, &[*v]),
        Value::String(v) => slave.set_string(&vrs, std::slice::from_ref(v)),
        Value::Binary(v) => slave.set_binary(&vrs, std::slice::from_ref(v)),
    }
}

fn value_text(v: &Value) -> String {
    match v {
        Value::Real(x) => x.to_string(),
        Value::Integer(x) => x.to_string(),
        Value::Boolean(x) => x.to_string(),
        Value::String(x) => x.clone(),
        Value::Binary(x) => x.iter().map(|b| format!("{b:02x}")).collect(),
    }
}
