//! Fits line-window weights on top of the evaluation (logistic regression on game results).
//!
//! `cargo run --release --example fit_window -- <rule> [--all] [--colours] [--l2 X] [--epochs N] [--lr X]
//! [--out FILE] <games.jsonl>...`
//!
//! The evaluation sees a line only through its pattern class (flex three, blocked four, ...). This
//! asks whether the exact stones around an empty cell carry more: every empty cell, per direction
//! and per colour, gets a weight for its *window*, the eight cells four steps either way (each
//! empty, own, opponent or wall; a window and its mirror image share one weight; a window without
//! stones weighs nothing). The weights add to the cell's score, so the model is the engine's
//! evaluation plus `(1.25 * sum of the mover's window weights - sum of the opponent's) / 4`, and
//! the fit finds the weights (in cell-score units) that best predict the games' results with the
//! logistic scale `K` fitted to the evaluation alone. One game in ten is held out; the program
//! prints the held-out loss of the evaluation alone and with the weights.
//!
//! `--colours`: separate weights for black's and white's cells (renju's black plays under other
//! rules); `--l2 X`: the penalty on the squared weights (default 1e-6; `--l2 1e9` keeps them at
//! zero and fits the colour bias alone, the baseline to compare with); `--epochs N` (default 30:
//! the held-out loss is lowest after 10-30 full-batch Adam steps of size `--lr` 2, then the fit
//! overfits); `--out FILE`: writes the weights of magnitude 0.5 or more, one `colour code
//! weight` line each. Nothing in the engine reads them: the held-out losses are the result (see
//! the README, eighteenth session).
// The search-label helpers are not used here.
#[allow(dead_code)]
mod fit_common;

use fit_common::{fit_scale, for_each_position};
use rensa::board::fast::FastBoard;
use rensa::board::pattern::{shift, swap_colors};
use rensa::eval::{evaluate_with, indicators_for, INDICATORS, INITIATIVE_16THS};
use rensa::{Color, Rule};

/// Window codes: eight cells, two bits each.
const CODES: usize = 1 << 16;

/// The window of the empty cell `i` along direction `d` seen by `c`: the middle 16 bits of its
/// line key (the cells at -4..-1 then +1..+4, two bits each: 0 empty, 1 own, 2 opponent, 3
/// wall), made canonical under mirroring (the smaller of the code and its mirror).
fn window(b: &FastBoard, i: usize, d: usize, c: Color) -> usize {
    let key = b.line_key(i, d);
    let key = if c == Color::Black {
        key
    } else {
        swap_colors(key)
    };
    let code = ((key >> shift(-4)) & 0xffff) as usize;
    let mirror = (0..8).fold(0, |m, j| m | ((code >> (2 * j)) & 3) << (2 * (7 - j)));
    code.min(mirror)
}

/// Whether a window code holds a stone (own or opponent) anywhere.
fn has_stone(code: usize) -> bool {
    (0..8).any(|j| matches!((code >> (2 * j)) & 3, 1 | 2))
}

