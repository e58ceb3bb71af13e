//! Static evaluation from the fast board's incremental pattern scores.
//!
//! Every empty cell carries, per colour, a score for the lines a stone there would make (see
//! [`crate::board::pattern::PATTERN_SCORE`] and the threat bonuses); the board keeps their sums up
//! to date. The evaluation is the side to move's sum against the opponent's, with a bonus for
//! having the move, plus indicator terms for the threat classes each side has. It never
//! searches; rule awareness lives in the pattern tables, except that caro uses no indicators
//! ([`indicators_for`]).

use crate::board::fast::FastBoard;
use crate::board::pattern::Threat;
use crate::types::{Color, Rule};

/// Weight of the side to move's own potential relative to the opponent's, in 1/16ths: having the
/// move is worth about a quarter more.
pub const INITIATIVE_16THS: i64 = 20;
/// Largest absolute static value, kept well inside the non-mate range.
pub const EVAL_LIMIT: i32 = 20_000;

/// Threat classes whose presence the optional indicator terms look at (see
/// [`evaluate_with`]).
pub const INDICATOR_CLASSES: [Threat; 4] =
    [Threat::Flex3, Threat::Three3, Threat::Block4, Threat::Four3];

/// The search's indicator terms (see [`evaluate_with`]; not used in caro), fitted together
/// with the pattern weights (`examples/tune_eval.rs --extra`). By far the largest: the side to
/// move can make a four-three.
pub const INDICATORS: [i32; 16] = [
    87, 53, 81, -154, -185, 176, 515, 40, // side to move
    -8, -69, 26, 191, 187, -206, -2, 153, // opponent
];

/// Value of the position for the side to move, in centi-stones (without indicator terms).
#[inline]
pub fn evaluate(b: &FastBoard) -> i32 {
    evaluate_with(b, INITIATIVE_16THS, None)
}

/// The indicator terms a search under `rule` uses, from the knobs' `values`: none in caro
/// (whose evaluation keeps its hand-set form) or when all are zero.
pub fn indicators_for(rule: Rule, values: &[i32; 16]) -> Option<[i32; 16]> {
    let caro = matches!(rule, Rule::Caro { .. });
    (!caro && values.iter().any(|&v| v != 0)).then_some(*values)
}

/// As [`evaluate`] with another initiative weight (in 1/16ths) and, optionally, indicator
/// terms (the search uses [`INDICATORS`]): for the side to move (entries 0..8) and the opponent
/// (8..16), per class of [`INDICATOR_CLASSES`], a value added when the side has at least one
/// cell of that class and another when it has at least two.
#[inline]
pub fn evaluate_with(b: &FastBoard, initiative_16ths: i64, indicators: Option<&[i32; 16]>) -> i32 {
    let me = b.side_to_move();
    let opp = me.opponent();
    let mine = b.score_sum(me) as i64 * initiative_16ths / 16;
    let theirs = b.score_sum(opp) as i64;
    let mut v = (mine - theirs) / 4;
    if let Some(ind) = indicators {
        for (&on, &w) in indicator_flags(b).iter().zip(ind) {
            if on {
                v += w as i64;
            }
        }
    }
    v.clamp(-EVAL_LIMIT as i64, EVAL_LIMIT as i64) as i32
}

/// Which indicator terms apply to `b`: for the side to move (entries 0..8) and the opponent
/// (8..16), per class of [`INDICATOR_CLASSES`], whether the side has at least one cell of that
/// class and whether it has at least two (the layout of [`INDICATORS`]).
#[inline]
pub fn indicator_flags(b: &FastBoard) -> [bool; 16] {
    let me = b.side_to_move();
    let mut f = [false; 16];
    for (side, c) in [me, me.opponent()].into_iter().enumerate() {
        for (k, &t) in INDICATOR_CLASSES.iter().enumerate() {
            let n = b.count(c, t);
            f[side * 8 + k * 2] = n >= 1;
            f[side * 8 + k * 2 + 1] = n >= 2;
        }
    }
    f
}

/// Hidden units of the evaluation network ([`Net`]).
pub const NET_HIDDEN: usize = 16;
/// Inputs of [`Net`]: the static value over the scale, per side (mover, opponent) the
/// logarithm of one plus the empty cells of each threat class 1..=9, then the two score sums in
/// thousands.
pub const NET_INPUTS: usize = 21;

/// The evaluation network: a small network over the threat-class counts and score sums that the
/// board keeps anyway, fitted to game results outside the engine (`examples/fit_net.py`). Its
/// output is a logit of the side to move's result; times the scale `k` it is in the static
/// value's units, and the search blends the two ([`blend`], [`net_for`]).
pub struct Net {
    k: f32,
    w1: [[f32; NET_HIDDEN]; NET_INPUTS],
    b1: [f32; NET_HIDDEN],
    w2: [f32; NET_HIDDEN],
    b2: f32,
    a: f32,
    /// The linear part's weights, padded with zeros to whole groups of four (see [`LANES`]).
    lin: [f32; LANES],
}

/// [`NET_INPUTS`] rounded up to a multiple of four: the inputs and the linear weights are kept
/// padded with zeros to this length, so that their products are whole vector operations.
const LANES: usize = NET_INPUTS.div_ceil(4) * 4;

