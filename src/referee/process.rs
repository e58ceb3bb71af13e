//! One engine process as the referee sees it: spawn, write protocol lines, read answer lines with a
//! deadline, suspend / resume, measure memory, and kill the whole process tree.
//!
//! This module owns the operating-system side only; it knows nothing about games or the protocol's
//! meaning. Every wait takes a deadline, output lines are capped in length and buffered in a bounded
//! channel, so no engine behaviour can hang the referee or exhaust its memory.
//!
//! On unix the engine runs in its own process group: killing, suspending (SIGSTOP) and resuming
//! (SIGCONT) address the group, so helper processes the engine started go with it. On Linux they
//! also address every process found through `/proc` that descends from the engine by parent
//! links, or that carries the engine's tag in its environment ([`TAG_VAR`], set for the engine
//! and inherited by whatever it starts): so a helper that left the group (`setsid`), or whose
//! parent exited (a double fork, or the engine itself gone), still goes with it.

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::mpsc::{
    sync_channel, Receiver, RecvTimeoutError, SyncSender, TryRecvError, TrySendError,
};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// Longest engine output line kept, in bytes; the rest of a longer line is discarded.
pub const MAX_LINE_BYTES: usize = 16 * 1024;
/// Lines buffered between the reader thread and the referee. When full, the reader blocks and the
/// engine's own writes block on the pipe: a flooding engine costs the referee no memory.
const CHANNEL_LINES: usize = 256;
/// Command batches queued for the writer thread. An engine that stops reading its input fills the
/// pipe, then this queue; the next send then fails instead of blocking the referee.
const WRITE_QUEUE_BATCHES: usize = 16;
/// Longest single sleep while waiting, so that an interrupt (Ctrl-C) is noticed quickly.
const POLL_SLICE: Duration = Duration::from_millis(100);

/// The signal number [`request_interrupt`] was given (0: none).
static INTERRUPTED: AtomicI32 = AtomicI32::new(0);

/// Asks every wait in this process to give up as soon as possible, from the handler of signal
/// `signal` (SIGINT, SIGTERM or SIGHUP; any positive number). Async-signal-safe: one atomic
/// store.
pub fn request_interrupt(signal: i32) {
    INTERRUPTED.store(signal.max(1), Ordering::SeqCst);
}

/// Whether [`request_interrupt`] was called.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst) != 0
}

/// Slots of [`ENGINE_GROUPS`].
#[cfg(unix)]
const GROUP_SLOTS: usize = 256;

/// The process groups of the engines this process has started and not yet reaped (0: a free
/// slot), for [`kill_engine_groups`].
#[cfg(unix)]
static ENGINE_GROUPS: [AtomicI32; GROUP_SLOTS] = [const { AtomicI32::new(0) }; GROUP_SLOTS];

/// Files an engine's process group for [`kill_engine_groups`]; returns its slot (`None` when
/// every slot is taken: that engine is then only killed the ordinary way).
#[cfg(unix)]
fn register_group(pgid: i32) -> Option<usize> {
    ENGINE_GROUPS.iter().position(|s| {
        s.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    })
}

/// Kills the process group of every engine started and not yet reaped, at once: for a second
/// Ctrl-C, when the referee exits without its usual clean-up (engines run in groups of their
/// own, so a terminal's signal does not reach them). Async-signal-safe: atomic loads and
/// kill(2).
pub fn kill_engine_groups() {
    #[cfg(unix)]
    for slot in &ENGINE_GROUPS {
        let pgid = slot.load(Ordering::SeqCst);
        if pgid > 0 {
            // SAFETY: kill(2) has no memory-safety preconditions; a negative pid addresses a
            // process group.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
}

/// The signal number given to [`request_interrupt`], if it was called.
pub fn interrupt_signal() -> Option<i32> {
    Some(INTERRUPTED.load(Ordering::SeqCst)).filter(|&s| s != 0)
}

/// How to start an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineCommand {
    pub program: PathBuf,
    pub args: Vec<String>,
    /// Working directory; `None` = the referee's.
    pub dir: Option<PathBuf>,
    /// Environment variables set for the engine on top of the referee's own.
    pub env: Vec<(String, String)>,
    /// Let the engine's stderr through to the referee's stderr (otherwise it is discarded).
    pub show_stderr: bool,
}

/// Why a wait for a line ended without one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitError {
    /// The deadline passed.
    Timeout,
    /// The engine closed its output (exited or crashed).
    Closed,
    /// The referee is shutting down.
    Interrupted,
}

