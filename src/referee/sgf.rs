//! SGF (FF[4]) export of a game record, for Gomoku viewers and editors.
//!
//! Pure text generation. The file holds one game tree with a root node and one node per stone:
//! * root: `FF[4]GM[4]` (game 4 = Gomoku / Renju), `CA[UTF-8]`, `AP[rensa-referee:version]`, `SZ[15]` (or
//!   `SZ[w:h]` for rectangles, columns first), `PB`/`PW` engine names, `RE[B+]`, `RE[W+]` or
//!   `RE[0]` (draw), `RU` the rule name, `GN` the game and opening index, and a `C` comment with the
//!   end reason and detail;
//! * moves: `;B[hh]` / `;W[ii]`, first letter = x (column), second = y (row), `a` = 0; opening
//!   stones are ordinary moves (commented `opening`), engine moves carry their time as `C[812 ms]`.
//!
//! SGF coordinates run `a..z` then `A..Z`, so sides above 52 cannot be written; such a stone is
//! written as an empty move `[]` with a comment giving its `x,y`.

use super::record::GameRecord;
use crate::types::Color;
use std::fmt::Write as _;

/// SGF letter for a coordinate (`a..z`, then `A..Z`).
fn coord_letter(v: u8) -> Option<char> {
    match v {
        0..=25 => Some((b'a' + v) as char),
        26..=51 => Some((b'A' + v - 26) as char),
        _ => None,
    }
}

/// Escapes SGF text: `\` and `]` get a backslash.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | ']') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The whole game as one SGF file (ending with a newline).
pub fn to_sgf(r: &GameRecord) -> String {
    let mut s = format!(
        "(;FF[4]GM[4]CA[UTF-8]AP[rensa-referee:{}]",
        env!("CARGO_PKG_VERSION")
    );
    if r.width == r.height {
        let _ = write!(s, "SZ[{}]", r.width);
    } else {
        let _ = write!(s, "SZ[{}:{}]", r.width, r.height);
    }
    let _ = write!(
        s,
        "PB[{}]PW[{}]RU[{}]",
        escape(&r.black),
        escape(&r.white),
        r.rule.name()
    );
    let result = match r.winner {
        Some(Color::Black) => "B+",
        Some(Color::White) => "W+",
        None => "0",
    };
    let _ = write!(s, "RE[{result}]");
    let mut gn = format!("game {}", r.game_index);
    if let Some(o) = r.opening_index {
        let _ = write!(gn, ", opening {o}");
    }
    let _ = write!(s, "GN[{}]", escape(&gn));
    let winner = match r.winner {
        Some(c) => format!("{c} wins"),
        None => "draw".to_string(),
    };
    let mut comment = format!("{winner} by {}", r.reason);
    if !r.detail.is_empty() {
        let _ = write!(comment, ": {}", r.detail);
    }
    let _ = write!(s, "C[{}]", escape(&comment));
    s.push('\n');

    let opening = r.opening.iter().map(|&p| (p, None));
    let moves = r.moves.iter().map(|m| (m.pos, Some(m.time_ms)));
    for (i, (p, time_ms)) in opening.chain(moves).enumerate() {
        let colour = if Color::of_ply(i) == Color::Black {
            'B'
        } else {
            'W'
        };
        let mut note = match time_ms {
            None => "opening".to_string(),
            Some(ms) => format!("{ms} ms"),
        };
        let coords = match (coord_letter(p.x), coord_letter(p.y)) {
            (Some(x), Some(y)) => format!("{x}{y}"),
            _ => {
                let _ = write!(note, "; stone {p} cannot be written in SGF");
                String::new()
            }
        };
        let _ = write!(s, ";{colour}[{coords}]C[{}]", escape(&note));
        if i % 8 == 7 {
            s.push('\n');
        }
    }
    s.push_str(")\n");
    s
}
