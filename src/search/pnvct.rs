//! A proof-number search over the VCT's moves (experiment; see [`crate::search::vct`] for the
//! moves and why they are sound). The depth-first solver bounds its reach by attacker moves and
//! threes and searches every line to that reach; this one bounds only the threes (and its nodes
//! and time) and always works on the leaf that would most cheaply prove or disprove the root
//! (Allis' proof numbers), so long, narrow wins are found without widening the whole search.
//!
//! * Attacker nodes (OR) have the attacker's fours and threes as children (the blocks of a
//!   defender's four when it has one); defender nodes (AND) have every relevant reply.
//! * A new attacker node is proven at once when the attacker has a five point or a VCF (the
//!   depth-first solver's inner VCF run), disproven when it has no legal move or no three left;
//!   a new defender node is disproven when the attacker's move is no threat (or a three with
//!   none left), proven when no reply is relevant.
//! * Proof and disproof numbers start at the node's number of moves (mobility): an attacker
//!   node with many threats is easier to prove, a defender node with many replies harder.
//! * The search is Nagai's depth-first form: a subtree is searched until its numbers pass
//!   thresholds set from its siblings', with Pawlewicz and Lew's 1 + 1/4 margin so that it does
//!   not switch back and forth between close siblings; it returns to the parent only then, so
//!   the board is not replayed from the root at every expansion.
//! * The tree lives in one vector, children side by side, reserved once at its cap; no
//!   transpositions are merged (stones are only added, so the graph has no cycles, and
//!   duplicates cost only nodes). A full tree ends the search as out of budget.
//! * A path of [`MAX_PLIES`] plies counts as disproven, so a win is always within that many.

use super::vct::Vct;
use crate::board::fast::{FastBoard, Idx};
use crate::board::pattern::Threat;

/// Plies from the root after which a node counts as disproven.
pub const MAX_PLIES: usize = 120;
/// Attacker moves each inner VCF run may use.
const VCF_DEPTH: u32 = 30;
/// Bytes of one tree node.
pub const NODE_BYTES: usize = std::mem::size_of::<Node>();
/// The infinite proof or disproof number.
const INF: u32 = u32::MAX;
/// Most threes on a path unless the caller sets fewer (see [`PnVct::threes`]).
pub const MAX_THREES: u8 = 200;

#[derive(Clone, Copy, Debug)]
struct Node {
    pn: u32,
    dn: u32,
    /// First child's index; 0 while not expanded (the root is node 0, never a child).
    child: u32,
    /// Number of children.
    count: u32,
    /// The move that led here (unused at the root).
    mv: u32,
    /// A leaf proven at creation: plies from here to the five.
    plies: u8,
    /// Threes the attacker may still play on the path through this node.
    threes: u8,
}

impl Node {
    /// A new leaf after the move `mv`, its numbers 1 and 1 until its creator sets them.
    fn leaf(mv: Idx, threes: u8) -> Node {
        Node {
            pn: 1,
            dn: 1,
            child: 0,
            count: 0,
            mv: mv as u32,
            plies: 0,
            threes,
        }
    }
}

/// One proof-number VCT search: the solver's generators, its budget and the tree.
pub struct PnVct<'a, 'b> {
    pub vct: &'b mut Vct<'a>,
    /// Most tree nodes (each 24 bytes); reaching it ends the search unproven.
    pub max_tree: usize,
    /// Most attacker threes on a path (fours are free), as in the depth-first solver; an
    /// attacker node without threes left and without a VCF is disproven.
    pub threes: u8,
    tree: Vec<Node>,
    /// Tree expansions made.
    pub expansions: u64,
    /// Whether the last search ended because the tree reached `max_tree`.
    out_of_room: bool,
    /// Move lists, taken and given back so that nested calls allocate nothing once warm.
    lists: Vec<Vec<(i32, Idx)>>,
    /// The inner VCF runs' lines (not kept).
    vcf_line: Vec<Idx>,
}

