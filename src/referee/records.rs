//! Game records as JSON lines: one self-contained JSON object per finished game, one game per line,
//! so a match file can be appended to game by game, read back for statistics, and resumed after a
//! crash (a half-written last line is reported, not fatal).
//!
//! Pure functions: the caller does the file I/O. A line looks like (wrapped here):
//! ```text
//! {"game_index":0,"opening_index":3,"black":"rensa","white":"greedy","rule":"renju","rule_value":4,
//!  "width":15,"height":15,"opening":[[7,7],[8,7],[8,10]],"moves":[[9,9,1204],[6,6,980]],
//!  "move_count":5,"result":"1-0","winner":"black","reason":"five","detail":"black made five"}
//! ```
//! `opening` holds `[x, y]` stones (black first), `moves` holds `[x, y, time_ms]` for the engines'
//! moves after the opening, `move_count` is the number of stones on the board at the end
//! (opening + moves), `result` is `1-0` (black won), `0-1` (white won) or `1/2-1/2`, `winner` is
//! `black`, `white` or `null`. Unknown fields are ignored when reading, so later versions may add
//! fields.

use super::record::{EndReason, GameRecord, MoveRecord};
use crate::pos::{Pos, MAX_SIDE, MIN_SIDE};
use crate::types::{Color, Rule};
use serde::{Deserialize, Serialize};

/// The on-disk shape of one record (field order = output order).
#[derive(Serialize, Deserialize)]
struct JsonRecord {
    game_index: usize,
    opening_index: Option<usize>,
    black: String,
    white: String,
    rule: String,
    rule_value: i64,
    width: usize,
    height: usize,
    opening: Vec<(u8, u8)>,
    moves: Vec<(u8, u8, u64)>,
    move_count: usize,
    result: String,
    winner: Option<String>,
    reason: String,
    detail: String,
}

/// The result string of a game: `1-0`, `0-1` or `1/2-1/2`.
pub fn result_text(winner: Option<Color>) -> &'static str {
    match winner {
        Some(Color::Black) => "1-0",
        Some(Color::White) => "0-1",
        None => "1/2-1/2",
    }
}

/// One record as a single JSON line (no trailing newline).
pub fn to_json_line(r: &GameRecord) -> String {
    let j = JsonRecord {
        game_index: r.game_index,
        opening_index: r.opening_index,
        black: r.black.clone(),
        white: r.white.clone(),
        rule: r.rule.name().to_string(),
        rule_value: r.rule.to_protocol(),
        width: r.width,
        height: r.height,
        opening: r.opening.iter().map(|p| (p.x, p.y)).collect(),
        moves: r
            .moves
            .iter()
            .map(|m| (m.pos.x, m.pos.y, m.time_ms))
            .collect(),
        move_count: r.opening.len() + r.moves.len(),
        result: result_text(r.winner).to_string(),
        winner: r.winner.map(|c| c.to_string()),
        reason: r.reason.name().to_string(),
        detail: r.detail.clone(),
    };
    // Serialising plain strings, numbers and vectors cannot fail.
    serde_json::to_string(&j).unwrap_or_default()
}

/// Reads one JSON line back, checking that it is consistent (known rule, board size, stones on the
/// board, result agreeing with the winner, move count agreeing with the stones).
pub fn parse_json_line(line: &str) -> Result<GameRecord, String> {
    let j: JsonRecord = serde_json::from_str(line.trim()).map_err(|e| e.to_string())?;
    let rule = Rule::parse(&j.rule).ok_or_else(|| format!("unknown rule '{}'", j.rule))?;
    if rule.to_protocol() != j.rule_value {
        return Err(format!(
            "rule '{}' does not match rule_value {}",
            j.rule, j.rule_value
        ));
    }
    let side_ok = |s: usize| (MIN_SIDE..=MAX_SIDE).contains(&s);
    if !side_ok(j.width) || !side_ok(j.height) {
        return Err(format!(
            "board size {}x{} is not supported",
            j.width, j.height
        ));
    }
    let on_board = |x: u8, y: u8| -> Result<Pos, String> {
        if (x as usize) < j.width && (y as usize) < j.height {
            Ok(Pos::new(x, y))
        } else {
            Err(format!(
                "stone {x},{y} is outside the {}x{} board",
                j.width, j.height
            ))
        }
    };
    let opening = j
        .opening
        .iter()
        .map(|&(x, y)| on_board(x, y))
        .collect::<Result<Vec<_>, _>>()?;
    let moves = j
        .moves
        .iter()
        .map(|&(x, y, time_ms)| {
            Ok(MoveRecord {
                pos: on_board(x, y)?,
                time_ms,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let winner = match j.winner.as_deref() {
        None => None,
        Some("black") => Some(Color::Black),
        Some("white") => Some(Color::White),
        Some(other) => return Err(format!("unknown winner '{other}'")),
    };
    if j.result != result_text(winner) {
        return Err(format!(
            "result '{}' does not match winner {}",
            j.result,
            j.winner.as_deref().unwrap_or("null")
        ));
    }
    let reason =
        EndReason::parse(&j.reason).ok_or_else(|| format!("unknown reason '{}'", j.reason))?;
    if j.move_count != opening.len() + moves.len() {
        return Err(format!(
            "move_count {} but {} stones recorded",
            j.move_count,
            opening.len() + moves.len()
        ));
    }
    Ok(GameRecord {
        game_index: j.game_index,
        opening_index: j.opening_index,
        black: j.black,
        white: j.white,
        rule,
        width: j.width,
        height: j.height,
        opening,
        moves,
        winner,
        reason,
        detail: j.detail,
    })
}

/// Reads a whole JSON-lines file tolerantly: every good line becomes a record; blank lines are
/// skipped; every bad line (malformed, inconsistent, or half written, as the last line after a
/// crash) becomes an error message naming its 1-based line number.
pub fn read_records(text: &str) -> (Vec<GameRecord>, Vec<String>) {
    let mut records = Vec::new();
    let mut errors = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match parse_json_line(line) {
            Ok(r) => records.push(r),
            Err(e) => errors.push(format!("line {}: {e}", i + 1)),
        }
    }
    (records, errors)
}
