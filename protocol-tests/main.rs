//! Black-box protocol tests: replays the transcript files in `protocol-tests/transcripts/` against
//! the built `pbrain-rensa` (or any brain named by `RENSA_BRAIN`). See `protocol-tests/README.md`
//! for the format. Every wait has a deadline, so a broken brain fails the test instead of hanging.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Default per-expectation deadline (generous: debug builds on a loaded 2-core machine).
const DEFAULT_TIMEOUT_MS: u64 = 10_000;
/// Default wait for the brain to exit at the end of a transcript.
const DEFAULT_EXIT_MS: u64 = 5_000;
/// Most transcripts replayed at once.
const PARALLEL: usize = 4;

fn brain() -> PathBuf {
    match std::env::var_os("RENSA_BRAIN") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_BIN_EXE_pbrain-rensa")),
    }
}

fn transcripts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol-tests/transcripts")
}

/// One output line of the brain, or the end of its stdout.
enum Out {
    Line(String),
    Eof,
}

/// The board the harness tracks to judge `< move` expectations.
#[derive(Default)]
struct Tracked {
    width: usize,
    height: usize,
    stones: HashSet<(i64, i64)>,
    /// Stones of the BOARD / YXBOARD block being sent.
    block: Option<Vec<(i64, i64)>>,
}

fn parse_xy(s: &str) -> Option<(i64, i64)> {
    let mut it = s.trim().split(',');
    let x = it.next()?.trim().parse().ok()?;
    let y = it.next()?.trim().parse().ok()?;
    Some((x, y))
}

impl Tracked {
    /// Follows a line sent to the brain.
    fn sent(&mut self, line: &str) {
        let t = line.trim();
        let lower = t.to_ascii_lowercase();
        let mut words = lower.split_whitespace();
        let first = words.next().unwrap_or("");
        if let Some(block) = self.block.as_mut() {
            for tok in t.split_whitespace() {
                if tok.eq_ignore_ascii_case("done") {
                    self.stones = self.block.take().unwrap_or_default().into_iter().collect();
                    return;
                }
                if let Some(p) = parse_xy(tok) {
                    block.push(p);
                }
            }
            return;
        }
        match first {
            "start" | "rectstart" => {
                let rest = t[first.len()..].trim();
                let (w, h) = match parse_xy(rest) {
                    Some((w, h)) => (w, h),
                    None => {
                        let n = rest.parse().unwrap_or(0);
                        (n, n)
                    }
                };
                self.width = w.max(0) as usize;
                self.height = h.max(0) as usize;
                self.stones.clear();
            }
            "restart" => self.stones.clear(),
            "turn" | "play" => {
                if let Some(p) = parse_xy(&t[first.len()..]) {
                    self.stones.insert(p);
                }
            }
            "takeback" => {
                if let Some(p) = parse_xy(&t[first.len()..]) {
                    self.stones.remove(&p);
                }
            }
            "board" | "yxboard" => {
                self.block = Some(Vec::new());
                let rest = t[first.len()..].to_string();
                self.sent(&rest);
            }
            _ => {}
        }
    }

    /// Checks that `line` is exactly `x,y`, on the board and on an empty cell; records it.
    fn check_move(&mut self, line: &str) -> Result<(), String> {
        let shape_ok = {
            let parts: Vec<&str> = line.split(',').collect();
            parts.len() == 2
                && parts
                    .iter()
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        };
        if !shape_ok {
            return Err(format!("'{line}' is not exactly x,y"));
        }
        let p = parse_xy(line).ok_or_else(|| format!("'{line}' is not x,y"))?;
        if p.0 < 0 || p.1 < 0 || p.0 >= self.width as i64 || p.1 >= self.height as i64 {
            return Err(format!(
                "{line} is off the {}x{} board",
                self.width, self.height
            ));
        }
        if !self.stones.insert(p) {
            return Err(format!("{line} is already occupied"));
        }
        Ok(())
    }
}

