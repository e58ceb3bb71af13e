//! VCT: victory by continuous threats. The attacker (side to move) plays fours and threes (moves
//! after which it threatens a straight four); the defender's relevant replies are all generated
//! and every one of them must lose.
//!
//! Soundness comes before reach: a returned win is a forced win, every defender reply that is not
//! searched provably loses at once.
//!
//! * After an attacker four (the attacker has a five point) the defender's replies are the legal
//!   cells after which the attacker has no five point left (none: the attacker wins).
//! * After an attacker three (no five point, but a *safe* straight-four point: a cell where the
//!   attacker makes a straight four or two fours that the defender cannot stop) the defender's
//!   replies are (a) every legal four of its own (a counter-threat the attacker must block; its
//!   own three is no answer) and (b) every legal cell within five steps of a safe straight-four
//!   point on a line where that point makes a four (the only cells that can undo the four) after
//!   which the attacker has no safe straight-four point left. Any other reply leaves a safe straight-four
//!   point and no defender five: the attacker plays it and wins.
//! * A straight-four point of renju black is safe only when its legality follows from its line
//!   patterns alone (no second line holding a three or four); the recursive double-three test
//!   could otherwise change its verdict through stones far away.
//! * Caro: a five closed by the defender's stones at both ends does not win, so one defender
//!   stone can stop two five points (it fills one and closes the other's far end). A caro
//!   straight-four point is safe only when, with the attacker's stone on it, no single stone
//!   takes every five point away (tried on the board, [`FastBoard::five_defences`]), and the
//!   replies to a three are tried on the board too. The defences of a four are the stones
//!   `five_defences` finds (the five point, or a stone that closes the five's far end).
//!
//! Whether a reply is relevant is read from the line patterns where they decide it (see
//! `Vct::three_defences`), else tried on the board; the answers are the same either way.
//!
//! At every attacker node the VCF solver runs first (fours only, cheap). Threes are bounded
//! separately from the total number of attacker moves, and the root deepens on threes, so short
//! wins are found first. Failures are cached by position hash, remaining depth and threes.

use crate::board::fast::{FastBoard, Idx};
use crate::board::pattern::{Pattern, Threat, HALF};
use crate::search::vcf::{count_at_least, order_key, sort_by_key_desc, Scratch, Vcf, VcfCache};
use crate::types::{Color, Rule};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Cache of attacker positions known to have no VCT within some number of attacker moves and
/// threes, plus the VCF failure cache of the solver's inner VCF calls. A slot holds the position
/// key with its low 8 bits replaced by depth (5 bits) and threes (3 bits), so a new or cleared
/// cache is a zeroed allocation (free until touched; see `search::tt::Tt`). It also keeps the
/// solver's scratch buffers, so that the many short calls of a search allocate nothing.
pub struct VctCache {
    slots: Vec<u64>,
    mask: usize,
    vcf: VcfCache,
    scratch: Scratch,
}

const LOW_BITS: u64 = 0xff;
/// Largest depth and threes a cache slot can hold.
const MAX_CACHED_DEPTH: u8 = 31;
const MAX_CACHED_THREES: u8 = 7;

impl VctCache {
    /// A cache with `2^bits` slots (and a VCF cache of the same size).
    pub fn new(bits: u32) -> VctCache {
        VctCache {
            slots: vec![0; 1 << bits],
            mask: (1 << bits) - 1,
            vcf: VcfCache::new(bits),
            scratch: Scratch::default(),
        }
    }

    /// Number of slots (its inner VCF cache has as many).
    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    pub fn clear(&mut self) {
        self.slots = vec![0; self.slots.len()];
        self.vcf.clear();
    }

    #[inline]
    fn known_fail(&self, key: u64, depth: u8, threes: u8) -> bool {
        let s = self.slots[key as usize & self.mask];
        let (d, t) = ((s & 0x1f) as u8, ((s >> 5) & 7) as u8);
        s != 0 && (s & !LOW_BITS) == (key & !LOW_BITS) && d >= depth && t >= threes
    }

    #[inline]
    fn store_fail(&mut self, key: u64, depth: u8, threes: u8) {
        if depth > MAX_CACHED_DEPTH || threes > MAX_CACHED_THREES {
            return;
        }
        self.slots[key as usize & self.mask] =
            (key & !LOW_BITS) | depth as u64 | ((threes as u64) << 5);
    }
}

/// The VCT search state for one call.
pub struct Vct<'a> {
    pub cache: &'a mut VctCache,
    pub nodes: u64,
    pub node_limit: u64,
    /// Node cap of each inner VCF call.
    pub vcf_nodes: u64,
    /// Optional clock: abort once `deadline` passes or the flag is set (checked every 256 nodes).
    pub deadline: Option<(Instant, &'a AtomicBool)>,
    aborted: bool,
    next_check: u64,
}

