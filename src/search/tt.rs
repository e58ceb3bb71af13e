//! Transposition table: one entry per slot, replaced when the new search is deeper or newer.
//!
//! Values are stored relative to the node (mate scores adjusted by ply on the way in and out).

use crate::board::fast::Idx;

/// Bound type of a stored value.
pub const BOUND_NONE: u8 = 0;
pub const BOUND_UPPER: u8 = 1;
pub const BOUND_LOWER: u8 = 2;
pub const BOUND_EXACT: u8 = 3;

/// One slot (16 bytes).
#[derive(Clone, Copy, Default, Debug)]
pub struct Entry {
    pub key: u64,
    pub value: i16,
    pub mv: u16,
    pub depth: i8,
    pub bound: u8,
    pub age: u8,
}

/// The table. Slots are stored packed as two words (key; value, move, depth, bound, age) so that
/// a new table is a zeroed allocation: the operating system maps pages lazily, and creating even a
/// large table costs nothing at the first move (GomocupJudge bills set-up to move 1).
pub struct Tt {
    slots: Vec<[u64; 2]>,
    mask: usize,
    age: u8,
}

#[inline]
fn pack(e: &Entry) -> [u64; 2] {
    [
        e.key,
        (e.value as u16 as u64)
            | (e.mv as u64) << 16
            | (e.depth as u8 as u64) << 32
            | (e.bound as u64) << 40
            | (e.age as u64) << 48,
    ]
}

#[inline]
fn unpack(s: [u64; 2]) -> Entry {
    let w = s[1];
    Entry {
        key: s[0],
        value: w as u16 as i16,
        mv: (w >> 16) as u16,
        depth: (w >> 32) as u8 as i8,
        bound: (w >> 40) as u8,
        age: (w >> 48) as u8,
    }
}

/// Size of one slot in bytes.
pub const ENTRY_BYTES: u64 = std::mem::size_of::<Entry>() as u64;

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

    pub fn clear(&mut self) {
        // A fresh zeroed allocation rather than writing every slot.
        let n = self.slots.len();
        self.slots = Vec::new();
        self.slots = vec![[0u64; 2]; n];
        self.age = 0;
    }

    /// Marks the start of a new search (older entries are replaced first).
    pub fn new_search(&mut self) {
        self.age = self.age.wrapping_add(1);
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let e = unpack(self.slots[key as usize & self.mask]);
        (e.key == key && e.bound != BOUND_NONE).then_some(e)
    }

    #[inline]
    pub fn store(&mut self, key: u64, value: i32, mv: Option<Idx>, depth: i32, bound: u8) {
        let age = self.age;
        let ix = key as usize & self.mask;
        let slot = unpack(self.slots[ix]);
        if slot.bound == BOUND_NONE
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
            self.slots[ix] = pack(&Entry {
                key,
                value: value.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
                mv,
                depth: depth.clamp(-100, 100) as i8,
                bound,
                age,
            });
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
    fn entries_round_trip_through_the_packed_slots() {
        let mut t = Tt::new(1 << 16);
        t.store(0xdead_beef_1234, -29_990, Some(777), -3, BOUND_LOWER);
        let e = t.probe(0xdead_beef_1234).unwrap();
        assert_eq!(
            (e.value, e.mv, e.depth, e.bound),
            (-29_990, 777, -3, BOUND_LOWER)
        );
        t.store(0xdead_beef_1234, 12, None, 7, BOUND_EXACT);
        let e = t.probe(0xdead_beef_1234).unwrap();
        assert_eq!((e.value, e.mv, e.depth, e.bound), (12, 777, 7, BOUND_EXACT));
        assert!(t.probe(0x1234).is_none());
        t.clear();
        assert!(t.probe(0xdead_beef_1234).is_none());
    }
}
