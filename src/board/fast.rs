//! The search board: a padded grid with incrementally updated line patterns, threats and hash.
//!
//! Cells live on a grid padded with five wall cells on every side, so walking five steps along any
//! line from an on-board cell never needs a bounds check. For every cell and each of the four
//! directions the board keeps a 20-bit line key (the ten neighbours, see [`pattern`]); a move
//! flips two bits in the keys of the 40 cells that see it, and those cells' patterns, combined
//! threats and evaluation scores are refreshed by table lookups. Undo runs the same update in
//! reverse, so no snapshots are needed beyond the move list.
//!
//! Renju: black's forbidden points are found from the patterns (double four, overline) and, for
//! possible double threes only, by the recursive "real three" test of the referee algorithm run on
//! this board. The slow oracle [`super::rules`] is the reference; tests compare the two.

use super::pattern::{
    self, swap_colors, ComboTable, PairTable, Pattern, Sem, Threat, CLASS_MASK, COMBO_LEN,
    COMBO_WEIGHT, DOUBLE_FOUR, KEY_MASK, OVERLINE, TABLE_LEN,
};
use super::{BoardError, Game};
use crate::pos::{Pos, MAX_SIDE, MIN_SIDE};
use crate::types::{Color, Rule};
use crate::zobrist;

/// Wall cells around the board on each side.
pub const PAD: usize = 5;
/// Cell contents.
pub const EMPTY: u8 = 0;
pub const BLACK: u8 = 1;
pub const WHITE: u8 = 2;
pub const WALL: u8 = 3;

/// Cell value of a colour.
#[inline]
pub fn stone(c: Color) -> u8 {
    match c {
        Color::Black => BLACK,
        Color::White => WHITE,
    }
}

/// A padded-grid cell index.
pub type Idx = usize;

/// Slots of the per-cell arrays: every board's padded grid fits (checked below), and the fixed
/// length lets [`FastBoard::put`] and [`FastBoard::take`] index with a mask instead of a bounds
/// check (about 120 of them per move).
const GRID: usize = 8192;
const _: () = assert!((MAX_SIDE + 2 * PAD) * (MAX_SIDE + 2 * PAD) <= GRID);

/// The in-grid slot of a cell index (the identity for every index of the board's grid; debug
/// builds check that it is one).
#[inline(always)]
fn slot(q: Idx) -> usize {
    debug_assert!(q < GRID);
    q & (GRID - 1)
}

/// A per-cell array of [`GRID`] slots, all `v`.
fn grid<T: Clone>(v: T) -> Box<[T; GRID]> {
    vec![v; GRID]
        .into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| unreachable!("GRID elements"))
}

/// The incremental search board.
#[derive(Clone)]
pub struct FastBoard {
    width: usize,
    height: usize,
    stride: usize,
    rule: Rule,
    /// The pattern tables of black and white (fixed length: a masked key needs no bounds check).
    tables: [&'static [u8; TABLE_LEN]; 2],
    /// The same two tables side by side, for the incremental updates (see [`pattern::pair_table`]).
    pairs: &'static PairTable,
    /// Per colour (renju black has its own, see [`pattern::combo_for`]).
    combo: [&'static ComboTable; 2],
    /// Index offsets of the four directions: (1,0), (0,1), (1,1), (-1,1).
    pub dirs: [isize; 4],
    /// Cells of the padded grid (`stride * (height + 2 * PAD)` of the [`GRID`] slots; the rest
    /// are walls and unused), then per direction and cell the line keys, and per cell the state.
    cells: Box<[u8; GRID]>,
    /// A grid per direction: a key's address is a scaled cell index (with four keys per cell
    /// it took a shift and an add, 80 times a move).
    keys: [Box<[u32; GRID]>; 4],
    /// Per cell: patterns, threat and score (see [`CellState`]).
    state: Box<[CellState; GRID]>,
    totals: Totals,
    /// Number of stones within the 5x5 square around each cell (or, with `near_star`, on the
    /// eight lines through it within two steps).
    near: Box<[u8; GRID]>,
    /// Whether [`FastBoard::is_near`] counts only the 16 cells on the lines through a cell
    /// within two steps (the "star") instead of the whole 5x5 square.
    near_star: bool,
    hash: u64,
    history: Vec<Undo>,
    /// Cell states as they were before each put since the first move, newest last, [`LOGGED`]
    /// per put: undo restores them instead of recomputing (see [`FastBoard::put`]). The first
    /// `log_len` entries are the log; the buffer only grows.
    log: Vec<CellState>,
    log_len: usize,
    bbox: Bbox,
    /// Null moves in force (see [`FastBoard::make_null`]): each passes the move once.
    passes: usize,
}

/// What a cell knows about itself, per colour. For an empty cell: the pattern byte (class and
/// flags) of each direction, and the combo-table entry of the four (the combined threat and the
/// move-ordering / evaluation score). An occupied cell has entry 0 (threat 0, score 0); its
/// patterns are those it had when it was filled, with the [`OCCUPIED`] flag (they are not
/// maintained while it is occupied and come back with the undo log).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct CellState {
    /// Per direction, the pattern bytes of both colours as the pair table gives them (black's in
    /// the low byte): [`FastBoard::put`] compares and stores a direction's two as one.
    pats: [u16; 4],
    /// The combo-table index of the four pattern classes of colour `c` (see
    /// [`pattern::combo_index`]).
    packed: [u16; 2],
    /// The combo-table entry (see [`ComboTable`]), kept whole: [`FastBoard::put`] sums the
    /// changes of whole entries, one subtraction for the score and threat together.
    combo: [u32; 2],
}

/// A flag in each of [`CellState::pats`] while the cell is occupied, and always for walls (no
/// pair-table entry has it, see [`pattern::PAIR_BITS`]): [`FastBoard::put`] tells the cells to
/// refresh, empty with a new pair, from the stored pair alone (see [`refresh_dir`]).
const OCCUPIED: u16 = 0x8000;
const _: () = assert!(pattern::PAIR_BITS & OCCUPIED == 0);

impl CellState {
    /// The pattern byte of colour index `c` along direction `d`.
    #[inline(always)]
    fn pat(&self, c: usize, d: usize) -> u8 {
        ((self.pats[d] & !OCCUPIED) >> (8 * c)) as u8
    }

    /// The threat of colour index `c` (a [`Threat`] value).
    #[inline(always)]
    fn threat(&self, c: usize) -> u8 {
        ComboTable::threat_of(self.combo[c])
    }

    /// The score of colour index `c`.
    #[inline(always)]
    fn score(&self, c: usize) -> i16 {
        ComboTable::score_of(self.combo[c])
    }

    /// The pattern bytes of colour index `c`, per direction.
    #[inline]
    fn pats_of(&self, c: usize) -> [u8; 4] {
        [0, 1, 2, 3].map(|d| self.pat(c, d))
    }
}

/// The [`CellState::pats`] of per-colour pattern bytes.
fn pair_pats(p: [[u8; 4]; 2]) -> [u16; 4] {
    [0, 1, 2, 3].map(|d| p[0][d] as u16 | (p[1][d] as u16) << 8)
}

/// Sums over the empty cells, per colour: cell scores, and cells per threat (indexed by the
/// threat's value; slots 10..16 stay zero and let a masked index need no bounds check).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Totals {
    score_sum: [i32; 2],
    threat_count: [[u16; 16]; 2],
}

/// What `unmake` needs: the move, and the bounding box, totals and undo-log length before it.
#[derive(Clone, Copy, Debug)]
struct Undo {
    idx: Idx,
    bbox: Bbox,
    log_mark: usize,
    totals: Totals,
}

/// The combo-table index of four pattern bytes (see [`pattern::combo_index`]).
#[inline]
fn combo_index(p: [u8; 4]) -> usize {
    pattern::combo_index(p.map(|b| b & CLASS_MASK))
}

/// The combo-table index `packed` with direction `d`'s class changed from that of the pattern
/// byte `old` to that of `new`. The true index stays below [`pattern::COMBOS`]; wrapping `u16`
/// arithmetic gets there exactly.
#[inline(always)]
fn with_class(packed: u16, d: usize, old: u8, new: u8) -> u16 {
    let (new, old) = ((new & CLASS_MASK) as u16, (old & CLASS_MASK) as u16);
    packed.wrapping_add(new.wrapping_sub(old).wrapping_mul(COMBO_WEIGHT[d]))
}

/// Cells whose line keys a move changes: [`pattern::HALF`] on each side along each direction.
const SEEN: usize = 4 * 2 * pattern::HALF as usize;

/// The undo-log entries of one put: the states of the cell itself (first) and of each cell it
/// sees (at `1 +` its [`seen_slot`]), changed or not. Fixed slots need no cell index (undo
/// walks the same cells to flip their keys back) and no count, and the copies are made with
/// the key lookups, which leaves the refresh with no log to write (it held two registers and
/// a branch-dependent count there).
const LOGGED: usize = SEEN + 1;

