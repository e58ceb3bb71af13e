//! What the evaluation fitters (`tune_eval`, `fit_combo`) and the dumps (`dump_choices`,
//! `dump_policy`, ...) share: their training positions, search limits and the fit of the logistic
//! scale.

use rensa::board::fast::FastBoard;
use rensa::board::pattern::Threat;
use rensa::referee::records::read_records;
use rensa::search::alphabeta::Control;
use rensa::Rule;
use std::collections::HashSet;
use std::sync::atomic::AtomicBool;

/// Search limits that never stop a search (the dumps' searches are bounded by depth or only
/// generate moves): no time or node limit, stopped only by `stop`.
pub fn unlimited(stop: &AtomicBool) -> Control<'_> {
    Control {
        stop,
        start: std::time::Instant::now(),
        hard_ms: u64::MAX,
        max_nodes: u64::MAX,
    }
}

/// Calls `f(board, label, test)` for every position of the `rule` games in the record files
/// `paths` whose board's two sides are both in `sizes` (`15..=15`: 15x15 only) that is after
/// the opening (and not the empty board) and not decided (the side to move has no five or
/// straight-four point and need not block a five). `label` is the game's
/// result for the side to move (1, 0.5 or 0). Games between engines whose names contain
/// `pentazen` or `rapfi` are skipped unless `keep_external`; duplicate games count once; one
/// game in ten, chosen by its moves (so not by the order of the files), is held out (`test`).
/// The boards take their built-in per-combination corrections, as the engine's do, only with
/// `corrected` (a fit of the base weights wants them without). Returns the number of games used.
pub fn for_each_position(
    rule: Rule,
    sizes: std::ops::RangeInclusive<usize>,
    paths: &[String],
    keep_external: bool,
    corrected: bool,
    mut f: impl FnMut(&FastBoard, f32, bool),
) -> usize {
    for_each_choice(
        rule,
        sizes,
        paths,
        keep_external,
        corrected,
        |b, label, test, _| f(b, label, test),
    )
}

/// As [`for_each_position`], also handing `f` the move the game went on with (a cell of `b`;
/// it may be occupied in a damaged record, or a renju foul that lost the game).
pub fn for_each_choice(
    rule: Rule,
    sizes: std::ops::RangeInclusive<usize>,
    paths: &[String],
    keep_external: bool,
    corrected: bool,
    mut f: impl FnMut(&FastBoard, f32, bool, rensa::board::fast::Idx),
) -> usize {
    let mut seen = HashSet::new();
    let mut games = 0usize;
    for path in paths {
        let Ok(text) = std::fs::read_to_string(path) else {
            eprintln!("{path}: cannot read; skipped");
            continue;
        };
        for g in read_records(&text).0 {
            let external = |n: &str| n.contains("pentazen") || n.contains("rapfi");
            if g.rule != rule
                || !sizes.contains(&g.width)
                || !sizes.contains(&g.height)
                || (!keep_external && (external(&g.black) || external(&g.white)))
            {
                continue;
            }
            let moves = g.all_moves();
            if !seen.insert(moves.clone()) {
                continue;
            }
            games += 1;
            let h = moves.iter().fold(17u64, |h, m| {
                h.wrapping_mul(0x100000001b3) ^ (m.x as u64 * 32 + m.y as u64)
            });
            let test = h % 10 == 0;
            let k = corrected
                .then(|| rensa::board::pattern::corrections(rule, g.width, g.height))
                .flatten();
            let mut b = FastBoard::with_corrections(g.width, g.height, rule, k).expect("board");
            for (n, &m) in moves.iter().enumerate() {
                if n >= g.opening.len().max(1) {
                    let me = b.side_to_move();
                    let opp = me.opponent();
                    let decided = b.count(me, Threat::Five) > 0
                        || b.count(me, Threat::Flex4) > 0
                        || b.count(opp, Threat::Five) > 0;
                    if !decided {
                        let label = match g.winner {
                            None => 0.5,
                            Some(c) if c == me => 1.0,
                            Some(_) => 0.0,
                        };
                        f(&b, label, test, b.idx(m));
                    }
                }
                let i = b.idx(m);
                if !b.is_empty(i) {
                    break;
                }
                b.make(i);
            }
        }
    }
    games
}

