//! One refereed game: drives two engine processes through the protocol (START, the INFO block,
//! optional SWAP2BOARD opening, BEGIN / BOARD / TURN, time control) and adjudicates every move with
//! [`crate::board::Game`], never with an engine's opinion.
//!
//! Everything an engine can do wrong ends the game with an [`EndReason`] against it: silence or a
//! late answer (timeout), exit or closed output (crash), an occupied or off-board point or a bad
//! swap2 answer (illegal), black's renju foul (forbidden). Lines that are not an `int,int` move are
//! ignored until the deadline (protocol.md §12.17), `MESSAGE` lines are logged.

use super::process::{EngineCommand, EngineProcess, WaitError};
use super::record::{EndReason, GameRecord, MoveRecord};
use crate::board::{BoardError, Game, Reason};
use crate::pos::Pos;
use crate::types::{Color, Rule};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `INFO time_left` value meaning "no match limit" (what Piskvork and c-gomoku-cli send).
pub const UNLIMITED_TIME_LEFT_MS: i64 = 2_147_483_647;
/// Gomocup's memory cap, sent as `INFO max_memory` by default (350 MiB).
pub const GOMOCUP_MAX_MEMORY_BYTES: u64 = 367_001_600;

/// Time limits of one engine, all in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// Per-move limit; 0 = none (only the match clock).
    pub turn_ms: u64,
    /// Whole-game budget; 0 = unlimited.
    pub match_ms: u64,
    /// Fischer increment added to the match clock after each move.
    pub increment_ms: u64,
    /// Grace added to every deadline for pipe and scheduling latency (Gomocup: 1000 ms).
    pub tolerance_ms: u64,
}

impl TimeControl {
    /// Gomocup fastgame: 5 s per move, 120 s per game, 1 s tolerance.
    pub const FASTGAME: TimeControl = TimeControl {
        turn_ms: 5_000,
        match_ms: 120_000,
        increment_ms: 0,
        tolerance_ms: 1_000,
    };

    /// The time the engine may use for its next answer given `time_left_ms`, without tolerance.
    pub fn budget_ms(&self, time_left_ms: i64) -> u64 {
        let left = time_left_ms.max(0) as u64;
        match (self.turn_ms, self.match_ms) {
            (0, 0) => u64::MAX / 4,
            (t, 0) => t,
            (0, _) => left,
            (t, _) => t.min(left),
        }
    }

    /// How long the next answer may take, tolerance included, given `time_left_ms` (which goes
    /// below zero when earlier moves used part of their tolerance): `tolerance + min(turn limit,
    /// match time left)` as GomocupJudge computes it. The tolerance absorbs an overrun of the
    /// match clock once per game, not once per move: what a move takes beyond the time left is
    /// taken from the next moves' tolerance. `None` when nothing is left at all (the engine has
    /// lost on time before it is asked).
    pub fn answer_limit_ms(&self, time_left_ms: i64) -> Option<u64> {
        let turn = match self.turn_ms {
            0 => u64::MAX / 4,
            t => t,
        } as i128;
        let avail = if self.match_ms == 0 {
            turn
        } else {
            turn.min(time_left_ms as i128)
        };
        let limit = avail + self.tolerance_ms as i128;
        (limit > 0).then(|| limit.min(u64::MAX as i128 / 4) as u64)
    }

    /// The value announced as `INFO timeout_turn` (the match budget when there is no turn limit,
    /// because `timeout_turn 0` would mean "answer instantly").
    pub fn announced_turn_ms(&self) -> u64 {
        if self.turn_ms > 0 {
            self.turn_ms
        } else {
            self.match_ms
        }
    }
}

/// One engine of a match: how to run it and its own settings.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Display name, unique within a run.
    pub name: String,
    pub command: EngineCommand,
    pub time: TimeControl,
    /// Extra `INFO key value` lines sent after the standard block.
    pub extra_info: Vec<(String, String)>,
}

/// Settings shared by every game of a run.
#[derive(Clone, Debug)]
pub struct GameSettings {
    pub width: usize,
    pub height: usize,
    pub rule: Rule,
    /// Gomocup swap2 opening phase (SWAP2BOARD) instead of fixed openings.
    pub swap2: bool,
    /// Draw once this many stones are on the board (`None`: full board only).
    pub draw_after: Option<usize>,
    /// Send `BOARD` before every move instead of `TURN` (after each engine's first move).
    pub board_every_move: bool,
    /// Announced as `INFO max_memory` (0 = no cap).
    pub max_memory_bytes: u64,
    /// Score an engine whose process tree uses more than `max_memory_bytes` after a move as a crash.
    pub enforce_memory: bool,
    /// Stop engine processes (SIGSTOP) between their turns, as Gomocup does.
    pub suspend: bool,
    /// `INFO folder` base directory (each engine gets a subfolder named after it).
    pub folder: Option<PathBuf>,
    /// How long an engine may take to exit after `END` before its process tree is killed.
    pub end_grace_ms: u64,
    /// Restart engine processes for every game instead of reusing them with a new `START`.
    pub restart_per_game: bool,
    /// Send LF instead of CR LF after each command.
    pub lf_line_endings: bool,
}

