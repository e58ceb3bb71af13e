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
//! `black`, `white` or `null`. A game that began with swap2 also has `"swap2_moves":N`, the number
//! of leading `moves` the engines placed in the swap2 phase (the field is absent, and read as 0,
//! otherwise). Unknown fields are ignored when reading, so later versions may add fields.

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
    /// How many of `moves` were placed in the swap2 phase; written only when not 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    swap2_moves: usize,
    move_count: usize,
    result: String,
    winner: Option<String>,
    reason: String,
    detail: String,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
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
        swap2_moves: r.swap2_moves,
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
    if j.swap2_moves > moves.len() {
        return Err(format!(
            "swap2_moves {} but {} moves recorded",
            j.swap2_moves,
            moves.len()
        ));
    }
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
        swap2_moves: j.swap2_moves,
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
    // A byte-order mark (files touched by some Windows editors) is not part of the first record.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
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

/// Several runs' records as one list, for statistics over all of them: each run's game indices
/// are shifted past the previous run's highest (to the next even number), so the colour-swapped
/// pairs (games `2k`, `2k + 1`) stay within their own run and never join games of two runs.
/// Engines are told apart by name only: the same name in two runs counts as one engine.
pub fn pool_runs(runs: Vec<Vec<GameRecord>>) -> Vec<GameRecord> {
    let mut pooled = Vec::new();
    let mut offset: usize = 0;
    for run in runs {
        let next = run
            .iter()
            .map(|r| offset.saturating_add(r.game_index).saturating_add(1))
            .max()
            .unwrap_or(offset);
        pooled.extend(run.into_iter().map(|mut r| {
            r.game_index = r.game_index.saturating_add(offset);
            r
        }));
        offset = next.saturating_add(next & 1);
    }
    pooled
}

