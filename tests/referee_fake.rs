//! The referee against misbehaving engines (`rensa-fake-engine`): every behaviour is adjudicated
//! with the right reason, and no game can hang the referee. Each game runs in a thread with a
//! deadline far above its time control.

use rensa::board::Game;
use rensa::referee::game::{
    play_game, probe_name, EngineConfig, EngineSession, GameLog, GameSettings, GameSpec,
    TimeControl,
};
use rensa::referee::process::EngineCommand;
use rensa::referee::record::{EndReason, GameRecord};
use rensa::{Color, Pos, Rule};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

const FAKE: &str = env!("CARGO_BIN_EXE_rensa-fake-engine");
/// Far above any time control used here: reaching it means the referee hung.
const HANG_GUARD: Duration = Duration::from_secs(30);

fn fast() -> TimeControl {
    TimeControl {
        turn_ms: 300,
        match_ms: 20_000,
        increment_ms: 0,
        tolerance_ms: 400,
    }
}

fn engine(name: &str, args: &[&str]) -> EngineConfig {
    EngineConfig {
        name: name.into(),
        command: EngineCommand {
            program: FAKE.into(),
            args: args.iter().map(|s| s.to_string()).collect(),
            dir: None,
            env: vec![],
            show_stderr: false,
        },
        time: fast(),
        extra_info: vec![("thread_num".into(), "1".into())],
    }
}

/// Plays one game in a thread; panics if it does not finish within [`HANG_GUARD`].
fn play(
    black: EngineConfig,
    white: EngineConfig,
    settings: GameSettings,
    opening: Vec<Pos>,
) -> (GameRecord, Duration) {
    let (tx, rx) = mpsc::channel();
    let start = Instant::now();
    std::thread::spawn(move || {
        let mut a = EngineSession::new(Arc::new(black));
        let mut b = EngineSession::new(Arc::new(white));
        let spec = GameSpec {
            game_index: 0,
            opening_index: None,
            opening,
        };
        let r = play_game(&spec, &settings, &mut a, &mut b, &mut GameLog::none());
        a.stop(Duration::from_millis(200));
        b.stop(Duration::from_millis(200));
        let _ = tx.send(r);
    });
    let r = rx
        .recv_timeout(HANG_GUARD)
        .expect("the referee hung")
        .expect("the game was not aborted");
    (r, start.elapsed())
}

fn settings() -> GameSettings {
    GameSettings::new(15, 15, Rule::Freestyle)
}

/// A record agrees with the rules oracle: replaying it gives the recorded result for games the
/// rules ended, and an unfinished legal game for faults (the offending move is not in the record).
fn assert_consistent(r: &GameRecord) {
    let g = Game::from_moves(r.width, r.height, r.rule, &r.all_moves())
        .map(|g| g.with_draw_after(None))
        .expect("recorded moves are legal");
    match r.reason {
        EndReason::Five | EndReason::Forbidden => {
            let o = g.outcome().expect("a decided game");
            assert_eq!(o.winner, r.winner, "{r:?}");
        }
        EndReason::Draw => {
            assert_eq!(r.winner, None);
        }
        _ => {
            assert!(!g.is_over(), "a fault after the game ended: {r:?}");
            assert!(r.winner.is_some());
        }
    }
}

#[test]
fn random_engines_finish_with_consistent_records() {
    for seed in 1..=3 {
        let s = seed.to_string();
        let (r, _) = play(
            engine("a", &["--seed", &s]),
            engine("b", &["--seed", &(seed + 10).to_string()]),
            settings(),
            vec![Pos::new(7, 7), Pos::new(8, 7)],
        );
        assert!(
            matches!(r.reason, EndReason::Five | EndReason::Draw),
            "{r:?}"
        );
        assert_eq!(r.opening, vec![Pos::new(7, 7), Pos::new(8, 7)]);
        assert_consistent(&r);
    }
}

#[test]
fn renju_and_caro_games_are_judged_by_the_rules_oracle() {
    for rule in [
        Rule::Renju,
        Rule::Exact,
        Rule::Caro {
            overline_wins: false,
        },
    ] {
        for seed in 1..=2 {
            let (r, _) = play(
                engine("a", &["--seed", &seed.to_string()]),
                engine("b", &["--seed", &(seed + 5).to_string()]),
                GameSettings::new(15, 15, rule),
                vec![],
            );
            assert!(
                matches!(
                    r.reason,
                    EndReason::Five | EndReason::Forbidden | EndReason::Draw
                ),
                "{r:?}"
            );
            assert_eq!(r.rule, rule);
            assert_consistent(&r);
        }
    }
}

