//! Generates the shipped opening sets in `openings/` (deterministic: fixed seeds, own PRNG, and
//! every opening scored by a fixed-depth search, so neither machine load nor timing changes them).
//!
//! ```sh
//! cargo run --release --example gen_openings -- openings              # all four sets
//! cargo run --release --example gen_openings -- openings freestyle    # or some of them
//! cargo run --release --example gen_openings -- --scores LOG openings   # reuse logged scores
//! # A pool for balancing by games: 600 renju candidates, the 100 scored closest to +50
//! cargo run --release --example gen_openings -- --count 600 --keep 100 --target 50 pool renju
//! # A pool of every caro candidate of 4000 whose score is within 35 of -5 (-40 ... +30)
//! cargo run --release --example gen_openings -- --count 4000 --target -5 --within 35 pool caro
//! ```
//!
//! Every candidate's score goes to stderr as `score <pos> <value>`; `--scores` reads such a log
//! back (the search is deterministic, so only the selection is redone, in seconds).
//!
//! Procedure, per rule (freestyle, standard, renju, caro), on a 15x15 board:
//! 1. Candidates: random openings (700 for freestyle, 300 for the other rules) of 2 to 5 stones (black first, alternating); the
//!    first on the centre, every further stone within two cells (king distance) of an earlier one
//!    and within three of the centre.
//! 2. Filters: playable under the rule with the rules oracle (no foul, no finished line), and no
//!    colour has three stones in any five-cell window free of the other colour (no threes, so no
//!    immediate threats); one candidate per symmetry class (the eight board symmetries).
//! 3. Score: Rensa's own engine searches every candidate from an empty hash, one thread, to the
//!    fixed depth `DEPTH` (no clock: the root VCF and VCT are bounded by their node caps). The
//!    score is the mean of the values of the last two iterations (damps the odd/even swing of
//!    iterative deepening), turned to black's point of view (the side to move after the opening
//!    is black after an even number of stones, white after an odd one). A candidate is rejected
//!    when any iteration, or the root VCF/VCT, reports a forced result for either side.
//! 4. Selection: the `KEEP` candidates whose black score is closest to `TARGET`, at most
//!    `KEEP * 9 / 10` of any stone count, and none from `DROPPED` (openings that proved lopsided in
//!    real engine matches; see the README). `--keep`, `--target` and `--count` change the three
//!    numbers (the set's own candidate count is 700 for freestyle, 300 for the others).
//!    `--within D` keeps instead every candidate whose score is within `D` of the target,
//!    however many there are and whatever their stone counts (a pool for balancing by games).
//!
//! Every shipped set is balanced by games (renju and exact five since the thirty-second session,
//! freestyle since the thirty-third, caro since the thirty-fourth), one more step: a pool made
//! with these options is played out with `rensa-referee match`, and
//! `examples/opening_stats.rs --keep 40` keeps the openings whose black score in those games is
//! closest to even (see the README, "Balancing by games").
//!
//! The scores are an engine's opinion at a shallow depth: they rank openings, they do not prove
//! balance; real matches (`rensa-referee match`) are the check.

use rensa::board::Game;
use rensa::engine::{Engine, Limits};
use rensa::openings::{canonical_key, check_playable};
use rensa::pos::{to_algebraic, to_offset_line, Pos};
use rensa::types::{Color, Rule};
use std::collections::HashSet;
use std::fmt::Write as _;
use std::sync::atomic::AtomicBool;

const SIDE: usize = 15;
/// Search depth (plies) of the score.
const DEPTH: i32 = 12;
/// Openings kept per set (default of `--keep`).
const KEEP: usize = 40;
/// Black score (engine units) the selection aims at (default of `--target`).
const TARGET: i32 = 0;

/// What the selection keeps (step 4): `keep` openings closest to `target`, from `count`
/// candidates (the set's own number unless given). `--keep 80 --target 50` writes a larger pool
/// whose balance real games then decide (see `examples/opening_stats.rs`).
#[derive(Clone, Copy)]
struct Selection {
    keep: usize,
    target: i32,
    count: Option<usize>,
    /// `--within D`: every candidate within `D` of `target` (no `keep`, no stone-count cap).
    within: Option<i32>,
}
/// Hash memory of the scoring engine.
const MEMORY_BYTES: u64 = 128 * 1024 * 1024;

