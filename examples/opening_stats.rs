//! Per-opening results of recorded games: which openings of a set favour one colour, and
//! (with `--keep N`) a new set of the N whose results are closest to even.
//!
//! ```sh
//! # Black's score per opening of the built-in renju set, over every record file given
//! cargo run --release --example opening_stats -- builtin renju 15 runs/*/games.jsonl
//! # Games on 15x15 and 20x20 together (openings are read and written for the first size)
//! cargo run --release --example opening_stats -- builtin standard 15,20 runs/*/games.jsonl
//! # A pool of candidates (gen_openings --keep 100 ...) played out, then the 40 most even kept
//! cargo run --release --example opening_stats -- pool/renju.txt renju 15 --keep 40 \
//!     --min-games 16 pool-games/games.jsonl > openings/renju.txt
//! ```
//!
//! A game counts for an opening when its rule and (square) board size are ones given and its opening
//! stones are the opening's or a symmetric image of them (so `--transform` games count), whoever
//! played it. The table (stdout, or stderr with `--keep`) lists per opening: its index in the
//! file, the games, black's wins, draws and losses, black's score (a draw is half a point) and
//! the opening. `--keep N` prints an opening file of the N openings with at least `--min-games`
//! games (default 10) whose black score is closest to 50 % (ties: more games first, then file
//! order), each line commented with its pos form, its games and black's score.

use rensa::openings::{builtin_text, canonical_key, parse_openings};
use rensa::pos::{to_algebraic, to_offset_line, Pos};
use rensa::referee::records::read_records;
use rensa::types::{Color, Rule};
use std::collections::HashMap;
use std::fmt::Write as _;

/// Black's results from one opening.
#[derive(Clone, Copy, Default)]
struct Tally {
    black: u32,
    draws: u32,
    white: u32,
}

impl Tally {
    fn games(self) -> u32 {
        self.black + self.draws + self.white
    }

    /// The results of several tallies together.
    fn sum(tallies: impl IntoIterator<Item = Tally>) -> Tally {
        tallies.into_iter().fold(Tally::default(), |a, t| Tally {
            black: a.black + t.black,
            draws: a.draws + t.draws,
            white: a.white + t.white,
        })
    }

    /// Black's points per game (`None` without games).
    fn score(self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| (self.black as f64 + self.draws as f64 / 2.0) / n as f64)
    }
}

struct Options {
    openings: String,
    rule: Rule,
    /// Board sides whose games count (the first is the one the openings are read and written
    /// for): an opening's canonical key is made of offsets from the centre, the same on every
    /// board.
    sizes: Vec<usize>,
    keep: Option<usize>,
    min_games: u32,
    records: Vec<String>,
}

fn usage() -> ! {
    eprintln!(
        "usage: opening_stats OPENINGS|builtin RULE SIZE[,SIZE...] [--keep N] [--min-games G] RECORDS..."
    );
    std::process::exit(2);
}

fn parse_args(mut args: Vec<String>) -> Options {
    let mut keep = None;
    let mut min_games = 10;
    for flag in ["--keep", "--min-games"] {
        if let Some(i) = args.iter().position(|a| a == flag) {
            let Some(v) = args.get(i + 1).and_then(|v| v.parse::<u32>().ok()) else {
                usage()
            };
            args.drain(i..i + 2);
            if flag == "--keep" {
                keep = Some(v as usize);
            } else {
                min_games = v;
            }
        }
    }
    if args.len() < 4 {
        usage();
    }
    let Some(rule) = Rule::parse(&args[1]) else {
        eprintln!("unknown rule {}", args[1]);
        usage()
    };
    let sizes: Vec<usize> = args[2]
        .split(',')
        .map(|s| s.trim().parse::<usize>().unwrap_or_else(|_| usage()))
        .collect();
    Options {
        openings: args[0].clone(),
        rule,
        sizes,
        keep,
        min_games,
        records: args[3..].to_vec(),
    }
}

