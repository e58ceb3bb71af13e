//! Black-box tests of the `rensa-referee` binary: runs it as a child process with a deadline.

use rensa::referee::record::EndReason;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const REFEREE: &str = env!("CARGO_BIN_EXE_rensa-referee");
const FAKE: &str = env!("CARGO_BIN_EXE_rensa-fake-engine");
/// A quiet match of two fake engines, to which a test adds its options.
const TWO_FAKES: [&str; 6] = ["match", "--engine", FAKE, "--engine", FAKE, "--quiet"];
/// A match of two fake engines named `a` and `b`; the second's spec may go on with `arg=` tokens.
const FAKES_A_AND_B: [&str; 7] = [
    "match", "--engine", FAKE, "name=a", "--engine", FAKE, "name=b",
];

/// Starts the referee with `args`, no input and its output piped.
fn spawn_referee(args: &[&str]) -> std::process::Child {
    Command::new(REFEREE)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start rensa-referee")
}

/// Runs the referee with `args`; kills it and fails if it takes longer than `limit`.
fn referee(args: &[&str], limit: Duration) -> Output {
    let mut child = spawn_referee(args);
    let start = Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            return child.wait_with_output().expect("output");
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().expect("output");
            panic!(
                "rensa-referee {args:?} hung; stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rensa-referee-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn count_files(dir: &Path) -> usize {
    std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0)
}