struct Sample {
    /// The engine's evaluation for the side to move.
    base: f32,
    label: f32,
    test: bool,
    /// Where this sample's window entries start and end in the shared list.
    start: usize,
    end: usize,
    /// +1 black to move, -1 white (a fitted colour bias keeps the openings' bias out).
    colour: f32,
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut flag = |name: &str| -> bool {
        let found = args.iter().position(|a| a == name);
        if let Some(p) = found {
            args.remove(p);
        }
        found.is_some()
    };
    let all = flag("--all");
    let colours = flag("--colours");
    let mut option = |name: &str| -> Option<String> {
        let p = args.iter().position(|a| a == name)?;
        let v = args.get(p + 1).cloned();
        args.drain(p..(p + 2).min(args.len()));
        v
    };
    let l2: f64 = option("--l2").map_or(1e-6, |v| v.parse().expect("--l2"));
    let epochs: usize = option("--epochs").map_or(30, |v| v.parse().expect("--epochs"));
    let lr: f64 = option("--lr").map_or(2.0, |v| v.parse().expect("--lr"));
    let out = option("--out");
    let rule = Rule::parse(args.first().expect("rule")).expect("rule name");
    let ind = indicators_for(rule, &INDICATORS);
    // Entries: table index (colour * CODES + code) with the top bit set for the opponent's.
    let mut entries: Vec<u32> = Vec::new();
    let mut samples: Vec<Sample> = Vec::new();
    let games = for_each_position(rule, 15..=15, &args[1..], all, true, |b, label, test| {
        let me = b.side_to_move();
        let start = entries.len();
        for (side, c) in [me, me.opponent()].into_iter().enumerate() {
            let table = if colours { c.index() * CODES } else { 0 };
            for y in 0..b.height() {
                for x in 0..b.width() {
                    let i = b.idx(rensa::Pos::new(x as u8, y as u8));
                    if !b.is_empty(i) || !b.is_near(i) {
                        continue;
                    }
                    for d in 0..4 {
                        let code = window(b, i, d, c);
                        if has_stone(code) {
                            entries.push((table + code) as u32 | (side as u32) << 31);
                        }
                    }
                }
            }
        }
        samples.push(Sample {
            base: evaluate_with(b, INITIATIVE_16THS, ind.as_ref()) as f32,
            label,
            test,
            start,
            end: start,
            colour: if me == Color::Black { 1.0 } else { -1.0 },
        });
    });
    let n = samples.len();
    eprintln!(
        "{games} games, {n} positions, {} window entries",
        entries.len()
    );
    let total = entries.len();
    let starts: Vec<usize> = samples.iter().skip(1).map(|s| s.start).collect();
    for (smp, end) in samples.iter_mut().zip(starts.into_iter().chain([total])) {
        smp.end = end;
    }
    let nw = if colours { 2 * CODES } else { CODES };
    let mover = INITIATIVE_16THS as f64 / 16.0 / 4.0;
    let other = -1.0 / 4.0;
    // The model's value of a sample under weights `w` and colour bias `bias`.
    let value = |w: &[f64], bias: f64, smp: &Sample| -> f64 {
        let mut v = smp.base as f64 + bias * smp.colour as f64;
        for &e in &entries[smp.start..smp.end] {
            let coef = if e >> 31 == 0 { mover } else { other };
            v += coef * w[(e & 0x7fff_ffff) as usize];
        }
        v
    };
    let loss = |w: &[f64], bias: f64, k: f64, test: bool| -> f64 {
        let (mut sum, mut cnt) = (0.0, 0usize);
        for smp in samples.iter().filter(|smp| smp.test == test) {
            let p = sigmoid(value(w, bias, smp) / k).clamp(1e-9, 1.0 - 1e-9);
            let y = smp.label as f64;
            sum -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
            cnt += 1;
        }
        sum / cnt.max(1) as f64
    };
    let zero = vec![0.0; nw];
    let k = fit_scale(|kk| loss(&zero, 0.0, kk, false));
    println!(
        "evaluation alone: K {k}, train loss {:.5}, test loss {:.5}",
        loss(&zero, 0.0, k, false),
        loss(&zero, 0.0, k, true)
    );
    // Adam on the weights and the bias, K fixed, full batch.
    let mut w = vec![0.0; nw];
    let mut bias = 0.0;
    let (mut m1, mut m2) = (vec![0.0; nw + 1], vec![0.0; nw + 1]);
    let (b1, b2, eps) = (0.9, 0.999, 1e-8);
    let train = samples.iter().filter(|s| !s.test).count() as f64;
    for epoch in 1..=epochs {
        let mut g = vec![0.0; nw + 1];
        for smp in samples.iter().filter(|smp| !smp.test) {
            let p = sigmoid(value(&w, bias, smp) / k);
            let err = (p - smp.label as f64) / k / train;
            for &e in &entries[smp.start..smp.end] {
                let coef = if e >> 31 == 0 { mover } else { other };
                g[(e & 0x7fff_ffff) as usize] += err * coef;
            }
            g[nw] += err * smp.colour as f64;
        }
        for (j, gj) in g.iter_mut().enumerate().take(nw) {
            *gj += 2.0 * l2 * w[j];
        }
        let t = epoch as i32;
        for j in 0..=nw {
            m1[j] = b1 * m1[j] + (1.0 - b1) * g[j];
            m2[j] = b2 * m2[j] + (1.0 - b2) * g[j] * g[j];
            let step =
                lr * (m1[j] / (1.0 - b1.powi(t))) / ((m2[j] / (1.0 - b2.powi(t))).sqrt() + eps);
            if j < nw {
                w[j] -= step;
            } else {
                bias -= step;
            }
        }
        if epoch % 10 == 0 || epoch == epochs {
            println!(
                "epoch {epoch}: train loss {:.5}, test loss {:.5}, colour bias {bias:.1}",
                loss(&w, bias, k, false),
                loss(&w, bias, k, true)
            );
        }
    }
    let used = w.iter().filter(|v| v.abs() >= 0.5).count();
    println!("{used} weights of magnitude 0.5 or more");
    if let Some(path) = out {
        let mut text = String::new();
        for (j, v) in w.iter().enumerate() {
            if v.abs() >= 0.5 {
                text += &format!("{} {} {}\n", j / CODES, j % CODES, v.round() as i32);
            }
        }
        std::fs::write(&path, text).expect("write weights");
        eprintln!("{path}: written");
    }
}
