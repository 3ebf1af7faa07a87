//! The set of live instances of this shared library.
//!
//! Every component pointer that C passes in is checked against this set before it is
//! dereferenced, together with the Rust type and FMI version it was created with. So a null,
//! foreign, already freed or wrong-version pointer yields Error instead of undefined behaviour,
//! and a second free is ignored.

use std::any::TypeId;
use std::sync::{Mutex, MutexGuard};

use crate::instance::Version;

/// (address, type of the boxed instance, FMI version)
type Entry = (usize, TypeId, Version);

static LIVE: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

fn live() -> MutexGuard<'static, Vec<Entry>> {
    // A panic while holding the lock cannot leave the Vec inconsistent (push/retain only).
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Records a new instance.
pub(crate) fn insert<T: 'static>(address: usize, version: Version) {
    live().push((address, TypeId::of::<T>(), version));
}

/// Whether `address` is a live instance of type `T` created for `version`.
pub(crate) fn contains<T: 'static>(address: usize, version: Version) -> bool {
    live().contains(&(address, TypeId::of::<T>(), version))
}

/// Forgets an instance; returns whether it was live. When the last instance is gone the
/// set's heap buffer is released, so that a library unloaded with `dlclose` leaks nothing
/// (statics are never dropped).
pub(crate) fn remove<T: 'static>(address: usize, version: Version) -> bool {
    let mut live = live();
    let before = live.len();
    live.retain(|e| *e != (address, TypeId::of::<T>(), version));
    let removed = live.len() != before;
    if live.is_empty() {
        *live = Vec::new();
    }
    removed
}
