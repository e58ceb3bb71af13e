//! `pbrain-rensa`: the engine. Speaks the Gomocup protocol on stdin/stdout; `pbrain-rensa bench`
//! runs the fixed benchmark and `pbrain-rensa tactics` the tactical suites. Logs go to stderr and
//! are silent unless `RUST_LOG` is set.

use rensa::board::pattern::COMBOS;
use std::io;

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
    // Developers' experiment: an evaluation network from `RENSA_NET=FILE`.
    if let Ok(path) = std::env::var("RENSA_NET") {
        match std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|t| rensa::eval::Net::parse(&t))
        {
            Ok(n) => {
                rensa::eval::set_net(n);
            }
            Err(e) => eprintln!("pbrain-rensa: RENSA_NET {path:?}: {e}; ignored"),
        }
    }
    // Developers' experiment: a move-ordering policy from `RENSA_POLICY=FILE`.
    if let Ok(path) = std::env::var("RENSA_POLICY") {
        match std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|t| rensa::search::policy::Policy::parse(&t))
        {
            Ok(p) => {
                rensa::search::policy::set_policy(p);
            }
            Err(e) => eprintln!("pbrain-rensa: RENSA_POLICY {path:?}: {e}; ignored"),
        }
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("bench") => {
            println!("{}", rensa::bench::run());
        }
        Some("-h" | "--help" | "help") => {
            println!(
                "pbrain-rensa {}: a Gomoku / Renju engine for the Gomocup (Piskvork) protocol\n\n\
                 usage:\n  pbrain-rensa                 speak the protocol on stdin/stdout (START, BEGIN, TURN, BOARD, ... END)\n  \
                 pbrain-rensa bench           fixed-depth benchmark; last line 'Bench: <nodes>'\n  \
                 pbrain-rensa tactics [--time-ms N] [SUITES...]   run the tactical suites\n\n\
                 Logs go to stderr when RUST_LOG is set (e.g. RUST_LOG=debug).",
                env!("CARGO_PKG_VERSION")
            );
        }
        Some("tactics") => match rensa::tactics::cli(&args[1..]) {
            Ok(report) => println!("{report}"),
            Err(e) => {
                eprintln!("pbrain-rensa tactics: {e}");
                std::process::exit(2);
            }
        },
        // Any other first argument is ignored: managers start the brain without arguments.
        _ => match rensa::protocol::run(io::stdin(), io::stdout()) {
            // The manager closed our stdout: it is gone, so there is nobody left to tell.
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
            r => r?,
        },
    }
    Ok(())
}

/// Reads `index correction` lines (see `examples/fit_combo.rs`).
fn load_combo_corrections(path: &str) -> anyhow::Result<Box<[i32; COMBOS]>> {
    rensa::board::pattern::parse_combo_corrections(&std::fs::read_to_string(path)?)
        .map_err(|e| anyhow::anyhow!(e))
}
