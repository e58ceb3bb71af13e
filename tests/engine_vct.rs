//! Black-box tests of the engine's root VCT step (continuous threes and fours) through the public
//! `Engine` API, judged by `Game` (the rules oracle). Limits are depths and node counts.

use rensa::engine::{Engine, Limits};
use rensa::{Game, Pos, Rule, Value};
use std::sync::atomic::AtomicBool;

fn p(x: u8, y: u8) -> Pos {
    Pos::new(x, y)
}

/// Black's open twos 5,7 6,7 and 7,5 7,6 meet at 7,7 (a double three); white's stones are far.
fn double_three_moves() -> Vec<Pos> {
    vec![
        p(7, 5),
        p(0, 0),
        p(7, 6),
        p(2, 0),
        p(5, 7),
        p(0, 2),
        p(6, 7),
        p(14, 14),
    ]
}

fn think(rule: Rule, moves: &[Pos], depth: i32) -> rensa::SearchResult {
    let mut e = Engine::new();
    e.set_rule(rule);
    e.set_memory_limit(32 << 20);
    e.new_game(15, 15).unwrap();
    for &m in moves {
        e.play(m).unwrap();
    }
    let limits = Limits {
        max_depth: Some(depth),
        max_nodes: Some(3_000_000),
        ..Limits::default()
    };
    e.think(&limits, &AtomicBool::new(false), &mut |_| {})
}

#[test]
fn plays_a_double_three_win_found_by_vct() {
    for rule in [Rule::Freestyle, Rule::Exact] {
        // Depth 1: the search alone cannot see the win; the root VCT proves it.
        let r = think(rule, &double_three_moves(), 1);
        let best = r.best.unwrap();
        assert!(r.value.is_mate() && r.value > Value::ZERO, "{rule}: {r:?}");
        // The win is real: after the move, each white block of either three leaves black a
        // forced win that the engine (as black again) proves.
        assert_eq!(r.pv.first(), Some(&best));
        for reply in [p(4, 7), p(8, 7), p(7, 4), p(7, 8), p(3, 7), p(9, 7)] {
            let mut g = Game::from_moves(15, 15, rule, &double_three_moves()).unwrap();
            g.play(best).unwrap();
            if !g.board().is_empty(reply) {
                continue;
            }
            g.play(reply).unwrap();
            let again = think(rule, g.moves(), 1);
            assert!(
                again.value.is_mate() && again.value > Value::ZERO,
                "{rule}: {best} {reply}: {again:?}"
            );
        }
    }
}

#[test]
fn renju_black_does_not_win_by_a_forbidden_double_three() {
    let r = think(Rule::Renju, &double_three_moves(), 1);
    let best = r.best.unwrap();
    let g = Game::from_moves(15, 15, Rule::Renju, &double_three_moves()).unwrap();
    assert!(g.is_forbidden(p(7, 7)));
    assert!(!g.is_forbidden(best), "played a foul: {r:?}");
    assert_ne!(best, p(7, 7));
}
