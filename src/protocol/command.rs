//! The pure command parser: one trimmed text line in, typed [`Command`]s out.
//!
//! [`Parser`] is a small state machine because BOARD, YXBOARD and SWAP2BOARD span several lines up
//! to `DONE`; it does no I/O and never panics. Everything is matched case-insensitively; block
//! content is tokenised by whitespace, so several stones and `DONE` may share one line
//! (`YXBOARD 7,7,1 8,8,2 DONE`). Whether a coordinate lies on the current board is the session's
//! question, not the parser's.

use crate::pos::Pos;
use std::fmt;

/// Most stones one block may carry (a 64x64 board); more is junk and is reported as an error
/// without growing memory.
pub const MAX_BLOCK_STONES: usize = 64 * 64;

/// Longest piece of input echoed back in `UNKNOWN` / `ERROR` text, in characters.
pub const MAX_ECHO_CHARS: usize = 80;

/// Largest absolute bias of `YXBALANCEONE` / `YXBALANCETWO`, in centi-stones: the evaluation's
/// own range ([`crate::eval::EVAL_LIMIT`]).
pub const MAX_BIAS: i32 = crate::eval::EVAL_LIMIT;

/// One stone of a BOARD / YXBOARD block: `x,y,field` with the field relative to the brain
/// (1 own, 2 opponent, 3 continuous-game mark).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stone {
    pub pos: Pos,
    pub field: u8,
}

/// An `INFO key value` line. Numbers are kept raw; the session decides what they mean.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Info {
    /// Per-move limit, ms; 0 = answer at once.
    TimeoutTurn(i64),
    /// Whole-game budget, ms; 0 = unlimited.
    TimeoutMatch(i64),
    /// Remaining match time, ms; may be negative; 2147483647 = unlimited.
    TimeLeft(i64),
    /// Memory cap for the whole process, bytes; 0 = no cap.
    MaxMemory(i64),
    /// 0 human, 1 brain, 2 tournament, 3 network tournament.
    GameType(i64),
    /// Rule bitmask (protocol.md §10.6).
    Rule(i64),
    /// Directory for persistent files: the whole rest of the line, inner spaces kept.
    Folder(String),
    /// `x,y` under the GUI's mouse cursor; never answered.
    Evaluate(String),
    /// Node cap; 0 or less = none.
    MaxNode(i64),
    /// Depth cap in plies; 0 or less = none.
    MaxDepth(i64),
    /// Search threads.
    ThreadNum(i64),
    /// Hash table size, KiB.
    HashSize(i64),
    /// Playing strength 0..=100.
    Strength(i64),
    /// Yixin/Rapfi analysis output level; > 0 switches GUI analysis lines on.
    ShowDetail(i64),
    /// Yixin-Board's `pondering`: non-zero = think on the opponent's time.
    Pondering(i64),
    /// A key we know whose value is not what the key needs (reported later as a MESSAGE).
    Invalid { key: String, value: String },
    /// Any other key: ignored silently.
    Other { key: String },
}

/// A command from the manager.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `START n`; the size is raw (saturated), the session checks the supported range.
    Start(u64),
    /// `RECTSTART w,h`.
    RectStart {
        width: u64,
        height: u64,
    },
    Restart,
    Info(Info),
    Begin,
    Turn(Pos),
    /// `BOARD ... DONE` (`silent = false`, answer with a move) or `YXBOARD ... DONE` (`silent`).
    Board {
        stones: Vec<Stone>,
        silent: bool,
    },
    /// `SWAP2BOARD ... DONE`: stones in move order, no fields.
    Swap2Board(Vec<Pos>),
    Takeback(Pos),
    Play(Pos),
    About,
    End,
    /// `yxstop` / `stop`.
    Stop,
    /// `yxshowforbid`.
    ShowForbid,
    /// `yxhashclear`.
    HashClear,
    /// `yxshowinfo`.
    ShowInfo,
    /// `yxnbest N`.
    Nbest(u32),
    /// `yxblock x,y ... done` (`undo = false`: cells the searches may not choose) or
    /// `yxblockundo x,y ... done` (`undo = true`: cells allowed again).
    Block {
        cells: Vec<Pos>,
        undo: bool,
    },
    /// `yxblockreset`: no blocked cells.
    BlockReset,
    /// `yxbalanceone [bias]` (`two = false`) or `yxbalancetwo [bias]`: a move (or a move and the
    /// reply) that leaves the position as close as possible to `bias` centi-stones for the side
    /// to move.
    Balance {
        two: bool,
        bias: i32,
    },
    /// Anything else: the (trimmed, shortened) command text for `UNKNOWN <text>`.
    Unknown(String),
}

