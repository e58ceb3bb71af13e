//! Black's values of opening sets on 15x15 by a node-limited search (deterministic): Rensa's
//! balanced opening sets (`openings/*.txt`), the first 8 swap2 candidates (the compact shapes)
//! and all of them, per rule (freestyle, exact five, renju). Where the balanced sets lie is the
//! search's "even in play" ([`rensa::protocol::swap2::even_point`]).
//!
//! `cargo run --release --example opening_values -- [NODES [list]]` (default 30 000 nodes;
//! `list` also prints every swap2 candidate's value).
use rensa::engine::{Engine, Limits};
use rensa::openings::builtin_openings;
use rensa::protocol::swap2;
use rensa::{Color, Pos, Rule};
use std::sync::atomic::AtomicBool;

fn value(rule: Rule, stones: &[Pos], nodes: u64) -> Option<i32> {
    let mut e = Engine::new();
    e.set_rule(rule);
    e.set_memory_limit(64 << 20);
    e.new_game(15, 15).ok()?;
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
    for rule in [Rule::Freestyle, Rule::Exact, Rule::Renju] {
        let ops = builtin_openings(rule, 15, 15);
        let v: Vec<i32> = ops
            .iter()
            .filter_map(|o| value(rule, &o.moves, nodes))
            .collect();
        summary(&format!("{rule:?} balanced set"), v);
        let c = swap2::candidates(15, 15);
        let v: Vec<i32> = c[..8]
            .iter()
            .filter_map(|o| value(rule, o, nodes))
            .collect();
        summary(&format!("{rule:?} compact 8"), v.clone());
        let all: Vec<(i32, String)> = c
            .iter()
            .filter_map(|o| {
                value(rule, o, nodes).map(|x| (x, format!("{} {} {}", o[0], o[1], o[2])))
            })
            .collect();
        summary(
            &format!("{rule:?} all 86"),
            all.iter().map(|a| a.0).collect(),
        );
        if std::env::args().nth(2).is_some() {
            for (x, s) in &all {
                println!("  {rule:?} {s} {x}");
            }
        }
    }
}
