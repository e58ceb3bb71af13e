//! Line-pattern vocabulary and the lookup tables that classify a cell's line in one step.
//!
//! A cell's *line key* in one direction packs its ten neighbours (five each way) into 20 bits, two
//! bits per cell: 0 empty, 1 own, 2 opponent, 3 wall (off the board). The table for a rule maps a
//! key to the [`Pattern`] the cell would have if *own* played there. Tables are built once per
//! win-semantics ([`Sem`]) on first use (about 130 000 reachable keys, a few tens of ms) and shared
//! by every board afterwards. Black uses the key as stored; white looks up the colour-swapped key.
//!
//! This module owns only the vocabulary and the tables; it knows nothing about boards or search.

use crate::types::{Color, Rule};
use std::collections::HashMap;
use std::sync::OnceLock;

/// What one stone at a cell makes along one line, ordered by strength. `X` = own stone, `C` = the
/// cell itself, `_` = empty, `O` = opponent or edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Pattern {
    /// No five can ever be made through the cell along this line.
    Dead = 0,
    /// `OC____` : one stone, one way to grow.
    Block1 = 1,
    /// `_C____` : one stone, open.
    Flex1 = 2,
    /// `OXC___` : two, can become a blocked three.
    Block2 = 3,
    /// `__XC__` : two, can become a flex three.
    Flex2 = 4,
    /// `OXXC__` : three, can become a (blocked) four.
    Block3 = 5,
    /// `__XXC_` : three, can become a flex (straight) four.
    Flex3 = 6,
    /// `OXXXC_` : four with one way to five.
    Block4 = 7,
    /// `_XXXC_` : four with two ways to five (or `X_XCX_X`-style double four in one line).
    Flex4 = 8,
    /// `XXXXC` : five (under the rule's win condition).
    Five = 9,
}

impl Pattern {
    const ALL: [Pattern; 10] = [
        Pattern::Dead,
        Pattern::Block1,
        Pattern::Flex1,
        Pattern::Block2,
        Pattern::Flex2,
        Pattern::Block3,
        Pattern::Flex3,
        Pattern::Block4,
        Pattern::Flex4,
        Pattern::Five,
    ];

    /// The pattern stored in the low four bits of a table byte.
    #[inline]
    pub fn from_byte(b: u8) -> Pattern {
        Pattern::ALL[(b & CLASS_MASK) as usize]
    }

    /// The pattern one move short of this one (`Flex4` -> `Flex3`, ...).
    fn weaken(self) -> Pattern {
        match self {
            Pattern::Five | Pattern::Dead => Pattern::Dead,
            Pattern::Flex4 => Pattern::Flex3,
            Pattern::Block4 => Pattern::Block3,
            Pattern::Flex3 => Pattern::Flex2,
            Pattern::Block3 => Pattern::Block2,
            Pattern::Flex2 => Pattern::Flex1,
            Pattern::Block2 => Pattern::Block1,
            Pattern::Flex1 | Pattern::Block1 => Pattern::Dead,
        }
    }
}

/// Low bits of a table byte: the [`Pattern`].
pub const CLASS_MASK: u8 = 0x0f;
/// Flag: the two ways to five belong to two different fours (`X_XCX_X`); renju counts two fours.
pub const DOUBLE_FOUR: u8 = 0x10;
/// Flag: the stone makes six or more in a row that is not a win (renju black's overline).
pub const OVERLINE: u8 = 0x20;

/// When a run along a line wins (the part of a rule that lines see).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sem {
    /// Five or more (freestyle; white in renju).
    Ge5,
    /// Exactly five (standard).
    Eq5,
    /// Exactly five, threes only via straight fours, overline flagged (black in renju).
    RenjuBlack,
    /// Exact five not closed by opposing stones at both ends (caro, value 9).
    Caro9,
    /// As `Caro9`, or any run of six or more (caro, value 8).
    Caro8,
}

