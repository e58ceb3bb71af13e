//! `pbrain-rensa bench`: fixed positions searched to a fixed depth; the node count is the
//! signature recorded in every commit that changes the search.
//!
//! Placeholder: the real position list arrives with the search work.

/// Runs the benchmark and returns the report text (total nodes, nodes per second, signature).
pub fn run() -> String {
    "Bench: 0 nodes (placeholder: the search has not landed yet)".to_string()
}
