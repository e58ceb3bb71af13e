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

/// The greedy move for the side to move, or `None` if the board is full. Ties are broken by
/// position (the first cell in row order wins), so the choice is deterministic.
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
    if let Some(&p) = pool.iter().find(|&&p| rules::is_win(b, game.rule(), p, me)) {
        return Some(p);
    }
    if let Some(&p) = pool
        .iter()
        .find(|&&p| rules::is_win(b, game.rule(), p, opp))
    {
        return Some(p);
    }
    pool.iter().copied().max_by_key(|&p| {
        let score = 2 * line_score(game, p, me) + line_score(game, p, opp);
        // Prefer earlier cells on ties: negate the row-major index.
        (score, -((p.y as i64) * 64 + p.x as i64))
    })
}
