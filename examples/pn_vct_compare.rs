//! The depth-first VCT solver against the proof-number one on the positions of real games
//! (every `STEP`th ply of every game, after the opening and two more moves, nobody with a five
//! point). Two modes:
//!
//! * `NODES STEP FILE...`: the depth-first solver at the root VCT's reach (16 attacker moves, 3
//!   threes) and the proof-number solver (`PN_THREES` threes, 5 by default), each capped at
//!   `NODES` nodes; prints the positions where either finds a win, with both answers and
//!   times, then the wins of each and the time each spent in all (most positions have no win,
//!   so this is what each costs a game).
//! * `ms=MS STEP FILE...`: the root VCT as the engine runs it within `MS` ms, alone and then
//!   followed by the proof-number solver in what is left of the time; prints the wins only
//!   the second stage found, then both totals and the mean time a position.
//!
//! Every proof-number win is checked: after its first move, every legal reply near the stones
//! must leave the attacker (to move) a five or a VCT by a generous depth-first run (24
//! attacker moves, 6 threes, 1 000 000 nodes) or by a proof-number run.
//!
//! `cargo run --release --example pn_vct_compare -- [ms=MS | NODES] STEP FILE...`

use rensa::board::fast::{FastBoard, Idx};
use rensa::board::pattern::Threat;
use rensa::referee::record::GameRecord;
use rensa::referee::records::read_records;
use rensa::search::pnvct::PnVct;
use rensa::search::vct::{Vct, VctCache};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

fn dfs(b: &mut FastBoard, cache: &mut VctCache, reach: (u32, u32, u64)) -> Option<(u32, Idx)> {
    let mut vct = Vct::new(cache, reach.2, None);
    let mut line = Vec::new();
    vct.solve(b, reach.0, reach.1, &mut line)
        .filter(|_| !line.is_empty())
        .map(|n| (n, line[0]))
}

fn pn(b: &mut FastBoard, cache: &mut VctCache, nodes: u64) -> (Option<(u32, Idx)>, u64) {
    let mut vct = Vct::new(cache, nodes, None);
    let mut pn = PnVct::new(&mut vct, 4_000_000);
    pn.threes = threes();
    let mut line = Vec::new();
    let r = pn.solve(b, &mut line);
    let tree = pn.tree_nodes() as u64;
    (r.filter(|_| !line.is_empty()).map(|n| (n, line[0])), tree)
}

/// The root VCT as the engine runs it within `ms` ms (16 attacker moves, 3 threes, 2 000 nodes a
/// millisecond, at least 200 000), then, when `staged` and it found nothing, the proof-number
/// solver (`PN_THREES` threes) in what is left of the time: the win, and whether the second
/// stage found it.
fn timed(
    b: &mut FastBoard,
    cache: &mut VctCache,
    ms: u64,
    staged: bool,
) -> (Option<(u32, Idx)>, bool) {
    let stop = AtomicBool::new(false);
    let deadline = Instant::now() + Duration::from_millis(ms);
    let mut line = Vec::new();
    let mut vct = Vct::new(cache, (2_000 * ms).max(200_000), Some((deadline, &stop)));
    if let Some(n) = vct.solve(b, 16, 3, &mut line).filter(|_| !line.is_empty()) {
        return (Some((n, line[0])), false);
    }
    if !staged || Instant::now() >= deadline {
        return (None, false);
    }
    let mut vct = Vct::new(cache, u64::MAX, Some((deadline, &stop)));
    let mut pn = PnVct::new(&mut vct, 4_000_000);
    pn.threes = threes();
    let r = pn.solve(b, &mut line).filter(|_| !line.is_empty());
    (r.map(|n| (n, line[0])), r.is_some())
}

fn threes() -> u8 {
    std::env::var("PN_THREES")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(5)
}

/// Whether every legal reply near the stones to the attacker's move `m` leaves it a win.
fn checked(b: &mut FastBoard, m: Idx, nodes: u64) -> bool {
    let mut cache = VctCache::new(20);
    b.make(m);
    let attacker = b.side_to_move().opponent();
    let replies: Vec<Idx> = b.area(2).filter(|&i| b.is_near(i)).collect();
    let mut all = true;
    for r in replies {
        if !b.is_legal(r) {
            continue;
        }
        b.make(r);
        // A defender's four is no escape if the attacker blocks and still wins (the solvers
        // start with the block then).
        let wins = b.count(attacker, Threat::Five) > 0
            || dfs(b, &mut cache, (24, 6, 1_000_000)).is_some()
            || pn(b, &mut cache, 4 * nodes).0.is_some();
        b.unmake();
        if !wins {
            all = false;
            break;
        }
    }
    b.unmake();
    all
}