impl<'a, 'b> PnVct<'a, 'b> {
    pub fn new(vct: &'b mut Vct<'a>, max_tree: usize) -> PnVct<'a, 'b> {
        PnVct {
            vct,
            max_tree: max_tree.max(16),
            threes: MAX_THREES,
            tree: Vec::new(),
            expansions: 0,
            out_of_room: false,
            lists: Vec::new(),
            vcf_line: Vec::new(),
        }
    }

    /// Tree nodes of the last search.
    pub fn tree_nodes(&self) -> usize {
        self.tree.len()
    }

    /// Whether the side to move wins by continuous threats (its first move blocks the
    /// opponent's five point if it has one): the plies to the five, with one main line in
    /// `line` (attacker and defender moves alternating; it may stop where the rest is forced).
    /// `None` when there is none or the budget ran out (see [`Vct::aborted`]).
    pub fn solve(&mut self, b: &mut FastBoard, line: &mut Vec<Idx>) -> Option<u32> {
        line.clear();
        self.tree.clear();
        // Reserved once (pages are touched only as the tree grows), so it never reallocates
        // beyond its cap.
        self.tree.reserve_exact(self.max_tree);
        self.expansions = 0;
        let root = self.attacker_leaf(b, 0, self.threes);
        self.tree.push(root);
        self.out_of_room = false;
        if self.tree[0].pn != 0 && self.tree[0].dn != 0 {
            self.mid(b, 0, 1, (INF, INF));
        }
        if self.out_of_room {
            self.vct.set_aborted();
        }
        if self.tree[0].pn != 0 {
            return None;
        }
        let n = self.plies(0, true);
        self.main_line(b, 0, true, line);
        Some(n)
    }

    /// Searches below node `at` (`ply` plies from the root; the board is at it) until its proof
    /// number reaches `th.0` or its disproof number `th.1`, it is solved, or the budget runs
    /// out (Nagai's depth-first proof-number search over the stored tree, with Pawlewicz and
    /// Lew's 1 + 1/4 thresholds, so the search stays longer in one subtree).
    fn mid(&mut self, b: &mut FastBoard, at: usize, ply: usize, th: (u32, u32)) {
        if self.tree[at].child == 0 {
            if self.vct.tick() {
                return;
            }
            if self.tree.len() + 256 > self.max_tree {
                self.out_of_room = true;
                return;
            }
            self.expand(b, at, ply);
        }
        let or = ply % 2 == 1;
        loop {
            let (pn, dn) = self.numbers(at, or);
            self.tree[at].pn = pn;
            self.tree[at].dn = dn;
            if pn >= th.0 || dn >= th.1 || pn == 0 || dn == 0 {
                return;
            }
            if self.vct.aborted() || self.out_of_room {
                return;
            }
            // The child that decides (least proof at OR, least disproof at AND), and the
            // second least value among the others.
            let n = self.tree[at];
            let (mut best, mut first, mut second) = (0usize, INF, INF);
            for k in 0..n.count as usize {
                let c = self.tree[n.child as usize + k];
                let v = if or { c.pn } else { c.dn };
                if v < first {
                    (second, first, best) = (first, v, k);
                } else if v < second {
                    second = v;
                }
            }
            let kid = n.child as usize + best;
            let c = self.tree[kid];
            let grow = |x: u32| (x as u64 + x as u64 / 4 + 1).min(INF as u64) as u32;
            let kid_th = if or {
                // Proof: until it passes the runner-up; disproof: our threshold less the
                // other children's disproofs.
                (
                    th.0.min(grow(second)),
                    (th.1 as u64 - dn as u64 + c.dn as u64).min(INF as u64) as u32,
                )
            } else {
                (
                    (th.0 as u64 - pn as u64 + c.pn as u64).min(INF as u64) as u32,
                    th.1.min(grow(second)),
                )
            };
            b.make(c.mv as Idx);
            self.mid(b, kid, ply + 1, kid_th);
            b.unmake();
        }
    }

