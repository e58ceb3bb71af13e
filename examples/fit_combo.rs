//! Fits per-combination corrections of the evaluation's cell scores to game results.
//!
//! `cargo run --release --example fit_combo -- <rule> [--lambda L] [--iters N] [--out FILE]
//! <games.jsonl>...`
//!
//! The engine scores an empty cell, per colour, from the classes of its four line patterns
//! (`pattern::combo`): the sum of the four pattern scores plus the bonus of the threat class.
//! That is a model with 18 weights. This tool asks whether a free score per *combination* of
//! four classes (the 715 multisets of four classes out of ten; the order of the directions does
//! not matter) predicts game results better. It fits, on top of the engine's evaluation with its
//! indicators, one correction per combination, shared by both colours with the side to move's
//! counts scaled by the initiative, exactly as the engine's sums are. An L2 penalty (`--lambda`)
//! keeps rare combinations near zero, and a corrected score is kept non-negative, as in the
//! engine. Samples are the positions `tune_eval` uses (after the opening, nothing decided);
//! games against external engines are skipped, duplicates counted once, one game in ten held
//! out. With `--out` the rounded corrections are written as `index correction` lines (index:
//! the sorted classes as a base-10 number, lowest digit first), which
//! `RENSA_COMBO=FILE pbrain-rensa` loads (on top of the built-in table, every rule but caro).
//!
//! First result (README "Measured"): on 7.1k freestyle games of Rensa versions (297k positions)
//! the held-out log-loss fell from 0.655 to 0.630, in exact five from 0.646 to 0.625 and in
//! renju from 0.650 to 0.611, yet in 200 ms/move A/B matches the corrections scored about -7 Elo
//! in freestyle (200 games), +31 ± 39 in exact five (300 games) and -63 ± 70 in renju (100
//! games). Predicting game results better from static counts did not make the search play
//! measurably better, so none of these is built in. (The built-in corrections of 15x15 renju,
//! freestyle and exact five, `nets/*.combo`, come from comparison training instead:
//! `fit_choices.py --combos`.)
//!
//! `--search D --cache FILE [--mix L] [--every N]`: fit to the values of searches instead, as
//! `tune_eval` does (see there).
#[allow(dead_code)]
mod fit_common;

use fit_common::{fit_scale, for_each_position, mixed_label, SearchLabels};
use rensa::board::pattern::{self, Pattern};
use rensa::eval::{evaluate_with, INDICATORS, INITIATIVE_16THS};
use rensa::Rule;
use std::collections::HashMap;

/// The multiset index of four classes (see [`pattern::combo_multiset`]).
fn multiset(c: [u8; 4]) -> u16 {
    pattern::combo_multiset(pattern::combo_index(c)) as u16
}

struct Sample {
    /// (combination id, side to move's count x initiative - opponent's count) / 4.
    x: Vec<(u32, f32)>,
    base: f32,
    label: f32,
    test: bool,
}

fn sigmoid(v: f64) -> f64 {
    1.0 / (1.0 + (-v).exp())
}

/// The corrected evaluation of `s` under the corrections `r`.
fn value(s: &Sample, r: &[f64]) -> f64 {
    s.base as f64
        + s.x
            .iter()
            .map(|&(k, v)| r[k as usize] * v as f64)
            .sum::<f64>()
}

/// Mean log-loss of the training (or held-out) samples.
fn loss(samples: &[Sample], r: &[f64], k: f64, test: bool) -> f64 {
    let (mut sum, mut cnt) = (0.0, 0usize);
    for s in samples.iter().filter(|s| s.test == test) {
        let p = sigmoid(value(s, r) / k).clamp(1e-9, 1.0 - 1e-9);
        let y = s.label as f64;
        sum -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
        cnt += 1;
    }
    sum / cnt.max(1) as f64
}

