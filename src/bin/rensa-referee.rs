//! `rensa-referee`: plays protocol engines against each other and judges game records.
//!
//! Placeholder: the referee work fills this in.

fn main() -> anyhow::Result<()> {
    eprintln!("rensa-referee: not implemented yet");
    std::process::exit(2);
}
