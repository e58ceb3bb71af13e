//! Protocol state and command dispatch: settings from INFO, the game on the engine, and what to
//! answer. No I/O and no threads here: [`Session::handle`] turns a command into reply lines or a
//! [`Job`] for the search thread; [`Session::finish`] turns the job's outcome into reply lines.

use super::command::{Command, Info, Stone};
use super::io::JobOutcome;
use super::output::Response;
use super::swap2::{self, Answer};
use super::timing::{self, Deadlines};
use crate::board::{Game, Outcome};
use crate::engine::{Engine, Limits, SearchInfo, SearchResult};
use crate::pos::{Pos, MAX_SIDE, MIN_SIDE};
use crate::search::greedy;
use crate::types::{Color, Depth, Rule, Value};
use crate::zobrist::SplitMix64;
use std::time::Instant;

pub use crate::engine::{min_memory_bytes, MIN_MEMORY_BYTES};

/// Most search threads we accept from `INFO thread_num` (the engine also caps them at the
/// machine's cores).
pub const MAX_THREADS: usize = crate::engine::MAX_THREADS;

/// Thinking time given to decisions made of several searches (swap2, balancing moves) when
/// nothing limits the move, in ms.
pub const MULTI_SEARCH_UNLIMITED_BUDGET_MS: u64 = 5_000;

/// The thinking time of a decision made of several searches (swap2, balancing moves) under the
/// backstop limit `limit_ms`: three answer margins and a quarter of the rest are kept back for
/// the searches' overruns. Under a match clock it is also at most `move_target_ms`, the target
/// time of one move ([`crate::search::time::budget`]): the backstop allows half of the clock
/// left, which a decision made before the first move would otherwise spend whenever the turn
/// limit is as long as the game (Gomocup's swap2 league has a game clock and no move limit).
fn multi_search_budget_ms(limit_ms: Option<u64>, move_target_ms: u64) -> u64 {
    limit_ms
        .map(|l| l.saturating_sub(timing::answer_margin_ms(l) * 3) * 3 / 4)
        .unwrap_or(MULTI_SEARCH_UNLIMITED_BUDGET_MS)
        .min(move_target_ms)
}

/// Values from INFO lines, kept across games (managers send some keys only once).
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub timeout_turn_ms: u64,
    /// `None` = no match limit.
    pub timeout_match_ms: Option<u64>,
    /// Last `time_left`, `None` if never sent.
    pub time_left_ms: Option<i64>,
    /// `max_memory`; 0 = no cap.
    pub max_memory_bytes: u64,
    /// `hash_size` in KiB; 0 = not given.
    pub hash_size_kib: u64,
    pub rule: Rule,
    pub max_nodes: Option<u64>,
    pub max_depth: Option<Depth>,
    pub threads: usize,
    pub strength: u32,
    pub show_detail: i64,
    /// `INFO pondering`: think on the opponent's time (see [`Session::ponder_job`]).
    pub pondering: bool,
    pub game_type: i64,
    /// `INFO folder`; we store nothing there (and would only ever write under `folder/Rensa/`).
    pub folder: Option<String>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            timeout_turn_ms: timing::DEFAULT_TURN_MS,
            timeout_match_ms: None,
            time_left_ms: None,
            max_memory_bytes: 0,
            hash_size_kib: 0,
            rule: Rule::Freestyle,
            max_nodes: None,
            max_depth: None,
            threads: 1,
            strength: 100,
            show_detail: 0,
            pondering: false,
            game_type: 1,
            folder: None,
        }
    }
}

impl Settings {
    /// The memory the engine may use: the smaller of the given caps, 0 if none.
    fn memory_bytes(&self) -> u64 {
        let hash = self.hash_size_kib.saturating_mul(1024);
        match (self.max_memory_bytes, hash) {
            (0, h) => h,
            (m, 0) => m,
            (m, h) => m.min(h),
        }
    }
}

/// What a search job computes.
#[derive(Clone, Debug, PartialEq)]
pub enum JobKind {
    /// Our move (BEGIN, TURN, BOARD): played on our board after answering.
    Move,
    /// `yxnbest n`: analysis; the board is unchanged.
    Nbest(usize),
    /// SWAP2BOARD with these stones, this much thinking time in ms, and the seed that varies a
    /// proposal (see [`swap2::decide`]).
    Swap2 {
        stones: Vec<Pos>,
        budget_ms: u64,
        seed: u64,
    },
    /// `yxbalanceone` (`two = false`) or `yxbalancetwo` with this bias and thinking time in ms:
    /// the answer's moves are played on our board.
    Balance {
        two: bool,
        bias: i32,
        budget_ms: u64,
    },
    /// Thinking on the opponent's time (`INFO pondering 1`): a search of the position after our
    /// move, with no limit, that only fills the engine's tables; stopped by the next command,
    /// and its result dropped.
    Ponder,
}

/// A search to run on the search thread, with its backstop.
#[derive(Debug)]
pub struct Job {
    pub kind: JobKind,
    pub limits: Limits,
    /// When the request line was read.
    pub at: Instant,
    /// `None` = no time limit.
    pub deadlines: Option<Deadlines>,
    /// The answer to print if the engine is late (computed before the search starts).
    pub fallback: Vec<Response>,
    /// The moves the fallback plays on our board, in order (none for analysis).
    pub fallback_moves: Vec<Pos>,
    /// MESSAGE lines owed before the answer.
    pub prefix: Vec<Response>,
    /// Board size and moves when the job started (to rebuild an engine that never returns).
    pub size: (usize, usize),
    pub moves: Vec<Pos>,
}

/// What the dispatcher must do after a command.
#[derive(Debug)]
pub enum Step {
    Reply(Vec<Response>),
    Search(Box<Job>, Box<Engine>),
    Exit,
}

/// A MESSAGE line owed before the next move reply.
#[derive(Debug, PartialEq, Eq)]
struct Note {
    /// The INFO key whose value the note is about (`None`: the position or the command): a
    /// later value of that key replaces the note, and a new game drops the others.
    about: Option<String>,
    text: String,
}

/// The key a note about an INFO line is filed under (see [`Note::about`]): a memory cap too
/// small for the threads is about `max_memory` whichever of the two keys came last.
fn info_key(info: &Info) -> Option<&str> {
    Some(match info {
        Info::TimeoutTurn(_) => "timeout_turn",
        Info::TimeoutMatch(_) => "timeout_match",
        Info::TimeLeft(_) => "time_left",
        Info::MaxMemory(_) => "max_memory",
        Info::GameType(_) => "game_type",
        Info::Rule(_) => "rule",
        Info::Folder(_) => "folder",
        Info::Evaluate(_) => "evaluate",
        Info::MaxNode(_) => "max_node",
        Info::MaxDepth(_) => "max_depth",
        Info::ThreadNum(_) => "thread_num",
        Info::HashSize(_) => "hash_size",
        Info::Strength(_) => "strength",
        Info::ShowDetail(_) => "show_detail",
        Info::Pondering(_) => "pondering",
        Info::Invalid { key, .. } => key,
        Info::Other { .. } => return None,
    })
}

/// The brain's protocol state.
#[derive(Debug)]
pub struct Session {
    /// `None` while a job has it.
    engine: Option<Box<Engine>>,
    pub settings: Settings,
    /// MESSAGE lines owed before the next move reply (INFO values we cannot honour, ...).
    notes: Vec<Note>,
    /// `yxshowinfo` was received.
    gui: bool,
    /// A START / RECTSTART has been accepted.
    started: bool,
    /// Our own thinking time in this game, ms (match clock estimate without `time_left`).
    used_ms: u64,
    /// The move we last answered; while it is still the last stone on the board, it is the
    /// opponent's turn (so `PLAY` is refused instead of playing for the wrong colour).
    our_last: Option<Pos>,
    /// Continuous-game marks (BOARD field 3) on cells our board holds as empty: never played.
    marks: Vec<Pos>,
    /// Cells a GUI blocked (`yxblock`): never chosen, in any game, until `yxblockundo` or
    /// `yxblockreset` (Yixin-Board sends START before each analysis, so START keeps them).
    blocked: Vec<Pos>,
    /// Seeds of swap2 proposals, one drawn per SWAP2BOARD: the generator starts from the clock
    /// and the process id, so proposals vary from game to game and from process to process
    /// (each seed is logged).
    swap2_seeds: SplitMix64,
}

impl Default for Session {
    fn default() -> Session {
        Session::new()
    }
}

fn err(text: impl Into<String>) -> Step {
    Step::Reply(vec![Response::Error(text.into())])
}

fn outcome_text(o: &Outcome) -> String {
    match o.winner {
        Some(c) => format!("{c} has won ({})", o.reason),
        None => format!("it is a draw ({})", o.reason),
    }
}

/// Whether `p` is a legal move for the side to move: on the board, empty and, for black under
/// renju, not forbidden.
pub fn is_legal(game: &Game, p: Pos) -> bool {
    let b = game.board();
    b.contains(p)
        && b.is_empty(p)
        && !(game.rule() == Rule::Renju
            && game.side_to_move() == Color::Black
            && game.is_forbidden(p))
}

/// Win probability shown to GUIs for a value (logistic; forced results are 0 or 1).
pub fn win_rate(v: Value) -> f64 {
    match v.mate_plies() {
        Some(_) if v.0 > 0 => 1.0,
        Some(_) => 0.0,
        None => 1.0 / (1.0 + (-(v.0 as f64) / 400.0).exp()),
    }
}