/// The threat classes whose counts are inputs 1..=9 (mover) and 10..=18 (opponent).
const NET_CLASSES: [Threat; 9] = [
    Threat::Low,
    Threat::Two2,
    Threat::Three2,
    Threat::Flex3,
    Threat::Three3,
    Threat::Block4,
    Threat::Four3,
    Threat::Flex4,
    Threat::Five,
];

static NET: std::sync::OnceLock<Net> = std::sync::OnceLock::new();

/// Installs a network for every rule instead of the built-in ones (developers' experiments,
/// `RENSA_NET=FILE`; once per process, before the first search); returns whether it did.
pub fn set_net(n: Net) -> bool {
    NET.set(n).is_ok()
}

/// The built-in networks, each fitted on games of one rule and board size (`nets/*.net`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuiltInNet {
    /// 15x15 freestyle.
    Freestyle,
    /// 15x15 exact five.
    Exact,
    /// 15x15 renju.
    Renju,
    /// 20x20 freestyle.
    Freestyle20,
    /// 15x15 exact-five caro.
    Caro,
    /// 20x20 renju.
    Renju20,
    /// 15x15 and 20x20 renju games together, for the sizes between them.
    RenjuMixed,
    /// Exact-five games of every board from 10x10 to 28x28, their inputs shifted to 20x20
    /// ([`SizeShift`]; `dump_eval_features --size 10-28 --home 20`).
    Exact20,
    /// Renju games of every board from 14x14 to 28x28, their inputs shifted to 15x15 (for
    /// 13x13 and 14x14).
    RenjuSizes,
    /// 15x15 freestyle only, refitted together with the per-combination corrections
    /// (`nets/freestyle.combo`, see [`crate::board::pattern::corrections`]) to PentaZen's moves.
    Freestyle15,
    /// 15x15 exact five only, refitted together with the per-combination corrections
    /// (`nets/standard.combo`) to PentaZen's moves.
    Exact15,
    /// 20x20 freestyle only, refitted from [`BuiltInNet::Freestyle20`] together with the
    /// per-combination corrections of that board (`nets/freestyle20.combo`) to the moves of
    /// PentaZen's 20x20 build.
    Freestyle20Corrected,
}

/// Which built-in network a `width` x `height` board under `rule` uses: only where that network
/// gained against the pattern evaluation alone in self-play (README, "Measured", twenty-fifth
/// to twenty-eighth sessions). Off its own board a network's inputs are moved to that board
/// ([`SizeShift`]); without that it lost up to 315 Elo a few sizes away, with it the 20x20
/// networks gain on 28x28 and 40x40 as on 20x20. A rectangle whose sides would both get a
/// network as squares gets the one of its longer side (freestyle 15x18: +44; caro 20x15:
/// +173; freestyle 15x20: +85 with the 20x20 network, +61 with the 15x15 one), else none.
///
/// * Freestyle 15x15: its own network, fitted with the per-combination corrections of that
///   board (forty-third session: +69 ± 47 in self-play at 300 ms, 36-6-18 against PentaZen at
///   1 s where the one before scored 27-5-28).
/// * Exact five 15x15: its own network, fitted with that board's per-combination corrections
///   (forty-fourth session: +121 ± 43 in self-play at 300 ms, 74-9-37 against PentaZen at 1 s
///   over 120 games, +111 ± 54).
/// * Freestyle 20x20: its own network, fitted with that board's per-combination corrections
///   (forty-fifth session: +89 ± 49 in self-play at 300 ms).
/// * Freestyle: the 15x15 network on the other boards from 10x10 to 18x18 (+19 on 10x10,
///   where most games are drawn, +45 on 12x12, +81 on 14x14, +62 on 17x17, +68 on 18x18, and
///   +51 more with the shift there), the 20x20 one on the others from 19x19 up (+80 on
///   19x19, +63 on 22x22, +104 on 28x28, +85 on 40x40).
/// * Exact five: the 15x15 network on the other boards from 10x10 to 18x18 (+29 ± 15 on
///   10x10 with the shift, +4 ± 14 without, most games drawn; +49 on 12x12, +79 on 14x14, +67
///   on 17x17, +40 on 18x18), the exact-five network fitted on several boards from 19x19 up
///   (against the 20x20 freestyle network used there before: +40 on 20x20, +14 on 22x22, +61
///   on 28x28, +38 ± 21 over the 900 games; the freestyle one had gained +42 on 19x19, +113
///   on 20x20, +90 on 21x21, +70 on 22x22 and +115 on 28x28 against none).
/// * Renju: the 15x15 network on 15x15, the 20x20 one from 20x20 up (+65 on 20x20; on 22x22
///   +95 with the shift, -271 without; +110 on 28x28), and the one fitted on both boards'
///   games from 16x16 to 19x19 (+48 on 16x16, +31 on 17x17, +35 on 18x18, +61 on 19x19; on
///   18x18 the shifted 20x20 network scored -29 ± 37 against it). On 13x13 and 14x14 the
///   network fitted on the renju games of every board from 14x14 to 28x28 (against none: +45
///   ± 32 on 13x13; +28 ± 34 and +37 ± 36 on 14x14, where the shifted 15x15 one scored +13 ±
///   30); below that none (the same network on 12x12: -14 ± 28).
/// * Caro, both variants: the caro network from 12x12 up (+45 ± 22 on 12x12 with the shift,
///   +10 ± 21 without, most games drawn; +47 on 14x14, +157 on 20x20 and +72 more with the
///   shift there, +123 on 28x28).
pub fn built_in_net(rule: Rule, width: usize, height: usize) -> Option<BuiltInNet> {
    let side = |n: usize| match (rule, n) {
        (Rule::Freestyle, 10..=18) => Some(BuiltInNet::Freestyle),
        (Rule::Freestyle, 19..) => Some(BuiltInNet::Freestyle20),
        (Rule::Exact, 10..=18) => Some(BuiltInNet::Exact),
        (Rule::Exact, 19..) => Some(BuiltInNet::Exact20),
        (Rule::Renju, 13..=14) => Some(BuiltInNet::RenjuSizes),
        (Rule::Renju, 15) => Some(BuiltInNet::Renju),
        (Rule::Renju, 16..=19) => Some(BuiltInNet::RenjuMixed),
        (Rule::Renju, 20..) => Some(BuiltInNet::Renju20),
        (Rule::Caro { .. }, 12..) => Some(BuiltInNet::Caro),
        _ => None,
    };
    match (rule, width, height) {
        (Rule::Freestyle, 15, 15) => return Some(BuiltInNet::Freestyle15),
        (Rule::Exact, 15, 15) => return Some(BuiltInNet::Exact15),
        (Rule::Freestyle, 20, 20) => return Some(BuiltInNet::Freestyle20Corrected),
        _ => {}
    }
    side(width.min(height))?;
    side(width.max(height))
}

