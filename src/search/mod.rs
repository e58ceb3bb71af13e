//! Move search: the engine's thinking. Owns time management, the greedy baseline player and (as it
//! grows) threat search, alpha-beta and the transposition table. Never prints.

pub mod greedy;
pub mod time;
