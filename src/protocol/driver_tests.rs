//! Tests of the dispatcher's threads and time backstop with stand-in searches: a search that
//! ignores the stop flag, one that only stops when told, one that answers an illegal move and
//! one that panics. Timing assertions use generous margins (a loaded 2-core machine).

use super::*;
use crate::engine::SearchResult;
use crate::pos::Pos;
use crate::types::Value;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, Sender};
use std::thread::JoinHandle;

/// Reads what the test sends; end of input when the sender is dropped.
struct PipeReader {
    rx: Receiver<Vec<u8>>,
    buf: Vec<u8>,
}

impl Read for PipeReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.buf.is_empty() {
            match self.rx.recv() {
                Ok(b) => self.buf = b,
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.buf.len());
        out[..n].copy_from_slice(&self.buf[..n]);
        self.buf.drain(..n);
        Ok(n)
    }
}

/// Hands every complete output line to the test.
struct LineSink {
    tx: Sender<String>,
    partial: Vec<u8>,
}

impl Write for LineSink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        for &c in b {
            if c == b'\n' {
                let line = String::from_utf8_lossy(&self.partial).into_owned();
                self.partial.clear();
                let _ = self.tx.send(line);
            } else {
                self.partial.push(c);
            }
        }
        Ok(b.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct Brain {
    input: Option<Sender<Vec<u8>>>,
    output: Receiver<String>,
    done: JoinHandle<std::io::Result<()>>,
}

impl Brain {
    fn start(searcher: Arc<Searcher>) -> Brain {
        let (in_tx, in_rx) = mpsc::channel();
        let (out_tx, out_rx) = mpsc::channel();
        let done = std::thread::spawn(move || {
            run_with(
                PipeReader {
                    rx: in_rx,
                    buf: Vec::new(),
                },
                LineSink {
                    tx: out_tx,
                    partial: Vec::new(),
                },
                searcher,
            )
        });
        Brain {
            input: Some(in_tx),
            output: out_rx,
            done,
        }
    }

    fn send(&self, line: &str) {
        let tx = self.input.as_ref().expect("input open");
        tx.send(format!("{line}\n").into_bytes())
            .expect("brain alive");
    }

    fn recv(&self, within_ms: u64) -> String {
        self.output
            .recv_timeout(Duration::from_millis(within_ms))
            .unwrap_or_else(|e| panic!("no output within {within_ms} ms: {e}"))
    }

    fn ends_within(self, ms: u64) {
        let deadline = Instant::now() + Duration::from_millis(ms);
        while !self.done.is_finished() {
            assert!(
                Instant::now() < deadline,
                "run() did not return within {ms} ms"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        self.done.join().expect("no panic").expect("no I/O error");
    }
}

fn is_move(line: &str) -> Option<Pos> {
    line.parse::<Pos>().ok().filter(|_| !line.contains(' '))
}

/// A search that ignores the stop flag for `ms` and then answers like the engine.
fn stuck(ms: u64) -> Arc<Searcher> {
    Arc::new(move |engine, kind, limits, stop, on_info| {
        std::thread::sleep(Duration::from_millis(ms));
        engine_search(engine, kind, limits, stop, on_info)
    })
}

/// A search that runs until told to stop (at most 20 s), then answers like the engine.
fn until_stopped() -> Arc<Searcher> {
    Arc::new(|engine, kind, limits, stop, on_info| {
        let t = Instant::now();
        while !stop.load(Ordering::Relaxed) && t.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(1));
        }
        engine_search(engine, kind, limits, stop, on_info)
    })
}

#[test]
fn a_stuck_search_still_answers_in_time_and_play_continues() {
    let brain = Brain::start(stuck(2_000));
    brain.send("START 15");
    assert_eq!(brain.recv(2_000), "OK");
    brain.send("INFO timeout_turn 300");
    let t = Instant::now();
    brain.send("BEGIN");
    let first = is_move(&brain.recv(2_000)).expect("a move");
    let took = t.elapsed();
    // The fallback waits for the engine until shortly before the limit, never past it (plus
    // scheduling slack).
    assert!(
        took >= Duration::from_millis(150),
        "answered after {took:?}"
    );
    assert!(
        took < Duration::from_millis(1_000),
        "answered after {took:?}"
    );
    // The next move is not delayed by the stuck search either.
    let t = Instant::now();
    brain.send("TURN 0,0");
    let second = is_move(&brain.recv(2_000)).expect("a move");
    assert!(
        t.elapsed() < Duration::from_millis(1_000),
        "{:?}",
        t.elapsed()
    );
    assert!(second != first && second != Pos::new(0, 0));
    brain.send("TAKEBACK 0,0");
    assert!(brain
        .recv(2_000)
        .starts_with("ERROR TAKEBACK 0,0: the last stone is"));
    brain.send(&format!("TAKEBACK {second}"));
    assert_eq!(brain.recv(2_000), "OK");
    brain.send("END");
    brain.ends_within(1_000);
}

#[test]
fn stop_requests_are_obeyed_and_queued_commands_follow_in_order() {
    let brain = Brain::start(until_stopped());
    brain.send("START 15");
    assert_eq!(brain.recv(2_000), "OK");
    brain.send("INFO timeout_turn 60000");
    brain.send("BEGIN");
    brain.send("ABOUT");
    brain.send("FOO");
    std::thread::sleep(Duration::from_millis(100));
    let t = Instant::now();
    brain.send("yxstop");
    assert!(is_move(&brain.recv(2_000)).is_some());
    assert!(t.elapsed() < Duration::from_millis(1_000));
    assert!(brain.recv(2_000).starts_with("name=\"Rensa\""));
    assert_eq!(brain.recv(2_000), "UNKNOWN FOO");
    // Piskvork's stop button.
    brain.send("TURN 0,0");
    std::thread::sleep(Duration::from_millis(100));
    let t = Instant::now();
    brain.send("INFO timeout_turn 0");
    assert!(is_move(&brain.recv(2_000)).is_some());
    assert!(t.elapsed() < Duration::from_millis(1_000));
    // END mid-search: out at once, nothing printed.
    brain.send("INFO timeout_turn 60000");
    brain.send("TURN 14,14");
    std::thread::sleep(Duration::from_millis(100));
    brain.send("END");
    let output = brain.output.recv_timeout(Duration::from_millis(500));
    assert!(output.is_err(), "{output:?}");
    brain.ends_within(1_000);
}

#[test]
fn an_illegal_or_missing_engine_move_is_replaced_by_a_legal_one() {
    let wrong: Arc<Searcher> = Arc::new(|engine, _kind, _limits, _stop, _on_info| {
        let occupied = engine.game().last_move();
        JobOutcome::Move(SearchResult {
            best: occupied,
            value: Value::ZERO,
            depth: 1,
            nodes: 1,
            elapsed_ms: 0,
            pv: vec![],
        })
    });
    let mut brain = Brain::start(wrong);
    brain.send("START 15");
    assert_eq!(brain.recv(2_000), "OK");
    brain.send("INFO timeout_turn 500");
    brain.send("BEGIN");
    let a = is_move(&brain.recv(2_000)).expect("a move (the engine gave none)");
    brain.send("TURN 0,0");
    let b = is_move(&brain.recv(2_000)).expect("a move (the engine gave an occupied one)");
    assert!(b != a && b != Pos::new(0, 0));
    drop(brain.input.take());
    brain.ends_within(1_000);
}

#[test]
fn a_panicking_search_costs_one_fallback_move_not_the_game() {
    let panicking: Arc<Searcher> = Arc::new(|_engine, _kind, _limits, _stop, _on_info| {
        panic!("deliberate test panic in the search thread")
    });
    let brain = Brain::start(panicking);
    brain.send("START 15");
    assert_eq!(brain.recv(2_000), "OK");
    brain.send("INFO timeout_turn 200");
    brain.send("BEGIN");
    let a = is_move(&brain.recv(2_000)).expect("fallback move");
    brain.send("TURN 0,0");
    let b = is_move(&brain.recv(4_000)).expect("fallback move");
    assert!(b != a && b != Pos::new(0, 0));
    brain.send("END");
    brain.ends_within(1_000);
}

#[test]
fn blocks_queued_during_a_search_hold_a_bounded_number_of_stones() {
    // Bug (audit): only the number of queued commands was capped, and each BOARD block may hold
    // 4096 stones, so a flood of big blocks during one search could queue gigabytes.
    let brain = Brain::start(until_stopped());
    brain.send("START 15");
    assert_eq!(brain.recv(2_000), "OK");
    brain.send("INFO timeout_turn 60000");
    brain.send("BEGIN");
    let cells: Vec<String> = (0..64)
        .flat_map(|x| (0..64).map(move |y| format!("{x},{y},1")))
        .collect();
    let block = format!("YXBOARD {} DONE", cells.join(" "));
    let fit = MAX_QUEUED_STONES / command::MAX_BLOCK_STONES;
    for _ in 0..fit + 3 {
        brain.send(&block);
    }
    // After a drop, later commands are dropped too (never obeyed out of sequence).
    brain.send("ABOUT");
    std::thread::sleep(Duration::from_millis(300));
    brain.send("yxstop");
    assert!(is_move(&brain.recv(10_000)).is_some());
    for _ in 0..fit {
        let l = brain.recv(5_000);
        assert!(l.starts_with("ERROR YXBOARD rejected"), "{l}");
    }
    let l = brain.recv(5_000);
    assert!(
        l.starts_with("ERROR more than") && l.contains("dropped"),
        "{l}"
    );
    brain.send("ABOUT");
    assert!(brain.recv(2_000).starts_with("name=\"Rensa\""));
    brain.send("END");
    brain.ends_within(2_000);
}

#[test]
fn the_protocol_builds_every_rules_tables_before_it_is_asked() {
    // Managers send `INFO rule` just before the first move request; the tables of the rule are
    // built in the background from the start instead of on that move's clock.
    let handle = super::prepare_tables_in_background().expect("a thread");
    handle
        .join()
        .expect("the table thread ends without a panic");
    for rule in crate::types::Rule::ALL {
        assert!(crate::board::pattern::tables_built(rule), "{rule}");
    }
}

/// What [`pondering_probe`] makes: the search, the ponders started and stopped, and the
/// number of stones each ponder saw.
struct PonderProbe {
    searcher: Arc<Searcher>,
    started: Arc<std::sync::atomic::AtomicUsize>,
    stopped: Arc<std::sync::atomic::AtomicUsize>,
    seen: Arc<std::sync::Mutex<Vec<usize>>>,
}

/// A search that answers move requests like the engine and, when pondering, waits for its stop
/// flag, counting and recording (see [`PonderProbe`]); `stuck_ponder` makes a ponder ignore its
/// stop flag for two seconds.
fn pondering_probe(stuck_ponder: bool) -> PonderProbe {
    use std::sync::atomic::AtomicUsize;
    let started = Arc::new(AtomicUsize::new(0));
    let stopped = Arc::new(AtomicUsize::new(0));
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let (s1, s2, s3) = (
        Arc::clone(&started),
        Arc::clone(&stopped),
        Arc::clone(&seen),
    );
    let searcher: Arc<Searcher> = Arc::new(move |engine, kind, limits, stop, on_info| {
        if *kind != JobKind::Ponder {
            return engine_search(engine, kind, limits, stop, on_info);
        }
        assert!(limits.turn_time_ms.is_none() && limits.max_nodes.is_none());
        s1.fetch_add(1, Ordering::SeqCst);
        s3.lock().unwrap().push(engine.game().moves().len());
        let t = Instant::now();
        if stuck_ponder {
            std::thread::sleep(Duration::from_millis(2_000));
        }
        while !stop.load(Ordering::Relaxed) && t.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(1));
        }
        s2.fetch_add(1, Ordering::SeqCst);
        JobOutcome::Move(SearchResult {
            best: None,
            value: Value::ZERO,
            depth: 0,
            nodes: 0,
            elapsed_ms: 0,
            pv: vec![],
        })
    });
    PonderProbe {
        searcher,
        started,
        stopped,
        seen,
    }
}

