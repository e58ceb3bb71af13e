//! Finds positions (from seeded semi-random games) where the side to move has a VCF of at least
//! two fours and no immediate straight four; prints them for test data.
use rand::{Rng, SeedableRng};
use rensa::board::fast::FastBoard;
use rensa::board::pattern::Threat;
use rensa::search::vcf::{Vcf, VcfCache};
use rensa::*;
fn main() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut cache = VcfCache::new(16);
    for rule in [
        Rule::Freestyle,
        Rule::Exact,
        Rule::Renju,
        Rule::Caro {
            overline_wins: false,
        },
    ] {
        let mut found = 0;
        'outer: for _ in 0..400 {
            let mut g = Game::new(15, 15, rule).unwrap();
            for _ in 0..rng.gen_range(10..40) {
                let p = if rng.gen_bool(0.5) {
                    rensa::search::greedy::best_move(&g).unwrap()
                } else {
                    loop {
                        let p = Pos::new(rng.gen_range(4..11), rng.gen_range(4..11));
                        if g.board().is_empty(p) && !g.is_forbidden(p) {
                            break p;
                        }
                    }
                };
                if g.play(p).unwrap().is_some() {
                    continue 'outer;
                }
            }
            let mut fb = FastBoard::from_game(&g);
            let me = fb.side_to_move();
            if fb.count(me, Threat::Flex4) > 0
                || fb.count(me, Threat::Five) > 0
                || fb.count(me.opponent(), Threat::Five) > 0
            {
                continue;
            }
            cache.clear();
            let mut vcf = Vcf {
                cache: &mut cache,
                nodes: 0,
                node_limit: 100000,
                deadline: None,
            };
            let mut line = Vec::new();
            if let Some(n) = vcf.solve(&mut fb, 20, &mut line) {
                if n >= 7 {
                    let pv: Vec<Pos> = line.iter().map(|&i| fb.pos(i)).collect();
                    println!(
                        "{rule} n={n} {} pv {}",
                        rensa::pos::to_algebraic(g.moves()).unwrap(),
                        rensa::pos::to_algebraic(&pv).unwrap()
                    );
                    found += 1;
                    if found >= 2 {
                        break;
                    }
                }
            }
        }
    }
}
