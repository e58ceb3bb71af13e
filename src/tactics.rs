//! The tactical suite: positions with known forced wins and forced defences, a parser for their
//! plain-text format, a runner that measures the engine on them, and a verifier built on the VCF
//! [`prover`].
//!
//! # Suite format
//!
//! One position per line, `#` starts a comment line, blank lines are ignored. Fields are separated
//! by `|`:
//!
//! ```text
//! id | rule | size | moves | kind | answers | plies | comment
//! f15-001 | freestyle | 15x15 | h8h9i8i9j8j9 | win | 6,7 10,7 | 3 | open three
//! ```
//!
//! * `rule`: any name [`Rule::parse`] accepts (`freestyle`, `standard`, `renju`, `caro`, `caro8`).
//! * `size`: `WxH`.
//! * `moves`: the game so far, black first: algebraic (`h8i9j10`), or protocol pairs separated by
//!   blanks (`7,7 8,8 9,9`, needed beyond column `z`), or `-` for an empty board.
//! * `kind`: `win` (the side to move has a forced win) or `defend` (the opponent threatens a forced
//!   win; the side to move must stop it) or `vct` (the side to move wins by threes and fours, not
//!   by fours alone).
//! * `answers`: the correct moves, protocol pairs or algebraic, separated by blanks.
//!   For `win`: every first move of a VCF (continuous fours) win of at most `plies` plies; for
//!   wins of [`FULL_WIDTH_MAX_PLIES`] plies the verifier also proves that no other move (a
//!   double-three, say) wins as fast.
//!   For `defend`: every move after which the opponent has no VCF within [`DEFEND_BOUND_MOVES`].
//!   For `vct`: no VCF within [`MAX_VCF_MOVES`], and the answers are every move that wins within
//!   5 plies against every legal defence (checked full-width: each reply must leave a five or an
//!   unstoppable four), `plies` must be 5.
//!   Defend positions are chosen so that the side to move has no five and no four of its own (a
//!   counter-four would only delay the threat, and the answer set would be ill-defined).
//! * `plies` (optional, `-` or empty for none): for `win`, plies to the five, both ends included
//!   (an open four is 3); for `defend`, the length of the opponent's VCF if we passed.
//! * `comment` (optional): free text.
//!
//! The runner gives each position to a fresh [`Engine`] with a per-position time limit; a position
//! is solved when the engine's move is one of the answers. For `win` entries a move outside the
//! answers that still provably wins (after it, every defender reply leaves the attacker a five
//! or a VCF within [`MAX_VCF_MOVES`]) is reported separately as "other win": it wins, just not
//! by the shortest route.

pub mod prover;

use crate::board::{Board, Game};
use crate::engine::{Engine, Limits};
use crate::pos::{parse_algebraic, Pos};
use crate::types::{Color, Rule};
use prover::{Exhausted, Prover};
use std::collections::BTreeSet;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The suites shipped in `suites/`, compiled in so that the runner works from any directory.
pub const SHIPPED_SUITES: [(&str, &str); 5] = [
    (
        "suites/freestyle15.txt",
        include_str!("../suites/freestyle15.txt"),
    ),
    (
        "suites/freestyle20.txt",
        include_str!("../suites/freestyle20.txt"),
    ),
    (
        "suites/standard.txt",
        include_str!("../suites/standard.txt"),
    ),
    ("suites/renju.txt", include_str!("../suites/renju.txt")),
    ("suites/caro.txt", include_str!("../suites/caro.txt")),
];

/// Longest attacker VCF (in attacker moves, the five included) the verifier looks for: 13 moves
/// = 25 plies.
pub const MAX_VCF_MOVES: u32 = 13;

/// For `defend` entries, a move defends if the opponent has no VCF of at most this many attacker
/// moves after it (15 plies).
pub const DEFEND_BOUND_MOVES: u32 = 8;

/// Node budget of one prover call during verification; running out is a verification error.
pub const VERIFY_NODE_LIMIT: u64 = 2_000_000;

/// Default per-position time for the runner, in ms.
pub const DEFAULT_TIME_MS: u64 = 1000;

/// What an entry asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The side to move has a forced win; answers are the winning first moves.
    Win,
    /// The opponent threatens a forced win; answers are the moves that stop it.
    Defend,
    /// The side to move wins by threats (threes and fours) but has no VCF; answers are every
    /// first move that wins within `plies` (5) against every defence.
    Vct,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Win => "win",
            Kind::Defend => "defend",
            Kind::Vct => "vct",
        })
    }
}