/// The slot in `0..SEEN` of the cell `k` steps (`1..=HALF`) along direction `d`, forwards
/// (`j == 0`) or backwards (`j == 1`), in [`FastBoard::put`]'s lookup buffer.
#[inline(always)]
fn seen_slot(d: usize, k: i32, j: usize) -> usize {
    d * 2 * pattern::HALF as usize + 2 * (k as usize - 1) + j
}

/// Per colour, the changes to the empty cells' threat counts and score sums that
/// [`FastBoard::put`]'s refresh has made so far, kept in registers: a read-modify-write of a
/// count in memory per cell chains each update to the previous one through the store, and a
/// branch on whether a cell's threat changed is unpredictable.
///
/// The threat counts are packed in one `u64` per colour, 7 bits per threat from `Low` to
/// `Five`, each digit biased by 64 ([`DELTA_BIAS`], the start): each refreshed cell adds
/// [`THREAT_UNIT`] of its new threat and subtracts that of its old one. One put refreshes at
/// most [`SEEN`] cells, so no count moves by more than 40: the sum ends with every biased digit
/// in 0..128, where each is read back with a shift and a mask ([`Deltas::apply`]; signed digits
/// needed a sign extension and a subtraction each, one after another). Cells keep being empty
/// during the refresh, so the change of the `None` count is minus the others' sum.
///
/// The score sums take the changes of whole combo entries (see [`ComboTable::score_of_sum`]).
#[derive(Clone, Copy)]
struct Deltas {
    counts: [u64; 2],
    entries: [u64; 2],
}

/// Bits per threat count in [`Deltas::counts`].
const DELTA_BITS: u32 = 7;

/// The bias of each digit of [`Deltas::counts`] (half its range).
const DELTA_DIGIT_BIAS: u64 = 1 << (DELTA_BITS - 1);

/// [`Deltas::counts`] with no change: every digit at its bias.
const DELTA_BIAS: u64 = {
    let mut bias = 0;
    let mut t = 1;
    while t <= Threat::Five as u32 {
        bias |= DELTA_DIGIT_BIAS << (DELTA_BITS * (t - 1));
        t += 1;
    }
    bias
};

/// The [`Deltas::counts`] unit of each threat value (`None`, and the byte values above `Five`,
/// have none). A slot per byte value: a threat byte indexes it as it is, with no mask to keep
/// the index in bounds (only the first cache lines are ever read).
static THREAT_UNIT: [u64; 256] = {
    let mut unit = [0u64; 256];
    let mut t = 1;
    while t <= Threat::Five as usize {
        unit[t] = 1 << (DELTA_BITS * (t as u32 - 1));
        t += 1;
    }
    unit
};

impl Deltas {
    /// No changes.
    const NONE: Deltas = Deltas {
        counts: [DELTA_BIAS; 2],
        entries: [0; 2],
    };

    /// Adds the changes to `totals`.
    fn apply(self, totals: &mut Totals) {
        const _: () =
            assert!(DELTA_BITS * Threat::Five as u32 <= 64 && SEEN < DELTA_DIGIT_BIAS as usize);
        const _: () = assert!(SEEN <= ComboTable::MAX_SUMMED);
        for c in 0..2 {
            let count = &mut totals.threat_count[c];
            let packed = self.counts[c];
            debug_assert!(packed < 1 << (DELTA_BITS * Threat::Five as u32));
            // The `None` count moves once, by the digits' sum: moved with each digit, its
            // read-modify-write in memory chained the digits one after another.
            let mut named = 0u16;
            for (shift, n) in (0..)
                .step_by(DELTA_BITS as usize)
                .zip(&mut count[1..Threat::Five as usize + 1])
            {
                let biased = packed >> shift & ((1 << DELTA_BITS) - 1);
                let digit = (biased as u16).wrapping_sub(DELTA_DIGIT_BIAS as u16);
                *n = n.wrapping_add(digit);
                named = named.wrapping_add(digit);
            }
            count[0] = count[0].wrapping_sub(named);
            totals.score_sum[c] += ComboTable::score_of_sum(self.entries[c]);
        }
    }
}

/// Sets the patterns of the cell (state `st`) along `D`, if it is empty, to those of the
/// pair-table entry `pair` of its key, and its threat and score from the combo table, recording
/// the changes in `deltas`.
///
/// Fields are updated one by one, each with its own width (the packed classes as a `u16`, not
/// re-read from the pattern bytes): a wide load of freshly stored narrow fields stalls the CPU
/// (failed store forwarding), which cost more than the lookups saved.
#[inline(always)]
fn refresh_dir<const D: usize>(
    st: &mut CellState,
    pair: u16,
    combo: &[&[u32; COMBO_LEN]; 2],
    deltas: &mut Deltas,
) {
    // Occupied cells (the flag, which no pair has) and unchanged pairs are left alone, with one
    // test: the two pairs' difference is 0 for an unchanged pair and has the flag for an
    // occupied cell. The test of the cell value it replaces was put's most mispredicted branch.
    let old_pair = st.pats[D];
    if (old_pair ^ pair).wrapping_sub(1) >= OCCUPIED - 1 {
        return;
    }
    st.pats[D] = pair;
    let (b, w) = (pair as u8, (pair >> 8) as u8);
    let (old_b, old_w) = (old_pair as u8, (old_pair >> 8) as u8);
    // Both colours are updated without testing whether their class changed: an unchanged class
    // leaves the combo index, and so the threat and score looked up, as they were (an empty
    // cell's threat and score are always those of its combo entry). Which classes change is
    // unpredictable, and mispredicted branches cost more than the lookups.
    for (c, p, old) in [(0, b, old_b), (1, w, old_w)] {
        let packed = with_class(st.packed[c], D, old, p);
        st.packed[c] = packed;
        let (e, old_e) = (combo[c][packed as usize & (COMBO_LEN - 1)], st.combo[c]);
        deltas.counts[c] = deltas.counts[c]
            .wrapping_add(THREAT_UNIT[ComboTable::threat_of(e) as usize])
            .wrapping_sub(THREAT_UNIT[ComboTable::threat_of(old_e) as usize]);
        deltas.entries[c] = deltas.entries[c]
            .wrapping_add(e as u64)
            .wrapping_sub(old_e as u64);
        st.combo[c] = e;
    }
}

/// [`refresh_dir`] for the cells among the [`pattern::HALF`] on each side of `i` along
/// direction `D` (index offset `off`), whose pair-table entries are in `pairs` (see
/// [`seen_slot`]). One copy per direction: with the direction a constant, its pattern bytes are
/// at fixed offsets and its class weight a constant factor (none for the first), where a loop
/// over the directions loaded the weight and multiplied by it for every cell.
#[inline(always)]
fn refresh_line<const D: usize>(
    i: Idx,
    off: isize,
    state: &mut [CellState; GRID],
    pairs: &[u16; SEEN],
    combo: &[&[u32; COMBO_LEN]; 2],
    deltas: &mut Deltas,
) {
    // Written out step by step: as a loop it was not unrolled, and its control cost about two
    // mispredictions a put.
    let mut step = |k: i32, sign: isize, j: usize| {
        let q = slot((i as isize + sign * off * k as isize) as usize);
        refresh_dir::<D>(&mut state[q], pairs[seen_slot(D, k, j)], combo, deltas);
    };
    const _: () = assert!(pattern::HALF == 5);
    step(1, 1, 0);
    step(1, -1, 1);
    step(2, 1, 0);
    step(2, -1, 1);
    step(3, 1, 0);
    step(3, -1, 1);
    step(4, 1, 0);
    step(4, -1, 1);
    step(5, 1, 0);
    step(5, -1, 1);
}

/// Builds the lookup tables a board of `rule` reads (per colour, then for pairs of line keys),
/// which are otherwise built by the first such board: 15-20 ms per rule on a fast machine, once
/// per process (a table another thread is building is waited for, not built twice). The
/// protocol builds every rule's tables on a thread of its own at start-up, and the engine has
/// them built on another thread when a game starts or the rule changes
/// ([`prepare_tables_soon`]), so that the first move's clock does not pay for them.
pub fn prepare_tables(rule: Rule) {
    for c in [Color::Black, Color::White] {
        pattern::table(Sem::of(rule, c));
    }
    pattern::prepare_combos(rule);
    pattern::pair_table(rule);
}

/// Starts building the tables of `rule` on a thread of its own unless they are built, and
/// returns at once: a search that needs them first waits for them (the tables are built once;
/// a second builder waits for the first). Where no thread can be started they are built when
/// first needed.
pub fn prepare_tables_soon(rule: Rule) {
    if !pattern::tables_built(rule) {
        prepare_tables_in_background(vec![rule]);
    }
}

/// Builds the tables of `rules`, in order, on one thread of its own (see
/// [`prepare_tables_soon`]); `None` when no thread could be started.
pub fn prepare_tables_in_background(rules: Vec<Rule>) -> Option<std::thread::JoinHandle<()>> {
    let spawned = std::thread::Builder::new()
        .name("tables".into())
        .spawn(move || rules.into_iter().for_each(prepare_tables));
    spawned
        .map_err(|e| log::warn!("no table thread ({e}); tables are built when needed"))
        .ok()
}