/// Node cap of each inner VCF call unless the caller sets another.
pub const DEFAULT_VCF_NODES: u64 = 2_000;

impl<'a> Vct<'a> {
    pub fn new(
        cache: &'a mut VctCache,
        node_limit: u64,
        deadline: Option<(Instant, &'a AtomicBool)>,
    ) -> Vct<'a> {
        Vct {
            cache,
            nodes: 0,
            node_limit,
            vcf_nodes: DEFAULT_VCF_NODES,
            deadline,
            aborted: false,
            next_check: 256,
        }
    }

    /// Whether the last `solve` ran out of nodes or time (a `None` then means "unknown").
    pub fn aborted(&self) -> bool {
        self.aborted
    }

    /// Whether the side to move wins by continuous threats within `depth` of its own moves, at
    /// most `threes` of them threes. On success returns the number of plies to the five and fills
    /// `line` with one main line (attacker and defender moves alternating; it may stop before the
    /// five where the rest is forced).
    pub fn solve(
        &mut self,
        b: &mut FastBoard,
        depth: u32,
        threes: u32,
        line: &mut Vec<Idx>,
    ) -> Option<u32> {
        line.clear();
        self.aborted = false;
        let depth = depth.min(200) as u8;
        for t in 1..=threes.min(MAX_CACHED_THREES as u32) as u8 {
            line.clear();
            if let Some(n) = self.attack(b, depth, t, line) {
                return Some(n);
            }
            if self.aborted {
                break;
            }
        }
        line.clear();
        None
    }

    /// Marks the current search as ended by its budget (a caller's own limit ran out).
    pub(super) fn set_aborted(&mut self) {
        self.aborted = true;
    }