/// Calls `visit(file, game, ply, board)` at every `step`th position of every game of the
/// record files (after the opening and the next two moves, nobody with a five point).
fn for_positions(
    files: &[String],
    step: usize,
    mut visit: impl FnMut(&str, &GameRecord, usize, &mut FastBoard),
) {
    for path in files {
        let text = std::fs::read_to_string(path).expect("record file");
        for g in read_records(&text).0 {
            let moves = g.all_moves();
            let mut b = FastBoard::new(g.width, g.height, g.rule).expect("board");
            for (n, &m) in moves.iter().enumerate() {
                let me = b.side_to_move();
                let quiet =
                    b.count(me, Threat::Five) == 0 && b.count(me.opponent(), Threat::Five) == 0;
                if n >= g.opening.len() + 2 && quiet && n % step == 0 {
                    visit(path, &g, n, &mut b);
                }
                b.make(b.idx(m));
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: pn_vct_compare NODES STEP FILE...");
        std::process::exit(2);
    }
    if let Some(ms) = args[0].strip_prefix("ms=") {
        return timed_main(ms.parse().expect("MS"), &args[1..]);
    }
    let nodes: u64 = args[0].parse().expect("NODES");
    let step: usize = args[1].parse().expect("STEP");
    let (mut positions, mut dfs_wins, mut pn_wins, mut both) = (0u64, 0u64, 0u64, 0u64);
    let (mut dfs_s, mut pn_s, mut unchecked) = (0f64, 0f64, 0u64);
    let mut cache = VctCache::new(20);
    for_positions(&args[2..], step, |path, g, n, b| {
        positions += 1;
        cache.clear();
        let t = Instant::now();
        let d = dfs(b, &mut cache, (16, 3, nodes));
        let td = t.elapsed().as_secs_f64();
        cache.clear();
        let t = Instant::now();
        let (p, tree) = pn(b, &mut cache, nodes);
        let tp = t.elapsed().as_secs_f64();
        dfs_s += td;
        pn_s += tp;
        dfs_wins += d.is_some() as u64;
        pn_wins += p.is_some() as u64;
        both += (d.is_some() && p.is_some()) as u64;
        let ok = match p {
            Some((_, first)) => checked(b, first, nodes),
            None => true,
        };
        unchecked += !ok as u64;
        if d.is_some() || p.is_some() {
            let show = |w: Option<(u32, Idx)>| match w {
                Some((n, f)) => format!("{n} plies from {}", b.pos(f)),
                None => "none".to_string(),
            };
            println!(
                "{path} {} game {} ply {n}: dfs {} in {:.1} ms; pn {} in {:.1} ms \
                 ({tree} tree nodes){}",
                g.rule.name(),
                g.game_index,
                show(d),
                td * 1e3,
                show(p),
                tp * 1e3,
                if ok { "" } else { " UNCHECKED" }
            );
        }
    });
    println!(
        "positions {positions}: dfs wins {dfs_wins} ({:.1} s), pn wins {pn_wins} ({:.1} s), \
         both {both}, pn wins not confirmed {unchecked}",
        dfs_s, pn_s
    );
}

/// `ms=MS STEP FILE...`: the root VCT alone against the root VCT then the proof-number solver,
/// both within `MS` ms a position.
fn timed_main(ms: u64, args: &[String]) {
    let step: usize = args[0].parse().expect("STEP");
    let (mut positions, mut alone, mut staged, mut second) = (0u64, 0u64, 0u64, 0u64);
    let (mut alone_s, mut staged_s, mut unchecked) = (0f64, 0f64, 0u64);
    let mut cache = VctCache::new(20);
    for_positions(&args[1..], step, |path, g, n, b| {
        positions += 1;
        cache.clear();
        let t = Instant::now();
        let (a, _) = timed(b, &mut cache, ms, false);
        alone_s += t.elapsed().as_secs_f64();
        cache.clear();
        let t = Instant::now();
        let (s, by_pn) = timed(b, &mut cache, ms, true);
        let ts = t.elapsed().as_secs_f64();
        staged_s += ts;
        alone += a.is_some() as u64;
        staged += s.is_some() as u64;
        second += by_pn as u64;
        if let (true, Some((len, first))) = (by_pn, s) {
            let ok = checked(b, first, 1_000_000);
            unchecked += !ok as u64;
            println!(
                "{path} {} game {} ply {n}: root VCT {}; proof-number {len} plies from {} \
                 ({:.1} ms in all){}",
                g.rule.name(),
                g.game_index,
                if a.is_some() { "won" } else { "none" },
                b.pos(first),
                ts * 1e3,
                if ok { "" } else { " UNCHECKED" }
            );
        }
    });
    println!(
        "positions {positions} at {ms} ms: root VCT alone {alone} wins ({:.2} ms a position), \
         then proof-number {staged} wins ({:.2} ms a position), {second} by the second stage, \
         not confirmed {unchecked}",
        alone_s * 1e3 / positions as f64,
        staged_s * 1e3 / positions as f64
    );
}