impl BuiltInNet {
    /// How many there are (the length of [`net_for`]'s table): the last one's index plus one.
    const COUNT: usize = BuiltInNet::Freestyle20Corrected as usize + 1;

    /// The side of the square board the network was fitted on; `None` for the one fitted on
    /// two sizes.
    pub fn home(self) -> Option<usize> {
        match self {
            BuiltInNet::Freestyle
            | BuiltInNet::Exact
            | BuiltInNet::Renju
            | BuiltInNet::Caro
            | BuiltInNet::RenjuSizes
            | BuiltInNet::Freestyle15
            | BuiltInNet::Exact15 => Some(15),
            BuiltInNet::Freestyle20
            | BuiltInNet::Renju20
            | BuiltInNet::Exact20
            | BuiltInNet::Freestyle20Corrected => Some(20),
            BuiltInNet::RenjuMixed => None,
        }
    }

    /// The network's text form, compiled into the binary.
    fn text(self) -> &'static str {
        match self {
            BuiltInNet::Freestyle => include_str!("../nets/freestyle.net"),
            BuiltInNet::Exact => include_str!("../nets/standard.net"),
            BuiltInNet::Renju => include_str!("../nets/renju.net"),
            BuiltInNet::Freestyle20 => include_str!("../nets/freestyle20.net"),
            BuiltInNet::Caro => include_str!("../nets/caro.net"),
            BuiltInNet::Renju20 => include_str!("../nets/renju20.net"),
            BuiltInNet::RenjuMixed => include_str!("../nets/renju-mixed.net"),
            BuiltInNet::Exact20 => include_str!("../nets/standard20.net"),
            BuiltInNet::RenjuSizes => include_str!("../nets/renju-sizes.net"),
            BuiltInNet::Freestyle15 => include_str!("../nets/freestyle15.net"),
            BuiltInNet::Exact15 => include_str!("../nets/standard15.net"),
            BuiltInNet::Freestyle20Corrected => include_str!("../nets/freestyle20c.net"),
        }
    }
}

/// The network the search on `b` uses: the one [`set_net`] installed, else the built-in one
/// that [`built_in_net`] gives its rule and board, if any (parsed once per process); with the
/// side of the square board it was fitted on, when it was fitted on one size only and is
/// built in (a network given by `RENSA_NET` has none).
pub fn net_for(b: &FastBoard) -> Option<(&'static Net, Option<usize>)> {
    static BUILT_IN: [std::sync::OnceLock<Net>; BuiltInNet::COUNT] =
        [const { std::sync::OnceLock::new() }; BuiltInNet::COUNT];
    if let Some(n) = NET.get() {
        return Some((n, None));
    }
    let which = built_in_net(b.rule(), b.width(), b.height())?;
    Some((
        BUILT_IN[which as usize]
            .get_or_init(|| Net::parse(which.text()).expect("built-in network")),
        which.home(),
    ))
}

/// Percent of the network's value in the static value the search uses; the rest is the
/// pattern evaluation's ([`blend`]). At 100 ms/move in freestyle the network alone gained +17
/// Elo, half and half +85 (README, "Measured").
pub const NET_SHARE_PCT: i32 = 50;

/// The network a search of `b` blends in ([`net_for`]) and the size shift of its inputs:
/// `home` overrides the side of the board the network was fitted on (knob `nethome`), and
/// without `shift` the inputs are used as they are (knob `netshift`).
pub fn net_with_shift(
    b: &FastBoard,
    home: Option<usize>,
    shift: bool,
) -> Option<(&'static Net, SizeShift)> {
    net_for(b).map(|(n, own_home)| {
        let shift = match home.or(own_home) {
            Some(h) if shift => SizeShift::between(b.rule(), b.width(), b.height(), h),
            _ => SizeShift::NONE,
        };
        (n, shift)
    })
}

/// The static value a search computes: the pattern evaluation with the initiative weight and
/// indicator terms, blended `pct` percent towards `net` where there is one and `pct > 0`.
#[inline]
pub fn search_value(
    b: &FastBoard,
    initiative_16ths: i64,
    indicators: Option<&[i32; 16]>,
    net: Option<(&Net, SizeShift)>,
    pct: i32,
) -> i32 {
    let v = evaluate_with(b, initiative_16ths, indicators);
    match net {
        Some((n, shift)) if pct > 0 => blend(n, b, v, pct, shift),
        _ => v,
    }
}

