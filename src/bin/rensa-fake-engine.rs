//! `rensa-fake-engine`: a deliberately misbehaving Gomocup-protocol engine, a tool for testing
//! managers (rensa-referee, or any other). It plays random legal moves, or misbehaves in one chosen
//! way: crash mid-game, exit on START, hang, answer late, play an occupied or off-board point, print
//! junk and a huge line before its move, ignore ABOUT or END, print after its move, or give a bad
//! swap2 answer.
//!
//! Usage: `rensa-fake-engine --mode <mode> [--seed N] [--after N] [--sleep-ms N] [--name NAME]`.
//! Logs (none by default) would go to stderr; stdout carries only protocol.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::io::{self, BufRead, Write};
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Random,
    Crash,
    CrashLeavingChild,
    ExitOnStart,
    ExitOnRestart,
    Hang,
    Late,
    Occupied,
    OffBoard,
    Junk,
    IgnoreAbout,
    IgnoreEnd,
    PrintAfter,
    BadSwap2,
    Flood,
}

const MODES: [(&str, Mode); 15] = [
    ("random", Mode::Random),
    ("crash", Mode::Crash),
    ("crash-leaving-child", Mode::CrashLeavingChild),
    ("exit-on-start", Mode::ExitOnStart),
    ("exit-on-restart", Mode::ExitOnRestart),
    ("hang", Mode::Hang),
    ("late", Mode::Late),
    ("occupied", Mode::Occupied),
    ("off-board", Mode::OffBoard),
    ("junk", Mode::Junk),
    ("ignore-about", Mode::IgnoreAbout),
    ("ignore-end", Mode::IgnoreEnd),
    ("print-after", Mode::PrintAfter),
    ("bad-swap2", Mode::BadSwap2),
    ("flood", Mode::Flood),
];

const HELP: &str = "rensa-fake-engine: a misbehaving Gomocup-protocol engine for testing managers

Usage: rensa-fake-engine [--mode MODE] [--seed N] [--after N] [--sleep-ms N] [--name NAME]

Modes (default random):
  random         legal random moves (tracks the board; answers SWAP2BOARD legally)
  crash          exits with status 3 when asked for its move number --after (default 3)
  crash-leaving-child  as crash, but first starts a process (`sleep`, --sleep-ms) that keeps
                 its output open (unix)
  exit-on-start  exits as soon as it reads START
  exit-on-restart  plays its first game (random), then exits as soon as it reads another START
  hang           answers START, then never answers a move and ignores END
  late           sleeps --sleep-ms (default 3000) before each move from move --after on
  occupied       from its move --after on, answers a point that is already occupied
  off-board      from its move --after on, answers a point off the board
  junk           prints junk lines and a 1 MiB line before every (legal) move
  ignore-about   never answers ABOUT; otherwise random
  ignore-end     ignores END and end of input (sleeps for an hour); otherwise random
  print-after    prints a stray move and chatter right after every move
  bad-swap2      answers SWAP2BOARD with two stones (always wrong for an empty board)
  flood          from its move --after on, prints non-move lines without end
";

struct Options {
    mode: Mode,
    seed: u64,
    after: usize,
    sleep_ms: u64,
    name: String,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        mode: Mode::Random,
        seed: 1,
        after: 3,
        sleep_ms: 3000,
        name: "fake".into(),
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--mode" => {
                let v = value()?;
                o.mode = MODES
                    .iter()
                    .find(|(n, _)| n == v)
                    .map(|&(_, m)| m)
                    .ok_or_else(|| format!("unknown mode '{v}'"))?;
            }
            "--seed" => o.seed = value()?.parse().map_err(|_| "bad --seed".to_string())?,
            "--after" => o.after = value()?.parse().map_err(|_| "bad --after".to_string())?,
            "--sleep-ms" => {
                o.sleep_ms = value()?.parse().map_err(|_| "bad --sleep-ms".to_string())?
            }
            "--name" => o.name = value()?.clone(),
            "--help" | "-h" => return Err(String::new()),
            other => return Err(format!("unknown argument '{other}'")),
        }
    }
    Ok(o)
}