impl Command {
    /// Whether the input thread must raise the stop flag the moment it reads this command.
    pub fn stops_search(&self) -> bool {
        matches!(
            self,
            Command::End | Command::Stop | Command::Info(Info::TimeoutTurn(0))
        )
    }
}

/// Why a line could not be turned into a command; becomes `ERROR <text>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError(pub String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

/// What one parsed line or block yields.
pub type Parsed = Result<Command, ParseError>;

/// The kind of a multi-line block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlockKind {
    Board,
    YxBoard,
    Swap2Board,
    YxBlock,
    YxBlockUndo,
}

impl BlockKind {
    fn name(self) -> &'static str {
        match self {
            BlockKind::Board => "BOARD",
            BlockKind::YxBoard => "YXBOARD",
            BlockKind::Swap2Board => "SWAP2BOARD",
            BlockKind::YxBlock => "YXBLOCK",
            BlockKind::YxBlockUndo => "YXBLOCKUNDO",
        }
    }
}

/// A block being read: stones so far and the first problem seen (reported at `DONE`).
#[derive(Debug)]
struct OpenBlock {
    kind: BlockKind,
    stones: Vec<Stone>,
    error: Option<String>,
}

impl OpenBlock {
    fn fail(&mut self, why: String) {
        if self.error.is_none() {
            self.error = Some(why);
        }
    }

    fn finish(self) -> Parsed {
        if let Some(e) = self.error {
            return Err(ParseError(format!(
                "{} block rejected: {e}",
                self.kind.name()
            )));
        }
        Ok(match self.kind {
            BlockKind::Board => Command::Board {
                stones: self.stones,
                silent: false,
            },
            BlockKind::YxBoard => Command::Board {
                stones: self.stones,
                silent: true,
            },
            BlockKind::Swap2Board => {
                Command::Swap2Board(self.stones.iter().map(|s| s.pos).collect())
            }
            BlockKind::YxBlock | BlockKind::YxBlockUndo => Command::Block {
                cells: self.stones.iter().map(|s| s.pos).collect(),
                undo: self.kind == BlockKind::YxBlockUndo,
            },
        })
    }
}

/// Line-by-line command parser (pure; one per input stream).
#[derive(Debug, Default)]
pub struct Parser {
    block: Option<OpenBlock>,
}

impl Parser {
    pub fn new() -> Parser {
        Parser::default()
    }

    /// Whether a BOARD / YXBOARD / SWAP2BOARD block is open (waiting for `DONE`).
    pub fn in_block(&self) -> bool {
        self.block.is_some()
    }

    /// Marks the open block (if any) as rejected for `why`: it still ends at its `DONE`, with
    /// one error for the whole block. Returns whether a block was open. For a line of the block
    /// that cannot be read at all (an over-long one, see [`super::io`]).
    pub fn fail_block(&mut self, why: String) -> bool {
        match &mut self.block {
            Some(b) => {
                b.fail(why);
                true
            }
            None => false,
        }
    }

    /// Feeds one line (without its terminator). Returns the commands it completes, usually zero
    /// (blank line, stone line) or one; two when a command interrupts an unfinished block.
    pub fn feed(&mut self, line: &str) -> Vec<Parsed> {
        let mut out = Vec::new();
        self.feed_into(line, &mut out);
        out
    }

