//! The engine facade: game state in, moves out, no text I/O.
//!
//! The protocol layer translates commands into calls on [`Engine`] and [`SearchResult`]s back into
//! text; the search never sees the protocol. `think` may run on its own thread while another thread
//! sets the shared stop flag.

use crate::board::{BoardError, Game};
use crate::pos::Pos;
use crate::search;
use crate::types::{Depth, Rule, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// What limits one search. `None` always means "no limit of this kind".
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// Per-move limit in ms (`INFO timeout_turn`); `Some(0)` = answer at once.
    pub turn_time_ms: Option<u64>,
    /// Whole-game budget in ms (`INFO timeout_match`; 0 is sent as `None`).
    pub match_time_ms: Option<u64>,
    /// Remaining match time in ms (`INFO time_left`; may be negative; 2147483647 = unlimited).
    pub time_left_ms: Option<i64>,
    /// Node cap (`INFO max_node`).
    pub max_nodes: Option<u64>,
    /// Depth cap in plies (`INFO max_depth`).
    pub max_depth: Option<Depth>,
    /// Playing strength 0..=100 (`INFO strength`); 100 = full strength.
    pub strength: u32,
    /// Search threads (`INFO thread_num`).
    pub threads: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            turn_time_ms: None,
            match_time_ms: None,
            time_left_ms: None,
            max_nodes: None,
            max_depth: None,
            strength: 100,
            threads: 1,
        }
    }
}

/// Progress of a running search (one line of analysis for GUIs that ask for it).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchInfo {
    pub depth: Depth,
    pub seldepth: Depth,
    pub nodes: u64,
    pub elapsed_ms: u64,
    pub value: Value,
    pub pv: Vec<Pos>,
}

/// The answer of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The move to play; `None` only when the board has no empty cell.
    pub best: Option<Pos>,
    /// Value for the side to move.
    pub value: Value,
    pub depth: Depth,
    pub nodes: u64,
    pub elapsed_ms: u64,
    /// Principal variation, starting with `best`.
    pub pv: Vec<Pos>,
}

/// Default hash memory when the manager sets no `max_memory` (Gomocup's cap is 350 MiB).
pub const DEFAULT_MEMORY_BYTES: u64 = 350 * 1024 * 1024;

/// A game position plus the search machinery.
#[derive(Debug)]
pub struct Engine {
    game: Game,
    rule: Rule,
    memory_bytes: u64,
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new()
    }
}

impl Engine {
    /// An engine with an empty 15x15 freestyle game.
    pub fn new() -> Engine {
        Engine {
            game: Game::new(15, 15, Rule::Freestyle).expect("15x15 is valid"),
            rule: Rule::Freestyle,
            memory_bytes: DEFAULT_MEMORY_BYTES,
        }
    }

    /// Starts a fresh empty game of the given size under the current rule.
    pub fn new_game(&mut self, width: usize, height: usize) -> Result<(), BoardError> {
        self.game = Game::new(width, height, self.rule)?;
        Ok(())
    }

    /// Changes the rule; the current position is kept (replayed under the new rule when possible,
    /// otherwise the board is cleared).
    pub fn set_rule(&mut self, rule: Rule) {
        if rule == self.rule {
            return;
        }
        self.rule = rule;
        let b = self.game.board();
        let (w, h) = (b.width(), b.height());
        let moves = self.game.moves().to_vec();
        self.game = Game::from_moves(w, h, rule, &moves)
            .unwrap_or_else(|_| Game::new(w, h, rule).expect("size was valid"));
    }

    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// The memory the whole process may use, in bytes (`INFO max_memory`; 0 = no cap, which is
    /// treated as [`DEFAULT_MEMORY_BYTES`]). The search sizes its tables from it.
    pub fn set_memory_limit(&mut self, bytes: u64) {
        self.memory_bytes = if bytes == 0 {
            DEFAULT_MEMORY_BYTES
        } else {
            bytes
        };
    }

    pub fn memory_limit(&self) -> u64 {
        self.memory_bytes
    }

    /// Empties the transposition tables (`yxhashclear`).
    pub fn clear_hash(&mut self) {}

    /// The current game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Plays a move for the side to move.
    pub fn play(&mut self, p: Pos) -> Result<(), BoardError> {
        self.game.play(p).map(|_| ())
    }

    /// Takes back the last move.
    pub fn undo(&mut self) -> Result<Pos, BoardError> {
        self.game.undo()
    }

    /// Searches the current position for the side to move until a limit is reached or `stop` is
    /// set, reporting progress through `on_info`. Always returns a legal move when one exists.
    pub fn think(
        &mut self,
        limits: &Limits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let start = Instant::now();
        let _budget = search::time::budget(limits, self.empty_cells());
        let _ = stop.load(Ordering::Relaxed);
        // Placeholder until the real search lands: the greedy baseline player.
        let best = search::greedy::best_move(&self.game);
        let result = SearchResult {
            best,
            value: Value::ZERO,
            depth: 1,
            nodes: 1,
            elapsed_ms: start.elapsed().as_millis() as u64,
            pv: best.into_iter().collect(),
        };
        on_info(&SearchInfo {
            depth: result.depth,
            seldepth: result.depth,
            nodes: result.nodes,
            elapsed_ms: result.elapsed_ms,
            value: result.value,
            pv: result.pv.clone(),
        });
        result
    }

    fn empty_cells(&self) -> usize {
        let b = self.game.board();
        b.width() * b.height() - b.stone_count()
    }
}

impl Engine {
    /// Multi-PV analysis (`yxnbest N`): up to `n` best moves, best first, each with its own value
    /// and principal variation. Placeholder: the greedy move only, until the search lands.
    pub fn think_nbest(
        &mut self,
        limits: &Limits,
        n: usize,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> Vec<SearchResult> {
        let _ = n;
        vec![self.think(limits, stop, on_info)]
    }
}
