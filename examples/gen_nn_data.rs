//! Self-play training positions for `examples/fit_nn.py`, generated in-process and much faster
//! than referee matches: `cargo run --release --example gen_nn_data -- RULE NODES GAMES SEED OUT
//! [THREADS]` (15x15).
//!
//! Each game starts from 2 to 6 random stones near the centre; then one engine plays both sides
//! with a node cap of `NODES` a move (fresh hash each game), except that each of the first 8
//! moves after the opening is, with probability 1/8, a random empty cell next to a stone, so the
//! games spread. Every position before an engine move where neither side has a five point and
//! the side to move has no straight-four point is written, with the search's value (clamped to
//! ±5000) and, when the game is over, its result, in `dump_nn`'s binary form; one game in ten
//! is held out. Thread `t` seeds its generator with `SEED + t` (printed).
#[allow(dead_code)]
mod fit_common;

use fit_common::nn_record;
use rand::{Rng, SeedableRng};
use rensa::board::fast::FastBoard;
use rensa::board::pattern::Threat;
use rensa::engine::{Engine, Limits};
use rensa::{Color, Game, Pos, Rule};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

const SIZE: usize = 15;

fn random_near(rng: &mut impl Rng, game: &Game) -> Option<Pos> {
    let stones: Vec<Pos> = game.moves().to_vec();
    let mut cands = Vec::new();
    for y in 0..SIZE as i64 {
        for x in 0..SIZE as i64 {
            let p = Pos::try_new(x, y)?;
            if game.board().get(p).is_some() {
                continue;
            }
            if stones
                .iter()
                .any(|s| (s.x as i64 - x).abs() <= 1 && (s.y as i64 - y).abs() <= 1)
            {
                cands.push(p);
            }
        }
    }
    (!cands.is_empty()).then(|| cands[rng.gen_range(0..cands.len())])
}

fn play_game(
    rng: &mut impl Rng,
    rule: Rule,
    nodes: u64,
    engine: &mut Engine,
) -> Vec<(Vec<u8>, f32)> {
    let mut game = Game::new(SIZE, SIZE, rule)
        .expect("board")
        .with_draw_after(Game::gomocup_draw_limit(SIZE, SIZE));
    engine.new_game(SIZE, SIZE).expect("board");
    engine.clear_hash();
    let c = (SIZE / 2) as i64;
    let first = Pos::try_new(c, c).expect("centre");
    game.play(first).expect("centre");
    engine.play(first).expect("centre");
    let opening = rng.gen_range(2..=6);
    while game.moves().len() < opening {
        let Some(p) = random_near(rng, &game) else {
            break;
        };
        if game.play(p).is_ok() {
            engine.play(p).expect("legal");
        }
    }
    // The positions' records (result still 0) and whether black was to move: the result is
    // filled in when the game is over.
    let mut kept: Vec<(Vec<u8>, bool)> = Vec::new();
    let stop = AtomicBool::new(false);
    let mut after_opening = 0;
    while !game.is_over() {
        let b = FastBoard::from_game(&game);
        let me = b.side_to_move();
        let decided = b.count(me, Threat::Five) > 0
            || b.count(me.opponent(), Threat::Five) > 0
            || b.count(me, Threat::Flex4) > 0;
        let limits = Limits {
            max_nodes: Some(nodes),
            ..Default::default()
        };
        let r = engine.think(&limits, &stop, &mut |_| {});
        if !decided {
            let v = r.value.0.clamp(-5000, 5000) as f32;
            kept.push((nn_record(&b, 0.0, v, false), me == Color::Black));
        }
        let mut m = r.best;
        if after_opening < 8 && rng.gen_range(0..8) == 0 {
            m = random_near(rng, &game).or(m);
        }
        after_opening += 1;
        let Some(m) = m else { break };
        if game.play(m).is_err() {
            break;
        }
        engine.play(m).expect("legal");
    }
    let winner = game.outcome().and_then(|o| o.winner);
    kept.into_iter()
        .map(|(rec, black)| {
            let label = match winner {
                None => 0.5,
                Some(w) => ((w == Color::Black) == black) as u8 as f32,
            };
            (rec, label)
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 5 {
        eprintln!("usage: gen_nn_data RULE NODES GAMES SEED OUT [THREADS]");
        std::process::exit(2);
    }
    let rule = Rule::parse(&args[0]).expect("rule");
    let nodes: u64 = args[1].parse().expect("nodes");
    let games: usize = args[2].parse().expect("games");
    let seed: u64 = args[3].parse().expect("seed");
    let threads: u64 = args.get(5).map_or(2, |t| t.parse().expect("threads"));
    let out = Mutex::new(std::io::BufWriter::new(
        std::fs::File::create(&args[4]).expect("output file"),
    ));
    let next = AtomicUsize::new(0);
    let written = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for t in 0..threads {
            let (out, next, written) = (&out, &next, &written);
            s.spawn(move || {
                eprintln!("thread {t}: seed {}", seed + t);
                let mut rng = rand::rngs::StdRng::seed_from_u64(seed + t);
                let mut engine = Engine::new();
                engine.set_rule(rule);
                engine.set_memory_limit(16 << 20);
                loop {
                    let g = next.fetch_add(1, Ordering::Relaxed);
                    if g >= games {
                        break;
                    }
                    let recs = play_game(&mut rng, rule, nodes, &mut engine);
                    let test = g % 10 == 0;
                    let mut o = out.lock().expect("output");
                    for (mut rec, label) in recs {
                        rec[0..4].copy_from_slice(&label.to_le_bytes());
                        rec[12] = test as u8;
                        o.write_all(&rec).expect("write");
                        written.fetch_add(1, Ordering::Relaxed);
                    }
                    if (g + 1) % 500 == 0 {
                        eprintln!(
                            "{} games, {} positions",
                            g + 1,
                            written.load(Ordering::Relaxed)
                        );
                    }
                }
            });
        }
    });
    out.lock().expect("output").flush().expect("flush");
    eprintln!(
        "{games} games, {} positions",
        written.load(Ordering::Relaxed)
    );
}
