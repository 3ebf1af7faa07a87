//! Text result files formatted and written on a thread of their own.
//!
//! Printing numbers costs about as much per value as stepping a cheap slave, so the stepping
//! thread only copies what a row needs into a batch; a writer thread formats the batches and
//! writes them, on another core. Batches go back and forth through one mutex-guarded hand-over
//! state and are reused, so nothing is allocated per row once the first batches have grown.
//! When the writer falls behind, the stepping thread waits for a free batch (at most
//! [`BATCHES`] are in flight). [`Background::flush`] hands the current batch over and waits
//! until the writer has passed everything to the operating system, so the files are complete
//! up to the last flush. The first error ends the writer thread and is reported by the next
//! call on the stepping side.
//!
//! The thread starts with the first full batch. A short run never fills one: it writes its few
//! rows on the calling thread when it flushes, without the cost of starting a thread.
//!
//! The hand-over uses a mutex and a condition variable rather than channels: a blocking
//! channel operation registers the waiting thread's handle, which on the main thread is never
//! freed, and memory checkers report it (tests/corpus/leaks.rs).

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use crate::{Error, Result};

/// Batches in circulation between the stepping thread and the writer.
const BATCHES: usize = 4;

/// What runs on the writer thread: the files and how to write a batch into them.
pub trait Drain: Send + 'static {
    /// The rows of one hand-over.
    type Batch: Send + 'static;

    /// An empty batch with room for the largest hand-over, so that filling it never
    /// allocates (batches are created only when the writer starts).
    fn new_batch(&self) -> Self::Batch;

    /// Formats and writes `batch`, then empties it for reuse (keeping its capacity).
    fn write(&mut self, batch: &mut Self::Batch) -> Result<()>;

    /// Passes everything written to the operating system.
    fn flush(&mut self) -> Result<()>;
}

/// The hand-over state both threads share.
struct State<B> {
    /// Full batches, oldest first, waiting for the writer.
    queue: VecDeque<B>,
    /// Emptied batches waiting for the stepping side.
    free: Vec<B>,
    /// Flushes requested so far by the stepping side.
    flushes_requested: u64,
    /// Flushes the writer has completed; a flush covers every batch queued before it.
    flushes_done: u64,
    /// The stepping side is done: write what is queued, flush and end.
    closing: bool,
    /// The writer thread has ended (after an error, or after closing).
    ended: bool,
    /// Threads waiting on the condition variable (a change needs a wake-up only then).
    waiting: usize,
}

/// [`State`] with the condition variable that signals every change of it.
struct Shared<B> {
    state: Mutex<State<B>>,
    changed: Condvar,
}

impl<B> Shared<B> {
    fn lock(&self) -> MutexGuard<'_, State<B>> {
        // A panic while holding the lock leaves consistent data (only pushes and pops).
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Waits until `ready` holds, returning the guard.
    fn wait_until<'a>(
        &self,
        mut guard: MutexGuard<'a, State<B>>,
        ready: impl Fn(&State<B>) -> bool,
    ) -> MutexGuard<'a, State<B>> {
        while !ready(&guard) {
            guard.waiting += 1;
            guard = self
                .changed
                .wait(guard)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            guard.waiting -= 1;
        }
        guard
    }

    /// Releases `guard` after a change of the state and wakes the other thread if it waits.
    /// Skipping the wake-up when nobody waits saves a system call per hand-over: a thread
    /// that starts waiting later checks the state first, under the lock.
    fn publish(&self, guard: MutexGuard<'_, State<B>>) {
        let waiting = guard.waiting > 0;
        drop(guard);
        if waiting {
            self.changed.notify_all();
        }
    }
}

/// The stepping thread's side: the batch being filled and the hand-over to the writer.
///
/// The writer thread starts with the first full batch. Until then the drain stays here and
/// [`Background::flush`] writes on the calling thread, so a short run starts no thread at all.
pub struct Background<D: Drain> {
    name: &'static str,
    /// The drain, until the writer thread takes it over.
    inline: Option<D>,
    /// The hand-over state, once the writer thread runs.
    shared: Option<Arc<Shared<D::Batch>>>,
    writer: Option<JoinHandle<Result<D>>>,
    /// The batch being filled.
    pub current: D::Batch,
}

impl<D: Drain> Background<D> {
    /// Keeps `drain` for the writer thread `name`, which starts with the first full batch.
    pub fn new(name: &'static str, drain: D) -> Self {
        Background {
            name,
            current: drain.new_batch(),
            inline: Some(drain),
            shared: None,
            writer: None,
        }
    }

