//! A short real match between two `pbrain-rensa` engines through the library runner: it completes,
//! nobody faults, and the records (returned and streamed to disk) agree with the rules oracle.

use rensa::board::Game;
use rensa::openings;
use rensa::referee::game::{EngineConfig, GameSettings, TimeControl};
use rensa::referee::process::EngineCommand;
use rensa::referee::record::EndReason;
use rensa::referee::records;
use rensa::referee::runner::{run, RunConfig, Tournament};
use rensa::Rule;
use std::sync::mpsc;
use std::time::Duration;

const ENGINE: &str = env!("CARGO_BIN_EXE_pbrain-rensa");

fn engine(name: &str) -> EngineConfig {
    EngineConfig {
        name: name.into(),
        command: EngineCommand {
            program: ENGINE.into(),
            args: vec![],
            dir: None,
            env: vec![],
            show_stderr: false,
        },
        time: TimeControl {
            turn_ms: 50,
            match_ms: 3_000,
            increment_ms: 0,
            // Generous: the test suite runs on loaded machines, where a process can be starved of
            // CPU for a second; a fault here must mean a real protocol or time-control bug.
            tolerance_ms: 5_000,
        },
        extra_info: vec![],
    }
}

#[test]
fn pbrain_rensa_match_completes_with_consistent_records() {
    let out = std::env::temp_dir().join(format!("rensa-referee-match-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    for rule in [Rule::Freestyle, Rule::Renju] {
        let dir = out.join(rule.name());
        let config = RunConfig {
            engines: vec![engine("one"), engine("two")],
            tournament: Tournament::Match,
            games_per_pairing: 4,
            settings: GameSettings::new(15, 15, rule),
            openings: openings::builtin_openings(rule, 15, 15)
                .into_iter()
                .map(|o| o.moves)
                .collect(),
            shuffle_seed: Some(3),
            transform: false,
            concurrency: 2,
            out_dir: Some(dir.clone()),
            log_protocol: true,
            resume: false,
            progress: false,
        };
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(run(&config, |_| (false, String::new())));
        });
        let summary = rx
            .recv_timeout(Duration::from_secs(120))
            .expect("the match hung")
            .expect("the match ran");
        assert_eq!(summary.records.len(), 4);
        assert_eq!(summary.played_now, 4);
        for r in &summary.records {
            assert!(
                matches!(
                    r.reason,
                    EndReason::Five | EndReason::Draw | EndReason::Forbidden
                ),
                "{rule}: engine fault: {r:?}"
            );
            let g =
                Game::from_moves(r.width, r.height, r.rule, &r.all_moves()).expect("legal moves");
            let limit = (rule == Rule::Renju)
                .then(|| Game::gomocup_draw_limit(15, 15))
                .flatten();
            match g.outcome() {
                Some(o) => assert_eq!(o.winner, r.winner, "{r:?}"),
                None => assert!(
                    r.reason == EndReason::Draw && limit.is_some_and(|l| r.all_moves().len() >= l),
                    "{r:?}"
                ),
            }
        }
        // Colour-swapped pairs share their opening.
        for pair in summary.records.chunks(2) {
            assert_eq!(pair[0].opening, pair[1].opening);
            assert_eq!(pair[0].black, pair[1].white);
        }
        let text = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
        let (mut on_disk, errors) = records::read_records(&text);
        assert!(errors.is_empty(), "{errors:?}");
        on_disk.sort_by_key(|r| r.game_index);
        assert_eq!(on_disk, summary.records);
    }
    let _ = std::fs::remove_dir_all(&out);
}
