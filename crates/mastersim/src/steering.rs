//! Steering a run from another thread: start, pause, resume, single step, stop and the
//! real-time factor, and the status the run publishes back.
//!
//! A [`Steering`] is shared between the thread that runs [`crate::Session::run_steered`] and
//! any number of controllers (the live view's HTTP handlers, a test, a GUI). Commands only
//! change shared state and wake the run; they never wait for it. Each returns the status as
//! it found it: the run reaches the new state at its next communication point, and
//! [`Steering::status`] reports it from then on. The run publishes its status
//! after every step; reading it never waits for a step either.
//!
//! Spec: the block simulator's simulation control (seed design: start, stop, resume, single
//! step; real time with a factor); libcosim's `execution` (play/pause, real-time factor).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::pacing::PacingFigures;

/// Longest a waiting run sleeps without looking at the stop flag (which a signal handler
/// raises without waking anybody).
const STOP_POLL: Duration = Duration::from_millis(50);

/// Where a steered run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RunState {
    /// Initialized, waiting for [`Steering::start`] (or a single step).
    Waiting,
    /// Stepping.
    Running,
    /// Held at a communication point until resumed, single-stepped or stopped.
    Paused,
    /// Ended (end time, terminate request, stop or failure).
    Finished,
}

/// What a steered run reports about itself.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SteeringStatus {
    /// Where the run is.
    pub state: RunState,
    /// The current communication point, s.
    pub t: f64,
    /// The real-time factor when pacing is on.
    pub real_time: Option<f64>,
    /// The pacing figures, once the run has stepped while running (published at most every
    /// 100 ms, and at every change of state).
    pub pacing: Option<PacingFigures>,
    /// How the run ended (the `summary.txt` message, or "completed"), once finished.
    pub ending: Option<String>,
}

/// Why a command was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SteeringError {
    /// The run has ended; nothing can be steered any more.
    #[error("the run has finished")]
    Finished,
    /// The command does not apply in the current state (e.g. a single step while running).
    #[error("cannot {command} while {state}")]
    NotNow {
        /// The command.
        command: &'static str,
        /// The state, as a word.
        state: &'static str,
    },
    /// A real-time factor that is not a finite number > 0.
    #[error("real-time factor {0}: expected a number > 0")]
    InvalidFactor(f64),
}

/// The state shared by the run and its controllers.
#[derive(Debug)]
struct Shared {
    /// What the run reports; its `state` is where the run actually is, set by the run itself,
    /// so that a paused state is never published before the last communication point.
    status: SteeringStatus,
    /// Where the commands want the run to be.
    wanted: RunState,
    /// Single steps asked for and not yet taken.
    steps: u64,
    /// A stop was asked for.
    stop: bool,
    /// Counts commands, so that a sleeping run notices one.
    commands: u64,
}

/// A handle for steering one run; clones share it. See the module documentation.
#[derive(Debug, Clone)]
pub struct Steering(Arc<Inner>);

/// What the clones of a [`Steering`] share.
#[derive(Debug)]
struct Inner {
    shared: Mutex<Shared>,
    wake: Condvar,
    /// [`Shared::commands`], readable without the lock: a run that finds it unchanged since
    /// it last looked knows that nothing was asked of it, and steps on without locking.
    commands: AtomicU64,
    /// The current communication point (the bits of an `f64`, s), published after every step
    /// without the lock.
    t: AtomicU64,
}

/// What the run does next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Next {
    /// Step while running, paced at `factor` (or not paced); `commands` counts the commands
    /// so far, so that the run can tell whether it was steered since it last looked.
    Run {
        /// The real-time factor.
        factor: Option<f64>,
        /// Commands given so far.
        commands: u64,
    },
    /// Take exactly one communication step, then stay held.
    Step,
    /// End the run now.
    Stop,
}

impl Steering {
    /// A steering handle for a run that starts in `state` ([`RunState::Waiting`] or
    /// [`RunState::Running`]; others are treated as waiting), paced at `real_time` (a factor
    /// > 0, or `None`).
    ///
    /// # Errors
    /// [`SteeringError::InvalidFactor`] for a factor that is not finite and > 0.
    pub fn new(state: RunState, real_time: Option<f64>) -> Result<Steering, SteeringError> {
        check_factor(real_time)?;
        let state = match state {
            RunState::Running => RunState::Running,
            _ => RunState::Waiting,
        };
        Ok(Steering(Arc::new(Inner {
            shared: Mutex::new(Shared {
                status: SteeringStatus {
                    state,
                    t: f64::NAN,
                    real_time,
                    pacing: None,
                    ending: None,
                },
                wanted: state,
                steps: 0,
                stop: false,
                commands: 0,
            }),
            wake: Condvar::new(),
            commands: AtomicU64::new(0),
            t: AtomicU64::new(f64::NAN.to_bits()),
        })))
    }

    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.0.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Applies `change` to the shared state unless the run has finished, and wakes the run.
    fn command(
        &self,
        change: impl FnOnce(&mut Shared) -> Result<(), SteeringError>,
    ) -> Result<SteeringStatus, SteeringError> {
        let mut shared = self.lock();
        if shared.status.state == RunState::Finished {
            return Err(SteeringError::Finished);
        }
        change(&mut shared)?;
        shared.commands += 1;
        self.0.commands.store(shared.commands, Ordering::Release);
        let mut status = shared.status.clone();
        drop(shared);
        self.0.wake.notify_all();
        status.t = self.t();
        Ok(status)
    }

