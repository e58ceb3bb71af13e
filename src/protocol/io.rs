//! Input framing and the reader thread.
//!
//! [`LineFramer`] splits a byte stream into lines on CR LF, LF or a lone CR, caps every line at
//! [`MAX_LINE_BYTES`] (the rest of an over-long line is discarded, so junk cannot grow memory)
//! and decodes invalid UTF-8 lossily. [`spawn_reader`] runs it on its own thread, parses each
//! line with [`Parser`], stamps it with the monotonic time it was read and sends it to the
//! dispatcher. It raises the shared stop flag itself the moment it reads `END`, `yxstop`/`stop`
//! or `INFO timeout_turn 0`, so a running search hears them at once.

use super::command::{Command, Info, ParseError, Parsed, Parser};
use crate::engine::{SearchInfo, SearchResult};
use crate::Engine;
use std::io::{ErrorKind, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Longest line kept, in bytes; longer lines are discarded with an `ERROR`.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// One framed input line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Framed {
    Line(String),
    /// A line longer than [`MAX_LINE_BYTES`]: its length in bytes and its start (at most
    /// [`HEAD_CHARS`] characters, leading blanks dropped), so that an over-long `INFO` line can
    /// still go unanswered.
    TooLong {
        len: usize,
        head: String,
    },
}

/// How much of an over-long line's start [`Framed::TooLong`] keeps.
pub const HEAD_CHARS: usize = 64;

/// Splits bytes into lines (pure; no I/O).
#[derive(Debug, Default)]
pub struct LineFramer {
    buf: Vec<u8>,
    /// Bytes seen in the current line (including discarded ones).
    len: usize,
    /// The previous byte was a CR, so a following LF ends nothing.
    after_cr: bool,
}

impl LineFramer {
    pub fn new() -> LineFramer {
        LineFramer::default()
    }

    /// Feeds one byte; returns a line when this byte ends one.
    pub fn push(&mut self, b: u8) -> Option<Framed> {
        let after_cr = std::mem::replace(&mut self.after_cr, b == b'\r');
        match b {
            b'\n' if after_cr => None,
            b'\n' | b'\r' => Some(self.take()),
            _ => {
                self.len = self.len.saturating_add(1);
                if self.buf.len() < MAX_LINE_BYTES {
                    self.buf.push(b);
                }
                None
            }
        }
    }

    /// The unterminated last line at end of input, if any.
    pub fn finish(&mut self) -> Option<Framed> {
        (self.len > 0).then(|| self.take())
    }

    fn take(&mut self) -> Framed {
        let len = std::mem::take(&mut self.len);
        let bytes = std::mem::take(&mut self.buf);
        if len > MAX_LINE_BYTES {
            let head = String::from_utf8_lossy(&bytes[..bytes.len().min(4 * HEAD_CHARS)])
                .trim_start()
                .chars()
                .take(HEAD_CHARS)
                .collect();
            Framed::TooLong { len, head }
        } else {
            Framed::Line(String::from_utf8_lossy(&bytes).into_owned())
        }
    }
}

/// The stop flag of the current search, shared by the input thread and the dispatcher. Each search
/// gets a fresh flag, so a late search that was given up on stays stopped.
#[derive(Debug)]
pub struct StopSwitch {
    current: Mutex<Arc<AtomicBool>>,
}

impl Default for StopSwitch {
    fn default() -> StopSwitch {
        StopSwitch {
            current: Mutex::new(Arc::new(AtomicBool::new(false))),
        }
    }
}

impl StopSwitch {
    fn lock(&self) -> std::sync::MutexGuard<'_, Arc<AtomicBool>> {
        self.current.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Stops the current search (if any) now.
    pub fn raise(&self) {
        self.lock().store(true, Ordering::SeqCst);
    }

    /// A new, lowered flag for the next search; the previous one is left as it is.
    pub fn fresh(&self) -> Arc<AtomicBool> {
        let flag = Arc::new(AtomicBool::new(false));
        *self.lock() = Arc::clone(&flag);
        flag
    }
}

