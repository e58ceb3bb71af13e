//! Board coordinates and their text notations.
//!
//! A [`Pos`] is a plain `(x, y)` pair: x = column, y = row, 0-based, `0,0` top-left, exactly as the
//! Gomocup protocol numbers cells. Whether a position lies on a given board is the board's question,
//! not this module's. All parsers here are pure functions.
//!
//! Notations:
//! * protocol: `7,7` ([`Pos`]'s `FromStr` / `Display`);
//! * algebraic (Yixin-Board, c-gomoku-cli, GomocupJudge): `h8` = x 7, y 7; a game is `h8i9j10`;
//! * Gomocup offset opening lines: `0,0, 1,0, 1,3`, pairs relative to the centre `(w/2, h/2)`.

use std::fmt;
use std::str::FromStr;

/// Largest board side supported anywhere in Rensa.
pub const MAX_SIDE: usize = 64;
/// Smallest board side supported anywhere in Rensa.
pub const MIN_SIDE: usize = 5;

/// A cell coordinate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pos {
    pub x: u8,
    pub y: u8,
}

impl Pos {
    pub const fn new(x: u8, y: u8) -> Pos {
        Pos { x, y }
    }

    /// From signed coordinates; `None` if either is negative or too large for any board.
    pub fn try_new(x: i64, y: i64) -> Option<Pos> {
        let ok = |v: i64| (0..MAX_SIDE as i64).contains(&v);
        (ok(x) && ok(y)).then(|| Pos::new(x as u8, y as u8))
    }

    /// The neighbour `k` steps away in direction `(dx, dy)`, if the coordinates stay non-negative
    /// and below [`MAX_SIDE`].
    pub fn offset(self, dx: i32, dy: i32, k: i32) -> Option<Pos> {
        Pos::try_new(
            self.x as i64 + (dx * k) as i64,
            self.y as i64 + (dy * k) as i64,
        )
    }

    /// Algebraic form (`h8`): letter = x (`a` = 0), number = y + 1. `None` beyond column `z`.
    pub fn to_algebraic(self) -> Option<String> {
        (self.x < 26).then(|| format!("{}{}", (b'a' + self.x) as char, self.y as u32 + 1))
    }
}

/// Why a piece of notation could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotationError(pub String);

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotationError {}

impl fmt::Display for Pos {
    /// Protocol form `x,y`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.x, self.y)
    }
}

impl FromStr for Pos {
    type Err = NotationError;

    /// Protocol form `x,y`; blanks around the numbers are tolerated.
    fn from_str(s: &str) -> Result<Pos, NotationError> {
        let err = || NotationError(format!("'{}' is not a coordinate x,y", s.trim()));
        let (a, b) = s.split_once(',').ok_or_else(err)?;
        let parse = |t: &str| -> Result<i64, NotationError> {
            let t = t.trim();
            if t.is_empty() || t.len() > 6 {
                return Err(err());
            }
            t.parse::<i64>().map_err(|_| err())
        };
        let (x, y) = (parse(a)?, parse(b)?);
        Pos::try_new(x, y).ok_or_else(|| {
            NotationError(format!(
                "coordinate {x},{y} is outside every supported board"
            ))
        })
    }
}

/// Reads an algebraic move list such as `h8i9j10` (case-insensitive; blanks, commas and
/// semicolons between moves are allowed).
pub fn parse_algebraic(text: &str) -> Result<Vec<Pos>, NotationError> {
    let bytes: Vec<u8> = text
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b',' && *b != b';')
        .collect();
    let mut moves = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i].to_ascii_lowercase();
        if !c.is_ascii_lowercase() {
            return Err(NotationError(format!(
                "expected a column letter at '{}'",
                String::from_utf8_lossy(&bytes[i..])
            )));
        }
        i += 1;
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let digits = std::str::from_utf8(&bytes[start..i]).unwrap_or("");
        let row: i64 = match digits.parse() {
            Ok(r) if digits.len() <= 3 && r >= 1 => r,
            _ => {
                return Err(NotationError(format!(
                    "column '{}' must be followed by a row number from 1",
                    c as char
                )))
            }
        };
        let pos = Pos::try_new((c - b'a') as i64, row - 1)
            .ok_or_else(|| NotationError(format!("row {row} is too large")))?;
        moves.push(pos);
    }
    Ok(moves)
}

/// Writes a move list in algebraic form (`h8i9j10`); `None` if a move lies beyond column `z`.
pub fn to_algebraic(moves: &[Pos]) -> Option<String> {
    moves.iter().map(|p| p.to_algebraic()).collect()
}

