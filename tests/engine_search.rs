//! Black-box tests of the engine's search through the public `Engine` API, judged by `Game`
//! (the rules oracle). Limits are depths and node counts, never wall-clock thresholds.

use rensa::board::rules;
use rensa::engine::{Engine, Limits};
use rensa::pos::parse_algebraic;
use rensa::{Color, Game, Pos, Reason, Rule};
use std::sync::atomic::AtomicBool;

const RULES: [Rule; 5] = Rule::ALL;

fn engine_at(rule: Rule, side: usize, moves: &[Pos]) -> Engine {
    let mut e = Engine::new();
    e.set_rule(rule);
    e.set_memory_limit(32 << 20);
    e.new_game(side, side).unwrap();
    for &m in moves {
        e.play(m).unwrap();
    }
    e
}

fn think(e: &mut Engine, depth: i32) -> rensa::SearchResult {
    let limits = Limits {
        max_depth: Some(depth),
        max_nodes: Some(3_000_000),
        ..Limits::default()
    };
    e.think(&limits, &AtomicBool::new(false), &mut |_| {})
}

fn p(x: u8, y: u8) -> Pos {
    Pos::new(x, y)
}

fn moves(text: &str) -> Vec<Pos> {
    parse_algebraic(text).unwrap()
}

#[test]
fn wins_in_one_in_every_rule() {
    // protocol.md §11, all rules: black to move wins at 6,7 or 11,7.
    for rule in RULES {
        let mut e = engine_at(rule, 15, &moves("h8h9i8i9j8j9k8k9"));
        let r = think(&mut e, 4);
        let best = r.best.unwrap();
        assert!([p(6, 7), p(11, 7)].contains(&best), "{rule}: played {best}");
        assert_eq!(r.value, rensa::Value::mate_in(1), "{rule}");
    }
}

#[test]
fn blocks_a_four_in_every_rule() {
    // Black 7..10 on row 7, closed by white at 6,7: white must take 11,7 (in caro 12,7 also
    // stops it, since 11,7 would then make a five closed at both ends). Judged by the oracle:
    // after white's move no black move wins at once.
    let line = [
        p(7, 7),
        p(6, 7),
        p(8, 7),
        p(3, 3),
        p(9, 7),
        p(12, 12),
        p(10, 7),
    ];
    for rule in RULES {
        let mut e = engine_at(rule, 15, &line);
        let best = think(&mut e, 4).best.unwrap();
        let mut after = line.to_vec();
        after.push(best);
        let game = Game::from_moves(15, 15, rule, &after).unwrap();
        assert!(!game.is_over(), "{rule}: {best}");
        let b = game.board();
        let wins = (0..15)
            .flat_map(|y| (0..15).map(move |x| p(x, y)))
            .filter(|&q| b.is_empty(q) && rules::is_win(b, rule, q, Color::Black));
        assert_eq!(wins.count(), 0, "{rule}: black still wins after {best}");
        if !matches!(rule, Rule::Caro { .. }) {
            assert_eq!(best, p(11, 7), "{rule}");
        }
    }
}

#[test]
fn standard_blocks_the_three_instead_of_making_six() {
    // protocol.md §11: 7,12 would be a six (no win); white must block at 5,7 or 9,7.
    let mut e = engine_at(Rule::Exact, 15, &moves("h8h9i8h10g8h11j13h12g14h14i15"));
    let best = think(&mut e, 6).best.unwrap();
    assert!([p(5, 7), p(9, 7)].contains(&best), "played {best}");
}

#[test]
fn caro_blocks_the_three_instead_of_a_closed_five() {
    // protocol.md §11: 10,7 is a five closed at both ends; black must block white's three.
    let mut e = engine_at(
        Rule::Caro {
            overline_wins: false,
        },
        15,
        &moves("h8f8g8f9i8f7j8l8"),
    );
    let best = think(&mut e, 6).best.unwrap();
    assert!(
        [p(5, 4), p(5, 5), p(5, 9), p(5, 10)].contains(&best),
        "played {best}"
    );
}

#[test]
fn renju_black_avoids_the_forbidden_point() {
    // protocol.md §11: 6,8 is a double three for black.
    let ms = moves("h8h9i7i9h10i6i11i12");
    let g = Game::from_moves(15, 15, Rule::Renju, &ms).unwrap();
    assert!(g.is_forbidden(p(6, 8)));
    let mut e = engine_at(Rule::Renju, 15, &ms);
    for depth in 1..=5 {
        let best = think(&mut e, depth).best.unwrap();
        assert!(
            !g.is_forbidden(best) && g.board().is_empty(best),
            "played {best}"
        );
    }
}