/// What the dispatcher receives.
pub enum Event {
    /// A parsed command (or parse error) and when its line was read.
    Input { parsed: Parsed, at: Instant },
    /// Progress of search job `job`.
    Progress { job: u64, info: SearchInfo },
    /// Search job `job` finished and hands the engine back.
    Done {
        job: u64,
        engine: Box<Engine>,
        outcome: JobOutcome,
    },
}

/// What a finished search job produced.
#[derive(Debug)]
pub enum JobOutcome {
    /// One best move (BEGIN/TURN/BOARD).
    Move(SearchResult),
    /// Several best moves (`yxnbest`), best first.
    Nbest(Vec<SearchResult>),
    /// A SWAP2BOARD answer.
    Swap2(super::swap2::Answer),
    /// The moves of a `yxbalanceone` / `yxbalancetwo` answer (empty: none found).
    Balance(Vec<crate::pos::Pos>),
}

/// What an over-long line becomes: an `INFO` line an ignored value (INFO is never answered;
/// the session mentions it in a MESSAGE before the next move), anything else an `ERROR`.
fn too_long(len: usize, head: &str) -> Parsed {
    let mut words = head.split_whitespace();
    if words.next().is_some_and(|w| w.eq_ignore_ascii_case("info")) {
        let key: String = words.next().unwrap_or("").chars().take(32).collect();
        return Ok(Command::Info(Info::Invalid {
            key: key.to_ascii_lowercase(),
            value: format!("({len} bytes, over the {MAX_LINE_BYTES}-byte line limit)"),
        }));
    }
    Err(ParseError(format!(
        "input line of {len} bytes is longer than {MAX_LINE_BYTES} bytes; discarded"
    )))
}

