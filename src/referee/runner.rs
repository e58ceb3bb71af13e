//! Matches and tournaments: the schedule (pairings x openings x colours), worker threads that play
//! games concurrently with their own engine processes, streaming of finished games to the output
//! directory, live progress, resume and early stopping.
//!
//! Games `2k` and `2k + 1` always form a pair: same opening, same two engines, colours exchanged.
//! The schedule is a pure function of the configuration (and the logged shuffle seed), so a resumed
//! run plays exactly the games that are missing.

use super::game::{
    play_game, sanitize, EngineConfig, EngineSession, GameAbort, GameLog, GameSettings, GameSpec,
};
use super::process;
use super::record::GameRecord;
use super::{records, sgf, stats};
use crate::openings;
use crate::pos::Pos;
use crate::types::Color;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::collections::{HashMap, HashSet, VecDeque};
use std::fs::{self, File, OpenOptions};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// Who plays whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tournament {
    /// The first two engines against each other.
    Match,
    /// The first engine against each of the others.
    Gauntlet,
    /// Every engine against every other.
    RoundRobin,
}

/// Everything a run needs.
#[derive(Clone, Debug)]
pub struct RunConfig {
    pub engines: Vec<EngineConfig>,
    pub tournament: Tournament,
    /// Games per pairing (an odd number is rounded up: games come in colour-swapped pairs).
    pub games_per_pairing: usize,
    pub settings: GameSettings,
    /// Openings (stones, black first), already validated for the board and rule. Empty = every game
    /// starts from the empty board (or swap2).
    pub openings: Vec<Vec<Pos>>,
    /// Shuffle the opening order with this seed (`None` = file order).
    pub shuffle_seed: Option<u64>,
    /// After each pass through the openings, use the next of the 8 board symmetries (pass `r`
    /// uses symmetry `r % 8`; symmetries that do not fit the board fall back to the identity).
    pub transform: bool,
    /// Games played at the same time.
    pub concurrency: usize,
    /// Output directory for records, SGF files, logs and the results table.
    pub out_dir: Option<PathBuf>,
    /// Write a protocol log per game (`<out>/logs/`).
    pub log_protocol: bool,
    /// Continue from the records in `out_dir`.
    pub resume: bool,
    /// Live progress on stderr.
    pub progress: bool,
}

/// One entry of the schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scheduled {
    pub spec: GameSpec,
    /// Engine indices: `first` plays black with a fixed opening (or proposes in swap2).
    pub first: usize,
    pub second: usize,
}

/// The engine pairings of a tournament, `(first, second)` engine indices.
pub fn pairings(tournament: Tournament, engines: usize) -> Vec<(usize, usize)> {
    match tournament {
        Tournament::Match => {
            if engines >= 2 {
                vec![(0, 1)]
            } else {
                vec![]
            }
        }
        Tournament::Gauntlet => (1..engines).map(|j| (0, j)).collect(),
        Tournament::RoundRobin => (0..engines)
            .flat_map(|i| (i + 1..engines).map(move |j| (i, j)))
            .collect(),
    }
}

/// The order in which openings are used: file order, or shuffled with `seed`.
pub fn opening_order(count: usize, seed: Option<u64>) -> Vec<usize> {
    let mut order: Vec<usize> = (0..count).collect();
    if let Some(seed) = seed {
        order.shuffle(&mut StdRng::seed_from_u64(seed));
    }
    order
}

