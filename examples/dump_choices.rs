//! Writes the data for fitting the evaluation network to the moves of a stronger player
//! (comparison training, as the "Bonanza method" of computer shogi does it): for every position
//! of the games, the network's inputs at the end of a short search after each of the search's
//! best-ordered root moves, and which of them the game went on with.
//!
//! `cargo run --release --example dump_choices -- <rule> [--size N] [--top N] [--depth D]
//! <games.jsonl>...` (games on the N x N board, 15 unless said; `--top 12`, `--depth 2` unless
//! said). The positions are those the other
//! fitters use (`fit_common::for_each_choice`, games of engines named `pentazen` or `rapfi`
//! included here: their moves are the point). A position is skipped when its played move is
//! not among the root moves the search generates (a forced reply leaves one move: skipped too).
//!
//! Columns, one line per candidate and one more per position (candidate `-1`, the position
//! itself, for keeping the network's results in scale):
//! position number, held out (0/1), candidate (`-1`, then 0.. in search order), played (0/1),
//! the game's result for the root's side to move, sign (+1 when the leaf's side to move is the
//! root's, else -1), mate (+1/-1 when the search after the candidate proved a win/loss for the
//! root's side, else 0), then the leaf's inputs as `dump_eval_features` writes them for the side
//! to move there: static value, per side (mover, opponent) the empty cells of each threat
//! class 1..=9 and the score sum; then the built-in network's value of the leaf (or the static
//! value where there is none); the search's value of the candidate for the root's side (0 on
//! the position's own line); and per side (mover, opponent) the (empty cell, direction) pairs
//! of each line pattern 1..=9 (see `pattern_columns`).
//!
//! `--combos FILE` also writes, to FILE, one line per line of the dump: per side (mover, then
//! opponent, separated by `;`) the empty cells of each combination of four line classes, as
//! `multiset:count` pairs (multiset as `pattern::combo_multiset`; the all-dead one left out),
//! for fitting per-combination score corrections (`fit_choices.py --combos`).
#[allow(dead_code)]
mod fit_common;

use fit_common::{count_columns, for_each_choice, unlimited};
use rensa::board::fast::FastBoard;
use rensa::board::pattern;
use rensa::eval::{evaluate_with, SizeShift, INDICATORS, INITIATIVE_16THS};
use rensa::search::alphabeta::{Iteration, Searcher};
use rensa::search::tt::Tt;
use rensa::search::vcf::VcfCache;
use rensa::{Color, Rule, Value};
use std::io::Write;

/// The leaf's columns (see the module comment).
fn leaf_columns(b: &FastBoard) -> String {
    let v = evaluate_with(b, INITIATIVE_16THS, Some(&INDICATORS));
    let net = rensa::eval::net_for(b).map_or(v, |(n, _)| n.value(b, v));
    format!("{v}{},{net}", count_columns(b, SizeShift::NONE))
}

/// The line classes (one per direction) `c` would make at each empty cell of `b`.
fn empty_cell_classes(b: &FastBoard, c: Color) -> impl Iterator<Item = [u8; 4]> + '_ {
    b.area(b.width().max(b.height()) as i32)
        .filter(|&i| b.is_empty(i))
        .map(move |i| [0, 1, 2, 3].map(|d| b.pattern(i, c, d) as u8))
}

/// Per side (mover, opponent), how many (empty cell, direction) pairs hold each line pattern
/// 1..=9: with the threat-class counts, what the score sums are made of (a cell's score is its
/// four patterns' weights plus its threat class's bonus), for fitting those weights.
fn pattern_columns(b: &FastBoard) -> String {
    let me = b.side_to_move();
    let mut line = String::new();
    for c in [me, me.opponent()] {
        let mut n = [0u32; 10];
        for classes in empty_cell_classes(b, c) {
            for k in classes {
                n[k as usize] += 1;
            }
        }
        for k in &n[1..] {
            line += &format!(",{k}");
        }
    }
    line
}

