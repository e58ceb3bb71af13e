//! VCF: victory by continuous fours. The attacker (side to move) only plays moves that make a
//! four; the defender's reply is forced (the one cell that stops the five). A straight four, two
//! fours at once, or a forced reply that is a renju foul for black wins.
//!
//! Failures are cached by position hash and remaining depth so that transpositions (the same
//! fours in another order) are refuted once; the cache is looked up before a forced block is
//! played, so a block into a known failure is not played at all.

use super::zeroed::ZeroedSlice;
use crate::board::fast::{FastBoard, Idx};
use crate::board::pattern::Threat;
use crate::types::Color;
use std::sync::atomic::{AtomicU64, Ordering};

/// Cache of positions known to have no VCF within some number of attacker moves. A slot holds the
/// position key with its low 8 bits replaced by the depth, so a new or cleared cache is a zeroed
/// allocation (free until touched; see `search::tt::Tt`). Slots are single atomic words, so the
/// search threads share one cache without locks (a slot is always one thread's whole entry).
pub struct VcfCache {
    slots: ZeroedSlice<AtomicU64>,
    mask: usize,
}

const DEPTH_BITS: u64 = 0xff;

impl VcfCache {
    /// Whether the whole cache has been faulted in since it was created or cleared.
    pub fn is_faulted(&self) -> bool {
        self.slots.is_faulted()
    }

    /// Has the system back the pages of the cache now, going on from where an earlier call
    /// stopped, until `deadline` (see [`ZeroedSlice::fault_in`]); returns whether the whole
    /// cache is faulted in.
    pub fn fault_in(&self, deadline: Option<std::time::Instant>) -> bool {
        self.slots.fault_in(deadline)
    }

    /// Number of slots.
    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    /// A cache with `2^bits` slots.
    pub fn new(bits: u32) -> VcfCache {
        VcfCache {
            slots: ZeroedSlice::new(1 << bits),
            mask: (1 << bits) - 1,
        }
    }

    pub fn clear(&mut self) {
        self.slots = ZeroedSlice::new(self.slots.len());
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

/// Reusable buffers of the solvers, taken before and given back after each use (so nested calls
/// get buffers of their own): once warm, a search allocates nothing per node.
#[derive(Default)]
pub(crate) struct Scratch {
    cells: Vec<Vec<Idx>>,
    scored: Vec<Vec<(i32, Idx)>>,
}

impl Scratch {
    /// An empty cell list.
    pub(crate) fn cells(&mut self) -> Vec<Idx> {
        self.cells.pop().unwrap_or_default()
    }

    pub(crate) fn give_cells(&mut self, mut v: Vec<Idx>) {
        v.clear();
        self.cells.push(v);
    }

    /// An empty list of (ordering key, cell).
    pub(crate) fn scored(&mut self) -> Vec<(i32, Idx)> {
        self.scored.pop().unwrap_or_default()
    }

    pub(crate) fn give_scored(&mut self, mut v: Vec<(i32, Idx)>) {
        v.clear();
        self.scored.push(v);
    }
}

/// The number of empty cells where `c` has threat `t` or stronger: a scan of
/// [`FastBoard::cells_with`] finds no more, so it may stop after that many (and is skipped when
/// there are none).
#[inline]
pub(crate) fn count_at_least(b: &FastBoard, c: Color, t: Threat) -> usize {
    (t as u8..=Threat::Five as u8)
        .map(|v| b.count(c, Threat::from_u8(v)) as usize)
        .sum()
}

/// One ordering key for "stronger threat first, then higher score": a cell score is an `i16`
/// (sums of two stay within 2^17), so the threat can sit above bit 20.
#[inline]
pub(crate) fn order_key(t: Threat, score: i32) -> i32 {
    ((t as i32) << 20) + score
}

/// Sorts (key, cell) pairs by key, highest first, then by cell.
#[inline]
pub(crate) fn sort_by_key_desc(v: &mut [(i32, Idx)]) {
    v.sort_unstable_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
}

impl Vcf<'_> {
    /// Whether the side to move wins by continuous fours within `depth` of its own moves. On
    /// success returns the number of plies to the five and fills `line` with the winning sequence
    /// (attacker and defender moves alternating, the five last).
    pub fn solve(&mut self, b: &mut FastBoard, depth: u32, line: &mut Vec<Idx>) -> Option<u32> {
        line.clear();
        self.solve_onto(b, depth, line, &mut Scratch::default())
    }

    /// As [`Vcf::solve`], but the winning sequence is appended to `line` (left as it was on
    /// failure), and the buffers come from `scratch`.
    pub(crate) fn solve_onto(
        &mut self,
        b: &mut FastBoard,
        depth: u32,
        line: &mut Vec<Idx>,
        scratch: &mut Scratch,
    ) -> Option<u32> {
        self.attack(b, depth.min(250) as u8, line, scratch)
    }

    /// Counts a node, and every 256 nodes looks at the clock.
    #[inline]
    fn count_node(&mut self) {
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
    }

    fn attack(
        &mut self,
        b: &mut FastBoard,
        depth: u8,
        line: &mut Vec<Idx>,
        scratch: &mut Scratch,
    ) -> Option<u32> {
        self.count_node();
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
        let mut moves = scratch.scored();
        if opp_fives > 0 {
            let mut blocks = b.cells_with(opp, Threat::Five);
            if let (Some(f), None) = (blocks.next(), blocks.next()) {
                if b.threat(f, me) >= Threat::Block4 {
                    moves.push((0, f));
                }
            }
            if moves.is_empty() {
                scratch.give_scored(moves);
                return None;
            }
        } else {
            let fours = count_at_least(b, me, Threat::Block4);
            moves.extend(
                b.cells_with(me, Threat::Block4)
                    .take(fours)
                    .map(|i| (order_key(b.threat(i, me), b.cell_score(i, me)), i)),
            );
            sort_by_key_desc(&mut moves);
        }
        let result = if moves.is_empty() {
            None
        } else {
            self.try_fours(b, depth, &moves, line, scratch)
        };
        scratch.give_scored(moves);
        if result.is_none() && self.nodes <= self.node_limit {
            self.cache.store_fail(key, depth);
        }
        result
    }

    /// The attacker's fours `moves` in order, until one wins (see [`Vcf::attack`]).
    fn try_fours(
        &mut self,
        b: &mut FastBoard,
        depth: u8,
        moves: &[(i32, Idx)],
        line: &mut Vec<Idx>,
        scratch: &mut Scratch,
    ) -> Option<u32> {
        let me = b.side_to_move();
        let mut fives = scratch.cells();
        let mut defences = scratch.cells();
        // The winning line is built in place: a failed try truncates it back to `mark` (a deeper
        // call that fails leaves `line` as it found it).
        let mark = line.len();
        let mut won = None;
        for &(_, m) in moves {
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
                        line.push(d);
                        let r = if self.cache.known_fail(b.hash_after(d), depth - 1) {
                            // The attacker has no five after the block, so the node there would
                            // only count itself and fail (by depth, nodes or this cache entry):
                            // the block need not be played.
                            self.count_node();
                            None
                        } else {
                            b.make(d);
                            let r = self.attack(b, depth - 1, line, scratch);
                            b.unmake();
                            r
                        };
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
            if result.is_some() {
                won = result;
                break;
            }
            line.truncate(mark);
            if self.nodes > self.node_limit {
                break;
            }
        }
        scratch.give_cells(fives);
        scratch.give_cells(defences);
        won
    }
}
