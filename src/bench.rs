//! `pbrain-rensa bench`: fixed positions searched to a fixed depth on one thread; the total node
//! count is the signature recorded in every commit that changes the search.
//!
//! Each position gets a fresh engine (empty hash) and no time limit, so the node count depends
//! only on the code: it is identical from run to run and machine to machine. Nodes per second
//! count the time spent in `think` only: building the pattern tables and allocating the
//! engine's hash table and caches happen before the clock starts.

use crate::board::fast::FastBoard;
use crate::engine::{Engine, Limits};
use crate::pos::parse_algebraic;
use crate::types::Rule;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Search depth of every bench position, in plies.
pub const BENCH_DEPTH: i32 = 10;
/// Hash size used by the bench (fixed, so the signature does not depend on the machine).
pub const BENCH_MEMORY_BYTES: u64 = 64 * 1024 * 1024;

/// (rule, board side, moves in algebraic notation).
pub const POSITIONS: &[(Rule, usize, &str)] = &[
    (Rule::Freestyle, 15, "h8"),
    (Rule::Freestyle, 15, "h8i9i8g8h9h7"),
    (Rule::Freestyle, 15, "h8h9i8g8j8k8i7i9j9"),
    (Rule::Freestyle, 15, "h8i7g7i9i8g9j8k8h10h9g10f11"),
    (Rule::Freestyle, 20, "j10k11k10i10l10m10k12"),
    (Rule::Freestyle, 20, "j10j11k10i10k12l11k11k9"),
    (Rule::Exact, 15, "h8h9i8h10g8h11j13h12g14h14i15"),
    (Rule::Exact, 15, "h8i9g9h9h10g10"),
    (Rule::Renju, 15, "h8h9i7i9h10i6i11i12"),
    (Rule::Renju, 15, "h8i9j8i8i7j9g9"),
    (
        Rule::Caro {
            overline_wins: false,
        },
        15,
        "h8f8g8f9i8f7j8l8",
    ),
    (
        Rule::Caro {
            overline_wins: false,
        },
        15,
        "h8i9h9h10g9i7",
    ),
];

/// Runs the benchmark and returns the report text (per position, then totals; the last line is
/// `Bench: <nodes>`).
pub fn run() -> String {
    let mut out = String::new();
    let mut total_nodes = 0u64;
    // Nodes per second count the searches only, not building the pattern tables.
    let mut search_secs = 0.0f64;
    let start = Instant::now();
    let stop = AtomicBool::new(false);
    for (n, &(rule, side, moves)) in POSITIONS.iter().enumerate() {
        let mut e = Engine::new();
        e.set_rule(rule);
        e.set_memory_limit(BENCH_MEMORY_BYTES);
        if e.new_game(side, side).is_err() {
            continue;
        }
        for m in parse_algebraic(moves).unwrap_or_default() {
            let _ = e.play(m);
        }
        let limits = Limits {
            max_depth: Some(BENCH_DEPTH),
            ..Limits::default()
        };
        // The rule's pattern tables are built on first use, once per process: not search time.
        let _ = FastBoard::from_game(e.game());
        // Nor is allocating (and, when the allocator reuses freed memory, zeroing) the fresh
        // hash table and threat caches: `think` would do it on first use, with the same result.
        // Nor are the page faults of their first touches: a game pays them once, on its first
        // move, the bench once per position (about 47 000 faults, 8-11 % of its time, with
        // ordinary pages). The timed section is the search on tables already in memory.
        e.allocate_tables();
        e.fault_in_tables(None);
        let t = Instant::now();
        let r = e.think(&limits, &stop, &mut |_| {});
        search_secs += t.elapsed().as_secs_f64();
        total_nodes += r.nodes;
        out.push_str(&format!(
            "position {:2} {:9} {side}x{side}: best {:>6} value {:>6} depth {} nodes {:>9} {:>6} ms\n",
            n + 1,
            rule.name(),
            r.best.map(|p| p.to_string()).unwrap_or_default(),
            r.value.to_string(),
            r.depth,
            r.nodes,
            t.elapsed().as_millis()
        ));
    }
    out.push_str(&format!(
        "Total time (ms): {:.0}\nSearch time (ms): {:.0}\nNodes searched: {total_nodes}\nNodes/second: {:.0}\nBench: {total_nodes}",
        start.elapsed().as_secs_f64() * 1000.0,
        search_secs * 1000.0,
        total_nodes as f64 / search_secs.max(1e-9)
    ));
    out
}
