//! Generates candidate entries for the tactical suites (`suites/*.txt`).
//!
//! `cargo run --release --example gen_tactics -- RULE WxH SEED GAMES [PREFIX [MIN_WIN_PLIES
//! [MIN_DEFEND_PLIES]]]`
//!
//! Plays `GAMES` randomised games (the greedy baseline player mixed with random moves near the
//! stones, seeded by `SEED`, which is printed) and looks at every position with the VCF prover:
//!
//! * `win`: the side to move has a shortest VCF of 5 plies or more; the answers are all first
//!   moves of a VCF of that length;
//! * `defend` (unless MIN_DEFEND_PLIES is 0): the opponent would have a VCF if we passed, we have no five and no four, and the
//!   answers (all moves after which the opponent's VCF within the defend bound disappears) are
//!   few.
//!
//! Every printed line is verified with `rensa::tactics::verify_entry` before it is printed, and
//! can be pasted into a suite. Renju positions also note when forbidden points change the answer
//! (compared with the same position under freestyle).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rensa::tactics::prover::Prover;
use rensa::tactics::{self, Entry, Kind};
use rensa::{Board, Color, Game, Pos, Rule};

mod common;
use common::{entry_line, next_move, points_text, GenArgs};

/// Node budget per prover question while generating (positions that need more are skipped).
const GEN_NODE_LIMIT: u64 = 300_000;

/// Shortest VCF first moves for `color` under `rule` on `b`, if any (moves, firsts).
fn shortest(b: &Board, rule: Rule, color: Color, max: u32) -> Option<(u32, Vec<Pos>)> {
    let mut p = Prover::new(rule, color, GEN_NODE_LIMIT);
    let w = p.shortest_vcf(b, max).ok()??;
    let firsts = p.winning_first_moves(b, w.moves).ok()?;
    Some((w.moves, firsts))
}

fn renju_note(b: &Board, color: Color, firsts: &[Pos], moves: u32) -> String {
    match shortest(b, Rule::Freestyle, color, tactics::MAX_VCF_MOVES) {
        Some((n, f)) if n == moves && f == firsts => String::new(),
        Some((n, f)) => format!(
            "; forbidden points matter (freestyle: {} plies, first moves {})",
            2 * n - 1,
            points_text(&f)
        ),
        None => "; forbidden points matter (no VCF under freestyle)".into(),
    }
}

fn main() {
    let GenArgs {
        rule,
        width: w,
        height: h,
        seed,
        games,
        prefix,
        rest,
    } = GenArgs::from_env(
        "gen_tactics RULE WxH SEED GAMES [PREFIX [MIN_WIN_PLIES [MIN_DEFEND_PLIES]]]",
    );
    let min_win_plies: u32 = rest.first().map_or(5, |a| a.parse().expect("plies"));
    let min_defend_plies: u32 = rest.get(1).map_or(3, |a| a.parse().expect("plies"));
    println!("# gen_tactics {rule} {w}x{h} seed {seed} games {games}");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut count = 0;
    for game_no in 0..games {
        let mut g = Game::new(w, h, rule).unwrap();
        let greedy_share = rng.gen_range(0.0..0.5);
        // Next ply at which a win / defend entry may be taken from this game.
        let (mut next_win, mut next_defend) = (8, 8);
        while !g.is_over() && g.moves().len() < w * h / 2 {
            let ply = g.moves().len();
            if ply >= next_win.min(next_defend) {
                let b = g.board().clone();
                let me = g.side_to_move();
                let opp = me.opponent();
                let probe = Prover::new(rule, me, 1);
                let my_five = !probe.win_points(&b, me).is_empty();
                let their_five = !probe.win_points(&b, opp).is_empty();
                if ply >= next_win && !my_five && !their_five {
                    if let Some((n, firsts)) = shortest(&b, rule, me, tactics::MAX_VCF_MOVES) {
                        if plies_of(n) >= min_win_plies && firsts.len() <= 8 {
                            let note = if rule == Rule::Renju {
                                renju_note(&b, me, &firsts, n)
                            } else {
                                String::new()
                            };
                            let e = Entry {
                                id: format!("{prefix}-{seed}-{game_no}-{ply}"),
                                rule,
                                width: w,
                                height: h,
                                moves: g.moves().to_vec(),
                                kind: Kind::Win,
                                answers: firsts.clone(),
                                plies: Some(2 * n - 1),
                                comment: format!("{me} VCF{note}"),
                            };
                            if tactics::verify_entry(&e).is_ok() {
                                println!("{}", entry_line(&e));
                                next_win = ply + 10;
                                count += 1;
                            }
                        }
                    }
                }
                if min_defend_plies > 0 && ply >= next_defend && !my_five && !their_five {
                    if let Some((n, _)) = shortest(&b, rule, opp, tactics::DEFEND_BOUND_MOVES) {
                        if plies_of(n) >= min_defend_plies {
                            let defs = if tactics::has_four_move(&b, rule, me) {
                                Err(String::new())
                            } else {
                                tactics::defending_moves(&b, rule, me)
                            };
                            if let Ok(defs) = defs {
                                if !defs.is_empty() && defs.len() <= 6 {
                                    let e = Entry {
                                        id: format!("{prefix}-{seed}-{game_no}-{ply}d"),
                                        rule,
                                        width: w,
                                        height: h,
                                        moves: g.moves().to_vec(),
                                        kind: Kind::Defend,
                                        answers: defs,
                                        plies: Some(2 * n - 1),
                                        comment: format!("{me} defends against a VCF"),
                                    };
                                    if tactics::verify_entry(&e).is_ok() {
                                        println!("{}", entry_line(&e));
                                        next_defend = ply + 10;
                                        count += 1;
                                    }
                                }
                            }
                        }
                    }
                }
            }
            // Random moves make dense, threat-rich positions; fives and blocks of fives are
            // always played (greedy does both) so that games last.
            let urgent = {
                let probe = Prover::new(rule, Color::Black, 1);
                !probe.win_points(g.board(), Color::Black).is_empty()
                    || !probe.win_points(g.board(), Color::White).is_empty()
            };
            match next_move(&mut rng, &g, greedy_share, urgent) {
                Some(m) => {
                    if g.play(m).is_err() {
                        break;
                    }
                }
                None => break,
            }
        }
    }
    eprintln!("{count} entries");
}

/// Plies of a VCF of `n` attacker moves.
fn plies_of(n: u32) -> u32 {
    2 * n - 1
}