/// Per side (mover, opponent), the empty cells of each combination of four line classes (see
/// the module comment).
fn combo_line(b: &FastBoard) -> String {
    let me = b.side_to_move();
    let mut sides = Vec::new();
    for c in [me, me.opponent()] {
        let mut n = std::collections::BTreeMap::<usize, u32>::new();
        for classes in empty_cell_classes(b, c) {
            let m = pattern::combo_multiset(pattern::combo_index(classes));
            if m != 0 {
                *n.entry(m).or_default() += 1;
            }
        }
        let pairs: Vec<String> = n.iter().map(|(m, k)| format!("{m}:{k}")).collect();
        sides.push(pairs.join(" "));
    }
    sides.join(";")
}

/// The eight-cell window (four cells either way, 2 bits each from `c`'s side: 0 empty, 1 own,
/// 2 opponent, 3 wall) of empty cell `i` along `d`, the smaller of it and its mirror image.
fn window(b: &FastBoard, i: rensa::board::fast::Idx, c: Color, d: usize) -> u16 {
    let key = b.line_key(i, d);
    let key = if c == Color::White {
        pattern::swap_colors(key)
    } else {
        key
    };
    let at = |k: i32| (key >> pattern::shift(k)) & 3;
    let (mut w, mut m) = (0u32, 0u32);
    for (n, k) in [-4, -3, -2, -1, 1, 2, 3, 4].into_iter().enumerate() {
        w |= at(k) << (2 * n);
        m |= at(-k) << (2 * n);
    }
    w.min(m) as u16
}