    pub(super) fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes > self.node_limit {
            self.aborted = true;
        }
        if self.nodes >= self.next_check {
            self.next_check = self.nodes + 256;
            if let Some((at, stop)) = self.deadline {
                if Instant::now() >= at || stop.load(Ordering::Relaxed) {
                    self.aborted = true;
                }
            }
        }
        self.aborted
    }

    /// The inner VCF run of an attacker node (the side to move, the defender without a five
    /// point) within `depth` attacker moves and what is left of the node budget; a win is
    /// appended to `line`.
    pub(super) fn inner_vcf(
        &mut self,
        b: &mut FastBoard,
        depth: u32,
        line: &mut Vec<Idx>,
    ) -> Option<u32> {
        let mut vcf = Vcf {
            cache: &self.cache.vcf,
            nodes: 0,
            node_limit: self
                .vcf_nodes
                .min(self.node_limit.saturating_sub(self.nodes)),
            deadline: self.deadline,
        };
        let r = vcf.solve_onto(b, depth, line, &mut self.cache.scratch);
        self.nodes += vcf.nodes;
        r
    }

    /// The attacker's (side to move's) moves with their ordering keys, strongest first: the
    /// stones that stop every five point of the defender if it has one (its only five point, or
    /// in caro also a stone that closes a five's far end; one stone may stop two), else every
    /// four and three. Legality is not tested.
    pub(super) fn attack_moves(&mut self, b: &mut FastBoard, moves: &mut Vec<(i32, Idx)>) {
        let me = b.side_to_move();
        let opp = me.opponent();
        if b.count(opp, Threat::Five) > 0 {
            let mut points = self.cache.scratch.cells();
            let mut stops = self.cache.scratch.cells();
            points.extend(b.cells_with(opp, Threat::Five));
            b.five_defences(&points, &mut stops);
            moves.extend(stops.iter().map(|&r| (0, r)));
            self.cache.scratch.give_cells(points);
            self.cache.scratch.give_cells(stops);
        } else {
            moves.extend(
                b.cells_with(me, Threat::Flex3)
                    .take(count_at_least(b, me, Threat::Flex3))
                    .map(|i| {
                        let score = b.cell_score(i, me) + b.cell_score(i, opp);
                        (order_key(b.threat(i, me), score), i)
                    }),
            );
            sort_by_key_desc(moves);
        }
    }

    /// Attacker (side to move) node. The main line is built in place: a win appends it to
    /// `line`, a failure leaves `line` as it found it.
    fn attack(
        &mut self,
        b: &mut FastBoard,
        depth: u8,
        threes: u8,
        line: &mut Vec<Idx>,
    ) -> Option<u32> {
        if self.tick() {
            return None;
        }
        let me = b.side_to_move();
        let opp = me.opponent();
        // Step 1. A five now.
        if b.count(me, Threat::Five) > 0 {
            let f = b.cells_with(me, Threat::Five).next()?;
            line.push(f);
            return Some(1);
        }
        let opp_fives = b.count(opp, Threat::Five);
        // Step 2. Continuous fours first: cheap, and often enough.
        if opp_fives == 0 {
            let r = self.inner_vcf(b, depth as u32, line);
            if r.is_some() {
                return r;
            }
            if threes == 0 {
                return None;
            }
        }
        if depth == 0 {
            return None;
        }
        let key = b.hash();
        if self.cache.known_fail(key, depth, threes) {
            return None;
        }
        // Step 3. The moves: the block of the defender's four (which must keep a threat), or
        // every four and three, strongest first.
        let mut moves = self.cache.scratch.scored();
        self.attack_moves(b, &mut moves);
        if opp_fives > 0 && moves.is_empty() {
            self.cache.scratch.give_scored(moves);
            return None;
        }
        let mark = line.len();
        let mut won = None;
        for &(_, m) in &moves {
            if !b.is_legal(m) {
                continue;
            }
            // A three (not a four, not a block) spends one of the threes.
            let is_three = opp_fives == 0 && b.threat(m, me) < Threat::Block4;
            b.make(m);
            line.push(m);
            let r = self.defend(b, depth - 1, threes, is_three, line);
            b.unmake();
            if let Some(n) = r {
                won = Some(n + 1);
                break;
            }
            line.truncate(mark);
            if self.aborted {
                break;
            }
        }
        self.cache.scratch.give_scored(moves);
        if won.is_none() && !self.aborted {
            self.cache.store_fail(key, depth, threes);
        }
        won
    }

    /// Defender (side to move) node after the attacker's move: plies to the attacker's five if
    /// every relevant reply loses. On success the main line (the longest defence) is appended to
    /// `line`; a failure leaves `line` as it found it.
    fn defend(
        &mut self,
        b: &mut FastBoard,
        depth: u8,
        threes: u8,
        spends_three: bool,
        line: &mut Vec<Idx>,
    ) -> Option<u32> {
        if self.tick() {
            return None;
        }
        let mut replies = self.cache.scratch.scored();
        let r = match self.replies(b, threes, spends_three, &mut replies) {
            None => None,
            // Step 3. No relevant reply: the attacker's threat goes through.
            Some(_) if replies.is_empty() => {
                Some(if b.count(b.side_to_move().opponent(), Threat::Five) > 0 {
                    2
                } else {
                    4
                })
            }
            Some(next_threes) => {
                // Step 4. Every reply must lose; the most promising defences are tried first.
                sort_by_key_desc(&mut replies);
                self.refute_all(b, depth, next_threes, &replies, line)
                    .map(|n| n + 1)
            }
        };
        self.cache.scratch.give_scored(replies);
        r
    }

    /// Steps 1 and 2 of [`Vct::defend`]: fills `replies` with the defender's relevant replies and
    /// their ordering scores, and returns the threes the attacker has left after them; `None`
    /// when the attacker's move is no win (the defender has a five, the attacker no threat, or
    /// the move was a three with none to spend).
    pub(super) fn replies(
        &mut self,
        b: &mut FastBoard,
        threes: u8,
        spends_three: bool,
        replies: &mut Vec<(i32, Idx)>,
    ) -> Option<u8> {
        let d = b.side_to_move();
        let a = d.opponent();
        // Step 1. The defender wins first.
        if b.count(d, Threat::Five) > 0 {
            return None;
        }
        // Step 2. The relevant replies.
        if b.count(a, Threat::Five) > 0 {
            let mut points = self.cache.scratch.cells();
            let mut stops = self.cache.scratch.cells();
            points.extend(b.cells_with(a, Threat::Five));
            b.five_defences(&points, &mut stops);
            for &r in &stops {
                if b.is_legal(r) {
                    replies.push((0, r));
                }
            }
            self.cache.scratch.give_cells(points);
            self.cache.scratch.give_cells(stops);
            return Some(threes);
        }
        let mut safe = self.cache.scratch.cells();
        safe_straight_four_points(b, a, &mut safe);
        let next_threes = if safe.is_empty() {
            None
        } else if spends_three {
            threes.checked_sub(1)
        } else {
            Some(threes)
        };
        if next_threes.is_some() {
            self.three_defences(b, &safe, replies);
        }
        self.cache.scratch.give_cells(safe);
        next_threes
    }

    /// The defender's relevant replies (with their ordering scores) to an attacker without a
    /// five point whose safe straight-four points are `safe` (not empty): every legal cell after
    /// which the defender has a five point or the attacker no safe straight-four point, among the
    /// defender's fours and the cells that can undo a four at a point of `safe`.
    ///
    /// Most candidates are decided without a move on the board: a defender stone leaves a five
    /// point exactly when it makes a four (the defender had none), and a stone out of reach of
    /// some point of `safe`
    /// (not on it, not within [`HALF`] steps of it along a line) leaves that point's line keys,
    /// so its patterns and whether it is safe, unchanged (a renju black point is safe by its
    /// patterns alone).
    fn three_defences(&mut self, b: &mut FastBoard, safe: &[Idx], replies: &mut Vec<(i32, Idx)>) {
        let d = b.side_to_move();
        let a = d.opponent();
        let mut cand = self.cache.scratch.cells();
        cand.extend(b.cells_with(d, Threat::Block4));
        for &f in safe {
            cand.push(f);
            // Only a stone on a line where `f` makes a four can undo that four (a stone on
            // another line only lowers that line's pattern; for renju black it cannot add a
            // three either).
            for dir in 0..4 {
                if b.pattern(f, a, dir) < Pattern::Block4 {
                    continue;
                }
                let off = b.dirs[dir];
                for k in 1..=5isize {
                    for s in [-1isize, 1] {
                        let q = (f as isize + s * k * off) as usize;
                        if b.is_empty(q) {
                            cand.push(q);
                        }
                    }
                }
            }
        }
        cand.sort_unstable();
        cand.dedup();
        let stride = b.stride();
        // Outside renju black the safe points are all the attacker's straight-four points, and a
        // defender stone only lowers the attacker's line patterns (it takes an empty cell of the
        // line, adds no attacker stone), so it creates none: a reply is relevant exactly when it
        // takes or breaks every point of `safe`. Renju black's points are tried on the board (a
        // white stone can turn a forbidden double four into a safe straight four).
        // Caro's points are tried too: a stone that closes the far end of one five makes a
        // straight four stoppable by one stone.
        let by_patterns = (b.rule() != Rule::Renju || a != Color::Black)
            && !matches!(b.rule(), Rule::Caro { .. });
        let mut scratch = self.cache.scratch.cells();
        for &r in &cand {
            let four = b.threat(r, d) >= Threat::Block4;
            // Cheapest first: a point of `safe` out of reach makes `r` irrelevant, legal or not.
            if !four && safe.iter().any(|&f| !in_reach(stride, r, f)) {
                debug_assert!(!relevant_by_move(b, r, &mut scratch) || !b.is_legal(r));
                continue;
            }
            if !b.is_legal(r) {
                continue;
            }
            let relevant = four
                || if by_patterns {
                    safe.iter()
                        .all(|&f| f == r || b.threat_if_blocked(f, a, r) < Threat::Flex4)
                } else {
                    relevant_by_move(b, r, &mut scratch)
                };
            debug_assert_eq!(relevant, relevant_by_move(b, r, &mut scratch));
            if relevant {
                replies.push((b.cell_score(r, d) + b.cell_score(r, a), r));
            }
        }
        self.cache.scratch.give_cells(cand);
        self.cache.scratch.give_cells(scratch);
    }

    /// Step 4 of [`Vct::defend`]: whether every one of `replies` (ordered) loses; if so, the plies
    /// to the five after the longest defence, whose line is appended to `line`.
    fn refute_all(
        &mut self,
        b: &mut FastBoard,
        depth: u8,
        threes: u8,
        replies: &[(i32, Idx)],
        line: &mut Vec<Idx>,
    ) -> Option<u32> {
        let mark = line.len();
        let mut best_line = self.cache.scratch.cells();
        let mut best: Option<u32> = None;
        for &(_, r) in replies {
            b.make(r);
            line.push(r);
            let res = self.attack(b, depth, threes, line);
            b.unmake();
            let Some(n) = res else {
                best = None;
                break;
            };
            if best.is_none_or(|bn| n > bn) {
                best = Some(n);
                best_line.clear();
                best_line.extend_from_slice(&line[mark..]);
            }
            line.truncate(mark);
        }
        line.truncate(mark);
        if best.is_some() {
            line.extend_from_slice(&best_line);
        }
        self.cache.scratch.give_cells(best_line);
        best
    }
}