impl GameSettings {
    /// Defaults for a board and rule: renju gets the Gomocup cut-off (`size² − 25` stones, on
    /// boards of more than 25 cells).
    pub fn new(width: usize, height: usize, rule: Rule) -> GameSettings {
        GameSettings {
            width,
            height,
            rule,
            swap2: false,
            draw_after: (rule == Rule::Renju)
                .then(|| Game::gomocup_draw_limit(width, height))
                .flatten(),
            board_every_move: false,
            max_memory_bytes: GOMOCUP_MAX_MEMORY_BYTES,
            enforce_memory: false,
            suspend: false,
            folder: None,
            end_grace_ms: 500,
            restart_per_game: false,
            lf_line_endings: false,
        }
    }
}

/// An engine and its (possibly running) process, kept across games by a worker.
pub struct EngineSession {
    pub config: Arc<EngineConfig>,
    process: Option<EngineProcess>,
}

impl EngineSession {
    pub fn new(config: Arc<EngineConfig>) -> EngineSession {
        EngineSession {
            config,
            process: None,
        }
    }

    /// Ends the engine process (END, bounded wait, kill) if one is running.
    pub fn stop(&mut self, grace: Duration) {
        if let Some(p) = self.process.take() {
            p.shutdown(grace);
        }
    }

    /// Kills the engine process at once (after a fault: its state is unknown).
    pub fn kill(&mut self) {
        self.process = None;
    }
}

/// What to play: one scheduled game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSpec {
    pub game_index: usize,
    pub opening_index: Option<usize>,
    /// Opening stones, black first (ignored with swap2).
    pub opening: Vec<Pos>,
}

/// Why a game produced no record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameAbort {
    /// The referee is shutting down (Ctrl-C).
    Interrupted,
    /// The opening itself is not a legal unfinished position.
    BadOpening(String),
}

/// Optional per-game protocol log: every line sent and received, with milliseconds since the game
/// started.
pub struct GameLog {
    out: Option<BufWriter<File>>,
    start: Instant,
    lines: usize,
}

/// Longest line text written to a protocol log, in bytes.
const LOG_LINE_BYTES: usize = 1000;
/// Most lines written to one game's protocol log (a flooding engine must not fill the disk).
const LOG_MAX_LINES: usize = 100_000;

impl GameLog {
    /// A log that writes nothing.
    pub fn none() -> GameLog {
        GameLog {
            out: None,
            start: Instant::now(),
            lines: 0,
        }
    }

    /// A log written to `path`.
    pub fn to_file(path: &std::path::Path) -> std::io::Result<GameLog> {
        Ok(GameLog {
            out: Some(BufWriter::new(File::create(path)?)),
            start: Instant::now(),
            lines: 0,
        })
    }

    fn write(&mut self, at: Instant, who: &str, dir: &str, text: &str) {
        if let Some(out) = &mut self.out {
            self.lines += 1;
            if self.lines > LOG_MAX_LINES {
                if self.lines == LOG_MAX_LINES + 1 {
                    let _ = writeln!(out, "(log truncated after {LOG_MAX_LINES} lines)");
                }
                return;
            }
            let ms = at.saturating_duration_since(self.start).as_secs_f64() * 1000.0;
            let mut t = text;
            if t.len() > LOG_LINE_BYTES {
                let mut cut = LOG_LINE_BYTES;
                while !t.is_char_boundary(cut) {
                    cut -= 1;
                }
                t = &t[..cut];
            }
            let _ = writeln!(out, "{ms:>11.3} {who} {dir} {t}");
        }
    }

    fn note(&mut self, text: &str) {
        self.write(Instant::now(), "referee", "#", text);
    }
}

impl Drop for GameLog {
    fn drop(&mut self) {
        if let Some(out) = &mut self.out {
            let _ = out.flush();
        }
    }
}

/// Reads a move answer the way GomocupJudge does (protocol.md §12.17): two integers separated by
/// one comma, blanks around them tolerated; anything else is not a move.
pub fn parse_move_line(line: &str) -> Option<(i64, i64)> {
    let (a, b) = line.split_once(',')?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

/// An answer to `SWAP2BOARD`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Swap2Answer {
    Swap,
    Stones(Vec<(i64, i64)>),
}

