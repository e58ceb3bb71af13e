//! Balancing moves for GUIs (`YXBALANCEONE` / `YXBALANCETWO`, protocol.md §7): the move that
//! leaves the position closest to even (or to a chosen bias), as opening tools ask for when
//! they prepare a swap.
//!
//! * One move: every candidate (a legal cell near the stones; on the empty board the cells of
//!   one symmetric part of the board) is searched briefly from the opponent's side, and the few
//!   closest to the bias are searched again with more time; the closest wins. Ties go to the
//!   earlier candidate (row by row), so the choice is deterministic for a deterministic search.
//!   Before the second look the closest candidates are screened with a threat search for the
//!   opponent (a short search misses long threat wins), and those that lose are dropped.
//! * Two moves: the side to move's best move, then the opponent's move that brings the
//!   position back closest to the bias (the same search as for one move).
//!
//! The bias is in centi-stones for the side to move of the position received (0 = even; a
//! positive bias leaves that side ahead), in both forms. Blocked cells (`YXBLOCK`) are never
//! proposed, but the searches behind each candidate may use them. The functions run on the
//! search thread with the engine borrowed; the engine's own game is put back as it was.

use super::swap2::short_limits;
use crate::board::fast::FastBoard;
use crate::engine::{Engine, Limits};
use crate::pos::Pos;
use crate::search::vct::{Vct, VctCache};
use crate::types::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Candidates searched again in the second pass of [`one`].
pub const FINALISTS: usize = 4;

/// Candidates, closest first, screened for an opponent's threat win to find the finalists.
pub const SCREENED: usize = 12;

/// Node cap of the opponent's threat search in the screen (5 threes, 24 attacker moves: the
/// reach that finds the long wins of real games, see README "Measured").
pub const SCREEN_NODES: u64 = 300_000;

/// The moves of a `YXBALANCEONE` (one) or `YXBALANCETWO` (two) answer for the engine's
/// position, with about `budget_ms` of thinking in total. Empty when the side to move has no
/// legal cell that is not blocked (the caller answers with its fallback then).
pub fn decide(
    engine: &mut Engine,
    two: bool,
    bias: i32,
    limits: &Limits,
    budget_ms: u64,
    stop: &AtomicBool,
) -> Vec<Pos> {
    let saved: Vec<Pos> = engine.game().moves().to_vec();
    let moves = if two {
        pair(engine, bias, limits, budget_ms, stop)
    } else {
        one(engine, bias, limits, budget_ms, stop)
            .into_iter()
            .collect()
    };
    restore(engine, &saved);
    moves
}

/// Takes back moves until the engine's game is `saved` again.
fn restore(engine: &mut Engine, saved: &[Pos]) {
    while engine.game().moves().len() > saved.len() {
        if engine.undo().is_err() {
            break;
        }
    }
    debug_assert_eq!(engine.game().moves(), saved);
}

/// The candidate cells for the side to move, row by row: legal, not in `limits.avoid`, and
/// within two of a stone (the search board's neighbourhood, [`FastBoard::is_near`]); on the
/// empty board, the cells of one eighth of a square board (a quarter of a rectangle) with the
/// centre, since the others are mirror images.
pub fn candidates(engine: &Engine, limits: &Limits) -> Vec<Pos> {
    let game = engine.game();
    let wanted = |p: &Pos| !limits.avoid.contains(p) && super::session::is_legal(game, *p);
    if game.moves().is_empty() {
        let b = game.board();
        let (w, h) = (b.width(), b.height());
        let (cx, cy) = ((w - 1) / 2, (h - 1) / 2);
        return b
            .empty_cells()
            .filter(|p| {
                let (x, y) = (p.x as usize, p.y as usize);
                x <= cx && y <= cy && (w != h || x <= y)
            })
            .filter(wanted)
            .collect();
    }
    let fb = FastBoard::from_game(game);
    fb.area(2)
        .filter(|&i| fb.is_empty(i) && fb.is_near(i))
        .map(|i| fb.pos(i))
        .filter(wanted)
        .collect()
}

/// The value for the side to move of playing `m`, from a search of the reply position with
/// `ms` of time; `None` when `m` cannot be played.
fn value_of(
    engine: &mut Engine,
    m: Pos,
    limits: &Limits,
    ms: u64,
    stop: &AtomicBool,
) -> Option<Value> {
    let mover = engine.game().side_to_move();
    engine.play(m).ok()?;
    // A move that ends the game (a five, a foul, the last cell) is valued by the result.
    let v = match engine.game().outcome().map(|o| o.winner) {
        Some(None) => Value::ZERO,
        Some(Some(c)) if c == mover => Value::mate_in(1),
        Some(Some(_)) => -Value::mate_in(1),
        None => {
            -engine
                .think(&short_limits(limits, ms), stop, &mut |_| {})
                .value
        }
    };
    let _ = engine.undo();
    Some(v)
}