fn assert_loss(r: &GameRecord, loser: Color, reason: EndReason, detail: &str) {
    assert_eq!(r.reason, reason, "{r:?}");
    assert_eq!(r.winner, Some(loser.opponent()), "{r:?}");
    assert!(
        r.detail.contains(detail),
        "detail '{}' lacks '{detail}'",
        r.detail
    );
    assert_consistent(r);
}

#[test]
fn crash_mid_game_is_a_crash() {
    let (r, _) = play(
        engine("a", &["--mode", "crash", "--after", "3"]),
        engine("b", &[]),
        settings(),
        vec![],
    );
    assert_loss(&r, Color::Black, EndReason::Crash, "exited");
    assert_eq!(r.moves.len(), 4);
}

#[test]
fn exit_on_start_is_a_crash() {
    let (r, _) = play(
        engine("a", &[]),
        engine("b", &["--mode", "exit-on-start"]),
        settings(),
        vec![],
    );
    assert_loss(&r, Color::White, EndReason::Crash, "when the game opened");
    assert!(r.moves.is_empty());
}

#[test]
fn missing_program_is_a_crash() {
    let mut bad = engine("a", &[]);
    bad.command.program = "/nonexistent/pbrain-nothing".into();
    let (r, _) = play(engine("b", &[]), bad, settings(), vec![]);
    assert_loss(&r, Color::White, EndReason::Crash, "could not be started");
    assert!(r.detail.ends_with("when the game opened"), "{}", r.detail);
}

#[test]
fn hanging_engine_loses_on_time_and_is_killed() {
    let (r, elapsed) = play(
        engine("a", &[]),
        engine("b", &["--mode", "hang"]),
        settings(),
        vec![],
    );
    assert_loss(&r, Color::White, EndReason::Timeout, "no answer");
    // Deadline 300 + 400 ms; the hanging process also ignores END.
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
}

#[test]
fn late_answer_is_a_time_loss() {
    let (r, _) = play(
        engine(
            "a",
            &["--mode", "late", "--after", "2", "--sleep-ms", "1500"],
        ),
        engine("b", &[]),
        settings(),
        vec![],
    );
    assert_loss(&r, Color::Black, EndReason::Timeout, "");
    assert_eq!(r.moves.len(), 2);
}

#[test]
fn match_clock_runs_out() {
    let mut slow = engine(
        "a",
        &["--mode", "late", "--after", "1", "--sleep-ms", "250"],
    );
    slow.time = TimeControl {
        turn_ms: 1000,
        match_ms: 600,
        increment_ms: 0,
        tolerance_ms: 100,
    };
    let (r, _) = play(slow, engine("b", &[]), settings(), vec![]);
    assert_loss(&r, Color::Black, EndReason::Timeout, "");
    assert!(r.moves.len() >= 2, "{r:?}");
}

#[test]
fn an_exhausted_match_clock_is_not_refilled_by_the_tolerance() {
    // Bug (audit): with the time left held at 0, every move got the whole tolerance again, and an
    // engine answering within the tolerance played on for ever.
    let mut slow = engine("a", &["--mode", "late", "--after", "1", "--sleep-ms", "60"]);
    slow.time = TimeControl {
        turn_ms: 1000,
        match_ms: 300,
        increment_ms: 0,
        tolerance_ms: 100,
    };
    let (r, _) = play(slow, engine("b", &[]), settings(), vec![]);
    assert_loss(&r, Color::Black, EndReason::Timeout, "");
    // About seven moves of 60 ms spend the 300 ms and the 100 ms tolerance.
    assert!(r.moves.len() <= 2 * 10, "{r:?}");
}

#[test]
fn occupied_point_is_illegal() {
    let (r, _) = play(
        engine("a", &[]),
        engine("b", &["--mode", "occupied", "--after", "2"]),
        settings(),
        vec![],
    );
    assert_loss(&r, Color::White, EndReason::Illegal, "occupied");
}

#[test]
fn off_board_point_is_illegal() {
    let (r, _) = play(
        engine("a", &["--mode", "off-board", "--after", "1"]),
        engine("b", &[]),
        settings(),
        vec![],
    );
    assert_loss(&r, Color::Black, EndReason::Illegal, "off the 15x15 board");
}

#[test]
fn junk_and_huge_lines_are_ignored() {
    let (r, _) = play(
        engine("a", &["--mode", "junk"]),
        engine("b", &[]),
        settings(),
        vec![],
    );
    assert!(
        matches!(r.reason, EndReason::Five | EndReason::Draw),
        "{r:?}"
    );
    assert_consistent(&r);
}