/// A running brain.
struct Brain {
    child: Child,
    stdin: Option<ChildStdin>,
    out: Receiver<Out>,
    /// A line read ahead by `<*` and not consumed.
    pushed: Option<String>,
    /// A `! signal STOP` was sent (resume before killing).
    stopped: bool,
}

impl Brain {
    fn spawn() -> Result<Brain, String> {
        let path = brain();
        let mut child = Command::new(&path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .env_remove("RUST_LOG")
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", path.display()))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut buf = Vec::new();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => {
                        let _ = tx.send(Out::Eof);
                        return;
                    }
                    Ok(_) => {
                        let text = String::from_utf8_lossy(&buf);
                        let line = text.trim_end_matches(['\n', '\r']).to_string();
                        if tx.send(Out::Line(line)).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let stdin = child.stdin.take();
        Ok(Brain {
            child,
            stdin,
            out: rx,
            pushed: None,
            stopped: false,
        })
    }

    fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
        let stdin = self.stdin.as_mut().ok_or("stdin already closed")?;
        stdin
            .write_all(bytes)
            .and_then(|_| stdin.flush())
            .map_err(|e| format!("write to the brain failed: {e}"))
    }

    fn next(&mut self, timeout: Duration) -> Result<Out, String> {
        if let Some(l) = self.pushed.take() {
            return Ok(Out::Line(l));
        }
        match self.out.recv_timeout(timeout) {
            Ok(o) => Ok(o),
            Err(RecvTimeoutError::Timeout) => {
                Err(format!("no output within {} ms", timeout.as_millis()))
            }
            Err(RecvTimeoutError::Disconnected) => Ok(Out::Eof),
        }
    }

    fn wait_exit(&mut self, timeout: Duration) -> Result<(), String> {
        let deadline = Instant::now() + timeout;
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) => return Ok(()),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                Ok(None) => {
                    return Err(format!(
                        "the brain did not exit within {} ms",
                        timeout.as_millis()
                    ))
                }
                Err(e) => return Err(format!("waiting for the brain: {e}")),
            }
        }
    }

    #[cfg(unix)]
    fn signal(&self, name: &str) -> Result<(), String> {
        let status = Command::new("kill")
            .arg(format!("-{name}"))
            .arg(self.child.id().to_string())
            .stderr(Stdio::null())
            .status()
            .map_err(|e| format!("kill: {e}"))?;
        status
            .success()
            .then_some(())
            .ok_or_else(|| format!("kill -{name} failed"))
    }

    #[cfg(not(unix))]
    fn signal(&self, _name: &str) -> Result<(), String> {
        Err("signals need unix".into())
    }
}

