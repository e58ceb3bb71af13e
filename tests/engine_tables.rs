//! The engine starts building a rule's lookup tables when a game starts or the rule changes, on
//! a thread of its own: the caller (the protocol's dispatcher, whose next command may be a move
//! request with its clock running) does not wait for them, and the first search waits only if
//! they are not ready yet, on that move's clock. Its own test binary, so that no other test has
//! built any table before it looks.

use rensa::board::pattern::tables_built;
use rensa::engine::{Engine, Limits};
use rensa::Rule;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Whether the tables of `rule` are built within a generous deadline (a loaded machine).
fn built_soon(rule: Rule) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(60) {
        if tables_built(rule) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

#[test]
fn a_new_game_or_rule_starts_building_the_rule_tables_before_any_search() {
    let mut e = Engine::new();
    for rule in Rule::ALL {
        assert!(!tables_built(rule), "{rule:?} built before any game");
    }
    e.new_game(15, 15).unwrap();
    assert!(built_soon(Rule::Freestyle), "freestyle tables never built");
    for rule in &Rule::ALL[1..] {
        assert!(!tables_built(*rule), "{rule:?} built by another rule");
        e.set_rule(*rule);
        assert!(built_soon(*rule), "{rule:?} not built after set_rule");
    }
    // A search right after a change to a rule whose tables may still be building waits for them.
    let stop = AtomicBool::new(false);
    e.set_rule(Rule::Renju);
    e.new_game(15, 15).unwrap();
    let limits = Limits {
        max_depth: Some(2),
        ..Limits::default()
    };
    assert!(e.think(&limits, &stop, &mut |_| {}).best.is_some());
}
