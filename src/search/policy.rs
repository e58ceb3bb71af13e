//! A move-ordering policy: prior scores for the cells a search may play, fitted to a stronger
//! player's moves (`examples/dump_policy.rs`, `examples/fit_policy.py`).
//!
//! A cell's policy score is the sum of a score for the combination of four line classes the side
//! to move would make there, one for the combination the opponent would, one for the pair of
//! threat classes, and one each for the cell's distance (the larger of the column and row
//! distances, 6 or more counting as 6) to the last move and to the side to move's own last move.
//! Where a policy is installed it replaces the cell-score part of the search's move ordering
//! (and the distance scaling and near-move bonuses); the dynamic parts (hash move, killers,
//! counter move, history) stay.
//!
//! Built in for 15x15 freestyle (`nets/freestyle.policy`): fitted to 1 434 games of Rapfi
//! 0.38 classical against itself on 15x15, it puts Rapfi's move among the first 5 candidates in
//! 68.7 % of the held-out positions (the cell-score order: 61.4 %), among the first 12 in 88.4 %
//! (79.4 %). Against the same build without it at 300 ms a move: +51 ± 45 and +30 ± 46 in two
//! runs of 200 games, about +40 (+7 to +74) together (fifty-ninth session, docs/measurements.md).
//! The same policy serves the other rules on 15x15, where self-play measured it to gain: caro
//! +33 ± 20 over 1 000 games at 100 ms a move and +5 ± 21 over 800 at 300 ms (seventy-first
//! session); exact five +37 ± 21 over 1 000 at 100 ms and +36 ± 23 over 800 at 300 ms; renju
//! +53 ± 22 over 1 000 at 100 ms and +50 ± 24 over 800 at 300 ms (seventy-second session); at
//! 1 s a move, against the build before it, exact five +37 ± 45 over 200 and renju +10 ± 33
//! over 400 (seventy-third session). It serves 20x20 freestyle too: two runs of the
//! fifty-ninth session had been level there (+35 ± 45 and -60 ± 62), the seventy-second's
//! scored +31 ± 27 over 600 games at 100 ms and +66 ± 27 over 600 at 300 ms, the
//! seventy-fourth's +45 ± 33 over 400 at 1 s. Renju's own policy (per colour, fitted to 657
//! games of Rapfi) did not gain: -12 ± 45.

use crate::board::pattern::{combo_multiset, shift, swap_colors, COMBOS, COMBO_LEN};
use crate::types::Rule;
use std::collections::HashMap;
use std::sync::OnceLock;

/// The largest distance the policy tells apart.
pub const FAR: usize = 6;

/// Policy tables (see the module comment), in move-ordering units, per colour of the side to
/// move.
pub struct Policy {
    sides: [Tables; 2],
}

/// Entries of a window table: every eight-cell line window (see [`window_of`]).
pub const WINDOWS: usize = 1 << 16;

/// The eight-cell line window of a line key (see [`crate::board::pattern`]): the neighbours
/// four cells either way, 2 bits each as black sees them (0 empty, 1 black, 2 white, 3 wall).
#[inline(always)]
pub fn window_of(key: u32) -> usize {
    (key >> shift(-4)) as usize & (WINDOWS - 1)
}

/// The tables of one colour to move.
pub struct Tables {
    own: Box<[i32; COMBO_LEN]>,
    opp: Box<[i32; COMBO_LEN]>,
    threats: [[i32; 16]; 16],
    last: [i32; FAR + 1],
    own_last: [i32; FAR + 1],
    /// Per line window as black sees it (see [`window_of`]), the score it adds in each of the
    /// four directions, where a policy has window lines.
    window: Option<Box<[i32; WINDOWS]>>,
}

impl Tables {
    /// The policy score of a cell (see [`Policy::score`]) with these tables.
    #[inline(always)]
    pub fn score(&self, combos: [usize; 2], threats: [u8; 2], dists: [usize; 2]) -> i32 {
        self.own[combos[0] & (COMBO_LEN - 1)]
            + self.opp[combos[1] & (COMBO_LEN - 1)]
            + self.threats[(threats[0] & 15) as usize][(threats[1] & 15) as usize]
            + self.last[dists[0].min(FAR)]
            + self.own_last[dists[1].min(FAR)]
    }