impl Drop for Brain {
    fn drop(&mut self) {
        if self.stopped {
            let _ = self.signal("CONT");
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Decodes `\r`, `\n`, `\t`, `\\` and `\xHH` escapes of a `! raw` directive.
fn unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            match b[i + 1] {
                b'r' => out.push(b'\r'),
                b'n' => out.push(b'\n'),
                b't' => out.push(b'\t'),
                b'\\' => out.push(b'\\'),
                b'x' if i + 3 < b.len() => {
                    let hex = std::str::from_utf8(&b[i + 2..i + 4]).unwrap_or("");
                    match u8::from_str_radix(hex, 16) {
                        Ok(v) => {
                            out.push(v);
                            i += 4;
                            continue;
                        }
                        Err(_) => out.extend_from_slice(b"\\x"),
                    }
                }
                other => {
                    out.push(b'\\');
                    out.push(other);
                }
            }
            i += 2;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// Whether `got` matches the expectation `exp`: `/regex/` or exact text.
fn matches(exp: &str, got: &str) -> Result<bool, String> {
    if exp.len() >= 2 && exp.starts_with('/') && exp.ends_with('/') {
        let re = regex_lite::Regex::new(&exp[1..exp.len() - 1])
            .map_err(|e| format!("bad regex {exp}: {e}"))?;
        Ok(re.is_match(got))
    } else {
        Ok(got == exp)
    }
}

/// Replays one transcript; `Err` holds a readable report.
fn replay(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("read: {e}"))?;
    if !cfg!(unix) && text.lines().any(|l| l.trim_start().starts_with("! signal")) {
        return Ok(());
    }
    let mut brain = Brain::spawn()?;
    let mut eol: &[u8] = b"\n";
    let mut timeout = Duration::from_millis(DEFAULT_TIMEOUT_MS);
    let mut board = Tracked::default();
    let mut log: Vec<String> = Vec::new();
    let mut exited = false;
    // The last move accepted by `< move`, substituted for `$last` in sent lines.
    let mut last_move = String::new();
    let fail = |n: usize, why: String, log: &[String]| -> String {
        let tail: Vec<&String> = log
            .iter()
            .rev()
            .take(12)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let mut s = format!("line {n}: {why}\n  last exchange:\n");
        for l in tail {
            s.push_str("    ");
            s.push_str(l);
            s.push('\n');
        }
        s
    };
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(sent) = line
            .strip_prefix("> ")
            .or_else(|| (line == ">").then_some(""))
        {
            let sent = &sent.replace("$last", &last_move);
            board.sent(sent);
            let mut bytes = sent.as_bytes().to_vec();
            bytes.extend_from_slice(eol);
            brain.send(&bytes).map_err(|e| fail(n, e, &log))?;
            log.push(format!("> {}", sent.chars().take(100).collect::<String>()));
        } else if let Some(exp) = line.strip_prefix("<* ") {
            // Zero or more lines matching `exp`.
            loop {
                match brain
                    .next(timeout)
                    .map_err(|e| fail(n, format!("expected more output: {e}"), &log))?
                {
                    Out::Line(l) if matches(exp.trim(), &l).map_err(|e| fail(n, e, &log))? => {
                        log.push(format!("< {}", l.chars().take(200).collect::<String>()));
                    }
                    Out::Line(l) => {
                        brain.pushed = Some(l);
                        break;
                    }
                    Out::Eof => break,
                }
            }
        } else if let Some(exp) = line.strip_prefix("< ") {
            let exp = exp.trim();
            let got = match brain
                .next(timeout)
                .map_err(|e| fail(n, format!("expected '{exp}': {e}"), &log))?
            {
                Out::Line(l) => l,
                Out::Eof => {
                    return Err(fail(
                        n,
                        format!("expected '{exp}', but the brain closed stdout"),
                        &log,
                    ))
                }
            };
            log.push(format!("< {}", got.chars().take(200).collect::<String>()));
            let ok = if exp == "move" {
                board.check_move(&got).map_err(|e| fail(n, e, &log))?;
                last_move = got.clone();
                true
            } else {
                matches(exp, &got).map_err(|e| fail(n, e, &log))?
            };
            if !ok {
                return Err(fail(
                    n,
                    format!("expected '{exp}'\n  got      '{got}'"),
                    &log,
                ));
            }
        } else if let Some(d) = line.strip_prefix("! ") {
            let mut words = d.split_whitespace();
            let name = words.next().unwrap_or("");
            let arg = d[name.len()..].trim();
            let ms = || {
                arg.parse::<u64>()
                    .map_err(|_| fail(n, format!("bad number in '{line}'"), &log))
            };
            match name {
                "eol" => {
                    eol = match arg {
                        "crlf" => b"\r\n",
                        "lf" => b"\n",
                        "cr" => b"\r",
                        _ => return Err(fail(n, format!("unknown eol '{arg}'"), &log)),
                    }
                }
                "timeout" => timeout = Duration::from_millis(ms()?),
                "sleep" => std::thread::sleep(Duration::from_millis(ms()?)),
                "raw" => {
                    brain.send(&unescape(arg)).map_err(|e| fail(n, e, &log))?;
                    log.push(format!("> (raw) {arg}"));
                }
                "bigline" => {
                    let mut bytes = vec![b'A'; ms()? as usize];
                    bytes.extend_from_slice(eol);
                    brain.send(&bytes).map_err(|e| fail(n, e, &log))?;
                    log.push(format!("> ({} bytes of A)", bytes.len()));
                }
                "repeat" => {
                    // `! repeat N text`: N copies of the line `text`.
                    let (count, what) = arg.split_once(' ').unwrap_or((arg, ""));
                    let count: usize = count
                        .parse()
                        .map_err(|_| fail(n, "bad repeat count".into(), &log))?;
                    let mut bytes = Vec::new();
                    for _ in 0..count {
                        bytes.extend_from_slice(what.as_bytes());
                        bytes.extend_from_slice(eol);
                    }
                    brain.send(&bytes).map_err(|e| fail(n, e, &log))?;
                    log.push(format!("> ({count} x '{what}')"));
                }
                "signal" => {
                    brain.signal(arg).map_err(|e| fail(n, e, &log))?;
                    brain.stopped = arg == "STOP";
                    log.push(format!("(signal {arg})"));
                }
                "close" => {
                    brain.stdin = None;
                    log.push("> (stdin closed)".into());
                }
                "silent" => {
                    // `! silent MS`: no output at all for MS ms.
                    match brain.next(Duration::from_millis(ms()?)) {
                        Err(_) => {}
                        Ok(Out::Eof) => {
                            return Err(fail(n, "expected silence, but stdout closed".into(), &log))
                        }
                        Ok(Out::Line(l)) => {
                            return Err(fail(n, format!("expected silence, got '{l}'"), &log))
                        }
                    }
                }
                "exit" => {
                    let t = if arg.is_empty() {
                        DEFAULT_EXIT_MS
                    } else {
                        ms()?
                    };
                    brain
                        .wait_exit(Duration::from_millis(t))
                        .map_err(|e| fail(n, e, &log))?;
                    exited = true;
                }
                _ => return Err(fail(n, format!("unknown directive '{line}'"), &log)),
            }
        } else {
            return Err(fail(
                n,
                format!("cannot read transcript line '{line}'"),
                &log,
            ));
        }
    }
    if !exited {
        brain.stdin = None;
        brain
            .wait_exit(Duration::from_millis(DEFAULT_EXIT_MS))
            .map_err(|e| fail(0, format!("at end of transcript: {e}"), &log))?;
    }
    // Nothing may be left over: every output line must have been expected.
    if let Ok(Out::Line(l)) = brain.next(Duration::from_millis(500)) {
        return Err(fail(0, format!("unexpected extra output '{l}'"), &log));
    }
    Ok(())
}

#[test]
fn transcripts() {
    let dir = transcripts_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no transcripts in {}", dir.display());
    let filter = std::env::var("RENSA_TRANSCRIPT").ok();
    let files: Vec<PathBuf> = files
        .into_iter()
        .filter(|p| {
            filter
                .as_deref()
                .is_none_or(|f| p.to_string_lossy().contains(f))
        })
        .collect();
    let mut failures = Vec::new();
    for chunk in files.chunks(PARALLEL) {
        let results: Vec<(PathBuf, Result<(), String>)> = std::thread::scope(|s| {
            let handles: Vec<_> = chunk
                .iter()
                .map(|p| (p.clone(), s.spawn(|| replay(p))))
                .collect();
            handles
                .into_iter()
                .map(|(p, h)| {
                    (
                        p,
                        h.join().unwrap_or_else(|_| Err("harness panicked".into())),
                    )
                })
                .collect()
        });
        for (p, r) in results {
            if let Err(e) = r {
                failures.push(format!(
                    "{}:\n{e}",
                    p.file_name().unwrap_or_default().to_string_lossy()
                ));
            }
        }
    }
    eprintln!(
        "{} transcripts replayed against {}",
        files.len(),
        brain().display()
    );
    assert!(
        failures.is_empty(),
        "{} of {} transcripts failed:\n\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn harness_tracks_moves() {
    let mut t = Tracked::default();
    t.sent("START 15");
    t.sent("BOARD 7,7,1");
    t.sent("8,8,2 DONE");
    assert!(t.check_move("7,7").is_err());
    assert!(t.check_move("15,0").is_err());
    assert!(t.check_move("7,7 ").is_err());
    assert!(t.check_move("6,6").is_ok());
    assert!(t.check_move("6,6").is_err());
    t.sent("TAKEBACK 6,6");
    assert!(t.check_move("6,6").is_ok());
    assert_eq!(unescape("a\\r\\n\\xff\\x00"), b"a\r\n\xff\x00".to_vec());
}

/// Lines of random protocol input, valid and not, for [`random_input`]: whole commands and
/// blocks (a block opener is only ever sent with its `DONE`, so that `ABOUT` after a chunk is
/// heard as a command).
fn random_chunk(rng: &mut rand::rngs::StdRng) -> Vec<Vec<u8>> {
    use rand::seq::SliceRandom;
    use rand::Rng;
    const NUMBERS: [&str; 14] = [
        "0",
        "1",
        "4",
        "5",
        "6",
        "10",
        "15",
        "19",
        "20",
        "22",
        "-3",
        "x",
        "",
        "99999999999999999999",
    ];
    let num = |rng: &mut rand::rngs::StdRng| -> String {
        if rng.gen_bool(0.5) {
            rng.gen_range(-1..24).to_string()
        } else {
            NUMBERS.choose(rng).map_or(String::new(), |s| s.to_string())
        }
    };
    let xy = |rng: &mut rand::rngs::StdRng| format!("{},{}", num(rng), num(rng));
    let stone_lines = |rng: &mut rand::rngs::StdRng, with_field: bool| -> Vec<String> {
        let side = [5, 10, 15, 20][rng.gen_range(0..4)];
        let density = [0.02, 0.1, 0.3, 0.7, 1.0][rng.gen_range(0..5)];
        let mut cells: Vec<(i32, i32)> = (0..side)
            .flat_map(|x| (0..side).map(move |y| (x, y)))
            .filter(|_| rng.gen_bool(density))
            .collect();
        cells.shuffle(rng);
        cells
            .iter()
            .enumerate()
            .map(|(k, &(x, y))| match (with_field, rng.gen_range(0..20)) {
                (_, 0) => xy(rng),
                (true, 1) => format!("{x},{y},{}", num(rng)),
                (true, 2) => format!("{x},{y},3"),
                (true, _) => format!("{x},{y},{}", 1 + (k + rng.gen_range(0..2)) % 2),
                (false, _) => format!("{x},{y}"),
            })
            .collect()
    };
    let mut lines: Vec<String> = Vec::new();
    match rng.gen_range(0..24) {
        0 | 1 => lines.push(format!("START {}", num(rng))),
        2 => lines.push(format!("RECTSTART {},{}", num(rng), num(rng))),
        3 => lines.push("RESTART".into()),
        4 => lines.push(format!(
            "INFO rule {}",
            [0, 1, 2, 4, 5, 8, 9, 16][rng.gen_range(0..8)]
        )),
        5 => {
            const KEYS: [&str; 14] = [
                "timeout_turn",
                "timeout_match",
                "time_left",
                "max_memory",
                "game_type",
                "thread_num",
                "max_depth",
                "max_node",
                "strength",
                "caution",
                "evaluate",
                "folder",
                "show_detail",
                "no_such_key",
            ];
            let key = KEYS.choose(rng).copied().unwrap_or("rule");
            let value = match key {
                // Keep the searches short: a turn of 0 to 30 ms.
                "timeout_turn" => rng.gen_range(0..31).to_string(),
                "thread_num" => rng.gen_range(0..4).to_string(),
                _ => num(rng),
            };
            lines.push(format!("INFO {key} {value}"));
        }
        6 | 7 => lines.push("BEGIN".into()),
        8..=11 => lines.push(format!("TURN {}", xy(rng))),
        12 => lines.push(format!("TAKEBACK {}", xy(rng))),
        13 | 14 => {
            lines.push(["BOARD", "YXBOARD", "board"][rng.gen_range(0..3)].into());
            lines.extend(stone_lines(rng, true));
            lines.push("DONE".into());
        }
        15 => {
            lines.push("SWAP2BOARD".into());
            let n = [0, 1, 3, 5][rng.gen_range(0..4)];
            lines.extend(
                (0..n).map(|_| format!("{},{}", rng.gen_range(3..12), rng.gen_range(3..12))),
            );
            lines.push("DONE".into());
        }
        16 => {
            lines.push(["YXBLOCK", "YXBLOCKUNDO"][rng.gen_range(0..2)].into());
            let mut cells = stone_lines(rng, false);
            cells.truncate(rng.gen_range(0..6));
            lines.extend(cells);
            lines.push("DONE".into());
        }
        // Yixin commands; `END_NOT` (a near miss of `END`) must not end the session, and a
        // lower-case command must be heard like an upper-case one.
        17 => lines.push(
            [
                "YXSHOWFORBID",
                "YXHASHCLEAR",
                "YXSHOWINFO",
                "YXSTOP",
                "YXBLOCKRESET",
                "YXBALANCEONE",
                "YXBALANCETWO 30",
                "YXNBEST 3",
                "END_NOT",
                "yxshowforbid",
            ][rng.gen_range(0..10)]
            .into(),
        ),
        18 => lines.push(format!("PLAY {}", xy(rng))),
        19 => lines.push(String::new()),
        20 => lines.push(format!("{} {}", xy(rng), num(rng))),
        21 => lines.push(format!("turn {}\r", xy(rng))),
        // Raw bytes: invalid UTF-8, control characters, no newline inside.
        22 => {
            let n = rng.gen_range(1..40);
            let mut raw: Vec<u8> = (0..n).map(|_| rng.gen_range(0u8..=255)).collect();
            raw.retain(|&b| b != b'\n' && b != b'\r');
            return vec![raw];
        }
        // A long line (the brain must not keep it all).
        _ => lines.push("x".repeat(rng.gen_range(1_000..200_000))),
    }
    lines.into_iter().map(String::into_bytes).collect()
}

/// Sends random chunks, each followed by `ABOUT` as a barrier (commands sent during a search are
/// answered in order afterwards, so `name=` means everything before it was handled); every
/// line the brain prints must be protocol, and afterwards it must still play a legal game.
/// Returns how many moves (lines `x,y`) and `ERROR` lines it printed.
fn random_run(seed: u64, chunks: usize) -> Result<(usize, usize), String> {
    use rand::SeedableRng;
    let shape = regex_lite::Regex::new(
        r"^(\d+,\d+( \d+,\d+){0,4}|SWAP|OK|(ERROR|UNKNOWN|MESSAGE|DEBUG|SUGGEST|FORBID|INFO)( .*)?|name=.*)$",
    )
    .map_err(|e| e.to_string())?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut b = Brain::spawn()?;
    let wait = Duration::from_millis(DEFAULT_TIMEOUT_MS);
    b.send(b"INFO timeout_turn 30\nINFO timeout_match 100000000\n")?;
    let mut recent: Vec<String> = Vec::new();
    let (mut moves, mut errors) = (0, 0);
    for _ in 0..chunks {
        let chunk = random_chunk(&mut rng);
        for line in &chunk {
            b.send(line)?;
            b.send(b"\n")?;
            recent.push(String::from_utf8_lossy(&line[..line.len().min(60)]).into_owned());
        }
        recent.push("ABOUT".into());
        let keep = recent.len().saturating_sub(12);
        recent.drain(..keep);
        b.send(b"ABOUT\n")?;
        loop {
            let context = || format!("seed {seed}, after:\n  {}", recent.join("\n  "));
            match b.next(wait).map_err(|e| format!("{e}; {}", context()))? {
                Out::Line(l) if l.starts_with("name=") => break,
                Out::Line(l) if shape.is_match(&l) => {
                    moves += usize::from(parse_xy(&l).is_some() && !l.contains(' '));
                    errors += usize::from(l.starts_with("ERROR"));
                }
                Out::Line(l) => return Err(format!("not protocol: {l:?}; {}", context())),
                Out::Eof => return Err(format!("the brain exited; {}", context())),
            }
        }
    }
    // Still a working engine: a fresh game, a legal reply to a move.
    b.send(b"INFO rule 0\nSTART 15\nTURN 7,7\n")?;
    let mut got = Vec::new();
    while got.len() < 2 {
        match b.next(wait)? {
            Out::Line(l) if l.starts_with("MESSAGE") || l.starts_with("INFO") => {}
            Out::Line(l) => got.push(l),
            Out::Eof => return Err(format!("seed {seed}: the brain exited at the end")),
        }
    }
    let reply = parse_xy(&got[1]).filter(|&(x, y)| (0..15).contains(&x) && (0..15).contains(&y));
    if got[0] != "OK" || reply.is_none() || reply == Some((7, 7)) {
        return Err(format!(
            "seed {seed}: after the random input, START/TURN gave {got:?}"
        ));
    }
    b.send(b"END\n")?;
    b.wait_exit(Duration::from_millis(DEFAULT_EXIT_MS))?;
    Ok((moves, errors))
}

#[test]
fn random_input() {
    // Other brains answer bad input in their own ways (or not at all): run against them only
    // when asked for with a seed.
    if std::env::var_os("RENSA_BRAIN").is_some() && std::env::var_os("RENSA_FUZZ_SEED").is_none() {
        eprintln!("random input: skipped for RENSA_BRAIN (set RENSA_FUZZ_SEED to run it)");
        return;
    }
    let seeds: Vec<u64> = match std::env::var("RENSA_FUZZ_SEED") {
        Ok(s) => vec![s.parse().expect("RENSA_FUZZ_SEED is a number")],
        Err(_) => vec![1, 2, 3, 4],
    };
    let chunks = std::env::var("RENSA_FUZZ_CHUNKS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(150);
    let results: Vec<Result<(usize, usize), String>> = std::thread::scope(|s| {
        let handles: Vec<_> = seeds
            .iter()
            .map(|&seed| s.spawn(move || random_run(seed, chunks)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("harness panicked".into())))
            .collect()
    });
    let counts: Vec<(usize, usize)> = results.iter().filter_map(|r| r.clone().ok()).collect();
    eprintln!(
        "random input: seeds {seeds:?}, {chunks} chunks each; (moves, errors) per seed {counts:?}"
    );
    let failures: Vec<&str> = results
        .iter()
        .filter_map(|r| r.as_ref().err().map(String::as_str))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // The input must reach the search, not only the parser's errors.
    assert!(
        counts.iter().all(|&(moves, _)| moves >= 10),
        "too few moves: {counts:?}"
    );
}

/// The built brain with piped stdin and stdout and its stderr discarded (Linux-only tests).
#[cfg(target_os = "linux")]
fn spawn_quiet_brain() -> Child {
    Command::new(brain())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the brain")
}

/// The peak resident memory of a running process so far (`VmHWM`), in kB.
#[cfg(target_os = "linux")]
fn peak_resident_kb(child: &Child) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("VmHWM")
}

/// Whether a test that measures Rensa's own process is skipped, because `RENSA_BRAIN` names
/// another brain (says so on stderr).
#[cfg(target_os = "linux")]
fn skipped_for_other_brains(what: &str) -> bool {
    let other = std::env::var_os("RENSA_BRAIN").is_some();
    if other {
        eprintln!("{what}: skipped for RENSA_BRAIN");
    }
    other
}

/// Input that arrives faster than the replies are read (here: never, for a while) waits in the
/// pipe, not in the brain's memory.
#[cfg(target_os = "linux")]
#[test]
fn input_flood_keeps_memory_bounded() {
    if skipped_for_other_brains("input flood") {
        return;
    }
    let mut child = spawn_quiet_brain();
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    // 24 MB of ABOUT lines, each answered with a line nobody reads yet.
    let writer = std::thread::spawn(move || {
        let chunk = "ABOUT\n".repeat(100_000);
        let ok = stdin.write_all(b"START 15\n").is_ok()
            && (0..40).all(|_| stdin.write_all(chunk.as_bytes()).is_ok());
        ok && stdin.write_all(b"END\n").is_ok()
    });
    std::thread::sleep(Duration::from_secs(3));
    let peak_kb = peak_resident_kb(&child);
    // Now read everything: the brain answers all of it and exits after END.
    let lines = BufReader::new(&mut stdout).lines().count();
    assert!(
        writer.join().unwrap(),
        "the brain stopped reading its input"
    );
    assert!(child.wait().unwrap().success());
    assert_eq!(lines, 1 + 4_000_000, "OK and one name line per ABOUT");
    assert!(
        peak_kb < 64 * 1024,
        "peak resident memory {peak_kb} kB while the replies were not read"
    );
}

/// Under Gomocup's `max_memory` the whole process must stay below the cap (GomocupJudge scores
/// more as a crash). At the smallest cap the engine accepts without a MESSAGE, 16 MiB, with two
/// search threads (whose searches touch every page of the shared tables first) and a few moves
/// of real search, the peak resident memory stays under it.
#[cfg(target_os = "linux")]
#[test]
fn the_smallest_memory_cap_is_kept_with_two_threads() {
    if skipped_for_other_brains("memory cap") {
        return;
    }
    const CAP: u64 = 16 * 1024 * 1024;
    let mut child = spawn_quiet_brain();
    let mut stdin = child.stdin.take().expect("stdin");
    let mut out = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut send = |s: &str| stdin.write_all(s.as_bytes()).expect("write");
    send(&format!(
        "START 15\nINFO max_memory {CAP}\nINFO thread_num 2\nINFO timeout_turn 700\n"
    ));
    assert_eq!(out.next().unwrap().unwrap(), "OK");
    send("BOARD\n7,7,2\n8,8,1\n7,8,2\nDONE\n");
    let mut taken: Vec<String> = ["7,7", "8,8", "7,8"].map(String::from).to_vec();
    let mut replies = vec![out.next().unwrap().unwrap()];
    for _ in 0..3 {
        taken.push(replies.last().unwrap().clone());
        let ours = ["6,6", "9,7", "6,9", "9,9", "5,5", "11,11", "7,9", "8,6"]
            .into_iter()
            .find(|c| !taken.iter().any(|t| t == c))
            .unwrap();
        taken.push(ours.to_string());
        send(&format!("TURN {ours}\n"));
        replies.push(out.next().unwrap().unwrap());
    }
    let peak_kb = peak_resident_kb(&child);
    send("END\n");
    assert!(child.wait().unwrap().success());
    assert!(
        replies.iter().all(|r| parse_xy(r).is_some()),
        "no MESSAGE and a move each time: {replies:?}"
    );
    assert!(
        peak_kb * 1024 < CAP,
        "peak resident memory {peak_kb} kB under a cap of {CAP} bytes"
    );
}
