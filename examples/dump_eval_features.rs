//! Writes one CSV line per position of match records, for fitting evaluation models outside
//! the engine: `cargo run --release --example dump_eval_features -- <rule> [--size N]
//! <games.jsonl>...` (games on the N x N board, 15 unless said).
//!
//! Columns: label (game result for the side to move), test (held-out game), black to move,
//! the engine's static value, ply, then per side (mover, opponent) the empty cells of each
//! threat class 1..=9 and the score sum.
// Shared with the other fitters; this one needs only the position walk.
#[allow(dead_code)]
mod fit_common;

use fit_common::for_each_position;
use rensa::board::pattern::Threat;
use rensa::eval::{evaluate_with, INDICATORS, INITIATIVE_16THS};
use rensa::{Color, Rule};
use std::io::Write;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let rule = Rule::parse(&args[0]).expect("rule name");
    let mut size = 15;
    if args.get(1).map(String::as_str) == Some("--size") {
        size = args.get(2).and_then(|s| s.parse().ok()).expect("--size N");
        args.drain(1..3);
    }
    // With `RENSA_NET=FILE`, a last column: that network's value.
    let net = std::env::var("RENSA_NET").ok().map(|p| {
        rensa::eval::Net::parse(&std::fs::read_to_string(p).expect("net file")).expect("net")
    });
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let games = for_each_position(rule, size, &args[1..], false, |b, label, test| {
        let me = b.side_to_move();
        let v = evaluate_with(b, INITIATIVE_16THS, Some(&INDICATORS));
        let mut line = format!(
            "{label},{},{},{v},{}",
            test as u8,
            (me == Color::Black) as u8,
            b.ply()
        );
        for c in [me, me.opponent()] {
            for t in 1..=9u8 {
                line += &format!(",{}", b.count(c, Threat::from_u8(t)));
            }
            line += &format!(",{}", b.score_sum(c));
        }
        if let Some(n) = net.as_ref() {
            line += &format!(",{}", n.value(b, v));
        }
        writeln!(out, "{line}").expect("write");
    });
    eprintln!("{games} games");
}