/// The static value `base` moved `pct` percent of the way to the network's value of `b`.
#[inline]
pub fn blend(net: &Net, b: &FastBoard, base: i32, pct: i32, shift: SizeShift) -> i32 {
    base + (net.value_shifted(b, base, shift) - base) * pct / 100
}

/// What a network's inputs lose or gain on a board of another size than the one it was fitted
/// on. Three inputs grow with the board's area whatever the position: the empty cells of the
/// lowest threat class (every empty cell far from the stones is one), the score sums (each such
/// cell adds its small score) and, through the score sums, the static value (the side to move's
/// sum counts a quarter more). A network fitted on one board size has seen them only near that
/// board's values, so one size off they move its hidden units far out of what it was fitted on
/// (the renju networks lost 127 to 315 Elo one to five sizes away). The shift is the
/// difference between the two empty boards, which is what the cells far from the stones
/// contribute; added to a position's inputs it gives the inputs of the same stones on the
/// network's own board, when they are not too near the edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SizeShift {
    /// Added to the count of empty cells of threat class 1 (the result is kept at 0 or more).
    pub cells: i32,
    /// Added to each colour's score sum (indexed by [`Color::index`]).
    pub score: [i32; 2],
    /// Added to the static value (an empty board scores both colours alike, so one value
    /// serves either side to move).
    pub base: i32,
}

impl SizeShift {
    /// No shift: the network's own board.
    pub const NONE: SizeShift = SizeShift {
        cells: 0,
        score: [0; 2],
        base: 0,
    };

    /// The shift from a `width` x `height` board under `rule` to a `home` x `home` one
    /// ([`SizeShift::NONE`] on the home board itself or when either board cannot be built).
    pub fn between(rule: Rule, width: usize, height: usize, home: usize) -> SizeShift {
        if width == home && height == home {
            return SizeShift::NONE;
        }
        // The home board as the networks shifted to it were fitted: without the per-combination
        // corrections that 15x15 renju, freestyle and exact five have with their own networks.
        let (Ok(here), Ok(there)) = (
            FastBoard::new(width, height, rule),
            FastBoard::with_corrections(home, home, rule, None),
        ) else {
            return SizeShift::NONE;
        };
        let low = Threat::from_u8(1);
        SizeShift {
            cells: there.count(Color::Black, low) as i32 - here.count(Color::Black, low) as i32,
            score: [Color::Black, Color::White].map(|c| there.score_sum(c) - here.score_sum(c)),
            base: evaluate(&there) - evaluate(&here),
        }
    }
}

/// `ln(1 + n)` for the counts a board can hold.
fn log1p_table() -> &'static [f32; 512] {
    static T: std::sync::OnceLock<[f32; 512]> = std::sync::OnceLock::new();
    T.get_or_init(|| std::array::from_fn(|n| (n as f32).ln_1p()))
}

impl Net {
    /// Reads the text form: `K inputs hidden`, then one line each of W1 (inputs x hidden, row
    /// by row), b1, w2, b2, a, lin.
    pub fn parse(text: &str) -> Result<Net, String> {
        let mut lines = text.lines();
        let mut nums = |n: usize| -> Result<Vec<f32>, String> {
            let l = lines.next().ok_or("too few lines")?;
            let v: Vec<f32> = l
                .split_whitespace()
                .map(|t| t.parse::<f32>().map_err(|e| e.to_string()))
                .collect::<Result<_, _>>()?;
            if v.len() != n {
                return Err(format!("expected {n} numbers, found {}", v.len()));
            }
            Ok(v)
        };
        let head = nums(3)?;
        if !(head[0].is_finite() && head[0] > 0.0) {
            return Err(format!("scale {} is not positive", head[0]));
        }
        if head[1] as usize != NET_INPUTS || head[2] as usize != NET_HIDDEN {
            return Err(format!("shape {}x{} not supported", head[1], head[2]));
        }
        let w = nums(NET_INPUTS * NET_HIDDEN)?;
        let b1 = nums(NET_HIDDEN)?;
        let w2 = nums(NET_HIDDEN)?;
        let b2 = nums(1)?[0];
        let a = nums(1)?[0];
        let lin = nums(NET_INPUTS)?;
        if [&w, &b1, &w2, &lin]
            .iter()
            .any(|v| v.iter().any(|x| !x.is_finite()))
            || !(b2.is_finite() && a.is_finite())
        {
            return Err("a weight is not a finite number".into());
        }
        Ok(Net {
            k: head[0],
            w1: std::array::from_fn(|f| std::array::from_fn(|h| w[f * NET_HIDDEN + h])),
            b1: b1.try_into().expect("length checked"),
            w2: w2.try_into().expect("length checked"),
            b2,
            a,
            lin: std::array::from_fn(|f| lin.get(f).copied().unwrap_or(0.0)),
        })
    }

    /// The network's value of `b` for the side to move, given its static value `base`.
    pub fn value(&self, b: &FastBoard, base: i32) -> i32 {
        self.value_shifted(b, base, SizeShift::NONE)
    }