/// As the engine wrote it: `SWAP`, or `x,y` tokens (for game details read by people).
impl std::fmt::Display for Swap2Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Swap2Answer::Swap => f.write_str("SWAP"),
            Swap2Answer::Stones(s) => {
                let text: Vec<String> = s.iter().map(|(x, y)| format!("{x},{y}")).collect();
                write!(f, "'{}'", text.join(" "))
            }
        }
    }
}

/// Reads a SWAP2BOARD answer: a line starting with `swap` (any case), or blank-separated `x,y`
/// tokens. Other lines are not answers (and are skipped, like GomocupJudge does).
pub fn parse_swap2_line(line: &str) -> Option<Swap2Answer> {
    if line
        .get(..4)
        .is_some_and(|p| p.eq_ignore_ascii_case("swap"))
    {
        return Some(Swap2Answer::Swap);
    }
    let stones: Option<Vec<_>> = line.split_whitespace().map(parse_move_line).collect();
    stones.filter(|s| !s.is_empty()).map(Swap2Answer::Stones)
}

/// Reads the `name="..."` field of an ABOUT answer.
pub fn parse_about_name(line: &str) -> Option<String> {
    let lower = line.to_ascii_lowercase();
    let start = lower.find("name=\"")? + 6;
    let len = line[start..].find('"')?;
    let name = line[start..start + len].trim();
    (!name.is_empty()).then(|| name.to_string())
}

/// Asks a freshly started engine for its `ABOUT` name, waiting at most `timeout`; the process is
/// ended afterwards. `Ok(None)` if it does not answer with a name in time; an error if it cannot be
/// started at all.
pub fn probe_name(command: &EngineCommand, timeout: Duration) -> std::io::Result<Option<String>> {
    let mut p = EngineProcess::spawn(command)?;
    if p.send("ABOUT").is_err() {
        return Ok(None);
    }
    let deadline = Instant::now() + timeout;
    let mut name = None;
    while let Ok((line, _)) = p.next_line(deadline) {
        if let Some(n) = parse_about_name(&line) {
            name = Some(n);
            break;
        }
    }
    p.shutdown(Duration::from_millis(300));
    Ok(name)
}

/// A player's failure that ends the game.
struct Fault {
    slot: usize,
    reason: EndReason,
    detail: String,
    /// In the handshake that opens the game (starting the process, `START`), before any move.
    at_start: bool,
}

enum Stop {
    Fault(Fault),
    Interrupted,
}

impl From<Fault> for Stop {
    fn from(f: Fault) -> Stop {
        Stop::Fault(f)
    }
}

impl Stop {
    /// The same stop, with a fault marked as one of the opening handshake.
    fn at_start(self) -> Stop {
        match self {
            Stop::Fault(f) => Stop::Fault(Fault {
                at_start: true,
                ..f
            }),
            other => other,
        }
    }
}

struct Player<'a> {
    session: &'a mut EngineSession,
    time_left_ms: i64,
    /// Whether this engine already received a move request in the regular phase of this game.
    moved: bool,
}