impl Sem {
    /// The line semantics of `color` under `rule`.
    pub fn of(rule: Rule, color: Color) -> Sem {
        match (rule, color) {
            (Rule::Freestyle, _) | (Rule::Renju, Color::White) => Sem::Ge5,
            (Rule::Exact, _) => Sem::Eq5,
            (Rule::Renju, Color::Black) => Sem::RenjuBlack,
            (Rule::Caro { overline_wins }, _) => {
                if overline_wins {
                    Sem::Caro8
                } else {
                    Sem::Caro9
                }
            }
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Number of neighbours on each side of a cell in a line key.
pub const HALF: i32 = 5;
/// Bits in a line key.
pub const KEY_BITS: u32 = 20;

/// Bit position of the neighbour `k` steps away (`k` in `-5..=-1` or `1..=5`).
#[inline]
pub const fn shift(k: i32) -> u32 {
    if k < 0 {
        (2 * (k + HALF)) as u32
    } else {
        (2 * (k + HALF - 1)) as u32
    }
}

/// The key as seen by the other colour: own and opponent stones swapped, walls and empties kept.
#[inline]
pub fn swap_colors(key: u32) -> u32 {
    let one_bit = (key ^ (key >> 1)) & 0x5_5555;
    key ^ (one_bit | (one_bit << 1))
}

const EMPTY: u8 = 0;
const OWN: u8 = 1;
const OPP: u8 = 2;
const WALL: u8 = 3;
/// Table entry not yet computed.
const UNSET: u8 = 0xff;

/// Decodes a key into an 11-cell line, own stone at index 5 (the cell itself).
fn decode(key: u32) -> [u8; 11] {
    let mut line = [0u8; 11];
    for k in -HALF..=HALF {
        line[(k + HALF) as usize] = if k == 0 {
            OWN
        } else {
            ((key >> shift(k)) & 3) as u8
        };
    }
    line
}

fn encode(line: &[u8; 11]) -> u32 {
    let mut key = 0;
    for k in -HALF..=HALF {
        if k != 0 {
            key |= (line[(k + HALF) as usize] as u32) << shift(k);
        }
    }
    key
}

/// The own run through the centre: `(lo, hi)` indices.
fn run(line: &[u8; 11]) -> (usize, usize) {
    let (mut lo, mut hi) = (5, 5);
    while lo > 0 && line[lo - 1] == OWN {
        lo -= 1;
    }
    while hi < 10 && line[hi + 1] == OWN {
        hi += 1;
    }
    (lo, hi)
}

/// Whether the centre's run wins. A run touching the window's edge is at least six long.
fn is_five(line: &[u8; 11], sem: Sem) -> bool {
    let (lo, hi) = run(line);
    let len = hi - lo + 1;
    let closed = || lo > 0 && hi < 10 && line[lo - 1] == OPP && line[hi + 1] == OPP;
    match sem {
        Sem::Ge5 => len >= 5,
        Sem::Eq5 | Sem::RenjuBlack => len == 5,
        Sem::Caro9 => len == 5 && !closed(),
        Sem::Caro8 => (len == 5 && !closed()) || len >= 6,
    }
}

/// Classifies the key (memoised in `table`).
fn classify(table: &mut [u8], key: u32, sem: Sem) -> u8 {
    let cached = table[key as usize];
    if cached != UNSET {
        return cached;
    }
    let mut line = decode(key);
    let result = if is_five(&line, sem) {
        Pattern::Five as u8
    } else {
        // Step 1. Ways to five: empty cells within four steps that complete a five through C.
        let mut completions = 0;
        let mut four_sets: [(usize, usize, usize); 2] = [(0, 0, 0); 2];
        let mut double = false;
        for i in 1..=9 {
            if line[i] != EMPTY {
                continue;
            }
            line[i] = OWN;
            if is_five(&line, sem) {
                let (lo, hi) = run(&line);
                let set = (lo, hi, i);
                if completions < 2 {
                    four_sets[completions] = set;
                }
                completions += 1;
            }
            line[i] = EMPTY;
        }
        if completions >= 2 {
            // Same four when the runs minus the completion cells coincide.
            let stones = |(lo, hi, i): (usize, usize, usize)| -> Vec<usize> {
                (lo..=hi).filter(|&j| j != i).collect()
            };
            double = stones(four_sets[0]) != stones(four_sets[1]);
        }
        let overline = sem == Sem::RenjuBlack && {
            let (lo, hi) = run(&line);
            hi - lo + 1 >= 6
        };
        let mut flags = if overline { OVERLINE } else { 0 };
        let class = if overline {
            Pattern::Dead
        } else if completions >= 2 {
            if double {
                flags |= DOUBLE_FOUR;
            }
            Pattern::Flex4
        } else if completions == 1 {
            Pattern::Block4
        } else {
            // Step 2. One more own stone within four steps: the best it leads to, one step weaker.
            let mut best = Pattern::Dead;
            for i in 1..=9 {
                if line[i] != EMPTY {
                    continue;
                }
                line[i] = OWN;
                let sub = classify(table, encode(&line), sem);
                line[i] = EMPTY;
                let p = Pattern::from_byte(sub);
                // Renju black's three must become a straight four, not a double four or overline.
                let p = if sem == Sem::RenjuBlack && (sub & (DOUBLE_FOUR | OVERLINE)) != 0 {
                    if sub & OVERLINE != 0 {
                        Pattern::Dead
                    } else {
                        Pattern::Block4
                    }
                } else {
                    p
                };
                best = best.max(p.weaken());
            }
            best
        };
        class as u8 | flags
    };
    table[key as usize] = result;
    result
}

/// Every key whose walls are contiguous from the far ends (the only keys a board produces).
fn for_each_valid_key(mut f: impl FnMut(u32)) {
    // One side: five cells from near (k = 1) to far (k = 5); walls only as a far suffix.
    let mut halves: Vec<[u8; 5]> = Vec::new();
    for walls in 0..=5usize {
        let free = 5 - walls;
        for code in 0..3usize.pow(free as u32) {
            let mut h = [WALL; 5];
            let mut c = code;
            for cell in h.iter_mut().take(free) {
                *cell = (c % 3) as u8;
                c /= 3;
            }
            halves.push(h);
        }
    }
    for l in &halves {
        for r in &halves {
            let mut key = 0u32;
            for k in 1..=5 {
                key |= (l[k as usize - 1] as u32) << shift(-k);
                key |= (r[k as usize - 1] as u32) << shift(k);
            }
            f(key);
        }
    }
}

fn build(sem: Sem) -> Box<[u8]> {
    let mut table = vec![UNSET; 1 << KEY_BITS].into_boxed_slice();
    for_each_valid_key(|key| {
        classify(&mut table, key, sem);
    });
    table
}

static TABLES: [OnceLock<Box<[u8]>>; 5] = [
    OnceLock::new(),
    OnceLock::new(),
    OnceLock::new(),
    OnceLock::new(),
    OnceLock::new(),
];

/// The pattern table of `sem` (built on first use, then shared; [`TABLE_LEN`] entries).
pub fn table(sem: Sem) -> &'static [u8] {
    TABLES[sem.index()].get_or_init(|| build(sem))
}

/// Entries of a table indexed by a line key.
pub const TABLE_LEN: usize = 1 << KEY_BITS;

/// Whether the line tables of both colours and the pair table of `rule` are built (see
/// [`super::fast::prepare_tables`]).
pub fn tables_built(rule: Rule) -> bool {
    [Color::Black, Color::White]
        .iter()
        .all(|&c| TABLES[Sem::of(rule, c).index()].get().is_some())
        && PAIRS[rule.index()].get().is_some()
}

/// Black's and white's pattern bytes of every line key under one rule, side by side (black's in
/// the low byte, white's, black's byte of the colour-swapped key, in the high byte), stored
/// compactly so that the incremental updates hit the first-level cache.
///
/// A line key is two half-line keys of five cells each (the low bits before the cell, the high
/// bits after it). Half keys that make the same pair for every other half are equivalent: under
/// every rule there are only 60 to 120 classes of them (of 1024 half keys). The table maps each
/// half key to its class and keeps one entry per pair of classes: three small lookups instead of
/// one in a 2 MiB table.
pub struct PairTable {
    /// Per low half key: its class.
    low: [u16; HALF_KEYS],
    /// Per high half key: its class times the number of low classes.
    high: [u16; HALF_KEYS],
    /// Per (low class, high class): the pair.
    pairs: Box<[u16; MAX_PAIR_ENTRIES]>,
}

/// Keys of one half line (five cells of two bits).
pub const HALF_KEYS: usize = 1 << (KEY_BITS / 2);
/// Room for the class pairs (the most classes seen under any rule is 120 per half).
const MAX_PAIR_ENTRIES: usize = 1 << 14;

impl PairTable {
    /// The pair of the line key `key` (only its [`KEY_BITS`] low bits are read).
    #[inline(always)]
    pub fn get(&self, key: u32) -> u16 {
        self.lookup().get(key)
    }

    /// The table's three arrays, for many lookups in a row (see [`PairLookup`]).
    #[inline(always)]
    pub fn lookup(&self) -> PairLookup<'_> {
        PairLookup {
            low: &self.low,
            high: &self.high,
            pairs: &self.pairs,
        }
    }

    /// The class-pair slot of the line key `key` (as [`PairLookup::get`] finds it).
    #[inline(always)]
    fn index(&self, key: u32) -> usize {
        let low = self.low[key as usize & (HALF_KEYS - 1)];
        let high = self.high[(key >> (KEY_BITS / 2)) as usize & (HALF_KEYS - 1)];
        (low + high) as usize & (MAX_PAIR_ENTRIES - 1)
    }

    /// Builds the compact table of `pair(key)` over all keys.
    fn build(pair: impl Fn(u32) -> u16) -> PairTable {
        // The class of each half: halves with the same row (or column) of pairs are equal.
        let classes = |key_of: &dyn Fn(u32, u32) -> u32| -> (Vec<u16>, usize) {
            let mut ids: HashMap<Vec<u16>, u16> = HashMap::new();
            let class = (0..HALF_KEYS as u32)
                .map(|h| {
                    let row: Vec<u16> = (0..HALF_KEYS as u32).map(|o| pair(key_of(h, o))).collect();
                    let n = ids.len() as u16;
                    *ids.entry(row).or_insert(n)
                })
                .collect();
            (class, ids.len())
        };
        let half = KEY_BITS / 2;
        let (low, n_low) = classes(&|h, o| h | o << half);
        let (high, n_high) = classes(&|h, o| o | h << half);
        assert!(
            n_low * n_high <= MAX_PAIR_ENTRIES,
            "{n_low} x {n_high} half-line classes"
        );
        let mut table = PairTable {
            low: [0; HALF_KEYS],
            high: [0; HALF_KEYS],
            pairs: vec![0u16; MAX_PAIR_ENTRIES]
                .into_boxed_slice()
                .try_into()
                .expect("MAX_PAIR_ENTRIES entries"),
        };
        table.low.copy_from_slice(&low);
        for (t, &h) in table.high.iter_mut().zip(&high) {
            *t = h * n_low as u16;
        }
        for key in 0..TABLE_LEN as u32 {
            let i = table.index(key);
            table.pairs[i] = pair(key);
        }
        table
    }
}

/// [`PairTable::get`] with the address of the boxed pair array held: where lookups alternate
/// with stores that the compiler cannot tell apart from the table (as in
/// [`super::fast::FastBoard::put`]), the table's fields are otherwise read again for each one.
#[derive(Clone, Copy)]
pub struct PairLookup<'a> {
    low: &'a [u16; HALF_KEYS],
    high: &'a [u16; HALF_KEYS],
    pairs: &'a [u16; MAX_PAIR_ENTRIES],
}

