//! Where does a knob change the move when the opponent threatens a VCF, and is the change
//! better? For every position of match records after the opening where the side to move has
//! no four or five to play and the opponent would have a VCF if the side to move passed (the
//! positions the root VCF defence, knob `vcfdef`, acts on), the engine chooses a move with the
//! default knobs and with `TUNING`, each from a fresh engine. Where the two differ, both
//! resulting positions are searched by the default engine with `JUDGE` nodes, and the
//! difference of the two values (for the side that moved, mate values clamped to +-2000) is
//! averaged.
//!
//! `cargo run --release --example threat_move_diff -- FILE TUNING LIMIT JUDGE MAX`
//!
//! `FILE` a `games.jsonl` of `rensa-referee`; `TUNING` a `RENSA_TUNING` string (for example
//! `vcfdef=20000`); `LIMIT` either a node cap (`100000`) or a time per move (`100ms`, with a
//! 30 s match clock, as in a referee match); `JUDGE` the judge's node cap; `MAX` how many
//! threatened positions to look at. With `NOISE=1` the default engine also chooses a second
//! time, so that the share of moves a timed search changes on its own can be compared with
//! the knob's.
use rensa::board::fast::FastBoard;
use rensa::board::pattern::Threat;
use rensa::engine::{Engine, Limits};
use rensa::referee::record::GameRecord;
use rensa::referee::records::read_records;
use rensa::search::alphabeta::{set_tuning, Tuning};
use rensa::search::vcf::{Vcf, VcfCache};
use rensa::{Pos, Value};
use std::sync::atomic::AtomicBool;

/// Whether the side to move has a VCF within `nodes` (fresh cache each time).
fn has_vcf(b: &mut FastBoard, nodes: u64) -> bool {
    let cache = VcfCache::new(16);
    let mut v = Vcf {
        cache: &cache,
        nodes: 0,
        node_limit: nodes,
        deadline: None,
    };
    v.solve(b, rensa::search::ROOT_VCF_DEPTH, &mut Vec::new())
        .is_some()
}

/// The move and value of a fresh engine with knobs `t` after `moves` of game `g`.
fn think(g: &GameRecord, moves: &[Pos], t: Tuning, limits: &Limits) -> (Pos, Value) {
    set_tuning(t);
    let mut e = Engine::new();
    e.set_rule(g.rule);
    e.set_memory_limit(64 << 20);
    e.new_game(g.width, g.height).expect("board");
    for &p in moves {
        e.play(p).expect("legal move");
    }
    let r = e.think(limits, &AtomicBool::new(false), &mut |_| {});
    (r.best.expect("a move"), r.value)
}

fn limits_of(text: &str) -> Limits {
    match text.strip_suffix("ms") {
        Some(ms) => Limits {
            turn_time_ms: Some(ms.parse().expect("LIMIT ms")),
            match_time_ms: Some(30_000),
            ..Limits::default()
        },
        None => Limits {
            max_nodes: Some(text.parse().expect("LIMIT nodes")),
            ..Limits::default()
        },
    }
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.len() != 5 {
        eprintln!("usage: threat_move_diff FILE TUNING LIMIT JUDGE MAX");
        std::process::exit(2);
    }
    let text = std::fs::read_to_string(&a[0]).expect("record file");
    let knob = Tuning::parse(&a[1]).expect("TUNING");
    let limits = limits_of(&a[2]);
    let judge = Limits {
        max_nodes: Some(a[3].parse().expect("JUDGE")),
        ..Limits::default()
    };
    let max: usize = a[4].parse().expect("MAX");
    let noise = std::env::var_os("NOISE").is_some();
    let base = Tuning::DEFAULT;
    let (mut seen, mut differ, mut differ_alone) = (0, 0, 0);
    let mut gains = Vec::new();
    'games: for g in read_records(&text).0 {
        let all = g.all_moves();
        let mut b = FastBoard::new(g.width, g.height, g.rule).expect("board");
        for (n, &m) in all.iter().enumerate() {
            let me = b.side_to_move();
            let quiet_turn = n >= g.opening.len()
                && b.count(me, Threat::Five) == 0
                && b.count(me.opponent(), Threat::Five) == 0
                && b.count(me, Threat::Block4) == 0;
            if quiet_turn {
                b.make_null();
                let threatened = has_vcf(&mut b, 20_000);
                b.unmake_null();
                if threatened {
                    seen += 1;
                    let (ma, va) = think(&g, &all[..n], base, &limits);
                    let (mb, vb) = think(&g, &all[..n], knob, &limits);
                    if noise && think(&g, &all[..n], base, &limits).0 != ma {
                        differ_alone += 1;
                    }
                    if ma != mb {
                        differ += 1;
                        let value_after = |mv: Pos| {
                            let mut line = all[..n].to_vec();
                            line.push(mv);
                            (-think(&g, &line, base, &judge).1 .0).clamp(-2000, 2000)
                        };
                        let (ja, jb) = (value_after(ma), value_after(mb));
                        gains.push(jb - ja);
                        println!(
                            "game {} ply {n}: default {ma} ({}) judged {ja}, knob {mb} ({}) judged {jb}",
                            g.game_index, va.0, vb.0
                        );
                    }
                    if seen >= max {
                        break 'games;
                    }
                }
            }
            b.make(b.idx(m));
        }
    }
    let mean = gains.iter().map(|&x| x as f64).sum::<f64>() / gains.len().max(1) as f64 + 0.0;
    println!("threatened positions {seen}, moves changed by the knob {differ}, mean judged gain {mean:.0}");
    if noise {
        println!("moves the default changed on a second run {differ_alone}");
    }
}
