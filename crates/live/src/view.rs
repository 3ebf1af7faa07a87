//! The run's state as every page sees it: the steering's state (waiting, running, paused,
//! finished) plus replay, in which the run is held while a page shows an earlier row. One
//! [`Shared`] per server, so that every page and `/api/status` see the same state, the row
//! replay shows, and which view paused the run or started replay.
//!
//! Replay is entered with `seek` to a row before the last computed one: a running run pauses
//! at its next communication point. It is left by `seek` to the last computed row or by
//! Resume (the run continues from where it was held), by a single step (the run takes one
//! step and stays paused) or by Stop. The run itself is only paused meanwhile, so the rows it
//! writes after leaving replay follow the last one without a gap or a repeat.
//!
//! Spec: the block simulator's visualization (seed design: moving the time bar while the
//! simulation runs switches to replay mode; at the right edge the simulation continues);
//! `docs/live.md` (states, `seek`).

use std::sync::{Mutex, MutexGuard, PoisonError};

use mastersim::{RunState, Steering, SteeringError, SteeringStatus};
use serde::Serialize;

use crate::Store;

/// The state of the run as the pages show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum State {
    /// Initialized, waiting for Start.
    Waiting,
    /// Computing.
    Running,
    /// Held at a communication point (Pause, or after a single step).
    Paused,
    /// Held while the pages show an earlier row (the cursor's row is in [`Status::replay`]).
    Replay,
    /// Ended, or stored results.
    Finished,
}

/// What replay shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Replay {
    /// The row shown (0-based, below the last computed row).
    pub row: usize,
}

/// `status` events, `GET /api/status` and control answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Status {
    /// Where the run is, as the pages show it.
    pub state: State,
    /// The current communication point, s.
    pub t: f64,
    /// Rows computed so far.
    pub rows: usize,
    /// Rows the server holds in memory; the older ones are read back from the run's result
    /// file when a page asks for them (`docs/live.md`, what the view costs).
    pub rows_in_memory: usize,
    /// The real-time factor when pacing is on.
    pub real_time: Option<f64>,
    /// The pacing figures.
    pub pacing: Option<mastersim::pacing::PacingFigures>,
    /// How the run ended, once finished.
    pub ending: Option<String>,
    /// In replay: the row shown.
    pub replay: Option<Replay>,
    /// The view whose command paused the run or started replay (the `view` member of that
    /// command; `null` when it carried none, or when the run is not held).
    pub by: Option<String>,
    /// The outputs `[t, v_0, …]` at the communication point where the run is held, when no
    /// result row was written there (e.g. after a single step shorter than `hOutputMin`).
    pub point: Option<Vec<f64>>,
}

/// Why a `seek` was refused: the message of a 409 answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum SeekError {
    /// The steering refused (finished, or waiting for Start).
    #[error(transparent)]
    Steering(#[from] SteeringError),
    /// No row computed yet.
    #[error("cannot seek: no row has been computed yet")]
    NoRows,
    /// A row beyond the last computed one.
    #[error("cannot seek to row {row}: the last computed row is {last} (rows count from 0)")]
    Beyond {
        /// The row asked for.
        row: usize,
        /// The last computed row.
        last: usize,
    },
}

#[derive(Debug, Default)]
struct Hold {
    /// In replay: the row shown.
    replay: Option<usize>,
    /// The view that paused the run or started replay.
    by: Option<String>,
}

