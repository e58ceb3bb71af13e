//! Verifies tactical suite files with the VCF prover (what `tests/tactics.rs` does for the shipped
//! suites), printing each failing entry.
//!
//! `cargo run --release --example verify_suite -- suites/renju.txt [MORE FILES...]`

fn main() {
    let mut bad = 0;
    for path in std::env::args().skip(1) {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{path}: {e}");
                bad += 1;
                continue;
            }
        };
        match rensa::tactics::verify_suite(&text) {
            Ok(n) => println!("{path}: {n} entries verified"),
            Err(errs) => {
                for e in errs {
                    println!("{path}: {e}");
                    bad += 1;
                }
            }
        }
    }
    std::process::exit(if bad == 0 { 0 } else { 1 });
}
