//! Opening books: the file formats, the shipped balanced sets and the eight board symmetries.
//!
//! Pure functions only. An opening is a list of stones in move order (black first). The referee
//! places them before the engines move and plays each opening twice with colours exchanged; the
//! engine's swap2 proposals in renju choose among the shipped set's three-stone openings
//! ([`crate::protocol::swap2::candidates_for`]). Shared by both, so it belongs to neither.
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
pub const FREESTYLE_OPENINGS: &str = include_str!("../openings/freestyle.txt");
pub const STANDARD_OPENINGS: &str = include_str!("../openings/standard.txt");
pub const RENJU_OPENINGS: &str = include_str!("../openings/renju.txt");
pub const CARO_OPENINGS: &str = include_str!("../openings/caro.txt");

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
    // A byte-order mark (files saved by some Windows editors) is not part of the first line.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    const RULES: [Rule; 5] = Rule::ALL;

    fn p(x: u8, y: u8) -> Pos {
        Pos::new(x, y)
    }

    #[test]
    fn parses_both_notations_with_comments() {
        let text = "# a comment\n\n0,0, 1,0, 1,3\n  h8i9j10   # trailing comment\n-1,-1,2,2\nH8\n";
        let o = parse_openings(text, 15, 15).unwrap();
        assert_eq!(o.len(), 4);
        // protocol.md §8.3: `0,0, 1,0, 1,3` on 15x15 is 7,7 (B), 8,7 (W), 8,10 (B).
        assert_eq!(o[0].moves, vec![p(7, 7), p(8, 7), p(8, 10)]);
        assert_eq!(o[1].moves, vec![p(7, 7), p(8, 8), p(9, 9)]);
        assert_eq!(o[2].moves, vec![p(6, 6), p(9, 9)]);
        assert_eq!(o[3].moves, vec![p(7, 7)]);
        // The same offsets sit around 10,10 on 20x20.
        let o = parse_openings("0,0, 1,0, 1,3", 20, 20).unwrap();
        assert_eq!(o[0].moves, vec![p(10, 10), p(11, 10), p(11, 13)]);
        // Rectangles: centre (w/2, h/2).
        let o = parse_openings("0,0, -1,2", 20, 15).unwrap();
        assert_eq!(o[0].moves, vec![p(10, 7), p(9, 9)]);
        assert_eq!(parse_openings("", 15, 15).unwrap(), vec![]);
        // Windows files: byte-order mark and CRLF line ends.
        let o = parse_openings("\u{feff}0,0, 1,0\r\nh8\r\n", 15, 15).unwrap();
        assert_eq!(o.len(), 2);
        assert_eq!(o[0].moves, vec![p(7, 7), p(8, 7)]);
        assert_eq!(parse_openings("# only\n\n", 15, 15).unwrap(), vec![]);
    }

    #[test]
    fn errors_name_the_line() {
        let cases = [
            ("0,0\n0,0, 1\n", "line 2"),    // odd number of offsets
            ("h8\n\n0,0, 8,0\n", "line 3"), // off the 15x15 board
            ("0,0, 0,0\n", "line 1"),       // a stone twice
            ("h8i9h8\n", "line 1"),         // a stone twice, pos notation
            ("# x\np16\n", "line 2"),       // row 16 is off the board
            ("h8\nh8 x\n", "line 2"),       // junk
            ("0,0, a,b\n", "line 1"),
        ];
        for (text, want) in cases {
            let err = parse_openings(text, 15, 15).unwrap_err();
            assert!(err.starts_with(want), "{text:?}: {err}");
        }
        assert!(parse_openings("0,0", 4, 15).is_err());
        assert!(parse_openings("0,0", 15, 65).is_err());
    }

    #[test]
    fn playability_is_checked_with_the_oracle() {
        let five = [
            p(7, 7),
            p(7, 8),
            p(8, 7),
            p(8, 8),
            p(9, 7),
            p(9, 8),
            p(10, 7),
            p(10, 8),
        ];
        assert!(check_playable(Rule::Freestyle, 15, 15, &five).is_ok());
        let mut won = five.to_vec();
        won.push(p(11, 7));
        assert!(check_playable(Rule::Freestyle, 15, 15, &won).is_err());
        // protocol.md §11 renju vector: 6,8 is a forbidden double-three for black.
        let foul = [
            p(7, 7),
            p(7, 8),
            p(8, 6),
            p(8, 8),
            p(7, 9),
            p(8, 5),
            p(8, 10),
            p(8, 11),
            p(6, 8),
        ];
        assert!(check_playable(Rule::Freestyle, 15, 15, &foul).is_ok());
        assert!(check_playable(Rule::Renju, 15, 15, &foul).is_err());
        assert!(check_playable(Rule::Freestyle, 15, 15, &[p(7, 7), p(7, 7)]).is_err());
        assert!(check_playable(Rule::Freestyle, 15, 15, &[p(15, 7)]).is_err());
    }

    /// An asymmetric pattern: no symmetry maps it onto itself.
    fn l_shape(side: usize) -> Vec<Pos> {
        let c = (side / 2) as u8;
        vec![p(c, c), p(c + 1, c), p(c + 2, c), p(c, c + 1)]
    }

    #[test]
    fn transforms_form_the_dihedral_group() {
        for side in [15, 20] {
            let base = l_shape(side);
            let images: Vec<Vec<Pos>> = (0..SYMMETRIES)
                .map(|s| transform(&base, s, side, side).expect("near the centre"))
                .collect();
            assert_eq!(images[0], base);
            // Eight distinct images (as sets of stones).
            let sets: HashSet<Vec<Pos>> = images
                .iter()
                .map(|m| {
                    let mut m = m.clone();
                    m.sort();
                    m
                })
                .collect();
            assert_eq!(sets.len(), 8);
            for a in 0..SYMMETRIES {
                // Inverse round trip.
                let back = transform(&images[a as usize], inverse_symmetry(a), side, side);
                assert_eq!(back.as_ref(), Some(&base), "symmetry {a}");
                // Closure: a then b is again one of the eight.
                for b in 0..SYMMETRIES {
                    let ab = transform(&images[a as usize], b, side, side).unwrap();
                    assert!(images.contains(&ab), "{a} then {b}");
                }
            }
            // Quarter turns: four of them are the identity.
            let mut m = base.clone();
            for _ in 0..4 {
                m = transform(&m, 1, side, side).unwrap();
            }
            assert_eq!(m, base);
        }
        assert_eq!(transform(&l_shape(15), 8, 15, 15), None);
    }

    #[test]
    fn transforms_keep_to_the_board() {
        // 15x15: the centre 7,7 is the true centre, every image stays on the board.
        let corner = vec![p(0, 0), p(14, 3)];
        for s in 0..SYMMETRIES {
            assert!(transform(&corner, s, 15, 15).is_some(), "symmetry {s}");
        }
        // 20x20: the Gomocup centre is 10,10, so column 0 mirrors to column 20, off the board.
        assert_eq!(transform(&[p(0, 10)], 4, 20, 20), None);
        assert_eq!(transform(&[p(1, 10)], 4, 20, 20), Some(vec![p(19, 10)]));
        // Rectangles: only the four symmetries that keep the axes.
        let stones = vec![p(10, 7), p(11, 8)];
        for s in 0..SYMMETRIES {
            let t = transform(&stones, s, 20, 15);
            assert_eq!(t.is_some(), !is_transposing(s), "symmetry {s}");
        }
        assert_eq!(transform(&stones, 2, 20, 15), Some(vec![p(10, 7), p(9, 6)]));
    }

    #[test]
    fn canonical_key_identifies_symmetric_openings() {
        let base = l_shape(15);
        let key = canonical_key(&base, 15, 15);
        for s in 0..SYMMETRIES {
            let t = transform(&base, s, 15, 15).unwrap();
            assert_eq!(canonical_key(&t, 15, 15), key);
        }
        // Same stones, colours exchanged: a different opening.
        let mut swapped = base.clone();
        swapped.swap(0, 1);
        assert_ne!(canonical_key(&swapped, 15, 15), key);
        // Same position reached in another order (black stones exchanged): the same opening.
        let mut reordered = base.clone();
        reordered.swap(0, 2);
        assert_eq!(canonical_key(&reordered, 15, 15), key);
    }

    /// Lines of a shipped file that hold an opening.
    fn opening_lines(text: &str) -> usize {
        text.lines()
            .filter(|l| !l.split('#').next().unwrap_or("").trim().is_empty())
            .count()
    }

    #[test]
    fn shipped_sets_are_legal_open_and_distinct() {
        for rule in RULES {
            let text = builtin_text(rule);
            assert!(
                text.lines().next().is_some_and(|l| l.starts_with('#')),
                "{rule}: the file must say how it was made"
            );
            // Gomocup boards: every set is centre-relative and serves 15x15 and 20x20.
            for side in [15, 20] {
                let parsed = parse_openings(text, side, side).expect("shipped file parses");
                let builtin = builtin_openings(rule, side, side);
                // Nothing is silently dropped on the standard boards.
                assert_eq!(builtin.len(), opening_lines(text), "{rule} {side}");
                assert_eq!(builtin, parsed, "{rule} {side}");
                assert!(
                    (20..=40).contains(&builtin.len()),
                    "{rule}: {} openings",
                    builtin.len()
                );
                let mut keys = HashSet::new();
                for o in &builtin {
                    assert!((2..=5).contains(&o.moves.len()), "{rule}: {:?}", o.moves);
                    check_playable(rule, side, side, &o.moves)
                        .unwrap_or_else(|e| panic!("{rule} {side}x{side} {:?}: {e}", o.moves));
                    let game = Game::from_moves(side, side, rule, &o.moves).unwrap();
                    if rule == Rule::Renju {
                        // No foul was played: every black stone was allowed when it was placed.
                        assert!(game.outcome().is_none());
                    }
                    assert!(
                        keys.insert(canonical_key(&o.moves, side, side)),
                        "{rule}: {:?} repeats an opening up to symmetry",
                        o.moves
                    );
                }
            }
        }
    }

    #[test]
    fn builtin_sets_shrink_gracefully_on_small_boards() {
        for rule in RULES {
            let small = builtin_openings(rule, 5, 5);
            for o in &small {
                assert!(o.moves.iter().all(|m| m.x < 5 && m.y < 5));
                assert!(check_playable(rule, 5, 5, &o.moves).is_ok());
            }
            assert!(small.len() <= builtin_openings(rule, 15, 15).len());
        }
        assert_eq!(
            builtin_openings(
                Rule::Caro {
                    overline_wins: true
                },
                15,
                15
            ),
            builtin_openings(
                Rule::Caro {
                    overline_wins: false
                },
                15,
                15
            )
        );
    }
}
