//! Helpers shared by the tactics generators (`gen_tactics`, `gen_vct_tactics`).

use rand::rngs::StdRng;
use rand::Rng;
use rensa::{Color, Game, Pos};

/// A random empty cell within two of a stone (never a renju foul for black), if any.
pub fn random_near(rng: &mut StdRng, g: &Game) -> Option<Pos> {
    let b = g.board();
    let near: Vec<Pos> = b
        .empty_cells()
        .filter(|p| {
            (-2..=2).any(|dy: i32| {
                (-2..=2).any(|dx: i32| {
                    matches!(
                        b.cell(p.x as i32 + dx, p.y as i32 + dy),
                        rensa::board::Cell::Stone(_)
                    )
                })
            })
        })
        .filter(|&p| !g.is_forbidden(p) || g.side_to_move() == Color::White)
        .collect();
    if near.is_empty() {
        return None;
    }
    Some(near[rng.gen_range(0..near.len())])
}