/// The full schedule. Pair `k` of every pairing uses opening `order[k % len]`, and the pairing's
/// first-listed engine has black in the first game of even pairs and in the second game of odd
/// ones; pairings are interleaved so that partial results stay balanced.
pub fn schedule(config: &RunConfig) -> Vec<Scheduled> {
    let pairs = pairings(config.tournament, config.engines.len());
    let pairs_per_pairing = config.games_per_pairing.div_ceil(2);
    let order = opening_order(config.openings.len(), config.shuffle_seed);
    let mut out = Vec::new();
    let (w, h) = (config.settings.width, config.settings.height);
    // The symmetries a pass may use: all eight on a square board, on a rectangle the four that
    // keep the axes (the others would fall back to the opening as it is, replaying it).
    let symmetries: Vec<u8> = (0..openings::SYMMETRIES)
        .filter(|&s| w == h || !openings::is_transposing(s))
        .collect();
    for k in 0..pairs_per_pairing {
        let opening_index = (!order.is_empty()).then(|| order[k % order.len()]);
        let mut opening = opening_index
            .map(|i| config.openings[i].clone())
            .unwrap_or_default();
        if config.transform && !order.is_empty() {
            let symmetry = symmetries[(k / order.len()) % symmetries.len()];
            if let Some(t) = openings::transform(&opening, symmetry, w, h) {
                opening = t;
            }
        }
        for &(a, b) in &pairs {
            // Which engine has black first alternates from pair to pair. An engine that keeps
            // state from game to game (a warm hash, when processes are reused) can play the
            // second game of a pair differently from the first; with a fixed order that would
            // favour one engine every time.
            let colours = if k % 2 == 0 {
                [(a, b), (b, a)]
            } else {
                [(b, a), (a, b)]
            };
            for (first, second) in colours {
                out.push(Scheduled {
                    spec: GameSpec {
                        game_index: out.len(),
                        opening_index,
                        opening: opening.clone(),
                    },
                    first,
                    second,
                });
            }
        }
    }
    out
}

/// What a finished (or interrupted) run produced.
#[derive(Debug)]
pub struct RunSummary {
    /// Every record of the schedule that exists, sorted by game index (resumed ones included).
    pub records: Vec<GameRecord>,
    /// Games in the schedule.
    pub scheduled: usize,
    /// Games played in this invocation.
    pub played_now: usize,
    /// Games that could not be played because their opening was unusable.
    pub skipped: Vec<(usize, String)>,
    pub interrupted: bool,
    /// Wall time of this invocation.
    pub elapsed: Duration,
}

/// Streams finished games to the output directory.
struct Sink {
    dir: Option<PathBuf>,
    records_file: Option<File>,
}

/// Name of the records file inside the output directory (one JSON object per line).
pub const RECORDS_FILE: &str = "games.jsonl";
/// Name of the file keeping the opening shuffle seed inside the output directory.
pub const SEED_FILE: &str = "seed.txt";
/// Name of the file describing what the games were played under (see [`run_settings`]).
pub const SETTINGS_FILE: &str = "settings.txt";

/// The settings that decide how a run's games are played, one per line: the rule, board, opening
/// phase and draw limit, memory, process handling, and per engine its command, environment,
/// extra `INFO` lines and clock. `--resume` refuses to add games played under other settings to
/// a run (the concurrency, the output options and the game count may change).
pub fn run_settings(config: &RunConfig) -> String {
    let s = &config.settings;
    let mut out = format!(
        "rule {}\nboard {}x{}\nswap2 {}\ndraw after {}\nmax memory {} bytes{}\n\
         suspend {}\nrestart per game {}\nboard every move {}\n",
        s.rule.name(),
        s.width,
        s.height,
        s.swap2,
        s.draw_after
            .map_or("full board".to_string(), |n| format!("{n} stones")),
        s.max_memory_bytes,
        if s.enforce_memory { ", enforced" } else { "" },
        s.suspend,
        s.restart_per_game,
        s.board_every_move,
    );
    for e in &config.engines {
        let c = &e.command;
        let t = &e.time;
        out.push_str(&format!(
            "engine {}: {:?} args {:?} env {:?} info {:?} turn {} ms match {} ms increment {} ms \
             tolerance {} ms\n",
            e.name,
            c.program,
            c.args,
            c.env,
            e.extra_info,
            t.turn_ms,
            t.match_ms,
            t.increment_ms,
            t.tolerance_ms
        ));
    }
    out
}

