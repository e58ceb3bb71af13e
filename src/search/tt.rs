//! Transposition table: one entry per slot, replaced when the new search is deeper or newer.
//!
//! Values are stored relative to the node (mate scores adjusted by ply on the way in and out).

use crate::board::fast::Idx;

/// Bound type of a stored value.
pub const BOUND_NONE: u8 = 0;
pub const BOUND_UPPER: u8 = 1;
pub const BOUND_LOWER: u8 = 2;
pub const BOUND_EXACT: u8 = 3;

/// One slot, as the search sees it (stored packed in 16 bytes).
#[derive(Clone, Copy, Default, Debug)]
pub struct Entry {
    pub key: u64,
    pub value: i16,
    pub mv: u16,
    pub depth: i8,
    pub bound: u8,
    pub age: u8,
}

/// The table. Slots are stored packed as two `u64` words (key, data) so that a new or cleared
/// table is a zeroed allocation: the operating system hands out zero pages lazily, so creating or
/// clearing even a large table costs nothing until the search touches it (writing every
/// `Entry::default()` cost ~140 ms of the first move with Gomocup's 350 MiB limit).
pub struct Tt {
    slots: Vec<[u64; 2]>,
    mask: usize,
    age: u8,
}

/// Size of one slot in bytes.
pub const ENTRY_BYTES: u64 = 16;

impl Entry {
    #[inline]
    fn pack(&self) -> [u64; 2] {
        [
            self.key,
            (self.value as u16 as u64)
                | (self.mv as u64) << 16
                | (self.depth as u8 as u64) << 32
                | (self.bound as u64) << 40
                | (self.age as u64) << 48,
        ]
    }

    #[inline]
    fn unpack(w: [u64; 2]) -> Entry {
        Entry {
            key: w[0],
            value: w[1] as u16 as i16,
            mv: (w[1] >> 16) as u16,
            depth: (w[1] >> 32) as u8 as i8,
            bound: (w[1] >> 40) as u8,
            age: (w[1] >> 48) as u8,
        }
    }
}

impl Tt {
    /// A table of at most `bytes` bytes (a power of two of slots; at least 1024 slots).
    pub fn new(bytes: u64) -> Tt {
        let want = (bytes / ENTRY_BYTES).max(1024);
        let slots = 1usize << (63 - want.leading_zeros());
        Tt {
            slots: vec![[0u64; 2]; slots],
            mask: slots - 1,
            age: 0,
        }
    }

    /// Bytes used by the slots.
    pub fn bytes(&self) -> u64 {
        self.slots.len() as u64 * ENTRY_BYTES
    }

    /// Empties the table by replacing it with a fresh zeroed allocation (cheap, see [`Tt`]).
    pub fn clear(&mut self) {
        self.slots = vec![[0u64; 2]; self.slots.len()];
        self.age = 0;
    }

    /// Marks the start of a new search (older entries are replaced first).
    pub fn new_search(&mut self) {
        self.age = self.age.wrapping_add(1);
    }

    /// Asks the CPU to start loading the slot of `key` into the cache (a hint: no effect on
    /// results). The search calls it before making a move, so the child's probe rarely waits for
    /// memory.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        let slot: *const [u64; 2] = &self.slots[key as usize & self.mask];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `_mm_prefetch` is a hint that never faults and reads nothing into the program;
        // it is `unsafe` only because it is a `target_feature` function, and SSE is part of every
        // x86_64 target. The pointer comes from a live reference.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(slot.cast());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = slot;
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let e = Entry::unpack(self.slots[key as usize & self.mask]);
        (e.key == key && e.bound != BOUND_NONE).then_some(e)
    }

    #[inline]
    pub fn store(&mut self, key: u64, value: i32, mv: Option<Idx>, depth: i32, bound: u8) {
        let age = self.age;
        let cell = &mut self.slots[key as usize & self.mask];
        let slot = Entry::unpack(*cell);
        if slot.key == key || slot.age != age || depth as i8 >= slot.depth || bound == BOUND_EXACT {
            let mv = match mv {
                Some(m) => m as u16,
                None if slot.key == key => slot.mv,
                None => u16::MAX,
            };
            *cell = Entry {
                key,
                value: value.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
                mv,
                depth: depth.clamp(-100, 100) as i8,
                bound,
                age,
            }
            .pack();
        }
    }
}

/// Stores `value` (relative to the root) as relative to the node at `ply`.
#[inline]
pub fn value_to_tt(value: i32, ply: i32) -> i32 {
    use crate::types::Value;
    if value >= Value::MATE_BOUND.0 {
        value + ply
    } else if value <= -Value::MATE_BOUND.0 {
        value - ply
    } else {
        value
    }
}

#[inline]
pub fn value_from_tt(value: i32, ply: i32) -> i32 {
    use crate::types::Value;
    if value >= Value::MATE_BOUND.0 {
        value - ply
    } else if value <= -Value::MATE_BOUND.0 {
        value + ply
    } else {
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_survive_packing_and_probe_after_store() {
        for e in [
            Entry {
                key: 0xdead_beef_1234_5678,
                value: -29_990,
                mv: 1234,
                depth: -7,
                bound: BOUND_LOWER,
                age: 255,
            },
            Entry {
                key: u64::MAX,
                value: i16::MAX,
                mv: u16::MAX,
                depth: 100,
                bound: BOUND_EXACT,
                age: 0,
            },
        ] {
            let back = Entry::unpack(e.pack());
            assert_eq!(
                (back.key, back.value, back.mv, back.depth, back.bound, back.age),
                (e.key, e.value, e.mv, e.depth, e.bound, e.age)
            );
        }
        let mut tt = Tt::new(1 << 16);
        assert!(tt.probe(42).is_none());
        tt.store(42, -500, Some(17), 6, BOUND_UPPER);
        let e = tt.probe(42).expect("stored");
        assert_eq!(
            (e.value, e.mv, e.depth, e.bound),
            (-500, 17, 6, BOUND_UPPER)
        );
        tt.clear();
        assert!(tt.probe(42).is_none());
    }
}
