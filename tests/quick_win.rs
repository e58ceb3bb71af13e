//! The search's quick win check (`search::alphabeta::quick_win`) against the oracle: in random
//! positions, every win it claims without searching is proven move by move on `board::rules`.

use rand::{Rng, SeedableRng};
use rensa::board::fast::FastBoard;
use rensa::board::pattern::Threat;
use rensa::board::rules;
use rensa::search::alphabeta::quick_win;
use rensa::tactics::proven_win_after;
use rensa::{Color, Game, Pos, Rule};

/// A random game of `stones` stones, each near the ones before (within 2 cells), with no five and
/// no renju foul; `None` when the game ended early.
fn random_position(rng: &mut impl Rng, rule: Rule, stones: usize) -> Option<Game> {
    let n = 15u8;
    let mut g = Game::new(15, 15, rule).ok()?;
    g.play(Pos::new(7, 7)).ok()?;
    while g.moves().len() < stones {
        let last = *g.moves().last()?;
        let anchor = if rng.gen_bool(0.5) {
            last
        } else {
            g.moves()[rng.gen_range(0..g.moves().len())]
        };
        let x = anchor.x as i32 + rng.gen_range(-2..=2);
        let y = anchor.y as i32 + rng.gen_range(-2..=2);
        if !(0..n as i32).contains(&x) || !(0..n as i32).contains(&y) {
            continue;
        }
        let p = Pos::new(x as u8, y as u8);
        if !g.board().is_empty(p) {
            continue;
        }
        let black = g.side_to_move() == Color::Black;
        if rule == Rule::Renju && black && rules::is_forbidden(g.board(), p) {
            continue;
        }
        g.play(p).ok()?;
        if g.is_over() {
            return None;
        }
    }
    Some(g)
}

#[test]
fn quick_wins_are_proven_wins() {
    let seed = 20261121u64;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for rule in [Rule::Freestyle, Rule::Exact, Rule::Renju] {
        let (mut checked, mut five_ply) = (0, 0);
        let mut tries = 0;
        while five_ply < 25 && tries < 20_000 {
            tries += 1;
            let stones = rng.gen_range(6..30);
            let Some(g) = random_position(&mut rng, rule, stones) else {
                continue;
            };
            let mut b = FastBoard::from_game(&g);
            let me = b.side_to_move();
            let opp = me.opponent();
            // The search asks only when neither side has a five point.
            if b.count(me, Threat::Five) > 0 || b.count(opp, Threat::Five) > 0 {
                continue;
            }
            let Some(plies) = quick_win(&mut b, true) else {
                continue;
            };
            checked += 1;
            // The winning first moves the classes promise, each proven against every reply.
            let wanted: &[Threat] = if plies == 3 {
                &[Threat::Flex4]
            } else {
                five_ply += 1;
                assert_eq!(plies, 5);
                &[Threat::Four3, Threat::Three3]
            };
            let cells: Vec<Pos> = b
                .area(4)
                .filter(|&i| b.is_empty(i) && wanted.contains(&b.threat(i, me)))
                .map(|i| b.pos(i))
                .collect();
            let winners: Vec<Pos> = cells
                .iter()
                .copied()
                .filter(|&m| proven_win_after(g.board(), rule, me, m))
                .collect();
            assert!(
                !winners.is_empty(),
                "{rule} seed {seed}: quick win in {plies} not proven; moves {:?}, cells {cells:?}",
                g.moves()
            );
        }
        assert!(
            five_ply >= 25,
            "{rule}: only {five_ply} five-ply quick wins in {tries} positions ({checked} in all)"
        );
    }
}

#[test]
fn no_quick_win_when_the_opponent_can_make_a_four() {
    // Black's double three at 7,7 (open twos 5,7 6,7 and 7,5 7,6); white's 0..2 row is a blocked
    // three at the edge, so white can answer with a four.
    let moves = [
        (7, 5),
        (0, 0),
        (7, 6),
        (1, 0),
        (5, 7),
        (2, 0),
        (6, 7),
        (14, 14),
    ]
    .map(|(x, y)| Pos::new(x, y));
    let g = Game::from_moves(15, 15, Rule::Freestyle, &moves).unwrap();
    let mut b = FastBoard::from_game(&g);
    assert_eq!(quick_win(&mut b, true), None);
    // Without white's edge stones the double three wins in five plies.
    let mut quiet = moves.to_vec();
    quiet[3] = Pos::new(14, 0);
    quiet[5] = Pos::new(0, 14);
    let g = Game::from_moves(15, 15, Rule::Freestyle, &quiet).unwrap();
    let mut b = FastBoard::from_game(&g);
    assert_eq!(quick_win(&mut b, true), Some(5));
    assert_eq!(quick_win(&mut b, false), None);
    // Renju black's double three is a foul: no win.
    let g = Game::from_moves(15, 15, Rule::Renju, &quiet).unwrap();
    let mut b = FastBoard::from_game(&g);
    assert_eq!(quick_win(&mut b, true), None);
}
