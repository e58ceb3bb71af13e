//! A greedy one-ply pattern player: wins if it can, blocks an immediate five, otherwise picks the
//! cell with the best local line score. This is what simple Gomoku programs do; Rensa keeps it as
//! the weakest strength level and as a baseline opponent for matches.

use crate::board::rules::{self, DIRECTIONS};
use crate::board::{Cell, Game};
use crate::pos::Pos;
use crate::types::{Color, Rule};

/// Score of a cell for `color`: for each direction, the stones of `color` reachable through it
/// (up to four each way, stopping at the opponent or the edge), weighted steeply by count and by
/// how open the stretch is.
fn line_score(game: &Game, p: Pos, color: Color) -> i64 {
    let b = game.board();
    let mut total = 0i64;
    for &(dx, dy) in &DIRECTIONS {
        let mut stones = 0;
        let mut room = 1;
        for sign in [-1, 1] {
            for k in 1..=4 {
                match b.cell(p.x as i32 + sign * dx * k, p.y as i32 + sign * dy * k) {
                    Cell::Stone(c) if c == color => {
                        stones += 1;
                        room += 1;
                    }
                    Cell::Empty => room += 1,
                    _ => break,
                }
            }
        }
        if room >= 5 {
            total += [0, 4, 40, 400, 4000, 40000][stones.min(5)];
        }
    }
    total
}

/// Whether `color` may play `p` in this game (renju fouls excluded for black).
fn allowed(game: &Game, p: Pos, color: Color) -> bool {
    !(game.rule() == Rule::Renju && color == Color::Black && game.is_forbidden(p))
}

/// How many cells `color` could win at after playing the empty cell `p` (cells on the four lines
/// through `p`, up to four steps away). Two or more is a threat that cannot be blocked.
fn wins_after(game: &Game, p: Pos, color: Color) -> usize {
    let mut b = game.board().clone();
    if b.place(p, color).is_err() {
        return 0;
    }
    let mut n = 0;
    for &(dx, dy) in &DIRECTIONS {
        for k in (-4..=4).filter(|&k| k != 0) {
            if let Some(q) = p.offset(dx, dy, k) {
                if b.is_empty(q) && rules::is_win(&b, game.rule(), q, color) {
                    n += 1;
                }
            }
        }
    }
    n
}

/// Whether `color` at `p` would complete a run of five or more that does not win (an overline in
/// exact five, a closed five in caro): a wasted move.
fn is_dud(game: &Game, p: Pos, color: Color) -> bool {
    DIRECTIONS
        .iter()
        .any(|&d| rules::run_length(game.board(), p, color, d) >= 5)
        && !rules::is_win(game.board(), game.rule(), p, color)
}

/// Whether a stone lies within two cells of `p`.
fn is_near_stone(game: &Game, p: Pos) -> bool {
    (-2..=2).any(|dy| {
        (-2..=2).any(|dx| {
            matches!(
                game.board().cell(p.x as i32 + dx, p.y as i32 + dy),
                Cell::Stone(_)
            )
        })
    })
}

/// Any move at all, for when nothing better is at hand: the empty cell nearest the centre
/// (ties: the first in row order) that is not in `avoid` and not one of black's renju fouls,
/// else the nearest empty one not in `avoid` (renju black with only fouls left); `None` when no
/// such cell is left. Near the centre rather than in a corner: on an empty board whose centre is
/// to be avoided (a continuous-game mark, a blocked cell) the corner was a poor first move.
pub fn any_move(game: &Game, avoid: &[Pos]) -> Option<Pos> {
    let b = game.board();
    // Twice the distance, so that the centre of an even side (between two cells) is exact.
    let (cx, cy) = (b.width() as i32 - 1, b.height() as i32 - 1);
    let off_centre = |p: &Pos| {
        let (dx, dy) = (2 * p.x as i32 - cx, 2 * p.y as i32 - cy);
        dx * dx + dy * dy
    };
    let mut free: Vec<Pos> = b.empty_cells().filter(|p| !avoid.contains(p)).collect();
    // A stable sort: ties stay in row order. Only the cells up to the first legal one are
    // tested for fouls.
    free.sort_by_key(off_centre);
    let legal = free.iter().find(|&&p| !game.is_forbidden(p));
    legal.or(free.first()).copied()
}

