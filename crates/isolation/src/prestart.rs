//! Helper processes started ahead of need.
//!
//! A run that knows it will isolate slaves starts their helpers before it extracts the FMUs and
//! reads their model descriptions: the helpers' process start (fork, exec, dynamic linking,
//! mapping the shared region) then overlaps the master's own work, and [`Helper::launch`]
//! (crate::Helper::launch) only waits for the library's LOAD. Helpers not taken by the time
//! the [`Prestarted`] guard is dropped are killed and reaped; they never loaded an FMU.

use std::io;
use std::process::Child;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::{Mutex, MutexGuard};

use crate::platform::Platform;
use crate::region::Region;
use crate::{binaries, launcher};

/// One helper started ahead of need: its region, and its process once the launcher thread has
/// forked it.
struct Pending {
    owner: u64,
    platform: Platform,
    region: Region,
    child: Receiver<io::Result<Child>>,
}

/// The helpers started ahead of need and not taken yet, in the order started.
static POOL: Mutex<Vec<Pending>> = Mutex::new(Vec::new());
/// The number of the next [`Prestarted`] guard.
static OWNERS: AtomicU64 = AtomicU64::new(0);

fn pool() -> MutexGuard<'static, Vec<Pending>> {
    POOL.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Helpers started by [`prestart`]: the ones still untaken when this guard is dropped are
/// killed and reaped (no process, region file or zombie is left).
#[derive(Debug)]
#[must_use = "dropping the guard discards the helpers it started"]
pub struct Prestarted {
    owner: u64,
}

/// Makes sure that `count` helper processes for `platform` are waiting to be taken by the next
/// calls of [`Helper::launch`](crate::Helper::launch) for that platform in this process: the
/// ones started ahead by earlier calls and not taken yet count, the missing ones are started
/// now, without waiting for them.
///
/// Only Linux helpers are started ahead: a Windows helper starts a whole Wine session, too
/// costly to waste when a slave ends up in-process after all. Nothing is started when no
/// helper for `platform` can run here; [`Helper::launch`](crate::Helper::launch) then says why.
pub fn prestart(platform: Platform, count: usize) -> Prestarted {
    let guard = Prestarted {
        owner: OWNERS.fetch_add(1, Ordering::Relaxed),
    };
    if count == 0 || platform.is_windows() || binaries::availability(platform).is_err() {
        return guard;
    }
    let Ok(program) = binaries::installed(platform) else {
        return guard;
    };
    let mut pool = pool();
    let waiting = pool.iter().filter(|p| p.platform == platform).count();
    for _ in waiting..count {
        let Ok(region) = Region::create() else {
            break;
        };
        let Ok(child) = launcher::start(platform, &program, region.path()) else {
            break;
        };
        pool.push(Pending {
            owner: guard.owner,
            platform,
            region,
            child,
        });
    }
    guard
}

/// The oldest helper started ahead for `platform`, taken out of the pool: its region and its
/// process (or why it did not start). `None` when none is waiting.
pub(crate) fn take(platform: Platform) -> Option<(Region, io::Result<Child>)> {
    let pending = {
        let mut pool = pool();
        let index = pool.iter().position(|p| p.platform == platform)?;
        pool.remove(index)
    };
    Some((pending.region, forked(&pending.child)))
}

fn forked(child: &Receiver<io::Result<Child>>) -> io::Result<Child> {
    child
        .recv()
        .map_err(|_| io::Error::other("the helper launcher thread has ended"))?
}

impl Drop for Prestarted {
    fn drop(&mut self) {
        let mine: Vec<Pending> = {
            let mut pool = pool();
            let (mine, others) = std::mem::take(&mut *pool)
                .into_iter()
                .partition(|p| p.owner == self.owner);
            *pool = others;
            mine
        };
        for pending in mine {
            if let Ok(mut child) = forked(&pending.child) {
                // Not reaped yet, so the pid cannot have been reused.
                let _ = child.kill();
                let _ = child.wait();
            }
            // The region's file is removed as it drops.
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untaken_helpers_are_reaped_and_their_regions_removed() {
        let guard = prestart(Platform::Linux64, 2);
        let started: Vec<String> = pool()
            .iter()
            .filter(|p| p.owner == guard.owner)
            .map(|p| p.region.path().display().to_string())
            .collect();
        assert_eq!(started.len(), 2, "two helpers started ahead");
        drop(guard);
        for path in &started {
            assert!(
                !std::path::Path::new(path).exists(),
                "{path} is left behind"
            );
        }
        // No other test of this crate starts helpers.
        let after = crate::census().expect("census");
        assert!(
            after
                .children
                .iter()
                .all(|c| !c.name.starts_with("fmu_host")),
            "{after:?}"
        );
    }
}