#[test]
fn output_after_the_move_is_not_the_next_move() {
    let (r, _) = play(
        engine("a", &["--mode", "print-after"]),
        engine("b", &["--mode", "print-after", "--seed", "9"]),
        settings(),
        vec![],
    );
    assert!(
        matches!(r.reason, EndReason::Five | EndReason::Draw),
        "{r:?}"
    );
    assert_consistent(&r);
}

#[test]
fn ignoring_about_gives_no_name_within_the_deadline() {
    let start = Instant::now();
    let cmd = engine("x", &["--mode", "ignore-about"]).command;
    assert_eq!(probe_name(&cmd, Duration::from_millis(300)).unwrap(), None);
    let named = engine("x", &["--name", "Fakey"]).command;
    assert_eq!(
        probe_name(&named, Duration::from_millis(5000)).unwrap(),
        Some("Fakey".into())
    );
    let mut missing = named.clone();
    missing.program = "/nonexistent/pbrain-nothing".into();
    assert!(probe_name(&missing, Duration::from_millis(300)).is_err());
    assert!(start.elapsed() < Duration::from_secs(10));
}

#[test]
fn ignoring_end_does_not_block_restarts() {
    let mut s = settings();
    s.restart_per_game = true;
    s.end_grace_ms = 100;
    let (r, elapsed) = play(
        engine("a", &["--mode", "ignore-end"]),
        engine("b", &["--mode", "ignore-end"]),
        s,
        vec![],
    );
    assert!(
        matches!(r.reason, EndReason::Five | EndReason::Draw),
        "{r:?}"
    );
    assert!(elapsed < Duration::from_secs(15), "{elapsed:?}");
}

#[test]
fn swap2_games_are_played_and_judged() {
    let mut s = settings();
    s.swap2 = true;
    for seed in 1..=4 {
        let (r, _) = play(
            engine("p", &["--seed", &seed.to_string()]),
            engine("q", &["--seed", &(seed + 20).to_string()]),
            s.clone(),
            vec![],
        );
        assert!(
            matches!(r.reason, EndReason::Five | EndReason::Draw),
            "{r:?}"
        );
        assert!(r.opening.is_empty());
        assert!(r.moves.len() >= 4, "{r:?}");
        // Three stones, then one or two more, then perhaps white's stone: all swap2 stones.
        assert!((3..=6).contains(&r.swap2_moves), "{r:?}");
        assert!(r.swap2_moves <= r.moves.len(), "{r:?}");
        assert_eq!(
            r.timed_moves().count(),
            r.moves.len() - r.swap2_moves,
            "{r:?}"
        );
        let mut names = [r.black.clone(), r.white.clone()];
        names.sort();
        assert_eq!(names, ["p".to_string(), "q".to_string()]);
        assert_consistent(&r);
    }
}

#[test]
fn bad_swap2_answer_is_illegal() {
    let mut s = settings();
    s.swap2 = true;
    let (r, _) = play(
        engine("p", &["--mode", "bad-swap2"]),
        engine("q", &[]),
        s,
        vec![],
    );
    assert_eq!(r.reason, EndReason::Illegal, "{r:?}");
    assert_eq!(r.winner_name(), Some("q"));
    assert_eq!(r.swap2_moves, r.moves.len(), "{r:?}");
    assert!(r.detail.contains("swap2"), "{}", r.detail);
    // The detail quotes the answer as the engine wrote it, not as a Rust debug dump.
    assert!(r.detail.contains("answer: '"), "{}", r.detail);
    assert!(!r.detail.contains("Stones("), "{}", r.detail);
}

#[test]
fn suspended_engines_and_board_every_move_still_play() {
    let mut s = settings();
    s.suspend = true;
    s.board_every_move = true;
    s.enforce_memory = true;
    let (r, _) = play(engine("a", &[]), engine("b", &["--seed", "4"]), s, vec![]);
    assert!(
        matches!(r.reason, EndReason::Five | EndReason::Draw),
        "{r:?}"
    );
    assert_consistent(&r);
}

#[test]
fn memory_limit_is_enforced() {
    let mut s = settings();
    s.enforce_memory = true;
    s.max_memory_bytes = 1024; // below any real process
    let (r, _) = play(engine("a", &[]), engine("b", &[]), s, vec![]);
    if cfg!(target_os = "linux") {
        assert_loss(&r, Color::Black, EndReason::Crash, "memory");
    }
}

#[test]
fn flooding_engine_loses_on_time() {
    let (r, elapsed) = play(
        engine("a", &["--mode", "flood", "--after", "2"]),
        engine("b", &[]),
        settings(),
        vec![],
    );
    assert_loss(&r, Color::Black, EndReason::Timeout, "no answer");
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
}