    /// Starts the writer thread with `drain`.
    fn spawn(&mut self, drain: D) -> Result<Arc<Shared<D::Batch>>> {
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                queue: VecDeque::with_capacity(BATCHES),
                free: (1..BATCHES).map(|_| drain.new_batch()).collect(),
                flushes_requested: 0,
                flushes_done: 0,
                closing: false,
                ended: false,
                waiting: 0,
            }),
            changed: Condvar::new(),
        });
        let theirs = Arc::clone(&shared);
        let writer = std::thread::Builder::new()
            .name(self.name.into())
            .spawn(move || {
                let result = run(drain, &theirs);
                let mut state = theirs.lock();
                state.ended = true;
                theirs.publish(state);
                result
            })
            .map_err(|source| Error::Thread {
                name: self.name,
                source,
            })?;
        self.shared = Some(Arc::clone(&shared));
        self.writer = Some(writer);
        Ok(shared)
    }

    /// Gives the current batch to the writer and takes a free one (waiting if all are busy).
    ///
    /// # Errors
    /// The writer's error, when it has stopped, or the refusal to start it.
    pub fn hand_over(&mut self) -> Result<()> {
        let shared = match (self.inline.take(), &self.shared) {
            (Some(drain), _) => self.spawn(drain)?,
            (None, Some(shared)) => Arc::clone(shared),
            (None, None) => {
                return Err(Error::Writer {
                    name: self.name,
                    reason: "could not start",
                });
            }
        };
        let mut state = shared.wait_until(shared.lock(), |s| !s.free.is_empty() || s.ended);
        let Some(next) = state.free.pop() else {
            drop(state);
            return Err(self.writer_error());
        };
        let full = std::mem::replace(&mut self.current, next);
        state.queue.push_back(full);
        shared.publish(state);
        Ok(())
    }

    /// Writes everything so far (on this thread before the writer starts, else by handing the
    /// current batch over and waiting) and passes it to the operating system.
    ///
    /// # Errors
    /// The drain's or the writer's error.
    pub fn flush(&mut self) -> Result<()> {
        if let Some(drain) = &mut self.inline {
            drain.write(&mut self.current)?;
            return drain.flush();
        }
        self.hand_over()?;
        let Some(shared) = self.shared.clone() else {
            return Err(self.writer_error());
        };
        let mut state = shared.lock();
        state.flushes_requested += 1;
        let target = state.flushes_requested;
        if state.waiting > 0 {
            shared.changed.notify_all();
        }
        let state = shared.wait_until(state, |s| s.flushes_done >= target || s.ended);
        if state.flushes_done >= target {
            return Ok(());
        }
        drop(state);
        Err(self.writer_error())
    }

    /// Writes the rest, flushes, ends the writer thread and gives back the drain.
    ///
    /// # Errors
    /// The drain's or the writer's error.
    pub fn finish(mut self) -> Result<D> {
        self.flush()?;
        self.close()
    }

    /// Asks the writer to end once the queue is written, waits for it and takes back the
    /// drain.
    fn close(&mut self) -> Result<D> {
        if let Some(drain) = self.inline.take() {
            return Ok(drain);
        }
        if let Some(shared) = &self.shared {
            let mut state = shared.lock();
            state.closing = true;
            shared.publish(state);
        }
        match self.writer.take().map(JoinHandle::join) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(Error::Writer {
                name: self.name,
                reason: "panicked",
            }),
            None => Err(Error::Writer {
                name: self.name,
                reason: "ended early",
            }),
        }
    }

    /// The error that ended the writer thread.
    fn writer_error(&mut self) -> Error {
        let reason = match self.writer.take().map(JoinHandle::join) {
            Some(Ok(Err(e))) => return e,
            Some(Err(_)) => "panicked",
            _ => "ended early",
        };
        Error::Writer {
            name: self.name,
            reason,
        }
    }
}

impl<D: Drain> Drop for Background<D> {
    /// Ends the writer thread without handing over the current batch (an abandoned run): what
    /// was flushed before stays in the files.
    fn drop(&mut self) {
        let _ = self.close();
    }
}

/// What the writer does next.
enum Job<B> {
    Write(B),
    Flush(u64),
    End,
}

/// The writer thread: writes batches in order, serves flushes, ends when the stepping side
/// closes, giving back the drain.
fn run<D: Drain>(mut drain: D, shared: &Shared<D::Batch>) -> Result<D> {
    loop {
        let job = {
            let mut state = shared.wait_until(shared.lock(), |s| {
                !s.queue.is_empty() || s.flushes_requested > s.flushes_done || s.closing
            });
            // Batches first: a flush covers every batch queued before it was requested.
            if let Some(batch) = state.queue.pop_front() {
                Job::Write(batch)
            } else if state.flushes_requested > state.flushes_done {
                Job::Flush(state.flushes_requested)
            } else {
                Job::End
            }
        };
        match job {
            Job::Write(mut batch) => {
                drain.write(&mut batch)?;
                let mut state = shared.lock();
                state.free.push(batch);
                shared.publish(state);
            }
            Job::Flush(target) => {
                drain.flush()?;
                let mut state = shared.lock();
                state.flushes_done = target;
                shared.publish(state);
            }
            Job::End => {
                drain.flush()?;
                return Ok(drain);
            }
        }
    }
}
