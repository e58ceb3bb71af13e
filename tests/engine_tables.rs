//! The engine builds a rule's lookup tables when a game starts or the rule changes, not in the
//! first search, whose clock is already running. Its own test binary, so that no other test has
//! built any table before it looks.

use rensa::board::pattern::tables_built;
use rensa::engine::Engine;
use rensa::Rule;

#[test]
fn a_new_game_or_rule_builds_the_rule_tables_before_any_search() {
    let mut e = Engine::new();
    for rule in Rule::ALL {
        assert!(!tables_built(rule), "{rule:?} built before any game");
    }
    e.new_game(15, 15).unwrap();
    assert!(tables_built(Rule::Freestyle));
    for rule in &Rule::ALL[1..] {
        assert!(!tables_built(*rule), "{rule:?} built by another rule");
        e.set_rule(*rule);
        assert!(tables_built(*rule), "{rule:?} not built by set_rule");
    }
}