/// Whether after `m` the opponent wins by threes and fours (5 threes, 24 attacker moves, at most
/// [`SCREEN_NODES`] nodes and until `until`).
fn opponent_wins(engine: &mut Engine, m: Pos, until: Instant, stop: &AtomicBool) -> bool {
    if engine.play(m).is_err() {
        return true;
    }
    let found = !engine.game().is_over() && {
        let mut b = FastBoard::from_game(engine.game());
        let mut cache = VctCache::new(16);
        let mut vct = Vct::new(&mut cache, SCREEN_NODES, Some((until, stop)));
        vct.solve(&mut b, 24, 5, &mut Vec::new()).is_some()
    };
    let _ = engine.undo();
    found
}

/// How far a value is from the bias (mates are as far as can be).
fn distance(v: Value, bias: i32) -> i64 {
    if v.is_mate() {
        i64::MAX
    } else {
        (v.0 as i64 - bias as i64).abs()
    }
}

/// The one balancing move for the side to move (see the module comment).
fn one(
    engine: &mut Engine,
    bias: i32,
    limits: &Limits,
    budget_ms: u64,
    stop: &AtomicBool,
) -> Option<Pos> {
    let cands = candidates(engine, limits);
    let first = *cands.first()?;
    let inner = Limits {
        avoid: Vec::new(),
        started: None,
        ..limits.clone()
    };
    let best = closest(
        engine,
        &cands,
        bias,
        budget_ms,
        stop,
        |engine, &m, ms| value_of(engine, m, &inner, ms, stop),
        // A short search misses long threat wins: a candidate after which the opponent has one
        // is no finalist.
        |engine, &m, until| {
            let wins = opponent_wins(engine, m, until, stop);
            if wins {
                log::debug!("balance: {m} lets the opponent win by threats");
            }
            !wins
        },
        || 0,
    );
    Some(best.map_or(first, |k| cands[k]))
}

/// The index of the candidate of `cands` whose value is closest to `bias` ([`distance`]), in
/// about `budget_ms` of searches on `engine`: half of the time for a first look at every
/// candidate, half for a second look at the [`FINALISTS`] closest of them. Before the second
/// look the [`SCREENED`] closest are screened with `safe` (given the screen's deadline, five
/// eighths of the budget), which drops those a short search cannot judge (unless it drops every
/// one). `value(engine, c, ms)` searches candidate `c` for about `ms`; `None` skips it. Each
/// search gets an equal part of what is left of its pass, so a search that stops early (as most
/// do, once their best move is stable) leaves more to the ones after it. `jitter()` is added
/// to each first look's distance before they are ranked (0 for a deterministic choice; swap2
/// proposals rank first looks within the search's noise of each other at random). Ties go to
/// the earlier candidate; `None` when no candidate could be valued.
// The engine, the candidates, the bias, the time and the three closures (value, screen,
// jitter) are separate inputs; a struct for them would only be unpacked again here.
#[allow(clippy::too_many_arguments)]
pub(crate) fn closest<C: std::fmt::Display>(
    engine: &mut Engine,
    cands: &[C],
    bias: i32,
    budget_ms: u64,
    stop: &AtomicBool,
    mut value: impl FnMut(&mut Engine, &C, u64) -> Option<Value>,
    mut safe: impl FnMut(&mut Engine, &C, Instant) -> bool,
    mut jitter: impl FnMut() -> i64,
) -> Option<usize> {
    let start = Instant::now();
    let left_ms = |pass_end_ms: u64| pass_end_ms.saturating_sub(start.elapsed().as_millis() as u64);
    let mut scored: Vec<(i64, usize)> = Vec::new();
    for (k, c) in cands.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let share = (left_ms(budget_ms / 2) / (cands.len() - k) as u64).max(1);
        if let Some(v) = value(engine, c, share) {
            log::debug!("balance: {c} {v} (first look, {share} ms)");
            scored.push((distance(v, bias).saturating_add(jitter()), k));
        }
    }
    scored.sort_unstable();
    let screen_until = start + std::time::Duration::from_millis(budget_ms * 5 / 8);
    let mut finalists: Vec<(i64, usize)> = Vec::new();
    for &(d, k) in scored.iter().take(SCREENED) {
        if finalists.len() == FINALISTS || stop.load(Ordering::Relaxed) {
            break;
        }
        if safe(engine, &cands[k], screen_until) {
            finalists.push((d, k));
        }
    }
    if finalists.is_empty() {
        scored.truncate(FINALISTS);
    } else {
        scored = finalists;
    }
    let mut best: Option<(i64, usize)> = None;
    for (i, &(d0, k)) in scored.iter().enumerate() {
        let d = if stop.load(Ordering::Relaxed) {
            d0
        } else {
            let share = (left_ms(budget_ms) / (scored.len() - i) as u64).max(1);
            match value(engine, &cands[k], share) {
                Some(v) => {
                    log::debug!("balance: {} {v} (second look, {share} ms)", cands[k]);
                    distance(v, bias)
                }
                None => continue,
            }
        };
        if best.is_none_or(|b| (d, k) < b) {
            best = Some((d, k));
        }
    }
    best.map(|(_, k)| k)
}

