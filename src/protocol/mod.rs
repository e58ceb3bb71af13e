//! The Gomocup protocol layer: line framing, a pure command parser, dispatch onto the engine, and
//! the only writer of protocol text.
//!
//! Threads: an input thread ([`io::spawn_reader`]) reads stdin continuously, parses and timestamps
//! every line and raises the stop flag itself on `END`, `yxstop`/`stop` and `INFO timeout_turn 0`.
//! The dispatcher ([`run`]) handles commands one at a time through [`session::Session`]; a search
//! runs on its own thread while the dispatcher keeps receiving: INFO applies at once, every other
//! command is queued and handled in order after the answer. The dispatcher enforces the time
//! backstop ([`timing`]): it stops the search at a hard deadline and, if the engine is still out,
//! answers with a legal fallback move computed before the search started.
//!
//! Data flows one way: text line -> [`command::Command`] -> [`engine::Engine`](crate::Engine) call
//! -> [`output::Response`] -> text line.

pub mod balance;
pub mod command;
pub mod io;
pub mod output;
pub mod session;
pub mod swap2;
pub mod timing;

#[cfg(test)]
mod driver_tests;

use crate::engine::{Limits, SearchInfo};
use crate::Engine;
use command::{Command, Info, Parsed};
use io::{Event, JobOutcome};
use output::Response;
use session::{Job, JobKind, Session, Step};
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Stack reserved for the search thread, in bytes. Spawned threads get only 2 MiB by default,
/// less than the main thread; a deep recursive search must not overflow it (address space only:
/// pages are committed as they are touched).
pub const SEARCH_STACK_BYTES: usize = 64 * 1024 * 1024;

/// Events (input lines, search progress) waiting for the dispatcher. When it falls behind (a
/// flood of input while it writes one reply per line, or a manager that stops reading the
/// replies) the input thread waits, and so in the end does the sender of the input: memory stays
/// bounded however much arrives. Far more than any manager sends between two replies.
pub const EVENTS_IN_FLIGHT: usize = 4096;
/// Most commands queued while one search runs (a flood beyond this is dropped).
pub const MAX_QUEUED: usize = 100_000;

/// Most stones (BOARD / YXBOARD / SWAP2BOARD stones, YXBLOCK cells) the queued commands may hold
/// together: a block carries up to [`command::MAX_BLOCK_STONES`] stones, so [`MAX_QUEUED`] blocks
/// alone could hold gigabytes. Blocks beyond this are dropped like a flood of commands.
pub const MAX_QUEUED_STONES: usize = 1 << 20;

/// The stones a queued command holds (see [`MAX_QUEUED_STONES`]).
fn stones_held(parsed: &Parsed) -> usize {
    match parsed {
        Ok(Command::Board { stones, .. }) => stones.len(),
        Ok(Command::Swap2Board(stones)) => stones.len(),
        Ok(Command::Block { cells, .. }) => cells.len(),
        _ => 0,
    }
}

/// How a job is computed on the search thread: the engine's real search, or a stand-in in tests
/// (a late, stuck or wrong "engine" to exercise the backstop).
pub type Searcher = dyn Fn(&mut Engine, &JobKind, &Limits, &AtomicBool, &mut dyn FnMut(&SearchInfo)) -> JobOutcome
    + Send
    + Sync;

/// The real search behind every job.
pub fn engine_search(
    engine: &mut Engine,
    kind: &JobKind,
    limits: &Limits,
    stop: &AtomicBool,
    on_info: &mut dyn FnMut(&SearchInfo),
) -> JobOutcome {
    match kind {
        JobKind::Move | JobKind::Ponder => JobOutcome::Move(engine.think(limits, stop, on_info)),
        JobKind::Nbest(n) => JobOutcome::Nbest(engine.think_nbest(limits, *n, stop, on_info)),
        JobKind::Swap2 {
            stones,
            budget_ms,
            seed,
        } => JobOutcome::Swap2(swap2::decide(
            engine, stones, limits, *budget_ms, *seed, stop,
        )),
        JobKind::Balance {
            two,
            bias,
            budget_ms,
        } => JobOutcome::Balance(balance::decide(
            engine, *two, *bias, limits, *budget_ms, stop,
        )),
    }
}