/// SplitMix64: a tiny PRNG whose output never changes between library versions.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn centre() -> i64 {
    (SIDE / 2) as i64
}

/// One random compact candidate of `n` stones.
fn candidate(rng: &mut Rng, n: usize) -> Option<Vec<Pos>> {
    let c = centre();
    let mut stones = vec![Pos::new(c as u8, c as u8)];
    let mut tries = 0;
    while stones.len() < n {
        tries += 1;
        if tries > 200 {
            return None;
        }
        let base = stones[rng.below(stones.len() as u64) as usize];
        let x = base.x as i64 + rng.below(5) as i64 - 2;
        let y = base.y as i64 + rng.below(5) as i64 - 2;
        if (x - c).abs() > 3 || (y - c).abs() > 3 {
            continue;
        }
        let p = Pos::new(x as u8, y as u8);
        if !stones.contains(&p) {
            stones.push(p);
        }
    }
    Some(stones)
}

const DIRS: [(i64, i64); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

fn at(board: &rensa::Board, x: i64, y: i64) -> Option<Option<Color>> {
    if x < 0 || y < 0 || x >= SIDE as i64 || y >= SIDE as i64 {
        None
    } else {
        Some(board.get(Pos::new(x as u8, y as u8)))
    }
}

/// Whether some colour has three stones in a five-cell window without the other colour.
fn has_three(board: &rensa::Board) -> bool {
    for y in 0..SIDE as i64 {
        for x in 0..SIDE as i64 {
            for (dx, dy) in DIRS {
                let mut counts = [0; 2];
                let mut inside = true;
                for k in 0..5 {
                    match at(board, x + dx * k, y + dy * k) {
                        None => inside = false,
                        Some(Some(c)) => counts[c.index()] += 1,
                        Some(None) => {}
                    }
                }
                if inside
                    && ((counts[0] >= 3 && counts[1] == 0) || (counts[1] >= 3 && counts[0] == 0))
                {
                    return true;
                }
            }
        }
    }
    false
}

/// Openings that real matches showed to be lopsided, per rule, in offset notation (any symmetric
/// image is excluded too). Freestyle: one colour won all four games (two per colour) in
/// `rensa-referee match`, Rensa against itself, 100 ms/move, 160 games, `--shuffle --seed 7
/// --transform` over the set selected without this list.
const DROPPED: &[(&str, &str)] = &[
    ("freestyle", "0,0, -2,-1, 2,-2"),
    ("freestyle", "0,0, 2,-2, 3,-3"),
    ("freestyle", "0,0, -1,1, 2,-2, -2,1"),
    ("freestyle", "0,0, -1,0, 2,0, 1,0, -2,0"),
    ("freestyle", "0,0, -2,0, -2,-1, -1,1, 1,-2"),
    ("freestyle", "0,0, -2,-2, 1,-2, -1,0, -3,-1"),
];

/// Black's score of `opening` by a fixed-depth search, or `None` when a forced result shows up.
fn score(engine: &mut Engine, rule: Rule, opening: &[Pos]) -> Option<i32> {
    engine.set_rule(rule);
    engine.new_game(SIDE, SIDE).ok()?;
    engine.clear_hash();
    for &m in opening {
        engine.play(m).ok()?;
    }
    let limits = Limits {
        max_depth: Some(DEPTH),
        ..Limits::default()
    };
    let mut values = Vec::new();
    let mut mate = false;
    let r = engine.think(&limits, &AtomicBool::new(false), &mut |i| {
        mate |= i.value.is_mate();
        values.push(i.value.0);
    });
    if mate || r.value.is_mate() || values.is_empty() {
        return None;
    }
    let last = &values[values.len().saturating_sub(2)..];
    let mean = last.iter().sum::<i32>() / last.len() as i32;
    let black_to_move = engine.game().side_to_move() == Color::Black;
    Some(if black_to_move { mean } else { -mean })
}

/// One line per candidate on stderr (`-` for a forced result), for inspection.
fn log_score(opening: &[Pos], v: Option<i32>) {
    let text = v.map_or_else(|| "-".to_string(), |v| format!("{v:+}"));
    eprintln!("score {} {text}", to_algebraic(opening).unwrap_or_default());
}

/// Random candidates for `rule`: legal, without threes, one per symmetry class.
fn candidates(rule: Rule, seed: u64, count: usize) -> Vec<Vec<Pos>> {
    let mut rng = Rng(seed);
    let mut seen = HashSet::new();
    let mut out: Vec<Vec<Pos>> = Vec::new();
    let mut attempts = 0;
    while out.len() < count && attempts < 200_000 {
        attempts += 1;
        let n = 2 + rng.below(4) as usize;
        let Some(c) = candidate(&mut rng, n) else {
            continue;
        };
        if check_playable(rule, SIDE, SIDE, &c).is_err() {
            continue;
        }
        let Ok(g) = Game::from_moves(SIDE, SIDE, rule, &c) else {
            continue;
        };
        if has_three(g.board()) || !seen.insert(canonical_key(&c, SIDE, SIDE)) {
            continue;
        }
        out.push(c);
    }
    out
}

/// Scores logged by an earlier run (`score <pos> <value>` lines of its stderr), keyed by the pos
/// string: the search is deterministic, so a rerun that only changes the selection can reuse them.
fn read_cache(path: &str) -> std::collections::HashMap<String, Option<i32>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("cannot read {path}: {e}");
        std::process::exit(1);
    });
    text.lines()
        .filter_map(|l| {
            let mut w = l.strip_prefix("score ")?.split_whitespace();
            let (pos, v) = (w.next()?, w.next()?);
            Some((pos.to_string(), v.parse::<i32>().ok()))
        })
        .collect()
}

