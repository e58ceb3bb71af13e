//! The rules oracle: slow, obviously correct checks for wins and renju-forbidden points.
//!
//! Everything here scans cells one by one along the four line directions, exactly following the
//! Gomocup rules as its referees (Piskvork, GomocupJudge) enforce them (README, "Rules and the
//! rules library"). Nothing is cached and nothing is clever: these functions are the
//! reference the referee judges with and that every faster implementation is tested against.
//!
//! Renju follows the referee algorithm of Piskvork and GomocupJudge:
//! ```text
//! check(p, on_five):               black stone at p
//!   1. exact five through p                  -> on_five
//!   2. two or more fours through p           -> forbidden
//!   3. real threes in two or more directions -> forbidden
//!   4. six or more in a row through p        -> forbidden
//!   otherwise allowed
//! ```
//! A three is *real* if one of its key points k (the stone that turns it into a straight four)
//! satisfies `check(k, on_five = forbidden)` with p on the board: k makes no five and is itself
//! not forbidden, recursively.

use super::{Board, Cell};
use crate::pos::Pos;
use crate::types::{Color, Rule};

/// The four line directions: horizontal, vertical, diagonal, anti-diagonal.
pub const DIRECTIONS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

/// The cell `k` steps from `p` along `d`.
fn cell_at(board: &Board, p: Pos, d: (i32, i32), k: i32) -> Cell {
    board.cell(p.x as i32 + d.0 * k, p.y as i32 + d.1 * k)
}

fn pos_at(p: Pos, d: (i32, i32), k: i32) -> Pos {
    Pos::new((p.x as i32 + d.0 * k) as u8, (p.y as i32 + d.1 * k) as u8)
}

/// The extent `(lo, hi)` (in steps from `p`, `lo <= 0 <= hi`) of the unbroken run of `color`
/// through `p` along `d`, counting `p` itself as `color` whatever it holds.
pub fn run_extent(board: &Board, p: Pos, color: Color, d: (i32, i32)) -> (i32, i32) {
    let mut lo = 0;
    while cell_at(board, p, d, lo - 1) == Cell::Stone(color) {
        lo -= 1;
    }
    let mut hi = 0;
    while cell_at(board, p, d, hi + 1) == Cell::Stone(color) {
        hi += 1;
    }
    (lo, hi)
}

/// Length of the unbroken run of `color` through `p` along `d` (`p` counted as `color`).
pub fn run_length(board: &Board, p: Pos, color: Color, d: (i32, i32)) -> usize {
    let (lo, hi) = run_extent(board, p, color, d);
    (hi - lo + 1) as usize
}

/// Whether a run of `len` stones of `color` along `d` with extent `(lo, hi)` around `p` wins
/// under `rule`.
fn run_wins(
    board: &Board,
    rule: Rule,
    p: Pos,
    color: Color,
    d: (i32, i32),
    (lo, hi): (i32, i32),
) -> bool {
    let len = hi - lo + 1;
    match rule {
        Rule::Freestyle => len >= 5,
        Rule::Exact => len == 5,
        Rule::Renju => match color {
            Color::Black => len == 5,
            Color::White => len >= 5,
        },
        Rule::Caro { overline_wins } => {
            let opp = Cell::Stone(color.opponent());
            // An end is closed only by an opposing stone; the board edge never closes.
            let both_closed =
                cell_at(board, p, d, lo - 1) == opp && cell_at(board, p, d, hi + 1) == opp;
            (len == 5 && !both_closed) || (overline_wins && len >= 6)
        }
    }
}

/// The winning line made by the stone at `p` (its owner's colour), in order along the line, or
/// `None` if that stone does not win under `rule`. For renju this does not look at fouls: call
/// [`is_forbidden`] first for black.
pub fn winning_line(board: &Board, rule: Rule, p: Pos) -> Option<Vec<Pos>> {
    let color = board.get(p)?;
    winning_line_for(board, rule, p, color)
}

/// As [`winning_line`], for a stone of `color` imagined at `p` (whatever `p` holds now).
pub fn winning_line_for(board: &Board, rule: Rule, p: Pos, color: Color) -> Option<Vec<Pos>> {
    DIRECTIONS.iter().find_map(|&d| {
        let ext = run_extent(board, p, color, d);
        run_wins(board, rule, p, color, d, ext)
            .then(|| (ext.0..=ext.1).map(|k| pos_at(p, d, k)).collect())
    })
}

/// Whether a stone of `color` at `p` would win under `rule` (ignoring renju fouls).
pub fn is_win(board: &Board, rule: Rule, p: Pos, color: Color) -> bool {
    winning_line_for(board, rule, p, color).is_some()
}

