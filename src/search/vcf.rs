//! VCF: victory by continuous fours. The attacker (side to move) only plays moves that make a
//! four; the defender's reply is forced (the one cell that stops the five). A straight four, two
//! fours at once, or a forced reply that is a renju foul for black wins.
//!
//! Failures are cached by position hash and remaining depth so that transpositions (the same
//! fours in another order) are refuted once.

use crate::board::fast::{FastBoard, Idx};
use crate::board::pattern::Threat;
use std::sync::atomic::{AtomicU64, Ordering};

/// Cache of positions known to have no VCF within some number of attacker moves. A slot holds the
/// position key with its low 8 bits replaced by the depth, so a new or cleared cache is a zeroed
/// allocation (free until touched; see `search::tt::Tt`). Slots are single atomic words, so the
/// search threads share one cache without locks (a slot is always one thread's whole entry).
pub struct VcfCache {
    slots: Box<[AtomicU64]>,
    mask: usize,
}

const DEPTH_BITS: u64 = 0xff;

/// `n` zeroed slots, allocated zeroed (lazily paged) rather than written.
fn zeroed_slots(n: usize) -> Box<[AtomicU64]> {
    let slots = Box::<[AtomicU64]>::new_zeroed_slice(n);
    // SAFETY: an `AtomicU64` has the same in-memory representation as a `u64`, for which all
    // zero bits are a valid value.
    unsafe { slots.assume_init() }
}

impl VcfCache {
    /// A cache with `2^bits` slots.
    pub fn new(bits: u32) -> VcfCache {
        VcfCache {
            slots: zeroed_slots(1 << bits),
            mask: (1 << bits) - 1,
        }
    }

    pub fn clear(&mut self) {
        self.slots = zeroed_slots(self.slots.len());
    }

    #[inline]
    fn known_fail(&self, key: u64, depth: u8) -> bool {
        let s = self.slots[key as usize & self.mask].load(Ordering::Relaxed);
        s != 0 && (s & !DEPTH_BITS) == (key & !DEPTH_BITS) && (s & DEPTH_BITS) as u8 >= depth
    }

    #[inline]
    fn store_fail(&self, key: u64, depth: u8) {
        self.slots[key as usize & self.mask]
            .store((key & !DEPTH_BITS) | depth as u64, Ordering::Relaxed);
    }
}

/// The VCF search state for one call.
pub struct Vcf<'a> {
    pub cache: &'a VcfCache,
    pub nodes: u64,
    pub node_limit: u64,
    /// Optional clock: abort once `deadline` passes or the flag is set (checked every 256 nodes;
    /// renju nodes can be slow because of foul tests).
    pub deadline: Option<(std::time::Instant, &'a std::sync::atomic::AtomicBool)>,
}

impl Vcf<'_> {
    /// Whether the side to move wins by continuous fours within `depth` of its own moves. On
    /// success returns the number of plies to the five and fills `line` with the winning sequence
    /// (attacker and defender moves alternating, the five last).
    pub fn solve(&mut self, b: &mut FastBoard, depth: u32, line: &mut Vec<Idx>) -> Option<u32> {
        line.clear();
        self.attack(b, depth.min(250) as u8, line)
    }

    fn attack(&mut self, b: &mut FastBoard, depth: u8, line: &mut Vec<Idx>) -> Option<u32> {
        self.nodes += 1;
        if self.nodes.is_multiple_of(256) {
            if let Some((at, stop)) = self.deadline {
                if std::time::Instant::now() >= at
                    || stop.load(std::sync::atomic::Ordering::Relaxed)
                {
                    // Out of time: behave as if the node budget were spent.
                    self.node_limit = 0;
                }
            }
        }
        let me = b.side_to_move();
        let opp = me.opponent();
        // Step 1. A five now.
        if b.count(me, Threat::Five) > 0 {
            let f = b.cells_with(me, Threat::Five).next()?;
            line.push(f);
            return Some(1);
        }
        if depth == 0 || self.nodes > self.node_limit {
            return None;
        }
        let key = b.hash();
        if self.cache.known_fail(key, depth) {
            return None;
        }
        // Step 2. If the defender threatens five, the only playable four is the block.
        let opp_fives = b.count(opp, Threat::Five);
        let moves: Vec<Idx> = if opp_fives > 0 {
            let blocks: Vec<Idx> = b.cells_with(opp, Threat::Five).take(2).collect();
            if blocks.len() != 1 || b.threat(blocks[0], me) < Threat::Block4 {
                return None;
            }
            blocks
        } else {
            let mut v: Vec<(Idx, Threat, i32)> = b
                .cells_with(me, Threat::Block4)
                .map(|i| (i, b.threat(i, me), b.cell_score(i, me)))
                .collect();
            v.sort_by(|a, c| c.1.cmp(&a.1).then(c.2.cmp(&a.2)).then(a.0.cmp(&c.0)));
            v.into_iter().map(|x| x.0).collect()
        };
        let mut fives = Vec::with_capacity(4);
        let mut defences = Vec::with_capacity(4);
        // The winning line is built in place: a failed try truncates it back to `mark` (a deeper
        // call that fails leaves `line` as it found it).
        let mark = line.len();
        for m in moves {
            if !b.is_legal(m) {
                continue;
            }
            b.make(m);
            b.five_points_near(m, me, &mut fives);
            line.push(m);
            let mut result = None;
            if !fives.is_empty() {
                b.five_defences(&fives, &mut defences);
                defences.retain(|&d| b.is_legal(d));
                if defences.is_empty() {
                    // No legal answer stops every five: two ways to five, a block that is a renju
                    // foul for black, or (caro) no stone that stops or closes the five.
                    if fives.len() >= 2 {
                        line.push(fives[0]);
                        line.push(fives[1]);
                    }
                    result = Some(3);
                } else {
                    // Every defence must lose (outside caro there is exactly one); the line
                    // follows the first.
                    let mut worst = 0;
                    for (k, &d) in defences.iter().enumerate() {
                        let before = line.len();
                        b.make(d);
                        line.push(d);
                        let r = self.attack(b, depth - 1, line);
                        b.unmake();
                        if k > 0 {
                            line.truncate(before);
                        }
                        match r {
                            Some(n) => worst = worst.max(n + 2),
                            None => {
                                worst = 0;
                                break;
                            }
                        }
                    }
                    if worst > 0 {
                        result = Some(worst);
                    }
                }
            }
            b.unmake();
            if let Some(n) = result {
                return Some(n);
            }
            line.truncate(mark);
            if self.nodes > self.node_limit {
                return None;
            }
        }
        if self.nodes <= self.node_limit {
            self.cache.store_fail(key, depth);
        }
        None
    }
}