/// One position of a suite.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub id: String,
    pub rule: Rule,
    pub width: usize,
    pub height: usize,
    /// The game so far, black first.
    pub moves: Vec<Pos>,
    pub kind: Kind,
    /// The correct moves (sorted, no duplicates).
    pub answers: Vec<Pos>,
    /// See the module docs.
    pub plies: Option<u32>,
    pub comment: String,
}

impl Entry {
    /// The position as a game (the side to move is `game.side_to_move()`).
    pub fn game(&self) -> Result<Game, String> {
        let g = Game::from_moves(self.width, self.height, self.rule, &self.moves)
            .map_err(|e| format!("moves do not replay: {e}"))?;
        if g.is_over() {
            return Err("the game is already over".into());
        }
        Ok(g)
    }

    /// The colour to move.
    pub fn side_to_move(&self) -> Color {
        Color::of_ply(self.moves.len())
    }
}

/// A suite line that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line number in the suite text.
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

fn parse_size(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("size '{text}' is not WxH (e.g. 15x15)");
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    let n = |t: &str| t.trim().parse::<usize>().map_err(|_| bad());
    let (w, h) = (n(w)?, n(h)?);
    Board::new(w, h).map_err(|e| e.to_string())?;
    Ok((w, h))
}

/// A list of points: blank-separated protocol pairs and/or algebraic moves; `-` = none.
fn parse_points(text: &str) -> Result<Vec<Pos>, String> {
    let text = text.trim();
    if text == "-" || text.is_empty() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for word in text.split_whitespace() {
        if word.contains(',') {
            out.push(word.parse::<Pos>().map_err(|e| e.to_string())?);
        } else {
            out.extend(parse_algebraic(word).map_err(|e| e.to_string())?);
        }
    }
    Ok(out)
}

/// Parses one non-comment suite line (`line` is its 1-based number, for errors).
pub fn parse_entry(line: usize, text: &str) -> Result<Entry, ParseError> {
    let err = |message: String| ParseError { line, message };
    let fields: Vec<&str> = text.split('|').map(str::trim).collect();
    if !(6..=8).contains(&fields.len()) {
        return Err(err(format!(
            "expected 6 to 8 '|'-separated fields (id | rule | size | moves | kind | answers \
             | plies | comment), found {}",
            fields.len()
        )));
    }
    let id = fields[0].to_string();
    if id.is_empty() || id.contains(char::is_whitespace) {
        return Err(err(format!("id '{id}' must be one non-empty word")));
    }
    let rule =
        Rule::parse(fields[1]).ok_or_else(|| err(format!("unknown rule '{}'", fields[1])))?;
    let (width, height) = parse_size(fields[2]).map_err(err)?;
    let moves = parse_points(fields[3]).map_err(|e| err(format!("moves: {e}")))?;
    let kind = match fields[4] {
        "win" => Kind::Win,
        "defend" => Kind::Defend,
        "vct" => Kind::Vct,
        other => return Err(err(format!("kind '{other}' is not win, defend or vct"))),
    };
    let answers: BTreeSet<Pos> = parse_points(fields[5])
        .map_err(|e| err(format!("answers: {e}")))?
        .into_iter()
        .collect();
    if answers.is_empty() {
        return Err(err("an entry needs at least one answer".into()));
    }
    let plies = match fields.get(6).copied().unwrap_or("") {
        "" | "-" => None,
        t => Some(
            t.parse::<u32>()
                .ok()
                .filter(|&n| (1..=999).contains(&n))
                .ok_or_else(|| err(format!("plies '{t}' is not a number from 1")))?,
        ),
    };
    let entry = Entry {
        id,
        rule,
        width,
        height,
        moves,
        kind,
        answers: answers.into_iter().collect(),
        plies,
        comment: fields.get(7).copied().unwrap_or("").to_string(),
    };
    let g = entry.game().map_err(err)?;
    if let Some(&p) = entry.answers.iter().find(|&&p| !g.board().is_empty(p)) {
        return Err(err(format!("answer {p} is not an empty cell of the board")));
    }
    Ok(entry)
}

