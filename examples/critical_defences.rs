//! Does the engine find the defence where a game was lost? For every game that engine `NAME`
//! lost in match records, takes the first position (after the opening) where the winner, to
//! move, has a win by threes and fours (by a generous solver run: 5 threes, 24 attacker moves,
//! `NODES` nodes), and goes back one move, to the loser's turn. A move there is *safe* when it
//! makes no four and after it the winner has no five point and the same solver finds no such
//! win; the position counts when some legal cell near the stones is safe (otherwise the game was
//! lost earlier). The engine then thinks `MS` ms on it (one thread, a fresh engine). Its move is
//! found when it is safe or the engine proves a win; a four is followed: after the forced block
//! the engine is asked again, and its next move judged the same way (a four only delays a
//! threat win, as the thirty-eighth session found by hand).
//!
//! `cargo run --release --example critical_defences -- NAME MS NODES FILE...`
//!
//! `FILE` are referee records (`games.jsonl`); `RENSA_TUNING` sets knobs as for the engine.
//! Prints one line per position (`ok` or `MISS`, with the number of safe moves among the legal
//! ones, the move played in the game and the engine's move), then the totals. The safe moves are
//! found by a bounded solver, so they are a good guide, not a proof.

use rensa::board::fast::{FastBoard, Idx};
use rensa::board::pattern::Threat;
use rensa::referee::record::GameRecord;
use rensa::referee::records::read_records;
use rensa::search::alphabeta::{set_process_tuning, Tuning};
use rensa::search::vct::{Vct, VctCache};
use rensa::{Color, Pos, Value};
use std::sync::atomic::AtomicBool;

/// Whether the side to move wins by threes and fours within `nodes` (a fresh cache each time,
/// so no answer leaks between positions).
fn wins(b: &mut FastBoard, nodes: u64) -> Option<u32> {
    let mut cache = VctCache::new(18);
    let mut vct = Vct::new(&mut cache, nodes, None);
    let mut line = Vec::new();
    vct.solve(b, 24, 5, &mut line)
}

/// The loser's legal cells near the stones that make no four and after which the winner (then
/// to move) has neither a five point nor a win by the solver; and the number of legal cells.
fn safe_moves(b: &mut FastBoard, nodes: u64) -> (Vec<Idx>, usize) {
    let cells: Vec<Idx> = b
        .area(2)
        .filter(|&i| b.is_empty(i) && b.is_near(i))
        .collect();
    let (mut safe, mut legal) = (Vec::new(), 0);
    for m in cells {
        if !b.is_legal(m) {
            continue;
        }
        legal += 1;
        b.make(m);
        let winner = b.side_to_move();
        let four = b.count(winner.opponent(), Threat::Five) > 0;
        let lost = b.count(winner, Threat::Five) > 0 || (!four && wins(b, nodes).is_some());
        b.unmake();
        if !four && !lost {
            safe.push(m);
        }
    }
    (safe, legal)
}

/// Fours the engine may play in a row before its defence is judged.
const MAX_FOURS: usize = 4;

/// Asks the engine (`ms` per move) for the loser's move after `moves` and judges it: a proven
/// win or a safe move is found; a four is followed by the winner's forced block and judged
/// again. `safe` are the safe moves after `moves` (known already). Returns whether it was found
/// and the engine's moves.
fn engine_defends(
    g: &GameRecord,
    moves: &[Pos],
    safe: &[Idx],
    ms: u64,
    nodes: u64,
) -> (bool, Vec<Pos>) {
    let mut line = moves.to_vec();
    let mut played = Vec::new();
    for level in 0..=MAX_FOURS {
        let mut b = FastBoard::new(g.width, g.height, g.rule).expect("board");
        for &m in &line {
            b.make(b.idx(m));
        }
        let mut e = rensa::engine::Engine::new();
        e.set_rule(g.rule);
        e.new_game(g.width, g.height).expect("board");
        for &p in &line {
            e.play(p).expect("legal move");
        }
        let limits = rensa::engine::Limits {
            turn_time_ms: Some(ms),
            ..Default::default()
        };
        let r = e.think(&limits, &AtomicBool::new(false), &mut |_| {});
        let best = r.best.expect("a move");
        played.push(best);
        if r.value.is_mate() && r.value > Value::ZERO {
            return (true, played);
        }
        let i = b.idx(best);
        b.make(i);
        let winner = b.side_to_move();
        let mut fives: Vec<Idx> = b.cells_with(winner.opponent(), Threat::Five).collect();
        if b.count(winner, Threat::Five) > 0 || fives.is_empty() {
            // The winner makes five now, or no four: judge the move itself.
            b.unmake();
            let safe_here = if level == 0 {
                safe.to_vec()
            } else {
                safe_moves(&mut b, nodes).0
            };
            return (safe_here.contains(&i), played);
        }
        if fives.len() > 1 || !b.is_legal(fives[0]) {
            // A four the winner cannot stop: the engine wins after all.
            return (true, played);
        }
        let block = b.pos(fives.remove(0));
        line.push(best);
        line.push(block);
    }
    (false, played)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 {
        eprintln!("usage: critical_defences NAME MS NODES FILE...");
        std::process::exit(2);
    }
    if let Ok(knobs) = std::env::var("RENSA_TUNING") {
        set_process_tuning(Tuning::parse(&knobs).expect("RENSA_TUNING knobs"));
    }
    let name = &args[0];
    let ms: u64 = args[1].parse().expect("MS");
    let nodes: u64 = args[2].parse().expect("NODES");
    let (mut positions, mut found, mut lost_before) = (0, 0, 0);
    for path in &args[3..] {
        let text = std::fs::read_to_string(path).expect("record file");
        for g in read_records(&text).0 {
            let Some(winner) = g.winner else { continue };
            let loser = if winner == Color::Black {
                &g.white
            } else {
                &g.black
            };
            if loser != name {
                continue;
            }
            let moves = g.all_moves();
            let mut b = FastBoard::new(g.width, g.height, g.rule).expect("board");
            // The first ply, after the loser's first own move, where the winner is to move
            // with a win by threes and fours.
            let mut first = None;
            for (n, &m) in moves.iter().enumerate() {
                let quiet = b.count(Color::Black, Threat::Five) == 0
                    && b.count(Color::White, Threat::Five) == 0;
                if n > g.opening.len() && b.side_to_move() == winner && quiet {
                    if let Some(len) = wins(&mut b, nodes) {
                        first = Some((n, len));
                        break;
                    }
                }
                b.make(b.idx(m));
            }
            let Some((n, len)) = first else { continue };
            let mut b = FastBoard::new(g.width, g.height, g.rule).expect("board");
            for &m in &moves[..n - 1] {
                b.make(b.idx(m));
            }
            let (safe, legal) = safe_moves(&mut b, nodes);
            let head = format!(
                "{path} {} game {} ply {}: a win of {len} plies after {}",
                g.rule.name(),
                g.game_index,
                n - 1,
                moves[n - 1]
            );
            if safe.is_empty() {
                lost_before += 1;
                println!("{head}; no safe move among {legal}: lost earlier");
                continue;
            }
            positions += 1;
            let (ok, played) = engine_defends(&g, &moves[..n - 1], &safe, ms, nodes);
            found += ok as u32;
            let played: Vec<String> = played.iter().map(|p| p.to_string()).collect();
            println!(
                "{head}; {} safe of {legal}; engine {}: {}",
                safe.len(),
                played.join(" (blocked) "),
                if ok { "ok" } else { "MISS" }
            );
        }
    }
    println!("found {found} of {positions} ({lost_before} games lost earlier)");
}
