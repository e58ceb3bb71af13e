//! The match referee: engine processes, the game loop and adjudication, tournaments, statistics
//! and records (the opening books are [`crate::openings`]). Judges with [`crate::board::rules`]
//! only, never with the engine's search.

pub mod game;
pub mod process;
pub mod record;
pub mod records;
pub mod runner;
pub mod sgf;
pub mod stats;