impl Session {
    pub fn new() -> Session {
        Session {
            engine: Some(Box::new(Engine::new())),
            settings: Settings::default(),
            notes: Vec::new(),
            gui: false,
            started: false,
            used_ms: 0,
            our_last: None,
            marks: Vec::new(),
            blocked: Vec::new(),
            swap2_seeds: SplitMix64(crate::zobrist::clock_seed()),
        }
    }

    /// Whether GUI realtime lines (`MESSAGE REALTIME ...`) are wanted.
    fn realtime(&self) -> bool {
        self.gui || self.settings.show_detail & 1 != 0
    }

    /// Whether GUI detail lines (`INFO PV ...`) are wanted.
    fn detail(&self) -> bool {
        self.gui || self.settings.show_detail & 2 != 0
    }

    /// A note about the position or the command (see [`Note`]).
    fn note(&mut self, text: String) {
        self.file_note(None, text);
    }

    /// A note about the value of the INFO key `about` (see [`Note`]).
    fn note_about(&mut self, about: &str, text: String) {
        self.file_note(Some(about.to_string()), text);
    }

    fn file_note(&mut self, about: Option<String>, text: String) {
        log::info!("note for the next reply: {text}");
        let note = Note { about, text };
        if self.notes.len() < 16 && !self.notes.contains(&note) {
            self.notes.push(note);
        }
    }

    /// Drops the notes still owed about the INFO key `about`; returns whether there were any.
    fn drop_notes_about(&mut self, about: &str) -> bool {
        let before = self.notes.len();
        self.notes.retain(|n| n.about.as_deref() != Some(about));
        self.notes.len() != before
    }

    fn take_notes(&mut self) -> Vec<Response> {
        self.notes
            .drain(..)
            .map(|n| Response::Message(n.text))
            .collect()
    }

    /// The limits for the next search. Without `time_left`, the match clock left is
    /// `timeout_match` minus our own thinking time in this game.
    pub fn limits(&self) -> Limits {
        let s = &self.settings;
        Limits {
            turn_time_ms: Some(s.timeout_turn_ms),
            match_time_ms: s.timeout_match_ms,
            time_left_ms: timing::clock_left_ms(s.time_left_ms, s.timeout_match_ms, self.used_ms),
            max_nodes: s.max_nodes,
            max_depth: s.max_depth,
            strength: s.strength,
            threads: s.threads,
            avoid: self.avoided(),
            started: None,
        }
    }

    /// The cells no search may choose: the continuous-game marks and the blocked cells on the
    /// board.
    fn avoided(&self) -> Vec<Pos> {
        let mut v = self.marks.clone();
        if let Some(e) = self.engine.as_deref() {
            let b = e.game().board();
            for &p in &self.blocked {
                if b.contains(p) && !v.contains(&p) {
                    v.push(p);
                }
            }
        }
        v
    }

    /// The backstop limit for a request, in ms (`None` = unlimited).
    pub fn move_limit_ms(&self) -> Option<u64> {
        timing::move_limit_ms(
            Some(self.settings.timeout_turn_ms),
            self.settings.time_left_ms,
            self.settings.timeout_match_ms,
            self.used_ms,
        )
    }

    /// The target time of one move with `empty_cells` empty cells under the current limits (the
    /// search's own budget; unlimited when nothing limits the move).
    fn move_target_ms(&self, empty_cells: usize) -> u64 {
        crate::search::time::budget(&self.limits(), empty_cells).soft_ms
    }

    /// A note when `max_memory` is below what the process needs with the threads asked for
    /// ([`min_memory_bytes`]; 0 means no limit).
    fn check_memory(&mut self) {
        let (bytes, threads) = (self.settings.max_memory_bytes, self.settings.threads);
        let need = min_memory_bytes(threads);
        if bytes > 0 && bytes < need {
            let with = if threads > 1 {
                format!(" with {threads} threads")
            } else {
                String::new()
            };
            let using = match crate::engine::threads_for_memory(bytes) {
                1 if threads > 1 => "playing with one thread and minimal tables".to_string(),
                1 => "playing with minimal tables".to_string(),
                n => format!("searching with at most {n} threads"),
            };
            self.note_about(
                "max_memory",
                format!(
                    "max_memory {bytes} bytes is less than the {need} bytes Rensa needs{with}; {using}"
                ),
            );
        }
    }

    /// Applies an INFO line. Never produces output; problems become notes, and a note still
    /// owed about the key's earlier value is dropped (the new value stands in its place).
    pub fn apply_info(&mut self, info: Info) {
        // A value that cannot be honoured is ignored: the earlier one, and any note about it,
        // stay in force. The note names the key: two keys with the same bad value
        // (`timeout_turn -1`, `rule -1`) are two problems, not one.
        let refused = match &info {
            Info::TimeoutTurn(v) | Info::TimeoutMatch(v) | Info::MaxMemory(v) if *v < 0 => Some(*v),
            Info::Rule(v) if !(0..16).contains(v) => Some(*v),
            _ => None,
        };
        if let (Some(v), Some(key)) = (refused, info_key(&info)) {
            self.note_about(key, format!("INFO {key} {v} cannot be honoured; ignored"));
            return;
        }
        if let Info::Invalid { key, value } = &info {
            let text = format!("INFO {key} '{value}' is not a valid value; ignored");
            self.note_about(key, text);
            return;
        }
        if let Some(key) = info_key(&info) {
            self.drop_notes_about(key);
        }
        let s = &mut self.settings;
        match info {
            Info::TimeoutTurn(v) => s.timeout_turn_ms = v as u64,
            Info::TimeoutMatch(v) => s.timeout_match_ms = (v > 0).then_some(v as u64),
            Info::TimeLeft(v) => s.time_left_ms = Some(v),
            Info::MaxMemory(v) => {
                s.max_memory_bytes = v as u64;
                self.check_memory();
            }
            Info::GameType(v) => s.game_type = v,
            Info::Rule(v) => {
                s.rule = Rule::from_protocol(v);
                let rule = s.rule;
                // Its tables (once per rule and process) are built on another thread, not here:
                // a command behind this one may be a move request whose clock is running. The
                // search waits for them on that clock, and the time backstop still answers.
                crate::board::fast::prepare_tables_soon(rule);
                if v & 2 != 0 && v != 2 {
                    self.note_about(
                        "rule",
                        format!("continuous games (rule bit 2) are not supported; playing {rule}"),
                    );
                }
                if v & 12 == 12 {
                    self.note_about(
                        "rule",
                        format!(
                            "rule {v} sets both the renju (4) and caro (8) bits; playing {rule}"
                        ),
                    );
                }
            }
            Info::Folder(f) => s.folder = Some(f),
            Info::Evaluate(_) => {}
            Info::MaxNode(v) => s.max_nodes = (v > 0).then_some(v as u64),
            Info::MaxDepth(v) => s.max_depth = (v > 0).then_some(v.min(Depth::MAX as i64) as Depth),
            Info::ThreadNum(v) => {
                // A cap noted as too small is noted afresh with the new threads' need while its
                // note is still owed (a manager may send `max_memory` before `thread_num`); once
                // reported, only if the threads now need more.
                let old_need = min_memory_bytes(s.threads);
                let was_enough = s.max_memory_bytes == 0 || s.max_memory_bytes >= old_need;
                s.threads = v.clamp(1, MAX_THREADS as i64) as usize;
                let grew = min_memory_bytes(s.threads) > old_need;
                if self.drop_notes_about("max_memory") || was_enough || grew {
                    self.check_memory();
                }
                if v < 1 {
                    self.note_about(
                        "thread_num",
                        format!("thread_num {v} is not a thread count; using 1"),
                    );
                } else if v > MAX_THREADS as i64 {
                    self.note_about(
                        "thread_num",
                        format!("thread_num {v} capped at {MAX_THREADS}"),
                    );
                }
            }
            Info::HashSize(v) => {
                s.hash_size_kib = v.max(0) as u64;
                if v < 0 {
                    self.note_about("hash_size", format!("hash_size {v} is not a size; ignored"));
                }
            }
            Info::Strength(v) => {
                s.strength = v.clamp(0, 100) as u32;
                if !(0..=100).contains(&v) {
                    self.note_about(
                        "strength",
                        format!("strength {v} is outside 0..100; using {}", v.clamp(0, 100)),
                    );
                }
            }
            Info::ShowDetail(v) => s.show_detail = v,
            Info::Pondering(v) => s.pondering = v != 0,
            Info::Other { key } => log::debug!("INFO {key} ignored"),
            // Refused above.
            Info::Invalid { .. } => {}
        }
    }

    /// Brings the engine in line with the settings (rule, memory) before it is used.
    fn sync_engine(&mut self) {
        let (rule, mem) = (self.settings.rule, self.settings.memory_bytes());
        let mut cleared = false;
        if let Some(e) = self.engine.as_mut() {
            if e.rule() != rule {
                cleared = !e.set_rule(rule);
            }
            let want = if mem == 0 {
                crate::engine::DEFAULT_MEMORY_BYTES
            } else {
                mem
            };
            if e.memory_limit() != want {
                e.set_memory_limit(mem);
            }
        }
        if cleared {
            self.note(format!(
                "the position cannot be played on under {rule} (the game would already be over, or a move is a foul); the board is now empty"
            ));
        }
    }

    /// The engine, which is always home while a command is being handled.
    fn engine(&mut self) -> &mut Engine {
        self.engine
            .as_deref_mut()
            .expect("commands are handled only while no job holds the engine")
    }

    /// The current game (the engine is home).
    fn game(&self) -> &Game {
        self.engine
            .as_deref()
            .expect("commands are handled only while no job holds the engine")
            .game()
    }

