//! SPSA tuning of search and evaluation knobs (`RENSA_TUNING`, see `Tuning::parse`) by games
//! between two copies of `pbrain-rensa` under `rensa-referee`.
//!
//! Each step draws a random sign per knob (`delta`), plays one colour-swapped game pair (the same
//! opening both ways) between the engine at `theta + c * delta` and at `theta - c * delta`, and
//! moves every knob by `lr * c * (wins - losses) * delta`. Steps run `--workers` at a time; the
//! rules are taken in turn from `--rules`. A knob is `name:start:c[:lo:hi]`, with `c` the size of
//! the perturbation: large enough that `start ± c` differ by a few Elo, or the walk is all noise.
//!
//! ```sh
//! cargo build --release
//! cargo run --release --example spsa -- --out /tmp/spsa --minutes 60 --turn-ms 100 \
//!     --rules freestyle,standard,freestyle,renju b4:55:15:0:500 i14:-206:50 rfp:100:25:10:400
//! ```
//!
//! Writes `log.jsonl` (one line per step: rule, result, knobs after the step) and `games.jsonl`
//! (every game's record) into `--out`, and prints per knob its start, its last value, the mean
//! over the second half of the steps and a z-score: the sum of `(wins - losses) * delta` over the
//! steps divided by its standard deviation if the results were noise. Values are only a
//! proposal; adopt them after a match against the defaults with many games.

use clap::Parser;
use rand::{Rng, SeedableRng};
use rensa::search::alphabeta::Tuning;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(about = "SPSA over RENSA_TUNING knobs with rensa-referee game pairs")]
struct Args {
    /// Knobs as name:start:c[:lo:hi] (c: the perturbation; lo/hi: bounds of the value).
    #[arg(required = true)]
    knobs: Vec<String>,
    /// Output directory (log.jsonl, games.jsonl).
    #[arg(long)]
    out: PathBuf,
    /// Stop starting steps after this many minutes.
    #[arg(long, default_value_t = 60.0)]
    minutes: f64,
    /// Stop after this many steps (game pairs), whichever comes first.
    #[arg(long)]
    steps: Option<usize>,
    /// Steps played at the same time (each is one referee with two engines, about one core).
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// Per-move limit; the match clock is 300 moves' worth.
    #[arg(long, default_value_t = 100)]
    turn_ms: u64,
    /// Rules taken in turn, comma-separated (openings from DIR/RULE.txt).
    #[arg(long, default_value = "freestyle")]
    rules: String,
    /// Learning rate: each step moves a knob by lr * c * (wins - losses).
    #[arg(long, default_value_t = 0.03)]
    lr: f64,
    /// Seed of the perturbations and of the referee's opening shuffles.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value = "target/release/pbrain-rensa")]
    engine: PathBuf,
    #[arg(long, default_value = "target/release/rensa-referee")]
    referee: PathBuf,
    /// Directory of the opening files.
    #[arg(long, default_value = "openings")]
    openings: PathBuf,
}

#[derive(Clone, Debug, PartialEq)]
struct Knob {
    name: String,
    start: f64,
    c: f64,
    lo: f64,
    hi: f64,
}

/// Parses `name:start:c[:lo:hi]`.
fn parse_knob(text: &str) -> Result<Knob, String> {
    let parts: Vec<&str> = text.split(':').collect();
    let num = |i: usize| -> Result<f64, String> {
        parts[i]
            .parse()
            .map_err(|_| format!("'{text}': '{}' is not a number", parts[i]))
    };
    let (lo, hi) = match parts.len() {
        3 => (f64::MIN, f64::MAX),
        5 => (num(3)?, num(4)?),
        _ => {
            return Err(format!(
                "'{text}': expected name:start:c or name:start:c:lo:hi"
            ))
        }
    };
    let knob = Knob {
        name: parts[0].to_string(),
        start: num(1)?,
        c: num(2)?,
        lo,
        hi,
    };
    if knob.c <= 0.0 || lo > hi || !(lo..=hi).contains(&knob.start) {
        return Err(format!("'{text}': need c > 0 and lo <= start <= hi"));
    }
    Ok(knob)
}

/// The `RENSA_TUNING` text for knob values (rounded to integers, kept within bounds).
fn tuning_text(knobs: &[Knob], values: &[f64]) -> String {
    let pairs: Vec<String> = knobs
        .iter()
        .zip(values)
        .map(|(k, v)| format!("{}={}", k.name, v.clamp(k.lo, k.hi).round() as i64))
        .collect();
    pairs.join(",")
}

/// Wins minus losses of engine `plus` in a referee's `games.jsonl`, and the number of games.
fn score(games: &str) -> Result<(i32, usize), String> {
    let (mut r, mut n) = (0, 0);
    for line in games.lines().filter(|l| !l.trim().is_empty()) {
        let g: serde_json::Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        n += 1;
        if let Some(colour) = g["winner"].as_str() {
            r += if g[colour].as_str() == Some("plus") {
                1
            } else {
                -1
            };
        }
    }
    Ok((r, n))
}

