//! Data-driven rules tests: runs every case of `tests/data/rules_vectors.txt` (format documented at
//! the top of that file) through the rules oracle and reports every failure with its line number
//! and a board diagram.

use rensa::board::rules;
use rensa::pos::parse_algebraic;
use rensa::{Board, Color, Pos, Rule};
use std::collections::BTreeSet;

const VECTORS: &str = include_str!("data/rules_vectors.txt");

/// One parsed line of the vector file.
struct Case {
    line: usize,
    name: String,
    rule: Rule,
    board: Board,
    checks: Vec<Check>,
}

struct Check {
    color: Color,
    verb: Verb,
    points: Vec<Pos>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Verb {
    Win,
    NoWin,
    Forbidden,
    Allowed,
    WinsExactly,
    ForbiddenExactly,
    Open4,
}

fn parse_points(words: &[&str]) -> Result<Vec<Pos>, String> {
    if words == ["-"] {
        return Ok(Vec::new());
    }
    words
        .iter()
        .map(|w| w.parse::<Pos>().map_err(|e| e.to_string()))
        .collect()
}

fn parse_size(text: &str) -> Result<(usize, usize), String> {
    let (w, h) = text
        .split_once('x')
        .ok_or_else(|| format!("size '{text}' is not WxH"))?;
    let n = |t: &str| t.parse::<usize>().map_err(|_| format!("bad size '{text}'"));
    Ok((n(w)?, n(h)?))
}

fn parse_stones(text: &str, width: usize, height: usize) -> Result<Board, String> {
    let mut board = Board::new(width, height).map_err(|e| e.to_string())?;
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.first() == Some(&"moves") {
        let rest = words[1..].concat();
        let moves = parse_algebraic(&rest).map_err(|e| e.to_string())?;
        for (i, m) in moves.into_iter().enumerate() {
            board
                .place(m, Color::of_ply(i))
                .map_err(|e| e.to_string())?;
        }
        return Ok(board);
    }
    let mut color = None;
    for w in words {
        match w {
            "B" => color = Some(Color::Black),
            "W" => color = Some(Color::White),
            _ => {
                let c = color.ok_or_else(|| format!("stone '{w}' before B or W"))?;
                let p: Pos = w
                    .parse()
                    .map_err(|e: rensa::pos::NotationError| e.to_string())?;
                board.place(p, c).map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(board)
}

fn parse_check(text: &str) -> Result<Check, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() < 3 {
        return Err(format!("check '{text}' needs a colour, a verb and points"));
    }
    let color = match words[0] {
        "B" => Color::Black,
        "W" => Color::White,
        other => return Err(format!("colour '{other}' is not B or W")),
    };
    let verb = match words[1] {
        "win" => Verb::Win,
        "nowin" => Verb::NoWin,
        "forbidden" => Verb::Forbidden,
        "allowed" => Verb::Allowed,
        "wins-exactly" => Verb::WinsExactly,
        "forbidden-exactly" => Verb::ForbiddenExactly,
        "open4" => Verb::Open4,
        other => return Err(format!("unknown verb '{other}'")),
    };
    Ok(Check {
        color,
        verb,
        points: parse_points(&words[2..])?,
    })
}

fn parse_case(line: usize, text: &str) -> Result<Case, String> {
    let fields: Vec<&str> = text.split('|').map(str::trim).collect();
    if fields.len() != 5 {
        return Err(format!("expected 5 fields, found {}", fields.len()));
    }
    let rule = Rule::parse(fields[1]).ok_or_else(|| format!("unknown rule '{}'", fields[1]))?;
    let (w, h) = parse_size(fields[2])?;
    let board = parse_stones(fields[3], w, h)?;
    let checks = fields[4]
        .split(';')
        .map(parse_check)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Case {
        line,
        name: fields[0].to_string(),
        rule,
        board,
        checks,
    })
}

fn parse_file(text: &str) -> Result<Vec<Case>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|(i, l)| parse_case(i + 1, l).map_err(|e| format!("line {}: {e}", i + 1)))
        .collect()
}

/// Whether a stone of `color` on `p` wins: a winning line under the rule, and for renju black the
/// point must not be forbidden.
fn wins(board: &Board, rule: Rule, p: Pos, color: Color) -> bool {
    if !board.is_empty(p) {
        return false;
    }
    if rule == Rule::Renju && color == Color::Black && rules::is_forbidden(board, p) {
        return false;
    }
    rules::is_win(board, rule, p, color)
}

fn winning_points(board: &Board, rule: Rule, color: Color) -> BTreeSet<Pos> {
    board
        .empty_cells()
        .filter(|&p| wins(board, rule, p, color))
        .collect()
}

