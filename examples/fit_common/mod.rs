//! What the evaluation fitters (`tune_eval`, `fit_combo`) share: their training positions and
//! the fit of the logistic scale.

use rensa::board::fast::FastBoard;
use rensa::board::pattern::Threat;
use rensa::referee::records::read_records;
use rensa::Rule;
use std::collections::HashSet;

/// Calls `f(board, label, test)` for every position of the 15x15 `rule` games in the record
/// files `paths` that is after the opening (and not the empty board) and not decided (the side
/// to move has no five or straight-four point and need not block a five). `label` is the game's
/// result for the side to move (1, 0.5 or 0). Games between engines whose names contain
/// `pentazen` or `rapfi` are skipped unless `keep_external`; duplicate games count once; one
/// game in ten, chosen by its moves (so not by the order of the files), is held out (`test`).
/// Returns the number of games used.
pub fn for_each_position(
    rule: Rule,
    paths: &[String],
    keep_external: bool,
    mut f: impl FnMut(&FastBoard, f32, bool),
) -> usize {
    let mut seen = HashSet::new();
    let mut games = 0usize;
    for path in paths {
        let Ok(text) = std::fs::read_to_string(path) else {
            eprintln!("{path}: cannot read; skipped");
            continue;
        };
        for g in read_records(&text).0 {
            let external = |n: &str| n.contains("pentazen") || n.contains("rapfi");
            if g.rule != rule
                || g.width != 15
                || (!keep_external && (external(&g.black) || external(&g.white)))
            {
                continue;
            }
            let moves = g.all_moves();
            if !seen.insert(moves.clone()) {
                continue;
            }
            games += 1;
            let h = moves.iter().fold(17u64, |h, m| {
                h.wrapping_mul(0x100000001b3) ^ (m.x as u64 * 32 + m.y as u64)
            });
            let test = h % 10 == 0;
            let mut b = FastBoard::new(g.width, g.height, rule).expect("board");
            for (n, &m) in moves.iter().enumerate() {
                if n >= g.opening.len().max(1) {
                    let me = b.side_to_move();
                    let opp = me.opponent();
                    let decided = b.count(me, Threat::Five) > 0
                        || b.count(me, Threat::Flex4) > 0
                        || b.count(opp, Threat::Five) > 0;
                    if !decided {
                        let label = match g.winner {
                            None => 0.5,
                            Some(c) if c == me => 1.0,
                            Some(_) => 0.0,
                        };
                        f(&b, label, test);
                    }
                }
                let i = b.idx(m);
                if !b.is_empty(i) {
                    break;
                }
                b.make(i);
            }
        }
    }
    games
}

/// The scale `K` (the evaluation units per logistic unit) that minimises `loss(K)`: a coarse
/// scan in steps of 100, then finer ones of 10 and 1 around the best.
pub fn fit_scale(loss: impl Fn(f64) -> f64) -> f64 {
    let mut k = 100.0;
    let mut best = f64::MAX;
    for step in [100.0, 10.0, 1.0] {
        let centre = k;
        for j in -10..=10 {
            let kk: f64 = centre + j as f64 * step;
            if kk <= 0.0 {
                continue;
            }
            let l = loss(kk);
            if l < best {
                best = l;
                k = kk;
            }
        }
    }
    k
}
