//! The stepping driver: owns the master time, chooses each communication step, rolls back and
//! retries, applies error control, and hands result rows to the observer.
//!
//! Spec: MasterSim reference §8 (initialization), §9 (time-stepping driver), §11 (error control),
//! §12.3 (output schedule), §12.8 (counters). Departures: drift-free fixed steps
//! ([`crate::time::FixedGrid`]), outputs re-read after `exitInitializationMode`, the corrected
//! CHECK mode, and a clear error where MasterSim would roll back without saved states
//! (`docs/deviations.md`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::algorithm::{self, Outcome, StepParams};
use crate::error_control::{self, ErrorTest};
use crate::observer::{Observer, OutputLayout, StepInfo};
use crate::plan::{SimulationPlan, Value};
use crate::project::TimeArithmetic;
use crate::settings::{ErrorControl, Settings};
use crate::slave::{RejectReason, Slave};
use crate::system::{SlaveStatistics, StateSlot, System};
use crate::time::{self, FixedGrid, OutputSchedule};
use crate::timer::Timer;
use crate::values::{OUTPUT_TYPE_ORDER, PerType, TypedValues};
use crate::{Error, Result};

/// Run statistics: the counters and timers of `summary.txt`. Times in s.
///
/// Spec: MasterSim reference §12.5, §12.8.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Statistics {
    /// Wall time since the first result row was prepared, s.
    pub wall_clock_time: f64,
    /// Wall time spent handing rows to the observer, s.
    pub output_time: f64,
    /// Completed communication steps (`MasterAlgorithmSteps`).
    pub steps: u64,
    /// Wall time inside master-algorithm steps, error-test half steps included, s.
    pub algorithm_time: f64,
    /// Master-algorithm step calls, error-test half steps included.
    pub algorithm_calls: u64,
    /// Cycle sweeps.
    pub iterations: u64,
    /// Step reductions by 1/5 after non-convergence or a rejected step (`ConvergenceFails`).
    pub convergence_fails: u64,
    /// Iteration-limit returns of Gauss-Seidel/Newton (`ConvergenceIterLimitExceeded`).
    pub iteration_limit_exceeded: u64,
    /// Failed error tests (`ErrorTestFails`).
    pub error_test_fails: u64,
    /// Wall time in error tests, s.
    pub error_test_time: f64,
    /// Steps rejected by a slave (Discard or Error).
    pub fmu_errors: u64,
    /// Per-slave call statistics, in project order.
    pub slaves: Vec<SlaveStatistics>,
}

/// Steps between re-evaluations of whether Gauss-Jacobi steps slaves in parallel.
const PARALLEL_CHOICE_STEPS: u64 = 64;

/// How a stretch of the stepping loop ended.
enum Steps {
    /// The run ended.
    Ended(RunOutcome),
    /// Parallel stepping was chosen and the worker pool must be started first.
    NeedWorkers,
}

/// The sampled timers behind the times of [`Statistics`].
#[derive(Debug, Clone, Copy, Default)]
struct Timers {
    algorithm: Timer,
    error_test: Timer,
    output: Timer,
}

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

/// A simulation in progress: the coupled system plus the master clock.
#[derive(Debug)]
pub struct Simulation {
    plan: SimulationPlan,
    sys: System,
    /// Current communication point, s.
    t: f64,
    /// Step size of the last completed step, s.
    h: f64,
    /// Step size proposed for the next step, s.
    h_proposed: f64,
    grid: Option<FixedGrid>,
    schedule: OutputSchedule,
    layout: OutputLayout,
    row: TypedValues,
    /// `(slave, local output index)` of every written column, per type, in row order.
    row_sources: PerType<Vec<(usize, usize)>>,
    stats: Statistics,
    started: Option<Instant>,
    /// Sampled timers of master-algorithm calls, error tests and row output.
    timers: Timers,
    /// Threads allowed for parallel Gauss-Jacobi ([`Simulation::set_threads`]), at least 1.
    threads: usize,
    /// The worker threads, started when parallel stepping is first chosen.
    pool: Option<crate::workers::Workers>,
    error_test: ErrorTest,
    stop: Option<Arc<AtomicBool>>,
}