struct Table<'a, 'l> {
    players: [Player<'a>; 2],
    settings: &'a GameSettings,
    log: &'l mut GameLog,
}

/// Plays one game. `first` is black with a fixed opening, or the swap2 proposer. Engine processes
/// are started as needed and left running for the next game unless they misbehaved or
/// `restart_per_game` is set.
pub fn play_game(
    spec: &GameSpec,
    settings: &GameSettings,
    first: &mut EngineSession,
    second: &mut EngineSession,
    log: &mut GameLog,
) -> Result<GameRecord, GameAbort> {
    let mut game = Game::new(settings.width, settings.height, settings.rule)
        .map_err(|e| GameAbort::BadOpening(e.to_string()))?
        .with_draw_after(settings.draw_after);
    let opening = if settings.swap2 {
        Vec::new()
    } else {
        spec.opening.clone()
    };
    for &p in &opening {
        if game
            .play(p)
            .map_err(|e| GameAbort::BadOpening(e.to_string()))?
            .is_some()
        {
            return Err(GameAbort::BadOpening(format!(
                "the game is already over after opening stone {p}"
            )));
        }
    }
    let names = [first.config.name.clone(), second.config.name.clone()];
    let mut table = Table {
        players: [first, second].map(|s| Player {
            time_left_ms: if s.config.time.match_ms > 0 {
                s.config.time.match_ms as i64
            } else {
                UNLIMITED_TIME_LEFT_MS
            },
            session: s,
            moved: false,
        }),
        settings,
        log,
    };
    table.log.note(&format!(
        "game {} {} vs {} rule {} {}x{} opening {:?}",
        spec.game_index,
        names[0],
        names[1],
        settings.rule,
        settings.width,
        settings.height,
        opening.iter().map(|p| p.to_string()).collect::<Vec<_>>()
    ));
    let mut moves = Vec::new();
    let (mut black_slot, mut swap2_moves) = (0usize, 0usize);
    let result = table.run(&mut game, &mut moves, &mut black_slot, &mut swap2_moves);
    let slot_color = |slot: usize| {
        if slot == black_slot {
            Color::Black
        } else {
            Color::White
        }
    };
    let (winner, reason, detail) = match result {
        Err(Stop::Interrupted) => {
            table.finish(None);
            return Err(GameAbort::Interrupted);
        }
        Err(Stop::Fault(f)) => {
            let loser = slot_color(f.slot);
            let when = if f.at_start {
                "when the game opened".to_string()
            } else {
                format!("at move {}", game.moves().len() + 1)
            };
            let detail = format!("{} ({loser}) {} {when}", names[f.slot], f.detail);
            table.finish(Some(f.slot));
            (Some(loser.opponent()), f.reason, detail)
        }
        Ok(()) => {
            table.finish(None);
            outcome_summary(&game, &names, black_slot)
        }
    };
    table.log.note(&format!("result: {reason}: {detail}"));
    Ok(GameRecord {
        game_index: spec.game_index,
        opening_index: spec.opening_index,
        black: names[black_slot].clone(),
        white: names[1 - black_slot].clone(),
        rule: settings.rule,
        width: settings.width,
        height: settings.height,
        opening,
        moves,
        swap2_moves,
        winner,
        reason,
        detail,
    })
}

/// Winner, reason and detail of a game the rules ended.
fn outcome_summary(
    game: &Game,
    names: &[String; 2],
    black_slot: usize,
) -> (Option<Color>, EndReason, String) {
    let name_of = |c: Color| {
        &names[if c == Color::Black {
            black_slot
        } else {
            1 - black_slot
        }]
    };
    let Some(o) = game.outcome() else {
        return (None, EndReason::Draw, "unfinished".into());
    };
    let line: Vec<String> = o.line.iter().map(|p| p.to_string()).collect();
    match (o.reason, o.winner) {
        (Reason::Five, Some(w)) => (
            Some(w),
            EndReason::Five,
            format!(
                "{} ({w}) made five {} at move {}",
                name_of(w),
                line.join(" "),
                o.moves
            ),
        ),
        (Reason::Forbidden, Some(w)) => (
            Some(w),
            EndReason::Forbidden,
            format!(
                "{} (black) played the forbidden point {} at move {}",
                name_of(Color::Black),
                line.join(" "),
                o.moves
            ),
        ),
        _ => (
            None,
            EndReason::Draw,
            if game.board().is_full() {
                format!("board full after {} moves", o.moves)
            } else {
                format!("move limit reached after {} moves", o.moves)
            },
        ),
    }
}

impl Table<'_, '_> {
    fn name(&self, slot: usize) -> String {
        self.players[slot].session.config.name.clone()
    }

    fn run(
        &mut self,
        game: &mut Game,
        moves: &mut Vec<MoveRecord>,
        black_slot: &mut usize,
        swap2_moves: &mut usize,
    ) -> Result<(), Stop> {
        self.start(0).map_err(Stop::at_start)?;
        self.start(1).map_err(Stop::at_start)?;
        if self.settings.swap2 {
            // Every stone placed so far is a swap2 stone, whether or not the phase completed.
            let chosen = self.swap2(game, moves);
            *swap2_moves = moves.len();
            *black_slot = chosen?;
        }
        while !game.is_over() {
            let color = game.side_to_move();
            let slot = if color == Color::Black {
                *black_slot
            } else {
                1 - *black_slot
            };
            let request = if game.moves().is_empty() {
                vec!["BEGIN".to_string()]
            } else if !self.players[slot].moved || self.settings.board_every_move {
                board_block("BOARD", game.moves(), Some(color))
            } else {
                let last = game.last_move().unwrap_or(Pos::new(0, 0));
                vec![format!("TURN {last}")]
            };
            self.players[slot].moved = true;
            let ((x, y), ms) = self.request(slot, &request, parse_move_line)?;
            let p = self.on_board(slot, x, y, "played")?;
            match game.play(p) {
                Ok(_) => moves.push(MoveRecord {
                    pos: p,
                    time_ms: ms,
                }),
                Err(BoardError::Occupied(_)) => {
                    return Err(fault(
                        slot,
                        EndReason::Illegal,
                        format!("played {p}, which is occupied"),
                    )
                    .into())
                }
                Err(e) => {
                    return Err(fault(slot, EndReason::Illegal, format!("played {p}: {e}")).into())
                }
            }
        }
        Ok(())
    }

