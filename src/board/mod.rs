//! The rules-level board and game state.
//!
//! [`Board`] is a plain grid of cells; [`Game`] adds move history, the side to move, play/undo and
//! adjudication under a [`Rule`] using the slow, obviously correct checks in [`rules`]. The referee
//! judges with this module; the engine's fast search board lives elsewhere and is tested against it.
//! Invalid input is reported as a [`BoardError`] value, never a panic.

pub mod fast;
pub mod pattern;
pub mod rules;

use crate::pos::{Pos, MAX_SIDE, MIN_SIDE};
use crate::types::{Color, Rule};
use std::fmt;

/// What a rules-level operation could not do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardError {
    /// Width or height outside `MIN_SIDE..=MAX_SIDE`.
    BadSize { width: usize, height: usize },
    /// The coordinate does not lie on this board.
    OffBoard {
        pos: Pos,
        width: usize,
        height: usize,
    },
    /// The cell already holds a stone.
    Occupied(Pos),
    /// The game has already ended; no more moves may be played.
    GameOver,
    /// Undo on an empty history.
    NothingToUndo,
    /// Undo named a move other than the last one played.
    NotLastMove { given: Pos, last: Pos },
}

impl fmt::Display for BoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BoardError::BadSize { width, height } => write!(
                f,
                "board size {width}x{height} is not supported; sides must be {MIN_SIDE} to {MAX_SIDE} (15 and 20 are standard)"
            ),
            BoardError::OffBoard { pos, width, height } => {
                write!(f, "coordinate {pos} is outside the {width}x{height} board")
            }
            BoardError::Occupied(p) => write!(f, "square {p} is already occupied"),
            BoardError::GameOver => write!(f, "the game is already over"),
            BoardError::NothingToUndo => write!(f, "there is no move to take back"),
            BoardError::NotLastMove { given, last } => {
                write!(f, "{given} is not the last move (that was {last})")
            }
        }
    }
}

impl std::error::Error for BoardError {}

/// A grid of cells, each empty or holding a stone.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Board {
    width: usize,
    height: usize,
    cells: Vec<Option<Color>>,
    stones: usize,
}

impl Board {
    /// An empty `width` x `height` board (each side `MIN_SIDE..=MAX_SIDE`).
    pub fn new(width: usize, height: usize) -> Result<Board, BoardError> {
        let ok = |s: usize| (MIN_SIDE..=MAX_SIDE).contains(&s);
        if !ok(width) || !ok(height) {
            return Err(BoardError::BadSize { width, height });
        }
        Ok(Board {
            width,
            height,
            cells: vec![None; width * height],
            stones: 0,
        })
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    /// Number of stones on the board.
    pub fn stone_count(&self) -> usize {
        self.stones
    }

    /// Number of empty cells.
    pub fn empty_count(&self) -> usize {
        self.width * self.height - self.stones
    }

    pub fn is_full(&self) -> bool {
        self.stones == self.width * self.height
    }

    pub fn contains(&self, p: Pos) -> bool {
        (p.x as usize) < self.width && (p.y as usize) < self.height
    }

    /// `Ok(())` if `p` is on the board, else the matching error.
    pub fn check_on_board(&self, p: Pos) -> Result<(), BoardError> {
        if self.contains(p) {
            Ok(())
        } else {
            Err(BoardError::OffBoard {
                pos: p,
                width: self.width,
                height: self.height,
            })
        }
    }

    /// The stone at `p`; `None` for an empty cell or a point off the board.
    pub fn get(&self, p: Pos) -> Option<Color> {
        if self.contains(p) {
            self.cells[p.y as usize * self.width + p.x as usize]
        } else {
            None
        }
    }

    /// The cell at signed coordinates, distinguishing the outside of the board.
    pub fn cell(&self, x: i32, y: i32) -> Cell {
        if x < 0 || y < 0 || x as usize >= self.width || y as usize >= self.height {
            Cell::Outside
        } else {
            match self.cells[y as usize * self.width + x as usize] {
                None => Cell::Empty,
                Some(c) => Cell::Stone(c),
            }
        }
    }

    /// Whether `p` is on the board and empty.
    pub fn is_empty(&self, p: Pos) -> bool {
        self.contains(p) && self.get(p).is_none()
    }

    /// Puts a stone on an empty on-board cell, or fails without changing anything.
    pub fn place(&mut self, p: Pos, c: Color) -> Result<(), BoardError> {
        self.check_on_board(p)?;
        let i = p.y as usize * self.width + p.x as usize;
        if self.cells[i].is_some() {
            return Err(BoardError::Occupied(p));
        }
        self.cells[i] = Some(c);
        self.stones += 1;
        Ok(())
    }

    /// Removes the stone at `p` (no effect on an empty or off-board cell); returns what was there.
    pub fn remove(&mut self, p: Pos) -> Option<Color> {
        if !self.contains(p) {
            return None;
        }
        let i = p.y as usize * self.width + p.x as usize;
        let old = self.cells[i].take();
        if old.is_some() {
            self.stones -= 1;
        }
        old
    }

    /// Every cell of the board, row by row.
    pub fn all_cells(&self) -> impl Iterator<Item = Pos> + '_ {
        (0..self.height).flat_map(move |y| (0..self.width).map(move |x| Pos::new(x as u8, y as u8)))
    }

    /// Every empty cell, row by row.
    pub fn empty_cells(&self) -> impl Iterator<Item = Pos> + '_ {
        self.all_cells().filter(move |&p| self.get(p).is_none())
    }
}

