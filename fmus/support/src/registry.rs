//! The set of live instances of this shared library.
//!
//! Every component pointer that C passes in is checked against this set before it is
//! dereferenced, together with the FMI version it was created with. So a null, foreign, already
//! freed or wrong-version pointer yields Error instead of undefined behaviour, and a second free
//! is ignored. (A library exports one model type per FMI version, since the exported symbols
//! are unmangled; so the version also fixes the Rust type behind the pointer.)
//!
//! The check runs on every FMI call, from any thread, so it takes no lock: the set is a fixed
//! open-addressing hash table of atomics (linear probing, [`CAPACITY`] slots, at most
//! [`MAX_LIVE`] live instances). Lookups only load atomics; insertions and removals are
//! serialized by a mutex and publish an address with a release store after its version.
//! A removed entry becomes a tombstone, so that probing continues past it; when the last
//! instance is gone all slots are cleared.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

use crate::instance::Version;

/// Number of slots (a power of two).
const CAPACITY: usize = 1 << 16;
/// Most live instances at once (load factor 1/2 keeps probe sequences short).
pub(crate) const MAX_LIVE: usize = CAPACITY / 2;
/// Slot value of a never-used slot.
const EMPTY: usize = 0;
/// Slot value of a removed entry (no instance address is 1: boxes are aligned).
const TOMBSTONE: usize = 1;

#[allow(clippy::declare_interior_mutable_const)]
const EMPTY_SLOT: AtomicUsize = AtomicUsize::new(EMPTY);
#[allow(clippy::declare_interior_mutable_const)]
const NO_VERSION: AtomicU8 = AtomicU8::new(0);

static ADDRESSES: [AtomicUsize; CAPACITY] = [EMPTY_SLOT; CAPACITY];
static VERSIONS: [AtomicU8; CAPACITY] = [NO_VERSION; CAPACITY];
/// Serializes insertions and removals; holds the number of live instances.
static WRITERS: Mutex<usize> = Mutex::new(0);

fn version_code(version: Version) -> u8 {
    match version {
        Version::Fmi1 => 1,
        Version::Fmi2 => 2,
    }
}

/// The probe sequence of `address`: every slot once, starting at its hash.
fn probe(address: usize) -> impl Iterator<Item = usize> {
    // Fibonacci hashing of the address without its alignment bits.
    let start =
        ((address >> 4).wrapping_mul(0x9e37_79b9_7f4a_7c15_usize) >> (usize::BITS - 16)) as usize;
    (0..CAPACITY).map(move |k| (start + k) & (CAPACITY - 1))
}

/// Records a new instance; false when [`MAX_LIVE`] instances are already live.
pub(crate) fn insert(address: usize, version: Version) -> bool {
    let mut live = WRITERS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if *live >= MAX_LIVE {
        return false;
    }
    for slot in probe(address) {
        let current = ADDRESSES[slot].load(Ordering::Relaxed);
        if current == EMPTY || current == TOMBSTONE {
            VERSIONS[slot].store(version_code(version), Ordering::Relaxed);
            ADDRESSES[slot].store(address, Ordering::Release);
            *live += 1;
            return true;
        }
    }
    false
}

/// The slot holding `address`, if it is live.
fn find(address: usize) -> Option<usize> {
    for slot in probe(address) {
        match ADDRESSES[slot].load(Ordering::Acquire) {
            EMPTY => return None,
            a if a == address => return Some(slot),
            _ => {}
        }
    }
    None
}

/// Whether `address` is a live instance created for `version`.
pub(crate) fn contains(address: usize, version: Version) -> bool {
    find(address)
        .is_some_and(|slot| VERSIONS[slot].load(Ordering::Relaxed) == version_code(version))
}

/// Forgets an instance; returns whether it was live.
pub(crate) fn remove(address: usize, version: Version) -> bool {
    let mut live = WRITERS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let Some(slot) = find(address) else {
        return false;
    };
    if VERSIONS[slot].load(Ordering::Relaxed) != version_code(version) {
        return false;
    }
    ADDRESSES[slot].store(TOMBSTONE, Ordering::Release);
    *live -= 1;
    if *live == 0 {
        // No instance is left whose calls could be probing: clear the tombstones.
        for a in &ADDRESSES {
            a.store(EMPTY, Ordering::Relaxed);
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserted_addresses_are_found_until_removed() {
        // Addresses as boxes would have them (16-byte aligned), many sharing a hash prefix.
        let addresses: Vec<usize> = (1..=2000).map(|i| i * 16 + (1 << 40)).collect();
        for &a in &addresses {
            assert!(insert(a, Version::Fmi2));
        }
        assert!(
            addresses
                .iter()
                .all(|&a| contains(a, Version::Fmi2) && !contains(a, Version::Fmi1))
        );
        for &a in addresses.iter().step_by(2) {
            assert!(remove(a, Version::Fmi2));
            assert!(!remove(a, Version::Fmi2), "a second free is ignored");
        }
        for (i, &a) in addresses.iter().enumerate() {
            assert_eq!(contains(a, Version::Fmi2), i % 2 == 1, "address {i}");
        }
        assert!(!contains(16, Version::Fmi2));
        for &a in addresses.iter().skip(1).step_by(2) {
            assert!(remove(a, Version::Fmi2));
        }
        assert!(addresses.iter().all(|&a| !contains(a, Version::Fmi2)));
    }
}
