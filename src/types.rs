//! Core value types shared by every module: colours, rules, search values.
//!
//! This module owns no state and does no I/O.

use std::fmt;

/// A player. Black always moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    Black,
    White,
}

impl Color {
    /// The other player.
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// 0 for black, 1 for white (for indexing per-colour tables).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The colour that plays the move with the given 0-based ply number.
    pub fn of_ply(ply: usize) -> Color {
        if ply.is_multiple_of(2) {
            Color::Black
        } else {
            Color::White
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Black => "black",
            Color::White => "white",
        })
    }
}

/// The winning condition and restrictions of a game (protocol.md §10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Five or more in a row wins (`INFO rule 0`).
    Freestyle,
    /// Only exactly five wins, for both colours; six or more is an ordinary move (`rule 1`).
    Exact,
    /// Renju: black may not make double-three, double-four or overline; black wins only with an
    /// exact five, white with five or more (`rule 4`; Yixin-style GUIs send `2`).
    Renju,
    /// Caro: an exact five wins unless opposing stones block it at both ends (the board edge never
    /// blocks). With `overline_wins` (protocol value 8) a run of six or more also wins; without it
    /// (value 9) only the unblocked exact five does.
    Caro { overline_wins: bool },
}

impl Rule {
    /// Every rule variant, in protocol-value order of first appearance (for tests and tools).
    pub const ALL: [Rule; 5] = [
        Rule::Freestyle,
        Rule::Exact,
        Rule::Renju,
        Rule::Caro {
            overline_wins: false,
        },
        Rule::Caro {
            overline_wins: true,
        },
    ];

    /// The rule's position in [`Rule::ALL`] (for per-rule tables).
    pub fn index(self) -> usize {
        Rule::ALL
            .iter()
            .position(|&r| r == self)
            .expect("every rule is in Rule::ALL")
    }

    /// Decodes an `INFO rule` value as protocol.md §10.6 recommends: a bitmask (1 exact five,
    /// 2 continuous, 4 renju, 8 caro); caro with bit 1 means exact-five caro; a bare `2` means renju
    /// (Yixin-Board); the continuous bit is otherwise ignored.
    pub fn from_protocol(value: i64) -> Rule {
        if value & 8 != 0 {
            Rule::Caro {
                overline_wins: value & 1 == 0,
            }
        } else if value & 4 != 0 || value == 2 {
            Rule::Renju
        } else if value & 1 != 0 {
            Rule::Exact
        } else {
            Rule::Freestyle
        }
    }

    /// The value a referee sends in `INFO rule` for this rule (never 2, see §10.6).
    pub fn to_protocol(self) -> i64 {
        match self {
            Rule::Freestyle => 0,
            Rule::Exact => 1,
            Rule::Renju => 4,
            Rule::Caro {
                overline_wins: false,
            } => 9,
            Rule::Caro {
                overline_wins: true,
            } => 8,
        }
    }