/// Reads one Gomocup / Piskvork opening line of centre offsets (`0,0, 1,0, 1,3`) for a board of
/// `width` x `height`: stone = `(dx + width/2, dy + height/2)` with integer division. Stones are
/// returned in move order (black first). Off-board stones are an error.
pub fn parse_offset_line(
    line: &str,
    width: usize,
    height: usize,
) -> Result<Vec<Pos>, NotationError> {
    let numbers: Vec<i64> = line
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| {
            t.parse::<i64>()
                .map_err(|_| NotationError(format!("'{t}' is not an integer offset")))
        })
        .collect::<Result<_, _>>()?;
    if !numbers.len().is_multiple_of(2) {
        return Err(NotationError(format!(
            "an offset line needs pairs of numbers, got {}",
            numbers.len()
        )));
    }
    numbers
        .chunks(2)
        .map(|c| {
            let (x, y) = (c[0] + (width / 2) as i64, c[1] + (height / 2) as i64);
            if (0..width as i64).contains(&x) && (0..height as i64).contains(&y) {
                Ok(Pos::new(x as u8, y as u8))
            } else {
                Err(NotationError(format!(
                    "offset {},{} lands outside the {width}x{height} board",
                    c[0], c[1]
                )))
            }
        })
        .collect()
}

/// Writes stones as a Gomocup offset line for a `width` x `height` board (inverse of
/// [`parse_offset_line`]).
pub fn to_offset_line(moves: &[Pos], width: usize, height: usize) -> String {
    moves
        .iter()
        .map(|p| {
            format!(
                "{},{}",
                p.x as i64 - (width / 2) as i64,
                p.y as i64 - (height / 2) as i64
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocol_form_round_trips() {
        let p: Pos = "7,8".parse().unwrap();
        assert_eq!(p, Pos::new(7, 8));
        assert_eq!(p.to_string(), "7,8");
        assert_eq!(" 3 , 4 ".parse::<Pos>().unwrap(), Pos::new(3, 4));
        for bad in [
            "",
            "7",
            "7,",
            ",7",
            "a,b",
            "-1,3",
            "3,-1",
            "7;7",
            "99999999999,1",
            "64,0",
        ] {
            assert!(bad.parse::<Pos>().is_err(), "{bad:?} should not parse");
        }
    }

    #[test]
    fn algebraic_form() {
        assert_eq!(
            parse_algebraic("h8i9j10").unwrap(),
            vec![Pos::new(7, 7), Pos::new(8, 8), Pos::new(9, 9)]
        );
        assert_eq!(
            parse_algebraic("H8 a1").unwrap(),
            vec![Pos::new(7, 7), Pos::new(0, 0)]
        );
        assert_eq!(parse_algebraic("").unwrap(), vec![]);
        assert!(parse_algebraic("h").is_err());
        assert!(parse_algebraic("h0").is_err());
        assert!(parse_algebraic("8h").is_err());
        let moves = vec![Pos::new(7, 7), Pos::new(0, 14), Pos::new(25, 0)];
        assert_eq!(to_algebraic(&moves).unwrap(), "h8a15z1");
        assert_eq!(
            parse_algebraic(&to_algebraic(&moves).unwrap()).unwrap(),
            moves
        );
        assert_eq!(Pos::new(26, 0).to_algebraic(), None);
    }

    #[test]
    fn offset_lines_follow_gomocup_centre() {
        // protocol.md §8.3: `0,0, 1,0, 1,3` on 15x15 -> 7,7 (B), 8,7 (W), 8,10 (B).
        assert_eq!(
            parse_offset_line("0,0, 1,0, 1,3", 15, 15).unwrap(),
            vec![Pos::new(7, 7), Pos::new(8, 7), Pos::new(8, 10)]
        );
        assert_eq!(
            parse_offset_line("0,0, 1,0", 20, 20).unwrap(),
            vec![Pos::new(10, 10), Pos::new(11, 10)]
        );
        assert!(parse_offset_line("0,0, 1", 15, 15).is_err());
        assert!(parse_offset_line("0,0, 8,0", 15, 15).is_err());
        assert!(parse_offset_line("0,x", 15, 15).is_err());
        let moves = parse_offset_line("-2,1, 0,0, 3,-3", 15, 15).unwrap();
        assert_eq!(
            parse_offset_line(&to_offset_line(&moves, 15, 15), 15, 15).unwrap(),
            moves
        );
    }
}