/// Checks that a resumed run has the settings its records were played under: those in the
/// settings file when the run wrote one, and always each record's rule and board.
fn check_resume_settings(
    dir: &Path,
    config: &RunConfig,
    records: &[GameRecord],
) -> Result<(), String> {
    let s = &config.settings;
    if let Some(r) = records
        .iter()
        .find(|r| (r.rule, r.width, r.height) != (s.rule, s.width, s.height))
    {
        return Err(format!(
            "recorded game {} was played as {} on {}x{}, this run is {} on {}x{}: \
             resume with the same options, or use another --out",
            r.game_index,
            r.rule.name(),
            r.width,
            r.height,
            s.rule.name(),
            s.width,
            s.height
        ));
    }
    let path = dir.join(SETTINGS_FILE);
    let Ok(before) = fs::read_to_string(&path) else {
        return Ok(());
    };
    let now = run_settings(config);
    let changed: Vec<String> = before
        .lines()
        .zip(now.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("  was: {a}\n  now: {b}"))
        .collect();
    if changed.is_empty() && before.lines().count() == now.lines().count() {
        return Ok(());
    }
    Err(format!(
        "the run in {} was played under other settings (see {}):\n{}\n\
         resume with the same options, or use another --out",
        dir.display(),
        path.display(),
        if changed.is_empty() {
            "  a different number of engines".to_string()
        } else {
            changed.join("\n")
        }
    ))
}

impl Sink {
    fn open(dir: Option<&Path>, resume: bool) -> Result<Sink, String> {
        let Some(dir) = dir else {
            return Ok(Sink {
                dir: None,
                records_file: None,
            });
        };
        let records = dir.join(RECORDS_FILE);
        if records.exists() && !resume {
            return Err(format!(
                "{} already exists: use --resume to continue that run, or another --out",
                records.display()
            ));
        }
        for sub in ["", "sgf", "logs"] {
            fs::create_dir_all(dir.join(sub))
                .map_err(|e| format!("cannot create {}: {e}", dir.join(sub).display()))?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&records)
            .map_err(|e| format!("cannot open {}: {e}", records.display()))?;
        Ok(Sink {
            dir: Some(dir.to_path_buf()),
            records_file: Some(file),
        })
    }

    fn log_for(&self, game_index: usize, enabled: bool) -> GameLog {
        match (&self.dir, enabled) {
            (Some(dir), true) => {
                let path = dir.join("logs").join(format!("game-{game_index:06}.log"));
                GameLog::to_file(&path).unwrap_or_else(|e| {
                    log::warn!("cannot write {}: {e}", path.display());
                    GameLog::none()
                })
            }
            _ => GameLog::none(),
        }
    }

    fn write(&mut self, r: &GameRecord) {
        let Some(dir) = &self.dir else { return };
        if let Some(f) = &mut self.records_file {
            let line = record_line(r);
            if let Err(e) = f.write_all(line.as_bytes()).and_then(|_| f.flush()) {
                log::warn!("cannot append to {RECORDS_FILE}: {e}");
            }
        }
        if let Some(sgf) = record_sgf(r) {
            let path = dir
                .join("sgf")
                .join(format!("game-{:06}.sgf", r.game_index));
            if let Err(e) = fs::write(&path, sgf) {
                log::warn!("cannot write {}: {e}", path.display());
            }
        }
    }
}

/// One records-file line for `r`, newline included.
fn record_line(r: &GameRecord) -> String {
    let mut line = records::to_json_line(r);
    line.push('\n');
    line
}

/// SGF text for `r` (none on a board SGF cannot hold).
fn record_sgf(r: &GameRecord) -> Option<String> {
    sgf::to_sgf(r)
}

/// Records already in `dir` (for `--resume`). Unreadable lines (e.g. the half-written last line
/// of a killed run) are reported and dropped: the file is rewritten with the good lines only, so
/// that appending continues on a clean line.
fn load_records(dir: &Path) -> Result<Vec<GameRecord>, String> {
    let path = dir.join(RECORDS_FILE);
    let text = match fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let (recs, errors) = records::read_records(&text);
    for e in &errors {
        // Ignoring a failed write: a closed stderr must not stop the run.
        let _ = writeln!(
            std::io::stderr(),
            "rensa-referee: {}: {e} (dropped)",
            path.display()
        );
    }
    if !errors.is_empty() || !(text.is_empty() || text.ends_with('\n')) {
        let clean: String = recs.iter().map(record_line).collect();
        let tmp = dir.join(format!("{RECORDS_FILE}.tmp"));
        fs::write(&tmp, clean)
            .and_then(|_| fs::rename(&tmp, &path))
            .map_err(|e| format!("cannot rewrite {}: {e}", path.display()))?;
    }
    Ok(recs)
}

/// Live W/L/D tally from the first engine's point of view.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
}

