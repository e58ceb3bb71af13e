//! `rensa-referee`: plays Gomocup-protocol engines against each other (match, gauntlet, round
//! robin), judges game records and pools recorded runs (report). A thin shell: parse arguments,
//! build a [`rensa::referee::runner::RunConfig`], run, map the outcome to an exit code.
//!
//! Exit codes: 0 done, 1 runtime error (bad opening file, unwritable output, bad game text, a run
//! `report` cannot read), 2 usage error, 128 + the signal when stopped by SIGINT (Ctrl-C, 130),
//! SIGTERM (143) or SIGHUP (129) (records so far are kept; the referee prints the command that
//! continues the run with `--resume`).

use anyhow::{anyhow, bail, Context};
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use rensa::board::Game;
use rensa::openings;
use rensa::pos::{parse_algebraic, Pos};
use rensa::referee::game::{parse_move_line, probe_name, EngineConfig, GameSettings, TimeControl};
use rensa::referee::process::{EngineCommand, EngineProcess};
use rensa::referee::record::GameRecord;
use rensa::referee::runner::{self, RunConfig, Tournament};
use rensa::referee::stats::{self, Sprt, SprtDecision};
use rensa::types::Rule;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// `eprintln!` that ignores a failed write: status lines must not stop a run when stderr is a
/// closed pipe (`2>&1 | head`).
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `println!` likewise for stdout: the records and `results.txt` are written whether or not
/// anyone still reads stdout.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

#[derive(Parser)]
#[command(
    name = "rensa-referee",
    version,
    about = "Plays Gomocup-protocol engines against each other and judges games",
    after_help = "Engines: --engine <SPEC>... where SPEC tokens are a program path (or cmd=PATH), \
then optional arg=ARG (repeatable), name=NAME, dir=WORKDIR, turn-ms=N, match-ms=N, inc-ms=N, \
info=KEY=VALUE (repeatable), env=NAME=VALUE (repeatable, an environment variable for the engine). \
Example: --engine ./pbrain-a name=A turn-ms=2000 --engine ./pbrain-b"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Two engines against each other (exactly two --engine options).
    Match(RunArgs),
    /// The first engine against each of the others.
    Gauntlet(RunArgs),
    /// Every engine against every other.
    #[command(alias = "rr")]
    RoundRobin(RunArgs),
    /// Judge a game: who won, why, at which move (or unfinished).
    Judge(JudgeArgs),
    /// One results table over recorded runs (their --out directories or games.jsonl files).
    Report(ReportArgs),
    /// A short match of two pbrain-rensa engines found next to this executable.
    Demo {
        /// Output directory (default: a fresh directory under the system temp dir).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Runs the built-in Rensa engine on stdin/stdout (the demo's fallback when pbrain-rensa is
    /// not built next to the referee).
    #[command(hide = true)]
    Engine,
}

#[derive(Args, Clone)]
struct RunArgs {
    /// An engine: its program path (or cmd=PATH), then optional tokens arg=ARG (repeatable),
    /// name=NAME, dir=WORKDIR, turn-ms=N, match-ms=N, inc-ms=N, info=KEY=VALUE (repeatable),
    /// env=NAME=VALUE (repeatable). Repeat --engine for each engine.
    // clap's derive flattens repeated `--engine a b --engine c` into one list; `main` regroups the
    // occurrences into `engines`.
    #[arg(
        long = "engine",
        num_args = 1..,
        required = true,
        value_name = "SPEC",
        action = clap::ArgAction::Append
    )]
    engine: Vec<String>,
    #[arg(skip)]
    engines: Vec<Vec<String>>,
    /// Games per pairing (played in colour-swapped pairs; odd counts are rounded up).
    #[arg(long, default_value_t = 2, value_parser = positive_arg)]
    games: usize,
    /// freestyle, standard, renju, caro (exact five, value 9) or caro8; or an INFO rule number (0-15).
    #[arg(long, default_value = "freestyle", value_parser = rule_arg)]
    rule: String,
    /// Board size: N or WxH.
    #[arg(long, default_value = "15", value_parser = size_arg)]
    size: String,
    /// Per-move limit in ms (0 = none, only the match clock).
    #[arg(long, default_value_t = 5000)]
    turn_ms: u64,
    /// Whole-game budget per engine in ms (0 = unlimited).
    #[arg(long, default_value_t = 120_000)]
    match_ms: u64,
    /// Fischer increment added to the match clock after each move, in ms.
    #[arg(long, default_value_t = 0)]
    inc_ms: u64,
    /// Grace added to every deadline, in ms (Gomocup: 1000).
    #[arg(long, default_value_t = 1000)]
    tolerance_ms: u64,
    /// Opening file: one opening per line, offset (`0,0, 1,0`) or h8 (`h8i9`) form; '#' comments.
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Start every game from the empty board (no openings).
    #[arg(long, conflicts_with = "openings")]
    no_openings: bool,
    /// Shuffle the opening order (the seed is printed; pass --seed to repeat it).
    #[arg(long)]
    shuffle: bool,
    /// Seed for --shuffle (implies --shuffle).
    #[arg(long)]
    seed: Option<u64>,
    /// After each pass through the openings, replay them under the next board symmetry (8).
    #[arg(long)]
    transform: bool,
    /// Stop when a sequential probability ratio test over game pairs decides:
    /// ELO0,ELO1,ALPHA,BETA, e.g. 0,10,0.05,0.05 (two-engine matches only).
    #[arg(long, value_name = "ELO0,ELO1,ALPHA,BETA", value_parser = sprt_arg)]
    sprt: Option<String>,
    /// Gomocup swap2 opening phase (SWAP2BOARD) instead of fixed openings.
    #[arg(long, conflicts_with_all = ["openings"])]
    swap2: bool,
    /// Draw once N stones are on the board.
    #[arg(long)]
    draw_after: Option<usize>,
    /// Renju: no draw at size²−25 stones (the Gomocup cut-off is on by default).
    #[arg(long)]
    no_renju_cutoff: bool,
    /// Send BOARD before every move instead of TURN.
    #[arg(long)]
    board_every_move: bool,
    /// Announced INFO max_memory in bytes (0 = no cap).
    #[arg(long, default_value_t = rensa::referee::game::GOMOCUP_MAX_MEMORY_BYTES)]
    max_memory_bytes: u64,
    /// Score an engine whose process tree exceeds max_memory after a move as a crash (Linux).
    #[arg(long)]
    enforce_memory: bool,
    /// Suspend engines (SIGSTOP) between their turns, like Gomocup (unix).
    #[arg(long)]
    suspend: bool,
    /// Restart engine processes for every game (Gomocup style) instead of reusing them.
    #[arg(long)]
    restart_per_game: bool,
    /// Games played at the same time (each with its own engine processes).
    #[arg(long, default_value_t = 1, value_parser = positive_arg)]
    concurrency: usize,
    /// Output directory (default: rensa-match-<unix time>, with -2, -3, ... if that exists).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Continue the run recorded in --out, playing only the missing games.
    #[arg(long, requires = "out")]
    resume: bool,
    /// Write a timestamped protocol log per game into <out>/logs.
    #[arg(long)]
    log_protocol: bool,
    /// INFO folder base directory (each engine gets a subfolder).
    #[arg(long)]
    folder: Option<PathBuf>,
    /// Send LF line endings instead of CR LF.
    #[arg(long)]
    lf: bool,
    /// Let engines' stderr through.
    #[arg(long)]
    engine_stderr: bool,
    /// How long to wait for ABOUT when an engine has no name=, in ms.
    #[arg(long, default_value_t = 2000)]
    about_timeout_ms: u64,
    /// No live progress line.
    #[arg(long)]
    quiet: bool,
}