/// The network's per-side inputs as the fitters' CSV columns: for the side to move, then the
/// opponent, the empty cells of each threat class 1..=9 and the score sum, each moved by `shift`
/// (`SizeShift::NONE` on the network's own board). Each column starts with a comma. (Only the
/// dump tools use it, hence the `allow` for the fitters that include this module.)
#[allow(dead_code)]
pub fn count_columns(b: &FastBoard, shift: rensa::eval::SizeShift) -> String {
    let me = b.side_to_move();
    let mut line = String::new();
    for c in [me, me.opponent()] {
        for t in 1..=9u8 {
            let mut n = b.count(c, Threat::from_u8(t)) as i32;
            if t == 1 {
                n = (n + shift.cells).max(0);
            }
            line += &format!(",{n}");
        }
        line += &format!(",{}", b.score_sum(c) + shift.score[c.index()]);
    }
    line
}

/// The scale `K` (the evaluation units per logistic unit) that minimises `loss(K)`: a coarse
/// scan in steps of 100, then finer ones of 10 and 1 around the best.
pub fn fit_scale(loss: impl Fn(f64) -> f64) -> f64 {
    let mut k = 100.0;
    let mut best = f64::MAX;
    for step in [100.0, 10.0, 1.0] {
        let centre = k;
        for j in -10..=10 {
            let kk: f64 = centre + j as f64 * step;
            if kk <= 0.0 {
                continue;
            }
            let l = loss(kk);
            if l < best {
                best = l;
                k = kk;
            }
        }
    }
    k
}

/// Values of searches of the training positions, to fit the evaluation to what a deeper search
/// says rather than to the games' outcomes (`--search DEPTH`). The values are kept in `cache`
/// (one per line, in the order the positions are visited) so that later fits reuse them.
pub struct SearchLabels {
    depth: i32,
    tt: rensa::search::tt::Tt,
    vcf: rensa::search::vcf::VcfCache,
    /// Values read from the cache file, if it had them.
    cached: Option<Vec<i32>>,
    /// The values, in visiting order.
    pub values: Vec<i32>,
    path: String,
}

impl SearchLabels {
    pub fn new(depth: i32, path: &str) -> SearchLabels {
        let cached = std::fs::read_to_string(path)
            .ok()
            .map(|t| t.lines().filter_map(|l| l.trim().parse().ok()).collect());
        if let Some(v) = &cached {
            let v: &Vec<i32> = v;
            eprintln!("{path}: {} cached search values", v.len());
        }
        SearchLabels {
            depth,
            tt: rensa::search::tt::Tt::new(16 << 20),
            vcf: rensa::search::vcf::VcfCache::new(16),
            cached,
            values: Vec::new(),
            path: path.to_string(),
        }
    }

    /// The value (for the side to move) of a search of `b` to the depth, or the cached one.
    pub fn value(&mut self, b: &FastBoard) -> i32 {
        let n = self.values.len();
        let v = match self.cached.as_ref().and_then(|c| c.get(n)) {
            Some(&v) => v,
            None => self.search(b),
        };
        self.values.push(v);
        if (n + 1).is_multiple_of(5000) {
            eprintln!("{} positions searched", n + 1);
        }
        v
    }

    fn search(&mut self, b: &FastBoard) -> i32 {
        use rensa::search::alphabeta::{Control, Searcher};
        let stop = std::sync::atomic::AtomicBool::new(false);
        self.tt.new_search();
        let ctl = Control {
            stop: &stop,
            start: std::time::Instant::now(),
            hard_ms: u64::MAX,
            max_nodes: u64::MAX,
        };
        let mut s = Searcher::new(b.clone(), &self.tt, &self.vcf, ctl);
        let mut prev = None;
        let mut value = rensa::eval::evaluate(b);
        for d in 1..=self.depth {
            match s.iterate(d, prev) {
                Some(it) if !it.pv.is_empty() => {
                    value = it.value;
                    prev = Some(it.value);
                }
                _ => break,
            }
        }
        value
    }

