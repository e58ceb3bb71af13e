//! An experimental cell-level evaluation network (developers' experiments, `RENSA_CELLNET=FILE`,
//! fitted by `examples/fit_nn.py` to positions from `examples/dump_nn.rs`; off unless given).
//!
//! Every empty cell sums one learnt vector per direction, looked up by that direction's line key
//! cut to a radius and read the shorter way round; the sums, clipped to 0..1, are added up over
//! the empty cells and divided by 32; a hidden layer of rectified units per colour to move and
//! one output give the logit of the side to move's result, to which the static value over `k`
//! contributes with a fitted weight. [`CellNet::value`] returns the static value plus the
//! network's correction in the static value's units.
//!
//! This version recomputes everything at every call (about 190 cells times four lookups): it is
//! for judging the evaluation at a fixed node count, not for play under a clock.

use crate::board::fast::FastBoard;
use crate::Pos;
use std::sync::OnceLock;

pub struct CellNet {
    f: usize,
    h: usize,
    radius: u32,
    k: f32,
    with_static: bool,
    /// Per canonical key, the row of `e` plus one (0 = no vector).
    index: Vec<u32>,
    e: Vec<f32>,
    b0: Vec<f32>,
    /// Per colour to move: (f + 1) x h.
    w1: Vec<f32>,
    c1: Vec<f32>,
    w2: Vec<f32>,
    c2: [f32; 2],
    ws: [f32; 2],
}

/// The most features a cell may have.
const MAX_FEATURES: usize = 256;

static CELLNET: OnceLock<CellNet> = OnceLock::new();

/// Installs the network (once per process); returns whether it did.
pub fn set_cellnet(n: CellNet) -> bool {
    CELLNET.set(n).is_ok()
}

/// The installed network, if any.
pub fn cellnet() -> Option<&'static CellNet> {
    CELLNET.get()
}

/// The line key `raw` (ten cells, see [`FastBoard::line_key`]) cut to `radius` cells each way,
/// the smaller of it and its mirror image.
pub fn canonical(raw: u32, radius: u32) -> u32 {
    let n = 2 * radius;
    let (mut key, mut mirror) = (0u32, 0u32);
    for j in 0..n {
        let c = (raw >> (2 * (5 - radius + j))) & 3;
        key |= c << (2 * j);
        mirror |= c << (2 * (n - 1 - j));
    }
    key.min(mirror)
}

impl CellNet {
    pub fn parse(text: &str) -> Result<CellNet, String> {
        let mut lines = text.lines().filter(|l| !l.trim_start().starts_with('#'));
        let head: Vec<&str> = lines
            .next()
            .ok_or("empty file")?
            .split_whitespace()
            .collect();
        if head.len() != 6 {
            return Err("header: F H VOCAB WITH_STATIC K RADIUS".into());
        }
        let num = |s: &str| s.parse::<f64>().map_err(|e| format!("{s:?}: {e}"));
        let (f, h, vocab) = (
            num(head[0])? as usize,
            num(head[1])? as usize,
            num(head[2])? as usize,
        );
        let with_static = num(head[3])? != 0.0;
        let k = num(head[4])? as f32;
        let radius = num(head[5])? as u32;
        if !(1..=5).contains(&radius) || f == 0 || f > MAX_FEATURES || h == 0 || h > 256 {
            return Err("bad sizes".into());
        }
        let mut index = vec![0u32; 1 << (4 * radius)];
        let mut e = Vec::with_capacity(vocab * f);
        for r in 0..vocab {
            let l = lines.next().ok_or("too few key rows")?;
            let v: Vec<&str> = l.split_whitespace().collect();
            if v.len() != f + 1 {
                return Err(format!("key row {r}: {} numbers", v.len()));
            }
            let key = v[0].parse::<usize>().map_err(|e| e.to_string())?;
            *index.get_mut(key).ok_or("key out of range")? = r as u32 + 1;
            for x in &v[1..] {
                e.push(num(x)? as f32);
            }
        }
        let mut named = std::collections::HashMap::new();
        for l in lines {
            let mut it = l.split_whitespace();
            if let Some(name) = it.next() {
                let v: Result<Vec<f32>, String> = it.map(|x| num(x).map(|y| y as f32)).collect();
                named.insert(name.to_string(), v?);
            }
        }
        let mut take = |name: &str, len: usize| -> Result<Vec<f32>, String> {
            let v = named.remove(name).ok_or(format!("no {name}"))?;
            if v.len() != len {
                return Err(format!("{name}: {} numbers, want {len}", v.len()));
            }
            Ok(v)
        };
        let b0 = take("b0", f)?;
        let w1 = take("W1", 2 * (f + 1) * h)?;
        let c1 = take("c1", 2 * h)?;
        let w2 = take("w2", 2 * h)?;
        let c2 = take("c2", 2)?;
        let ws = take("ws", 2)?;
        Ok(CellNet {
            f,
            h,
            radius,
            k,
            with_static,
            index,
            e,
            b0,
            w1,
            c1,
            w2,
            c2: [c2[0], c2[1]],
            ws: [ws[0], ws[1]],
        })
    }