#[derive(Args)]
struct ReportArgs {
    /// Run directories (a run's --out) or games.jsonl files. Engines of the same name in two
    /// runs count as one engine; each run's colour-swapped pairs stay pairs.
    #[arg(required = true, value_name = "RUN")]
    runs: Vec<PathBuf>,
    /// Engines to list first, in this order (comma-separated), as a run's --engine order.
    #[arg(long, value_delimiter = ',', value_name = "NAME,...")]
    order: Vec<String>,
}

#[derive(Args)]
struct JudgeArgs {
    /// Moves: `7,7 8,8 9,9` or `h8i9j10`. Omit to read --file.
    moves: Vec<String>,
    /// Read the moves from a file ('#' starts a comment).
    #[arg(long, conflicts_with = "moves")]
    file: Option<PathBuf>,
    /// freestyle, standard, renju, caro (exact five, value 9) or caro8; or an INFO rule number (0-15).
    #[arg(long, default_value = "freestyle", value_parser = rule_arg)]
    rule: String,
    /// Board size: N or WxH.
    #[arg(long, default_value = "15", value_parser = size_arg)]
    size: String,
    /// Also print black's forbidden points in the final position (renju).
    #[arg(long)]
    forbidden: bool,
    /// Draw once this many stones are on the board, as `match --draw-after` (renju: size² − 25 by
    /// default, as in Gomocup).
    #[arg(long)]
    draw_after: Option<usize>,
    /// No renju cut-off at size² − 25 stones (as `match --no-renju-cutoff`).
    #[arg(long)]
    no_renju_cutoff: bool,
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("off"))
        .target(env_logger::Target::Stderr)
        .init();
    let matches = Cli::command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    // clap's derive flattens repeated `--engine a b --engine c` into one list; regroup it.
    // Subcommands without `--engine` (judge, demo, ...) have none: `try_` asks without the
    // debug-build assertion that the argument exists.
    let groups: Vec<Vec<String>> = matches
        .subcommand()
        .and_then(|(_, m)| m.try_get_occurrences::<String>("engine").ok().flatten())
        .map(|occ| occ.map(|o| o.cloned().collect()).collect())
        .unwrap_or_default();
    let with_groups = |mut a: RunArgs| {
        a.engines = groups.clone();
        a
    };
    install_interrupt_handler();
    let result = match cli.command {
        Cmd::Match(a) => run_tournament(Tournament::Match, with_groups(a)),
        Cmd::Gauntlet(a) => run_tournament(Tournament::Gauntlet, with_groups(a)),
        Cmd::RoundRobin(a) => run_tournament(Tournament::RoundRobin, with_groups(a)),
        Cmd::Judge(a) => judge(a),
        Cmd::Report(a) => report(a),
        Cmd::Demo { out } => demo(out),
        Cmd::Engine => {
            rensa::protocol::run(std::io::BufReader::new(std::io::stdin()), std::io::stdout())
                .map(|_| ExitCode::SUCCESS)
                .map_err(anyhow::Error::from)
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            say!("rensa-referee: {e:#}");
            let usage_error = e.downcast_ref::<UsageError>().is_some();
            ExitCode::from(if usage_error { 2 } else { 1 })
        }
    }
}

