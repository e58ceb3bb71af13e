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
//! * Caro is not searched (a stone can close a five from the far end, so the pattern shortcuts
//!   above do not hold there): the solver returns no win.
//!
//! At every attacker node the VCF solver runs first (fours only, cheap). Threes are bounded
//! separately from the total number of attacker moves, and the root deepens on threes, so short
//! wins are found first. Failures are cached by position hash, remaining depth and threes.

use crate::board::fast::{FastBoard, Idx};
use crate::board::pattern::{Pattern, Threat};
use crate::search::vcf::{Vcf, VcfCache};
use crate::types::{Color, Rule};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Cache of attacker positions known to have no VCT within some number of attacker moves and
/// threes, plus the VCF failure cache of the solver's inner VCF calls. A slot holds the position
/// key with its low 8 bits replaced by depth (5 bits) and threes (3 bits), so a new or cleared
/// cache is a zeroed allocation (free until touched; see `search::tt::Tt`).
pub struct VctCache {
    slots: Vec<u64>,
    mask: usize,
    vcf: VcfCache,
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
        }
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
        if matches!(b.rule(), Rule::Caro { .. }) {
            return None;
        }
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

    fn tick(&mut self) -> bool {
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

    /// Attacker (side to move) node.
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
            let mut vcf = Vcf {
                cache: &mut self.cache.vcf,
                nodes: 0,
                node_limit: self
                    .vcf_nodes
                    .min(self.node_limit.saturating_sub(self.nodes)),
                deadline: self.deadline,
            };
            let mut sub = Vec::new();
            let r = vcf.solve(b, depth as u32, &mut sub);
            self.nodes += vcf.nodes;
            if let Some(n) = r {
                line.extend(sub);
                return Some(n);
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
        let moves: Vec<Idx> = if opp_fives > 0 {
            let blocks: Vec<Idx> = b.cells_with(opp, Threat::Five).take(2).collect();
            if blocks.len() != 1 {
                return None;
            }
            blocks
        } else {
            let mut v: Vec<(Idx, Threat, i32)> = b
                .cells_with(me, Threat::Flex3)
                .map(|i| {
                    (
                        i,
                        b.threat(i, me),
                        b.cell_score(i, me) + b.cell_score(i, opp),
                    )
                })
                .collect();
            v.sort_unstable_by(|a, c| c.1.cmp(&a.1).then(c.2.cmp(&a.2)).then(a.0.cmp(&c.0)));
            v.into_iter().map(|x| x.0).collect()
        };
        let mut sub = Vec::new();
        for m in moves {
            if !b.is_legal(m) {
                continue;
            }
            // A three (not a four, not a block) spends one of the threes.
            let is_three = opp_fives == 0 && b.threat(m, me) < Threat::Block4;
            b.make(m);
            sub.clear();
            let r = self.defend(b, depth - 1, threes, is_three, &mut sub);
            b.unmake();
            if let Some(n) = r {
                line.push(m);
                line.extend_from_slice(&sub);
                return Some(n + 1);
            }
            if self.aborted {
                return None;
            }
        }
        self.cache.store_fail(key, depth, threes);
        None
    }

    /// Defender (side to move) node after the attacker's move: plies to the attacker's five if
    /// every relevant reply loses.
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
        let d = b.side_to_move();
        let a = d.opponent();
        // Step 1. The defender wins first.
        if b.count(d, Threat::Five) > 0 {
            return None;
        }
        // Step 2. The relevant replies.
        let four = b.count(a, Threat::Five) > 0;
        let mut replies: Vec<(i32, Idx)> = Vec::new();
        let next_threes;
        if four {
            next_threes = threes;
            let points: Vec<Idx> = b.cells_with(a, Threat::Five).collect();
            let mut stops = Vec::new();
            b.five_defences(&points, &mut stops);
            for r in stops {
                if b.is_legal(r) {
                    replies.push((0, r));
                }
            }
        } else {
            let mut safe = Vec::new();
            safe_straight_four_points(b, a, &mut safe);
            if safe.is_empty() {
                return None;
            }
            next_threes = if spends_three {
                threes.checked_sub(1)?
            } else {
                threes
            };
            let mut cand: Vec<Idx> = b.cells_with(d, Threat::Block4).collect();
            for &f in &safe {
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
            let mut scratch = Vec::new();
            for r in cand {
                if !b.is_legal(r) {
                    continue;
                }
                let score = b.cell_score(r, d) + b.cell_score(r, a);
                b.make(r);
                let relevant =
                    b.count(d, Threat::Five) > 0 || !has_safe_straight_four(b, a, &mut scratch);
                b.unmake();
                if relevant {
                    replies.push((score, r));
                }
            }
        }
        // Step 3. No relevant reply: the attacker's threat goes through.
        if replies.is_empty() {
            return Some(if four { 2 } else { 4 });
        }
        // Step 4. Every reply must lose; the most promising defences are tried first.
        replies.sort_unstable_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
        let mut best: Option<(u32, Vec<Idx>)> = None;
        let mut sub = Vec::new();
        for (_, r) in replies {
            b.make(r);
            sub.clear();
            let res = self.attack(b, depth, next_threes, &mut sub);
            b.unmake();
            let n = res?;
            if best.as_ref().is_none_or(|(bn, _)| n > *bn) {
                let mut l = vec![r];
                l.extend_from_slice(&sub);
                best = Some((n, l));
            }
        }
        let (n, l) = best?;
        line.extend(l);
        Some(n + 1)
    }
}

