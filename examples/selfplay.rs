//! In-process matches: Engine vs Engine judged by `board::Game`.
//!
//! ```text
//! cargo run --release --example selfplay -- [games] [rule] [size] [ms_per_move] [strength_a] [strength_b] [seed] [tuning_a] [tuning_b]
//! cargo run --release --example selfplay -- 40 freestyle 15 100 100 0 1
//! cargo run --release --example selfplay -- 40 freestyle 15 100 100 100 1 limit=0
//! ```
//! Openings are 2-4 random stones near the centre (seeded; the seed is printed), each played twice
//! with colours swapped. Prints wins/draws/losses of engine A and an Elo estimate with a 95% error
//! bar (normal approximation over game scores).

use rand::{Rng, SeedableRng};
use rensa::engine::{Engine, Limits};
use rensa::search::alphabeta::{set_tuning, Tuning};
use rensa::{Color, Game, Pos, Rule};
use std::sync::atomic::AtomicBool;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, d: &str| args.get(i).cloned().unwrap_or_else(|| d.to_string());
    let games: usize = arg(0, "20").parse().expect("games");
    let rule = Rule::parse(&arg(1, "freestyle")).expect("rule");
    let size: usize = arg(2, "15").parse().expect("size");
    let ms: u64 = arg(3, "100").parse().expect("ms per move");
    let sa: u32 = arg(4, "100").parse().expect("strength a");
    let sb: u32 = arg(5, "0").parse().expect("strength b");
    let seed: u64 = arg(6, "1").parse().expect("seed");
    // Optional search knobs for A and B (`limit=0,vcf=0,lmr=0,init=16`; see `Tuning::parse`).
    let tune_a = Tuning::parse(&arg(7, "")).expect("tuning a");
    let tune_b = Tuning::parse(&arg(8, "")).expect("tuning b");
    println!("selfplay: {games} games, {rule} {size}x{size}, {ms} ms/move, A strength {sa} vs B strength {sb}, seed {seed}");
    println!("A tuning {tune_a:?}\nB tuning {tune_b:?}");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let (mut w, mut d, mut l) = (0u32, 0u32, 0u32);
    let mut scores = Vec::new();
    let mut opening: Vec<Pos> = Vec::new();
    let (mut max_ms, mut moves_total, mut depth_total) = ([0u64; 2], 0u64, 0i64);
    for g in 0..games {
        if g % 2 == 0 {
            opening = random_opening(&mut rng, size, rule);
        }
        let a_black = g % 2 == 0;
        let mut game = Game::new(size, size, rule)
            .unwrap()
            .with_draw_after(Game::gomocup_draw_limit(size, size));
        for &m in &opening {
            game.play(m).unwrap();
        }
        let mut engines = [Engine::new(), Engine::new()];
        for e in engines.iter_mut() {
            e.set_rule(rule);
            e.new_game(size, size).unwrap();
            e.set_memory_limit(64 << 20);
            for &m in &opening {
                e.play(m).unwrap();
            }
        }
        let stop = AtomicBool::new(false);
        while !game.is_over() {
            let black_to_move = game.side_to_move() == Color::Black;
            let a_to_move = black_to_move == a_black;
            let ix = if a_to_move { 0 } else { 1 };
            let limits = Limits {
                turn_time_ms: Some(ms),
                strength: if a_to_move { sa } else { sb },
                ..Limits::default()
            };
            set_tuning(if a_to_move { tune_a } else { tune_b });
            let t = std::time::Instant::now();
            let r = engines[ix].think(&limits, &stop, &mut |_| {});
            let took = t.elapsed().as_millis() as u64;
            max_ms[ix] = max_ms[ix].max(took);
            if took > 2 * ms + 50 {
                println!(
                    "slow think: {took} ms at depth {} nodes {} value {} in {}",
                    r.depth,
                    r.nodes,
                    r.value,
                    rensa::pos::to_algebraic(game.moves()).unwrap_or_default()
                );
            }
            moves_total += 1;
            depth_total += r.depth as i64;
            let Some(m) = r.best else { break };
            if game.play(m).is_err() {
                println!(
                    "game {g}: illegal move {m} by {}",
                    if a_to_move { "A" } else { "B" }
                );
                break;
            }
            for e in engines.iter_mut() {
                e.play(m).unwrap();
            }
        }
        let winner = game.outcome().and_then(|o| o.winner);
        let s = match winner {
            None => {
                d += 1;
                0.5
            }
            Some(c) if (c == Color::Black) == a_black => {
                w += 1;
                1.0
            }
            Some(_) => {
                l += 1;
                0.0
            }
        };
        scores.push(s);
        let reason = game
            .outcome()
            .map(|o| o.reason.to_string())
            .unwrap_or_default();
        if s == 0.0 {
            println!(
                "lost game: {}",
                rensa::pos::to_algebraic(game.moves()).unwrap_or_default()
            );
        }
        println!(
            "game {g}: A {} {} after {} moves ({reason})  [W {w} D {d} L {l}]",
            if a_black { "black" } else { "white" },
            match s as u32 {
                1 => "won",
                _ if s == 0.5 => "drew",
                _ => "lost",
            },
            game.moves().len()
        );
    }
    println!(
        "moves {moves_total}, mean depth {:.1}, longest think A {} ms, B {} ms (limit {ms} ms)",
        depth_total as f64 / moves_total.max(1) as f64,
        max_ms[0],
        max_ms[1]
    );
    let n = scores.len() as f64;
    let mean = scores.iter().sum::<f64>() / n;
    let var = scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    let se = (var / n).sqrt();
    let elo = |s: f64| -400.0 * (1.0 / s.clamp(0.001, 0.999) - 1.0).log10();
    println!(
        "Result A vs B: W {w} D {d} L {l}  score {:.3}  Elo {:+.0} (95%: {:+.0} .. {:+.0})",
        mean,
        elo(mean),
        elo(mean - 1.96 * se),
        elo(mean + 1.96 * se)
    );
}

/// 2-4 stones within two cells of the centre, alternating colours, none of them winning or foul.
fn random_opening(rng: &mut impl Rng, size: usize, rule: Rule) -> Vec<Pos> {
    let c = (size / 2) as i32;
    loop {
        let n = rng.gen_range(2..=4);
        let mut g = Game::new(size, size, rule).unwrap();
        let mut ok = true;
        while g.moves().len() < n {
            let p = Pos::new(
                (c + rng.gen_range(-2..=2)) as u8,
                (c + rng.gen_range(-2..=2)) as u8,
            );
            if g.board().is_empty(p) && g.play(p).map(|o| o.is_none()).unwrap_or(false) {
                continue;
            }
            if !g.board().is_empty(p) {
                continue;
            }
            ok = false;
            break;
        }
        if ok {
            return g.moves().to_vec();
        }
    }
}