    /// A new attacker node (attacker to move on `b`, after the defender's move `mv`).
    fn attacker_leaf(&mut self, b: &mut FastBoard, mv: Idx, threes: u8) -> Node {
        let me = b.side_to_move();
        let opp = me.opponent();
        let mut n = Node::leaf(mv, threes);
        if b.count(me, Threat::Five) > 0 {
            (n.pn, n.dn, n.plies) = (0, INF, 1);
            return n;
        }
        if b.count(opp, Threat::Five) == 0 {
            self.vcf_line.clear();
            if let Some(p) = self.vct.inner_vcf(b, VCF_DEPTH, &mut self.vcf_line) {
                (n.pn, n.dn, n.plies) = (0, INF, p.min(255) as u8);
                return n;
            }
            if threes == 0 {
                (n.pn, n.dn) = (INF, 0);
                return n;
            }
        }
        let mut moves = self.list();
        self.vct.attack_moves(b, &mut moves);
        let legal = moves.iter().filter(|&&(_, m)| b.is_legal(m)).count() as u32;
        self.give(moves);
        if legal == 0 {
            (n.pn, n.dn) = (INF, 0);
        } else {
            n.dn = legal;
        }
        n
    }

    /// A new defender node (defender to move on `b`, after the attacker's move `mv`).
    fn defender_leaf(&mut self, b: &mut FastBoard, mv: Idx, threes: u8, three: bool) -> Node {
        let mut n = Node::leaf(mv, threes);
        let mut replies = self.list();
        match self.vct.replies(b, threes, three, &mut replies) {
            None => (n.pn, n.dn) = (INF, 0),
            Some(_) if replies.is_empty() => {
                let attacker_five = b.count(b.side_to_move().opponent(), Threat::Five) > 0;
                (n.pn, n.dn, n.plies) = (0, INF, if attacker_five { 2 } else { 4 });
            }
            Some(left) => (n.pn, n.threes) = (replies.len() as u32, left),
        }
        self.give(replies);
        n
    }

    /// Expands the leaf `at`, `ply` plies from the root (the board is at it): its children are
    /// made and given their first numbers. A leaf [`MAX_PLIES`] deep is disproven instead.
    fn expand(&mut self, b: &mut FastBoard, at: usize, ply: usize) {
        self.expansions += 1;
        if ply > MAX_PLIES {
            (self.tree[at].pn, self.tree[at].dn) = (INF, 0);
            return;
        }
        let or = ply % 2 == 1;
        let threes = self.tree[at].threes;
        let mut moves = self.list();
        if or {
            self.vct.attack_moves(b, &mut moves);
        } else {
            self.vct.replies(b, threes, false, &mut moves);
            moves.sort_unstable_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
        }
        let first = self.tree.len() as u32;
        let me = b.side_to_move();
        let blocking = b.count(me.opponent(), Threat::Five) > 0;
        for &(_, m) in &moves {
            if or && !b.is_legal(m) {
                continue;
            }
            // A three (not a four, not a block) spends one of the threes.
            let three = or && !blocking && b.threat(m, me) < Threat::Block4;
            b.make(m);
            let kid = if or {
                self.defender_leaf(b, m, threes, three)
            } else {
                self.attacker_leaf(b, m, threes)
            };
            b.unmake();
            self.tree.push(kid);
        }
        self.give(moves);
        let count = self.tree.len() as u32 - first;
        let node = &mut self.tree[at];
        if count == 0 {
            // No move: an attacker without threats loses the race, a defender without a
            // relevant reply (not met here: such a node is proven at creation) loses.
            (node.pn, node.dn) = if or { (INF, 0) } else { (0, INF) };
            return;
        }
        node.child = first;
        node.count = count;
    }

    fn list(&mut self) -> Vec<(i32, Idx)> {
        self.lists.pop().unwrap_or_default()
    }

    fn give(&mut self, mut v: Vec<(i32, Idx)>) {
        v.clear();
        self.lists.push(v);
    }

