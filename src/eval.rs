//! Static evaluation from the fast board's incremental pattern scores.
//!
//! Every empty cell carries, per colour, a score for the lines a stone there would make (see
//! [`crate::board::pattern::PATTERN_SCORE`] and the threat bonuses); the board keeps their sums up
//! to date. The evaluation is the side to move's sum against the opponent's, with a bonus for
//! having the move. It never searches and never looks at the rule: rule awareness lives in the
//! pattern tables.

use crate::board::fast::FastBoard;

/// Weight of the side to move's own potential relative to the opponent's, in 1/16ths: having the
/// move is worth about a quarter more.
pub const INITIATIVE_16THS: i64 = 20;
/// Largest absolute static value, kept well inside the non-mate range.
pub const EVAL_LIMIT: i32 = 20_000;

/// Value of the position for the side to move, in centi-stones.
#[inline]
pub fn evaluate(b: &FastBoard) -> i32 {
    evaluate_with(b, INITIATIVE_16THS)
}

/// As [`evaluate`] with another initiative weight (in 1/16ths).
#[inline]
pub fn evaluate_with(b: &FastBoard, initiative_16ths: i64) -> i32 {
    let me = b.side_to_move();
    let opp = me.opponent();
    let mine = b.score_sum(me) as i64 * initiative_16ths / 16;
    let theirs = b.score_sum(opp) as i64;
    ((mine - theirs) / 4).clamp(-EVAL_LIMIT as i64, EVAL_LIMIT as i64) as i32
}