fn main() {
    let o = parse_args(std::env::args().skip(1).collect());
    let size = o.sizes[0];
    let text = if o.openings == "builtin" {
        builtin_text(o.rule).to_string()
    } else {
        std::fs::read_to_string(&o.openings).unwrap_or_else(|e| {
            eprintln!("cannot read {}: {e}", o.openings);
            std::process::exit(1)
        })
    };
    let openings: Vec<Vec<Pos>> = match parse_openings(&text, size, size) {
        Ok(v) => v.into_iter().map(|op| op.moves).collect(),
        Err(e) => {
            eprintln!("{}: {e}", o.openings);
            std::process::exit(1)
        }
    };
    let index: HashMap<_, usize> = openings
        .iter()
        .enumerate()
        .map(|(i, m)| (canonical_key(m, size, size), i))
        .collect();
    let mut tally = vec![Tally::default(); openings.len()];
    let (mut counted, mut other) = (0usize, 0usize);
    for path in &o.records {
        let Ok(text) = std::fs::read_to_string(path) else {
            eprintln!("cannot read {path}, skipped");
            continue;
        };
        let (records, errors) = read_records(&text);
        if !errors.is_empty() {
            eprintln!("{path}: {} unreadable lines skipped", errors.len());
        }
        for r in records {
            let same_game = r.rule == o.rule && r.width == r.height && o.sizes.contains(&r.width);
            let found = same_game
                .then(|| index.get(&canonical_key(&r.opening, r.width, r.height)))
                .flatten();
            let Some(&i) = found else {
                other += 1;
                continue;
            };
            counted += 1;
            let t = &mut tally[i];
            match r.winner {
                Some(Color::Black) => t.black += 1,
                Some(Color::White) => t.white += 1,
                None => t.draws += 1,
            }
        }
    }

    let mut order: Vec<usize> = (0..openings.len()).collect();
    order.sort_by(|&a, &b| {
        let key = |i: usize| tally[i].score().unwrap_or(f64::INFINITY);
        key(a).total_cmp(&key(b)).then(a.cmp(&b))
    });
    let mut table = String::new();
    let _ = writeln!(table, "index games  black W-D-L  black score  opening");
    for &i in &order {
        let t = tally[i];
        let score = t
            .score()
            .map_or_else(|| "-".to_string(), |s| format!("{:.1} %", 100.0 * s));
        let _ = writeln!(
            table,
            "{i:5} {:5} {:>5}-{}-{:<5} {score:>11}  {}",
            t.games(),
            t.black,
            t.draws,
            t.white,
            to_algebraic(&openings[i]).unwrap_or_default()
        );
    }
    let total = Tally::sum(tally.iter().copied());
    let _ = writeln!(
        table,
        "{counted} games from this set ({other} other records skipped): black {}-{}-{}, {:.1} %",
        total.black,
        total.draws,
        total.white,
        100.0 * total.score().unwrap_or(0.0)
    );
    let Some(keep) = o.keep else {
        print!("{table}");
        return;
    };
    eprint!("{table}");

    let mut even: Vec<usize> = (0..openings.len())
        .filter(|&i| tally[i].games() >= o.min_games.max(1))
        .collect();
    even.sort_by(|&a, &b| {
        let off = |i: usize| (tally[i].score().unwrap_or(0.0) - 0.5).abs();
        off(a)
            .total_cmp(&off(b))
            .then(tally[b].games().cmp(&tally[a].games()))
            .then(a.cmp(&b))
    });
    even.truncate(keep);
    even.sort_by(|&a, &b| openings[a].len().cmp(&openings[b].len()).then(a.cmp(&b)));
    let kept = Tally::sum(even.iter().map(|&i| tally[i]));
    println!(
        "# {} openings of {} ({} games with at least {} each), kept by `opening_stats --keep {keep}`:",
        even.len(),
        o.openings,
        counted,
        o.min_games
    );
    println!(
        "# those whose black score in the recorded games is closest to 50 % (together: black {:.1} %).",
        100.0 * kept.score().unwrap_or(0.0)
    );
    println!("# Comment: the stones in pos notation, games, black's W-D-L and score.");
    for i in even {
        let t = tally[i];
        println!(
            "{:<36} # {:<14} {:3} games {:>3}-{}-{:<3} {:5.1} %",
            to_offset_line(&openings[i], size, size),
            to_algebraic(&openings[i]).unwrap_or_default(),
            t.games(),
            t.black,
            t.draws,
            t.white,
            100.0 * t.score().unwrap_or(0.0)
        );
    }
}
