//! Gomocup swap2 openings (`SWAP2BOARD`, protocol.md §2.5), decided with short engine searches.
//!
//! * Case 1 (empty board): propose three stones. Every shape in [`OPENINGS`] is searched briefly
//!   and the one whose value is closest to even is chosen; ties go to the earlier shape, so the
//!   choice is deterministic for a deterministic search.
//! * Cases 2 and 3 (three or five stones, white to move): search the position; if black is
//!   clearly better ([`SWAP_MARGIN`]), answer `SWAP` (take black), otherwise play white's move.
//!   In case 2, when the position is about even ([`BALANCE_MARGIN`]), we add white's 4th and
//!   black's 5th move and let the opponent choose a colour, if that position stays balanced.
//!
//! The functions run on the search thread with the engine borrowed; the engine's own game is put
//! back exactly as it was.

use crate::engine::{Engine, Limits};
use crate::pos::Pos;
use crate::types::Value;
use std::sync::atomic::{AtomicBool, Ordering};

/// How much better black must be (from white's point of view, `value <= -SWAP_MARGIN`) before we
/// take black, in the engine's centi-stone units.
pub const SWAP_MARGIN: Value = Value(150);

/// In case 2, when the position after white's 4th move is this close to even (both ways), we also
/// add black's 5th move and leave the colour choice to the opponent, provided the 5-stone position
/// stays within [`SWAP_MARGIN`].
pub const BALANCE_MARGIN: Value = Value(60);

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

/// The candidate openings that fit a `width` x `height` board (all do from 5x5 up), stones in
/// move order.
pub fn candidates(width: usize, height: usize) -> Vec<Vec<Pos>> {
    let (cx, cy) = ((width / 2) as i64, (height / 2) as i64);
    OPENINGS
        .iter()
        .filter_map(|shape| {
            let mut stones = vec![Pos::try_new(cx, cy)?];
            for &(dx, dy) in shape {
                let (x, y) = (cx + dx as i64, cy + dy as i64);
                if x < 0 || y < 0 || x >= width as i64 || y >= height as i64 {
                    return None;
                }
                stones.push(Pos::try_new(x, y)?);
            }
            Some(stones)
        })
        .collect()
}

/// Runs the swap2 decision for `stones` (0, 3 or 5 stones, already validated) with about
/// `budget_ms` of thinking in total. Restores the engine's game before returning.
pub fn decide(
    engine: &mut Engine,
    stones: &[Pos],
    limits: &Limits,
    budget_ms: u64,
    stop: &AtomicBool,
) -> Answer {
    let b = engine.game().board();
    let (w, h) = (b.width(), b.height());
    let saved: Vec<Pos> = engine.game().moves().to_vec();
    let answer = if stones.is_empty() {
        propose(engine, w, h, limits, budget_ms, stop)
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

/// Case 1: the candidate whose value (for white, to move) is closest to zero.
fn propose(
    engine: &mut Engine,
    w: usize,
    h: usize,
    limits: &Limits,
    budget_ms: u64,
    stop: &AtomicBool,
) -> Answer {
    let all = candidates(w, h);
    let share_ms = (budget_ms / all.len().max(1) as u64).max(1);
    let mut best: Option<(i32, usize)> = None;
    for (i, stones) in all.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        if !set_up(engine, w, h, stones) {
            continue;
        }
        let r = engine.think(&short_limits(limits, share_ms), stop, &mut |_| {});
        let imbalance = r.value.0.saturating_abs();
        log::debug!(
            "swap2 candidate {i} {stones:?}: value {} for white",
            r.value
        );
        if best.is_none_or(|(b, _)| imbalance < b) {
            best = Some((imbalance, i));
        }
    }
    let pick = best.map_or(0, |(_, i)| i);
    Answer::Stones(all.get(pick).cloned().unwrap_or_default())
}

/// Cases 2 and 3: swap when black is clearly better, otherwise play white's best move.
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
    let w4 = match r.best {
        Some(p) if r.value > -SWAP_MARGIN => p,
        _ => return Answer::Swap,
    };
    if stones.len() != 3
        || r.value.0.saturating_abs() > BALANCE_MARGIN.0
        || stop.load(Ordering::Relaxed)
    {
        return Answer::Stones(vec![w4]);
    }
    // Roughly even: try to add black's 5th move so that the opponent has to choose a colour.
    let quarter_ms = (budget_ms / 4).max(1);
    if engine.play(w4).is_err() {
        return Answer::Stones(vec![w4]);
    }
    let b = engine.think(&short_limits(limits, quarter_ms), stop, &mut |_| {});
    let Some(b5) = b.best.filter(|_| !stop.load(Ordering::Relaxed)) else {
        return Answer::Stones(vec![w4]);
    };
    if engine.play(b5).is_err() || engine.game().is_over() {
        return Answer::Stones(vec![w4]);
    }
    let v = engine
        .think(&short_limits(limits, quarter_ms), stop, &mut |_| {})
        .value;
    log::debug!("swap2 case 2: {w4} {b5} leaves {v} for white");
    if v.0.saturating_abs() < SWAP_MARGIN.0 && !stop.load(Ordering::Relaxed) {
        Answer::Stones(vec![w4, b5])
    } else {
        Answer::Stones(vec![w4])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Rule;

    #[test]
    fn candidates_fit_every_board_and_are_distinct() {
        for side in [5usize, 6, 15, 20, 64] {
            let all = candidates(side, side);
            assert_eq!(all.len(), OPENINGS.len(), "side {side}");
            for stones in &all {
                let g = crate::board::Game::from_moves(side, side, Rule::Freestyle, stones);
                assert!(g.is_ok(), "{stones:?} on {side}");
            }
        }
        assert_eq!(
            candidates(15, 15)[0],
            vec![Pos::new(7, 7), Pos::new(7, 6), Pos::new(8, 8)]
        );
    }

    #[test]
    fn decide_restores_the_game_and_answers_in_shape() {
        let mut e = Engine::new();
        e.new_game(15, 15).unwrap();
        e.play(Pos::new(0, 0)).unwrap();
        let stop = AtomicBool::new(false);
        let limits = Limits::default();
        match decide(&mut e, &[], &limits, 100, &stop) {
            Answer::Stones(s) => assert_eq!(s.len(), 3),
            a => panic!("{a:?}"),
        }
        let three = candidates(15, 15)[1].clone();
        match decide(&mut e, &three, &limits, 100, &stop) {
            Answer::Swap => {}
            Answer::Stones(s) => {
                assert!(s.len() == 1 || s.len() == 2, "{s:?}");
                let mut all = three.clone();
                all.extend(&s);
                assert!(crate::board::Game::from_moves(15, 15, Rule::Freestyle, &all).is_ok());
            }
        }
        let five = [three.clone(), vec![Pos::new(3, 3), Pos::new(4, 4)]].concat();
        match decide(&mut e, &five, &limits, 100, &stop) {
            Answer::Swap => {}
            Answer::Stones(s) => assert_eq!(s.len(), 1),
        }
        assert_eq!(e.game().moves(), &[Pos::new(0, 0)]);
    }
}
