//! Transposition table: buckets of slots. With one slot per bucket (the default, [`WAYS`]) an
//! entry replaces the slot's entry when that has the same key, is of an earlier search, is no
//! deeper, or the new one is exact. With more (knob `ttways`, up to 8; four 16-byte slots fill a
//! cache line) a new entry takes its own key's slot, else an empty one, else the least valuable
//! (the shallowest, entries of earlier searches first).
//!
//! Four-slot buckets were measured in the fifty-fifth session (docs/measurements.md): they need
//! about a tenth fewer nodes to reach depth 19 when the tree is 10 to 50 times the table, no
//! fewer at depth 17 (1 to 20 times), and scored 89-13-98 against one slot at 200 ms a move
//! with a table of 16 384 slots, so one slot stays the default.
//! Shared by the search threads (Lazy SMP) without locks.
//!
//! Values are stored relative to the node (mate scores adjusted by ply on the way in and out).

use super::zeroed::ZeroedSlice;
use crate::board::fast::Idx;
use std::sync::atomic::{AtomicU64, Ordering};

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

/// The table, shared by all search threads without locks.
///
/// A slot is two atomic words: the entry's data and its key XORed with the data. A reader
/// accepts a slot only when the key it recovers (first word XOR second word) is the one it
/// looks for, so a slot torn by two threads writing at once (one thread's key word with the
/// other's data word) reads as a miss instead of a wrong hit. Single-threaded, a slot holds the
/// same entry as a plain `(key, data)` pair would, so one thread searches exactly as before.
///
/// A new or cleared table is a [`ZeroedSlice`]: the operating system hands out zero pages
/// (ordinary 4 KiB pages, see [`super::zeroed`]) lazily, so creating or clearing even a large
/// table costs nothing until the search touches it (writing every `Entry::default()` cost
/// ~140 ms of the first move with Gomocup's 350 MiB limit). An all-zero slot decodes to key 0
/// with bound [`BOUND_NONE`], which never hits.
pub struct Tt {
    slots: ZeroedSlice<[AtomicU64; 2]>,
    /// Index of a key's bucket: `key & mask` (the low bits within a bucket are zero).
    mask: usize,
    /// Slots per bucket (a power of two).
    ways: usize,
    age: u8,
}

/// Slots per bucket by default (see the module documentation).
pub const WAYS: usize = 1;

/// How much less an entry of an earlier search is worth than one of this search, in plies of
/// depth, when a bucket's victim is chosen.
const STALE_PENALTY: i32 = 8;

/// Size of one slot in bytes.
pub const ENTRY_BYTES: u64 = 16;

impl Entry {
    /// The data word (everything but the key).
    #[inline]
    fn data(&self) -> u64 {
        (self.value as u16 as u64)
            | (self.mv as u64) << 16
            | (self.depth as u8 as u64) << 32
            | (self.bound as u64) << 40
            | (self.age as u64) << 48
    }