impl Simulation {
    /// Creates the simulation from a plan and its slaves (in plan order, e.g. from
    /// [`crate::instantiate`]).
    ///
    /// # Errors
    /// [`Error::InvalidSetting`] when the number of slaves differs from the plan.
    pub fn new(plan: SimulationPlan, slaves: Vec<Box<dyn Slave>>) -> Result<Simulation> {
        if slaves.len() != plan.slaves.len() {
            return Err(Error::InvalidSetting {
                at: crate::error::Location {
                    file: plan.project_path.clone(),
                    line: None,
                },
                keyword: "simulator",
                reason: format!(
                    "{} slaves given for {} simulator lines",
                    slaves.len(),
                    plan.slaves.len()
                ),
            });
        }
        let mut sys = System::new(&plan, slaves);
        if plan.settings.algorithm == crate::settings::MasterAlgorithm::Newton {
            sys.newton = Some(Box::new(crate::algorithm::newton::Newton::new(&plan, &sys)));
        }
        let columns = plan.output_columns();
        let parameters = plan.parameter_columns();
        let count = |c: &PerType<Vec<crate::observer::OutputColumn>>| PerType {
            real: c.real.len(),
            integer: c.integer.len(),
            boolean: c.boolean.len(),
            string: c.string.len(),
        };
        let row = TypedValues::zeroed(&count(&columns));
        let layout = OutputLayout {
            parameter_values: TypedValues::zeroed(&count(&parameters)),
            columns,
            parameters,
        };
        let row_sources = written_sources(&plan, |s| &s.outputs);
        let s = &plan.settings;
        let exact = s.time_arithmetic == TimeArithmetic::Exact;
        let grid = (exact && !s.adjust_step_size).then(|| FixedGrid::new(s.t_start, s.h_start));
        Ok(Simulation {
            t: s.t_start,
            h: s.h_start,
            h_proposed: s.h_start,
            grid,
            schedule: OutputSchedule::new(s.h_output_min),
            error_test: ErrorTest::new(plan.connections.real.len()),
            layout,
            row,
            row_sources,
            stats: Statistics::default(),
            started: None,
            timers: Timers::default(),
            threads: 1,
            pool: None,
            stop: None,
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

    /// The result column layout.
    pub fn layout(&self) -> &OutputLayout {
        &self.layout
    }

    /// The current communication point, s.
    pub fn time(&self) -> f64 {
        self.t
    }

    /// Installs a flag that, once set, ends [`Simulation::run`] at the next communication point.
    pub fn set_stop_flag(&mut self, flag: Arc<AtomicBool>) {
        self.stop = Some(flag);
    }

    /// Initializes all slaves.
    ///
    /// Order: `setupExperiment` for every slave; start values and parameters; enter
    /// initialization mode (FMI 1.0: `fmiInitializeSlave`, so values set before it take effect);
    /// three Gauss-Jacobi passes of reading outputs and setting inputs; exit initialization
    /// mode; finally the outputs are read once more so the first result row shows the
    /// initialized values.
    ///
    /// # Errors
    /// Any failing slave call ([`Error::Fmi`], [`Error::SetValue`]).
    ///
    /// Spec: MasterSim reference §8 step 6, FMI 1.0 CS §4.1, FMI 2.0.2 §4.2.1.
    pub fn initialize(&mut self) -> Result<()> {
        let s = &self.plan.settings;
        log::info!("Setting up experiment (calling setupExperiment() in slaves)");
        for node in &mut self.sys.nodes {
            node.setup_experiment(s.rel_tol, s.t_start, s.t_end)?;
        }
        log::info!("Initial conditions (parameters, input values, initial condition iteration)");
        for (node, plan) in self.sys.nodes.iter_mut().zip(&self.plan.slaves) {
            for iv in &plan.initial_values {
                set_value(node.slave.as_mut(), iv).map_err(|e| Error::SetValue {
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
            self.transfer_outputs()?;
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
        self.transfer_outputs()
    }

    /// Reads every slave's outputs and copies the coupled ones into `y_t`.
    fn transfer_outputs(&mut self) -> Result<()> {
        for node in &mut self.sys.nodes {
            node.cache_outputs()?;
            node.check_coupled_outputs(self.t)?;
            node.sync(&mut self.sys.y_t, false);
        }
        Ok(())
    }

    /// Installs a call monitor that records every slave's `doStep`, state and initialization
    /// calls, so that a watchdog can detect a hanging call (see [`crate::watchdog`]).
    pub fn set_call_monitor(&mut self, monitor: std::sync::Arc<crate::watchdog::CallMonitor>) {
        for node in &mut self.sys.nodes {
            node.monitor = Some(monitor.clone());
        }
    }

    /// Name of the slave with index `slave` (project order).
    pub fn slave_name(&self, slave: usize) -> Option<&str> {
        self.plan.slaves.get(slave).map(|s| s.name.as_str())
    }

    /// Starts the result output: sends the layout and the row at the start time. The wall-clock
    /// stopwatch starts here.
    ///
    /// # Errors
    /// [`Error::Observer`] when the observer fails.
    pub fn start_output(&mut self, observer: &mut dyn Observer) -> Result<()> {
        self.read_parameters();
        self.started = Some(Instant::now());
        observer
            .start(&self.layout)
            .map_err(|source| Error::Observer { source })?;
        let taken = self.schedule.take(self.t);
        debug_assert!(taken, "the first row is always written");
        self.write_row(observer)
    }

    /// Runs from the current time to the end time, writing scheduled rows and the final row.
    ///
    /// # Errors
    /// [`Error::StepTooSmall`], [`Error::StepFailed`], [`Error::Observer`], or a failing slave
    /// call. Rows written before the error stay written.
    ///
    /// Spec: MasterSim reference §9 (`simulate`).
    pub fn run(&mut self, observer: &mut dyn Observer) -> Result<RunOutcome> {
        if self.started.is_none() {
            self.start_output(observer)?;
        }
        loop {
            let steps = match self.pool.take() {
                Some(pool) => {
                    let steps = pool.install(|| self.run_steps(observer, true));
                    self.pool = Some(pool);
                    steps
                }
                None => self.run_steps(observer, false),
            }?;
            match steps {
                Steps::Ended(outcome) => return Ok(outcome),
                Steps::NeedWorkers => self.start_workers()?,
            }
        }
    }

    /// Sets the number of threads that may step the slaves of Gauss-Jacobi (default 1). With
    /// more than one, and a Gauss-Jacobi project of at least two slaves, [`Simulation::run`]
    /// starts a pool of `threads` worker threads once the slaves' `doStep` calls prove costly
    /// enough (see `docs/performance.md`); the rest of the run goes on in that pool (the
    /// calling thread waits) and each step's slaves run in parallel. A cheap project never
    /// starts a thread. The results do not depend on the number of threads.
    pub fn set_threads(&mut self, threads: usize) {
        let gauss_jacobi =
            self.plan.settings.algorithm == crate::settings::MasterAlgorithm::GaussJacobi;
        self.threads = if gauss_jacobi && self.sys.nodes.len() > 1 {
            threads.max(1)
        } else {
            1
        };
    }

    /// Starts the worker pool of parallel Gauss-Jacobi.
    fn start_workers(&mut self) -> Result<()> {
        let threads = self.threads;
        let pool = crate::workers::Workers::start(threads).map_err(|e| Error::InvalidSetting {
            at: crate::error::Location {
                file: self.plan.project_path.clone(),
                line: None,
            },
            keyword: "threads",
            reason: format!("cannot start {threads} worker threads: {e}"),
        })?;
        log::info!("Gauss-Jacobi steps slaves on up to {threads} threads.");
        self.pool = Some(pool);
        Ok(())
    }

    /// The stepping loop of [`Simulation::run`]; `in_pool` when it runs inside the worker
    /// pool. Returns [`Steps::NeedWorkers`] (before the step) when parallel stepping is chosen
    /// outside the pool.
    fn run_steps(&mut self, observer: &mut dyn Observer, in_pool: bool) -> Result<Steps> {
        let t_end = self.plan.settings.t_end;
        let mut outcome = RunOutcome::Completed;
        while self.t < t_end {
            if self.stats.steps.is_multiple_of(PARALLEL_CHOICE_STEPS) {
                self.sys.update_parallel_choice(self.threads);
                if self.sys.parallel && !in_pool {
                    return Ok(Steps::NeedWorkers);
                }
            }
            if self
                .stop
                .as_ref()
                .is_some_and(|f| f.load(Ordering::Relaxed))
            {
                outcome = RunOutcome::Interrupted { t: self.t };
                break;
            }
            if !self.choose_step() {
                break;
            }
            if let Some(slave) = self.do_step()? {
                log::info!(
                    "Slave '{slave}' requested to end the simulation at t={} s.",
                    self.t
                );
                outcome = RunOutcome::Terminated { slave, t: self.t };
                break;
            }
            self.stats.steps += 1;
            observer.step_completed(&self.step_info());
            if self.t < t_end && self.schedule.take(self.t) {
                self.write_row(observer)?;
            }
        }
        if self.schedule.take_final(self.t) {
            self.write_row(observer)?;
        }
        Ok(Steps::Ended(outcome))
    }

    /// Sets `h_proposed` for the next step, truncating it at the end time. Returns false when
    /// the remainder is too small for another fixed step.
    fn choose_step(&mut self) -> bool {
        let s = &self.plan.settings;
        if let Some(grid) = &self.grid {
            self.h_proposed = grid.next_point() - self.t;
        }
        let h_rem = s.t_end - self.t;
        if h_rem < self.h_proposed {
            if !s.adjust_step_size && time::remainder_negligible(self.t, s.t_end) {
                return false;
            }
            if s.prevent_overstepping_of_end_time {
                if self.h_proposed - h_rem > time::TRUNCATION_REPORT {
                    log::info!(
                        "Truncating last step by {} to avoid overstepping end time.",
                        self.h_proposed - h_rem
                    );
                }
                self.h_proposed = h_rem;
            }
        }
        true
    }

    /// One communication step with rollback, step reduction and error control. Returns the
    /// name of a slave that asked to terminate, if any.
    fn do_step(&mut self) -> Result<Option<String>> {
        let s = self.plan.settings.clone();
        let mut h = self.h_proposed;
        if s.adjust_step_size && self.t + h + time::VARIABLE_STEP_END_GUARD > s.t_end {
            h = s.t_end - self.t;
            log::debug!("Adjusting h='{h}' to hit the end time.");
        }
        let h_planned = h;
        let grid_target = self
            .grid
            .map(|g| g.next_point())
            .filter(|&p| p - self.t == h);
        if s.needs_states() {
            self.sys.save_states(StateSlot::Iter)?;
        }
        let t_new = loop {
            let outcome = self.algorithm_step(self.t, h)?;
            match outcome {
                Outcome::Converged => {}
                Outcome::IterationLimitExceeded if !s.adjust_step_size => log::info!(
                    "Step failure at t={}, taking step size {h}. Reduction of time step is not enabled, continuing with potentially inaccurate values.",
                    self.t
                ),
                Outcome::Terminated { slave } => {
                    return Ok(Some(self.sys.nodes[slave].name().to_string()));
                }
                Outcome::IterationLimitExceeded | Outcome::Rejected { .. } => {
                    let cause = match outcome {
                        Outcome::Rejected { slave, reason } => {
                            let status = match reason {
                                RejectReason::Discard => "Discard",
                                RejectReason::Error => "Error",
                            };
                            if !s.needs_states() {
                                return Err(Error::StepFailed {
                                    slave: self.sys.nodes[slave].name().to_string(),
                                    function: "doStep",
                                    t: self.t,
                                    h,
                                    reason: format!(
                                        "the slave returned {status}, and no saved state exists to retry from (enable iteration or ADAPT_STEP error control to allow step reduction)"
                                    ),
                                });
                            }
                            format!(
                                "slave '{}' returned {status} from doStep",
                                self.sys.nodes[slave].name()
                            )
                        }
                        _ => format!("no convergence within {} iterations", s.max_iterations),
                    };
                    if h / 5.0 < s.h_min {
                        return Err(Error::StepTooSmall {
                            t: self.t,
                            h,
                            h_min: s.h_min,
                            cause,
                        });
                    }
                    h /= 5.0;
                    self.sys.restore_states(StateSlot::Iter, self.t)?;
                    self.stats.convergence_fails += 1;
                    continue;
                }
            }
            match s.error_control {
                ErrorControl::None => break self.t + h,
                ErrorControl::Check => {
                    let started = self.timers.error_test.start();
                    if self.error_test.check(
                        &self.sys.y_t.real,
                        &self.sys.y_next.real,
                        self.t,
                        h,
                        &s,
                    ) {
                        self.stats.error_test_fails += 1;
                    }
                    self.timers.error_test.stop(started);
                    break self.t + h;
                }
                ErrorControl::Adapt => {
                    let started = self.timers.error_test.start();
                    let verdict = self.richardson(h, &s);
                    self.timers.error_test.stop(started);
                    match verdict? {
                        error_control::Verdict::Accepted { t_new, h_next } => {
                            self.h_proposed = h_next;
                            break t_new;
                        }
                        error_control::Verdict::Rejected { h_new } => h = h_new,
                    }
                }
            }
        };
        std::mem::swap(&mut self.sys.y_t, &mut self.sys.y_next);
        // An unreduced fixed step lands exactly on its grid point.
        let t_new = match grid_target {
            Some(target) if h == h_planned => target,
            _ => t_new,
        };
        if let Some(grid) = &mut self.grid {
            grid.advance(t_new);
        }
        self.t = t_new;
        self.h = h;
        if s.adjust_step_size {
            if s.error_control == ErrorControl::None {
                self.h_proposed = cpp_min(s.h_max, 2.0 * h);
            }
            if self.t + self.h_proposed > s.t_end {
                self.h_proposed = s.t_end - self.t;
            }
            if self.t + self.h_proposed > s.t_end * time::END_FRACTION {
                self.h_proposed = s.t_end - self.t;
            }
        }
        log::trace!(
            "MASTER: step = {}, t = {}, h_next = {}",
            self.stats.steps + 1,
            self.t,
            self.h_proposed
        );
        Ok(None)
    }

    /// Progress and counters after the step just completed.
    fn step_info(&self) -> StepInfo {
        let c = &self.sys.counters;
        StepInfo {
            t: self.t,
            h: self.h,
            t_end: self.plan.settings.t_end,
            steps: self.stats.steps,
            algorithm_calls: c.algorithm_calls,
            error_test_fails: self.stats.error_test_fails,
            convergence_fails: self.stats.convergence_fails,
            iterations: c.iterations,
            iteration_limit_exceeded: c.iteration_limit_exceeded,
            fmu_errors: c.fmu_errors,
            error_norms: self.error_test.last_norms,
            algorithm_time: self.timers.algorithm.seconds(),
            error_test_time: self.timers.error_test.seconds(),
            output_time: self.timers.output.seconds(),
        }
    }

    /// One master-algorithm step, timed.
    fn algorithm_step(&mut self, t: f64, h: f64) -> Result<Outcome> {
        let started = self.timers.algorithm.start();
        let p = StepParams::new(&self.plan.settings, t, h);
        let outcome = algorithm::step(self.plan.settings.algorithm, &mut self.sys, &p);
        self.timers.algorithm.stop(started);
        outcome
    }

    /// The Richardson step-doubling test after a converged step of size `h_full` (s).
    ///
    /// Spec: MasterSim reference §11.1.
    fn richardson(&mut self, h_full: f64, s: &Settings) -> Result<error_control::Verdict> {
        self.error_test.begin(&self.sys);
        self.sys.restore_states(StateSlot::Iter, self.t)?;
        self.sys.swap_state_slots();
        let t_orig = self.t;
        let h = h_full / 2.0;
        let mut t = t_orig;
        let mut failed = false;
        if s.iterate() {
            self.sys.save_states(StateSlot::Iter)?;
        }
        if self.algorithm_step(t, h)? != Outcome::Converged {
            log::debug!("First half-step of error test did not converge.");
            failed = true;
        } else {
            std::mem::swap(&mut self.sys.y_t, &mut self.sys.y_next);
            t += h;
            if s.iterate() {
                self.sys.save_states(StateSlot::Iter)?;
            }
            if self.algorithm_step(t, h)? != Outcome::Converged {
                log::debug!("Second half-step of error test did not converge.");
                failed = true;
            }
        }
        let err = if failed {
            error_control::FAILED_HALF_STEP_ERROR
        } else {
            self.error_test.richardson_norm(&self.sys, h_full, h, s)
        };
        let verdict = if err > 1.0 {
            self.stats.error_test_fails += 1;
            log::debug!("ERROR_TEST: Error test failed at t={t_orig} with h={h_full}, WRMS={err}");
            if h_full > s.h_min {
                // MasterSim restores with the master time already advanced by the first half
                // step; with MasterSim time arithmetic the slave clocks inherit that (reference
                // §11.1, reproduced for identical counters; see docs/deviations.md).
                self.sys.restore_states(StateSlot::Err, t)?;
                self.error_test.restore_start_values(&mut self.sys);
                self.sys.swap_state_slots();
                return Ok(error_control::Verdict::Rejected {
                    h_new: error_control::adapt(err, h, s.h_min),
                });
            }
            h_full
        } else {
            cpp_min(error_control::adapt(err, h, s.h_min), s.h_max)
        };
        self.sys.swap_state_slots();
        Ok(error_control::Verdict::Accepted {
            t_new: t + h,
            h_next: verdict,
        })
    }

    /// Assembles the row from the slaves' output caches and hands it to the observer.
    fn write_row(&mut self, observer: &mut dyn Observer) -> Result<()> {
        let started = self.timers.output.start();
        let nodes = &self.sys.nodes;
        let (row, sources) = (&mut self.row, &self.row_sources);
        for (value, &(s, l)) in row.real.iter_mut().zip(&sources.real) {
            *value = nodes[s].real.cache[l];
        }
        for (value, &(s, l)) in row.integer.iter_mut().zip(&sources.integer) {
            *value = nodes[s].integer.cache[l];
        }
        for (value, &(s, l)) in row.boolean.iter_mut().zip(&sources.boolean) {
            *value = nodes[s].boolean.cache[l];
        }
        for (value, &(s, l)) in row.string.iter_mut().zip(&sources.string) {
            value.clone_from(&nodes[s].string.cache[l]);
        }
        let result = observer
            .output(self.t, &self.row)
            .map_err(|source| Error::Observer { source });
        self.timers.output.stop(started);
        result
    }

    /// Reads the values of the parameter columns (once, after initialization). A value that
    /// cannot be read is logged and left at its default.
    fn read_parameters(&mut self) {
        for ty in OUTPUT_TYPE_ORDER {
            let mut k = 0;
            for (node, slave) in self.sys.nodes.iter_mut().zip(&self.plan.slaves) {
                for var in slave.parameters.get(ty).iter().filter(|v| v.written) {
                    let vrs = [var.vr];
                    let values = &mut self.layout.parameter_values;
                    let result = match ty {
                        fmi::VarType::Real => node.slave.get_real(&vrs, &mut values.real[k..=k]),
                        fmi::VarType::Integer => {
                            node.slave.get_integer(&vrs, &mut values.integer[k..=k])
                        }
                        fmi::VarType::Boolean => {
                            node.slave.get_boolean(&vrs, &mut values.boolean[k..=k])
                        }
                        fmi::VarType::String => {
                            node.slave.get_string(&vrs, &mut values.string[k..=k])
                        }
                    };
                    if let Err(e) = result {
                        log::warn!(
                            "parameter '{}.{}' could not be read for the results: {e}",
                            slave.name,
                            var.name
                        );
                        if ty == fmi::VarType::Real {
                            values.real[k] = f64::NAN;
                        }
                    }
                    k += 1;
                }
            }
        }
    }

    /// The statistics so far.
    pub fn statistics(&self) -> Statistics {
        let mut stats = self.stats.clone();
        stats.wall_clock_time = self
            .started
            .map(|s| s.elapsed().as_secs_f64())
            .unwrap_or(0.0);
        stats.algorithm_calls = self.sys.counters.algorithm_calls;
        stats.iterations = self.sys.counters.iterations;
        stats.iteration_limit_exceeded = self.sys.counters.iteration_limit_exceeded;
        stats.fmu_errors = self.sys.counters.fmu_errors;
        stats.algorithm_time = self.timers.algorithm.seconds();
        stats.error_test_time = self.timers.error_test.seconds();
        stats.output_time = self.timers.output.seconds();
        stats.slaves = self.sys.nodes.iter().map(|n| n.stats.clone()).collect();
        stats
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

/// `(slave, local index)` of every written variable of `list`, per type, in result order.
fn written_sources(
    plan: &SimulationPlan,
    list: impl Fn(&crate::plan::SlavePlan) -> &PerType<Vec<crate::plan::OutputVariable>>,
) -> PerType<Vec<(usize, usize)>> {
    let mut sources = PerType::<Vec<(usize, usize)>>::default();
    for ty in OUTPUT_TYPE_ORDER {
        for (s, slave) in plan.slaves.iter().enumerate() {
            for (l, var) in list(slave).get(ty).iter().enumerate() {
                if var.written {
                    sources.get_mut(ty).push((s, l));
                }
            }
        }
    }
    sources
}

/// C++ `std::min(a, b)`: `b < a ? b : a` (so a NaN in `b` yields `a`).
pub(crate) fn cpp_min(a: f64, b: f64) -> f64 {
    if b < a { b } else { a }
}

/// C++ `std::max(a, b)`: `a < b ? b : a` (so a NaN in `b` yields `a`).
pub(crate) fn cpp_max(a: f64, b: f64) -> f64 {
    if a < b { b } else { a }
}

fn set_value(slave: &mut dyn Slave, iv: &crate::plan::InitialValue) -> Result<()> {
    let vrs = [iv.vr];
    match &iv.value {
        Value::Real(v) => slave.set_real(&vrs, &[*v]),
        Value::Integer(v) => slave.set_integer(&vrs, &[*v]),
        Value::Boolean(v) => slave.set_boolean(&vrs, &[*v]),
        Value::String(v) => slave.set_string(&vrs, std::slice::from_ref(v)),
    }
}

fn value_text(v: &Value) -> String {
    match v {
        Value::Real(x) => x.to_string(),
        Value::Integer(x) => x.to_string(),
        Value::Boolean(x) => x.to_string(),
        Value::String(x) => x.clone(),
    }
}
