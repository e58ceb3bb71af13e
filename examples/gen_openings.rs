//! Generates the shipped opening sets in `openings/` (deterministic: fixed seeds, own PRNG).
//!
//! ```sh
//! cargo run --release --example gen_openings -- openings
//! ```
//!
//! Procedure, per rule (freestyle, standard, renju, caro), on a 15x15 board:
//! 1. Candidates: 2 to 5 stones (black first, alternating); the first on the centre, every further
//!    stone within two cells (king distance) of an earlier one and within three of the centre.
//! 2. Filters: playable under the rule with the rules oracle (no foul, no finished line), and no
//!    colour has three stones in any five-cell window free of the other colour (no threes, so no
//!    immediate threats); one candidate per symmetry class (the eight board symmetries).
//! 3. Balance: every candidate is played out `PLAYOUTS` times by two identical noisy one-ply
//!    players (each move scored by the five-cell windows through it: own stones for attack, the
//!    opponent's for defence; black avoids renju fouls; wins judged by the oracle; no result after
//!    `MAX_PLIES` stones counts as a draw). Black's mean score estimates the balance.
//! 4. Selection: the `KEEP` candidates whose black score is closest to 50 %, at most `KEEP / 3`
//!    of any stone count.
//! 5. The kept openings are played out again with fresh playouts (the selection figure flatters
//!    them) and written in offset notation with the pos form and that re-measured score in a
//!    comment.
//!
//! The players are weak, so "balanced" means balanced for weak players; once the engine is strong
//! the sets should be re-measured with real matches.

use rensa::board::{rules, Game};
use rensa::pos::{to_algebraic, to_offset_line, Pos};
use rensa::referee::openings::{canonical_key, check_playable};
use rensa::types::{Color, Rule};
use std::collections::HashSet;
use std::fmt::Write as _;

const SIDE: usize = 15;
const CANDIDATES: usize = 150;
const PLAYOUTS: usize = 96;
const MAX_PLIES: usize = 120;
const KEEP: usize = 30;

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

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
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

/// Attack and defence weights by the number of own / opposing stones already in a window.
const ATTACK: [f64; 5] = [0.5, 4.0, 30.0, 400.0, 100_000.0];
const DEFENCE: [f64; 5] = [0.0, 2.0, 20.0, 200.0, 20_000.0];

/// Value of playing `p` for `me`: every five-cell window through `p` that holds only one colour.
fn move_value(board: &rensa::Board, p: Pos, me: Color) -> f64 {
    let mut v = 0.0;
    for (dx, dy) in DIRS {
        for start in -4..=0 {
            let mut counts = [0usize; 2];
            let mut inside = true;
            for k in start..start + 5 {
                match at(board, p.x as i64 + dx * k, p.y as i64 + dy * k) {
                    None => inside = false,
                    Some(Some(c)) => counts[c.index()] += 1,
                    Some(None) => {}
                }
            }
            if !inside {
                continue;
            }
            let (own, opp) = (counts[me.index()], counts[me.opponent().index()]);
            if opp == 0 {
                v += ATTACK[own.min(4)];
            } else if own == 0 {
                v += DEFENCE[opp.min(4)];
            }
        }
    }
    v
}

/// One noisy playout from `opening`; black's score (1, 0.5 or 0).
fn playout(rule: Rule, opening: &[Pos], rng: &mut Rng) -> f64 {
    let Ok(mut game) = Game::from_moves(SIDE, SIDE, rule, opening) else {
        return 0.5;
    };
    while game.moves().len() < MAX_PLIES {
        let me = game.side_to_move();
        let board = game.board().clone();
        let mut scored: Vec<(f64, Pos)> = board
            .empty_cells()
            .filter(|p| {
                (-2..=2).any(|dy| {
                    (-2..=2).any(|dx| {
                        matches!(at(&board, p.x as i64 + dx, p.y as i64 + dy), Some(Some(_)))
                    })
                })
            })
            .map(|p| (move_value(&board, p, me) * (1.0 + 0.3 * rng.unit()), p))
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let mv = scored.iter().map(|&(_, p)| p).find(|&p| {
            !(rule == Rule::Renju && me == Color::Black && rules::is_forbidden(&board, p))
        });
        let Some(mv) = mv else {
            return 0.5;
        };
        match game.play(mv) {
            Ok(Some(outcome)) => {
                return match outcome.winner {
                    Some(Color::Black) => 1.0,
                    Some(Color::White) => 0.0,
                    None => 0.5,
                }
            }
            Ok(None) => {}
            Err(_) => return 0.5,
        }
    }
    0.5
}