enum Event {
    Line(String, Instant),
    Closed,
}

/// A running engine process.
pub struct EngineProcess {
    child: Child,
    /// This engine's value of [`TAG_VAR`].
    tag: String,
    /// Command batches for the writer thread (`None` once input is closed).
    stdin: Option<SyncSender<Vec<u8>>>,
    /// Set by the writer thread when a write fails (the engine closed its input or died).
    write_failed: Arc<AtomicBool>,
    rx: Receiver<Event>,
    closed: bool,
    suspended: bool,
    /// Line ending written after each command (CR LF by default, like Piskvork and GomocupJudge).
    pub eol: &'static str,
    /// This engine's slot in the registry of [`kill_engine_groups`].
    #[cfg(unix)]
    group_slot: Option<usize>,
}

impl EngineProcess {
    /// Starts the engine with piped stdin / stdout.
    pub fn spawn(cmd: &EngineCommand) -> io::Result<EngineProcess> {
        let tag = new_tag();
        let mut command = Command::new(&cmd.program);
        command
            .args(&cmd.args)
            .envs(cmd.env.iter().map(|(k, v)| (k, v)))
            .env(TAG_VAR, &tag)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if cmd.show_stderr {
                Stdio::inherit()
            } else {
                Stdio::null()
            });
        if let Some(dir) = &cmd.dir {
            command.current_dir(dir);
        }
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let mut child = command.spawn()?;
        match Self::attach(&mut child) {
            Ok((stdin, write_failed, rx)) => {
                // The engine leads its own process group, whose id is its pid.
                #[cfg(unix)]
                let group_slot = register_group(child.id() as i32);
                Ok(EngineProcess {
                    child,
                    tag,
                    stdin: Some(stdin),
                    write_failed,
                    rx,
                    closed: false,
                    suspended: false,
                    eol: "\r\n",
                    #[cfg(unix)]
                    group_slot,
                })
            }
            Err(e) => {
                // Never leave a started engine behind.
                let _ = child.kill();
                let _ = child.wait();
                Err(e)
            }
        }
    }

    /// Starts the reader and writer threads on the child's pipes.
    #[allow(clippy::type_complexity)]
    fn attach(
        child: &mut Child,
    ) -> io::Result<(SyncSender<Vec<u8>>, Arc<AtomicBool>, Receiver<Event>)> {
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| io::Error::other("no stdout pipe"))?;
        let pipe = child
            .stdin
            .take()
            .ok_or_else(|| io::Error::other("no stdin pipe"))?;
        let (tx, rx) = sync_channel(CHANNEL_LINES);
        thread::Builder::new()
            .name("engine-reader".into())
            .spawn(move || read_lines(stdout, tx))?;
        let (wtx, wrx) = sync_channel(WRITE_QUEUE_BATCHES);
        let write_failed = Arc::new(AtomicBool::new(false));
        let failed = write_failed.clone();
        thread::Builder::new()
            .name("engine-writer".into())
            .spawn(move || write_batches(pipe, wrx, failed))?;
        Ok((wtx, write_failed, rx))
    }

    /// Operating-system process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes one command line (see [`EngineProcess::send_lines`]).
    pub fn send(&mut self, line: &str) -> io::Result<()> {
        self.send_lines(&[line])
    }

    /// Queues command lines to be written (and flushed) together, each followed by the line
    /// ending. Never blocks: an error means the engine is gone or has stopped reading its input.
    pub fn send_lines<S: AsRef<str>>(&mut self, lines: &[S]) -> io::Result<()> {
        if self.write_failed.load(Ordering::SeqCst) {
            return Err(io::Error::new(io::ErrorKind::BrokenPipe, "input closed"));
        }
        let stdin = self
            .stdin
            .as_ref()
            .ok_or_else(|| io::Error::new(io::ErrorKind::BrokenPipe, "input closed"))?;
        let mut bytes = Vec::new();
        for line in lines {
            bytes.extend_from_slice(line.as_ref().as_bytes());
            bytes.extend_from_slice(self.eol.as_bytes());
        }
        match stdin.try_send(bytes) {
            Ok(()) => Ok(()),
            Err(TrySendError::Full(_)) => Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                "the engine does not read its input",
            )),
            Err(TrySendError::Disconnected(_)) => {
                Err(io::Error::new(io::ErrorKind::BrokenPipe, "input closed"))
            }
        }
    }

    /// Removes every line already received (stale output, e.g. printed after a move) and returns
    /// them for logging.
    pub fn drain(&mut self) -> Vec<String> {
        let mut stale = Vec::new();
        // Bounded, so that an engine flooding its output cannot keep the referee here.
        for _ in 0..CHANNEL_LINES * 4 {
            match self.rx.try_recv() {
                Ok(Event::Line(l, _)) => stale.push(l),
                Ok(Event::Closed) | Err(TryRecvError::Disconnected) => {
                    self.closed = true;
                    return stale;
                }
                Err(TryRecvError::Empty) => return stale,
            }
        }
        stale
    }

    /// The next output line and the instant it arrived, waiting at most until `deadline`.
    pub fn next_line(&mut self, deadline: Instant) -> Result<(String, Instant), WaitError> {
        if self.closed {
            return Err(WaitError::Closed);
        }
        // When the engine was first seen to have exited: a child process of its own may still
        // hold the pipe open, so the end of output alone does not tell.
        let mut exited_at: Option<Instant> = None;
        loop {
            if interrupted() {
                return Err(WaitError::Interrupted);
            }
            let now = Instant::now();
            if now >= deadline {
                // A last non-blocking look for lines read before the deadline but not yet taken;
                // later ones do not count (and a flooding engine cannot keep us here).
                return match self.rx.try_recv() {
                    Ok(Event::Line(l, at)) if at <= deadline => Ok((l, at)),
                    Ok(Event::Line(..)) => Err(WaitError::Timeout),
                    Ok(Event::Closed) | Err(TryRecvError::Disconnected) => {
                        self.closed = true;
                        Err(WaitError::Closed)
                    }
                    Err(TryRecvError::Empty) => Err(WaitError::Timeout),
                };
            }
            match self.rx.recv_timeout((deadline - now).min(POLL_SLICE)) {
                Ok(Event::Line(l, at)) => return Ok((l, at)),
                Ok(Event::Closed) | Err(RecvTimeoutError::Disconnected) => {
                    self.closed = true;
                    return Err(WaitError::Closed);
                }
                Err(RecvTimeoutError::Timeout) => {
                    // Lines it wrote before exiting have had a whole slice to arrive.
                    if exited_at.is_some_and(|t| t.elapsed() >= POLL_SLICE) {
                        self.closed = true;
                        return Err(WaitError::Closed);
                    }
                    if exited_at.is_none() && matches!(self.child.try_wait(), Ok(Some(_))) {
                        exited_at = Some(Instant::now());
                    }
                }
            }
        }
    }

    /// Whether the process has exited (or its output closed).
    pub fn has_exited(&mut self) -> bool {
        self.closed || !matches!(self.child.try_wait(), Ok(None))
    }

    /// Stops the engine's process tree until [`EngineProcess::resume`] (unix; no-op elsewhere).
    pub fn suspend(&mut self) {
        if !self.suspended && self.signal_group(Signal::Stop) {
            self.suspended = true;
        }
    }

    /// Continues a suspended engine.
    pub fn resume(&mut self) {
        if self.suspended {
            self.signal_group(Signal::Continue);
            self.suspended = false;
        }
    }

    /// Memory of the engine's process tree in bytes: the sum of each process's unique set size
    /// (its private resident pages, which GomocupJudge sums too; pages a forked helper shares
    /// with its parent count for neither), or its whole resident size where the kernel does not
    /// tell the private part (Linux `/proc`; `None` elsewhere or if unreadable).
    pub fn memory_bytes(&mut self) -> Option<u64> {
        tree_memory_bytes(self.root())
    }

    /// The engine's pid as the root of its process tree, and whether it is still unreaped (once
    /// reaped, the pid may be reused by an unrelated process).
    fn root(&mut self) -> Root<'_> {
        Root {
            pid: self.child.id(),
            alive: matches!(self.child.try_wait(), Ok(None)),
            tag: &self.tag,
        }
    }

    /// Sends `END`, waits up to `grace` for the process to exit, then kills the process tree.
    pub fn shutdown(mut self, grace: Duration) {
        self.resume();
        let _ = self.send("END");
        self.stdin = None; // EOF as well, for engines that exit on end of input.
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                break;
            }
            thread::sleep(Duration::from_millis(5));
        }
        // Drop kills whatever is left of the group and reaps the child.
    }

    /// Sends `signal` to the engine's process group and, on Linux, to every process of its tree
    /// (see [`process_tree`]). A kill first stops the tree and looks again until no new process
    /// turns up, so that nothing forked during the kill escapes it.
    fn signal_group(&mut self, signal: Signal) -> bool {
        #[cfg(unix)]
        {
            let sig = match signal {
                Signal::Stop => libc::SIGSTOP,
                Signal::Continue => libc::SIGCONT,
                Signal::Kill => libc::SIGKILL,
            };
            // Once the engine is reaped its pid may be reused by an unrelated process: then only
            // the members of its group (a group id is not reused while it has members) and their
            // descendants are signalled.
            let root = self.root();
            let pid = root.pid;
            let tree = if sig == libc::SIGKILL {
                stop_tree(root)
            } else {
                signal_tree(root, sig)
            };
            // SAFETY: kill(2) has no memory-safety preconditions; a negative pid addresses the
            // process group that `process_group(0)` created with the engine as its leader.
            let group = unsafe { libc::kill(-(pid as libc::pid_t), sig) == 0 };
            if sig == libc::SIGKILL {
                signal_pids(&tree, sig);
            }
            group || !tree.is_empty()
        }
        #[cfg(not(unix))]
        {
            match signal {
                Signal::Kill => self.child.kill().is_ok(),
                _ => false,
            }
        }
    }
}

