//! VCF threats at the root: a quiet move after which the side to move would win by continuous
//! fours if it could move again, and which no reply stops.
//!
//! The VCT solver ([`crate::search::vct`]) attacks with fours and threes only, so a win whose
//! first move is neither (a "hidden" threat: the move builds a VCF without making a three, a
//! favourite of composed renju problems) is out of its reach, and the main search needs all the
//! plies of the VCF to see it. This search tries each such move `m` directly:
//!
//! 1. `m` is a threat when, with the turn passed back (a null move), the attacker has a VCF.
//! 2. Every legal reply of the defender, anywhere on the board, is then tried, and after each
//!    the VCF solver must find a win again. A reply that makes a five, or after which the solver
//!    finds none (within its node cap), refutes `m`.
//!
//! A win is therefore as sound as the VCF solver: every defender reply is searched, none is
//! assumed to lose. Replies on the cells of the VCF found in step 1 come first, since they are
//! the ones likely to refute; a winning `m` costs one VCF per legal reply.

use crate::board::fast::{FastBoard, Idx};
use crate::board::pattern::Threat;
use crate::search::vcf::{Vcf, VcfCache};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Attacker moves (fours) each VCF of this search may use.
const VCF_DEPTH: u32 = 60;

/// The search's state: its VCF cache, the nodes spent and the limits.
pub struct VcfThreat<'a> {
    cache: &'a VcfCache,
    /// VCF nodes spent so far.
    pub nodes: u64,
    node_limit: u64,
    deadline: Option<(Instant, &'a AtomicBool)>,
}

impl<'a> VcfThreat<'a> {
    pub fn new(
        cache: &'a VcfCache,
        node_limit: u64,
        deadline: Option<(Instant, &'a AtomicBool)>,
    ) -> VcfThreat<'a> {
        VcfThreat {
            cache,
            nodes: 0,
            node_limit,
            deadline,
        }
    }

    /// The side to move's VCF (`(plies, line)`) within what is left of the node budget; `None`
    /// also when the budget or the time ran out.
    fn vcf(&mut self, b: &mut FastBoard) -> Option<(u32, Vec<Idx>)> {
        let mut v = Vcf {
            cache: self.cache,
            nodes: 0,
            node_limit: self.node_limit.saturating_sub(self.nodes),
            deadline: self.deadline,
        };
        let mut line = Vec::new();
        let r = v.solve(b, VCF_DEPTH, &mut line);
        self.nodes += v.nodes;
        r.map(|n| (n, line))
    }

    fn exhausted(&self) -> bool {
        self.nodes >= self.node_limit
            || self.deadline.is_some_and(|(at, stop)| {
                stop.load(std::sync::atomic::Ordering::Relaxed) || Instant::now() >= at
            })
    }

    /// A quiet move of the side to move that wins by a VCF threat, trying at most `candidates`
    /// moves (best cell scores first): `(plies to the five in the longest line, [move])`. Call
    /// it when the side to move has no VCF and the opponent no five point (the root's VCF step
    /// has answered those positions).
    pub fn solve(&mut self, b: &mut FastBoard, candidates: usize) -> Option<(u32, Vec<Idx>)> {
        let me = b.side_to_move();
        let opp = me.opponent();
        if b.count(opp, Threat::Five) > 0 || b.count(me, Threat::Five) > 0 {
            return None;
        }
        let mut moves: Vec<(i32, Idx)> = b
            .area(2)
            .filter(|&i| b.is_empty(i) && b.is_near(i) && b.threat(i, me) < Threat::Block4)
            .map(|i| (b.cell_score(i, me), i))
            .collect();
        moves.sort_unstable_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
        let mut tried = 0;
        for (_, m) in moves {
            if tried == candidates || self.exhausted() {
                break;
            }
            if !b.is_legal(m) {
                continue;
            }
            tried += 1;
            b.make(m);
            let won = self.refuted_by_nothing(b);
            b.unmake();
            if let Some(plies) = won {
                return Some((plies + 1, vec![m]));
            }
        }
        None
    }