    /// The Gomocup swap2 opening (protocol.md §2.5); returns the slot that ends up with black.
    fn swap2(&mut self, game: &mut Game, moves: &mut Vec<MoveRecord>) -> Result<usize, Stop> {
        let bad = |slot: usize, what: String| -> Stop {
            fault(
                slot,
                EndReason::Illegal,
                format!("bad swap2 answer: {what}"),
            )
            .into()
        };
        // Case 1: the proposer (slot 0) places three stones.
        let (answer, ms) =
            self.request(0, &board_block("SWAP2BOARD", &[], None), parse_swap2_line)?;
        match answer {
            Swap2Answer::Stones(s) if s.len() == 3 => self.place_swap2(0, game, moves, &s, ms)?,
            other => return Err(bad(0, format!("{other}, expected three stones"))),
        }
        // Case 2: the other engine chooses.
        let (answer, ms) = self.request(
            1,
            &board_block("SWAP2BOARD", game.moves(), None),
            parse_swap2_line,
        )?;
        match answer {
            Swap2Answer::Swap => return Ok(1),
            Swap2Answer::Stones(s) if s.len() == 1 => {
                self.place_swap2(1, game, moves, &s, ms)?;
                return Ok(0);
            }
            Swap2Answer::Stones(s) if s.len() == 2 => self.place_swap2(1, game, moves, &s, ms)?,
            other => {
                return Err(bad(
                    1,
                    format!("{other}, expected SWAP, one stone or two stones"),
                ))
            }
        }
        // Case 3: the proposer chooses after five stones.
        let (answer, ms) = self.request(
            0,
            &board_block("SWAP2BOARD", game.moves(), None),
            parse_swap2_line,
        )?;
        match answer {
            Swap2Answer::Swap => Ok(0),
            Swap2Answer::Stones(s) if s.len() == 1 => {
                self.place_swap2(0, game, moves, &s, ms)?;
                Ok(1)
            }
            other => Err(bad(0, format!("{other}, expected SWAP or one stone"))),
        }
    }

    fn place_swap2(
        &mut self,
        slot: usize,
        game: &mut Game,
        moves: &mut Vec<MoveRecord>,
        stones: &[(i64, i64)],
        ms: u64,
    ) -> Result<(), Stop> {
        for (i, &(x, y)) in stones.iter().enumerate() {
            let p = self.on_board(slot, x, y, "placed swap2 stone")?;
            match game.play(p) {
                Ok(None) => moves.push(MoveRecord {
                    pos: p,
                    time_ms: if i == 0 { ms } else { 0 },
                }),
                Ok(Some(_)) => {
                    return Err(fault(
                        slot,
                        EndReason::Illegal,
                        format!("bad swap2 answer: stone {p} ends the game"),
                    )
                    .into())
                }
                Err(e) => {
                    return Err(fault(
                        slot,
                        EndReason::Illegal,
                        format!("bad swap2 answer: stone {p}: {e}"),
                    )
                    .into())
                }
            }
        }
        Ok(())
    }

    fn on_board(&self, slot: usize, x: i64, y: i64, what: &str) -> Result<Pos, Stop> {
        let s = self.settings;
        if (0..s.width as i64).contains(&x) && (0..s.height as i64).contains(&y) {
            Ok(Pos::new(x as u8, y as u8))
        } else {
            Err(fault(
                slot,
                EndReason::Illegal,
                format!(
                    "{what} {x},{y}, which is off the {}x{} board",
                    s.width, s.height
                ),
            )
            .into())
        }
    }

    /// Starts (if needed) the engine of `slot` and opens a new game on it: START / RECTSTART,
    /// waits for `OK`, then sends the INFO block. A process kept from the last game that turns
    /// out to have exited during the handshake is replaced by a fresh one, once: an engine may
    /// exit after its game ends, and whether it was gone before START was sent or just after
    /// must not decide the next game.
    fn start(&mut self, slot: usize) -> Result<(), Stop> {
        self.start_once(slot, true)
    }

    /// [`Table::start`] on a fresh process in place of a kept one that has exited.
    fn start_afresh(&mut self, slot: usize) -> Result<(), Stop> {
        let name = self.name(slot);
        self.log.note(&format!(
            "{name}'s process from the last game has exited; starting a fresh one"
        ));
        self.players[slot].session.process = None;
        self.start_once(slot, false)
    }