/// Positions (found by `examples/findvcf.rs`) where the side to move wins by continuous fours
/// needing at least three fours; the engine must see the win and convert it against itself.
const VCF_POSITIONS: &[(Rule, &str)] = &[
    (
        Rule::Freestyle,
        "g7f6e10e7f7k11h7i7g8i6f8i11k7e11f9j5h8d11g11j9i8e8j10j8k8e9",
    ),
    (Rule::Exact, "g8j10e7k11h9h10e8h8g7i7i9g9e11f10j6i10g10k7"),
    (
        Rule::Exact,
        "g6c2g11i7e7i11g9e11j11h6g7g8g5h9h7f7g3g4k10e6d5i9i10f11",
    ),
    (
        Rule::Renju,
        "k6g2k2k3e8i4j5l7j2i2g9g5i11h9i9j7e5i7i6k5f11e10h7m7k7e11g8g6j11k4j9h11f5f9e9g10i8i12j13",
    ),
    (
        Rule::Renju,
        "g11j5i9j8h10h5e8e6h9k5f12f7e7e13f5i6i7j10f8i11g9d6e9f9",
    ),
    (
        Rule::Caro {
            overline_wins: false,
        },
        "h8j7f7k7g7j11h7h5i7e8f11e7e11e5e10e9e6j8",
    ),
];

#[test]
fn finds_and_converts_vcf_wins() {
    for &(rule, text) in VCF_POSITIONS {
        let ms = moves(text);
        let mut game = Game::from_moves(15, 15, rule, &ms).unwrap();
        let attacker = game.side_to_move();
        let mut e = engine_at(rule, 15, &ms);
        let r = think(&mut e, 6);
        assert!(
            r.value.is_mate() && r.value.0 > 0 && r.value.mate_plies().unwrap() >= 5,
            "{rule} {text}: value {}",
            r.value
        );
        for _ in 0..40 {
            if game.is_over() {
                break;
            }
            let m = think(&mut e, 6).best.unwrap();
            game.play(m).unwrap();
            e.play(m).unwrap();
        }
        let o = game.outcome().expect("game decided");
        assert_eq!(o.winner, Some(attacker), "{rule} {text}: {o:?}");
    }
}

#[test]
fn never_plays_occupied_or_forbidden_points() {
    // Short engine-vs-engine games in every rule with tiny node budgets and a fixed opening set.
    let openings = ["h8", "h8i9", "h8i8h9", "h8g9i9h10"];
    for rule in RULES {
        for (n, o) in openings.iter().enumerate() {
            let ms = moves(o);
            let size = if n % 2 == 0 { 15 } else { 12 };
            let mut game = Game::from_moves(size, size, rule, &ms).unwrap();
            let mut e = engine_at(rule, size, &ms);
            while !game.is_over() && game.moves().len() < 40 {
                let limits = Limits {
                    max_nodes: Some(3000 + 500 * n as u64),
                    ..Limits::default()
                };
                let m = e
                    .think(&limits, &AtomicBool::new(false), &mut |_| {})
                    .best
                    .unwrap();
                assert!(game.board().is_empty(m), "{rule}: occupied {m}");
                game.play(m).unwrap();
                e.play(m).unwrap();
                if let Some(o) = game.outcome() {
                    assert_ne!(o.reason, Reason::Forbidden, "{rule}: black played a foul");
                }
            }
        }
    }
}

#[test]
fn answers_at_once_with_zero_turn_time_and_when_stopped() {
    let mut e = engine_at(Rule::Renju, 15, &moves("h8h9i7i9h10i6i11i12"));
    let limits = Limits {
        turn_time_ms: Some(0),
        ..Limits::default()
    };
    let r = e.think(&limits, &AtomicBool::new(false), &mut |_| {});
    let best = r.best.unwrap();
    assert!(!e.game().is_forbidden(best) && e.game().board().is_empty(best));
    let r = e.think(&Limits::default(), &AtomicBool::new(true), &mut |_| {});
    let best = r.best.unwrap();
    assert!(!e.game().is_forbidden(best) && e.game().board().is_empty(best));
}

#[test]
fn search_is_deterministic() {
    let ms = moves("h8i9i8g8h9h7");
    let a = think(&mut engine_at(Rule::Freestyle, 15, &ms), 5);
    let b = think(&mut engine_at(Rule::Freestyle, 15, &ms), 5);
    assert_eq!((a.best, a.nodes, a.value), (b.best, b.nodes, b.value));
}

#[test]
fn nbest_gives_distinct_legal_moves() {
    let ms = moves("h8i9i8g8h9h7");
    let mut e = engine_at(Rule::Freestyle, 15, &ms);
    let limits = Limits {
        max_depth: Some(3),
        ..Limits::default()
    };
    let rs = e.think_nbest(&limits, 3, &AtomicBool::new(false), &mut |_| {});
    assert_eq!(rs.len(), 3);
    let mut bests: Vec<Pos> = rs.iter().map(|r| r.best.unwrap()).collect();
    assert!(bests.iter().all(|&b| e.game().board().is_empty(b)));
    bests.sort();
    bests.dedup();
    assert_eq!(bests.len(), 3);
}

#[test]
fn weak_levels_play_legal_moves() {
    let ms = moves("h8h9i7i9h10i6i11i12");
    for strength in [0, 10, 40, 70] {
        let mut e = engine_at(Rule::Renju, 15, &ms);
        let limits = Limits {
            strength,
            ..Limits::default()
        };
        let best = e
            .think(&limits, &AtomicBool::new(false), &mut |_| {})
            .best
            .unwrap();
        assert!(!e.game().is_forbidden(best) && e.game().board().is_empty(best));
    }
    let _ = Color::Black;
}

