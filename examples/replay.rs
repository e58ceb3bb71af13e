//! Replays a move string and shows what the engine thinks at the position before the last `back`
//! moves: `cargo run --release --example replay -- <rule> <size> <moves> <back> <ms>`.
use rensa::engine::{Engine, Limits};
use rensa::Rule;
use std::sync::atomic::AtomicBool;
fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let rule = Rule::parse(&a[0]).expect("rule");
    let size: usize = a[1].parse().expect("size");
    let moves = rensa::pos::parse_algebraic(&a[2]).expect("moves");
    let back: usize = a[3].parse().expect("back");
    let ms: u64 = a[4].parse().expect("ms");
    let mut e = Engine::new();
    e.set_rule(rule);
    e.new_game(size, size).unwrap();
    for &m in &moves[..moves.len() - back] {
        e.play(m).unwrap();
    }
    println!("{:?}", e.game().board());
    let limits = Limits {
        turn_time_ms: Some(ms),
        ..Limits::default()
    };
    let r = e.think(&limits, &AtomicBool::new(false), &mut |i| {
        println!(
            "depth {} value {} nodes {} ms {} pv {:?}",
            i.depth,
            i.value,
            i.nodes,
            i.elapsed_ms,
            i.pv.iter().map(|p| p.to_string()).collect::<Vec<_>>()
        );
    });
    println!(
        "best {:?} value {} (game continued with {})",
        r.best.map(|p| p.to_string()),
        r.value,
        moves[moves.len() - back]
    );
}
