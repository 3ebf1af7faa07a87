//! Supervision of a run from outside the stepping loop: the result files (and the logger) are
//! flushed every second, so that a crashed or killed run leaves readable results up to about a
//! second ago; and with a step timeout a watchdog ends the run when an FMU call hangs.
//!
//! A hanging call cannot be interrupted from inside the process. When one exceeds the timeout,
//! the supervisor thread finishes the result files (the stepping thread is stuck inside the FMU
//! and holds no lock), writes `summary.txt` marked `TimedOut` from the counters of the last
//! completed step, and calls the timeout's handler, which ends the process.
//!
//! Spec: `docs/robustness.md` (periodic flush, step timeout); FMI 2.0.2 §2.1 (calls of one
//! instance are sequential, so the monitor only reads what the stepping thread publishes).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use master::values::TypedValues;
use master::watchdog::{BusyCall, CallMonitor};
use master::{Counters, Observer, ObserverError, OutputLayout, Statistics};

use crate::Result;
use crate::options::StepTimeout;
use crate::report::{Ending, Summary};
use crate::results::ResultFiles;

/// What the supervisor thread needs to see of a run: the result files and the counters of
/// the last completed step.
#[derive(Default)]
pub(crate) struct RunRecord {
    /// The result files, from their creation until they are finished.
    pub files: Option<ResultFiles>,
    /// The counters after the last completed step.
    last: Option<Counters>,
    /// When the first result row was prepared.
    started: Option<Instant>,
}

/// The [`RunRecord`] shared between the stepping thread, where it is one of the session's
/// observers, and the supervisor thread. The stepping thread holds the lock only while it
/// hands over a row or a step's counters, never during an FMU call.
#[derive(Clone)]
pub(crate) struct SharedRecord {
    record: Arc<Mutex<RunRecord>>,
    /// Steps matter (a step timeout needs the last counters, step statistics a line per
    /// step); otherwise completed steps are not recorded, which saves a lock per step.
    per_step: bool,
    /// Without `per_step`: the counters of the last completed step, kept here (not shared)
    /// and published with the next result row.
    pending: Option<Counters>,
}

impl SharedRecord {
    /// An empty record; `per_step` when completed steps must be recorded.
    pub fn new(per_step: bool) -> Self {
        SharedRecord {
            record: Arc::default(),
            per_step,
            pending: None,
        }
    }

    /// Identifies the record (the same for all its clones).
    pub fn id(&self) -> usize {
        Arc::as_ptr(&self.record) as usize
    }

    /// The statistics after the last recorded step (every step with `per_step`, else the
    /// last result row), for slaves named `names`; per-slave counts and times are unknown here
    /// and left at 0.
    pub fn last_statistics(&self, names: &[String]) -> Statistics {
        let (last, started) = {
            let r = self.lock();
            (r.last, r.started)
        };
        let mut counters = last.unwrap_or_default();
        counters.started = started;
        Statistics {
            counters,
            slaves: names
                .iter()
                .map(|n| master::SlaveStatistics {
                    name: n.clone(),
                    ..Default::default()
                })
                .collect(),
        }
    }

    /// Locks the record (a panic on another thread does not make it unusable).
    pub fn lock(&self) -> MutexGuard<'_, RunRecord> {
        self.record
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Writes the last rows and closes the result files, if they were created and are not
    /// finished yet.
    ///
    /// # Errors
    /// The writers' errors.
    pub fn finish_files(&self) -> Result<()> {
        let files = self.lock().files.take();
        files.map_or(Ok(()), |mut f| f.finish())
    }
}

impl Observer for SharedRecord {
    fn start(&mut self, layout: &OutputLayout) -> std::result::Result<(), ObserverError> {
        let mut record = self.lock();
        record.started = Some(Instant::now());
        record.files.as_mut().map_or(Ok(()), |f| f.start(layout))
    }

    fn output(&mut self, t: f64, values: &TypedValues) -> std::result::Result<(), ObserverError> {
        let pending = self.pending.take();
        let mut record = self.lock();
        if pending.is_some() {
            record.last = pending;
        }
        record
            .files
            .as_mut()
            .map_or(Ok(()), |f| f.output(t, values))
    }

    fn step_completed(&mut self, counters: &Counters) {
        if !self.per_step {
            self.pending = Some(*counters);
            return;
        }
        let mut record = self.lock();
        record.last = Some(*counters);
        if let Some(f) = &mut record.files {
            f.step_completed(counters);
        }
    }

    fn slave_steps(&mut self, do_step_calls: &[u64]) {
        if !self.per_step {
            return;
        }
        if let Some(f) = &mut self.lock().files {
            f.slave_steps(do_step_calls);
        }
    }
}