/// Whether a stone on `r` changes the line keys of the cell `f`: `f` is `r`, or lies within
/// [`HALF`] steps of it along one of the four lines (padded indices, so no line wraps).
#[inline]
fn in_reach(stride: usize, r: Idx, f: Idx) -> bool {
    let dx = (f % stride) as isize - (r % stride) as isize;
    let dy = (f / stride) as isize - (r / stride) as isize;
    (dx == 0 || dy == 0 || dx.abs() == dy.abs()) && dx.abs().max(dy.abs()) <= HALF as isize
}

/// Whether the defender's (side to move's) stone on the empty cell `r` is a relevant reply to an
/// attacker's three: afterwards the defender has a five point or the attacker no safe
/// straight-four point (tried on the board).
fn relevant_by_move(b: &mut FastBoard, r: Idx, scratch: &mut Vec<Idx>) -> bool {
    let d = b.side_to_move();
    b.make(r);
    let relevant =
        b.count(d, Threat::Five) > 0 || !has_safe_straight_four(b, d.opponent(), scratch);
    b.unmake();
    relevant
}

/// Whether `a` has a safe straight-four point (see [`safe_straight_four_points`]).
fn has_safe_straight_four(b: &mut FastBoard, a: Color, scratch: &mut Vec<Idx>) -> bool {
    if b.rule() == Rule::Renju && a == Color::Black {
        straight_four_points(b, a, scratch);
        scratch.iter().any(|&f| safe_for_black(b, f))
    } else if matches!(b.rule(), Rule::Caro { .. }) {
        straight_four_points(b, a, scratch);
        scratch.iter().any(|&f| safe_for_caro(b, f, a))
    } else {
        b.count(a, Threat::Flex4) > 0
    }
}