/// Parses a whole suite; the first bad line is an error. Duplicate ids are an error too.
pub fn parse_suite(text: &str) -> Result<Vec<Entry>, ParseError> {
    let mut entries: Vec<Entry> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let e = parse_entry(i + 1, t)?;
        if entries.iter().any(|o| o.id == e.id) {
            return Err(ParseError {
                line: i + 1,
                message: format!("duplicate id '{}'", e.id),
            });
        }
        entries.push(e);
    }
    Ok(entries)
}

// ---------------------------------------------------------------------------------------------
// Running the engine.

/// The engine's result on one entry.
#[derive(Clone, Debug, PartialEq)]
pub struct EntryResult {
    pub id: String,
    /// The engine's move was one of the answers.
    pub solved: bool,
    /// The engine's move (`None` if it gave none or the position could not be set up).
    pub best: Option<Pos>,
    pub time_ms: u64,
    /// For an unsolved `win` entry: the engine's move was proven to win anyway (by a longer or
    /// non-four route).
    pub other_win: bool,
    /// Set when the position could not be given to the engine.
    pub error: Option<String>,
}

/// The results of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub results: Vec<EntryResult>,
    pub solved: usize,
    /// Unsolved `win` entries where the engine's move still provably wins.
    pub other_wins: usize,
    pub total: usize,
    pub median_ms: u64,
    pub max_ms: u64,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "solved {}/{} (+{} other wins), median {} ms, max {} ms",
            self.solved, self.total, self.other_wins, self.median_ms, self.max_ms
        )
    }
}

/// Gives one entry to a fresh engine with `time_ms` per move.
pub fn run_entry(entry: &Entry, time_ms: u64) -> EntryResult {
    let start = Instant::now();
    let mut engine = Engine::new();
    engine.set_rule(entry.rule);
    let setup = engine
        .new_game(entry.width, entry.height)
        .and_then(|()| entry.moves.iter().try_for_each(|&m| engine.play(m)));
    if let Err(e) = setup {
        return EntryResult {
            id: entry.id.clone(),
            solved: false,
            best: None,
            time_ms: 0,
            other_win: false,
            error: Some(e.to_string()),
        };
    }
    let limits = Limits {
        turn_time_ms: Some(time_ms),
        ..Default::default()
    };
    // A watchdog sets the stop flag at twice the limit plus a second, in case the engine
    // overruns its own budget; the runner itself never waits unbounded on a search.
    let stop = AtomicBool::new(false);
    let done = AtomicBool::new(false);
    let result = std::thread::scope(|s| {
        s.spawn(|| {
            let deadline = Instant::now()
                + Duration::from_millis(time_ms.saturating_mul(2).saturating_add(1000));
            while !done.load(Ordering::Relaxed) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(2));
            }
            stop.store(true, Ordering::Relaxed);
        });
        let r = engine.think(&limits, &stop, &mut |_| {});
        done.store(true, Ordering::Relaxed);
        r
    });
    let time_ms = start.elapsed().as_millis() as u64;
    let solved = result.best.is_some_and(|b| entry.answers.contains(&b));
    let other_win = !solved
        && entry.kind != Kind::Defend
        && result.best.is_some_and(|m| match entry.game() {
            Ok(g) => proven_win_after(g.board(), entry.rule, g.side_to_move(), m),
            Err(_) => false,
        });
    EntryResult {
        id: entry.id.clone(),
        solved,
        best: result.best,
        time_ms,
        other_win,
        error: None,
    }
}

/// Runs every entry with `time_ms` per position, calling `on_result` after each one.
pub fn run_suite(
    entries: &[Entry],
    time_ms: u64,
    on_result: &mut dyn FnMut(&Entry, &EntryResult),
) -> Summary {
    let mut results = Vec::new();
    for e in entries {
        let r = run_entry(e, time_ms);
        on_result(e, &r);
        results.push(r);
    }
    let mut times: Vec<u64> = results.iter().map(|r| r.time_ms).collect();
    times.sort_unstable();
    Summary {
        solved: results.iter().filter(|r| r.solved).count(),
        other_wins: results.iter().filter(|r| r.other_win).count(),
        total: results.len(),
        median_ms: times.get(times.len() / 2).copied().unwrap_or(0),
        max_ms: times.last().copied().unwrap_or(0),
        results,
    }
}