    /// Handles one command read at `at`.
    pub fn handle(&mut self, cmd: Command, at: Instant) -> Step {
        if let Command::Info(i) = cmd {
            self.apply_info(i);
            return Step::Reply(vec![]);
        }
        self.sync_engine();
        // A move request answered with an ERROR still carries the notes owed (a manager reads
        // MESSAGE lines before the reply whatever it is).
        let asks_move = matches!(
            cmd,
            Command::Begin
                | Command::Turn(_)
                | Command::Board { silent: false, .. }
                | Command::Swap2Board(_)
        );
        let mut step = self.dispatch(cmd, at);
        if let Step::Reply(lines) = &mut step {
            if asks_move && lines.iter().any(|l| matches!(l, Response::Error(_))) {
                let mut notes = self.take_notes();
                notes.append(lines);
                *lines = notes;
            }
        }
        step
    }

    /// Handles one command other than INFO (see [`Session::handle`]).
    fn dispatch(&mut self, cmd: Command, at: Instant) -> Step {
        match cmd {
            Command::Info(_) => Step::Reply(vec![]),
            Command::Start(n) => self.start(n, n),
            Command::RectStart { width, height } => self.start(width, height),
            Command::Restart => self.restart(),
            Command::Begin => self.begin(at),
            Command::Turn(p) => self.turn(p, at),
            Command::Board { stones, silent } => self.board(&stones, silent, at),
            Command::Swap2Board(stones) => self.swap2board(stones, at),
            Command::Takeback(p) => self.takeback(p),
            Command::Play(p) => self.play(p),
            Command::About => Step::Reply(vec![Response::About]),
            Command::End => Step::Exit,
            Command::Stop => Step::Reply(vec![]),
            Command::ShowForbid => {
                let pts = self.engine().game().forbidden_points();
                Step::Reply(vec![Response::Forbid(pts)])
            }
            Command::HashClear => {
                self.engine().clear_hash();
                Step::Reply(vec![])
            }
            Command::ShowInfo => {
                self.gui = true;
                Step::Reply(vec![
                    Response::Message(format!("Rensa {}", env!("CARGO_PKG_VERSION"))),
                    Response::Message(format!(
                        "INFO MAX_THREAD_NUM {}",
                        crate::engine::max_search_threads()
                    )),
                ])
            }
            Command::Nbest(n) => self.nbest(n as usize, at),
            Command::Block { cells, undo } => {
                self.block(&cells, undo);
                Step::Reply(vec![])
            }
            Command::BlockReset => {
                self.blocked.clear();
                Step::Reply(vec![])
            }
            Command::Balance { two, bias } => self.balance(two, bias, at),
            Command::Unknown(text) => Step::Reply(vec![Response::Unknown(text)]),
        }
    }

    fn start(&mut self, width: u64, height: u64) -> Step {
        let ok = |v: u64| (MIN_SIDE as u64..=MAX_SIDE as u64).contains(&v);
        if !ok(width) || !ok(height) {
            // Numbers too large for 64 bits arrive saturated.
            let size = if width == u64::MAX || height == u64::MAX {
                "beyond any board".to_string()
            } else {
                format!("{width}x{height}")
            };
            return err(format!(
                "Unsupported size {size}; use 15 or 20 (supported: {MIN_SIDE} to {MAX_SIDE})"
            ));
        }
        // The hash is kept: Yixin-Board sends START before every search and clears the hash
        // itself with `yxhashclear` when it wants to.
        if let Err(e) = self.engine().new_game(width as usize, height as usize) {
            return err(e.to_string());
        }
        self.started = true;
        self.used_ms = 0;
        self.marks.clear();
        // Notes about the last game's position are stale; those about INFO values still hold.
        self.notes.retain(|n| n.about.is_some());
        Step::Reply(vec![Response::Ok])
    }

    fn restart(&mut self) -> Step {
        if !self.started {
            return err("RESTART before START; send START n first");
        }
        let b = self.engine().game().board();
        let (w, h) = (b.width() as u64, b.height() as u64);
        self.start(w, h)
    }

    /// Checks that a move may be searched for in the current position.
    fn check_playable(&mut self, what: &str) -> Result<(), String> {
        if !self.started {
            return Err(format!("{what} before START; send START n first"));
        }
        if let Some(o) = self.engine().game().outcome() {
            return Err(format!("the game is already over: {}", outcome_text(o)));
        }
        Ok(())
    }

    fn begin(&mut self, at: Instant) -> Step {
        if let Err(e) = self.check_playable("BEGIN") {
            return err(e);
        }
        // BEGIN means "the board is empty, you start"; on a board with stones an ERROR would be
        // no move, which a manager scores as a loss, so we move for the side to move instead.
        let n = self.engine().game().board().stone_count();
        if n != 0 {
            self.note(format!(
                "BEGIN on a board with {n} stones; moving for the side to move"
            ));
        }
        self.search_move(at)
    }

    fn turn(&mut self, p: Pos, at: Instant) -> Step {
        if let Err(e) = self.check_playable("TURN") {
            return err(e);
        }
        if let Err(e) = self.engine().play(p) {
            return err(format!("TURN {p}: {e}"));
        }
        if let Some(over) = self.game().outcome().map(outcome_text) {
            self.marks.retain(|&m| m != p);
            return err(format!("the game is over after {p}: {over}"));
        }
        if self.quick_move().is_none() {
            // Every empty cell left is blocked (`yxblock`) or marked: no answer can be given,
            // so the move is not taken either (an ERROR leaves the state as it was).
            let _ = self.engine().undo();
            return err(format!("TURN {p}: {}", self.no_move_reason()));
        }
        self.marks.retain(|&m| m != p);
        self.search_move(at)
    }

    fn takeback(&mut self, p: Pos) -> Step {
        if !self.started {
            return err("TAKEBACK before START");
        }
        match self.engine().game().last_move() {
            Some(last) if last == p => {
                let _ = self.engine().undo();
                Step::Reply(vec![Response::Ok])
            }
            Some(last) => err(format!("TAKEBACK {p}: the last stone is {last}")),
            None => err(format!("TAKEBACK {p}: the board is empty")),
        }
    }

    fn play(&mut self, p: Pos) -> Step {
        if let Err(e) = self.check_playable("PLAY") {
            return err(e);
        }
        if self.our_last.is_some() && self.engine().game().last_move() == self.our_last {
            return err(format!(
                "PLAY {p}: it is not our turn (we just played {})",
                self.our_last.map(|q| q.to_string()).unwrap_or_default()
            ));
        }
        match self.engine().play(p) {
            Ok(()) => {
                self.our_last = Some(p);
                Step::Reply(vec![Response::Move(p)])
            }
            Err(e) => err(format!("PLAY {p}: {e}")),
        }
    }

    /// Builds the game a BOARD block describes, or says why it cannot.
    /// Also returns the continuous-game marks (field 3) that fall on cells the game leaves
    /// empty, once each.
    fn game_from_stones(&mut self, stones: &[Stone]) -> Result<(Game, Vec<Pos>), String> {
        let (w, h, rule) = {
            let g = self.engine().game();
            (g.board().width(), g.board().height(), g.rule())
        };
        let own: Vec<Pos> = stones
            .iter()
            .filter(|s| s.field == 1)
            .map(|s| s.pos)
            .collect();
        let opp: Vec<Pos> = stones
            .iter()
            .filter(|s| s.field == 2)
            .map(|s| s.pos)
            .collect();
        let (black, white) = if own.len() == opp.len() {
            (own, opp)
        } else if opp.len() == own.len() + 1 {
            (opp, own)
        } else {
            return Err(format!(
                "inconsistent stone counts: {} own (1) and {} opponent (2); own must equal opponent or be one less",
                own.len(),
                opp.len()
            ));
        };
        // Move order within each colour is kept; the colours alternate, black first.
        let mut moves = Vec::with_capacity(black.len() + white.len());
        for (i, &bp) in black.iter().enumerate() {
            moves.push(bp);
            if let Some(&wp) = white.get(i) {
                moves.push(wp);
            }
        }
        let mut game = Game::new(w, h, rule).map_err(|e| e.to_string())?;
        for (i, &p) in moves.iter().enumerate() {
            game.play(p).map_err(|e| match e {
                crate::BoardError::GameOver => format!(
                    "the game was already decided before stone {} ({p}) in move order",
                    i + 1
                ),
                e => format!("stone {p}: {e}"),
            })?;
        }
        let mut marks: Vec<Pos> = Vec::new();
        for s in stones.iter().filter(|s| s.field == 3) {
            if game.board().is_empty(s.pos) && !marks.contains(&s.pos) {
                marks.push(s.pos);
            }
        }
        Ok((game, marks))
    }

    /// Replaces the engine's game with `game`'s moves.
    fn set_position(&mut self, game: &Game) {
        let (w, h) = (game.board().width(), game.board().height());
        let e = self.engine();
        let placed = e.new_game(w, h).is_ok() && game.moves().iter().all(|&p| e.play(p).is_ok());
        if !placed {
            log::error!("could not replay a validated position");
        }
    }

    fn board(&mut self, stones: &[Stone], silent: bool, at: Instant) -> Step {
        let what = if silent { "YXBOARD" } else { "BOARD" };
        if !self.started {
            return err(format!("{what} before START; send START n first"));
        }
        let (game, marks) = match self.game_from_stones(stones) {
            Ok(g) => g,
            Err(e) => return err(format!("{what} rejected, position unchanged: {e}")),
        };
        self.set_position(&game);
        if !marks.is_empty() {
            self.note(format!(
                "{} continuous-game stones (field 3) kept off limits but otherwise ignored; continuous games are not supported",
                marks.len()
            ));
        }
        self.marks = marks;
        if silent {
            return Step::Reply(vec![]);
        }
        if let Some(o) = self.engine().game().outcome() {
            return err(format!("the game is already over: {}", outcome_text(o)));
        }
        self.search_move(at)
    }