struct State {
    theta: Vec<f64>,
    next_step: usize,
    rng: rand::rngs::StdRng,
    history: Vec<Vec<f64>>,
    /// Per knob, the sum of (wins - losses) * delta; and the sum of (wins - losses)^2.
    drift: Vec<f64>,
    r2: f64,
    log: File,
    games: File,
    failed: bool,
}

/// Plays one step's game pair; returns wins minus losses of `plus` and the games' records.
fn play_pair(
    a: &Args,
    dir: &Path,
    rule: &str,
    seed: u64,
    plus: &str,
    minus: &str,
) -> Result<(i32, String), String> {
    let _ = fs::remove_dir_all(dir);
    let engine = a.engine.display().to_string();
    let mut cmd = Command::new(&a.referee);
    cmd.arg("match");
    for (name, tuning) in [("plus", plus), ("minus", minus)] {
        cmd.args(["--engine", &engine, &format!("name={name}")]);
        cmd.arg(format!("env=RENSA_TUNING={tuning}"));
    }
    let openings = a.openings.join(format!("{rule}.txt"));
    cmd.args([
        "--games",
        "2",
        "--rule",
        rule,
        "--shuffle",
        "--transform",
        "--quiet",
    ])
    .args(["--turn-ms", &a.turn_ms.to_string()])
    .args(["--match-ms", &(a.turn_ms * 300).to_string()])
    .args(["--seed", &seed.to_string()])
    .arg("--openings")
    .arg(&openings)
    .arg("--out")
    .arg(dir)
    .stdout(Stdio::null())
    .stderr(Stdio::null());
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {}: {e}", a.referee.display()))?;
    let games = fs::read_to_string(dir.join("games.jsonl")).unwrap_or_default();
    let (r, n) = score(&games)?;
    if !status.success() || n != 2 {
        return Err(format!(
            "referee exit {status}, {n} games in {}",
            dir.display()
        ));
    }
    Ok((r, games))
}

fn worker(a: &Args, knobs: &[Knob], rules: &[&str], state: &Mutex<State>, id: usize, end: Instant) {
    let dir = a.out.join(format!("worker{id}"));
    while Instant::now() < end {
        let (step, delta, plus, minus, seed) = {
            let mut s = state.lock().unwrap();
            if s.failed || a.steps.is_some_and(|n| s.next_step >= n) {
                return;
            }
            let step = s.next_step;
            s.next_step += 1;
            let delta: Vec<f64> = knobs
                .iter()
                .map(|_| if s.rng.gen() { 1.0 } else { -1.0 })
                .collect();
            let side = |sign: f64| -> Vec<f64> {
                knobs
                    .iter()
                    .zip(&s.theta)
                    .zip(&delta)
                    .map(|((k, t), d)| t + sign * k.c * d)
                    .collect()
            };
            let (p, m) = (side(1.0), side(-1.0));
            let seed = s.rng.gen_range(0..1u64 << 31);
            (
                step,
                delta,
                tuning_text(knobs, &p),
                tuning_text(knobs, &m),
                seed,
            )
        };
        let rule = rules[step % rules.len()];
        let result = play_pair(a, &dir, rule, seed, &plus, &minus);
        let mut s = state.lock().unwrap();
        let (r, games) = match result {
            Ok(played) => played,
            Err(e) => {
                eprintln!("spsa: step {step}: {e}; stopping");
                s.failed = true;
                return;
            }
        };
        let _ = s.games.write_all(games.as_bytes());
        for (i, k) in knobs.iter().enumerate() {
            let t = s.theta[i] + a.lr * k.c * r as f64 * delta[i];
            s.theta[i] = t.clamp(k.lo, k.hi);
            s.drift[i] += r as f64 * delta[i];
        }
        s.r2 += (r * r) as f64;
        let theta = s.theta.clone();
        s.history.push(theta.clone());
        let knob_values: serde_json::Map<String, serde_json::Value> = knobs
            .iter()
            .zip(&theta)
            .map(|(k, t)| {
                (
                    k.name.clone(),
                    serde_json::json!((t * 100.0).round() / 100.0),
                )
            })
            .collect();
        let line = serde_json::json!({
            "step": step, "rule": rule, "seed": seed, "r": r,
            "plus": plus, "minus": minus, "theta": knob_values,
        });
        let _ = writeln!(s.log, "{line}");
    }
}