impl PairLookup<'_> {
    /// The pair of the line key `key` (only its [`KEY_BITS`] low bits are read).
    #[inline(always)]
    pub fn get(&self, key: u32) -> u16 {
        let low = self.low[key as usize & (HALF_KEYS - 1)];
        let high = self.high[(key >> (KEY_BITS / 2)) as usize & (HALF_KEYS - 1)];
        self.pairs[(low + high) as usize & (MAX_PAIR_ENTRIES - 1)]
    }
}

static PAIRS: [OnceLock<PairTable>; Rule::ALL.len()] = [const { OnceLock::new() }; Rule::ALL.len()];

/// The [`PairTable`] of `rule` (built on first use from [`table`], then shared).
pub fn pair_table(rule: Rule) -> &'static PairTable {
    PAIRS[rule.index()].get_or_init(|| {
        let (black, white) = (
            table(Sem::of(rule, Color::Black)),
            table(Sem::of(rule, Color::White)),
        );
        // Bit 7 of each byte is cleared, which changes only the keys no line has (UNSET, seen
        // only by wall cells), so that the board can use bit 15 as a flag.
        PairTable::build(|key| {
            let w = white[swap_colors(key) as usize & (TABLE_LEN - 1)];
            (black[key as usize] as u16 | (w as u16) << 8) & PAIR_BITS
        })
    })
}

/// The bits a [`PairTable`] entry may have set: a pattern byte's bit 7 is never used.
pub const PAIR_BITS: u16 = 0x7f7f;
const _: () = assert!((CLASS_MASK | DOUBLE_FOUR | OVERLINE) & 0x80 == 0);

