//! Supervision of a run from outside the stepping loop: SIGINT and SIGTERM end the run at the
//! next communication point; a watchdog ends it when an FMU call hangs (`--step-timeout`); and a
//! crash inside FMU code is reported with the slave and FMI function (`fmi::install_crash_report`).
//!
//! Exit codes: 130 after SIGINT, 143 after SIGTERM (128 + signal number, the shell convention);
//! 124 when a call timed out (as GNU `timeout`). A second SIGINT or SIGTERM ends the process at
//! once with the same code.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use master::values::TypedValues;
use master::watchdog::{BusyCall, CallMonitor};
use master::{Observer, ObserverError, OutputLayout, StepInfo};
use signal_hook::consts::{SIGINT, SIGTERM};

use crate::results::{self, ResultFiles};
use crate::run::Ending;

/// Exit code when an FMU call exceeded `--step-timeout`.
pub const EXIT_TIMEOUT: u8 = 124;

/// The interrupt flags raised by SIGINT/SIGTERM.
pub struct Interrupt {
    stop: Arc<AtomicBool>,
    signal: Arc<AtomicUsize>,
}

impl Interrupt {
    /// Installs the handlers; the run stops at the next communication point after a signal.
    ///
    /// # Errors
    /// When a handler cannot be registered.
    pub fn install() -> std::io::Result<Interrupt> {
        let stop = Arc::new(AtomicBool::new(false));
        let signal = Arc::new(AtomicUsize::new(0));
        for sig in [SIGINT, SIGTERM] {
            // A second signal while stopping ends the process at once (registered first, so it
            // sees the flag before the next handler sets it).
            signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, stop.clone())?;
            signal_hook::flag::register_usize(sig, signal.clone(), sig as usize)?;
            signal_hook::flag::register(sig, stop.clone())?;
        }
        Ok(Interrupt { stop, signal })
    }

    /// The flag the simulation polls.
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// The name of the signal received and the exit code it maps to.
    pub fn received(&self) -> (&'static str, u8) {
        match self.signal.load(Ordering::Relaxed) as i32 {
            SIGTERM => ("SIGTERM", 128 + SIGTERM as u8),
            _ => ("SIGINT", 128 + SIGINT as u8),
        }
    }
}

/// What the supervisor thread needs to see of a run: the result files and the last step's
/// counters.
#[derive(Default)]
pub struct RunRecord {
    /// The result files, from their creation until they are finished.
    pub files: Option<ResultFiles>,
    /// The counters after the last completed step.
    last_step: Option<StepInfo>,
    /// When the first result row was prepared.
    started: Option<Instant>,
}

/// The [`RunRecord`] shared between the stepping thread, where it is the simulation's
/// [`Observer`], and the supervisor thread, which flushes the files every second and finishes
/// them when a call hangs. The stepping thread holds the lock only while it hands over a row,
/// never during an FMU call.
#[derive(Clone, Default)]
pub struct SharedRecord(Arc<Mutex<RunRecord>>);

impl SharedRecord {
    /// Locks the record (a panic on another thread does not make it unusable).
    pub fn lock(&self) -> MutexGuard<'_, RunRecord> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Writes the last rows and closes the result files, if they were created.
    pub fn finish_files(&self) -> anyhow::Result<()> {
        let files = self.lock().files.take();
        files.map_or(Ok(()), |mut f| f.finish())
    }
}

impl Observer for SharedRecord {
    fn start(&mut self, layout: &OutputLayout) -> Result<(), ObserverError> {
        let mut record = self.lock();
        record.started = Some(Instant::now());
        record.files.as_mut().map_or(Ok(()), |f| f.start(layout))
    }

    fn output(&mut self, t: f64, values: &TypedValues) -> Result<(), ObserverError> {
        self.lock()
            .files
            .as_mut()
            .map_or(Ok(()), |f| f.output(t, values))
    }

    fn step_completed(&mut self, info: &StepInfo) {
        let mut record = self.lock();
        record.last_step = Some(*info);
        if let Some(f) = &mut record.files {
            f.step_completed(info);
        }
    }
}

/// Supervision of FMU calls by wall time (`--step-timeout`).
pub struct Watch {
    /// Records the calls of the simulation's slaves.
    pub monitor: Arc<CallMonitor>,
    /// Longest wall time one call may take.
    pub timeout: Duration,
    /// The working directory (for `log/summary.txt`).
    pub wd: PathBuf,
    /// Slave names in project order.
    pub names: Vec<String>,
}

