//! The protocol layer's time backstop.
//!
//! The engine budgets its own time from the limits (`search::time`); this module only guarantees
//! that a move is never late even if the search overruns. For each move request it computes, from
//! the moment the request line was read, when to raise the stop flag and when to give up on the
//! engine and answer with the fallback move. Pure functions over `Instant`s (monotonic, so a
//! suspended process does not confuse them).

use std::time::{Duration, Instant};

/// A `time_left` at or above this means "no match limit" (protocol.md §2.2).
pub use crate::search::time::UNLIMITED_MS;

/// Per-move limit used when the manager never sent `timeout_turn`, in ms.
pub const DEFAULT_TURN_MS: u64 = 30_000;

/// After answering with the fallback move, how long to wait for the engine to come back before
/// giving up on it and building a fresh one, in ms.
pub const ABANDON_AFTER_MS: u64 = 3_000;

/// After a stop request (`yxstop`, `INFO timeout_turn 0`), how long the engine may take to return
/// its best move before the fallback answers, in ms.
pub const STOP_GRACE_MS: u64 = 100;
/// How long a command waits for pondering to stop (see the protocol's `Driver::ponder`) before a
/// fresh engine takes over. The search looks at its stop flag every few thousand nodes, so it
/// stops within milliseconds (median 0.6 ms, longest 7 ms in 50 tries, one and two threads);
/// this bounds a thread that does not come back, such as the first search with helpers faulting
/// in a large hash table. A fresh engine costs the hash table and, while the old thread still
/// holds its own, twice the memory, so the wait is generous; the move's own deadlines still run
/// from when its line was read.
pub const PONDER_STOP_MS: u64 = 500;

/// After the fallback answer, once another command is waiting, how much longer to wait for the
/// late engine before building a fresh one (so the next move is not delayed), in ms.
pub const QUEUED_GRACE_MS: u64 = 20;

/// The two backstop instants of one move request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadlines {
    /// Raise the stop flag at this instant.
    pub stop_at: Instant,
    /// If the engine has still not answered, print the fallback move at this instant.
    pub answer_at: Instant,
}

/// The longest this move may take in ms, or `None` when nothing limits it: the smaller of the
/// turn limit and half of what is left on the match clock (`time_left`, or `timeout_match` minus
/// our own thinking time when no `time_left` came).
pub fn move_limit_ms(
    turn_ms: Option<u64>,
    time_left_ms: Option<i64>,
    match_ms: Option<u64>,
    used_ms: u64,
) -> Option<u64> {
    let left = match clock_left_ms(time_left_ms, match_ms, used_ms) {
        Some(l) if l < UNLIMITED_MS => Some(l.max(0) as u64),
        _ => None,
    };
    [turn_ms, left.map(|l| l / 2)].into_iter().flatten().min()
}

/// What is left on the match clock in ms: the manager's `time_left` when it sent one, else
/// `timeout_match` minus our own thinking time in this game (`None`: no match limit).
pub fn clock_left_ms(
    time_left_ms: Option<i64>,
    match_ms: Option<u64>,
    used_ms: u64,
) -> Option<i64> {
    time_left_ms.or_else(|| match_ms.map(|m| m.saturating_sub(used_ms).min(i64::MAX as u64) as i64))
}

/// Milliseconds kept between answering and the real limit: pipe latency and scheduling on a
/// loaded machine (2% of the limit, 15..250 ms).
pub fn answer_margin_ms(limit_ms: u64) -> u64 {
    (limit_ms / 50).clamp(15, 250)
}

/// Milliseconds between raising the stop flag and falling back: time for the search to unwind
/// (2% of the limit, 10..250 ms).
pub fn unwind_margin_ms(limit_ms: u64) -> u64 {
    (limit_ms / 50).clamp(10, 250)
}

/// Backstop instants for a request read at `at` that may take `limit_ms`; both are clamped so they
/// never lie before `at` (a zero limit means "answer at once").
pub fn deadlines(at: Instant, limit_ms: u64) -> Deadlines {
    let answer_ms = limit_ms.saturating_sub(answer_margin_ms(limit_ms));
    let stop_ms = answer_ms.saturating_sub(unwind_margin_ms(limit_ms));
    Deadlines {
        stop_at: at + Duration::from_millis(stop_ms),
        answer_at: at + Duration::from_millis(answer_ms),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_is_the_tighter_of_turn_and_match() {
        assert_eq!(move_limit_ms(None, None, None, 0), None);
        assert_eq!(move_limit_ms(Some(5000), None, None, 0), Some(5000));
        assert_eq!(
            move_limit_ms(Some(5000), Some(UNLIMITED_MS), None, 0),
            Some(5000)
        );
        assert_eq!(move_limit_ms(Some(5000), Some(4000), None, 0), Some(2000));
        assert_eq!(move_limit_ms(Some(5000), Some(-300), None, 0), Some(0));
        assert_eq!(move_limit_ms(None, None, Some(10_000), 4000), Some(3000));
        assert_eq!(move_limit_ms(None, None, Some(10_000), 40_000), Some(0));
        assert_eq!(move_limit_ms(Some(0), Some(100_000), None, 0), Some(0));
    }

    #[test]
    fn deadlines_are_ordered_and_inside_the_limit() {
        let at = Instant::now();
        for limit in [0u64, 1, 10, 50, 100, 1000, 5000, 30_000, 300_000] {
            let d = deadlines(at, limit);
            assert!(d.stop_at >= at && d.stop_at <= d.answer_at, "{limit}");
            assert!(d.answer_at <= at + Duration::from_millis(limit), "{limit}");
        }
        let d = deadlines(at, 5000);
        assert_eq!(d.answer_at, at + Duration::from_millis(4900));
        assert_eq!(d.stop_at, at + Duration::from_millis(4800));
        assert_eq!(deadlines(at, 0).answer_at, at);
    }
}