/// Whether black playing the empty point `p` is forbidden under renju. An exact five is never
/// forbidden. Returns false for occupied or off-board points.
pub fn is_forbidden(board: &Board, p: Pos) -> bool {
    if !board.is_empty(p) {
        return false;
    }
    let mut b = board.clone();
    b.place(p, Color::Black).expect("checked empty");
    !check(&mut b, p, true)
}

/// Every point black may not play in this position (row by row).
pub fn forbidden_points(board: &Board) -> Vec<Pos> {
    board
        .empty_cells()
        .filter(|&p| is_forbidden(board, p))
        .collect()
}

/// Piskvork's `check`: the black stone at `p` is already on `b`. Returns true if the move is
/// allowed; `five_ok` is the verdict when it makes an exact five.
fn check(b: &mut Board, p: Pos, five_ok: bool) -> bool {
    let black = Color::Black;
    // Step 1. An exact five decides at once (it beats any simultaneous foul shape).
    if DIRECTIONS.iter().any(|&d| run_length(b, p, black, d) == 5) {
        return five_ok;
    }
    // Step 2. Double four, counting two fours on one line.
    let fours: usize = DIRECTIONS.iter().map(|&d| four_count(b, p, d)).sum();
    if fours >= 2 {
        return false;
    }
    // Step 3. Double three, counting only real threes.
    let threes = DIRECTIONS
        .iter()
        .filter(|&&d| has_real_three(b, p, d))
        .count();
    if threes >= 2 {
        return false;
    }
    // Step 4. Overline.
    if DIRECTIONS.iter().any(|&d| run_length(b, p, black, d) >= 6) {
        return false;
    }
    true
}

/// If black playing the empty cell `k` steps from `p` along `d` makes an exact five in that
/// direction that includes `p`, the steps (relative to `p`) of the four black stones of that five
/// other than the new one.
fn five_completion(b: &mut Board, p: Pos, d: (i32, i32), k: i32) -> Option<Vec<i32>> {
    if cell_at(b, p, d, k) != Cell::Empty {
        return None;
    }
    let q = pos_at(p, d, k);
    b.place(q, Color::Black).expect("checked empty");
    let (lo, hi) = run_extent(b, p, Color::Black, d);
    b.remove(q);
    (hi - lo + 1 == 5 && (lo..=hi).contains(&k)).then(|| (lo..=hi).filter(|&s| s != k).collect())
}

/// Number of distinct fours through `p` along `d`: a four is a set of four black stones (including
/// `p`) that one more stone turns into an exact five. A straight four `_XXXX_` is one four with two
/// completions; `X_XXX_X`, `XX_XX_XX` and `XXX_X_XXX` with `p` in the middle part are two.
fn four_count(b: &mut Board, p: Pos, d: (i32, i32)) -> usize {
    let mut fours: Vec<Vec<i32>> = Vec::new();
    for k in -4..=4 {
        if k == 0 {
            continue;
        }
        if let Some(stones) = five_completion(b, p, d, k) {
            if !fours.contains(&stones) {
                fours.push(stones);
            }
        }
    }
    fours.len()
}

/// Whether the black stones through `p` along `d` form a real three: some empty key point `k`
/// turns them into a straight four `_XXXX_` (exactly four, containing `p`, both ends completing an
/// exact five), and black may legally play `k` (`check(k, five = not ok)`).
fn has_real_three(b: &mut Board, p: Pos, d: (i32, i32)) -> bool {
    for k in -3..=3 {
        if k == 0 || cell_at(b, p, d, k) != Cell::Empty {
            continue;
        }
        let q = pos_at(p, d, k);
        b.place(q, Color::Black).expect("checked empty");
        let straight = is_straight_four(b, p, d, k);
        let real = straight && check(b, q, false);
        b.remove(q);
        if real {
            return true;
        }
    }
    false
}

/// Whether the run through `p` along `d` (which includes the step `k`) is exactly four stones
/// with both neighbouring cells empty and each completing an exact five.
fn is_straight_four(b: &Board, p: Pos, d: (i32, i32), k: i32) -> bool {
    let (lo, hi) = run_extent(b, p, Color::Black, d);
    if hi - lo + 1 != 4 || !(lo..=hi).contains(&k) {
        return false;
    }
    let black = Cell::Stone(Color::Black);
    cell_at(b, p, d, lo - 1) == Cell::Empty
        && cell_at(b, p, d, hi + 1) == Cell::Empty
        && cell_at(b, p, d, lo - 2) != black
        && cell_at(b, p, d, hi + 2) != black
}
