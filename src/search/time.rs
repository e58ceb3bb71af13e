//! Time management: turns the protocol's limits into a budget for one search.
//!
//! The engine must answer before `timeout_turn` and within `time_left`, with a margin for pipe
//! latency and a loaded machine; it never relies on the manager's tolerance.

use crate::engine::Limits;

/// Milliseconds kept back from every deadline for pipe latency, process scheduling and the
/// reply itself.
pub const MOVE_OVERHEAD_MS: u64 = 30;

/// A value of `time_left` at or above this means "no match limit" (Piskvork/c-gomoku-cli send
/// 2147483647).
pub const UNLIMITED_MS: i64 = 2_147_483_647;

/// How long one search may run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Target time: stop starting new iterations after this many ms.
    pub soft_ms: u64,
    /// Absolute limit: abort the search at this many ms.
    pub hard_ms: u64,
}

impl Budget {
    /// No time limit at all (analysis, or limits given only as depth / nodes).
    pub const UNLIMITED: Budget = Budget {
        soft_ms: u64::MAX,
        hard_ms: u64::MAX,
    };
}

/// The most moves the match clock is spread over (knob `mtg`): the target time for one move is
/// at least the match time left divided by this. Games between strong engines last about 30
/// moves per side (median; 50 at the 90th percentile), and the stop rules of
/// [`should_stop`] use half to two thirds of a target, so 20 leaves time for long games while
/// using a third to a half of the clock in a median one. 40 used about a quarter, and lost
/// about 35 Elo to 20 in self-play under Gomocup-like clocks (see the README, "Measured"); 12
/// spent about as much of the clock as PentaZen does and did not gain (level in self-play,
/// and +0.005 ± 0.078 points a game over 212 paired games against PentaZen at 10 s / 60 s).
pub const MOVES_TO_GO: u64 = 20;
/// The fewest moves the match clock is spread over.
pub const MOVES_TO_GO_MIN: u64 = 10;

/// The budget for one move given the limits and the number of empty cells left on the board.
pub fn budget(limits: &Limits, empty_cells: usize) -> Budget {
    budget_with(limits, empty_cells, MOVES_TO_GO)
}

/// As [`budget`], spreading the match clock over at most `moves_to_go` moves.
pub fn budget_with(limits: &Limits, empty_cells: usize, moves_to_go: u64) -> Budget {
    // Step 1. Per-turn cap, with a safety margin that grows with the limit (10%, 30..1000 ms):
    // at 1 s/move an aborted iteration ends about 900 ms in, leaving room for a loaded machine.
    let turn_cap = limits.turn_time_ms.map(|t| {
        let margin = (t / 10).clamp(MOVE_OVERHEAD_MS, 1000);
        t.saturating_sub(margin)
    });
    // Step 2. Match clock: spread the remaining time over the moves we may still have to make.
    let left = limits
        .time_left_ms
        .filter(|&l| l < UNLIMITED_MS)
        .or_else(|| limits.match_time_ms.filter(|&m| m > 0).map(|m| m as i64));
    let (match_soft, match_hard) = match left {
        None => (None, None),
        Some(l) => {
            let l = (l.max(0) as u64).saturating_sub(MOVE_OVERHEAD_MS * 2);
            let most = moves_to_go.max(MOVES_TO_GO_MIN);
            let moves_to_go = ((empty_cells / 2) as u64).clamp(MOVES_TO_GO_MIN, most);
            (Some(l / moves_to_go), Some(l / 4))
        }
    };
    let hard = [turn_cap, match_hard].into_iter().flatten().min();
    match hard {
        None => Budget::UNLIMITED,
        Some(hard) => {
            let soft = match_soft.unwrap_or(hard).min(hard);
            Budget {
                soft_ms: soft,
                hard_ms: hard,
            }
        }
    }
}

/// At most this much of the hard time limit (and at most a tenth of it) is kept back from the
/// main search for the steps after it (the root safety check).
pub const SAFETY_RESERVE_MAX_MS: u64 = 50;

/// When the main search must abort: a little before the hard limit, so that the root safety
/// step still has time when an iteration is cut off by the clock.
pub fn search_hard_ms(budget: &Budget) -> u64 {
    let reserve = (budget.hard_ms / 10).min(SAFETY_RESERVE_MAX_MS);
    budget.hard_ms.saturating_sub(reserve)
}

/// After a completed iteration: whether to stop deepening. `stable` counts the iterations in a row
/// that kept the same best move. A stable best move stops at half the target time; a changing one
/// may use all of it (the hard limit still aborts a running iteration).
pub fn should_stop(budget: &Budget, elapsed_ms: u64, stable: u32) -> bool {
    should_stop_with(
        budget,
        elapsed_ms,
        stable,
        STABLE_STOP_PCT,
        NEXT_ITERATION_PCT,
    )
}