    fn swap2board(&mut self, stones: Vec<Pos>, at: Instant) -> Step {
        if !self.started {
            return err("SWAP2BOARD before START; send START n first");
        }
        if ![0, 3, 5].contains(&stones.len()) {
            return err(format!(
                "SWAP2BOARD needs 0, 3 or 5 stones, got {}",
                stones.len()
            ));
        }
        let (w, h, rule) = {
            let g = self.engine().game();
            (g.board().width(), g.board().height(), g.rule())
        };
        let game = match Game::from_moves(w, h, rule, &stones) {
            Ok(g) if !g.is_over() => g,
            Ok(_) => return err("SWAP2BOARD position is already decided"),
            Err(e) => return err(format!("SWAP2BOARD rejected: {e}")),
        };
        let (fallback, fallback_moves) = if stones.is_empty() {
            let first = swap2::candidates_for(rule, w, h)
                .into_iter()
                .next()
                .unwrap_or_default();
            (vec![Response::Stones(first)], vec![])
        } else {
            match greedy::best_move(&game) {
                Some(p) => (vec![Response::Stones(vec![p])], vec![]),
                None => (vec![Response::Swap], vec![]),
            }
        };
        let limit = self.move_limit_ms();
        let budget_ms =
            multi_search_budget_ms(limit, self.move_target_ms(game.board().empty_count()));
        let seed = self.swap2_seeds.next_u64();
        self.job(
            JobKind::Swap2 {
                stones,
                budget_ms,
                seed,
            },
            at,
            limit,
            fallback,
            fallback_moves,
        )
    }

    fn nbest(&mut self, n: usize, at: Instant) -> Step {
        if let Err(e) = self.check_playable("YXNBEST") {
            return err(e);
        }
        let Some(best) = self.quick_move() else {
            return err(format!("YXNBEST: {}", self.no_move_reason()));
        };
        let limit = self.move_limit_ms();
        self.job(
            JobKind::Nbest(n.min(64)),
            at,
            limit,
            vec![Response::Move(best)],
            vec![],
        )
    }

    /// Adds `cells` to the blocked cells (`undo`: removes them). The list holds each cell once,
    /// so it stays within the largest board.
    fn block(&mut self, cells: &[Pos], undo: bool) {
        for &p in cells {
            if undo {
                self.blocked.retain(|&q| q != p);
            } else if !self.blocked.contains(&p) {
                self.blocked.push(p);
            }
        }
    }

    /// `yxbalanceone` / `yxbalancetwo`: a search job for the balancing move(s), answered late
    /// with quick moves.
    fn balance(&mut self, two: bool, bias: i32, at: Instant) -> Step {
        let what = if two { "YXBALANCETWO" } else { "YXBALANCEONE" };
        if let Err(e) = self.check_playable(what) {
            return err(e);
        }
        let Some(first) = self.quick_move() else {
            return err(format!("{what}: {}", self.no_move_reason()));
        };
        let mut fallback = vec![first];
        if two {
            // A quick pair that leaves the game going: the quick move (or, if it ends the
            // game, another cell), then the greedy reply.
            let avoid = self.avoided();
            let g = self.game();
            let pair = std::iter::once(first)
                .chain(g.board().empty_cells())
                .filter(|p| !avoid.contains(p) && is_legal(g, *p))
                .find_map(|p| {
                    let mut after = g.clone();
                    match after.play(p) {
                        Ok(None) => greedy::best_move(&after)
                            .filter(|q| !avoid.contains(q))
                            .or_else(|| greedy::any_move(&after, &avoid))
                            .map(|q| [p, q]),
                        _ => None,
                    }
                });
            match pair {
                Some(pq) => fallback = pq.to_vec(),
                None => return err(format!("{what}: no two moves leave the game going")),
            }
        }
        let limit = self.move_limit_ms();
        let empty = self.game().board().empty_count();
        let budget_ms = multi_search_budget_ms(limit, self.move_target_ms(empty));
        let answer = balance_answer(two, &fallback);
        self.job(
            JobKind::Balance {
                two,
                bias,
                budget_ms,
            },
            at,
            limit,
            vec![answer],
            fallback,
        )
    }

    /// The move to answer with if the search is late: the greedy player's, or when that falls
    /// on a continuous-game mark or a blocked cell, any other cell.
    fn quick_move(&self) -> Option<Pos> {
        let g = self.game();
        let avoid = self.avoided();
        greedy::best_move(g)
            .filter(|p| !avoid.contains(p))
            .or_else(|| greedy::any_move(g, &avoid))
    }

    /// Why [`Self::quick_move`] found no cell: a full board, or every empty cell avoided.
    fn no_move_reason(&self) -> String {
        let empty = self.game().board().empty_count();
        if empty == 0 {
            "the board is full".into()
        } else {
            format!("all {empty} empty cells are blocked (yxblock) or marked; nowhere to move")
        }
    }

    /// Starts a move search (or answers at once when no time is left).
    fn search_move(&mut self, at: Instant) -> Step {
        let Some(best) = self.quick_move() else {
            return err(self.no_move_reason());
        };
        if !is_legal(self.game(), best) {
            // Renju black with only fouls left (the quick move is legal whenever a legal cell
            // is free): there is no legal move, and a foul is still a move.
            self.note(format!(
                "no legal move: every free empty cell is forbidden for black; playing {best}, a foul"
            ));
        }
        let limit = self.move_limit_ms();
        self.job(
            JobKind::Move,
            at,
            limit,
            vec![Response::Move(best)],
            vec![best],
        )
    }

    fn job(
        &mut self,
        kind: JobKind,
        at: Instant,
        limit_ms: Option<u64>,
        fallback: Vec<Response>,
        fallback_moves: Vec<Pos>,
    ) -> Step {
        let prefix = if kind == JobKind::Move || matches!(kind, JobKind::Swap2 { .. }) {
            self.take_notes()
        } else {
            Vec::new()
        };
        let (size, moves) = {
            let g = self.engine().game();
            ((g.board().width(), g.board().height()), g.moves().to_vec())
        };
        let mut limits = self.limits();
        if kind == JobKind::Move {
            // A move's clock runs from when its request was read.
            limits.started = Some(at);
        }
        let job = Job {
            kind,
            limits,
            at,
            deadlines: limit_ms.map(|l| timing::deadlines(at, l)),
            fallback,
            fallback_moves,
            prefix,
            size,
            moves,
        };
        if limit_ms == Some(0) {
            // No time at all: the precomputed move is the answer.
            let lines = self.answer_with_fallback(&job);
            for &p in &job.fallback_moves {
                let _ = self.engine().play(p);
            }
            return Step::Reply(lines);
        }
        let engine = self.engine.take().expect("engine is home");
        Step::Search(Box::new(job), engine)
    }

    /// The fallback answer of a job (the engine did not answer in time).
    pub fn answer_with_fallback(&mut self, job: &Job) -> Vec<Response> {
        self.add_used(job);
        self.note_our_moves(&job.kind, &job.fallback_moves);
        let mut lines = job.prefix.clone();
        lines.extend(job.fallback.iter().cloned());
        lines
    }

    /// Records that we answered with `moves` for a job of `kind`: after our own move (or one
    /// balancing move) it is the opponent's turn; after a balancing pair it is ours again.
    fn note_our_moves(&mut self, kind: &JobKind, moves: &[Pos]) {
        match kind {
            JobKind::Move | JobKind::Balance { two: false, .. } => {
                self.our_last = moves.first().copied()
            }
            JobKind::Balance { two: true, .. } => self.our_last = None,
            JobKind::Nbest(_) | JobKind::Swap2 { .. } | JobKind::Ponder => {}
        }
    }

    fn add_used(&mut self, job: &Job) {
        if matches!(
            job.kind,
            JobKind::Move | JobKind::Swap2 { .. } | JobKind::Balance { .. }
        ) {
            self.used_ms = self
                .used_ms
                .saturating_add(job.at.elapsed().as_millis() as u64);
        }
    }

    /// The engine came back after the fallback answer: take it home and play the fallback move.
    pub fn restore_after_fallback(&mut self, job: &Job, engine: Box<Engine>) {
        self.engine = Some(engine);
        for &p in &job.fallback_moves {
            if let Err(e) = self.engine().play(p) {
                log::error!("fallback move {p} could not be played: {e}");
            }
        }
    }

    /// The engine never came back: build a fresh one with the job's position.
    pub fn rebuild_engine(&mut self, job: &Job) {
        log::error!("the search did not return; continuing with a fresh engine");
        let mut e = Box::new(Engine::new());
        let (w, h) = job.size;
        let _ = e.new_game(w, h);
        self.engine = Some(e);
        self.sync_engine();
        let e = self.engine();
        for &p in &job.moves {
            let _ = e.play(p);
        }
        for &p in &job.fallback_moves {
            let _ = e.play(p);
        }
    }