/// `freestyle 15x15: 400 games, renju 15x15: 300 games`: the rules and boards among `records`,
/// in order of first appearance, with their game counts.
pub fn rules_summary(records: &[GameRecord]) -> String {
    let mut seen: Vec<(String, usize)> = Vec::new();
    for r in records {
        let key = format!("{} {}x{}", r.rule, r.width, r.height);
        match seen.iter_mut().find(|(k, _)| *k == key) {
            Some((_, n)) => *n += 1,
            None => seen.push((key, 1)),
        }
    }
    seen.iter()
        .map(|(k, n)| format!("{k}: {n} game{}", if *n == 1 { "" } else { "s" }))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> GameRecord {
        GameRecord {
            game_index: 7,
            opening_index: Some(3),
            black: "rensa \"dev\" \\ 1".to_string(),
            white: "pbrain-greedy ünïcode".to_string(),
            rule: Rule::Renju,
            width: 15,
            height: 15,
            opening: vec![Pos::new(7, 7), Pos::new(8, 7), Pos::new(8, 10)],
            moves: vec![
                MoveRecord {
                    pos: Pos::new(9, 9),
                    time_ms: 1204,
                },
                MoveRecord {
                    pos: Pos::new(0, 14),
                    time_ms: 0,
                },
            ],
            swap2_moves: 0,
            winner: Some(Color::White),
            reason: EndReason::Forbidden,
            detail: "black played 6,8: double three\nsecond line".to_string(),
        }
    }

    #[test]
    fn line_has_every_field() {
        let line = to_json_line(&sample());
        assert!(!line.contains('\n'), "{line}");
        for part in [
            r#""game_index":7"#,
            r#""opening_index":3"#,
            r#""rule":"renju""#,
            r#""rule_value":4"#,
            r#""width":15"#,
            r#""opening":[[7,7],[8,7],[8,10]]"#,
            r#""moves":[[9,9,1204],[0,14,0]]"#,
            r#""move_count":5"#,
            r#""result":"0-1""#,
            r#""winner":"white""#,
            r#""reason":"forbidden""#,
        ] {
            assert!(line.contains(part), "{part} missing in {line}");
        }
        // Without swap2 the field is left out; with it, it is written.
        assert!(!line.contains("swap2_moves"), "{line}");
        let mut s = sample();
        s.swap2_moves = 2;
        assert!(to_json_line(&s).contains(r#""swap2_moves":2"#));
    }

    #[test]
    fn round_trips() {
        let mut r = sample();
        assert_eq!(parse_json_line(&to_json_line(&r)).unwrap(), r);
        r.winner = None;
        r.reason = EndReason::Draw;
        r.opening_index = None;
        r.rule = Rule::Caro {
            overline_wins: true,
        };
        r.width = 20;
        r.height = 17;
        r.swap2_moves = 1;
        assert_eq!(parse_json_line(&to_json_line(&r)).unwrap(), r);
        r.swap2_moves = 0;
        r.moves.clear();
        assert_eq!(parse_json_line(&to_json_line(&r)).unwrap(), r);
        assert!(to_json_line(&r).contains(r#""result":"1/2-1/2""#));
        r.winner = Some(Color::Black);
        r.reason = EndReason::Timeout;
        assert_eq!(parse_json_line(&to_json_line(&r)).unwrap(), r);
        assert!(to_json_line(&r).contains(r#""result":"1-0""#));
    }

    #[test]
    fn rejects_inconsistent_lines() {
        let good = to_json_line(&sample());
        let bad = [
            good.replace(r#""result":"0-1""#, r#""result":"1-0""#),
            good.replace(r#""reason":"forbidden""#, r#""reason":"resign""#),
            good.replace(r#""rule_value":4"#, r#""rule_value":0"#),
            good.replace(r#""rule":"renju""#, r#""rule":"chess""#),
            good.replace(r#""move_count":5"#, r#""move_count":6"#),
            good.replace(r#""move_count":5"#, r#""swap2_moves":3,"move_count":5"#),
            good.replace("[0,14,0]", "[0,15,0]"),
            good.replace("[0,14,0]", "[0,300,0]"),
            good.replace(r#""width":15"#, r#""width":4"#),
            good.replace(r#""winner":"white""#, r#""winner":"green""#),
            good.replace(r#""black":"#, r#""noir":"#),
            good[..good.len() / 2].to_string(),
            String::new(),
            "[]".to_string(),
        ];
        for line in bad {
            assert!(parse_json_line(&line).is_err(), "accepted {line}");
        }
        // Unknown extra fields are fine.
        let extra = good.replacen('{', r#"{"engine_version":"1.2","#, 1);
        assert_eq!(parse_json_line(&extra).unwrap(), sample());
    }

    #[test]
    fn tolerant_reader_for_resume() {
        let mut a = sample();
        a.game_index = 0;
        let mut b = sample();
        b.game_index = 1;
        let line_b = to_json_line(&b);
        // A crash while writing game 2 left half a line behind.
        let text = format!(
            "{}\n\n{}\n{}",
            to_json_line(&a),
            line_b,
            &line_b[..line_b.len() - 9]
        );
        let (records, errors) = read_records(&text);
        assert_eq!(records, vec![a.clone(), b.clone()]);
        assert_eq!(errors.len(), 1);
        assert!(errors[0].starts_with("line 4:"), "{errors:?}");
        let (records, errors) = read_records("garbage\n");
        assert!(records.is_empty() && errors.len() == 1);
        assert_eq!(read_records(""), (vec![], vec![]));
        // Windows line ends.
        let crlf = format!("{}\r\n{}\r\n", to_json_line(&a), to_json_line(&b));
        assert_eq!(read_records(&crlf).0, vec![a, b]);
    }

    /// A record of game `index` of `black` against `white` in `rule`, black winning.
    fn game(index: usize, black: &str, white: &str, rule: Rule) -> GameRecord {
        GameRecord {
            game_index: index,
            black: black.to_string(),
            white: white.to_string(),
            rule,
            winner: Some(Color::Black),
            ..sample()
        }
    }

    #[test]
    fn pooled_runs_keep_their_pairs_apart() {
        // Run one ends with an unpaired game 2; run two starts at game 0 with the colours the
        // other way round. Pooled, run two's games must not complete run one's pair.
        let one = vec![
            game(0, "a", "b", Rule::Freestyle),
            game(1, "b", "a", Rule::Freestyle),
            game(2, "a", "b", Rule::Freestyle),
        ];
        let two = vec![
            game(1, "a", "b", Rule::Renju),
            game(0, "b", "a", Rule::Renju),
        ];
        let pooled = pool_runs(vec![one, two]);
        let indices: Vec<usize> = pooled.iter().map(|r| r.game_index).collect();
        assert_eq!(indices, [0, 1, 2, 5, 4]);
        let p = crate::referee::stats::pentanomial_for(&pooled, "a", "b");
        assert_eq!(p.pairs(), 2);
        // Each pair is one win each: 1 point of 2.
        assert_eq!(p.counts, [0, 0, 2, 0, 0]);
        assert_eq!(
            rules_summary(&pooled),
            "freestyle 15x15: 3 games, renju 15x15: 2 games"
        );
        assert!(pool_runs(vec![vec![], vec![]]).is_empty());
        assert_eq!(rules_summary(&[]), "");
    }
}

#[cfg(test)]
mod golden {
    use super::*;

    /// A hand-written record file in the version-1 format: it must keep reading the same way.
    const V1: &str = include_str!("testdata/records_v1.jsonl");

    #[test]
    fn version_1_file_reads_the_same() {
        let (records, errors) = read_records(V1);
        assert_eq!(records.len(), 4, "{errors:?}");
        // Line 5 lacks most fields; line 7 was cut off by a crash.
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].starts_with("line 5:"), "{errors:?}");
        assert!(errors[1].starts_with("line 7:"), "{errors:?}");

        let r = &records[0];
        assert_eq!((r.game_index, r.opening_index), (0, Some(0)));
        assert_eq!((r.black.as_str(), r.white.as_str()), ("rensa", "greedy"));
        assert_eq!(r.rule, Rule::Freestyle);
        assert_eq!(
            r.opening,
            vec![Pos::new(7, 7), Pos::new(8, 7), Pos::new(8, 10)]
        );
        assert_eq!(r.moves.len(), 7);
        assert_eq!(r.moves[0].pos, Pos::new(9, 9));
        assert_eq!(r.moves[0].time_ms, 1204);
        assert_eq!((r.winner, r.reason), (Some(Color::Black), EndReason::Five));

        assert_eq!(records[1].rule, Rule::Renju);
        assert_eq!(records[1].reason, EndReason::Forbidden);
        assert_eq!(records[1].winner_name(), Some("rensa"));

        let d = &records[2];
        assert_eq!(
            d.rule,
            Rule::Caro {
                overline_wins: true
            }
        );
        assert_eq!((d.width, d.height, d.opening_index), (20, 17, None));
        assert_eq!((d.winner, d.reason), (None, EndReason::Draw));

        assert_eq!(records[3].reason, EndReason::Timeout);
        assert_eq!(records[3].moves[0].time_ms, 30_000);

        // Writing the records back gives the same lines (the one with an extra field aside).
        let lines: Vec<&str> = V1.lines().collect();
        for (r, line) in records[..3].iter().zip([lines[0], lines[1], lines[3]]) {
            assert_eq!(to_json_line(r), line);
        }
    }
}
