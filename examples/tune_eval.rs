//! Fits the evaluation's weights to game results (logistic regression, "Texel tuning").
//!
//! `cargo run --release --example tune_eval -- <rule> [--all] [--split] [--extra] [--init N]
//! <games.jsonl>...` (`--init`: the initiative weight in 1/16ths the fit assumes).
//!
//! Every position of every game (after the opening) whose side to move has no immediate win and
//! need not block a five becomes one sample: its features are, per colour, how many empty cells
//! and directions carry each line pattern and how many empty cells carry each threat class; its
//! label is the game's result for the side to move. The evaluation is linear in its weights
//! (pattern scores, threat bonuses) given the initiative factor, so the fit is a small logistic
//! regression: first the scale `K` that maps the current evaluation to a win probability, then
//! the weights with `K` fixed (so the evaluation keeps its units). Games between two engines
//! whose names contain `pentazen` or `rapfi` are skipped unless `--all` is given; duplicate games
//! are counted once; one game in ten is held out to check that the fit generalises.
//!
//! Two richer models, to see whether they would predict results better (they are not what the
//! engine evaluates): `--split` fits separate weights for the side to move and the opponent
//! instead of one table and the initiative factor; `--extra` adds, per side and threat class
//! (flex three, double three, four, four-three), whether it has at least one and at least two
//! such cells (starting from the engine's `eval::INDICATORS`).
//!
//! `--search D --cache FILE [--mix L]`: fit to what a search to depth `D` says instead: each
//! position's label becomes `L` times its game result plus `1 - L` times the win probability of
//! the search's value (under the scale fitted to the results). The search values are computed
//! once and kept in `FILE`. `--every N` keeps one position in `N`.
#[allow(dead_code)]
mod fit_common;

use fit_common::{fit_scale, for_each_position, mixed_label, SearchLabels};
use rensa::board::fast::FastBoard;
use rensa::eval::{indicator_flags, INDICATORS};
use rensa::{Color, Rule};

/// Weights: pattern scores 1..=8, threat bonuses for threat classes 1..=8, then initiative/16.
const NP: usize = 8;
const NT: usize = 8;
const NW: usize = NP + NT;

struct Sample {
    /// Features of the side to move, then of the opponent.
    f: [[f32; NW]; 2],
    /// Experimental: per side (mover, opponent) and threat class Flex3, Three3, Block4, Four3,
    /// whether it has at least one / at least two such cells.
    ind: [f32; 16],
    label: f32,
    test: bool,
    /// +1 when black is to move, -1 for white: the openings favour one colour, and a fitted bias
    /// keeps that out of the weights.
    colour: f32,
}

/// The command line's options.
struct Opts {
    /// `--all`: keep games against external engines.
    all: bool,
    /// `--split`: separate weights for the side to move and the opponent.
    split: bool,
    /// `--extra`: fit the indicator terms too.
    extra: bool,
    /// `--init N`: the initiative weight in 1/16ths (default: the engine's).
    init: f64,
    /// `--search D`: fit to the values of searches to depth `D` (0 = to the results).
    search: i32,
    /// `--cache FILE`: where the search values are kept.
    cache: String,
    /// `--every N`: use every N-th position only.
    every: usize,
    /// `--mix L`: the share of the game result in a label when fitting to searches.
    mix: f64,
    /// The rule, then the record files.
    rest: Vec<String>,
}

impl Opts {
    fn parse() -> Opts {
        let mut o = Opts {
            all: false,
            split: false,
            extra: false,
            init: rensa::eval::INITIATIVE_16THS as f64,
            search: 0,
            cache: "search-values.txt".to_string(),
            mix: 0.0,
            every: 1,
            rest: Vec::new(),
        };
        let mut args = std::env::args().skip(1);
        while let Some(a) = args.next() {
            match a.as_str() {
                "--all" => o.all = true,
                "--split" => o.split = true,
                "--extra" => o.extra = true,
                "--init" => o.init = args.next().and_then(|v| v.parse().ok()).expect("--init N"),
                "--search" => {
                    o.search = args
                        .next()
                        .and_then(|v| v.parse().ok())
                        .expect("--search D")
                }
                "--cache" => o.cache = args.next().expect("--cache FILE"),
                "--every" => o.every = args.next().and_then(|v| v.parse().ok()).expect("--every N"),
                "--mix" => o.mix = args.next().and_then(|v| v.parse().ok()).expect("--mix L"),
                _ => o.rest.push(a),
            }
        }
        o
    }
}