impl Tally {
    pub fn add(&mut self, r: &GameRecord, name: &str) {
        if r.black != name && r.white != name {
            return;
        }
        match r.winner_name() {
            None => self.draws += 1,
            Some(w) if w == name => self.wins += 1,
            Some(_) => self.losses += 1,
        }
    }

    pub fn games(&self) -> u64 {
        self.wins + self.losses + self.draws
    }

    /// Points per game in [0, 1].
    pub fn score(&self) -> f64 {
        if self.games() == 0 {
            0.5
        } else {
            (self.wins as f64 + 0.5 * self.draws as f64) / self.games() as f64
        }
    }
}

/// The first engine's Elo estimate so far: pentanomial over complete pairs against `second`
/// when there is a single opponent, trinomial over all its games otherwise.
pub fn live_estimate(
    records: &[GameRecord],
    first: &str,
    second: Option<&str>,
    t: &Tally,
) -> stats::EloEstimate {
    if let Some(second) = second {
        let p = stats::pentanomial_for(records, first, second);
        if p.pairs() > 0 {
            return stats::pentanomial_elo(&p);
        }
    }
    stats::trinomial_elo(t.wins, t.draws, t.losses)
}

/// The live progress line.
pub struct Progress {
    enabled: bool,
    terminal: bool,
    first: String,
    /// The only opponent in a two-engine match (enables the pentanomial estimate).
    second: Option<String>,
    /// Extra text appended to the line (e.g. the SPRT state).
    pub extra: String,
    tally: Tally,
    done: usize,
    total: usize,
    played_now: usize,
    start: Instant,
}

impl Progress {
    fn new(enabled: bool, first: String, second: Option<String>, total: usize) -> Progress {
        Progress {
            enabled,
            terminal: std::io::stderr().is_terminal(),
            first,
            second,
            extra: String::new(),
            tally: Tally::default(),
            done: 0,
            total,
            played_now: 0,
            start: Instant::now(),
        }
    }

    fn add(&mut self, r: &GameRecord, now: bool) {
        self.tally.add(r, &self.first);
        self.done += 1;
        if now {
            self.played_now += 1;
        }
    }

    /// `games 12/100  rensa: W 5 L 4 D 3  score 54.2%  Elo +29.0 ± 120.3  ETA 1m40s`.
    pub fn line(&self, records: &[GameRecord]) -> String {
        let t = &self.tally;
        let eta = if self.played_now > 0 && self.done < self.total {
            let per_game = self.start.elapsed().as_secs_f64() / self.played_now as f64;
            format_duration(per_game * (self.total - self.done) as f64)
        } else {
            "-".into()
        };
        let est = live_estimate(records, &self.first, self.second.as_deref(), t);
        format!(
            "games {}/{}  {}: W {} L {} D {}  score {:.1}%  Elo {}  ETA {}{}",
            self.done,
            self.total,
            self.first,
            t.wins,
            t.losses,
            t.draws,
            100.0 * t.score(),
            est.elo_text(),
            eta,
            self.extra
        )
    }

    fn show(&self, records: &[GameRecord], last: Option<&GameRecord>) {
        if !self.enabled {
            return;
        }
        let mut err = std::io::stderr().lock();
        if self.terminal {
            let _ = write!(err, "\r{}\x1b[K", self.line(records));
        } else {
            let game = last
                .map(|r| {
                    format!(
                        "game {} {} vs {}: {} ({})  ",
                        r.game_index,
                        r.black,
                        r.white,
                        r.winner_name().unwrap_or("draw"),
                        r.reason
                    )
                })
                .unwrap_or_default();
            let _ = writeln!(err, "{game}{}", self.line(records));
        }
        let _ = err.flush();
    }

    fn finish(&self) {
        if self.enabled && self.terminal {
            let _ = writeln!(std::io::stderr());
        }
    }
}

