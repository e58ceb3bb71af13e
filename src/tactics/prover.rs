//! A slow, obviously correct VCF prover ("victory by continuous fours") on top of the rules
//! oracle. It verifies the tactical suites; it is not the engine's threat search and never runs
//! during a game.
//!
//! The attacker moves only with fours (moves after which it has at least one winning point). The
//! defender's replies are not guessed: every legal defender move that leaves the attacker without
//! a winning point is tried. What "wins" means is asked of [`rules::is_win`] and legality of
//! [`rules::is_forbidden`], so exact five, caro's closed fives and renju fouls (for either side)
//! are handled by the oracle, never re-implemented here:
//!
//! * a defender that can make five itself is not forced, so a four that leaves the defender a
//!   winning point proves nothing;
//! * two completion points that no single legal defender move neutralises win (in caro a stone can
//!   also close a five from the far end, so every point near the completions is tried);
//! * black may not use forbidden points, to attack or to defend: a white four whose completion
//!   point is forbidden for black cannot be blocked.
//!
//! Soundness: a returned win is a real forced win under the rules. Completeness: within the move
//! bound, every four of the attacker is tried (candidate filters only skip cells that cannot make
//! a four), so "no VCF within n moves" is exact as well. A node budget keeps every call bounded;
//! running out is reported as [`Exhausted`], never as an answer.

use crate::board::rules::{self, DIRECTIONS};
use crate::board::{Board, Cell};
use crate::pos::Pos;
use crate::types::{Color, Rule};
use std::collections::HashMap;

/// The node budget ran out before the question was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exhausted;

/// A proven forced win.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Win {
    /// Attacker moves used, the final five included (plies to win = `2 * moves - 1`).
    pub moves: u32,
    /// One main line: attacker and defender moves alternating, ending with the five.
    pub line: Vec<Pos>,
}

impl Win {
    /// Plies from the attacker's first move to its five, both included.
    pub fn plies(&self) -> u32 {
        2 * self.moves - 1
    }
}

/// The VCF prover for one rule and one attacking colour.
pub struct Prover {
    rule: Rule,
    attacker: Color,
    nodes: u64,
    node_limit: u64,
    /// Positions (attacker to move) known to have no VCF within the stored number of moves.
    no_win: HashMap<Board, u32>,
}

impl Prover {
    /// A prover for `attacker` under `rule`, giving up after `node_limit` searched positions.
    pub fn new(rule: Rule, attacker: Color, node_limit: u64) -> Prover {
        Prover {
            rule,
            attacker,
            nodes: 0,
            node_limit,
            no_win: HashMap::new(),
        }
    }

