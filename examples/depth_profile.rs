//! How many nodes does the search need to reach each depth, with two settings of the knobs? Takes
//! positions from match records (6, 10 and 14 plies after each game's opening, where the game
//! went on for at least six more plies), shuffles them with `SEED`, keeps `COUNT`, and searches
//! each to `DEPTH` plies twice: with the knobs `A` and with the knobs `B` (`-` for the
//! defaults; a `mem=MIB` among them sets the engine's memory limit, as `INFO max_memory` does,
//! instead of a knob), one thread, a fresh engine and hash each time, no clock (so a search
//! here is a long one, with `lmrlong`'s reductions; `lmrlong=0` gives the short searches'
//! ones). Node counts do not depend on the machine, so this is a cheap, repeatable look at how
//! a change to move ordering, reductions or the hash scales with depth; it says nothing about
//! strength (a smaller tree can be a worse one), which only games tell.
//!
//! `cargo run --release --example depth_profile -- DEPTH COUNT SEED A B FILE...`
//!
//! For example `... -- 17 48 50 - hgrav=1 fast20/games.jsonl`. Prints each position's final
//! depth, nodes and move for both settings, then per depth: the positions where both settings
//! completed that iteration without a proven win or loss, the geometric mean and median of the
//! node ratio B/A over them, and how often both had the same best move.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rensa::engine::{Engine, Limits, SearchInfo};
use rensa::referee::records::read_records;
use rensa::search::alphabeta::{set_tuning, Tuning};
use rensa::{Pos, Rule};
use std::sync::atomic::AtomicBool;

/// Plies after the opening at which positions are taken.
const PLIES: [usize; 3] = [6, 10, 14];
/// Plies a game must go on for after a position for it to be taken (so it is not already won).
const PLIES_AFTER: usize = 6;

/// One position: rule, board size, moves from the empty board, and a name.
struct Position {
    rule: Rule,
    width: usize,
    height: usize,
    moves: Vec<Pos>,
    name: String,
}

/// Per completed iteration: depth, nodes so far, first move of the main line, and whether the
/// value is a proven win or loss.
type Iterations = Vec<(i32, u64, Option<Pos>, bool)>;

fn profile(p: &Position, setting: &Setting, depth: i32) -> Iterations {
    set_tuning(setting.knobs);
    let mut e = Engine::new();
    if let Some(mib) = setting.memory_mib {
        e.set_memory_limit(mib << 20);
    }
    e.set_rule(p.rule);
    e.new_game(p.width, p.height).expect("board size");
    for &m in &p.moves {
        e.play(m).expect("legal move");
    }
    let limits = Limits {
        max_depth: Some(depth),
        ..Default::default()
    };
    let mut its = Iterations::new();
    let mut on_info = |i: &SearchInfo| {
        its.push((i.depth, i.nodes, i.pv.first().copied(), i.value.is_mate()));
    };
    e.think(&limits, &AtomicBool::new(false), &mut on_info);
    set_tuning(Tuning::DEFAULT);
    its
}

/// Knobs, and the engine's memory limit if one is given.
struct Setting {
    knobs: Tuning,
    memory_mib: Option<u64>,
}

fn setting(s: &str) -> Setting {
    let mut memory_mib = None;
    let mut knobs = Vec::new();
    for part in s.split(',').filter(|p| !p.is_empty() && *p != "-") {
        match part.strip_prefix("mem=") {
            Some(m) => memory_mib = Some(m.parse().expect("mem=MIB")),
            None => knobs.push(part),
        }
    }
    let knobs = Tuning::parse(&knobs.join(",")).unwrap_or_else(|| panic!("bad knobs {s:?}"));
    Setting { knobs, memory_mib }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 6 {
        eprintln!(
            "usage: depth_profile DEPTH COUNT SEED A B FILE...   (A, B: knobs, - = defaults)"
        );
        std::process::exit(2);
    }
    let depth: i32 = args[0].parse().expect("DEPTH");
    let count: usize = args[1].parse().expect("COUNT");
    let seed: u64 = args[2].parse().expect("SEED");
    let (a, b) = (setting(&args[3]), setting(&args[4]));
    let mut positions = Vec::new();
    for path in &args[5..] {
        let text = std::fs::read_to_string(path).expect("record file");
        for g in read_records(&text).0 {
            let moves = g.all_moves();
            for k in PLIES {
                let n = g.opening.len() + k;
                if n + PLIES_AFTER <= moves.len() {
                    positions.push(Position {
                        rule: g.rule,
                        width: g.width,
                        height: g.height,
                        moves: moves[..n].to_vec(),
                        name: format!("{path} game {} ply {n}", g.game_index),
                    });
                }
            }
        }
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    positions.shuffle(&mut rng);
    positions.truncate(count);
    eprintln!(
        "depth_profile: {} positions (seed {seed}), depth {depth}",
        positions.len()
    );
    let mut runs = Vec::new();
    for p in &positions {
        let (ra, rb) = (profile(p, &a, depth), profile(p, &b, depth));
        let last = |r: &Iterations| {
            r.last()
                .map(|&(d, n, m, _)| format!("depth {d} nodes {n} move {}", fmt(m)))
                .unwrap_or_default()
        };
        println!("{}: A {}; B {}", p.name, last(&ra), last(&rb));
        runs.push((ra, rb));
    }
    println!("depth  positions  nodes B/A geo-mean  median  same best move");
    for d in 1..=depth {
        let mut logs = Vec::new();
        let mut same = 0;
        for (ra, rb) in &runs {
            let at = |r: &Iterations| r.iter().find(|it| it.0 == d && !it.3).copied();
            if let (Some(x), Some(y)) = (at(ra), at(rb)) {
                logs.push((y.1 as f64 / x.1.max(1) as f64).ln());
                same += (x.2 == y.2) as usize;
            }
        }
        if logs.is_empty() {
            continue;
        }
        logs.sort_by(f64::total_cmp);
        let n = logs.len();
        let geo = (logs.iter().sum::<f64>() / n as f64).exp();
        let median = logs[n / 2].exp();
        println!("{d:5}  {n:9}  {geo:17.3}  {median:6.3}  {same}/{n}");
    }
}

fn fmt(m: Option<Pos>) -> String {
    m.map(|p| p.to_string()).unwrap_or_else(|| "-".into())
}