/// Counts over every empty cell of the board (the cells the evaluation sums; far from the stones
/// they still carry flex ones).
fn features(b: &FastBoard, c: Color) -> [f32; NW] {
    let mut f = [0f32; NW];
    for i in b.area(rensa::pos::MAX_SIDE as i32) {
        if !b.is_empty(i) {
            continue;
        }
        let classes = [0, 1, 2, 3].map(|d| b.pattern(i, c, d));
        if rensa::board::pattern::scores_as_foul(b.rule(), c, classes) {
            continue;
        }
        for d in 0..4 {
            let p = b.pattern(i, c, d) as usize;
            if (1..=NP).contains(&p) {
                f[p - 1] += 1.0;
            }
        }
        let t = b.threat(i, c) as usize;
        if (1..=NT).contains(&t) {
            f[NP + t - 1] += 1.0;
        }
    }
    f
}

fn current_weights(rule: Rule) -> Vec<f64> {
    let w = rensa::board::pattern::weights(rule);
    let mut v: Vec<f64> = (1..=NP).map(|p| w.pattern[p] as f64).collect();
    v.extend((1..=NT).map(|t| w.bonus[t] as f64));
    v
}

/// The model's inputs for one sample: the evaluation is `w . x`. Tied: one weight per feature,
/// the side to move's counts scaled by the initiative; split: separate weights for the side to
/// move and the opponent. The last input is the colour.
fn inputs(s: &Sample, o: &Opts) -> Vec<f64> {
    let init = o.init / 16.0;
    let mut x = Vec::with_capacity(2 * NW + 17);
    if o.split {
        x.extend(s.f[0].iter().map(|&v| v as f64 / 4.0));
        x.extend(s.f[1].iter().map(|&v| -v as f64 / 4.0));
    } else {
        x.extend((0..NW).map(|j| (s.f[0][j] as f64 * init - s.f[1][j] as f64) / 4.0));
    }
    if o.extra {
        x.extend(s.ind.iter().map(|&v| v as f64 * 100.0));
    }
    x.push(s.colour as f64);
    x
}