/// Starts the input thread. It ends after `END` or end of input (which it reports as `END`).
pub fn spawn_reader<R: Read + Send + 'static>(
    mut input: R,
    tx: SyncSender<Event>,
    stop: Arc<StopSwitch>,
) -> std::thread::JoinHandle<()> {
    std::thread::Builder::new()
        .name("rensa-input".into())
        .spawn(move || {
            let mut framer = LineFramer::new();
            let mut parser = Parser::new();
            let mut chunk = vec![0u8; 16 * 1024];
            let send = |parsed: Parsed, at: Instant| -> bool {
                let is_end = matches!(parsed, Ok(Command::End));
                if parsed.as_ref().is_ok_and(Command::stops_search) {
                    stop.raise();
                }
                let alive = tx.send(Event::Input { parsed, at }).is_ok();
                alive && !is_end
            };
            // When the open BOARD / SWAP2BOARD block began: its move request is timed from there.
            let mut block_at: Option<Instant> = None;
            let mut handle = |framed: Framed, parser: &mut Parser| -> bool {
                let now = Instant::now();
                match framed {
                    Framed::Line(l) => {
                        let started = *block_at.get_or_insert(now);
                        let out = parser.feed(&l);
                        if !parser.in_block() {
                            block_at = None;
                        }
                        out.into_iter().all(|parsed| {
                            let at = match parsed {
                                Ok(Command::Board { .. } | Command::Swap2Board(_)) => started,
                                _ => now,
                            };
                            send(parsed, at)
                        })
                    }
                    Framed::TooLong { len, head } => {
                        // Inside a block the line was meant as stones: the block is rejected at
                        // its DONE, with one error, as for any bad stone line.
                        let why = format!(
                            "a line of {len} bytes, over the {MAX_LINE_BYTES}-byte line limit"
                        );
                        parser.fail_block(why) || send(too_long(len, &head), now)
                    }
                }
            };
            loop {
                let n = match input.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                    Err(e) => {
                        log::warn!("stdin read failed: {e}");
                        break;
                    }
                };
                for &b in &chunk[..n] {
                    if let Some(f) = framer.push(b) {
                        if !handle(f, &mut parser) {
                            return;
                        }
                    }
                }
            }
            if let Some(f) = framer.finish() {
                if !handle(f, &mut parser) {
                    return;
                }
            }
            log::info!("end of input: treated as END");
            send(Ok(Command::End), Instant::now());
        })
        .expect("spawning the input thread")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(bytes: &[u8]) -> Vec<Framed> {
        let mut f = LineFramer::new();
        let mut out: Vec<Framed> = bytes.iter().filter_map(|&b| f.push(b)).collect();
        out.extend(f.finish());
        out
    }

    fn lines(v: &[&str]) -> Vec<Framed> {
        v.iter().map(|s| Framed::Line(s.to_string())).collect()
    }

    #[test]
    fn all_line_endings() {
        assert_eq!(frame(b"A\r\nB\nC\rD"), lines(&["A", "B", "C", "D"]));
        assert_eq!(frame(b"A\r\r\nB\n\n"), lines(&["A", "", "B", ""]));
        assert_eq!(frame(b""), vec![]);
        assert_eq!(frame(b"\xff\xfeX\n"), lines(&["\u{fffd}\u{fffd}X"]));
    }

    #[test]
    fn long_lines_are_capped() {
        let mut input = vec![b'x'; MAX_LINE_BYTES + 10];
        input.extend_from_slice(b"\nEND\n");
        let mut f = LineFramer::new();
        let mut out = Vec::new();
        for &b in &input {
            out.extend(f.push(b));
            assert!(f.buf.len() <= MAX_LINE_BYTES);
        }
        assert_eq!(
            out,
            vec![
                Framed::TooLong {
                    len: MAX_LINE_BYTES + 10,
                    head: "x".repeat(HEAD_CHARS)
                },
                Framed::Line("END".into())
            ]
        );
        let exact = vec![b'y'; MAX_LINE_BYTES];
        assert_eq!(
            frame(&exact),
            vec![Framed::Line("y".repeat(MAX_LINE_BYTES))]
        );
    }

    #[test]
    fn an_over_long_info_line_is_an_ignored_value_not_an_error() {
        let mut input = b"  INFO Folder C:\\".to_vec();
        input.extend(vec![b'd'; MAX_LINE_BYTES]);
        input.push(b'\n');
        let framed = frame(&input);
        let [Framed::TooLong { len, head }] = &framed[..] else {
            panic!("{framed:?}");
        };
        assert_eq!(*len, input.len() - 1);
        assert_eq!(head.chars().count(), HEAD_CHARS);
        match too_long(*len, head) {
            Ok(Command::Info(Info::Invalid { key, value })) => {
                assert_eq!(key, "folder");
                assert!(value.contains("line limit"), "{value}");
            }
            other => panic!("{other:?}"),
        }
        assert!(too_long(*len, "BOARD 1,1,1 2,2,2").is_err());
        assert!(too_long(*len, "").is_err());
    }

    /// What the reader thread sends for `input` (the commands, in order).
    fn read_all(input: Vec<u8>) -> Vec<Parsed> {
        let (tx, rx) = std::sync::mpsc::sync_channel(16);
        let reader = spawn_reader(std::io::Cursor::new(input), tx, Arc::default());
        let got = rx
            .iter()
            .map(|e| match e {
                Event::Input { parsed, .. } => parsed,
                _ => panic!("only input events"),
            })
            .collect();
        reader.join().unwrap();
        got
    }

    #[test]
    fn an_over_long_line_in_a_board_block_rejects_the_block_once() {
        let mut input = b"BOARD\n7,7,1\n".to_vec();
        input.extend(vec![b'8'; MAX_LINE_BYTES + 1]);
        input.extend_from_slice(b"\n8,8,2\nDONE\nBOARD\n7,7,1\nDONE\n");
        let got = read_all(input);
        // The first block's one error, the second block, then END at the end of input.
        assert_eq!(got.len(), 3, "{got:?}");
        match &got[0] {
            Err(ParseError(e)) => {
                assert!(e.contains("BOARD block rejected") && e.contains("limit"))
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(got[1], Ok(Command::Board { .. })), "{:?}", got[1]);
        assert!(matches!(got[2], Ok(Command::End)));
        // Outside a block an over-long line is one error of its own.
        let mut input = vec![b'x'; MAX_LINE_BYTES + 1];
        input.extend_from_slice(b"\nABOUT\n");
        let got = read_all(input);
        assert!(
            matches!(got[..], [Err(_), Ok(Command::About), Ok(Command::End)]),
            "{got:?}"
        );
    }
}