/// The state every page shares; commands go through it so that replay and the steering
/// change together.
#[derive(Debug, Default)]
pub(crate) struct Shared(Mutex<Hold>);

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Hold> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The status of a live run steered by `steering` with rows in `store`.
    pub(crate) fn status(&self, steering: &Steering, store: &Store) -> Status {
        let s = steering.status();
        let hold = self.lock();
        let state = match (s.state, &hold.replay) {
            (RunState::Finished, _) => State::Finished,
            (RunState::Waiting, _) => State::Waiting,
            (_, Some(_)) => State::Replay,
            (RunState::Paused, None) => State::Paused,
            (RunState::Running, None) => State::Running,
        };
        let held = matches!(state, State::Paused | State::Replay);
        let point = match state {
            State::Paused => store.held().filter(|p| p.first() == Some(&s.t)),
            _ => None,
        };
        Status {
            replay: hold
                .replay
                .filter(|_| state == State::Replay)
                .map(|row| Replay { row }),
            by: hold.by.clone().filter(|_| held),
            point,
            rows_in_memory: store.in_memory(),
            ..from_steering(state, s, store.len())
        }
    }

    /// `seek` to `row` from `view`: enters or moves replay below the last computed row (a
    /// running run pauses); at the last one, leaves replay and resumes a held run.
    ///
    /// # Errors
    /// [`SeekError`]: the run has finished or waits for Start, no rows yet, `row` beyond the
    /// last computed row.
    pub(crate) fn seek(
        &self,
        steering: &Steering,
        store: &Store,
        row: usize,
        view: Option<String>,
    ) -> Result<(), SeekError> {
        let mut hold = self.lock();
        let state = steering.status().state;
        match state {
            RunState::Finished => return Err(SteeringError::Finished.into()),
            RunState::Waiting => {
                return Err(SteeringError::NotNow {
                    command: "seek",
                    state: "waiting for Start",
                }
                .into());
            }
            RunState::Running | RunState::Paused => {}
        }
        let last = store.len().checked_sub(1).ok_or(SeekError::NoRows)?;
        if row > last {
            return Err(SeekError::Beyond { row, last });
        }
        if row == last {
            hold.replay = None;
            hold.by = None;
            steering.resume()?;
            return Ok(());
        }
        if state == RunState::Running {
            steering.pause()?;
        }
        hold.replay = Some(row);
        hold.by = view;
        Ok(())
    }

    /// Runs the steering command `command` (`pause`, `resume`, `step`, `stop`, or any other
    /// that does not touch replay) for `view`, leaving replay where the command says.
    ///
    /// # Errors
    /// The steering's.
    pub(crate) fn command(
        &self,
        command: &str,
        view: Option<String>,
        run: impl FnOnce() -> Result<SteeringStatus, SteeringError>,
    ) -> Result<(), SteeringError> {
        let mut hold = self.lock();
        run()?;
        match command {
            // In replay the run is held already: replay stays.
            "pause" if hold.replay.is_none() => hold.by = view,
            "step" => {
                hold.replay = None;
                hold.by = view;
            }
            "resume" | "start" | "stop" => {
                hold.replay = None;
                hold.by = None;
            }
            _ => {}
        }
        Ok(())
    }
}

/// The status of stored results: finished, at the last row's time.
pub(crate) fn stored(store: &Store) -> Status {
    let rows = store.len();
    let t = store
        .rows(rows.saturating_sub(1), rows)
        .ok()
        .and_then(|r| r.first().map(|r| r[0]))
        .unwrap_or(0.0);
    let steering = SteeringStatus {
        state: RunState::Finished,
        t,
        real_time: None,
        pacing: None,
        ending: Some("stored results".into()),
    };
    from_steering(State::Finished, steering, rows)
}

fn from_steering(state: State, s: SteeringStatus, rows: usize) -> Status {
    Status {
        state,
        t: s.t,
        rows,
        rows_in_memory: rows,
        real_time: s.real_time,
        pacing: s.pacing,
        ending: s.ending,
        replay: None,
        by: None,
        point: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seek_enters_moves_and_leaves_replay() {
        let steering = Steering::new(RunState::Running, None).unwrap();
        let store = Store::replay("r", &[0.0, 0.5, 1.0], Vec::new());
        let shared = Shared::default();
        assert_eq!(shared.status(&steering, &store).state, State::Running);
        shared.seek(&steering, &store, 1, Some("a".into())).unwrap();
        let s = shared.status(&steering, &store);
        assert_eq!(
            (s.state, s.replay, s.by.as_deref()),
            (State::Replay, Some(Replay { row: 1 }), Some("a"))
        );
        assert_eq!(
            shared.seek(&steering, &store, 3, None),
            Err(SeekError::Beyond { row: 3, last: 2 })
        );
        shared.seek(&steering, &store, 0, None).unwrap();
        let s = shared.status(&steering, &store);
        assert_eq!((s.replay, s.by), (Some(Replay { row: 0 }), None));
        // The last row leaves replay (the run was resumed).
        shared.seek(&steering, &store, 2, Some("b".into())).unwrap();
        let s = shared.status(&steering, &store);
        assert_eq!((s.state, s.replay, s.by), (State::Running, None, None));
        // No seek without rows, before Start or after the end.
        let empty = Store::live("e");
        assert_eq!(
            shared.seek(&steering, &empty, 0, None),
            Err(SeekError::NoRows)
        );
        let waiting = Steering::new(RunState::Waiting, None).unwrap();
        assert!(matches!(
            shared.seek(&waiting, &store, 0, None),
            Err(SeekError::Steering(SteeringError::NotNow { .. }))
        ));
    }
}