fn main() {
    let mut lambda = 1e-4f64;
    let mut iters = 400usize;
    let mut out: Option<String> = None;
    let (mut search, mut cache, mut mix, mut every) = (0, String::new(), 0.0, 1usize);
    let mut rest = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--lambda" => {
                lambda = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--lambda L")
            }
            "--iters" => iters = args.next().and_then(|v| v.parse().ok()).expect("--iters N"),
            "--out" => out = args.next(),
            "--search" => {
                search = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--search D")
            }
            "--cache" => cache = args.next().expect("--cache FILE"),
            "--mix" => mix = args.next().and_then(|v| v.parse().ok()).expect("--mix L"),
            "--every" => every = args.next().and_then(|v| v.parse().ok()).expect("--every N"),
            _ => rest.push(a),
        }
    }
    let rule = Rule::parse(rest.first().expect("rule")).expect("rule name");

    // Dense ids of the multisets and the engine's current score of each.
    let mut ids: HashMap<u16, u32> = HashMap::new();
    let mut keys: Vec<u16> = Vec::new();
    let mut cur: Vec<f64> = Vec::new();
    for a in 0..10u8 {
        for b in a..10 {
            for c in b..10 {
                for d in c..10 {
                    let m = multiset([a, b, c, d]);
                    ids.insert(m, keys.len() as u32);
                    keys.push(m);
                    // The 15x15 table (with its built-in corrections, if any).
                    let k = pattern::corrections(rule, 15, 15);
                    let table = pattern::combo_for(rule, rensa::Color::White, k);
                    let e = table.entry[pattern::combo_index([a, b, c, d])];
                    cur.push(pattern::ComboTable::score_of(e) as f64);
                }
            }
        }
    }
    let n = keys.len();
    let init = INITIATIVE_16THS as f64 / 16.0;
    let indicators = rensa::eval::indicators_for(rule, &INDICATORS);
    let mut samples = Vec::new();
    let mut counts = vec![0u64; n];
    let mut labels = (search > 0).then(|| SearchLabels::new(search, &cache));
    let mut seen = 0usize;
    let games = for_each_position(rule, 15..=15, &rest[1..], false, true, |b, label, test| {
        seen += 1;
        if !seen.is_multiple_of(every.max(1)) {
            return;
        }
        if let Some(l) = labels.as_mut() {
            l.value(b);
        }
        let me = b.side_to_move();
        let opp = me.opponent();
        let mut acc: HashMap<u32, f64> = HashMap::new();
        for i in b.area(rensa::pos::MAX_SIDE as i32) {
            if !b.is_empty(i) {
                continue;
            }
            for (c, scale) in [(me, init), (opp, -1.0)] {
                let classes = [0, 1, 2, 3].map(|d| b.pattern(i, c, d));
                if pattern::scores_as_foul(rule, c, classes) {
                    continue;
                }
                let cl = classes.map(|p| p as u8);
                let id = ids[&multiset(cl)];
                *acc.entry(id).or_default() += scale / 4.0;
                counts[id as usize] += 1;
            }
        }
        let mut x: Vec<(u32, f32)> = acc
            .into_iter()
            .filter(|(_, v)| *v != 0.0)
            .map(|(k, v)| (k, v as f32))
            .collect();
        x.sort_unstable_by_key(|e| e.0);
        let base = evaluate_with(b, INITIATIVE_16THS, indicators.as_ref());
        samples.push(Sample {
            x,
            base: base as f32,
            label,
            test,
        });
    });
    eprintln!("{games} games, {} positions", samples.len());
    let zero = vec![0.0; n];
    let k = fit_scale(|kk| loss(&samples, &zero, kk, false));
    println!(
        "current: K {k}, train {:.5}, test {:.5}",
        loss(&samples, &zero, k, false),
        loss(&samples, &zero, k, true)
    );
    if let Some(l) = &labels {
        l.save();
        for (s, &v) in samples.iter_mut().zip(&l.values) {
            s.label = mixed_label(s.label as f64, v, k, mix) as f32;
        }
        println!(
            "search labels (depth {search}, mix {mix}): train {:.5}, test {:.5}",
            loss(&samples, &zero, k, false),
            loss(&samples, &zero, k, true)
        );
    }
    let loss = |r: &[f64], k: f64, test: bool| loss(&samples, r, k, test);
    let train: Vec<&Sample> = samples.iter().filter(|s| !s.test).collect();
    let mut r = vec![0.0; n];
    let (mut m1, mut m2) = (vec![0.0; n], vec![0.0; n]);
    let lr = 1.0;
    for it in 1..=iters {
        let mut g = vec![0.0; n];
        for s in &train {
            let e = (sigmoid(value(s, &r) / k) - s.label as f64) / k;
            for &(j, v) in &s.x {
                g[j as usize] += e * v as f64;
            }
        }
        for j in 0..n {
            let gj = g[j] / train.len() as f64 + 2.0 * lambda * r[j] / (k * k);
            m1[j] = 0.9 * m1[j] + 0.1 * gj;
            m2[j] = 0.999 * m2[j] + 0.001 * gj * gj;
            let mh = m1[j] / (1.0 - 0.9f64.powi(it as i32));
            let vh = m2[j] / (1.0 - 0.999f64.powi(it as i32));
            r[j] -= lr * mh / (vh.sqrt() + 1e-12);
            // The corrected score stays non-negative, as the engine's table does.
            r[j] = r[j].max(-cur[j]);
        }
        if it % 50 == 0 {
            println!(
                "iter {it}: train {:.5} test {:.5}",
                loss(&r, k, false),
                loss(&r, k, true)
            );
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| r[b].abs().total_cmp(&r[a].abs()));
    for &j in order.iter().take(25) {
        let cl: Vec<String> = (0..4)
            .map(|d| {
                format!(
                    "{:?}",
                    Pattern::from_byte((keys[j] / 10u16.pow(d) % 10) as u8)
                )
            })
            .collect();
        println!(
            "{:>5} {:<40} current {:>5} correction {:>+6.0} cells {}",
            keys[j],
            cl.join(","),
            cur[j],
            r[j],
            counts[j]
        );
    }
    if let Some(path) = out {
        let text: String = (0..n)
            .filter(|&j| r[j].round() != 0.0)
            .map(|j| format!("{} {}\n", keys[j], r[j].round() as i64))
            .collect();
        std::fs::write(&path, text).expect("write --out");
        eprintln!("wrote {path}");
    }
}
