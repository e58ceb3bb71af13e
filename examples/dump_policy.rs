//! Writes the data for fitting a move-ordering policy to a stronger player's moves: for every
//! position of the games, each root move the search generates, in the search's static order,
//! with what a policy could read cheaply, and which one the game went on with.
//!
//! `cargo run --release --example dump_policy -- <rule> [--size N] [--windows] <games.jsonl>...`
//!
//! Columns, one line per candidate: position number, held out (0/1), rank in the search's
//! static order (0 first), played (0/1), the side to move's combination of four line classes
//! at the cell and the opponent's (`pattern::combo_multiset`), the side to move's threat class
//! and the opponent's, the two cell scores, and the Chebyshev distance (capped at 6) to the
//! last move and to the side to move's own last move (6 when there is none), and the side to
//! move's colour (0 black, 1 white). With `--windows` (after the rule and size), four more
//! columns: per direction the cell's eight-cell line window from the side to move's view (the
//! line key's neighbours four either way, 2 bits each: 0 empty, 1 own, 2 opponent, 3 wall).
#[allow(dead_code)]
mod fit_common;

use fit_common::{for_each_choice, unlimited};
use rensa::board::fast::{FastBoard, Idx};
use rensa::board::pattern;
use rensa::search::alphabeta::Searcher;
use rensa::search::tt::Tt;
use rensa::search::vcf::VcfCache;
use rensa::Rule;
use std::io::Write;

fn dist(b: &FastBoard, i: Idx, m: Option<Idx>) -> i32 {
    match m {
        None => 6,
        Some(m) => {
            let (p, q) = (b.pos(i), b.pos(m));
            let dx = (p.x as i32 - q.x as i32).abs();
            let dy = (p.y as i32 - q.y as i32).abs();
            dx.max(dy).min(6)
        }
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let rule = Rule::parse(&args[0]).expect("rule name");
    let mut size = 15usize;
    if args.get(1).map(String::as_str) == Some("--size") {
        size = args[2].parse().expect("--size N");
        args.drain(1..3);
    }
    let windows = args.get(1).map(String::as_str) == Some("--windows");
    if windows {
        args.remove(1);
    }
    // The engine's static order under another policy file (`RENSA_POLICY=FILE`), e.g. to check
    // that the engine reads a fitted file as the fit does.
    if let Ok(path) = std::env::var("RENSA_POLICY") {
        let text = std::fs::read_to_string(&path).expect("RENSA_POLICY file");
        let p = rensa::search::policy::Policy::parse(&text).expect("RENSA_POLICY policy");
        rensa::search::policy::set_policy(p);
    }
    let tt = Tt::new(1 << 20);
    let vcf = VcfCache::new(16);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let (mut n, mut skipped) = (0usize, 0usize);
    let games = for_each_choice(
        rule,
        size..=size,
        &args[1..],
        true,
        true,
        |b, _label, test, played| {
            let all = Searcher::new(b.clone(), &tt, &vcf, unlimited(&stop)).root_moves();
            if all.len() < 2 || !all.contains(&played) {
                skipped += 1;
                return;
            }
            let me = b.side_to_move();
            let (last, own_last) = (b.move_back(0), b.move_back(1));
            for (rank, &i) in all.iter().enumerate() {
                let m = |c: rensa::Color| {
                    let classes = [0, 1, 2, 3].map(|d| b.pattern(i, c, d) as u8);
                    pattern::combo_multiset(pattern::combo_index(classes))
                };
                let win = if windows {
                    [0, 1, 2, 3]
                        .map(|d| {
                            let key = b.line_key(i, d);
                            let key = match me {
                                rensa::Color::Black => key,
                                rensa::Color::White => pattern::swap_colors(key),
                            };
                            format!(",{}", rensa::search::policy::window_of(key))
                        })
                        .concat()
                } else {
                    String::new()
                };
                writeln!(
                    out,
                    "{n},{},{rank},{},{},{},{},{},{},{},{},{},{}{win}",
                    test as u8,
                    (i == played) as u8,
                    m(me),
                    m(me.opponent()),
                    b.threat(i, me) as u8,
                    b.threat(i, me.opponent()) as u8,
                    b.cell_score(i, me),
                    b.cell_score(i, me.opponent()),
                    dist(b, i, last),
                    dist(b, i, own_last),
                    me.index(),
                )
                .expect("write");
            }
            n += 1;
        },
    );
    eprintln!("{games} games, {n} positions ({skipped} skipped)");
}
