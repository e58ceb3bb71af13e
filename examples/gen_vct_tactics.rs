//! Generates `vct` entries for the tactical suites (`suites/*.txt`): positions where the side to
//! move has no VCF but wins within 5 plies by a three (a double three, a three that leaves only
//! losing defences, ...).
//!
//! `cargo run --release --example gen_vct_tactics -- RULE WxH SEED GAMES [PREFIX [MAX]]`
//!
//! Plays `GAMES` randomised games (the greedy baseline player mixed with random moves near the
//! stones, seeded by `SEED`, which is printed). The engine's VCT solver proposes positions (a
//! VCT win of 5 plies); the slow full-width check on the rules oracle
//! (`tactics::wins_within_5_plies`) gives the answers, and `tactics::verify_entry` checks the
//! line before it is printed. At most one entry per game, at most `MAX` (default 10) in all.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rensa::board::fast::FastBoard;
use rensa::search::vct::{Vct, VctCache};
use rensa::tactics::prover::Prover;
use rensa::tactics::{self, Entry, Kind};
use rensa::Game;

mod common;
use common::{entry_line, next_move, GenArgs};

fn main() {
    let GenArgs {
        rule,
        width: w,
        height: h,
        seed,
        games,
        prefix,
        rest,
    } = GenArgs::from_env("gen_vct_tactics RULE WxH SEED GAMES [PREFIX [MAX]]");
    let max: usize = rest.first().map_or(10, |a| a.parse().expect("max"));
    println!("# gen_vct_tactics {rule} {w}x{h} seed {seed} games {games}");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut cache = VctCache::new(18);
    let mut count = 0;
    'games: for game_no in 0..games {
        let mut g = Game::new(w, h, rule).unwrap();
        let greedy_share = rng.gen_range(0.0..0.5);
        while !g.is_over() && g.moves().len() < w * h / 2 {
            let ply = g.moves().len();
            let me = g.side_to_move();
            let probe = Prover::new(rule, me, 1);
            let b = g.board().clone();
            let quiet = probe.win_points(&b, me).is_empty()
                && probe.win_points(&b, me.opponent()).is_empty();
            if ply >= 8 && quiet {
                let mut fb = FastBoard::from_game(&g);
                let mut vct = Vct::new(&mut cache, 50_000, None);
                let mut line = Vec::new();
                if vct.solve(&mut fb, 3, 1, &mut line) == Some(5) {
                    if let Ok(answers) = tactics::wins_within_5_plies(&b, rule, me) {
                        if !answers.is_empty() && answers.len() <= 6 {
                            let e = Entry {
                                id: format!("{prefix}-{seed}-{game_no}-{ply}"),
                                rule,
                                width: w,
                                height: h,
                                moves: g.moves().to_vec(),
                                kind: Kind::Vct,
                                answers,
                                plies: Some(5),
                                comment: format!(
                                    "{me} wins by a three within 5 plies, no VCF (generated \
                                     {prefix}-{seed}-{game_no}-{ply})"
                                ),
                            };
                            match tactics::verify_entry(&e) {
                                Ok(()) => {
                                    println!("{}", entry_line(&e));
                                    count += 1;
                                    if count >= max {
                                        break 'games;
                                    }
                                    continue 'games;
                                }
                                Err(err) => eprintln!("rejected {}: {err}", e.id),
                            }
                        }
                    }
                }
            }
            let Some(m) = next_move(&mut rng, &g, greedy_share, false) else {
                break;
            };
            if g.play(m).is_err() {
                break;
            }
        }
    }
    eprintln!("{count} entries");
}