/// Result files are flushed at least this often, so that a crashed or killed run leaves its
/// results up to about this long ago readable.
const FLUSH_INTERVAL: Duration = Duration::from_secs(1);

/// The running supervisor thread; [`Supervisor::stop`] ends it.
pub struct Supervisor {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Supervisor {
    /// Starts the supervisor thread: it flushes the result files in `record` every
    /// [`FLUSH_INTERVAL`] and, with a `watch`, ends the process with [`EXIT_TIMEOUT`] when a
    /// call takes longer than the timeout (after finishing the result files and writing
    /// `summary.txt` marked `TimedOut`). Without a thread (spawning failed) the run goes on
    /// unsupervised, with a warning.
    pub fn spawn(record: SharedRecord, watch: Option<Watch>) -> Supervisor {
        let poll = watch.as_ref().map_or(FLUSH_INTERVAL, |w| {
            (w.timeout / 10).clamp(Duration::from_millis(5), Duration::from_millis(100))
        });
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let spawned = std::thread::Builder::new()
            .name("mastersim-supervisor".into())
            .spawn(move || {
                let mut last_flush = Instant::now();
                while !stopped.load(Ordering::Acquire) {
                    std::thread::park_timeout(poll);
                    if last_flush.elapsed() >= FLUSH_INTERVAL {
                        last_flush = Instant::now();
                        if let Some(files) = &mut record.lock().files
                            && let Err(e) = files.flush()
                        {
                            log::warn!("flushing the result files failed: {e:#}");
                        }
                    }
                    if let Some(w) = &watch
                        && let Some(call) = w.monitor.longest_call()
                        && call.elapsed > w.timeout
                    {
                        abandon(&record, w, call);
                    }
                }
            });
        let thread = spawned
            .inspect_err(|e| {
                log::warn!("the supervisor thread could not start ({e}): results are flushed only at the end and --step-timeout is not enforced");
            })
            .ok();
        Supervisor { stop, thread }
    }

    /// Ends the supervisor thread and waits for it.
    pub fn stop(mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}

/// Ends the process after `call` exceeded the timeout: reports the slave, call, `t` and `h`,
/// finishes the result files (the stepping thread is stuck inside the FMU and holds no lock),
/// writes `summary.txt` from the last completed step and exits with [`EXIT_TIMEOUT`].
fn abandon(record: &SharedRecord, w: &Watch, call: BusyCall) -> ! {
    let name = w.names.get(call.slave).map_or("?", String::as_str);
    let message = format!(
        "slave '{name}': {} did not return within {} s (t={} s, h={} s); the run is abandoned",
        call.call.name(),
        w.timeout.as_secs_f64(),
        call.t,
        call.h
    );
    log::error!("{message}");
    if let Err(e) = record.finish_files() {
        log::error!("finishing the result files failed: {e:#}");
    }
    let (last, started) = {
        let r = record.lock();
        (r.last_step, r.started)
    };
    let stats = statistics(last, started, w);
    if let Err(e) =
        results::write_statistics(&w.wd, &stats, &Ending::TimedOut(message).summary_lines())
    {
        log::error!("{e:#}");
    }
    log::logger().flush();
    std::process::exit(i32::from(EXIT_TIMEOUT))
}

/// Run statistics as far as known without the simulation: counters and times of the last
/// completed step, per-slave call times from the monitor.
fn statistics(last: Option<StepInfo>, started: Option<Instant>, w: &Watch) -> master::Statistics {
    let slaves = w
        .names
        .iter()
        .enumerate()
        .map(|(i, n)| w.monitor.slave_statistics(i, n))
        .collect();
    let wall_clock_time = started.map_or(0.0, |s| s.elapsed().as_secs_f64());
    let Some(s) = last else {
        return master::Statistics {
            wall_clock_time,
            slaves,
            ..Default::default()
        };
    };
    master::Statistics {
        wall_clock_time,
        output_time: s.output_time,
        steps: s.steps,
        algorithm_time: s.algorithm_time,
        algorithm_calls: s.algorithm_calls,
        iterations: s.iterations,
        convergence_fails: s.convergence_fails,
        iteration_limit_exceeded: s.iteration_limit_exceeded,
        error_test_fails: s.error_test_fails,
        error_test_time: s.error_test_time,
        fmu_errors: s.fmu_errors,
        slaves,
    }
}
