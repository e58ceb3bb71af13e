//! Static evaluation from the fast board's incremental pattern scores.
//!
//! Every empty cell carries, per colour, a score for the lines a stone there would make (see
//! [`crate::board::pattern::PATTERN_SCORE`] and the threat bonuses); the board keeps their sums up
//! to date. The evaluation is the side to move's sum against the opponent's, with a bonus for
//! having the move, plus indicator terms for the threat classes each side has. It never
//! searches; rule awareness lives in the pattern tables, except that caro uses no indicators
//! ([`indicators_for`]).

use crate::board::fast::FastBoard;
use crate::board::pattern::Threat;
use crate::types::Rule;

/// Weight of the side to move's own potential relative to the opponent's, in 1/16ths: having the
/// move is worth about a quarter more.
pub const INITIATIVE_16THS: i64 = 20;
/// Largest absolute static value, kept well inside the non-mate range.
pub const EVAL_LIMIT: i32 = 20_000;

/// Threat classes whose presence the optional indicator terms look at (see
/// [`evaluate_with`]).
pub const INDICATOR_CLASSES: [Threat; 4] =
    [Threat::Flex3, Threat::Three3, Threat::Block4, Threat::Four3];

/// The search's indicator terms (see [`evaluate_with`]; not used in caro), fitted together
/// with the pattern weights (`examples/tune_eval.rs --extra`). By far the largest: the side to
/// move can make a four-three.
pub const INDICATORS: [i32; 16] = [
    87, 53, 81, -154, -185, 176, 515, 40, // side to move
    -8, -69, 26, 191, 187, -206, -2, 153, // opponent
];

/// Value of the position for the side to move, in centi-stones (without indicator terms).
#[inline]
pub fn evaluate(b: &FastBoard) -> i32 {
    evaluate_with(b, INITIATIVE_16THS, None)
}

/// The indicator terms a search under `rule` uses, from the knobs' `values`: none in caro
/// (whose evaluation keeps its hand-set form) or when all are zero.
pub fn indicators_for(rule: Rule, values: &[i32; 16]) -> Option<[i32; 16]> {
    let caro = matches!(rule, Rule::Caro { .. });
    (!caro && values.iter().any(|&v| v != 0)).then_some(*values)
}

/// As [`evaluate`] with another initiative weight (in 1/16ths) and, optionally, indicator
/// terms (the search uses [`INDICATORS`]): for the side to move (entries 0..8) and the opponent
/// (8..16), per class of [`INDICATOR_CLASSES`], a value added when the side has at least one
/// cell of that class and another when it has at least two.
#[inline]
pub fn evaluate_with(b: &FastBoard, initiative_16ths: i64, indicators: Option<&[i32; 16]>) -> i32 {
    let me = b.side_to_move();
    let opp = me.opponent();
    let mine = b.score_sum(me) as i64 * initiative_16ths / 16;
    let theirs = b.score_sum(opp) as i64;
    let mut v = (mine - theirs) / 4;
    if let Some(ind) = indicators {
        for (&on, &w) in indicator_flags(b).iter().zip(ind) {
            if on {
                v += w as i64;
            }
        }
    }
    v.clamp(-EVAL_LIMIT as i64, EVAL_LIMIT as i64) as i32
}

/// Which indicator terms apply to `b`: for the side to move (entries 0..8) and the opponent
/// (8..16), per class of [`INDICATOR_CLASSES`], whether the side has at least one cell of that
/// class and whether it has at least two (the layout of [`INDICATORS`]).
#[inline]
pub fn indicator_flags(b: &FastBoard) -> [bool; 16] {
    let me = b.side_to_move();
    let mut f = [false; 16];
    for (side, c) in [me, me.opponent()].into_iter().enumerate() {
        for (k, &t) in INDICATOR_CLASSES.iter().enumerate() {
            let n = b.count(c, t);
            f[side * 8 + k * 2] = n >= 1;
            f[side * 8 + k * 2 + 1] = n >= 2;
        }
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pos::parse_algebraic;

    fn board(moves: &str) -> FastBoard {
        let mut b = FastBoard::new(15, 15, Rule::Freestyle).unwrap();
        for m in parse_algebraic(moves).unwrap() {
            let i = b.idx(m);
            b.make(i);
        }
        b
    }

    #[test]
    fn indicator_terms_count_each_sides_threat_cells() {
        // Black (to move) has an open three h8-j8: f8 and l8 make blocked fours. White's a1 a3
        // a5 on the edge: a2 and a4 make blocked fours.
        let b = board("h8a1i8a3j8a5");
        let me = b.side_to_move();
        let base = evaluate_with(&b, INITIATIVE_16THS, None);
        assert_eq!(base, evaluate(&b));
        assert_eq!(evaluate_with(&b, INITIATIVE_16THS, Some(&[0; 16])), base);
        // Entries 4 and 5: the side to move's Block4 cells (at least one, at least two); entry
        // 12: the opponent's.
        let fours = b.count(me, Threat::Block4);
        let mut ind = [0; 16];
        ind[4] = 100; // side to move: at least one Block4 cell
        ind[5] = 1000; // side to move: at least two
        ind[12] = 7; // opponent: at least one Block4 cell
        let expected = base
            + if fours >= 1 { 100 } else { 0 }
            + if fours >= 2 { 1000 } else { 0 }
            + if b.count(me.opponent(), Threat::Block4) >= 1 {
                7
            } else {
                0
            };
        assert_eq!(evaluate_with(&b, INITIATIVE_16THS, Some(&ind)), expected);
        assert!(fours >= 2, "f8 and l8");
        assert!(b.count(me.opponent(), Threat::Block4) >= 1, "a2 and a4");
    }
}