/// Runs the protocol until `END` or end of input, reading `input` on a thread of its own.
pub fn run<R: Read + Send + 'static, W: Write>(input: R, output: W) -> std::io::Result<()> {
    prepare_tables_in_background();
    run_with(input, output, Arc::new(engine_search))
}

/// Builds the lookup tables of every rule on a thread of its own, while the manager is still
/// sending START and its INFO block. Managers send `INFO rule` just before the first move
/// request, and a rule's tables built then would be paid from that move's clock (26 ms for
/// freestyle to 70 ms for renju on a slow, loaded machine). Whoever needs a table first builds
/// it; the other waits for it, so nothing is built twice. All rules together add a few MiB.
fn prepare_tables_in_background() -> Option<std::thread::JoinHandle<()>> {
    // The default rule first, then the others by how often managers ask for them.
    let order = [0, 2, 1, 3, 4].map(|i| crate::types::Rule::ALL[i]);
    crate::board::fast::prepare_tables_in_background(order.to_vec())
}

/// [`run`] with a chosen [`Searcher`].
pub fn run_with<R: Read + Send + 'static, W: Write>(
    input: R,
    output: W,
    searcher: Arc<Searcher>,
) -> std::io::Result<()> {
    let (tx, rx) = mpsc::sync_channel(EVENTS_IN_FLIGHT);
    let stop = Arc::new(io::StopSwitch::default());
    io::spawn_reader(input, tx.clone(), Arc::clone(&stop));
    Driver {
        session: Session::new(),
        out: output,
        tx,
        rx,
        stop,
        searcher,
        queue: VecDeque::new(),
        queued_stones: 0,
        dropped: 0,
        next_job: 0,
    }
    .run()
}

/// A job on the search thread.
struct Running {
    id: u64,
    job: Job,
    stopped: bool,
    /// When the fallback answer was printed.
    answered_at: Option<Instant>,
    /// When the first command was queued after the fallback answer (we then stop waiting soon).
    queued_at: Option<Instant>,
}

struct Driver<W: Write> {
    session: Session,
    out: W,
    tx: SyncSender<Event>,
    rx: Receiver<Event>,
    stop: Arc<io::StopSwitch>,
    searcher: Arc<Searcher>,
    /// Commands that arrived during a search, in order.
    queue: VecDeque<(Parsed, Instant)>,
    /// The stones the queued commands hold ([`MAX_QUEUED_STONES`]).
    queued_stones: usize,
    /// Commands dropped from a flood during the current search.
    dropped: u64,
    next_job: u64,
}

/// Whether the dispatcher goes on.
#[derive(PartialEq, Eq)]
enum Flow {
    Continue,
    Exit,
}

impl<W: Write> Driver<W> {
    fn write(&mut self, lines: &[Response]) -> std::io::Result<()> {
        for l in lines {
            log::debug!("> {l}");
            writeln!(self.out, "{l}")?;
            self.out.flush()?;
        }
        Ok(())
    }

    fn run(mut self) -> std::io::Result<()> {
        loop {
            let (parsed, at) = match self.queue.pop_front() {
                Some(item) => {
                    self.queued_stones = self.queued_stones.saturating_sub(stones_held(&item.0));
                    item
                }
                None => match self.rx.recv() {
                    Ok(Event::Input { parsed, at }) => (parsed, at),
                    // Leftovers of a job we stopped waiting for.
                    Ok(_) => continue,
                    Err(_) => return Ok(()),
                },
            };
            if self.dispatch(parsed, at)? == Flow::Exit {
                return Ok(());
            }
        }
    }