    /// Positions searched so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    fn defender(&self) -> Color {
        self.attacker.opponent()
    }

    /// Whether `color` may play `p`: empty, and not a renju foul for black.
    fn legal(&self, b: &Board, p: Pos, color: Color) -> bool {
        b.is_empty(p)
            && !(self.rule == Rule::Renju && color == Color::Black && rules::is_forbidden(b, p))
    }

    fn wins_at(&self, b: &Board, p: Pos, color: Color) -> bool {
        b.is_empty(p) && rules::is_win(b, self.rule, p, color) && self.legal(b, p, color)
    }

    /// Every point where `color` would win at once (row-major order). A five through a cell
    /// needs four stones of `color` within four steps on one line, so only such cells are asked.
    pub fn win_points(&self, b: &Board, color: Color) -> Vec<Pos> {
        b.empty_cells()
            .filter(|&p| max_stones_on_a_line(b, p, color, 4) >= 4 && self.wins_at(b, p, color))
            .collect()
    }

    /// Searches for a VCF of at most `max_moves` attacker moves (the five included) from `b`
    /// with the attacker to move.
    pub fn vcf(&mut self, b: &Board, max_moves: u32) -> Result<Option<Win>, Exhausted> {
        let mut b = b.clone();
        self.search(&mut b, max_moves)
    }

    /// The shortest VCF within `max_moves` attacker moves (iterative deepening).
    pub fn shortest_vcf(&mut self, b: &Board, max_moves: u32) -> Result<Option<Win>, Exhausted> {
        for n in 1..=max_moves {
            if let Some(w) = self.vcf(b, n)? {
                return Ok(Some(w));
            }
        }
        Ok(None)
    }

    /// Every first move of the attacker that starts a VCF of at most `moves` attacker moves
    /// (row-major order). With `moves == 1`, the winning points.
    pub fn winning_first_moves(&mut self, b: &Board, moves: u32) -> Result<Vec<Pos>, Exhausted> {
        let a = self.attacker;
        let wins = self.win_points(b, a);
        if moves <= 1 || !wins.is_empty() {
            return Ok(wins);
        }
        let mut b = b.clone();
        let mut out = Vec::new();
        for m in self.candidates(&b)? {
            if self.try_four(&mut b, m, moves)?.is_some() {
                out.push(m);
            }
        }
        Ok(out)
    }

    /// Whether the attacker still has a VCF within `max_moves` after the defender plays `r`.
    pub fn vcf_after_defence(
        &mut self,
        b: &Board,
        r: Pos,
        max_moves: u32,
    ) -> Result<Option<Win>, Exhausted> {
        let mut b = b.clone();
        if b.place(r, self.defender()).is_err() {
            return Ok(None);
        }
        self.search(&mut b, max_moves)
    }

    fn tick(&mut self) -> Result<(), Exhausted> {
        self.nodes += 1;
        if self.nodes > self.node_limit {
            Err(Exhausted)
        } else {
            Ok(())
        }
    }

    /// The attacker's candidate moves: if the defender has one winning point the attacker must
    /// take it; with two or more it cannot stop the defender; otherwise every empty cell with at
    /// least three attacker stones within four steps on one line (no other cell can make a four).
    fn candidates(&self, b: &Board) -> Result<Vec<Pos>, Exhausted> {
        let d_wins = self.win_points(b, self.defender());
        Ok(match d_wins.len() {
            0 => b
                .empty_cells()
                .filter(|&p| max_stones_on_a_line(b, p, self.attacker, 4) >= 3)
                .collect(),
            1 => d_wins,
            _ => Vec::new(),
        })
    }

    /// Attacker to move on `b`: a VCF within `depth` attacker moves?
    fn search(&mut self, b: &mut Board, depth: u32) -> Result<Option<Win>, Exhausted> {
        self.tick()?;
        // Step 1. A five now.
        if let Some(&w) = self.win_points(b, self.attacker).first() {
            return Ok(Some(Win {
                moves: 1,
                line: vec![w],
            }));
        }
        if depth <= 1 || self.no_win.get(b).is_some_and(|&d| d >= depth) {
            return Ok(None);
        }
        // Step 2. Every four (or the forced block of the defender's four).
        for m in self.candidates(b)? {
            if let Some(w) = self.try_four(b, m, depth)? {
                return Ok(Some(w));
            }
        }
        self.no_win.insert(b.clone(), depth);
        Ok(None)
    }

    /// The attacker plays `m` (which must be a four) and wins within `depth` moves against every
    /// defence? `b` is restored before returning.
    fn try_four(&mut self, b: &mut Board, m: Pos, depth: u32) -> Result<Option<Win>, Exhausted> {
        let a = self.attacker;
        if depth < 2 || !self.legal(b, m, a) {
            return Ok(None);
        }
        b.place(m, a).expect("legal move");
        let result = self.after_four(b, m, depth);
        b.remove(m);
        result
    }

    fn after_four(&mut self, b: &mut Board, m: Pos, depth: u32) -> Result<Option<Win>, Exhausted> {
        let (a, d) = (self.attacker, self.defender());
        // Step 1. The attacker had no winning point before `m`, so every new one lies on a line
        // through `m` within four steps.
        let threats: Vec<Pos> = line_cells(b, m, 4)
            .into_iter()
            .filter(|&p| self.wins_at(b, p, a))
            .collect();
        if threats.is_empty() {
            return Ok(None);
        }
        // Step 2. A defender that can make five is not forced.
        if !self.win_points(b, d).is_empty() {
            return Ok(None);
        }
        // Step 3. Defences: legal defender moves after which no threat still wins. A defender
        // stone can only take a completion point or (caro) close a five from outside, so the
        // cells on the lines through each threat within five steps are all that can defend.
        let mut near: Vec<Pos> = threats
            .iter()
            .flat_map(|&w| line_cells(b, w, 5))
            .chain(threats.iter().copied())
            .collect();
        near.sort();
        near.dedup();
        let mut defences = Vec::new();
        for r in near {
            if !self.legal(b, r, d) {
                continue;
            }
            b.place(r, d).expect("legal move");
            let held = threats.iter().any(|&w| self.wins_at(b, w, a));
            b.remove(r);
            if !held {
                defences.push(r);
            }
        }
        // Step 4. No defence: whatever the defender plays, a completion point is left.
        if defences.is_empty() {
            let r = b.empty_cells().find(|&p| self.legal(b, p, d));
            let mut line = vec![m];
            if let Some(r) = r {
                b.place(r, d).expect("legal move");
                let w = self.win_points(b, a).first().copied();
                b.remove(r);
                line.push(r);
                line.extend(w);
            }
            return Ok(Some(Win { moves: 2, line }));
        }
        // Step 5. Every defence must still lose within the remaining moves.
        let mut main: Option<Win> = None;
        for r in defences {
            b.place(r, d).expect("legal move");
            let sub = self.search(b, depth - 1);
            b.remove(r);
            match sub? {
                None => return Ok(None),
                Some(w) => {
                    let longer = main.as_ref().is_none_or(|mw| w.moves + 1 > mw.moves);
                    if longer {
                        let mut line = vec![m, r];
                        line.extend(w.line);
                        main = Some(Win {
                            moves: w.moves + 1,
                            line,
                        });
                    }
                }
            }
        }
        Ok(main)
    }
}