fn show_points(points: &[Pos]) -> String {
    if points.is_empty() {
        "-".into()
    } else {
        points
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// `pbrain-rensa tactics [--time-ms N] [FILES...]`: runs the named suites (default: every shipped
/// suite) and returns the report: one line per position, a summary per suite and overall.
pub fn cli(args: &[String]) -> Result<String, String> {
    let mut time_ms = DEFAULT_TIME_MS;
    let mut files: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--time-ms" => {
                let v = it.next().ok_or("--time-ms needs a value in milliseconds")?;
                time_ms = v
                    .parse::<u64>()
                    .ok()
                    .filter(|&t| t > 0 && t <= 3_600_000)
                    .ok_or_else(|| format!("--time-ms '{v}' is not a number of ms (1..3600000)"))?;
            }
            "-h" | "--help" => {
                return Ok("usage: tactics [--time-ms N] [SUITE-FILES...]\n\
                           Runs tactical suites (default: the shipped suites/*.txt) with N ms per \
                           position (default 1000)."
                    .into())
            }
            s if s.starts_with('-') => return Err(format!("unknown option '{s}'")),
            s => files.push(s.to_string()),
        }
    }
    let suites: Vec<(String, String)> = if files.is_empty() {
        SHIPPED_SUITES
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect()
    } else {
        files
            .iter()
            .map(|f| {
                std::fs::read_to_string(f)
                    .map(|t| (f.clone(), t))
                    .map_err(|e| format!("cannot read {f}: {e}"))
            })
            .collect::<Result<_, _>>()?
    };
    let mut out = String::new();
    let (mut solved, mut other, mut total) = (0, 0, 0);
    let mut all_times = Vec::new();
    for (name, text) in &suites {
        let entries = parse_suite(text).map_err(|e| format!("{name}: {e}"))?;
        let summary = run_suite(&entries, time_ms, &mut |e, r| {
            log::info!("{} {} {:?} {} ms", e.id, r.solved, r.best, r.time_ms);
        });
        for (e, r) in entries.iter().zip(&summary.results) {
            let mv = r.best.map_or("-".to_string(), |p| p.to_string());
            let status = match (&r.error, r.solved) {
                (Some(err), _) => format!("ERROR {err}"),
                (None, true) => "ok".into(),
                (None, false) if r.other_win => "other".into(),
                (None, false) => "FAIL".into(),
            };
            out.push_str(&format!(
                "{:<12} {:<6} {:<6} move {:<6} answers {:<24} {:>6} ms  {}\n",
                e.id,
                e.kind,
                status,
                mv,
                show_points(&e.answers),
                r.time_ms,
                e.comment
            ));
        }
        out.push_str(&format!("{name}: {summary}\n\n"));
        solved += summary.solved;
        other += summary.other_wins;
        total += summary.total;
        all_times.extend(summary.results.iter().map(|r| r.time_ms));
    }
    all_times.sort_unstable();
    out.push_str(&format!(
        "total: solved {solved}/{total} (+{other} other wins), median {} ms, max {} ms \
         ({time_ms} ms per position)\n",
        all_times.get(all_times.len() / 2).copied().unwrap_or(0),
        all_times.last().copied().unwrap_or(0)
    ));
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Verification with the prover.

fn exhausted(what: &str) -> impl Fn(Exhausted) -> String + '_ {
    move |_| format!("prover node budget ({VERIFY_NODE_LIMIT}) ran out while {what}")
}

/// Whether `color` has a legal move that makes a four (a winning point afterwards) on `b`.
pub fn has_four_move(b: &Board, rule: Rule, color: Color) -> bool {
    let p = Prover::new(rule, color, 1);
    b.empty_cells().any(|m| {
        if rule == Rule::Renju && color == Color::Black && crate::board::rules::is_forbidden(b, m) {
            return false;
        }
        let mut after = b.clone();
        after.place(m, color).expect("empty cell");
        !p.win_points(&after, color).is_empty()
    })
}