/// The bits of a line key (masking with it lets a table index need no bounds check).
pub const KEY_MASK: u32 = (1 << KEY_BITS) - 1;

/// What playing a cell does for one colour, all four lines together, ordered by strength.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Threat {
    /// Nothing worth naming.
    None = 0,
    /// Some ones and twos.
    Low = 1,
    /// Two flex twos, or a blocked three.
    Two2 = 2,
    /// A blocked three with a flex two (builds a double threat next move).
    Three2 = 3,
    /// One flex three: threatens a straight four.
    Flex3 = 4,
    /// Two flex threes (renju black: possibly forbidden).
    Three3 = 5,
    /// A blocked four: forces one reply.
    Block4 = 6,
    /// A four plus a flex three: wins unless the reply to the four counters.
    Four3 = 7,
    /// A straight four or two fours: wins next move (renju black: double four is forbidden).
    Flex4 = 8,
    /// Five: wins now.
    Five = 9,
}

impl Threat {
    /// The threat of value `v` (values above 9 read as `Five`; boards store only 0..=9). A
    /// `match` rather than an indexed table: no bounds check on the hot path.
    #[inline]
    pub fn from_u8(v: u8) -> Threat {
        match v {
            0 => Threat::None,
            1 => Threat::Low,
            2 => Threat::Two2,
            3 => Threat::Three2,
            4 => Threat::Flex3,
            5 => Threat::Three3,
            6 => Threat::Block4,
            7 => Threat::Four3,
            8 => Threat::Flex4,
            _ => Threat::Five,
        }
    }
}

/// Value of one line pattern for the evaluation, in centi-stones (indexed by [`Pattern`]).
///
/// Fitted to game results (`examples/tune_eval.rs --extra`, logistic regression over 91k
/// freestyle positions from 2.7k games between versions of Rensa, together with the search's
/// indicator terms `eval::INDICATORS`). Against the hand-set table that caro keeps
/// ([`EvalWeights::CARO`]) a first fit without indicators gained about 40 Elo in freestyle and
/// exact five and 150 in renju, but lost about 90 in caro; this fit with the indicators gained
/// another 45 in freestyle and exact five and 28 in renju (200 ms per move, 100-game A/B matches,
/// balanced openings; README "Measured"). A cell that makes a single flex three is valued
/// through its threat class (the Flex3 bonus) rather than its line pattern, and a cell that makes
/// a four-three counts for much more.
pub const PATTERN_SCORE: [i32; 10] = [0, 0, 2, 5, 9, 23, 0, 105, 419, 2000];

/// Bonus of a cell's combined threat class (indexed by [`Threat`]), on top of its patterns.
pub const THREAT_BONUS: [i32; 10] = [0, 4, 0, 11, 55, 51, 19, 968, 343, 0];

/// The evaluation's weights: a cell's score for a colour is the sum of its four line patterns'
/// scores plus the bonus of its threat class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalWeights {
    pub pattern: [i32; 10],
    pub bonus: [i32; 10],
}

impl EvalWeights {
    /// Freestyle, exact five and renju.
    pub const DEFAULT: EvalWeights = EvalWeights {
        pattern: PATTERN_SCORE,
        bonus: THREAT_BONUS,
    };

    /// Caro: the hand-set table (too few caro games for a fit yet).
    pub const CARO: EvalWeights = EvalWeights {
        pattern: [0, 2, 5, 8, 20, 28, 80, 90, 400, 2000],
        bonus: [0, 0, 0, 30, 0, 250, 0, 500, 600, 0],
    };

    /// The built-in weights of `rule`.
    pub fn of(rule: Rule) -> EvalWeights {
        match rule {
            Rule::Caro { .. } => EvalWeights::CARO,
            _ => EvalWeights::DEFAULT,
        }
    }
}

/// Weights that replace the built-in ones for every rule (experiments only).
static OVERRIDE: OnceLock<Option<EvalWeights>> = OnceLock::new();

/// Replaces the evaluation weights of every rule for the whole process (developers' A/B
/// experiments through `RENSA_TUNING`). Only works before the first board is built; returns
/// whether it did.
pub fn set_weights(w: EvalWeights) -> bool {
    OVERRIDE.set(Some(w)).is_ok()
}

/// The weights in force for `rule`.
pub fn weights(rule: Rule) -> EvalWeights {
    OVERRIDE
        .get_or_init(|| None)
        .unwrap_or_else(|| EvalWeights::of(rule))
}

fn combine(p: [Pattern; 4], w: &EvalWeights) -> (Threat, i32) {
    let count = |f: &dyn Fn(Pattern) -> bool| p.iter().filter(|&&x| f(x)).count();
    let fives = count(&|x| x == Pattern::Five);
    let flex4 = count(&|x| x == Pattern::Flex4);
    let fours = count(&|x| x == Pattern::Block4) + flex4;
    let flex3 = count(&|x| x == Pattern::Flex3);
    let block3 = count(&|x| x == Pattern::Block3);
    let flex2 = count(&|x| x == Pattern::Flex2);
    let threat = if fives > 0 {
        Threat::Five
    } else if flex4 > 0 || fours >= 2 {
        Threat::Flex4
    } else if fours == 1 && flex3 > 0 {
        Threat::Four3
    } else if fours == 1 {
        Threat::Block4
    } else if flex3 >= 2 {
        Threat::Three3
    } else if flex3 == 1 {
        Threat::Flex3
    } else if block3 >= 1 && flex2 >= 1 {
        Threat::Three2
    } else if block3 >= 1 || flex2 >= 2 {
        Threat::Two2
    } else if p.iter().any(|&x| x != Pattern::Dead) {
        Threat::Low
    } else {
        Threat::None
    };
    let base: i32 = p.iter().map(|&x| w.pattern[x as usize]).sum();
    (threat, base + w.bonus[threat as usize])
}

