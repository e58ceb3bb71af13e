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

/// The table.
pub struct Tt {
    slots: Vec<Entry>,
    mask: usize,
    age: u8,
}

/// Size of one slot in bytes.
pub const ENTRY_BYTES: u64 = std::mem::size_of::<Entry>() as u64;

impl Tt {
    /// A table of at most `bytes` bytes (a power of two of slots; at least 1024 slots).
    pub fn new(bytes: u64) -> Tt {
        let want = (bytes / ENTRY_BYTES).max(1024);
        let slots = 1usize << (63 - want.leading_zeros());
        Tt {
            slots: vec![Entry::default(); slots],
            mask: slots - 1,
            age: 0,
        }
    }

    /// Bytes used by the slots.
    pub fn bytes(&self) -> u64 {
        self.slots.len() as u64 * ENTRY_BYTES
    }

    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|e| *e = Entry::default());
        self.age = 0;
    }

    /// Marks the start of a new search (older entries are replaced first).
    pub fn new_search(&mut self) {
        self.age = self.age.wrapping_add(1);
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let e = self.slots[key as usize & self.mask];
        (e.key == key && e.bound != BOUND_NONE).then_some(e)
    }

    #[inline]
    pub fn store(&mut self, key: u64, value: i32, mv: Option<Idx>, depth: i32, bound: u8) {
        let age = self.age;
        let slot = &mut self.slots[key as usize & self.mask];
        if slot.key == key || slot.age != age || depth as i8 >= slot.depth || bound == BOUND_EXACT {
            let mv = match mv {
                Some(m) => m as u16,
                None if slot.key == key => slot.mv,
                None => u16::MAX,
            };
            *slot = Entry {
                key,
                value: value.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
                mv,
                depth: depth.clamp(-100, 100) as i8,
                bound,
                age,
            };
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