    /// After the attacker's quiet move (defender to move): the plies to the five after the
    /// defender's best reply if every reply loses to a VCF, else `None`.
    fn refuted_by_nothing(&mut self, b: &mut FastBoard) -> Option<u32> {
        let opp = b.side_to_move();
        b.make_null();
        let threat = self.vcf(b);
        b.unmake_null();
        let (_, line) = threat?;
        // Every empty cell is a reply to try: those of the VCF line first.
        let on_line: Vec<Idx> = line.iter().copied().filter(|&i| b.is_empty(i)).collect();
        let rest = b
            .area(64)
            .filter(|&i| b.is_empty(i) && !on_line.contains(&i));
        let replies: Vec<Idx> = on_line.iter().copied().chain(rest).collect();
        let mut longest = 0;
        for r in replies {
            if !b.is_legal(r) {
                // Renju black's foul: not a reply it may play.
                continue;
            }
            if b.is_five(r, opp) {
                return None;
            }
            b.make(r);
            let win = self.vcf(b);
            b.unmake();
            longest = longest.max(win?.0);
        }
        Some(longest + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Game;
    use crate::pos::parse_algebraic;
    use crate::types::Rule;

    fn game(rule: Rule, moves: &str) -> Game {
        let mut g = Game::new(15, 15, rule).unwrap();
        for m in parse_algebraic(moves).unwrap() {
            g.play(m).unwrap();
        }
        g
    }

    /// Positions from Rensa's self-play games (100 ms a move) where the side to move has no VCF,
    /// but a quiet move threatens one that no reply stops: the search finds such a move, and the
    /// slow prover on the rules oracle confirms that every reply loses to a VCF.
    #[test]
    fn finds_quiet_moves_whose_vcf_no_reply_stops() {
        let cases = [
            (Rule::Renju, "h8h9f6i7i8j8h6j9g6e6g8j6j7k9i9g7h7m11l10e8"),
            (
                Rule::Freestyle,
                "h8j6g8k8j7k6k7l7l6m8j5j9m6j8l8h6i7h7g6j11g7j10j12g5e8n9o10h11i10f8",
            ),
        ];
        for (rule, moves) in cases {
            let g = game(rule, moves);
            let cache = VcfCache::new(16);
            let mut b = FastBoard::from_game(&g);
            let mut v = Vcf {
                cache: &cache,
                nodes: 0,
                node_limit: 1_000_000,
                deadline: None,
            };
            assert_eq!(v.solve(&mut b, 120, &mut Vec::new()), None, "{moves}");
            let mut vt = VcfThreat::new(&cache, 1_000_000, None);
            let (plies, line) = vt.solve(&mut b, 24).expect(moves);
            assert!(plies >= 5 && plies % 2 == 1, "{moves}: {plies}");
            let m = b.pos(line[0]);
            let me = g.side_to_move();
            assert!(
                crate::tactics::proven_win_after(g.board(), rule, me, m),
                "{moves}: {m} is not a proven win"
            );
            // The board is left as it was.
            assert_eq!(b.hash(), FastBoard::from_game(&g).hash());
        }
    }

    /// Random games in every rule (random cells near the stones mixed with the best-scored
    /// cell): wherever the search claims a win, the slow prover on the rules oracle confirms it.
    #[test]
    fn random_claims_are_proven_by_the_oracle() {
        use rand::{Rng, SeedableRng};
        let seed = 0x7f3_2026u64;
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let caro = Rule::Caro {
            overline_wins: false,
        };
        let cache = VcfCache::new(16);
        let mut checked = 0;
        for n in 0..40 {
            let rule = [Rule::Freestyle, Rule::Exact, Rule::Renju, caro][n % 4];
            let mut g = Game::new(15, 15, rule).unwrap();
            g.play(crate::pos::Pos::new(7, 7)).unwrap();
            while g.outcome().is_none() && g.board().stone_count() < 50 {
                let mut b = FastBoard::from_game(&g);
                let me = b.side_to_move();
                let mut vcf = Vcf {
                    cache: &cache,
                    nodes: 0,
                    node_limit: 20_000,
                    deadline: None,
                };
                if vcf.solve(&mut b, 60, &mut Vec::new()).is_none() {
                    if let Some((_, line)) = VcfThreat::new(&cache, 20_000, None).solve(&mut b, 8) {
                        let m = b.pos(line[0]);
                        assert!(
                            crate::tactics::proven_win_after(g.board(), rule, me, m),
                            "seed {seed:#x} game {n} {rule}: {m} claimed\n{b:?}"
                        );
                        checked += 1;
                    }
                }
                let cells: Vec<Idx> = b
                    .area(2)
                    .filter(|&i| b.is_empty(i) && b.is_near(i) && b.is_legal(i))
                    .collect();
                let Some(&best) = cells.iter().max_by_key(|&&i| (b.cell_score(i, me), i)) else {
                    break;
                };
                let m = if rng.gen_bool(0.3) {
                    best
                } else {
                    cells[rng.gen_range(0..cells.len())]
                };
                g.play(b.pos(m)).unwrap();
            }
        }
        assert!(
            checked >= 5,
            "seed {seed:#x}: only {checked} claims checked"
        );
        eprintln!("{checked} VCF-threat wins proved");
    }

    /// Where the opponent can stop every VCF threat (an opening), nothing is claimed, and a
    /// node budget of zero finds nothing either.
    #[test]
    fn claims_nothing_without_a_forced_win() {
        let g = game(Rule::Freestyle, "h8i9h9h10");
        let cache = VcfCache::new(16);
        let mut b = FastBoard::from_game(&g);
        assert_eq!(
            VcfThreat::new(&cache, 1_000_000, None).solve(&mut b, 50),
            None
        );
        let g = game(Rule::Renju, "h8h9f6i7i8j8h6j9g6e6g8j6j7k9i9g7h7m11l10e8");
        let mut b = FastBoard::from_game(&g);
        assert_eq!(VcfThreat::new(&cache, 0, None).solve(&mut b, 24), None);
    }
}