struct Fake {
    o: Options,
    rng: StdRng,
    width: usize,
    height: usize,
    /// 0 empty, 1 occupied.
    cells: Vec<u8>,
    /// Move requests answered in this game.
    moves_made: usize,
    /// Lines of a BOARD / SWAP2BOARD block being read.
    block: Option<(String, Vec<(i64, i64)>)>,
    /// A game has been started (see `exit-on-restart`).
    started: bool,
}

impl Fake {
    fn occupy(&mut self, x: i64, y: i64) {
        if (0..self.width as i64).contains(&x) && (0..self.height as i64).contains(&y) {
            self.cells[y as usize * self.width + x as usize] = 1;
        }
    }

    fn random_empty(&mut self) -> Option<(i64, i64)> {
        let empty: Vec<usize> = (0..self.cells.len())
            .filter(|&i| self.cells[i] == 0)
            .collect();
        if empty.is_empty() {
            return None;
        }
        let i = empty[self.rng.gen_range(0..empty.len())];
        Some(((i % self.width) as i64, (i / self.width) as i64))
    }

    fn new_game(&mut self, w: usize, h: usize) {
        self.width = w;
        self.height = h;
        self.cells = vec![0; w * h];
        self.moves_made = 0;
    }

    /// Answers a move request.
    fn play(&mut self, out: &mut impl Write) -> io::Result<()> {
        self.moves_made += 1;
        let n = self.moves_made;
        let due = n >= self.o.after;
        match self.o.mode {
            Mode::Crash if due => std::process::exit(3),
            Mode::CrashLeavingChild if due => {
                // The child inherits stdout and outlives us: the pipe stays open.
                let secs = (self.o.sleep_ms / 1000).max(1).to_string();
                let _ = std::process::Command::new("sleep").arg(secs).spawn();
                std::process::exit(3)
            }
            Mode::Hang => loop {
                std::thread::sleep(Duration::from_secs(3600));
            },
            Mode::Late if due => std::thread::sleep(Duration::from_millis(self.o.sleep_ms)),
            Mode::Occupied if due => {
                if let Some(i) = self.cells.iter().position(|&c| c == 1) {
                    let (x, y) = (i % self.width, i / self.width);
                    return line(out, &format!("{x},{y}"));
                }
            }
            Mode::OffBoard if due => return line(out, &format!("{},{}", self.width, 0)),
            Mode::Flood if due => loop {
                // Ends only when the manager closes the pipe (write error) or kills us.
                line(
                    out,
                    "MESSAGE flooding the manager with output that is not a move",
                )?;
                line(out, "DEBUG 1,2,3")?;
            },
            Mode::Junk => {
                line(out, "this is not a move")?;
                line(out, "DEBUG 1,2,3")?;
                line(out, "7,7 trailing text")?;
                line(out, &"z".repeat(1 << 20))?;
            }
            _ => {}
        }
        let Some((x, y)) = self.random_empty() else {
            return line(out, "ERROR board full");
        };
        self.occupy(x, y);
        if self.o.mode == Mode::PrintAfter {
            // One write: the move, then chatter and a stray move that must not count as the next.
            let stray = self
                .random_empty()
                .map(|(sx, sy)| format!("{sx},{sy}\n"))
                .unwrap_or_default();
            let text = format!("{x},{y}\nMESSAGE thinking some more\n{stray}");
            out.write_all(text.as_bytes())?;
            return out.flush();
        }
        line(out, &format!("{x},{y}"))
    }

    fn swap2(&mut self, stones: &[(i64, i64)], out: &mut impl Write) -> io::Result<()> {
        if self.o.mode == Mode::BadSwap2 {
            return line(out, "7,7 8,8");
        }
        let want = match stones.len() {
            0 => 3,
            3 => {
                if self.rng.gen_bool(0.3) {
                    return line(out, "SWAP");
                }
                if self.rng.gen_bool(0.5) {
                    1
                } else {
                    2
                }
            }
            _ => {
                if self.rng.gen_bool(0.3) {
                    return line(out, "SWAP");
                }
                1
            }
        };
        // Stones near the centre keep swap2 openings game-like.
        let (cx, cy) = (self.width as i64 / 2, self.height as i64 / 2);
        let mut picked = Vec::new();
        let mut tries = 0;
        while picked.len() < want && tries < 10_000 {
            tries += 1;
            let x = cx + self.rng.gen_range(-3..=3);
            let y = cy + self.rng.gen_range(-3..=3);
            if (0..self.width as i64).contains(&x)
                && (0..self.height as i64).contains(&y)
                && self.cells[y as usize * self.width + x as usize] == 0
            {
                self.occupy(x, y);
                picked.push(format!("{x},{y}"));
            }
        }
        line(out, &picked.join(" "))
    }