    fn dispatch(&mut self, parsed: Parsed, at: Instant) -> std::io::Result<Flow> {
        let cmd = match parsed {
            Ok(c) => c,
            Err(e) => {
                self.write(&[Response::Error(e.0)])?;
                return Ok(Flow::Continue);
            }
        };
        log::debug!("< {cmd:?}");
        match self.session.handle(cmd, at) {
            Step::Reply(lines) => self.write(&lines)?,
            Step::Exit => return Ok(Flow::Exit),
            Step::Search(job, engine) => {
                let flow = self.search(job, engine)?;
                if flow == Flow::Continue && self.queue.is_empty() {
                    if let Some((job, engine)) = self.session.ponder_job() {
                        return self.ponder(job, engine);
                    }
                }
                return Ok(flow);
            }
        }
        Ok(Flow::Continue)
    }

    /// Starts `searcher` on `kind` with `engine` on a search thread of its own as job `id`; it
    /// reports progress and hands the engine back through the event channel. `Err` when no
    /// thread could be started (the engine is then lost with the closure).
    fn spawn_job(
        &self,
        id: u64,
        kind: JobKind,
        limits: Limits,
        mut engine: Box<Engine>,
        stop: Arc<AtomicBool>,
    ) -> std::io::Result<()> {
        let tx = self.tx.clone();
        let searcher = Arc::clone(&self.searcher);
        std::thread::Builder::new()
            .name("rensa-search".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || {
                let progress_tx = tx.clone();
                let mut on_info = |info: &crate::engine::SearchInfo| {
                    let _ = progress_tx.send(Event::Progress {
                        job: id,
                        info: info.clone(),
                    });
                };
                let outcome = searcher(&mut engine, &kind, &limits, &stop, &mut on_info);
                let _ = tx.send(Event::Done {
                    job: id,
                    engine,
                    outcome,
                });
            })
            .map(|_| ())
    }

    /// Thinks on the opponent's time (`INFO pondering 1`, see [`Session::ponder_job`]) until
    /// the next command. INFO lines are applied as they come and the pondering goes on; any
    /// other command stops it, waits up to [`timing::PONDER_STOP_MS`] for the engine (a fresh
    /// one replaces it after that), and is then handled as usual, on the clock that started
    /// when its line was read. `END` exits at once. Nothing is printed.
    fn ponder(&mut self, job: Box<Job>, engine: Box<Engine>) -> std::io::Result<Flow> {
        let id = self.next_job;
        self.next_job += 1;
        self.dropped = 0;
        let stop = self.stop.fresh();
        if let Err(e) = self.spawn_job(id, JobKind::Ponder, job.limits.clone(), engine, stop) {
            log::error!("could not start the pondering thread: {e}");
            self.session.rebuild_engine(&job);
            return Ok(Flow::Continue);
        }
        log::debug!("pondering");
        // Until a command comes that pondering must give way to.
        loop {
            match self.rx.recv() {
                Err(_) => return Ok(Flow::Exit),
                Ok(Event::Done { job: j, engine, .. }) if j == id => {
                    // The search ended by itself (a proven result, or the depth cap).
                    self.session.end_ponder(engine);
                    return Ok(Flow::Continue);
                }
                Ok(Event::Done { .. } | Event::Progress { .. }) => {}
                Ok(Event::Input { parsed, at }) => match parsed {
                    Ok(Command::End) => return Ok(Flow::Exit),
                    Ok(Command::Info(info)) if !matches!(info, Info::Pondering(0)) => {
                        log::debug!("< {:?} (pondering)", Command::Info(info.clone()));
                        self.session.apply_info(info);
                    }
                    other => {
                        self.enqueue(other, at);
                        break;
                    }
                },
            }
        }
        self.stop.raise();
        let give_up = Instant::now() + Duration::from_millis(timing::PONDER_STOP_MS);
        loop {
            match self
                .rx
                .recv_timeout(give_up.saturating_duration_since(Instant::now()))
            {
                Ok(Event::Done { job: j, engine, .. }) if j == id => {
                    self.session.end_ponder(engine);
                    return Ok(Flow::Continue);
                }
                Ok(Event::Done { .. } | Event::Progress { .. }) => {}
                Ok(Event::Input { parsed, at }) => {
                    if matches!(parsed, Ok(Command::End)) {
                        return Ok(Flow::Exit);
                    }
                    self.enqueue(parsed, at);
                }
                Err(RecvTimeoutError::Timeout) => {
                    log::error!("pondering did not stop in time");
                    self.session.rebuild_engine(&job);
                    return Ok(Flow::Continue);
                }
                Err(RecvTimeoutError::Disconnected) => return Ok(Flow::Exit),
            }
        }
    }