/// Length of a [`NearList`]: more than the cells of the largest board, plus eight.
pub const NEAR_LIST: usize = 8192;
const _: () =
    assert!(MAX_SIDE * MAX_SIDE + 8 <= NEAR_LIST && NEAR_LIST.is_power_of_two() && 2 * PAD >= 7);

/// The list [`FastBoard::near_empty_cells`] fills (fixed length: a masked index needs no bounds
/// check).
pub type NearList = Box<[u32; NEAR_LIST]>;

/// An empty [`NearList`].
pub fn near_list() -> NearList {
    vec![0; NEAR_LIST]
        .into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| unreachable!("NEAR_LIST elements"))
}

/// Multiplying a word whose bytes are 0 or 1 by this moves byte `j`'s bit to bit `56 + j`
/// (every other product lands below bit 56 or above bit 63, and none carries into them).
const GATHER_TOP_BITS: u64 = 0x0102_0408_1020_4080;

/// Per 8-bit mask of qualifying cells (bit `j`: the cell `j` columns on), the entry offsets of
/// those cells in order (column and cell index both advance by one per cell; the rest zero),
/// and their number.
static COMPRESS: [([u32; 8], u8); 256] = {
    let mut t = [([0u32; 8], 0u8); 256];
    let mut m = 0;
    while m < 256 {
        let (mut n, mut j) = (0, 0);
        while j < 8 {
            if m >> j & 1 != 0 {
                t[m].0[n] = j as u32 * 0x1_0001;
                n += 1;
            }
            j += 1;
        }
        t[m].1 = n as u8;
        m += 1;
    }
    t
};

/// An entry of [`FastBoard::near_empty_cells`]: cell index, column and row.
#[inline]
fn pack_near(i: Idx, x: usize, y: usize) -> u32 {
    i as u32 | (x as u32) << 16 | (y as u32) << 24
}

/// The cell index, column and row of an entry of [`FastBoard::near_empty_cells`].
#[inline]
pub fn unpack_near(e: u32) -> (Idx, i32, i32) {
    (
        (e & 0xffff) as Idx,
        (e >> 16 & 0xff) as i32,
        (e >> 24) as i32,
    )
}

/// The eight bytes of a per-cell array from slot `at` on, as a little-endian word (`at` + 8
/// stays within the [`GRID`] slots for every cell of a board).
#[inline(always)]
fn word_at(a: &[u8; GRID], at: usize) -> u64 {
    let at = slot(at).min(GRID - 8);
    u64::from_le_bytes(
        a[at..at + 8]
            .try_into()
            .unwrap_or_else(|_| unreachable!("eight bytes")),
    )
}

/// The top bit of each byte of `v` that is not zero (exact: the sum of a byte's low seven bits
/// and 0x7f never carries into the next byte).
#[inline(always)]
fn nonzero_bytes(v: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    (((v & LOW7) + LOW7) | v) & !LOW7
}

/// Row-by-row iterator over a rectangle of padded cell indices (see [`FastBoard::area`]).
pub struct AreaIter {
    next: Idx,
    row_end: Idx,
    row_len: usize,
    stride: usize,
    rows_left: usize,
}

impl Iterator for AreaIter {
    type Item = Idx;

    #[inline]
    fn next(&mut self) -> Option<Idx> {
        if self.next == self.row_end {
            if self.rows_left == 0 {
                return None;
            }
            self.rows_left -= 1;
            self.next += self.stride - self.row_len;
            self.row_end += self.stride;
        }
        let i = self.next;
        self.next += 1;
        Some(i)
    }
}

/// Bounding box of the stones (inclusive, board coordinates); empty when `x0 > x1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Bbox {
    x0: i32,
    y0: i32,
    x1: i32,
    y1: i32,
}

const EMPTY_BBOX: Bbox = Bbox {
    x0: i32::MAX,
    y0: i32::MAX,
    x1: i32::MIN,
    y1: i32::MIN,
};

impl FastBoard {
    /// An empty board (each side `MIN_SIDE..=MAX_SIDE`), whose cell scores take the built-in
    /// per-combination corrections that [`pattern::corrections`] gives it, if any.
    pub fn new(width: usize, height: usize, rule: Rule) -> Result<FastBoard, BoardError> {
        let k = pattern::corrections(rule, width, height);
        Self::with_corrections(width, height, rule, k)
    }

    /// An empty board whose cell scores take the built-in per-combination corrections `k` (of
    /// `rule`) or none, whatever its size: [`crate::eval::SizeShift`] compares boards as the
    /// networks off their own board saw them, without.
    pub fn with_corrections(
        width: usize,
        height: usize,
        rule: Rule,
        k: Option<pattern::Corrections>,
    ) -> Result<FastBoard, BoardError> {
        let ok = |s: usize| (MIN_SIDE..=MAX_SIDE).contains(&s);
        if !ok(width) || !ok(height) {
            return Err(BoardError::BadSize { width, height });
        }
        let stride = width + 2 * PAD;
        let total = stride * (height + 2 * PAD);
        let s = stride as isize;
        let mut b = FastBoard {
            width,
            height,
            stride,
            rule,
            tables: [Color::Black, Color::White].map(|c| {
                pattern::table(Sem::of(rule, c))
                    .try_into()
                    .expect("a pattern table has an entry per key")
            }),
            pairs: pattern::pair_table(rule),
            combo: [Color::Black, Color::White].map(|c| pattern::combo_for(rule, c, k)),
            dirs: [1, s, s + 1, s - 1],
            cells: grid(WALL),
            keys: [(); 4].map(|_| grid(0)),
            // Walls are flagged as occupied, so that put leaves them alone.
            state: grid(CellState {
                pats: [OCCUPIED; 4],
                ..CellState::default()
            }),
            totals: Totals {
                score_sum: [0; 2],
                threat_count: [[0; 16]; 2],
            },
            near: grid(0),
            near_star: false,
            hash: 0,
            history: Vec::with_capacity(width * height),
            log: Vec::new(),
            log_len: 0,
            bbox: EMPTY_BBOX,
            passes: 0,
        };
        // Every cell starts in the `None` bucket; occupied cells stay there.
        b.totals.threat_count[0][0] = (width * height) as u16;
        b.totals.threat_count[1][0] = (width * height) as u16;
        for y in 0..height {
            for x in 0..width {
                let i = b.idx(Pos::new(x as u8, y as u8));
                b.cells[i] = EMPTY;
            }
        }
        for i in 0..total {
            for d in 0..4 {
                b.keys[d][i] = b.compute_key(i, d);
            }
        }
        for y in 0..height {
            for x in 0..width {
                let i = b.idx(Pos::new(x as u8, y as u8));
                let (_, pats, combo) = b.expected_cell(i);
                let packed = [0, 1].map(|c| combo_index(pats[c]) as u16);
                let pats = pair_pats(pats);
                b.state[i] = CellState {
                    pats,
                    packed,
                    combo: [0; 2],
                };
                b.set_combo(
                    i,
                    CellState {
                        pats,
                        packed,
                        combo,
                    },
                );
            }
        }
        Ok(b)
    }