/// How many times a kill stops the engine's tree and looks again for processes forked meanwhile.
#[cfg(unix)]
const TREE_STOP_ROUNDS: usize = 8;

/// The engine whose process tree is meant: its pid (also its process group's id), whether that
/// pid is still the engine's (not yet reaped), and its tag ([`TAG_VAR`]).
#[derive(Clone, Copy, Debug)]
struct Root<'a> {
    pid: u32,
    alive: bool,
    tag: &'a str,
}

/// The environment variable that marks every process of one engine's tree: the referee sets it
/// for each engine it starts, to a value no other engine gets, and processes inherit it.
pub const TAG_VAR: &str = "RENSA_REFEREE_ENGINE";

/// A tag no other engine of any referee gets: this process's id, a counter and the time.
fn new_tag() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{}-{n}-{nanos}", std::process::id())
}

/// Sends `sig` to every process of the tree of `root` (see [`process_tree`]); returns them
/// (none where `/proc` is not available).
#[cfg(unix)]
fn signal_tree(root: Root, sig: i32) -> Vec<u32> {
    let tree = process_tree(root);
    signal_pids(&tree, sig);
    tree
}

/// Stops the tree of `root` and looks again until no new process turns up (a stopped process
/// cannot fork), at most [`TREE_STOP_ROUNDS`] times; returns the last tree seen, all stopped.
#[cfg(unix)]
fn stop_tree(root: Root) -> Vec<u32> {
    let mut tree = signal_tree(root, libc::SIGSTOP);
    for _ in 1..TREE_STOP_ROUNDS {
        let again = signal_tree(root, libc::SIGSTOP);
        let grew = again.iter().any(|p| !tree.contains(p));
        tree = again;
        if !grew {
            break;
        }
    }
    tree
}