    /// The window table, if the policy has one: a cell adds the entries of the windows of its
    /// four line keys (see [`window_of`]) to [`Tables::score`].
    #[inline(always)]
    pub fn windows(&self) -> Option<&[i32; WINDOWS]> {
        self.window.as_deref()
    }

    fn new() -> Tables {
        Tables {
            own: Box::new([0; COMBO_LEN]),
            opp: Box::new([0; COMBO_LEN]),
            threats: [[0; 16]; 16],
            last: [0; FAR + 1],
            own_last: [0; FAR + 1],
            window: None,
        }
    }
}

/// The window `w` (see [`window_of`]) cut to `r` cells either way, as the side to move sees it
/// (`side` 0 black, 1 white: 1 own, 2 opponent), the smaller of it and its mirror image: the
/// index a policy file's `windowR` lines use.
fn canonical_window(w: usize, r: usize, side: usize) -> usize {
    let w = if side == 1 {
        window_of(swap_colors((w as u32) << shift(-4)))
    } else {
        w
    };
    let cut = (w >> (2 * (4 - r))) & ((1 << (4 * r)) - 1);
    let mut mirror = 0;
    for n in 0..2 * r {
        mirror |= ((cut >> (2 * n)) & 3) << (2 * (2 * r - 1 - n));
    }
    cut.min(mirror)
}

impl Policy {
    /// Reads a policy from text: lines `own M V`, `opp M V` (M a combination multiset, as
    /// `pattern::combo_multiset` numbers them), `threat T U V` (the side to move's threat class
    /// T and the opponent's U), `last D V` and `ownlast D V` (distance D, 0..=6); `#` starts a
    /// comment. A line may start with `black` or `white`: it then sets only the tables used
    /// when that colour is to move (renju's colours play under different rules). Lines
    /// `windowR W V` (R 1..=4 cells either way; W a window of those cells from the side to
    /// move's view, 2 bits per cell from the far end before the cell: 0 empty, 1 own, 2
    /// opponent, 3 wall; the smaller of it and its mirror image) add V in each direction whose
    /// line shows that window; one R per policy. Missing entries are 0.
    pub fn parse(text: &str) -> Result<Policy, String> {
        let mut own_m = vec![[0i32; 2]; COMBOS];
        let mut opp_m = vec![[0i32; 2]; COMBOS];
        let mut windows: Vec<[HashMap<usize, i32>; 2]> = vec![Default::default(); 5];
        let mut p = Policy {
            sides: [Tables::new(), Tables::new()],
        };
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let mut f: Vec<&str> = line.split_whitespace().collect();
            let sides: &[usize] = match f[0] {
                "black" => &[0],
                "white" => &[1],
                _ => &[0, 1],
            };
            if sides.len() == 1 {
                f.remove(0);
            }
            let bad = || format!("line {}: {line:?} not understood", n + 1);
            let num = |s: &str, max: usize| s.parse::<usize>().ok().filter(|&v| v <= max);
            let value = f
                .last()
                .and_then(|v| v.parse::<i32>().ok())
                .ok_or_else(bad)?;
            for &c in sides {
                let t = &mut p.sides[c];
                match (f.first().copied().unwrap_or(""), f.len()) {
                    ("own", 3) => own_m[num(f[1], COMBOS - 1).ok_or_else(bad)?][c] = value,
                    ("opp", 3) => opp_m[num(f[1], COMBOS - 1).ok_or_else(bad)?][c] = value,
                    ("threat", 4) => {
                        let (a, b) = (num(f[1], 9).ok_or_else(bad)?, num(f[2], 9).ok_or_else(bad)?);
                        t.threats[a][b] = value;
                    }
                    ("last", 3) => t.last[num(f[1], FAR).ok_or_else(bad)?] = value,
                    ("ownlast", 3) => t.own_last[num(f[1], FAR).ok_or_else(bad)?] = value,
                    (w, 3) if w.len() == 7 && w.starts_with("window") => {
                        let r = num(&w[6..], 4).filter(|&r| r >= 1).ok_or_else(bad)?;
                        let key = num(f[1], (1 << (4 * r)) - 1).ok_or_else(bad)?;
                        windows[r][c].insert(key, value);
                    }
                    _ => return Err(bad()),
                }
            }
        }
        for i in 0..COMBOS {
            let m = combo_multiset(i);
            for c in 0..2 {
                p.sides[c].own[i] = own_m[m][c];
                p.sides[c].opp[i] = opp_m[m][c];
            }
        }
        let used: Vec<usize> = (1..=4)
            .filter(|&r| windows[r].iter().any(|m| !m.is_empty()))
            .collect();
        if used.len() > 1 {
            return Err(format!(
                "window lines of {} sizes; one is allowed",
                used.len()
            ));
        }
        if let Some(&r) = used.first() {
            for (c, values) in windows[r].iter().enumerate() {
                let mut table: Box<[i32; WINDOWS]> = vec![0; WINDOWS]
                    .into_boxed_slice()
                    .try_into()
                    .unwrap_or_else(|_| unreachable!("WINDOWS entries"));
                for (w, v) in table.iter_mut().enumerate() {
                    *v = values.get(&canonical_window(w, r, c)).copied().unwrap_or(0);
                }
                p.sides[c].window = Some(table);
            }
        }
        Ok(p)
    }

    /// The policy score of a cell for `side` (0 black, 1 white) to move: `combos` are the
    /// combo-table indices of the side to move's and the opponent's classes there, `threats`
    /// their threat classes, `dists` the distances to the last move and to the side to move's
    /// own last move (capped at [`FAR`]).
    #[inline]
    pub fn score(
        &self,
        side: usize,
        combos: [usize; 2],
        threats: [u8; 2],
        dists: [usize; 2],
    ) -> i32 {
        self.tables(side).score(combos, threats, dists)
    }

    /// The tables used when `side` (0 black, 1 white) is to move: a move generator scoring many
    /// cells looks them up once.
    #[inline]
    pub fn tables(&self, side: usize) -> &Tables {
        &self.sides[side & 1]
    }
}