/// A command-line mistake found after clap's own checks (an `--engine` spec, the engine count):
/// exit code 2 like clap's usage errors, not 1.
#[derive(Debug)]
struct UsageError(String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

fn usage(e: anyhow::Error) -> anyhow::Error {
    anyhow::Error::new(UsageError(format!("{e:#}")))
}

/// The signals that stop a run cleanly: Ctrl-C, `kill`/`timeout`/a CI runner's cancel, and a
/// closed terminal.
#[cfg(unix)]
const STOP_SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

#[cfg(unix)]
fn install_interrupt_handler() {
    extern "C" fn on_signal(sig: libc::c_int) {
        use rensa::referee::process;
        if !process::interrupted() {
            process::request_interrupt(sig);
            return;
        }
        // A second one kills the engines' process groups (they do not get the terminal's
        // signals) and then the referee, at once.
        process::kill_engine_groups();
        // SAFETY: signal(2) and raise(3) are async-signal-safe; the raised signal is delivered,
        // with the default action, when this handler returns.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
    }
    for sig in STOP_SIGNALS {
        // SAFETY: the handler only reads and stores atomics, sends kill(2) and resets the
        // disposition, all async-signal-safe.
        unsafe {
            libc::signal(sig, on_signal as *const () as libc::sighandler_t);
        }
    }
}

#[cfg(not(unix))]
fn install_interrupt_handler() {}

/// `15` or `20x15`.
fn parse_size(text: &str) -> anyhow::Result<(usize, usize)> {
    let t = text.trim().to_ascii_lowercase();
    let num = |n: &str| {
        n.trim()
            .parse::<usize>()
            .map_err(|_| anyhow!("board size must be N or WxH such as 15 or 20x15, got '{text}'"))
    };
    let (w, h) = match t.split_once('x') {
        Some((w, h)) => (num(w)?, num(h)?),
        None => {
            let n = num(&t)?;
            (n, n)
        }
    };
    if !(rensa::pos::MIN_SIDE..=rensa::pos::MAX_SIDE).contains(&w)
        || !(rensa::pos::MIN_SIDE..=rensa::pos::MAX_SIDE).contains(&h)
    {
        bail!(
            "board size {w}x{h} is outside {}..{}",
            rensa::pos::MIN_SIDE,
            rensa::pos::MAX_SIDE
        );
    }
    Ok((w, h))
}

fn parse_rule(text: &str) -> anyhow::Result<Rule> {
    Rule::parse(text).ok_or_else(|| anyhow!("unknown rule '{text}'"))
}

// Command-line validators: a bad value is a usage error (exit code 2, clap's message), not a
// runtime error. The values stay text; the run parses them again with the functions above.
fn size_arg(text: &str) -> Result<String, String> {
    parse_size(text)
        .map(|_| text.to_string())
        .map_err(|e| e.to_string())
}

fn rule_arg(text: &str) -> Result<String, String> {
    parse_rule(text)
        .map(|_| text.to_string())
        .map_err(|e| e.to_string())
}

fn sprt_arg(text: &str) -> Result<String, String> {
    parse_sprt(text)
        .map(|_| text.to_string())
        .map_err(|e| e.to_string())
}

fn positive_arg(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "expected a whole number of at least 1, got '{text}'"
        )),
    }
}

/// One `--engine` specification, before its name is known.
struct EngineSpec {
    command: EngineCommand,
    name: Option<String>,
    time: TimeControl,
    info: Vec<(String, String)>,
}

fn parse_engine_spec(tokens: &[String], base: TimeControl) -> anyhow::Result<EngineSpec> {
    let mut program: Option<PathBuf> = None;
    let mut spec = EngineSpec {
        command: EngineCommand {
            program: PathBuf::new(),
            args: Vec::new(),
            dir: None,
            env: Vec::new(),
            show_stderr: false,
        },
        name: None,
        time: base,
        info: Vec::new(),
    };
    for t in tokens {
        let kv = t.split_once('=');
        let ms = |v: &str| -> anyhow::Result<u64> {
            v.parse()
                .with_context(|| format!("'{t}': expected a number of ms"))
        };
        match kv {
            Some(("cmd", v)) => program = Some(PathBuf::from(v)),
            Some(("arg", v)) => spec.command.args.push(v.to_string()),
            Some(("name", v)) if v.trim().is_empty() => {
                bail!("'{t}': an engine name cannot be empty")
            }
            Some(("name", v)) => spec.name = Some(v.to_string()),
            Some(("dir", v)) => spec.command.dir = Some(PathBuf::from(v)),
            Some(("turn-ms", v)) => spec.time.turn_ms = ms(v)?,
            Some(("match-ms", v)) => spec.time.match_ms = ms(v)?,
            Some(("inc-ms", v)) => spec.time.increment_ms = ms(v)?,
            Some(("info", v)) => {
                let (k, val) = v
                    .split_once('=')
                    .ok_or_else(|| anyhow!("'{t}': expected info=KEY=VALUE"))?;
                spec.info.push((k.to_string(), val.to_string()));
            }
            Some(("env", v)) => {
                let (k, val) = v
                    .split_once('=')
                    .filter(|(k, _)| !k.is_empty())
                    .ok_or_else(|| anyhow!("'{t}': expected env=NAME=VALUE"))?;
                spec.command.env.push((k.to_string(), val.to_string()));
            }
            _ if program.is_none() => program = Some(PathBuf::from(t)),
            // A `word=value` token that is no known key is almost always a typo (`turnms=100`):
            // refuse it rather than pass it to the engine silently.
            Some((k, _))
                if !k.is_empty()
                    && k.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') =>
            {
                bail!(
                    "unknown engine option '{t}' (known: cmd, arg, name, dir, turn-ms, match-ms, \
                     inc-ms, info, env); to pass it to the engine write arg={t}"
                )
            }
            _ => spec.command.args.push(t.clone()),
        }
    }
    let mut program = program.ok_or_else(|| anyhow!("--engine needs a program path"))?;
    // With `dir=`, a bare name (no `/`) that names a file there is that file, as a user who
    // put the engine in its folder means; other bare names (`python3`) are looked up on PATH.
    if let Some(dir) = &spec.command.dir {
        if program.components().count() == 1
            && program.is_relative()
            && dir.join(&program).is_file()
        {
            program = Path::new(".").join(program);
        }
    }
    spec.command.program = program;
    if spec.time.turn_ms == 0 && spec.time.match_ms == 0 {
        bail!(
            "engine {}: turn-ms and match-ms cannot both be 0 (every wait needs a deadline)",
            spec.command.program.display()
        );
    }
    Ok(spec)
}

