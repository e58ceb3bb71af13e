//! Writes the training positions of match records in a binary form for fitting a cell-level
//! evaluation network outside the engine (`examples/fit_nn.py`):
//! `cargo run --release --example dump_nn -- <rule> [--search NODES] [--part K/N] OUT
//! <games.jsonl>...` (15x15 games only).
//!
//! Per position, little-endian: the game's result for the side to move (f32), the value of a
//! search of the position capped at NODES nodes (f32, clamped to ±5000; 0 without `--search`),
//! the engine's static value (i32: the pattern evaluation with its indicator terms, blended
//! with the built-in network as the search does), held out (u8), black to move (u8), the number
//! of empty cells (u16), then per empty cell its column and row (u8 each) and its four
//! directions' line keys (u32 each, [`FastBoard::line_key`]: two bits per cell, five cells each
//! way, black 1, white 2, off the board 3). With `--part K/N` only
//! every N-th position from the K-th (0-based) is written, so that the searches can be split
//! over several processes.
#[allow(dead_code)]
mod fit_common;

use fit_common::{for_each_position, nn_record, node_capped_value, search_static_value};
use rensa::Rule;
use std::io::Write;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let rule = Rule::parse(&args[0]).expect("rule name");
    let mut search_nodes = None;
    let mut part = (0usize, 1usize);
    loop {
        match args.get(1).map(String::as_str) {
            Some("--search") => {
                search_nodes = Some(
                    args.get(2)
                        .and_then(|s| s.parse::<u64>().ok())
                        .expect("--search NODES"),
                );
            }
            Some("--part") => {
                let v = args.get(2).expect("--part K/N");
                let (k, n) = v.split_once('/').expect("--part K/N");
                part = (k.parse().expect("K"), n.parse().expect("N"));
            }
            _ => break,
        }
        args.drain(1..3);
    }
    let mut engine = search_nodes.map(|_| {
        let mut e = rensa::engine::Engine::new();
        e.set_rule(rule);
        e.set_memory_limit(8 << 20);
        e
    });
    // With `RENSA_CELLNET=FILE`, that network's logits go to stderr, one line per position (a
    // check of the engine's forward pass against the fitter's).
    let cellnet = std::env::var("RENSA_CELLNET").ok().map(|p| {
        rensa::cellnet::CellNet::parse(&std::fs::read_to_string(p).expect("cellnet file"))
            .expect("cellnet")
    });
    let file = std::fs::File::create(&args[1]).expect("output file");
    let mut out = std::io::BufWriter::new(file);
    let mut seen = 0usize;
    let mut written = 0usize;
    let games = for_each_position(rule, 15..=15, &args[2..], false, true, |b, label, test| {
        let k = seen;
        seen += 1;
        if k % part.1 != part.0 {
            return;
        }
        let searched = match (engine.as_mut(), search_nodes) {
            (Some(e), Some(nodes)) => node_capped_value(e, b, nodes) as f32,
            _ => 0.0,
        };
        let rec = nn_record(b, label, searched, test);
        out.write_all(&rec).expect("write");
        if let Some(n) = cellnet.as_ref() {
            eprintln!("logit {}", n.logit(b, search_static_value(b)));
        }
        written += 1;
        if written.is_multiple_of(5000) {
            eprintln!("{written} positions");
        }
    });
    eprintln!("{games} games, {written} positions written");
}