/// Combinations of four line classes (`0..=9` each, one per direction): 10^4.
pub const COMBOS: usize = 10_000;
/// Entries of a [`ComboTable`]: a power of two above [`COMBOS`], so that a masked index needs
/// no bounds check.
pub const COMBO_LEN: usize = 1 << 14;
/// Weight of direction `d`'s class in a combo index (the classes are base-10 digits).
pub const COMBO_WEIGHT: [u16; 4] = [1, 10, 100, 1000];

/// The combo-table index of four pattern classes (`0..=9` each): direction `d`'s class is the
/// base-10 digit of weight `COMBO_WEIGHT[d]`. A dense index keeps the table's used part at 40
/// KB, close to the first-level cache (a nibble-packed index spread it over 64 KB of a 256 KB
/// table).
#[inline]
pub fn combo_index(classes: [u8; 4]) -> usize {
    classes
        .iter()
        .zip(COMBO_WEIGHT)
        .map(|(&c, w)| c as usize * w as usize)
        .sum()
}

/// The multiset of the combination at combo-table index `i` (below [`COMBOS`]): its four
/// classes sorted ascending, read as a base-10 number with the lowest class as the lowest digit.
/// The directions' order does not matter to it.
pub fn combo_multiset(i: usize) -> usize {
    let mut digits = COMBO_WEIGHT.map(|wd| (i / wd as usize % 10) as u8);
    digits.sort_unstable();
    digits
        .iter()
        .rev()
        .fold(0usize, |acc, &d| acc * 10 + d as usize)
}

/// Combined threat and score of a cell from its four line patterns (indexed by
/// [`combo_index`]). Each entry packs the [`Threat`] in bits 0..16 and the (non-negative) score
/// in bits 16.., so one lookup gives both, and the board sums the changes of whole entries: the
/// score changes come out of the sum's high bits, because the threat changes of the 40 cells a
/// move refreshes cannot reach bit 15 (see [`ComboTable::score_of_sum`]).
pub struct ComboTable {
    /// [`COMBO_LEN`] entries; those from [`COMBOS`] on are never used.
    pub entry: Box<[u32; COMBO_LEN]>,
}

impl ComboTable {
    /// The entry of threat `t` and score `s` (non-negative).
    fn pack(t: u8, s: i16) -> u32 {
        debug_assert!(s >= 0);
        (s as u32) << 16 | t as u32
    }

    #[inline]
    pub fn threat_of(e: u32) -> u8 {
        e as u8
    }

    #[inline]
    pub fn score_of(e: u32) -> i16 {
        (e >> 16) as i16
    }

    /// The sum of the score changes of a sum of entry changes (`new - old` per entry, in
    /// wrapping `u64` arithmetic) over at most [`Self::MAX_SUMMED`] entries: their threat
    /// changes sum to less than half of bit 16 either way, which rounding removes.
    #[inline]
    pub fn score_of_sum(sum: u64) -> i32 {
        const _: () = assert!(ComboTable::MAX_SUMMED * 9 < 1 << 15);
        ((sum as i64 + (1 << 15)) >> 16) as i32
    }

    /// The most entry changes [`Self::score_of_sum`] reads back.
    pub const MAX_SUMMED: usize = 1000;
}

/// Experimental per-combination score corrections (see [`set_combo_corrections`]).
static COMBO_CORRECTIONS: OnceLock<Option<Box<[i32; COMBOS]>>> = OnceLock::new();

/// Adds a correction to the score of every combination of four classes, for every rule
/// and on top of any built-in ones ([`combo_for`]) (developers' experiments:
/// `examples/fit_combo.rs` and `examples/fit_choices.py --combos` fit them, `RENSA_COMBO=FILE`
/// loads them). `corrections[m]` applies to the combinations of multiset `m` (see
/// [`combo_multiset`]). Only works before the first board is built; returns whether it did.
pub fn set_combo_corrections(corrections: Box<[i32; COMBOS]>) -> bool {
    COMBO_CORRECTIONS.set(Some(corrections)).is_ok()
}

/// Reads per-combination corrections: one `multiset correction` pair per line (multiset as
/// [`combo_multiset`] numbers it), blank lines skipped; multisets not named get 0.
pub fn parse_combo_corrections(text: &str) -> Result<Box<[i32; COMBOS]>, String> {
    let mut c = Box::new([0i32; COMBOS]);
    for (n, line) in text.lines().enumerate() {
        let mut it = line.split_whitespace();
        let Some(m) = it.next() else { continue };
        let line_no = n + 1;
        let bad = || format!("line {line_no}: expected 'multiset correction'");
        let m: usize = m.parse().map_err(|_| bad())?;
        let v: i32 = it.next().ok_or_else(bad)?.parse().map_err(|_| bad())?;
        if it.next().is_some() {
            return Err(bad());
        }
        if m >= COMBOS {
            return Err(format!("line {line_no}: index {m} out of range"));
        }
        if combo_multiset(m) != m {
            return Err(format!(
                "line {line_no}: {m} is not a multiset index (its digits must not rise from \
                 the highest to the lowest, as in 7554)"
            ));
        }
        c[m] = v;
    }
    Ok(c)
}