impl fmt::Debug for Board {
    /// A text diagram: `X` black, `O` white, `.` empty; row 0 on top.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Board {}x{}", self.width, self.height)?;
        for y in 0..self.height {
            for x in 0..self.width {
                let ch = match self.get(Pos::new(x as u8, y as u8)) {
                    Some(Color::Black) => 'X',
                    Some(Color::White) => 'O',
                    None => '.',
                };
                write!(f, "{ch}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// What lies at a (possibly off-board) coordinate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    Empty,
    Stone(Color),
    Outside,
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    /// The winner made a winning line (five, under the rule in force).
    Five,
    /// Black played a renju-forbidden point (double-three, double-four or overline); white wins.
    Forbidden,
    /// No winner: the board is full or the move limit was reached.
    Draw,
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Reason::Five => "five",
            Reason::Forbidden => "forbidden",
            Reason::Draw => "draw",
        })
    }
}

/// The end of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// `None` for a draw.
    pub winner: Option<Color>,
    pub reason: Reason,
    /// Number of moves on the board when the game ended (the deciding move is move `moves`).
    pub moves: usize,
    /// The winning line for [`Reason::Five`] (in order along the line); the forbidden point for
    /// [`Reason::Forbidden`]; empty for a draw.
    pub line: Vec<Pos>,
}

/// A game in progress: board, rule, history and outcome.
#[derive(Clone, Debug)]
pub struct Game {
    board: Board,
    rule: Rule,
    moves: Vec<Pos>,
    outcome: Option<Outcome>,
    draw_after: Option<usize>,
}

impl Game {
    /// A new empty game.
    pub fn new(width: usize, height: usize, rule: Rule) -> Result<Game, BoardError> {
        Ok(Game {
            board: Board::new(width, height)?,
            rule,
            moves: Vec::new(),
            outcome: None,
            draw_after: None,
        })
    }

    /// Declares a draw once `stones` stones are on the board (a caller-given move limit).
    pub fn with_draw_after(mut self, stones: Option<usize>) -> Game {
        self.draw_after = stones;
        self
    }

    /// The Gomocup renju cut-off: a draw at `width * height - 25` stones (200 on 15x15). A board
    /// of 25 cells or fewer has none (the cut-off would leave no move to play): its games are
    /// drawn when it is full, as under the other rules.
    pub fn gomocup_draw_limit(width: usize, height: usize) -> Option<usize> {
        (width * height).checked_sub(25).filter(|&n| n > 0)
    }

    /// Replays `moves` from an empty board; stops at the first illegal move.
    pub fn from_moves(
        width: usize,
        height: usize,
        rule: Rule,
        moves: &[Pos],
    ) -> Result<Game, BoardError> {
        let mut g = Game::new(width, height, rule)?;
        for &m in moves {
            g.play(m)?;
        }
        Ok(g)
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn rule(&self) -> Rule {
        self.rule
    }

    pub fn moves(&self) -> &[Pos] {
        &self.moves
    }

    pub fn last_move(&self) -> Option<Pos> {
        self.moves.last().copied()
    }

    pub fn side_to_move(&self) -> Color {
        Color::of_ply(self.moves.len())
    }

    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// Plays `p` for the side to move and adjudicates it. A renju-forbidden move by black is
    /// accepted onto the board and ends the game as a win for white ([`Reason::Forbidden`]).
    /// Errors (off-board, occupied, game over) leave the game unchanged.
    pub fn play(&mut self, p: Pos) -> Result<Option<&Outcome>, BoardError> {
        if self.outcome.is_some() {
            return Err(BoardError::GameOver);
        }
        self.board.check_on_board(p)?;
        if self.board.get(p).is_some() {
            return Err(BoardError::Occupied(p));
        }
        let color = self.side_to_move();
        let foul = self.rule == Rule::Renju
            && color == Color::Black
            && rules::is_forbidden(&self.board, p);
        self.board.place(p, color)?;
        self.moves.push(p);
        let n = self.moves.len();
        self.outcome = if foul {
            Some(Outcome {
                winner: Some(Color::White),
                reason: Reason::Forbidden,
                moves: n,
                line: vec![p],
            })
        } else if let Some(line) = rules::winning_line(&self.board, self.rule, p) {
            Some(Outcome {
                winner: Some(color),
                reason: Reason::Five,
                moves: n,
                line,
            })
        } else if self.board.is_full() || self.draw_after.is_some_and(|d| n >= d) {
            Some(Outcome {
                winner: None,
                reason: Reason::Draw,
                moves: n,
                line: Vec::new(),
            })
        } else {
            None
        };
        Ok(self.outcome.as_ref())
    }

    /// Takes back the last move (the game is no longer over, if it was); returns it.
    pub fn undo(&mut self) -> Result<Pos, BoardError> {
        let p = self.moves.pop().ok_or(BoardError::NothingToUndo)?;
        self.board.remove(p);
        self.outcome = None;
        Ok(p)
    }

    /// Whether `p` is forbidden for black right now (always false outside renju).
    pub fn is_forbidden(&self, p: Pos) -> bool {
        self.rule == Rule::Renju && self.board.is_empty(p) && rules::is_forbidden(&self.board, p)
    }

    /// Black's forbidden points in the current position (empty outside renju).
    pub fn forbidden_points(&self) -> Vec<Pos> {
        if self.rule == Rule::Renju {
            rules::forbidden_points(&self.board)
        } else {
            Vec::new()
        }
    }
}