fn generate(rule: Rule, seed: u64) -> String {
    let mut rng = Rng(seed);
    let mut seen = HashSet::new();
    let mut candidates: Vec<Vec<Pos>> = Vec::new();
    let mut attempts = 0;
    while candidates.len() < CANDIDATES && attempts < 100_000 {
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
        candidates.push(c);
    }
    let mut measured: Vec<(f64, Vec<Pos>)> = candidates
        .into_iter()
        .map(|c| {
            let total: f64 = (0..PLAYOUTS).map(|_| playout(rule, &c, &mut rng)).sum();
            (total / PLAYOUTS as f64, c)
        })
        .collect();
    let n = measured.len().max(1) as f64;
    let mean = measured.iter().map(|m| m.0).sum::<f64>() / n;
    let sd = (measured.iter().map(|m| (m.0 - mean).powi(2)).sum::<f64>() / n).sqrt();
    eprintln!(
        "{}: {} candidates, black score mean {:.3}, spread (sd) {:.3}, playout noise (sd) {:.3}",
        rule.name(),
        measured.len(),
        mean,
        sd,
        (0.25 / PLAYOUTS as f64).sqrt()
    );
    measured.sort_by(|a, b| {
        (a.0 - 0.5)
            .abs()
            .total_cmp(&(b.0 - 0.5).abs())
            .then(a.1.len().cmp(&b.1.len()))
            .then(a.1.cmp(&b.1))
    });
    let mut per_count = [0usize; 6];
    let mut kept = Vec::new();
    for (score, c) in measured {
        if kept.len() == KEEP {
            break;
        }
        if per_count[c.len()] < KEEP / 3 {
            per_count[c.len()] += 1;
            kept.push((score, c));
        }
    }
    // Step 5. The selection score is biased towards 50 % (the luckiest survive), so every kept
    // opening is measured again with fresh playouts and that unbiased figure is printed.
    let mut kept: Vec<(f64, Vec<Pos>)> = kept
        .into_iter()
        .map(|(_, c)| {
            let total: f64 = (0..PLAYOUTS).map(|_| playout(rule, &c, &mut rng)).sum();
            (total / PLAYOUTS as f64, c)
        })
        .collect();
    let kept_mean = kept.iter().map(|k| k.0).sum::<f64>() / kept.len().max(1) as f64;
    eprintln!(
        "{}: kept {}, re-measured black score mean {:.3}",
        rule.name(),
        kept.len(),
        kept_mean
    );
    kept.sort_by(|a, b| a.1.len().cmp(&b.1.len()).then(a.1.cmp(&b.1)));

    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Rensa opening set: {} ({} openings, offset notation: pairs dx,dy from the centre).",
        rule.name(),
        kept.len()
    );
    let _ = writeln!(
        out,
        "# Generated by `cargo run --release --example gen_openings -- openings` (seed {seed}):"
    );
    let _ = writeln!(
        out,
        "# random compact 2-5 stone openings around the centre, legal under the rule and free of threes"
    );
    let _ = writeln!(
        out,
        "# for both colours, one per symmetry class; kept: the {KEEP} whose black score over {PLAYOUTS}"
    );
    let _ = writeln!(
        out,
        "# noisy one-ply playouts on {SIDE}x{SIDE} was closest to 50% (weak players: re-measure with real"
    );
    let _ = writeln!(
        out,
        "# matches). Comment: the stones in pos notation on 15x15 and black's score in {PLAYOUTS} fresh"
    );
    let _ = writeln!(
        out,
        "# playouts (set mean {:.0}%; one playout figure has a standard error of about {:.0}%).",
        kept_mean * 100.0,
        (0.25 / PLAYOUTS as f64).sqrt() * 100.0
    );
    for (score, c) in kept {
        let _ = writeln!(
            out,
            "{:<36} # {:<14} black {:>3.0}%",
            to_offset_line(&c, SIDE, SIDE),
            to_algebraic(&c).unwrap_or_default(),
            score * 100.0
        );
    }
    out
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "openings".to_string());
    let sets = [
        (Rule::Freestyle, "freestyle.txt", 1_001),
        (Rule::Exact, "standard.txt", 1_002),
        (Rule::Renju, "renju.txt", 1_004),
        (
            Rule::Caro {
                overline_wins: false,
            },
            "caro.txt",
            1_009,
        ),
    ];
    for (rule, file, seed) in sets {
        let text = generate(rule, seed);
        let path = std::path::Path::new(&dir).join(file);
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("cannot write {}: {e}", path.display());
            std::process::exit(1);
        }
        eprintln!("wrote {}", path.display());
    }
}