/// Fills `out` with the empty cells where `a` has threat `Flex4`, in scan order.
fn straight_four_points(b: &FastBoard, a: Color, out: &mut Vec<Idx>) {
    out.clear();
    out.extend(
        b.cells_with(a, Threat::Flex4)
            .filter(|&f| b.threat(f, a) == Threat::Flex4)
            .take(b.count(a, Threat::Flex4) as usize),
    );
}

/// Whether renju black's straight-four point `f` is safe: no line but the four's holds a three
/// or four, and `f` is legal (which then follows from its line patterns alone).
fn safe_for_black(b: &mut FastBoard, f: Idx) -> bool {
    let lines = (0..4)
        .filter(|&dir| (Pattern::Flex3..=Pattern::Flex4).contains(&b.pattern(f, Color::Black, dir)))
        .count();
    lines < 2 && !b.is_forbidden(f)
}

/// Whether caro's straight-four (or double-four) point `f` of `a` is safe: with `a`'s stone on
/// it, `a` has a five point and no single stone of the opponent takes every one away. Two five
/// points are not always two threats in caro: a stone on one of them may close the other's five
/// at its far end.
fn safe_for_caro(b: &mut FastBoard, f: Idx, a: Color) -> bool {
    let pass = b.side_to_move() != a;
    if pass {
        b.make_null();
    }
    b.make(f);
    // Buffers kept per thread: this runs for every caro straight-four point the solver meets.
    let safe = CARO_SCRATCH.with(|cell| {
        let (points, stops) = &mut *cell.borrow_mut();
        points.clear();
        points.extend(b.cells_with(a, Threat::Five));
        if points.is_empty() {
            return false;
        }
        b.five_defences(points, stops);
        stops.is_empty()
    });
    b.unmake();
    if pass {
        b.unmake_null();
    }
    safe
}

thread_local! {
    /// The five points and their stops of [`safe_for_caro`].
    static CARO_SCRATCH: std::cell::RefCell<(Vec<Idx>, Vec<Idx>)> = const {
        std::cell::RefCell::new((Vec::new(), Vec::new()))
    };
}

