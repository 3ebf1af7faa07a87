//! The worker threads of parallel Gauss-Jacobi (see `docs/performance.md`).
//!
//! A plain `rayon::ThreadPool` lets its threads outlive it: dropping the pool only asks them to
//! stop. Threads still running at process exit leave their thread-local storage behind, which
//! memory checkers report as lost. [`Workers`] spawns the threads itself and joins every one
//! of them when it is dropped, so a run ends with the calling thread alone.

use std::thread::JoinHandle;

/// A rayon pool whose threads are joined on drop.
#[derive(Debug)]
pub(crate) struct Workers {
    /// Always `Some` until [`Drop::drop`] takes it to shut the pool down before joining.
    pool: Option<rayon::ThreadPool>,
    /// One handle per worker thread, in spawn order.
    handles: Vec<JoinHandle<()>>,
}

impl Workers {
    /// Starts `threads` worker threads named `mastersim-worker-<i>`.
    ///
    /// # Errors
    /// The message of the operating system's refusal to start a thread.
    pub(crate) fn start(threads: usize) -> Result<Self, String> {
        let mut handles = Vec::with_capacity(threads);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .spawn_handler(|worker| {
                let name = format!("mastersim-worker-{}", worker.index());
                let handle = std::thread::Builder::new()
                    .name(name)
                    .spawn(move || worker.run())?;
                handles.push(handle);
                Ok(())
            })
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Self {
            pool: Some(pool),
            handles,
        })
    }

    /// Runs `work` inside the pool: rayon's parallel iterators called from it use these
    /// threads. The calling thread waits for the result.
    pub(crate) fn install<R: Send>(&self, work: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(pool) => pool.install(work),
            None => work(),
        }
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        // Dropping the last handle of the pool tells its threads to finish; then wait for them.
        drop(self.pool.take());
        for handle in self.handles.drain(..) {
            // A worker that panicked has already reported it; nothing is left to clean up.
            let _ = handle.join();
        }
    }
}