/// Sends `sig` to each of `pids`.
#[cfg(unix)]
fn signal_pids(pids: &[u32], sig: i32) {
    for &pid in pids {
        // SAFETY: kill(2) has no memory-safety preconditions.
        unsafe {
            libc::kill(pid as libc::pid_t, sig);
        }
    }
}

#[derive(Clone, Copy)]
enum Signal {
    Stop,
    Continue,
    Kill,
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        self.stdin = None;
        self.signal_group(Signal::Kill);
        let _ = self.child.kill();
        let _ = self.child.wait();
        #[cfg(unix)]
        if let Some(slot) = self.group_slot {
            ENGINE_GROUPS[slot].store(0, Ordering::SeqCst);
        }
    }
}

/// Writer thread: writes and flushes each batch; on the first error it flags the failure and ends
/// (dropping the pipe). Ends when the process handle drops its sender.
fn write_batches(mut pipe: ChildStdin, rx: Receiver<Vec<u8>>, failed: Arc<AtomicBool>) {
    for batch in rx {
        if pipe.write_all(&batch).and_then(|_| pipe.flush()).is_err() {
            failed.store(true, Ordering::SeqCst);
            return;
        }
    }
}

/// Reader thread: splits the engine's output into lines (LF, CR or CR LF), caps each at
/// [`MAX_LINE_BYTES`], drops empty lines, and ends with `Closed` on end of output.
fn read_lines(mut out: impl Read, tx: std::sync::mpsc::SyncSender<Event>) {
    let mut buf = [0u8; 8192];
    let mut line: Vec<u8> = Vec::new();
    // Lines are stamped with the moment their bytes were read, not when they are queued, so that
    // output written together with a move is never mistaken for a later answer.
    let emit = |line: &mut Vec<u8>, at: Instant| -> bool {
        let text = String::from_utf8_lossy(line).trim().to_string();
        line.clear();
        text.is_empty() || tx.send(Event::Line(text, at)).is_ok()
    };
    loop {
        let n = match out.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let at = Instant::now();
        for &b in &buf[..n] {
            if b == b'\n' || b == b'\r' {
                if !emit(&mut line, at) {
                    return;
                }
            } else if line.len() < MAX_LINE_BYTES {
                line.push(b);
            }
        }
    }
    if emit(&mut line, Instant::now()) {
        let _ = tx.send(Event::Closed);
    }
}

