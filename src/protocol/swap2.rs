//! Gomocup swap2 openings (`SWAP2BOARD`, protocol.md §2.5), decided with short engine searches.
//!
//! * Case 1 (empty board): propose three stones. Every opening of [`candidates_for`] (the
//!   centre, a white stone next to it, black's second stone up to [`WIDE_RADIUS`] away; in
//!   renju the three-stone openings of the balanced renju set) is searched briefly, the closest
//!   to even ([`even_point`]: in renju, black somewhat ahead by the search) again for longer,
//!   and the closest of those is chosen, as balancing moves are ([`super::balance::closest`]).
//!   First looks within [`PROPOSAL_JITTER`] of each other are ranked at random (from the seed
//!   the caller gives), so proposals vary from game to game among openings the search cannot
//!   tell apart.
//! * Cases 2 and 3 (three or five stones, white to move): search the position; if black is
//!   better than even ([`even_point`], [`SWAP_MARGIN`]), answer `SWAP` (take black), otherwise
//!   play white's move.
//!   In case 2, when the position is about even ([`BALANCE_MARGIN`]), we add white's 4th and
//!   black's 5th move and let the opponent choose a colour, if that position stays balanced.
//!
//! The functions run on the search thread with the engine borrowed; the engine's own game is put
//! back exactly as it was.

use crate::engine::{Engine, Limits};
use crate::pos::Pos;
use crate::types::{Rule, Value};
use crate::zobrist::SplitMix64;
use std::sync::atomic::{AtomicBool, Ordering};

/// How much better black must be (from white's point of view, `value < -SWAP_MARGIN`) before we
/// take black, in the engine's centi-stone units: 0, the colour the search finds better. (It
/// was 150, "clearly better". In self-play swap2 games of exact five, an opening that short
/// searches valued near -150 for white was swapped in 34 games (black won 21, drew 8, lost 5)
/// and played as white in 24 (white won 5, drew 4, lost 15): docs/measurements.md,
/// seventy-fifth session.)
pub const SWAP_MARGIN: Value = Value(0);

/// How far ahead, in the engine's units, black's short searches find black in swap2 positions
/// that are even in play: white's value (white is to move in every swap2 decision) is judged
/// against `-even_point(rule)`, not 0. Renju: 75. Black's restrictions are worth more to white
/// in play than the evaluation sees; Rensa's 40 renju openings balanced by games (black scores
/// 53.9 % with them in self-play) are valued +68 to +80 for black on average by searches of
/// 3 000 to 100 000 nodes. Swap2 proposals of 3-stone openings near 0 instead were played as
/// white by the opponent and lost 52 games of 63. The freestyle and exact-five sets average
/// -16 to +34, within the search's spread, and those rules keep 0 (docs/measurements.md,
/// seventy-sixth session); so does caro (its set: -25 to +1). 20x20 freestyle keeps 0 too,
/// though its set averages -70 to -100 there: moving its even point to -85 or -40 lost in
/// self-play, because the opening the proposer then chose was a white win in play
/// (seventy-seventh session). On 20x20 exact five the proposals at 0 favour white in play
/// (black won 30 to 37 of 100), but +60 lost (-38 ± 45: black won 64 of 100) and +30 was
/// level (-10 ± 46: black won 53 of 100, and the proposer still scored 30-70; seventy-eighth
/// session).
pub fn even_point(rule: Rule) -> i32 {
    match rule {
        Rule::Renju => crate::search::alphabeta::tuning().swap2_renju_even,
        _ => 0,
    }
}

/// In case 2, when the position after white's 4th move is this close to even (both ways), we also
/// add black's 5th move and leave the colour choice to the opponent, provided the 5-stone position
/// stays this close to even.
pub const BALANCE_MARGIN: Value = Value(60);

/// The most added at random to each first look's distance from even in a proposal (case 1),
/// in the engine's units, before the closest are searched again. A short search's values of
/// swap2 openings are noisy (one opening read -4 at 25 ms and -168 at 455 ms), and a
/// deterministic proposer played one opening in 41 of 64 games of a self-play match, which
/// white won 39 times (docs/measurements.md, seventy-seventh session); with jitter, the second
/// look chooses among a few of the about 18 openings whose first looks lie within 20 of even
/// on 15x15 freestyle.
pub const PROPOSAL_JITTER: i64 = 40;