/// Display names: given, else ABOUT's name, else the file name; made unique with `-2`, `-3`...
/// Every engine is started once here, so that a wrong path fails the run at once.
/// The default output directory: `rensa-match-<unix time>`, or the first of `...-2`, `...-3`, ...
/// that does not exist yet, so that runs started in the same second do not collide (a run refuses
/// a directory that already holds games unless it is told to resume).
fn default_out_dir() -> PathBuf {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let base = format!("rensa-match-{secs}");
    (1..)
        .map(|n| match n {
            1 => PathBuf::from(&base),
            n => PathBuf::from(format!("{base}-{n}")),
        })
        .find(|p| !p.exists())
        .unwrap_or_else(|| PathBuf::from(base))
}

fn name_engines(
    specs: Vec<EngineSpec>,
    about_timeout: Duration,
) -> anyhow::Result<Vec<EngineConfig>> {
    let mut used: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for s in specs {
        let cannot = |e: std::io::Error| match &s.command.dir {
            Some(d) => anyhow!(
                "cannot start {} in directory {}: {e}",
                s.command.program.display(),
                d.display()
            ),
            None => anyhow!("cannot start {}: {e}", s.command.program.display()),
        };
        let about = match &s.name {
            Some(n) => {
                drop(EngineProcess::spawn(&s.command).map_err(cannot)?);
                Some(n.clone())
            }
            None => probe_name(&s.command, about_timeout).map_err(cannot)?,
        };
        let base = about.unwrap_or_else(|| {
            s.command
                .program
                .file_stem()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| "engine".into())
        });
        let mut name = base.clone();
        let mut k = 2;
        while used.contains(&name) {
            name = format!("{base}-{k}");
            k += 1;
        }
        used.push(name.clone());
        out.push(EngineConfig {
            name,
            command: s.command,
            time: s.time,
            extra_info: s.info,
        });
    }
    Ok(out)
}

/// The openings of a run: the given file, else the shipped balanced set for the rule (none with
/// --no-openings or --swap2). Unplayable openings are reported and skipped.
fn load_openings(
    a: &RunArgs,
    width: usize,
    height: usize,
    rule: Rule,
    draw_after: Option<usize>,
) -> anyhow::Result<Vec<Vec<Pos>>> {
    if a.no_openings || a.swap2 {
        return Ok(Vec::new());
    }
    let list = match &a.openings {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read openings {}", path.display()))?;
            let list = openings::parse_openings(&text, width, height)
                .map_err(|e| anyhow!("{}: {e}", path.display()))?;
            if list.is_empty() {
                bail!(
                    "{} holds no opening (only blank and comment lines); for games from the \
                     empty board use --no-openings",
                    path.display()
                );
            }
            list
        }
        None => openings::builtin_openings(rule, width, height),
    };
    let total = list.len();
    let mut at_limit = 0;
    let good: Vec<Vec<Pos>> = list
        .into_iter()
        .enumerate()
        .filter_map(
            |(i, o)| match openings::check_playable(rule, width, height, &o.moves) {
                Ok(()) if draw_after.is_some_and(|n| o.moves.len() >= n) => {
                    at_limit += 1;
                    None
                }
                Ok(()) => Some(o.moves),
                Err(e) => {
                    say!("rensa-referee: opening {} skipped: {e}", i + 1);
                    None
                }
            },
        )
        .collect();
    if at_limit > 0 {
        say!(
            "rensa-referee: {at_limit} of {total} openings skipped: their stones reach the draw limit of {} stones ({})",
            draw_after.unwrap_or(0),
            if a.draw_after.is_some() {
                "--draw-after"
            } else {
                "the renju cut-off"
            }
        );
    }
    if total > 0 && good.is_empty() {
        bail!("no playable opening");
    }
    Ok(good)
}

