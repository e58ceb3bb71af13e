//! Helpers shared by the tactics generators (`gen_tactics`, `gen_vct_tactics`).

use rand::rngs::StdRng;
use rand::Rng;
use rensa::pos::to_algebraic;
use rensa::search::greedy;
use rensa::tactics::Entry;
use rensa::{Color, Game, Pos, Rule};

/// The arguments every generator starts with: `RULE WxH SEED GAMES [PREFIX ...]`.
pub struct GenArgs {
    pub rule: Rule,
    pub width: usize,
    pub height: usize,
    pub seed: u64,
    pub games: usize,
    /// Entry id prefix (default: the rule's name).
    pub prefix: String,
    /// The arguments after PREFIX.
    pub rest: Vec<String>,
}

impl GenArgs {
    /// Reads the command line; prints `usage` and exits 2 when fewer than four arguments.
    pub fn from_env(usage: &str) -> GenArgs {
        let args: Vec<String> = std::env::args().skip(1).collect();
        if args.len() < 4 {
            eprintln!("usage: {usage}");
            std::process::exit(2);
        }
        let rule = Rule::parse(&args[0]).expect("rule");
        let (width, height) = args[1]
            .split_once('x')
            .map(|(a, b)| (a.parse().unwrap(), b.parse().unwrap()))
            .expect("WxH");
        GenArgs {
            rule,
            width,
            height,
            seed: args[2].parse().expect("seed"),
            games: args[3].parse().expect("games"),
            prefix: args.get(4).cloned().unwrap_or_else(|| rule.name().into()),
            rest: args.iter().skip(5).cloned().collect(),
        }
    }
}

/// The next move of a randomised game: the greedy player's with probability `greedy_share`
/// (always when `urgent`), else a random cell near the stones.
pub fn next_move(rng: &mut StdRng, g: &Game, greedy_share: f64, urgent: bool) -> Option<Pos> {
    if urgent || rng.gen_bool(greedy_share) {
        greedy::best_move(g)
    } else {
        random_near(rng, g).or_else(|| greedy::best_move(g))
    }
}

/// Moves in algebraic notation when every column has a letter, else protocol pairs.
pub fn moves_text(moves: &[Pos]) -> String {
    if moves.iter().all(|p| p.x < 26) {
        to_algebraic(moves).unwrap_or_default()
    } else {
        points_text(moves)
    }
}

/// Points as protocol pairs separated by blanks.
pub fn points_text(points: &[Pos]) -> String {
    points
        .iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// An entry as one suite line (`tactics::parse_entry` reads it back).
pub fn entry_line(e: &Entry) -> String {
    format!(
        "{} | {} | {}x{} | {} | {} | {} | {} | {}",
        e.id,
        e.rule,
        e.width,
        e.height,
        moves_text(&e.moves),
        e.kind,
        points_text(&e.answers),
        e.plies.map_or("-".into(), |p| p.to_string()),
        e.comment
    )
}

/// A random empty cell within two of a stone (never a renju foul for black), if any.
pub fn random_near(rng: &mut StdRng, g: &Game) -> Option<Pos> {
    let b = g.board();
    let near: Vec<Pos> = b
        .empty_cells()
        .filter(|p| {
            (-2..=2).any(|dy: i32| {
                (-2..=2).any(|dx: i32| {
                    matches!(
                        b.cell(p.x as i32 + dx, p.y as i32 + dy),
                        rensa::board::Cell::Stone(_)
                    )
                })
            })
        })
        .filter(|&p| !g.is_forbidden(p) || g.side_to_move() == Color::White)
        .collect();
    if near.is_empty() {
        return None;
    }
    Some(near[rng.gen_range(0..near.len())])
}
