//! SGF (`FF[4]`) export of a game record, for Gomoku viewers and editors.
//!
//! Pure text generation. The file holds one game tree with a root node and one node per stone:
//! * root: `FF[4]GM[4]` (game 4 = Gomoku / Renju), `CA[UTF-8]`, `AP[rensa-referee:version]`, `SZ[15]` (or
//!   `SZ[w:h]` for rectangles, columns first), `PB`/`PW` engine names, `RE[B+]`, `RE[W+]` or
//!   `RE[0]` (draw), `RU` the rule name, `GN` the game and opening index, and a `C` comment with the
//!   end reason and detail;
//! * moves: `;B[hh]` / `;W[ii]`, first letter = x (column), second = y (row), `a` = 0; opening
//!   stones are ordinary moves (commented `opening`), engine moves carry their time as `C[812 ms]`.
//!
//! SGF coordinates run `a..z` then `A..Z`, so a board with a side above 52 ([`MAX_SGF_SIDE`])
//! cannot be written: such a game gets no SGF (an empty move `[]` would read as a pass).

use super::record::{EndReason, GameRecord};
use crate::types::Color;
use std::fmt::Write as _;

/// The largest board side SGF coordinates can name.
pub const MAX_SGF_SIDE: usize = 52;

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

/// The whole game as one SGF file (ending with a newline); `None` when a side of the board is
/// above [`MAX_SGF_SIDE`].
pub fn to_sgf(r: &GameRecord) -> Option<String> {
    if r.width > MAX_SGF_SIDE || r.height > MAX_SGF_SIDE {
        return None;
    }
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
    let mut comment = match (r.winner, r.reason) {
        (None, EndReason::Draw) => "draw".to_string(),
        (Some(c), reason) => format!("{c} wins by {reason}"),
        (None, reason) => format!("draw by {reason}"),
    };
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
        let note = match time_ms {
            None => "opening".to_string(),
            Some(ms) => format!("{ms} ms"),
        };
        let (Some(x), Some(y)) = (coord_letter(p.x), coord_letter(p.y)) else {
            // Off a board that fits SGF: a corrupt record.
            return None;
        };
        let coords = format!("{x}{y}");
        let _ = write!(s, ";{colour}[{coords}]C[{}]", escape(&note));
        if i % 8 == 7 {
            s.push('\n');
        }
    }
    s.push_str(")\n");
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pos::Pos;
    use crate::referee::record::{EndReason, MoveRecord};
    use crate::types::Rule;

    fn sample() -> GameRecord {
        GameRecord {
            game_index: 4,
            opening_index: Some(2),
            black: "rensa [dev]".to_string(),
            white: "greedy\\old".to_string(),
            rule: Rule::Freestyle,
            width: 15,
            height: 15,
            opening: vec![Pos::new(7, 7), Pos::new(8, 7)],
            moves: vec![
                MoveRecord {
                    pos: Pos::new(8, 8),
                    time_ms: 812,
                },
                MoveRecord {
                    pos: Pos::new(0, 14),
                    time_ms: 5,
                },
            ],
            swap2_moves: 0,
            winner: Some(Color::Black),
            reason: EndReason::Five,
            detail: "black made five".to_string(),
        }
    }

    /// A minimal SGF reader for one linear game: the nodes, each a list of (property, value)
    /// with escapes resolved. Panics on malformed text (it is only used on our own output).
    fn parse(sgf: &str) -> Vec<Vec<(String, String)>> {
        let body = sgf
            .trim()
            .strip_prefix('(')
            .unwrap()
            .strip_suffix(')')
            .unwrap();
        let mut nodes: Vec<Vec<(String, String)>> = Vec::new();
        let mut chars = body.chars().peekable();
        let mut ident = String::new();
        while let Some(c) = chars.next() {
            match c {
                ';' => nodes.push(Vec::new()),
                'A'..='Z' => ident.push(c),
                '[' => {
                    let mut value = String::new();
                    loop {
                        match chars.next().expect("unterminated value") {
                            '\\' => value.push(chars.next().expect("dangling escape")),
                            ']' => break,
                            v => value.push(v),
                        }
                    }
                    nodes.last_mut().unwrap().push((ident.clone(), value));
                    if chars.peek() != Some(&'[') {
                        ident.clear();
                    }
                }
                c if c.is_whitespace() => {}
                other => panic!("unexpected {other:?} in {sgf}"),
            }
        }
        nodes
    }

    fn prop<'a>(node: &'a [(String, String)], name: &str) -> Option<&'a str> {
        node.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The moves of an SGF text in order: (colour, coordinates, comment).
    fn moves_of(sgf: &str) -> Vec<(String, String, String)> {
        parse(sgf)
            .iter()
            .skip(1)
            .map(|n| {
                (
                    n[0].0.clone(),
                    n[0].1.clone(),
                    prop(n, "C").unwrap_or("").to_string(),
                )
            })
            .collect()
    }

    #[test]
    fn root_properties() {
        let sgf = to_sgf(&sample()).unwrap();
        assert!(sgf.starts_with("(;FF[4]GM[4]"), "{sgf}");
        assert!(sgf.ends_with(")\n"));
        assert!(sgf.contains(r"PB[rensa [dev\]]"), "{sgf}");
        let nodes = parse(&sgf);
        let root = &nodes[0];
        for (name, want) in [
            ("FF", "4"),
            ("GM", "4"),
            ("SZ", "15"),
            ("PB", "rensa [dev]"),
            ("PW", "greedy\\old"),
            ("RE", "B+"),
            ("RU", "freestyle"),
            ("GN", "game 4, opening 2"),
            ("C", "black wins by five: black made five"),
        ] {
            assert_eq!(prop(root, name), Some(want), "{name} in {sgf}");
        }
        assert_eq!(nodes.len(), 1 + 4);
    }

    #[test]
    fn moves_use_letters_x_then_y() {
        let sgf = to_sgf(&sample()).unwrap();
        let want = [
            ("B", "hh", "opening"),
            ("W", "ih", "opening"),
            ("B", "ii", "812 ms"),
            ("W", "ao", "5 ms"),
        ];
        let got = moves_of(&sgf);
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert_eq!((g.0.as_str(), g.1.as_str(), g.2.as_str()), w);
        }
    }

    #[test]
    fn results_sizes_and_wide_boards() {
        let mut r = sample();
        r.winner = None;
        r.reason = EndReason::Draw;
        r.detail.clear();
        r.width = 20;
        r.height = 16;
        let sgf = to_sgf(&r).unwrap();
        assert!(sgf.contains("RE[0]") && sgf.contains("SZ[20:16]") && sgf.contains("C[draw]"));
        r.winner = Some(Color::White);
        r.reason = EndReason::Timeout;
        r.rule = Rule::Renju;
        let sgf = to_sgf(&r).unwrap();
        assert!(sgf.contains("RE[W+]") && sgf.contains("RU[renju]"));
        assert!(sgf.contains("C[white wins by timeout]"));
        // Columns beyond z continue with capitals; a board above 52 gets no SGF.
        r.width = 52;
        r.height = 52;
        r.moves = vec![MoveRecord {
            pos: Pos::new(26, 51),
            time_ms: 1,
        }];
        assert!(to_sgf(&r).unwrap().contains(";B[AZ]"));
        r.width = 53;
        assert_eq!(to_sgf(&r), None);
        r.width = 20;
        r.height = 64;
        assert_eq!(to_sgf(&r), None);
    }
}