/// Per side (0 mover, 1 opponent), the (window, count) pairs of the empty cells' windows (see
/// [`window`]) along directions where the side's line is alive and holds an own stone.
fn window_counts(b: &FastBoard) -> Vec<(u16, u16, u16)> {
    let me = b.side_to_move();
    let mut out = Vec::new();
    for (side, c) in [me, me.opponent()].into_iter().enumerate() {
        let mut n = std::collections::BTreeMap::<u16, u16>::new();
        for i in b
            .area(b.width().max(b.height()) as i32)
            .filter(|&i| b.is_empty(i))
        {
            for d in 0..4 {
                if b.pattern(i, c, d) == pattern::Pattern::Dead {
                    continue;
                }
                let w = window(b, i, c, d);
                if (0..8).any(|n| (w >> (2 * n)) & 3 == 1) {
                    *n.entry(w).or_default() += 1;
                }
            }
        }
        out.extend(n.into_iter().map(|(w, k)| (side as u16, w, k)));
    }
    out
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let rule = Rule::parse(&args[0]).expect("rule name");
    let (mut top, mut depth, mut size) = (12usize, 2i32, 15usize);
    let mut combos: Option<std::io::BufWriter<std::fs::File>> = None;
    let mut windows: Option<std::io::BufWriter<std::fs::File>> = None;
    loop {
        let value = || args.get(2).and_then(|s| s.parse::<i64>().ok());
        match args.get(1).map(String::as_str) {
            Some("--top") => top = value().expect("--top N") as usize,
            Some("--depth") => depth = value().expect("--depth D") as i32,
            Some("--size") => size = value().expect("--size N") as usize,
            Some("--combos") => {
                let f = std::fs::File::create(args.get(2).expect("--combos FILE")).expect("create");
                combos = Some(std::io::BufWriter::new(f));
            }
            Some("--windows") => {
                let f = std::fs::File::create(args.get(2).expect("--windows F")).expect("create");
                windows = Some(std::io::BufWriter::new(f));
            }
            _ => break,
        }
        args.drain(1..3);
    }
    let mut tt = Tt::new(16 << 20);
    let vcf = VcfCache::new(16);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let (mut n, mut skipped, mut agree) = (0usize, 0usize, 0usize);
    let mut line_no = 0u32;
    // Boards with their built-in per-combination corrections, as the engine's: a fit with
    // `--combos` gives corrections to add to them (`RENSA_COMBO` adds to the built-in ones).
    let games = for_each_choice(
        rule,
        size..=size,
        &args[1..],
        true,
        true,
        |b, label, test, played| {
            let control = || unlimited(&stop);
            tt.new_search();
            let all = Searcher::new(b.clone(), &tt, &vcf, control()).root_moves();
            let Some(rank) = all.iter().position(|&m| m == played) else {
                skipped += 1;
                return;
            };
            if all.len() < 2 {
                skipped += 1;
                return;
            }
            let mut cands: Vec<_> = all.iter().copied().take(top).collect();
            if rank >= top {
                cands.push(played);
            }
            let me = b.side_to_move();
            let head = |k: i64, is_played: bool| {
                format!("{n},{},{k},{},{label}", test as u8, is_played as u8)
            };
            let mut lines = vec![format!(
                "{},1,0,{},0{}",
                head(-1, false),
                leaf_columns(b),
                pattern_columns(b)
            )];
            // The combination counts only when they are written.
            let with_combos = combos.is_some();
            let mut combo_lines: Vec<String> =
                with_combos.then(|| combo_line(b)).into_iter().collect();
            let with_windows = windows.is_some();
            let mut window_lines: Vec<_> =
                with_windows.then(|| window_counts(b)).into_iter().collect();
            let mut best = (i32::MIN, usize::MAX);
            for (k, &m) in cands.iter().enumerate() {
                let mut child = b.clone();
                child.make(m);
                let mut s = Searcher::new(child.clone(), &tt, &vcf, control());
                let mut it: Option<Iteration> = None;
                for d in 1..=depth {
                    match s.iterate(d, it.as_ref().map(|i| i.value)) {
                        Some(i) => it = Some(i),
                        None => break,
                    }
                }
                drop(s);
                let (value, pv) = it.map_or((0, Vec::new()), |i| (i.value, i.pv));
                // The child's value is for the opponent to move.
                let root_value = -value;
                if root_value > best.0 {
                    best = (root_value, k);
                }
                let mate = if root_value >= Value::MATE_BOUND.0 {
                    1
                } else if root_value <= -Value::MATE_BOUND.0 {
                    -1
                } else {
                    0
                };
                for &p in &pv {
                    if !child.is_empty(p) {
                        break;
                    }
                    child.make(p);
                }
                let sign = if child.side_to_move() == me { 1 } else { -1 };
                lines.push(format!(
                    "{},{sign},{mate},{},{root_value}{}",
                    head(k as i64, m == played),
                    leaf_columns(&child),
                    pattern_columns(&child)
                ));
                if with_combos {
                    combo_lines.push(combo_line(&child));
                }
                if with_windows {
                    window_lines.push(window_counts(&child));
                }
            }
            if cands.get(best.1) == Some(&played) {
                agree += 1;
            }
            n += 1;
            for l in lines {
                writeln!(out, "{l}").expect("write");
            }
            if let Some(f) = combos.as_mut() {
                for l in combo_lines {
                    writeln!(f, "{l}").expect("write");
                }
            }
            if let Some(f) = windows.as_mut() {
                for l in window_lines {
                    for (side, w, k) in l {
                        f.write_all(&line_no.to_le_bytes()).expect("write");
                        for v in [w, side, k] {
                            f.write_all(&v.to_le_bytes()).expect("write");
                        }
                    }
                    line_no += 1;
                }
            }
        },
    );
    if let Some(f) = windows.as_mut() {
        // A closing record (line = the number of lines, count 0) gives the file's line count.
        f.write_all(&line_no.to_le_bytes()).expect("write");
        f.write_all(&[0u8; 6]).expect("write");
    }
    eprintln!(
        "{games} games, {n} positions ({skipped} skipped); the depth-{depth} searches' best move \
         is the played one in {agree} ({:.1} %)",
        100.0 * agree as f64 / n.max(1) as f64
    );
}