    #[inline]
    fn pack(&self) -> [u64; 2] {
        [self.key, self.data()]
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
    /// A table of at most `bytes` bytes (a power of two of slots; at least 1024 slots), with
    /// the buckets of this thread's knobs ([`super::alphabeta::Tuning::tt_ways`]).
    pub fn new(bytes: u64) -> Tt {
        Tt::with_ways(bytes, super::alphabeta::tuning().tt_ways)
    }

    /// A table of at most `bytes` bytes with `ways` slots per bucket (rounded down to a power
    /// of two, 1 to 8).
    pub fn with_ways(bytes: u64, ways: usize) -> Tt {
        let want = (bytes / ENTRY_BYTES).max(1024);
        let slots = 1usize << (63 - want.leading_zeros());
        let ways = 1usize << ways.clamp(1, 8).ilog2();
        Tt {
            slots: ZeroedSlice::new(slots),
            mask: (slots - 1) & !(ways - 1),
            ways,
            age: 0,
        }
    }

    /// Whether the whole table has been faulted in since it was created or cleared.
    pub fn is_faulted(&self) -> bool {
        self.slots.is_faulted()
    }

    /// Has the system back the pages of the table now, going on from where an earlier call
    /// stopped, until `deadline` (see [`ZeroedSlice::fault_in`]); returns whether the whole
    /// table is faulted in.
    pub fn fault_in(&self, deadline: Option<std::time::Instant>) -> bool {
        self.slots.fault_in(deadline)
    }

    /// Bytes used by the slots.
    pub fn bytes(&self) -> u64 {
        self.slots.len() as u64 * ENTRY_BYTES
    }

    /// Empties the table by replacing it with a fresh zeroed allocation (cheap, see [`Tt`]).
    pub fn clear(&mut self) {
        self.slots = ZeroedSlice::new(self.slots.len());
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
        let slot: *const [AtomicU64; 2] = &self.slots[self.bucket(key)];
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

    /// The entry in slot `i` as stored (key recovered from the XOR; a torn slot gives a wrong
    /// key).
    #[inline]
    fn load_at(&self, i: usize) -> Entry {
        let cell = &self.slots[i];
        let data = cell[1].load(Ordering::Relaxed);
        let keyx = cell[0].load(Ordering::Relaxed);
        Entry::unpack([keyx ^ data, data])
    }

    /// The first slot of `key`'s bucket.
    #[inline]
    fn bucket(&self, key: u64) -> usize {
        key as usize & self.mask
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let b = self.bucket(key);
        (b..b + self.ways)
            .map(|i| self.load_at(i))
            .find(|e| e.key == key && e.bound != BOUND_NONE)
    }

    /// Stores an entry; concurrent stores to one slot may interleave (the slot then reads as a
    /// miss, see [`Tt`]), never corrupt another slot.
    #[inline]
    pub fn store(&self, key: u64, value: i32, mv: Option<Idx>, depth: i32, bound: u8) {
        let age = self.age;
        let b = self.bucket(key);
        // The slot to write: the key's own, else the least valuable (an empty slot first). The
        // first slot always sets `at` and `slot` (every worth is below `i32::MAX`).
        let (mut at, mut slot, mut worth) = (b, Entry::default(), i32::MAX);
        for i in b..b + self.ways {
            let e = self.load_at(i);
            if e.key == key {
                (at, slot) = (i, e);
                break;
            }
            let w = if e.bound == BOUND_NONE {
                i32::MIN
            } else {
                e.depth as i32 - if e.age != age { STALE_PENALTY } else { 0 }
            };
            if w < worth {
                (at, slot, worth) = (i, e, w);
            }
        }
        if self.ways > 1
            || slot.key == key
            || slot.age != age
            || depth as i8 >= slot.depth
            || bound == BOUND_EXACT
        {
            let mv = match mv {
                Some(m) => m as u16,
                None if slot.key == key => slot.mv,
                None => u16::MAX,
            };
            let [k, data] = Entry {
                key,
                value: value.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
                mv,
                depth: depth.clamp(-100, 100) as i8,
                bound,
                age,
            }
            .pack();
            let cell = &self.slots[at];
            cell[0].store(k ^ data, Ordering::Relaxed);
            cell[1].store(data, Ordering::Relaxed);
        }
    }

    /// The slot holding `key`'s entry, if any (tests).
    #[cfg(test)]
    fn slot_of(&self, key: u64) -> Option<usize> {
        let b = self.bucket(key);
        (b..b + self.ways).find(|&i| self.load_at(i).key == key)
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
        assert_eq!(tt.bytes(), 1 << 16);
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

    #[test]
    fn a_bucket_keeps_its_deepest_entries_and_prefers_this_search() {
        // Five keys of one bucket (same low bits), stored at depths 5, 3, 9, 7 then 4.
        let keys: Vec<u64> = (1..=5u64).map(|i| (i << 40) | 0x40).collect();
        let mut tt = Tt::with_ways(1 << 16, 4);
        for (&k, d) in keys.iter().zip([5, 3, 9, 7]) {
            tt.store(k, d * 10, Some(d as Idx), d, BOUND_LOWER);
        }
        assert!(keys[..4].iter().all(|&k| tt.probe(k).is_some()));
        // The fifth replaces the shallowest (depth 3), even though it is shallower than the rest.
        tt.store(keys[4], 40, Some(4), 4, BOUND_UPPER);
        assert!(tt.probe(keys[1]).is_none());
        for &k in [keys[0], keys[2], keys[3], keys[4]].iter() {
            assert!(tt.slot_of(k).is_some() && tt.probe(k).is_some());
        }
        // A store of a stored key updates its own slot and keeps the move when given none.
        let at = tt.slot_of(keys[2]);
        tt.store(keys[2], -7, None, 2, BOUND_UPPER);
        let e = tt.probe(keys[2]).expect("still stored");
        assert_eq!(
            (tt.slot_of(keys[2]), e.value, e.mv, e.depth),
            (at, -7, 9, 2)
        );
        // In a new search an old entry is worth its depth less `STALE_PENALTY`.
        tt.new_search();
        tt.store(keys[1], 10, Some(1), 1, BOUND_EXACT);
        // Old entries: depths 5, 2, 7, 4 (worth -3, -6, -1, -4): the depth-2 one (keys[2]) went.
        assert!(tt.probe(keys[2]).is_none() && tt.probe(keys[1]).is_some());
        tt.store(6 << 40 | 0x40, 0, Some(0), 0, BOUND_UPPER);
        // Now: new depth 1 (worth 1) against old 5, 7, 4 (worth -3, -1, -4): keys[4] went.
        assert!(tt.probe(keys[4]).is_none() && tt.probe(keys[1]).is_some());
    }

    #[test]
    fn one_way_buckets_keep_the_old_replacement_rule() {
        let tt = Tt::with_ways(1 << 16, 1);
        let (a, b) = (0x10_0000_0040u64, 0x20_0000_0040u64);
        tt.store(a, 1, Some(1), 6, BOUND_LOWER);
        // A shallower, inexact entry of another key does not replace it within one search...
        tt.store(b, 2, Some(2), 5, BOUND_LOWER);
        assert!(tt.probe(a).is_some() && tt.probe(b).is_none());
        // ...an exact one does.
        tt.store(b, 2, Some(2), 5, BOUND_EXACT);
        assert!(tt.probe(a).is_none() && tt.probe(b).is_some());
    }

    #[test]
    fn a_torn_slot_reads_as_a_miss() {
        // Two keys of one slot; a torn slot holds one store's first word and the other's second.
        let (ka, kb) = (0x1234_5678_0000_0005u64, 0x9abc_def0_0000_0005u64);
        let words = |key: u64, value: i32, mv: Idx, depth: i32| {
            let tt = Tt::new(1024 * ENTRY_BYTES);
            tt.store(key, value, Some(mv), depth, BOUND_EXACT);
            let cell = &tt.slots[tt.slot_of(key).expect("stored")];
            [
                cell[0].load(Ordering::Relaxed),
                cell[1].load(Ordering::Relaxed),
            ]
        };
        let (a, b) = (words(ka, 100, 7, 3), words(kb, -250, 9, 5));
        let tt = Tt::new(1024 * ENTRY_BYTES);
        for torn in [[a[0], b[1]], [b[0], a[1]]] {
            let cell = &tt.slots[ka as usize & tt.mask];
            cell[0].store(torn[0], Ordering::Relaxed);
            cell[1].store(torn[1], Ordering::Relaxed);
            assert!(tt.probe(ka).is_none() && tt.probe(kb).is_none());
        }
        // Whole slots read back.
        for (k, w) in [(ka, a), (kb, b)] {
            let cell = &tt.slots[k as usize & tt.mask];
            cell[0].store(w[0], Ordering::Relaxed);
            cell[1].store(w[1], Ordering::Relaxed);
            assert_eq!(tt.probe(k).map(|e| e.key), Some(k));
        }
    }

    /// The entry a test thread stores for `key`: every field follows from the key, so a probe
    /// that returns fields of another key (a torn slot read as a hit) is caught.
    fn fields_of(key: u64) -> (i32, Idx, i32, u8) {
        let value = (key >> 20) as i32 % 20_000 - 10_000;
        let mv = (key >> 40) as usize % 4096;
        let depth = (key >> 52) as i32 % 60;
        let bound = 1 + (key >> 58) as u8 % 3;
        (value, mv, depth, bound)
    }

    #[test]
    fn concurrent_stores_and_probes_never_give_a_false_hit() {
        use crate::zobrist::SplitMix64;
        use std::sync::atomic::AtomicU64;
        const THREADS: u64 = 4;
        const KEYS: usize = 4096;
        const ROUNDS: usize = 500;
        // All keys share 4 slots (four buckets of one, or one of four): every slot is fought
        // over by all threads at once.
        for ways in [1, 4] {
            let tt = Tt::with_ways(1024 * ENTRY_BYTES, ways);
            let mut rng = SplitMix64(0x005e_ed77);
            let keys: Vec<u64> = (0..KEYS)
                .map(|i| (rng.next_u64() & !1023) | (i as u64 % 4))
                .collect();
            let hits = AtomicU64::new(0);
            std::thread::scope(|scope| {
                for t in 0..THREADS {
                    let (tt, keys, hits) = (&tt, &keys, &hits);
                    scope.spawn(move || {
                        let mut rng = SplitMix64(t);
                        for _ in 0..ROUNDS * KEYS / THREADS as usize {
                            let key = keys[rng.next_u64() as usize % KEYS];
                            let (value, mv, depth, bound) = fields_of(key);
                            tt.store(key, value, Some(mv), depth, bound);
                            let probed = keys[rng.next_u64() as usize % KEYS];
                            if let Some(e) = tt.probe(probed) {
                                let (value, mv, depth, bound) = fields_of(probed);
                                assert_eq!(
                                    (
                                        e.key,
                                        e.value as i32,
                                        e.mv as usize,
                                        e.depth as i32,
                                        e.bound
                                    ),
                                    (probed, value, mv, depth, bound),
                                    "a probe returned another key's entry"
                                );
                                hits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            }
                        }
                    });
                }
            });
            // Every key either reads back whole or misses; some do read back.
            assert!(hits.into_inner() > 0);
            let found = keys.iter().filter(|&&k| tt.probe(k).is_some()).count();
            assert!(found > 0 && found <= 4, "{found}");
        }
    }
}