/// One process as [`tree_members`] sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ProcInfo {
    pid: u32,
    ppid: u32,
    pgrp: u32,
    /// Its environment holds the engine's tag.
    tagged: bool,
}

/// The processes of `/proc`, read once, each marked whether its environment holds `TAG_VAR=tag`
/// (Linux; empty elsewhere or if unreadable; another user's environment is not readable, and
/// such a process counts as untagged).
fn proc_table(tag: &str) -> Vec<ProcInfo> {
    if !cfg!(target_os = "linux") {
        return Vec::new();
    }
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let needle = format!("{TAG_VAR}={tag}");
    dir.flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let (ppid, pgrp) = stat_parent_and_group(&stat)?;
            let tagged = std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == needle.as_bytes()));
            Some(ProcInfo {
                pid,
                ppid,
                pgrp,
                tagged,
            })
        })
        .collect()
}

/// The engine's process tree: the engine itself while `root.alive`, the members of its process
/// group, the processes carrying its tag, and every descendant of any of them by parent links
/// (which also catches a process that left the group with `setsid` and cleared its
/// environment). Pure: `procs` is a [`proc_table`].
fn tree_members(procs: &[ProcInfo], root: Root) -> Vec<u32> {
    let mut members: Vec<u32> = procs
        .iter()
        .filter(|p| (root.alive && p.pid == root.pid) || p.pgrp == root.pid || p.tagged)
        .map(|p| p.pid)
        .collect();
    loop {
        let before = members.len();
        for p in procs {
            if members.contains(&p.ppid) && !members.contains(&p.pid) {
                members.push(p.pid);
            }
        }
        if members.len() == before {
            return members;
        }
    }
}

/// The live process tree of `root` (see [`tree_members`]; empty where `/proc` is not available).
fn process_tree(root: Root) -> Vec<u32> {
    tree_members(&proc_table(root.tag), root)
}

/// Sum over the process tree of `root` of each process's unique set size ([`rollup_uss_kib`]),
/// or of its `VmRSS` where `smaps_rollup` cannot be read (Linux only).
fn tree_memory_bytes(root: Root) -> Option<u64> {
    let kib: Vec<u64> = process_tree(root)
        .into_iter()
        .filter_map(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
                .ok()
                .and_then(|r| rollup_uss_kib(&r))
                .or_else(|| {
                    std::fs::read_to_string(format!("/proc/{pid}/status"))
                        .ok()
                        .and_then(|s| status_rss_kib(&s))
                })
        })
        .collect();
    (!kib.is_empty()).then(|| kib.iter().sum::<u64>() * 1024)
}

/// The unique set size in KiB from a `/proc/<pid>/smaps_rollup` text: its `Private_Clean`,
/// `Private_Dirty` and `Private_Hugetlb` lines (`None` without the first two).
fn rollup_uss_kib(rollup: &str) -> Option<u64> {
    let field = |name| proc_kib(rollup, name);
    Some(
        field("Private_Clean:")?
            + field("Private_Dirty:")?
            + field("Private_Hugetlb:").unwrap_or(0),
    )
}