#[test]
fn pondering_thinks_between_moves_silently_and_gives_way_to_the_next_command() {
    let PonderProbe {
        searcher,
        started,
        stopped,
        seen,
    } = pondering_probe(false);
    let count = |c: &Arc<std::sync::atomic::AtomicUsize>| c.load(Ordering::SeqCst);
    let brain = Brain::start(searcher);
    brain.send("START 15");
    assert_eq!(brain.recv(2_000), "OK");
    brain.send("INFO timeout_turn 300");
    // Off by default: no pondering after a move.
    brain.send("BEGIN");
    let a = is_move(&brain.recv(2_000)).expect("a move");
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(count(&started), 0);
    brain.send("INFO pondering 1");
    brain.send("TURN 0,0");
    let b = is_move(&brain.recv(2_000)).expect("a move");
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!((count(&started), count(&stopped)), (1, 0));
    // The position after our move: three stones.
    assert_eq!(*seen.lock().unwrap(), vec![3]);
    // INFO lines are applied without stopping it.
    brain.send("INFO time_left 100000");
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(count(&stopped), 0);
    // A move request stops it and is answered on its own clock.
    let t = Instant::now();
    brain.send("TURN 0,1");
    let c = is_move(&brain.recv(2_000)).expect("a move");
    assert!(
        t.elapsed() < Duration::from_millis(1_000),
        "{:?}",
        t.elapsed()
    );
    assert!(![a, b, Pos::new(0, 0), Pos::new(0, 1)].contains(&c));
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!((count(&started), count(&stopped)), (2, 1));
    // Other commands are answered as usual after it stops.
    brain.send("ABOUT");
    assert!(brain.recv(2_000).starts_with("name=\"Rensa\""));
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(count(&stopped), 2);
    // ABOUT left it our opponent's turn, so no new pondering started; `INFO pondering 0`
    // switches it off.
    assert_eq!(count(&started), 2);
    brain.send("INFO pondering 0");
    brain.send("TURN 0,2");
    assert!(is_move(&brain.recv(2_000)).is_some());
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(count(&started), 2);
    // END while pondering: out at once, nothing printed.
    brain.send("INFO pondering 1");
    brain.send("TURN 0,3");
    assert!(is_move(&brain.recv(2_000)).is_some());
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(count(&started), 3);
    brain.send("END");
    let output = brain.output.recv_timeout(Duration::from_millis(300));
    assert!(output.is_err(), "{output:?}");
    brain.ends_within(1_000);
}

#[test]
fn a_ponder_that_ignores_its_stop_does_not_delay_the_next_move() {
    let PonderProbe {
        searcher, started, ..
    } = pondering_probe(true);
    let brain = Brain::start(searcher);
    brain.send("START 15");
    assert_eq!(brain.recv(2_000), "OK");
    brain.send("INFO timeout_turn 300");
    brain.send("INFO pondering 1");
    brain.send("BEGIN");
    let a = is_move(&brain.recv(2_000)).expect("a move");
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(started.load(Ordering::SeqCst), 1);
    let t = Instant::now();
    brain.send("TURN 0,0");
    let b = is_move(&brain.recv(2_000)).expect("a move");
    assert!(
        t.elapsed() < Duration::from_millis(1_600),
        "{:?}",
        t.elapsed()
    );
    assert!(b != a && b != Pos::new(0, 0));
    brain.send("END");
    brain.ends_within(1_000);
}