    /// The board of a game: same size, rule and moves (the game's side to move is ours).
    pub fn from_game(game: &Game) -> FastBoard {
        let gb = game.board();
        let mut b = FastBoard::new(gb.width(), gb.height(), game.rule()).expect("game size valid");
        for &m in game.moves() {
            b.make(b.idx(m));
        }
        b
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// Number of padded cells (the length of per-cell arrays).
    pub fn cell_count(&self) -> usize {
        self.stride * (self.height + 2 * PAD)
    }

    #[inline]
    pub fn idx(&self, p: Pos) -> Idx {
        (p.y as usize + PAD) * self.stride + p.x as usize + PAD
    }

    #[inline]
    pub fn pos(&self, i: Idx) -> Pos {
        Pos::new((i % self.stride - PAD) as u8, (i / self.stride - PAD) as u8)
    }

    /// Whether `p` is on this board.
    pub fn contains(&self, p: Pos) -> bool {
        (p.x as usize) < self.width && (p.y as usize) < self.height
    }

    #[inline]
    pub fn cell(&self, i: Idx) -> u8 {
        self.cells[slot(i)]
    }

    #[inline]
    pub fn is_empty(&self, i: Idx) -> bool {
        self.cells[slot(i)] == EMPTY
    }

    /// Number of stones on the board.
    pub fn ply(&self) -> usize {
        self.history.len()
    }

    pub fn is_full(&self) -> bool {
        self.history.len() == self.width * self.height
    }

    pub fn side_to_move(&self) -> Color {
        Color::of_ply(self.history.len() + self.passes)
    }

    /// Passes the move to the opponent (a search's null move); [`FastBoard::unmake_null`] takes
    /// it back. Null moves must be taken back in order with the real moves made after them.
    pub fn make_null(&mut self) {
        self.passes += 1;
        self.hash ^= zobrist::keys().side;
    }

    /// Takes back the last [`FastBoard::make_null`].
    pub fn unmake_null(&mut self) {
        debug_assert!(self.passes > 0, "unmake_null without a null move");
        self.passes -= 1;
        self.hash ^= zobrist::keys().side;
    }

    pub fn last_move(&self) -> Option<Idx> {
        self.history.last().map(|h| h.idx)
    }

    /// The move made `back` moves before the last one (0: the last move).
    pub fn move_back(&self, back: usize) -> Option<Idx> {
        let n = self.history.len();
        (back < n).then(|| self.history[n - 1 - back].idx)
    }

    /// The padded grid's row length (index difference of vertical neighbours).
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// Zobrist hash of the stones and the side to move.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The hash after the side to move plays the empty cell `i` (for prefetching).
    #[inline]
    pub fn hash_after(&self, i: Idx) -> u64 {
        let k = zobrist::keys();
        self.hash ^ k.stone[self.side_to_move().index()][i] ^ k.side
    }

    /// What `c` playing the empty cell `i` makes (all four lines together).
    #[inline]
    pub fn threat(&self, i: Idx, c: Color) -> Threat {
        Threat::from_u8(self.state[slot(i)].threat(c.index()))
    }

    /// The line key of `i` along direction `d` (0..4): its ten neighbours as black sees them
    /// (see [`pattern`]; [`swap_colors`] gives white's view).
    #[inline]
    pub fn line_key(&self, i: Idx, d: usize) -> u32 {
        self.keys[d][i]
    }

    /// Pattern of `c` at `i` along direction `d` (0..4).
    #[inline]
    pub fn pattern(&self, i: Idx, c: Color, d: usize) -> Pattern {
        Pattern::from_byte(self.state[i].pat(c.index(), d))
    }

    /// The combo-table index of the four line classes `c` would make at the empty cell `i`
    /// (see [`pattern::combo_index`]).
    #[inline]
    pub fn combo_packed(&self, i: Idx, c: Color) -> usize {
        self.state[slot(i)].packed[c.index()] as usize
    }

    /// Move-ordering and evaluation score of cell `i` for `c`.
    #[inline]
    pub fn cell_score(&self, i: Idx, c: Color) -> i32 {
        self.state[slot(i)].score(c.index()) as i32
    }

    /// Sum of cell scores of `c` over all empty cells.
    #[inline]
    pub fn score_sum(&self, c: Color) -> i32 {
        self.totals.score_sum[c.index()]
    }

    /// Number of empty cells where `c` has exactly threat `t`.
    #[inline]
    pub fn count(&self, c: Color, t: Threat) -> u32 {
        self.totals.threat_count[c.index()][t as usize] as u32
    }

    /// Every on-board cell index within `margin` of the stones' bounding box (row by row).
    pub fn area(&self, margin: i32) -> AreaIter {
        let (x0, y0, x1, y1) = self.area_rect(margin);
        let first = (y0 as usize + PAD) * self.stride + x0 as usize + PAD;
        let row_len = (x1 - x0 + 1) as usize;
        AreaIter {
            next: first,
            row_end: first + row_len,
            row_len,
            stride: self.stride,
            rows_left: (y1 - y0) as usize,
        }
    }

    /// The board rectangle (inclusive `x0, y0, x1, y1`) within `margin` of the stones' bounding
    /// box; on the empty board the centre.
    fn area_rect(&self, margin: i32) -> (i32, i32, i32, i32) {
        if self.bbox.x0 > self.bbox.x1 {
            let (cx, cy) = ((self.width / 2) as i32, (self.height / 2) as i32);
            (cx, cy, cx, cy)
        } else {
            (
                (self.bbox.x0 - margin).max(0),
                (self.bbox.y0 - margin).max(0),
                (self.bbox.x1 + margin).min(self.width as i32 - 1),
                (self.bbox.y1 + margin).min(self.height as i32 - 1),
            )
        }
    }

    /// Whether some stone lies in the neighbourhood of `i`: the 5x5 square around it, or the
    /// star (see [`FastBoard::set_near_star`]).
    #[inline]
    pub fn is_near(&self, i: Idx) -> bool {
        self.near[i] > 0
    }

    /// The board rectangle (inclusive `x0, y0, x1, y1`) that holds every cell
    /// [`FastBoard::near_empty_cells`] can return.
    pub fn near_rect(&self) -> (i32, i32, i32, i32) {
        self.area_rect(2)
    }

    /// The empty cells with a stone in their neighbourhood (those [`FastBoard::is_near`]
    /// accepts), row by row, at the start of `out`; on the empty board the centre. Returns
    /// their number (the entries after them are scratch). Each entry packs the cell
    /// index (low 16 bits) with its column (next 8) and row (top 8), see [`unpack_near`].
    ///
    /// Eight cells at a time: one word of cell bytes and one of near counts give a byte mask
    /// of the qualifying cells, and a table ([`COMPRESS`]) their entries, written as a block of
    /// eight of which the qualifying ones count. The scan is branch-free: whether a cell
    /// qualifies is unpredictable.
    pub fn near_empty_cells(&self, out: &mut NearList) -> usize {
        let (x0, y0, x1, y1) = self.near_rect();
        let (x0, y0, x1, y1) = (x0 as usize, y0 as usize, x1 as usize, y1 as usize);
        if self.bbox.x0 > self.bbox.x1 {
            // No stone is near anything: the centre alone.
            out[0] = pack_near(self.idx(Pos::new(x0 as u8, y0 as u8)), x0, y0);
            return 1;
        }
        let mut k = 0;
        for y in y0..=y1 {
            let row = (y + PAD) * self.stride + PAD;
            for x in (x0..x1 + 1).step_by(8) {
                let at = row + x;
                // The top bit of each byte: set when the cell qualifies. Cells past `x1` never
                // do: those on the board are more than two columns from every stone, and the
                // padding between rows (wider than seven cells) is walls.
                let m = nonzero_bytes(word_at(&self.near, at))
                    & !nonzero_bytes(word_at(&self.cells, at));
                let bits = ((m >> 7).wrapping_mul(GATHER_TOP_BITS) >> 56) as usize;
                let base = pack_near(at, x, y);
                let dst: &mut [u32; 8] = (&mut out[k..k + 8])
                    .try_into()
                    .unwrap_or_else(|_| unreachable!("eight entries"));
                for (d, &o) in dst.iter_mut().zip(&COMPRESS[bits].0) {
                    *d = base + o;
                }
                k += COMPRESS[bits].1 as usize;
            }
        }
        k
    }

    /// The cells where `c` has threat at least `t`, in the stones' area.
    pub fn cells_with(&self, c: Color, t: Threat) -> impl Iterator<Item = Idx> + '_ {
        let ci = c.index();
        self.area(4)
            .filter(move |&i| self.state[i].threat(ci) >= t as u8 && self.cells[i] == EMPTY)
    }

    /// Plays the side to move at the empty cell `i`.
    pub fn make(&mut self, i: Idx) {
        debug_assert!(self.cells[i] == EMPTY, "make on a non-empty cell");
        let c = self.side_to_move();
        self.history.push(Undo {
            idx: i,
            bbox: self.bbox,
            log_mark: self.log_len,
            totals: self.totals,
        });
        let p = self.pos(i);
        let (x, y) = (p.x as i32, p.y as i32);
        self.bbox = Bbox {
            x0: self.bbox.x0.min(x),
            y0: self.bbox.y0.min(y),
            x1: self.bbox.x1.max(x),
            y1: self.bbox.y1.max(y),
        };
        self.put(i, c);
        self.hash ^= zobrist::keys().side;
        self.adjust_near(i, 1);
        debug_assert!(self.is_consistent_near(i));
    }

    /// Takes back the last move; returns its cell.
    pub fn unmake(&mut self) -> Option<Idx> {
        let u = self.history.pop()?;
        self.take(u.idx, u.log_mark);
        self.totals = u.totals;
        self.bbox = u.bbox;
        self.hash ^= zobrist::keys().side;
        self.adjust_near(u.idx, -1);
        debug_assert!(self.is_consistent_near(u.idx));
        Some(u.idx)
    }

    /// Chooses the neighbourhood [`FastBoard::is_near`] and [`FastBoard::near_empty_cells`] use:
    /// the 5x5 square around a stone (the default) or, with `star`, only the 16 cells on the
    /// four lines through it within two steps. The counts are rebuilt from the stones.
    pub fn set_near_star(&mut self, star: bool) {
        if self.near_star == star {
            return;
        }
        self.near_star = star;
        self.near.fill(0);
        for i in 0..self.cell_count() {
            if self.cells[i] != EMPTY && self.cells[i] != WALL {
                self.adjust_near(i, 1);
            }
        }
    }