/// Checks an entry against the prover: for `win`, the shortest VCF has the stated length and the
/// answers are exactly its first moves; for `defend`, the opponent has a VCF if we pass (of the
/// stated length), we have no five and no four of our own, and the answers are exactly the moves
/// after which the opponent has no VCF within [`DEFEND_BOUND_MOVES`].
pub fn verify_entry(e: &Entry) -> Result<(), String> {
    let g = e.game()?;
    let b = g.board();
    let me = g.side_to_move();
    let show = |v: &[Pos]| show_points(v);
    match e.kind {
        Kind::Win => {
            let mut p = Prover::new(e.rule, me, VERIFY_NODE_LIMIT);
            let win = p
                .shortest_vcf(b, MAX_VCF_MOVES)
                .map_err(exhausted("looking for the shortest VCF"))?
                .ok_or_else(|| format!("no VCF within {MAX_VCF_MOVES} moves"))?;
            if let Some(n) = e.plies {
                if n != win.plies() {
                    return Err(format!(
                        "stated {n} plies, the shortest VCF takes {}",
                        win.plies()
                    ));
                }
            }
            check_main_line(&g, &win.line, me)?;
            let mut firsts = p
                .winning_first_moves(b, win.moves)
                .map_err(exhausted("listing winning first moves"))?;
            firsts.sort();
            if firsts != e.answers {
                return Err(format!(
                    "answers {} but the VCF first moves are {}",
                    show(&e.answers),
                    show(&firsts)
                ));
            }
            // Within 3 plies only fours can win (the opponent's stone never creates a winning
            // point), so the VCF answers are complete there already.
            if (5..=FULL_WIDTH_MAX_PLIES).contains(&win.plies()) {
                if let Some(m) = other_win_within_5(b, e.rule, me, &firsts)? {
                    return Err(format!(
                        "{m} also wins within 5 plies (not by continuous fours) but is not an answer"
                    ));
                }
            }
        }
        Kind::Vct => {
            if e.plies != Some(FULL_WIDTH_MAX_PLIES) {
                return Err(format!("vct entries state {FULL_WIDTH_MAX_PLIES} plies"));
            }
            let mut p = Prover::new(e.rule, me, VERIFY_NODE_LIMIT);
            if let Some(w) = p
                .shortest_vcf(b, MAX_VCF_MOVES)
                .map_err(exhausted("looking for a VCF"))?
            {
                return Err(format!(
                    "a VCF of {} plies exists: not a vct entry",
                    w.plies()
                ));
            }
            let firsts = wins_within_5_plies(b, e.rule, me)?;
            if firsts != e.answers {
                return Err(format!(
                    "answers {} but the moves winning within 5 plies are {}",
                    show(&e.answers),
                    show(&firsts)
                ));
            }
        }
        Kind::Defend => {
            let opp = me.opponent();
            let mine = Prover::new(e.rule, me, 1);
            if !mine.win_points(b, me).is_empty() {
                return Err("the side to move can make five".into());
            }
            if has_four_move(b, e.rule, me) {
                return Err("the side to move has fours of its own (counter-play)".into());
            }
            let mut p = Prover::new(e.rule, opp, VERIFY_NODE_LIMIT);
            let threat = p
                .shortest_vcf(b, DEFEND_BOUND_MOVES)
                .map_err(exhausted("looking for the opponent's VCF"))?
                .ok_or("the opponent has no VCF if we pass: nothing to defend")?;
            if let Some(n) = e.plies {
                if n != threat.plies() {
                    return Err(format!(
                        "stated {n} plies, the opponent's VCF takes {}",
                        threat.plies()
                    ));
                }
            }
            let mut defences = defending_moves(b, e.rule, me)?;
            defences.sort();
            if defences != e.answers {
                return Err(format!(
                    "answers {} but the defending moves are {}",
                    show(&e.answers),
                    show(&defences)
                ));
            }
        }
    }
    Ok(())
}

/// `win` entries of at most this many plies are checked full-width as well: no move outside the
/// answers (a double-three, say) may win within the same number of plies. Longer entries are
/// checked for continuous-four wins only (a full-width proof is too slow there).
pub const FULL_WIDTH_MAX_PLIES: u32 = 5;

/// A move of `me` outside `except` that wins within 5 plies against every defence, if any.
/// After such a move `m`, every legal opponent reply must leave `me` a five or a four that cannot
/// be stopped (a VCF of two moves: a quiet third move cannot win by ply 5, since the opponent's
/// stone cannot create winning points). Replies are tried nearest to `m` first, because a
/// refutation is usually a block next to it.
fn other_win_within_5(
    b: &Board,
    rule: Rule,
    me: Color,
    except: &[Pos],
) -> Result<Option<Pos>, String> {
    let mut p = Prover::new(rule, me, VERIFY_NODE_LIMIT);
    for m in b.empty_cells() {
        if !except.contains(&m) && wins_within_5(b, rule, me, m, &mut p)? {
            return Ok(Some(m));
        }
    }
    Ok(None)
}