    /// Writes the values to the cache file (when they were not all read from it).
    pub fn save(&self) {
        if self.cached.as_ref().map(Vec::len) == Some(self.values.len()) {
            return;
        }
        let text: String = self.values.iter().map(|v| format!("{v}\n")).collect();
        if let Err(e) = std::fs::write(&self.path, text) {
            eprintln!("{}: {e}", self.path);
        }
    }
}

/// The training target of a position whose game ended `result` (for the side to move) and whose
/// search said `value`: `mix` of the result plus `1 - mix` of the search value's win
/// probability under the scale `k` (a proven win or loss counts as 1 or 0).
pub fn mixed_label(result: f64, value: i32, k: f64, mix: f64) -> f64 {
    let p = if value.abs() >= rensa::Value::MATE_BOUND.0 {
        if value > 0 {
            1.0
        } else {
            0.0
        }
    } else {
        1.0 / (1.0 + (-(value as f64) / k).exp())
    };
    mix * result + (1.0 - mix) * p
}

/// The static value the search computes on `b` with the default knobs (pattern evaluation,
/// indicator terms and the rule's built-in network).
pub fn search_static_value(b: &FastBoard) -> i32 {
    let t = rensa::search::alphabeta::Tuning::DEFAULT.for_rule(b.rule());
    let net = rensa::eval::net_with_shift(b, None, t.net_shift);
    rensa::eval::search_value(
        b,
        t.initiative_16ths,
        rensa::eval::indicators_for(b.rule(), &t.indicators).as_ref(),
        net,
        t.net_pct,
    )
}

/// The value (for the side to move, clamped to ±5000) of a search of `b`'s position by
/// `engine` capped at `nodes` nodes, its hash cleared first, so that positions do not depend on
/// each other.
pub fn node_capped_value(engine: &mut rensa::engine::Engine, b: &FastBoard, nodes: u64) -> i32 {
    engine.new_game(b.width(), b.height()).expect("board");
    engine.clear_hash();
    // The position's moves, oldest first.
    for k in (0..b.ply()).rev() {
        engine
            .play(b.pos(b.move_back(k).expect("a move")))
            .expect("legal move");
    }
    let limits = rensa::engine::Limits {
        max_nodes: Some(nodes),
        ..Default::default()
    };
    let stop = AtomicBool::new(false);
    let r = engine.think(&limits, &stop, &mut |_| {});
    r.value.0.clamp(-5000, 5000)
}

/// One position in the binary form `examples/fit_nn.py` reads (see `dump_nn.rs`): `label` the
/// game's result for the side to move, `searched` a search value (0 if none).
pub fn nn_record(b: &FastBoard, label: f32, searched: f32, test: bool) -> Vec<u8> {
    let mut rec = Vec::with_capacity(16 + 18 * b.width() * b.height());
    rec.extend_from_slice(&label.to_le_bytes());
    rec.extend_from_slice(&searched.to_le_bytes());
    rec.extend_from_slice(&search_static_value(b).to_le_bytes());
    rec.push(test as u8);
    rec.push((b.side_to_move() == rensa::Color::Black) as u8);
    let mut cells = Vec::new();
    for y in 0..b.height() {
        for x in 0..b.width() {
            let i = b.idx(rensa::Pos::new(x as u8, y as u8));
            if b.is_empty(i) {
                cells.push((x as u8, y as u8, i));
            }
        }
    }
    rec.extend_from_slice(&(cells.len() as u16).to_le_bytes());
    for (x, y, i) in cells {
        rec.push(x);
        rec.push(y);
        for d in 0..4 {
            rec.extend_from_slice(&b.line_key(i, d).to_le_bytes());
        }
    }
    rec
}
