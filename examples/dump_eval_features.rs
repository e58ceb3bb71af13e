//! Writes one CSV line per position of match records, for fitting evaluation models outside
//! the engine: `cargo run --release --example dump_eval_features -- <rule> [--size N | --size
//! A-B] [--home H] [--search NODES] <games.jsonl>...` (games on the N x N board, 15 unless said;
//! with a range, every board whose two sides are both from A to B). With `--home H` the inputs
//! that grow with the board's area are moved to what the same stones give on the H x H board
//! (`eval::SizeShift`, as the engine does for a network off its own board), so that games of
//! several sizes can train one network for the H x H board.
//!
//! Columns: label (game result for the side to move), test (held-out game), black to move,
//! the engine's static value, ply, then per side (mover, opponent) the empty cells of each
//! threat class 1..=9 and the score sum. With `RENSA_NET=FILE`, then that network's value.
//! With `--search NODES`, last the value of a search of the position on one thread with a node
//! cap (fresh 8 MiB hash table each time, so the rows do not depend on each other; mate values
//! clamped to ±5000), for `fit_net.py --distill`: about 9 ms per position at 5000 nodes, 15 ms
//! at 8000 on this machine. Large runs can be split by files over several processes.
// Shared with the other fitters; this one needs only the position walk.
#[allow(dead_code)]
mod fit_common;

use fit_common::{count_columns, for_each_position, node_capped_value};
use rensa::eval::{evaluate_with, SizeShift, INDICATORS, INITIATIVE_16THS};
use rensa::{Color, Rule};
use std::collections::HashMap;
use std::io::Write;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let rule = Rule::parse(&args[0]).expect("rule name");
    let mut sizes = 15..=15;
    let mut home = None;
    let mut search_nodes = None;
    loop {
        match args.get(1).map(String::as_str) {
            Some("--size") => {
                let v = args.get(2).expect("--size N or A-B");
                let (a, b) = v.split_once('-').unwrap_or((v, v));
                sizes = a.parse().expect("--size N or A-B")..=b.parse().expect("--size N or A-B");
            }
            Some("--search") => {
                search_nodes = Some(
                    args.get(2)
                        .and_then(|s| s.parse::<u64>().ok())
                        .expect("--search NODES"),
                );
            }
            Some("--home") => {
                home = Some(args.get(2).and_then(|s| s.parse().ok()).expect("--home H"));
            }
            _ => break,
        }
        args.drain(1..3);
    }
    let mut shifts: HashMap<(usize, usize), SizeShift> = HashMap::new();
    // With `RENSA_NET=FILE`, a last column: that network's value.
    let net = std::env::var("RENSA_NET").ok().map(|p| {
        rensa::eval::Net::parse(&std::fs::read_to_string(p).expect("net file")).expect("net")
    });
    // One engine, its hash cleared before each search.
    let mut engine = search_nodes.map(|_| {
        let mut e = rensa::engine::Engine::new();
        e.set_rule(rule);
        e.set_memory_limit(8 << 20);
        e
    });
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let games = for_each_position(rule, sizes, &args[1..], false, true, |b, label, test| {
        let me = b.side_to_move();
        let shift = match home {
            Some(h) => *shifts
                .entry((b.width(), b.height()))
                .or_insert_with(|| SizeShift::between(rule, b.width(), b.height(), h)),
            None => SizeShift::NONE,
        };
        let v0 = evaluate_with(b, INITIATIVE_16THS, Some(&INDICATORS));
        let v = v0 + shift.base;
        let mut line = format!(
            "{label},{},{},{v},{}",
            test as u8,
            (me == Color::Black) as u8,
            b.ply()
        );
        line += &count_columns(b, shift);
        if let Some(n) = net.as_ref() {
            line += &format!(",{}", n.value_shifted(b, v0, shift));
        }
        if let (Some(e), Some(nodes)) = (engine.as_mut(), search_nodes) {
            line += &format!(",{}", node_capped_value(e, b, nodes));
        }
        writeln!(out, "{line}").expect("write");
    });
    eprintln!("{games} games");
}
