//! Where were the games lost? For every game an engine lost in match records, finds the first of
//! its moves after which the opponent had a win by continuous threats (VCT, `search::vct`), and
//! tells whether another move there would have kept the opponent without one (a tactical slip a
//! root check could catch) or not (the position was already lost to a threat sequence). A slip
//! is confirmed by a depth-10 search of the position before the move: if the search proves the
//! loss, the other move only escaped the VCT solver, and the game counts as already lost.
//!
//! `cargo run --release --example loss_review -- NAME NODES FILE...`
//!
//! `NAME` is the engine's name in the records, `NODES` the VCT node cap per solve (for example
//! 200000), `FILE` match record files (`games.jsonl`).

use rensa::board::fast::{FastBoard, Idx};
use rensa::board::pattern::Threat;
use rensa::referee::records::read_records;
use rensa::search::vct::{Vct, VctCache};
use rensa::{Color, Rule};

/// Whether the side to move has a VCT within `nodes` (fresh cache each time: no answer leaks
/// between positions).
fn has_vct(b: &mut FastBoard, nodes: u64) -> bool {
    vct_nodes(b, nodes).is_some()
}

/// The nodes the VCT of the side to move took, if one was found within `nodes`.
fn vct_nodes(b: &mut FastBoard, nodes: u64) -> Option<u64> {
    if matches!(b.rule(), Rule::Caro { .. }) {
        return None;
    }
    let mut cache = VctCache::new(16);
    let mut vct = Vct::new(&mut cache, nodes, None);
    let mut line = Vec::new();
    vct.solve(
        b,
        rensa::search::ROOT_VCT_DEPTH,
        rensa::search::ROOT_VCT_THREES,
        &mut line,
    )
    .map(|_| vct.nodes)
}

/// The legal moves of the side to move near the stones.
fn candidates(b: &mut FastBoard) -> Vec<Idx> {
    let near: Vec<Idx> = b.area(2).filter(|&i| b.is_near(i)).collect();
    near.into_iter().filter(|&i| b.is_legal(i)).collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: loss_review NAME NODES FILE...");
        std::process::exit(2);
    }
    let name = &args[0];
    let nodes: u64 = args[1].parse().expect("NODES");
    let (mut lost, mut slips, mut already, mut none) = (0, 0, 0, 0);
    let mut slip_plies = Vec::new();
    for path in &args[2..] {
        let text = std::fs::read_to_string(path).expect("record file");
        for g in read_records(&text).0 {
            let Some(winner) = g.winner_name() else {
                continue;
            };
            if winner == name || (g.black != *name && g.white != *name) {
                continue;
            }
            lost += 1;
            let ours = if g.black == *name {
                Color::Black
            } else {
                Color::White
            };
            let mut b = FastBoard::new(g.width, g.height, g.rule).expect("board");
            let moves = g.all_moves();
            let mut verdict = String::from("no VCT found before the end");
            for (n, &m) in moves.iter().enumerate() {
                let i = b.idx(m);
                let engine_move = n >= g.opening.len();
                if engine_move && b.side_to_move() == ours && b.count(ours, Threat::Five) == 0 {
                    b.make(i);
                    let opp_wins = vct_nodes(&mut b, nodes);
                    b.unmake();
                    if let Some(found_in) = opp_wins {
                        // Would another move have kept the opponent without a VCT?
                        let mut escapes = Vec::new();
                        for c in candidates(&mut b) {
                            if c == i {
                                continue;
                            }
                            b.make(c);
                            // A four only delays a threat sequence: not counted as an escape.
                            let four = b.count(ours, Threat::Five) > 0;
                            if !four && !has_vct(&mut b, nodes) {
                                escapes.push(b.pos(c));
                            }
                            b.unmake();
                            if escapes.len() >= 3 {
                                break;
                            }
                        }
                        let proven_lost = {
                            let mut e = rensa::engine::Engine::new();
                            e.set_rule(g.rule);
                            e.set_memory_limit(64 << 20);
                            e.new_game(g.width, g.height).expect("board");
                            for &p in &moves[..n] {
                                e.play(p).expect("legal move");
                            }
                            let limits = rensa::engine::Limits {
                                max_depth: Some(10),
                                max_nodes: Some(3_000_000),
                                ..Default::default()
                            };
                            let stop = std::sync::atomic::AtomicBool::new(false);
                            let r = e.think(&limits, &stop, &mut |_| {});
                            r.value.is_mate() && r.value < rensa::Value::ZERO
                        };
                        verdict = if escapes.is_empty() || proven_lost {
                            already += 1;
                            let how = if escapes.is_empty() {
                                "every other move does too"
                            } else {
                                "a search proves the position lost"
                            };
                            format!("ply {n}: {m} allows a VCT ({found_in} nodes); {how}")
                        } else {
                            slips += 1;
                            slip_plies.push(n);
                            let e: Vec<String> = escapes.iter().map(|p| p.to_string()).collect();
                            format!(
                                "ply {n}: {m} allows a VCT ({found_in} nodes); SLIP, {} avoids it",
                                e.join(" / ")
                            )
                        };
                        break;
                    }
                }
                b.make(i);
            }
            if verdict.starts_with("no VCT") {
                none += 1;
            }
            println!(
                "game {} ({} vs {}, {}): {verdict}",
                g.game_index, g.black, g.white, g.reason
            );
        }
    }
    println!(
        "{lost} lost: {slips} slips (an escape existed), {already} already lost to a VCT, {none} without a VCT found"
    );
    slip_plies.sort_unstable();
    println!("slip plies: {slip_plies:?}");
}