/// Supervision of FMU calls by wall time.
pub(crate) struct Watch {
    /// Records the calls of the simulation's slaves.
    pub monitor: Arc<CallMonitor>,
    /// The limit and what happens when a call exceeds it.
    pub timeout: StepTimeout,
    /// `log/summary.txt` of the run.
    pub summary_path: PathBuf,
    /// What the run is, for `summary.json`.
    pub run: std::sync::Arc<crate::report::RunInfo>,
    /// Slave names in project order.
    pub names: Vec<String>,
}

/// Result files are flushed at least this often, so that a crashed or killed run leaves its
/// results up to about this long ago readable.
const FLUSH_INTERVAL: Duration = Duration::from_secs(1);

/// The running supervisor thread; [`Supervisor::stop`] ends it.
pub(crate) struct Supervisor {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Supervisor {
    /// Starts the supervisor thread: it flushes the result files in `record` every
    /// [`FLUSH_INTERVAL`] and, with a `watch`, abandons the run when a call takes longer than
    /// the timeout. Without a thread (spawning failed) the run goes on unsupervised, with a
    /// warning.
    ///
    /// With `checkpoints = Some((interval, flag))` it also raises `flag` every `interval` of
    /// wall time, asking the stepping thread for a checkpoint at its next communication point.
    pub fn spawn(
        record: SharedRecord,
        watch: Option<Watch>,
        checkpoints: Option<(Duration, Arc<AtomicBool>)>,
    ) -> Supervisor {
        let mut poll = watch.as_ref().map_or(FLUSH_INTERVAL, |w| {
            (w.timeout.limit / 10).clamp(Duration::from_millis(5), Duration::from_millis(100))
        });
        if let Some((interval, _)) = &checkpoints {
            poll = poll.min((*interval / 4).max(Duration::from_millis(1)));
        }
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let spawned = std::thread::Builder::new()
            .name("mastersim-supervisor".into())
            .spawn(move || {
                let mut last_flush = Instant::now();
                let mut last_checkpoint = Instant::now();
                while !stopped.load(Ordering::Acquire) {
                    std::thread::park_timeout(poll);
                    if let Some((interval, flag)) = &checkpoints
                        && last_checkpoint.elapsed() >= *interval
                    {
                        last_checkpoint = Instant::now();
                        flag.store(true, Ordering::Relaxed);
                    }
                    if last_flush.elapsed() >= FLUSH_INTERVAL {
                        last_flush = Instant::now();
                        log::logger().flush();
                        if let Some(files) = &mut record.lock().files
                            && let Err(e) = files.flush()
                        {
                            log::warn!("flushing the result files failed: {e}");
                        }
                    }
                    if let Some(w) = &watch
                        && let Some(call) = w.monitor.longest_call()
                        && call.elapsed > w.timeout.limit + grace(&call)
                    {
                        abandon(&record, w, call);
                    }
                }
            });
        let thread = spawned
            .inspect_err(|e| {
                log::warn!("the supervisor thread could not start ({e}): results are flushed only at the end and the step timeout is not enforced");
            })
            .ok();
        Supervisor { stop, thread }
    }

    /// Ends the supervisor thread and waits for it.
    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}

impl Drop for Supervisor {
    fn drop(&mut self) {
        self.stop();
    }
}

/// How long past the step timeout the watchdog waits for `call`: [`CONTAINED_GRACE`] for a
/// slave in a helper process, whose call ends itself at the limit (the helper is killed and
/// the stepping thread reports the failure with the results kept); nothing for the others.
fn grace(call: &BusyCall) -> Duration {
    if call.contained {
        CONTAINED_GRACE
    } else {
        Duration::ZERO
    }
}

/// The grace period of [`grace`]: enough for killing and reaping a helper process.
const CONTAINED_GRACE: Duration = Duration::from_secs(10);

/// Abandons the run after `call` exceeded the timeout: reports the slave, call, `t` and `h`,
/// finishes the result files, writes `summary.txt` from the last completed step (per-slave
/// call times from the monitor) and calls the timeout's handler, which does not return.
fn abandon(record: &SharedRecord, w: &Watch, call: BusyCall) -> ! {
    let name = w.names.get(call.slave).map_or("?", String::as_str);
    let message = format!(
        "slave '{name}': {} did not return within {} s (t={} s, h={} s); the run is abandoned",
        call.call.name(),
        w.timeout.limit.as_secs_f64(),
        w.run.time_format.show(call.t),
        w.run.time_format.show(call.h)
    );
    log::error!("{message}");
    if let Err(e) = record.finish_files() {
        log::error!("finishing the result files failed: {e}");
    }
    let mut stats = record.last_statistics(&w.names);
    stats.slaves = w
        .names
        .iter()
        .enumerate()
        .map(|(i, n)| w.monitor.slave_statistics(i, n))
        .collect();
    if let Err(e) = Summary::now(&stats)
        .with_run(&w.run)
        .log_and_write(&w.summary_path, &Ending::TimedOut(message))
    {
        log::error!("{e}");
    }
    log::logger().flush();
    (w.timeout.on_expiry)()
}