/// Percent of the target time after which a stable best move stops deepening.
pub const STABLE_STOP_PCT: u64 = 50;
/// Percent of the hard limit after which no new iteration starts.
pub const NEXT_ITERATION_PCT: u64 = 60;

/// Percent of the hard limit used as both stop thresholds when the per-turn limit binds
/// (0 = no special case; knob `turnpct`).
pub const TURN_BOUND_PCT: u64 = 0;

/// The stop percentages (stable best move, next iteration) for `budget`. When the per-turn
/// limit is what binds (the match clock would allow at least as much), time this turn leaves
/// unused is not needed later, so with `turn_pct` set both thresholds become `turn_pct` of the
/// hard limit.
pub fn stop_percentages(
    budget: &Budget,
    stable_pct: u64,
    next_pct: u64,
    turn_pct: u64,
) -> (u64, u64) {
    let turn_bound = budget.soft_ms != u64::MAX && budget.soft_ms >= budget.hard_ms;
    if turn_pct > 0 && turn_bound {
        (turn_pct, turn_pct)
    } else {
        (stable_pct, next_pct)
    }
}

/// A completed iteration whose value fell at least this many centi-stones below the previous
/// one's makes the position unclear (0 = never; knob `dropext`).
pub const DROP_MARGIN: i32 = 0;
/// Percent of the target time an unclear position may use before it stops deepening (knob
/// `droppct`); the hard limit's next-iteration share still applies.
pub const DROP_TARGET_PCT: u64 = 200;

/// As [`should_stop`], with the two percentages given (for experiments).
pub fn should_stop_with(
    budget: &Budget,
    elapsed_ms: u64,
    stable: u32,
    stable_pct: u64,
    next_pct: u64,
) -> bool {
    should_stop_scaled(budget, elapsed_ms, stable, stable_pct, next_pct, 100)
}

