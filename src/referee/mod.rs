//! The match referee: engine processes, the game loop and adjudication, openings, tournaments,
//! statistics and records. Judges with [`crate::board::rules`] only.
//!
//! Placeholder: the referee work fills this in.
