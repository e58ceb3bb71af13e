//! The shipped tactical suites: every entry parses and is verified by the VCF prover, the
//! runner gives a result for entries run with the current engine (whether it solves them in a
//! given time is a measurement, not a test), and the engine's root VCF answers every `win`
//! entry with a shortest win when bounded by nodes instead of time.

use rensa::tactics::{self, Kind};

#[test]
fn every_shipped_suite_parses_and_verifies() {
    for (name, text) in tactics::SHIPPED_SUITES {
        let entries = tactics::parse_suite(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            entries.len() >= 15,
            "{name}: only {} entries",
            entries.len()
        );
        assert!(
            entries.iter().any(|e| e.kind == Kind::Win)
                && entries.iter().any(|e| e.kind == Kind::Defend),
            "{name}: needs both win and defend entries"
        );
    }
    // One thread per suite: verification is the slowest test of the crate.
    let results: Vec<(&str, Result<usize, Vec<String>>)> = std::thread::scope(|s| {
        let handles: Vec<_> = tactics::SHIPPED_SUITES
            .iter()
            .map(|&(name, text)| s.spawn(move || (name, tactics::verify_suite(text))))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut total = 0;
    let mut failures = Vec::new();
    for (name, r) in results {
        match r {
            Ok(n) => total += n,
            Err(errs) => failures.extend(errs.into_iter().map(|e| format!("{name}: {e}"))),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(total >= 75, "only {total} entries");
}

#[test]
fn runner_reports_every_entry() {
    let text = tactics::SHIPPED_SUITES[0].1;
    let entries = tactics::parse_suite(text).unwrap();
    let some: Vec<_> = entries.into_iter().take(3).collect();
    let mut seen = 0;
    let summary = tactics::run_suite(&some, 200, &mut |_, _| seen += 1);
    assert_eq!((summary.total, seen, summary.results.len()), (3, 3, 3));
    for (e, r) in some.iter().zip(&summary.results) {
        assert_eq!(r.id, e.id);
        assert!(r.error.is_none(), "{}: {:?}", e.id, r.error);
        assert!(r.best.is_some(), "{}: no move", e.id);
        assert_eq!(r.solved, e.answers.contains(&r.best.unwrap()));
    }
    assert!(summary.solved <= summary.total && summary.median_ms <= summary.max_ms);
}

#[test]
fn cli_runs_a_suite_file() {
    let dir = std::env::temp_dir().join(format!("rensa-tactics-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("one.txt");
    std::fs::write(
        &file,
        "# one entry\nopen3 | freestyle | 15x15 | h8h9i8i9j8j9 | win | 6,7 10,7 | 3 | open three\n",
    )
    .unwrap();
    let args = vec![
        "--time-ms".to_string(),
        "100".to_string(),
        file.to_string_lossy().into_owned(),
    ];
    let out = tactics::cli(&args).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert!(out.contains("open3"), "{out}");
    assert!(out.contains("total: solved"), "{out}");
}

/// A fresh engine (32 MiB) at the entry's position.
fn engine_at(e: &tactics::Entry) -> rensa::engine::Engine {
    let mut engine = rensa::engine::Engine::new();
    engine.set_rule(e.rule);
    engine.set_memory_limit(32 << 20);
    engine.new_game(e.width, e.height).unwrap();
    for &m in &e.moves {
        engine.play(m).unwrap();
    }
    engine
}

/// Searches every entry of `kind` in the shipped suites with `limits` from a fresh engine, and
/// returns the failures `check` reports (a line each, with the suite and entry named) and how
/// many entries were searched.
fn search_each(
    kind: Kind,
    limits: &rensa::engine::Limits,
    check: impl Fn(&tactics::Entry, &rensa::engine::SearchResult) -> Option<String>,
) -> (Vec<String>, usize) {
    let mut failures = Vec::new();
    let mut checked = 0;
    for (name, text) in tactics::SHIPPED_SUITES {
        for e in tactics::parse_suite(text).unwrap() {
            if e.kind != kind {
                continue;
            }
            let r = engine_at(&e).think(
                limits,
                &std::sync::atomic::AtomicBool::new(false),
                &mut |_| {},
            );
            if let Some(why) = check(&e, &r) {
                failures.push(format!("{name} {}: {why}", e.id));
            }
            checked += 1;
        }
    }
    (failures, checked)
}

/// Every `win` entry (a VCF) is answered with a first move of a shortest win and reported as a
/// win in exactly the entry's plies: the root VCF shortens the first win it finds. Node-bounded
/// searches, no clock, so the result is the same on any machine.
#[test]
fn root_vcf_answers_every_win_entry_with_a_shortest_win() {
    use rensa::engine::Limits;
    use rensa::Value;
    let limits = Limits {
        max_nodes: Some(400_000),
        max_depth: Some(4),
        ..Limits::default()
    };
    let (failures, checked) = search_each(Kind::Win, &limits, |e, r| {
        let plies = e.plies.expect("win entries give their plies");
        let ok = r.best.is_some_and(|b| e.answers.contains(&b)) && r.value == Value::mate_in(plies);
        (!ok).then(|| {
            format!(
                "move {:?} value {} (answers {:?}, win in {plies})",
                r.best, r.value, e.answers
            )
        })
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 40, "only {checked} win entries");
}

/// With the root's VCF defence on (knob `vcfdef`, off by default), every `defend` entry (the
/// opponent threatens a VCF) is answered with one of its defences by a shallow, node-bounded
/// search: the root leaves out the moves after which the opponent still has a VCF, whatever the
/// main search would have had time to see.
#[test]
fn root_defence_answers_every_defend_entry() {
    use rensa::engine::Limits;
    use rensa::search::alphabeta::{set_tuning, Tuning};
    // The knobs are per thread: this test's searches run on its own.
    let nodes = rensa::search::ROOT_VCF_DEFENCE_NODES;
    set_tuning(Tuning::parse(&format!("vcfdef={nodes}")).unwrap());
    let limits = Limits {
        max_nodes: Some(2_000_000),
        max_depth: Some(2),
        ..Limits::default()
    };
    let (failures, checked) = search_each(Kind::Defend, &limits, |e, r| {
        (!r.best.is_some_and(|b| e.answers.contains(&b)))
            .then(|| format!("move {:?} (answers {:?})", r.best, e.answers))
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 30, "only {checked} defend entries");
}
