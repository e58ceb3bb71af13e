//! Speed and answer check of the VCT solver (`search::vct`): runs `Vct::solve` on a fixed set of
//! positions (the suites' positions and positions from seeded random games) with a fixed node
//! limit and no deadline, and prints per position the result, the nodes and whether the limit was
//! hit, then the totals and the wall time of the solves.
//!
//! `cargo run --release --example vct_speed -- [root|interior] [REPEATS]`
//!
//! * `root` (default): each position solved once with a fresh cache, with the root VCT's depth,
//!   threes and node cap.
//! * `interior`: the interior VCT's defaults (8 attacker moves, 2 threes, 500 nodes), one cache
//!   shared by all calls (as in the alpha-beta search), every position after each of its moves
//!   from ply 8 on.
//!
//! The per-position lines must not change when the solver only gets faster; compare them with
//! `diff` (the last line, the time, is the only one that may differ). `REPEATS` reruns the whole
//! set and prints each run's time (the answers are printed once).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rensa::board::fast::{FastBoard, Idx};
use rensa::board::pattern::Threat;
use rensa::search::vct::{Vct, VctCache};
use rensa::{Color, Pos, Rule};
use std::hash::{Hash, Hasher};
use std::time::Instant;

/// A named position: the moves from the empty board.
struct Case {
    name: String,
    rule: Rule,
    side: usize,
    moves: Vec<Pos>,
}

/// Every suite entry outside caro (the solver does not search caro).
fn suite_cases() -> Vec<Case> {
    let mut out = Vec::new();
    for file in ["freestyle15", "freestyle20", "standard", "renju", "caro"] {
        let path = format!("{}/suites/{file}.txt", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).expect("suite file");
        for e in rensa::tactics::parse_suite(&text).expect("suite parses") {
            if matches!(e.rule, Rule::Caro { .. }) || e.width != e.height {
                continue;
            }
            out.push(Case {
                name: e.id.clone(),
                rule: e.rule,
                side: e.width,
                moves: e.moves.clone(),
            });
        }
    }
    out
}

/// Positions of seeded random games (random cells near the stones mixed with the best-scored
/// cell, fives and blocks always played): every fourth ply from 8 on while nobody has won.
fn random_cases() -> Vec<Case> {
    let mut rng = StdRng::seed_from_u64(0x5eed_2026);
    let mut out = Vec::new();
    for game in 0..60 {
        let rule = [Rule::Freestyle, Rule::Exact, Rule::Renju][game % 3];
        let side = if game % 4 == 3 { 20 } else { 15 };
        let mut b = FastBoard::new(side, side, rule).unwrap();
        let mut moves = vec![Pos::new(side as u8 / 2, side as u8 / 2)];
        b.make(b.idx(moves[0]));
        for _ in 0..60 {
            let me = b.side_to_move();
            if b.count(me, Threat::Five) > 0 || b.count(me.opponent(), Threat::Five) > 1 {
                break;
            }
            let cells: Vec<Idx> = b
                .area(2)
                .filter(|&i| b.is_empty(i) && b.is_near(i))
                .collect();
            let m = if b.count(me.opponent(), Threat::Five) == 1 {
                b.cells_with(me.opponent(), Threat::Five).next().unwrap()
            } else if rng.gen_bool(0.35) {
                *cells
                    .iter()
                    .max_by_key(|&&i| (b.cell_score(i, me) + b.cell_score(i, me.opponent()), i))
                    .unwrap()
            } else {
                cells[rng.gen_range(0..cells.len())]
            };
            if !b.is_legal(m) {
                continue;
            }
            b.make(m);
            moves.push(b.pos(m));
            if moves.len() >= 8 && moves.len() % 4 == 0 {
                out.push(Case {
                    name: format!("rand-{game}-{}", moves.len()),
                    rule,
                    side,
                    moves: moves.clone(),
                });
            }
        }
    }
    out
}

/// One solve: (result, nodes, aborted, hash of the main line).
fn solve(
    vct: &mut Vct,
    b: &mut FastBoard,
    depth: u32,
    threes: u32,
) -> (Option<u32>, u64, bool, u64) {
    let mut line = Vec::new();
    let r = vct.solve(b, depth, threes, &mut line);
    let mut h = std::collections::hash_map::DefaultHasher::new();
    line.hash(&mut h);
    (r, vct.nodes, vct.aborted(), h.finish())
}

fn board_of(c: &Case) -> FastBoard {
    let mut b = FastBoard::new(c.side, c.side, c.rule).unwrap();
    for &m in &c.moves {
        b.make(b.idx(m));
    }
    b
}

/// Runs the whole set once; returns the report lines and the solves' wall time in seconds.
fn run(cases: &[Case], interior: bool) -> (Vec<String>, f64) {
    let mut lines = Vec::new();
    let (mut nodes, mut wins, mut hit) = (0u64, 0usize, 0usize);
    let mut secs = 0.0;
    let mut shared = VctCache::new(16);
    for c in cases {
        let mut b = board_of(c);
        if interior {
            // Replay the game and call the solver after every move from ply 8 on.
            let mut fb = FastBoard::new(c.side, c.side, c.rule).unwrap();
            for (k, &m) in c.moves.iter().enumerate() {
                fb.make(fb.idx(m));
                let me = fb.side_to_move();
                if k + 1 < 8 || fb.count(me, Threat::Five) > 0 {
                    continue;
                }
                let t0 = Instant::now();
                let mut vct = Vct::new(&mut shared, 500, None);
                let (r, n, ab, h) = solve(&mut vct, &mut fb, 8, 2);
                secs += t0.elapsed().as_secs_f64();
                nodes += n;
                wins += r.is_some() as usize;
                hit += ab as usize;
                lines.push(format!(
                    "{}@{} {:?} nodes {n} {}{h:016x}",
                    c.name,
                    k + 1,
                    r,
                    if ab { "LIMIT " } else { "" }
                ));
            }
            continue;
        }
        let mut cache = VctCache::new(18);
        let t0 = Instant::now();
        let mut vct = Vct::new(&mut cache, rensa::search::ROOT_VCT_NODES, None);
        let (r, n, ab, h) = solve(
            &mut vct,
            &mut b,
            rensa::search::ROOT_VCT_DEPTH,
            rensa::search::ROOT_VCT_THREES,
        );
        secs += t0.elapsed().as_secs_f64();
        nodes += n;
        wins += r.is_some() as usize;
        hit += ab as usize;
        let mover = if c.moves.len() % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        lines.push(format!(
            "{} {} {mover} {:?} nodes {n} {}{h:016x}",
            c.name,
            c.rule,
            r,
            if ab { "LIMIT " } else { "" }
        ));
    }
    lines.push(format!(
        "total: {} solves, {wins} wins, {hit} hit the node limit, {nodes} nodes",
        lines.len()
    ));
    (lines, secs)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let interior = args.first().is_some_and(|a| a == "interior");
    let repeats: usize = args.get(1).map_or(1, |a| a.parse().expect("repeats"));
    let mut cases = suite_cases();
    cases.extend(random_cases());
    let mut times = Vec::new();
    for k in 0..repeats {
        let (lines, secs) = run(&cases, interior);
        if k == 0 {
            for l in &lines {
                println!("{l}");
            }
        }
        times.push(secs);
    }
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    println!(
        "time: median {:.3} s of {:?}",
        sorted[sorted.len() / 2],
        times
            .iter()
            .map(|t| (t * 1000.0).round() / 1000.0)
            .collect::<Vec<_>>()
    );
}