    /// A search on the opponent's time, when `INFO pondering` asks for one and we have just
    /// answered a move request: the position after our move, searched with no limit until the
    /// next command stops it, to fill the engine's tables for our next move. Not with a
    /// `strength` below 100, whose searches must stay as weak as asked, nor when the game is
    /// over. `max_node` and `max_depth` do not stop it: Yixin-Board sends them with every search
    /// (`500000000`, `225`) as "no limit", and a user who sets them low and asks for pondering
    /// gets both. The engine goes with the job; [`Session::end_ponder`]
    /// takes it home.
    pub fn ponder_job(&mut self) -> Option<(Box<Job>, Box<Engine>)> {
        let s = &self.settings;
        if !s.pondering || s.strength < 100 {
            return None;
        }
        let g = self.engine.as_deref()?.game();
        if self.our_last.is_none() || g.moves().last().copied() != self.our_last {
            return None;
        }
        if g.is_over() || g.board().is_full() {
            return None;
        }
        let size = (g.board().width(), g.board().height());
        let moves = g.moves().to_vec();
        let limits = Limits {
            threads: s.threads,
            ..Limits::default()
        };
        let job = Job {
            kind: JobKind::Ponder,
            limits,
            at: Instant::now(),
            deadlines: None,
            fallback: Vec::new(),
            fallback_moves: Vec::new(),
            prefix: Vec::new(),
            size,
            moves,
        };
        let engine = self.engine.take()?;
        Some((Box::new(job), engine))
    }

    /// The engine came back from pondering: take it home (the search's answer is dropped).
    pub fn end_ponder(&mut self, engine: Box<Engine>) {
        self.engine = Some(engine);
    }

    /// Lines to print for search progress (only in GUI mode).
    pub fn progress_lines(&self, job: &Job, info: &SearchInfo) -> Vec<Response> {
        let mut out = Vec::new();
        if self.realtime() {
            if let Some(p) = info.pv.first() {
                out.push(Response::Message(format!("REALTIME BEST {p}")));
            }
        }
        if self.detail() && job.kind == JobKind::Move {
            out.extend(pv_block(
                0,
                1,
                info.depth,
                info.seldepth,
                info.nodes,
                info.elapsed_ms,
                info.value,
                &info.pv,
            ));
        }
        out
    }

    /// The job finished in time: take the engine home and produce the answer.
    pub fn finish(&mut self, job: &Job, engine: Box<Engine>, outcome: JobOutcome) -> Vec<Response> {
        self.engine = Some(engine);
        self.add_used(job);
        let mut lines = job.prefix.clone();
        match outcome {
            JobOutcome::Move(r) => {
                let chosen = match r.best {
                    Some(p) if is_legal(self.game(), p) => Some(p),
                    other => {
                        log::warn!(
                            "engine answered {other:?}, not a legal move; using the fallback"
                        );
                        job.fallback_moves.first().copied()
                    }
                };
                match chosen {
                    Some(p) => {
                        if let Err(e) = self.engine().play(p) {
                            log::error!("our move {p} could not be played: {e}");
                        }
                        self.our_last = Some(p);
                        lines.push(Response::Move(p));
                    }
                    None => lines.extend(job.fallback.iter().cloned()),
                }
            }
            JobOutcome::Nbest(results) => {
                let legal: Vec<&SearchResult> = results
                    .iter()
                    .filter(|r| r.best.is_some_and(|p| is_legal(self.game(), p)))
                    .collect();
                if self.detail() {
                    let n = legal.len();
                    for (i, r) in legal.iter().enumerate() {
                        lines.extend(pv_block(
                            i,
                            n,
                            r.depth,
                            r.depth,
                            r.nodes,
                            r.elapsed_ms,
                            r.value,
                            &r.pv,
                        ));
                    }
                }
                match legal.first().and_then(|r| r.best) {
                    Some(p) => lines.push(Response::Move(p)),
                    None => lines.extend(job.fallback.iter().cloned()),
                }
            }
            JobOutcome::Balance(moves) => {
                let two = matches!(job.kind, JobKind::Balance { two: true, .. });
                let mut g = self.game().clone();
                let valid = moves.len() == if two { 2 } else { 1 }
                    && moves.iter().all(|&p| is_legal(&g, p) && g.play(p).is_ok());
                let chosen = if valid {
                    moves
                } else {
                    log::warn!("balance answer {moves:?} is not legal here; using the fallback");
                    job.fallback_moves.clone()
                };
                for &p in &chosen {
                    if let Err(e) = self.engine().play(p) {
                        log::error!("balancing move {p} could not be played: {e}");
                    }
                }
                self.note_our_moves(&job.kind, &chosen);
                lines.push(balance_answer(two, &chosen));
            }
            JobOutcome::Swap2(Answer::Swap) => lines.push(Response::Swap),
            JobOutcome::Swap2(Answer::Stones(s)) => {
                let valid = match &job.kind {
                    JobKind::Swap2 { stones, .. } => {
                        let (w, h) = job.size;
                        let shape_ok = match stones.len() {
                            0 => s.len() == 3,
                            3 => s.len() == 1 || s.len() == 2,
                            _ => s.len() == 1,
                        };
                        let mut all = stones.clone();
                        all.extend(&s);
                        shape_ok && Game::from_moves(w, h, self.settings.rule, &all).is_ok()
                    }
                    _ => false,
                };
                if valid {
                    lines.push(Response::Stones(s));
                } else {
                    log::warn!("swap2 answer {s:?} is malformed; using the fallback");
                    lines.extend(job.fallback.iter().cloned());
                }
            }
        }
        lines
    }
}

/// The answer line of a balancing job: the move, or (`two`) the pair on one line.
fn balance_answer(two: bool, moves: &[Pos]) -> Response {
    if two {
        Response::Stones(moves.to_vec())
    } else {
        Response::Move(moves[0])
    }
}