/// `0,10,0.05,0.05`.
fn parse_sprt(text: &str) -> anyhow::Result<Sprt> {
    let v: Vec<f64> = text
        .split(',')
        .map(|t| t.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| anyhow!("--sprt expects ELO0,ELO1,ALPHA,BETA, got '{text}'"))?;
    let [elo0, elo1, alpha, beta] = v[..] else {
        bail!("--sprt expects four numbers ELO0,ELO1,ALPHA,BETA, got '{text}'");
    };
    let p = |x: f64| x > 0.0 && x < 0.5;
    if elo0 >= elo1 || !p(alpha) || !p(beta) {
        bail!("--sprt needs ELO0 < ELO1 and 0 < ALPHA, BETA < 0.5");
    }
    Ok(Sprt {
        elo0,
        elo1,
        alpha,
        beta,
    })
}

fn build_config(tournament: Tournament, a: &RunArgs) -> anyhow::Result<RunConfig> {
    let (width, height) = parse_size(&a.size)?;
    let rule = parse_rule(&a.rule)?;
    let base = TimeControl {
        turn_ms: a.turn_ms,
        match_ms: a.match_ms,
        increment_ms: a.inc_ms,
        tolerance_ms: a.tolerance_ms,
    };
    let specs = a
        .engines
        .iter()
        .map(|t| {
            let mut s = parse_engine_spec(t, base).map_err(usage)?;
            s.command.show_stderr = a.engine_stderr;
            Ok(s)
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let needed = if tournament == Tournament::Match {
        2
    } else {
        2.max(specs.len())
    };
    if specs.len() < 2 || (tournament == Tournament::Match && specs.len() != needed) {
        return Err(usage(anyhow!(
            "a match needs exactly two --engine options, a tournament at least two"
        )));
    }
    let mut settings = GameSettings::new(width, height, rule);
    settings.swap2 = a.swap2;
    settings.draw_after = draw_limit(&settings, a.draw_after, a.no_renju_cutoff)?;
    if let Some(n) = settings
        .draw_after
        .filter(|&n| a.swap2 && n <= SWAP2_MAX_STONES)
    {
        return Err(usage(anyhow!(
            "--draw-after {n} is too small for --swap2: its opening phase places up to {SWAP2_MAX_STONES} stones"
        )));
    }
    settings.board_every_move = a.board_every_move;
    settings.max_memory_bytes = a.max_memory_bytes;
    settings.enforce_memory = a.enforce_memory;
    settings.suspend = a.suspend;
    settings.restart_per_game = a.restart_per_game;
    settings.folder = a.folder.clone();
    settings.lf_line_endings = a.lf;
    let openings = load_openings(a, width, height, rule, settings.draw_after)?;
    if !openings.is_empty() {
        say!(
            "rensa-referee: {} openings from {}",
            openings.len(),
            a.openings
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| format!("the built-in {rule} set"))
        );
    }
    let seed_file = a.out.as_ref().map(|d| d.join(runner::SEED_FILE));
    let recorded_seed = match (&seed_file, a.resume) {
        (Some(f), true) => std::fs::read_to_string(f)
            .ok()
            .and_then(|t| t.trim().parse::<u64>().ok()),
        _ => None,
    };
    let shuffle_seed = (a.shuffle || a.seed.is_some()).then(|| {
        a.seed
            .or(recorded_seed)
            .unwrap_or_else(rensa::zobrist::clock_seed)
    });
    if let Some(seed) = shuffle_seed {
        say!("rensa-referee: opening shuffle seed {seed} (repeat with --seed {seed})");
    }
    if width > rensa::referee::sgf::MAX_SGF_SIDE || height > rensa::referee::sgf::MAX_SGF_SIDE {
        say!(
            "rensa-referee: no SGF files: SGF coordinates stop at {} and the board is {width}x{height} (games.jsonl has every game)",
            rensa::referee::sgf::MAX_SGF_SIDE
        );
    }
    let out_dir = a.out.clone().unwrap_or_else(default_out_dir);
    let engines = name_engines(specs, Duration::from_millis(a.about_timeout_ms))?;
    Ok(RunConfig {
        engines,
        tournament,
        games_per_pairing: a.games.max(1),
        settings,
        openings,
        shuffle_seed,
        transform: a.transform,
        concurrency: a.concurrency.max(1),
        out_dir: Some(out_dir),
        log_protocol: a.log_protocol,
        resume: a.resume,
        progress: !a.quiet,
    })
}

fn run_tournament(tournament: Tournament, a: RunArgs) -> anyhow::Result<ExitCode> {
    let sprt = a.sprt.as_deref().map(parse_sprt).transpose()?;
    if sprt.is_some() && tournament != Tournament::Match {
        return Err(usage(anyhow!("--sprt works with two-engine matches only")));
    }
    let config = build_config(tournament, &a)?;
    execute(&config, sprt)
}

/// The SPRT state after `records`: whether it decided, and a progress-line text.
fn sprt_state(sprt: &Sprt, records: &[GameRecord], a: &str, b: &str) -> (bool, String) {
    let p = stats::pentanomial_for(records, a, b);
    let (lo, hi) = sprt.bounds();
    let verdict = match sprt.decide(&p) {
        SprtDecision::Continue => "",
        SprtDecision::AcceptH0 => " H0 accepted",
        SprtDecision::AcceptH1 => " H1 accepted",
    };
    (
        !verdict.is_empty(),
        format!("  LLR {:.2} ({:.2}, {:.2}){verdict}", sprt.llr(&p), lo, hi),
    )
}

fn execute(config: &RunConfig, sprt: Option<Sprt>) -> anyhow::Result<ExitCode> {
    let names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    let out = config.out_dir.clone().unwrap_or_default();
    say!(
        "rensa-referee: {} on {}x{} {}, engines {}, output {}",
        match config.tournament {
            Tournament::Match => "match",
            Tournament::Gauntlet => "gauntlet",
            Tournament::RoundRobin => "round robin",
        },
        config.settings.width,
        config.settings.height,
        config.settings.rule,
        names.join(", "),
        out.display()
    );
    let summary = runner::run(config, |records| match &sprt {
        Some(s) => sprt_state(s, records, &names[0], &names[1]),
        None => (false, String::new()),
    })
    .map_err(|e| anyhow!(e))?;
    let order: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut table = stats::results_table_in_order(&summary.records, &order);
    if let Some(s) = &sprt {
        let (_, state) = sprt_state(s, &summary.records, &names[0], &names[1]);
        table.push_str(&format!(
            "SPRT elo0 {} elo1 {} alpha {} beta {}:{state}\n",
            s.elo0, s.elo1, s.alpha, s.beta
        ));
    }
    if let Err(e) = runner::write_results(&out, &table) {
        say!("rensa-referee: cannot write results: {e}");
    }
    out!("{table}");
    out!(
        "{} of {} games recorded ({} played now in {}); records in {}",
        summary.records.len(),
        summary.scheduled,
        summary.played_now,
        runner::format_duration(summary.elapsed.as_secs_f64()),
        out.display()
    );
    for (i, why) in &summary.skipped {
        out!("game {i} skipped: {why}");
    }
    Ok(if summary.interrupted {
        let args: Vec<String> = std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        say!(
            "rensa-referee: interrupted; continue with: {}",
            resume_command(&args, &out)
        );
        // The shell's convention: 128 + the signal (130 for Ctrl-C, 143 for SIGTERM).
        let sig = rensa::referee::process::interrupt_signal().unwrap_or(2);
        ExitCode::from(128u8.saturating_add(sig.clamp(1, 127) as u8))
    } else {
        ExitCode::SUCCESS
    })
}

/// The command line that continues an interrupted run: this run's own arguments, shell-quoted,
/// with `--resume` and the output directory added when they are missing (a resume needs the
/// same engines and options, so "add --resume" alone is not enough to repeat it).
fn resume_command(args: &[String], out: &Path) -> String {
    let mut words: Vec<String> = args.to_vec();
    if !words.iter().any(|a| a == "--resume") {
        words.push("--resume".into());
    }
    if !words
        .iter()
        .any(|a| a == "--out" || a.starts_with("--out="))
    {
        words.push("--out".into());
        words.push(out.display().to_string());
    }
    words
        .iter()
        .map(|w| shell_quote(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `w` as one POSIX shell word: unchanged when it holds only safe characters, else in single
/// quotes (an inner `'` becomes `'\''`).
fn shell_quote(w: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_-./=,:+@%^".contains(c);
    if !w.is_empty() && w.chars().all(safe) {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// Reads `7,7 8,8` / `7,7;8,8` or `h8i9j10` move text.
fn parse_moves(text: &str) -> anyhow::Result<Vec<Pos>> {
    let cleaned: String = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join(" ");
    let tokens: Vec<&str> = cleaned
        .split(|c: char| c.is_whitespace() || c == ';')
        .filter(|t| !t.is_empty())
        .collect();
    if tokens.iter().any(|t| t.contains(','))
        && !tokens
            .iter()
            .any(|t| t.chars().any(|c| c.is_ascii_alphabetic()))
    {
        tokens
            .iter()
            .map(|t| {
                let (x, y) = parse_move_line(t).ok_or_else(|| anyhow!("'{t}' is not x,y"))?;
                Pos::try_new(x, y).ok_or_else(|| anyhow!("'{t}' is off any board"))
            })
            .collect()
    } else {
        // Each token holds one or more whole moves (`h8`, `h8i9j10`): a move never runs on
        // into the next token, so `h1 1` is an error, not `h11`.
        let mut moves = Vec::new();
        for t in tokens {
            if t.contains(',') {
                bail!("'{t}' is an x,y move among moves in letters (h8); give every move the same way");
            }
            moves.extend(parse_algebraic(t).map_err(|e| anyhow!("'{t}': {e}"))?);
        }
        Ok(moves)
    }
}

fn judge(a: JudgeArgs) -> anyhow::Result<ExitCode> {
    let (width, height) = parse_size(&a.size)?;
    let rule = parse_rule(&a.rule)?;
    let text = match &a.file {
        Some(f) => {
            std::fs::read_to_string(f).with_context(|| format!("cannot read {}", f.display()))?
        }
        None => a.moves.join(" "),
    };
    let moves = parse_moves(&text)?;
    if moves.is_empty() {
        bail!(
            "no moves to judge: give them as arguments (h8 i9 ... or 7,7 8,8 ...) or with --file"
        );
    }
    // The same draw limit as `match` with the same options.
    let defaults = GameSettings::new(width, height, rule);
    let draw_after = draw_limit(&defaults, a.draw_after, a.no_renju_cutoff)?;
    {
        use std::io::Write as _;
        let _ = write!(
            std::io::stdout(),
            "{}",
            judge_text(&moves, width, height, rule, draw_after, a.forbidden)
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `report`: reads every run's records (a bad line is named on stderr and skipped, as `--resume`
/// does) and prints one results table over all of them.
fn report(a: ReportArgs) -> anyhow::Result<ExitCode> {
    use rensa::referee::records;
    let mut runs = Vec::new();
    let mut seen = Vec::new();
    for path in &a.runs {
        let file = if path.is_dir() {
            path.join(runner::RECORDS_FILE)
        } else {
            path.clone()
        };
        let canonical = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
        if seen.contains(&canonical) {
            say!(
                "rensa-referee: {} is given twice; counted once",
                file.display()
            );
            continue;
        }
        seen.push(canonical);
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let (recs, errors) = records::read_records(&text);
        for e in errors {
            say!("rensa-referee: {}: {e} (skipped)", file.display());
        }
        out!("{}: {} games", file.display(), recs.len());
        runs.push(recs);
    }
    let pooled = records::pool_runs(runs);
    if !pooled.is_empty() {
        out!("{}", records::rules_summary(&pooled));
    }
    let order: Vec<&str> = a.order.iter().map(String::as_str).collect();
    out!(
        "{}",
        stats::results_table_in_order(&pooled, &order).trim_end()
    );
    Ok(ExitCode::SUCCESS)
}

/// The most stones the swap2 opening phase puts on the board.
const SWAP2_MAX_STONES: usize = 5;

/// The draw limit of `--draw-after` and `--no-renju-cutoff` over the rule's default in
/// `defaults` (renju's Gomocup cut-off); a limit of 0 is a usage error.
fn draw_limit(
    defaults: &GameSettings,
    draw_after: Option<usize>,
    no_renju_cutoff: bool,
) -> anyhow::Result<Option<usize>> {
    match draw_after {
        Some(0) => Err(usage(anyhow!("--draw-after needs at least 1 stone"))),
        Some(n) => Ok(Some(n)),
        None if no_renju_cutoff => Ok(None),
        None => Ok(defaults.draw_after),
    }
}

/// The judge's report for a move list.
fn judge_text(
    moves: &[Pos],
    width: usize,
    height: usize,
    rule: Rule,
    draw_after: Option<usize>,
    forbidden: bool,
) -> String {
    let n = moves.len();
    let mut out = format!(
        "{width}x{height} {rule}, {n} move{} given\n",
        if n == 1 { "" } else { "s" }
    );
    let mut game = match Game::new(width, height, rule) {
        Ok(g) => g.with_draw_after(draw_after),
        Err(e) => return format!("{out}error: {e}\n"),
    };
    for (i, &p) in moves.iter().enumerate() {
        let color = game.side_to_move();
        match game.play(p) {
            Ok(_) => {}
            Err(rensa::BoardError::GameOver) => {
                out.push_str(&format!(
                    "note: the game was already over; {} later move(s) ignored\n",
                    moves.len() - i
                ));
                break;
            }
            Err(e) => {
                out.push_str(&format!(
                    "result: {} wins: {color} move {} ({p}) is illegal: {e}\n",
                    color.opponent(),
                    i + 1
                ));
                return out;
            }
        }
    }
    match game.outcome() {
        Some(o) => {
            let line: Vec<String> = o.line.iter().map(|p| p.to_string()).collect();
            match o.winner {
                Some(w) => out.push_str(&format!(
                    "result: {w} wins by {} at move {} ({})\n",
                    o.reason,
                    o.moves,
                    line.join(" ")
                )),
                None => out.push_str(&format!("result: draw at move {}\n", o.moves)),
            }
        }
        None => out.push_str(&format!(
            "result: unfinished, {} to move\n",
            game.side_to_move()
        )),
    }
    if forbidden {
        let pts = game.forbidden_points();
        let list: Vec<String> = pts.iter().map(|p| p.to_string()).collect();
        out.push_str(&format!(
            "forbidden for black: {}\n",
            if list.is_empty() {
                "none".to_string()
            } else {
                list.join(" ")
            }
        ));
    }
    out
}

/// The `pbrain-rensa` executable next to this one; if it is not built there (e.g. after
/// `cargo run --bin rensa-referee`), this executable's hidden `engine` subcommand, which runs the
/// same engine code.
fn sibling_engine() -> anyhow::Result<(PathBuf, Vec<String>)> {
    let exe = std::env::current_exe().context("cannot locate the referee executable")?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let path = dir.join(format!("pbrain-rensa{}", std::env::consts::EXE_SUFFIX));
    if path.exists() {
        Ok((path, Vec::new()))
    } else {
        say!(
            "rensa-referee: {} not found; using the engine built into the referee",
            path.display()
        );
        Ok((exe, vec!["engine".to_string()]))
    }
}

fn demo(out: Option<PathBuf>) -> anyhow::Result<ExitCode> {
    let (engine, engine_args) = sibling_engine()?;
    let out = out
        .unwrap_or_else(|| std::env::temp_dir().join(format!("rensa-demo-{}", std::process::id())));
    // Fast enough that 4 games at 2 at a time end in seconds even if every move used its budget.
    let time = TimeControl {
        turn_ms: 100,
        match_ms: 3_000,
        increment_ms: 0,
        tolerance_ms: 1000,
    };
    let specs = ["A", "B"]
        .map(|n| EngineSpec {
            command: EngineCommand {
                program: engine.clone(),
                args: engine_args.clone(),
                dir: None,
                env: Vec::new(),
                show_stderr: false,
            },
            name: Some(format!("rensa-{n}")),
            time,
            info: Vec::new(),
        })
        .into_iter()
        .collect();
    let config = RunConfig {
        engines: name_engines(specs, Duration::from_millis(1000))?,
        tournament: Tournament::Match,
        games_per_pairing: 4,
        settings: GameSettings::new(15, 15, Rule::Freestyle),
        openings: openings::builtin_openings(Rule::Freestyle, 15, 15)
            .into_iter()
            .map(|o| o.moves)
            .collect(),
        shuffle_seed: None,
        transform: false,
        concurrency: 2,
        out_dir: Some(out),
        log_protocol: true,
        resume: false,
        progress: true,
    };
    execute(&config, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resume_command_repeats_the_run() {
        let t = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let out = Path::new("runs/ab");
        // The engines and options stay; --resume and --out are added when missing.
        assert_eq!(
            resume_command(
                &t(&[
                    "rensa-referee",
                    "match",
                    "--engine",
                    "./a",
                    "env=X=1 2",
                    "--games",
                    "8"
                ]),
                out
            ),
            "rensa-referee match --engine ./a 'env=X=1 2' --games 8 --resume --out runs/ab"
        );
        // Already there: nothing added twice.
        assert_eq!(
            resume_command(&t(&["r", "match", "--out=x", "--resume"]), out),
            "r match --out=x --resume"
        );
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("15").unwrap(), (15, 15));
        assert_eq!(parse_size("20x15").unwrap(), (20, 15));
        assert!(parse_size("3").is_err());
        assert!(parse_size("x").is_err());
    }

    #[test]
    fn engine_specs_parse() {
        let t = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let s = parse_engine_spec(
            &t(&[
                "./a",
                "name=A",
                "turn-ms=100",
                "arg=--x",
                "info=thread_num=2",
                "env=RENSA_TUNING=lmp=4,cmb=90",
                "env=RUST_LOG=debug",
            ]),
            TimeControl::FASTGAME,
        )
        .unwrap();
        assert_eq!(s.command.program, PathBuf::from("./a"));
        assert_eq!(s.name.as_deref(), Some("A"));
        assert_eq!(s.time.turn_ms, 100);
        assert_eq!(s.command.args, ["--x"]);
        assert_eq!(s.info, [("thread_num".to_string(), "2".to_string())]);
        let pair = |k: &str, v: &str| (k.to_string(), v.to_string());
        assert_eq!(
            s.command.env,
            [
                pair("RENSA_TUNING", "lmp=4,cmb=90"),
                pair("RUST_LOG", "debug")
            ]
        );
        assert!(parse_engine_spec(&t(&["a", "env=X"]), TimeControl::FASTGAME).is_err());
        assert!(parse_engine_spec(&t(&["a", "env==1"]), TimeControl::FASTGAME).is_err());
        assert!(parse_engine_spec(&t(&["name=A"]), TimeControl::FASTGAME).is_err());
        assert!(parse_engine_spec(&t(&["a", "turn-ms=x"]), TimeControl::FASTGAME).is_err());
    }

    #[test]
    fn moves_parse_in_both_notations() {
        let a = parse_moves("7,7 8,8\n# comment\n9,9").unwrap();
        let b = parse_moves("h8 i9 j10").unwrap();
        assert_eq!(a, b);
        assert!(parse_moves("7,x").is_err());
    }

    #[test]
    fn judge_reports_five_and_unfinished() {
        let moves = parse_moves("h8h9i8i9j8j9k8k9l8").unwrap();
        let t = judge_text(&moves, 15, 15, Rule::Freestyle, None, false);
        assert!(t.contains("black wins by five at move 9"), "{t}");
        let t = judge_text(&moves[..4], 15, 15, Rule::Freestyle, None, false);
        assert!(t.contains("unfinished, black to move"), "{t}");
        let renju = parse_moves("h8h9i7i9h10i6i11i12").unwrap();
        let t = judge_text(&renju, 15, 15, Rule::Renju, None, true);
        assert!(t.contains("forbidden for black: 6,8\n"), "{t}");
        let occ = parse_moves("7,7 7,7").unwrap();
        let t = judge_text(&occ, 15, 15, Rule::Freestyle, None, false);
        assert!(
            t.contains("black wins: white move 2 (7,7) is illegal"),
            "{t}"
        );
    }

    #[test]
    fn judge_applies_the_draw_limit_of_match() {
        // Bug (audit): a 6x6 renju game that `match` drew at 11 stones (36 - 25) was "unfinished".
        let moves = parse_moves("3,3 2,3 5,3 2,2 3,2 3,1 2,1 5,4 4,0 1,5 1,4").unwrap();
        let limit = GameSettings::new(6, 6, Rule::Renju).draw_after;
        assert_eq!(limit, Some(11));
        let t = judge_text(&moves, 6, 6, Rule::Renju, limit, false);
        assert!(t.contains("result: draw at move 11"), "{t}");
        let t = judge_text(&moves, 6, 6, Rule::Renju, None, false);
        assert!(t.contains("unfinished"), "{t}");
    }

    #[test]
    fn judge_reads_each_token_as_whole_moves() {
        // Bug (audit): tokens were joined, so `h1 1` read as h11 and `h8 7,8` as row 878.
        assert_eq!(
            parse_moves("h8 i9j10").unwrap(),
            parse_moves("h8i9j10").unwrap()
        );
        assert!(parse_moves("h1 1").is_err());
        let e = parse_moves("h8 7,8").unwrap_err().to_string();
        assert!(e.contains("'7,8'"), "{e}");
        let e = parse_moves("h8\ni").unwrap_err().to_string();
        assert!(e.starts_with("'i'"), "{e}");
    }
}