/// Candidate openings as centre offsets of moves 2 (white) and 3 (black); move 1 is the centre.
/// Our own selection of common direct (white orthogonal) and indirect (white diagonal) shapes.
pub const OPENINGS: [[(i8, i8); 2]; 8] = [
    [(0, -1), (1, 1)],
    [(0, -1), (2, 0)],
    [(0, -1), (1, -2)],
    [(0, -1), (-2, -1)],
    [(1, -1), (2, 0)],
    [(1, -1), (0, 2)],
    [(1, -1), (-1, 2)],
    [(1, -1), (2, 2)],
];

/// A SWAP2BOARD answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// `SWAP`: we take black.
    Swap,
    /// Stones in move order: the three opening stones (case 1) or white's next move (cases 2, 3).
    Stones(Vec<Pos>),
}

/// How far from the centre (in rows and columns) black's second stone may go in a proposed
/// opening.
pub const WIDE_RADIUS: i8 = 4;

/// Three opening stones in move order (black, white, black), named in logs as `x,y x,y x,y`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening(pub Vec<Pos>);

impl std::fmt::Display for Opening {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        super::output::write_stones(f, &self.0)
    }
}

/// The openings a proposal chooses from on a `width` x `height` board (case 1), stones in move
/// order: first the shapes of [`OPENINGS`] that fit, then, for each of their two white stones
/// (straight and diagonal), black's second stone on every other free cell up to
/// [`WIDE_RADIUS`] from the centre, one of each pair of mirror images. Compact shapes favour
/// black clearly (a short search gives white -2 to -3 stones on 15x15 exact five); a black stone
/// further away helps black less, so the closest to even is usually among the wide ones.
pub fn candidates(width: usize, height: usize) -> Vec<Vec<Pos>> {
    let (cx, cy) = ((width / 2) as i64, (height / 2) as i64);
    let at = |(dx, dy): (i8, i8)| {
        let (x, y) = (cx + dx as i64, cy + dy as i64);
        let inside = x >= 0 && y >= 0 && x < width as i64 && y < height as i64;
        inside.then(|| Pos::try_new(x, y)).flatten()
    };
    // Mirror images keep the centre and the white stone: across the column for a straight white
    // stone (0, -1), across the anti-diagonal for a diagonal one (1, -1).
    let canonical = |white: (i8, i8), (dx, dy): (i8, i8)| {
        if white.0 == 0 {
            (white, (dx.abs(), dy))
        } else {
            (white, (dx, dy).min((-dy, -dx)))
        }
    };
    let mut shapes: Vec<[(i8, i8); 2]> = OPENINGS.to_vec();
    for white in [(0, -1), (1, -1)] {
        for dy in -WIDE_RADIUS..=WIDE_RADIUS {
            for dx in -WIDE_RADIUS..=WIDE_RADIUS {
                if (dx, dy) != (0, 0) && (dx, dy) != white {
                    shapes.push([white, (dx, dy)]);
                }
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    shapes
        .into_iter()
        .filter(|&[white, black]| seen.insert(canonical(white, black)))
        .filter_map(|[white, black]| Some(vec![at((0, 0))?, at(white)?, at(black)?]))
        .collect()
}

/// Runs the swap2 decision for `stones` (0, 3 or 5 stones, already validated) with about
/// `budget_ms` of thinking in total. `seed` ranks a proposal's first looks within
/// [`PROPOSAL_JITTER`] of each other (case 1 only; the same seed and search give the same
/// proposal). Restores the engine's game before returning.
pub fn decide(
    engine: &mut Engine,
    stones: &[Pos],
    limits: &Limits,
    budget_ms: u64,
    seed: u64,
    stop: &AtomicBool,
) -> Answer {
    let b = engine.game().board();
    let (w, h) = (b.width(), b.height());
    let saved: Vec<Pos> = engine.game().moves().to_vec();
    let answer = if stones.is_empty() {
        propose(engine, w, h, limits, budget_ms, seed, stop)
    } else {
        respond(engine, w, h, stones, limits, budget_ms, stop)
    };
    restore(engine, w, h, &saved);
    answer
}

/// Limits for one short evaluation: only a per-move time, plus the node/depth caps.
pub(crate) fn short_limits(limits: &Limits, ms: u64) -> Limits {
    Limits {
        turn_time_ms: Some(ms),
        match_time_ms: None,
        time_left_ms: None,
        started: None,
        ..limits.clone()
    }
}

fn set_up(engine: &mut Engine, w: usize, h: usize, stones: &[Pos]) -> bool {
    engine.new_game(w, h).is_ok() && stones.iter().all(|&p| engine.play(p).is_ok())
}

fn restore(engine: &mut Engine, w: usize, h: usize, moves: &[Pos]) {
    if !set_up(engine, w, h, moves) {
        log::warn!("swap2: could not restore the previous position");
    }
}

/// The openings a proposal under `rule` chooses from (case 1): in renju the three-stone openings
/// of Rensa's renju opening set that fit the board (`openings/renju.txt`: compact, one per
/// symmetry class, each balanced by 32 to 66 self-play games), else, and when none fits,
/// [`candidates`]. The search's values of renju openings depend on their shape as much as on
/// their balance: wide ones that it values as even (or black ahead by [`even_point`]) were
/// played as white and won by white in most games (docs/measurements.md, seventy-sixth
/// session).
pub fn candidates_for(rule: Rule, width: usize, height: usize) -> Vec<Vec<Pos>> {
    if rule == Rule::Renju && !crate::search::alphabeta::tuning().swap2_renju_wide {
        let balanced: Vec<Vec<Pos>> = crate::openings::builtin_openings(rule, width, height)
            .into_iter()
            .map(|o| o.moves)
            .filter(|m| m.len() == 3)
            .collect();
        if !balanced.is_empty() {
            return balanced;
        }
    }
    candidates(width, height)
}

/// Case 1: the candidate of [`candidates_for`] whose value (for white, to move) is closest to
/// even ([`even_point`]), chosen as balancing moves are ([`super::balance::closest`]: a short
/// look at every candidate, a longer one at the closest few, which `seed` ranks with up to
/// [`PROPOSAL_JITTER`] added to each first look).
fn propose(
    engine: &mut Engine,
    w: usize,
    h: usize,
    limits: &Limits,
    budget_ms: u64,
    seed: u64,
    stop: &AtomicBool,
) -> Answer {
    let rule = engine.game().rule();
    let all: Vec<Opening> = candidates_for(rule, w, h)
        .into_iter()
        .map(Opening)
        .collect();
    let t = crate::search::alphabeta::tuning();
    let even = -match (rule, t.swap2_renju_proposal_even) {
        (Rule::Renju, Some(e)) => e,
        _ => even_point(rule),
    };
    log::info!("swap2 proposal: seed {seed:#x}");
    let mut rng = SplitMix64(seed);
    let best = super::balance::closest(
        engine,
        &all,
        even,
        budget_ms,
        stop,
        |engine, opening, ms| {
            set_up(engine, w, h, &opening.0).then(|| {
                engine
                    .think(&short_limits(limits, ms), stop, &mut |_| {})
                    .value
            })
        },
        // Two black stones hold no threat: a short search judges these positions.
        |_, _, _| true,
        || (rng.next_u64() % (PROPOSAL_JITTER as u64 + 1)) as i64,
    );
    let pick = best.unwrap_or(0);
    Answer::Stones(all.get(pick).map(|o| o.0.clone()).unwrap_or_default())
}

/// Cases 2 and 3: the colour the search finds better (`SWAP`, black, when white to move is
/// worse; else white's best move), or in case 2, when the position is about even, white's 4th
/// and black's 5th move if they leave it about even too.
fn respond(
    engine: &mut Engine,
    w: usize,
    h: usize,
    stones: &[Pos],
    limits: &Limits,
    budget_ms: u64,
    stop: &AtomicBool,
) -> Answer {
    if !set_up(engine, w, h, stones) {
        return Answer::Swap;
    }
    let first_ms = if stones.len() == 3 {
        budget_ms / 2
    } else {
        budget_ms
    };
    let r = engine.think(&short_limits(limits, first_ms.max(1)), stop, &mut |_| {});
    log::debug!(
        "swap2 with {} stones: value {} for white",
        stones.len(),
        r.value
    );
    let Some(w4) = r.best else {
        return Answer::Swap;
    };
    // White's value where the position is even in play (see [`even_point`]).
    let even = -even_point(engine.game().rule());
    let off_even = |v: Value| v.0.saturating_sub(even).saturating_abs();
    let choose = || {
        if r.value.0 < even - SWAP_MARGIN.0 {
            Answer::Swap
        } else {
            Answer::Stones(vec![w4])
        }
    };
    if stones.len() != 3 || off_even(r.value) > BALANCE_MARGIN.0 || stop.load(Ordering::Relaxed) {
        return choose();
    }
    // Roughly even: try to add black's 5th move so that the opponent has to choose a colour.
    let quarter_ms = (budget_ms / 4).max(1);
    if engine.play(w4).is_err() {
        return choose();
    }
    let b = engine.think(&short_limits(limits, quarter_ms), stop, &mut |_| {});
    let Some(b5) = b.best.filter(|_| !stop.load(Ordering::Relaxed)) else {
        return choose();
    };
    if engine.play(b5).is_err() || engine.game().is_over() {
        return choose();
    }
    let v = engine
        .think(&short_limits(limits, quarter_ms), stop, &mut |_| {})
        .value;
    log::debug!("swap2 case 2: {w4} {b5} leaves {v} for white");
    if off_even(v) <= BALANCE_MARGIN.0 && !stop.load(Ordering::Relaxed) {
        Answer::Stones(vec![w4, b5])
    } else {
        choose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mirror images of a candidate that keep the centre and its white stone, as offsets
    /// from the centre.
    fn images(stones: &[Pos], c: (i64, i64)) -> Vec<Vec<(i64, i64)>> {
        let off: Vec<(i64, i64)> = stones
            .iter()
            .map(|p| (p.x as i64 - c.0, p.y as i64 - c.1))
            .collect();
        type Offset = (i64, i64);
        let flips: [fn(Offset) -> Offset; 4] = [
            |(x, y)| (x, y),
            |(x, y)| (-x, y),
            |(x, y)| (-y, -x),
            |(x, y)| (y, x),
        ];
        flips
            .iter()
            .map(|f| off.iter().map(|&o| f(o)).collect::<Vec<_>>())
            .filter(|img| img[1] == off[1])
            .collect()
    }

    #[test]
    fn candidates_fit_every_board_and_are_distinct() {
        for side in [5usize, 6, 9, 15, 20, 64] {
            let all = candidates(side, side);
            let c = ((side / 2) as i64, (side / 2) as i64);
            let mut seen = std::collections::HashSet::new();
            for stones in &all {
                let g = crate::board::Game::from_moves(side, side, Rule::Freestyle, stones);
                assert!(g.is_ok(), "{stones:?} on {side}");
                assert_eq!(stones[0], Pos::new(c.0 as u8, c.1 as u8));
                for img in images(stones, c) {
                    assert!(!seen.contains(&img), "{stones:?} mirrors another on {side}");
                }
                seen.insert(images(stones, c)[0].clone());
            }
            if side > 2 * WIDE_RADIUS as usize {
                // Per white stone, 79 cells for black's: 7 on the mirror line and 36 pairs.
                assert_eq!(all.len(), 2 * (7 + 36), "side {side}");
            }
        }
        let all = candidates(15, 15);
        assert_eq!(all[0], vec![Pos::new(7, 7), Pos::new(7, 6), Pos::new(8, 8)]);
        assert!(all.contains(&vec![Pos::new(7, 7), Pos::new(8, 6), Pos::new(3, 11)]));
    }

    #[test]
    fn renju_proposals_come_from_the_balanced_openings() {
        let renju = candidates_for(Rule::Renju, 15, 15);
        assert!(renju.len() >= 10, "{renju:?}");
        assert!(renju.iter().all(|c| c.len() == 3));
        assert_eq!(candidates_for(Rule::Freestyle, 15, 15), candidates(15, 15));
        assert_eq!(candidates_for(Rule::Exact, 20, 20), candidates(20, 20));
        // Every board gets legal three-stone openings (the set's that fit, else the general
        // list).
        for (w, h) in [(5, 5), (6, 9), (30, 5), (15, 15), (20, 20), (64, 64)] {
            let all = candidates_for(Rule::Renju, w, h);
            assert!(!all.is_empty(), "{w}x{h}");
            for stones in &all {
                assert_eq!(stones.len(), 3);
                let g = crate::board::Game::from_moves(w, h, Rule::Renju, stones);
                assert!(g.is_ok_and(|g| !g.is_over()), "{w}x{h}: {stones:?}");
            }
        }
    }

    #[test]
    fn the_renju_swap2_knobs_change_the_candidates_and_the_even_point() {
        use crate::search::alphabeta::{set_tuning, Tuning};
        // Knobs are per thread; this test's thread only.
        assert_eq!(even_point(Rule::Renju), 75);
        set_tuning(Tuning::parse("s2wide=1,s2even=20").unwrap());
        assert_eq!(candidates_for(Rule::Renju, 15, 15), candidates(15, 15));
        assert_eq!(even_point(Rule::Renju), 20);
        assert_eq!(even_point(Rule::Freestyle), 0);
        set_tuning(Tuning::DEFAULT);
        assert_ne!(candidates_for(Rule::Renju, 15, 15), candidates(15, 15));
        assert_eq!(
            Tuning::parse("s2prop=0").unwrap().swap2_renju_proposal_even,
            Some(0)
        );
    }

    #[test]
    fn proposals_are_closer_to_even_than_the_compact_shapes_and_vary_with_the_seed() {
        // Node-limited searches, so the values do not depend on the machine's speed.
        let limits = Limits {
            max_nodes: Some(4_000),
            ..Limits::default()
        };
        let stop = AtomicBool::new(false);
        let value = |stones: &[Pos]| {
            let mut e = Engine::new();
            assert!(set_up(&mut e, 15, 15, stones));
            e.think(&limits, &stop, &mut |_| {}).value.0
        };
        let propose = |seed: u64| {
            let mut e = Engine::new();
            e.new_game(15, 15).unwrap();
            let Answer::Stones(s) = decide(&mut e, &[], &limits, 600_000, seed, &stop) else {
                panic!("case 1 answers with stones")
            };
            assert_eq!(s.len(), 3);
            assert!(e.game().moves().is_empty(), "the game is put back");
            s
        };
        let compact: Vec<i32> = candidates(15, 15)[..OPENINGS.len()]
            .iter()
            .map(|c| value(c))
            .collect();
        let mut seen: Vec<Vec<Pos>> = Vec::new();
        for seed in 0..24 {
            let s = propose(seed);
            let proposed = value(&s).abs();
            assert!(
                compact.iter().all(|v| v.abs() > proposed),
                "seed {seed}: {s:?} ({proposed}) against the compact shapes' {compact:?}"
            );
            // The engine's own second look may differ from this fresh search (its hash table
            // holds the other candidates' searches), and the jitter may pass over the closest.
            let bound = BALANCE_MARGIN.0 + PROPOSAL_JITTER as i32;
            assert!(proposed <= bound, "seed {seed}: {s:?}: {proposed}");
            if !seen.contains(&s) {
                seen.push(s);
            }
        }
        // At 4 000 nodes a search, 24 seeds give 3 or more different openings (12 gave 4
        // before singular extensions, 2 with them).
        assert!(seen.len() >= 3, "24 seeds, only {seen:?}");
        // The seed decides: the same seed, the same proposal.
        assert_eq!(propose(3), propose(3));
    }

    #[test]
    fn decide_restores_the_game_and_answers_in_shape() {
        let mut e = Engine::new();
        e.new_game(15, 15).unwrap();
        e.play(Pos::new(0, 0)).unwrap();
        let stop = AtomicBool::new(false);
        let limits = Limits::default();
        match decide(&mut e, &[], &limits, 100, 0, &stop) {
            Answer::Stones(s) => assert_eq!(s.len(), 3),
            a => panic!("{a:?}"),
        }
        let three = candidates(15, 15)[1].clone();
        match decide(&mut e, &three, &limits, 100, 0, &stop) {
            Answer::Swap => {}
            Answer::Stones(s) => {
                assert!(s.len() == 1 || s.len() == 2, "{s:?}");
                let mut all = three.clone();
                all.extend(&s);
                assert!(crate::board::Game::from_moves(15, 15, Rule::Freestyle, &all).is_ok());
            }
        }
        let five = [three.clone(), vec![Pos::new(3, 3), Pos::new(4, 4)]].concat();
        match decide(&mut e, &five, &limits, 100, 0, &stop) {
            Answer::Swap => {}
            Answer::Stones(s) => assert_eq!(s.len(), 1),
        }
        assert_eq!(e.game().moves(), &[Pos::new(0, 0)]);
    }
}