/// The side to move's best move, then the opponent's balancing reply (see the module comment).
fn pair(
    engine: &mut Engine,
    bias: i32,
    limits: &Limits,
    budget_ms: u64,
    stop: &AtomicBool,
) -> Vec<Pos> {
    let r = engine.think(
        &short_limits(limits, (budget_ms / 3).max(1)),
        stop,
        &mut |_| {},
    );
    // A first move that ends the game leaves nothing to balance: the next candidate instead.
    let ends_game = |engine: &mut Engine, m: Pos| {
        if engine.play(m).is_err() {
            return true;
        }
        let over = engine.game().is_over();
        let _ = engine.undo();
        over
    };
    let mut first = r.best.filter(|m| !limits.avoid.contains(m));
    if first.is_none_or(|m| ends_game(engine, m)) {
        first = candidates(engine, limits)
            .into_iter()
            .find(|&m| !ends_game(engine, m));
    }
    let Some(m1) = first else {
        return Vec::new();
    };
    if engine.play(m1).is_err() {
        return Vec::new();
    }
    // The reply is the opponent's balancing move: the bias is the other way round for it.
    let rest = budget_ms.saturating_sub(budget_ms / 3);
    match one(engine, -bias, limits, rest, stop) {
        Some(m2) => vec![m1, m2],
        None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine_with(moves: &[(u8, u8)]) -> Engine {
        let mut e = Engine::new();
        e.new_game(15, 15).unwrap();
        for &(x, y) in moves {
            e.play(Pos::new(x, y)).unwrap();
        }
        e
    }

    fn node_limits(nodes: u64) -> Limits {
        Limits {
            max_nodes: Some(nodes),
            ..Limits::default()
        }
    }

    #[test]
    fn candidates_are_near_legal_and_not_blocked() {
        let e = engine_with(&[(7, 7), (8, 8)]);
        let mut limits = Limits::default();
        let all = candidates(&e, &limits);
        // The 5x5 squares around the two stones (overlapping in 4x4), without the stones:
        // 25 + 25 - 16 - 2.
        assert_eq!(all.len(), 32);
        assert!(!all.contains(&Pos::new(7, 7)));
        assert!(all.contains(&Pos::new(5, 5)) && all.contains(&Pos::new(10, 10)));
        assert!(!all.contains(&Pos::new(4, 4)));
        limits.avoid = vec![Pos::new(5, 5)];
        assert!(!candidates(&e, &limits).contains(&Pos::new(5, 5)));
        // The empty board: one eighth of it, centre included (8 + 7 + ... + 1 cells).
        let empty = engine_with(&[]);
        let cells = candidates(&empty, &Limits::default());
        assert_eq!(cells.len(), 36);
        assert!(cells.contains(&Pos::new(7, 7)) && cells.contains(&Pos::new(0, 0)));
        assert!(cells.iter().all(|p| p.x <= p.y && p.y <= 7));
    }

    #[test]
    fn a_balancing_move_is_not_the_winning_one() {
        // White to move against black's open three on the middle row: every move that does
        // not stop it loses to a straight four, so the balancing move is one of the blocks.
        let mut e = engine_with(&[(7, 7), (7, 0), (8, 7), (8, 0), (9, 7)]);
        let stop = AtomicBool::new(false);
        let before = e.game().moves().to_vec();
        let m = decide(&mut e, false, 0, &node_limits(3_000), 600_000, &stop);
        assert_eq!(e.game().moves(), before.as_slice(), "the game is put back");
        assert_eq!(m.len(), 1);
        assert!(
            [
                Pos::new(6, 7),
                Pos::new(10, 7),
                Pos::new(5, 7),
                Pos::new(11, 7)
            ]
            .contains(&m[0]),
            "{m:?} does not stop the three"
        );
    }

    #[test]
    fn two_moves_are_legal_and_leave_the_game_going() {
        let mut e = engine_with(&[(7, 7), (8, 8), (7, 8)]);
        let stop = AtomicBool::new(false);
        let m = decide(&mut e, true, 0, &node_limits(2_000), 600_000, &stop);
        assert_eq!(m.len(), 2);
        assert_ne!(m[0], m[1]);
        for &p in &m {
            e.play(p).unwrap();
        }
        assert!(!e.game().is_over());
    }

    #[test]
    fn the_screen_finds_the_opponents_threat_win() {
        // White to move against black's open three h8 i8 j8: a far move lets black win by a
        // straight four; a block does not.
        let mut e = engine_with(&[(7, 7), (7, 0), (8, 7), (8, 0), (9, 7)]);
        let stop = AtomicBool::new(false);
        let until = Instant::now() + std::time::Duration::from_secs(60);
        assert!(opponent_wins(&mut e, Pos::new(0, 14), until, &stop));
        assert!(!opponent_wins(&mut e, Pos::new(10, 7), until, &stop));
        assert_eq!(e.game().moves().len(), 5, "the game is put back");
    }

    #[test]
    fn the_distance_puts_mates_last() {
        assert_eq!(distance(Value(30), 0), 30);
        assert_eq!(distance(Value(-30), 50), 80);
        assert_eq!(distance(Value::mate_in(5), 0), i64::MAX);
        assert_eq!(distance(-Value::mate_in(5), 0), i64::MAX);
    }
}