    /// Starts a waiting run (as [`Steering::resume`]).
    ///
    /// # Errors
    /// [`SteeringError::Finished`]; [`SteeringError::NotNow`] unless waiting.
    pub fn start(&self) -> Result<SteeringStatus, SteeringError> {
        self.command(|s| match s.wanted {
            RunState::Waiting => {
                s.wanted = RunState::Running;
                Ok(())
            }
            other => Err(not_now("start", other)),
        })
    }

    /// Pauses a running run at its next communication point (the step in progress completes).
    /// Pausing a paused run changes nothing.
    ///
    /// # Errors
    /// [`SteeringError::Finished`]; [`SteeringError::NotNow`] while waiting for Start (there
    /// is nothing to pause yet).
    pub fn pause(&self) -> Result<SteeringStatus, SteeringError> {
        self.command(|s| match s.wanted {
            RunState::Running | RunState::Paused => {
                s.wanted = RunState::Paused;
                Ok(())
            }
            other => Err(not_now("pause", other)),
        })
    }

    /// Resumes a paused (or waiting) run; pacing restarts from the current communication
    /// point. Resuming a running run changes nothing.
    ///
    /// # Errors
    /// [`SteeringError::Finished`].
    pub fn resume(&self) -> Result<SteeringStatus, SteeringError> {
        self.command(|s| {
            s.wanted = RunState::Running;
            Ok(())
        })
    }

    /// Asks a paused or waiting run for exactly one communication step; it stays paused after.
    ///
    /// # Errors
    /// [`SteeringError::Finished`]; [`SteeringError::NotNow`] while running.
    pub fn step(&self) -> Result<SteeringStatus, SteeringError> {
        self.command(|s| match s.wanted {
            RunState::Waiting | RunState::Paused => {
                s.wanted = RunState::Paused;
                s.steps += 1;
                Ok(())
            }
            other => Err(not_now("single-step", other)),
        })
    }

    /// Turns pacing on at `factor` (simulated seconds per wall-clock second) or, with `None`,
    /// off. Takes effect at the next step; pacing restarts from the current communication
    /// point.
    ///
    /// # Errors
    /// [`SteeringError::Finished`]; [`SteeringError::InvalidFactor`].
    pub fn set_real_time(&self, factor: Option<f64>) -> Result<SteeringStatus, SteeringError> {
        check_factor(factor)?;
        self.command(|s| {
            s.status.real_time = factor;
            Ok(())
        })
    }

    /// Ends the run at its next communication point, with results kept, as an interrupt does.
    ///
    /// # Errors
    /// [`SteeringError::Finished`].
    pub fn stop(&self) -> Result<SteeringStatus, SteeringError> {
        self.command(|s| {
            s.stop = true;
            Ok(())
        })
    }

    /// The run's latest status. After a command, the state changes once the run has got
    /// there: a pause, for instance, once the step in progress is complete and published.
    pub fn status(&self) -> SteeringStatus {
        let mut status = self.lock().status.clone();
        status.t = self.t();
        status
    }

    /// The communication point last published, s (NaN before the first).
    fn t(&self) -> f64 {
        f64::from_bits(self.0.t.load(Ordering::Acquire))
    }

    /// Whether nothing was asked of the run since `next` answered [`Next::Run`] with
    /// `commands` (and `stop_flag` is down): the run may then step on without asking
    /// [`Steering::next`], which locks.
    pub(crate) fn unchanged_since(&self, commands: u64, stop_flag: &AtomicBool) -> bool {
        self.0.commands.load(Ordering::Acquire) == commands && !stop_flag.load(Ordering::Relaxed)
    }