/// A built-in set of per-combination corrections of the cell scores (`nets/*.combo`): fitted by
/// comparison training together with one board's network to PentaZen's moves in its games
/// against itself (`examples/fit_choices.py --combos`; docs/measurements.md, forty-third and
/// forty-fourth sessions). Each applies on its own board only ([`corrections`]), where that
/// network is used; elsewhere the networks were fitted on uncorrected scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Corrections {
    /// 15x15 renju (`nets/renju.combo`, with [`crate::eval::BuiltInNet::Renju`]).
    Renju15,
    /// 15x15 freestyle (`nets/freestyle.combo`, with [`crate::eval::BuiltInNet::Freestyle15`]).
    Freestyle15,
    /// 15x15 exact five (`nets/standard.combo`, with [`crate::eval::BuiltInNet::Exact15`]).
    Exact15,
    /// 20x20 freestyle (`nets/freestyle20.combo`, with
    /// [`crate::eval::BuiltInNet::Freestyle20Corrected`]; forty-fifth session).
    Freestyle20,
}

impl Corrections {
    /// Every set, in the order of their discriminants.
    pub const ALL: [Corrections; 4] = [
        Corrections::Renju15,
        Corrections::Freestyle15,
        Corrections::Exact15,
        Corrections::Freestyle20,
    ];

    /// The rule and the side of the square board the set was fitted on.
    pub fn board(self) -> (Rule, usize) {
        match self {
            Corrections::Renju15 => (Rule::Renju, 15),
            Corrections::Freestyle15 => (Rule::Freestyle, 15),
            Corrections::Exact15 => (Rule::Exact, 15),
            Corrections::Freestyle20 => (Rule::Freestyle, 20),
        }
    }

    /// The corrections, indexed by multiset ([`combo_multiset`]; parsed once per process).
    pub fn values(self) -> &'static [i32; COMBOS] {
        static PARSED: [OnceLock<Box<[i32; COMBOS]>>; Corrections::ALL.len()] =
            [const { OnceLock::new() }; Corrections::ALL.len()];
        let text = match self {
            Corrections::Renju15 => include_str!("../../nets/renju.combo"),
            Corrections::Freestyle15 => include_str!("../../nets/freestyle.combo"),
            Corrections::Exact15 => include_str!("../../nets/standard.combo"),
            Corrections::Freestyle20 => include_str!("../../nets/freestyle20.combo"),
        };
        PARSED[self as usize]
            .get_or_init(|| parse_combo_corrections(text).expect("built-in corrections"))
    }
}

/// The built-in corrections a board of `rule` and this size takes, if any: those fitted on
/// that very board ([`Corrections::board`]).
pub fn corrections(rule: Rule, width: usize, height: usize) -> Option<Corrections> {
    Corrections::ALL
        .into_iter()
        .find(|c| width == height && c.board() == (rule, width))
}

/// Whether renju black's foul shapes score nothing (see [`combo_for`]); off unless a
/// developers' experiment turns it on with [`set_renju_foul_scores`] (knob `rfz`).
static RENJU_FOUL_SCORES_ZERO: OnceLock<bool> = OnceLock::new();

/// Sets whether renju black's cells that would be double fours or double threes score nothing
/// for black, or as in the other rules (the default). Only works before the first renju board
/// is built; returns whether it did.
pub fn set_renju_foul_scores(zero: bool) -> bool {
    RENJU_FOUL_SCORES_ZERO.set(zero).is_ok()
}

/// Whether the line classes `p` make a renju foul for black: two fours, or two flex threes,
/// without a five (the referee's finer "real three" test is not applied: a few such cells are
/// in fact legal).
fn renju_foul_shape(p: [Pattern; 4]) -> bool {
    let count = |f: &dyn Fn(Pattern) -> bool| p.iter().filter(|&&x| f(x)).count();
    let fives = count(&|x| x == Pattern::Five);
    let fours = count(&|x| x == Pattern::Block4 || x == Pattern::Flex4);
    let flex3 = count(&|x| x == Pattern::Flex3);
    fives == 0 && (fours >= 2 || flex3 >= 2)
}

/// Whether the cell with line classes `p` scores nothing for `c` under `rule` because it would
/// be a renju foul for black (see [`combo_for`]); the evaluation fitters skip such cells.
pub fn scores_as_foul(rule: Rule, c: Color, p: [Pattern; 4]) -> bool {
    rule == Rule::Renju
        && c == Color::Black
        && *RENJU_FOUL_SCORES_ZERO.get_or_init(|| false)
        && renju_foul_shape(p)
}

/// The combination table `c` uses under `rule`: [`combo`], or its form with the built-in
/// `corrections` (those [`corrections`] gives the board); and for renju black,
/// when [`set_renju_foul_scores`] turned it on, that table with black's cells that would be
/// fouls (double fours, double threes) scoring nothing, as black may not play there; their
/// threat classes stay, so that the move generator still tests them. Off by default: against
/// the same build, renju at 200 ms/move scored 95-11-94, and against PentaZen at 1 s it scored
/// 21-0-39 where the build without it scored 24-2-34 on the same 60 openings.
pub fn combo_for(rule: Rule, c: Color, corrections: Option<Corrections>) -> &'static ComboTable {
    if rule == Rule::Renju && c == Color::Black && *RENJU_FOUL_SCORES_ZERO.get_or_init(|| false) {
        renju_black_combo(corrections)
    } else if let Some(k) = corrections {
        corrected_combo(rule, k)
    } else {
        combo(rule)
    }
}

/// Builds every combination table `rule` may use (see [`combo_for`]).
pub fn prepare_combos(rule: Rule) {
    let sets = Corrections::ALL.into_iter().filter(|k| k.board().0 == rule);
    for k in std::iter::once(None).chain(sets.map(Some)) {
        for c in [Color::Black, Color::White] {
            combo_for(rule, c, k);
        }
    }
}