#[test]
fn match_of_fake_engines_writes_records_and_logs() {
    let out = temp_dir("match");
    let o = referee(
        &[
            "match",
            "--engine",
            FAKE,
            "name=one",
            "arg=--seed",
            "arg=3",
            "--engine",
            FAKE,
            "name=two",
            "--games",
            "4",
            "--concurrency",
            "2",
            "--turn-ms",
            "500",
            "--match-ms",
            "10000",
            "--log-protocol",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
        Duration::from_secs(60),
    );
    assert!(o.status.success(), "stderr: {}", text(&o.stderr));
    let stdout = text(&o.stdout);
    assert!(stdout.contains("one"), "{stdout}");
    assert!(stdout.contains("4 of 4 games recorded"), "{stdout}");
    let records = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    assert_eq!(records.lines().count(), 4);
    assert_eq!(count_files(&out.join("logs")), 4);
    // Below the results, each engine's thinking time, in stdout and results.txt alike.
    assert!(stdout.contains("clock (ms), engine"), "{stdout}");
    let results = std::fs::read_to_string(out.join("results.txt")).unwrap();
    let clock: Vec<&str> = results
        .lines()
        .skip_while(|l| !l.starts_with("clock (ms)"))
        .skip(1)
        .collect();
    assert_eq!(clock.len(), 2, "{results}");
    for line in clock {
        let longest: u64 = line.split_whitespace().nth(4).unwrap().parse().unwrap();
        assert!(longest < 10_000, "{line}");
    }
    let log = std::fs::read_to_string(out.join("logs/game-000000.log")).unwrap();
    assert!(log.contains("> START 15"), "{log}");
    assert!(log.contains("> INFO timeout_turn 500"), "{log}");
    // An existing run is not overwritten without --resume.
    let args = [&TWO_FAKES[..], &["--out", out.to_str().unwrap()]].concat();
    let again = referee(&args, Duration::from_secs(30));
    assert_eq!(again.status.code(), Some(1));
    assert!(text(&again.stderr).contains("--resume"));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn report_pools_runs_and_keeps_their_pairs() {
    let (one, two) = (temp_dir("report-one"), temp_dir("report-two"));
    for (dir, seed) in [(&one, "1"), (&two, "2")] {
        let args = [
            &FAKES_A_AND_B[..],
            &[
                "--games",
                "2",
                "--turn-ms",
                "500",
                "--match-ms",
                "10000",
                "--quiet",
            ],
            &["--seed", seed, "--out", dir.to_str().unwrap()],
        ]
        .concat();
        let o = referee(&args, Duration::from_secs(60));
        assert!(o.status.success(), "stderr: {}", text(&o.stderr));
    }
    // A half-written last line (a crashed run) is named and skipped.
    let file = two.join("games.jsonl");
    let mut records = std::fs::read_to_string(&file).unwrap();
    records.push_str("{\"game_index\":2,");
    std::fs::write(&file, records).unwrap();
    let o = referee(
        &[
            "report",
            one.to_str().unwrap(),
            file.to_str().unwrap(),
            two.to_str().unwrap(),
            "--order",
            "b,a",
        ],
        Duration::from_secs(30),
    );
    assert!(o.status.success(), "stderr: {}", text(&o.stderr));
    let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
    assert!(stdout.contains("Results of 4 games"), "{stdout}");
    assert!(stdout.contains("freestyle 15x15: 4 games"), "{stdout}");
    // Seen from b, as asked; two pairs, one from each run.
    assert!(stdout.contains("b vs a "), "{stdout}");
    assert!(stdout.contains("penta, 2 pairs"), "{stdout}");
    assert!(stderr.contains("line 3"), "{stderr}");
    assert!(stderr.contains("given twice"), "{stderr}");
    // A run that is not there is an error, not an empty table.
    let missing = one.join("nothing-here");
    let o = referee(
        &["report", missing.to_str().unwrap()],
        Duration::from_secs(30),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("cannot read"),
        "{}",
        text(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(&one);
    let _ = std::fs::remove_dir_all(&two);
}

#[test]
fn openings_at_the_draw_limit_and_sprt_outside_a_match_are_refused() {
    // Bug (audit): a draw limit no opening fits under played 0 games and exited 0, and --sprt with
    // a gauntlet was exit code 1, not the usage error's 2.
    let out = temp_dir("drawlimit");
    let args = [
        &TWO_FAKES[..],
        &[
            "--draw-after",
            "3",
            "--games",
            "2",
            "--out",
            out.to_str().unwrap(),
        ],
    ]
    .concat();
    let o = referee(&args, Duration::from_secs(30));
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("openings skipped: their stones reach the draw limit of 3"),
        "{err}"
    );
    let o = referee(
        &[
            "gauntlet",
            "--engine",
            FAKE,
            "--engine",
            FAKE,
            "--engine",
            FAKE,
            "--sprt",
            "0,10,0.05,0.05",
        ],
        Duration::from_secs(30),
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let _ = std::fs::remove_dir_all(&out);
}

/// A reused engine process that exits during the next game's START handshake is replaced by a
/// fresh one, as if it had exited before (audit, eighty-ninth session: the game was lost by
/// crash, or not, depending on when the exit came).
#[test]
fn an_engine_that_exits_between_games_is_started_afresh() {
    let out = temp_dir("exit-between");
    let mut args = FAKES_A_AND_B.to_vec();
    args.extend([
        "arg=--mode",
        "arg=exit-on-restart",
        "--games",
        "4",
        "--turn-ms",
        "300",
    ]);
    args.extend(["--quiet", "--out", out.to_str().unwrap()]);
    let o = referee(&args, Duration::from_secs(60));
    assert!(o.status.success(), "stderr: {}", text(&o.stderr));
    let records = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    let (records, errors) = rensa::referee::records::read_records(&records);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(records.len(), 4);
    for r in &records {
        assert!(
            matches!(r.reason, EndReason::Five | EndReason::Draw),
            "game {}: {:?} {}",
            r.game_index,
            r.reason,
            r.detail
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// With `dir=`, a bare program name that names a file in that directory runs that file (audit,
/// eighty-ninth session: it was looked up on PATH only and the engine failed to start).
#[test]
fn a_bare_name_with_dir_runs_the_file_in_that_directory() {
    let fake = std::path::Path::new(FAKE);
    let dir = format!("dir={}", fake.parent().unwrap().display());
    let name = fake.file_name().unwrap().to_str().unwrap();
    let out = temp_dir("bare-name");
    let mut args = vec![
        "match", "--engine", name, &dir, "--engine", FAKE, "--games", "1",
    ];
    args.extend([
        "--turn-ms",
        "300",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    let o = referee(&args, Duration::from_secs(30));
    assert!(o.status.success(), "stderr: {}", text(&o.stderr));
    assert!(out.join("games.jsonl").exists());
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn the_folder_is_sent_as_an_absolute_path() {
    // Bug (audit): a relative `--folder` was sent as given, which from an engine running in
    // another directory (`dir=`) named a folder that does not exist.
    let base = temp_dir("folder");
    let wd = base.join("wd");
    std::fs::create_dir_all(&wd).unwrap();
    let wd_spec = format!("dir={}", wd.display());
    let o = Command::new(REFEREE)
        .current_dir(&base)
        .args([
            "match",
            "--engine",
            FAKE,
            "name=a",
            &wd_spec,
            "--engine",
            FAKE,
            "name=b",
            "--games",
            "1",
            "--turn-ms",
            "300",
            "--folder",
            "fol",
            "--log-protocol",
            "--quiet",
            "--out",
            "run",
        ])
        .stdin(Stdio::null())
        .output()
        .expect("run rensa-referee");
    assert!(o.status.success(), "stderr: {}", text(&o.stderr));
    let log = std::fs::read_to_string(base.join("run/logs/game-000000.log")).unwrap();
    let want = std::fs::canonicalize(base.join("fol/a")).unwrap();
    assert!(
        log.contains(&format!("> INFO folder {}", want.display())),
        "{log}"
    );
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn round_robin_and_gauntlet_schedule_every_pairing() {
    for (kind, games) in [("round-robin", 6), ("gauntlet", 4)] {
        let out = temp_dir(kind);
        let o = referee(
            &[
                kind,
                "--engine",
                FAKE,
                "name=a",
                "--engine",
                FAKE,
                "name=b",
                "--engine",
                FAKE,
                "name=c",
                "--games",
                "2",
                "--turn-ms",
                "500",
                "--quiet",
                "--out",
                out.to_str().unwrap(),
            ],
            Duration::from_secs(60),
        );
        assert!(o.status.success(), "stderr: {}", text(&o.stderr));
        let records = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
        assert_eq!(records.lines().count(), games, "{kind}");
        let _ = std::fs::remove_dir_all(&out);
    }
}

/// Two games of a well-behaved fake engine against one run with `bad` (its `arg=` tokens), at
/// `turn_ms` a move; returns the referee's stdout (the results table).
fn against_a_bad_engine(tag: &str, bad: &[&str], turn_ms: &str, extra: &[&str]) -> String {
    let out = temp_dir(tag);
    let mut args = vec!["match", "--engine", FAKE, "name=good", "--engine", FAKE];
    args.extend(bad);
    args.extend(["name=bad", "--games", "2", "--turn-ms", turn_ms, "--quiet"]);
    args.extend(extra);
    args.extend(["--out", out.to_str().unwrap()]);
    let o = referee(&args, Duration::from_secs(60));
    assert!(o.status.success(), "stderr: {}", text(&o.stderr));
    let _ = std::fs::remove_dir_all(&out);
    text(&o.stdout)
}

#[test]
fn misbehaving_engine_loses_every_game_without_hanging() {
    let stdout = against_a_bad_engine(
        "hang",
        &["arg=--mode", "arg=hang"],
        "200",
        &["--tolerance-ms", "200"],
    );
    assert!(stdout.contains("timeout 2"), "{stdout}");
}

/// An engine that exits while a process it started still holds its output open has crashed: it
/// loses at once, not after its turn's 20 s.
#[cfg(unix)]
#[test]
fn an_engine_that_exits_leaving_a_child_loses_by_crash_at_once() {
    let start = Instant::now();
    let child_lives = ["arg=--sleep-ms", "arg=20000"];
    let mode = [
        "arg=--mode",
        "arg=crash-leaving-child",
        "arg=--after",
        "arg=1",
    ];
    let stdout = against_a_bad_engine("orphan", &[&mode[..], &child_lives].concat(), "20000", &[]);
    assert!(stdout.contains("crash 2"), "{stdout}");
    let took = start.elapsed();
    assert!(took < Duration::from_secs(15), "{took:?}");
}

#[test]
fn judge_prints_the_outcome() {
    let o = referee(&["judge", "h8h9i8i9j8j9k8k9l8"], Duration::from_secs(20));
    assert!(o.status.success());
    assert!(text(&o.stdout).contains("black wins by five at move 9"));
    let o = referee(
        &[
            "judge",
            "--rule",
            "renju",
            "--forbidden",
            "h8h9i7i9h10i6i11i12",
        ],
        Duration::from_secs(20),
    );
    assert!(o.status.success());
    let s = text(&o.stdout);
    assert!(s.contains("unfinished, black to move"), "{s}");
    assert!(s.contains("forbidden for black: 6,8"), "{s}");
    let o = referee(&["judge", "7,x"], Duration::from_secs(20));
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn usage_errors_exit_with_2() {
    let o = referee(&["match"], Duration::from_secs(20));
    assert_eq!(o.status.code(), Some(2));
    // Bad option values are usage errors too (README: exit code 2), with a message naming the
    // option, and nothing is played or written.
    for bad in [
        ["--rule", "foo"],
        ["--rule", "16"],
        ["--size", "3"],
        ["--size", "20x"],
        ["--sprt", "1,2"],
        ["--games", "0"],
        ["--concurrency", "0"],
        ["--draw-after", "0"],
    ] {
        let out = temp_dir("usage");
        let mut args = vec!["match", "--engine", FAKE, "--engine", FAKE, "--quiet"];
        args.extend(["--out", out.to_str().unwrap()]);
        args.extend(bad);
        let o = referee(&args, Duration::from_secs(20));
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
        assert!(
            text(&o.stderr).contains(bad[0]),
            "{bad:?}: {}",
            text(&o.stderr)
        );
        assert!(!out.join("games.jsonl").exists(), "{bad:?}");
        let _ = std::fs::remove_dir_all(&out);
    }
    // Swap2 places up to five stones before the game goes on: a lower draw limit would end
    // games in the opening phase and blame the engine for it (audit, eighty-ninth session).
    let out = temp_dir("usage-swap2");
    let mut args = TWO_FAKES.to_vec();
    args.extend([
        "--swap2",
        "--draw-after",
        "5",
        "--out",
        out.to_str().unwrap(),
    ]);
    let o = referee(&args, Duration::from_secs(20));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("--draw-after 5"),
        "{}",
        text(&o.stderr)
    );
    assert!(!out.join("games.jsonl").exists());
    // Moves given both ways to `judge` (the file's used to win silently).
    let o = referee(
        &["judge", "--file", "moves.txt", "7,7"],
        Duration::from_secs(20),
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("--file"), "{}", text(&o.stderr));
    // Nothing to play or judge is a runtime error (exit 1) with a message, not an empty run.
    let out = temp_dir("nothing");
    std::fs::create_dir_all(&out).unwrap();
    let only_comments = out.join("openings.txt");
    std::fs::write(&only_comments, "# no openings here\n\n").unwrap();
    let args = [
        &TWO_FAKES[..],
        &["--openings", only_comments.to_str().unwrap()],
    ]
    .concat();
    let o = referee(&args, Duration::from_secs(20));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("no opening"),
        "{}",
        text(&o.stderr)
    );
    let o = referee(&["judge"], Duration::from_secs(20));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("no moves"), "{}", text(&o.stderr));
    let _ = std::fs::remove_dir_all(&out);
    // Mistakes in the --engine specs are usage errors as well.
    let specs: [&[&str]; 5] = [
        &["--engine", FAKE],
        &["--engine", FAKE, "--engine", FAKE, "--engine", FAKE],
        &["--engine", FAKE, "turn-ms=abc", "--engine", FAKE],
        &["--engine", FAKE, "info=thread_num", "--engine", FAKE],
        // A typo of a known key is refused, not passed to the engine as an argument.
        &["--engine", FAKE, "turnms=100", "--engine", FAKE],
    ];
    for spec in specs {
        let out = temp_dir("usage-spec");
        let mut args = vec!["match", "--quiet", "--out", out.to_str().unwrap()];
        args.extend(spec);
        let o = referee(&args, Duration::from_secs(20));
        assert_eq!(o.status.code(), Some(2), "{spec:?}: {}", text(&o.stderr));
        let _ = std::fs::remove_dir_all(&out);
    }
    for bad in [["--rule", "foo"], ["--size", "99"]] {
        let o = referee(&["judge", bad[0], bad[1], "h8"], Duration::from_secs(20));
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
    }
    let o = referee(&["--help"], Duration::from_secs(20));
    assert!(o.status.success());
    assert!(text(&o.stdout).contains("round-robin"));
}

#[test]
fn resume_finishes_the_schedule_without_replaying() {
    let out = temp_dir("resume");
    let args = |extra: &[&str]| {
        let mut v: Vec<String> = [
            &FAKES_A_AND_B[..],
            &[
                "arg=--seed",
                "arg=8",
                "--games",
                "6",
                "--turn-ms",
                "500",
                "--shuffle",
                "--quiet",
                "--out",
            ],
        ]
        .concat()
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.push(out.to_str().unwrap().to_string());
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let first: Vec<String> = args(&[]);
    let first: Vec<&str> = first.iter().map(String::as_str).collect();
    let o = referee(&first, Duration::from_secs(60));
    assert!(o.status.success(), "stderr: {}", text(&o.stderr));
    let path = out.join("games.jsonl");
    let full = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = full.lines().collect();
    assert_eq!(lines.len(), 6);
    // Keep games 0, 1 and 3, plus half of game 4's line, as if the run had been killed.
    let kept = format!(
        "{}\n{}\n{}\n{}",
        lines[0],
        lines[1],
        lines[3],
        &lines[4][..40]
    );
    std::fs::write(&path, kept).unwrap();
    // Games played under other settings are not mixed into the run: another rule (the records
    // say which), another clock or other engine options (the settings file says which).
    let settings = std::fs::read_to_string(out.join("settings.txt")).unwrap();
    assert!(settings.contains("rule freestyle") && settings.contains("turn 500 ms"));
    for (from, to) in [("", "--rule=standard"), ("500", "400"), ("arg=8", "arg=9")] {
        let mut changed: Vec<String> = args(&["--resume"]);
        match changed.iter().position(|a| a == from) {
            Some(at) => changed[at] = to.into(),
            None => changed.push(to.into()),
        }
        let changed: Vec<&str> = changed.iter().map(String::as_str).collect();
        let o = referee(&changed, Duration::from_secs(60));
        assert_eq!(o.status.code(), Some(1), "{to}: {}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains("resume with the same options"),
            "{to}: {}",
            text(&o.stderr)
        );
    }
    let resumed: Vec<String> = args(&["--resume"]);
    let resumed: Vec<&str> = resumed.iter().map(String::as_str).collect();
    let o = referee(&resumed, Duration::from_secs(60));
    assert!(o.status.success(), "stderr: {}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("6 of 6 games recorded (3 played now"),
        "{}",
        text(&o.stdout)
    );
    let text_now = std::fs::read_to_string(&path).unwrap();
    let (records, errors) = rensa::referee::records::read_records(&text_now);
    assert!(errors.is_empty(), "{errors:?}");
    let mut indexes: Vec<usize> = records.iter().map(|r| r.game_index).collect();
    indexes.sort();
    assert_eq!(indexes, [0, 1, 2, 3, 4, 5]);
    // The same (shuffled, seed kept in the output dir) schedule: openings agree with the first run.
    let (before, _) = rensa::referee::records::read_records(&full);
    for r in &records {
        let b = before
            .iter()
            .find(|b| b.game_index == r.game_index)
            .unwrap();
        assert_eq!((&r.opening, &r.black), (&b.opening, &b.black));
    }
    assert_eq!(count_files(&out.join("sgf")), 6);
    // Fewer games than were recorded: refused with a message that says so, the records kept.
    let mut fewer: Vec<String> = args(&["--resume"]);
    let at = fewer.iter().position(|a| a == "6").unwrap();
    fewer[at] = "2".into();
    let fewer: Vec<&str> = fewer.iter().map(String::as_str).collect();
    let o = referee(&fewer, Duration::from_secs(60));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("can add games, not drop them"),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text_now);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_closed_output_pipe_does_not_stop_the_run() {
    // `rensa-referee match ... 2>&1 | head -1`: the reader goes away at once; the games are
    // still played and the results file written, and the referee exits normally.
    let out = temp_dir("closed-pipe");
    let mut args = TWO_FAKES.to_vec();
    args.extend([
        "--games",
        "2",
        "--turn-ms",
        "500",
        "--out",
        out.to_str().unwrap(),
    ]);
    let mut child = Command::new(REFEREE)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start rensa-referee");
    drop(child.stdout.take());
    drop(child.stderr.take());
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("rensa-referee hung with its output closed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
    let games = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    assert_eq!(games.lines().count(), 2);
    assert!(out.join("results.txt").exists());
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn sprt_stops_a_one_sided_match_early() {
    let out = temp_dir("sprt");
    let o = referee(
        &[
            "match",
            "--engine",
            FAKE,
            "name=good",
            "--engine",
            FAKE,
            "name=crashy",
            "arg=--mode",
            "arg=crash",
            "arg=--after",
            "arg=1",
            "--games",
            "400",
            "--sprt",
            "0,20,0.05,0.05",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
        Duration::from_secs(120),
    );
    assert!(o.status.success(), "stderr: {}", text(&o.stderr));
    let stdout = text(&o.stdout);
    assert!(stdout.contains("H1 accepted"), "{stdout}");
    let n = std::fs::read_to_string(out.join("games.jsonl"))
        .unwrap()
        .lines()
        .count();
    // The test decides on complete colour-swapped pairs, and no game is started after it has.
    assert!(n < 400 && n.is_multiple_of(2), "{n} games");
    let bad = referee(
        &[
            "match",
            "--engine",
            FAKE,
            "--engine",
            FAKE,
            "--sprt",
            "10,0,0.05,0.05",
        ],
        Duration::from_secs(20),
    );
    assert_eq!(bad.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn swap2_match_runs_from_the_command_line() {
    let out = temp_dir("swap2");
    let o = referee(
        &[
            "match",
            "--engine",
            FAKE,
            "name=p",
            "--engine",
            FAKE,
            "name=q",
            "arg=--seed",
            "arg=6",
            "--swap2",
            "--rule",
            "standard",
            "--games",
            "4",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
        Duration::from_secs(60),
    );
    assert!(o.status.success(), "stderr: {}", text(&o.stderr));
    let (records, errors) = rensa::referee::records::read_records(
        &std::fs::read_to_string(out.join("games.jsonl")).unwrap(),
    );
    assert!(errors.is_empty() && records.len() == 4, "{errors:?}");
    assert!(records
        .iter()
        .all(|r| r.opening.is_empty() && r.moves.len() >= 4 && r.swap2_moves >= 3));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn demo_plays_a_short_match() {
    let out = temp_dir("demo");
    let o = referee(
        &["demo", "--out", out.to_str().unwrap()],
        Duration::from_secs(120),
    );
    assert!(o.status.success(), "stderr: {}", text(&o.stderr));
    let stdout = text(&o.stdout);
    assert!(stdout.contains("4 of 4 games recorded"), "{stdout}");
    let (records, errors) = rensa::referee::records::read_records(
        &std::fs::read_to_string(out.join("games.jsonl")).unwrap(),
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(records.len(), 4);
    let _ = std::fs::remove_dir_all(&out);
}

/// Without `--out`, runs started in the same directory within one second get directories of
/// their own (`rensa-match-<secs>`, then `-2`, ...), where the second used to refuse to start.
/// The second run is a renju match on 5x5, where Gomocup's cut-off (`size² − 25` stones) would be
/// 0: there is none, so its games are played to the end.
#[test]
fn runs_without_out_get_their_own_directories() {
    let cwd = temp_dir("default-out");
    std::fs::create_dir_all(&cwd).unwrap();
    let run = |extra: &[&str]| {
        let o = Command::new(REFEREE)
            .args([&TWO_FAKES[..], &["--games", "2", "--turn-ms", "100"], extra].concat())
            .current_dir(&cwd)
            .stdin(Stdio::null())
            .output()
            .expect("run rensa-referee");
        assert!(o.status.success(), "{extra:?}: {}", text(&o.stderr));
    };
    // Up to three runs, so that two of them start within the same second.
    for extra in [&[][..], &["--rule", "renju", "--size", "5"], &[]] {
        run(extra);
    }
    let mut dirs: Vec<String> = std::fs::read_dir(&cwd)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    assert_eq!(dirs.len(), 3, "{dirs:?}");
    assert!(
        dirs.iter().all(|d| d.starts_with("rensa-match-")),
        "{dirs:?}"
    );
    let mut played_5x5 = false;
    for d in &dirs {
        let text = std::fs::read_to_string(cwd.join(d).join("games.jsonl")).unwrap();
        let (records, errors) = rensa::referee::records::read_records(&text);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(records.len(), 2, "{d}");
        for r in records.iter().filter(|r| r.width == 5) {
            played_5x5 = true;
            assert!(!r.moves.is_empty(), "{d}: no move was played");
        }
    }
    assert!(played_5x5, "{dirs:?}");
    let _ = std::fs::remove_dir_all(&cwd);
}

/// The cmdlines of the running processes that contain `marker`.
#[cfg(target_os = "linux")]
fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(c) = std::fs::read(e.path().join("cmdline")) {
            let c = String::from_utf8_lossy(&c).replace('\0', " ");
            if c.contains(marker) {
                found.push(c);
            }
        }
    }
    found
}

/// A second Ctrl-C exits at once and still kills the engines, which run in process groups of
/// their own that a terminal's signal does not reach (audit, eighty-ninth session: they were
/// left running).
#[cfg(target_os = "linux")]
#[test]
fn a_second_sigint_exits_at_once_and_kills_the_engines() {
    let out = temp_dir("second-sigint");
    let marker = format!("{}", 8_000_000 + std::process::id());
    let seed = format!("arg={marker}");
    let mut args = vec!["match", "--engine", FAKE, "name=a", "arg=--mode"];
    args.extend([
        "arg=ignore-end",
        "arg=--seed",
        &seed,
        "--engine",
        FAKE,
        "name=b",
    ]);
    args.extend([
        "arg=--mode",
        "arg=hang",
        "arg=--seed",
        &seed,
        "--games",
        "4",
    ]);
    args.extend([
        "--turn-ms",
        "20000",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    // The engines' own command lines (the referee's holds the marker too).
    let engines = || {
        processes_with(&marker)
            .into_iter()
            .filter(|c| c.starts_with(FAKE))
            .collect::<Vec<_>>()
    };
    let mut child = spawn_referee(&args);
    let start = Instant::now();
    while engines().len() < 2 && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(engines().len(), 2, "both engines running: {:?}", engines());
    std::thread::sleep(Duration::from_millis(300));
    for _ in 0..2 {
        // SAFETY: kill(2) on our own child's pid.
        assert_eq!(
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) },
            0
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        assert!(start.elapsed() < Duration::from_secs(3), "still running");
        std::thread::sleep(Duration::from_millis(20));
    }
    let start = Instant::now();
    while !engines().is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "left {:?}",
            engines()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[cfg(target_os = "linux")]
#[test]
fn sigint_and_sigterm_stop_the_run_and_kill_the_engines() {
    for (sig, code) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        let out = temp_dir(&format!("signal{sig}"));
        // A marker no other process carries: the hanging engine's own seed.
        let marker = format!("{}", 7_000_000 + std::process::id() * 2 + sig as u32);
        let seed = format!("arg={marker}");
        let mut args = FAKES_A_AND_B.to_vec();
        args.extend([
            "arg=--mode",
            "arg=hang",
            "arg=--seed",
            &seed,
            "--games",
            "4",
            "--turn-ms",
            "20000",
            "--quiet",
            "--out",
        ]);
        args.push(out.to_str().unwrap());
        let mut child = spawn_referee(&args);
        // Wait until the hanging engine runs, then signal the referee alone.
        let start = Instant::now();
        while processes_with(&marker).is_empty() && start.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(500));
        // SAFETY: kill(2) on our own child's pid.
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, sig) }, 0);
        let start = Instant::now();
        while child.try_wait().expect("wait").is_none() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "signal {sig}: still running"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let o = child.wait_with_output().expect("output");
        assert_eq!(o.status.code(), Some(code), "{}", text(&o.stderr));
        // The hint repeats the whole command: the engines and options a resume needs.
        let hint = text(&o.stderr)
            .lines()
            .find(|l| l.contains("interrupted; continue with:"))
            .map(str::to_string)
            .unwrap_or_else(|| panic!("no resume hint: {}", text(&o.stderr)));
        assert!(
            hint.contains(" match --engine ") && hint.contains("arg=--mode arg=hang"),
            "{hint}"
        );
        assert!(hint.trim_end().ends_with("--resume"), "{hint}");
        let start = Instant::now();
        while !processes_with(&marker).is_empty() {
            assert!(
                start.elapsed() < Duration::from_secs(5),
                "signal {sig} left {:?}",
                processes_with(&marker)
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = std::fs::remove_dir_all(&out);
    }
}