    fn feed_into(&mut self, line: &str, out: &mut Vec<Parsed>) {
        // A byte-order mark (some Windows tools write one) counts as a blank.
        let line = line.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
        if line.is_empty() {
            return;
        }
        if self.block.is_some() {
            self.feed_block(line, out);
            return;
        }
        match parse_line(line) {
            Line::Command(c) => out.push(c),
            Line::BlockStart(kind, rest) => {
                self.block = Some(OpenBlock {
                    kind,
                    stones: Vec::new(),
                    error: None,
                });
                if !rest.is_empty() {
                    self.feed_block(rest, out);
                }
            }
        }
    }

    /// One line inside an open block.
    fn feed_block(&mut self, line: &str, out: &mut Vec<Parsed>) {
        let first = line.split_whitespace().next().unwrap_or("");
        let starts_like_stone = first
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == '-' || c == '+');
        if !starts_like_stone && !first.eq_ignore_ascii_case("done") {
            match parse_line(line) {
                // INFO may come at any moment; apply it and keep the block open.
                Line::Command(Ok(c @ Command::Info(_))) => {
                    out.push(Ok(c));
                    return;
                }
                Line::Command(Ok(Command::Unknown(_))) | Line::Command(Err(_)) => {}
                // Another command: the block was never finished. Reject it, then obey the command.
                // END drops the block silently: nothing may be printed after END.
                Line::Command(Ok(Command::End)) => {
                    self.block = None;
                    out.push(Ok(Command::End));
                    return;
                }
                interrupting => {
                    let block = self.block.take().expect("in a block");
                    out.push(Err(ParseError(format!(
                        "{} block interrupted by '{}' before DONE; position unchanged",
                        block.kind.name(),
                        shorten(first)
                    ))));
                    match interrupting {
                        Line::Command(c) => out.push(c),
                        Line::BlockStart(..) => self.feed_into(line, out),
                    }
                    return;
                }
            }
        }
        let normalised = squeeze_commas(line);
        let mut tokens = normalised.split_whitespace();
        while let Some(tok) = tokens.next() {
            let block = self.block.as_mut().expect("in a block");
            if tok.eq_ignore_ascii_case("done") {
                let block = self.block.take().expect("in a block");
                out.push(block.finish());
                let rest: Vec<&str> = tokens.collect();
                if !rest.is_empty() {
                    self.feed_into(&rest.join(" "), out);
                }
                return;
            }
            if block.stones.len() >= MAX_BLOCK_STONES {
                block.fail(format!("more than {MAX_BLOCK_STONES} stones"));
                continue;
            }
            match parse_stone(tok, block.kind) {
                Ok(s) => block.stones.push(s),
                Err(e) => block.fail(e),
            }
        }
    }
}

/// The result of parsing one line outside a block.
enum Line<'a> {
    Command(Parsed),
    /// A block opener and whatever followed the keyword on the same line.
    BlockStart(BlockKind, &'a str),
}

/// Removes blanks next to commas so `7, 7, 1` tokenises as one stone.
fn squeeze_commas(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut pending_blank = false;
    for c in line.chars() {
        if c.is_whitespace() {
            pending_blank = true;
            continue;
        }
        if pending_blank && c != ',' && !out.ends_with(',') && !out.is_empty() {
            out.push(' ');
        }
        pending_blank = false;
        out.push(c);
    }
    out
}

/// Parses one block token: `x,y,f` for BOARD / YXBOARD (`f` in 1..=3), `x,y` for SWAP2BOARD
/// and the YXBLOCK lists (a field there is tolerated and ignored).
fn parse_stone(tok: &str, kind: BlockKind) -> Result<Stone, String> {
    let parts: Vec<&str> = tok.split(',').collect();
    let bad = || format!("'{}' is not a stone x,y,field", shorten(tok));
    let cells_only = matches!(
        kind,
        BlockKind::Swap2Board | BlockKind::YxBlock | BlockKind::YxBlockUndo
    );
    let field = match (cells_only, parts.len()) {
        (true, 2) => 1,
        (_, 3) => match parts[2].parse::<u8>() {
            Ok(f @ 1..=3) => f,
            _ => {
                return Err(format!(
                    "stone '{}' has field '{}', not 1, 2 or 3",
                    shorten(tok),
                    shorten(parts[2])
                ))
            }
        },
        (true, _) => return Err(format!("'{}' is not a coordinate x,y", shorten(tok))),
        _ => return Err(bad()),
    };
    let pos = format!("{},{}", parts[0], parts[1])
        .parse::<Pos>()
        .map_err(|e| format!("bad stone '{}': {e}", shorten(tok)))?;
    Ok(Stone { pos, field })
}