    /// Runs one job on a search thread and waits for it while serving the input.
    fn search(&mut self, job: Box<Job>, engine: Box<Engine>) -> std::io::Result<Flow> {
        let id = self.next_job;
        self.next_job += 1;
        self.dropped = 0;
        let stop = self.stop.fresh();
        let (kind, limits) = (job.kind.clone(), job.limits.clone());
        if let Err(e) = self.spawn_job(id, kind, limits, engine, stop) {
            // Could not start a thread: answer with the fallback and carry on without the engine
            // state of this move (rebuilt from the job).
            log::error!("could not start the search thread: {e}");
            let lines = self.session.answer_with_fallback(&job);
            self.write(&lines)?;
            self.session.rebuild_engine(&job);
            return Ok(Flow::Continue);
        }
        let mut run = Running {
            id,
            job: *job,
            stopped: false,
            answered_at: None,
            queued_at: None,
        };
        loop {
            let wait = self.next_wake(&run);
            let event = match wait {
                Some(t) => match self
                    .rx
                    .recv_timeout(t.saturating_duration_since(Instant::now()))
                {
                    Ok(e) => Some(e),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => return Ok(Flow::Exit),
                },
                None => match self.rx.recv() {
                    Ok(e) => Some(e),
                    Err(_) => return Ok(Flow::Exit),
                },
            };
            let step = match event {
                None => self.on_timer(&mut run)?,
                Some(e) => self.on_event(&mut run, e)?,
            };
            if let Some(flow) = step {
                return Ok(flow);
            }
        }
    }

    /// Handles one event while a search runs; `Some` when the search is over for the dispatcher.
    fn on_event(&mut self, run: &mut Running, event: Event) -> std::io::Result<Option<Flow>> {
        match event {
            Event::Input { parsed, at } => match parsed {
                Ok(Command::End) => return Ok(Some(Flow::Exit)),
                Ok(Command::Info(info)) => {
                    let stops = Command::Info(info.clone()).stops_search();
                    self.session.apply_info(info);
                    if stops {
                        self.request_stop(run);
                    } else {
                        self.refresh_deadlines(run);
                    }
                }
                other => {
                    if other.as_ref().is_ok_and(Command::stops_search) {
                        self.request_stop(run);
                    }
                    if run.answered_at.is_some() && run.queued_at.is_none() {
                        run.queued_at = Some(Instant::now());
                    }
                    self.enqueue(other, at);
                }
            },
            Event::Progress { job, info } => {
                if job == run.id && run.answered_at.is_none() {
                    let lines = self.session.progress_lines(&run.job, &info);
                    self.write(&lines)?;
                }
            }
            Event::Done {
                job,
                engine,
                outcome,
            } => {
                if job != run.id {
                    return Ok(None);
                }
                if run.answered_at.is_some() {
                    self.session.restore_after_fallback(&run.job, engine);
                } else {
                    let lines = self.session.finish(&run.job, engine, outcome);
                    self.write(&lines)?;
                }
                return Ok(Some(Flow::Continue));
            }
        }
        Ok(None)
    }