    /// Whether the near counts are those of the star (see [`FastBoard::set_near_star`]).
    pub fn near_star(&self) -> bool {
        self.near_star
    }

    /// Adds `delta` (1 or -1) to the stone counts of the neighbourhood of `i`: for the 5x5
    /// square five rows, each updated as one word.
    fn adjust_near(&mut self, i: Idx, delta: i8) {
        if self.near_star {
            let d = delta as u8;
            self.near[i] = self.near[i].wrapping_add(d);
            for dir in self.dirs {
                for k in [-2, -1, 1, 2] {
                    let q = (i as isize + k * dir) as usize;
                    self.near[q] = self.near[q].wrapping_add(d);
                }
            }
            return;
        }
        // Each row's five counts in one 8-byte word (the three bytes after them get 0): a count
        // never exceeds 25, and one being lowered counts the stone taken away, so no byte
        // carries into or borrows from the next. The grid's padding keeps the word on it.
        const FIVE_ONES: u64 = 0x01_0101_0101;
        let s = self.stride as isize;
        for dy in -2..=2isize {
            let q = (i as isize + dy * s - 2) as usize;
            let word: &mut [u8; 8] = (&mut self.near[q..q + 8])
                .try_into()
                .unwrap_or_else(|_| unreachable!("eight bytes"));
            let v = u64::from_le_bytes(*word);
            *word = if delta > 0 {
                v + FIVE_ONES
            } else {
                v - FIVE_ONES
            }
            .to_le_bytes();
        }
    }

    /// Puts a stone of `c` on the empty cell `i` (no history, no side change). The states of
    /// the cell and of those it sees are first copied to the undo log ([`LOGGED`] entries);
    /// [`FastBoard::take`] with the log length from before this call restores them.
    fn put(&mut self, i: Idx, c: Color) {
        let v = stone(c);
        self.cells[i] = v;
        self.hash ^= zobrist::keys().stone[c.index()][i];
        // The cell itself scores nothing while occupied, and is flagged as such.
        let old = self.state[i];
        self.set_combo(
            i,
            CellState {
                pats: old.pats.map(|p| p | OCCUPIED),
                combo: [0; 2],
                ..old
            },
        );
        let start = self.log_len;
        if self.log.len() < start + LOGGED {
            self.log.resize(start + LOGGED, CellState::default());
        }
        let saved: &mut [CellState; LOGGED] = (&mut self.log[start..start + LOGGED])
            .try_into()
            .unwrap_or_else(|_| unreachable!("LOGGED slots"));
        saved[0] = old;
        // Each empty cell that sees `i` does so along exactly one direction: one lookup pair
        // refreshes it. All 40 keys are flipped and looked up first, and the cells updated
        // after: the lookups (two class maps, then the class-pair table) are independent
        // loads, which overlap only when no branch on a loaded value comes between them.
        // The arrays are reached through locals: the log and key stores might, for all the
        // compiler knows, change the board's fields, which it then read again for every cell.
        let mut pairs = [0u16; SEEN];
        let (keys, state, table) = (&mut self.keys, &*self.state, self.pairs.lookup());
        for d in 0..4 {
            let off = self.dirs[d];
            for k in 1..pattern::HALF + 1 {
                for (sign, j) in [(1, 0), (-1, 1)] {
                    let q = slot((i as isize + sign * off * k as isize) as usize);
                    saved[1 + seen_slot(d, k, j)] = state[q];
                    let key = &mut keys[d][q];
                    *key ^= (v as u32) << pattern::shift(-sign as i32 * k);
                    pairs[seen_slot(d, k, j)] = table.get(*key);
                }
            }
        }
        // The refresh works on local copies of what it reads and sums (tables, totals), split
        // from the cell states it writes: the compiler then knows that a cell-state store
        // cannot change them, and keeps the sums in registers instead of reloading them.
        let combo = [&*self.combo[0].entry, &*self.combo[1].entry];
        let mut deltas = Deltas::NONE;
        let (state, dirs) = (&mut *self.state, self.dirs);
        let d = &mut deltas;
        refresh_line::<0>(i, dirs[0], state, &pairs, &combo, d);
        refresh_line::<1>(i, dirs[1], state, &pairs, &combo, d);
        refresh_line::<2>(i, dirs[2], state, &pairs, &combo, d);
        refresh_line::<3>(i, dirs[3], state, &pairs, &combo, d);
        self.log_len = start + LOGGED;
        deltas.apply(&mut self.totals);
    }

    /// Removes the stone at `i` that the [`FastBoard::put`] called at log length `log_mark`
    /// placed (no history, no side change): the keys are flipped back and the logged cell states
    /// restored, so no table lookups are needed. The caller restores the totals it saved before
    /// the put.
    fn take(&mut self, i: Idx, log_mark: usize) {
        let v = self.cells[i];
        let c = if v == BLACK {
            Color::Black
        } else {
            Color::White
        };
        self.cells[i] = EMPTY;
        self.hash ^= zobrist::keys().stone[c.index()][i];
        debug_assert_eq!(self.log_len, log_mark + LOGGED);
        let saved: &[CellState; LOGGED] = (&self.log[log_mark..log_mark + LOGGED])
            .try_into()
            .unwrap_or_else(|_| unreachable!("LOGGED slots"));
        // The totals are the caller's to restore (saved before the put).
        for d in 0..4 {
            let off = self.dirs[d];
            for k in 1..pattern::HALF + 1 {
                for (sign, j) in [(1, 0), (-1, 1)] {
                    let q = slot((i as isize + sign * off * k as isize) as usize);
                    self.keys[d][q] ^= (v as u32) << pattern::shift(-sign as i32 * k);
                    self.state[q] = saved[1 + seen_slot(d, k, j)];
                }
            }
        }
        self.state[i] = saved[0];
        self.log_len = log_mark;
    }

    /// Replaces the state of cell `i`, keeping the threat counts and score sums up to date.
    #[inline]
    fn set_combo(&mut self, i: Idx, new: CellState) {
        let st = &mut self.state[i];
        for c in 0..2 {
            let (old_t, t) = (st.threat(c), new.threat(c));
            if old_t != t {
                let count = &mut self.totals.threat_count[c];
                count[(old_t & 15) as usize] -= 1;
                count[(t & 15) as usize] += 1;
            }
            self.totals.score_sum[c] += new.score(c) as i32 - st.score(c) as i32;
        }
        *st = new;
    }

    /// The line key of `i` along `d`, read from the cells.
    fn compute_key(&self, i: Idx, d: usize) -> u32 {
        let off = self.dirs[d];
        let mut key = 0;
        for k in 1..=pattern::HALF {
            let at = |s: isize| -> u32 {
                let q = i as isize + s * off * k as isize;
                if q < 0 || q as usize >= self.cell_count() {
                    WALL as u32
                } else {
                    self.cells[q as usize] as u32
                }
            };
            key |= at(-1) << pattern::shift(-k);
            key |= at(1) << pattern::shift(k);
        }
        key
    }

    fn expected_cell(&self, i: Idx) -> ([u32; 4], [[u8; 4]; 2], [u32; 2]) {
        let mut keys = [0; 4];
        let mut pats = [[0; 4]; 2];
        for d in 0..4 {
            keys[d] = self.compute_key(i, d);
            pats[0][d] = self.tables[0][keys[d] as usize];
            pats[1][d] = self.tables[1][swap_colors(keys[d]) as usize];
        }
        let mut e = [0; 2];
        if self.cells[i] == EMPTY {
            for c in 0..2 {
                e[c] = self.combo[c].entry[combo_index(pats[c])];
            }
        }
        (keys, pats, e)
    }

    fn cell_consistent(&self, i: Idx) -> bool {
        if self.cells[i] == WALL {
            return true;
        }
        let (k, p, e) = self.expected_cell(i);
        let packed = [0, 1].map(|c| combo_index(p[c]) as u16);
        let st = &self.state[i];
        if self.cells[i] != EMPTY {
            // Patterns of occupied cells are not maintained (restored when the cell empties).
            return k == self.keys.each_ref().map(|keys| keys[i])
                && st.combo == [0; 2]
                && st.pats.iter().all(|&p| p & OCCUPIED != 0);
        }
        k == self.keys.each_ref().map(|keys| keys[i])
            && pair_pats(p) == st.pats
            && e == st.combo
            && packed == st.packed
    }

    /// The threat `c` would have at the empty cell `f` if `c`'s opponent also had a stone on the
    /// empty cell `r`, which lies on one of `f`'s lines within [`pattern::HALF`] steps (not `f`
    /// itself). Only that line's key changes, so one lookup in the stored key answers it; the
    /// board is not touched.
    pub fn threat_if_blocked(&self, f: Idx, c: Color, r: Idx) -> Threat {
        let (d, k) = self
            .line_step(f, r)
            .expect("the blocking cell lies on a line through the cell");
        self.threat_if_blocked_at(f, c, d, k)
    }