fn generate(
    rule: Rule,
    seed: u64,
    count: usize,
    cache: &std::collections::HashMap<String, Option<i32>>,
    sel: Selection,
) -> String {
    let Selection { target, .. } = sel;
    let dropped: HashSet<_> = DROPPED
        .iter()
        .filter(|(name, _)| *name == rule.name())
        .filter_map(|(_, line)| rensa::pos::parse_offset_line(line, SIDE, SIDE).ok())
        .map(|m| canonical_key(&m, SIDE, SIDE))
        .collect();
    let cands = candidates(rule, seed, count);
    let mut engine = Engine::new();
    engine.set_memory_limit(MEMORY_BYTES);
    let total = cands.len();
    let mut measured: Vec<(i32, Vec<Pos>)> = Vec::new();
    let mut forced = 0;
    for (i, c) in cands.into_iter().enumerate() {
        let key = to_algebraic(&c).unwrap_or_default();
        let v = match cache.get(&key) {
            Some(&v) => v,
            None => score(&mut engine, rule, &c),
        };
        log_score(&c, v);
        match v {
            Some(v) => measured.push((v, c)),
            None => forced += 1,
        }
        if (i + 1) % 50 == 0 {
            eprintln!("{}: scored {}/{total}", rule.name(), i + 1);
        }
    }
    let n = measured.len().max(1) as f64;
    let mean = measured.iter().map(|m| m.0 as f64).sum::<f64>() / n;
    eprintln!(
        "{}: {total} candidates, {forced} with a forced result, black score mean {mean:.0}",
        rule.name()
    );
    measured.sort_by(|a, b| {
        (a.0 - target)
            .abs()
            .cmp(&(b.0 - target).abs())
            .then(a.1.len().cmp(&b.1.len()))
            .then(a.1.cmp(&b.1))
    });
    let mut per_count = [0usize; 6];
    let mut kept = Vec::new();
    let cap = match sel.within {
        Some(_) => usize::MAX,
        None => sel.keep * 9 / 10,
    };
    for (v, c) in measured {
        let full = match sel.within {
            Some(d) => (v - target).abs() > d,
            None => kept.len() == sel.keep,
        };
        if full {
            break;
        }
        if per_count[c.len()] < cap && !dropped.contains(&canonical_key(&c, SIDE, SIDE)) {
            per_count[c.len()] += 1;
            kept.push((v, c));
        }
    }
    let keep = kept.len();
    let kept_mean = kept.iter().map(|k| k.0 as f64).sum::<f64>() / kept.len().max(1) as f64;
    let worst = kept.iter().map(|k| (k.0 - target).abs()).max().unwrap_or(0);
    eprintln!(
        "{}: kept {}, black score mean {kept_mean:.0}, farthest from {target}: {worst}",
        rule.name(),
        kept.len()
    );
    kept.sort_by(|a, b| a.1.len().cmp(&b.1.len()).then(a.1.cmp(&b.1)));

    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Rensa opening set: {} ({} openings, offset notation: pairs dx,dy from the centre).",
        rule.name(),
        kept.len()
    );
    // The options that changed the selection, so that the header names the command that made it.
    let mut opts = String::new();
    if let Some(n) = sel.count {
        let _ = write!(opts, "--count {n} ");
    }
    if sel.keep != KEEP {
        let _ = write!(opts, "--keep {} ", sel.keep);
    }
    if target != TARGET {
        let _ = write!(opts, "--target {target} ");
    }
    if let Some(d) = sel.within {
        let _ = write!(opts, "--within {d} ");
    }
    let _ = writeln!(
        out,
        "# Generated by `cargo run --release --example gen_openings -- {opts}openings` (seed {seed}):"
    );
    let _ = writeln!(
        out,
        "# {total} random compact 2-5 stone openings around the centre, legal under the rule and free"
    );
    let _ = writeln!(
        out,
        "# of threes for both colours, one per symmetry class, each scored by Rensa's search to a fixed"
    );
    let _ = writeln!(
        out,
        "# depth of {DEPTH} plies on {SIDE}x{SIDE} ({forced} dropped for a forced win for either side); kept: the {keep}"
    );
    let how = match sel.within {
        Some(d) => format!("whose score is within {d} of {target}, all of them"),
        None => format!(
            "whose score is closest to {target}, at most {} per stone count",
            keep * 9 / 10
        ),
    };
    let _ = writeln!(out, "# {how}. Comment: the stones in pos notation");
    let _ = writeln!(
        out,
        "# on 15x15 and the search value for black (engine units; set mean {kept_mean:.0}). Skipped: {}",
        dropped.len()
    );
    let _ = writeln!(
        out,
        "# openings that proved lopsided in real matches (`DROPPED` in examples/gen_openings.rs)."
    );
    for (v, c) in kept {
        let _ = writeln!(
            out,
            "{:<36} # {:<14} black {:>+5}",
            to_offset_line(&c, SIDE, SIDE),
            to_algebraic(&c).unwrap_or_default(),
            v
        );
    }
    out
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let cache = match args.iter().position(|a| a == "--scores") {
        Some(i) if i + 1 < args.len() => {
            let path = args.remove(i + 1);
            args.remove(i);
            read_cache(&path)
        }
        _ => Default::default(),
    };
    let mut sel = Selection {
        keep: KEEP,
        target: TARGET,
        count: None,
        within: None,
    };
    for flag in ["--keep", "--target", "--count", "--within"] {
        if let Some(i) = args.iter().position(|a| a == flag) {
            let value = args.get(i + 1).and_then(|v| v.parse::<i64>().ok());
            let Some(v) = value else {
                eprintln!("{flag} needs a number");
                std::process::exit(2);
            };
            args.drain(i..i + 2);
            match flag {
                "--keep" => sel.keep = v.max(1) as usize,
                "--target" => sel.target = v as i32,
                "--within" => sel.within = Some(v.max(0) as i32),
                _ => sel.count = Some(v.max(1) as usize),
            }
        }
    }
    let dir = args
        .first()
        .cloned()
        .unwrap_or_else(|| "openings".to_string());
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("cannot create {dir}: {e}");
        std::process::exit(1);
    }
    let only: Vec<&str> = args.iter().skip(1).map(String::as_str).collect();
    let sets = [
        (Rule::Freestyle, "freestyle", 1_001, 700),
        (Rule::Exact, "standard", 1_002, 300),
        (Rule::Renju, "renju", 1_004, 300),
        (
            Rule::Caro {
                overline_wins: false,
            },
            "caro",
            1_009,
            300,
        ),
    ];
    for (rule, file, seed, count) in sets {
        if !only.is_empty() && !only.contains(&file) {
            continue;
        }
        let text = generate(rule, seed, sel.count.unwrap_or(count), &cache, sel);
        let path = std::path::Path::new(&dir).join(format!("{file}.txt"));
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("cannot write {}: {e}", path.display());
            std::process::exit(1);
        }
        eprintln!("wrote {}", path.display());
    }
}