    fn start_once(&mut self, slot: usize, may_restart: bool) -> Result<(), Stop> {
        let name = self.name(slot);
        let settings = self.settings;
        let player = &mut self.players[slot];
        let config = player.session.config.clone();
        let tc = config.time;
        if player
            .session
            .process
            .as_mut()
            .is_some_and(|p| p.has_exited())
        {
            player.session.process = None;
        }
        let reused = player.session.process.is_some();
        if player.session.process.is_none() {
            match EngineProcess::spawn(&config.command) {
                Ok(mut p) => {
                    if settings.lf_line_endings {
                        p.eol = "\n";
                    }
                    self.log.note(&format!(
                        "started {name}: {} (pid {})",
                        config.command.program.display(),
                        p.pid()
                    ));
                    player.session.process = Some(p);
                }
                Err(e) => {
                    return Err(fault(
                        slot,
                        EndReason::Crash,
                        format!(
                            "could not be started ({}: {e})",
                            config.command.program.display()
                        ),
                    )
                    .into())
                }
            }
        }
        let start_cmd = if settings.width == settings.height {
            format!("START {}", settings.width)
        } else {
            format!("RECTSTART {},{}", settings.width, settings.height)
        };
        let mut info = vec![
            (
                "timeout_turn".to_string(),
                tc.announced_turn_ms().to_string(),
            ),
            ("timeout_match".to_string(), tc.match_ms.to_string()),
            (
                "max_memory".to_string(),
                settings.max_memory_bytes.to_string(),
            ),
            ("game_type".to_string(), "1".to_string()),
            ("rule".to_string(), settings.rule.to_protocol().to_string()),
        ];
        if let Some(folder) = &settings.folder {
            let dir = folder.join(sanitize(&name));
            let _ = std::fs::create_dir_all(&dir);
            // Absolute: the engine may run in another directory (`dir=`).
            let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
            info.push(("folder".to_string(), dir.display().to_string()));
        }
        info.extend(config.extra_info.iter().cloned());
        // The answer to START must come within one move's budget plus tolerance.
        let deadline_ms = tc.budget_ms(player.time_left_ms) + tc.tolerance_ms;
        let Some(process) = player.session.process.as_mut() else {
            return Err(Stop::Interrupted);
        };
        process.resume();
        for stale in process.drain() {
            self.log.write(Instant::now(), &name, "< (stale)", &stale);
        }
        self.log.write(Instant::now(), &name, ">", &start_cmd);
        let sent = process.send(&start_cmd);
        let gone = match &sent {
            Err(_) => true,
            // An exit is seen at once: the engine's output closes.
            Ok(()) => process.has_exited(),
        };
        if gone && reused && may_restart {
            return self.start_afresh(slot);
        }
        if let Err(e) = sent {
            return Err(fault(slot, EndReason::Crash, format!("closed its input ({e})")).into());
        }
        let sent = Instant::now();
        let deadline = sent + Duration::from_millis(deadline_ms);
        loop {
            match process.next_line(deadline) {
                Ok((line, at)) => {
                    self.log.write(at, &name, "<", &line);
                    let upper = line.to_ascii_uppercase();
                    if upper == "OK" {
                        break;
                    }
                    if upper.starts_with("ERROR") || upper.starts_with("UNKNOWN") {
                        return Err(fault(
                            slot,
                            EndReason::Crash,
                            format!("refused '{start_cmd}': {line}"),
                        )
                        .into());
                    }
                }
                Err(WaitError::Closed) if reused && may_restart => return self.start_afresh(slot),
                Err(e) => return Err(wait_fault(slot, e, &format!("no OK to '{start_cmd}'"))),
            }
        }
        let info: Vec<String> = info.iter().map(|(k, v)| format!("INFO {k} {v}")).collect();
        for line in &info {
            self.log.write(Instant::now(), &name, ">", line);
        }
        if let Err(e) = process.send_lines(&info) {
            return Err(fault(slot, EndReason::Crash, format!("closed its input ({e})")).into());
        }
        if settings.suspend {
            process.suspend();
        }
        Ok(())
    }

