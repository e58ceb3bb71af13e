//! Does the engine find long forced wins by threes and fours in real games? For every game of
//! match records, takes the first position (after the opening, nobody with a five point) where
//! the side to move has a VCT of at least `MIN_PLIES` plies by a generous solver run (6 threes,
//! 24 attacker moves, `NODES` nodes), lets the engine think on it for `MS` ms (one thread, a
//! fresh engine), and counts the move as found when the engine claims a win (a mate value), plays
//! the solver's first move, or plays a move after which every defender reply near the stones
//! still leaves a VCT by the same solver.
//!
//! `cargo run --release --example long_wins -- MS NODES MIN_PLIES FILE...`
//!
//! `FILE` are referee records (`games.jsonl`); `RENSA_TUNING` sets knobs as for the engine.
//! Prints one line per position (`ok` or `MISS`, with the solver's length, the engine's move,
//! value, time and depth) and the total.

use rensa::board::fast::{FastBoard, Idx};
use rensa::board::pattern::Threat;
use rensa::referee::records::read_records;
use rensa::search::alphabeta::{set_process_tuning, Tuning};
use rensa::search::vct::{Vct, VctCache};
use rensa::Value;
use std::sync::atomic::AtomicBool;

/// The side to move's VCT by the generous solver: `(plies, main line)`.
fn solve(b: &mut FastBoard, nodes: u64) -> Option<(u32, Vec<Idx>)> {
    let mut cache = VctCache::new(20);
    let mut vct = Vct::new(&mut cache, nodes, None);
    let mut line = Vec::new();
    vct.solve(b, 24, 6, &mut line)
        .filter(|_| !line.is_empty())
        .map(|n| (n, line))
}

/// Whether every legal defender reply near the stones after the attacker's move `m` leaves the
/// attacker a five or a VCT.
fn still_wins(b: &mut FastBoard, m: Idx, nodes: u64) -> bool {
    b.make(m);
    let attacker = b.side_to_move().opponent();
    let replies: Vec<Idx> = b.area(2).filter(|&i| b.is_near(i)).collect();
    let mut all = true;
    for r in replies {
        if !b.is_legal(r) {
            continue;
        }
        b.make(r);
        let defender_five = b.count(attacker.opponent(), Threat::Five) > 0;
        let wins =
            !defender_five && (b.count(attacker, Threat::Five) > 0 || solve(b, nodes).is_some());
        b.unmake();
        if !wins {
            all = false;
            break;
        }
    }
    b.unmake();
    all
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 {
        eprintln!("usage: long_wins MS NODES MIN_PLIES FILE...");
        std::process::exit(2);
    }
    if let Ok(knobs) = std::env::var("RENSA_TUNING") {
        set_process_tuning(Tuning::parse(&knobs).expect("RENSA_TUNING knobs"));
    }
    let ms: u64 = args[0].parse().expect("MS");
    let nodes: u64 = args[1].parse().expect("NODES");
    let min_plies: u32 = args[2].parse().expect("MIN_PLIES");
    let (mut positions, mut found) = (0, 0);
    for path in &args[3..] {
        let text = std::fs::read_to_string(path).expect("record file");
        for g in read_records(&text).0 {
            let moves = g.all_moves();
            let mut b = FastBoard::new(g.width, g.height, g.rule).expect("board");
            for (n, &m) in moves.iter().enumerate() {
                let me = b.side_to_move();
                let quiet =
                    b.count(me, Threat::Five) == 0 && b.count(me.opponent(), Threat::Five) == 0;
                if n >= g.opening.len() + 2 && quiet {
                    if let Some((len, line)) = solve(&mut b, nodes).filter(|w| w.0 >= min_plies) {
                        positions += 1;
                        let mut e = rensa::engine::Engine::new();
                        e.set_rule(g.rule);
                        e.new_game(g.width, g.height).expect("board");
                        for &p in &moves[..n] {
                            e.play(p).expect("legal move");
                        }
                        let limits = rensa::engine::Limits {
                            turn_time_ms: Some(ms),
                            ..Default::default()
                        };
                        let r = e.think(&limits, &AtomicBool::new(false), &mut |_| {});
                        let best = b.idx(r.best.expect("a move"));
                        let ok = (r.value.is_mate() && r.value > Value::ZERO)
                            || best == line[0]
                            || still_wins(&mut b, best, nodes);
                        found += ok as u32;
                        println!(
                            "{path} {} game {} ply {n}: VCT of {len} plies from {}; engine {} \
                             value {} in {} ms, depth {}: {}",
                            g.rule.name(),
                            g.game_index,
                            b.pos(line[0]),
                            b.pos(best),
                            r.value.0,
                            r.elapsed_ms,
                            r.depth,
                            if ok { "ok" } else { "MISS" }
                        );
                        break;
                    }
                }
                b.make(b.idx(m));
            }
        }
    }
    println!("found {found} of {positions}");
}