fn dot(x: &[f64], w: &[f64]) -> f64 {
    x.iter().zip(w).map(|(a, b)| a * b).sum()
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn loss(data: &[(Vec<f64>, f64, bool)], w: &[f64], k: f64, test: bool) -> f64 {
    let mut sum = 0.0;
    let mut n = 0usize;
    for (x, y, _) in data.iter().filter(|d| d.2 == test) {
        let p = sigmoid(dot(x, w) / k).clamp(1e-9, 1.0 - 1e-9);
        sum -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
        n += 1;
    }
    sum / n.max(1) as f64
}

fn main() {
    let o = Opts::parse();
    let args = &o.rest;
    let rule = Rule::parse(args.first().expect("rule")).expect("rule name");
    let cur = current_weights(rule);
    let mut samples = Vec::new();
    let mut labels = (o.search > 0).then(|| SearchLabels::new(o.search, &o.cache));
    let mut seen = 0usize;
    let games = for_each_position(rule, 15..=15, &args[1..], o.all, false, |b, label, test| {
        seen += 1;
        if !seen.is_multiple_of(o.every.max(1)) {
            return;
        }
        if let Some(l) = labels.as_mut() {
            l.value(b);
        }
        let me = b.side_to_move();
        let opp = me.opponent();
        let f = [features(b, me), features(b, opp)];
        // The model's sums are the board's: the features cover every cell.
        for (fc, c) in f.iter().zip([me, opp]) {
            let sum: f64 = fc.iter().zip(&cur).map(|(&x, w)| x as f64 * w).sum();
            assert_eq!(sum as i32, b.score_sum(c), "features miss cells");
        }
        samples.push(Sample {
            f,
            ind: indicator_flags(b).map(|on| on as u8 as f32),
            label,
            test,
            colour: if me == Color::Black { 1.0 } else { -1.0 },
        });
    });
    eprintln!("{games} games, {} positions", samples.len());
    if let Some(l) = &labels {
        l.save();
    }
    let split = o.split;
    let mut data: Vec<(Vec<f64>, f64, bool)> = samples
        .iter()
        .map(|s| (inputs(s, &o), s.label as f64, s.test))
        .collect();
    let mut w0: Vec<f64> = cur[..NW].to_vec();
    if split {
        let init = o.init / 16.0;
        w0 = cur[..NW]
            .iter()
            .map(|v| v * init)
            .chain(cur[..NW].iter().copied())
            .collect();
    }
    // The engine's indicators (none in caro), in the inputs' units of 100.
    let caro = matches!(rule, Rule::Caro { .. });
    if o.extra {
        w0.extend(INDICATORS.map(|v| if caro { 0.0 } else { v as f64 / 100.0 }));
    }
    // Pattern scores and bonuses stay non-negative; indicators and the colour bias may not.
    let nw_used = if split { 2 * NW } else { NW };
    w0.push(0.0);
    let n = w0.len();
    // Scale K for the current weights: a coarse, then finer scan.
    let k = fit_scale(|kk| loss(&data, &w0, kk, false));
    println!(
        "current: K {k}, train loss {:.5}, test loss {:.5}",
        loss(&data, &w0, k, false),
        loss(&data, &w0, k, true)
    );
    if let Some(l) = &labels {
        for (d, &v) in data.iter_mut().zip(&l.values) {
            d.1 = mixed_label(d.1, v, k, o.mix);
        }
        println!(
            "search labels (depth {}, mix {}): train loss {:.5}, test loss {:.5}",
            o.search,
            o.mix,
            loss(&data, &w0, k, false),
            loss(&data, &w0, k, true)
        );
    }
    // Adam on the weights, K fixed.
    let mut w = w0.clone();
    let (mut m1, mut m2) = (vec![0.0; n], vec![0.0; n]);
    let lr = 2.0;
    let train: Vec<&(Vec<f64>, f64, bool)> = data.iter().filter(|d| !d.2).collect();
    for it in 1..=600 {
        let mut g = vec![0.0; n];
        for (x, y, _) in &train {
            let e = (sigmoid(dot(x, &w) / k) - y) / k;
            for j in 0..n {
                g[j] += e * x[j];
            }
        }
        for j in 0..n {
            let gj = g[j] / train.len() as f64;
            m1[j] = 0.9 * m1[j] + 0.1 * gj;
            m2[j] = 0.999 * m2[j] + 0.001 * gj * gj;
            let mh = m1[j] / (1.0 - 0.9f64.powi(it));
            let vh = m2[j] / (1.0 - 0.999f64.powi(it));
            w[j] -= lr * mh / (vh.sqrt() + 1e-12);
            if j < nw_used {
                w[j] = w[j].max(0.0);
            }
        }
        if it % 100 == 0 {
            println!(
                "iter {it}: train {:.5} test {:.5}",
                loss(&data, &w, k, false),
                loss(&data, &w, k, true)
            );
        }
    }
    let r: Vec<i64> = w.iter().map(|x| x.round() as i64).collect();
    for (h, chunk) in r[..nw_used].chunks(NW).enumerate() {
        let who = if !split {
            "weights"
        } else if h == 0 {
            "side to move"
        } else {
            "opponent"
        };
        println!("{who}: patterns 1..=8 {:?}", &chunk[..NP]);
        println!("{who}: bonuses 1..=8 {:?}", &chunk[NP..]);
    }
    if o.extra {
        println!(
            "indicators: {:?}",
            &w[nw_used..nw_used + 16]
                .iter()
                .map(|v| (v * 100.0).round())
                .collect::<Vec<_>>()
        );
    }
    println!("colour bias: {}", r[n - 1]);
}