/// Every move of `me` on `b` (which has no five for `me`) that wins within 5 plies against every
/// defence (row-major order): the answers of a `vct` entry.
pub fn wins_within_5_plies(b: &Board, rule: Rule, me: Color) -> Result<Vec<Pos>, String> {
    let mut p = Prover::new(rule, me, VERIFY_NODE_LIMIT);
    let mut out = Vec::new();
    for m in b.empty_cells() {
        if wins_within_5(b, rule, me, m, &mut p)? {
            out.push(m);
        }
    }
    out.sort();
    Ok(out)
}

/// Whether `me` playing `m` on `b` (which has no five for `me`) wins within 5 plies against
/// every defence: `m` is legal, leaves the opponent no five, and every legal opponent reply
/// leaves `me` a five or a four that cannot be stopped (a VCF of two moves: a quiet third move
/// cannot win by ply 5, since the opponent's stone cannot create winning points). Replies are
/// tried nearest to `m` first, because a refutation is usually a block next to it.
fn wins_within_5(b: &Board, rule: Rule, me: Color, m: Pos, p: &mut Prover) -> Result<bool, String> {
    let opp = me.opponent();
    if !is_legal(b, rule, m, me) {
        return Ok(false);
    }
    let mut after = b.clone();
    after.place(m, me).expect("legal move");
    if !p.win_points(&after, opp).is_empty() {
        return Ok(false);
    }
    let mut replies: Vec<Pos> = after
        .empty_cells()
        .filter(|&r| is_legal(&after, rule, r, opp))
        .collect();
    let dist = |r: &Pos| {
        (r.x as i32 - m.x as i32)
            .abs()
            .max((r.y as i32 - m.y as i32).abs())
    };
    replies.sort_by_key(|r| (dist(r), r.y, r.x));
    for r in replies {
        let still = p
            .vcf_after_defence(&after, r, 2)
            .map_err(exhausted("checking wins within 5 plies"))?;
        if still.is_none() {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether `c` may play `p` on `b` under `rule`: an empty cell, and not a foul for renju black.
fn is_legal(b: &Board, rule: Rule, p: Pos, c: Color) -> bool {
    b.is_empty(p)
        && !(rule == Rule::Renju && c == Color::Black && crate::board::rules::is_forbidden(b, p))
}

/// Node budget for proving that an engine move outside the answers still wins.
const OTHER_WIN_NODE_LIMIT: u64 = 300_000;

/// Whether `me` playing `m` on `b` provably wins: a five, or (no five for the opponent after it
/// and) every legal opponent reply leaves `me` a five or a VCF within [`MAX_VCF_MOVES`]. Running
/// out of the node budget counts as not proven.
pub fn proven_win_after(b: &Board, rule: Rule, me: Color, m: Pos) -> bool {
    let opp = me.opponent();
    if !is_legal(b, rule, m, me) {
        return false;
    }
    if crate::board::rules::is_win(b, rule, m, me) {
        return true;
    }
    let mut after = b.clone();
    after.place(m, me).expect("legal move");
    let mut p = Prover::new(rule, me, OTHER_WIN_NODE_LIMIT);
    if !p.win_points(&after, opp).is_empty() {
        return false;
    }
    let replies: Vec<Pos> = after
        .empty_cells()
        .filter(|&r| is_legal(&after, rule, r, opp))
        .collect();
    replies
        .into_iter()
        .all(|r| matches!(p.vcf_after_defence(&after, r, MAX_VCF_MOVES), Ok(Some(_))))
}

/// Replays the prover's main line on the game: every move must be accepted (no foul) and the
/// last one must end the game with a five for `me` (a cross-check of prover against `Game`).
fn check_main_line(g: &Game, line: &[Pos], me: Color) -> Result<(), String> {
    let mut g = g.clone();
    for (i, &m) in line.iter().enumerate() {
        let out = g
            .play(m)
            .map_err(|e| format!("main line move {} ({m}): {e}", i + 1))?
            .cloned();
        let last = i + 1 == line.len();
        match out {
            Some(o) if last && o.winner == Some(me) && o.reason == crate::board::Reason::Five => {}
            None if !last => {}
            other => {
                return Err(format!(
                    "main line {} ends wrongly at move {} ({m}): {other:?}",
                    show_points(line),
                    i + 1
                ))
            }
        }
    }
    Ok(())
}

/// Every legal move of `me` after which the opponent has no VCF within [`DEFEND_BOUND_MOVES`].
pub fn defending_moves(b: &Board, rule: Rule, me: Color) -> Result<Vec<Pos>, String> {
    let mut p = Prover::new(rule, me.opponent(), VERIFY_NODE_LIMIT);
    let mut out = Vec::new();
    for r in b.empty_cells() {
        if rule == Rule::Renju && me == Color::Black && crate::board::rules::is_forbidden(b, r) {
            continue;
        }
        let still = p
            .vcf_after_defence(b, r, DEFEND_BOUND_MOVES)
            .map_err(exhausted("checking a defence"))?;
        if still.is_none() {
            out.push(r);
        }
    }
    Ok(out)
}

/// Verifies every entry of a suite text; returns one message per failing entry.
pub fn verify_suite(text: &str) -> Result<usize, Vec<String>> {
    let entries = parse_suite(text).map_err(|e| vec![e.to_string()])?;
    let errors: Vec<String> = entries
        .iter()
        .filter_map(|e| verify_entry(e).err().map(|m| format!("{}: {m}", e.id)))
        .collect();
    if errors.is_empty() {
        Ok(entries.len())
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_line_in_both_notations() {
        let e = parse_entry(
            1,
            "t1 | freestyle | 15x15 | h8h9i8i9j8j9 | win | 6,7 k8 | 3 | open three",
        )
        .unwrap();
        assert_eq!(e.moves.len(), 6);
        assert_eq!(e.answers, vec![Pos::new(6, 7), Pos::new(10, 7)]);
        assert_eq!((e.kind, e.plies), (Kind::Win, Some(3)));
        assert_eq!(e.comment, "open three");
        let e2 = parse_entry(
            1,
            "t2 | freestyle | 15x15 | 7,7 7,8 8,7 8,8 9,7 9,8 | win | 6,7 10,7",
        )
        .unwrap();
        assert_eq!(e2.moves, e.moves);
        assert_eq!(e2.plies, None);
        let e3 = parse_entry(1, "t3 | renju | 15x15 | - | defend | h8 | - |").unwrap();
        assert!(e3.moves.is_empty());
    }

    #[test]
    fn bad_lines_are_errors_with_line_numbers() {
        for bad in [
            "t | freestyle | 15x15 | h8 | win",
            "t | nosuch | 15x15 | h8 | win | 1,1",
            "t | freestyle | 15 | h8 | win | 1,1",
            "t | freestyle | 4x4 | h8 | win | 1,1",
            "t | freestyle | 15x15 | h8h8 | win | 1,1",
            "t | freestyle | 15x15 | h8 | mate | 1,1",
            "t | freestyle | 15x15 | h8 | win | -",
            "t | freestyle | 15x15 | h8 | win | 7,7",
            "t | freestyle | 15x15 | h8 | win | 99,1",
            "t | freestyle | 15x15 | h8 | win | 1,1 | x",
            "t | freestyle | 15x15 | h8 | win | 1,1 | 0",
            "t t | freestyle | 15x15 | h8 | win | 1,1",
            "t | freestyle | 15x15 | h8h9i8i9j8j9k8k9l8 | win | 1,1",
        ] {
            let e = parse_entry(7, bad);
            assert!(e.is_err(), "{bad:?} should not parse");
            assert_eq!(e.unwrap_err().line, 7);
        }
        let dup =
            "a | freestyle | 15x15 | h8 | win | 1,1\n# c\na | freestyle | 15x15 | h8 | win | 1,2\n";
        assert_eq!(parse_suite(dup).unwrap_err().line, 3);
    }

    #[test]
    fn five_ply_entries_must_list_quiet_wins_too() {
        // Generated candidate f15-11-1-22: black's only VCF start is 5,9 (5 plies), but the quiet
        // 4,8 wins within 5 plies as well, so a suite may not list 5,9 alone.
        let e = parse_entry(
            1,
            "q | freestyle | 15x15 | h8j7f8i8d8l7j8c9e8g8e11c8h6b11c7n8f5h7i7k5f4g5 | win | 5,9 | 5",
        )
        .unwrap();
        let err = verify_entry(&e).unwrap_err();
        assert!(err.contains("4,8 also wins"), "{err}");
        let g = e.game().unwrap();
        assert!(proven_win_after(
            g.board(),
            e.rule,
            g.side_to_move(),
            Pos::new(4, 8)
        ));
    }

    #[test]
    fn vct_entries_are_checked_full_width() {
        // Black's open twos 5,7 6,7 and 7,5 7,6: 7,7 (the double three) wins within 5 plies.
        let moves = "h6a15h7c15f8a13g8o1";
        let ok = format!("v | freestyle | 15x15 | {moves} | vct | 7,7 | 5");
        let e = parse_entry(1, &ok).unwrap();
        assert_eq!(e.kind, Kind::Vct);
        verify_entry(&e).unwrap();
        // A missing or extra answer, a wrong length, a VCF position, and renju's foul are caught.
        for (bad, what) in [
            (
                format!("v | freestyle | 15x15 | {moves} | vct | 7,7 8,7 | 5"),
                "answers",
            ),
            (
                format!("v | freestyle | 15x15 | {moves} | vct | 7,7 | 7"),
                "5 plies",
            ),
            (
                "v | freestyle | 15x15 | h8a1i8a3j8a5 | vct | 6,7 | 5".to_string(),
                "VCF",
            ),
        ] {
            let err = verify_entry(&parse_entry(1, &bad).unwrap()).unwrap_err();
            assert!(err.contains(what), "{bad}: {err}");
        }
        let renju = format!("v | renju | 15x15 | {moves} | vct | 7,7 | 5");
        let err = verify_entry(&parse_entry(1, &renju).unwrap()).unwrap_err();
        assert!(err.contains("answers"), "{err}");
    }

    #[test]
    fn other_wins_are_proven_not_guessed() {
        let e = parse_entry(
            1,
            "g | freestyle | 15x15 | h8h9i8i9j8j9 | win | 6,7 10,7 | 3",
        )
        .unwrap();
        let g = e.game().unwrap();
        let (b, me) = (g.board(), g.side_to_move());
        assert!(proven_win_after(b, e.rule, me, Pos::new(6, 7)));
        assert!(proven_win_after(b, e.rule, me, Pos::new(10, 7)));
        // A far move lets white make an open four first.
        assert!(!proven_win_after(b, e.rule, me, Pos::new(0, 0)));
        assert!(!proven_win_after(b, e.rule, me, Pos::new(7, 7)));
    }

    #[test]
    fn cli_rejects_bad_arguments() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(cli(&s(&["--time-ms"])).is_err());
        assert!(cli(&s(&["--time-ms", "abc"])).is_err());
        assert!(cli(&s(&["--bogus"])).is_err());
        assert!(cli(&s(&["/nonexistent/suite.txt"])).is_err());
        assert!(cli(&s(&["--help"])).unwrap().contains("usage"));
    }

    #[test]
    fn verifier_accepts_right_and_rejects_wrong_answers() {
        let good = parse_entry(
            1,
            "g | freestyle | 15x15 | h8h9i8i9j8j9 | win | 6,7 10,7 | 3",
        )
        .unwrap();
        verify_entry(&good).unwrap();
        let missing =
            parse_entry(1, "m | freestyle | 15x15 | h8h9i8i9j8j9 | win | 6,7 | 3").unwrap();
        assert!(verify_entry(&missing).is_err());
        let wrong_len = parse_entry(
            1,
            "l | freestyle | 15x15 | h8h9i8i9j8j9 | win | 6,7 10,7 | 5",
        )
        .unwrap();
        assert!(verify_entry(&wrong_len).is_err());
        // White to move must stop black's open three (6,7 7,7 8,7 -> 5,7 9,7 ... per prover).
        let d = parse_entry(
            1,
            "d | freestyle | 15x15 | h8a1i8a15g8 | defend | 5,7 9,7 4,7 10,7 | 3",
        )
        .unwrap();
        let b = d.game().unwrap();
        let defs = defending_moves(b.board(), d.rule, Color::White).unwrap();
        assert!(defs.contains(&Pos::new(5, 7)) && defs.contains(&Pos::new(9, 7)));
        assert!(!defs.contains(&Pos::new(0, 7)));
    }
}