/// `1h02m`, `3m05s`, `42s`.
pub fn format_duration(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

enum WorkerMsg {
    /// A finished game, and where to say that the worker may take the next one: only after the
    /// decision hook has seen this record, so that a run it stops plays no game past it.
    Done(Box<GameRecord>, mpsc::SyncSender<()>),
    Skipped(usize, String),
}

/// Runs the schedule (minus games already recorded when resuming). A decision hook may stop the
/// run early: it sees every record so far (after each game, and once at the start) and returns
/// whether to stop, and a text shown on the progress line (e.g. the SPRT state).
pub fn run(
    config: &RunConfig,
    mut should_stop: impl FnMut(&[GameRecord]) -> (bool, String),
) -> Result<RunSummary, String> {
    let start = Instant::now();
    let full = schedule(config);
    let names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    let mut records: Vec<GameRecord> = Vec::new();
    if config.resume {
        let dir = config
            .out_dir
            .as_deref()
            .ok_or("--resume needs the output directory of the run")?;
        let loaded = load_records(dir)?;
        check_resume_settings(dir, config, &loaded)?;
        let recorded = loaded.iter().map(|r| r.game_index + 1).max().unwrap_or(0);
        if recorded > full.len() {
            return Err(format!(
                "the run holds game {} but this schedule has {} games: --resume can add games, \
                 not drop them (give --games so that the schedule holds at least {recorded})",
                recorded - 1,
                full.len()
            ));
        }
        for r in loaded {
            let Some(s) = full.get(r.game_index) else {
                return Err(format!(
                    "recorded game {} is not in this schedule (different options?)",
                    r.game_index
                ));
            };
            let expected: HashSet<&str> =
                [names[s.first].as_str(), names[s.second].as_str()].into();
            let got: HashSet<&str> = [r.black.as_str(), r.white.as_str()].into();
            if expected != got || (!config.settings.swap2 && r.opening != s.spec.opening) {
                return Err(format!(
                    "recorded game {} was {} vs {} from opening {:?}, the schedule says {} vs {} \
                     from {:?} (different options or seed?)",
                    r.game_index,
                    r.black,
                    r.white,
                    r.opening.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
                    names[s.first],
                    names[s.second],
                    s.spec
                        .opening
                        .iter()
                        .map(|p| p.to_string())
                        .collect::<Vec<_>>()
                ));
            }
            if !records.iter().any(|o| o.game_index == r.game_index) {
                records.push(r);
            }
        }
        log::info!(
            "resuming: {} of {} games recorded",
            records.len(),
            full.len()
        );
    }
    let mut sink = Sink::open(config.out_dir.as_deref(), config.resume)?;
    if let Some(dir) = &sink.dir {
        let path = dir.join(SETTINGS_FILE);
        if !(config.resume && path.exists()) {
            if let Err(e) = fs::write(&path, run_settings(config)) {
                log::warn!("cannot write {}: {e}", path.display());
            }
        }
    }
    if let (Some(dir), Some(seed)) = (&sink.dir, config.shuffle_seed) {
        // Kept so that `--resume` can rebuild the same shuffled schedule without `--seed`.
        let _ = fs::write(dir.join(SEED_FILE), format!("{seed}\n"));
    }
    let done: HashSet<usize> = records.iter().map(|r| r.game_index).collect();
    let todo: VecDeque<Scheduled> = full
        .iter()
        .filter(|s| !done.contains(&s.spec.game_index))
        .cloned()
        .collect();
    let first_name = names.first().cloned().unwrap_or_default();
    let second_name = (config.engines.len() == 2).then(|| names[1].clone());
    let mut progress = Progress::new(config.progress, first_name, second_name, full.len());
    for r in &records {
        progress.add(r, false);
    }
    let (stop_now, extra) = should_stop(&records);
    progress.extra = extra;
    let stop = AtomicBool::new(stop_now);
    let queue = Mutex::new(todo);
    let configs: Vec<Arc<EngineConfig>> = config.engines.iter().cloned().map(Arc::new).collect();
    let (tx, rx) = mpsc::channel::<WorkerMsg>();
    let mut skipped = Vec::new();
    let mut played_now = 0;
    let workers = config.concurrency.max(1);
    let sink_dir = sink.dir.clone();
    std::thread::scope(|scope| {
        for w in 0..workers {
            let tx = tx.clone();
            let (queue, stop, configs, sink_dir) = (&queue, &stop, &configs, &sink_dir);
            let settings = &config.settings;
            let log_protocol = config.log_protocol;
            std::thread::Builder::new()
                .name(format!("referee-worker-{w}"))
                .spawn_scoped(scope, move || {
                    worker(
                        queue,
                        stop,
                        configs,
                        settings,
                        sink_dir.as_deref(),
                        log_protocol,
                        tx,
                    )
                })
                .expect("spawning a worker thread");
        }
        drop(tx);
        progress.show(&records, None);
        for msg in rx.iter() {
            match msg {
                WorkerMsg::Done(r, go_on) => {
                    sink.write(&r);
                    progress.add(&r, true);
                    records.push(*r);
                    played_now += 1;
                    let (stop_now, extra) = should_stop(&records);
                    progress.extra = extra;
                    if stop_now {
                        stop.store(true, Ordering::SeqCst);
                    }
                    let _ = go_on.send(());
                    progress.show(&records, records.last());
                }
                WorkerMsg::Skipped(i, why) => {
                    log::warn!("game {i} skipped: {why}");
                    skipped.push((i, why));
                }
            }
        }
    });
    progress.finish();
    records.sort_by_key(|r| r.game_index);
    Ok(RunSummary {
        records,
        scheduled: full.len(),
        played_now,
        skipped,
        interrupted: process::interrupted(),
        elapsed: start.elapsed(),
    })
}

fn worker(
    queue: &Mutex<VecDeque<Scheduled>>,
    stop: &AtomicBool,
    configs: &[Arc<EngineConfig>],
    settings: &GameSettings,
    out_dir: Option<&Path>,
    log_protocol: bool,
    tx: mpsc::Sender<WorkerMsg>,
) {
    let mut sessions: HashMap<usize, EngineSession> = HashMap::new();
    let (go_on, may_go_on) = mpsc::sync_channel::<()>(1);
    let sink = Sink {
        dir: out_dir.map(Path::to_path_buf),
        records_file: None,
    };
    loop {
        if stop.load(Ordering::SeqCst) || process::interrupted() {
            break;
        }
        let next = queue.lock().map(|mut q| q.pop_front()).unwrap_or(None);
        let Some(job) = next else { break };
        let mut first = sessions
            .remove(&job.first)
            .unwrap_or_else(|| EngineSession::new(configs[job.first].clone()));
        let mut second = sessions
            .remove(&job.second)
            .unwrap_or_else(|| EngineSession::new(configs[job.second].clone()));
        let mut log = sink.log_for(job.spec.game_index, log_protocol);
        let result = play_game(&job.spec, settings, &mut first, &mut second, &mut log);
        sessions.insert(job.first, first);
        sessions.insert(job.second, second);
        let msg = match result {
            Ok(r) => WorkerMsg::Done(Box::new(r), go_on.clone()),
            Err(GameAbort::BadOpening(why)) => WorkerMsg::Skipped(job.spec.game_index, why),
            Err(GameAbort::Interrupted) => break,
        };
        let done = matches!(msg, WorkerMsg::Done(..));
        if tx.send(msg).is_err() || (done && may_go_on.recv().is_err()) {
            break;
        }
    }
    let grace = Duration::from_millis(settings.end_grace_ms);
    for (_, mut s) in sessions {
        s.stop(grace);
    }
}

/// Colour of the first engine in a record (for summaries).
pub fn color_of(r: &GameRecord, name: &str) -> Option<Color> {
    if r.black == name {
        Some(Color::Black)
    } else if r.white == name {
        Some(Color::White)
    } else {
        None
    }
}

/// Writes the final table to `<out>/results.txt`.
pub fn write_results(dir: &Path, table: &str) -> std::io::Result<()> {
    fs::write(dir.join("results.txt"), table)
}

/// A file-name-safe engine name (re-exported for callers building paths).
pub fn file_name_of(name: &str) -> String {
    sanitize(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairings_cover_each_tournament() {
        assert_eq!(pairings(Tournament::Match, 3), vec![(0, 1)]);
        assert_eq!(pairings(Tournament::Gauntlet, 3), vec![(0, 1), (0, 2)]);
        assert_eq!(
            pairings(Tournament::RoundRobin, 3),
            vec![(0, 1), (0, 2), (1, 2)]
        );
        assert!(pairings(Tournament::Match, 1).is_empty());
    }

    #[test]
    fn shuffled_order_is_a_seeded_permutation() {
        let a = opening_order(10, Some(7));
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, (0..10).collect::<Vec<_>>());
        assert_eq!(a, opening_order(10, Some(7)));
        assert_eq!(opening_order(3, None), vec![0, 1, 2]);
    }

    fn config(engines: usize, tournament: Tournament, games: usize) -> RunConfig {
        let engine = |i: usize| EngineConfig {
            name: format!("e{i}"),
            command: process::EngineCommand {
                program: "none".into(),
                args: vec![],
                dir: None,
                env: vec![],
                show_stderr: false,
            },
            time: super::super::game::TimeControl::FASTGAME,
            extra_info: vec![],
        };
        RunConfig {
            engines: (0..engines).map(engine).collect(),
            tournament,
            games_per_pairing: games,
            settings: GameSettings::new(15, 15, crate::types::Rule::Freestyle),
            openings: vec![
                vec![Pos::new(7, 7), Pos::new(8, 7)],
                vec![Pos::new(7, 7), Pos::new(8, 9), Pos::new(6, 6)],
            ],
            shuffle_seed: None,
            transform: false,
            concurrency: 1,
            out_dir: None,
            log_protocol: false,
            resume: false,
            progress: false,
        }
    }

    #[test]
    fn schedule_pairs_share_an_opening_with_colours_swapped() {
        let c = config(3, Tournament::RoundRobin, 5);
        let s = schedule(&c);
        // 3 pairings x 3 pairs (5 games rounded up to 6) x 2 games.
        assert_eq!(s.len(), 18);
        for (i, g) in s.iter().enumerate() {
            assert_eq!(g.spec.game_index, i);
        }
        for pair in s.chunks(2) {
            assert_eq!(pair[0].spec.opening, pair[1].spec.opening);
            assert_eq!(
                (pair[0].first, pair[0].second),
                (pair[1].second, pair[1].first)
            );
        }
        // Openings cycle in file order per pairing: pair k uses opening k % 2.
        let ab: Vec<Option<usize>> = s
            .iter()
            .filter(|g| (g.first, g.second) == (0, 1))
            .map(|g| g.spec.opening_index)
            .collect();
        assert_eq!(ab, [Some(0), Some(1), Some(0)]);
        // The engine with black in a pair's first game alternates: e0 in pair 0 of pairing
        // (e0, e1), e1 in pair 1, e0 again in pair 2.
        let first_blacks: Vec<usize> = s
            .iter()
            .filter(|g| g.spec.game_index % 2 == 0 && g.first + g.second == 1)
            .map(|g| g.first)
            .collect();
        assert_eq!(first_blacks, [0, 1, 0]);
    }

    #[test]
    fn transform_uses_a_new_symmetry_on_each_pass() {
        let mut c = config(2, Tournament::Match, 8);
        c.transform = true;
        let s = schedule(&c);
        assert_eq!(s.len(), 8);
        // Pass 0 is the identity, pass 1 the first non-trivial symmetry.
        assert_eq!(s[0].spec.opening, c.openings[0]);
        assert_eq!(s[2].spec.opening, c.openings[1]);
        assert_ne!(s[4].spec.opening, c.openings[0]);
        assert_eq!(
            Some(s[4].spec.opening.clone()),
            openings::transform(&c.openings[0], 1, 15, 15)
        );
    }

    #[test]
    fn transform_on_a_rectangle_cycles_through_the_four_axis_keeping_symmetries() {
        // Bug (audit): the passes of the four axis-exchanging symmetries replayed the opening as
        // it was, so 20x15 runs repeated the untransformed games.
        let mut c = config(2, Tournament::Match, 16);
        c.transform = true;
        c.settings.width = 20;
        c.settings.height = 15;
        c.openings.truncate(1);
        c.openings[0] = vec![Pos::new(10, 7), Pos::new(11, 7), Pos::new(11, 10)];
        let s = schedule(&c);
        let firsts: Vec<Vec<Pos>> = s
            .iter()
            .step_by(2)
            .map(|g| g.spec.opening.clone())
            .collect();
        let want: Vec<Vec<Pos>> = [0, 2, 4, 6, 0, 2, 4, 6]
            .iter()
            .map(|&sym| openings::transform(&c.openings[0], sym, 20, 15).unwrap())
            .collect();
        assert_eq!(firsts, want);
    }

    #[test]
    fn durations_format_compactly() {
        assert_eq!(format_duration(42.4), "42s");
        assert_eq!(format_duration(185.0), "3m05s");
        assert_eq!(format_duration(3720.0), "1h02m");
    }
}
