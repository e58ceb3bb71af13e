//! Lazy SMP measurement: each bench position searched by a fresh engine with 1 and with N
//! threads, either for a fixed time (nodes per second, depth reached) or to a fixed depth (time
//! to depth). Timings depend on the machine and its load; run it on an idle machine.
//!
//! ```sh
//! cargo run --release --example smp_nps -- --threads 2 --ms 1000
//! cargo run --release --example smp_nps -- --threads 2 --depth 10
//! ```

use rensa::bench::{BENCH_MEMORY_BYTES, POSITIONS};
use rensa::engine::{Engine, Limits};
use rensa::pos::parse_algebraic;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// What one search is limited by.
#[derive(Clone, Copy)]
enum Mode {
    TimeMs(u64),
    Depth(i32),
}

fn parse_args(args: &[String]) -> Result<(usize, Mode), String> {
    let mut threads = 2;
    let mut mode = Mode::TimeMs(1000);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut num = |name: &str| -> Result<u64, String> {
            it.next()
                .and_then(|v| v.parse().ok())
                .ok_or(format!("{name} needs a number"))
        };
        match a.as_str() {
            "--threads" => threads = num("--threads")?.clamp(1, 64) as usize,
            "--ms" => mode = Mode::TimeMs(num("--ms")?),
            "--depth" => mode = Mode::Depth(num("--depth")?.clamp(1, 60) as i32),
            other => return Err(format!("unknown argument '{other}'")),
        }
    }
    Ok((threads, mode))
}

/// (nodes, depth, elapsed ms) of one search.
fn search(pos: usize, threads: usize, mode: Mode) -> (u64, i32, u64) {
    let (rule, side, moves) = POSITIONS[pos];
    let mut e = Engine::new();
    e.set_rule(rule);
    e.set_memory_limit(BENCH_MEMORY_BYTES);
    if e.new_game(side, side).is_err() {
        return (0, 0, 0);
    }
    for m in parse_algebraic(moves).unwrap_or_default() {
        let _ = e.play(m);
    }
    let limits = match mode {
        Mode::TimeMs(ms) => Limits {
            turn_time_ms: Some(ms),
            threads,
            ..Limits::default()
        },
        Mode::Depth(d) => Limits {
            max_depth: Some(d),
            threads,
            ..Limits::default()
        },
    };
    let t = Instant::now();
    let r = e.think(&limits, &AtomicBool::new(false), &mut |_| {});
    (r.nodes, r.depth, t.elapsed().as_millis() as u64)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (threads, mode) = match parse_args(&args) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("smp_nps: {e}\nusage: smp_nps [--threads N] [--ms MS | --depth D]");
            std::process::exit(2);
        }
    };
    let mut totals = [(0u64, 0i64, 0u64); 2];
    println!("pos  threads     nodes  depth     ms      knps");
    for pos in 0..POSITIONS.len() {
        for (k, t) in [1, threads].into_iter().enumerate() {
            let (nodes, depth, ms) = search(pos, t, mode);
            totals[k].0 += nodes;
            totals[k].1 += depth as i64;
            totals[k].2 += ms;
            println!(
                "{:3}  {t:7} {nodes:9} {depth:6} {ms:6} {:9.0}",
                pos + 1,
                nodes as f64 / ms.max(1) as f64
            );
        }
    }
    for (k, t) in [1, threads].into_iter().enumerate() {
        let (nodes, depth, ms) = totals[k];
        println!(
            "total threads {t}: nodes {nodes} depth-sum {depth} ms {ms} knps {:.0}",
            nodes as f64 / ms.max(1) as f64
        );
    }
}
