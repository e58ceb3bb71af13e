//! Speed of the rules oracle (`src/board/rules.rs`).
//!
//! `cargo run --release --example rules_bench`
//!
//! * forbidden-point scans: every empty point of full 15x15 renju positions (30 to 60 stones from
//!   random games in which black avoids fouls) through `rules::is_forbidden`;
//! * win checks: `rules::is_win` for both colours on every empty point of the same positions.
//!
//! Positions come from a fixed seed (printed), so runs are comparable; each measurement is repeated
//! and the median is printed.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rensa::board::rules;
use rensa::{Board, Color, Game, Rule};
use std::hint::black_box;
use std::time::Instant;

const SEED: u64 = 42;
const POSITIONS: usize = 200;
const RUNS: usize = 5;

fn positions() -> Vec<Board> {
    let mut rng = StdRng::seed_from_u64(SEED);
    let mut out = Vec::new();
    let mut attempts = 0;
    while out.len() < POSITIONS && attempts < POSITIONS * 20 {
        attempts += 1;
        let mut g = Game::new(15, 15, Rule::Renju).expect("15x15 is valid");
        let target = rng.gen_range(30..=60);
        while !g.is_over() && g.moves().len() < target {
            // Random point near the centre region, avoiding fouls and occupied cells.
            let mut played = false;
            for _ in 0..50 {
                let p = rensa::Pos::new(rng.gen_range(2..13), rng.gen_range(2..13));
                if g.board().is_empty(p) && !g.is_forbidden(p) {
                    let _ = g.play(p);
                    played = true;
                    break;
                }
            }
            if !played {
                break;
            }
        }
        if !g.is_over() && g.moves().len() == target {
            out.push(g.board().clone());
        }
    }
    out
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let boards = positions();
    let points: usize = boards.iter().map(|b| b.empty_cells().count()).sum();
    println!(
        "rules_bench: seed {SEED}, {} positions, {points} empty points, {RUNS} runs",
        boards.len()
    );

    let mut scan_rates = Vec::new();
    let mut point_rates = Vec::new();
    let mut forbidden = 0;
    for _ in 0..RUNS {
        let t = Instant::now();
        forbidden = 0;
        for b in &boards {
            forbidden += black_box(rules::forbidden_points(b)).len();
        }
        let s = t.elapsed().as_secs_f64();
        scan_rates.push(boards.len() as f64 / s);
        point_rates.push(points as f64 / s);
    }
    println!(
        "forbidden-point scan: {:.0} positions/s ({:.0} points/s), {forbidden} forbidden points found",
        median(scan_rates),
        median(point_rates)
    );

    let mut win_rates = Vec::new();
    let mut wins = 0;
    for _ in 0..RUNS {
        let t = Instant::now();
        wins = 0;
        for b in &boards {
            for p in b.empty_cells() {
                for c in [Color::Black, Color::White] {
                    wins += black_box(rules::is_win(b, Rule::Renju, p, c)) as usize;
                }
            }
        }
        win_rates.push((points * 2) as f64 / t.elapsed().as_secs_f64());
    }
    println!(
        "win check: {:.0} checks/s ({wins} winning points)",
        median(win_rates)
    );
}