    /// The network's logit of the side to move's result, given the static value `stat`.
    pub fn logit(&self, b: &FastBoard, stat: i32) -> f32 {
        let f = self.f;
        // `parse` keeps f at most MAX_FEATURES.
        let mut pooled_buf = [0f32; MAX_FEATURES + 1];
        let mut h_buf = [0f32; MAX_FEATURES];
        let (pooled, h) = (&mut pooled_buf[..f + 1], &mut h_buf[..f]);
        for y in 0..b.height() {
            for x in 0..b.width() {
                let i = b.idx(Pos::new(x as u8, y as u8));
                if !b.is_empty(i) {
                    continue;
                }
                h.copy_from_slice(&self.b0);
                for d in 0..4 {
                    let r = self.index[canonical(b.line_key(i, d), self.radius) as usize];
                    if r > 0 {
                        let row = &self.e[(r as usize - 1) * f..r as usize * f];
                        for (a, w) in h.iter_mut().zip(row) {
                            *a += w;
                        }
                    }
                }
                for (p, a) in pooled.iter_mut().zip(h.iter()) {
                    *p += a.clamp(0.0, 1.0);
                }
            }
        }
        for p in pooled.iter_mut().take(f) {
            *p /= 32.0;
        }
        pooled[f] = 1.0;
        let c = (b.side_to_move() != crate::Color::Black) as usize;
        let w1 = &self.w1[c * (f + 1) * self.h..(c + 1) * (f + 1) * self.h];
        let mut out = self.c2[c];
        for j in 0..self.h {
            let mut z = self.c1[c * self.h + j];
            for (i, p) in pooled.iter().enumerate() {
                z += p * w1[i * self.h + j];
            }
            out += z.max(0.0) * self.w2[c * self.h + j];
        }
        if self.with_static {
            out += self.ws[c] * stat as f32 / self.k;
        }
        out
    }

    /// The static value `stat` corrected by the network, in the static value's units (with a
    /// network that has no static input: its logit times `k`).
    pub fn value(&self, b: &FastBoard, stat: i32) -> i32 {
        let out = self.logit(b, stat);
        let c = (b.side_to_move() != crate::Color::Black) as usize;
        let v = if self.with_static && self.ws[c] > 0.05 {
            stat as f32 + (out - self.ws[c] * stat as f32 / self.k) * self.k / self.ws[c]
        } else {
            out * self.k
        };
        (v.round() as i32).clamp(-crate::eval::EVAL_LIMIT, crate::eval::EVAL_LIMIT)
    }
}

#[cfg(test)]
mod tests {
    use super::{canonical, CellNet};
    use crate::board::fast::FastBoard;
    use crate::{Pos, Rule};

    /// One feature, one hidden unit: every empty cell adds 0.5, and the cells with a black stone
    /// right next to them along one line (the key of radius 1 reading "black, empty") add 0.25
    /// more per such line; the hidden unit passes the pooled sum on with weight 1 (black to
    /// move) or 2 (white to move).
    const TINY: &str =
        "# test\n1 1 1 0 400 1\n1 0.25\nb0 0.5\nW1 1 0 2 0\nc1 0 0\nw2 1 1\nc2 0 0\nws 0 0\n";

    #[test]
    fn a_tiny_network_gives_the_values_worked_by_hand() {
        let n = CellNet::parse(TINY).unwrap();
        let mut b = FastBoard::new(15, 15, Rule::Freestyle).unwrap();
        // Empty board, black to move: 225 cells at 0.5, over 32, times k = 400.
        assert_eq!(
            n.value(&b, 0),
            (225.0f32 * 0.5 / 32.0 * 400.0).round() as i32
        );
        // A black stone in the centre: 224 empty cells, 8 of them next to it, each along one
        // line; white to move doubles.
        b.make(b.idx(Pos::new(7, 7)));
        let pooled = (224.0 * 0.5 + 8.0 * 0.25) / 32.0;
        assert_eq!(n.value(&b, 0), (2.0f32 * pooled * 400.0).round() as i32);
    }

    #[test]
    fn malformed_networks_are_refused() {
        assert!(CellNet::parse("").is_err());
        assert!(CellNet::parse("1 1 1 0 400 9\n").is_err());
        assert!(CellNet::parse(&TINY.replace("W1 1 0 2 0", "W1 1 0 2")).is_err());
        assert!(CellNet::parse(&TINY.replace("1 0.25", "1 0.25 7")).is_err());
    }

    #[test]
    fn canonical_keys_read_the_shorter_way() {
        // Radius 1: the cells at -1 (bits 8, 9) and +1 (bits 10, 11).
        let raw = (1 << 8) | (2 << 10);
        assert_eq!(canonical(raw, 1), canonical((2 << 8) | (1 << 10), 1));
        assert_eq!(canonical(raw, 1), 2 | (1 << 2));
        // The outer cells are cut away at radius 4.
        assert_eq!(canonical(3, 4), 0);
        assert_eq!(canonical(3, 5), 3);
        assert_eq!(canonical(3 << 18, 5), 3);
    }
}