/// As [`should_stop_with`], with the target time of a best move that is not stable scaled to
/// `target_pct` percent (more than 100 when the position is unclear: its value just fell).
pub fn should_stop_scaled(
    budget: &Budget,
    elapsed_ms: u64,
    stable: u32,
    stable_pct: u64,
    next_pct: u64,
    target_pct: u64,
) -> bool {
    if budget.soft_ms == u64::MAX {
        return false;
    }
    let pct = if stable >= 2 { stable_pct } else { target_pct };
    let target = budget.soft_ms / 100 * pct + budget.soft_ms % 100 * pct / 100;
    // Past this share of the hard limit the next iteration would rarely finish (an aborted
    // iteration still keeps a completed root move that improved on the previous best).
    elapsed_ms >= target
        || elapsed_ms.saturating_mul(100) >= budget.hard_ms.saturating_mul(next_pct)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(turn: Option<u64>, left: Option<i64>) -> Limits {
        Limits {
            turn_time_ms: turn,
            time_left_ms: left,
            ..Limits::default()
        }
    }

    #[test]
    fn the_search_leaves_room_for_the_safety_step() {
        let b = budget(&limits(Some(1000), None), 200);
        assert_eq!((b.hard_ms, search_hard_ms(&b)), (900, 850));
        let b = budget(&limits(Some(100), None), 200);
        assert_eq!((b.hard_ms, search_hard_ms(&b)), (70, 63));
        let b = budget(&limits(Some(0), None), 200);
        assert_eq!(search_hard_ms(&b), 0);
        assert_eq!(search_hard_ms(&Budget::UNLIMITED), u64::MAX - 50);
    }

    #[test]
    fn zero_turn_time_means_answer_at_once() {
        let b = budget(&limits(Some(0), None), 200);
        assert_eq!(b.hard_ms, 0);
        assert!(should_stop(&b, 0, 0));
    }

    #[test]
    fn no_limits_is_unlimited_and_max_time_left_is_no_limit() {
        assert_eq!(budget(&limits(None, None), 200), Budget::UNLIMITED);
        assert_eq!(
            budget(&limits(None, Some(UNLIMITED_MS)), 200),
            Budget::UNLIMITED
        );
        assert!(!should_stop(&Budget::UNLIMITED, 1_000_000, 5));
    }

    #[test]
    fn budgets_stay_inside_both_clocks_with_margin() {
        for (turn, left) in [
            (1000, 180_000),
            (30_000, 180_000),
            (5000, 120_000),
            (5000, 900),
        ] {
            let b = budget(&limits(Some(turn), Some(left)), 200);
            assert!(b.hard_ms < turn, "{turn} {left}: {b:?}");
            assert!((b.hard_ms as i64) < left, "{turn} {left}: {b:?}");
            assert!(b.soft_ms <= b.hard_ms);
        }
        // Negative time left (overdrawn clock): answer at once.
        let b = budget(&limits(Some(1000), Some(-50)), 200);
        assert_eq!(b.hard_ms, 0);
    }

    #[test]
    fn the_match_clock_is_spread_over_moves_to_go() {
        // Gomocup fastgame: 5 s per move, 120 s per game.
        let l = limits(Some(5000), Some(120_000));
        let spread = |mtg| budget_with(&l, 200, mtg);
        assert_eq!(spread(40).soft_ms, (120_000 - 60) / 40);
        assert_eq!(spread(40).hard_ms, 4500);
        // Fewer moves to go: a larger target, up to the per-turn cap.
        assert_eq!(spread(30).soft_ms, (120_000 - 60) / 30);
        assert_eq!(spread(12).soft_ms, 4500);
        // Never fewer than MOVES_TO_GO_MIN, whatever the knob says.
        assert_eq!(
            budget_with(&limits(None, Some(60_000)), 200, 1).soft_ms,
            (60_000 - 60) / MOVES_TO_GO_MIN
        );
        // Near the end of the board the empty cells bound the moves to go.
        assert_eq!(
            budget_with(&limits(None, Some(60_000)), 30, 40).soft_ms,
            (60_000 - 60) / 15
        );
        assert_eq!(budget(&l, 200), spread(MOVES_TO_GO));
    }

    #[test]
    fn stable_best_moves_stop_earlier() {
        let b = Budget {
            soft_ms: 1000,
            hard_ms: 3000,
        };
        assert!(!should_stop(&b, 600, 0));
        assert!(should_stop(&b, 600, 2));
        assert!(should_stop(&b, 1000, 0));
        let b = Budget {
            soft_ms: 3000,
            hard_ms: 3000,
        };
        assert!(should_stop(&b, 1900, 0));
    }

    #[test]
    fn a_binding_turn_limit_uses_the_turn_percentage() {
        // 1 s per move with plenty of match time: the turn limit binds.
        let turn = budget(&limits(Some(1000), Some(180_000)), 200);
        assert_eq!(turn.soft_ms, turn.hard_ms);
        assert_eq!(stop_percentages(&turn, 50, 60, 0), (50, 60));
        assert_eq!(stop_percentages(&turn, 50, 60, 80), (80, 80));
        // Little match time left: the match clock binds and the usual percentages stay.
        let matchb = budget(&limits(Some(30_000), Some(20_000)), 200);
        assert!(matchb.soft_ms < matchb.hard_ms);
        assert_eq!(stop_percentages(&matchb, 50, 60, 80), (50, 60));
        assert_eq!(stop_percentages(&Budget::UNLIMITED, 50, 60, 80), (50, 60));
    }

    #[test]
    fn the_stop_percentages_move_the_thresholds() {
        let b = Budget {
            soft_ms: 1000,
            hard_ms: 1000,
        };
        // Defaults: a stable move stops at 50% of the target, any move at 60% of the hard limit.
        assert!(!should_stop(&b, 499, 2) && should_stop(&b, 500, 2));
        assert!(!should_stop(&b, 599, 0) && should_stop(&b, 600, 0));
        assert!(!should_stop_with(&b, 699, 2, 70, 80) && should_stop_with(&b, 700, 2, 70, 80));
        assert!(!should_stop_with(&b, 799, 0, 70, 80) && should_stop_with(&b, 800, 0, 70, 80));
        // No overflow near the unlimited target.
        let big = Budget {
            soft_ms: u64::MAX - 1,
            hard_ms: u64::MAX - 1,
        };
        assert!(!should_stop_with(&big, 1_000_000, 2, 50, 60));
    }

    #[test]
    fn an_unclear_position_may_use_more_of_the_target() {
        let b = Budget {
            soft_ms: 1000,
            hard_ms: 5000,
        };
        assert!(should_stop_scaled(&b, 1000, 0, 50, 60, 100));
        assert!(!should_stop_scaled(&b, 1999, 0, 50, 60, 200));
        assert!(should_stop_scaled(&b, 2000, 0, 50, 60, 200));
        // A stable best move keeps its own percentage; the hard limit's share still binds.
        assert!(should_stop_scaled(&b, 500, 2, 50, 60, 200));
        assert!(should_stop_scaled(&b, 3000, 0, 50, 60, 1000));
    }
}