/// One Yixin-Board analysis block for PV `index` of `count`.
#[allow(clippy::too_many_arguments)]
fn pv_block(
    index: usize,
    count: usize,
    depth: Depth,
    seldepth: Depth,
    nodes: u64,
    elapsed_ms: u64,
    value: Value,
    pv: &[Pos],
) -> Vec<Response> {
    let speed = nodes.saturating_mul(1000) / elapsed_ms.max(1);
    let line: Vec<String> = pv.iter().map(Pos::to_string).collect();
    [
        format!("PV {index}"),
        format!("NUMPV {count}"),
        format!("DEPTH {depth}"),
        format!("SELDEPTH {seldepth}"),
        format!("NODES {nodes}"),
        format!("TOTALNODES {nodes}"),
        format!("TOTALTIME {elapsed_ms}"),
        format!("SPEED {speed}"),
        format!("EVAL {value}"),
        format!("WINRATE {:.4}", win_rate(value)),
        format!("BESTLINE {}", line.join(" ")),
        "PV DONE".to_string(),
    ]
    .into_iter()
    .map(Response::Info)
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::command::Parser;

    fn parse(line: &str) -> Command {
        let mut out = Parser::new().feed(line);
        assert_eq!(out.len(), 1, "{line}");
        out.remove(0).unwrap()
    }

    /// Runs one command; a search is run to completion on this thread.
    fn run(s: &mut Session, line: &str) -> Vec<String> {
        let at = Instant::now();
        let lines = match s.handle(parse(line), at) {
            Step::Reply(l) => l,
            Step::Exit => vec![Response::Message("<exit>".into())],
            Step::Search(job, mut engine) => {
                let stop = std::sync::atomic::AtomicBool::new(false);
                let outcome = super::super::engine_search(
                    &mut engine,
                    &job.kind,
                    &job.limits,
                    &stop,
                    &mut |_| {},
                );
                s.finish(&job, engine, outcome)
            }
        };
        lines.iter().map(Response::to_string).collect()
    }

    fn started() -> Session {
        let mut s = Session::new();
        assert_eq!(run(&mut s, "INFO timeout_turn 200"), Vec::<String>::new());
        assert_eq!(run(&mut s, "START 15"), vec!["OK"]);
        s
    }

    fn is_move(line: &str) -> bool {
        line.parse::<Pos>().is_ok() && !line.contains(' ')
    }

    #[test]
    fn start_accepts_the_supported_range_only() {
        let mut s = Session::new();
        for ok in [
            "START 5",
            "START 15",
            "START 20",
            "START 64",
            "RECTSTART 30,20",
        ] {
            assert_eq!(run(&mut s, ok), vec!["OK"], "{ok}");
        }
        for bad in ["START 4", "START 65", "RECTSTART 4,20", "RECTSTART 20,65"] {
            let out = run(&mut s, bad);
            assert!(
                out[0].starts_with("ERROR Unsupported size"),
                "{bad}: {out:?}"
            );
            assert!(out[0].contains("15") && out[0].contains("20"), "{out:?}");
        }
        // The last good size stays.
        assert_eq!(s.game().board().width(), 30);
    }

    #[test]
    fn board_colours_follow_the_stone_counts() {
        let mut s = started();
        // Equal counts: we are black; stones in any order keep their order per colour.
        assert!(run(&mut s, "YXBOARD 1,1,2 2,2,1 3,3,2 4,4,1 DONE").is_empty());
        assert_eq!(
            s.game().moves(),
            &[
                Pos::new(2, 2),
                Pos::new(1, 1),
                Pos::new(4, 4),
                Pos::new(3, 3)
            ]
        );
        assert_eq!(s.game().side_to_move(), Color::Black);
        // One more opponent stone: the opponent is black and we are white.
        assert!(run(&mut s, "YXBOARD 1,1,2 2,2,1 3,3,2 DONE").is_empty());
        assert_eq!(
            s.game().moves(),
            &[Pos::new(1, 1), Pos::new(2, 2), Pos::new(3, 3)]
        );
        assert_eq!(s.game().side_to_move(), Color::White);
        // Inconsistent counts leave the position alone.
        let out = run(&mut s, "YXBOARD 1,1,1 2,2,1 DONE");
        assert!(out[0].starts_with("ERROR YXBOARD rejected, position unchanged: inconsistent"));
        assert_eq!(s.game().moves().len(), 3);
        // An empty BOARD means: we are black and move now.
        let out = run(&mut s, "BOARD DONE");
        assert_eq!(out.len(), 1);
        assert!(is_move(&out[0]), "{out:?}");
        assert_eq!(s.game().moves().len(), 1);
    }

    /// `max_memory` below what the process needs gets a note, counting the threads asked for
    /// whichever of the two INFO lines comes last; 16 MiB is enough for two threads.
    #[test]
    fn a_memory_cap_too_small_for_the_threads_is_noted() {
        let mut s = started();
        for l in ["INFO max_memory 16777216", "INFO thread_num 2"] {
            assert!(run(&mut s, l).is_empty());
        }
        assert!(s.notes.is_empty(), "{:?}", s.notes);
        assert!(run(&mut s, "INFO thread_num 3").is_empty());
        assert_eq!(s.notes.len(), 1);
        assert!(
            s.notes[0]
                .text
                .contains("less than the 18874368 bytes Rensa needs with 3 threads; searching with at most 2 threads"),
            "{:?}",
            s.notes
        );
        s.notes.clear();
        assert!(run(&mut s, "INFO max_memory 1000000").is_empty());
        assert!(
            s.notes[0]
                .text
                .ends_with("; playing with one thread and minimal tables"),
            "{:?}",
            s.notes
        );
        s.notes.clear();
        assert!(run(&mut s, "INFO max_memory 18874368").is_empty());
        assert!(run(&mut s, "INFO max_memory 0").is_empty());
        assert!(s.notes.is_empty(), "{:?}", s.notes);
        assert!(run(&mut s, "INFO max_memory 18874367").is_empty());
        assert_eq!(s.notes.len(), 1);
        assert_eq!(min_memory_bytes(1), MIN_MEMORY_BYTES);
        assert_eq!(min_memory_bytes(2), MIN_MEMORY_BYTES);
    }

    #[test]
    fn a_small_cap_sent_before_the_threads_is_noted_with_their_need() {
        // c-gomoku-cli's order: max_memory, then thread_num.
        let mut s = started();
        assert!(run(&mut s, "INFO max_memory 1000000").is_empty());
        assert_eq!(s.notes.len(), 1);
        // The note not yet reported is replaced by one with the threads' need.
        assert!(run(&mut s, "INFO thread_num 4").is_empty());
        assert_eq!(s.notes.len(), 1, "{:?}", s.notes);
        let need = |n| {
            format!(
                "less than the {} bytes Rensa needs with {n} threads",
                min_memory_bytes(n)
            )
        };
        assert!(s.notes[0].text.contains(&need(4)), "{:?}", s.notes);
        // Once reported, the same or a smaller need is not noted again; a larger one is.
        assert_eq!(s.take_notes().len(), 1);
        for l in [
            "INFO thread_num 4",
            "INFO thread_num 2",
            "INFO thread_num 1",
        ] {
            assert!(run(&mut s, l).is_empty());
        }
        assert!(s.notes.is_empty(), "{:?}", s.notes);
        assert!(run(&mut s, "INFO thread_num 8").is_empty());
        assert_eq!(s.notes.len(), 1, "{:?}", s.notes);
        assert!(s.notes[0].text.contains(&need(8)), "{:?}", s.notes);
    }

    /// A note is about what is in force when the reply comes: a later value of the same INFO
    /// key replaces it (an ignored value does not), an ERROR reply to a move request carries
    /// it, and a new game drops the notes about the last game's position.
    #[test]
    fn notes_owed_follow_the_values_in_force() {
        let messages = |out: &[String]| {
            out.iter()
                .filter_map(|l| l.strip_prefix("MESSAGE ").map(str::to_string))
                .collect::<Vec<_>>()
        };
        // A replaced rule value: no note about it.
        let mut s = started();
        for l in ["INFO rule 6", "INFO rule 0"] {
            assert!(run(&mut s, l).is_empty());
        }
        let out = run(&mut s, "BEGIN");
        assert!(messages(&out).is_empty(), "{out:?}");
        assert!(is_move(out.last().unwrap()), "{out:?}");
        // A replaced memory cap, and an ignored value that leaves the old one (and its note).
        let mut s = started();
        for l in ["INFO max_memory 1000", "INFO max_memory 367001600"] {
            assert!(run(&mut s, l).is_empty());
        }
        assert!(s.notes.is_empty(), "{:?}", s.notes);
        for l in [
            "INFO max_memory 1000",
            "INFO max_memory -5",
            "INFO max_memory x",
        ] {
            assert!(run(&mut s, l).is_empty());
        }
        let texts: Vec<&str> = s.notes.iter().map(|n| n.text.as_str()).collect();
        assert_eq!(texts.len(), 3, "{texts:?}");
        assert!(
            texts[0].starts_with("max_memory 1000 bytes is less"),
            "{texts:?}"
        );
        // An ERROR reply to a move request carries the notes; they are not repeated after it.
        let mut s = started();
        assert!(run(&mut s, "INFO rule 6").is_empty());
        let out = run(&mut s, "TURN 15,15");
        assert_eq!(messages(&out).len(), 1, "{out:?}");
        assert!(messages(&out)[0].contains("continuous games"), "{out:?}");
        assert!(out.last().unwrap().starts_with("ERROR "), "{out:?}");
        assert!(s.notes.is_empty(), "{:?}", s.notes);
        // Other commands leave them owed.
        assert!(run(&mut s, "INFO strength 500").is_empty());
        assert!(messages(&run(&mut s, "ABOUT")).is_empty());
        assert_eq!(s.notes.len(), 1);
        // A new game keeps the notes about INFO values and drops those about the position.
        s.note("about the old position".to_string());
        assert_eq!(run(&mut s, "START 15"), vec!["OK"]);
        let texts: Vec<&str> = s.notes.iter().map(|n| n.text.as_str()).collect();
        assert_eq!(texts, vec!["strength 500 is outside 0..100; using 100"]);
    }

    #[test]
    fn info_is_silent_and_problems_come_before_the_next_move() {
        let mut s = started();
        for l in [
            "INFO max_memory 1000",
            "INFO rule 3",
            "INFO timeout_turn x",
            "INFO folder a b c",
            "INFO unknown_key 1 2 3",
        ] {
            assert!(run(&mut s, l).is_empty(), "{l}");
        }
        assert_eq!(s.settings.folder.as_deref(), Some("a b c"));
        assert_eq!(s.settings.rule, Rule::Exact);
        // Not before OK ...
        assert_eq!(run(&mut s, "RESTART"), vec!["OK"]);
        // ... but before the move.
        let out = run(&mut s, "BEGIN");
        assert_eq!(out.len(), 4, "{out:?}");
        assert!(out[..3].iter().all(|l| l.starts_with("MESSAGE ")));
        assert!(is_move(&out[3]));
        // Only once.
        let out = run(&mut s, "TURN 0,0");
        assert_eq!(out.len(), 1);
        assert!(is_move(&out[0]));
    }

    #[test]
    fn a_rule_change_keeps_the_position_or_says_it_cleared_it() {
        let mut s = started();
        assert!(run(&mut s, "INFO rule 1").is_empty());
        // Under exact five the opponent's six on the top row (its last move) is no win.
        let six = "YXBOARD 0,0,2 14,14,1 1,0,2 14,12,1 2,0,2 12,14,1 4,0,2 12,12,1 5,0,2 10,10,1 3,0,2 8,14,1 DONE";
        assert!(run(&mut s, six).is_empty());
        // Under caro it ends the game with its last move: the position is kept, and over.
        assert!(run(&mut s, "INFO rule 8").is_empty());
        let out = run(&mut s, "TURN 7,7");
        assert_eq!(
            out,
            vec!["ERROR the game is already over: white has won (five)"]
        );
        assert_eq!(s.game().moves().len(), 12);
        // Back under exact five the game goes on.
        assert!(run(&mut s, "INFO rule 1").is_empty());
        let out = run(&mut s, "TURN 7,7");
        assert!(out.len() == 1 && is_move(&out[0]), "{out:?}");
        assert_eq!(s.game().moves().len(), 14);
        // Under freestyle the game would have ended before the last two moves: the board is
        // cleared, and the reply says so before the move.
        assert!(run(&mut s, "INFO rule 0").is_empty());
        let out = run(&mut s, "TURN 0,0");
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(out[0].starts_with("MESSAGE ") && out[0].contains("board is now empty"));
        assert!(is_move(&out[1]));
        assert_eq!(s.game().moves().len(), 2);
    }

    #[test]
    fn without_time_left_the_match_clock_is_our_own() {
        let mut s = started();
        assert_eq!(s.limits().time_left_ms, None, "no match limit");
        assert!(run(&mut s, "INFO timeout_match 100000").is_empty());
        assert_eq!(s.limits().time_left_ms, Some(100_000));
        s.used_ms = 40_000;
        assert_eq!(s.limits().time_left_ms, Some(60_000));
        s.used_ms = 250_000;
        assert_eq!(
            s.limits().time_left_ms,
            Some(0),
            "overdrawn: answer at once"
        );
        // A new game gives the clock back.
        assert_eq!(run(&mut s, "RESTART"), vec!["OK"]);
        assert_eq!(s.limits().time_left_ms, Some(100_000));
        // The manager's figure wins when it sends one.
        s.used_ms = 40_000;
        assert!(run(&mut s, "INFO time_left 5000").is_empty());
        assert_eq!(s.limits().time_left_ms, Some(5000));
        assert!(run(&mut s, "INFO timeout_match 0").is_empty());
        assert_eq!(s.limits().match_time_ms, None);
    }

    #[test]
    fn thread_num_reaches_the_limits_within_bounds() {
        let mut s = started();
        assert_eq!(s.limits().threads, 1, "one thread unless told");
        for (line, threads, noted) in [
            ("INFO thread_num 2", 2, false),
            ("INFO thread_num 0", 1, true),
            ("INFO thread_num 3", 3, false),
            ("INFO thread_num -4", 1, true),
            ("INFO thread_num 100000", MAX_THREADS, true),
            ("INFO thread_num 1", 1, false),
        ] {
            assert!(run(&mut s, line).is_empty(), "{line}");
            assert_eq!(s.limits().threads, threads, "{line}");
            assert_eq!(s.take_notes().len(), noted as usize, "{line}");
        }
        assert!(run(&mut s, "INFO thread_num 2").is_empty());
        let out = run(&mut s, "BEGIN");
        assert!(is_move(&out[0]), "{out:?}");
    }

    #[test]
    fn continuous_game_marks_are_never_played() {
        let mut s = started();
        // The opponent's four 3..6,7 is closed by our 2,7; its other end, 7,7, is a mark, so
        // the block our board sees there is not a legal move.
        let board = "BOARD 3,7,2 4,7,2 5,7,2 6,7,2 7,7,3 2,7,1 0,0,1 1,1,1 DONE";
        let mark = Pos::new(7, 7);
        let out = run(&mut s, board);
        assert!(
            out[0].starts_with("MESSAGE 1 continuous-game stones (field 3)"),
            "{out:?}"
        );
        let ours: Pos = out[1].parse().unwrap();
        assert_ne!(ours, mark);
        assert_eq!(s.limits().avoid, vec![mark]);
        assert_ne!(s.quick_move(), Some(mark), "the late answer avoids it too");
        // Analysis avoids it, and a new game forgets it.
        assert_eq!(run(&mut s, &format!("TAKEBACK {ours}")), vec!["OK"]);
        assert!(run(&mut s, "YXNBEST 2").iter().all(|l| *l != "7,7"));
        assert_eq!(run(&mut s, "RESTART"), vec!["OK"]);
        assert!(s.limits().avoid.is_empty());
    }

    #[test]
    fn move_requests_play_our_answer_and_takeback_undoes() {
        let mut s = started();
        let first = run(&mut s, "BEGIN");
        assert!(is_move(&first[0]));
        let ours: Pos = first[0].parse().unwrap();
        assert_eq!(s.game().moves(), &[ours]);
        // BEGIN on a board with stones: a note, then a move for the side to move.
        let again = run(&mut s, "BEGIN");
        assert_eq!(
            again[0],
            "MESSAGE BEGIN on a board with 1 stones; moving for the side to move"
        );
        let extra: Pos = again[1].parse().unwrap();
        assert_eq!(s.game().moves(), &[ours, extra]);
        assert_eq!(run(&mut s, &format!("TAKEBACK {extra}")), vec!["OK"]);
        let out = run(&mut s, "TURN 0,0");
        let second: Pos = out[0].parse().unwrap();
        assert_eq!(s.game().moves(), &[ours, Pos::new(0, 0), second]);
        assert!(run(&mut s, "TAKEBACK 0,0")[0].starts_with("ERROR TAKEBACK 0,0: the last stone is"));
        assert_eq!(run(&mut s, &format!("TAKEBACK {second}")), vec!["OK"]);
        assert_eq!(run(&mut s, "TAKEBACK 0,0"), vec!["OK"]);
        assert_eq!(run(&mut s, "PLAY 3,3"), vec!["3,3"]);
        assert_eq!(s.game().moves(), &[ours, Pos::new(3, 3)]);
    }

    #[test]
    fn zero_time_answers_without_searching() {
        let mut s = started();
        assert!(run(&mut s, "INFO timeout_turn 0").is_empty());
        match s.handle(parse("BEGIN"), Instant::now()) {
            Step::Reply(lines) => {
                assert_eq!(lines.len(), 1);
                assert!(matches!(lines[0], Response::Move(_)));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(s.game().moves().len(), 1);
        assert!(run(&mut s, "INFO timeout_turn 100").is_empty());
        assert!(run(&mut s, "INFO time_left -5").is_empty());
        assert!(matches!(
            s.handle(parse("TURN 0,0"), Instant::now()),
            Step::Reply(_)
        ));
    }

    #[test]
    fn commands_before_start_and_after_the_end_are_errors() {
        let mut s = Session::new();
        for l in [
            "BEGIN",
            "TURN 1,1",
            "BOARD DONE",
            "TAKEBACK 1,1",
            "PLAY 1,1",
            "RESTART",
            "SWAP2BOARD DONE",
            "YXNBEST 1",
        ] {
            let out = run(&mut s, l);
            assert_eq!(out.len(), 1, "{l}");
            assert!(
                out[0].starts_with("ERROR ") && out[0].contains("START"),
                "{l}: {out:?}"
            );
        }
        let mut s = started();
        assert!(run(
            &mut s,
            "YXBOARD 0,0,2 9,9,1 1,0,2 9,11,1 2,0,2 11,9,1 3,0,2 11,11,1 DONE"
        )
        .is_empty());
        assert_eq!(run(&mut s, "PLAY 14,0"), vec!["14,0"]);
        assert!(run(&mut s, "TURN 4,0")[0]
            .starts_with("ERROR the game is over after 4,0: white has won"));
        assert!(run(&mut s, "TURN 5,5")[0].starts_with("ERROR the game is already over"));
        assert_eq!(s.game().moves().len(), 10);
    }

    #[test]
    fn swap2_answers_have_the_right_shape() {
        let mut s = started();
        let out = run(&mut s, "SWAP2BOARD DONE");
        assert_eq!(out.len(), 1);
        let stones: Vec<Pos> = out[0].split(' ').map(|t| t.parse().unwrap()).collect();
        assert_eq!(stones.len(), 3);
        assert!(Game::from_moves(15, 15, Rule::Freestyle, &stones).is_ok());
        let out = run(&mut s, "SWAP2BOARD 7,7 8,7 9,9 DONE");
        assert_eq!(out.len(), 1);
        let two_ok = out[0]
            .split_once(' ')
            .is_some_and(|(a, b)| is_move(a) && is_move(b));
        assert!(out[0] == "SWAP" || is_move(&out[0]) || two_ok, "{out:?}");
        let out = run(&mut s, "SWAP2BOARD 7,7 8,7 9,9 3,3 4,4 DONE");
        assert_eq!(out.len(), 1);
        assert!(out[0] == "SWAP" || is_move(&out[0]), "{out:?}");
        assert_eq!(
            run(&mut s, "SWAP2BOARD 7,7 DONE"),
            vec!["ERROR SWAP2BOARD needs 0, 3 or 5 stones, got 1"]
        );
        // The game itself is untouched by SWAP2BOARD.
        assert!(s.game().moves().is_empty());
    }

    /// The thinking time `line`'s decision job gets (swap2 or balancing); the job is then run
    /// and answered as usual.
    fn decision_budget(s: &mut Session, line: &str) -> u64 {
        let Step::Search(job, mut engine) = s.handle(parse(line), Instant::now()) else {
            panic!("{line}: no search");
        };
        let budget = match job.kind {
            JobKind::Swap2 { budget_ms, .. } | JobKind::Balance { budget_ms, .. } => budget_ms,
            _ => panic!("{line}: not a decision"),
        };
        let stop = std::sync::atomic::AtomicBool::new(false);
        let outcome =
            super::super::engine_search(&mut engine, &job.kind, &job.limits, &stop, &mut |_| {});
        s.finish(&job, engine, outcome);
        budget
    }

    #[test]
    fn decisions_take_one_move_s_share_of_a_match_clock() {
        let mut s = started();
        run(&mut s, "INFO max_node 2000");
        // A turn limit alone: three quarters of it once the margins are off (200 - 3 * 15).
        assert_eq!(decision_budget(&mut s, "SWAP2BOARD DONE"), 116);
        // A 100 s game clock with a turn limit as long: what one move may take (the clock,
        // less two overheads, over 20 moves), not three quarters of half the clock.
        for info in [
            "timeout_turn 100000",
            "timeout_match 100000",
            "time_left 100000",
        ] {
            run(&mut s, &format!("INFO {info}"));
        }
        let target = (100_000 - 2 * crate::search::time::MOVE_OVERHEAD_MS) / 20;
        assert_eq!(decision_budget(&mut s, "SWAP2BOARD DONE"), target);
        assert_eq!(
            decision_budget(&mut s, "SWAP2BOARD 7,7 8,7 9,9 DONE"),
            target
        );
        run(&mut s, "YXBOARD 7,7,2 8,8,1 7,8,2 DONE");
        assert_eq!(decision_budget(&mut s, "YXBALANCEONE"), target);
        // No match clock: the turn limit decides again.
        run(&mut s, "INFO timeout_match 0");
        run(&mut s, "INFO time_left 2147483647");
        let turn = (100_000 - 3 * timing::answer_margin_ms(100_000)) * 3 / 4;
        assert_eq!(decision_budget(&mut s, "SWAP2BOARD DONE"), turn);
    }

    #[test]
    fn blocked_cells_are_never_chosen_until_allowed_again() {
        let mut s = started();
        run(&mut s, "INFO max_node 3000");
        // On the empty board the engine opens in the centre; blocked, it may not.
        assert_eq!(run(&mut s, "YXBLOCK 7,7 DONE"), Vec::<String>::new());
        let out = run(&mut s, "BEGIN");
        assert!(is_move(&out[0]) && out[0] != "7,7", "{out:?}");
        // START keeps the list (GUIs send it before each analysis); so does the analysis.
        run(&mut s, "START 15");
        let out = run(&mut s, "YXNBEST 2");
        assert!(!out.contains(&"7,7".to_string()), "{out:?}");
        run(&mut s, "START 15");
        assert_eq!(run(&mut s, "YXBLOCKUNDO 7,7 DONE"), Vec::<String>::new());
        assert_eq!(run(&mut s, "BEGIN"), vec!["7,7"]);
        // The only cell that stops the opponent's five is blocked: still never chosen.
        run(&mut s, "START 15");
        run(&mut s, "YXBLOCK 3,7 DONE");
        let out = run(
            &mut s,
            "BOARD 8,7,1 4,7,2 0,0,1 5,7,2 0,14,1 6,7,2 14,0,1 7,7,2 DONE",
        );
        assert!(is_move(&out[0]) && out[0] != "3,7", "{out:?}");
        run(&mut s, "YXBLOCKRESET");
        assert_eq!(
            run(
                &mut s,
                "BOARD 8,7,1 4,7,2 0,0,1 5,7,2 0,14,1 6,7,2 14,0,1 7,7,2 DONE"
            ),
            vec!["3,7"]
        );
        // Every empty cell but one blocked: after our move there, a TURN leaves nowhere to
        // answer, so it is refused with an ERROR that says why, and not played.
        run(&mut s, "START 5");
        let all_but_centre: Vec<String> = (0..5)
            .flat_map(|x| (0..5).map(move |y| format!("{x},{y}")))
            .filter(|c| c != "2,2")
            .collect();
        run(
            &mut s,
            &format!("YXBLOCK {} DONE", all_but_centre.join(" ")),
        );
        assert_eq!(run(&mut s, "BEGIN"), vec!["2,2"]);
        let out = run(&mut s, "TURN 0,0");
        assert!(
            out[0].starts_with("ERROR") && out[0].contains("blocked"),
            "{out:?}"
        );
        assert_eq!(s.game().moves().len(), 1);
        let out = run(&mut s, "TAKEBACK 0,0");
        assert!(out[0].starts_with("ERROR"), "{out:?}");
        run(&mut s, "YXBLOCKRESET");
    }

    #[test]
    fn balancing_answers_are_played_on_our_board() {
        let mut s = started();
        run(&mut s, "INFO max_node 2000");
        run(&mut s, "YXBOARD 7,7,2 8,8,1 7,8,2 DONE");
        // White to move after black's two stones (7,7 and 7,8): one move.
        let out = run(&mut s, "YXBALANCEONE");
        assert_eq!(out.len(), 1);
        assert!(is_move(&out[0]), "{out:?}");
        assert_eq!(s.game().moves().len(), 4);
        assert_eq!(s.game().last_move(), out[0].parse().ok());
        // Black to move: a move and white's reply, both played; black is to move again.
        let out = run(&mut s, "YXBALANCETWO 20");
        assert_eq!(out.len(), 1);
        let pair: Vec<Pos> = out[0].split(' ').map(|t| t.parse().unwrap()).collect();
        assert_eq!(pair.len(), 2, "{out:?}");
        assert_eq!(s.game().moves()[4..], pair[..]);
        // A blocked cell is never proposed.
        run(&mut s, "YXBOARD 7,7,2 8,8,1 7,8,2 DONE");
        let first = run(&mut s, "YXBALANCEONE");
        run(&mut s, "YXBOARD 7,7,2 8,8,1 7,8,2 DONE");
        run(&mut s, &format!("YXBLOCK {} DONE", first[0]));
        let second = run(&mut s, "YXBALANCEONE");
        assert_ne!(first, second);
        // The side to move could make five: the pair still leaves the game going.
        run(&mut s, "YXBLOCKRESET");
        run(
            &mut s,
            "YXBOARD 3,3,1 10,10,2 4,3,1 10,12,2 5,3,1 12,10,2 6,3,1 12,12,2 DONE",
        );
        let out = run(&mut s, "YXBALANCETWO");
        let pair: Vec<Pos> = out[0].split(' ').map(|t| t.parse().unwrap()).collect();
        assert_eq!(pair.len(), 2, "{out:?}");
        assert!(!s.game().is_over(), "{out:?}");
    }

    #[test]
    fn gui_output_only_after_the_gui_asked() {
        let mut s = started();
        let info = SearchInfo {
            depth: 3,
            seldepth: 5,
            nodes: 1000,
            elapsed_ms: 10,
            value: Value(40),
            pv: vec![Pos::new(7, 7), Pos::new(8, 8)],
        };
        let job = Job {
            kind: JobKind::Move,
            limits: Limits::default(),
            at: Instant::now(),
            deadlines: None,
            fallback: vec![],
            fallback_moves: vec![],
            prefix: vec![],
            size: (15, 15),
            moves: vec![],
        };
        assert!(s.progress_lines(&job, &info).is_empty());
        s.apply_info(Info::ShowDetail(1));
        let lines: Vec<String> = s
            .progress_lines(&job, &info)
            .iter()
            .map(|r| r.to_string())
            .collect();
        assert_eq!(lines, vec!["MESSAGE REALTIME BEST 7,7"]);
        s.apply_info(Info::ShowDetail(0));
        assert!(s.progress_lines(&job, &info).is_empty());
        let shown = run(&mut s, "YXSHOWINFO");
        assert!(shown.iter().all(|l| l.starts_with("MESSAGE ")));
        let lines: Vec<String> = s
            .progress_lines(&job, &info)
            .iter()
            .map(|r| r.to_string())
            .collect();
        assert_eq!(lines[1], "INFO PV 0");
        assert!(lines.contains(&"INFO BESTLINE 7,7 8,8".to_string()));
        assert!(lines.contains(&"INFO EVAL 40".to_string()));
        assert_eq!(lines.last().unwrap(), "INFO PV DONE");
    }

    #[test]
    fn pondering_follows_our_own_moves_only_and_never_a_handicapped_search() {
        let mut s = started();
        assert!(is_move(&run(&mut s, "BEGIN")[0]));
        // Off by default.
        assert!(s.ponder_job().is_none());
        run(&mut s, "INFO pondering 1");
        let (job, engine) = s.ponder_job().expect("our move was the last one");
        assert_eq!(job.kind, JobKind::Ponder);
        assert!(job.deadlines.is_none() && job.fallback.is_empty());
        assert_eq!(job.limits.turn_time_ms, None);
        assert_eq!(engine.game().moves().len(), 1);
        // While the engine is away nothing else can ponder; it comes home unchanged.
        assert!(s.ponder_job().is_none());
        s.end_ponder(engine);
        assert_eq!(s.game().moves().len(), 1);
        // After the next move, again; after a takeback it is our turn: no pondering.
        assert!(run(&mut s, "TURN 0,0").iter().any(|l| is_move(l)));
        assert!(s.ponder_job().map(|(_, e)| s.end_ponder(e)).is_some());
        let last = s.game().moves().last().copied().unwrap();
        assert_eq!(run(&mut s, &format!("TAKEBACK {last}")), vec!["OK"]);
        assert!(s.ponder_job().is_none());
        // A weakened engine stays as weak as asked; node and depth caps (which Yixin-Board sends
        // with every search) do not stop it.
        for (key, value, ponders) in [
            ("strength", "50", false),
            ("max_node", "500000000", true),
            ("max_depth", "225", true),
        ] {
            let mut h = started();
            run(&mut h, "INFO pondering 1");
            run(&mut h, &format!("INFO {key} {value}"));
            assert!(is_move(&run(&mut h, "BEGIN")[0]));
            let job = h.ponder_job();
            assert_eq!(job.is_some(), ponders, "{key}");
            if let Some((_, e)) = job {
                h.end_ponder(e);
            }
        }
        // A game our move has won is not pondered.
        let mut g = started();
        run(&mut g, "INFO pondering 1");
        let board = "BOARD 5,5,2 0,0,1 6,5,2 1,0,1 7,5,2 2,0,1 9,9,2 3,0,1 8,8,2 DONE";
        assert_eq!(run(&mut g, board), vec!["4,0"]);
        assert!(g.game().is_over());
        assert!(g.ponder_job().is_none());
    }

    #[test]
    fn black_with_only_fouls_left_says_so_before_its_foul() {
        // Audit: every empty cell forbidden for black (two overline points); the engine played one
        // without a word.
        let mut s = Session::new();
        run(&mut s, "INFO timeout_turn 200");
        assert_eq!(run(&mut s, "START 6"), vec!["OK"]);
        run(&mut s, "INFO rule 4");
        let stones = "0,1,1 3,3,2 5,4,1 4,4,2 4,0,1 0,5,2 5,1,1 4,1,2 3,2,1 1,1,2 5,0,1 2,2,2 1,5,1 \
                      2,3,2 2,5,1 4,2,2 5,2,1 2,4,2 1,3,1 0,3,2 1,0,1 1,4,2 0,0,1 3,4,2 2,0,1 2,1,2 \
                      0,4,1 1,2,2 4,5,1 3,1,2 5,5,1 3,5,2 0,2,1 4,3,2";
        let out = run(&mut s, &format!("BOARD {stones} DONE"));
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(out[0].starts_with("MESSAGE no legal move"), "{out:?}");
        assert!(out[1] == "3,0" || out[1] == "5,3", "{out:?}");
    }

    #[test]
    fn win_rates() {
        assert_eq!(win_rate(Value::ZERO), 0.5);
        assert!(win_rate(Value(400)) > 0.7);
        assert_eq!(win_rate(Value::mate_in(3)), 1.0);
        assert_eq!(win_rate(Value::mated_in(3)), 0.0);
    }
}