    /// The hidden layer's sums before the activation: per unit, its bias plus each input times
    /// its weight, added in the order of the inputs.
    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    fn hidden(&self, x: &[f32; LANES]) -> [f32; NET_HIDDEN] {
        let mut h = self.b1;
        for (row, &xf) in self.w1.iter().zip(x) {
            for (hj, &w) in h.iter_mut().zip(row) {
                *hj += xf * w;
            }
        }
        h
    }

    /// [`Net::hidden`] with the sixteen sums in four SSE registers (part of every x86_64 CPU):
    /// each input adds its row with four multiplies and four adds. Each lane computes exactly
    /// what the scalar `h[j] += x * w[j]` does (one rounded multiply, one rounded add), so the
    /// values are the same; left to itself the compiler split the sums into scalars and
    /// shuffled them back every input (about 800 instructions per evaluation, 6 % of a search).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn hidden(&self, x: &[f32; LANES]) -> [f32; NET_HIDDEN] {
        use std::arch::x86_64::_mm_storeu_ps;
        use std::arch::x86_64::{__m128, _mm_add_ps, _mm_loadu_ps, _mm_mul_ps, _mm_set1_ps};
        let mut out = [0f32; NET_HIDDEN];
        // SAFETY: these intrinsics are `unsafe` only because they are `target_feature`
        // functions, and SSE is part of every x86_64 target; the loads and stores touch four
        // floats from `4 * g` of arrays of `NET_HIDDEN` (a multiple of four) floats.
        unsafe {
            let four = |v: &[f32; NET_HIDDEN], g: usize| _mm_loadu_ps(v.as_ptr().add(4 * g));
            let mut h: [__m128; NET_HIDDEN / 4] = std::array::from_fn(|g| four(&self.b1, g));
            for (row, &xf) in self.w1.iter().zip(x) {
                // A zero input (most threat classes have no cell) adds nothing: `h + 0 * w` is
                // `h` but for `h = -0`, which the activation reads as `+0` anyway.
                if xf == 0.0 {
                    continue;
                }
                let xv = _mm_set1_ps(xf);
                for (g, hg) in h.iter_mut().enumerate() {
                    *hg = _mm_add_ps(*hg, _mm_mul_ps(xv, four(row, g)));
                }
            }
            for (g, hg) in h.into_iter().enumerate() {
                _mm_storeu_ps(out.as_mut_ptr().add(4 * g), hg);
            }
        }
        out
    }

    /// The addends of the output after `b2 + a * x[0]`: the linear part's products
    /// `lin[f] * x[f]` and the hidden units' outputs `max(h, 0) * w2` (see [`Net::hidden`]).
    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    fn products(&self, x: &[f32; LANES]) -> ([f32; LANES], [f32; NET_HIDDEN]) {
        let h = self.hidden(x);
        (
            std::array::from_fn(|f| self.lin[f] * x[f]),
            std::array::from_fn(|j| h[j].max(0.0) * self.w2[j]),
        )
    }

    /// [`Net::products`] four lanes at a time: left to itself the compiler formed the products
    /// one by one, with the operands spilled around them. `_mm_max_ps(h, 0)` is `h` where
    /// `h > 0` and `+0` otherwise (NaN included), as `f32::max(h, 0.0)` (a `-0` sum, which
    /// cannot arise from finite weights but a `-0` bias, counts the same either way).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn products(&self, x: &[f32; LANES]) -> ([f32; LANES], [f32; NET_HIDDEN]) {
        use std::arch::x86_64::_mm_storeu_ps;
        use std::arch::x86_64::{_mm_loadu_ps, _mm_max_ps, _mm_mul_ps, _mm_setzero_ps};
        let h = self.hidden(x);
        let (mut lin, mut out) = ([0f32; LANES], [0f32; NET_HIDDEN]);
        // SAFETY: SSE intrinsics (part of every x86_64 target, see [`Net::hidden`]); each load
        // and store touches the four floats from `4 * g` of arrays whose lengths are multiples
        // of four.
        unsafe {
            for g in 0..LANES / 4 {
                let at = 4 * g;
                let p = _mm_mul_ps(
                    _mm_loadu_ps(self.lin.as_ptr().add(at)),
                    _mm_loadu_ps(x.as_ptr().add(at)),
                );
                _mm_storeu_ps(lin.as_mut_ptr().add(at), p);
            }
            for g in 0..NET_HIDDEN / 4 {
                let at = 4 * g;
                let relu = _mm_max_ps(_mm_loadu_ps(h.as_ptr().add(at)), _mm_setzero_ps());
                let p = _mm_mul_ps(relu, _mm_loadu_ps(self.w2.as_ptr().add(at)));
                _mm_storeu_ps(out.as_mut_ptr().add(at), p);
            }
        }
        (lin, out)
    }

    /// As [`Net::value`], with the inputs that grow with the board's area moved by `shift` to
    /// what they would be on the board the network was fitted on ([`SizeShift`]).
    pub fn value_shifted(&self, b: &FastBoard, base: i32, shift: SizeShift) -> i32 {
        let me = b.side_to_move();
        let lt = log1p_table();
        let mut x = [0f32; LANES];
        x[0] = (base + shift.base) as f32 / self.k;
        for (s, c) in [me, me.opponent()].into_iter().enumerate() {
            // The classes as constants (not `Threat::from_u8` of a loop counter, which became a
            // jump per input).
            let counts = NET_CLASSES.map(|t| b.count(c, t));
            let low = (counts[0] as i32 + shift.cells).max(0) as u32;
            for (k, n) in counts.into_iter().enumerate() {
                let n = if k == 0 { low } else { n };
                x[1 + s * 9 + k] = lt[(n as usize).min(511)];
            }
            x[19 + s] = (b.score_sum(c) + shift.score[c.index()]) as f32 / 1000.0;
        }
        // The linear part, then the hidden layer (each sum in the same order as ever). The
        // products are formed first, side by side (each the same rounded product as before),
        // and then added one by one.
        let (lin, out) = self.products(&x);
        let mut z = self.b2 + self.a * x[0];
        for &t in &lin[..NET_INPUTS] {
            z += t;
        }
        for t in out {
            z += t;
        }
        ((z * self.k) as i32).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pos::{parse_algebraic, Pos};

    fn board(moves: &str) -> FastBoard {
        let mut b = FastBoard::new(15, 15, Rule::Freestyle).unwrap();
        for m in parse_algebraic(moves).unwrap() {
            let i = b.idx(m);
            b.make(i);
        }
        b
    }

    #[test]
    fn indicator_terms_count_each_sides_threat_cells() {
        // Black (to move) has an open three h8-j8: f8 and l8 make blocked fours. White's a1 a3
        // a5 on the edge: a2 and a4 make blocked fours.
        let b = board("h8a1i8a3j8a5");
        let me = b.side_to_move();
        let base = evaluate_with(&b, INITIATIVE_16THS, None);
        assert_eq!(base, evaluate(&b));
        assert_eq!(evaluate_with(&b, INITIATIVE_16THS, Some(&[0; 16])), base);
        // Entries 4 and 5: the side to move's Block4 cells (at least one, at least two); entry
        // 12: the opponent's.
        let fours = b.count(me, Threat::Block4);
        let mut ind = [0; 16];
        ind[4] = 100; // side to move: at least one Block4 cell
        ind[5] = 1000; // side to move: at least two
        ind[12] = 7; // opponent: at least one Block4 cell
        let expected = base
            + if fours >= 1 { 100 } else { 0 }
            + if fours >= 2 { 1000 } else { 0 }
            + if b.count(me.opponent(), Threat::Block4) >= 1 {
                7
            } else {
                0
            };
        assert_eq!(evaluate_with(&b, INITIATIVE_16THS, Some(&ind)), expected);
        assert!(fours >= 2, "f8 and l8");
        assert!(b.count(me.opponent(), Threat::Block4) >= 1, "a2 and a4");
    }

    /// A network text with every weight zero but `a` (the static value's) and the given
    /// output bias.
    fn net_text(k: f32, a: f32, b2: f32) -> String {
        let zeros = |n: usize| vec!["0"; n].join(" ");
        format!(
            "{k} {NET_INPUTS} {NET_HIDDEN}\n{}\n{}\n{}\n{b2}\n{a}\n{}\n",
            zeros(NET_INPUTS * NET_HIDDEN),
            zeros(NET_HIDDEN),
            zeros(NET_HIDDEN),
            zeros(NET_INPUTS)
        )
    }

    #[test]
    fn the_hidden_layer_and_products_are_exactly_the_plain_loops() {
        // Random weights and inputs (a fixed LCG): the vector code must give the very floats
        // of one loop over the inputs per unit, which the search's node counts rely on.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            ((seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 7.0
        };
        let nums = |n: usize, next: &mut dyn FnMut() -> f32| {
            (0..n)
                .map(|_| next().to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let text = format!(
            "300 {NET_INPUTS} {NET_HIDDEN}\n{}\n{}\n{}\n0.5\n1\n{}\n",
            nums(NET_INPUTS * NET_HIDDEN, &mut next),
            nums(NET_HIDDEN, &mut next),
            nums(NET_HIDDEN, &mut next),
            nums(NET_INPUTS, &mut next)
        );
        let n = Net::parse(&text).unwrap();
        for _ in 0..200 {
            // About a third of the inputs zero, as the counts of absent threat classes give.
            let x: [f32; LANES] = std::array::from_fn(|f| match next() {
                _ if f >= NET_INPUTS => 0.0,
                r if r > 1.2 => 0.0,
                _ => next(),
            });
            let mut plain = n.b1;
            for (row, &xf) in n.w1.iter().zip(&x) {
                for (h, &w) in plain.iter_mut().zip(row) {
                    *h += xf * w;
                }
            }
            assert_eq!(n.hidden(&x).map(f32::to_bits), plain.map(f32::to_bits));
            // And the products summed after it: as the scalar expressions give them.
            let (lin, out) = n.products(&x);
            let want_lin: [f32; LANES] = std::array::from_fn(|f| n.lin[f] * x[f]);
            let want_out: [f32; NET_HIDDEN] = std::array::from_fn(|j| plain[j].max(0.0) * n.w2[j]);
            assert_eq!(lin.map(f32::to_bits), want_lin.map(f32::to_bits));
            assert_eq!(out.map(f32::to_bits), want_out.map(f32::to_bits));
        }
    }

    #[test]
    fn a_network_reads_its_text_form_and_evaluates_it() {
        let b = board("h8a1i8a3j8a5");
        let base = evaluate_with(&b, INITIATIVE_16THS, Some(&INDICATORS));
        // Only the static value passes through: the network gives it back.
        let n = Net::parse(&net_text(300.0, 1.0, 0.0)).unwrap();
        assert!((n.value(&b, base) - base).abs() <= 1);
        // Halved, plus a bias of one logistic unit (300 centi-stones).
        let n = Net::parse(&net_text(300.0, 0.5, 1.0)).unwrap();
        assert!((n.value(&b, base) - (base / 2 + 300)).abs() <= 1);
        // One hidden unit reading the side to move's Block4 cells (input 1 + 5).
        let mut text = net_text(300.0, 0.0, 0.0);
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        let mut w1 = vec!["0"; NET_INPUTS * NET_HIDDEN];
        w1[6 * NET_HIDDEN] = "1";
        lines[1] = w1.join(" ");
        let mut w2 = vec!["0"; NET_HIDDEN];
        w2[0] = "1";
        lines[3] = w2.join(" ");
        text = lines.join("\n");
        let n = Net::parse(&text).unwrap();
        let fours = b.count(b.side_to_move(), Threat::Block4) as f32;
        assert_eq!(n.value(&b, base), (fours.ln_1p() * 300.0) as i32);
        // Malformed texts are refused.
        assert!(Net::parse("").is_err());
        assert!(Net::parse("300 21 8\n").is_err());
        assert!(Net::parse(&net_text(300.0, 1.0, 0.0).replace("\n0\n", "\nx\n")).is_err());
    }

    #[test]
    fn the_built_in_networks_load_for_their_rules_only() {
        use BuiltInNet::*;
        let caro = Rule::Caro {
            overline_wins: false,
        };
        let caro8 = Rule::Caro {
            overline_wins: true,
        };
        let cases: &[(Rule, usize, usize, Option<BuiltInNet>)] = &[
            (Rule::Freestyle, 15, 15, Some(Freestyle15)),
            (Rule::Freestyle, 17, 17, Some(Freestyle)),
            (Rule::Freestyle, 18, 18, Some(Freestyle)),
            (Rule::Freestyle, 19, 19, Some(Freestyle20)),
            (Rule::Freestyle, 20, 20, Some(Freestyle20Corrected)),
            (Rule::Freestyle, 21, 21, Some(Freestyle20)),
            (Rule::Freestyle, 22, 22, Some(Freestyle20)),
            (Rule::Freestyle, 23, 23, Some(Freestyle20)),
            (Rule::Freestyle, 64, 64, Some(Freestyle20)),
            (Rule::Freestyle, 9, 30, None),
            (Rule::Freestyle, 14, 14, Some(Freestyle)),
            (Rule::Freestyle, 10, 10, Some(Freestyle)),
            (Rule::Freestyle, 9, 9, None),
            (Rule::Freestyle, 15, 18, Some(Freestyle)),
            (Rule::Freestyle, 20, 19, Some(Freestyle20)),
            (Rule::Freestyle, 15, 20, Some(Freestyle20)),
            (Rule::Exact, 12, 12, Some(Exact)),
            (Rule::Exact, 11, 11, Some(Exact)),
            (Rule::Exact, 9, 9, None),
            (Rule::Exact, 12, 9, None),
            (Rule::Exact, 10, 16, Some(Exact)),
            (Rule::Exact, 15, 15, Some(Exact15)),
            (Rule::Exact, 14, 14, Some(Exact)),
            (Rule::Exact, 15, 16, Some(Exact)),
            (Rule::Exact, 17, 17, Some(Exact)),
            (Rule::Exact, 19, 19, Some(Exact20)),
            (Rule::Exact, 18, 18, Some(Exact)),
            (Rule::Exact, 20, 20, Some(Exact20)),
            (Rule::Exact, 22, 22, Some(Exact20)),
            (Rule::Exact, 23, 23, Some(Exact20)),
            (Rule::Exact, 22, 15, Some(Exact20)),
            (Rule::Renju, 15, 16, Some(RenjuMixed)),
            (Rule::Renju, 14, 20, Some(Renju20)),
            (Rule::Renju, 13, 20, Some(Renju20)),
            (Rule::Renju, 12, 20, None),
            (Rule::Renju, 16, 19, Some(RenjuMixed)),
            (Rule::Renju, 15, 15, Some(Renju)),
            (Rule::Renju, 20, 20, Some(Renju20)),
            (Rule::Renju, 14, 14, Some(RenjuSizes)),
            (Rule::Renju, 13, 13, Some(RenjuSizes)),
            (Rule::Renju, 12, 12, None),
            (Rule::Renju, 16, 16, Some(RenjuMixed)),
            (Rule::Renju, 18, 18, Some(RenjuMixed)),
            (Rule::Renju, 19, 19, Some(RenjuMixed)),
            (Rule::Renju, 21, 21, Some(Renju20)),
            (Rule::Renju, 22, 22, Some(Renju20)),
            (Rule::Renju, 23, 23, Some(Renju20)),
            (Rule::Renju, 20, 22, Some(Renju20)),
            (Rule::Renju, 19, 21, Some(Renju20)),
            (Rule::Renju, 19, 16, Some(RenjuMixed)),
            (caro, 15, 15, Some(Caro)),
            (caro8, 15, 15, Some(Caro)),
            (caro, 20, 20, Some(Caro)),
            (caro8, 17, 17, Some(Caro)),
            (caro, 22, 22, Some(Caro)),
            (caro8, 21, 21, Some(Caro)),
            (caro, 23, 23, Some(Caro)),
            (caro8, 40, 40, Some(Caro)),
            (caro, 12, 12, Some(Caro)),
            (caro, 11, 11, None),
            (caro, 14, 14, Some(Caro)),
            (caro8, 13, 13, Some(Caro)),
            (caro, 20, 15, Some(Caro)),
            (caro8, 15, 17, Some(Caro)),
            (caro, 21, 15, Some(Caro)),
            (caro, 23, 15, Some(Caro)),
            (caro, 13, 20, Some(Caro)),
            (caro, 11, 20, None),
        ];
        for &(rule, w, h, want) in cases {
            assert_eq!(built_in_net(rule, w, h), want, "{rule} {w}x{h}");
            let b = FastBoard::new(w, h, rule).unwrap();
            assert_eq!(net_for(&b).is_some(), want.is_some(), "{rule} {w}x{h}");
        }
        let big = FastBoard::new(20, 20, Rule::Exact).unwrap();
        assert_eq!(
            net_for(&big).unwrap().1,
            Some(20),
            "the exact-five 20x20 network's home"
        );
        // The blend: none of the network at 0 %, all of it at 100 %, halfway at 50 %.
        let b = board("h8i9i8j8g8");
        let (n, home) = net_for(&b).unwrap();
        assert_eq!(home, Some(15));
        let base = evaluate_with(&b, INITIATIVE_16THS, Some(&INDICATORS));
        let full = n.value(&b, base);
        assert_ne!(full, base);
        let none = SizeShift::NONE;
        assert_eq!(blend(n, &b, base, 0, none), base);
        assert_eq!(blend(n, &b, base, 100, none), full);
        assert_eq!(blend(n, &b, base, 50, none), base + (full - base) / 2);
    }

    /// `stones` (x, y, in move order) placed around the centre of a `w` x `h` board.
    fn centred(rule: Rule, w: usize, h: usize, stones: &[(i32, i32)]) -> FastBoard {
        centred_with(FastBoard::new(w, h, rule).unwrap(), stones)
    }

    fn centred_with(mut b: FastBoard, stones: &[(i32, i32)]) -> FastBoard {
        let (w, h) = (b.width(), b.height());
        for &(x, y) in stones {
            let p = Pos::new((w as i32 / 2 + x) as u8, (h as i32 / 2 + y) as u8);
            let i = b.idx(p);
            b.make(i);
        }
        b
    }

    #[test]
    fn a_size_shift_to_a_corrected_board_compares_it_without_its_corrections() {
        // The networks shifted to 15x15 or 20x20 were fitted on scores without the corrections
        // that some rules have there with their own networks.
        for k in crate::board::pattern::Corrections::ALL {
            let (rule, home) = k.board();
            let plain = FastBoard::with_corrections(home, home, rule, None).unwrap();
            let fixed = FastBoard::new(home, home, rule).unwrap();
            assert_ne!(plain.score_sum(Color::Black), fixed.score_sum(Color::Black));
            for n in [home - 1, home + 1] {
                let here = FastBoard::new(n, n, rule).unwrap();
                let shift = SizeShift::between(rule, n, n, home);
                for c in [Color::Black, Color::White] {
                    let want = plain.score_sum(c) - here.score_sum(c);
                    assert_eq!(shift.score[c.index()], want, "{rule} {n}x{n}");
                }
                assert_eq!(
                    shift.base,
                    evaluate(&plain) - evaluate(&here),
                    "{rule} {n}x{n}"
                );
            }
        }
    }

    #[test]
    fn a_size_shift_gives_a_network_the_inputs_of_its_own_board() {
        let stones = [(0, 0), (1, 1), (1, 0), (2, 0), (-1, 0), (0, 2), (0, -1)];
        // On 15x15 the home board is taken without its corrections, as the networks shifted to
        // 15x15 (`renju-sizes.net`, `freestyle.net`, `standard.net`) saw it.
        for (rule, net) in [
            (Rule::Freestyle, BuiltInNet::Freestyle),
            (Rule::Renju, BuiltInNet::RenjuSizes),
            (Rule::Exact, BuiltInNet::Exact),
        ] {
            assert_eq!(SizeShift::between(rule, 15, 15, 15), SizeShift::NONE);
            let plain = FastBoard::with_corrections(15, 15, rule, None).unwrap();
            let home = centred_with(plain, &stones);
            let n = &Net::parse(net.text()).unwrap();
            let home_base = evaluate_with(&home, INITIATIVE_16THS, Some(&INDICATORS));
            let home_value = n.value(&home, home_base);
            for (w, h) in [(17, 17), (20, 20), (28, 28), (15, 22), (12, 12)] {
                let b = centred(rule, w, h, &stones);
                let base = evaluate_with(&b, INITIATIVE_16THS, Some(&INDICATORS));
                let shift = SizeShift::between(rule, w, h, 15);
                assert_eq!(shift.cells, 225 - (w * h) as i32, "{rule} {w}x{h}");
                // The same stones: shifted, the network's value is near its value on 15x15
                // (not equal: on 15x15 some of the cells near the stones see the edge), and
                // far nearer than unshifted (with the earlier 15x15 renju network on 28x28:
                // -1042 and -4064 for -1048).
                let shifted = (n.value_shifted(&b, base, shift) - home_value).abs();
                let plain = (n.value(&b, base) - home_value).abs();
                assert!(shifted * 2 < plain, "{rule} {w}x{h}: {shifted} {plain}");
                if w.min(h) >= 15 {
                    assert!(shifted <= 50, "{rule} {w}x{h}: {shifted}");
                }
            }
        }
    }
}