/// The number of the line `name` (`VmRSS:`, `Private_Dirty:`, ...) of a `/proc` text in KiB.
fn proc_kib(text: &str, name: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix(name))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
}

/// The parent pid and process group fields of a `/proc/<pid>/stat` line (the command name may
/// contain blanks and parentheses, so fields are counted after the last `)`).
fn stat_parent_and_group(stat: &str) -> Option<(u32, u32)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    // Fields after the name: state, ppid, pgrp.
    let mut fields = rest.split_whitespace().skip(1);
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((ppid, pgrp))
}

/// `VmRSS` in KiB from a `/proc/<pid>/status` text.
fn status_rss_kib(status: &str) -> Option<u64> {
    proc_kib(status, "VmRSS:")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_fields_parse() {
        let stat = "1234 (we ird) name)) S 1 4321 4321 0 -1 4194560";
        assert_eq!(stat_parent_and_group(stat), Some((1, 4321)));
        assert_eq!(stat_parent_and_group("garbage"), None);
        assert_eq!(stat_parent_and_group("5 (x) S 1"), None);
        let status = "Name:\tx\nVmPeak:\t  100 kB\nVmRSS:\t    2048 kB\n";
        assert_eq!(status_rss_kib(status), Some(2048));
        assert_eq!(status_rss_kib("Name: x\n"), None);
        let rollup = "55d0-7ffd ---p 00000000 00:00 0   [rollup]\nRss:   270000 kB\n\
                      Pss:   136000 kB\nShared_Clean:  1000 kB\nShared_Dirty: 266000 kB\n\
                      Private_Clean:  500 kB\nPrivate_Dirty:  2500 kB\nPrivate_Hugetlb: 0 kB\n";
        assert_eq!(rollup_uss_kib(rollup), Some(3000));
        assert_eq!(rollup_uss_kib("Rss: 5 kB\nPrivate_Dirty: 1 kB\n"), None);
    }

    #[test]
    fn tree_follows_group_tag_and_parent_links() {
        let p = |pid, ppid, pgrp, tagged| ProcInfo {
            pid,
            ppid,
            pgrp,
            tagged,
        };
        // 10 is the engine (its own group) under the referee 1; 11 is in its group; 12 left the
        // group (setsid) but is 10's child, and 13 is 12's child; 20 and 21 are unrelated; 22 is
        // in group 10 although its parent is unrelated; 30 is an orphan adopted by init that
        // carries the tag, and 31 its untagged child.
        let procs = [
            p(1, 0, 1, false),
            p(13, 12, 12, false),
            p(10, 1, 10, true),
            p(11, 10, 10, true),
            p(12, 10, 12, false),
            p(20, 1, 20, false),
            p(21, 20, 20, false),
            p(22, 20, 10, false),
            p(30, 1, 30, true),
            p(31, 30, 31, false),
        ];
        let root = |alive| Root {
            pid: 10,
            alive,
            tag: "",
        };
        let mut tree = tree_members(&procs, root(true));
        tree.sort_unstable();
        assert_eq!(tree, [10, 11, 12, 13, 22, 30, 31]);
        // Reaped: pid 10 might be someone else's now (here an untagged process in its own
        // group): not it, but its group, tagged processes and their descendants.
        let reused = [
            p(10, 1, 40, false),
            p(41, 10, 40, false),
            p(11, 1, 10, false),
        ];
        let mut tree = tree_members(&reused, root(false));
        tree.sort_unstable();
        assert_eq!(tree, [11]);
        assert!(tree_members(&reused[..2], root(false)).is_empty());
    }

    /// Whether process `pid` is gone or a zombie (Linux `/proc`).
    #[cfg(target_os = "linux")]
    fn gone(pid: u32) -> bool {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => true,
            Ok(stat) => stat[stat.rfind(')').unwrap() + 1..]
                .trim_start()
                .starts_with('Z'),
        }
    }

    /// A helper that leaves the engine's process group (`setsid`), and one orphaned by a double
    /// fork, are counted in its memory, stopped with it, and killed with it.
    #[cfg(target_os = "linux")]
    #[test]
    fn helpers_that_leave_the_group_go_with_the_engine() {
        let has_setsid = Command::new("setsid")
            .arg("true")
            .status()
            .is_ok_and(|s| s.success());
        if !has_setsid {
            return; // no `setsid` here
        }
        // The engine prints the pids of a setsid child and of a double-forked orphan (whose
        // parent exits at once), then waits on its input.
        let script = "setsid sh -c 'echo A $$; exec sleep 60' & \
                      (setsid sh -c 'echo B $$; exec sleep 60' &) ; \
                      cat";
        let cmd = EngineCommand {
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
            dir: None,
            env: vec![],
            show_stderr: false,
        };
        let mut p = EngineProcess::spawn(&cmd).expect("sh starts");
        let mut pids = Vec::new();
        for _ in 0..2 {
            let (line, _) = p
                .next_line(Instant::now() + Duration::from_secs(10))
                .expect("a helper's pid");
            let pid: u32 = line[2..].parse().expect("a pid");
            pids.push(pid);
        }
        // Both helpers are in the engine's tree (the orphan once it is adopted by the engine).
        let deadline = Instant::now() + Duration::from_secs(10);
        while !pids.iter().all(|q| process_tree(p.root()).contains(q)) {
            assert!(
                Instant::now() < deadline,
                "helpers {pids:?} not in the tree"
            );
            thread::sleep(Duration::from_millis(10));
        }
        assert!(p.memory_bytes().is_some_and(|b| b > 0));
        p.suspend();
        let stopped = |pid: u32| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            stat.rfind(')')
                .is_some_and(|i| stat[i + 1..].trim_start().starts_with('T'))
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while !pids.iter().all(|&q| stopped(q)) {
            assert!(Instant::now() < deadline, "helpers {pids:?} not stopped");
            thread::sleep(Duration::from_millis(10));
        }
        p.resume();
        p.shutdown(Duration::from_millis(100));
        let deadline = Instant::now() + Duration::from_secs(10);
        while !pids.iter().all(|&q| gone(q)) {
            assert!(
                Instant::now() < deadline,
                "helpers {pids:?} survived the kill"
            );
            thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn reader_splits_caps_and_closes() {
        let mut input = b"7,7\r\n\r\nMESSAGE hi\rlast".to_vec();
        input.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES * 3));
        input.extend_from_slice(b"\n8,8\n");
        let (tx, rx) = sync_channel(16);
        read_lines(&input[..], tx);
        let lines: Vec<String> = rx
            .iter()
            .filter_map(|e| match e {
                Event::Line(l, _) => Some(l),
                Event::Closed => None,
            })
            .collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0], "7,7");
        assert_eq!(lines[1], "MESSAGE hi");
        assert_eq!(lines[2].len(), MAX_LINE_BYTES);
        assert!(lines[2].starts_with("lastxxx"));
        assert_eq!(lines[3], "8,8");
    }

    #[cfg(unix)]
    #[test]
    fn engines_get_their_environment_variables() {
        let cmd = EngineCommand {
            program: "sh".into(),
            args: vec!["-c".into(), "echo \"[$RENSA_REFEREE_TEST]\"".into()],
            dir: None,
            env: vec![("RENSA_REFEREE_TEST".into(), "a=1,b=2".into())],
            show_stderr: false,
        };
        let Ok(mut p) = EngineProcess::spawn(&cmd) else {
            return; // no `sh` on this system
        };
        let line = p.next_line(Instant::now() + Duration::from_secs(10));
        assert_eq!(line.unwrap().0, "[a=1,b=2]");
        p.shutdown(Duration::from_millis(100));
    }

    #[cfg(unix)]
    #[test]
    fn silent_process_times_out_and_is_killed() {
        let cmd = EngineCommand {
            program: "sleep".into(),
            args: vec!["30".into()],
            dir: None,
            env: vec![],
            show_stderr: false,
        };
        let Ok(mut p) = EngineProcess::spawn(&cmd) else {
            return; // no `sleep` on this system
        };
        let start = Instant::now();
        let r = p.next_line(Instant::now() + Duration::from_millis(200));
        assert_eq!(r.unwrap_err(), WaitError::Timeout);
        // `sleep` never reads its input: sending must fail once pipe and queue are full, never block.
        let big = "x".repeat(8192);
        let failed_at = (0..10_000).find(|_| p.send(&big).is_err());
        assert!(failed_at.is_some_and(|n| n > 0));
        p.suspend();
        p.resume();
        p.shutdown(Duration::from_millis(100));
        assert!(start.elapsed() < Duration::from_secs(10));
    }
}