fn show(points: &BTreeSet<Pos>) -> String {
    let v: Vec<String> = points.iter().map(|p| p.to_string()).collect();
    if v.is_empty() {
        "-".into()
    } else {
        v.join(" ")
    }
}

/// Runs one check; `Err` describes what went wrong.
fn run_check(case: &Case, check: &Check) -> Result<(), String> {
    let (b, rule, color) = (&case.board, case.rule, check.color);
    for &p in &check.points {
        if !b.is_empty(p) {
            return Err(format!("point {p} is not an empty cell of the board"));
        }
    }
    let want: BTreeSet<Pos> = check.points.iter().copied().collect();
    match check.verb {
        Verb::Win | Verb::NoWin => {
            let expect = check.verb == Verb::Win;
            for &p in &check.points {
                if wins(b, rule, p, color) != expect {
                    return Err(format!(
                        "{color} on {p}: expected {}",
                        if expect { "a win" } else { "no win" }
                    ));
                }
            }
        }
        Verb::Forbidden | Verb::Allowed => {
            let expect = check.verb == Verb::Forbidden;
            for &p in &check.points {
                if rules::is_forbidden(b, p) != expect {
                    return Err(format!(
                        "black on {p}: expected {}",
                        if expect { "forbidden" } else { "allowed" }
                    ));
                }
            }
        }
        Verb::WinsExactly => {
            let got = winning_points(b, rule, color);
            if got != want {
                return Err(format!(
                    "{color}'s winning points: expected {}, got {}",
                    show(&want),
                    show(&got)
                ));
            }
        }
        Verb::ForbiddenExactly => {
            let got: BTreeSet<Pos> = rules::forbidden_points(b).into_iter().collect();
            if got != want {
                return Err(format!(
                    "forbidden points: expected {}, got {}",
                    show(&want),
                    show(&got)
                ));
            }
        }
        Verb::Open4 => {
            for &p in &check.points {
                let mut after = b.clone();
                after.place(p, color).map_err(|e| e.to_string())?;
                let n = winning_points(&after, rule, color).len();
                if n < 2 {
                    return Err(format!(
                        "{color} on {p}: expected >= 2 winning points after it, got {n}"
                    ));
                }
            }
        }
    }
    Ok(())
}

#[test]
fn rules_vectors_file() {
    let cases = parse_file(VECTORS).unwrap_or_else(|e| panic!("rules_vectors.txt: {e}"));
    assert!(cases.len() >= 40, "only {} cases parsed", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        if case.checks.iter().any(|c| {
            matches!(
                c.verb,
                Verb::Forbidden | Verb::Allowed | Verb::ForbiddenExactly
            ) && (case.rule != Rule::Renju || c.color != Color::Black)
        }) {
            failures.push(format!(
                "line {} ({}): forbidden-point checks need rule renju and colour B",
                case.line, case.name
            ));
            continue;
        }
        for check in &case.checks {
            if let Err(e) = run_check(case, check) {
                failures.push(format!(
                    "line {} ({}, {}): {e}\n{:?}",
                    case.line, case.name, case.rule, case.board
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing check(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn vector_parser_reports_bad_lines() {
    for bad in [
        "x | renju | 15x15 | B 7,7",
        "x | nosuchrule | 15x15 | B 7,7 | B win 8,7",
        "x | renju | 15by15 | B 7,7 | B win 8,7",
        "x | renju | 15x15 | 7,7 | B win 8,7",
        "x | renju | 15x15 | B 7,7 7,7 | B win 8,7",
        "x | renju | 15x15 | B 7,7 | Q win 8,7",
        "x | renju | 15x15 | B 7,7 | B jump 8,7",
        "x | renju | 15x15 | B 7,7 | B win 99,7",
        "x | renju | 15x15 | moves h8h8 | B win 8,7",
    ] {
        assert!(parse_case(1, bad).is_err(), "{bad:?} should not parse");
    }
    assert!(parse_file("# comment\n\nx | renju | 15x15 | B 7,7 | B win -\n").is_ok());
}

/// protocol.md §11, GomocupJudge renju vector, at game level: 6,8 ends the game as a foul.
#[test]
fn renju_vector_foul_ends_game_for_white() {
    let moves = parse_algebraic("h8h9i7i9h10i6i11i12").unwrap();
    let mut g = rensa::Game::from_moves(15, 15, Rule::Renju, &moves).unwrap();
    assert_eq!(g.forbidden_points(), vec![Pos::new(6, 8)]);
    let out = g.play(Pos::new(6, 8)).unwrap().cloned().unwrap();
    assert_eq!(out.winner, Some(Color::White));
    assert_eq!(out.reason, rensa::Reason::Forbidden);
    assert_eq!(out.line, vec![Pos::new(6, 8)]);
}