/// Splits `KEYWORD rest` at the first blank.
fn split_word(line: &str) -> (&str, &str) {
    match line.find(char::is_whitespace) {
        Some(i) => (&line[..i], line[i..].trim()),
        None => (line, ""),
    }
}

/// Parses a line outside any block.
fn parse_line(line: &str) -> Line<'_> {
    let (word, rest) = split_word(line);
    let word_lc = word.to_ascii_lowercase();
    let cmd = match word_lc.as_str() {
        "start" => parse_size(rest).map(Command::Start),
        "rectstart" => parse_rect(rest),
        "restart" => Ok(Command::Restart),
        "info" => Ok(Command::Info(parse_info(rest))),
        "begin" => Ok(Command::Begin),
        "turn" => parse_pos(rest, "TURN").map(Command::Turn),
        "takeback" => parse_pos(rest, "TAKEBACK").map(Command::Takeback),
        "play" => parse_pos(rest, "PLAY").map(Command::Play),
        "board" => return Line::BlockStart(BlockKind::Board, rest),
        "yxboard" => return Line::BlockStart(BlockKind::YxBoard, rest),
        "swap2board" => return Line::BlockStart(BlockKind::Swap2Board, rest),
        "yxblock" => return Line::BlockStart(BlockKind::YxBlock, rest),
        "yxblockundo" => return Line::BlockStart(BlockKind::YxBlockUndo, rest),
        "yxblockreset" => Ok(Command::BlockReset),
        "yxbalanceone" => {
            parse_bias(rest, "YXBALANCEONE").map(|bias| Command::Balance { two: false, bias })
        }
        "yxbalancetwo" => {
            parse_bias(rest, "YXBALANCETWO").map(|bias| Command::Balance { two: true, bias })
        }
        "about" => Ok(Command::About),
        "end" => Ok(Command::End),
        "yxstop" | "stop" => Ok(Command::Stop),
        "yxshowforbid" => Ok(Command::ShowForbid),
        "yxhashclear" => Ok(Command::HashClear),
        "yxshowinfo" => Ok(Command::ShowInfo),
        "yxnbest" => parse_count(rest).map(Command::Nbest),
        "done" => Err(ParseError("DONE without an open BOARD block".into())),
        _ => Ok(Command::Unknown(shorten(line))),
    };
    Line::Command(cmd)
}

/// A decimal count, saturated instead of overflowing; `None` if not all digits.
fn parse_unsigned(text: &str) -> Option<u64> {
    let t = text.trim();
    let t = t.strip_prefix('+').unwrap_or(t);
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(t.parse::<u64>().unwrap_or(u64::MAX))
}

fn parse_size(rest: &str) -> Result<u64, ParseError> {
    parse_unsigned(rest).ok_or_else(|| {
        ParseError(format!(
            "START needs a board size such as 15 or 20, got '{}'",
            shorten(rest)
        ))
    })
}

fn parse_rect(rest: &str) -> Result<Command, ParseError> {
    let bad = || {
        ParseError(format!(
            "RECTSTART needs width,height such as 30,20, got '{}'",
            shorten(rest)
        ))
    };
    let (w, h) = rest.split_once(',').ok_or_else(bad)?;
    Ok(Command::RectStart {
        width: parse_unsigned(w).ok_or_else(bad)?,
        height: parse_unsigned(h).ok_or_else(bad)?,
    })
}

fn parse_pos(rest: &str, what: &str) -> Result<Pos, ParseError> {
    if rest.is_empty() {
        return Err(ParseError(format!("{what} needs a coordinate x,y")));
    }
    rest.parse::<Pos>()
        .map_err(|e| ParseError(format!("bad coordinates in {what}: {e}")))
}