static POLICY: OnceLock<Policy> = OnceLock::new();

/// Installs a policy for every search of the process (developers' experiments,
/// `RENSA_POLICY=FILE`; before the first search); returns whether it did.
pub fn set_policy(p: Policy) -> bool {
    POLICY.set(p).is_ok()
}

/// The policy a search on a board of `rule` and this size uses: the one [`set_policy`]
/// installed, else the built-in one for that rule and board, if any (parsed once per process).
/// The freestyle policy, fitted on 15x15 freestyle, serves every rule on 15x15 and 20x20
/// freestyle, where it was measured to gain (the module documentation gives the figures).
/// Other boards (and the other rules on 20x20, which no one plays) keep the cell-score order.
pub fn policy_for(rule: Rule, width: usize, height: usize) -> Option<&'static Policy> {
    static FREESTYLE: OnceLock<Policy> = OnceLock::new();
    if let Some(p) = POLICY.get() {
        return Some(p);
    }
    match (rule, width, height) {
        (_, 15, 15) | (Rule::Freestyle, 20, 20) => Some(FREESTYLE.get_or_init(|| {
            let text = include_str!("../../nets/freestyle.policy");
            Policy::parse(text).unwrap_or_else(|e| panic!("built-in policy: {e}"))
        })),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::pattern::{combo_index, Threat};

    #[test]
    fn parse_reads_each_kind_of_line_per_colour() {
        let text = "# comment\nown 6000 100\nopp 6000 40\nblack threat 4 0 7\nwhite last 1 9\n\
                    ownlast 6 -3  # trailing comment\n";
        let p = Policy::parse(text).unwrap();
        // Multiset 6000 is one flex three (class 6) and three dead lines, in any direction.
        let cell = combo_index([0, 0, 6, 0]);
        let none = combo_index([0, 0, 0, 0]);
        assert_eq!(p.score(0, [cell, none], [0, 0], [3, 3]), 100);
        assert_eq!(p.score(1, [none, cell], [0, 0], [3, 3]), 40);
        assert_eq!(p.score(0, [none, none], [4, 0], [3, 3]), 7);
        assert_eq!(p.score(1, [none, none], [4, 0], [3, 3]), 0);
        assert_eq!(p.score(1, [none, none], [0, 0], [1, 3]), 9);
        assert_eq!(p.score(0, [none, none], [0, 0], [1, 3]), 0);
        // Distances beyond FAR count as FAR; `ownlast` without a colour sets both.
        assert_eq!(p.score(0, [none, none], [0, 0], [3, 40]), -3);
        assert_eq!(p.score(1, [none, none], [0, 0], [3, 6]), -3);
    }

    #[test]
    fn window_lines_score_each_direction_from_the_side_to_moves_view() {
        // window1: one cell either way, 2 bits each, the cell before the move in the low bits.
        // 0b0001 = own stone before, empty after; its mirror (0b0100) is the same entry.
        let p = Policy::parse("window1 1 50\nwindow1 6 -7\n").unwrap();
        let key = |before: u32, after: u32| (before << shift(-1)) | (after << shift(1));
        let score = |side: usize, keys: [u32; 4]| {
            let w = p.tables(side).windows().expect("window table");
            keys.iter().map(|&k| w[window_of(k)]).sum::<i32>()
        };
        let empty = key(0, 0);
        // Black to move: a black stone (1) just before or just after, in two directions.
        assert_eq!(score(0, [key(1, 0), key(0, 1), empty, empty]), 100);
        // White to move sees the same black stones as the opponent's (window 0b0010, unset).
        assert_eq!(score(1, [key(1, 0), key(0, 1), empty, empty]), 0);
        assert_eq!(score(1, [key(2, 0), empty, empty, empty]), 50);
        // 6 = 0b0110: an opponent's stone before and an own stone after, and its mirror image.
        assert_eq!(score(0, [key(2, 1), key(1, 2), empty, empty]), -14);
        // Cells further away do not count with one cell either way.
        assert_eq!(score(0, [1 << shift(-2), 1 << shift(3), empty, empty]), 0);
        // No window lines, no table.
        assert!(Policy::parse("own 6000 1")
            .unwrap()
            .tables(0)
            .windows()
            .is_none());
    }

    #[test]
    fn parse_rejects_bad_lines() {
        for bad in [
            "own 6",
            "own x 3",
            "own 10000 3",
            "threat 10 0 1",
            "last 7 1",
            "red own 6 1",
            "own 6 1.5",
            "black",
            "window5 1 1",
            "window0 1 1",
            "window1 16 1",
            "window1 1 1\nwindow2 1 1",
        ] {
            assert!(Policy::parse(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn built_in_policies_parse_and_order_a_four_three_first() {
        let caro = [false, true].map(|overline_wins| Rule::Caro { overline_wins });
        for (rule, side) in [
            (Rule::Freestyle, 0),
            (Rule::Freestyle, 1),
            (caro[0], 0),
            (caro[1], 1),
            (Rule::Exact, 0),
            (Rule::Renju, 0),
            (Rule::Renju, 1),
        ] {
            let p = policy_for(rule, 15, 15).expect("built in on 15x15");
            let none = combo_index([0; 4]);
            let four_three = combo_index([7, 6, 0, 0]);
            let two = combo_index([4, 0, 0, 0]);
            let (t43, t2) = (Threat::Four3 as u8, Threat::Low as u8);
            assert!(
                p.score(side, [four_three, none], [t43, 0], [1, 1])
                    > p.score(side, [two, none], [t2, 0], [1, 1]),
                "{rule:?}"
            );
        }
        let freestyle_15 = policy_for(Rule::Freestyle, 15, 15).unwrap();
        assert!(std::ptr::eq(
            freestyle_15,
            policy_for(Rule::Freestyle, 20, 20).unwrap()
        ));
        for (rule, width, height) in [
            (Rule::Renju, 20, 20),
            (Rule::Exact, 20, 20),
            (caro[0], 20, 20),
            (Rule::Freestyle, 15, 20),
        ] {
            assert!(policy_for(rule, width, height).is_none() || POLICY.get().is_some());
        }
    }
}
