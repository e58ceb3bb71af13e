//! `pbrain-rensa`: the engine. Speaks the Gomocup protocol on stdin/stdout; `pbrain-rensa bench`
//! runs the fixed benchmark and `pbrain-rensa tactics` the tactical suites. Logs go to stderr and
//! are silent unless `RUST_LOG` is set.

use rensa::board::pattern::COMBOS;
use std::io::{self, Write};

fn main() -> anyhow::Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("off"))
        .target(env_logger::Target::Stderr)
        .init();
    // Developers' A/B knob: `RENSA_TUNING=qwin=1` (see `Tuning::parse`) changes the search of
    // this process only, so two copies of one binary can play each other under the referee.
    if let Ok(text) = std::env::var("RENSA_TUNING") {
        match rensa::search::alphabeta::Tuning::parse(&text) {
            Some(t) => {
                rensa::search::alphabeta::set_process_tuning(t);
                log::info!("RENSA_TUNING: {t:?}");
            }
            // Said on stderr even without RUST_LOG: a typo would silently void an experiment.
            None => eprintln!("pbrain-rensa: RENSA_TUNING {text:?} not understood; ignored"),
        }
    }
    // Developers' experiment: per-combination evaluation corrections from `fit_combo --out`.
    if let Ok(path) = std::env::var("RENSA_COMBO") {
        match load_combo_corrections(&path) {
            Ok(c) => {
                rensa::board::pattern::set_combo_corrections(c);
            }
            Err(e) => eprintln!("pbrain-rensa: RENSA_COMBO {path:?}: {e}; ignored"),
        }
    }
    // Developers' experiments: an evaluation network from `RENSA_NET=FILE`, a move-ordering
    // policy from `RENSA_POLICY=FILE`.
    load_env_file("RENSA_NET", rensa::eval::Net::parse, rensa::eval::set_net);
    load_env_file(
        "RENSA_CELLNET",
        rensa::cellnet::CellNet::parse,
        rensa::cellnet::set_cellnet,
    );
    load_env_file(
        "RENSA_POLICY",
        rensa::search::policy::Policy::parse,
        rensa::search::policy::set_policy,
    );
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("bench") => report(&rensa::bench::run()),
        Some("-h" | "--help" | "help") => {
            println!(
                "pbrain-rensa {}: a Gomoku / Renju engine for the Gomocup (Piskvork) protocol\n\n\
                 usage:\n  pbrain-rensa                 speak the protocol on stdin/stdout (START, BEGIN, TURN, BOARD, ... END)\n  \
                 pbrain-rensa bench           fixed-depth benchmark; last line 'Bench: <nodes>'\n  \
                 pbrain-rensa tactics [--time-ms N] [SUITES...]   run the tactical suites\n  \
                 pbrain-rensa --version       print the version\n\n\
                 Logs go to stderr when RUST_LOG is set (e.g. RUST_LOG=debug).",
                env!("CARGO_PKG_VERSION")
            );
        }
        Some("tactics") => match rensa::tactics::cli(&args[1..]) {
            Ok(text) => report(&text),
            Err(e) => {
                eprintln!("pbrain-rensa tactics: {e}");
                std::process::exit(2);
            }
        },
        Some("-V" | "--version" | "version") => {
            println!("pbrain-rensa {}", env!("CARGO_PKG_VERSION"));
        }
        // Any other argument is ignored (managers start the brain without arguments), with a
        // word on stderr for a person who meant something by it.
        other => {
            if let Some(a) = other {
                eprintln!("pbrain-rensa: argument {a:?} ignored; speaking the protocol on stdin (see --help)");
            }
            run_protocol()?;
        }
    }
    Ok(())
}

/// The protocol on stdin/stdout until `END` or end of input.
fn run_protocol() -> anyhow::Result<()> {
    match rensa::protocol::run(io::stdin(), io::stdout()) {
        // The manager closed our stdout: it is gone, so there is nobody left to tell.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        r => r?,
    }
    Ok(())
}

/// Reads `index correction` lines (see `examples/fit_combo.rs`).
fn load_combo_corrections(path: &str) -> anyhow::Result<Box<[i32; COMBOS]>> {
    rensa::board::pattern::parse_combo_corrections(&std::fs::read_to_string(path)?)
        .map_err(|e| anyhow::anyhow!(e))
}

/// Reads the file the environment variable `var` names, if set, and installs what `parse` makes
/// of it; a missing or bad file is said on stderr (even without `RUST_LOG`: a typo would
/// silently void an experiment) and ignored.
fn load_env_file<T>(
    var: &str,
    parse: impl Fn(&str) -> Result<T, String>,
    install: impl Fn(T) -> bool,
) {
    if let Ok(path) = std::env::var(var) {
        match std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|t| parse(&t))
        {
            Ok(v) => {
                install(v);
            }
            Err(e) => eprintln!("pbrain-rensa: {var} {path:?}: {e}; ignored"),
        }
    }
}

/// Prints a report (bench, tactics) to stdout; a reader that went away early (`| head`) is
/// no error.
fn report(text: &str) {
    let mut out = io::stdout().lock();
    let _ = writeln!(out, "{text}").and_then(|()| out.flush());
}