    /// The numbers of node `at` from its children (its own if it has none).
    fn numbers(&self, at: usize, or: bool) -> (u32, u32) {
        let n = self.tree[at];
        if n.child == 0 {
            return (n.pn, n.dn);
        }
        let kids = &self.tree[n.child as usize..(n.child + n.count) as usize];
        // OR: proof = min of the children's proofs, disproof = sum of their disproofs; AND
        // the other way round. Sums stop just below infinity.
        let (mut min, mut sum) = (INF, 0u64);
        for c in kids {
            let (m, s) = if or { (c.pn, c.dn) } else { (c.dn, c.pn) };
            min = min.min(m);
            sum = if s == INF || sum == INF as u64 {
                INF as u64
            } else {
                (sum + s as u64).min(INF as u64 - 1)
            };
        }
        let sum = sum as u32;
        if or {
            (min, sum)
        } else {
            (sum, min)
        }
    }

    /// Plies from node `at` (proven) to the five along the shortest proven attack and the
    /// longest defence.
    fn plies(&self, at: usize, or: bool) -> u32 {
        let n = self.tree[at];
        if n.child == 0 {
            return n.plies as u32;
        }
        let kids = n.child as usize..(n.child + n.count) as usize;
        let each = kids
            .filter(|&k| self.tree[k].pn == 0)
            .map(|k| self.plies(k, !or) + 1);
        if or {
            each.min().unwrap_or(0)
        } else {
            each.max().unwrap_or(0)
        }
    }

