//! Rensa: a Gomoku / Renju engine speaking the Gomocup (Piskvork) protocol, and a match referee.
//!
//! Data flows one way: protocol text -> [`protocol`] `Command` -> [`engine::Engine`] call ->
//! [`engine::SearchResult`] -> protocol text. The referee judges games with [`board::rules`],
//! never with the engine's search.

pub mod bench;
pub mod board;
pub mod cellnet;
pub mod engine;
pub mod eval;
pub mod openings;
pub mod pos;
pub mod protocol;
pub mod referee;
pub mod search;
pub mod tactics;
pub mod types;
pub mod zobrist;

pub use board::{Board, BoardError, Game, Outcome, Reason};
pub use engine::{Engine, Limits, SearchResult};
pub use pos::Pos;
pub use types::{Color, Rule, Value};
