//! Runs the tactical suites against the engine, exactly like `pbrain-rensa tactics` once the
//! subcommand is wired: `cargo run --release --example run_tactics -- [--time-ms N] [FILES...]`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match rensa::tactics::cli(&args) {
        Ok(report) => print!("{report}"),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