#[test]
fn plays_legal_moves_on_every_board_shape_until_the_end() {
    for (w, h, rule) in [
        (5, 5, Rule::Freestyle),
        (5, 9, Rule::Renju),
        (7, 20, Rule::Exact),
        (64, 64, Rule::Freestyle),
        (
            6,
            6,
            Rule::Caro {
                overline_wins: true,
            },
        ),
    ] {
        let mut game = Game::new(w, h, rule).unwrap();
        let mut e = Engine::new();
        e.set_rule(rule);
        e.set_memory_limit(16 << 20);
        e.new_game(w, h).unwrap();
        let limits = Limits {
            max_nodes: Some(2000),
            ..Limits::default()
        };
        while !game.is_over() && game.moves().len() < 50 {
            let m = e
                .think(&limits, &AtomicBool::new(false), &mut |_| {})
                .best
                .expect("a move while cells are empty");
            assert!(game.board().is_empty(m), "{w}x{h} {rule}: occupied {m}");
            game.play(m).unwrap();
            e.play(m).unwrap();
            assert_ne!(
                game.outcome().map(|o| o.reason),
                Some(Reason::Forbidden),
                "{w}x{h}: foul"
            );
        }
        if game.board().is_full() {
            let r = e.think(&limits, &AtomicBool::new(false), &mut |_| {});
            assert_eq!(r.best, None);
        }
    }
}

#[test]
fn engine_can_think_on_another_thread() {
    fn assert_send<T: Send>() {}
    assert_send::<Engine>();
    let mut e = engine_at(Rule::Freestyle, 15, &moves("h8"));
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let s2 = stop.clone();
    let h = std::thread::spawn(move || {
        let r = e.think(&Limits::default(), &s2, &mut |_| {});
        r.best
    });
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let best = h.join().unwrap().unwrap();
    assert_ne!(best, p(7, 7));
}

#[test]
fn two_threads_play_legal_moves_in_every_rule() {
    for rule in RULES {
        let mut e = engine_at(rule, 15, &moves("h8h9i7i9h10i6i11i12"));
        let limits = Limits {
            turn_time_ms: Some(150),
            threads: 2,
            ..Limits::default()
        };
        let r = e.think(&limits, &AtomicBool::new(false), &mut |_| {});
        let best = r.best.unwrap();
        assert!(
            e.game().board().is_empty(best) && !e.game().is_forbidden(best),
            "{rule}: {best}"
        );
        assert!(r.depth >= 1 && r.nodes > 0, "{rule}: {r:?}");
    }
}

#[test]
fn two_threads_stop_when_told() {
    use std::sync::atomic::Ordering;
    use std::time::Duration;
    let mut e = engine_at(Rule::Freestyle, 15, &moves("h8i9i8g8h9h7"));
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let s2 = stop.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    // No time or depth limit: only the stop flag ends this search.
    std::thread::spawn(move || {
        let limits = Limits {
            threads: 2,
            ..Limits::default()
        };
        let r = e.think(&limits, &s2, &mut |_| {});
        let _ = tx.send((r, e));
    });
    std::thread::sleep(Duration::from_millis(300));
    assert!(rx.try_recv().is_err(), "an unlimited search ran on");
    stop.store(true, Ordering::Relaxed);
    // Generous: a stopped search answers within milliseconds.
    let (r, e) = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("think returned after stop");
    let best = r.best.unwrap();
    assert!(e.game().board().is_empty(best));
    assert!(r.nodes > 0);
}

#[test]
fn one_thread_and_node_limited_searches_replay_exactly() {
    let ms = moves("h8i9i8g8h9h7");
    // threads 1 is the plain single-threaded search; a node-limited search ignores threads.
    let one = |threads: usize| {
        let limits = Limits {
            max_depth: Some(6),
            max_nodes: Some(3_000_000),
            threads,
            ..Limits::default()
        };
        let mut e = engine_at(Rule::Freestyle, 15, &ms);
        e.think(&limits, &AtomicBool::new(false), &mut |_| {})
    };
    let a = one(1);
    let b = one(2);
    let c = one(1);
    assert_eq!((a.best, a.nodes, a.value), (b.best, b.nodes, b.value));
    assert_eq!((a.best, a.nodes, a.value), (c.best, c.nodes, c.value));
    // Without a node cap, one thread is still deterministic.
    let depth_only = || {
        let limits = Limits {
            max_depth: Some(6),
            threads: 1,
            ..Limits::default()
        };
        let mut e = engine_at(Rule::Freestyle, 15, &ms);
        e.think(&limits, &AtomicBool::new(false), &mut |_| {})
    };
    let (d, f) = (depth_only(), depth_only());
    assert_eq!((d.best, d.nodes, d.value), (f.best, f.nodes, f.value));
    assert_eq!((d.best, d.nodes, d.value), (a.best, a.nodes, a.value));
}