fn parse_count(rest: &str) -> Result<u32, ParseError> {
    match parse_unsigned(rest) {
        Some(n) if n >= 1 => Ok(n.min(u32::MAX as u64) as u32),
        _ => Err(ParseError(format!(
            "YXNBEST needs a positive count, got '{}'",
            shorten(rest)
        ))),
    }
}

/// The optional bias of `YXBALANCEONE` / `YXBALANCETWO`: an integer in centi-stones (0 when
/// absent), kept within the non-mate range.
fn parse_bias(rest: &str, what: &str) -> Result<i32, ParseError> {
    if rest.is_empty() {
        return Ok(0);
    }
    rest.parse::<i64>()
        .map(|b| b.clamp(-(MAX_BIAS as i64), MAX_BIAS as i64) as i32)
        .map_err(|_| {
            ParseError(format!(
                "{what} takes an optional bias in centi-stones such as 0 or -50, got '{}'",
                shorten(rest)
            ))
        })
}

/// Parses `key value` after `INFO`. Never fails: unknown keys and bad values become variants.
fn parse_info(rest: &str) -> Info {
    let (key, value) = split_word(rest);
    let key_lc = key.to_ascii_lowercase();
    let int = |make: fn(i64) -> Info| match value.parse::<i64>() {
        Ok(v) => make(v),
        Err(_) => Info::Invalid {
            key: key_lc.clone(),
            value: shorten(value),
        },
    };
    match key_lc.as_str() {
        "timeout_turn" => int(Info::TimeoutTurn),
        "timeout_match" => int(Info::TimeoutMatch),
        "time_left" => int(Info::TimeLeft),
        "max_memory" => int(Info::MaxMemory),
        "game_type" => int(Info::GameType),
        "rule" => int(Info::Rule),
        "folder" => Info::Folder(value.to_string()),
        "evaluate" => Info::Evaluate(shorten(value)),
        "max_node" => int(Info::MaxNode),
        "max_depth" => int(Info::MaxDepth),
        "thread_num" => int(Info::ThreadNum),
        "hash_size" => int(Info::HashSize),
        "strength" => int(Info::Strength),
        "show_detail" => int(Info::ShowDetail),
        "pondering" => int(Info::Pondering),
        _ => Info::Other {
            key: shorten(&key_lc),
        },
    }
}