    /// Waits (while waiting or paused with no single step asked for) for what to do next;
    /// `stop_flag` is polled every 50 ms.
    pub(crate) fn next(&self, stop_flag: &AtomicBool) -> Next {
        let mut shared = self.lock();
        loop {
            if shared.stop || stop_flag.load(Ordering::Relaxed) {
                return Next::Stop;
            }
            if shared.steps > 0 {
                shared.steps -= 1;
                shared.status.state = RunState::Paused;
                return Next::Step;
            }
            shared.status.state = shared.wanted;
            if shared.wanted == RunState::Running {
                return Next::Run {
                    factor: shared.status.real_time,
                    commands: shared.commands,
                };
            }
            shared = self
                .0
                .wake
                .wait_timeout(shared, STOP_POLL)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Sleeps until `deadline`; returns `false` when a command or `stop_flag` cut the sleep
    /// short.
    pub(crate) fn sleep_until(&self, deadline: Instant, stop_flag: &AtomicBool) -> bool {
        let mut shared = self.lock();
        let commands = shared.commands;
        loop {
            if shared.commands != commands || stop_flag.load(Ordering::Relaxed) {
                return false;
            }
            let now = Instant::now();
            if now >= deadline {
                return true;
            }
            let timeout = (deadline - now).min(STOP_POLL);
            shared = self
                .0
                .wake
                .wait_timeout(shared, timeout)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Publishes the communication point `t` (s) and, when given, new pacing figures; returns
    /// whether the run will be held there (paused, no single step or stop asked for), so that
    /// the run can show the values at this communication point. `running_since`: the command
    /// count of the last [`Next::Run`] while the run steps on; when no command came since and
    /// there are no figures, nothing is locked (the run is not held).
    pub(crate) fn publish(
        &self,
        t: f64,
        pacing: Option<PacingFigures>,
        running_since: Option<u64>,
    ) -> bool {
        self.0.t.store(t.to_bits(), Ordering::Release);
        let quiet = running_since.is_some_and(|c| self.0.commands.load(Ordering::Acquire) == c);
        if quiet && pacing.is_none() {
            return false;
        }
        let mut shared = self.lock();
        if pacing.is_some() {
            shared.status.pacing = pacing;
        }
        shared.wanted == RunState::Paused && shared.steps == 0 && !shared.stop
    }

    /// Marks the run as finished with `ending` and wakes everybody.
    pub(crate) fn finish(&self, ending: String) {
        let mut shared = self.lock();
        shared.status.state = RunState::Finished;
        shared.status.ending = Some(ending);
        drop(shared);
        self.0.wake.notify_all();
    }
}

fn not_now(command: &'static str, state: RunState) -> SteeringError {
    let state = match state {
        RunState::Waiting => "waiting",
        RunState::Running => "running",
        RunState::Paused => "paused",
        RunState::Finished => "finished",
    };
    SteeringError::NotNow { command, state }
}

fn check_factor(factor: Option<f64>) -> Result<(), SteeringError> {
    match factor {
        Some(f) if !(f.is_finite() && f > 0.0) => Err(SteeringError::InvalidFactor(f)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_follow_the_states() {
        let s = Steering::new(RunState::Waiting, None).unwrap();
        let never = AtomicBool::new(false);
        assert!(matches!(
            s.pause(),
            Err(SteeringError::NotNow {
                command: "pause",
                state: "waiting"
            })
        ));
        s.step().unwrap();
        assert_eq!(s.next(&never), Next::Step);
        assert_eq!(s.status().state, RunState::Paused);
        assert!(matches!(
            s.start(),
            Err(SteeringError::NotNow {
                command: "start",
                ..
            })
        ));
        s.resume().unwrap();
        s.set_real_time(Some(4.0)).unwrap();
        assert!(matches!(
            s.next(&never),
            Next::Run {
                factor: Some(4.0),
                ..
            }
        ));
        assert!(s.step().is_err(), "no single step while running");
        assert_eq!(
            s.set_real_time(Some(0.0)),
            Err(SteeringError::InvalidFactor(0.0))
        );
        s.stop().unwrap();
        assert_eq!(s.next(&never), Next::Stop);
        s.finish("completed".into());
        assert_eq!(s.resume(), Err(SteeringError::Finished));
    }

    #[test]
    fn a_command_wakes_a_sleeping_run() {
        let s = Steering::new(RunState::Running, Some(1.0)).unwrap();
        let never = AtomicBool::new(false);
        let other = s.clone();
        let pauser = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            other.pause().unwrap();
        });
        let started = Instant::now();
        let slept = s.sleep_until(started + Duration::from_secs(10), &never);
        pauser.join().unwrap();
        assert!(!slept);
        assert!(started.elapsed() < Duration::from_secs(2));
        let stop = AtomicBool::new(true);
        assert_eq!(s.next(&stop), Next::Stop, "the stop flag ends a pause");
    }
}
