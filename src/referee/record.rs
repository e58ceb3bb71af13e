//! What one finished game looks like: the unit that results, statistics, records and resume are
//! built from. Shared by the game loop (which fills it) and the statistics / record writers.

use crate::pos::Pos;
use crate::types::{Color, Rule};
use std::fmt;

/// Why a refereed game ended. The offender of a foul, time loss, crash or illegal move loses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EndReason {
    /// A winning line under the rule in force.
    Five,
    /// Black played a renju-forbidden point.
    Forbidden,
    /// A move arrived after its deadline (or never).
    Timeout,
    /// The engine process exited, closed its output, or could not be started.
    Crash,
    /// Occupied or off-board point, unparseable answer, or a bad swap2 answer.
    Illegal,
    /// Full board, the renju cut-off, or the move limit.
    Draw,
}

impl EndReason {
    pub const ALL: [EndReason; 6] = [
        EndReason::Five,
        EndReason::Forbidden,
        EndReason::Timeout,
        EndReason::Crash,
        EndReason::Illegal,
        EndReason::Draw,
    ];

    pub fn name(self) -> &'static str {
        match self {
            EndReason::Five => "five",
            EndReason::Forbidden => "forbidden",
            EndReason::Timeout => "timeout",
            EndReason::Crash => "crash",
            EndReason::Illegal => "illegal",
            EndReason::Draw => "draw",
        }
    }

    pub fn parse(s: &str) -> Option<EndReason> {
        EndReason::ALL.into_iter().find(|r| r.name() == s)
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One move of a game as the referee saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveRecord {
    pub pos: Pos,
    /// Thinking time the referee measured for this move, in ms (0 for opening stones).
    pub time_ms: u64,
}

/// A finished (or adjudicated) game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// Position of this game in the match schedule (0-based). Games `2k` and `2k + 1` are a pair:
    /// the same opening and the same two engines with colours exchanged.
    pub game_index: usize,
    /// Index of the opening in the opening list used, if any.
    pub opening_index: Option<usize>,
    /// Display names of the engines that played black and white.
    pub black: String,
    pub white: String,
    pub rule: Rule,
    pub width: usize,
    pub height: usize,
    /// The opening stones (black first), placed before the engines moved.
    pub opening: Vec<Pos>,
    /// Moves played by the engines after the opening (including, for swap2, the stones they chose).
    pub moves: Vec<MoveRecord>,
    /// How many of `moves`, from the first, the engines placed in the swap2 opening phase (0
    /// without swap2). Each of the other moves was played by the side to move: black when the
    /// stones before it are even in number.
    pub swap2_moves: usize,
    /// `None` for a draw.
    pub winner: Option<Color>,
    pub reason: EndReason,
    /// Human-readable detail, e.g. `white played 7,7 which is occupied`.
    pub detail: String,
}

impl GameRecord {
    /// Name of the winning engine, if any.
    pub fn winner_name(&self) -> Option<&str> {
        self.winner.map(|c| match c {
            Color::Black => self.black.as_str(),
            Color::White => self.white.as_str(),
        })
    }

    /// Score for the engine called `name`: 1 win, 0.5 draw, 0 loss (`None` if it did not play).
    pub fn score_of(&self, name: &str) -> Option<f64> {
        if name != self.black && name != self.white {
            return None;
        }
        Some(match self.winner_name() {
            None => 0.5,
            Some(w) if w == name => 1.0,
            Some(_) => 0.0,
        })
    }

    /// The engine name and thinking time of each move after the opening phase (the swap2
    /// stones, whose answers the engines shared out differently, are left out).
    pub fn timed_moves(&self) -> impl Iterator<Item = (&str, u64)> + '_ {
        self.moves
            .iter()
            .enumerate()
            .skip(self.swap2_moves)
            .map(move |(i, m)| {
                let name = if (self.opening.len() + i).is_multiple_of(2) {
                    self.black.as_str()
                } else {
                    self.white.as_str()
                };
                (name, m.time_ms)
            })
    }

    /// All stones in board order: opening first, then the engines' moves.
    pub fn all_moves(&self) -> Vec<Pos> {
        self.opening
            .iter()
            .copied()
            .chain(self.moves.iter().map(|m| m.pos))
            .collect()
    }
}