/// Whether `a` has a safe straight-four point (see [`safe_straight_four_points`]).
fn has_safe_straight_four(b: &mut FastBoard, a: Color, scratch: &mut Vec<Idx>) -> bool {
    if b.rule() == Rule::Renju && a == Color::Black {
        safe_straight_four_points(b, a, scratch);
        !scratch.is_empty()
    } else {
        b.count(a, Threat::Flex4) > 0
    }
}

/// The empty cells where `a` (not necessarily to move) makes a straight four or double four that
/// is sure to win when the opponent has no five: any such cell, except for renju black, where the
/// cell must be legal and no line other than the four's may hold a three or four (so that its
/// legality depends on its line patterns only).
pub fn safe_straight_four_points(b: &mut FastBoard, a: Color, out: &mut Vec<Idx>) {
    out.clear();
    if b.count(a, Threat::Flex4) == 0 {
        return;
    }
    let cells: Vec<Idx> = b.cells_with(a, Threat::Flex4).collect();
    let renju_black = b.rule() == Rule::Renju && a == Color::Black;
    for f in cells {
        if b.threat(f, a) != Threat::Flex4 {
            continue;
        }
        if renju_black {
            let lines = (0..4)
                .filter(|&dir| {
                    (Pattern::Flex3..=Pattern::Flex4).contains(&b.pattern(f, Color::Black, dir))
                })
                .count();
            if lines >= 2 || b.is_forbidden(f) {
                continue;
            }
        }
        out.push(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pos::Pos;
    use rand::{Rng, SeedableRng};
    use std::sync::atomic::AtomicBool;

    /// A board from a picture (`X` black, `O` white, anything else empty; row 0 first), stones
    /// played alternately (black first), so black must have as many stones as white or one more.
    fn board(rule: Rule, rows: &[&str]) -> FastBoard {
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

    fn has_vcf(b: &mut FastBoard) -> bool {
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
            ok = proves(b, depth - 1, margin, calls);
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

    #[test]
    fn double_three_wins_and_is_no_vcf() {
        let rows = [
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
        for rule in [Rule::Freestyle, Rule::Exact] {
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
    fn quiet_position_has_no_vct_and_caro_is_not_searched() {
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
        let caro = Rule::Caro {
            overline_wins: false,
        };
        let mut b = board(
            caro,
            &[
                "O.O............",
                "...............",
                "O..............",
                "...............",
                "...............",
                ".......X.......",
                ".......X.......",
                ".....XX........",
                "..............O",
            ],
        );
        assert_eq!(solve(&mut b, 1, 100_000).0, None);
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

    /// Random games (random cells near the stones mixed with the best-scored cell); wherever the
    /// side to move has no VCF but a VCT of at most two threes, the win is checked by [`proves`].
    #[test]
    fn random_vct_wins_survive_every_defence() {
        let seed = 0x7c7_2026u64;
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut checked = 0;
        let mut calls = 0;
        let mut found = [0; 2];
        for game in 0..40 {
            let rule = [Rule::Freestyle, Rule::Exact, Rule::Renju][game % 3];
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
                let (r, line, _) = solve(&mut b, 2, 20_000);
                found[r.is_some() as usize] += 1;
                if r.is_some() {
                    assert!(
                        proves(&mut b, DEPTH, 2, &mut calls),
                        "seed {seed:#x} game {game} {rule}: false VCT {:?}\n{b:?}",
                        line.iter().map(|&i| b.pos(i)).collect::<Vec<_>>()
                    );
                    checked += 1;
                }
            }
        }
        assert!(
            checked >= 10,
            "seed {seed:#x}: only {checked} VCT wins checked"
        );
        eprintln!("{checked} VCT wins proved ({found:?} without/with), {calls} solver calls");
    }
}
