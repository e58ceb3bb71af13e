//! Opening books: the file formats, the shipped balanced sets and the eight board symmetries.
//!
//! Pure functions only. An opening is a list of stones in move order (black first); the referee
//! places them before the engines move and plays each opening twice with colours exchanged.
//!
//! File format: one opening per line, either
//! * Gomocup / Piskvork **offset** pairs relative to the centre `(width/2, height/2)`
//!   (`0,0, 1,0, 1,3`), or
//! * **pos** notation (`h8i9j10`: letter = x from `a`, number = y + 1),
//!
//! detected per line. `#` starts a comment (to the end of the line); blank lines are skipped.

use crate::board::Game;
use crate::pos::{parse_algebraic, parse_offset_line, Pos, MAX_SIDE, MIN_SIDE};
use crate::types::Rule;

/// One opening: stones in move order, black first.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Opening {
    pub moves: Vec<Pos>,
}

/// The shipped sets, embedded in the binary. See the comment at the top of each file for how it
/// was made.
pub const FREESTYLE_OPENINGS: &str = include_str!("../../openings/freestyle.txt");
pub const STANDARD_OPENINGS: &str = include_str!("../../openings/standard.txt");
pub const RENJU_OPENINGS: &str = include_str!("../../openings/renju.txt");
pub const CARO_OPENINGS: &str = include_str!("../../openings/caro.txt");

/// The shipped opening file text for a rule (caro with or without winning overlines share a set).
pub fn builtin_text(rule: Rule) -> &'static str {
    match rule {
        Rule::Freestyle => FREESTYLE_OPENINGS,
        Rule::Exact => STANDARD_OPENINGS,
        Rule::Renju => RENJU_OPENINGS,
        Rule::Caro { .. } => CARO_OPENINGS,
    }
}

/// Reads an opening file for a `width` x `height` board. Every line is either offset or pos
/// notation (auto-detected: a line starting with a letter is pos notation); `#` comments and blank
/// lines are skipped. Stones must lie on the board and be distinct. Errors name the 1-based line.
pub fn parse_openings(text: &str, width: usize, height: usize) -> Result<Vec<Opening>, String> {
    let side_ok = |s: usize| (MIN_SIDE..=MAX_SIDE).contains(&s);
    if !side_ok(width) || !side_ok(height) {
        return Err(format!(
            "board size {width}x{height} is not supported (sides {MIN_SIDE} to {MAX_SIDE})"
        ));
    }
    let mut openings = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let moves =
            parse_opening_line(line, width, height).map_err(|e| format!("line {}: {e}", i + 1))?;
        openings.push(Opening { moves });
    }
    Ok(openings)
}

/// One non-empty, comment-free opening line in either notation.
pub fn parse_opening_line(line: &str, width: usize, height: usize) -> Result<Vec<Pos>, String> {
    let line = line.trim();
    let pos_notation = line.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
    let moves = if pos_notation {
        let moves = parse_algebraic(line).map_err(|e| e.to_string())?;
        if let Some(p) = moves
            .iter()
            .find(|p| p.x as usize >= width || p.y as usize >= height)
        {
            return Err(format!(
                "{} lands outside the {width}x{height} board",
                p.to_algebraic().unwrap_or_else(|| p.to_string())
            ));
        }
        moves
    } else {
        parse_offset_line(line, width, height).map_err(|e| e.to_string())?
    };
    if moves.is_empty() {
        return Err("no stones".to_string());
    }
    for (i, p) in moves.iter().enumerate() {
        if moves[..i].contains(p) {
            return Err(format!("stone {p} is placed twice"));
        }
    }
    Ok(moves)
}

