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
//! [`MAX_LIVE`] live instances). A slot holds the address with the version code in its low
//! four bits (instances are allocated 16-byte aligned), so a lookup reads one word. Lookups
//! only load atomics; insertions and removals are serialized by a mutex.
//! A removed entry becomes a tombstone, so that probing continues past it; when the last
//! instance is gone all slots are cleared.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::phase::Version;

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

static ADDRESSES: [AtomicUsize; CAPACITY] = [EMPTY_SLOT; CAPACITY];
/// Serializes insertions and removals; holds the number of live instances.
static WRITERS: Mutex<usize> = Mutex::new(0);

/// Low bits of an instance address that hold the version code.
const VERSION_BITS: usize = 0xF;

/// The slot word of an instance at `address` (16-byte aligned) of `version`: never
/// [`EMPTY`] or [`TOMBSTONE`], since the address is not 0.
fn word(address: usize, version: Version) -> usize {
    address
        | match version {
            Version::Fmi1 => 2,
            Version::Fmi2 => 3,
            #[cfg(feature = "fmi3")]
            Version::Fmi3 => 4,
        }
}

/// The probe sequence of `address`: every slot once, starting at its hash.
fn probe(address: usize) -> impl Iterator<Item = usize> {
    // Fibonacci hashing of the address without its alignment bits.
    let start = (address >> 4).wrapping_mul(0x9e37_79b9_7f4a_7c15_usize) >> (usize::BITS - 16);
    (0..CAPACITY).map(move |k| (start + k) & (CAPACITY - 1))
}

/// Records a new instance; false when [`MAX_LIVE`] instances are already live (or, which the
/// 16-byte alignment of instances rules out, the address has low bits set).
pub(crate) fn insert(address: usize, version: Version) -> bool {
    let mut live = WRITERS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if *live >= MAX_LIVE || address & VERSION_BITS != 0 || address == 0 {
        return false;
    }
    for slot in probe(address) {
        let current = ADDRESSES[slot].load(Ordering::Relaxed);
        if current == EMPTY || current == TOMBSTONE {
            ADDRESSES[slot].store(word(address, version), Ordering::Release);
            *live += 1;
            return true;
        }
    }
    false
}

/// The slot holding `address`, if it is live.
fn find(address: usize, version: Version) -> Option<usize> {
    if address & VERSION_BITS != 0 {
        return None;
    }
    let wanted = word(address, version);
    for slot in probe(address) {
        match ADDRESSES[slot].load(Ordering::Acquire) {
            EMPTY => return None,
            w if w == wanted => return Some(slot),
            _ => {}
        }
    }
    None
}

/// Whether `address` is a live instance created for `version`.
pub(crate) fn contains(address: usize, version: Version) -> bool {
    find(address, version).is_some()
}

/// Forgets an instance; returns whether it was live.
pub(crate) fn remove(address: usize, version: Version) -> bool {
    let mut live = WRITERS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let Some(slot) = find(address, version) else {
        return false;
    };
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

    #[cfg(feature = "fmi3")]
    #[test]
    fn fmi3_instances_are_kept_apart_from_fmi2_ones() {
        let (a, b) = ((1 << 41) + 32, (1 << 41) + 48);
        assert!(insert(a, Version::Fmi3));
        assert!(insert(b, Version::Fmi2));
        assert!(contains(a, Version::Fmi3) && !contains(a, Version::Fmi2));
        assert!(contains(b, Version::Fmi2) && !contains(b, Version::Fmi3));
        assert!(
            !remove(a, Version::Fmi2),
            "an FMI 2.0 free ignores an FMI 3.0 instance"
        );
        assert!(remove(a, Version::Fmi3));
        assert!(!remove(a, Version::Fmi3), "a second free is ignored");
        assert!(remove(b, Version::Fmi2));
    }
}