    /// Sends `INFO time_left` and `lines` to the engine of `slot` and waits for the first line that
    /// `parse` accepts, within the engine's budget plus tolerance. Returns the answer and the time
    /// it took in ms (charged to the engine's clock).
    fn request<T>(
        &mut self,
        slot: usize,
        lines: &[String],
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<(T, u64), Stop> {
        let name = self.name(slot);
        let settings = self.settings;
        let player = &mut self.players[slot];
        let tc = player.session.config.time;
        let Some(limit_ms) = tc.answer_limit_ms(player.time_left_ms) else {
            return Err(fault(
                slot,
                EndReason::Timeout,
                format!(
                    "match clock exhausted: {} ms over, more than the {} ms tolerance",
                    -player.time_left_ms, tc.tolerance_ms
                ),
            )
            .into());
        };
        let Some(process) = player.session.process.as_mut() else {
            return Err(fault(slot, EndReason::Crash, "has no process".into()).into());
        };
        process.resume();
        for stale in process.drain() {
            self.log.write(Instant::now(), &name, "< (stale)", &stale);
        }
        let time_left = player.time_left_ms.clamp(0, UNLIMITED_TIME_LEFT_MS);
        let mut all = Vec::with_capacity(lines.len() + 1);
        all.push(format!("INFO time_left {time_left}"));
        all.extend(lines.iter().cloned());
        // The clock starts just before the request is queued for writing; lines read before that
        // instant are stale output of an earlier turn and are skipped.
        for line in &all {
            self.log.write(Instant::now(), &name, ">", line);
        }
        let sent = Instant::now();
        if let Err(e) = process.send_lines(&all) {
            return Err(fault(slot, EndReason::Crash, format!("closed its input ({e})")).into());
        }
        let deadline = sent + Duration::from_millis(limit_ms.min(u32::MAX as u64));
        let (answer, at) = loop {
            match process.next_line(deadline) {
                Ok((line, at)) if at < sent => {
                    self.log.write(at, &name, "< (stale)", &line);
                }
                Ok((line, at)) => {
                    self.log.write(at, &name, "<", &line);
                    if line
                        .get(..7)
                        .is_some_and(|p| p.eq_ignore_ascii_case("MESSAGE"))
                    {
                        log::info!("{name}: {line}");
                        continue;
                    }
                    if let Some(a) = parse(&line) {
                        break (a, at);
                    }
                }
                Err(e) => {
                    return Err(wait_fault(
                        slot,
                        e,
                        &format!("gave no answer within {limit_ms} ms"),
                    ))
                }
            }
        };
        let used_ms = at.saturating_duration_since(sent).as_millis() as u64;
        if used_ms > limit_ms {
            return Err(fault(
                slot,
                EndReason::Timeout,
                format!("answered after {used_ms} ms, limit {limit_ms} ms"),
            )
            .into());
        }
        if tc.match_ms > 0 {
            player.time_left_ms = player.time_left_ms - used_ms as i64 + tc.increment_ms as i64;
        }
        if settings.suspend {
            process.suspend();
        }
        if settings.enforce_memory && settings.max_memory_bytes > 0 {
            if let Some(bytes) = process.memory_bytes() {
                if bytes > settings.max_memory_bytes {
                    return Err(fault(
                        slot,
                        EndReason::Crash,
                        format!(
                            "used {bytes} bytes of memory, limit {}",
                            settings.max_memory_bytes
                        ),
                    )
                    .into());
                }
            }
        }
        Ok((answer, used_ms))
    }

    /// After the game: faulty engines are killed, the rest kept (or ended with
    /// `restart_per_game`).
    fn finish(&mut self, faulty: Option<usize>) {
        let grace = Duration::from_millis(self.settings.end_grace_ms);
        for slot in 0..2 {
            let session = &mut self.players[slot].session;
            if faulty == Some(slot) {
                self.log.note(&format!("killing {}", session.config.name));
                session.kill();
            } else if self.settings.restart_per_game {
                session.stop(grace);
            } else if let Some(p) = session.process.as_mut() {
                if p.has_exited() {
                    session.process = None;
                } else if self.settings.suspend {
                    p.suspend();
                }
            }
        }
    }
}

fn fault(slot: usize, reason: EndReason, detail: String) -> Fault {
    Fault {
        slot,
        reason,
        detail,
        at_start: false,
    }
}

fn wait_fault(slot: usize, e: WaitError, timeout_detail: &str) -> Stop {
    match e {
        WaitError::Timeout => fault(slot, EndReason::Timeout, timeout_detail.to_string()).into(),
        WaitError::Closed => fault(
            slot,
            EndReason::Crash,
            "exited or closed its output".to_string(),
        )
        .into(),
        WaitError::Interrupted => Stop::Interrupted,
    }
}

/// `BOARD` / `SWAP2BOARD` block lines. With `to_move`, stones carry the relative field (1 = the
/// receiver's own stone, 2 = the opponent's); without, bare `x,y` in move order (SWAP2BOARD).
fn board_block(head: &str, moves: &[Pos], to_move: Option<Color>) -> Vec<String> {
    let mut lines = vec![head.to_string()];
    for (i, p) in moves.iter().enumerate() {
        lines.push(match to_move {
            Some(c) => {
                let own = Color::of_ply(i) == c;
                format!("{p},{}", if own { 1 } else { 2 })
            }
            None => p.to_string(),
        });
    }
    lines.push("DONE".to_string());
    lines
}

/// A file-name-safe form of an engine name: never empty, and never `.` or `..` (or any name
/// of dots only), which would name a folder other than the engine's own.
pub fn sanitize(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.chars().all(|c| c == '.') {
        format!("_{}", safe.replace('.', "_"))
    } else {
        safe
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitized_names_stay_inside_their_folder() {
        assert_eq!(sanitize("Rapfi 0.38/x"), "Rapfi_0.38_x");
        assert_eq!(sanitize("a.b"), "a.b");
        assert_eq!(sanitize(".hidden"), ".hidden");
        // `.`, `..` and the empty name would not be a folder of the engine's own.
        assert_eq!(sanitize("."), "__");
        assert_eq!(sanitize(".."), "___");
        assert_eq!(sanitize(""), "_");
    }

    #[test]
    fn move_lines_parse_like_gomocupjudge() {
        assert_eq!(parse_move_line("7,7"), Some((7, 7)));
        assert_eq!(parse_move_line(" 7 , 8 "), Some((7, 8)));
        assert_eq!(parse_move_line("-1,-1"), Some((-1, -1)));
        assert_eq!(parse_move_line("7,7 extra"), None);
        assert_eq!(parse_move_line("7,7,1"), None);
        assert_eq!(parse_move_line("OK"), None);
        assert_eq!(parse_move_line("DEBUG 7,7"), None);
        assert_eq!(parse_move_line("99999999999999999999,1"), None);
    }

    #[test]
    fn swap2_answers_parse() {
        assert_eq!(parse_swap2_line("SWAP"), Some(Swap2Answer::Swap));
        assert_eq!(parse_swap2_line("swap please"), Some(Swap2Answer::Swap));
        assert_eq!(
            parse_swap2_line("7,7 8,7  9,9"),
            Some(Swap2Answer::Stones(vec![(7, 7), (8, 7), (9, 9)]))
        );
        assert_eq!(parse_swap2_line("OK"), None);
        assert_eq!(parse_swap2_line("7,7 x"), None);
    }

    #[test]
    fn about_name_is_found() {
        assert_eq!(
            parse_about_name(r#"name="Rensa", version="0.1", author="x""#),
            Some("Rensa".into())
        );
        assert_eq!(parse_about_name(r#"NAME="A B""#), Some("A B".into()));
        assert_eq!(parse_about_name("version=\"1\""), None);
        assert_eq!(parse_about_name("name=\"unterminated"), None);
    }

    #[test]
    fn board_blocks_use_relative_fields() {
        let moves = [Pos::new(7, 7), Pos::new(8, 7), Pos::new(9, 9)];
        assert_eq!(
            board_block("BOARD", &moves, Some(Color::White)),
            ["BOARD", "7,7,2", "8,7,1", "9,9,2", "DONE"]
        );
        assert_eq!(
            board_block("SWAP2BOARD", &moves, None),
            ["SWAP2BOARD", "7,7", "8,7", "9,9", "DONE"]
        );
    }

    #[test]
    fn budgets_follow_the_tighter_limit() {
        let tc = TimeControl {
            turn_ms: 5000,
            match_ms: 120_000,
            increment_ms: 0,
            tolerance_ms: 1000,
        };
        assert_eq!(tc.budget_ms(120_000), 5000);
        assert_eq!(tc.budget_ms(3000), 3000);
        assert_eq!(tc.budget_ms(-50), 0);
        let no_turn = TimeControl { turn_ms: 0, ..tc };
        assert_eq!(no_turn.budget_ms(7000), 7000);
        assert_eq!(no_turn.announced_turn_ms(), 120_000);
        let no_match = TimeControl { match_ms: 0, ..tc };
        assert_eq!(no_match.budget_ms(UNLIMITED_TIME_LEFT_MS), 5000);
    }

    #[test]
    fn an_overrun_of_the_match_clock_comes_out_of_later_tolerance() {
        // Bug (audit): the time left stopped at 0 and every move got the whole tolerance again,
        // so an engine could overrun its match clock by a tolerance per move.
        let tc = TimeControl {
            turn_ms: 5000,
            match_ms: 120_000,
            increment_ms: 0,
            tolerance_ms: 1000,
        };
        assert_eq!(tc.answer_limit_ms(120_000), Some(6000));
        assert_eq!(tc.answer_limit_ms(3000), Some(4000));
        assert_eq!(tc.answer_limit_ms(0), Some(1000));
        assert_eq!(tc.answer_limit_ms(-600), Some(400));
        assert_eq!(tc.answer_limit_ms(-1000), None);
        assert_eq!(tc.answer_limit_ms(-5000), None);
        let no_match = TimeControl { match_ms: 0, ..tc };
        assert_eq!(no_match.answer_limit_ms(-5000), Some(6000));
        let no_turn = TimeControl { turn_ms: 0, ..tc };
        assert_eq!(no_turn.answer_limit_ms(7000), Some(8000));
        let none = TimeControl {
            turn_ms: 0,
            match_ms: 0,
            ..tc
        };
        assert!(none.answer_limit_ms(0).unwrap() > 1 << 40);
    }
}