    /// Queues a command that arrived during a search. A flood beyond [`MAX_QUEUED`] commands or
    /// [`MAX_QUEUED_STONES`] stones is dropped (memory stays bounded) and reported with one
    /// `ERROR` after the search.
    fn enqueue(&mut self, parsed: Parsed, at: Instant) {
        let stones = stones_held(&parsed);
        // After the first drop everything else is dropped too: a later command must not be
        // obeyed without the ones before it.
        if self.dropped == 0
            && self.queue.len() < MAX_QUEUED
            && self.queued_stones + stones <= MAX_QUEUED_STONES
        {
            self.queued_stones += stones;
            self.queue.push_back((parsed, at));
            return;
        }
        self.dropped += 1;
        if self.dropped == 1 {
            log::warn!("more than {MAX_QUEUED} commands or {MAX_QUEUED_STONES} stones during one search; dropping the rest");
            // Keep the last slot for the report so it comes in order.
            self.queue.push_back((
                Err(command::ParseError(format!(
                    "more than {MAX_QUEUED} commands or {MAX_QUEUED_STONES} stones arrived during one search; later ones were dropped"
                ))),
                at,
            ));
        }
    }

    /// The next instant the dispatcher must act at without input, if any.
    fn next_wake(&self, run: &Running) -> Option<Instant> {
        if let Some(t) = run.answered_at {
            let give_up = t + Duration::from_millis(timing::ABANDON_AFTER_MS);
            return Some(match run.queued_at {
                Some(q) => give_up.min(q + Duration::from_millis(timing::QUEUED_GRACE_MS)),
                None => give_up,
            });
        }
        let d = run.job.deadlines?;
        Some(if run.stopped { d.answer_at } else { d.stop_at })
    }

    /// A deadline passed; `Some` when the job is over for the dispatcher.
    fn on_timer(&mut self, run: &mut Running) -> std::io::Result<Option<Flow>> {
        let now = Instant::now();
        if run.answered_at.is_some() {
            self.session.rebuild_engine(&run.job);
            return Ok(Some(Flow::Continue));
        }
        let Some(d) = run.job.deadlines else {
            return Ok(None);
        };
        if !run.stopped && now >= d.stop_at {
            log::info!("hard deadline: stopping the search");
            self.stop.raise();
            run.stopped = true;
        }
        if run.stopped && now >= d.answer_at {
            log::warn!("the search is late: answering with the fallback move");
            let lines = self.session.answer_with_fallback(&run.job);
            self.write(&lines)?;
            run.answered_at = Some(now);
            if !self.queue.is_empty() {
                run.queued_at = Some(now);
            }
        }
        Ok(None)
    }

    /// A stop request (`yxstop`, `stop`, `INFO timeout_turn 0`): stop now and give the engine
    /// [`timing::STOP_GRACE_MS`] to return its best move before the fallback answers.
    fn request_stop(&self, run: &mut Running) {
        self.stop.raise();
        if run.answered_at.is_some() {
            return;
        }
        let now = Instant::now();
        let answer_at = now + Duration::from_millis(timing::STOP_GRACE_MS);
        run.stopped = true;
        run.job.deadlines = Some(match run.job.deadlines {
            Some(d) => timing::Deadlines {
                stop_at: d.stop_at.min(now),
                answer_at: d.answer_at.min(answer_at),
            },
            None => timing::Deadlines {
                stop_at: now,
                answer_at,
            },
        });
    }

    /// A new `timeout_turn` / `time_left` mid-search may bring the deadlines forward.
    fn refresh_deadlines(&self, run: &mut Running) {
        if run.answered_at.is_some() {
            return;
        }
        let Some(limit) = self.session.move_limit_ms() else {
            return;
        };
        let fresh = timing::deadlines(run.job.at, limit);
        if fresh.stop_at <= Instant::now() {
            self.request_stop(run);
            return;
        }
        run.job.deadlines = Some(match run.job.deadlines {
            Some(d) if d.answer_at <= fresh.answer_at => d,
            _ => fresh,
        });
    }
}