fn main() {
    let a = Args::parse();
    let knobs: Vec<Knob> = match a.knobs.iter().map(|k| parse_knob(k)).collect() {
        Ok(k) => k,
        Err(e) => {
            eprintln!("spsa: {e}");
            std::process::exit(2);
        }
    };
    let start: Vec<f64> = knobs.iter().map(|k| k.start).collect();
    if Tuning::parse(&tuning_text(&knobs, &start)).is_none() {
        eprintln!(
            "spsa: '{}' is not a valid RENSA_TUNING (see Tuning::parse)",
            tuning_text(&knobs, &start)
        );
        std::process::exit(2);
    }
    let rules: Vec<&str> = a
        .rules
        .split(',')
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .collect();
    for r in &rules {
        let path = a.openings.join(format!("{r}.txt"));
        if !path.is_file() {
            eprintln!("spsa: no opening file {}", path.display());
            std::process::exit(2);
        }
    }
    for (what, p) in [("engine", &a.engine), ("referee", &a.referee)] {
        if !p.is_file() {
            eprintln!(
                "spsa: no {what} at {} (cargo build --release first)",
                p.display()
            );
            std::process::exit(2);
        }
    }
    fs::create_dir_all(&a.out).expect("create --out");
    let open = |name: &str| {
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(a.out.join(name))
            .expect("open output")
    };
    println!(
        "spsa: {} knobs, {} workers, {} ms/move, rules {}, lr {}, seed {}, {} min, out {}",
        knobs.len(),
        a.workers,
        a.turn_ms,
        rules.join(","),
        a.lr,
        a.seed,
        a.minutes,
        a.out.display()
    );
    let state = Mutex::new(State {
        theta: start.clone(),
        next_step: 0,
        rng: rand::rngs::StdRng::seed_from_u64(a.seed),
        history: Vec::new(),
        drift: vec![0.0; knobs.len()],
        r2: 0.0,
        log: open("log.jsonl"),
        games: open("games.jsonl"),
        failed: false,
    });
    let end = Instant::now() + Duration::from_secs_f64(a.minutes.max(0.0) * 60.0);
    std::thread::scope(|scope| {
        for id in 0..a.workers.max(1) {
            let (a, knobs, rules, state) = (&a, &knobs, &rules, &state);
            scope.spawn(move || worker(a, knobs, rules, state, id, end));
        }
    });
    let s = state.into_inner().unwrap();
    for id in 0..a.workers.max(1) {
        let _ = fs::remove_dir_all(a.out.join(format!("worker{id}")));
    }
    let half = &s.history[s.history.len() / 2..];
    println!("{} steps ({} games)", s.history.len(), 2 * s.history.len());
    println!(
        "{:<10} {:>9} {:>9} {:>12} {:>7}",
        "knob", "start", "last", "mean 2nd half", "z"
    );
    let mean: Vec<f64> = (0..knobs.len())
        .map(|i| half.iter().map(|t| t[i]).sum::<f64>() / half.len().max(1) as f64)
        .collect();
    for (i, k) in knobs.iter().enumerate() {
        let z = if s.r2 > 0.0 {
            s.drift[i] / s.r2.sqrt()
        } else {
            0.0
        };
        println!(
            "{:<10} {:>9.1} {:>9.1} {:>12.1} {:>+7.2}",
            k.name, k.start, s.theta[i], mean[i], z
        );
    }
    println!("RENSA_TUNING={}", tuning_text(&knobs, &mean));
    if s.failed {
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knobs_parse_with_and_without_bounds() {
        let k = parse_knob("b4:55:15").unwrap();
        assert_eq!((k.name.as_str(), k.start, k.c), ("b4", 55.0, 15.0));
        let k = parse_knob("rfp:100:25:10:400").unwrap();
        assert_eq!((k.lo, k.hi), (10.0, 400.0));
        for bad in ["b4", "b4:x:1", "b4:1:0", "b4:1:1:5:9", "b4:1:1:2"] {
            assert!(parse_knob(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn tuning_text_rounds_and_clamps() {
        let knobs = [
            parse_knob("b4:55:15:0:60").unwrap(),
            parse_knob("i14:-206:50").unwrap(),
        ];
        assert_eq!(tuning_text(&knobs, &[70.4, -205.6]), "b4=60,i14=-206");
        assert!(Tuning::parse(&tuning_text(&knobs, &[55.0, -206.0])).is_some());
    }

    #[test]
    fn pairs_are_scored_for_plus() {
        let games = concat!(
            r#"{"black":"plus","white":"minus","winner":"black"}"#,
            "\n",
            r#"{"black":"minus","white":"plus","winner":null}"#,
            "\n",
            r#"{"black":"minus","white":"plus","winner":"black"}"#,
            "\n",
        );
        assert_eq!(score(games).unwrap(), (0, 3));
        assert_eq!(score(&games[..games.find('\n').unwrap()]).unwrap(), (1, 1));
        assert!(score("not json").is_err());
    }
}