/// The renju combination table (with `corrections` or without) with black's foul shapes
/// scoring nothing (see [`combo_for`]).
fn renju_black_combo(corrections: Option<Corrections>) -> &'static ComboTable {
    static TABLES: [OnceLock<ComboTable>; Corrections::ALL.len() + 1] =
        [const { OnceLock::new() }; Corrections::ALL.len() + 1];
    let (cell, base) = match corrections {
        Some(k) => (&TABLES[k as usize + 1], corrected_combo(Rule::Renju, k)),
        None => (&TABLES[0], combo(Rule::Renju)),
    };
    cell.get_or_init(|| {
        let mut entry = base.entry.clone();
        for (i, e) in entry.iter_mut().enumerate().take(COMBOS) {
            if renju_foul_shape(COMBO_WEIGHT.map(|wd| Pattern::ALL[i / wd as usize % 10])) {
                *e = ComboTable::pack(ComboTable::threat_of(*e), 0);
            }
        }
        ComboTable { entry }
    })
}

/// The four-direction combination table of `rule` without built-in corrections (built on
/// first use; caro has its own weights).
pub fn combo(rule: Rule) -> &'static ComboTable {
    static MAIN: OnceLock<ComboTable> = OnceLock::new();
    static CARO: OnceLock<ComboTable> = OnceLock::new();
    let table = match rule {
        Rule::Caro { .. } => &CARO,
        _ => &MAIN,
    };
    table.get_or_init(|| build_combo(rule, None))
}

/// [`combo`] with the built-in corrections `k` (built on first use; a set serves the rule it
/// was fitted for, so one table per set).
fn corrected_combo(rule: Rule, k: Corrections) -> &'static ComboTable {
    static TABLES: [OnceLock<ComboTable>; Corrections::ALL.len()] =
        [const { OnceLock::new() }; Corrections::ALL.len()];
    debug_assert_eq!(k.board().0, rule, "corrections of another rule");
    TABLES[k as usize].get_or_init(|| build_combo(rule, Some(k.values())))
}