    /// Short lower-case name, as used on command lines and in records.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Freestyle => "freestyle",
            Rule::Exact => "standard",
            Rule::Renju => "renju",
            Rule::Caro {
                overline_wins: false,
            } => "caro",
            Rule::Caro {
                overline_wins: true,
            } => "caro8",
        }
    }

    /// Parses a rule name (`freestyle`, `standard`/`exact`, `renju`, `caro`/`caro9`, `caro8`) or a
    /// protocol number (0 to 15: the four bits of [`Rule::from_protocol`]; a number with any other
    /// bit names no rule).
    pub fn parse(text: &str) -> Option<Rule> {
        let t = text.trim().to_ascii_lowercase();
        Some(match t.as_str() {
            "freestyle" | "free" | "gomoku" => Rule::Freestyle,
            "standard" | "exact" | "exact5" | "exactfive" => Rule::Exact,
            "renju" => Rule::Renju,
            "caro" | "caro9" => Rule::Caro {
                overline_wins: false,
            },
            "caro8" => Rule::Caro {
                overline_wins: true,
            },
            _ => {
                return t
                    .parse::<i64>()
                    .ok()
                    .filter(|v| (0..16).contains(v))
                    .map(Rule::from_protocol)
            }
        })
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Search value in "centi-stones" from the side to move's point of view. Values beyond
/// `Value::MATE_BOUND` encode a forced result: `MATE - n` = we win in `n` plies, `-(MATE - n)` = we lose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Value(pub i32);

impl Value {
    pub const ZERO: Value = Value(0);
    pub const DRAW: Value = Value(0);
    /// Win at the root (0 plies away).
    pub const MATE: Value = Value(30_000);
    /// Anything at or above this magnitude is a forced win or loss.
    pub const MATE_BOUND: Value = Value(29_000);
    /// Larger than any real value (an open search window bound).
    pub const INFINITE: Value = Value(30_001);

    /// Win in `plies` plies for the side to move.
    pub fn mate_in(plies: u32) -> Value {
        Value(Self::MATE.0 - plies as i32)
    }

    /// Loss in `plies` plies for the side to move.
    pub fn mated_in(plies: u32) -> Value {
        Value(-Self::MATE.0 + plies as i32)
    }

    pub fn is_mate(self) -> bool {
        self.0.abs() >= Self::MATE_BOUND.0
    }

    /// Plies to the forced result, if this is a mate value.
    pub fn mate_plies(self) -> Option<u32> {
        self.is_mate().then(|| (Self::MATE.0 - self.0.abs()) as u32)
    }
}

impl std::ops::Neg for Value {
    type Output = Value;
    fn neg(self) -> Value {
        Value(-self.0)
    }
}

impl fmt::Display for Value {
    /// `+M5` / `-M4` for forced results, the plain number otherwise (Yixin-Board style).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.mate_plies() {
            Some(n) if self.0 > 0 => write!(f, "+M{n}"),
            Some(n) => write!(f, "-M{n}"),
            None => write!(f, "{}", self.0),
        }
    }
}

/// Search depth in plies.
pub type Depth = i32;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_values_decode_as_protocol_md_recommends() {
        assert_eq!(Rule::from_protocol(0), Rule::Freestyle);
        assert_eq!(Rule::from_protocol(1), Rule::Exact);
        assert_eq!(Rule::from_protocol(2), Rule::Renju);
        assert_eq!(Rule::from_protocol(3), Rule::Exact);
        assert_eq!(Rule::from_protocol(4), Rule::Renju);
        assert_eq!(Rule::from_protocol(5), Rule::Renju);
        assert_eq!(Rule::from_protocol(6), Rule::Renju);
        assert_eq!(
            Rule::from_protocol(8),
            Rule::Caro {
                overline_wins: true
            }
        );
        assert_eq!(
            Rule::from_protocol(9),
            Rule::Caro {
                overline_wins: false
            }
        );
        for r in [
            Rule::Freestyle,
            Rule::Exact,
            Rule::Renju,
            Rule::Caro {
                overline_wins: true,
            },
            Rule::Caro {
                overline_wins: false,
            },
        ] {
            assert_eq!(Rule::from_protocol(r.to_protocol()), r);
            assert_eq!(Rule::parse(r.name()), Some(r));
            assert_eq!(Rule::parse(&r.to_protocol().to_string()), Some(r));
        }
        // Numbers with a bit no rule has are not rules (the referee must not play freestyle
        // for `--rule 16`).
        for bad in ["16", "99", "-1", "4x", ""] {
            assert_eq!(Rule::parse(bad), None, "{bad}");
        }
        assert_eq!(Rule::parse("15"), Some(Rule::from_protocol(15)));
    }

    #[test]
    fn mate_values_round_trip() {
        assert_eq!(Value::mate_in(5).mate_plies(), Some(5));
        assert_eq!(Value::mated_in(4).mate_plies(), Some(4));
        assert_eq!(Value::mate_in(5).to_string(), "+M5");
        assert_eq!(Value::mated_in(4).to_string(), "-M4");
        assert_eq!(Value(120).to_string(), "120");
        assert!(!Value(120).is_mate());
    }
}
