//! Black's values of opening sets by a node-limited search (deterministic): Rensa's balanced
//! opening sets (`openings/*.txt`), the first 8 swap2 candidates (the compact shapes) and all of
//! them, per rule and board (freestyle, exact five, renju and caro on 15x15; freestyle on
//! 20x20). Where the balanced sets lie is the search's "even in play"
//! ([`rensa::protocol::swap2::even_point`]).
//!
//! `cargo run --release --example opening_values -- [NODES [list]]` (default 30 000 nodes;
//! `list` also prints every swap2 candidate's value).
use rensa::engine::{Engine, Limits};
use rensa::openings::builtin_openings;
use rensa::protocol::swap2;
use rensa::{Color, Pos, Rule};
use std::sync::atomic::AtomicBool;

fn value(rule: Rule, size: usize, stones: &[Pos], nodes: u64) -> Option<i32> {
    let mut e = Engine::new();
    e.set_rule(rule);
    e.set_memory_limit(64 << 20);
    e.new_game(size, size).ok()?;
    for &p in stones {
        e.play(p).ok()?;
    }
    let lim = Limits {
        max_nodes: Some(nodes),
        ..Limits::default()
    };
    let r = e.think(&lim, &AtomicBool::new(false), &mut |_| {});
    let v = r.value.0;
    Some(if e.game().side_to_move() == Color::Black {
        v
    } else {
        -v
    })
}

fn summary(name: &str, mut v: Vec<i32>) {
    v.sort();
    let n = v.len();
    let mean = v.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
    println!(
        "{name}: n={n} mean={mean:.0} median={} q1={} q3={} min={} max={}",
        v[n / 2],
        v[n / 4],
        v[3 * n / 4],
        v[0],
        v[n - 1]
    );
}

fn main() {
    let nodes: u64 = std::env::args()
        .nth(1)
        .map_or(30000, |a| a.parse().unwrap());
    let caro = Rule::Caro {
        overline_wins: false,
    };
    for (rule, size) in [
        (Rule::Freestyle, 15),
        (Rule::Exact, 15),
        (Rule::Renju, 15),
        (caro, 15),
        (Rule::Freestyle, 20),
    ] {
        let ops = builtin_openings(rule, size, size);
        let v: Vec<i32> = ops
            .iter()
            .filter_map(|o| value(rule, size, &o.moves, nodes))
            .collect();
        summary(&format!("{rule:?} {size}x{size} balanced set"), v);
        // Every candidate searched once; the first 8 are the compact shapes.
        let c = swap2::candidates(size, size);
        let values: Vec<Option<i32>> = c.iter().map(|o| value(rule, size, o, nodes)).collect();
        let compact: Vec<i32> = values[..8].iter().flatten().copied().collect();
        summary(&format!("{rule:?} {size}x{size} compact 8"), compact);
        let all: Vec<(i32, String)> = c
            .iter()
            .zip(&values)
            .filter_map(|(o, x)| x.map(|x| (x, format!("{} {} {}", o[0], o[1], o[2]))))
            .collect();
        summary(
            &format!("{rule:?} {size}x{size} all 86"),
            all.iter().map(|a| a.0).collect(),
        );
        if std::env::args().nth(2).is_some() {
            for (x, s) in &all {
                println!("  {rule:?} {s} {x}");
            }
        }
    }
}