/// Checks that `moves` can be played from the empty board under `rule` and leave the game open
/// (no stone off the board or on an occupied point, no renju foul, no finished line, no draw).
pub fn check_playable(
    rule: Rule,
    width: usize,
    height: usize,
    moves: &[Pos],
) -> Result<(), String> {
    let mut game = Game::new(width, height, rule).map_err(|e| e.to_string())?;
    for (i, &m) in moves.iter().enumerate() {
        match game.play(m) {
            Err(e) => return Err(format!("stone {} ({m}): {e}", i + 1)),
            Ok(Some(outcome)) => {
                return Err(format!(
                    "stone {} ({m}) ends the game ({})",
                    i + 1,
                    outcome.reason
                ))
            }
            Ok(None) => {}
        }
    }
    Ok(())
}

/// The shipped balanced openings for `rule` that fit a `width` x `height` board and are playable
/// there (offsets are centre-relative, so one set serves 15x15 and 20x20; on small boards the
/// openings that do not fit are dropped).
pub fn builtin_openings(rule: Rule, width: usize, height: usize) -> Vec<Opening> {
    builtin_text(rule)
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .filter_map(|l| parse_opening_line(l, width, height).ok())
        .filter(|m| check_playable(rule, width, height, m).is_ok())
        .map(|moves| Opening { moves })
        .collect()
}

/// Number of board symmetries (the dihedral group of the square).
pub const SYMMETRIES: u8 = 8;

/// Whether symmetry `s` exchanges the axes (allowed on square boards only).
pub fn is_transposing(s: u8) -> bool {
    s % 2 == 1
}

/// The symmetry that undoes `s`: rotations by `r` quarter turns are undone by `4 - r`; the four
/// reflections (4..8) are their own inverses.
pub fn inverse_symmetry(s: u8) -> u8 {
    let s = s % SYMMETRIES;
    if s < 4 {
        (4 - s) % 4
    } else {
        s
    }
}

/// Applies symmetry `s` to a centre offset: `s % 4` counter-clockwise quarter turns (in board
/// coordinates: `(dx, dy) -> (dy, -dx)`), preceded by a mirror `dx -> -dx` when `s >= 4`.
fn apply(s: u8, (mut dx, mut dy): (i64, i64)) -> (i64, i64) {
    if s >= 4 {
        dx = -dx;
    }
    for _ in 0..(s % 4) {
        (dx, dy) = (dy, -dx);
    }
    (dx, dy)
}

/// Maps stones through symmetry `symmetry` (0..8, 0 = identity, 1..4 quarter turns, 4..8 the
/// same after a left-right mirror) around the Gomocup centre `(width/2, height/2)`. `None` if a
/// stone leaves the board, the symmetry is out of range, or it exchanges the axes on a
/// rectangular board.
pub fn transform(moves: &[Pos], symmetry: u8, width: usize, height: usize) -> Option<Vec<Pos>> {
    if symmetry >= SYMMETRIES || (width != height && is_transposing(symmetry)) {
        return None;
    }
    let (cx, cy) = ((width / 2) as i64, (height / 2) as i64);
    moves
        .iter()
        .map(|p| {
            let (dx, dy) = apply(symmetry, (p.x as i64 - cx, p.y as i64 - cy));
            let (x, y) = (dx + cx, dy + cy);
            ((0..width as i64).contains(&x) && (0..height as i64).contains(&y))
                .then(|| Pos::new(x as u8, y as u8))
        })
        .collect()
}

/// A key equal for two openings exactly when one is a symmetric image of the other as a position
/// (the same stones of each colour, whatever their order): the smallest, over the eight
/// symmetries, of the sorted black and white centre offsets.
pub fn canonical_key(moves: &[Pos], width: usize, height: usize) -> Vec<(u8, i64, i64)> {
    let (cx, cy) = ((width / 2) as i64, (height / 2) as i64);
    (0..SYMMETRIES)
        .map(|s| {
            let mut key: Vec<(u8, i64, i64)> = moves
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let (dx, dy) = apply(s, (p.x as i64 - cx, p.y as i64 - cy));
                    ((i % 2) as u8, dx, dy)
                })
                .collect();
            key.sort_unstable();
            key
        })
        .min()
        .unwrap_or_default()
}