    /// Handles one input line; `Ok(false)` = quit.
    fn handle(&mut self, raw: &str, out: &mut impl Write) -> io::Result<bool> {
        let text = raw.trim();
        if text.is_empty() {
            return Ok(true);
        }
        if let Some((head, mut stones)) = self.block.take() {
            if text.eq_ignore_ascii_case("DONE") {
                // A new position, same game: the move counter keeps running.
                self.cells = vec![0; self.width * self.height];
                for &(x, y) in &stones {
                    self.occupy(x, y);
                }
                return if head == "BOARD" {
                    self.play(out).map(|_| true)
                } else {
                    self.swap2(&stones, out).map(|_| true)
                };
            }
            let nums: Vec<i64> = text
                .split(',')
                .filter_map(|t| t.trim().parse().ok())
                .collect();
            if nums.len() >= 2 {
                stones.push((nums[0], nums[1]));
            }
            self.block = Some((head, stones));
            return Ok(true);
        }
        let (cmd, arg) = text.split_once(' ').unwrap_or((text, ""));
        match cmd.to_ascii_uppercase().as_str() {
            "START" | "RECTSTART" => {
                if self.o.mode == Mode::ExitOnStart
                    || (self.o.mode == Mode::ExitOnRestart && self.started)
                {
                    std::process::exit(0);
                }
                self.started = true;
                let nums: Vec<usize> = arg
                    .split(',')
                    .filter_map(|t| t.trim().parse().ok())
                    .collect();
                let (w, h) = match nums[..] {
                    [n] => (n, n),
                    [w, h] => (w, h),
                    _ => return line(out, "ERROR bad size").map(|_| true),
                };
                if !(5..=100).contains(&w) || !(5..=100).contains(&h) {
                    return line(out, "ERROR unsupported size, use 20").map(|_| true);
                }
                self.new_game(w, h);
                line(out, "OK")?;
            }
            "RESTART" => {
                self.new_game(self.width, self.height);
                line(out, "OK")?;
            }
            "BEGIN" => self.play(out)?,
            "TURN" => {
                let nums: Vec<i64> = arg
                    .split(',')
                    .filter_map(|t| t.trim().parse().ok())
                    .collect();
                if let [x, y] = nums[..] {
                    self.occupy(x, y);
                }
                self.play(out)?;
            }
            "BOARD" | "SWAP2BOARD" => self.block = Some((cmd.to_ascii_uppercase(), Vec::new())),
            "ABOUT" => {
                if self.o.mode != Mode::IgnoreAbout {
                    let about = format!(
                        "name=\"{}\", version=\"0\", author=\"Rensa tests\", country=\"XX\"",
                        self.o.name
                    );
                    line(out, &about)?;
                }
            }
            "INFO" => {}
            "END" => return Ok(self.o.mode == Mode::IgnoreEnd),
            _ => line(out, &format!("UNKNOWN {cmd}"))?,
        }
        Ok(true)
    }
}

fn line(out: &mut impl Write, text: &str) -> io::Result<()> {
    out.write_all(text.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let o = match parse_args(&args) {
        Ok(o) => o,
        Err(e) if e.is_empty() => {
            print!("{HELP}");
            return;
        }
        Err(e) => {
            eprintln!("rensa-fake-engine: {e}\n\n{HELP}");
            std::process::exit(2);
        }
    };
    let ignore_end = o.mode == Mode::IgnoreEnd;
    let mut fake = Fake {
        rng: StdRng::seed_from_u64(o.seed),
        o,
        width: 15,
        height: 15,
        cells: vec![0; 225],
        moves_made: 0,
        block: None,
        started: false,
    };
    let stdin = io::stdin();
    let mut out = io::stdout();
    for l in stdin.lock().lines() {
        let Ok(l) = l else { break };
        match fake.handle(&l, &mut out) {
            Ok(true) => {}
            Ok(false) | Err(_) => return,
        }
    }
    if ignore_end {
        std::thread::sleep(Duration::from_secs(3600));
    }
}
