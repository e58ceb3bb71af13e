//! The Gomocup protocol layer: line framing, a pure command parser, dispatch onto the engine, and
//! the only writer of protocol text.
//!
//! Placeholder: the protocol work replaces this.

use std::io::{BufRead, Write};

/// Runs the protocol loop until `END` or end of input.
pub fn run(input: impl BufRead + Send, mut output: impl Write) -> std::io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().eq_ignore_ascii_case("END") {
            break;
        }
        writeln!(output, "UNKNOWN {}", line.trim())?;
        output.flush()?;
    }
    Ok(())
}