    /// The direction `d` and signed step count `k` (`1..=HALF` either way) of the cell `r` seen
    /// from the cell `f`, when `r` lies on one of `f`'s four lines within [`pattern::HALF`]
    /// steps; `None` otherwise (also for `r == f`).
    fn line_step(&self, f: Idx, r: Idx) -> Option<(usize, i32)> {
        let s = self.stride as isize;
        let (dx, dy) = (
            (r % self.stride) as isize - (f % self.stride) as isize,
            r as isize / s - f as isize / s,
        );
        // `dirs`: (1,0), (0,1), (1,1), (-1,1).
        let (d, k) = match (dx, dy) {
            (0, 0) => return None,
            (_, 0) => (0, dx),
            (0, _) => (1, dy),
            _ if dx == dy => (2, dx),
            _ if dx == -dy => (3, dy),
            _ => return None,
        };
        if k.abs() > pattern::HALF as isize {
            return None;
        }
        debug_assert_eq!(r as isize, f as isize + k * self.dirs[d]);
        Some((d, k as i32))
    }

    /// [`FastBoard::threat_if_blocked`] with the blocking stone's direction `d` and signed step
    /// count `k` (`1..=HALF` either way) from `f` given.
    #[inline]
    fn threat_if_blocked_at(&self, f: Idx, c: Color, d: usize, k: i32) -> Threat {
        let stone = stone(c.opponent()) as u32;
        let key = (self.keys[d][f] ^ (stone << pattern::shift(k))) & KEY_MASK;
        let pair = self.pairs.get(key);
        let ci = c.index();
        let st = &self.state[f];
        let packed = with_class(st.packed[ci], d, st.pat(ci, d), (pair >> (8 * ci)) as u8);
        Threat::from_u8(ComboTable::threat_of(
            self.combo[ci].entry[packed as usize & (COMBO_LEN - 1)],
        ))
    }