/// Input text made safe to echo: at most [`MAX_ECHO_CHARS`] characters, control characters and
/// the Unicode line and paragraph separators (which some readers split lines at) replaced by `?`.
pub fn shorten(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(MAX_ECHO_CHARS)
        .map(|c| {
            if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') {
                '?'
            } else {
                c
            }
        })
        .collect();
    if text.chars().nth(MAX_ECHO_CHARS).is_some() {
        out.push_str("...");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> Parsed {
        let mut p = Parser::new();
        let mut out = p.feed(line);
        assert_eq!(out.len(), 1, "{line:?} gave {out:?}");
        assert!(!p.in_block());
        out.remove(0)
    }

    fn cmd(line: &str) -> Command {
        one(line).unwrap_or_else(|e| panic!("{line:?}: {e}"))
    }

    fn err(line: &str) -> String {
        match one(line) {
            Err(e) => e.0,
            Ok(c) => panic!("{line:?} parsed as {c:?}"),
        }
    }

    fn p(x: u8, y: u8) -> Pos {
        Pos::new(x, y)
    }

    fn st(x: u8, y: u8, field: u8) -> Stone {
        Stone {
            pos: p(x, y),
            field,
        }
    }

    #[test]
    fn simple_commands_any_case() {
        assert_eq!(cmd("START 15"), Command::Start(15));
        assert_eq!(cmd("start 20"), Command::Start(20));
        assert_eq!(cmd("  StArT   19  "), Command::Start(19));
        assert_eq!(cmd("\u{feff}START 15"), Command::Start(15));
        assert_eq!(cmd("START 4"), Command::Start(4));
        assert_eq!(
            cmd("START 99999999999999999999999"),
            Command::Start(u64::MAX)
        );
        assert_eq!(
            cmd("RECTSTART 30,20"),
            Command::RectStart {
                width: 30,
                height: 20
            }
        );
        assert_eq!(
            cmd("rectstart 30 , 20"),
            Command::RectStart {
                width: 30,
                height: 20
            }
        );
        assert_eq!(cmd("RESTART"), Command::Restart);
        assert_eq!(cmd("begin"), Command::Begin);
        assert_eq!(cmd("TURN 10,11"), Command::Turn(p(10, 11)));
        assert_eq!(cmd("turn 3, 4"), Command::Turn(p(3, 4)));
        assert_eq!(cmd("TAKEBACK 7,7"), Command::Takeback(p(7, 7)));
        assert_eq!(cmd("PLAY 0,0"), Command::Play(p(0, 0)));
        assert_eq!(cmd("ABOUT"), Command::About);
        assert_eq!(cmd("end"), Command::End);
        assert_eq!(cmd("YXSTOP"), Command::Stop);
        assert_eq!(cmd("stop"), Command::Stop);
        assert_eq!(cmd("yxshowforbid"), Command::ShowForbid);
        assert_eq!(cmd("YxHashClear"), Command::HashClear);
        assert_eq!(cmd("yxshowinfo"), Command::ShowInfo);
        assert_eq!(cmd("YXNBEST 3"), Command::Nbest(3));
        assert_eq!(cmd("yxblockreset"), Command::BlockReset);
        assert_eq!(
            cmd("YXBALANCEONE"),
            Command::Balance {
                two: false,
                bias: 0
            }
        );
        assert_eq!(
            cmd("yxbalancetwo -40"),
            Command::Balance {
                two: true,
                bias: -40
            }
        );
        assert_eq!(
            cmd("yxbalanceone 99999999999"),
            Command::Balance {
                two: false,
                bias: MAX_BIAS
            }
        );
    }

    #[test]
    fn block_lists_are_cells_until_done() {
        let mut parser = Parser::new();
        assert!(parser.feed("YXBLOCK").is_empty());
        assert!(parser.feed("7,7").is_empty());
        assert_eq!(
            parser.feed("8,9 DONE"),
            vec![Ok(Command::Block {
                cells: vec![p(7, 7), p(8, 9)],
                undo: false
            })]
        );
        assert_eq!(
            Parser::new().feed("yxblockundo 3,4 done"),
            vec![Ok(Command::Block {
                cells: vec![p(3, 4)],
                undo: true
            })]
        );
        let bad = Parser::new().feed("YXBLOCK 7 DONE");
        assert!(
            matches!(&bad[..], [Err(e)] if e.0.contains("YXBLOCK")),
            "{bad:?}"
        );
    }

    #[test]
    fn unknown_commands_are_echoed_safely() {
        assert_eq!(cmd("FOO bar"), Command::Unknown("FOO bar".into()));
        assert_eq!(
            cmd("yxquerydatabaseall"),
            Command::Unknown("yxquerydatabaseall".into())
        );
        assert_eq!(cmd("7,7"), Command::Unknown("7,7".into()));
        match cmd(&"x".repeat(10_000)) {
            Command::Unknown(t) => assert!(t.len() <= MAX_ECHO_CHARS + 3),
            c => panic!("{c:?}"),
        }
        assert_eq!(cmd("A\u{1}B"), Command::Unknown("A?B".into()));
    }

    #[test]
    fn malformed_arguments_are_errors() {
        for bad in [
            "START",
            "START x",
            "START -15",
            "START 15.5",
            "RECTSTART 30",
            "RECTSTART a,b",
            "TURN",
            "TURN 7",
            "TURN -1,3",
            "TURN 7,7 extra",
            "TURN 100,1",
            "TAKEBACK",
            "PLAY x,y",
            "YXNBEST",
            "YXNBEST 0",
            "YXNBEST many",
            "YXBALANCEONE x",
            "YXBALANCETWO 1.5",
            "DONE",
        ] {
            let e = err(bad);
            assert!(!e.is_empty(), "{bad}");
        }
        assert!(err("TURN 7").contains("TURN"));
    }

    #[test]
    fn info_keys_any_case_and_values() {
        assert_eq!(
            cmd("INFO timeout_turn 30000"),
            Command::Info(Info::TimeoutTurn(30000))
        );
        assert_eq!(
            cmd("INFO TIMEOUT_TURN 0"),
            Command::Info(Info::TimeoutTurn(0))
        );
        assert_eq!(
            cmd("info timeout_match 0"),
            Command::Info(Info::TimeoutMatch(0))
        );
        assert_eq!(
            cmd("INFO time_left -300"),
            Command::Info(Info::TimeLeft(-300))
        );
        assert_eq!(
            cmd("INFO max_memory 367001600"),
            Command::Info(Info::MaxMemory(367001600))
        );
        assert_eq!(cmd("INFO game_type 3"), Command::Info(Info::GameType(3)));
        assert_eq!(cmd("INFO RULE 4"), Command::Info(Info::Rule(4)));
        assert_eq!(
            cmd("INFO folder C:\\My Documents\\brain data "),
            Command::Info(Info::Folder("C:\\My Documents\\brain data".into()))
        );
        assert_eq!(
            cmd("INFO evaluate 7,7"),
            Command::Info(Info::Evaluate("7,7".into()))
        );
        assert_eq!(
            cmd("INFO max_node 1000"),
            Command::Info(Info::MaxNode(1000))
        );
        assert_eq!(cmd("INFO MAX_DEPTH 8"), Command::Info(Info::MaxDepth(8)));
        assert_eq!(cmd("INFO thread_num 2"), Command::Info(Info::ThreadNum(2)));
        assert_eq!(
            cmd("INFO hash_size 65536"),
            Command::Info(Info::HashSize(65536))
        );
        assert_eq!(cmd("INFO STRENGTH 50"), Command::Info(Info::Strength(50)));
        assert_eq!(
            cmd("info show_detail 3"),
            Command::Info(Info::ShowDetail(3))
        );
        assert_eq!(cmd("info pondering 1"), Command::Info(Info::Pondering(1)));
        assert_eq!(cmd("INFO PONDERING 0"), Command::Info(Info::Pondering(0)));
        assert_eq!(
            cmd("INFO caution_factor 2 extra words"),
            Command::Info(Info::Other {
                key: "caution_factor".into()
            })
        );
        assert_eq!(cmd("INFO"), Command::Info(Info::Other { key: "".into() }));
        assert_eq!(
            cmd("INFO timeout_turn soon"),
            Command::Info(Info::Invalid {
                key: "timeout_turn".into(),
                value: "soon".into()
            })
        );
        assert!(cmd("INFO timeout_turn 0").stops_search());
        assert!(!cmd("INFO timeout_turn 5").stops_search());
    }

    #[test]
    fn board_blocks_over_lines() {
        let mut parser = Parser::new();
        assert!(parser.feed("BOARD").is_empty());
        assert!(parser.in_block());
        assert!(parser.feed("7,7,1").is_empty());
        assert!(parser.feed("").is_empty());
        assert!(parser.feed(" 8,8,2 ").is_empty());
        assert_eq!(
            parser.feed("done"),
            vec![Ok(Command::Board {
                stones: vec![st(7, 7, 1), st(8, 8, 2)],
                silent: false
            })]
        );
        assert!(!parser.in_block());
        assert_eq!(
            Parser::new().feed("board"),
            vec![],
            "an open block yields nothing yet"
        );
    }

    #[test]
    fn empty_board_and_one_line_blocks() {
        let mut parser = Parser::new();
        assert!(parser.feed("BOARD").is_empty());
        assert_eq!(
            parser.feed("DONE"),
            vec![Ok(Command::Board {
                stones: vec![],
                silent: false
            })]
        );
        assert_eq!(
            cmd("YXBOARD 7,7,1 8,8,2 DONE"),
            Command::Board {
                stones: vec![st(7, 7, 1), st(8, 8, 2)],
                silent: true
            }
        );
        assert_eq!(
            cmd("yxboard 7, 7, 1   8,8,2 done"),
            Command::Board {
                stones: vec![st(7, 7, 1), st(8, 8, 2)],
                silent: true
            }
        );
        // A command after DONE on the same line is still obeyed.
        assert_eq!(
            Parser::new().feed("BOARD 1,1,2 DONE END"),
            vec![
                Ok(Command::Board {
                    stones: vec![st(1, 1, 2)],
                    silent: false
                }),
                Ok(Command::End)
            ]
        );
    }

    #[test]
    fn swap2board_stones_have_no_field() {
        assert_eq!(cmd("SWAP2BOARD DONE"), Command::Swap2Board(vec![]));
        let mut parser = Parser::new();
        for l in ["SWAP2BOARD", "7,7", "8,7,2", "9,9"] {
            assert!(parser.feed(l).is_empty());
        }
        assert_eq!(
            parser.feed("DONE"),
            vec![Ok(Command::Swap2Board(vec![p(7, 7), p(8, 7), p(9, 9)]))]
        );
        assert!(cmd_err_block("SWAP2BOARD 7 DONE").contains("7"));
    }

    fn cmd_err_block(line: &str) -> String {
        err(line)
    }

    #[test]
    fn malformed_blocks_are_rejected_at_done() {
        for bad in [
            "BOARD 7,7 DONE",
            "BOARD 7,7,4 DONE",
            "BOARD 7,7,0 DONE",
            "BOARD x,7,1 DONE",
            "BOARD -1,7,1 DONE",
            "BOARD 7,7,1,1 DONE",
            "BOARD 64,0,1 DONE",
            "BOARD 7,7,1 garbage DONE",
        ] {
            let e = err(bad);
            assert!(e.contains("BOARD"), "{bad}: {e}");
        }
    }

    #[test]
    fn commands_inside_blocks() {
        // INFO is applied without closing the block.
        let mut parser = Parser::new();
        assert!(parser.feed("BOARD").is_empty());
        assert_eq!(
            parser.feed("INFO time_left 1000"),
            vec![Ok(Command::Info(Info::TimeLeft(1000)))]
        );
        assert!(parser.in_block());
        assert!(parser.feed("7,7,1").is_empty());
        assert_eq!(parser.feed("DONE").len(), 1);
        // Another command interrupts it: one error, then the command.
        let mut parser = Parser::new();
        assert!(parser.feed("BOARD").is_empty());
        assert!(parser.feed("7,7,1").is_empty());
        let out = parser.feed("TURN 1,1");
        assert_eq!(out.len(), 2);
        assert!(out[0].is_err());
        assert_eq!(out[1], Ok(Command::Turn(p(1, 1))));
        assert!(!parser.in_block());
        // END ends an open block silently.
        assert!(parser.feed("BOARD 7,7,1").is_empty());
        assert_eq!(parser.feed("END"), vec![Ok(Command::End)]);
        assert!(!parser.in_block());
        // A new block opener restarts the block.
        let mut parser = Parser::new();
        assert!(parser.feed("BOARD 7,7,1").is_empty());
        let out = parser.feed("YXBOARD 1,1,1");
        assert_eq!(out.len(), 1);
        assert!(out[0].is_err());
        assert!(parser.in_block());
        assert_eq!(
            parser.feed("DONE"),
            vec![Ok(Command::Board {
                stones: vec![st(1, 1, 1)],
                silent: true
            })]
        );
    }

    #[test]
    fn huge_blocks_stay_bounded() {
        let mut parser = Parser::new();
        assert!(parser.feed("BOARD").is_empty());
        for _ in 0..(MAX_BLOCK_STONES + 100) {
            assert!(parser.feed("1,1,1").is_empty());
        }
        assert!(parser.block.as_ref().unwrap().stones.len() <= MAX_BLOCK_STONES);
        let out = parser.feed("DONE");
        assert!(out[0].as_ref().unwrap_err().0.contains("more than"));
    }

    #[test]
    fn shorten_caps_and_cleans() {
        assert_eq!(shorten("abc"), "abc");
        assert_eq!(shorten("a\tb\rc"), "a?b?c");
        assert_eq!(shorten("a\u{2028}b\u{2029}c\u{85}d"), "a?b?c?d");
        let long = "é".repeat(500);
        let s = shorten(&long);
        assert_eq!(s.chars().count(), MAX_ECHO_CHARS + 3);
    }
}