    /// Appends the main line from node `at` (proven; the board is at it) to `line`: the
    /// shortest proven attack, the longest defence, and a proven leaf's VCF or five.
    fn main_line(&mut self, b: &mut FastBoard, at: usize, or: bool, line: &mut Vec<Idx>) {
        let n = self.tree[at];
        if n.child == 0 {
            if or {
                let me = b.side_to_move();
                let five = b.cells_with(me, Threat::Five).next();
                if let Some(f) = five {
                    line.push(f);
                } else {
                    let mut vcf = Vec::new();
                    self.vct.inner_vcf(b, VCF_DEPTH, &mut vcf);
                    line.extend(vcf);
                }
            }
            return;
        }
        let kids = n.child as usize..(n.child + n.count) as usize;
        let proven = kids.filter(|&k| self.tree[k].pn == 0);
        let pick = if or {
            proven.min_by_key(|&k| (self.plies(k, !or), k))
        } else {
            proven.max_by_key(|&k| (self.plies(k, !or), std::cmp::Reverse(k)))
        };
        let Some(k) = pick else { return };
        let mv = self.tree[k].mv as Idx;
        line.push(mv);
        b.make(mv);
        self.main_line(b, k, !or, line);
        b.unmake();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pos::Pos;
    use crate::search::vct::tests::{board, for_random_positions, has_vcf, CARO, DOUBLE_THREE};
    use crate::search::vct::VctCache;
    use crate::types::Rule;
    use rand::{Rng, SeedableRng};
    use std::sync::atomic::AtomicBool;
    use std::time::Instant;

    /// Whether `c` wins by continuous fours, by the VCF solver with a generous reach.
    fn vcf_wins(b: &mut FastBoard) -> bool {
        let cache = crate::search::vcf::VcfCache::new(16);
        let mut vcf = crate::search::vcf::Vcf {
            cache: &cache,
            nodes: 0,
            node_limit: 1_000_000,
            deadline: None,
        };
        vcf.solve(b, 100, &mut Vec::new()).is_some()
    }

    /// Checks the proof below node `at` (proven; the board is at it) move by move. An attacker
    /// node is a five, a VCF, or a proven child that checks. At a defender node every legal
    /// empty cell within `margin` of the stones is tried: it may not make a five; a reply that
    /// is one of the node's children must check; any other must leave the attacker a five
    /// point or a VCF (the solver left it out as irrelevant).
    fn check_tree(pn: &PnVct, b: &mut FastBoard, at: usize, or: bool, margin: i32) -> bool {
        let n = pn.tree[at];
        assert_eq!(n.pn, 0, "only proven nodes are checked");
        let kids = n.child as usize..(n.child + n.count) as usize;
        if or {
            if n.child == 0 {
                let me = b.side_to_move();
                return b.count(me, Threat::Five) > 0 || vcf_wins(b);
            }
            let Some(k) = kids.clone().find(|&k| pn.tree[k].pn == 0) else {
                return false;
            };
            b.make(pn.tree[k].mv as Idx);
            let ok = check_tree(pn, b, k, false, margin);
            b.unmake();
            return ok;
        }
        let d = b.side_to_move();
        let a = d.opponent();
        let cells: Vec<Idx> = b.area(margin).filter(|&i| b.is_empty(i)).collect();
        for r in cells {
            if !b.is_legal(r) {
                continue;
            }
            if b.is_five(r, d) {
                eprintln!("the defender makes five at {:?}", b.pos(r));
                return false;
            }
            let child = kids.clone().find(|&k| pn.tree[k].mv as Idx == r);
            b.make(r);
            let ok = match child {
                Some(k) => check_tree(pn, b, k, true, margin),
                None => b.count(a, Threat::Five) > 0 || vcf_wins(b),
            };
            b.unmake();
            if !ok {
                eprintln!("the reply {:?} escapes", b.pos(r));
                return false;
            }
        }
        true
    }

    /// Solves with `threes` threes and `nodes` nodes and checks a win's whole proof tree with
    /// [`check_tree`]: (plies, line, aborted, proof checked).
    fn solve_checked(
        b: &mut FastBoard,
        threes: u8,
        nodes: u64,
    ) -> (Option<u32>, Vec<Idx>, bool, bool) {
        let mut cache = VctCache::new(16);
        let mut vct = Vct::new(&mut cache, nodes, None);
        let mut pn = PnVct::new(&mut vct, 1 << 20);
        pn.threes = threes;
        let mut line = Vec::new();
        let r = pn.solve(b, &mut line);
        let checked = r.is_some() && check_tree(&pn, b, 0, true, 2);
        drop(pn);
        (r, line, vct.aborted(), checked)
    }

    #[test]
    fn double_three_wins() {
        let rows = DOUBLE_THREE;
        for rule in [Rule::Freestyle, Rule::Exact, CARO] {
            let mut b = board(rule, &rows);
            assert!(!has_vcf(&mut b));
            let (r, line, aborted, checked) = solve_checked(&mut b, 1, 100_000);
            assert!(!aborted);
            let n = r.unwrap_or_else(|| panic!("{rule}: the double three wins"));
            assert_eq!(n % 2, 1, "an attacker's five ends the line");
            assert!(checked, "{rule}: {line:?}");
            // No three to spend: only a VCF would do, and there is none.
            assert_eq!(solve_checked(&mut b, 0, 100_000).0, None);
        }
        // Renju: black's double three is a foul; a win, if any, starts elsewhere.
        let mut b = board(Rule::Renju, &rows);
        let foul = b.idx(Pos::new(7, 7));
        assert!(b.is_forbidden(foul));
        let (r, line, _, checked) = solve_checked(&mut b, 3, 400_000);
        if r.is_some() {
            assert_ne!(line[0], foul);
            assert!(checked, "renju black: {line:?}");
        }
    }

    #[test]
    fn quiet_position_has_no_win_and_is_disproven() {
        let mut b = board(
            Rule::Freestyle,
            &[
                "...............",
                "......O.X......",
                ".......X.......",
                "......XO.......",
            ],
        );
        let (r, _, aborted, _) = solve_checked(&mut b, MAX_THREES, 1_000_000);
        assert_eq!(r, None);
        assert!(!aborted, "a small position is disproven within the budget");
    }

    #[test]
    fn honours_the_stop_flag_and_the_tree_cap() {
        // A crowded position without a win, where a full search takes many expansions.
        let mut b = FastBoard::new(15, 15, Rule::Freestyle).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        for _ in 0..10_000 {
            if b.ply() >= 30 {
                break;
            }
            let cells: Vec<Idx> = b.area(1).filter(|&i| b.is_empty(i)).collect();
            b.make(cells[rng.gen_range(0..cells.len())]);
            let me = b.side_to_move();
            if b.count(me, Threat::Five) + b.count(me.opponent(), Threat::Five) > 0
                || has_vcf(&mut b)
            {
                b.unmake();
            }
        }
        let before = b.hash();
        let mut cache = VctCache::new(12);
        let mut vct = Vct::new(&mut cache, u64::MAX, None);
        let mut pn = PnVct::new(&mut vct, 1 << 22);
        let r = pn.solve(&mut b, &mut Vec::new());
        let full = pn.expansions;
        assert!(full > 2_000, "{r:?} after only {full} expansions\n{b:?}");
        assert_eq!(b.hash(), before, "the board is left as it was");
        let stop = AtomicBool::new(true);
        let mut vct = Vct::new(&mut cache, u64::MAX, Some((Instant::now(), &stop)));
        let mut pn = PnVct::new(&mut vct, 1 << 22);
        assert_eq!(pn.solve(&mut b, &mut Vec::new()), None);
        assert!(pn.expansions < 300, "{} expansions", pn.expansions);
        assert!(vct.aborted());
        assert_eq!(b.hash(), before);
        let mut vct = Vct::new(&mut cache, u64::MAX, None);
        let mut pn = PnVct::new(&mut vct, 1_000);
        assert_eq!(pn.solve(&mut b, &mut Vec::new()), None);
        assert!(pn.tree_nodes() <= 1_000);
        assert!(vct.aborted(), "a full tree is reported as out of budget");
        assert_eq!(b.hash(), before);
    }

    /// Random games of every rule ([`for_random_positions`]): wherever the side to move has no
    /// VCF, a depth-first win of at most two threes is found by the proof-number solver too,
    /// and every proof-number win's proof tree checks, with two threes and with four.
    #[test]
    fn random_wins_agree_with_the_depth_first_solver_and_survive_every_defence() {
        let seed = 0x9e_2026u64;
        let (mut checked, mut both, mut deeper) = (0, 0, 0);
        for_random_positions(seed, |game, rule, b| {
            let mut cache = VctCache::new(16);
            let mut dfs = Vct::new(&mut cache, 20_000, None);
            let by_dfs = dfs.solve(b, 12, 2, &mut Vec::new());
            let (r, line, aborted, proof) = solve_checked(b, 2, 200_000);
            let show =
                |line: &[Idx], b: &FastBoard| line.iter().map(|&i| b.pos(i)).collect::<Vec<_>>();
            if by_dfs.is_some() {
                assert!(
                    r.is_some(),
                    "seed {seed:#x} game {game} {rule}: depth-first win missed \
                     (aborted {aborted})\n{b:?}"
                );
                both += 1;
            }
            // More threes reach wins the depth-first run above leaves out.
            let (deep, deep_line, _, deep_proof) = solve_checked(b, 4, 200_000);
            if deep.is_some() {
                assert!(
                    deep_proof,
                    "seed {seed:#x} game {game} {rule}: false win {:?}\n{b:?}",
                    show(&deep_line, b)
                );
                deeper += r.is_none() as u32;
            }
            if r.is_some() {
                assert!(
                    proof,
                    "seed {seed:#x} game {game} {rule}: false win {:?}\n{b:?}",
                    show(&line, b)
                );
                checked += 1;
            }
        });
        assert!(both >= 10, "seed {seed:#x}: only {both} depth-first wins");
        assert!(
            deeper >= 3,
            "seed {seed:#x}: only {deeper} wins with four threes only"
        );
        eprintln!(
            "{checked} proof-number wins checked ({both} also depth-first), {deeper} more with \
             four threes"
        );
    }
}