    /// Cheap self-check of the cells that see `i` (run after every make/unmake in debug builds).
    pub fn is_consistent_near(&self, i: Idx) -> bool {
        if !self.cell_consistent(i) {
            return false;
        }
        for d in 0..4 {
            for k in 1..=pattern::HALF as isize {
                for sign in [-1isize, 1] {
                    let q = (i as isize + sign * self.dirs[d] * k) as usize;
                    if !self.cell_consistent(q) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Full self-check: every incremental field against recomputation from the cells.
    pub fn is_consistent(&self) -> bool {
        let mut sums = [0i32; 2];
        let mut counts = [[0u16; 16]; 2];
        let mut hash = if (self.history.len() + self.passes) % 2 == 1 {
            zobrist::keys().side
        } else {
            0
        };
        for i in 0..self.cell_count() {
            if self.cells[i] == WALL {
                continue;
            }
            if !self.cell_consistent(i) {
                return false;
            }
            match self.cells[i] {
                BLACK => hash ^= zobrist::keys().stone[0][i],
                WHITE => hash ^= zobrist::keys().stone[1][i],
                _ => {}
            }
            for c in 0..2 {
                sums[c] += self.state[i].score(c) as i32;
                counts[c][self.state[i].threat(c) as usize] += 1;
            }
        }
        sums == self.totals.score_sum
            && counts == self.totals.threat_count
            && hash == self.hash
            && self.near_is_consistent()
    }

    /// Whether every cell's near count equals the number of stones in its neighbourhood (the
    /// 5x5 square, or the star), counted by coordinates.
    fn near_is_consistent(&self) -> bool {
        let (w, h) = (self.width as i32, self.height as i32);
        let stone = |x: i32, y: i32| {
            (0..w).contains(&x)
                && (0..h).contains(&y)
                && !self.is_empty(self.idx(Pos::new(x as u8, y as u8)))
        };
        (0..h).all(|y| {
            (0..w).all(|x| {
                let mut n = 0;
                for dy in -2..=2i32 {
                    for dx in -2..=2i32 {
                        let on_line = dx == 0 || dy == 0 || dx.abs() == dy.abs();
                        n += (stone(x + dx, y + dy) && (on_line || !self.near_star)) as u8;
                    }
                }
                self.near[self.idx(Pos::new(x as u8, y as u8))] == n
            })
        })
    }

    // ---- Rules ----

    /// Whether `c` playing the empty cell `i` wins now.
    #[inline]
    pub fn is_five(&self, i: Idx, c: Color) -> bool {
        self.state[i].threat(c.index()) == Threat::Five as u8
    }

    /// Whether black may not play the empty cell `i` (renju only; an exact five is never forbidden).
    pub fn is_forbidden(&mut self, i: Idx) -> bool {
        self.rule == Rule::Renju && self.cells[i] == EMPTY && !self.renju_allowed(i, true)
    }

    /// Whether the side to move may play `i` (empty, and not a renju foul).
    pub fn is_legal(&mut self, i: Idx) -> bool {
        self.cells[i] == EMPTY
            && !(self.rule == Rule::Renju
                && self.side_to_move() == Color::Black
                && self.is_forbidden(i))
    }

    /// Quick pre-test: could `i` be forbidden for black (so the full test is worth running)?
    #[inline]
    pub fn maybe_forbidden(&self, i: Idx) -> bool {
        if self.rule != Rule::Renju {
            return false;
        }
        let t = self.state[i].threat(0);
        t == Threat::Flex4 as u8
            || t == Threat::Three3 as u8
            || t == Threat::Four3 as u8
            || self.state[i].pats_of(0).iter().any(|&p| p & OVERLINE != 0)
    }

    /// The referee's `check` for black at the empty cell `i` (patterns current): true if allowed.
    fn renju_allowed(&mut self, i: Idx, five_ok: bool) -> bool {
        let pats = self.state[i].pats_of(0);
        let class = |b: u8| b & CLASS_MASK;
        // Step 1. An exact five decides at once.
        if pats.iter().any(|&b| class(b) == Pattern::Five as u8) {
            return five_ok;
        }
        // Step 2. Two fours (a one-line double four counts two).
        let fours: u32 = pats
            .iter()
            .map(|&b| {
                if class(b) == Pattern::Flex4 as u8 && b & DOUBLE_FOUR != 0 {
                    2
                } else if class(b) == Pattern::Flex4 as u8 || class(b) == Pattern::Block4 as u8 {
                    1
                } else {
                    0
                }
            })
            .sum();
        if fours >= 2 {
            return false;
        }
        // Step 4 (order does not matter after the five). Overline.
        if pats.iter().any(|&b| b & OVERLINE != 0) {
            return false;
        }
        // Step 3. Two real threes: only lines whose pattern can hold a three need the full test.
        let cand: Vec<usize> = (0..4)
            .filter(|&d| (Pattern::Flex3 as u8..=Pattern::Flex4 as u8).contains(&class(pats[d])))
            .collect();
        if cand.len() < 2 {
            return true;
        }
        let (mark, totals) = (self.log_len, self.totals);
        self.put(i, Color::Black);
        let mut threes = 0;
        for &d in &cand {
            if self.real_three(i, d) {
                threes += 1;
                if threes >= 2 {
                    break;
                }
            }
        }
        self.take(i, mark);
        self.totals = totals;
        threes < 2
    }

    /// Whether the black stone at `i` forms a real three along `d`: a key point turns the run
    /// through `i` into a straight four, and black may legally play that key point.
    fn real_three(&mut self, i: Idx, d: usize) -> bool {
        let off = self.dirs[d];
        for k in -3isize..=3 {
            if k == 0 {
                continue;
            }
            let q = (i as isize + k * off) as usize;
            if self.cells[q] != EMPTY {
                continue;
            }
            self.cells[q] = BLACK;
            let straight = self.is_straight_four(i, off, k);
            self.cells[q] = EMPTY;
            if straight && self.renju_allowed(q, false) {
                return true;
            }
        }
        false
    }

    /// Whether the black run through `i` along `off` is exactly four, includes the key point `k`
    /// steps away, and has both ends empty, each completing an exact five (raw cell walk).
    fn is_straight_four(&self, i: Idx, off: isize, k: isize) -> bool {
        let at = |s: isize| self.cells[(i as isize + s * off) as usize];
        let mut lo = 0;
        while at(lo - 1) == BLACK {
            lo -= 1;
        }
        let mut hi = 0;
        while at(hi + 1) == BLACK {
            hi += 1;
        }
        hi - lo + 1 == 4
            && (lo..=hi).contains(&k)
            && at(lo - 1) == EMPTY
            && at(hi + 1) == EMPTY
            && at(lo - 2) != BLACK
            && at(hi + 2) != BLACK
    }

    /// The cells where the side to move can answer the five points `fives` of its opponent so
    /// that the opponent has no five point left (legality of the answer is not checked).
    ///
    /// Outside caro a stone only stops the five it occupies, so one five point has one defence and
    /// two have none. In caro a five closed by opposing stones at both ends does not win, so a
    /// stone just beyond the end of the run through a five point defends as well; for each
    /// candidate every five point of the attacker is looked up in the pattern tables as a make
    /// would leave it, but without making it (debug builds check against make, count, unmake),
    /// which keeps the answer exactly what the tables say. `fives` may be some of the five
    /// points (the candidates come from them); the check covers all.
    pub fn five_defences(&mut self, fives: &[Idx], out: &mut Vec<Idx>) {
        out.clear();
        let attacker = self.side_to_move().opponent();
        if !matches!(self.rule, Rule::Caro { .. }) {
            if fives.len() == 1 {
                out.push(fives[0]);
            }
            return;
        }
        // The candidates are gathered in `out` (no allocation on this hot path of the caro
        // threat search), then those that leave a five point are dropped.
        let own = stone(attacker);
        out.extend_from_slice(fives);
        for &f in fives {
            for d in 0..4 {
                let off = self.dirs[d];
                for sign in [-1isize, 1] {
                    let mut q = (f as isize + sign * off) as usize;
                    while self.cells[q] == own {
                        q = (q as isize + sign * off) as usize;
                    }
                    if self.cells[q] == EMPTY && !out.contains(&q) {
                        out.push(q);
                    }
                }
            }
        }
        // A stone of the defender only closes lines: it takes five points away (the one it
        // fills, and those whose five it blocks or closes at an end) and never makes one. So
        // the attacker has no five point left after `q` when each of its five points is `q`
        // itself, or sees `q` on a line within [`pattern::HALF`] steps and has no five once
        // `q` is blocked (the same pair- and combo-table lookup `put` would make for it).
        // Debug builds check the answer against make, count, unmake.
        let all: Vec<Idx>;
        let fives = if fives.len() == self.count(attacker, Threat::Five) as usize {
            fives
        } else {
            all = self.cells_with(attacker, Threat::Five).collect();
            &all
        };
        debug_assert!(fives.iter().all(|&f| self.is_five(f, attacker)));
        out.retain(|&q| {
            let stopped = fives.iter().all(|&f| {
                f == q
                    || self.line_step(f, q).is_some_and(|(d, k)| {
                        self.threat_if_blocked_at(f, attacker, d, k) != Threat::Five
                    })
            });
            debug_assert_eq!(stopped, {
                self.make(q);
                let played = self.count(attacker, Threat::Five) == 0;
                self.unmake();
                played
            });
            stopped
        });
    }

    /// The cells along the four lines through `i` (within four steps) where `c` has a five.
    pub fn five_points_near(&self, i: Idx, c: Color, out: &mut Vec<Idx>) {
        out.clear();
        for d in 0..4 {
            let off = self.dirs[d];
            for k in 1..=4isize {
                for sign in [-1isize, 1] {
                    let q = (i as isize + sign * k * off) as usize;
                    if self.cells[q] == EMPTY && self.is_five(q, c) && !out.contains(&q) {
                        out.push(q);
                    }
                }
            }
        }
    }
}

impl std::fmt::Debug for FastBoard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "FastBoard {}x{} {}", self.width, self.height, self.rule)?;
        for y in 0..self.height {
            for x in 0..self.width {
                let ch = match self.cells[self.idx(Pos::new(x as u8, y as u8))] {
                    BLACK => 'X',
                    WHITE => 'O',
                    _ => '.',
                };
                write!(f, "{ch}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::rules;
    use rand::{Rng, SeedableRng};

    #[test]
    fn a_null_move_passes_the_turn_and_comes_back() {
        let mut b = FastBoard::new(15, 15, Rule::Freestyle).unwrap();
        b.make(b.idx(Pos::new(7, 7)));
        let (hash, side) = (b.hash(), b.side_to_move());
        b.make_null();
        assert_eq!(b.side_to_move(), side.opponent());
        assert_ne!(b.hash(), hash);
        assert!(b.is_consistent());
        // The same stones with the same side to move hash alike, however the turn passed.
        let i = b.idx(Pos::new(8, 8));
        b.make(i);
        assert_eq!(b.cell(i), stone(side.opponent()));
        assert!(b.is_consistent());
        b.unmake();
        b.unmake_null();
        assert_eq!((b.hash(), b.side_to_move()), (hash, side));
        assert!(b.is_consistent());
    }

    const RULES: [Rule; 5] = Rule::ALL;

    /// Random games (stones clustered so that shapes form), checking at every ply that the fast
    /// board's incremental state matches recomputation and its answers match the oracle.
    #[test]
    fn fast_board_agrees_with_oracle_and_recomputation() {
        let seed = 20261120u64;
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut checked_forbidden = 0;
        for game_no in 0..60 {
            let rule = RULES[game_no % RULES.len()];
            let (w, h) = [(15, 15), (9, 7), (20, 20), (6, 11)][game_no % 4];
            let mut g = Game::new(w, h, rule).unwrap();
            let mut fb = FastBoard::new(w, h, rule).unwrap();
            assert!(fb.is_consistent());
            let plies = rng.gen_range(10..(w * h).min(70));
            for _ in 0..plies {
                // Near the centre, so lines are dense.
                if g.board().is_full() {
                    break;
                }
                let (cx, cy) = (w as i32 / 2, h as i32 / 2);
                let mut p = g.board().empty_cells().next().unwrap();
                for _ in 0..100 {
                    let x = (cx + rng.gen_range(-4..=4)).clamp(0, w as i32 - 1);
                    let y = (cy + rng.gen_range(-4..=4)).clamp(0, h as i32 - 1);
                    let q = Pos::new(x as u8, y as u8);
                    if g.board().is_empty(q) {
                        p = q;
                        break;
                    }
                }
                // Compare wins and fouls for every empty cell.
                let me = g.side_to_move();
                for q in g.board().empty_cells().collect::<Vec<_>>() {
                    let i = fb.idx(q);
                    for c in [Color::Black, Color::White] {
                        assert_eq!(
                            fb.is_five(i, c),
                            rules::is_win(g.board(), rule, q, c),
                            "five mismatch {rule} {c} at {q}\n{:?}",
                            g.board()
                        );
                    }
                    if rule == Rule::Renju {
                        let slow = rules::is_forbidden(g.board(), q);
                        assert_eq!(
                            fb.is_forbidden(i),
                            slow,
                            "forbidden mismatch at {q}\n{:?}",
                            g.board()
                        );
                        if slow {
                            checked_forbidden += 1;
                        }
                    }
                }
                let _ = me;
                let i = fb.idx(p);
                let over = g.play(p).unwrap().is_some();
                fb.make(i);
                assert!(fb.is_consistent(), "inconsistent after {p}");
                assert_eq!(fb.side_to_move(), g.side_to_move());
                if over {
                    break;
                }
            }
            // Unmake everything and compare with a fresh board.
            while fb.unmake().is_some() {
                assert!(fb.is_consistent());
            }
            let fresh = FastBoard::new(w, h, rule).unwrap();
            assert_eq!(fb.hash(), fresh.hash());
            assert_eq!(fb.totals, fresh.totals);
        }
        assert!(
            checked_forbidden > 10,
            "seed {seed}: too few fouls seen ({checked_forbidden})"
        );
    }

    /// `five_defences` against brute force on the oracle: every empty cell is tried as the
    /// defender's stone, and it defends when the attacker then has no winning point anywhere.
    #[test]
    fn five_defences_agree_with_oracle() {
        let seed = 20261121u64;
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut checked = [0usize; 5];
        let mut caro_extra = 0;
        for game_no in 0..400 {
            let rule = RULES[game_no % RULES.len()];
            let (w, h) = [(9, 9), (11, 8)][game_no % 2];
            let mut g = Game::new(w, h, rule).unwrap();
            let mut fb = FastBoard::new(w, h, rule).unwrap();
            for _ in 0..rng.gen_range(8..40) {
                let empties: Vec<Pos> = g.board().empty_cells().collect();
                let p = empties[rng.gen_range(0..empties.len())];
                if g.play(p).unwrap().is_some() {
                    break;
                }
                fb.make(fb.idx(p));
                let attacker = g.side_to_move().opponent();
                let fives: Vec<Idx> = fb.cells_with(attacker, Threat::Five).collect();
                if fives.is_empty() {
                    continue;
                }
                let mut fast = Vec::new();
                fb.five_defences(&fives, &mut fast);
                let mut fast: Vec<Pos> = fast.into_iter().map(|i| fb.pos(i)).collect();
                fast.sort();
                let mut board = g.board().clone();
                let mut slow = Vec::new();
                for q in g.board().empty_cells() {
                    board.place(q, attacker.opponent()).unwrap();
                    let wins = board
                        .empty_cells()
                        .any(|r| rules::is_win(&board, rule, r, attacker));
                    board.remove(q);
                    if !wins {
                        slow.push(q);
                    }
                }
                slow.sort();
                assert_eq!(
                    fast,
                    slow,
                    "{rule} seed {seed} game {game_no}\n{:?}",
                    g.board()
                );
                checked[game_no % RULES.len()] += 1;
                if slow.len() > fives.len().min(1) {
                    caro_extra += 1;
                }
            }
        }
        assert!(
            checked.iter().all(|&n| n > 20),
            "too few positions: {checked:?}"
        );
        assert!(
            caro_extra > 5,
            "too few caro end-closing defences seen: {caro_extra}"
        );
    }

    /// Everything a make/unmake pair must leave as it found it.
    fn snapshot(b: &FastBoard) -> impl PartialEq + std::fmt::Debug {
        (
            b.cells.clone(),
            b.keys.clone(),
            b.state.clone(),
            b.totals,
            b.near.clone(),
            b.hash,
            b.bbox,
            b.log_len,
        )
    }

    /// Random walks of makes and unmakes (not only unwinding to the start): the undo log must
    /// restore every cell state exactly, and the state after each step must match recomputation.
    /// Renju foul tests in between (which put and take stones themselves) must change nothing.
    #[test]
    fn undo_log_restores_state_exactly() {
        let seed = 20261121u64;
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        for game_no in 0..40 {
            let rule = RULES[game_no % RULES.len()];
            let (w, h) = [(15, 15), (8, 12), (20, 20)][game_no % 3];
            let mut fb = FastBoard::new(w, h, rule).unwrap();
            let mut before: Vec<_> = Vec::new();
            for step in 0..120 {
                let undo = !before.is_empty() && (rng.gen_range(0..3) == 0 || fb.is_full());
                if undo {
                    fb.unmake().expect("a move to take back");
                    let want = before.pop().unwrap();
                    assert_eq!(
                        snapshot(&fb),
                        want,
                        "seed {seed} game {game_no} step {step}"
                    );
                } else {
                    let (cx, cy) = (w as i32 / 2, h as i32 / 2);
                    let cell = (0..50)
                        .map(|_| {
                            let x = (cx + rng.gen_range(-4..=4)).clamp(0, w as i32 - 1);
                            let y = (cy + rng.gen_range(-4..=4)).clamp(0, h as i32 - 1);
                            fb.idx(Pos::new(x as u8, y as u8))
                        })
                        .find(|&i| fb.is_empty(i));
                    let Some(i) = cell else { continue };
                    if rule == Rule::Renju {
                        let s = snapshot(&fb);
                        for q in fb.area(2).collect::<Vec<_>>() {
                            let _ = fb.is_forbidden(q);
                        }
                        assert_eq!(snapshot(&fb), s, "foul tests changed the board");
                    }
                    before.push(snapshot(&fb));
                    let predicted = fb.hash_after(i);
                    fb.make(i);
                    assert_eq!(fb.hash(), predicted, "hash_after");
                }
                assert!(fb.is_consistent(), "seed {seed} game {game_no} step {step}");
            }
        }
    }

    /// The star neighbourhood (`set_near_star`): counts rebuilt on a switch and kept by makes
    /// and unmakes agree with counting by coordinates (`is_consistent`), and a cell a knight's
    /// move from the only stone is near in the square but not in the star.
    #[test]
    fn near_star_counts_only_the_lines() {
        let seed = 20261122u64;
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut fb = FastBoard::new(15, 15, Rule::Freestyle).unwrap();
        let at = |fb: &FastBoard, x: u8, y: u8| fb.idx(Pos::new(x, y));
        fb.make(at(&fb, 7, 7));
        let (knight, line) = (at(&fb, 8, 9), at(&fb, 9, 9));
        assert!(fb.is_near(knight) && fb.is_near(line));
        fb.set_near_star(true);
        assert!(fb.near_star() && !fb.is_near(knight) && fb.is_near(line));
        assert!(fb.is_consistent());
        let mut cells = near_list();
        assert_eq!(fb.near_empty_cells(&mut cells), 16);
        fb.set_near_star(false);
        assert_eq!(fb.near_empty_cells(&mut cells), 24);
        for step in 0..200 {
            if rng.gen_range(0..10) == 0 {
                let star = !fb.near_star();
                fb.set_near_star(star);
            } else if fb.ply() > 1 && (rng.gen_range(0..3) == 0 || fb.ply() > 60) {
                fb.unmake();
            } else {
                let x = rng.gen_range(0..15u8);
                let y = rng.gen_range(0..15u8);
                let i = at(&fb, x, y);
                if fb.is_empty(i) {
                    fb.make(i);
                }
            }
            assert!(fb.is_consistent(), "seed {seed} step {step}");
        }
    }

    /// The byte-mask gather and the compress table, for every mask.
    #[test]
    fn gathered_masks_compress_to_their_set_bits() {
        for (bits, &(offsets, n)) in COMPRESS.iter().enumerate() {
            let m = (0..8).fold(0u64, |w, j| w | ((bits >> j & 1) as u64) << (8 * j + 7));
            assert_eq!(
                ((m >> 7).wrapping_mul(GATHER_TOP_BITS) >> 56) as usize,
                bits
            );
            let set: Vec<u32> = (0..8).filter(|j| bits >> j & 1 != 0).collect();
            assert_eq!(n as usize, set.len());
            for (k, &j) in set.iter().enumerate() {
                assert_eq!(offsets[k], j * 0x1_0001);
            }
        }
    }

    /// `near_empty_cells` lists exactly the empty cells `is_near` accepts, row by row with
    /// their coordinates, on boards of every width class (words cut at the row's end, the
    /// largest board's last row) and with either neighbourhood.
    #[test]
    fn near_empty_cells_are_the_near_empty_cells_in_order() {
        let seed = 20261124u64;
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut list = near_list();
        for (w, h) in [(15, 15), (20, 20), (7, 9), (64, 64), (5, 64), (33, 6)] {
            let mut fb = FastBoard::new(w, h, Rule::Freestyle).unwrap();
            for step in 0..150 {
                if rng.gen_range(0..12) == 0 {
                    let star = !fb.near_star();
                    fb.set_near_star(star);
                } else if fb.ply() > 0 && rng.gen_range(0..4) == 0 {
                    fb.unmake();
                } else {
                    let (x, y) = (rng.gen_range(0..w as u8), rng.gen_range(0..h as u8));
                    let i = fb.idx(Pos::new(x, y));
                    if fb.is_empty(i) {
                        fb.make(i);
                    }
                }
                let n = fb.near_empty_cells(&mut list);
                let got: Vec<_> = list[..n].iter().map(|&e| unpack_near(e)).collect();
                let mut want = Vec::new();
                for y in 0..h {
                    for x in 0..w {
                        let i = fb.idx(Pos::new(x as u8, y as u8));
                        if fb.is_empty(i) && fb.is_near(i) {
                            want.push((i, x as i32, y as i32));
                        }
                    }
                }
                if fb.ply() == 0 {
                    assert_eq!(n, 1, "the empty board lists its centre");
                } else {
                    assert_eq!(got, want, "{w}x{h} seed {seed} step {step}");
                }
            }
        }
    }

    #[test]
    fn renju_vectors_of_protocol_md() {
        let black = |stones: &[(u8, u8)], p: (u8, u8)| {
            let mut g = Game::new(15, 15, Rule::Renju).unwrap();
            let mut corner = [
                (0u8, 0u8),
                (14, 0),
                (0, 14),
                (14, 14),
                (0, 1),
                (14, 1),
                (0, 13),
            ]
            .into_iter()
            .chain((2..14).map(|y| (0u8, y)));
            for &(x, y) in stones {
                g.play(Pos::new(x, y)).unwrap();
                let c = corner.next().unwrap();
                g.play(Pos::new(c.0, c.1)).unwrap();
            }
            let mut fb = FastBoard::from_game(&g);
            let i = fb.idx(Pos::new(p.0, p.1));
            (
                fb.is_forbidden(i),
                rules::is_forbidden(g.board(), Pos::new(p.0, p.1)),
            )
        };
        type Case<'a> = (&'a [(u8, u8)], (u8, u8), bool);
        let cases: [Case; 6] = [
            (
                &[(7, 5), (9, 5), (8, 6), (10, 6), (9, 8), (7, 9)],
                (9, 6),
                false,
            ),
            (
                &[(3, 7), (4, 7), (5, 7), (9, 7), (10, 7), (11, 7)],
                (7, 7),
                true,
            ),
            (
                &[(4, 7), (5, 7), (6, 7), (7, 4), (7, 5), (7, 6)],
                (7, 7),
                true,
            ),
            (&[(2, 7), (3, 7), (4, 7), (6, 7), (7, 7)], (5, 7), true),
            (&[(4, 7), (5, 7), (6, 7), (7, 8), (7, 9)], (7, 7), false),
            (
                &[
                    (3, 7),
                    (4, 7),
                    (5, 7),
                    (6, 7),
                    (7, 5),
                    (7, 6),
                    (7, 8),
                    (7, 9),
                    (7, 10),
                ],
                (7, 7),
                false,
            ),
        ];
        for (stones, p, want) in cases {
            let (fast, slow) = black(stones, p);
            assert_eq!(slow, want, "oracle on {p:?}");
            assert_eq!(fast, want, "fast board on {p:?}");
        }
    }
}