/// Empty cells on the four lines through `p` within `reach` steps (row-major order).
fn line_cells(b: &Board, p: Pos, reach: i32) -> Vec<Pos> {
    let mut out: Vec<Pos> = DIRECTIONS
        .iter()
        .flat_map(|&(dx, dy)| (-reach..=reach).filter_map(move |k| p.offset(dx, dy, k)))
        .filter(|&q| q != p && b.is_empty(q))
        .collect();
    out.sort_by_key(|q| (q.y, q.x));
    out.dedup();
    out
}

/// Stones of `color` on the four lines through `p` within `reach` steps, the most on one line.
fn max_stones_on_a_line(b: &Board, p: Pos, color: Color, reach: i32) -> usize {
    DIRECTIONS
        .iter()
        .map(|&(dx, dy)| {
            (-reach..=reach)
                .filter(|&k| {
                    k != 0 && b.cell(p.x as i32 + dx * k, p.y as i32 + dy * k) == Cell::Stone(color)
                })
                .count()
        })
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pos::parse_algebraic;

    fn board(w: usize, h: usize, black: &[(u8, u8)], white: &[(u8, u8)]) -> Board {
        let mut b = Board::new(w, h).unwrap();
        for &(x, y) in black {
            b.place(Pos::new(x, y), Color::Black).unwrap();
        }
        for &(x, y) in white {
            b.place(Pos::new(x, y), Color::White).unwrap();
        }
        b
    }

    #[test]
    fn immediate_five_and_open_four() {
        let b = board(15, 15, &[(4, 7), (5, 7), (6, 7), (7, 7)], &[]);
        let mut p = Prover::new(Rule::Freestyle, Color::Black, 100_000);
        let w = p.shortest_vcf(&b, 5).unwrap().unwrap();
        assert_eq!(w.moves, 1);
        let b = board(15, 15, &[(5, 7), (6, 7), (7, 7)], &[(0, 0), (1, 1), (2, 2)]);
        let mut p = Prover::new(Rule::Freestyle, Color::Black, 100_000);
        let w = p.shortest_vcf(&b, 5).unwrap().unwrap();
        assert_eq!((w.moves, w.plies()), (2, 3));
        assert_eq!(
            p.winning_first_moves(&b, 2).unwrap(),
            vec![Pos::new(4, 7), Pos::new(8, 7)]
        );
    }

    #[test]
    fn closed_three_is_not_a_vcf() {
        let b = board(15, 15, &[(5, 7), (6, 7), (7, 7)], &[(4, 7)]);
        let mut p = Prover::new(Rule::Freestyle, Color::Black, 100_000);
        assert_eq!(p.shortest_vcf(&b, 6).unwrap(), None);
    }

    #[test]
    fn caro_both_closed_four_is_no_threat() {
        // O X X X X _ O: the completion gives a five closed at both ends.
        let b = board(15, 15, &[(3, 7), (4, 7), (5, 7), (6, 7)], &[(2, 7), (8, 7)]);
        let caro = Rule::Caro {
            overline_wins: false,
        };
        let mut p = Prover::new(caro, Color::Black, 100_000);
        assert_eq!(p.shortest_vcf(&b, 3).unwrap(), None);
        let mut p = Prover::new(Rule::Freestyle, Color::Black, 100_000);
        assert_eq!(p.shortest_vcf(&b, 3).unwrap().unwrap().moves, 1);
    }

    #[test]
    fn caro_closing_stone_defends_both_completions() {
        // O _ X X X _ _ O: in freestyle 6,7 makes an open four; in caro the defender answers at
        // 2,7 (or 7,7), which closes the other completion's five at both ends.
        let b = board(15, 15, &[(3, 7), (4, 7), (5, 7)], &[(1, 7), (8, 7)]);
        let caro = Rule::Caro {
            overline_wins: false,
        };
        let mut free = Prover::new(Rule::Freestyle, Color::Black, 100_000);
        assert_eq!(free.shortest_vcf(&b, 3).unwrap().unwrap().moves, 2);
        let mut p = Prover::new(caro, Color::Black, 100_000);
        assert_eq!(p.shortest_vcf(&b, 3).unwrap(), None);
    }

    #[test]
    fn renju_white_four_on_black_forbidden_point_wins() {
        // Black's 7,7 is a double-three (5,7 6,7 and 7,5 7,6). White's 11,11 makes the four
        // 8,8..11,11 whose only completion, 7,7, black may not take: a win in renju only.
        let b = board(
            15,
            15,
            &[(5, 7), (6, 7), (7, 5), (7, 6), (12, 12)],
            &[(8, 8), (9, 9), (10, 10), (0, 14)],
        );
        assert!(rules::is_forbidden(&b, Pos::new(7, 7)));
        let mut p = Prover::new(Rule::Renju, Color::White, 100_000);
        let firsts = p.winning_first_moves(&b, 2).unwrap();
        assert!(firsts.contains(&Pos::new(11, 11)), "{firsts:?}");
        let mut free = Prover::new(Rule::Freestyle, Color::White, 100_000);
        let firsts = free.winning_first_moves(&b, 2).unwrap();
        assert!(!firsts.contains(&Pos::new(11, 11)), "{firsts:?}");
    }

    #[test]
    fn renju_black_cannot_win_by_double_four() {
        // 7,7 would make two fours for black (forbidden), so it is no winning first move.
        let b = board(
            15,
            15,
            &[(4, 7), (5, 7), (6, 7), (7, 4), (7, 5), (7, 6)],
            &[(3, 7), (7, 3), (0, 0), (14, 14), (0, 14), (14, 0)],
        );
        let mut renju = Prover::new(Rule::Renju, Color::Black, 100_000);
        assert!(!renju
            .winning_first_moves(&b, 2)
            .unwrap()
            .contains(&Pos::new(7, 7)));
        let mut free = Prover::new(Rule::Freestyle, Color::Black, 100_000);
        assert!(free
            .winning_first_moves(&b, 2)
            .unwrap()
            .contains(&Pos::new(7, 7)));
    }

    #[test]
    fn node_budget_is_reported() {
        let moves = parse_algebraic("h8h9i8i9j8j9").unwrap();
        let mut b = Board::new(15, 15).unwrap();
        for (i, m) in moves.into_iter().enumerate() {
            b.place(m, Color::of_ply(i)).unwrap();
        }
        let mut p = Prover::new(Rule::Freestyle, Color::Black, 1);
        assert_eq!(p.shortest_vcf(&b, 5), Err(Exhausted));
    }
}