/// The greedy move for the side to move, or `None` if the board is full. In order: win now;
/// block the opponent's five; make a threat that cannot be blocked (open four, double four); stop
/// the opponent's such threat; otherwise the best line score, never a wasted overline or closed
/// five. Ties are broken by position (the first cell in row order wins), so the choice is
/// deterministic.
pub fn best_move(game: &Game) -> Option<Pos> {
    let b = game.board();
    let me = game.side_to_move();
    let opp = me.opponent();
    if b.stone_count() == 0 {
        return Some(Pos::new((b.width() / 2) as u8, (b.height() / 2) as u8));
    }
    let empties: Vec<Pos> = b.empty_cells().collect();
    let legal: Vec<Pos> = empties
        .iter()
        .copied()
        .filter(|&p| allowed(game, p, me))
        .collect();
    let pool = if legal.is_empty() { &empties } else { &legal };
    // Step 1. Win now; Step 2. block a five.
    for color in [me, opp] {
        if let Some(&p) = pool
            .iter()
            .find(|&&p| rules::is_win(b, game.rule(), p, color))
        {
            return Some(p);
        }
    }
    let near: Vec<Pos> = pool
        .iter()
        .copied()
        .filter(|&p| is_near_stone(game, p))
        .collect();
    let cands = if near.is_empty() { pool.clone() } else { near };
    let score = |p: Pos| {
        let s = 2 * line_score(game, p, me) + line_score(game, p, opp);
        // Prefer earlier cells on ties: negate the row-major index.
        (s, -((p.y as i64) * 64 + p.x as i64))
    };
    // Step 3. A threat of ours that cannot be blocked; Step 4. the opponent's, taken first.
    for color in [me, opp] {
        if let Some(p) = cands
            .iter()
            .copied()
            .filter(|&p| wins_after(game, p, color) >= 2)
            .max_by_key(|&p| score(p))
        {
            return Some(p);
        }
    }
    // Step 5. The best line score, avoiding moves that complete a run that does not win.
    cands
        .iter()
        .copied()
        .filter(|&p| !is_dud(game, p, me))
        .max_by_key(|&p| score(p))
        .or_else(|| cands.iter().copied().max_by_key(|&p| score(p)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pos::parse_algebraic;

    fn answer(moves: &str, rule: Rule) -> Pos {
        let g = Game::from_moves(15, 15, rule, &parse_algebraic(moves).unwrap()).unwrap();
        best_move(&g).unwrap()
    }

    /// protocol.md §11 (GomocupJudge's rule tester): the greedy player is the engine's instant
    /// answer (`timeout_turn 0`, strength 0), so it must pass the rule vectors too.
    #[test]
    fn passes_the_gomocup_rule_vectors() {
        let all = "h8h9i8i9j8j9k8k9";
        for rule in [
            Rule::Freestyle,
            Rule::Exact,
            Rule::Renju,
            Rule::Caro {
                overline_wins: false,
            },
        ] {
            let p = answer(all, rule);
            assert!(
                [Pos::new(6, 7), Pos::new(11, 7)].contains(&p),
                "{rule}: {p}"
            );
        }
        // Standard: white must block the open three, not make a six at 7,12.
        let p = answer("h8h9i8h10g8h11j13h12g14h14i15", Rule::Exact);
        assert!(
            [Pos::new(5, 7), Pos::new(9, 7)].contains(&p),
            "standard: {p}"
        );
        // Renju: 6,8 is black's only forbidden point.
        assert_ne!(answer("h8h9i7i9h10i6i11i12", Rule::Renju), Pos::new(6, 8));
        // Caro: not the five closed at both ends (10,7); block white's open three.
        let p = answer(
            "h8f8g8f9i8f7j8l8",
            Rule::Caro {
                overline_wins: false,
            },
        );
        assert!(
            [
                Pos::new(5, 4),
                Pos::new(5, 5),
                Pos::new(5, 9),
                Pos::new(5, 10)
            ]
            .contains(&p),
            "caro: {p}"
        );
    }

    #[test]
    fn any_move_takes_the_free_cell_nearest_the_centre() {
        // Bug (newcomer review): with only a continuous-game mark on the centre of an empty
        // board, the answer was the corner 0,0.
        let g = Game::new(15, 15, Rule::Freestyle).unwrap();
        assert_eq!(any_move(&g, &[]), Some(Pos::new(7, 7)));
        assert_eq!(any_move(&g, &[Pos::new(7, 7)]), Some(Pos::new(7, 6)));
        // An even side's centre lies between four cells; the first in row order is taken.
        let g = Game::new(20, 20, Rule::Freestyle).unwrap();
        assert_eq!(any_move(&g, &[]), Some(Pos::new(9, 9)));
        // Renju black never takes a foul while another cell is free: with the free cells around
        // the only forbidden point (6,8) avoided, 6,8 is the free cell nearest the centre, and
        // still not taken.
        let moves = parse_algebraic("h8h9i7i9h10i6i11i12").unwrap();
        let g = Game::from_moves(15, 15, Rule::Renju, &moves).unwrap();
        assert!(g.is_forbidden(Pos::new(6, 8)));
        let others: Vec<Pos> = g
            .board()
            .empty_cells()
            .filter(|p| (p.x as i32 - 6).abs() <= 2 && (p.y as i32 - 8).abs() <= 2)
            .filter(|&p| p != Pos::new(6, 8))
            .collect();
        let p = any_move(&g, &others).unwrap();
        assert_ne!(p, Pos::new(6, 8));
        assert!(!others.contains(&p));
    }
}