/// The empty cells where `a` (not necessarily to move) makes a straight four or double four that
/// is sure to win when the opponent has no five: any such cell, except for renju black, where the
/// cell must be legal and no line other than the four's may hold a three or four (so that its
/// legality depends on its line patterns only), and in caro, where no single stone may stop
/// the fives it makes (see [`safe_for_caro`]).
pub fn safe_straight_four_points(b: &mut FastBoard, a: Color, out: &mut Vec<Idx>) {
    straight_four_points(b, a, out);
    if b.rule() == Rule::Renju && a == Color::Black {
        out.retain(|&f| safe_for_black(b, f));
    } else if matches!(b.rule(), Rule::Caro { .. }) {
        out.retain(|&f| safe_for_caro(b, f, a));
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::pos::Pos;
    use rand::{Rng, SeedableRng};
    use std::sync::atomic::AtomicBool;

    /// A board from a picture (`X` black, `O` white, anything else empty; row 0 first), stones
    /// played alternately (black first), so black must have as many stones as white or one more.
    pub(crate) fn board(rule: Rule, rows: &[&str]) -> FastBoard {
        let mut b = FastBoard::new(15, 15, rule).unwrap();
        let mut blacks = Vec::new();
        let mut whites = Vec::new();
        for (y, row) in rows.iter().enumerate() {
            for (x, ch) in row.chars().enumerate() {
                let i = b.idx(Pos::new(x as u8, y as u8));
                match ch {
                    'X' => blacks.push(i),
                    'O' => whites.push(i),
                    _ => {}
                }
            }
        }
        assert!(blacks.len() == whites.len() || blacks.len() == whites.len() + 1);
        for (k, &x) in blacks.iter().enumerate() {
            b.make(x);
            if let Some(&w) = whites.get(k) {
                b.make(w);
            }
        }
        b
    }

    fn at(b: &FastBoard, x: u8, y: u8) -> Idx {
        b.idx(Pos::new(x, y))
    }

    fn solve(b: &mut FastBoard, threes: u32, nodes: u64) -> (Option<u32>, Vec<Idx>, bool) {
        solve_depth(b, DEPTH, threes, nodes)
    }

    /// Attacker moves the tests allow.
    const DEPTH: u32 = 12;

    fn solve_depth(
        b: &mut FastBoard,
        depth: u32,
        threes: u32,
        nodes: u64,
    ) -> (Option<u32>, Vec<Idx>, bool) {
        let mut cache = VctCache::new(16);
        let mut vct = Vct::new(&mut cache, nodes, None);
        let mut line = Vec::new();
        let r = vct.solve(b, depth, threes, &mut line);
        (r, line, vct.aborted())
    }

    pub(crate) fn has_vcf(b: &mut FastBoard) -> bool {
        let mut cache = VcfCache::new(16);
        let mut vcf = Vcf {
            cache: &mut cache,
            nodes: 0,
            node_limit: 100_000,
            deadline: None,
        };
        vcf.solve(b, 20, &mut Vec::new()).is_some()
    }

    /// Slow check that the side to move wins within `depth` attacker moves (the five not
    /// counted): the solver names the attacker's move, and the defender tries every legal empty
    /// cell within `margin` of the stones; the attacker's continuation is re-solved after each.
    /// Only a five on the board (or every defender reply leading to one) counts.
    fn proves(b: &mut FastBoard, depth: u32, margin: i32, calls: &mut u64) -> bool {
        let a = b.side_to_move();
        let d = a.opponent();
        if b.count(a, Threat::Five) > 0 {
            return true;
        }
        if depth == 0 {
            return false;
        }
        *calls += 1;
        let (r, line, _) = solve_depth(b, depth, 3, 200_000);
        let Some(n) = r else { return false };
        if line.is_empty() || !b.is_legal(line[0]) {
            return false;
        }
        b.make(line[0]);
        let replies: Vec<Idx> = b.area(margin).filter(|&i| b.is_empty(i)).collect();
        let mut ok = true;
        for r in replies {
            if !b.is_legal(r) {
                continue;
            }
            if b.is_five(r, d) {
                ok = false;
                break;
            }
            b.make(r);
            // The claim bounds the rest: `n` plies from the attacker's move (the five
            // included) leave `n - 2` after this reply, of which at most `(n - 3) / 2`
            // attacker moves before the five.
            ok = proves(b, (depth - 1).min(n.saturating_sub(3) / 2), margin, calls);
            b.unmake();
            if !ok {
                eprintln!(
                    "refuted: {:?} answered by {:?} ({n} plies claimed)",
                    b.pos(line[0]),
                    b.pos(r)
                );
                break;
            }
        }
        b.unmake();
        ok
    }

    /// Black to move makes a double three at 7,7 (white's stones are far away).
    pub(crate) const DOUBLE_THREE: [&str; 15] = [
        "O.O............",
        "...............",
        "O..............",
        "...............",
        "...............",
        ".......X.......",
        ".......X.......",
        ".....XX........",
        "...............",
        "...............",
        "...............",
        "...............",
        "...............",
        "...............",
        "..............O",
    ];

    #[test]
    fn double_three_wins_and_is_no_vcf() {
        let rows = DOUBLE_THREE;
        for rule in [Rule::Freestyle, Rule::Exact, CARO] {
            let mut b = board(rule, &rows);
            assert!(!has_vcf(&mut b));
            let (r, line, aborted) = solve(&mut b, 1, 100_000);
            assert!(!aborted);
            assert!(r.is_some(), "{rule}: the double three wins");
            assert_eq!(r.unwrap() % 2, 1, "an attacker's five ends the line");
            assert!(proves(&mut b, DEPTH, 2, &mut 0), "{rule}: {line:?}");
        }
        // Renju: black's double three is a foul; a win, if any, starts elsewhere.
        let mut b = board(Rule::Renju, &rows);
        let foul = at(&b, 7, 7);
        assert!(b.is_forbidden(foul));
        let (r, line, _) = solve(&mut b, 3, 400_000);
        if r.is_some() {
            assert_ne!(line[0], foul);
            assert!(proves(&mut b, DEPTH, 2, &mut 0), "renju black: {line:?}");
        }
    }

    #[test]
    fn renju_white_double_three_wins() {
        let rows = [
            "X.X............",
            "...............",
            "X..............",
            "...............",
            "...............",
            ".......O.......",
            ".......O.......",
            ".....OO........",
            "...............",
            "...............",
            "...............",
            "...............",
            "...............",
            "..............X",
            "..............X",
        ];
        let mut b = board(Rule::Renju, &rows);
        assert_eq!(b.side_to_move(), Color::White);
        let (r, line, _) = solve(&mut b, 1, 100_000);
        assert!(r.is_some());
        assert!(proves(&mut b, DEPTH, 2, &mut 0), "{line:?}");
    }

    #[test]
    fn counter_four_refutes_the_double_three() {
        // As above, but white has an open three: any black three is answered by a straight four.
        let rows = [
            "...............",
            "...............",
            "...............",
            "...OOO.........",
            "...............",
            ".......X.......",
            ".......X.......",
            ".....XX........",
            "...............",
            "...............",
            "...............",
            "...............",
            "...............",
            "...............",
            "..............O",
        ];
        let mut b = board(Rule::Freestyle, &rows);
        assert_eq!(b.side_to_move(), Color::Black);
        let (r, line, aborted) = solve(&mut b, 3, 400_000);
        assert!(!aborted);
        assert!(r.is_none(), "{line:?}");
        // With the white three blocked at one end, the counter-four only delays the win.
        let rows2: Vec<String> = rows
            .iter()
            .enumerate()
            .map(|(y, r)| {
                if y == 3 {
                    "..XOOO.........".to_string()
                } else if y == 0 {
                    "..............O".to_string()
                } else {
                    r.to_string()
                }
            })
            .collect();
        let rows2: Vec<&str> = rows2.iter().map(String::as_str).collect();
        let mut b = board(Rule::Freestyle, &rows2);
        let (r, line, _) = solve(&mut b, 1, 100_000);
        assert!(r.is_some());
        assert!(proves(&mut b, DEPTH, 2, &mut 0), "{line:?}");
    }

    #[test]
    fn renju_white_wins_when_the_only_defence_is_a_foul() {
        // White's 11,11 makes a four (6,6 and 12,12 are black) whose only completion, 7,7, is black's double three.
        let rows = [
            "..............O",
            "..............O",
            "...............",
            "...............",
            "...............",
            ".......X.......",
            "......XX.......",
            ".....XX........",
            "........O......",
            ".........O.....",
            "..........O....",
            "...............",
            "............X..",
        ];
        let mut b = board(Rule::Renju, &rows);
        assert_eq!(b.side_to_move(), Color::White);
        assert!(b.is_forbidden(at(&b, 7, 7)));
        let (r, line, _) = solve(&mut b, 1, 200_000);
        assert_eq!(r, Some(3), "white wins through black's foul");
        assert!(proves(&mut b, 1, 2, &mut 0), "{line:?}");
        // In freestyle black may block at 7,7.
        let mut free = board(Rule::Freestyle, &rows);
        let (rf, _, _) = solve(&mut free, 1, 200_000);
        assert!(rf.is_none_or(|n| n > 3));
    }

    #[test]
    fn quiet_position_has_no_vct() {
        let rows = [
            "...............",
            "...............",
            "...............",
            "...............",
            "...............",
            "......O........",
            ".......X.......",
            "........O......",
            ".......X.......",
            "...............",
        ];
        let mut b = board(Rule::Freestyle, &rows);
        let (r, _, aborted) = solve(&mut b, 3, 1_000_000);
        assert!(r.is_none() && !aborted);
    }

    pub(crate) const CARO: Rule = Rule::Caro {
        overline_wins: false,
    };

    /// A caro four with white beyond one end: its two five points are one stone's work (the
    /// stone on the open one closes the other five at both ends), so the point that makes it
    /// is no safe straight-four point, and the three is no threat.
    #[test]
    fn caro_four_closed_beyond_one_end_is_not_straight() {
        let rows = [
            "...............",
            "...............",
            "...............",
            "...............",
            "...............",
            "...O.XXX.......",
            "...............",
            "..............O",
            "...............",
            "...............",
            "..............O",
        ];
        let mut b = board(CARO, &rows);
        assert_eq!(b.side_to_move(), Color::Black);
        let mut safe = Vec::new();
        safe_straight_four_points(&mut b, Color::Black, &mut safe);
        // (8,5) makes O.XXXX.: five points (4,5) and (9,5); white on (9,5) closes (4,5)'s five.
        let f = at(&b, 8, 5);
        assert_eq!(
            b.threat(f, Color::Black),
            Threat::Flex4,
            "two five points by the tables"
        );
        assert!(!safe.contains(&f));
        assert!(safe.is_empty(), "{safe:?}");
        // With the white stone one step further away, (8,5) makes a straight four; (4,5) not.
        let mut open = board(
            CARO,
            &[
                "...............",
                "...............",
                "...............",
                "...............",
                "...............",
                "..O..XXX.......",
                "...............",
                "..............O",
                "...............",
                "...............",
                "..............O",
            ],
        );
        safe_straight_four_points(&mut open, Color::Black, &mut safe);
        assert_eq!(safe, vec![at(&open, 8, 5)], "only the side away from white");
        // (4,5) makes O.XXXX. from (2,5): five points (3,5) and (8,5), and white on (8,5) closes the
        // five through (3,5) against (2,5).
        assert_eq!(open.threat(at(&open, 4, 5), Color::Black), Threat::Flex4);
    }

    #[test]
    fn honours_the_stop_flag() {
        let mut b = board(
            Rule::Freestyle,
            &[
                "...............",
                "......O.X......",
                ".......X.......",
                "......XO.......",
                ".......O.......",
            ],
        );
        let stop = AtomicBool::new(true);
        let mut cache = VctCache::new(12);
        let mut vct = Vct::new(&mut cache, u64::MAX, Some((Instant::now(), &stop)));
        vct.next_check = 0;
        let r = vct.solve(&mut b, 12, 3, &mut Vec::new());
        assert!(r.is_none());
        assert!(vct.aborted() && vct.nodes < 1000);
    }

    /// [`FastBoard::threat_if_blocked`] against the board: in random positions of every searched
    /// rule, for every empty cell and every empty cell in its reach, the threat read from the
    /// tables equals the threat after the opponent's stone is really played.
    #[test]
    fn threat_if_blocked_agrees_with_the_board() {
        let seed = 0x7a1_2026u64;
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut checked = 0;
        for game in 0..24 {
            let rule = [Rule::Freestyle, Rule::Exact, Rule::Renju, CARO][game % 4];
            let mut b = FastBoard::new(15, 15, rule).unwrap();
            for _ in 0..rng.gen_range(6..40) {
                let cells: Vec<Idx> = b.area(1).filter(|&i| b.is_empty(i)).collect();
                b.make(cells[rng.gen_range(0..cells.len())]);
            }
            let stride = b.stride();
            let empties: Vec<Idx> = b.area(2).filter(|&i| b.is_empty(i)).collect();
            for color in [Color::Black, Color::White] {
                for &f in &empties {
                    for &r in &empties {
                        if r == f || !in_reach(stride, r, f) {
                            continue;
                        }
                        let predicted = b.threat_if_blocked(f, color, r);
                        // The opponent's stone: pass first if it is the colour's own turn.
                        let pass = b.side_to_move() == color;
                        if pass {
                            b.make_null();
                        }
                        b.make(r);
                        let actual = b.threat(f, color);
                        b.unmake();
                        if pass {
                            b.unmake_null();
                        }
                        assert_eq!(
                            predicted, actual,
                            "seed {seed:#x} game {game} {rule}\n{b:?}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000, "only {checked} pairs checked");
    }

    /// Plays 48 random games (12 of each of freestyle, exact five, renju and caro; random cells
    /// near the stones mixed with the best-scored cell, a single five point always blocked) from
    /// `seed`, and calls `visit(game, rule, board)` at every position from the eighth stone on
    /// where the side to move has no VCF.
    pub(crate) fn for_random_positions(
        seed: u64,
        mut visit: impl FnMut(usize, Rule, &mut FastBoard),
    ) {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        for game in 0..48 {
            let rule = [Rule::Freestyle, Rule::Exact, Rule::Renju, CARO][game % 4];
            let mut b = FastBoard::new(15, 15, rule).unwrap();
            b.make(b.idx(Pos::new(7, 7)));
            for _ in 0..40 {
                let me = b.side_to_move();
                if b.count(me, Threat::Five) > 0 || b.count(me.opponent(), Threat::Five) > 1 {
                    break;
                }
                let cells: Vec<Idx> = b
                    .area(2)
                    .filter(|&i| b.is_empty(i) && b.is_near(i))
                    .collect();
                let m = if b.count(me.opponent(), Threat::Five) == 1 {
                    b.cells_with(me.opponent(), Threat::Five).next().unwrap()
                } else if rng.gen_bool(0.3) {
                    *cells
                        .iter()
                        .max_by_key(|&&i| (b.cell_score(i, me), i))
                        .unwrap()
                } else {
                    cells[rng.gen_range(0..cells.len())]
                };
                if !b.is_legal(m) {
                    continue;
                }
                b.make(m);
                if b.ply() < 8 || has_vcf(&mut b) {
                    continue;
                }
                visit(game, rule, &mut b);
            }
        }
    }

    /// Random games ([`for_random_positions`]); wherever the side to move has a VCT of at most
    /// two threes, the win is checked by [`proves`].
    #[test]
    fn random_vct_wins_survive_every_defence() {
        let seed = 0x7c7_2026u64;
        let mut checked = 0;
        let mut calls = 0;
        let mut found = [0; 2];
        for_random_positions(seed, |game, rule, b| {
            let (r, line, _) = solve(b, 2, 20_000);
            found[r.is_some() as usize] += 1;
            if r.is_some() {
                assert!(
                    proves(b, DEPTH, 2, &mut calls),
                    "seed {seed:#x} game {game} {rule}: false VCT {:?}\n{b:?}",
                    line.iter().map(|&i| b.pos(i)).collect::<Vec<_>>()
                );
                checked += 1;
            }
        });
        assert!(
            checked >= 10,
            "seed {seed:#x}: only {checked} VCT wins checked"
        );
        eprintln!("{checked} VCT wins proved ({found:?} without/with), {calls} solver calls");
    }
}