/// A combination table of `rule`'s weights, with `built_in` corrections and the experimental
/// ones ([`set_combo_corrections`]) added to the scores, which stay non-negative.
fn build_combo(rule: Rule, built_in: Option<&[i32; COMBOS]>) -> ComboTable {
    let mut entry: Box<[u32; COMBO_LEN]> = vec![0u32; COMBO_LEN]
        .into_boxed_slice()
        .try_into()
        .expect("COMBO_LEN entries");
    let w = weights(rule);
    let experimental = COMBO_CORRECTIONS.get_or_init(|| None).as_ref();
    for (i, e) in entry.iter_mut().enumerate().take(COMBOS) {
        let p = COMBO_WEIGHT.map(|wd| Pattern::ALL[i / wd as usize % 10]);
        let (t, mut s) = combine(p, &w);
        for c in built_in.into_iter().chain(experimental.map(|c| &**c)) {
            s += c[combo_multiset(i)];
        }
        *e = ComboTable::pack(t as u8, s.clamp(0, i16::MAX as i32) as i16);
    }
    ComboTable { entry }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_pair_table_matches_the_pattern_tables_on_every_key() {
        for rule in Rule::ALL {
            let pairs = pair_table(rule);
            let black = table(Sem::of(rule, Color::Black));
            let white = table(Sem::of(rule, Color::White));
            for key in 0..TABLE_LEN as u32 {
                let (b, w) = (black[key as usize], white[swap_colors(key) as usize]);
                // Bit 7 is cleared (see [`PAIR_BITS`]): set only in keys no line has.
                assert!(b & 0x80 == 0 || b == UNSET, "{rule:?} key {key:#x}");
                assert!(w & 0x80 == 0 || w == UNSET, "{rule:?} key {key:#x}");
                let (b, w) = (b & 0x7f, w & 0x7f);
                let got = pairs.get(key);
                assert_eq!(
                    (got as u8, (got >> 8) as u8),
                    (b, w),
                    "{rule:?} key {key:#x}"
                );
            }
            // Only the key bits are read.
            assert_eq!(pairs.get(0x1234 | 1 << KEY_BITS), pairs.get(0x1234));
        }
    }

    /// Builds a key from a picture like `"..XX?X..."` centred on `?` (10 neighbours, `#` = wall,
    /// `X` own, `O` opponent).
    fn key_of(picture: &str) -> u32 {
        let cells: Vec<char> = picture.chars().collect();
        let c = cells.iter().position(|&ch| ch == '?').expect("centre");
        let mut line = [EMPTY; 11];
        for k in -HALF..=HALF {
            let idx = c as i32 + k;
            line[(k + HALF) as usize] = if k == 0 {
                OWN
            } else if idx < 0 || idx >= cells.len() as i32 {
                WALL
            } else {
                match cells[idx as usize] {
                    'X' => OWN,
                    'O' => OPP,
                    '#' => WALL,
                    _ => EMPTY,
                }
            };
        }
        encode(&line)
    }

    fn pat(sem: Sem, picture: &str) -> (Pattern, u8) {
        let b = table(sem)[key_of(picture) as usize];
        (Pattern::from_byte(b), b & !CLASS_MASK)
    }

    #[test]
    fn basic_shapes_classify() {
        let s = Sem::Ge5;
        assert_eq!(pat(s, ".....XX?XX.....").0, Pattern::Five);
        assert_eq!(pat(s, "......X?XX......").0, Pattern::Flex4);
        assert_eq!(pat(s, ".....OX?XX......").0, Pattern::Block4);
        assert_eq!(pat(s, "......X?X.......").0, Pattern::Flex3);
        assert_eq!(pat(s, ".....OX?X.......").0, Pattern::Block3);
        assert_eq!(pat(s, "......X?........").0, Pattern::Flex2);
        assert_eq!(pat(s, "......O?O.......").0, Pattern::Dead);
        assert_eq!(pat(s, "#?XXX.").0, Pattern::Block4);
        assert_eq!(pat(s, ".....XXX?XX.....").0, Pattern::Five);
    }

    #[test]
    fn exact_rules_see_overlines() {
        assert_ne!(pat(Sem::Eq5, ".....XXX?XX.....").0, Pattern::Five);
        let (p, f) = pat(Sem::RenjuBlack, ".....XXX?XX.....");
        assert_eq!(p, Pattern::Dead);
        assert_eq!(f, OVERLINE);
        // X_X?X_X: two fours on one line.
        let (p, f) = pat(Sem::RenjuBlack, "...X.X?X.X...");
        assert_eq!(p, Pattern::Flex4);
        assert_eq!(f, DOUBLE_FOUR);
        // An open three next to an own stone (X_XX?_ would overline): only a blocked-type shape.
        assert_eq!(pat(Sem::Eq5, "....X.XX?......").0, Pattern::Block4);
    }

    #[test]
    fn caro_closed_five_is_not_five() {
        assert_eq!(pat(Sem::Caro9, "....OXX?XXO....").0, Pattern::Dead);
        assert_eq!(pat(Sem::Caro9, "....OXX?XX.....").0, Pattern::Five);
        assert_eq!(pat(Sem::Caro9, "#XX?XXO").0, Pattern::Five);
        assert_eq!(pat(Sem::Caro8, "...OXXX?XXO....").0, Pattern::Five);
        assert_ne!(pat(Sem::Caro9, "...OXXX?XXO....").0, Pattern::Five);
    }

    #[test]
    fn threat_from_u8_inverts_the_discriminant() {
        for v in 0..=9u8 {
            assert_eq!(Threat::from_u8(v) as u8, v);
        }
        assert_eq!(Threat::from_u8(200), Threat::Five);
    }

    #[test]
    fn swap_colors_swaps_only_stones() {
        let k = key_of(".OX?#");
        let s = swap_colors(k);
        assert_eq!(swap_colors(s), k);
        assert_eq!(s, key_of(".XO?#"));
    }

    #[test]
    fn renju_black_foul_shapes_can_score_nothing_but_keep_their_class() {
        use Pattern::*;
        let ix = |p: [Pattern; 4]| combo_index(p.map(|x| x as u8));
        let (main, black) = (combo(Rule::Renju), renju_black_combo(None));
        // Double three, double four, four-three-three: fouls; their class stays.
        for p in [
            [Flex3, Flex3, Dead, Dead],
            [Block4, Block4, Dead, Dead],
            [Flex4, Block4, Flex2, Dead],
            [Block4, Flex3, Flex3, Dead],
        ] {
            let (m, b) = (main.entry[ix(p)], black.entry[ix(p)]);
            assert!(ComboTable::score_of(m) > 0, "{p:?}");
            assert_eq!(ComboTable::score_of(b), 0, "{p:?}");
            assert_eq!(ComboTable::threat_of(b), ComboTable::threat_of(m), "{p:?}");
        }
        // A five, a four-three and a single three are not fouls.
        for p in [
            [Five, Block4, Block4, Dead],
            [Block4, Flex3, Dead, Dead],
            [Flex3, Flex2, Flex2, Dead],
        ] {
            assert_eq!(black.entry[ix(p)], main.entry[ix(p)], "{p:?}");
        }
        // Off by default: both colours use the same table.
        assert!(std::ptr::eq(
            combo_for(Rule::Renju, Color::Black, None),
            main
        ));
        let k = Some(Corrections::Renju15);
        assert!(std::ptr::eq(
            combo_for(Rule::Renju, Color::White, k),
            combo_for(Rule::Renju, Color::Black, k)
        ));
    }

    #[test]
    fn corrected_boards_take_the_built_in_corrections_and_every_cell_score_stays_in_range() {
        for k in Corrections::ALL {
            let rule = k.board().0;
            let plain = combo(rule);
            let fixed = combo_for(rule, Color::White, Some(k));
            let c = k.values();
            let mut changed = 0;
            for i in 0..COMBOS {
                let (p, f) = (plain.entry[i], fixed.entry[i]);
                assert_eq!(ComboTable::threat_of(p), ComboTable::threat_of(f), "{i}");
                let want = (ComboTable::score_of(p) as i32 + c[combo_multiset(i)]).max(0);
                assert_eq!(ComboTable::score_of(f) as i32, want, "{k:?} {i}");
                changed += (p != f) as usize;
            }
            assert!(changed > 1000, "{k:?}: {changed} combinations changed");
        }
        // Only on their own boards, where the networks fitted with them are used.
        for rule in Rule::ALL {
            for (w, h) in [
                (15, 15),
                (15, 16),
                (16, 15),
                (20, 20),
                (14, 14),
                (19, 19),
                (20, 21),
            ] {
                use crate::eval::{built_in_net, BuiltInNet};
                let want = match built_in_net(rule, w, h) {
                    Some(BuiltInNet::Renju) => Some(Corrections::Renju15),
                    Some(BuiltInNet::Freestyle15) => Some(Corrections::Freestyle15),
                    Some(BuiltInNet::Exact15) => Some(Corrections::Exact15),
                    Some(BuiltInNet::Freestyle20Corrected) => Some(Corrections::Freestyle20),
                    _ => None,
                };
                assert_eq!(corrections(rule, w, h), want, "{rule} {w}x{h}");
            }
        }
    }

    #[test]
    fn combo_corrections_parse_and_reject_bad_lines() {
        let c = parse_combo_corrections("2222 5\n\n7554 -40\n").unwrap();
        assert_eq!((c[2222], c[7554], c[1110]), (5, -40, 0));
        for bad in ["2222", "2222 x", "1234 1", "10000 1", "2222 1 2", "-1 3"] {
            assert!(parse_combo_corrections(bad).is_err(), "{bad}");
        }
        let e = parse_combo_corrections("2222 1\n12000 5").unwrap_err();
        assert!(e.contains("line 2") && e.contains("out of range"), "{e}");
    }
}
